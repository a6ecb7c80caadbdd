/*
 * tools/cli/cmd-run.c: 'synctrace run', the one way to trace a job.  It
 * checks its options, puts libsynctrace.so in LD_PRELOAD and the options
 * in SYNCTRACE_* variables, runs the command (normally mpiexec, which
 * passes the environment on to every rank), and exits as the command
 * did.  Its only output is one summary line per MPI program on stderr:
 * the command's stdout belongs to the command.
 *
 * The library names and makes each run directory itself (writer/run.h:
 * a job may start several MPI programs, and each gets its own), and
 * tells `run` which it made, or why it switched tracing off, through a
 * file named in SYNCTRACE_NOTIFY that `run` makes beside the traces and
 * reads when the job is over.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "tools/analysis/format.h"
#include "tools/cli/mpi-pick.h"
#include "tools/cli/spawn.h"
#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"
#include "writer/event.h"
#include "writer/reader.h"
#include "writer/run.h"
#include "writer/writer.h"

const char st_run_usage[] =
"usage: synctrace run [options] [--] COMMAND [ARGS...]\n"
"   eg: synctrace run -- mpiexec.mpich -n 4 ./app\n"
"\n"
"Run COMMAND with libsynctrace.so preloaded (libsynctrace-openmpi.so\n"
"for Open MPI), so that every MPI program it starts writes its trace\n"
"into a new run directory, and exit with COMMAND's exit status (128 + N\n"
"when signal N killed it).\n"
"\n"
"    -o, --output DIR   write the trace to DIR (created, or an existing\n"
"                       empty directory); a DIR with %-escapes is a\n"
"                       pattern, as SYNCTRACE_DIR (docs/runs.md); default:\n"
"                       a new directory synctrace-PROGRAM-YYYYMMDD-HHMMSS-PID\n"
"                       here\n"
"    --buffer SIZE      trace buffer per thread, 8K to 1G (suffix K, M, G)\n"
"                       (SYNCTRACE_BUFFER)\n"
"    --depth N          call-site frames to record, 0..64 (SYNCTRACE_DEPTH)\n"
"    --yield            blocking calls poll with sched_yield()\n"
"                       (SYNCTRACE_YIELD=1)\n"
"    --families LIST    trace only these families of functions,\n"
"                       comma-separated: all, coll, blocking, nonblocking,\n"
"                       persistent, neighbor, p2p, complete, comm, rma,\n"
"                       io; a leading - removes (SYNCTRACE_FAMILIES)\n"
"    --verbose          the interposer reports what it does\n"
"                       (SYNCTRACE_VERBOSE=1)\n"
"    --mpi NAME         the job runs MPI NAME, mpich or openmpi (default:\n"
"                       told from the launcher or the program)\n"
"    --lib PATH         preload PATH instead of the library found next\n"
"                       to this program or in ../lib\n"
"    -q, --quiet        print no summary line\n"
"    -h, --help         show this help\n"
"\n"
"Afterwards one line on stderr per MPI program says where its trace is\n"
"and whether every rank finished it, or why nothing was traced.\n";

/* strdup(), asprintf() and malloc() that die when memory runs out. */
static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

__attribute__((format(printf, 1, 2)))
static char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return p;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

/* The family names of SYNCTRACE_FAMILIES (pmpi/config.c). */
static const char *const family_names[] = {
	"all", "coll", "blocking", "nonblocking", "persistent", "neighbor",
	"p2p", "complete", "comm", "rma", "io",
};

static int set_err(char *err, size_t errlen, const char *msg,
		   const char *arg)
{
	snprintf(err, errlen, msg, arg);
	return -1;
}

int st_run_families_ok(const char *s)
{
	const char *p = s;
	size_t i, n;
	int minus;

	if (!*s)
		return 0;
	for (;;) {
		n = strcspn(p, ",");
		minus = *p == '-';
		for (i = 0; i < sizeof(family_names) / sizeof(*family_names);
		     i++)
			if (strlen(family_names[i]) == n - minus &&
			    !strncmp(family_names[i], p + minus, n - minus))
				break;
		if (!n || i == sizeof(family_names) / sizeof(*family_names))
			return 0;
		if (!p[n])
			return 1;
		p += n + 1;
	}
}

int st_run_opts_parse(struct st_run_opts *o, int argc, char **argv,
		      char *err, size_t errlen)
{
	enum { O_YIELD = 256, O_LIB, O_BUFFER, O_DEPTH, O_FAMILIES, O_MPI };
	static const struct option longopts[] = {
		{ "buffer", required_argument, NULL, O_BUFFER },
		{ "depth", required_argument, NULL, O_DEPTH },
		{ "families", required_argument, NULL, O_FAMILIES },
		{ "help", no_argument, NULL, 'h' },
		{ "lib", required_argument, NULL, O_LIB },
		{ "mpi", required_argument, NULL, O_MPI },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "yield", no_argument, NULL, O_YIELD },
		{ NULL, 0, NULL, 0 }
	};
	const char *val;
	char msg[128];
	int c;

	memset(o, 0, sizeof(*o));
	o->depth = -1;
	optind = 0;
	/* "+": the command starts after "--" or at its first argument. */
	while ((c = st_getopt(argc, argv, "+:hvqo:", longopts, &val)) != -1) {
		switch (c) {
		case 'h':
			o->help = 1;
			return 0;
		case O_YIELD:
			o->yield = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'o':
			if (!val || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a directory", "--output");
			if (st_run_name_check(val, msg, sizeof(msg))) {
				snprintf(err, errlen, "bad directory pattern "
					 "'%s' for '--output': %s", val, msg);
				return -1;
			}
			o->dir = val;
			break;
		case O_LIB:
			if (!val || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a path", "--lib");
			o->lib = val;
			break;
		case O_MPI:
			if (!val || !st_mpi_parse(val))
				return set_err(err, errlen, "option '--mpi' "
					       "needs mpich or openmpi%s", "");
			o->mpi = st_mpi_parse(val);
			break;
		case O_BUFFER:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a size", "--buffer");
			if (st_size_parse(val, &o->buffer))
				return set_err(err, errlen, "bad size '%s' for "
					       "'--buffer' (e.g. 1048576, 64K, "
					       "4M)", val);
			if (o->buffer < ST_STREAM_MIN_PAIR)
				return set_err(err, errlen, "buffer size '%s' "
					       "is below the minimum of 8192 "
					       "bytes", val);
			if (o->buffer > (1ull << 30))
				return set_err(err, errlen, "buffer size '%s' "
					       "is above the maximum of 1G",
					       val);
			break;
		case O_DEPTH:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a number", "--depth");
			if (st_parse_int(val, 0, ST_MAX_FRAMES, &o->depth))
				return set_err(err, errlen, "bad depth '%s' "
					       "for '--depth' (0..64)", val);
			break;
		case O_FAMILIES:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--families");
			if (!st_run_families_ok(val))
				return set_err(err, errlen, "bad family list "
					       "'%s' for '--families' (names: "
					       "all, coll, blocking, "
					       "nonblocking, persistent, "
					       "neighbor, p2p, complete, comm, "
					       "rma, io; a leading - removes)",
					       val);
			o->families = val;
			break;
		default:
			return set_err(err, errlen, "%s", val);
		}
	}
	if (optind >= argc)
		return set_err(err, errlen, "%s", "no command given");
	o->cmd = argv + optind;
	return 0;
}

/* Is 'tok' ('len' bytes) a sanitizer runtime, which must load first? */
static int is_sanitizer(const char *tok, size_t len)
{
	static const char *const names[] = {
		"libasan", "libhwasan", "liblsan", "libtsan", "libubsan",
		"libclang_rt.",
	};
	const char *base = tok;
	size_t i;

	for (i = 0; i < len; i++)
		if (tok[i] == '/')
			base = tok + i + 1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);

		if ((size_t)(tok + len - base) >= n &&
		    !memcmp(base, names[i], n))
			return 1;
	}
	return 0;
}

/* A string being built in a buffer known to be large enough. */
struct joined {
	char *buf;
	size_t len;
};

static void join_add(struct joined *j, const char *s, size_t len)
{
	if (j->len)
		j->buf[j->len++] = ':';
	memcpy(j->buf + j->len, s, len);
	j->len += len;
	j->buf[j->len] = '\0';
}

/* Add the entries of 'old' that are (want) or are not sanitizers. */
static void join_old(struct joined *j, const char *old, const char *lib,
		     int want)
{
	const char *p = old;

	while (p && *p) {
		size_t len = strcspn(p, ": ");

		if (len && is_sanitizer(p, len) == want &&
		    !(len == strlen(lib) && !memcmp(p, lib, len)))
			join_add(j, p, len);
		p += len;
		p += strspn(p, ": ");
	}
}

char *st_preload_join(const char *lib, const char *old)
{
	struct joined j;

	/* Output = entries of 'old' + 'lib' + one separator each, at most. */
	j.buf = malloc(strlen(lib) + (old ? 2 * strlen(old) : 0) + 2);
	if (!j.buf)
		return NULL;
	j.len = 0;
	j.buf[0] = '\0';
	join_old(&j, old, lib, 1);
	join_add(&j, lib, strlen(lib));
	join_old(&j, old, lib, 0);
	return j.buf;
}

/* Create the run directory; '*created' says whether it is new. */
static void make_run_dir(const char *dir, int given, int *created)
{
	struct stat st;
	int empty;

	*created = 0;
	if (!mkdir(dir, 0777)) {
		*created = 1;
		return;
	}
	if (errno != EEXIST || !given)
		die("cannot create run directory '%s': %s", dir,
		    strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		die("cannot use '%s' as run directory: not a directory", dir);
	empty = st_dir_is_empty(dir);
	if (empty < 0)
		die("cannot read run directory '%s': %s", dir,
		    strerror(errno));
	if (!empty)
		die("run directory '%s' already exists and is not empty", dir);
}

static void set_env(const char *name, const char *value)
{
	if (setenv(name, value, 1))
		die("cannot set %s: %s", name, strerror(errno));
}

/*
 * 'path' as a pattern for SYNCTRACE_DIR: every '%' doubled, 'tail' (a
 * pattern already) appended.  Returns a malloc()ed string.
 */
static char *pattern_of(const char *path, const char *tail)
{
	size_t n = strlen(path), i, j = 0;
	char *p = malloc(2 * n + strlen(tail) + 1);

	if (!p)
		die("out of memory");
	for (i = 0; i < n; i++) {
		p[j++] = path[i];
		if (path[i] == '%')
			p[j++] = '%';
	}
	strcpy(p + j, tail);
	return p;
}

/*
 * The SYNCTRACE_DIR pattern for option -o 'dir' (NULL: the default in
 * the working directory 'cwd'), absolute, so that every rank agrees
 * whatever its own working directory.
 */
static char *dir_pattern(const char *dir, const char *cwd, char **absdir)
{
	char *pat, *prefix;

	*absdir = NULL;
	if (dir && !strchr(dir, '%')) {
		/* A plain directory, made here: its real path. */
		*absdir = realpath(dir, NULL);
		if (!*absdir)
			die("cannot resolve '%s': %s", dir, strerror(errno));
		return pattern_of(*absdir, "");
	}
	if (dir && dir[0] == '/')
		return xstrdup(dir);
	prefix = pattern_of(cwd, "/");
	pat = xstrfmt("%s%s", prefix, dir ? dir : ST_RUN_DEFAULT_NAME);
	free(prefix);
	return pat;
}

/*
 * The file the library writes what it did to: made empty, in the
 * directory 'where' when possible (it is where the traces go, so the
 * ranks see it too), else in the temporary directory.  Returns its
 * malloc()ed path, or NULL when it cannot be made anywhere (the summary
 * then knows only the directory of -o).
 */
static char *make_notify(const char *where)
{
	const char *tmp = getenv("TMPDIR");
	char *path;
	int fd, i;

	for (i = 0; i < 2; i++) {
		path = xstrfmt("%s/.synctrace-run-XXXXXX",
			       i ? (tmp && *tmp ? tmp : "/tmp") : where);
		fd = mkstemp(path);
		if (fd >= 0) {
			close(fd);
			return path;
		}
		free(path);
	}
	return NULL;
}

/* 'dir' as shown: relative to 'cwd' when it is below it. */
static const char *shown_dir(const char *dir, const char *cwd)
{
	size_t n = strlen(cwd);

	if (!strncmp(dir, cwd, n) && dir[n] == '/' && dir[n + 1])
		return dir + n + 1;
	return dir;
}

/* The summary line of run directory 'dir': where, and whether whole. */
static void summarise(const char *dir, const char *name)
{
	struct st_run *run;
	const char *complete;
	char err[1024], list[256];
	int *missing, nmissing = 0, n, r;

	if (st_run_open(&run, dir, err, sizeof(err))) {
		fprintf(stderr, "synctrace: no readable trace in %s: %s\n",
			name, err);
		return;
	}
	n = st_run_nranks(run);
	missing = calloc(n > 0 ? (size_t)n : 1, sizeof(*missing));
	for (r = 0; missing && r < n; r++)
		if (access(st_run_rank_path(run, r), F_OK))
			missing[nmissing++] = r;
	complete = st_run_get(run, "complete");
	if (complete && !strcmp(complete, "1") && !nmissing) {
		fprintf(stderr, "synctrace: trace in %s (%d rank%s, "
			"complete)\n", name, n, n == 1 ? "" : "s");
	} else if (nmissing) {
		st_rank_list(missing, (size_t)nmissing, list, sizeof(list));
		fprintf(stderr, "synctrace: trace in %s (%d rank%s, "
			"incomplete: rank%s %s missing)\n", name, n,
			n == 1 ? "" : "s", nmissing == 1 ? "" : "s", list);
	} else {
		fprintf(stderr, "synctrace: trace in %s (%d rank%s, "
			"incomplete: not every rank finished)\n", name, n,
			n == 1 ? "" : "s");
	}
	free(missing);
	st_run_close(run);
}

/*
 * Before refusing for want of a library: a command that cannot start
 * fails as it would (exit status 127 or 126), whatever else is missing.
 */
static void runnable_or_exit(const struct st_run_opts *o)
{
	int e = st_spawn_can_run(o->cmd[0]);

	if (e) {
		error("cannot run '%s': %s", o->cmd[0], strerror(e));
		exit(e == ENOENT ? 127 : 126);
	}
}

/*
 * The library for the MPI of job 'o->cmd' (free() it): found next to
 * this program, or in ../lib.  When the MPI cannot be told, the MPICH
 * one if it is the only one there; otherwise refuse rather than guess.
 */
static char *find_lib(const struct st_run_opts *o)
{
	char why[PATH_MAX + 128], rel[64], lib_rel[80];
	const char *paths[3] = { rel, lib_rel, NULL };
	int kind = o->mpi;
	char *lib;

	if (!kind)
		kind = st_mpi_guess(o->cmd, why, sizeof(why));
	if (!kind) {
		snprintf(rel, sizeof(rel), "%s",
			 st_mpi_lib_name(ST_MPI_OPENMPI));
		snprintf(lib_rel, sizeof(lib_rel), "../lib/%s", rel);
		lib = st_spawn_find(paths, R_OK);
		if (lib) {
			free(lib);
			runnable_or_exit(o);
			die("cannot tell which MPI '%s' runs (%s); say it "
			    "with '--mpi mpich' or '--mpi openmpi'",
			    o->cmd[0], why);
		}
		kind = ST_MPI_MPICH;
	} else if (o->verbose && !o->mpi) {
		fprintf(stderr, "synctrace: %s, from %s\n",
			st_mpi_name(kind), why);
	}
	snprintf(rel, sizeof(rel), "%s", st_mpi_lib_name(kind));
	snprintf(lib_rel, sizeof(lib_rel), "../lib/%s", rel);
	lib = st_spawn_find(paths, R_OK);
	if (!lib)
		runnable_or_exit(o);
	if (!lib)
		die("cannot find '%s', the library for %s, next to synctrace "
		    "or in ../lib; give its path with '--lib'", rel,
		    st_mpi_name(kind));
	return lib;
}

/* What the library said, line by line, in the notify file. */
struct said {
	char *text;		/* the file, lines split in place */
	const char **dirs;	/* "run\tDIR": the run directories made */
	const char **off;	/* "off\tWHY": why tracing was switched off */
	size_t ndirs, noff;
};

static void read_notify(struct said *s, const char *path)
{
	char *line, *nl, *tab;
	FILE *f;
	long len;

	memset(s, 0, sizeof(*s));
	if (!path || !(f = fopen(path, "r")))
		return;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		len = 0;
	s->text = xmalloc((size_t)len + 1);
	len = (long)fread(s->text, 1, (size_t)len, f);
	s->text[len] = '\0';
	fclose(f);
	s->dirs = xmalloc(((size_t)len / 2 + 1) * sizeof(*s->dirs));
	s->off = xmalloc(((size_t)len / 2 + 1) * sizeof(*s->off));
	for (line = s->text; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		if (!strcmp(line, "run"))
			s->dirs[s->ndirs++] = tab + 1;
		else if (!strcmp(line, "off"))
			s->off[s->noff++] = tab + 1;
	}
}

/*
 * The summary: a line per run directory the job made (or the one of
 * -o, 'given', if the library could not say), or why there is none.
 * 'created': run made 'given', which goes again if the job left it
 * empty.
 */
static void report_runs(const struct said *s, const char *given,
			int created, const char *cwd, int quiet)
{
	const char *disable = getenv("SYNCTRACE_DISABLE");
	size_t i;
	int seen = 0, ngiven = given && st_dir_is_empty(given) == 0;

	for (i = 0; given && i < s->ndirs; i++)
		seen |= !strcmp(s->dirs[i], given);
	if (given && !seen && !ngiven && created)
		rmdir(given);
	if (quiet)
		return;
	if (given && !seen && ngiven)
		summarise(given, shown_dir(given, cwd));
	for (i = 0; i < s->ndirs; i++)
		summarise(s->dirs[i], shown_dir(s->dirs[i], cwd));
	for (i = 0; i < s->noff; i++)
		fprintf(stderr, "synctrace: %s: tracing was switched off: "
			"%s\n", s->ndirs || ngiven ? "an MPI program was not "
			"traced" : "no trace written", s->off[i]);
	if (s->ndirs || ngiven || s->noff)
		return;
	if (disable && !strcmp(disable, "1"))
		fprintf(stderr, "synctrace: no trace written "
			"(SYNCTRACE_DISABLE=1 is set)\n");
	else
		fprintf(stderr, "synctrace: no trace written%s%s%s (did the "
			"command start MPI programs?)\n",
			given && !created ? " in '" : "",
			given && !created ? given : "",
			given && !created ? "'" : "");
}

int cmd_run(int argc, char **argv)
{
	struct st_run_opts o;
	struct said said;
	char err[256], num[32];
	char *lib, *absdir, *preload, *pattern, *notify, *cwd, *where;
	int created = 0, code;

	if (st_run_opts_parse(&o, argc, argv, err, sizeof(err)))
		usage_die(st_run_usage, "%s", err);
	if (o.help) {
		fputs(st_run_usage, stdout);
		return 0;
	}
	if (o.lib) {
		lib = realpath(o.lib, NULL);
		if (!lib || access(lib, R_OK))
			die("cannot use '%s' as the synctrace library: %s",
			    o.lib, strerror(errno));
	} else {
		lib = find_lib(&o);
	}
	cwd = getcwd(NULL, 0);
	if (!cwd)
		die("cannot get the working directory: %s", strerror(errno));
	if (o.dir && !strchr(o.dir, '%'))
		make_run_dir(o.dir, 1, &created);
	pattern = dir_pattern(o.dir, cwd, &absdir);
	/* The notify file goes where the traces go, when that is known. */
	where = xstrdup(absdir ? absdir : cwd);
	if (absdir) {
		/* The parent of DIR ("/" for "/DIR"): DIR must stay empty. */
		char *slash = strrchr(where, '/');

		slash[slash == where] = '\0';
	}
	notify = make_notify(where);
	free(where);
	preload = st_preload_join(lib, getenv("LD_PRELOAD"));
	if (!preload)
		die("out of memory");
	set_env("SYNCTRACE_DIR", pattern);
	set_env("LD_PRELOAD", preload);
	if (notify)
		set_env("SYNCTRACE_NOTIFY", notify);
	else
		unsetenv("SYNCTRACE_NOTIFY");
	if (o.buffer) {
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)o.buffer);
		set_env("SYNCTRACE_BUFFER", num);
	}
	if (o.depth >= 0) {
		snprintf(num, sizeof(num), "%ld", o.depth);
		set_env("SYNCTRACE_DEPTH", num);
	}
	if (o.yield)
		set_env("SYNCTRACE_YIELD", "1");
	if (o.families)
		set_env("SYNCTRACE_FAMILIES", o.families);
	if (o.verbose)
		set_env("SYNCTRACE_VERBOSE", "1");
	code = st_spawn_run(o.cmd, err, sizeof(err));
	if (code < 0) {
		if (notify)
			unlink(notify);
		die("%s", err);
	}
	read_notify(&said, notify);
	if (notify)
		unlink(notify);
	report_runs(&said, absdir, created, cwd, o.quiet);
	free(said.text);
	free(said.dirs);
	free(said.off);
	free(notify);
	free(pattern);
	free(preload);
	free(absdir);
	free(cwd);
	free(lib);
	return code;
}
