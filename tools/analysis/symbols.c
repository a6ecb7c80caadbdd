/*
 * tools/analysis/symbols.c: call-site symbolisation.  Addresses are collected
 * first (st_symtab_add deduplicates them per object), then each object
 * costs one addr2line process, whichever rank or site asked: its
 * addresses go to the child's stdin through an unlinked temporary file,
 * so writing them can never block on the child's full stdout pipe.
 * "-a" makes addr2line echo each address before its answer, which is
 * what lets the parser split the variable-length inline chains of "-i".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/analysis/format.h"
#include "tools/analysis/symbols.h"

extern char **environ;

void st_objmap_init(struct st_objmap *m)
{
	m->v = NULL;
	m->nr = m->alloc = 0;
}

void st_objmap_release(struct st_objmap *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->v[i].path);
	free(m->v);
	st_objmap_init(m);
}

int st_objmap_add(struct st_objmap *m, uint64_t base, uint64_t len,
		  const char *path, size_t path_len)
{
	char *copy;

	if (m->nr == m->alloc) {
		size_t alloc = m->alloc ? 2 * m->alloc : 16;
		struct st_object *v = realloc(m->v, alloc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->alloc = alloc;
	}
	copy = malloc(path_len + 1);
	if (!copy)
		return -ENOMEM;
	/* An object record without text has path NULL and length 0. */
	if (path_len)
		memcpy(copy, path, path_len);
	copy[path_len] = '\0';
	m->v[m->nr].base = base;
	m->v[m->nr].len = len;
	m->v[m->nr].path = copy;
	m->nr++;
	return 0;
}

const struct st_object *st_objmap_find(const struct st_objmap *m,
				       uint64_t frame, uint64_t *addr)
{
	const struct st_object *best = NULL;
	size_t i;

	for (i = 0; i < m->nr; i++) {
		const struct st_object *o = &m->v[i];

		if (frame < o->base || frame - o->base >= o->len)
			continue;
		if (!best || o->base > best->base)
			best = o;
	}
	if (best && addr)
		*addr = frame - 1 - best->base;
	return best;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int st_object_is_mpi(const char *path)
{
	const char *base = basename_of(path);

	return !strncmp(base, "libmpi", 6) || !strncmp(base, "libpmpi", 7) ||
	       !strncmp(base, "libsynctrace", 12);
}

struct sym_obj {
	char *path;
	size_t *pending;	/* entries not yet resolved */
	size_t npending, alloc;
};

struct st_symtab {
	struct st_sym *v;
	size_t *obj_of;		/* object index of each entry */
	size_t nr, alloc;
	struct sym_obj *objs;
	size_t nobjs, alloc_objs;
	size_t *slots;		/* open addressing: entry index + 1, 0 = free */
	size_t nslots;
};

struct st_symtab *st_symtab_new(void)
{
	return calloc(1, sizeof(struct st_symtab));
}

void st_sym_release(struct st_sym *s)
{
	free(s->func);
	free(s->file);
	free(s->outer);
	s->func = s->file = s->outer = NULL;
	s->line = 0;
}

void st_symtab_free(struct st_symtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++)
		st_sym_release(&t->v[i]);
	for (i = 0; i < t->nobjs; i++) {
		free(t->objs[i].path);
		free(t->objs[i].pending);
	}
	free(t->v);
	free(t->obj_of);
	free(t->objs);
	free(t->slots);
	free(t);
}

static size_t slot_hash(size_t obj, uint64_t addr, size_t nslots)
{
	uint64_t h = (addr ^ ((uint64_t)obj << 48)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 17) & (nslots - 1);
}

static int rehash(struct st_symtab *t, size_t nslots)
{
	size_t *slots = calloc(nslots, sizeof(*slots));
	size_t i;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		size_t s = slot_hash(t->obj_of[i], t->v[i].addr, nslots);

		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

static long find_obj(struct st_symtab *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->nobjs; i++)
		if (!strcmp(t->objs[i].path, path))
			return (long)i;
	if (t->nobjs == t->alloc_objs) {
		size_t alloc = t->alloc_objs ? 2 * t->alloc_objs : 8;
		struct sym_obj *objs = realloc(t->objs, alloc * sizeof(*objs));

		if (!objs)
			return -ENOMEM;
		t->objs = objs;
		t->alloc_objs = alloc;
	}
	memset(&t->objs[t->nobjs], 0, sizeof(t->objs[0]));
	t->objs[t->nobjs].path = strdup(path);
	if (!t->objs[t->nobjs].path)
		return -ENOMEM;
	return (long)t->nobjs++;
}

static int push_pending(struct sym_obj *o, size_t idx)
{
	if (o->npending == o->alloc) {
		size_t alloc = o->alloc ? 2 * o->alloc : 16;
		size_t *p = realloc(o->pending, alloc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		o->pending = p;
		o->alloc = alloc;
	}
	o->pending[o->npending++] = idx;
	return 0;
}

long st_symtab_add(struct st_symtab *t, const char *path, uint64_t addr)
{
	long obj = find_obj(t, path);
	size_t s;

	if (obj < 0)
		return obj;
	if (2 * (t->nr + 1) > t->nslots &&
	    rehash(t, t->nslots ? 2 * t->nslots : 64))
		return -ENOMEM;
	s = slot_hash((size_t)obj, addr, t->nslots);
	while (t->slots[s]) {
		size_t i = t->slots[s] - 1;

		if (t->obj_of[i] == (size_t)obj && t->v[i].addr == addr)
			return (long)i;
		s = (s + 1) & (t->nslots - 1);
	}
	if (t->nr == t->alloc) {
		size_t alloc = t->alloc ? 2 * t->alloc : 64;
		struct st_sym *v = realloc(t->v, alloc * sizeof(*v));
		size_t *obj_of;

		if (!v)
			return -ENOMEM;
		t->v = v;
		obj_of = realloc(t->obj_of, alloc * sizeof(*obj_of));
		if (!obj_of)
			return -ENOMEM;
		t->obj_of = obj_of;
		t->alloc = alloc;
	}
	if (push_pending(&t->objs[obj], t->nr))
		return -ENOMEM;
	memset(&t->v[t->nr], 0, sizeof(t->v[0]));
	t->v[t->nr].path = t->objs[obj].path;
	t->v[t->nr].addr = addr;
	t->obj_of[t->nr] = (size_t)obj;
	t->slots[s] = t->nr + 1;
	return (long)t->nr++;
}

size_t st_symtab_count(const struct st_symtab *t)
{
	return t->nr;
}

const struct st_sym *st_symtab_get(const struct st_symtab *t, long idx)
{
	if (idx < 0 || (size_t)idx >= t->nr)
		return NULL;
	return &t->v[idx];
}

/*
 * Run 'argv' with stdin from 'in' and stderr to /dev/null, collecting
 * its stdout in '*out' (NUL-terminated, '*len' bytes).  Returns 0, -ENOENT
 * when it could not be started, -EIO when it failed, or -ENOMEM.
 */
static int run_capture(char *const argv[], int in, char **out, size_t *len)
{
	posix_spawn_file_actions_t fa;
	size_t alloc = 4096, n = 0;
	char *buf = malloc(alloc);
	int pfd[2], rc, status;
	pid_t pid;

	if (!buf)
		return -ENOMEM;
	if (pipe2(pfd, O_CLOEXEC)) {
		free(buf);
		return -EIO;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		free(buf);
		return -ENOENT;
	}
	for (;;) {
		ssize_t got;

		if (n + 1 == alloc) {
			char *b = realloc(buf, 2 * alloc);

			if (!b)
				break;
			buf = b;
			alloc *= 2;
		}
		got = read(pfd[0], buf + n, alloc - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[n] = '\0';
	if (n + 1 == alloc) {
		free(buf);
		return -ENOMEM;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		free(buf);
		return WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			-ENOENT : -EIO;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Resolve the pending entries of object 'o' with one addr2line run. */
static int resolve_obj(struct st_symtab *t, struct sym_obj *o,
		       const char *addr2line)
{
	char *argv[] = { (char *)addr2line, "-a", "-f", "-C", "-i", "-e",
			 o->path, NULL };
	uint64_t *addrs = malloc(o->npending * sizeof(*addrs));
	struct st_sym *syms = calloc(o->npending, sizeof(*syms));
	char *out = NULL;
	size_t i, len;
	FILE *in = NULL;
	int rc = -ENOMEM;

	if (!addrs || !syms)
		goto done;
	in = tmpfile();
	if (!in) {
		rc = -EIO;
		goto done;
	}
	for (i = 0; i < o->npending; i++) {
		addrs[i] = t->v[o->pending[i]].addr;
		fprintf(in, "0x%" PRIx64 "\n", addrs[i]);
	}
	if (fflush(in) || fseek(in, 0, SEEK_SET)) {
		rc = -EIO;
		goto done;
	}
	rc = run_capture(argv, fileno(in), &out, &len);
	if (rc)
		goto done;
	/*
	 * A partial parse still names the addresses before the mismatch;
	 * the rest stay unresolved.
	 */
	rc = st_addr2line_parse(out, len, addrs, syms, o->npending);
	for (i = 0; i < o->npending; i++) {
		struct st_sym *dst = &t->v[o->pending[i]];

		dst->func = syms[i].func;
		dst->file = syms[i].file;
		dst->line = syms[i].line;
		dst->outer = syms[i].outer;
	}
	memset(syms, 0, o->npending * sizeof(*syms));
	if (rc == -EBADMSG)
		rc = 0;
done:
	if (in)
		fclose(in);
	if (rc && syms)
		for (i = 0; i < o->npending; i++)
			st_sym_release(&syms[i]);
	free(out);
	free(syms);
	free(addrs);
	return rc;
}

int st_symtab_resolve(struct st_symtab *t, const char *addr2line)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < t->nobjs; i++) {
		struct sym_obj *o = &t->objs[i];
		int rc = 0;

		/* Objects that are not files ("[vdso]", "") cannot be read. */
		if (o->npending && o->path[0] == '/' && ret != -ENOENT)
			rc = resolve_obj(t, o, addr2line);
		if (rc == -ENOENT || rc == -ENOMEM)
			ret = rc;
		o->npending = 0;
	}
	return ret;
}

static char *dup_or_null(const char *s, size_t len)
{
	if (len == 2 && !memcmp(s, "??", 2))
		return NULL;
	return strndup(s, len);
}

/* Parse "file:line" or "file:line (discriminator N)" into 'sym'. */
static int parse_location(const char *s, size_t len, struct st_sym *sym)
{
	const char *colon = NULL, *p;
	unsigned line = 0;

	for (p = s; p < s + len; p++)
		if (*p == ':')
			colon = p;
	if (!colon)
		return -EBADMSG;
	for (p = colon + 1; p < s + len && *p >= '0' && *p <= '9'; p++)
		line = line * 10 + (unsigned)(*p - '0');
	sym->line = line;
	if (colon - s == 2 && !memcmp(s, "??", 2))
		return 0;
	sym->file = strndup(s, (size_t)(colon - s));
	return sym->file ? 0 : -ENOMEM;
}

/* Is 's' (of 'len' bytes) "0x" followed by hex digits?  Store its value. */
static int parse_addr_line(const char *s, size_t len, uint64_t *val)
{
	uint64_t v = 0;
	size_t i;

	if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
		return 0;
	for (i = 2; i < len; i++) {
		int c = s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	*val = v;
	return 1;
}

int st_addr2line_parse(const char *out, size_t len, const uint64_t *addrs,
		       struct st_sym *syms, size_t n)
{
	const char *p = out, *end = out + len;
	char *func = NULL;
	size_t cur = 0, npairs = 0;
	int have_func = 0, started = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t l = eol ? (size_t)(eol - p) : (size_t)(end - p);
		uint64_t val;

		if (!have_func && parse_addr_line(p, l, &val)) {
			if (started)
				cur++;
			started = 1;
			if (cur >= n || val != addrs[cur])
				return -EBADMSG;
			npairs = 0;
		} else if (!started) {
			return -EBADMSG;
		} else if (!have_func) {
			func = dup_or_null(p, l);
			if (!func && (l != 2 || memcmp(p, "??", 2)))
				return -ENOMEM;
			have_func = 1;
		} else {
			struct st_sym *s = &syms[cur];

			have_func = 0;
			if (!npairs++) {
				int rc = parse_location(p, l, s);

				s->func = func;
				if (rc)
					return rc;
			} else {
				free(s->outer);
				s->outer = func;
			}
			func = NULL;
		}
		p = eol ? eol + 1 : end;
	}
	free(func);
	if (have_func || !started || cur + 1 != n)
		return n || started ? -EBADMSG : 0;
	return 0;
}

char *st_sym_format(const struct st_sym *s, int brief, char *buf,
		    size_t len)
{
	const char *obj = s->path && *s->path ? s->path : "?";
	char where[512], o[256], func[256], file[256], outer[256];

	/* Paths from the trace, names from addr2line: printable only. */
	if (brief)
		obj = basename_of(obj);
	if (!strcmp(obj, "?"))
		snprintf(where, sizeof(where), "0x%" PRIx64, s->addr);
	else
		snprintf(where, sizeof(where), "%s+0x%" PRIx64,
			 st_fmt_str(obj, o, sizeof(o)), s->addr);
	if (s->func)
		st_fmt_str(s->func, func, sizeof(func));
	if (s->file)
		st_fmt_str(brief ? basename_of(s->file) : s->file, file,
			   sizeof(file));
	if (s->func && s->file)
		snprintf(buf, len, "%s (%s:%u)%s%s", func, file, s->line,
			 !brief && s->outer ? " inlined into " : "",
			 !brief && s->outer ?
			 st_fmt_str(s->outer, outer, sizeof(outer)) : "");
	else if (s->func)
		snprintf(buf, len, "%s (%s)", func, where);
	else if (s->file)
		snprintf(buf, len, "%s (%s:%u)", where, file, s->line);
	else
		snprintf(buf, len, "%s", where);
	return buf;
}
