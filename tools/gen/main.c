/*
 * tools/gen/main.c: writes OUTDIR/wrappers.c (the MPI_* wrappers of
 * libsynctrace.so) and OUTDIR/ops.h (the function ids and the ST_FN_LIST
 * table, free of mpi.h) from wrappers.def.  The meaning of every
 * function lives in wrappers.def and the shape of every wrapper in
 * pmpi/hooks.h; this program only transcribes one into the other, in
 * file order, so the same input always gives the same bytes.  Both files
 * are built in memory and renamed into place, so a failed run leaves no
 * half-written file.
 *
 *   gen-wrappers [--mpi=NAME] wrappers.def OUTDIR
 *   gen-wrappers [--mpi=NAME] --list wrappers.def  (names defined, _c included)
 *   gen-wrappers [--mpi=NAME] --list-pmpi wrappers.def (PMPI_ names defined)
 *   gen-wrappers --list-untraced wrappers.def (NAME REASON, not traced)
 *
 * wrappers.c is for the MPI of wrappers.def's 'mpi NAME' block (the
 * first by default); ops.h is the same for every MPI.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/gen/wrappers-def.h"
#include "writer/fn-info.h"

#define BANNER "/* Generated from wrappers.def by tools/gen. " \
	       "Do not edit. */\n"

static const char usage_text[] =
	"usage: gen-wrappers [--mpi=NAME] wrappers.def OUTDIR\n"
	"   or: gen-wrappers [--mpi=NAME] --list wrappers.def\n"
	"   or: gen-wrappers [--mpi=NAME] --list-pmpi wrappers.def\n"
	"   or: gen-wrappers --list-untraced wrappers.def\n";

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("gen-wrappers: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

__attribute__((format(printf, 1, 2)))
static char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

/* A list of strings, each owned by the list. */
struct strlist {
	char **v;
	size_t n, cap;
};

static void sl_push(struct strlist *sl, char *s)
{
	if (sl->n == sl->cap) {
		sl->cap = sl->cap ? 2 * sl->cap : 16;
		sl->v = realloc(sl->v, sl->cap * sizeof(*sl->v));
		if (!sl->v)
			die("out of memory");
	}
	sl->v[sl->n++] = s;
}

static void sl_clear(struct strlist *sl)
{
	size_t i;

	for (i = 0; i < sl->n; i++)
		free(sl->v[i]);
	free(sl->v);
	memset(sl, 0, sizeof(*sl));
}

/*
 * 'head', then 'items' joined by ", ", then 'tail', for a line that
 * starts at 'indent' tabs: the line breaks before an item that would
 * pass column 80 and goes on at 'indent' + 'cont' tabs.  An item is
 * never broken.  Returns a string to free, without the first line's
 * indentation and without a final newline.
 */
static char *fmt_list(int indent, int cont, const char *head,
		      const struct strlist *items, const char *tail)
{
	char *buf = NULL;
	size_t blen = 0, i, col;
	FILE *f = open_memstream(&buf, &blen);
	int k;

	if (!f)
		die("out of memory");
	fputs(head, f);
	col = 8 * indent + strlen(head);
	for (i = 0; i < items->n; i++) {
		const char *it = items->v[i];
		int last = i + 1 == items->n;
		size_t len = strlen(it) + (last ? strlen(tail) : 1);

		if (i && col + 1 + len > 80) {
			fputc('\n', f);
			for (k = 0; k < indent + cont; k++)
				fputc('\t', f);
			col = 8 * (indent + cont);
		} else if (i) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%s%s", it, last ? tail : ",");
		col += len;
	}
	if (!items->n)
		fputs(tail, f);
	if (ferror(f) || fclose(f))
		die("out of memory");
	return buf;
}

/* fmt_list() as a line of its own, indented by 'indent' tabs. */
static void put_list(FILE *f, int indent, int cont, const char *head,
		     const struct strlist *items, const char *tail)
{
	char *s = fmt_list(indent, cont, head, items, tail);
	int k;

	for (k = 0; k < indent; k++)
		fputc('\t', f);
	fprintf(f, "%s\n", s);
	free(s);
}

/* "ST_FN_MPI_ALLREDUCE_C" for "MPI_Allreduce_c". */
static char *fn_id(const char *name)
{
	char *id = xstrfmt("ST_FN_%s", name);
	char *s;

	for (s = id; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	return id;
}

static const char *form_name(const struct st_def_fn *fn, int large)
{
	return large ? fn->name_c : fn->name;
}

/*
 * The MPI wrappers.c is written for ('--mpi', else the first 'mpi' block
 * of wrappers.def; NULL in a file without any), and the whole file, for
 * the twins.  gen/ops.h is the same for every MPI.
 */
static const struct st_def_mpi *mpi;
static const struct st_def *the_def;

/* The C name of form 'large' of 'fn' in 'mpi': "MPIX_Barrier_init". */
static const char *c_name(const struct st_def_fn *fn, int large)
{
	return large ? fn->name_c : st_def_mpi_name(mpi, fn);
}

/* Forms of 'fn' in 'mpi': none when it lacks it, no _c form with 'large none'. */
static int nforms_mpi(const struct st_def_fn *fn)
{
	if (!st_def_mpi_has(mpi, fn))
		return 0;
	return fn->name_c && !(mpi && mpi->no_large) ? 2 : 1;
}

/* Whether synctrace defines PMPI_X of 'fn' too (f08, or 'pmpi all'). */
static int defines_pmpi(const struct st_def_fn *fn)
{
	return (fn->flags & ST_DEF_F08) || (mpi && mpi->pmpi_all);
}

/* The parameter declarations of one form; "void" when there are none. */
static void decl_list(struct strlist *sl, const struct st_def_fn *fn,
		      int large)
{
	size_t i;

	for (i = 0; i < fn->nparams; i++)
		sl_push(sl, xstrfmt("%s", fn->params[i].decl[large]));
	if (!fn->nparams)
		sl_push(sl, xstrfmt("void"));
}

/*
 * The arguments that pass the parameters of 'fn' on: their names, the
 * status left out when 'skip_status' is set, and 'extra' added at the
 * end unless it is NULL.
 */
static void args_of(struct strlist *sl, const struct st_def_fn *fn,
		    int skip_status, const char *extra)
{
	size_t i;

	for (i = 0; i < fn->nparams; i++)
		if ((!skip_status || fn->params[i].role != ST_ROLE_STATUS) &&
		    !fn->params[i].varargs)
			sl_push(sl, xstrfmt("%s", fn->params[i].name));
	if (extra)
		sl_push(sl, xstrfmt("%s", extra));
}

/* "return callee(args);" at 'indent' tabs. */
static void put_return(FILE *f, int indent, const char *callee,
		       const struct strlist *args)
{
	char *head = xstrfmt("return %s(", callee);

	put_list(f, indent, 1, head, args, ");");
	free(head);
}

/*
 * "rc = ST_YIELDABLE(&c, blocking, nonblocking, status);" on one line
 * if it fits, else one macro argument a line; for a call with a peer
 * (not NULL: its parameter's name), ST_YIELDABLE_P2P(&c, peer, ...).
 */
static void put_yieldable(FILE *f, const char *real, const char *twin,
			  const struct strlist *args,
			  const struct strlist *twin_args, const char *status,
			  const char *peer)
{
	char *h1 = xstrfmt("%s(", real), *h2 = xstrfmt("%s(", twin);
	char *b = fmt_list(2, 1, h1, args, ")");
	char *nb = fmt_list(2, 1, h2, twin_args, ")");
	char *head = peer ? xstrfmt("ST_YIELDABLE_P2P(&c, %s,", peer)
			  : xstrfmt("ST_YIELDABLE(&c,");
	char *line = xstrfmt("rc = %s %s, %s, %s);", head, b, nb, status);

	if (!strchr(line, '\n') && 8 + strlen(line) <= 80) {
		fprintf(f, "\t%s\n", line);
	} else {
		free(b);
		free(nb);
		b = fmt_list(2, 1, h1, args, "),");
		nb = fmt_list(2, 1, h2, twin_args, "),");
		fprintf(f, "\trc = %s\n\t\t%s\n\t\t%s\n"
			"\t\t%s);\n", head, b, nb, status);
	}
	free(head);
	free(line);
	free(nb);
	free(b);
	free(h2);
	free(h1);
}

/*
 * Roles that make up a struct st_key (pmpi/hooks.h): every role a
 * repeatable function may have, since its wrapper fills nothing else.
 */
static int key_role(int role)
{
	switch (role) {
	case ST_ROLE_SBUF: case ST_ROLE_RBUF: case ST_ROLE_BUF:
	case ST_ROLE_SCOUNT: case ST_ROLE_RCOUNT: case ST_ROLE_COUNT:
	case ST_ROLE_STYPE: case ST_ROLE_RTYPE: case ST_ROLE_TYPE:
	case ST_ROLE_OP: case ST_ROLE_ROOT: case ST_ROLE_COMM:
	case ST_ROLE_PEER: case ST_ROLE_TAG: case ST_ROLE_REQUEST:
	case ST_ROLE_NONE:
		return 1;
	}
	return 0;
}

/*
 * Calls whose record follows from scalar arguments (no count or type
 * arrays): blocking collectives, and nonblocking collectives and
 * point-to-point sends and receives, whose requests then follow too.
 * Their wrappers hand a struct st_key to st_key_find() before the call
 * and finish with st_leave_key(), which takes the repeat path when the
 * key was found (st_leave_nb_key() for the nonblocking ones, those with
 * a request).  They carry ST_FNF_REPEAT in gen/ops.h.
 */
static int repeatable(const struct st_def_fn *fn)
{
	size_t i;
	int ok = 0;

	switch (fn->bytes) {
	case ST_BYTES_BARRIER: case ST_BYTES_BCAST: case ST_BYTES_GATHER:
	case ST_BYTES_SCATTER: case ST_BYTES_ALLGATHER:
	case ST_BYTES_ALLTOALL: case ST_BYTES_REDUCE:
	case ST_BYTES_ALLREDUCE: case ST_BYTES_REDUCE_SCATTER_BLOCK:
	case ST_BYTES_SCAN:
		ok = fn->kind == ST_KIND_COLL &&
		     (fn->family == ST_FAM_BLOCKING ||
		      fn->family == ST_FAM_NONBLOCKING);
		break;
	case ST_BYTES_SEND: case ST_BYTES_RECV:
		ok = fn->kind == ST_KIND_P2P &&
		     fn->family == ST_FAM_NONBLOCKING;
		break;
	}
	for (i = 0; ok && i < fn->nparams; i++)
		ok = key_role(fn->params[i].role);
	return ok;
}

static const char *param_of(const struct st_def_fn *fn, int role)
{
	int i = st_def_find_role(fn, role);

	return i < 0 ? NULL : fn->params[i].name;
}

/* The roles of struct st_rkey: the one-sided calls' key. */
static int rma_key_role(int role)
{
	switch (role) {
	case ST_ROLE_SBUF: case ST_ROLE_RBUF: case ST_ROLE_SCOUNT:
	case ST_ROLE_RCOUNT: case ST_ROLE_COUNT: case ST_ROLE_STYPE:
	case ST_ROLE_RTYPE: case ST_ROLE_TYPE: case ST_ROLE_OP:
	case ST_ROLE_PEER: case ST_ROLE_WIN: case ST_ROLE_OFFSET:
	case ST_ROLE_ASSERT: case ST_ROLE_LOCKTYPE: case ST_ROLE_NONE:
		return 1;
	}
	return 0;
}

/*
 * One-sided calls whose record follows from their key (pmpi/rma.c):
 * those without a request, a group or a flag, whose every role is in
 * struct st_rkey.  Their wrappers hand it to st_rma_find() before the
 * call and finish with st_leave_rma_key().
 */
static int rma_keyed(const struct st_def_fn *fn)
{
	size_t i;

	if (fn->kind != ST_KIND_RMA || fn->family == ST_FAM_NONBLOCKING)
		return 0;
	for (i = 0; i < fn->nparams; i++)
		if (!rma_key_role(fn->params[i].role))
			return 0;
	return 1;
}

/*
 * The designated initialisers ".role = param" of 'fn''s parameters with a
 * role, and ".large = 1" for the large-count form; "0" when none.
 */
static void role_inits(struct strlist *sl, const struct st_def_fn *fn,
		       int large)
{
	size_t i;

	for (i = 0; i < fn->nparams; i++) {
		const struct st_def_param *prm = &fn->params[i];

		if (prm->role != ST_ROLE_NONE)
			sl_push(sl, xstrfmt(".%s = %s",
					    st_def_role_name(prm->role),
					    prm->name));
	}
	if (large)
		sl_push(sl, xstrfmt(".large = 1"));
	if (!sl->n)
		sl_push(sl, xstrfmt("0"));
}

/* "st_rma_find(&c, (struct st_rkey){ .role = param, ... });" */
static void put_rma_key(FILE *f, const struct st_def_fn *fn, int large)
{
	struct strlist sl = { 0 };

	role_inits(&sl, fn, large);
	put_list(f, 1, 1, "st_rma_find(&c, (struct st_rkey){ ", &sl, " });");
	sl_clear(&sl);
}

/*
 * "st_key_find(&c, (struct st_key){ .role = param, ... });" for
 * repeatable 'fn', whose every role must be a key role: st_leave_key()
 * knows the call from its key alone.
 */
static void put_key(FILE *f, const struct st_def_fn *fn)
{
	struct strlist sl = { 0 };
	size_t i;

	for (i = 0; i < fn->nparams; i++) {
		const struct st_def_param *prm = &fn->params[i];

		if (prm->role == ST_ROLE_NONE)
			continue;
		if (!key_role(prm->role))
			die("%s: role %s is not in struct st_key", fn->name,
			    st_def_role_name(prm->role));
		sl_push(&sl, xstrfmt(".%s = %s", st_def_role_name(prm->role),
				     prm->name));
	}
	if (!sl.n)
		sl_push(&sl, xstrfmt("0"));
	put_list(f, 1, 1, "st_key_find(&c, (struct st_key){ ", &sl, " });");
	sl_clear(&sl);
}

/*
 * "c.a = (struct st_args){ .role = param, ... };" for form 'large' of
 * 'fn'; for a completion call "c.a.role = param;" for each role a
 * completion call may have, 0 for those it lacks, and no others
 * (pmpi/hooks.h): it runs on every Wait and Test; likewise for a
 * one-sided call with the roles of those.
 */
/*
 * "c.a.role = param;" for each of the 'n' roles of 'roles', 0 for those
 * 'fn' lacks, and no others; 'fn' must have no role beyond them ('what'
 * names the list in the error).
 */
static void put_role_list(FILE *f, const struct st_def_fn *fn,
			  const int *roles, size_t n, const char *what)
{
	size_t i, j;

	for (i = 0; i < fn->nparams; i++) {
		for (j = 0; j < n && roles[j] != fn->params[i].role; j++)
			;
		if (fn->params[i].role != ST_ROLE_NONE && j == n)
			die("%s: role %s is not %s", fn->name,
			    st_def_role_name(fn->params[i].role), what);
	}
	for (i = 0; i < n; i++) {
		const char *p = param_of(fn, roles[i]);

		fprintf(f, "\tc.a.%s = %s;\n", st_def_role_name(roles[i]),
			p ? p : "0");
	}
}

static void put_args(FILE *f, const struct st_def_fn *fn, int large)
{
	/* The roles of completion calls: all that pmpi/ reads of theirs. */
	static const int complete_roles[] = {
		ST_ROLE_REQUEST, ST_ROLE_REQUESTS, ST_ROLE_NREQ, ST_ROLE_INDEX,
		ST_ROLE_INDICES, ST_ROLE_OUTCOUNT, ST_ROLE_FLAG,
		ST_ROLE_STATUS, ST_ROLE_STATUSES,
	};
	/*
	 * Those of one-sided calls: all that st_leave_rma(), its repeat
	 * cache and the bytes (st_count_bytes()) read of theirs, with
	 * 'large'.
	 */
	static const int rma_roles[] = {
		ST_ROLE_SBUF, ST_ROLE_RBUF, ST_ROLE_SCOUNT, ST_ROLE_RCOUNT,
		ST_ROLE_COUNT, ST_ROLE_STYPE, ST_ROLE_RTYPE, ST_ROLE_TYPE,
		ST_ROLE_SCOUNTS, ST_ROLE_RCOUNTS, ST_ROLE_STYPES,
		ST_ROLE_RTYPES, ST_ROLE_ROOT, ST_ROLE_OP, ST_ROLE_PEER,
		ST_ROLE_REQUEST, ST_ROLE_FLAG, ST_ROLE_WIN, ST_ROLE_OFFSET,
		ST_ROLE_ASSERT, ST_ROLE_LOCKTYPE, ST_ROLE_GROUP,
		ST_ROLE_PARTITIONS,
	};
	struct strlist sl = { 0 };

	if (fn->kind == ST_KIND_COMPLETE) {
		put_role_list(f, fn, complete_roles,
			      sizeof(complete_roles) / sizeof(*complete_roles),
			      "a completion call's");
		return;
	}
	if (fn->kind == ST_KIND_RMA) {
		put_role_list(f, fn, rma_roles,
			      sizeof(rma_roles) / sizeof(*rma_roles),
			      "a one-sided call's");
		fprintf(f, "\tc.a.large = %d;\n", large ? 1 : 0);
		return;
	}
	role_inits(&sl, fn, large);
	put_list(f, 1, 1, "c.a = (struct st_args){ ", &sl, " };");
	sl_clear(&sl);
}

/*
 * The twin of 'fn' for yield mode, or NULL: none when the twin is an
 * entry that 'mpi' lacks (the call then cannot yield).
 */
static const char *twin_of(const struct st_def_fn *fn)
{
	const struct st_def_fn *tw;

	if (!fn->twin)
		return NULL;
	tw = st_def_find(the_def, fn->twin);
	return tw && !st_def_mpi_has(mpi, tw) ? NULL : fn->twin;
}

/*
 * The body every wrapper shares (pmpi/hooks.h), for form 'large' of
 * 'fn': 'ra' is the expression of the call site, 'real' the function
 * that does the work.
 */
static void put_body(FILE *f, const struct st_def_fn *fn, int large,
		     const char *ra, const char *real)
{
	const char *status = param_of(fn, ST_ROLE_STATUS);
	const char *statuses = param_of(fn, ST_ROLE_STATUSES);
	const char *nreq = param_of(fn, ST_ROLE_NREQ);
	const char *commp = param_of(fn, ST_ROLE_COMMP);
	const char *winp = param_of(fn, ST_ROLE_WINP);
	const char *filep = param_of(fn, ST_ROLE_FILEP);
	const char *message = param_of(fn, ST_ROLE_MESSAGE);
	char *id = fn_id(form_name(fn, large));
	struct strlist args = { 0 }, sl = { 0 };
	const char *post = "st_leave";
	int keyed = repeatable(fn);
	int rkeyed = rma_keyed(fn);

	args_of(&args, fn, 0, NULL);
	fputs("\tstruct st_call c;\n\tint rc;\n\n", f);
	if (fn->kind == ST_KIND_INIT) {
		fprintf(f, "\tst_init_pre(&c, %s, %s);\n", id, ra);
		post = "st_init_post";
	} else if (fn->kind == ST_KIND_FINALIZE) {
		fprintf(f, "\tst_finalize_pre(&c, %s, %s);\n", id, ra);
		post = "st_finalize_post";
	} else {
		sl_push(&sl, xstrfmt("&c"));
		sl_push(&sl, xstrfmt("%s", id));
		sl_push(&sl, xstrfmt("%s", ra));
		put_list(f, 1, 2, fn->kind == ST_KIND_COMM ?
			 "if (!st_enter_comm(" : "if (!st_enter(", &sl, "))");
		sl_clear(&sl);
		put_return(f, 2, real, &args);
	}
	if (fn->flags & ST_DEF_SNAP) {
		const char *reqs = param_of(fn, ST_ROLE_REQUESTS);

		if (reqs)
			fprintf(f, "\tst_complete_pre(&c, %s, %s);\n", nreq,
				reqs);
		else if (fn->flags & ST_DEF_NEWEST)
			fprintf(f, "\tst_free_pre(&c, %s);\n",
				param_of(fn, ST_ROLE_REQUEST));
		else
			fprintf(f, "\tst_complete_pre(&c, 1, %s);\n",
				param_of(fn, ST_ROLE_REQUEST));
	}
	if (commp)
		fprintf(f, "\tst_comm_free_pre(&c, %s);\n", commp);
	if (winp)
		fprintf(f, "\tst_win_free_pre(&c, %s);\n", winp);
	if (filep)
		fprintf(f, "\tst_file_close_pre(&c, %s);\n", filep);
	if (message)
		fprintf(f, "\tst_message_pre(&c, %s);\n", message);
	if (status)
		fprintf(f, "\t%s = st_%sstatus(&c, %s);\n", status,
			fn->flags & ST_DEF_SNAP ? "snap_" : "", status);
	if (statuses)
		fprintf(f, "\t%s = st_%sstatuses(&c, %s, %s);\n", statuses,
			fn->flags & ST_DEF_SNAP ? "snap_" : "", nreq,
			statuses);
	if (keyed)
		put_key(f, fn);
	if (rkeyed)
		put_rma_key(f, fn, large);
	fputs("\tc.t0 = st_now();\n", f);
	if (twin_of(fn)) {
		const struct st_def_fn *tw = st_def_find(the_def, fn->twin);
		char *twin = xstrfmt(tw && defines_pmpi(tw) ? "ST_REAL(P%s%s)"
							      : "P%s%s",
				     tw ? c_name(tw, 0) : fn->twin,
				     large ? "_c" : "");
		struct strlist targs = { 0 };

		args_of(&targs, fn, 1, "&c.yreq");
		put_yieldable(f, real, twin, &args, &targs,
			      status ? status : "MPI_STATUS_IGNORE",
			      param_of(fn, ST_ROLE_PEER));
		sl_clear(&targs);
		free(twin);
	} else {
		char *head = xstrfmt("rc = %s(", real);

		put_list(f, 1, 1, head, &args, ");");
		free(head);
	}
	fputs("\tc.t1 = st_now();\n", f);
	if (fn->kind != ST_KIND_INIT && fn->kind != ST_KIND_FINALIZE)
		fputs("\tST_SELF_MPI(&c);\n", f);
	/*
	 * pmpi/call.c relies on it: st_leave_nb_key() serves every keyed
	 * function with a request, which are the nonblocking ones, and
	 * st_leave_key() none, which are the blocking ones.
	 */
	if (keyed && (param_of(fn, ST_ROLE_REQUEST) == NULL) !=
		     (fn->family == ST_FAM_BLOCKING))
		die("%s: repeatable, %s request, family %s", fn->name,
		    param_of(fn, ST_ROLE_REQUEST) ? "a" : "no",
		    st_def_family_enum(fn->family));
	if (keyed && param_of(fn, ST_ROLE_REQUEST)) {
		fputs("\treturn st_leave_nb_key(&c, rc);\n", f);
	} else if (keyed) {
		fputs("\treturn st_leave_key(&c, rc);\n", f);
	} else if (rkeyed) {
		fputs("\treturn st_leave_rma_key(&c, rc);\n", f);
	} else {
		/* Completion calls take their own way (pmpi/call.c). */
		if (fn->kind == ST_KIND_COMPLETE)
			post = "st_leave_complete";
		else if (fn->kind == ST_KIND_COMM)
			post = "st_leave_comm";
		put_args(f, fn, large);
		fprintf(f, "\t%s(&c, rc);\n\treturn rc;\n", post);
	}
	sl_clear(&args);
	free(id);
}

/* "if (!ST_REAL(PMPI_X)) st_gen_resolve();": resolve before first use. */
static void put_resolve_check(FILE *f, const char *name)
{
	fprintf(f, "\tif (!ST_REAL(P%s))\n\t\tst_gen_resolve();\n", name);
}

/* "int NAME(params)" and the opening brace. */
static void put_head(FILE *f, const char *name, const struct strlist *decls)
{
	char *head = xstrfmt("int %s(", name);

	put_list(f, 0, 2, head, decls, ")");
	fputs("{\n", f);
	free(head);
}

/*
 * The definitions of form 'large' of 'fn'.  One always-inline body
 * st_w_X() gets the call site from its caller; st_c_X(), declared with
 * mpi.h's type of X so that the compiler checks the prototype, calls it;
 * and X itself is an assembler stub (ST_STUB_*, pmpi/hooks.h) that jumps
 * to st_c_X(), or straight to the real function when the process runs
 * another MPI.  When synctrace defines PMPI_X too, st_c_PX() passes
 * calls that do not come from the Fortran bindings straight on.
 */
static void put_form(FILE *f, const struct st_def_fn *fn, int large)
{
	const char *name = c_name(fn, large);
	int pmpi = defines_pmpi(fn);
	struct strlist decls = { 0 }, wdecls = { 0 }, wargs = { 0 };
	struct strlist args = { 0 };
	char *head, *real, *body, *id = fn_id(form_name(fn, large));
	size_t i;

	decl_list(&decls, fn, large);
	real = xstrfmt(pmpi ? "ST_REAL(P%s)" : "P%s", name);
	body = xstrfmt("st_w_%s", name);
	sl_push(&wdecls, xstrfmt("void *ra"));
	for (i = 0; i < fn->nparams; i++)
		if (!fn->params[i].varargs)
			sl_push(&wdecls, xstrfmt("%s",
						 fn->params[i].decl[large]));
	fputs("\nstatic inline __attribute__((always_inline)) int\n", f);
	head = xstrfmt("%s(", body);
	put_list(f, 0, 1, head, &wdecls, ")");
	free(head);
	fputs("{\n", f);
	put_body(f, fn, large, "ra", real);
	fputs("}\n\n", f);

	args_of(&args, fn, 0, NULL);
	sl_push(&wargs, xstrfmt("__builtin_return_address(0)"));
	args_of(&wargs, fn, 0, NULL);

	fprintf(f, "__typeof__(%s) st_c_%s;\n", name, name);
	head = xstrfmt("st_c_%s", name);
	put_head(f, head, &decls);
	free(head);
	if (pmpi)
		put_resolve_check(f, name);
	if (fn->kind == ST_KIND_INIT || fn->kind == ST_KIND_FINALIZE) {
		put_return(f, 1, body, &wargs);
	} else {
		/* The self-time build's count (pmpi/selftime.h). */
		char *call = xstrfmt("rc = %s(", body);

		fputs("\tint rc;\n\n\tST_SELF_BEGIN();\n", f);
		put_list(f, 1, 1, call, &wargs, ");");
		fprintf(f, "\tST_SELF_END(%s);\n\treturn rc;\n", id);
		free(call);
	}
	fputs("}\n", f);
	if (pmpi)
		fprintf(f, "ST_STUB_PTR(%s, st_c_%s, st_real_P%s);\n", name,
			name, name);
	else
		fprintf(f, "ST_STUB_PLT(%s, st_c_%s, P%s);\n", name, name,
			name);
	if (pmpi) {
		fprintf(f, "\n__typeof__(P%s) st_c_P%s;\n", name, name);
		head = xstrfmt("st_c_P%s", name);
		put_head(f, head, &decls);
		free(head);
		put_resolve_check(f, name);
		/*
		 * No MPI calls MPI_Pcontrol for itself: a PMPI_Pcontrol is
		 * always the application's.  Open MPI's Fortran binding
		 * reaches it by a tail call, from the program's address.
		 */
		if (fn->kind != ST_KIND_PHASE) {
			fputs("\tif (!st_from_fortran("
			      "__builtin_return_address(0)))\n", f);
			put_return(f, 2, real, &args);
		}
		put_return(f, 1, body, &wargs);
		fputs("}\n", f);
		fprintf(f, "ST_STUB_PTR(P%s, st_c_P%s, st_real_P%s);\n", name,
			name, name);
	}

	free(id);
	free(body);
	free(real);
	sl_clear(&args);
	sl_clear(&wargs);
	sl_clear(&wdecls);
	sl_clear(&decls);
}

static int nforms(const struct st_def_fn *fn)
{
	return fn->name_c ? 2 : 1;
}

/* "{ "a", "b", NULL }" for the words of 'w'. */
static void put_words(FILE *f, const char *decl, const struct st_def_words *w)
{
	size_t i;

	fprintf(f, "%s = {", decl);
	for (i = 0; w && i < w->n; i++)
		fprintf(f, " \"%s\",", w->v[i]);
	fputs(" NULL };\n", f);
}

/*
 * What the runtime needs to know of the MPIs (pmpi/hooks.h, struct
 * st_gen_mpi): this build's, and every MPI's name and marker, so that it
 * can tell which one the process runs.
 */
static void put_mpis(FILE *f, const struct st_def *def)
{
	size_t i;

	fputs("\n/* The MPIs of wrappers.def; this build is for the one "
	      "named first. */\n"
	      "const struct st_gen_mpi st_gen_mpis[] = {\n", f);
	if (mpi)
		fprintf(f, "\t{ \"%s\", %s%s%s },\n", mpi->name,
			mpi->marker ? "\"" : "",
			mpi->marker ? mpi->marker : "NULL",
			mpi->marker ? "\"" : "");
	for (i = 0; i < def->nmpis; i++) {
		const struct st_def_mpi *m = &def->mpis[i];

		if (m == mpi)
			continue;
		fprintf(f, "\t{ \"%s\", %s%s%s },\n", m->name,
			m->marker ? "\"" : "", m->marker ? m->marker : "NULL",
			m->marker ? "\"" : "");
	}
	fputs("\t{ NULL, NULL }\n};\n", f);
	put_words(f, "\n/* Call sites in these are the application's. */\n"
		  "const char *const st_gen_fortran_libs[]",
		  mpi ? &mpi->fortran : NULL);
}

static void gen_wrappers(FILE *f, const struct st_def *def)
{
	struct strlist decls = { 0 };
	size_t i;
	int large, any_pmpi = 0;

	fputs(BANNER, f);
	fputs("/*\n"
	      " * gen/wrappers.c: the MPI_* functions libsynctrace.so "
	      "defines, one per\n"
	      " * wrappers.def entry and form, shaped as pmpi/hooks.h "
	      "describes, for one\n"
	      " * MPI.  Entries flagged f08 (all under 'pmpi all') also "
	      "define PMPI_*,\n"
	      " * which Fortran bindings call directly; those reach the real "
	      "function\n"
	      " * through ST_REAL(), looked up by st_gen_resolve().\n"
	      " */\n", f);
	if (mpi)
		fprintf(f, "/* For: mpi %s */\n", mpi->name);
	fputs("#include <mpi.h>\n", f);
	for (i = 0; mpi && i < mpi->headers.n; i++)
		fprintf(f, "#include <%s>\n", mpi->headers.v[i]);
	fputs("#include <string.h>\n\n"
	      "#include \"pmpi/hooks.h\"\n#include \"pmpi/selftime.h\"\n"
	      "#include \"gen/ops.h\"\n\n", f);
	fputs("_Static_assert(sizeof(void *) == sizeof(int (*)(void)),\n"
	      "\t       \"function pointers must fit a void *\");\n", f);
	put_mpis(f, def);

	for (i = 0; i < def->nfns; i++) {
		const struct st_def_fn *fn = &def->fns[i];

		if (!defines_pmpi(fn))
			continue;
		if (!any_pmpi)
			fputs("\n/* The real PMPI_* of the entries synctrace "
			      "defines PMPI_* of. */\n", f);
		for (large = 0; large < nforms_mpi(fn); large++) {
			char *head = xstrfmt("int (*st_real_P%s)(",
					     c_name(fn, large));

			any_pmpi = 1;
			decl_list(&decls, fn, large);
			put_list(f, 0, 2, head, &decls, ");");
			sl_clear(&decls);
			free(head);
		}
	}

	fputs("\n/*\n"
	      " * Idempotent.  The runtime calls it once at load, before the "
	      "application\n"
	      " * has threads; a wrapper called earlier (from another "
	      "constructor) calls\n"
	      " * it first itself.\n"
	      " */\n"
	      "void st_gen_resolve(void)\n{\n", f);
	if (any_pmpi)
		fputs("\tvoid *p;\n\n", f);
	for (i = 0; i < def->nfns; i++) {
		const struct st_def_fn *fn = &def->fns[i];

		if (!defines_pmpi(fn))
			continue;
		for (large = 0; large < nforms_mpi(fn); large++) {
			const char *name = c_name(fn, large);

			fprintf(f, "\tp = st_dlsym_next(\"P%s\");\n", name);
			fprintf(f, "\tmemcpy(&ST_REAL(P%s), &p, sizeof(p));\n",
				name);
		}
	}
	fputs("}\n", f);

	for (i = 0; i < def->nfns; i++)
		for (large = 0; large < nforms_mpi(&def->fns[i]); large++)
			put_form(f, &def->fns[i], large);
}

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void flags_str(char *buf, size_t len, const struct st_def_fn *fn,
		      int large)
{
	buf[0] = '\0';
	if (large)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s",
			 "ST_FNF_LARGE");
	if (fn->flags & ST_DEF_F08)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_F08");
	if (fn->flags & ST_DEF_ROOTED)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_ROOTED");
	if (repeatable(fn))
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_REPEAT");
	if (fn->flags & ST_DEF_SESSION)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_SESSION");
	if (fn->flags & ST_DEF_COLLECTIVE)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_COLLECTIVE");
	if (fn->flags & ST_DEF_OUTSIDE)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_OUTSIDE");
	if (fn->flags & ST_DEF_NOSTATUS)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_NOSTATUS");
	if (fn->flags & ST_DEF_TARGET)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_TARGET");
	if (fn->flags & ST_DEF_OFFSET)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_OFFSET");
	if (fn->flags & ST_DEF_SUBGROUP)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " | " : "", "ST_FNF_SUBGROUP");
	if (!buf[0])
		snprintf(buf, len, "0");
}

static void gen_ops(FILE *f, const struct st_def *def)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i, n = 0;
	int large;

	fputs(BANNER, f);
	fputs("/*\n"
	      " * gen/ops.h: the functions synctrace wraps, as small integer "
	      "ids, and\n"
	      " * what each means (writer/fn-info.h has the vocabulary).  Ids "
	      "follow\n"
	      " * wrappers.def, a _c form right after its int form; traces "
	      "store ids,\n"
	      " * so ST_FN_TABLE_HASH changes whenever an id changes "
	      "meaning.  Free of\n"
	      " * mpi.h.\n"
	      " */\n"
	      "#ifndef ST_GEN_OPS_H\n#define ST_GEN_OPS_H\n\n"
	      "#include \"writer/fn-info.h\"\n\nenum st_fn {\n"
	      "\tST_FN_NONE = 0,\n", f);
	for (i = 0; i < def->nfns; i++)
		for (large = 0; large < nforms(&def->fns[i]); large++) {
			char *id = fn_id(form_name(&def->fns[i], large));

			fprintf(f, "\t%s,\n", id);
			free(id);
		}
	fputs("\tST_FN_COUNT\t\t/* one more than the last id */\n};\n\n"
	      "/* X(id, name, kind, family, bytes_class, flags), in id "
	      "order. */\n#define ST_FN_LIST(X) \\\n", f);
	for (i = 0; i < def->nfns; i++) {
		const struct st_def_fn *fn = &def->fns[i];

		for (large = 0; large < nforms(fn); large++) {
			const char *name = form_name(fn, large);
			char *id = fn_id(name);
			char flags[128];

			flags_str(flags, sizeof(flags), fn, large);
			if (n++)
				fputs(" \\\n", f);
			fprintf(f, "\tX(%s, \"%s\", %s, %s, %s, %s)", id, name,
				st_def_kind_enum(fn->kind),
				st_def_family_enum(fn->family),
				st_def_bytes_enum(fn->bytes), flags);
			if (n > 1)
				h = fnv1a(h, "\n");
			h = fnv1a(h, name);
			free(id);
		}
	}
	fprintf(f, "\n\n/*\n * FNV-1a 64 of the names in id order joined "
		"by '\\n' (no final newline).\n */\n"
		"#define ST_FN_TABLE_HASH \"%016llx\"\n\n#endif\n",
		(unsigned long long)h);
}

/* Read all of 'path' into a NUL-terminated string. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		die("cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		die("cannot read '%s': %s", path, strerror(errno));
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len)
		die("'%s' contains a NUL byte", path);
	return buf;
}

static void parse_file(const char *path, struct st_def *def)
{
	struct st_def_error err;
	char *text = read_text(path);
	int rc = st_def_parse(def, text, &err);

	free(text);
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc) {
		if (err.line)
			fprintf(stderr, "%s:%d: %s\n", path, err.line,
				err.msg);
		else
			fprintf(stderr, "%s: %s\n", path, err.msg);
		exit(1);
	}
}

/* mkdir -p 'dir'. */
static void make_dir(const char *dir)
{
	char *path = xstrfmt("%s", dir);
	char *s;

	for (s = path + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		if (*s) {
			*s = '\0';
			if (mkdir(path, 0777) && errno != EEXIST)
				die("cannot create '%s': %s", path,
				    strerror(errno));
			*s = '/';
		} else {
			if (mkdir(path, 0777) && errno != EEXIST)
				die("cannot create '%s': %s", path,
				    strerror(errno));
			break;
		}
	}
	free(path);
}

/*
 * Write 'len' bytes of 'data' to 'dir'/'name' through a temporary file
 * in the same directory, renamed over the target only once complete.
 */
static void write_file(const char *dir, const char *name, const char *data,
		       size_t len)
{
	char *path = xstrfmt("%s/%s", dir, name);
	char *tmp = xstrfmt("%s/.%s.tmp%ld", dir, name, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	size_t off = 0;

	if (fd < 0)
		die("cannot create '%s': %s", tmp, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			unlink(tmp);
			die("cannot write '%s': %s", tmp, strerror(e));
		}
		off += (size_t)n;
	}
	if (close(fd)) {
		int e = errno;

		unlink(tmp);
		die("cannot write '%s': %s", tmp, strerror(e));
	}
	if (rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		die("cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
	}
	free(tmp);
	free(path);
}

/* Run 'gen' on 'def' into memory. */
static char *render(void (*gen)(FILE *, const struct st_def *),
		    const struct st_def *def, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		die("out of memory");
	gen(f, def);
	if (ferror(f) || fclose(f))
		die("out of memory");
	return buf;
}

static void list(const struct st_def *def, int pmpi)
{
	size_t i;
	int large;

	for (i = 0; i < def->nfns; i++) {
		const struct st_def_fn *fn = &def->fns[i];

		if (pmpi && !defines_pmpi(fn))
			continue;
		for (large = 0; large < nforms_mpi(fn); large++)
			printf("%s%s\n", pmpi ? "P" : "", c_name(fn, large));
	}
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the list: %s", strerror(errno));
}

static void list_untraced(const struct st_def *def)
{
	size_t i;

	for (i = 0; i < def->nuntraced; i++)
		printf("%s %s\n", def->untraced[i].name,
		       def->untraced[i].reason);
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the list: %s", strerror(errno));
}

/* Pick the MPI 'name' of 'def' (NULL: the first, if any) for wrappers.c. */
static void choose_mpi(const struct st_def *def, const char *name)
{
	the_def = def;
	mpi = name ? st_def_find_mpi(def, name)
		   : def->nmpis ? &def->mpis[0] : NULL;
	if (name && !mpi)
		die("wrappers.def has no 'mpi %s' block", name);
}

int main(int argc, char **argv)
{
	struct st_def def;
	char *wrappers, *ops;
	const char *mpi_name = NULL;
	size_t wlen, olen;

	if (argc == 3 && !strcmp(argv[1], "--list-untraced")) {
		parse_file(argv[2], &def);
		list_untraced(&def);
		st_def_release(&def);
		return 0;
	}
	if (argc > 2 && !strncmp(argv[1], "--mpi=", 6)) {
		mpi_name = argv[1] + 6;
		argc--;
		argv++;
	}
	if (argc == 3 && (!strcmp(argv[1], "--list") ||
			  !strcmp(argv[1], "--list-pmpi"))) {
		parse_file(argv[2], &def);
		choose_mpi(&def, mpi_name);
		list(&def, !strcmp(argv[1], "--list-pmpi"));
		st_def_release(&def);
		return 0;
	}
	if (argc != 3 || argv[1][0] == '-') {
		fputs(usage_text, stderr);
		return 129;
	}
	parse_file(argv[1], &def);
	choose_mpi(&def, mpi_name);
	ops = render(gen_ops, &def, &olen);
	wrappers = render(gen_wrappers, &def, &wlen);
	make_dir(argv[2]);
	write_file(argv[2], "ops.h", ops, olen);
	write_file(argv[2], "wrappers.c", wrappers, wlen);
	free(ops);
	free(wrappers);
	st_def_release(&def);
	return 0;
}
