/*
 * tools/gen/wrappers-def.c: the wrappers.def parser.  The text is read line
 * by line into entries; each parameter's declaration is tokenised into
 * type words, stars, a name and an optional "[]", from which both forms
 * of the declaration (int and _c) are spelled.  Every rule a generated
 * wrapper relies on is checked here, with the line to blame, so that a
 * mistake in wrappers.def stops the build with a message instead of
 * producing a wrapper that compiles but records the wrong thing (in
 * MPICH MPI_Comm, MPI_Datatype and MPI_Op are all int, so the compiler
 * would not notice a role on the wrong parameter).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/gen/wrappers-def.h"
#include "writer/fn-info.h"

/* A vocabulary word of wrappers.def and the enum constant it stands for. */
struct word {
	const char *name;	/* enum suffix, upper case: "COLL" */
	const char *enum_name;	/* "ST_KIND_COLL" */
	int val;
};

#define KIND(n) { #n, "ST_KIND_" #n, ST_KIND_##n }
static const struct word kinds[] = {
	KIND(COLL), KIND(P2P), KIND(COMPLETE), KIND(COMM), KIND(INIT),
	KIND(FINALIZE), KIND(WIN), KIND(RMA), KIND(FILE), KIND(IO),
	KIND(PART), KIND(PHASE),
};

#define FAM(n) { #n, "ST_FAM_" #n, ST_FAM_##n }
static const struct word families[] = {
	FAM(BLOCKING), FAM(NONBLOCKING), FAM(PERSISTENT), FAM(LOCAL),
	FAM(SPLIT), FAM(EPOCH),
};

#define BYTES(n) { #n, "ST_BYTES_" #n, ST_BYTES_##n }
static const struct word bytes_classes[] = {
	BYTES(NONE), BYTES(BARRIER), BYTES(BCAST), BYTES(GATHER),
	BYTES(GATHERV), BYTES(SCATTER), BYTES(SCATTERV), BYTES(ALLGATHER),
	BYTES(ALLGATHERV), BYTES(ALLTOALL), BYTES(ALLTOALLV),
	BYTES(ALLTOALLW), BYTES(REDUCE), BYTES(ALLREDUCE),
	BYTES(REDUCE_SCATTER), BYTES(REDUCE_SCATTER_BLOCK), BYTES(SCAN),
	BYTES(NBR_ALLGATHER), BYTES(NBR_ALLGATHERV), BYTES(NBR_ALLTOALL),
	BYTES(NBR_ALLTOALLV), BYTES(NBR_ALLTOALLW), BYTES(SEND),
	BYTES(RECV), BYTES(SENDRECV), BYTES(SENDRECV_REPLACE), BYTES(PUT),
	BYTES(GET), BYTES(ACC), BYTES(GET_ACC), BYTES(FETCH_OP), BYTES(CAS),
	BYTES(READ), BYTES(WRITE), BYTES(PSEND), BYTES(PRECV), BYTES(PREADY),
	BYTES(PARRIVED),
};

/*
 * Why a function is not traced, as an 'untraced' line says; the lines
 * themselves explain each word.
 */
static const char *const reasons[] = {
	"query", "datatype", "attribute", "errhandler", "info", "group",
	"op", "handle", "tool", "name", "memory", "port", "time", "state",
	"request",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A value added to writer/fn-info.h must be added here too. */
_Static_assert(NELEM(kinds) == ST_KIND_MAX, "kinds out of date");
_Static_assert(NELEM(families) == ST_FAM_EPOCH, "families out of date");
_Static_assert(NELEM(bytes_classes) == ST_BYTES_CLASS_MAX,
	       "bytes classes out of date");

/*
 * Role names, and the parameter types each role accepts, spelled as
 * norm_type() does for the int form ("const void *", "const int []").
 * A count role takes int, POLYCOUNT or MPI_Count (the partitioned
 * calls' count is MPI_Count in the int form).
 */
struct role {
	const char *name;
	const char *types[3];
};

static const struct role roles[ST_ROLE_MAX] = {
	[ST_ROLE_NONE] = { "-", { NULL, NULL } },
	[ST_ROLE_SBUF] = { "sbuf", { "const void *", NULL } },
	[ST_ROLE_RBUF] = { "rbuf", { "void *", NULL } },
	[ST_ROLE_BUF] = { "buf", { "void *", NULL } },
	[ST_ROLE_SCOUNT] = { "scount", { "int", "POLYCOUNT", "MPI_Count" } },
	[ST_ROLE_RCOUNT] = { "rcount", { "int", "POLYCOUNT", "MPI_Count" } },
	[ST_ROLE_COUNT] = { "count", { "int", "POLYCOUNT", "MPI_Count" } },
	[ST_ROLE_STYPE] = { "stype", { "MPI_Datatype", NULL } },
	[ST_ROLE_RTYPE] = { "rtype", { "MPI_Datatype", NULL } },
	[ST_ROLE_TYPE] = { "type", { "MPI_Datatype", NULL } },
	[ST_ROLE_SCOUNTS] = { "scounts",
			      { "const int []", "const POLYCOUNT []" } },
	[ST_ROLE_RCOUNTS] = { "rcounts",
			      { "const int []", "const POLYCOUNT []" } },
	[ST_ROLE_STYPES] = { "stypes", { "const MPI_Datatype []", NULL } },
	[ST_ROLE_RTYPES] = { "rtypes", { "const MPI_Datatype []", NULL } },
	[ST_ROLE_ROOT] = { "root", { "int", NULL } },
	[ST_ROLE_OP] = { "op", { "MPI_Op", NULL } },
	[ST_ROLE_COMM] = { "comm", { "MPI_Comm", NULL } },
	[ST_ROLE_NEWCOMM] = { "newcomm", { "MPI_Comm *", NULL } },
	[ST_ROLE_COMMP] = { "commp", { "MPI_Comm *", NULL } },
	[ST_ROLE_PEER] = { "peer", { "int", NULL } },
	[ST_ROLE_TAG] = { "tag", { "int", NULL } },
	[ST_ROLE_PEER2] = { "peer2", { "int", NULL } },
	[ST_ROLE_TAG2] = { "tag2", { "int", NULL } },
	[ST_ROLE_REQUEST] = { "request", { "MPI_Request *", NULL } },
	[ST_ROLE_REQUESTS] = { "requests", { "MPI_Request []", NULL } },
	[ST_ROLE_NREQ] = { "nreq", { "int", NULL } },
	[ST_ROLE_INDEX] = { "index", { "int *", NULL } },
	[ST_ROLE_INDICES] = { "indices", { "int []", NULL } },
	[ST_ROLE_OUTCOUNT] = { "outcount", { "int *", NULL } },
	[ST_ROLE_FLAG] = { "flag", { "int *", NULL } },
	[ST_ROLE_STATUS] = { "status", { "MPI_Status *", NULL } },
	[ST_ROLE_STATUSES] = { "statuses", { "MPI_Status []", NULL } },
	[ST_ROLE_PROVIDED] = { "provided", { "int *", NULL } },
	[ST_ROLE_WIN] = { "win", { "MPI_Win", NULL } },
	[ST_ROLE_NEWWIN] = { "newwin", { "MPI_Win *", NULL } },
	[ST_ROLE_WINP] = { "winp", { "MPI_Win *", NULL } },
	[ST_ROLE_FILE] = { "file", { "MPI_File", NULL } },
	[ST_ROLE_NEWFILE] = { "newfile", { "MPI_File *", NULL } },
	[ST_ROLE_FILEP] = { "filep", { "MPI_File *", NULL } },
	[ST_ROLE_PATH] = { "path", { "const char *", NULL } },
	[ST_ROLE_OFFSET] = { "offset", { "MPI_Offset", "MPI_Aint" } },
	[ST_ROLE_ASSERT] = { "assert", { "int", NULL } },
	[ST_ROLE_LOCKTYPE] = { "locktype", { "int", NULL } },
	[ST_ROLE_AMODE] = { "amode", { "int", NULL } },
	[ST_ROLE_WHENCE] = { "whence", { "int", NULL } },
	[ST_ROLE_LEVEL] = { "level", { "const int", "int" } },
	[ST_ROLE_GROUP] = { "group", { "MPI_Group", NULL } },
	[ST_ROLE_PARTITION] = { "partition", { "int", NULL } },
	[ST_ROLE_PARTITION2] = { "partition2", { "int", NULL } },
	[ST_ROLE_PARTITIONS] = { "partitions", { "int", NULL } },
	[ST_ROLE_PARTLIST] = { "partlist", { "int []", NULL } },
	[ST_ROLE_REQ] = { "req", { "MPI_Request", NULL } },
	[ST_ROLE_MESSAGE] = { "message", { "MPI_Message *", NULL } },
	[ST_ROLE_SESSION] = { "session", { "MPI_Session *", NULL } },
};

/* How a POLY word is spelled in the int form [0] and the _c form [1]. */
static const struct {
	const char *word;
	const char *type[2];
} polys[] = {
	[ST_POLY_COUNT] = { "POLYCOUNT", { "int", "MPI_Count" } },
	[ST_POLY_DISP] = { "POLYDISP", { "int", "MPI_Aint" } },
};

#define MAX_WORDS 32
#define MAX_TOKENS 32

struct parser {
	struct st_def *def;
	struct st_def_error *err;
	size_t cap;		/* allocated entries of def->fns */
	size_t ucap;		/* allocated entries of def->untraced */
	int open;		/* def->fns[def->nfns - 1] awaits its 'end' */
	size_t pcap;		/* allocated params of the open entry */
	int mpi_open;		/* def->mpis[def->nmpis - 1] awaits its 'end' */
};

__attribute__((format(printf, 3, 4)))
static int fail(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;

	p->err->line = line;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int oom(struct parser *p)
{
	p->err->line = 0;
	snprintf(p->err->msg, sizeof(p->err->msg), "out of memory");
	return -ENOMEM;
}

/* 'word' is the lower-case spelling of 'upper'. */
static int is_lower_of(const char *word, const char *upper)
{
	for (; *word && *upper; word++, upper++)
		if (*word != tolower((unsigned char)*upper) ||
		    isupper((unsigned char)*word))
			return 0;
	return !*word && !*upper;
}

static const struct word *lookup(const struct word *tab, size_t n,
				 const char *word)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is_lower_of(word, tab[i].name))
			return &tab[i];
	return NULL;
}

static const char *enum_of(const struct word *tab, size_t n, int val)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tab[i].val == val)
			return tab[i].enum_name;
	return NULL;
}

const char *st_def_kind_enum(int kind)
{
	return enum_of(kinds, NELEM(kinds), kind);
}

const char *st_def_family_enum(int family)
{
	return enum_of(families, NELEM(families), family);
}

const char *st_def_bytes_enum(int bytes)
{
	return enum_of(bytes_classes, NELEM(bytes_classes), bytes);
}

int st_def_reason_ok(const char *word)
{
	size_t i;

	for (i = 0; i < NELEM(reasons); i++)
		if (!strcmp(word, reasons[i]))
			return 1;
	return 0;
}

const char *st_def_role_name(int role)
{
	if (role < 0 || role >= ST_ROLE_MAX)
		return NULL;
	return roles[role].name;
}

static int role_of(const char *word)
{
	int r;

	for (r = 0; r < ST_ROLE_MAX; r++)
		if (!strcmp(word, roles[r].name))
			return r;
	return -1;
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_ident(const char *s)
{
	if (!is_ident_start((unsigned char)*s))
		return 0;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* An MPI function name: "MPI_" and more of a C identifier. */
static int is_mpi_name(const char *s)
{
	return !strncmp(s, "MPI_", 4) && s[4] && is_ident(s);
}

int st_def_find_role(const struct st_def_fn *fn, int role)
{
	size_t i;

	for (i = 0; i < fn->nparams; i++)
		if (fn->params[i].role == role)
			return (int)i;
	return -1;
}

const struct st_def_fn *st_def_find(const struct st_def *def,
				    const char *name)
{
	size_t i;

	for (i = 0; i < def->nfns; i++)
		if (!strcmp(def->fns[i].name, name))
			return &def->fns[i];
	return NULL;
}

static void param_release(struct st_def_param *prm)
{
	free(prm->name);
	free(prm->decl[0]);
	free(prm->decl[1]);
}

static void fn_release(struct st_def_fn *fn)
{
	size_t i;

	for (i = 0; i < fn->nparams; i++)
		param_release(&fn->params[i]);
	free(fn->params);
	free(fn->name);
	free(fn->name_c);
	free(fn->twin);
}

static void words_release(struct st_def_words *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

static void mpi_release(struct st_def_mpi *m)
{
	free(m->name);
	free(m->marker);
	words_release(&m->fortran);
	words_release(&m->headers);
	words_release(&m->lacks);
	words_release(&m->renames);
}

void st_def_release(struct st_def *def)
{
	size_t i;

	for (i = 0; i < def->nfns; i++)
		fn_release(&def->fns[i]);
	free(def->fns);
	for (i = 0; i < def->nuntraced; i++) {
		free(def->untraced[i].name);
		free(def->untraced[i].reason);
	}
	free(def->untraced);
	def->fns = NULL;
	def->nfns = 0;
	def->untraced = NULL;
	def->nuntraced = 0;
	for (i = 0; i < def->nmpis; i++)
		mpi_release(&def->mpis[i]);
	free(def->mpis);
	def->mpis = NULL;
	def->nmpis = 0;
}

const struct st_def_mpi *st_def_find_mpi(const struct st_def *def,
					 const char *name)
{
	size_t i;

	for (i = 0; i < def->nmpis; i++)
		if (!strcmp(def->mpis[i].name, name))
			return &def->mpis[i];
	return NULL;
}

static int words_have(const struct st_def_words *w, const char *s)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], s))
			return 1;
	return 0;
}

int st_def_mpi_has(const struct st_def_mpi *mpi, const struct st_def_fn *fn)
{
	return !mpi || !words_have(&mpi->lacks, fn->name);
}

const char *st_def_mpi_name(const struct st_def_mpi *mpi,
			    const struct st_def_fn *fn)
{
	size_t i;

	for (i = 0; mpi && i + 1 < mpi->renames.n; i += 2)
		if (!strcmp(mpi->renames.v[i], fn->name))
			return mpi->renames.v[i + 1];
	return fn->name;
}

/* A growing string; 'oom' is set once an append failed. */
struct strbuf {
	char *buf;
	size_t len, cap;
	int oom;
};

static void sb_add(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	char *nb;

	if (sb->oom)
		return;
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = 2 * (sb->len + n + 1);
		nb = realloc(sb->buf, sb->cap);
		if (!nb) {
			sb->oom = 1;
			return;
		}
		sb->buf = nb;
	}
	memcpy(sb->buf + sb->len, s, n + 1);
	sb->len += n;
}

/* Take the string out of 'sb': NULL when an append failed. */
static char *sb_take(struct strbuf *sb)
{
	if (sb->oom || !sb->buf) {
		free(sb->buf);
		return sb->oom ? NULL : strdup("");
	}
	return sb->buf;
}

/* A parameter declaration, split up into tokens that live in 'buf'. */
struct decl {
	char *buf;
	const char *words[MAX_TOKENS];	/* type words */
	int nwords;
	int nstars;
	const char *name;
	int array;		/* ends in "[]" */
	int poly;		/* enum st_def_poly */
};

/*
 * Split 'text' ("const POLYCOUNT sendcounts[]") into 'd', whose 'buf'
 * the caller frees.  The accepted shape is WORD... STAR... NAME ["[]"]
 * with at least one type word.
 */
static int decl_split(struct parser *p, int line, const char *text,
		      struct decl *d)
{
	const char *tok[MAX_TOKENS];
	const char *s = text;
	int ntok = 0, i = 0, k, pl;
	char *o;

	memset(d, 0, sizeof(*d));
	d->buf = malloc(2 * strlen(text) + 1);
	if (!d->buf)
		return oom(p);
	o = d->buf;
	while (*s) {
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (ntok == MAX_TOKENS)
			goto bad;
		tok[ntok++] = o;
		if (*s == '*' || *s == '[' || *s == ']') {
			*o++ = *s++;
			*o++ = '\0';
			continue;
		}
		if (!is_ident_start((unsigned char)*s))
			goto bad;
		while (isalnum((unsigned char)*s) || *s == '_')
			*o++ = *s++;
		*o++ = '\0';
	}

	while (i < ntok && is_ident_start((unsigned char)tok[i][0]))
		d->words[d->nwords++] = tok[i++];
	while (i < ntok && !strcmp(tok[i], "*")) {
		d->nstars++;
		i++;
	}
	if (d->nstars) {
		if (i == ntok || !is_ident_start((unsigned char)tok[i][0]))
			goto bad;
		d->name = tok[i++];
	} else if (d->nwords >= 2) {
		d->name = d->words[--d->nwords];
	} else if (d->nwords == 1 && i == ntok) {
		return fail(p, line, "missing parameter name in '%s'", text);
	}
	if (!d->name || !d->nwords)
		goto bad;
	if (i + 1 < ntok && !strcmp(tok[i], "[") && !strcmp(tok[i + 1], "]")) {
		d->array = 1;
		i += 2;
	}
	if (i != ntok)
		goto bad;
	for (k = 0; k < d->nwords; k++) {
		for (pl = ST_POLY_COUNT; pl <= ST_POLY_DISP; pl++) {
			if (strcmp(d->words[k], polys[pl].word))
				continue;
			if (d->poly)
				return fail(p, line, "two POLY types in '%s'",
					    text);
			d->poly = pl;
		}
	}
	return 0;
bad:
	return fail(p, line, "bad parameter declaration '%s'", text);
}

/*
 * Spell 'd' for form 'large' (0: int, 1: _c): "const int sendcounts[]".
 * With 'norm' set, spell its type instead, POLY words kept and the name
 * left out, as the role table does: "const POLYCOUNT []", "MPI_Comm *".
 * Returns a string to free, or NULL when out of memory.
 */
static char *decl_spell(const struct decl *d, int large, int norm)
{
	struct strbuf sb = { 0 };
	int k;

	for (k = 0; k < d->nwords; k++) {
		const char *w = d->words[k];

		if (!norm && d->poly && !strcmp(w, polys[d->poly].word))
			w = polys[d->poly].type[large];
		if (k)
			sb_add(&sb, " ");
		sb_add(&sb, w);
	}
	if (!norm || d->nstars || d->array)
		sb_add(&sb, " ");
	for (k = 0; k < d->nstars; k++)
		sb_add(&sb, "*");
	if (norm && d->nstars && d->array)
		sb_add(&sb, " ");
	if (!norm)
		sb_add(&sb, d->name);
	if (d->array)
		sb_add(&sb, "[]");
	return sb_take(&sb);
}

static struct st_def_fn *cur_fn(struct parser *p)
{
	return &p->def->fns[p->def->nfns - 1];
}

/* Does the int-form type 'norm' suit role 'role'? */
static int role_accepts(int role, const char *norm)
{
	int k;

	if (role == ST_ROLE_NONE)
		return 1;
	for (k = 0; k < 3; k++)
		if (roles[role].types[k] && !strcmp(norm, roles[role].types[k]))
			return 1;
	return 0;
}

static int add_param(struct parser *p, int role, const struct decl *d)
{
	struct st_def_fn *fn = cur_fn(p);
	struct st_def_param *prm;

	if (fn->nparams == p->pcap) {
		size_t cap = p->pcap ? 2 * p->pcap : 8;
		struct st_def_param *np;

		np = realloc(fn->params, cap * sizeof(*np));
		if (!np)
			return oom(p);
		fn->params = np;
		p->pcap = cap;
	}
	prm = &fn->params[fn->nparams++];
	prm->role = role;
	prm->poly = d->poly;
	prm->varargs = 0;
	prm->name = strdup(d->name);
	prm->decl[0] = decl_spell(d, 0, 0);
	prm->decl[1] = decl_spell(d, 1, 0);
	if (!prm->name || !prm->decl[0] || !prm->decl[1])
		return oom(p);
	return 0;
}

/* The "..." of a variadic function: role '-', and nothing follows. */
static int add_varargs(struct parser *p, int line, int role)
{
	struct st_def_fn *fn = cur_fn(p);
	struct decl d;
	int rc;

	if (role != ST_ROLE_NONE)
		return fail(p, line, "'...' in '%s' has a role", fn->name);
	memset(&d, 0, sizeof(d));
	d.name = "...";
	rc = add_param(p, role, &d);
	if (rc)
		return rc;
	fn->params[fn->nparams - 1].varargs = 1;
	free(fn->params[fn->nparams - 1].decl[0]);
	free(fn->params[fn->nparams - 1].decl[1]);
	fn->params[fn->nparams - 1].decl[0] = strdup("...");
	fn->params[fn->nparams - 1].decl[1] = strdup("...");
	if (!fn->params[fn->nparams - 1].decl[0] ||
	    !fn->params[fn->nparams - 1].decl[1])
		return oom(p);
	return 0;
}

/* "ROLE DECLARATION": one parameter of the open entry. */
static int parse_param(struct parser *p, int line, const char *roleword,
		       const char *text)
{
	struct st_def_fn *fn = cur_fn(p);
	struct decl d;
	char *norm = NULL;
	int role, rc;
	size_t i;

	role = role_of(roleword);
	if (role < 0)
		return fail(p, line, "unknown role '%s'", roleword);
	if (!*text)
		return fail(p, line, "role '%s' without a declaration",
			    roleword);
	if (fn->nparams && fn->params[fn->nparams - 1].varargs)
		return fail(p, line, "parameter after '...' in '%s'",
			    fn->name);
	if (!strcmp(text, "..."))
		return add_varargs(p, line, role);
	rc = decl_split(p, line, text, &d);
	if (rc)
		goto out;
	for (i = 0; i < fn->nparams; i++) {
		if (!strcmp(fn->params[i].name, d.name)) {
			rc = fail(p, line, "duplicate parameter '%s'", d.name);
			goto out;
		}
		if (role != ST_ROLE_NONE && fn->params[i].role == role) {
			rc = fail(p, line, "duplicate role '%s'", roleword);
			goto out;
		}
	}
	if (d.poly && !(fn->flags & ST_DEF_LARGE)) {
		rc = fail(p, line, "%s parameter '%s' in '%s', which has no "
			  "_c form (flag large)", polys[d.poly].word, d.name,
			  fn->name);
		goto out;
	}
	norm = decl_spell(&d, 0, 1);
	if (!norm) {
		rc = oom(p);
		goto out;
	}
	if (!role_accepts(role, norm)) {
		rc = fail(p, line, "role '%s' needs type '%s', not '%s'",
			  roleword, roles[role].types[0], norm);
		goto out;
	}
	rc = add_param(p, role, &d);
out:
	free(norm);
	free(d.buf);
	return rc;
}

/*
 * Is 'name' the name of either form of an entry before the last one?
 * Case is ignored since function ids are the names in upper case.
 */
static int name_taken(const struct st_def *def, const char *name)
{
	size_t i;

	for (i = 0; i + 1 < def->nfns; i++)
		if (!strcasecmp(def->fns[i].name, name) ||
		    (def->fns[i].name_c &&
		     !strcasecmp(def->fns[i].name_c, name)))
			return 1;
	return 0;
}

/* "fn NAME KIND FAMILY BYTES [FLAG...]": open an entry. */
static int parse_header(struct parser *p, int line, char **w, int nw)
{
	const struct word *kind, *fam, *bytes;
	struct st_def_fn *fn;
	unsigned flags = 0;
	const char *twin = NULL;
	int i;

	if (nw < 5)
		return fail(p, line,
			    "expected 'fn NAME KIND FAMILY BYTES [FLAG...]'");
	if (!is_mpi_name(w[1]))
		return fail(p, line, "bad function name '%s'", w[1]);
	kind = lookup(kinds, NELEM(kinds), w[2]);
	if (!kind)
		return fail(p, line, "unknown kind '%s'", w[2]);
	fam = lookup(families, NELEM(families), w[3]);
	if (!fam)
		return fail(p, line, "unknown family '%s'", w[3]);
	bytes = lookup(bytes_classes, NELEM(bytes_classes), w[4]);
	if (!bytes)
		return fail(p, line, "unknown bytes class '%s'", w[4]);
	for (i = 5; i < nw; i++) {
		unsigned f = 0;

		if (!strcmp(w[i], "large"))
			f = ST_DEF_LARGE;
		else if (!strcmp(w[i], "f08"))
			f = ST_DEF_F08;
		else if (!strcmp(w[i], "rooted"))
			f = ST_DEF_ROOTED;
		else if (!strcmp(w[i], "snap"))
			f = ST_DEF_SNAP;
		else if (!strcmp(w[i], "session"))
			f = ST_DEF_SESSION;
		else if (!strcmp(w[i], "collective"))
			f = ST_DEF_COLLECTIVE;
		else if (!strcmp(w[i], "outside"))
			f = ST_DEF_OUTSIDE;
		else if (!strcmp(w[i], "nostatus"))
			f = ST_DEF_NOSTATUS;
		else if (!strcmp(w[i], "target"))
			f = ST_DEF_TARGET;
		else if (!strcmp(w[i], "offset"))
			f = ST_DEF_OFFSET;
		else if (!strcmp(w[i], "subgroup"))
			f = ST_DEF_SUBGROUP;
		else if (!strcmp(w[i], "newest"))
			f = ST_DEF_NEWEST;
		else if (!strncmp(w[i], "twin=", 5)) {
			if (twin)
				return fail(p, line, "duplicate flag 'twin'");
			twin = w[i] + 5;
			if (!is_mpi_name(twin))
				return fail(p, line, "bad twin name '%s'",
					    twin);
			continue;
		} else {
			return fail(p, line, "unknown flag '%s'", w[i]);
		}
		if (flags & f)
			return fail(p, line, "duplicate flag '%s'", w[i]);
		flags |= f;
	}

	if (p->def->nfns == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct st_def_fn *nf;

		nf = realloc(p->def->fns, cap * sizeof(*nf));
		if (!nf)
			return oom(p);
		p->def->fns = nf;
		p->cap = cap;
	}
	fn = &p->def->fns[p->def->nfns++];
	memset(fn, 0, sizeof(*fn));
	p->open = 1;
	p->pcap = 0;
	fn->line = line;
	fn->kind = kind->val;
	fn->family = fam->val;
	fn->bytes = bytes->val;
	fn->flags = flags;
	fn->name = strdup(w[1]);
	if (!fn->name)
		return oom(p);
	if (flags & ST_DEF_LARGE) {
		size_t n = strlen(w[1]) + 3;

		fn->name_c = malloc(n);
		if (!fn->name_c)
			return oom(p);
		snprintf(fn->name_c, n, "%s_c", w[1]);
	}
	if (twin) {
		fn->twin = strdup(twin);
		if (!fn->twin)
			return oom(p);
	}
	if (name_taken(p->def, fn->name))
		return fail(p, line, "duplicate function '%s'", fn->name);
	if (fn->name_c && name_taken(p->def, fn->name_c))
		return fail(p, line, "duplicate function '%s'", fn->name_c);
	return 0;
}

static int has_role(const struct st_def_fn *fn, int role)
{
	return st_def_find_role(fn, role) >= 0;
}

/* Role 'role' in 'fn' only if it is of kind 'kind'. */
static int role_only(struct parser *p, const struct st_def_fn *fn, int role,
		     int kind)
{
	char lower[16];
	size_t i;

	if (!has_role(fn, role) || fn->kind == kind)
		return 0;
	for (i = 0; kinds[kind - 1].name[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)tolower(
			(unsigned char)kinds[kind - 1].name[i]);
	lower[i] = '\0';
	return fail(p, fn->line, "role %s in '%s', which is not of kind %s",
		    roles[role].name, fn->name, lower);
}

/* The rules of the kinds and flags of the one-sided, I/O and later calls. */
static int check_fn_more(struct parser *p, const struct st_def_fn *fn)
{
	int line = fn->line, rc;
	unsigned f = fn->flags;

	if ((rc = role_only(p, fn, ST_ROLE_NEWWIN, ST_KIND_WIN)) ||
	    (rc = role_only(p, fn, ST_ROLE_WINP, ST_KIND_WIN)) ||
	    (rc = role_only(p, fn, ST_ROLE_NEWFILE, ST_KIND_FILE)) ||
	    (rc = role_only(p, fn, ST_ROLE_FILEP, ST_KIND_FILE)) ||
	    (rc = role_only(p, fn, ST_ROLE_MESSAGE, ST_KIND_P2P)) ||
	    (rc = role_only(p, fn, ST_ROLE_LEVEL, ST_KIND_PHASE)))
		return rc;
	if (fn->kind == ST_KIND_WIN && !has_role(fn, ST_ROLE_NEWWIN) &&
	    !has_role(fn, ST_ROLE_WINP))
		return fail(p, line, "window call '%s' has no newwin or winp "
			    "role", fn->name);
	if (fn->kind == ST_KIND_WIN && has_role(fn, ST_ROLE_NEWWIN) &&
	    !has_role(fn, ST_ROLE_COMM))
		return fail(p, line, "window constructor '%s' has no comm "
			    "role", fn->name);
	if (fn->kind == ST_KIND_FILE && !has_role(fn, ST_ROLE_NEWFILE) &&
	    !has_role(fn, ST_ROLE_FILEP) && !has_role(fn, ST_ROLE_PATH))
		return fail(p, line, "file call '%s' has no newfile, filep or "
			    "path role", fn->name);
	if (fn->kind == ST_KIND_FILE && has_role(fn, ST_ROLE_NEWFILE) &&
	    !has_role(fn, ST_ROLE_COMM))
		return fail(p, line, "file constructor '%s' has no comm role",
			    fn->name);
	if (fn->kind == ST_KIND_RMA && !has_role(fn, ST_ROLE_WIN))
		return fail(p, line, "one-sided call '%s' has no win role",
			    fn->name);
	if (fn->kind == ST_KIND_IO && !has_role(fn, ST_ROLE_FILE))
		return fail(p, line, "file call '%s' has no file role",
			    fn->name);
	if (fn->kind == ST_KIND_PART && !has_role(fn, ST_ROLE_REQ))
		return fail(p, line, "partition call '%s' has no req role",
			    fn->name);
	if (fn->kind == ST_KIND_PHASE && !has_role(fn, ST_ROLE_LEVEL))
		return fail(p, line, "phase call '%s' has no level role",
			    fn->name);
	if ((f & ST_DEF_COLLECTIVE) && !has_role(fn, ST_ROLE_WIN) &&
	    !has_role(fn, ST_ROLE_WINP) && !has_role(fn, ST_ROLE_FILE) &&
	    !has_role(fn, ST_ROLE_FILEP))
		return fail(p, line, "flag collective on '%s', which has no "
			    "win, winp, file or filep role", fn->name);
	if ((f & ST_DEF_SESSION) && fn->kind != ST_KIND_INIT &&
	    fn->kind != ST_KIND_FINALIZE)
		return fail(p, line, "flag session on '%s', which is not of "
			    "kind init or finalize", fn->name);
	if ((f & ST_DEF_OUTSIDE) && (fn->kind != ST_KIND_COMM ||
				     !has_role(fn, ST_ROLE_NEWCOMM)))
		return fail(p, line, "flag outside on '%s', which is not a "
			    "communicator constructor", fn->name);
	if ((f & ST_DEF_SUBGROUP) && (fn->kind != ST_KIND_COMM ||
				      !has_role(fn, ST_ROLE_COMM) ||
				      !has_role(fn, ST_ROLE_NEWCOMM)))
		return fail(p, line, "flag subgroup on '%s', which is not a "
			    "communicator constructor from a comm", fn->name);
	if ((f & ST_DEF_NOSTATUS) && (fn->kind != ST_KIND_P2P ||
				      fn->family != ST_FAM_NONBLOCKING))
		return fail(p, line, "flag nostatus on '%s', which is not a "
			    "nonblocking point-to-point call", fn->name);
	if (fn->family == ST_FAM_SPLIT && fn->kind != ST_KIND_IO)
		return fail(p, line, "family split for '%s', which is not of "
			    "kind io", fn->name);
	if ((f & ST_DEF_TARGET) && (fn->kind != ST_KIND_RMA ||
				    !has_role(fn, ST_ROLE_PEER)))
		return fail(p, line, "flag target on '%s', which is not a "
			    "one-sided call with a peer role", fn->name);
	if (!(f & ST_DEF_TARGET) && fn->kind == ST_KIND_RMA &&
	    has_role(fn, ST_ROLE_PEER))
		return fail(p, line, "one-sided '%s' has a peer role but no "
			    "flag target", fn->name);
	if (!(f & ST_DEF_OFFSET) != !has_role(fn, ST_ROLE_OFFSET))
		return fail(p, line, "'%s' has %s", fn->name,
			    f & ST_DEF_OFFSET ? "flag offset but no offset role"
			    : "an offset role but no flag offset");
	if (fn->family == ST_FAM_EPOCH && fn->kind != ST_KIND_RMA)
		return fail(p, line, "family epoch for '%s', which is not of "
			    "kind rma", fn->name);
	if (has_role(fn, ST_ROLE_SESSION) && !(f & ST_DEF_SESSION))
		return fail(p, line, "role session in '%s', which has no flag "
			    "session", fn->name);
	return 0;
}

/* The rules one entry must satisfy on its own, checked at its 'end'. */
static int check_fn(struct parser *p, const struct st_def_fn *fn)
{
	int line = fn->line, poly = 0;
	size_t i;

	for (i = 0; i < fn->nparams; i++)
		poly |= fn->params[i].poly != ST_POLY_NONE;
	if ((fn->flags & ST_DEF_LARGE) && !poly)
		return fail(p, line,
			    "_c form requested for '%s', which has no "
			    "POLYCOUNT or POLYDISP parameter", fn->name);
	if (fn->kind == ST_KIND_COLL && !has_role(fn, ST_ROLE_COMM))
		return fail(p, line, "collective '%s' has no comm role",
			    fn->name);
	if (fn->kind == ST_KIND_COLL && fn->family == ST_FAM_BLOCKING &&
	    !fn->twin)
		return fail(p, line, "blocking collective '%s' has no twin",
			    fn->name);
	if (fn->twin && fn->family != ST_FAM_BLOCKING)
		return fail(p, line, "twin given for '%s', which is not "
			    "blocking", fn->name);
	if ((fn->family == ST_FAM_NONBLOCKING ||
	     fn->family == ST_FAM_PERSISTENT) &&
	    !has_role(fn, ST_ROLE_REQUEST))
		return fail(p, line, "%s '%s' has no request role",
			    fn->family == ST_FAM_NONBLOCKING ?
			    "nonblocking" : "persistent", fn->name);
	if ((fn->flags & ST_DEF_ROOTED) && !has_role(fn, ST_ROLE_ROOT))
		return fail(p, line, "flag rooted on '%s', which has no root "
			    "role", fn->name);
	if (!(fn->flags & ST_DEF_ROOTED) && has_role(fn, ST_ROLE_ROOT))
		return fail(p, line, "'%s' has a root role but no flag rooted",
			    fn->name);
	if ((fn->flags & ST_DEF_SNAP) && fn->kind != ST_KIND_COMPLETE)
		return fail(p, line, "flag snap on '%s', which is not a "
			    "completion call", fn->name);
	if ((fn->flags & ST_DEF_NEWEST) && (!(fn->flags & ST_DEF_SNAP) ||
					    !has_role(fn, ST_ROLE_REQUEST)))
		return fail(p, line, "flag newest on '%s', which has no flag "
			    "snap or no request role", fn->name);
	if ((fn->flags & ST_DEF_SNAP) && !has_role(fn, ST_ROLE_REQUEST) &&
	    !has_role(fn, ST_ROLE_REQUESTS))
		return fail(p, line, "flag snap on '%s', which has no request "
			    "or requests role", fn->name);
	if ((has_role(fn, ST_ROLE_REQUESTS) ||
	     has_role(fn, ST_ROLE_STATUSES)) && !has_role(fn, ST_ROLE_NREQ))
		return fail(p, line, "'%s' has an array of requests or "
			    "statuses but no nreq role", fn->name);
	if (fn->kind == ST_KIND_COMM && !has_role(fn, ST_ROLE_NEWCOMM) &&
	    !has_role(fn, ST_ROLE_COMMP))
		return fail(p, line, "communicator call '%s' has no newcomm "
			    "or commp role", fn->name);
	if (has_role(fn, ST_ROLE_COMMP) && fn->kind != ST_KIND_COMM)
		return fail(p, line, "role commp in '%s', which is not of "
			    "kind comm", fn->name);
	return check_fn_more(p, fn);
}

/*
 * Does 'twin' take the parameters of 'fn' without its status, plus a
 * final request, in both forms?
 */
static int twin_matches(const struct st_def_fn *fn,
			const struct st_def_fn *twin)
{
	size_t i, j = 0;
	int f;

	for (i = 0; i < fn->nparams; i++) {
		const struct st_def_param *a = &fn->params[i];

		if (a->role == ST_ROLE_STATUS)
			continue;
		if (j == twin->nparams)
			return 0;
		for (f = 0; f < 2; f++)
			if (strcmp(a->decl[f], twin->params[j].decl[f]))
				return 0;
		j++;
	}
	return j + 1 == twin->nparams &&
	       twin->params[j].role == ST_ROLE_REQUEST;
}

/* The rules between entries: twins that are entries themselves. */
static int check_twins(struct parser *p)
{
	size_t i;

	for (i = 0; i < p->def->nfns; i++) {
		struct st_def_fn *fn = &p->def->fns[i];
		const struct st_def_fn *tw;

		if (!fn->twin)
			continue;
		tw = st_def_find(p->def, fn->twin);
		if (!tw)
			continue;	/* not wrapped: the compiler checks */
		if (tw->family != ST_FAM_NONBLOCKING)
			return fail(p, fn->line, "twin '%s' of '%s' is not "
				    "nonblocking", tw->name, fn->name);
		if ((fn->flags & ST_DEF_LARGE) && !(tw->flags & ST_DEF_LARGE))
			return fail(p, fn->line, "twin '%s' of '%s' has no _c "
				    "form", tw->name, fn->name);
		if (!twin_matches(fn, tw))
			return fail(p, fn->line, "twin '%s' does not take the "
				    "parameters of '%s' plus a request",
				    tw->name, fn->name);
		fn->twin_f08 = !!(tw->flags & ST_DEF_F08);
	}
	return 0;
}

/* "untraced REASON NAME...": functions deliberately left alone. */
static int parse_untraced(struct parser *p, int line, char **w, int nw)
{
	struct st_def *def = p->def;
	struct st_def_untraced *u;
	int i;
	size_t k;

	if (nw < 3)
		return fail(p, line, "expected 'untraced REASON NAME...'");
	if (!st_def_reason_ok(w[1]))
		return fail(p, line, "unknown reason '%s'", w[1]);
	for (i = 2; i < nw; i++) {
		if (!is_mpi_name(w[i]))
			return fail(p, line, "bad function name '%s'", w[i]);
		for (k = 0; k < def->nuntraced; k++)
			if (!strcmp(def->untraced[k].name, w[i]))
				return fail(p, line, "'%s' is already untraced "
					    "(line %d)", w[i],
					    def->untraced[k].line);
		if (def->nuntraced == p->ucap) {
			size_t cap = p->ucap ? 2 * p->ucap : 64;

			u = realloc(def->untraced, cap * sizeof(*u));
			if (!u)
				return oom(p);
			def->untraced = u;
			p->ucap = cap;
		}
		u = &def->untraced[def->nuntraced++];
		u->line = line;
		u->name = strdup(w[i]);
		u->reason = strdup(w[1]);
		if (!u->name || !u->reason)
			return oom(p);
	}
	return 0;
}

/* No function is both wrapped (in either form) and untraced. */
static int check_untraced(struct parser *p)
{
	const struct st_def *def = p->def;
	size_t i, j;

	for (i = 0; i < def->nuntraced; i++)
		for (j = 0; j < def->nfns; j++)
			if (!strcmp(def->fns[j].name, def->untraced[i].name) ||
			    (def->fns[j].name_c &&
			     !strcmp(def->fns[j].name_c,
				     def->untraced[i].name)))
				return fail(p, def->untraced[i].line,
					    "'%s' is both wrapped (line %d) "
					    "and untraced",
					    def->untraced[i].name,
					    def->fns[j].line);
	return 0;
}

/* Append copies of 'n' words 'w' to 'list'. */
static int words_add(struct parser *p, struct st_def_words *list, char **w,
		     int n)
{
	char **nv = realloc(list->v, (list->n + (size_t)n) * sizeof(*nv));
	int i;

	if (!nv)
		return oom(p);
	list->v = nv;
	for (i = 0; i < n; i++) {
		if (!(list->v[list->n] = strdup(w[i])))
			return oom(p);
		list->n++;
	}
	return 0;
}

/* "mpi NAME": open an MPI block. */
static int mpi_header(struct parser *p, int line, char **w, int nw)
{
	struct st_def_mpi *nm, *m;

	if (p->open)
		return fail(p, line, "'mpi' inside entry '%s' (missing 'end')",
			    cur_fn(p)->name);
	if (nw != 2 || !is_ident(w[1]))
		return fail(p, line, "expected 'mpi NAME'");
	if (st_def_find_mpi(p->def, w[1]))
		return fail(p, line, "duplicate mpi '%s'", w[1]);
	nm = realloc(p->def->mpis, (p->def->nmpis + 1) * sizeof(*nm));
	if (!nm)
		return oom(p);
	p->def->mpis = nm;
	m = &nm[p->def->nmpis++];
	memset(m, 0, sizeof(*m));
	m->line = line;
	p->mpi_open = 1;
	if (!(m->name = strdup(w[1])))
		return oom(p);
	return 0;
}

/* A line inside an 'mpi' block: "KEY WORD...", or "end". */
static int mpi_line(struct parser *p, int line, char **w, int nw)
{
	struct st_def_mpi *m = &p->def->mpis[p->def->nmpis - 1];
	int i;

	if (!strcmp(w[0], "end")) {
		if (nw > 1)
			return fail(p, line, "unexpected '%s' after 'end'",
				    w[1]);
		p->mpi_open = 0;
		return 0;
	}
	if (nw < 2)
		return fail(p, line, "'%s' needs a value", w[0]);
	if (!strcmp(w[0], "pmpi") || !strcmp(w[0], "large")) {
		const char *want = w[0][0] == 'p' ? "all" : "none";

		if (nw != 2 || strcmp(w[1], want))
			return fail(p, line, "expected '%s %s'", w[0], want);
		if (w[0][0] == 'p')
			m->pmpi_all = 1;
		else
			m->no_large = 1;
		return 0;
	}
	if (!strcmp(w[0], "marker")) {
		if (nw != 2 || !is_ident(w[1]) || m->marker)
			return fail(p, line, "expected one 'marker SYMBOL'");
		if (!(m->marker = strdup(w[1])))
			return oom(p);
		return 0;
	}
	if (!strcmp(w[0], "fortran"))
		return words_add(p, &m->fortran, w + 1, nw - 1);
	if (!strcmp(w[0], "header"))
		return words_add(p, &m->headers, w + 1, nw - 1);
	if (!strcmp(w[0], "lacks")) {
		for (i = 1; i < nw; i++)
			if (!is_mpi_name(w[i]))
				return fail(p, line, "bad function name '%s'",
					    w[i]);
		return words_add(p, &m->lacks, w + 1, nw - 1);
	}
	if (!strcmp(w[0], "as")) {
		if (nw != 3 || !is_mpi_name(w[1]) || !is_ident(w[2]))
			return fail(p, line, "expected 'as NAME REAL'");
		return words_add(p, &m->renames, w + 1, 2);
	}
	return fail(p, line, "unknown mpi key '%s'", w[0]);
}

/*
 * The rules of 'mpi' blocks: each name they give is an entry's, named
 * once, and not both lacking and renamed.
 */
static int check_mpis(struct parser *p)
{
	size_t i, j;

	for (i = 0; i < p->def->nmpis; i++) {
		const struct st_def_mpi *m = &p->def->mpis[i];

		for (j = 0; j < m->lacks.n; j++) {
			if (!st_def_find(p->def, m->lacks.v[j]))
				return fail(p, m->line, "mpi %s lacks '%s', "
					    "which is no entry", m->name,
					    m->lacks.v[j]);
			if (words_have(&m->renames, m->lacks.v[j]))
				return fail(p, m->line, "mpi %s both lacks and "
					    "renames '%s'", m->name,
					    m->lacks.v[j]);
		}
		for (j = 0; j < m->renames.n; j += 2)
			if (!st_def_find(p->def, m->renames.v[j]))
				return fail(p, m->line, "mpi %s renames '%s', "
					    "which is no entry", m->name,
					    m->renames.v[j]);
	}
	return 0;
}

/* Split 'line' in place into at most MAX_WORDS blank-separated words. */
static int split_words(char *line, char **w)
{
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*line))
			*line++ = '\0';
		if (!*line)
			return n;
		if (n == MAX_WORDS)
			return -1;
		w[n++] = line;
		while (*line && !isspace((unsigned char)*line))
			line++;
	}
}

static int parse_line(struct parser *p, int lineno, char *line)
{
	char *hash = strchr(line, '#');
	char *w[MAX_WORDS];
	size_t len;
	char *s, *e;
	int nw;

	if (hash)
		*hash = '\0';
	len = strlen(line);
	while (len && isspace((unsigned char)line[len - 1]))
		line[--len] = '\0';
	for (s = line; isspace((unsigned char)*s); s++)
		;
	if (!*s)
		return 0;
	for (e = s; *e && !isspace((unsigned char)*e); e++)
		;
	if (p->mpi_open || (e - s == 3 && !strncmp(s, "mpi", 3))) {
		nw = split_words(s, w);
		if (nw < 0)
			return fail(p, lineno, "too many words");
		return p->mpi_open ? mpi_line(p, lineno, w, nw)
				   : mpi_header(p, lineno, w, nw);
	}
	if (!p->open && e - s == 8 && !strncmp(s, "untraced", 8)) {
		nw = split_words(s, w);
		if (nw < 0)
			return fail(p, lineno, "too many words");
		return parse_untraced(p, lineno, w, nw);
	}
	if ((e - s == 2 && !strncmp(s, "fn", 2)) ||
	    (e - s == 3 && !strncmp(s, "end", 3))) {
		nw = split_words(s, w);
		if (nw < 0)
			return fail(p, lineno, "too many words");
	} else if (p->open) {
		/* a parameter: the role, then the declaration as it is */
		if (*e)
			*e++ = '\0';
		while (isspace((unsigned char)*e))
			e++;
		return parse_param(p, lineno, s, e);
	} else {
		*e = '\0';
		return fail(p, lineno, "expected 'fn', found '%s'", s);
	}
	if (!strcmp(w[0], "fn")) {
		if (p->open)
			return fail(p, lineno, "'fn' inside entry '%s' "
				    "(missing 'end')", cur_fn(p)->name);
		return parse_header(p, lineno, w, nw);
	}
	if (!p->open)
		return fail(p, lineno, "'end' outside an entry");
	if (nw > 1)
		return fail(p, lineno, "unexpected '%s' after 'end'", w[1]);
	p->open = 0;
	return check_fn(p, cur_fn(p));
}

int st_def_parse(struct st_def *def, const char *text,
		 struct st_def_error *err)
{
	struct parser p = { def, err, 0, 0, 0, 0, 0 };
	const char *s = text;
	int lineno = 0, rc = 0;

	def->fns = NULL;
	def->nfns = 0;
	def->mpis = NULL;
	def->nmpis = 0;
	def->untraced = NULL;
	def->nuntraced = 0;
	err->line = 0;
	err->msg[0] = '\0';
	while (*s && !rc) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = malloc(len + 1);

		lineno++;
		if (!line) {
			rc = oom(&p);
			break;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		rc = parse_line(&p, lineno, line);
		free(line);
		s += len + (nl ? 1 : 0);
	}
	if (!rc && p.open)
		rc = fail(&p, cur_fn(&p)->line, "entry '%s' has no 'end'",
			  cur_fn(&p)->name);
	if (!rc && p.mpi_open)
		rc = fail(&p, p.def->mpis[p.def->nmpis - 1].line,
			  "mpi '%s' has no 'end'",
			  p.def->mpis[p.def->nmpis - 1].name);
	if (!rc && !def->nfns)
		rc = fail(&p, 0, "no entries");
	if (!rc)
		rc = check_twins(&p);
	if (!rc)
		rc = check_mpis(&p);
	if (!rc)
		rc = check_untraced(&p);
	if (rc)
		st_def_release(def);
	return rc;
}
