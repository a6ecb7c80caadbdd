/*
 * tools/cli/cmd-clockcheck.c: 'synctrace clockcheck', how good global time is
 * on this machine.  The measuring is done by an MPI program,
 * synctrace-bench (tools/bench/clockcheck.c), since this command never
 * links MPI: it checks the options here, so that a mistake is a usage
 * error before any job starts, and then runs
 *
 *	mpiexec.mpich -n N [EXTRA...] synctrace-bench clockcheck [options]
 *
 * in its place (exec), with SYNCTRACE_CLOCK_SKEW set from --skew.  The
 * table is the job's output; the exit status is mpiexec's.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/skew.h"
#include "sync/sync.h"
#include "tools/cli/outfile.h"
#include "tools/cli/spawn.h"
#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"

const char st_clockcheck_usage[] =
"usage: synctrace clockcheck [options] [-- MPIEXEC-ARGS...]\n"
"   eg: synctrace clockcheck -n 4 --times 0,10,60 -- -hosts node1,node2\n"
"\n"
"Synchronise the clocks of N ranks with each method, then measure at\n"
"the given times how far every rank's global clock is from rank 0's,\n"
"and print a table: the residual error to expect from global time on\n"
"this machine.  Runs 'MPIEXEC -n N MPIEXEC-ARGS synctrace-bench\n"
"clockcheck ...' and takes about as long as the largest time.\n"
"\n"
"    -n N                number of ranks (default 2)\n"
"    --times LIST        seconds after synchronisation at which to check,\n"
"                        comma-separated (default 0,1,5,10,30,60)\n"
"    --methods LIST      sync methods: hca, hca2, skampi, skampi-tree, jk\n"
"                        (default hca,hca2,skampi,jk)\n"
"    --refresh SECONDS   the longest gap between refreshes of the\n"
"                        refresh-on rows, which refresh as the interposer\n"
"                        does: 0.25 s after sync, then after a gap equal to\n"
"                        the time since sync (0.5, 1, 2 s...) up to this\n"
"                        (default 10; 0: no refresh-on rows)\n"
"    --refresh-methods LIST\n"
"                        methods that get a refresh-on row besides their\n"
"                        plain one (default hca)\n"
"    --skew SPEC         distort each rank's clock by a known offset and\n"
"                        drift, e.g. 0,+0.5s@+100ppm (sets\n"
"                        SYNCTRACE_CLOCK_SKEW); ranks on one machine share\n"
"                        a clock, so this is how to test sync there\n"
"    --node              node-aware sync: the lowest rank of each node\n"
"                        measures, the node's other ranks take its model\n"
"    --params LIST       sync parameters, KEY=N,...: fit_points, exchanges,\n"
"                        fit_span_ms, pingpongs, min_pingpongs,\n"
"                        rtt_pingpongs, refresh_points, check_pingpongs\n"
"    --csv FILE          also write one CSV line per method, refresh and\n"
"                        time to FILE\n"
"    --mpiexec PROG      the mpiexec to run (default mpiexec.mpich)\n"
"    -h, --help          show this help\n"
"\n"
"Arguments after '--' go to mpiexec, before the program (e.g. -hosts,\n"
"-launcher fork, -bind-to core).  The residual is the largest over ranks\n"
"of |global clock of the rank - rank 0's|, measured by ping-pongs from\n"
"rank 0; the table also gives each check's uncertainty (half the least\n"
"round trip), the sync's duration and its own error estimates.\n";

#define MAX_TIMES 64		/* as tools/bench/clockcheck.c */
#define MAX_SECONDS 86400.0
#define MIN_REFRESH_S 0.01

static int set_err(char *err, size_t errlen, const char *msg,
		   const char *arg)
{
	snprintf(err, errlen, msg, arg);
	return -1;
}

/* Seconds: a plain non-negative decimal number up to a day. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s || *s == ' ' || *s == '+' || *s == '-')
		return -EINVAL;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v < 0 || v > MAX_SECONDS)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Call 'fn' on each comma-separated item of 's' (at most 63 bytes each);
 * stop at the first non-zero return and return it.
 */
static int each_item(const char *s, int (*fn)(const char *item, void *ctx),
		     void *ctx)
{
	char item[64];
	int rc;

	for (;;) {
		size_t n = strcspn(s, ",");

		if (n >= sizeof(item))
			return -E2BIG;
		memcpy(item, s, n);
		item[n] = '\0';
		if ((rc = fn(item, ctx)))
			return rc;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

struct times_ctx {
	double v[MAX_TIMES];
	int n;
};

static int time_item(const char *item, void *ctx)
{
	struct times_ctx *t = ctx;
	double x;
	int i;

	if (parse_seconds(item, &x))
		return -EINVAL;
	if (t->n == MAX_TIMES)
		return -E2BIG;
	for (i = 0; i < t->n; i++)
		if (t->v[i] == x)
			return -EEXIST;
	t->v[t->n++] = x;
	return 0;
}

static int method_item(const char *item, void *ctx)
{
	unsigned *mask = ctx;
	int m = st_sync_method_parse(item);

	if (m < 0)
		return -EINVAL;
	if (*mask & (1u << m))
		return -EEXIST;
	*mask |= 1u << m;
	return 0;
}

static int param_item(const char *item, void *ctx)
{
	static const char *const keys[] = {
		"fit_points", "exchanges", "fit_span_ms", "pingpongs",
		"min_pingpongs", "rtt_pingpongs", "refresh_points",
		"check_pingpongs",
	};
	const char *eq = strchr(item, '=');
	size_t k;
	long v;

	(void)ctx;
	if (!eq)
		return -EINVAL;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strlen(keys[k]) == (size_t)(eq - item) &&
		    !strncmp(item, keys[k], (size_t)(eq - item)))
			break;
	if (k == sizeof(keys) / sizeof(keys[0]))
		return -ENOENT;
	/* Only fit_span_ms may be 0: fit points back to back. */
	if (st_parse_int(eq + 1, k == 2 ? 0 : 1, 1000000, &v))
		return -ERANGE;
	return 0;
}

static int check_times(const char *s, char *err, size_t errlen)
{
	struct times_ctx t = { { 0 }, 0 };
	int rc = each_item(s, time_item, &t);

	if (rc == -EEXIST)
		return set_err(err, errlen, "time given twice in '%s'", s);
	if (rc == -E2BIG)
		return set_err(err, errlen, "too many times in '%s' (at most "
			       "64)", s);
	if (rc)
		return set_err(err, errlen, "bad time list '%s' for '--times' "
			       "(seconds, e.g. 0,1,5.5)", s);
	return 0;
}

static int check_methods(const char *s, const char *opt, char *err,
			 size_t errlen)
{
	unsigned mask = 0;
	int rc = each_item(s, method_item, &mask);

	if (rc == -EEXIST) {
		snprintf(err, errlen, "method given twice in '%s'", s);
		return -1;
	}
	if (rc) {
		snprintf(err, errlen, "bad method list '%s' for '%s' (hca, "
			 "hca2, skampi, skampi-tree, jk)", s, opt);
		return -1;
	}
	return 0;
}

static int check_params(const char *s, char *err, size_t errlen)
{
	int rc = each_item(s, param_item, NULL);

	if (rc == -ENOENT)
		return set_err(err, errlen, "unknown key in '%s' for "
			       "'--params' (fit_points, exchanges, "
			       "fit_span_ms, pingpongs, min_pingpongs, "
			       "rtt_pingpongs, refresh_points, "
			       "check_pingpongs)", s);
	if (rc == -ERANGE)
		return set_err(err, errlen, "bad value in '%s' for '--params' "
			       "(whole numbers, 1 to 1000000; fit_span_ms "
			       "from 0)", s);
	if (rc)
		return set_err(err, errlen, "bad parameter list '%s' for "
			       "'--params' (KEY=N,...)", s);
	return 0;
}

int st_clockcheck_opts_parse(struct st_clockcheck_opts *o, int argc,
			     char **argv, char *err, size_t errlen)
{
	enum { O_TIMES = 256, O_METHODS, O_REFRESH_METHODS, O_REFRESH,
	       O_SKEW, O_PARAMS, O_CSV, O_MPIEXEC, O_NODE };
	static const struct option longopts[] = {
		{ "csv", required_argument, NULL, O_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ "methods", required_argument, NULL, O_METHODS },
		{ "mpiexec", required_argument, NULL, O_MPIEXEC },
		{ "node", no_argument, NULL, O_NODE },
		{ "params", required_argument, NULL, O_PARAMS },
		{ "refresh", required_argument, NULL, O_REFRESH },
		{ "refresh-methods", required_argument, NULL,
		  O_REFRESH_METHODS },
		{ "skew", required_argument, NULL, O_SKEW },
		{ "times", required_argument, NULL, O_TIMES },
		{ NULL, 0, NULL, 0 }
	};
	struct st_skew k;
	char serr[160];
	const char *val;
	double secs;
	int c, last = 1;

	memset(o, 0, sizeof(*o));
	o->nranks = 2;
	o->mpiexec = "mpiexec.mpich";
	optind = 0;
	/* "+": options end at "--", or at an argument, which is a mistake. */
	while ((c = st_getopt(argc, argv, "+:hn:", longopts, &val)) != -1) {
		last = optind;
		switch (c) {
		case 'h':
			o->help = 1;
			return 0;
		case O_NODE:
			o->node = 1;
			break;
		case 'n':
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a number", "-n");
			if (st_parse_int(val, 2, 1 << 20, &o->nranks))
				return set_err(err, errlen, "bad number of "
					       "ranks '%s' for '-n' (2 or "
					       "more)", val);
			break;
		case O_TIMES:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--times");
			if (check_times(val, err, errlen))
				return -1;
			o->times = val;
			break;
		case O_METHODS:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--methods");
			if (check_methods(val, "--methods", err, errlen))
				return -1;
			o->methods = val;
			break;
		case O_REFRESH_METHODS:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--refresh-methods");
			if (check_methods(val, "--refresh-methods", err,
					  errlen))
				return -1;
			o->refresh_methods = val;
			break;
		case O_REFRESH:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a number of seconds",
					       "--refresh");
			if (parse_seconds(val, &secs) ||
			    (secs > 0 && secs < MIN_REFRESH_S))
				return set_err(err, errlen, "bad period '%s' "
					       "for '--refresh' (0, or 0.01 to "
					       "86400 seconds)", val);
			o->refresh = val;
			break;
		case O_SKEW:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a skew list", "--skew");
			if (st_skew_parse(val, 0, &k, serr, sizeof(serr)))
				return set_err(err, errlen, "bad '--skew': %s",
					       serr);
			o->skew = val;
			break;
		case O_PARAMS:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--params");
			if (check_params(val, err, errlen))
				return -1;
			o->params = val;
			break;
		case O_CSV:
			if (!val || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a file name", "--csv");
			o->csv = val;
			break;
		case O_MPIEXEC:
			if (!val || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a program", "--mpiexec");
			o->mpiexec = val;
			break;
		default:
			return set_err(err, errlen, "%s", val);
		}
	}
	if (optind < argc && !(optind == last + 1 &&
			       !strcmp(argv[last], "--")))
		return set_err(err, errlen, "unexpected argument '%s' "
			       "(mpiexec arguments go after '--')",
			       argv[optind]);
	o->extra = argv + optind;
	o->nextra = argc - optind;
	return 0;
}

/* Append option 'opt' and its 'val' to 'v' unless 'val' is NULL. */
static void pass(char **v, size_t *n, const char *opt, const char *val)
{
	if (!val)
		return;
	v[(*n)++] = (char *)opt;
	v[(*n)++] = (char *)val;
}

char **st_clockcheck_argv(const struct st_clockcheck_opts *o,
			  const char *bench, const char *csv, char *nbuf,
			  size_t nlen)
{
	/* mpiexec -n N, extra, bench clockcheck, 6 options with values. */
	size_t max = 3 + (size_t)o->nextra + 2 + 2 * 6 + 1 + 1, n = 0;
	char **v = malloc(max * sizeof(*v));
	int i;

	if (!v)
		return NULL;
	snprintf(nbuf, nlen, "%ld", o->nranks);
	v[n++] = (char *)o->mpiexec;
	v[n++] = "-n";
	v[n++] = nbuf;
	for (i = 0; i < o->nextra; i++)
		v[n++] = o->extra[i];
	v[n++] = (char *)bench;
	v[n++] = "clockcheck";
	pass(v, &n, "--times", o->times);
	pass(v, &n, "--methods", o->methods);
	pass(v, &n, "--refresh", o->refresh);
	pass(v, &n, "--refresh-methods", o->refresh_methods);
	pass(v, &n, "--params", o->params);
	pass(v, &n, "--csv", csv);
	if (o->node)
		v[n++] = "--node";
	v[n] = NULL;
	return v;
}

/*
 * The CSV file as an absolute path (the ranks may start elsewhere),
 * checked now so that a path that cannot be written fails before a
 * minute-long job rather than after it.
 */
static char *prepare_csv(const char *path)
{
	char cwd[PATH_MAX], err[PATH_MAX + 100], *abs, *dir, *slash;
	size_t len;

	if (path[0] == '/') {
		abs = strdup(path);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			die("cannot find the current directory: %s",
			    strerror(errno));
		len = strlen(cwd) + strlen(path) + 2;
		abs = malloc(len);
		if (abs)
			snprintf(abs, len, "%s/%s", cwd, path);
	}
	if (!abs || !(dir = strdup(abs)))
		die("out of memory");
	slash = strrchr(dir, '/');
	slash[slash == dir] = '\0';
	if (st_out_check(abs, err, sizeof(err))) {
		;
	} else if (access(abs, F_OK) ? access(dir, W_OK | X_OK) :
		   access(abs, W_OK)) {
		snprintf(err, sizeof(err), "cannot write '%s': %s", path,
			 strerror(errno));
	} else {
		free(dir);
		return abs;
	}
	/* Nothing left allocated at the exit (the leak check of SAN). */
	free(dir);
	free(abs);
	die("%s", err);
}

int cmd_clockcheck(int argc, char **argv)
{
	struct st_clockcheck_opts o;
	char err[256], nbuf[32];
	char *bench, *csv = NULL, **cmd;
	int code;

	if (st_clockcheck_opts_parse(&o, argc, argv, err, sizeof(err)))
		usage_die(st_clockcheck_usage, "%s", err);
	if (o.help) {
		fputs(st_clockcheck_usage, stdout);
		return 0;
	}
	if (o.csv)
		csv = prepare_csv(o.csv);
	bench = st_spawn_find_bench();
	if (!bench)
		die("cannot find 'synctrace-bench' next to synctrace or in "
		    "../libexec or ../bin");
	if (o.skew && setenv("SYNCTRACE_CLOCK_SKEW", o.skew, 1))
		die("cannot set SYNCTRACE_CLOCK_SKEW: %s", strerror(errno));
	cmd = st_clockcheck_argv(&o, bench, csv, nbuf, sizeof(nbuf));
	if (!cmd)
		die("out of memory");
	code = st_spawn_exec(cmd);
	free(cmd);
	free(csv);
	free(bench);
	return code;
}
