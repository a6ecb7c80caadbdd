/*
 * tools/cli/cmd-bench.c: 'synctrace bench', the microbenchmark behind cost
 * tables.  The measuring is done by an MPI program, synctrace-bench
 * (tools/bench/micro.c), since this command never links MPI: it checks
 * the options here, so that a mistake is a usage error before any job
 * starts, makes the run directories, and runs
 *
 *	mpiexec.mpich -n N [EXTRA...] synctrace-bench micro --dir DIR ...
 *
 * once per --runs, each run a separate mpiexec into its own directory
 * with its own seed (the shuffled order differs between runs), since the
 * launch itself is a factor of the results that only repeated launches
 * show (Hunold and Carpen-Amarie: use 10 to 30).  The summary is the
 * job's stdout; this command adds one line on stderr at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "sync/skew.h"
#include "tools/bench/micro-ops.h"
#include "tools/analysis/like.h"
#include "tools/cli/spawn.h"
#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"
#include "writer/reader.h"

const char st_bench_usage[] =
"usage: synctrace bench [options] [-- MPIEXEC-ARGS...]\n"
"   eg: synctrace bench -n 4 --runs 10 -o costs\n"
"\n"
"Measure every blocking collective and two point-to-point patterns over\n"
"message sizes on N ranks, each measurement started at a time agreed on\n"
"the global clock (window-based synchronisation, as ReproMPI does), and\n"
"write the valid measurements as a synctrace run directory that 'dump',\n"
"'report' and 'table' read.  Runs 'MPIEXEC -n N MPIEXEC-ARGS\n"
"synctrace-bench micro ...' once per run and prints its summary.\n"
"\n"
"    -n N                number of ranks (default 2)\n"
"    -o DIR              the run directory (created, or an existing empty\n"
"                        one); with --runs, the directory that holds\n"
"                        run-1, run-2...; default: a new directory\n"
"                        synctrace-bench-YYYYMMDD-HHMMSS-PID here\n"
"    --runs N            separate mpiexec launches, each into its own run\n"
"                        directory with its own seed (default 1)\n"
"    --repro             a table meant to be compared with another (see\n"
"                        'synctrace table --compare'): 20 launches of 5\n"
"                        measurements each (up to 20 for pairs whose\n"
"                        windows are short: --pair-time 2000), after a\n"
"                        warm-up launch that is discarded, ranks bound to\n"
"                        cores; says what it will cost before it starts\n"
"    --warmup N          launches made first and discarded, into\n"
"                        DIR/warmup-1... (default 0; --repro: 1)\n"
"    --bind, --no-bind   bind each rank to a core (mpiexec --bind-to\n"
"                        core), or not; default: bound when this host\n"
"                        has a CPU for every rank and the mpiexec\n"
"                        arguments say nothing of binding\n"
"    --ops LIST          operations, comma-separated: allgather,\n"
"                        allgatherv, allreduce, alltoall, alltoallv,\n"
"                        alltoallw, barrier, bcast, exscan, gather,\n"
"                        gatherv, reduce, reduce_scatter,\n"
"                        reduce_scatter_block, scan, scatter, scatterv,\n"
"                        pingpong, sendrecv (\"MPI_\" and case do not\n"
"                        matter); or coll, p2p, all (default)\n"
"    --sizes LIST        message sizes in bytes, suffixes K, M, G\n"
"                        (binary), e.g. 0,1,64,4K,1M (at most 1G)\n"
"    --min SIZE, --max SIZE\n"
"                        powers of two from SIZE to SIZE (default 1 to 4M)\n"
"    --pairs LIST        only these operations at these sizes, instead of\n"
"                        --ops and --sizes: OP:SIZE,... (at most 256),\n"
"                        e.g. allreduce:8,alltoall:128K,pingpong:512; a\n"
"                        collective's OP:SIZE@US times it US microseconds\n"
"                        (up to 2000) after its warm-up call, not 25, and\n"
"                        OP:SIZE@US/PREV:PSIZE makes that call PREV (a\n"
"                        collective or sendrecv) at PSIZE, not OP\n"
"    --like RUN          the pairs the traced run RUN called, on as many\n"
"                        ranks as it had (unless -n): a table in the\n"
"                        application's own mix of operations, each\n"
"                        collective after the quiet time the run had\n"
"                        before it (OP:SIZE@US; docs/bench.md) and the\n"
"                        call it mostly followed, if another collective\n"
"                        or a sendrecv (/PREV:PSIZE), and\n"
"                        first the MPI library's start at the run's\n"
"                        message sizes (the table's start rows)\n"
"    --no-start          with --like: not the library's start\n"
"    --nrep N            valid measurements wanted per operation and size\n"
"                        (default 30)\n"
"    --seed N            seed of the shuffled order of the first run;\n"
"                        run k uses N + k - 1 (default 1)\n"
"    --sync MODE         window (default), or barrier: an MPI_Barrier\n"
"                        before each measurement, for comparison\n"
"    --window-factor X   window = X times the longest pilot time of the\n"
"                        operation and size (default 3)\n"
"    --pair-time US      more measurements for pairs whose windows are\n"
"                        short (their times are the noisiest): as many as\n"
"                        fit in US microseconds of windows, at least\n"
"                        --nrep, at most 4 times --nrep (default 0: off;\n"
"                        --repro: 2000)\n"
"    --quick             a small, fast configuration: sizes 1,1K,64K and\n"
"                        5 measurements (unless given)\n"
"    --reuse-buffers     send the same data every time, as it sits in the\n"
"                        caches; by default each measurement's send data\n"
"                        is written just before, as an application's is\n"
"    --cold-coll         time each collective alone after the wait for\n"
"                        its start; by default an untimed call of the\n"
"                        same operation and size comes some 25 us before\n"
"                        (a --pairs item's @US: US before)\n"
"    --warm-p2p          time each point-to-point pattern after an untimed\n"
"                        one of the same size and direction, some 25 us\n"
"                        before, as collectives are: its cost in steady\n"
"                        exchanges; by default it is timed alone after the\n"
"                        wait for its start (what 'predict' is fitted to)\n"
"    --skew SPEC         distort each rank's clock by a known offset and\n"
"                        drift, e.g. 0,+0.5s@+100ppm (sets\n"
"                        SYNCTRACE_CLOCK_SKEW), to test synchronisation\n"
"    --mpiexec PROG      the mpiexec to run (default mpiexec.mpich)\n"
"    -h, --help          show this help\n"
"\n"
"The size of a measurement is the bytes of one block: what each rank\n"
"contributes (allgather, gather), sends to each rank (alltoall) or gets\n"
"(scatter, reduce_scatter), the vector of a broadcast or reduction, a\n"
"message.  A measurement is discarded when any rank entered it after its\n"
"start or left it after its window, and made again later; the summary\n"
"counts them.  Arguments after '--' go to mpiexec, before the program.\n";

#define MAX_RUNS 1000
#define MAX_SIZE (1ull << 30)

static int set_err(char *err, size_t errlen, const char *msg,
		   const char *arg)
{
	snprintf(err, errlen, msg, arg);
	return -1;
}

/* A size: "0", or what st_size_parse() takes, at most MAX_SIZE. */
static int parse_size(const char *s, uint64_t *out)
{
	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (st_size_parse(s, out) || *out > MAX_SIZE)
		return -EINVAL;
	return 0;
}

static int check_sizes(const char *s, char *err, size_t errlen)
{
	char item[64];
	uint64_t v[64];
	int n = 0, k;

	for (;;) {
		size_t len = strcspn(s, ",");

		if (len >= sizeof(item))
			return -1;
		memcpy(item, s, len);
		item[len] = '\0';
		if (parse_size(item, &v[n]))
			return -1;
		for (k = 0; k < n; k++)
			if (v[k] == v[n])
				return set_err(err, errlen, "size given twice "
					       "in '%s' for '--sizes'", item);
		if (++n == 64 && s[len])
			return set_err(err, errlen, "too many sizes in "
				       "'--sizes' (at most %s)", "64");
		if (!s[len])
			break;
		s += len + 1;
	}
	return 0;
}

/* The size text of 'len' bytes at 's' in '*v'; 0, or -1 if bad. */
static int size_text(const char *s, size_t len, uint64_t *v)
{
	char item[64];

	if (!len || len >= sizeof(item))
		return -1;
	memcpy(item, s, len);
	item[len] = '\0';
	return parse_size(item, v) ? -1 : 0;
}

/*
 * One --pairs item, the 'len' bytes at 's': OP:SIZE, a collective's
 * optionally with @US and /PREV:PSIZE (tools/bench/micro-ops.h).  Sets
 * '*op', '*v' (the size), '*gap' (-1: none), '*pop' and '*pv' (the
 * warm-up's; -1, 0: none).  Returns 0, or -1 for a bad item.
 */
static int pair_item(const char *s, size_t len, int *op, uint64_t *v,
		     long *gap, int *pop, uint64_t *pv)
{
	const char *size, *psize;
	size_t size_len, psize_len;

	*pv = 0;
	*op = st_micro_pair_parse(s, len, &size, &size_len, gap, pop, &psize,
				  &psize_len);
	if (*op < 0 || (*pop >= 0 && size_text(psize, psize_len, pv)) ||
	    size_text(size, size_len, v))
		return -1;
	return 0;
}

/* A --pairs list: OP:SIZE items, each one operation and a size. */
static int check_pairs(const char *s, char *err, size_t errlen)
{
	size_t len;
	uint64_t v, pv;
	long gap;
	int n = 0, op, pop;

	for (;;) {
		len = strcspn(s, ",");
		if (pair_item(s, len, &op, &v, &gap, &pop, &pv)) {
			snprintf(err, errlen, "bad item '%.*s' in '--pairs' "
				 "(OP:SIZE or a collective's OP:SIZE@US, US "
				 "at most %d, and /PREV:PSIZE, PREV a "
				 "collective or sendrecv, e.g. allreduce:8@500,"
				 "alltoall:4@70/alltoallv:96K,alltoall:128K)",
				 (int)len, s, ST_MICRO_MAX_GAP_US);
			return -1;
		}
		if (++n > ST_MICRO_MAX_PAIRS)
			return set_err(err, errlen, "too many items in "
				       "'--pairs' (at most %s)", "256");
		if (!s[len])
			break;
		s += len + 1;
	}
	return 0;
}

/* A plain decimal number, 'min' to 'max'. */
static int parse_number(const char *s, double min, double max)
{
	char *end;
	double v;

	if (!*s || *s == ' ' || *s == '+' || *s == '-')
		return -EINVAL;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	return 0;
}

int st_bench_opts_parse(struct st_bench_opts *o, int argc, char **argv,
			char *err, size_t errlen)
{
	enum { O_QUICK = 256, O_REUSE, O_RUNS, O_OPS, O_SIZES, O_PAIRS,
	       O_LIKE, O_MIN, O_MAX, O_NREP, O_SEED, O_SYNC, O_WINDOW_FACTOR,
	       O_SKEW, O_MPIEXEC, O_REPRO, O_WARMUP, O_BIND, O_NO_BIND,
	       O_PAIR_TIME, O_COLD_COLL, O_WARM_P2P, O_NO_START };
	static const struct option longopts[] = {
		{ "bind", no_argument, NULL, O_BIND },
		{ "cold-coll", no_argument, NULL, O_COLD_COLL },
		{ "warm-p2p", no_argument, NULL, O_WARM_P2P },
		{ "help", no_argument, NULL, 'h' },
		{ "like", required_argument, NULL, O_LIKE },
		{ "max", required_argument, NULL, O_MAX },
		{ "min", required_argument, NULL, O_MIN },
		{ "mpiexec", required_argument, NULL, O_MPIEXEC },
		{ "no-bind", no_argument, NULL, O_NO_BIND },
		{ "no-start", no_argument, NULL, O_NO_START },
		{ "nrep", required_argument, NULL, O_NREP },
		{ "ops", required_argument, NULL, O_OPS },
		{ "output", required_argument, NULL, 'o' },
		{ "pair-time", required_argument, NULL, O_PAIR_TIME },
		{ "pairs", required_argument, NULL, O_PAIRS },
		{ "quick", no_argument, NULL, O_QUICK },
		{ "repro", no_argument, NULL, O_REPRO },
		{ "reuse-buffers", no_argument, NULL, O_REUSE },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "skew", required_argument, NULL, O_SKEW },
		{ "sync", required_argument, NULL, O_SYNC },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "window-factor", required_argument, NULL, O_WINDOW_FACTOR },
		{ NULL, 0, NULL, 0 }
	};
	struct st_skew k;
	uint64_t lo = 1, hi = 4u << 20;
	char serr[160], name[64];
	const char *val;
	unsigned mask;
	long n;
	int c, last = 1;

	memset(o, 0, sizeof(*o));
	o->nranks = 2;
	o->runs = 1;
	o->seed = 1;
	o->mpiexec = "mpiexec.mpich";
	o->warmup = -1;
	o->bind = -1;
	optind = 0;
	/* "+": options end at "--", or at an argument, which is a mistake. */
	while ((c = st_getopt(argc, argv, "+:hn:o:", longopts, &val)) != -1) {
		last = optind;
		switch (c) {
		case 'h':
			o->help = 1;
			return 0;
		case O_QUICK:
			o->quick = 1;
			break;
		case O_REUSE:
			o->reuse = 1;
			break;
		case O_COLD_COLL:
			o->cold_coll = 1;
			break;
		case O_WARM_P2P:
			o->warm_p2p = 1;
			break;
		case O_NO_START:
			o->no_start = 1;
			break;
		case O_REPRO:
			o->repro = 1;
			break;
		case O_BIND:
			o->bind = 1;
			break;
		case O_NO_BIND:
			o->bind = 0;
			break;
		case O_WARMUP:
			if (!val || st_parse_int(val, 0, 100, &o->warmup))
				return set_err(err, errlen, "bad number of "
					       "launches '%s' for '--warmup' "
					       "(0 to 100)", val ? val : "");
			break;
		case 'n':
			if (!val || st_parse_int(val, 2, 1 << 20, &o->nranks))
				return set_err(err, errlen, "bad number of "
					       "ranks '%s' for '-n' (2 or "
					       "more)", val ? val : "");
			o->nranks_set = 1;
			break;
		case 'o':
			if (!val || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a directory", "-o");
			o->dir = val;
			break;
		case O_RUNS:
			if (!val || st_parse_int(val, 1, MAX_RUNS, &o->runs))
				return set_err(err, errlen, "bad number of "
					       "runs '%s' for '--runs' (1 to "
					       "1000)", val ? val : "");
			o->runs_set = 1;
			break;
		case O_OPS:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--ops");
			name[0] = '\0';
			if (st_micro_ops_parse(val, &mask, name,
					       sizeof(name)))
				return set_err(err, errlen, "unknown operation "
					       "'%s' for '--ops' (see "
					       "'synctrace bench --help')",
					       name);
			o->ops = val;
			break;
		case O_SIZES:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--sizes");
			err[0] = '\0';
			if (check_sizes(val, err, errlen))
				return err[0] ? -1 : set_err(err, errlen,
					"bad size list '%s' for '--sizes' "
					"(bytes, suffix K, M or G, at most 1G, "
					"e.g. 1,64,4K,1M)", val);
			o->sizes = val;
			break;
		case O_PAIRS:
			if (!val)
				return set_err(err, errlen, "option '%s' needs "
					       "a list", "--pairs");
			if (check_pairs(val, err, errlen))
				return -1;
			o->pairs = val;
			break;
		case O_LIKE:
			if (!val || !*val)
				return set_err(err, errlen, "option '%s' needs "
					       "a run directory", "--like");
			o->like = val;
			break;
		case O_MIN:
			if (!val || st_size_parse(val, &lo) || lo > MAX_SIZE)
				return set_err(err, errlen, "bad size '%s' for "
					       "'--min' (1 to 1G)",
					       val ? val : "");
			o->min = val;
			break;
		case O_MAX:
			if (!val || st_size_parse(val, &hi) || hi > MAX_SIZE)
				return set_err(err, errlen, "bad size '%s' for "
					       "'--max' (1 to 1G)",
					       val ? val : "");
			o->max = val;
			break;
		case O_NREP:
			if (!val || st_parse_int(val, 1, 100000, &n))
				return set_err(err, errlen, "bad count '%s' "
					       "for '--nrep' (1 to 100000)",
					       val ? val : "");
			o->nrep = val;
			break;
		case O_SEED: {
			char *end;

			errno = 0;
			if (!val || *val < '0' || *val > '9' ||
			    (o->seed = strtoull(val, &end, 10), errno) ||
			    *end || o->seed > UINT64_MAX - MAX_RUNS)
				return set_err(err, errlen, "bad seed '%s' for "
					       "'--seed' (a whole number)",
					       val ? val : "");
			break;
		}
		case O_SYNC:
			if (!val || (strcmp(val, "window") &&
				     strcmp(val, "barrier")))
				return set_err(err, errlen, "bad mode '%s' for "
					       "'--sync' (window or barrier)",
					       val ? val : "");
			o->sync = val;
			break;
		case O_WINDOW_FACTOR:
			if (!val || parse_number(val, 0.1, 1000))
				return set_err(err, errlen, "bad factor '%s' "
					       "for '--window-factor' (0.1 to "
					       "1000)", val ? val : "");
			o->window_factor = val;
			break;
		case O_PAIR_TIME:
			if (!val || parse_number(val, 0, 1e7))
				return set_err(err, errlen, "bad time '%s' for "
					       "'--pair-time' (0 to 10000000 "
					       "us)", val ? val : "");
			o->pair_time = val;
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
	if (o->sizes && (o->min || o->max))
		return set_err(err, errlen, "%s", "'--sizes' and '--min'/"
			       "'--max' exclude each other");
	if ((o->pairs || o->like) &&
	    (o->ops || o->sizes || o->min || o->max || o->quick))
		return set_err(err, errlen, "'%s' excludes '--ops', '--sizes', "
			       "'--min', '--max' and '--quick'",
			       o->like ? "--like" : "--pairs");
	if (o->pairs && o->like)
		return set_err(err, errlen, "%s", "'--pairs' and '--like' "
			       "exclude each other");
	if (o->no_start && !o->like)
		return set_err(err, errlen, "%s", "'--no-start' goes with "
			       "'--like'");
	if (lo > hi)
		return set_err(err, errlen, "'--min' %s is above '--max'",
			       o->min);
	o->extra = argv + optind;
	o->nextra = argc - optind;
	return 0;
}

char **st_bench_argv(const struct st_bench_opts *o, const char *bench,
		     const char *dir, uint64_t seed, char *nbuf, size_t nlen,
		     char *sbuf, size_t slen)
{
	/* mpiexec -n N, binding, extra, bench micro, 11 options with
	 * values, 5 flags. */
	size_t max = 3 + 2 + (size_t)o->nextra + 2 + 2 * 11 + 5 + 1, n = 0;
	char **v = malloc(max * sizeof(*v));
	int i;

	if (!v)
		return NULL;
	snprintf(nbuf, nlen, "%ld", o->nranks);
	snprintf(sbuf, slen, "%llu", (unsigned long long)seed);
	v[n++] = (char *)o->mpiexec;
	v[n++] = "-n";
	v[n++] = nbuf;
	if (o->bind == 1) {
		/* Hydra (MPICH) and Open MPI both take this spelling. */
		v[n++] = "--bind-to";
		v[n++] = "core";
	}
	for (i = 0; i < o->nextra; i++)
		v[n++] = o->extra[i];
	v[n++] = (char *)bench;
	v[n++] = "micro";
#define PASS(opt, field) \
	if (field) { \
		v[n++] = opt; \
		v[n++] = (char *)(field); \
	}
	PASS("--dir", dir);
	PASS("--ops", o->ops);
	PASS("--sizes", o->sizes);
	PASS("--min", o->min);
	PASS("--max", o->max);
	PASS("--pairs", o->pairs);
	PASS("--nrep", o->nrep);
	PASS("--seed", sbuf);
	PASS("--sync", o->sync);
	PASS("--window-factor", o->window_factor);
	PASS("--pair-time", o->pair_time);
#undef PASS
	if (o->quick)
		v[n++] = "--quick";
	if (o->reuse)
		v[n++] = "--reuse-buffers";
	if (o->cold_coll)
		v[n++] = "--cold-coll";
	if (o->warm_p2p)
		v[n++] = "--warm-p2p";
	if (o->like && !o->no_start)
		v[n++] = "--start";
	v[n] = NULL;
	return v;
}

#define REPRO_RUNS 20
#define REPRO_NREP "5"
#define REPRO_PAIR_TIME "2000"	/* us: up to 4 x 5 for short windows */
#define PAIR_TIME_MAX 4		/* as synctrace-bench's */
#define REPRO_WARMUP 1

/* Do the mpiexec arguments place or bind ranks themselves? */
static int user_binds(const struct st_bench_opts *o)
{
	int i;

	for (i = 0; i < o->nextra; i++)
		if (strstr(o->extra[i], "bind") || strstr(o->extra[i], "map-by"))
			return 1;
	return 0;
}

void st_bench_settle(struct st_bench_opts *o, long ncpus)
{
	if (o->repro) {
		if (!o->runs_set)
			o->runs = REPRO_RUNS;
		if (!o->nrep && !o->quick)
			o->nrep = REPRO_NREP;
		if (!o->pair_time && !o->quick)
			o->pair_time = REPRO_PAIR_TIME;
		if (o->warmup < 0)
			o->warmup = REPRO_WARMUP;
	}
	if (o->warmup < 0)
		o->warmup = 0;
	if (o->bind < 0)
		o->bind = !user_binds(o) && ncpus >= o->nranks;
}

/*
 * A model of one measurement's time, ns, for the estimate: MPICH 4.0
 * over shared memory on 2 ranks of a 2-CPU virtual machine (README's
 * bench example: medians at 4 MiB over 4 MiB), 2 us at size 0, the
 * per-byte part growing with p for collectives.
 */
static double model_ns(int op, double d, long p)
{
	static const double ns_per_byte[ST_MICRO_NOPS] = {
		[ST_MICRO_ALLGATHER] = 0.26, [ST_MICRO_ALLGATHERV] = 0.31,
		[ST_MICRO_ALLREDUCE] = 0.42, [ST_MICRO_ALLTOALL] = 0.29,
		[ST_MICRO_ALLTOALLV] = 0.34, [ST_MICRO_ALLTOALLW] = 0.35,
		[ST_MICRO_BARRIER] = 0, [ST_MICRO_BCAST] = 0.10,
		[ST_MICRO_EXSCAN] = 1.23, [ST_MICRO_GATHER] = 0.21,
		[ST_MICRO_GATHERV] = 0.21, [ST_MICRO_REDUCE] = 0.88,
		[ST_MICRO_REDUCE_SCATTER] = 0.78,
		[ST_MICRO_REDUCE_SCATTER_BLOCK] = 0.71,
		[ST_MICRO_SCAN] = 3.4, [ST_MICRO_SCATTER] = 0.21,
		[ST_MICRO_SCATTERV] = 0.22, [ST_MICRO_PINGPONG] = 0.20,
		[ST_MICRO_SENDRECV] = 0.11,
	};
	double scale = op >= ST_MICRO_P2P_FIRST ? 1 : (double)p / 2;

	return 2000 * scale + ns_per_byte[op] * d * scale;
}

/*
 * One measurement's window in the estimate: 3 model times, >= 100 us;
 * unless 'cold' (a collective under --cold-coll, a point-to-point
 * pattern without --warm-p2p) it holds the warm-up call too: 3 times two
 * calls (synctrace-bench's pilot), and a collective's with a gap of
 * 'gap_us' (OP:SIZE@US) longer than 25 us, at least twice the gap and
 * two calls.
 */
static double window_ns(int op, double d, long p, int cold, long gap_us)
{
	double m = model_ns(op, d, p), w;

	w = fmax(100e3, (!cold ? 6 : 3) * m);
	if (!cold && op < ST_MICRO_P2P_FIRST &&
	    gap_us > ST_MICRO_DEFAULT_GAP_US)
		w = fmax(w, 2 * (2 * m + 1e3 * (double)gap_us));
	return w;
}

/* Whether 'op' is timed without a warm-up call (--cold-coll, --warm-p2p). */
static int cold_of(const struct st_bench_opts *o, int op)
{
	return op < ST_MICRO_P2P_FIRST ? o->cold_coll : !o->warm_p2p;
}

/* The sizes of a grid ('list' NULL: powers of two 'lo' to 'hi'). */
static int grid_sizes(const char *list, uint64_t lo, uint64_t hi,
		      double *v, int max)
{
	char item[64];
	uint64_t x;
	int n = 0;

	if (!list) {
		for (x = lo; x <= hi && n < max; x *= 2)
			v[n++] = (double)x;
		return n;
	}
	while (n < max) {
		size_t len = strcspn(list, ",");

		if (len < sizeof(item)) {
			memcpy(item, list, len);
			item[len] = '\0';
			if (!parse_size(item, &x))
				v[n++] = (double)x;
		}
		if (!list[len])
			break;
		list += len + 1;
	}
	return n;
}

/*
 * The time of one pair's measurements with windows of 'w' ns: nrep of
 * them, or with --pair-time 't' ns as many as fit in it, between nrep
 * and PAIR_TIME_MAX nrep (as synctrace-bench plans them).
 */
static double pair_ns(double w, double nrep, double t)
{
	double k = nrep;

	if (t > 0 && w > 0)
		k = fmax(nrep, fmin(floor(t / w), PAIR_TIME_MAX * nrep));
	return w * k;
}

long st_bench_estimate(const struct st_bench_opts *o, double *secs)
{
	double sizes[64], per_rep = 0, nrep, t;
	uint64_t lo = 1, hi = 4u << 20;
	const char *list = o->sizes;
	unsigned mask = ST_MICRO_ALL;
	long n = 0;
	int nsizes, op, k;

	*secs = NAN;
	if (o->like && !o->pairs)
		return 0;
	nrep = o->nrep ? atof(o->nrep) : o->quick ? 5 : 30;
	t = o->pair_time ? 1e3 * atof(o->pair_time) : 0;
	if (o->pairs) {
		const char *s = o->pairs;
		size_t len;
		uint64_t x, px;
		long gap = -1;
		int pop;

		for (;;) {
			len = strcspn(s, ",");
			if (!pair_item(s, len, &op, &x, &gap, &pop, &px)) {
				double w = window_ns(op, (double)x, o->nranks,
						     cold_of(o, op), gap);

				/* A warm-up of another operation: 3 of it. */
				if (pop >= 0 && !o->cold_coll)
					w += 3 * model_ns(pop, (double)px,
							  o->nranks);
				per_rep += pair_ns(w, nrep, t);
				n++;
			}
			if (!s[len])
				break;
			s += len + 1;
		}
	} else {
		if (o->ops)
			st_micro_ops_parse(o->ops, &mask, NULL, 0);
		if (o->min)
			st_size_parse(o->min, &lo);
		if (o->max)
			st_size_parse(o->max, &hi);
		if (o->quick && !list && !o->min && !o->max)
			list = "1,1K,64K";
		nsizes = grid_sizes(list, lo, hi, sizes, 64);
		for (op = 0; op < ST_MICRO_NOPS; op++) {
			if (!(mask & 1u << op))
				continue;
			if (op == ST_MICRO_BARRIER) {
				per_rep += pair_ns(window_ns(op, 0,
							     o->nranks,
							     cold_of(o, op), -1),
						   nrep, t);
				n++;
				continue;
			}
			for (k = 0; k < nsizes; k++)
				per_rep += pair_ns(window_ns(op, sizes[k],
							     o->nranks,
							     cold_of(o, op), -1),
						   nrep, t);
			n += nsizes;
		}
	}
	/* A tenth more for measurements discarded and made again. */
	*secs = 0.5 + 1.1 * per_rep * 1e-9;
	return n;
}

/* "1.5 min", "40 s", "2.1 h". */
static void fmt_duration(char *buf, size_t len, double s)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 5400)
		snprintf(buf, len, "%.1f min", s / 60);
	else
		snprintf(buf, len, "%.1f h", s / 3600);
}

/*
 * Create 'dir', or accept it when it exists and is empty ('*created'
 * says which); returns its absolute path.
 */
static char *make_dir(const char *dir, int *created)
{
	struct stat st;
	char *abs;
	int empty;

	*created = !mkdir(dir, 0777);
	if (!*created) {
		if (errno != EEXIST)
			die("cannot create directory '%s': %s", dir,
			    strerror(errno));
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			die("cannot use '%s' as run directory: not a "
			    "directory", dir);
		empty = st_dir_is_empty(dir);
		if (empty < 0)
			die("cannot read directory '%s': %s", dir,
			    strerror(errno));
		if (!empty)
			die("directory '%s' already exists and is not empty",
			    dir);
	}
	abs = realpath(dir, NULL);
	if (!abs)
		die("cannot resolve '%s': %s", dir, strerror(errno));
	return abs;
}

/* 1 when the run directory 'dir' says complete=1. */
static int run_complete(const char *dir)
{
	struct st_run *run;
	const char *v;
	char err[512];
	int ok;

	if (st_run_open(&run, dir, err, sizeof(err)))
		return 0;
	v = st_run_get(run, "complete");
	ok = v && !strcmp(v, "1");
	st_run_close(run);
	return ok;
}

/* Print 's' wrapped at 78 columns, continuation lines indented 2. */
static void print_wrapped(const char *s)
{
	size_t col = 0, w;

	while (*s) {
		w = strcspn(s, " ");
		if (col && col + 1 + w > 78) {
			fputs("\n ", stdout);
			col = 1;
		}
		if (col) {
			putchar(' ');
			col++;
		}
		fwrite(s, 1, w, stdout);
		col += w;
		s += w;
		s += strspn(s, " ");
	}
	putchar('\n');
}

/*
 * Say what the launches will be and what they will cost, up front.
 * Returns 1 when it printed something (a single launch needs no plan).
 */
static int print_plan(const struct st_bench_opts *o)
{
	double secs;
	long npairs = st_bench_estimate(o, &secs);
	char buf[512], d[32];
	size_t n;

	if (o->runs == 1 && !o->warmup && !o->repro)
		return 0;
	n = (size_t)snprintf(buf, sizeof(buf), "plan: %s%ld launch%s",
			     o->repro ? "a table meant to be compared: " : "",
			     o->runs, o->runs == 1 ? "" : "es");
	if (o->warmup && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " after %ld "
				      "warm-up launch%s (discarded)", o->warmup,
				      o->warmup == 1 ? "" : "es");
	if (npairs && n < sizeof(buf) && o->pair_time &&
	    atof(o->pair_time) > 0)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", %ld "
				      "(operation, size) pairs x %s to %ld "
				      "measurements each (more where windows "
				      "are short: --pair-time %s us)", npairs,
				      o->nrep ? o->nrep : o->quick ? "5" : "30",
				      PAIR_TIME_MAX * (o->nrep ? atol(o->nrep) :
						       o->quick ? 5 : 30),
				      o->pair_time);
	else if (npairs && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", %ld "
				      "(operation, size) pair%s x %s "
				      "measurement%s each", npairs,
				      npairs == 1 ? "" : "s",
				      o->nrep ? o->nrep : o->quick ? "5" : "30",
				      o->nrep && !strcmp(o->nrep, "1") ? "" :
				      "s");
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "; ranks %s",
			 o->bind ? "bound to cores (mpiexec --bind-to core)" :
			 "not bound to cores");
	print_wrapped(buf);
	if (npairs && isfinite(secs)) {
		fmt_duration(d, sizeof(d), secs * (double)(o->runs +
							   o->warmup));
		snprintf(buf, sizeof(buf), "cost: about %s on an idle machine "
			 "with a CPU per rank; other jobs make it longer", d);
		print_wrapped(buf);
	}
	fflush(stdout);
	return 1;
}

/*
 * A launch whose trace is complete (its index says complete=1) has
 * measured all it will; mpiexec should end within moments.  With MPICH
 * 4.0 over UCX's TCP transport, MPI_Finalize hangs now and then after
 * the work is done (one launch in ten here; openucx/ucx#8738), so a
 * launch still running FINISH_GRACE_S after its trace was complete is
 * stopped, and kept.
 */
#define FINISH_GRACE_S 30.0

struct watch {
	const char *dir;
	struct timespec complete_at;
	int complete, stopped;
};

static double since(const struct timespec *t0);

static int past_grace(void *ctx)
{
	struct watch *w = ctx;

	if (!w->complete) {
		w->complete = run_complete(w->dir);
		if (w->complete)
			clock_gettime(CLOCK_MONOTONIC, &w->complete_at);
		return 0;
	}
	if (since(&w->complete_at) < FINISH_GRACE_S)
		return 0;
	w->stopped = 1;
	return 1;
}

/* The time since 't0', seconds. */
static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

int cmd_bench(int argc, char **argv)
{
	struct st_bench_opts o;
	struct st_like like;
	struct timespec t0;
	char err[768], nbuf[32], sbuf[32], name[128], stamp[32], d[32];
	char pairs[ST_MICRO_MAX_PAIRS * 48];
	char *bench, *top, *dir, **cmd;
	size_t len;
	struct tm tm;
	time_t now;
	long k, nwarm, ncomplete = 0, nbad = 0;
	int code = 0, created, planned;
	struct watch w;

	if (st_bench_opts_parse(&o, argc, argv, err, sizeof(err)))
		usage_die(st_bench_usage, "%s", err);
	if (o.help) {
		fputs(st_bench_usage, stdout);
		return 0;
	}
	if (o.like) {
		if (st_like_pairs(o.like, pairs, sizeof(pairs), &like, err,
				  sizeof(err)))
			die("--like: %s", err);
		o.pairs = pairs;
		if (!o.nranks_set)
			o.nranks = like.nranks < 2 ? 2 : like.nranks;
		printf("like %s: %d (operation, size) pair%s from %llu of "
		       "%llu calls%s:\n  %s\n", o.like, like.npairs,
		       like.npairs == 1 ? "" : "s",
		       (unsigned long long)like.mapped,
		       (unsigned long long)like.calls,
		       like.binned ? " (sizes rounded to powers of two)" : "",
		       pairs);
		if (like.unmapped)
			printf("  not measured: %llu collective or send "
			       "call%s the bench has no operation for (such "
			       "as %s)\n", (unsigned long long)like.unmapped,
			       like.unmapped == 1 ? "" : "s",
			       like.unmapped_fn);
		fflush(stdout);
	}
	st_bench_settle(&o, sysconf(_SC_NPROCESSORS_ONLN));
	bench = st_spawn_find_bench();
	if (!bench)
		die("cannot find 'synctrace-bench' next to synctrace or in "
		    "../libexec or ../bin");
	if (!o.dir) {
		now = time(NULL);
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(name, sizeof(name), "synctrace-bench-%s-%ld", stamp,
			 (long)getpid());
		o.dir = name;
	}
	top = make_dir(o.dir, &created);
	if (o.skew && setenv("SYNCTRACE_CLOCK_SKEW", o.skew, 1))
		die("cannot set SYNCTRACE_CLOCK_SKEW: %s", strerror(errno));
	planned = print_plan(&o);
	len = strlen(top) + 32;
	if (!(dir = malloc(len)))
		die("out of memory");
	/*
	 * Warm-up launches first, with seeds after the runs' so that
	 * --seed keeps naming the runs' orders; then the runs.
	 */
	for (k = 1 - o.warmup; k <= o.runs; k++) {
		uint64_t seed = k > 0 ? o.seed + (uint64_t)k - 1 :
				o.seed + (uint64_t)(o.runs - k);

		nwarm = k <= 0 ? o.warmup + k : 0;	/* 1, 2... */
		if (nwarm)
			snprintf(dir, len, "%s/warmup-%ld", top, nwarm);
		else if (o.runs == 1 && !o.warmup)
			snprintf(dir, len, "%s", top);
		else
			snprintf(dir, len, "%s/run-%ld", top, k);
		cmd = st_bench_argv(&o, bench, dir, seed, nbuf, sizeof(nbuf),
				    sbuf, sizeof(sbuf));
		if (!cmd)
			die("out of memory");
		if (nwarm)
			printf("\nwarm-up launch %ld of %ld, seed %s "
			       "(discarded)\n", nwarm, o.warmup, sbuf);
		else if (planned)
			printf("\nrun %ld of %ld, seed %s\n", k, o.runs, sbuf);
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		memset(&w, 0, sizeof(w));
		w.dir = dir;
		code = st_spawn_run_watched(cmd, err, sizeof(err), past_grace,
					    &w);
		if (code < 0)
			die("%s", err);
		free(cmd);
		if (code && run_complete(dir)) {
			if (w.stopped)
				printf("note: mpiexec was still running %.0f s "
				       "after the trace was complete (MPI_"
				       "Finalize\n  hung?): stopped; the "
				       "launch is kept\n", FINISH_GRACE_S);
			else
				printf("note: mpiexec ended with status %d "
				       "after the trace was complete; the "
				       "launch\n  is kept\n", code);
			fflush(stdout);
			nbad++;
			code = 0;
		}
		if (nwarm && !code) {
			fmt_duration(d, sizeof(d), since(&t0) *
				     (double)(o.runs + o.warmup - nwarm));
			printf("warm-up launch %ld took %.1f s: the rest will "
			       "take about %s\n", nwarm, since(&t0), d);
			fflush(stdout);
		}
		if (!nwarm)
			ncomplete += run_complete(dir);
		if (code)
			break;
	}
	if (st_dir_is_empty(top) == 1) {
		/* The job never started (mpiexec missing?): leave no trace. */
		if (created)
			rmdir(top);
		fprintf(stderr, "synctrace: no bench trace written\n");
	} else if (o.runs == 1 && !o.warmup) {
		fprintf(stderr, "synctrace: bench trace in %s (%ld ranks, "
			"%s)\n", top, o.nranks, ncomplete ? "complete" :
			"incomplete");
	} else if (!code) {
		fprintf(stderr, "synctrace: %ld bench run%s in %s/run-1 .. "
			"run-%ld (%ld ranks, %ld complete)%s\n", o.runs,
			o.runs == 1 ? "" : "s", top, o.runs, o.nranks,
			ncomplete, o.warmup ? "; warm-up launches in "
			"warmup-*, not among them" : "");
		if (nbad)
			fprintf(stderr, "synctrace: %ld launch%s ended badly "
				"after a complete trace (see the notes)\n",
				nbad, nbad == 1 ? "" : "es");
	} else if (k <= 0) {
		fprintf(stderr, "synctrace: bench warm-up launch %ld of %ld "
			"failed; runs in %s\n", o.warmup + k, o.warmup, top);
	} else {
		fprintf(stderr, "synctrace: bench run %ld of %ld failed; "
			"runs in %s\n", k, o.runs, top);
	}
	free(dir);
	free(top);
	free(bench);
	return code;
}
