/*
 * tools/cli/cmd-run.c: 'synctrace run', the one way to trace a job.  It
 * makes the run directory, puts libsynctrace.so in LD_PRELOAD and the
 * options in SYNCTRACE_* variables, runs the command (normally mpiexec,
 * which passes the environment on to every rank), and exits as the
 * command did.  Its only output is one summary line on stderr: the
 * command's stdout belongs to the command.
 */
#include <errno.h>
#include <limits.h>
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
#include "writer/writer.h"

const char st_run_usage[] =
"usage: synctrace run [options] [--] COMMAND [ARGS...]\n"
"   eg: synctrace run -- mpiexec.mpich -n 4 ./app\n"
"\n"
"Run COMMAND with libsynctrace.so preloaded (libsynctrace-openmpi.so\n"
"for Open MPI), so that every MPI process it starts writes its trace\n"
"into a new run directory, and exit with COMMAND's exit status (128 + N\n"
"when signal N killed it).\n"
"\n"
"    -o, --output DIR   write the trace to DIR (created, or an existing\n"
"                       empty directory); default: a new directory\n"
"                       synctrace-YYYYMMDD-HHMMSS-PID here\n"
"    --buffer SIZE      trace buffer per thread, bytes (suffix K, M, G)\n"
"                       (SYNCTRACE_BUFFER)\n"
"    --depth N          call-site frames to record, 0..64 (SYNCTRACE_DEPTH)\n"
"    --yield            blocking calls poll with sched_yield()\n"
"                       (SYNCTRACE_YIELD=1)\n"
"    --families LIST    trace only these families of functions,\n"
"                       comma-separated (SYNCTRACE_FAMILIES)\n"
"    --verbose          the interposer reports what it does\n"
"                       (SYNCTRACE_VERBOSE=1)\n"
"    --mpi NAME         the job runs MPI NAME, mpich or openmpi (default:\n"
"                       told from the launcher or the program)\n"
"    --lib PATH         preload PATH instead of the library found next\n"
"                       to this program or in ../lib\n"
"    -q, --quiet        print no summary line\n"
"    -h, --help         show this help\n"
"\n"
"Afterwards one line on stderr says where the trace is and whether\n"
"every rank finished it.\n";

static int set_err(char *err, size_t errlen, const char *msg,
		   const char *arg)
{
	snprintf(err, errlen, msg, arg);
	return -1;
}

static int valid_families(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == ',' || *s == '_' ||
		      *s == '-' || *s == '+'))
			return 0;
	return 1;
}

int st_run_opts_parse(struct st_run_opts *o, int argc, char **argv,
		      char *err, size_t errlen)
{
	const char *val;
	int i, rc;

	memset(o, 0, sizeof(*o));
	o->depth = -1;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--")) {
			i++;
			break;
		}
		if (arg[0] != '-' || !arg[1])
			break;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			o->help = 1;
			return 0;
		} else if (!strcmp(arg, "--yield")) {
			o->yield = 1;
		} else if (!strcmp(arg, "--verbose") || !strcmp(arg, "-v")) {
			o->verbose = 1;
		} else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
			o->quiet = 1;
		} else if ((rc = st_opt_value(argc, argv, &i, "-o", &val)) ||
			   (rc = st_opt_value(argc, argv, &i, "--output",
					      &val))) {
			if (rc < 0 || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a directory", "--output");
			o->dir = val;
		} else if ((rc = st_opt_value(argc, argv, &i, "--lib",
					      &val))) {
			if (rc < 0 || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a path", "--lib");
			o->lib = val;
		} else if ((rc = st_opt_value(argc, argv, &i, "--mpi",
					      &val))) {
			if (rc < 0 || !st_mpi_parse(val))
				return set_err(err, errlen, "option '--mpi' "
					       "needs mpich or openmpi%s", "");
			o->mpi = st_mpi_parse(val);
		} else if ((rc = st_opt_value(argc, argv, &i, "--buffer",
					      &val))) {
			if (rc < 0)
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
		} else if ((rc = st_opt_value(argc, argv, &i, "--depth",
					      &val))) {
			if (rc < 0)
				return set_err(err, errlen, "option '%s' needs "
					       "a number", "--depth");
			if (st_parse_int(val, 0, ST_MAX_FRAMES, &o->depth))
				return set_err(err, errlen, "bad depth '%s' "
					       "for '--depth' (0..64)", val);
		} else if ((rc = st_opt_value(argc, argv, &i, "--families",
					      &val))) {
			if (rc < 0)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--families");
			if (!valid_families(val))
				return set_err(err, errlen, "bad family list "
					       "'%s' for '--families'", val);
			o->families = val;
		} else {
			return set_err(err, errlen, "unknown option '%s'",
				       arg);
		}
	}
	if (i >= argc)
		return set_err(err, errlen, "%s", "no command given");
	o->cmd = argv + i;
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

void st_run_dir_name(char *buf, size_t len, time_t t, pid_t pid)
{
	struct tm tm;
	char stamp[32];

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "synctrace-%s-%ld", stamp, (long)pid);
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

/* The summary line: where the trace is and whether it is whole. */
static void summarise(const char *dir, int created)
{
	struct st_run *run;
	const char *complete;
	char err[512], list[256];
	int *missing, nmissing = 0, n, r;

	if (st_dir_is_empty(dir) == 1) {
		if (created)
			rmdir(dir);
		fprintf(stderr, "synctrace: no trace written%s%s%s (did the "
			"command start MPI programs?)\n",
			created ? "" : " in '", created ? "" : dir,
			created ? "" : "'");
		return;
	}
	if (st_run_open(&run, dir, err, sizeof(err))) {
		fprintf(stderr, "synctrace: no readable trace in %s: %s\n",
			dir, err);
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
			"complete)\n", dir, n, n == 1 ? "" : "s");
	} else if (nmissing) {
		st_rank_list(missing, (size_t)nmissing, list, sizeof(list));
		fprintf(stderr, "synctrace: trace in %s (%d rank%s, "
			"incomplete: rank%s %s missing)\n", dir, n,
			n == 1 ? "" : "s", nmissing == 1 ? "" : "s", list);
	} else {
		fprintf(stderr, "synctrace: trace in %s (%d rank%s, "
			"incomplete: not every rank finished)\n", dir, n,
			n == 1 ? "" : "s");
	}
	free(missing);
	st_run_close(run);
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
		if (lib)
			die("cannot tell which MPI '%s' runs (%s); say it "
			    "with '--mpi mpich' or '--mpi openmpi'",
			    o->cmd[0], why);
		kind = ST_MPI_MPICH;
	} else if (o->verbose && !o->mpi) {
		fprintf(stderr, "synctrace: %s, from %s\n",
			st_mpi_name(kind), why);
	}
	snprintf(rel, sizeof(rel), "%s", st_mpi_lib_name(kind));
	snprintf(lib_rel, sizeof(lib_rel), "../lib/%s", rel);
	lib = st_spawn_find(paths, R_OK);
	if (!lib)
		die("cannot find '%s', the library for %s, next to synctrace "
		    "or in ../lib; give its path with '--lib'", rel,
		    st_mpi_name(kind));
	return lib;
}

int cmd_run(int argc, char **argv)
{
	struct st_run_opts o;
	char err[256], name[128], num[32];
	const char *dir;
	char *lib, *absdir, *preload;
	int created, code;

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
	dir = o.dir;
	if (!dir) {
		st_run_dir_name(name, sizeof(name), time(NULL), getpid());
		dir = name;
	}
	make_run_dir(dir, o.dir != NULL, &created);
	absdir = realpath(dir, NULL);
	if (!absdir)
		die("cannot resolve '%s': %s", dir, strerror(errno));
	preload = st_preload_join(lib, getenv("LD_PRELOAD"));
	if (!preload)
		die("out of memory");
	set_env("SYNCTRACE_DIR", absdir);
	set_env("LD_PRELOAD", preload);
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
	if (code < 0)
		die("%s", err);
	if (!o.quiet)
		summarise(dir, created);
	free(preload);
	free(absdir);
	free(lib);
	return code;
}
