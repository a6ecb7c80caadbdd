/*
 * tools/cli/cmd-run.c: 'synctrace run', the one way to trace a job.  It
 * makes the run directory, puts libsynctrace.so in LD_PRELOAD and the
 * options in SYNCTRACE_* variables, runs the command (normally mpiexec,
 * which passes the environment on to every rank), and exits as the
 * command did.  Its only output is one summary line on stderr: the
 * command's stdout belongs to the command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "tools/analysis/format.h"
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
"Run COMMAND with libsynctrace.so preloaded, so that every MPI process\n"
"it starts writes its trace into a new run directory, and exit with\n"
"COMMAND's exit status (128 + N when signal N killed it).\n"
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
"    --lib PATH         preload PATH instead of the libsynctrace.so found\n"
"                       next to this program or in ../lib\n"
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
	enum { O_YIELD = 256, O_LIB, O_BUFFER, O_DEPTH, O_FAMILIES };
	static const struct option longopts[] = {
		{ "buffer", required_argument, NULL, O_BUFFER },
		{ "depth", required_argument, NULL, O_DEPTH },
		{ "families", required_argument, NULL, O_FAMILIES },
		{ "help", no_argument, NULL, 'h' },
		{ "lib", required_argument, NULL, O_LIB },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "yield", no_argument, NULL, O_YIELD },
		{ NULL, 0, NULL, 0 }
	};
	const char *val;
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
			o->dir = val;
			break;
		case O_LIB:
			if (!val || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a path", "--lib");
			o->lib = val;
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
			if (!valid_families(val))
				return set_err(err, errlen, "bad family list "
					       "'%s' for '--families'", val);
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

/* Where to look for the library, from the directory of this program. */
static const char *const lib_paths[] = {
	"libsynctrace.so", "../lib/libsynctrace.so", NULL
};

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
		lib = st_spawn_find(lib_paths, R_OK);
		if (!lib)
			die("cannot find 'libsynctrace.so' next to synctrace "
			    "or in ../lib; give its path with '--lib'");
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
