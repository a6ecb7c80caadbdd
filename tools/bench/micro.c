/*
 * tools/bench/micro.c: "synctrace-bench micro", the cost table's raw
 * material: every blocking collective and two point-to-point patterns
 * over a range of message sizes, each measurement synchronised as
 * Hunold and Carpen-Amarie's ReproMPI prescribes ("MPI Benchmarking
 * Revisited", Sec. 3.3 and 5): the clocks are synchronised with HCA, and
 * every measurement starts at a start time agreed on the global clock,
 * not after an MPI_Barrier, whose exit skew would be measured with it.
 *
 * The method, in order:
 *  1. HCA synchronisation (sync/), refreshed between batches (after
 *     0.25 s, 0.5 s, 1 s... up to every --refresh seconds) and once more
 *     at the end; each epoch goes into the trace as a sync record, so the
 *     tools get global time.
 *  2. A pilot per (operation, size): a first call, then 3 timed ones,
 *     each after a barrier.  The window of that (operation, size) is
 *     --window-factor times the median over the 3 of the longest time
 *     on any rank, at least --min-window.  The first call is the
 *     process's first of that (operation, size), which costs more than
 *     the rest (lazy set-up in the MPI library, cold code paths): it is
 *     recorded, as measurement number 1, 2... in pilot order, so that
 *     the table can give a first-call cost.  Pilots run in the order of
 *     --pairs when it is given (synctrace bench --like lists pairs in
 *     the order the application first called them, so that each pays
 *     what it paid there), else operation by operation, sizes
 *     ascending.
 *  3. nrep measurements of every (operation, size) (with --pair-time T,
 *     as many as fit in T of its first window, at least nrep and at
 *     most PAIR_TIME_MAX nrep: pairs whose windows are short, whose
 *     times are the noisiest for the clocks' error, get more), in one
 *     list shuffled
 *     with --seed, so the order of operations, sizes and repetitions is
 *     random but the same on every rank and in every run with that seed.
 *  4. The list runs in batches.  Rank 0 sets the batch's start times on
 *     the global clock (now plus a lead, then each start one window
 *     after the previous) and broadcasts them; every rank turns them into
 *     its local clock and busy-waits for each (sleeping first when it is
 *     milliseconds away).  A rank flags a measurement "late" when the
 *     start had passed at its first look, or when it entered the call
 *     more than 1 us + 1% of the window (at most 10 us) after the start
 *     (descheduled in between); "overrun" when the call ended after the
 *     window.  A MAX reduction after the batch tells every rank which
 *     measurements some rank flagged.  Those are discarded (no record)
 *     and made again later, up to 10 nrep attempts per (operation,
 *     size), and all remade ones together at most twice the planned
 *     measurements: on a busy machine, where most are discarded, a run
 *     makes at most three times its planned attempts, not ten, and
 *     ends in bounded time with fewer valid ones.  The batches also
 *     stop once they have taken 4 times the planned time (every
 *     measurement in its first window), or 10 s if that is more, and
 *     after 10 s when most measurements so far were discarded: on a
 *     machine that busy the pilot's times, and with them the windows
 *     and the planned time, are inflated too.  The rest are not made.
 *     A late start right after an overrun of the previous
 *     measurement on that rank, or at the first start of a batch, is the
 *     previous window's or the lead's fault: it does not count against
 *     its own window, and the second doubles the lead.  When more than
 *     a quarter of at least 8 measurements of an (operation, size)
 *     overran or found their start passed, its window doubles, up to 16
 *     times its first, and after 16 good ones in a row it halves again
 *     (see adapt()).
 *  5. Every valid measurement becomes ST_REC_CALL records (one per MPI
 *     call) on every rank, with the same 'seq' on all ranks: the number
 *     of the measurement in the run, discarded ones included, so gaps
 *     show the discards; the first calls of step 2 come first.
 *
 * --sync barrier replaces step 4's start times by an MPI_Barrier before
 * each measurement and discards nothing, for comparison; the output and
 * the trace say so.  Rank 0 prints a summary at the end.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "gen/ops.h"
#include "sync/skew.h"
#include "sync/sync.h"
#include "tools/bench/bench.h"
#include "tools/bench/micro-ops.h"
#include "tools/bench/micro-run.h"
#include "tools/bench/mpi-transport.h"
#include "tools/bench/trace.h"
#include "writer/event.h"
#include "writer/reader.h"

const char st_bench_micro_usage[] =
"usage: mpiexec.mpich -n N synctrace-bench micro [options]\n"
"\n"
"Measure blocking collectives and point-to-point patterns over message\n"
"sizes, each measurement started at a time agreed on the HCA global\n"
"clock (window-based, as ReproMPI), and write every valid measurement\n"
"to a synctrace run directory.  Normally started by 'synctrace bench'.\n"
"\n"
"    --dir DIR           run directory (created, or an existing empty\n"
"                        one); default: a new synctrace-bench-DATE-PID\n"
"    --ops LIST          operations, comma-separated: allgather,\n"
"                        allgatherv, allreduce, alltoall, alltoallv,\n"
"                        alltoallw, barrier, bcast, exscan, gather,\n"
"                        gatherv, reduce, reduce_scatter,\n"
"                        reduce_scatter_block, scan, scatter, scatterv,\n"
"                        pingpong, sendrecv; or coll, p2p, all (default)\n"
"    --sizes LIST        message sizes in bytes, suffixes K, M, G\n"
"                        (binary), e.g. 0,1,64,4K,1M (at most 1G)\n"
"    --min SIZE, --max SIZE\n"
"                        powers of two from SIZE to SIZE (default 1 to 4M)\n"
"    --pairs LIST        only these operations at these sizes, instead of\n"
"                        --ops and --sizes: OP:SIZE,... (at most 256);\n"
"                        a collective's OP:SIZE@US: its timed call US\n"
"                        microseconds (up to 2000) after its warm-up, the\n"
"                        window at least twice that (default 25 us);\n"
"                        OP:SIZE@US/PREV:PSIZE: its warm-up call PREV\n"
"                        (a collective or sendrecv) at PSIZE, not OP\n"
"    --nrep N            valid measurements wanted per operation and size\n"
"                        (default 30)\n"
"    --pair-time US      more measurements for (operation, size) pairs\n"
"                        whose windows are short: as many as fit in US\n"
"                        microseconds of windows, at least --nrep, at\n"
"                        most 4 times --nrep (default 0: --nrep each)\n"
"    --seed N            seed of the shuffled order (default 1)\n"
"    --sync MODE         window (default) or barrier: an MPI_Barrier\n"
"                        before each measurement instead, for comparison\n"
"    --window-factor X   window = X times the pilot's time: the median\n"
"                        over 3 runs of the longest time on any rank\n"
"                        (default 3)\n"
"    --min-window US     smallest window, microseconds (default 100)\n"
"    --refresh SECONDS   resynchronise the clocks between batches, 0.25 s\n"
"                        after the first, then at twice the last\n"
"                        interval up to SECONDS (default 5; 0: only at\n"
"                        the end)\n"
"    --reuse-buffers     send the same data every time (it stays in the\n"
"                        caches); by default the send data is written\n"
"                        before each measurement, as an application's is\n"
"    --cold-coll         time a collective's call alone after its wait;\n"
"                        by default an untimed call of the same operation\n"
"                        and size comes first, the timed one at a start\n"
"                        of its own some 25 us later, as an application's\n"
"                        collective follows its previous MPI calls\n"
"    --warm-p2p          time a point-to-point pattern after an untimed\n"
"                        one of the same size and direction, as a\n"
"                        collective; by default it is timed alone\n"
"    --quick             a small configuration: sizes 1,1K,64K and\n"
"                        5 measurements (unless given)\n"
"    --start             before the pilots, the MPI library's start: at\n"
"                        each size of a point-to-point item of --pairs,\n"
"                        in their order, 128 ping-pongs in a row, each\n"
"                        call recorded (tag 8) for the table's start rows\n"
"    -h, --help          show this help\n"
"\n"
"SYNCTRACE_CLOCK_SKEW distorts each rank's clock (tests).\n";

#define MAX_SIZES 64
#define MAX_SIZE_BYTES (1ull << 30)
#define MAX_NREP 100000
#define DEFAULT_NREP 30
#define QUICK_NREP 5
#define DEFAULT_FACTOR 3.0
#define DEFAULT_MIN_WINDOW_US 100.0
#define DEFAULT_REFRESH_S 5.0
#define FIRST_REFRESH_S 0.25	/* then twice the last, up to --refresh */
#define PILOT_RUNS 3
#define ATTEMPTS_PER_REP 10	/* attempts per (op, size): 10 nrep */
#define PAIR_TIME_MAX 4		/* --pair-time: at most 4 nrep a pair */
#define RETRY_BUDGET 2		/* remade in all: 2 x the planned ones */
#define TIME_BUDGET 4		/* batches stop after 4 x the planned time */
#define MIN_TIME_BUDGET_NS 10e9	/* ...or 10 s, if that is more */
#define CHECK_ROUNDS 20		/* ping-pongs per rank of a sync check */
#define ADAPT_MIN 8		/* measurements before a window is judged */
#define RECENT (2 * ADAPT_MIN)	/* ...after which good ones are dropped */
#define MAX_BATCH 256
#define BATCH_SPAN_NS 50e6	/* a batch's windows add up to about this */
#define FIRST_LEAD_NS 1e6
#define MAX_LEAD_NS 100e6
#define MAX_WINDOW_NS 2e9
#define MAX_GROWTH 16		/* a window grows to 16 times its first */
#define BENCH_COMM_ID (1ull << 32)
#define IDLE (-1e300)		/* loses every MAX */
/* A call entered this long after its start is late: 1 us + 1% window. */
#define LATE_SLACK_NS 1000.0
#define LATE_SLACK_PART 0.01
#define LATE_SLACK_MAX_NS 10000.0	/* ...but at most 10 us */

struct opts {
	size_t sizes[MAX_SIZES];	/* ascending, distinct */
	int nsizes;
	int nrep;
	unsigned ops;		/* bit per enum st_micro_op */
	int npairs;		/* --pairs: only these (op, size) */
	int pair_op[ST_MICRO_MAX_PAIRS];
	size_t pair_n[ST_MICRO_MAX_PAIRS];
	long pair_gap_us[ST_MICRO_MAX_PAIRS];	/* OP:SIZE@US, -1: none */
	int pair_prev_op[ST_MICRO_MAX_PAIRS];	/* .../PREV:PSIZE, -1: none */
	size_t pair_prev_n[ST_MICRO_MAX_PAIRS];
	int barrier;		/* --sync barrier */
	int reuse;		/* --reuse-buffers */
	int cold_coll;		/* --cold-coll: no warm-up call */
	int warm_p2p;		/* --warm-p2p: point-to-point gets one */
	int start;		/* --start: the library's start first */
	uint64_t seed;
	double factor;
	double min_window_ns;
	double pair_time_ns;	/* --pair-time, 0: off */
	double refresh_s;
	const char *dir;
	int help;
};

/* One (operation, size) and what became of its measurements. */
struct pair {
	int op;
	size_t n;
	double window0_ns, window_ns;	/* first and current window */
	double call0_ns;	/* the pilot's time of one call */
	double gap_ns;		/* a collective's: warm-up to timed call */
	int prev_op;		/* its warm-up's operation and size */
	size_t prev_n;
	int want;		/* valid measurements wanted */
	int queued;		/* measurements waiting in a list */
	int attempts, valid, discarded;
	int since, bad_since;	/* since the window was last judged */
	double recent[RECENT];	/* their times, longest rank... */
	int nrecent;		/* ...of those no rank was late for */
	int grown;		/* times the window grew */
	double *dur;		/* rank 0: valid measurements' times */
};

/*
 * What each rank contributes to a batch's MAX reduction, per slot: flags
 * (F_LATE 2 when the start had passed at the first look, 1 when the
 * rank entered the call more than the slack after it, having waited
 * properly: descheduled in between, which a larger window cannot help),
 * its time in the measurement (the timed calls), and its global entry
 * time minus the start (the timed call's, after a warm-up) and the
 * negative of that, for the spread.
 */
enum { F_LATE, F_OVERRUN, F_CASCADE, F_LEAD, F_DUR, F_GOFF, F_NGOFF, NF };

/* One measurement of a batch on this rank. */
struct slot {
	int pair;
	struct st_micro_stamps s;
};

struct job {
	struct opts o;
	int rank, size;
	MPI_Comm bench;		/* the measurements' communicator */
	struct st_mpi_transport t;
	struct st_sync *sync;
	struct st_micro_ctx mc;
	struct st_bench_trace tr;
	char skew_spec[256];
	int on_host, cpus, nhosts;
	int bound;		/* every rank bound to a CPU of its own */
	char cpu_list[256];	/* this rank's CPUs, "1" or "0-1" */

	struct pair *pairs;
	int npairs;
	int first_pair[ST_MICRO_NOPS], npairs_of[ST_MICRO_NOPS];
	int *queue;		/* pair of each measurement to make */
	size_t nqueue, head;
	int *retry;		/* discarded ones to measure again */
	size_t nretry;
	long retries, retry_budget;	/* remade so far, and at most */
	long n_unretried;	/* discarded, not remade: budget spent */
	double time_budget_ns;	/* rank 0: the batches' time limit */
	long n_unmade;		/* not made: time limit reached */
	uint64_t rng;
	uint64_t seq;
	double lead_ns;

	struct slot slots[MAX_BATCH];
	double starts[MAX_BATCH + 1];	/* global ns */
	double red[MAX_BATCH * NF];

	/* Totals (every rank), spreads and timings (rank 0). */
	long n_valid, n_discarded, n_overrun, n_late, n_cascade, n_lead;
	double *spread;		/* valid measurements' start spreads */
	size_t nspread;
	int epochs, refreshes;
	double sync_err_ns, sync_ms;
	double check_ns[3];	/* after init, at the end, after the last */
	int nstart;		/* sizes of the library's start */
	uint64_t t_begin, t_pilot, t_measure, t_end;
};

/* --- options ------------------------------------------------------- */

static int bad(char *err, size_t errlen, const char *fmt, const char *arg)
{
	snprintf(err, errlen, fmt, arg);
	return -1;
}

/*
 * A size in bytes: digits, then optionally K, M or G (binary), each
 * optionally followed by "B" or "iB" (any case); "0" is allowed.
 */
static int parse_size(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	size_t i = 0;

	if (!len || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		if (v > MAX_SIZE_BYTES)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i++] - '0');
	}
	if (i < len) {
		switch (s[i] | 0x20) {
		case 'k': mult = 1ull << 10; break;
		case 'm': mult = 1ull << 20; break;
		case 'g': mult = 1ull << 30; break;
		case 'b': mult = 0; break;
		default: return -EINVAL;
		}
		if (mult)
			i++;
		else
			mult = 1;
		if (i < len && (s[i] | 0x20) == 'i' && mult > 1)
			i++;
		if (i < len && (s[i] | 0x20) == 'b')
			i++;
	}
	if (i != len || v > MAX_SIZE_BYTES / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static int parse_sizes(struct opts *o, const char *s, char *err,
		       size_t errlen)
{
	const char *p = s;
	uint64_t v;
	int i, n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");

		if (parse_size(p, len, &v))
			return bad(err, errlen, "bad size list '%s' for "
				   "'--sizes' (bytes, suffix K, M or G, at "
				   "most 1G, e.g. 1,64,4K,1M)", s);
		if (n == MAX_SIZES)
			return bad(err, errlen, "too many sizes in '%s' (at "
				   "most 64)", s);
		o->sizes[n++] = (size_t)v;
		if (!p[len])
			break;
		p += len + 1;
	}
	qsort(o->sizes, (size_t)n, sizeof(size_t), cmp_size);
	for (i = 1; i < n; i++)
		if (o->sizes[i] == o->sizes[i - 1])
			return bad(err, errlen, "size given twice in '%s'", s);
	o->nsizes = n;
	return 0;
}

/* --pairs: the (operation, size) list, and the sizes it names. */
static int parse_pairs(struct opts *o, const char *s, char *err,
		       size_t errlen)
{
	const char *p = s, *size, *psize;
	size_t len, size_len, psize_len, k;
	uint64_t v, pv;
	long gap;
	int op, pop, i, n = 0;

	for (;;) {
		len = strcspn(p, ",");
		pv = 0;
		op = st_micro_pair_parse(p, len, &size, &size_len, &gap, &pop,
					 &psize, &psize_len);
		if (op < 0 ||
		    (pop >= 0 && parse_size(psize, psize_len, &pv)) ||
		    parse_size(size, size_len, &v)) {
			snprintf(err, errlen, "bad item '%.*s' in '--pairs' "
				 "(OP:SIZE or a collective's OP:SIZE@US, US "
				 "at most %d, and /PREV:PSIZE, PREV a "
				 "collective or sendrecv, e.g. allreduce:8@500,"
				 "alltoall:4@70/alltoallv:96K,alltoall:128K)",
				 (int)len, p, ST_MICRO_MAX_GAP_US);
			return -1;
		}
		if (pop == ST_MICRO_BARRIER)
			pv = 0;
		if (op == ST_MICRO_BARRIER)
			v = 0;
		for (i = 0; i < n; i++)
			if (o->pair_op[i] == op && o->pair_n[i] == v)
				break;
		if (i == n) {
			if (n == ST_MICRO_MAX_PAIRS)
				return bad(err, errlen, "too many items in "
					   "'--pairs' (at most %s)", "256");
			o->pair_op[n] = op;
			o->pair_gap_us[n] = gap;
			o->pair_prev_op[n] = pop;
			o->pair_prev_n[n] = (size_t)pv;
			o->pair_n[n++] = (size_t)v;
			o->ops |= 1u << op;
			for (k = 0; k < (size_t)o->nsizes; k++)
				if (o->sizes[k] == (size_t)v)
					break;
			if (k == (size_t)o->nsizes) {
				if (o->nsizes == MAX_SIZES)
					return bad(err, errlen, "too many "
						   "sizes in '--pairs' (at "
						   "most %s)", "64");
				o->sizes[o->nsizes++] = (size_t)v;
			}
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	qsort(o->sizes, (size_t)o->nsizes, sizeof(size_t), cmp_size);
	o->npairs = n;
	return 0;
}

/* The gap of collective (op, n) in ns: its --pairs @US, or 25 us. */
static double pair_gap_ns(const struct opts *o, int op, size_t n)
{
	int i;

	for (i = 0; i < o->npairs; i++)
		if (o->pair_op[i] == op && o->pair_n[i] == n &&
		    o->pair_gap_us[i] >= 0)
			return 1e3 * (double)o->pair_gap_us[i];
	return 1e3 * ST_MICRO_DEFAULT_GAP_US;
}

/*
 * The warm-up call of collective (op, n): its --pairs /PREV:PSIZE, or
 * itself.
 */
static void pair_prev(const struct opts *o, int op, size_t n, int *prev_op,
		      size_t *prev_n)
{
	int i;

	*prev_op = op;
	*prev_n = n;
	for (i = 0; i < o->npairs; i++)
		if (o->pair_op[i] == op && o->pair_n[i] == n &&
		    o->pair_prev_op[i] >= 0) {
			*prev_op = o->pair_prev_op[i];
			*prev_n = o->pair_prev_n[i];
		}
}

/* The operations the buffers serve: the measured ones, warm-ups too. */
static unsigned buffer_ops(const struct opts *o)
{
	unsigned m = o->ops;
	int i;

	for (i = 0; i < o->npairs; i++)
		if (o->pair_prev_op[i] >= 0)
			m |= 1u << o->pair_prev_op[i];
	return m;
}

/* The largest size the buffers serve, warm-ups' too. */
static size_t buffer_max(const struct opts *o)
{
	size_t m = o->sizes[o->nsizes - 1];
	int i;

	for (i = 0; i < o->npairs; i++)
		if (o->pair_prev_op[i] >= 0 && o->pair_prev_n[i] > m)
			m = o->pair_prev_n[i];
	return m;
}

/* 1 when --pairs is not given or names (op, n). */
static int pair_wanted(const struct opts *o, int op, size_t n)
{
	int i;

	if (!o->npairs)
		return 1;
	for (i = 0; i < o->npairs; i++)
		if (o->pair_op[i] == op && o->pair_n[i] == n)
			return 1;
	return 0;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!*s || *s == ' ' || *s == '+' || *s == '-')
		return -EINVAL;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_opts(struct opts *o, int argc, char **argv, char *err,
		      size_t errlen)
{
	const char *val, *min = NULL, *max = NULL;
	uint64_t lo = 1, hi = 4u << 20, v;
	int i, rc, quick = 0, sizes = 0, nrep = 0, ops = 0, pairs = 0;
	char name[64];

	memset(o, 0, sizeof(*o));
	o->nrep = DEFAULT_NREP;
	o->ops = ST_MICRO_ALL;
	o->seed = 1;
	o->factor = DEFAULT_FACTOR;
	o->min_window_ns = DEFAULT_MIN_WINDOW_US * 1e3;
	o->refresh_s = DEFAULT_REFRESH_S;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			o->help = 1;
			return 0;
		} else if (!strcmp(arg, "--quick")) {
			quick = 1;
		} else if (!strcmp(arg, "--reuse-buffers")) {
			o->reuse = 1;
		} else if (!strcmp(arg, "--cold-coll")) {
			o->cold_coll = 1;
		} else if (!strcmp(arg, "--warm-p2p")) {
			o->warm_p2p = 1;
		} else if (!strcmp(arg, "--start")) {
			o->start = 1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--dir", &val))) {
			if (rc < 0 || !*val)
				return bad(err, errlen, "option '%s' needs a "
					   "directory", "--dir");
			o->dir = val;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--ops", &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "list", "--ops");
			if (st_micro_ops_parse(val, &o->ops, name,
					       sizeof(name)))
				return bad(err, errlen, "unknown operation "
					   "'%s' for '--ops' (see --help)",
					   name);
			ops = 1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--pairs", &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "list", "--pairs");
			if (pairs)
				return bad(err, errlen, "%s", "'--pairs' "
					   "given twice");
			o->ops = 0;
			if (parse_pairs(o, val, err, errlen))
				return -1;
			pairs = 1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i, "--sizes",
					   &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "list", "--sizes");
			if (parse_sizes(o, val, err, errlen))
				return -1;
			sizes = 1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--min", &val))) {
			if (rc < 0 || parse_size(val, strlen(val), &lo) ||
			    !lo)
				return bad(err, errlen, "bad size '%s' for "
					   "'--min' (1 to 1G)", rc < 0 ? "" :
					   val);
			min = val;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--max", &val))) {
			if (rc < 0 || parse_size(val, strlen(val), &hi) ||
			    !hi)
				return bad(err, errlen, "bad size '%s' for "
					   "'--max' (1 to 1G)", rc < 0 ? "" :
					   val);
			max = val;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--nrep", &val))) {
			if (rc < 0 || parse_u64(val, MAX_NREP, &v) || !v)
				return bad(err, errlen, "bad count '%s' for "
					   "'--nrep' (1 to 100000)",
					   rc < 0 ? "" : val);
			o->nrep = (int)v;
			nrep = 1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--seed", &val))) {
			if (rc < 0 || parse_u64(val, UINT64_MAX, &o->seed))
				return bad(err, errlen, "bad seed '%s' for "
					   "'--seed' (a whole number)",
					   rc < 0 ? "" : val);
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--sync", &val))) {
			if (rc < 0 || (strcmp(val, "window") &&
				       strcmp(val, "barrier")))
				return bad(err, errlen, "bad mode '%s' for "
					   "'--sync' (window or barrier)",
					   rc < 0 ? "" : val);
			o->barrier = !strcmp(val, "barrier");
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--window-factor",
					   &val))) {
			if (rc < 0 || parse_double(val, 0.1, 1000, &o->factor))
				return bad(err, errlen, "bad factor '%s' for "
					   "'--window-factor' (0.1 to 1000)",
					   rc < 0 ? "" : val);
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--min-window",
					   &val))) {
			if (rc < 0 || parse_double(val, 0, 1e6,
						   &o->min_window_ns))
				return bad(err, errlen, "bad time '%s' for "
					   "'--min-window' (0 to 1000000 us)",
					   rc < 0 ? "" : val);
			o->min_window_ns *= 1e3;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--pair-time", &val))) {
			if (rc < 0 || parse_double(val, 0, 1e7,
						   &o->pair_time_ns))
				return bad(err, errlen, "bad time '%s' for "
					   "'--pair-time' (0 to 10000000 us)",
					   rc < 0 ? "" : val);
			o->pair_time_ns *= 1e3;
		} else if ((rc = st_bench_opt_value(argc, argv, &i, "--refresh",
					   &val))) {
			if (rc < 0 || parse_double(val, 0, 86400,
						   &o->refresh_s))
				return bad(err, errlen, "bad period '%s' for "
					   "'--refresh' (0 to 86400 seconds)",
					   rc < 0 ? "" : val);
		} else {
			return bad(err, errlen, "unknown option '%s'", arg);
		}
	}
	if (pairs && (ops || sizes || min || max || quick))
		return bad(err, errlen, "%s", "'--pairs' excludes '--ops', "
			   "'--sizes', '--min', '--max' and '--quick'");
	if (o->start && !pairs)
		return bad(err, errlen, "%s", "'--start' needs '--pairs' "
			   "(its point-to-point sizes)");
	if (pairs)
		return 0;
	if (!o->ops)
		return bad(err, errlen, "%s", "no operation to measure");
	if (sizes && (min || max))
		return bad(err, errlen, "%s", "'--sizes' and '--min'/'--max' "
			   "exclude each other");
	if (lo > hi)
		return bad(err, errlen, "%s", "'--min' is above '--max'");
	if (!sizes && quick && !min && !max) {
		parse_sizes(o, "1,1K,64K", err, errlen);
	} else if (!sizes) {
		for (v = lo; v <= hi && o->nsizes < MAX_SIZES; v *= 2)
			o->sizes[o->nsizes++] = (size_t)v;
	}
	if (quick && !nrep)
		o->nrep = QUICK_NREP;
	return 0;
}

/* --- formatting ---------------------------------------------------- */

/* 'v' with three significant digits. */
static void fmt3(char *buf, size_t len, double v, const char *unit)
{
	if (v < 9.995)
		snprintf(buf, len, "%.2f %s", v, unit);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f %s", v, unit);
	else
		snprintf(buf, len, "%.0f %s", v, unit);
}

/* A time in ns as "850 ns", "1.23 us", "45.6 ms", "1.20 s"; NaN "-". */
static char *fmt_ns(char *buf, size_t len, double ns)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (ns < 999.5)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 999.5e3)
		fmt3(buf, len, ns / 1e3, "us");
	else if (ns < 999.5e6)
		fmt3(buf, len, ns / 1e6, "ms");
	else
		fmt3(buf, len, ns / 1e9, "s");
	return buf;
}

/* A size as "1 B", "64 KiB", "4 MiB"; sizes that are no multiple exact. */
static char *fmt_size(char *buf, size_t len, size_t n)
{
	if (n >= (1u << 30) && n % (1u << 30) == 0)
		snprintf(buf, len, "%zu GiB", n >> 30);
	else if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= (1u << 10) && n % (1u << 10) == 0)
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu B", n);
	return buf;
}

/* --- the job ------------------------------------------------------- */

__attribute__((noreturn))
static void fail(const struct job *j, const char *what, int rc)
{
	st_bench_msg("rank %d: %s failed: %s", j->rank, what, strerror(-rc));
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static double now_global(const struct job *j)
{
	return st_sync_global(j->sync, st_mpi_transport_now(&j->t));
}

/* splitmix64: the same sequence on every rank for the same seed. */
static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void shuffle(int *v, size_t n, uint64_t *rng)
{
	size_t i, k;
	int x;

	for (i = n; i > 1; i--) {
		k = (size_t)(next_rand(rng) % i);
		x = v[i - 1];
		v[i - 1] = v[k];
		v[k] = x;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of the 'n' values of 'v' (sorted in place); NaN when n is 0. */
static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* 'set' as a CPU list, "0-1" or "1,3"; "?" when empty. */
static void cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;
	int c, first = -1;

	buf[0] = '\0';
	for (c = 0; c <= CPU_SETSIZE; c++) {
		int in = c < CPU_SETSIZE && CPU_ISSET(c, set);

		if (in && first < 0)
			first = c;
		if (in || first < 0)
			continue;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," :
					      "", first);
		if (c - 1 > first && n < len)
			n += (size_t)snprintf(buf + n, len - n, "-%d", c - 1);
		first = -1;
	}
	if (!buf[0])
		snprintf(buf, len, "?");
}

/*
 * Hosts: ranks on this host, and the CPUs they may use together (the
 * union of their affinities: ranks bound to a core each have one CPU
 * apiece, not one between them); whether every rank is bound to a CPU
 * of its own; this rank's CPUs as a list, for the header.
 */
static void find_hosts(struct job *j)
{
	struct where {
		char host[MPI_MAX_PROCESSOR_NAME];
		cpu_set_t cpus;
	} me, *all;
	cpu_set_t onhost;
	int len, r, s, single = 1;

	memset(&me, 0, sizeof(me));
	MPI_Get_processor_name(me.host, &len);
	if (sched_getaffinity(0, sizeof(me.cpus), &me.cpus))
		CPU_ZERO(&me.cpus);
	cpu_list(&me.cpus, j->cpu_list, sizeof(j->cpu_list));
	all = malloc((size_t)j->size * sizeof(*all));
	if (!all)
		fail(j, "finding hosts", -ENOMEM);
	MPI_Allgather(&me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE,
		      MPI_COMM_WORLD);
	j->on_host = j->nhosts = 0;
	CPU_ZERO(&onhost);
	for (r = 0; r < j->size; r++) {
		const char *h = all[r].host;

		if (!strcmp(me.host, h)) {
			j->on_host++;
			CPU_OR(&onhost, &onhost, &all[r].cpus);
		}
		for (s = 0; s < r; s++)
			if (!strcmp(h, all[s].host))
				break;
		j->nhosts += s == r;
		single &= CPU_COUNT(&all[r].cpus) == 1;
		for (s = 0; s < r && single; s++)
			if (!strcmp(h, all[s].host) &&
			    CPU_EQUAL(&all[r].cpus, &all[s].cpus))
				single = 0;
	}
	free(all);
	j->bound = single;
	j->cpus = CPU_COUNT(&onhost);
	if (j->cpus < 1)
		j->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * Whether SYNCTRACE_YIELD=1 is in the environment: then the blocking
 * calls are measured as a traced run in yield mode makes them (their
 * nonblocking twin, tested with sched_yield() in between; micro-run.c),
 * for the table of a target whose applications run so.
 */
static int yield_mode(void)
{
	const char *y = getenv("SYNCTRACE_YIELD");

	return y && !strcmp(y, "1");
}

/* The clock, as clockcheck's: skew from SYNCTRACE_CLOCK_SKEW. */
static int setup_clock(struct job *j)
{
	const char *spec = getenv("SYNCTRACE_CLOCK_SKEW");
	struct st_skew k = { 0, 0 };
	uint64_t base;
	char err[160];
	int rc;

	if (spec && *spec) {
		if (st_skew_parse(spec, j->rank, &k, err, sizeof(err))) {
			if (!j->rank)
				st_bench_msg("SYNCTRACE_CLOCK_SKEW: %s", err);
			return -EINVAL;
		}
		snprintf(j->skew_spec, sizeof(j->skew_spec), "%s", spec);
	}
	base = st_mpi_raw_ns();
	MPI_Bcast(&base, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if ((rc = st_mpi_transport_init(&j->t, MPI_COMM_WORLD, &k, base,
					j->on_host > j->cpus)))
		fail(j, "MPI_Comm_dup", rc);
	return 0;
}

/* The current epoch of the sync, as an ST_REC_SYNC record. */
static void emit_sync(struct job *j, uint64_t t0, uint64_t t1)
{
	struct st_event ev;
	size_t len = 0;
	void *buf;
	int rc;

	if ((rc = st_sync_encode(j->sync, 0, NULL, &len)) != -ENOSPC)
		fail(j, "st_sync_encode", rc ? rc : -EINVAL);
	if (!(buf = malloc(len)))
		fail(j, "st_sync_encode", -ENOMEM);
	if ((rc = st_sync_encode(j->sync, 0, buf, &len)))
		fail(j, "st_sync_encode", rc);
	st_event_clear(&ev);
	ev.kind = ST_REC_SYNC;
	ev.t0 = t0;
	ev.t1 = t1;
	ev.text = buf;
	ev.text_len = (uint32_t)len;
	st_bench_trace_append(&j->tr, &ev);
	free(buf);
	j->epochs++;
}

static void do_sync(struct job *j, int refresh)
{
	uint64_t t0 = st_mpi_transport_now(&j->t), t1;
	int rc;

	rc = refresh ? st_sync_refresh(j->sync, &j->t.tp) :
		       st_sync_init(&j->sync, &j->t.tp, NULL);
	t1 = st_mpi_transport_now(&j->t);
	if (rc)
		fail(j, refresh ? "clock resynchronisation" :
			 "clock synchronisation", rc);
	emit_sync(j, t0, t1);
}

/* Every (operation, size), operation by operation, sizes ascending. */
static void make_pairs(struct job *j)
{
	const struct opts *o = &j->o;
	int op, k, n = 0;

	j->pairs = calloc((size_t)ST_MICRO_NOPS * (size_t)o->nsizes,
			  sizeof(*j->pairs));
	if (!j->pairs)
		fail(j, "planning", -ENOMEM);
	for (op = 0; op < ST_MICRO_NOPS; op++) {
		j->first_pair[op] = n;
		if (!(o->ops & (1u << op)))
			continue;
		for (k = 0; k < o->nsizes; k++) {
			struct pair *p = &j->pairs[n];

			/* Barrier moves nothing: one size, 0 bytes. */
			if (op == ST_MICRO_BARRIER && k)
				break;
			if (!pair_wanted(o, op, op == ST_MICRO_BARRIER ? 0 :
					 o->sizes[k]))
				continue;
			p->op = op;
			p->n = op == ST_MICRO_BARRIER ? 0 : o->sizes[k];
			p->want = o->nrep;
			p->gap_ns = pair_gap_ns(o, op, p->n);
			pair_prev(o, op, p->n, &p->prev_op, &p->prev_n);
			n++;
		}
		j->npairs_of[op] = n - j->first_pair[op];
	}
	j->npairs = n;
}

/*
 * After the pilot: the measurements each pair wants (--pair-time: as
 * many as fit in that time of its first window, between nrep and
 * PAIR_TIME_MAX nrep; the windows are the same on every rank), and rank
 * 0's room for their times.
 */
static void plan_counts(struct job *j)
{
	const struct opts *o = &j->o;
	int i;

	for (i = 0; i < j->npairs; i++) {
		struct pair *p = &j->pairs[i];

		if (o->pair_time_ns > 0) {
			double k = floor(o->pair_time_ns / p->window0_ns);

			k = fmin(k, (double)PAIR_TIME_MAX * o->nrep);
			p->want = (int)fmax(k, (double)o->nrep);
		}
		if (!j->rank && !(p->dur = malloc((size_t)p->want *
						  sizeof(double))))
			fail(j, "planning", -ENOMEM);
	}
}

/* The shuffled list of all measurements. */
static void make_queue(struct job *j)
{
	size_t n = 0, i = 0;
	int p, r;

	for (p = 0; p < j->npairs; p++)
		n += (size_t)j->pairs[p].want;
	j->queue = malloc(n * sizeof(int));
	j->retry = malloc(n * sizeof(int));
	if (!j->queue || !j->retry)
		fail(j, "planning", -ENOMEM);
	for (p = 0; p < j->npairs; p++) {
		j->pairs[p].queued = j->pairs[p].want;
		for (r = 0; r < j->pairs[p].want; r++)
			j->queue[i++] = p;
	}
	j->nqueue = n;
	j->head = 0;
	j->retries = 0;
	j->retry_budget = RETRY_BUDGET * (long)n;
	j->rng = j->o.seed;
	shuffle(j->queue, n, &j->rng);
}

/* Time of the measurement 's' on this rank: first entry to last exit. */
static double span_of(const struct st_micro_stamps *s)
{
	if (!s->ncalls)
		return 0;
	return (double)(int64_t)(s->t1[s->ncalls - 1] - s->t0[0]) +
	       (double)s->delay_ns;
}

/*
 * A collective's warm-up (unless --cold-coll), and a point-to-point
 * pattern's (with --warm-p2p): an untimed call of the
 * same operation and size just before the timed one, its send data
 * written again between them (unless --reuse-buffers).  An
 * application's collective follows its previous MPI calls by tens of
 * microseconds (nm-cg's 8 B MPI_Allreduce by 24 us, bsp's by 14); one
 * timed alone after a wait for its start costs more the longer that
 * wait: 2 ranks here, shared memory, spinning, 0.5 us 20 us after the
 * last call, 1.6 to 1.7 us 1 ms after (docs/validation.md).  In a
 * window the timed call has a start of its own, warm_offset() after the
 * window's, so that the ranks enter it together again whatever the
 * warm-up's exits (a rooted collective's senders leave it early).
 * The 25 us is the pair's gap_ns: a collective the run called after a
 * longer quiet time ('synctrace bench --like', OP:SIZE@US in --pairs)
 * gets that, up to ST_MICRO_MAX_GAP_US, and a first window of at least
 * twice the offset, so that the timed call starts that long after the
 * warm-up whatever the window (halo's 8 B MPI_Allreduce comes 0.5 ms
 * after its previous MPI call and costs more than 25 us after one).
 * Point-to-point is no different: 2 ranks here, an exchange of 256 KiB
 * each way (MPI_Irecv, MPI_Isend, 268 us of work, MPI_Waitall) 1.4 ms
 * after the last took 31.5 us and its MPI_Isend 1.07 us, where one
 * right after the last took 25.1 and 0.24, and one 25 us after a
 * warm-up exchange 25.1 and 0.27; a warm-up of 8 bytes did not do.
 * But predictions from such tables came out short (docs/validation.md,
 * "Point-to-point timed warm"), so a pattern gets its warm-up only
 * with --warm-p2p.
 */
#define WARM_PART 0.5		/* the offset: at most half the window */
_Static_assert(ST_MICRO_DEFAULT_GAP_US == 25, "the config says 25");

static int warm_up(const struct job *j, int op)
{
	return op < ST_MICRO_P2P_FIRST ? !j->o.cold_coll : j->o.warm_p2p;
}

/*
 * The warm-up call of pair 'p' on this rank: of its own operation and
 * size, or of the call before it in the run (OP:SIZE/PREV:PSIZE in
 * --pairs, from 'synctrace bench --like').  A collective costs more
 * after another than after itself: two ranks here, a 4-byte
 * MPI_Alltoall after a 96 KiB MPI_Alltoallv, as an integer sort makes
 * them, took 20.4 us over TCP where it took 18.2 after itself, and 1.22
 * us on shared memory where it took 0.90; the sort's own calls 20.1 and
 * 1.24 (docs/validation.md).
 */
static void warm_call(struct job *j, const struct pair *p)
{
	struct st_micro_stamps w;

	if (p->prev_op != p->op || p->prev_n != p->n) {
		st_micro_prepare(&j->mc, p->prev_n);
		if (!j->o.reuse)
			st_micro_fresh(&j->mc, p->prev_op, p->prev_n);
		st_micro_call(&j->mc, p->prev_op, p->prev_n, &w);
		st_micro_prepare(&j->mc, p->n);
	} else {
		st_micro_warm(&j->mc, p->op, p->n);
	}
	if (!j->o.reuse)
		st_micro_fresh(&j->mc, p->op, p->n);
}

/* Offset of the timed call's start in a window of 'w' ns of pair 'p'. */
static double warm_offset(const struct pair *p, double w)
{
	return fmin(WARM_PART * w, (2 * p->call0_ns + p->gap_ns) * w /
		    p->window0_ns);
}

/* The pair of the i-th pilot: in the order of --pairs when given. */
static int pilot_pair(const struct job *j, int i)
{
	int k;

	if (!j->o.npairs)
		return i;
	for (k = 0; k < j->npairs; k++)
		if (j->pairs[k].op == j->o.pair_op[i] &&
		    j->pairs[k].n == j->o.pair_n[i])
			return k;
	return i;
}

/*
 * Step 2: a first call of every (operation, size), recorded, then a few
 * timed ones, each after a barrier; set the first windows from the
 * median over the timed pilot runs of the longest time on any rank (the
 * median, so that one run a rank was descheduled in does not set a
 * window for nothing).
 */
static void pilot(struct job *j)
{
	struct st_micro_stamps s;
	struct st_event ev;
	double *d = calloc(2 * (size_t)j->npairs * PILOT_RUNS,
			   sizeof(double));
	double *c0 = d + (size_t)j->npairs * PILOT_RUNS;
	uint8_t ra[8] = { 0 }, rb[8] = { 0 };
	int i, k, c;

	if (!d)
		fail(j, "pilot", -ENOMEM);
	/*
	 * The reductions' MPI_SUM over MPI_UINT8_T is the bench's choice,
	 * not the operation's: the first use of its kernel costs some 8 us
	 * (MPICH 4.0), which an application's first reduction over its own
	 * type does not pay, so the first calls must not either.
	 */
	MPI_Reduce_local(ra, rb, sizeof(ra), MPI_UINT8_T, MPI_SUM);
	for (i = 0; i < j->npairs; i++) {
		int pi = pilot_pair(j, i);
		struct pair *p = &j->pairs[pi];

		st_micro_prepare(&j->mc, p->n);
		for (k = -1; k < PILOT_RUNS; k++) {
			if (!j->o.reuse)
				st_micro_fresh(&j->mc, p->op, p->n);
			MPI_Barrier(j->bench);
			if (k >= 0 && warm_up(j, p->op)) {
				uint64_t w0 = st_mpi_transport_now(&j->t);

				warm_call(j, p);
				st_micro_call(&j->mc, p->op, p->n, &s);
				d[pi * PILOT_RUNS + k] = span_of(&s);
				/* To the timed call's last MPI call (a
				   pattern has several); a rank that sits
				   a pattern out has none. */
				c0[pi * PILOT_RUNS + k] = s.ncalls ?
					(double)(int64_t)(s.t1[s.ncalls - 1] -
							  w0) : 0;
				continue;
			}
			st_micro_call(&j->mc, p->op, p->n, &s);
			if (k >= 0) {
				d[pi * PILOT_RUNS + k] = span_of(&s);
				c0[pi * PILOT_RUNS + k] = d[pi * PILOT_RUNS + k];
				continue;
			}
			j->seq++;
			for (c = 0; c < st_micro_nrecords(p->op, &s); c++) {
				st_micro_event(&j->mc, p->op, p->n, &s, c,
					       BENCH_COMM_ID, j->seq, &ev);
				st_bench_trace_append(&j->tr, &ev);
			}
		}
	}
	MPI_Allreduce(MPI_IN_PLACE, d, 2 * j->npairs * PILOT_RUNS, MPI_DOUBLE,
		      MPI_MAX, MPI_COMM_WORLD);
	/* A warm-up's window is --window-factor times both calls'. */
	for (i = 0; i < j->npairs; i++) {
		struct pair *p = &j->pairs[i];

		p->call0_ns = median(d + i * PILOT_RUNS, PILOT_RUNS);
		p->window0_ns = p->window_ns =
			fmax(j->o.factor * median(c0 + i * PILOT_RUNS,
						  PILOT_RUNS),
			     j->o.min_window_ns);
		/* A longer gap than 25 us is kept whole: see warm_offset(). */
		if (warm_up(j, p->op) &&
		    p->gap_ns > 1e3 * ST_MICRO_DEFAULT_GAP_US)
			p->window0_ns = p->window_ns =
				fmax(p->window0_ns, (2 * p->call0_ns +
						     p->gap_ns) / WARM_PART);
	}
	free(d);
}

/*
 * Step 1b (--start): the MPI library's start.  At each size of a
 * point-to-point item of --pairs, once and in their order, the rank
 * pairs make ST_MICRO_START_MSGS ping-pongs in a row (a barrier before
 * each size), every call recorded with tag ST_MICRO_TAG_START and seq
 * 0.  This comes after the clock synchronisation's small ping-pongs and
 * before anything else of the bench, as an application's first
 * messages come before its later ones; the table compares each
 * ping-pong's send with the later ones' (its start rows).  The pilots'
 * first calls come after it: a run whose first large message was a
 * collective's finds that message's set-up in the start rows, not in
 * the collective's first-call cost.
 */
static void start_probe(struct job *j)
{
	struct st_micro_stamps s;
	struct st_event ev;
	size_t seen[ST_MICRO_MAX_PAIRS];
	int i, k, m, c;

	j->mc.start = 1;
	for (i = 0; i < j->o.npairs; i++) {
		size_t n = j->o.pair_n[i];

		if (j->o.pair_op[i] < ST_MICRO_P2P_FIRST)
			continue;
		for (k = 0; k < j->nstart && seen[k] != n; k++)
			;
		if (k < j->nstart)
			continue;
		seen[j->nstart++] = n;
		st_micro_prepare(&j->mc, n);
		MPI_Barrier(j->bench);
		for (m = 0; m < ST_MICRO_START_MSGS; m++) {
			if (!j->o.reuse)
				st_micro_fresh(&j->mc, ST_MICRO_PINGPONG, n);
			st_micro_call(&j->mc, ST_MICRO_PINGPONG, n, &s);
			for (c = 0;
			     c < st_micro_nrecords(ST_MICRO_PINGPONG, &s);
			     c++) {
				st_micro_event(&j->mc, ST_MICRO_PINGPONG, n,
					       &s, c, BENCH_COMM_ID, 0, &ev);
				st_bench_trace_append(&j->tr, &ev);
			}
		}
	}
	j->mc.start = 0;
}

/*
 * The next batch from the list, the same on every rank: up to MAX_BATCH
 * measurements whose windows add up to about BATCH_SPAN_NS.  When the
 * list is used up, the discarded ones are shuffled into a new list.
 */
static int plan_batch(struct job *j)
{
	double span = 0;
	int n = 0;

	if (j->head == j->nqueue && j->nretry) {
		memcpy(j->queue, j->retry, j->nretry * sizeof(int));
		j->nqueue = j->nretry;
		j->head = 0;
		j->nretry = 0;
		shuffle(j->queue, j->nqueue, &j->rng);
	}
	while (j->head + (size_t)n < j->nqueue && n < MAX_BATCH) {
		double w = j->o.barrier ? 0 :
			   j->pairs[j->queue[j->head + (size_t)n]].window_ns;

		if (n && span + w > BATCH_SPAN_NS)
			break;
		span += w;
		n++;
	}
	return n;
}

/*
 * Wait until the clock reads 'target', asleep while it is more than
 * 3 ms away.  Returns 1 if it already did at the first look (late).
 */
static int wait_until(const struct job *j, uint64_t target)
{
	uint64_t now = st_mpi_transport_now(&j->t);
	struct timespec ts;
	int64_t left;

	if ((int64_t)(now - target) >= 0)
		return 1;
	for (;;) {
		left = (int64_t)(target - now);
		if (left <= 0)
			return 0;
		if (left > 3000000) {
			left -= 2000000;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			nanosleep(&ts, NULL);
		}
		now = st_mpi_transport_now(&j->t);
	}
}

/* The local clock value at global time 'g' under the inverse 'inv'. */
static uint64_t local_at(const struct job *j, const struct st_clock_model *inv,
			 double g)
{
	double t = ceil(st_clock_model_apply(*inv, g));

	return st_sync_origin(j->sync) + (uint64_t)(int64_t)t;
}

/* Step 4 on this rank: make the 'n' measurements of the batch. */
static void run_batch(struct job *j, int n)
{
	struct st_sync_estimate e;
	struct st_clock_model inv;
	uint64_t prev_end = 0, target = 0, start = 0, end = 0;
	double off;
	int i, late = 0, rc;

	st_sync_result(j->sync, &e);
	if ((rc = st_clock_model_invert(e.model, &inv)))
		fail(j, "inverting the clock model", rc);
	for (i = 0; i < n; i++) {
		struct slot *sl = &j->slots[i];
		const struct pair *p = &j->pairs[sl->pair];
		struct st_micro_stamps *s = &sl->s;
		double *r = &j->red[i * NF];

		st_micro_prepare(&j->mc, p->n);
		if (!j->o.reuse)
			st_micro_fresh(&j->mc, p->op, p->n);
		off = 0;
		if (j->o.barrier) {
			MPI_Barrier(j->bench);
			if (warm_up(j, p->op)) {
				warm_call(j, p);
				MPI_Barrier(j->bench);
			}
		} else {
			target = local_at(j, &inv, j->starts[i]);
			end = local_at(j, &inv, j->starts[i + 1]);
			late = wait_until(j, target);
			start = target;
			if (warm_up(j, p->op)) {
				off = warm_offset(p, j->starts[i + 1] -
						  j->starts[i]);
				warm_call(j, p);
				target = local_at(j, &inv, j->starts[i] + off);
				/* The warm-up overran its part: own fault. */
				if (wait_until(j, target) && !late)
					late = 4;
			}
		}
		st_micro_call(&j->mc, p->op, p->n, s);
		memset(r, 0, NF * sizeof(*r));
		if (!s->ncalls) {
			/* Sitting out a p2p pattern: nothing to judge. */
			r[F_GOFF] = r[F_NGOFF] = IDLE;
			prev_end = st_mpi_transport_now(&j->t);
			continue;
		}
		r[F_DUR] = span_of(s);
		r[F_GOFF] = st_sync_global(j->sync, s->t0[0] - s->delay_ns) -
			    (j->o.barrier ? 0 : j->starts[i] + off);
		r[F_NGOFF] = -r[F_GOFF];
		if (!j->o.barrier) {
			double slack = fmin(LATE_SLACK_NS + LATE_SLACK_PART *
					    j->pairs[sl->pair].window_ns,
					    LATE_SLACK_MAX_NS);

			/* Descheduled between the look and the call? */
			if ((double)(int64_t)(s->t0[0] - s->delay_ns -
					      target) > slack)
				late |= 2;
			if (late & 1 && !i)
				r[F_LEAD] = 1;
			else if (late & 1 && (int64_t)(prev_end - start) > 0)
				r[F_CASCADE] = 1;
			else if (late)
				r[F_LATE] = late & 5 ? 2 : 1;
			r[F_OVERRUN] = (int64_t)(s->t1[s->ncalls - 1] -
						 end) > 0;
		}
		prev_end = s->t1[s->ncalls - 1];
	}
}

/* Add a valid measurement's start spread to rank 0's list. */
static void add_spread(struct job *j, double v)
{
	j->spread[j->nspread++] = v;
}

/*
 * Judge the window of 'p' once it has at least ADAPT_MIN measurements
 * since it was last judged.  Too many bad ones (overrun, or the start
 * found passed), more than a quarter, call for a larger window: twice
 * the old one (SKaMPI's rule), or --window-factor times the median time
 * of the measurements no rank was late for if that is more (so a far
 * too small window need not double many times).  But never more than
 * MAX_GROWTH times the first window: on a machine whose other jobs
 * deschedule the ranks, measurements go bad whatever the window, and a
 * window grown to a time slice would only make the run longer and let
 * the descheduled time into the valid measurements.  Good measurements
 * are forgotten after RECENT; if all RECENT were good, a grown window
 * is halved again (a burst of other load has passed).
 */
static void adapt(struct job *j, struct pair *p)
{
	double w;

	if (p->since < ADAPT_MIN)
		return;
	if (4 * p->bad_since > p->since) {
		w = 2 * p->window_ns;
		if (2 * p->nrecent >= ADAPT_MIN)
			w = fmax(w, j->o.factor * median(p->recent,
							 (size_t)p->nrecent));
		w = fmin(w, fmin(MAX_GROWTH * p->window0_ns, MAX_WINDOW_NS));
		if (w > p->window_ns) {
			p->window_ns = w;
			p->grown++;
		}
	} else if (p->since < RECENT) {
		return;
	} else if (!p->bad_since && p->window_ns > p->window0_ns) {
		/* A grown window that never failed: halve it back. */
		p->window_ns = fmax(p->window_ns / 2, p->window0_ns);
	}
	p->since = p->bad_since = p->nrecent = 0;
}

/* After the MAX reduction: keep, record, discard, adapt. */
static void judge_batch(struct job *j, int n)
{
	struct st_event ev;
	int i, k, lead = 0;

	for (i = 0; i < n; i++) {
		struct slot *sl = &j->slots[i];
		struct pair *p = &j->pairs[sl->pair];
		const double *r = &j->red[i * NF];
		int own = r[F_LATE] > 0 || r[F_OVERRUN] > 0;
		int excused = !own && (r[F_CASCADE] > 0 || r[F_LEAD] > 0);
		uint64_t seq = ++j->seq;

		p->attempts++;
		lead |= r[F_LEAD] > 0;
		if (!excused) {
			/*
			 * The time of a measurement no rank was late for
			 * is the operation's (with a late rank, it is the
			 * others' waiting).  A batch may hold many: the
			 * first RECENT are kept.
			 */
			if (!(r[F_LATE] > 0) && p->nrecent < RECENT)
				p->recent[p->nrecent++] = r[F_DUR];
			p->since++;
			p->bad_since += r[F_OVERRUN] > 0 || r[F_LATE] >= 2;
		}
		if (!own && !excused) {
			p->valid++;
			j->n_valid++;
			for (k = 0; k < st_micro_nrecords(p->op, &sl->s);
			     k++) {
				st_micro_event(&j->mc, p->op, p->n, &sl->s, k,
					       BENCH_COMM_ID, seq, &ev);
				st_bench_trace_append(&j->tr, &ev);
			}
			if (!j->rank) {
				p->dur[p->valid - 1] = r[F_DUR];
				add_spread(j, r[F_GOFF] + r[F_NGOFF]);
			}
			continue;
		}
		p->discarded++;
		j->n_discarded++;
		if (r[F_OVERRUN] > 0)
			j->n_overrun++;
		else if (r[F_LATE] > 0)
			j->n_late++;
		else if (r[F_CASCADE] > 0)
			j->n_cascade++;
		else
			j->n_lead++;
		if (p->attempts + p->queued >= ATTEMPTS_PER_REP * p->want)
			continue;
		if (j->retries >= j->retry_budget) {
			j->n_unretried++;
			continue;
		}
		j->retry[j->nretry++] = sl->pair;
		p->queued++;
		j->retries++;
	}
	for (i = 0; i < j->npairs; i++)
		adapt(j, &j->pairs[i]);
	if (lead)
		j->lead_ns = fmin(2 * j->lead_ns, MAX_LEAD_NS);
}

/*
 * Steps 3 to 5: the batches.  Each begins with a reduction that waits
 * for every rank (so the lead need not cover a rank still writing the
 * last batch's records) and carries rank 0's word: the batch size, 0 at
 * the end, and whether to resynchronise first.  Resynchronisations come
 * 0.25 s after the first, then at twice the last interval up to
 * --refresh: each refits the drift over all samples since the first,
 * and the slope of a fit over the first 20 ms alone can be off by ppm
 * (microseconds per second) when ranks were descheduled during it.
 */
static void measure(struct job *j)
{
	uint64_t last_sync = st_mpi_transport_now(&j->t), start = last_sync;
	double every_s = fmin(FIRST_REFRESH_S, j->o.refresh_s), planned = 0;
	long long hdr[3];
	int n, i;

	/* The planned time: every measurement in its first window. */
	for (i = 0; i < j->npairs; i++)
		planned += j->pairs[i].window0_ns * j->pairs[i].queued;
	j->time_budget_ns = fmax(TIME_BUDGET * planned, MIN_TIME_BUDGET_NS);
	j->lead_ns = FIRST_LEAD_NS;
	for (;;) {
		n = plan_batch(j);
		hdr[0] = hdr[1] = hdr[2] = 0;
		if (!j->rank) {
			uint64_t now = st_mpi_transport_now(&j->t);

			hdr[0] = n;
			hdr[1] = every_s > 0 && n &&
				 (double)(now - last_sync) > every_s * 1e9;
			double took = (double)(now - start);

			/* Out of time, or busy: most discarded after 10 s. */
			hdr[2] = n && (took > j->time_budget_ns ||
				       (took > MIN_TIME_BUDGET_NS &&
					j->n_discarded > j->n_valid));
		}
		MPI_Allreduce(MPI_IN_PLACE, hdr, 3, MPI_LONG_LONG, MPI_MAX,
			      MPI_COMM_WORLD);
		if (hdr[2]) {
			/* Out of time: what is still queued is not made. */
			j->n_unmade = (long)(j->nqueue - j->head + j->nretry);
			break;
		}
		if (hdr[0] != n) {
			st_bench_msg("BUG: rank %d planned a batch of %d, "
				     "rank 0 one of %lld", j->rank, n, hdr[0]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (!n)
			break;
		if (hdr[1]) {
			do_sync(j, 1);
			j->refreshes++;
			last_sync = st_mpi_transport_now(&j->t);
			every_s = fmin(2 * every_s, j->o.refresh_s);
		}
		for (i = 0; i < n; i++) {
			j->slots[i].pair = j->queue[j->head + (size_t)i];
			j->pairs[j->slots[i].pair].queued--;
		}
		j->head += (size_t)n;
		if (!j->o.barrier) {
			if (!j->rank) {
				j->starts[0] = now_global(j) + j->lead_ns;
				for (i = 0; i < n; i++)
					j->starts[i + 1] = j->starts[i] +
						j->pairs[j->slots[i].pair]
							.window_ns;
			}
			MPI_Bcast(j->starts, n + 1, MPI_DOUBLE, 0,
				  MPI_COMM_WORLD);
		}
		run_batch(j, n);
		MPI_Allreduce(MPI_IN_PLACE, j->red, n * NF, MPI_DOUBLE,
			      MPI_MAX, MPI_COMM_WORLD);
		judge_batch(j, n);
	}
}

/* --- output -------------------------------------------------------- */

static const char *op_label(int op)
{
	static const char *const labels[] = {
#define LABEL(id, name, label, sized) label,
		ST_MICRO_OPS(LABEL)
#undef LABEL
	};

	return op == ST_MICRO_PINGPONG ? "ping-pong (round trip)" :
	       labels[op];
}

static double pair_median(struct pair *p)
{
	return median(p->dur, (size_t)p->valid);
}

static void print_summary(struct job *j)
{
	const struct opts *o = &j->o;
	char a[64], b[64], c[24], d[24], sz[80];
	double wmin = INFINITY, wmax = 0;
	long short_pairs = 0, grown = 0;
	int op, i;

	printf("\n%-24s %-15s %6s %9s  %-18s %s\n", "operation", "sizes",
	       "valid", "discarded", "median, smallest", "median, largest");
	for (op = 0; op < ST_MICRO_NOPS; op++) {
		struct pair *lo, *hi;
		long v = 0, x = 0;

		if (!j->npairs_of[op])
			continue;
		lo = &j->pairs[j->first_pair[op]];
		hi = lo + j->npairs_of[op] - 1;
		for (i = 0; i < j->npairs_of[op]; i++) {
			struct pair *p = lo + i;

			v += p->valid;
			x += p->discarded;
			short_pairs += p->valid < p->want;
			grown += p->grown;
			wmin = fmin(wmin, p->window_ns);
			wmax = fmax(wmax, p->window_ns);
		}
		if (lo == hi)
			snprintf(sz, sizeof(sz), "1 (%s)",
				 fmt_size(a, sizeof(a), lo->n));
		else
			snprintf(sz, sizeof(sz), "%d (%s-%s)",
				 j->npairs_of[op], fmt_size(a, sizeof(a),
							    lo->n),
				 fmt_size(b, sizeof(b), hi->n));
		fmt_ns(c, sizeof(c), pair_median(lo));
		snprintf(a, sizeof(a), "%s @ ", c);
		fmt_size(a + strlen(a), sizeof(a) - strlen(a), lo->n);
		if (lo == hi) {
			snprintf(b, sizeof(b), "-");
		} else {
			fmt_ns(d, sizeof(d), pair_median(hi));
			snprintf(b, sizeof(b), "%s @ ", d);
			fmt_size(b + strlen(b), sizeof(b) - strlen(b), hi->n);
		}
		printf("%-24s %-15s %6ld %9ld  %-18s %s\n", op_label(op), sz,
		       v, x, a, b);
	}
	printf("%-24s %-15s %6ld %9ld\n", "total", "", j->n_valid,
	       j->n_discarded);
	printf("\nmedian: over the valid measurements of the longest time "
	       "any rank spent in the\n"
	       "  call, entry to exit on its own clock (ping-pong: "
	       "MPI_Send + MPI_Recv, the round\n"
	       "  trip; one way is about half)\n");
	printf("data: %s\n", o->reuse ?
	       "the same send data every time (--reuse-buffers): it may be "
	       "in the caches" :
	       "each measurement's send data written just before it, as "
	       "an application's\n  freshly computed data is (in this "
	       "core's cache, modified)");
	printf("collectives: %s\n", o->cold_coll ?
	       "each timed alone after the wait for its start "
	       "(--cold-coll)" :
	       "each timed after an untimed call of the same "
	       "operation and size, its\n  send data written again "
	       "between, at a start of its own 2 pilot times +\n  "
	       "25 us later (at most half the window; a --pairs item's "
	       "@US: US later,\n  the window at least twice that): as an "
	       "application's follows its last\n  MPI call");
	for (i = 0; i < o->npairs && o->pair_prev_op[i] < 0; i++)
		;
	if (!o->cold_coll && i < o->npairs)
		printf("  (an item OP:SIZE/PREV:PSIZE of --pairs: after an "
		       "untimed call of PREV at PSIZE,\n  the run's call "
		       "before it)\n");
	printf("point-to-point: %s\n", !o->warm_p2p ?
	       "each pattern timed alone after the wait for its start" :
	       "each pattern timed after an untimed one of the same size "
	       "and direction,\n  at a start of its own 2 pilot times + "
	       "25 us later (--warm-p2p): its cost\n  in steady "
	       "exchanges, less than alone after some quiet time");
	printf("first calls: the first call of each operation and size, "
	       "made in the pilot after a\n  barrier%s, is recorded apart "
	       "(trace seq 1 to %d)\n  for the table's first-call cost; it "
	       "is not among the measurements above\n",
	       o->npairs ? " in the order of --pairs" : "", j->npairs);
	if (j->nstart)
		printf("start: before the pilots, %d ping-pongs in a row at "
		       "each of %d size%s (the\n  point-to-point ones of "
		       "--pairs, in their order), recorded apart (tag %d)\n"
		       "  for the table's start rows\n", ST_MICRO_START_MSGS,
		       j->nstart, j->nstart == 1 ? "" : "s",
		       ST_MICRO_TAG_START);
	if (o->barrier) {
		printf("sync: MPI_Barrier before each measurement (barrier "
		       "mode, for comparison: nothing\n"
		       "  is discarded, and the times include the barrier's "
		       "exit skew)\n");
	} else {
		printf("discarded: some rank entered a measurement after its "
		       "window's start or left it\n"
		       "  after the window's end; each was made again later, "
		       "up to %d times the\n"
		       "  measurements wanted per operation and size:\n"
		       "    late start                %8ld\n"
		       "    late after an overrun     %8ld\n"
		       "    late at a batch's start   %8ld\n"
		       "    overrun                   %8ld\n",
		       ATTEMPTS_PER_REP, j->n_late, j->n_cascade,
		       j->n_lead, j->n_overrun);
		printf("windows: %s to %s (%g x the pilot's time, at "
		       "least %s);\n"
		       "  grown %ld time%s after too many overruns\n",
		       fmt_ns(a, sizeof(a), wmin), fmt_ns(b, sizeof(b), wmax),
		       o->factor, fmt_ns(c, sizeof(c), o->min_window_ns),
		       grown, grown == 1 ? "" : "s");
	}
	if (short_pairs)
		printf("note: %ld operation-size pair%s got fewer valid "
		       "measurements than wanted\n", short_pairs,
		       short_pairs == 1 ? "" : "s");
	if (j->n_unmade)
		printf("note: %ld planned measurement%s not made: the "
		       "batches stop after %s\n"
		       "  (%d times the planned windows, at least %s), or "
		       "after %s when most\n"
		       "  measurements are discarded, which bounds the run's "
		       "time\n",
		       j->n_unmade, j->n_unmade == 1 ? " was" : "s were",
		       fmt_ns(a, sizeof(a), j->time_budget_ns), TIME_BUDGET,
		       fmt_ns(b, sizeof(b), MIN_TIME_BUDGET_NS),
		       fmt_ns(c, sizeof(c), MIN_TIME_BUDGET_NS));
	if (j->n_unretried)
		printf("note: %ld discarded measurement%s not made again: "
		       "those made again may\n"
		       "  add up to %d times the planned ones (%ld), which "
		       "bounds the run's time\n",
		       j->n_unretried, j->n_unretried == 1 ? " was" : "s were",
		       RETRY_BUDGET, j->retry_budget / RETRY_BUDGET);
	if (j->n_discarded > j->n_valid)
		printf("note: most measurements were discarded: ranks were "
		       "descheduled (other jobs on\n"
		       "  the machine, or more ranks than CPUs); window-based "
		       "timing needs a CPU\n"
		       "  per rank ('--sync barrier' does not)\n");
	if (!o->barrier && j->check_ns[1] > fmax(1000, 0.05 * wmin))
		printf("note: by the end the ranks' global clocks were %s "
		       "apart (Alg 20 below):\n"
		       "  the ranks started that far apart in real time, which "
		       "the windows cannot\n"
		       "  see; a shorter '--refresh' may help\n",
		       fmt_ns(a, sizeof(a), j->check_ns[1]));
	if (j->nspread) {
		double med = median(j->spread, j->nspread);

		printf("start spread: global entry time, latest minus earliest "
		       "rank, valid measurements:\n"
		       "  median %s, max %s (n = %zu)\n",
		       fmt_ns(a, sizeof(a), med),
		       fmt_ns(b, sizeof(b), j->spread[j->nspread - 1]),
		       j->nspread);
	}
	printf("clock sync: HCA, %d epoch%s (at start, %d refresh%s, at end);"
	       " error estimate\n"
	       "  after the first %s (worst rank), which took %s; largest "
	       "offset between\n"
	       "  global clocks (Alg 20, %d ping-pongs per rank): %s after "
	       "the first, %s at\n"
	       "  the end, %s after the last\n",
	       j->epochs, j->epochs == 1 ? "" : "s", j->refreshes,
	       j->refreshes == 1 ? "" : "es",
	       fmt_ns(a, sizeof(a), j->sync_err_ns),
	       fmt_ns(b, sizeof(b), j->sync_ms * 1e6), CHECK_ROUNDS,
	       fmt_ns(c, sizeof(c), j->check_ns[0]),
	       fmt_ns(d, sizeof(d), j->check_ns[1]),
	       fmt_ns(sz, sizeof(sz), j->check_ns[2]));
	printf("time: %s in all, %s pilots, %s measuring\n",
	       fmt_ns(a, sizeof(a), (double)(j->t_end - j->t_begin)),
	       fmt_ns(b, sizeof(b), (double)(j->t_measure - j->t_pilot)),
	       fmt_ns(c, sizeof(c), (double)(j->t_end - j->t_measure)));
}

static void print_header(const struct job *j)
{
	const struct opts *o = &j->o;
	char a[32], b[32], what[64] = "";
	int nops = 0, op;

	for (op = 0; op < ST_MICRO_NOPS; op++)
		nops += !!(o->ops & (1u << op));
	if (o->npairs)
		snprintf(what, sizeof(what), "%d (operation, size) pair%s of ",
			 o->npairs, o->npairs == 1 ? "" : "s");
	printf("synctrace bench: %d ranks on %d host%s, %s%d operation%s, "
	       "%d size%s (%s to %s),\n"
	       "  %d measurements each, seed %llu; %s\n",
	       j->size, j->nhosts, j->nhosts == 1 ? "" : "s", what, nops,
	       nops == 1 ? "" : "s", o->nsizes, o->nsizes == 1 ? "" : "s",
	       fmt_size(a, sizeof(a), o->sizes[0]),
	       fmt_size(b, sizeof(b), o->sizes[o->nsizes - 1]), o->nrep,
	       (unsigned long long)o->seed,
	       o->barrier ? "sync=barrier: an MPI_Barrier before each "
			    "measurement" :
			    "sync=window: start times on the HCA global "
			    "clock");
	if (o->pair_time_ns > 0)
		printf("  more for pairs whose windows are short: as many as "
		       "fit in %s of windows,\n  up to %d each "
		       "(--pair-time)\n", fmt_ns(a, sizeof(a), o->pair_time_ns),
		       PAIR_TIME_MAX * o->nrep);
	if (j->skew_spec[0])
		printf("clock skew injected: %s\n", j->skew_spec);
	printf("placement: %s\n", j->bound ? "each rank bound to a CPU of "
	       "its own" : "ranks not bound to CPUs of their own: the "
	       "system may move them");
	if (j->on_host > j->cpus)
		printf("note: %d ranks share %d CPU%s: ranks wait for a CPU, "
		       "which spoils many\n"
		       "  measurements (discarded) and lengthens the rest\n",
		       j->on_host, j->cpus, j->cpus == 1 ? "" : "s");
	printf("trace: %s\n", j->tr.dir);
	fflush(stdout);
}

/* --- main ---------------------------------------------------------- */

static void list_sizes(const struct opts *o, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < o->nsizes && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%zu",
					 i ? "," : "", o->sizes[i]);
}

static void list_pairs(const struct opts *o, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < o->npairs && used < len; i++) {
		used += (size_t)snprintf(buf + used, len - used, "%s%s:%zu",
					 i ? "," : "",
					 st_micro_op_name(o->pair_op[i]),
					 o->pair_n[i]);
		if (o->pair_gap_us[i] >= 0 && used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 "@%ld", o->pair_gap_us[i]);
		if (o->pair_prev_op[i] >= 0 && used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 "/%s:%zu", st_micro_op_name(
							 o->pair_prev_op[i]),
						 o->pair_prev_n[i]);
	}
}

static void list_ops(const struct opts *o, char *buf, size_t len)
{
	size_t used = 0;
	int op, n = 0;

	buf[0] = '\0';
	for (op = 0; op < ST_MICRO_NOPS && used < len; op++)
		if (o->ops & (1u << op))
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s", n++ ? "," : "",
						 st_micro_op_name(op));
}

/* The run directory, the index and this rank's file with its header. */
static int open_trace(struct job *j)
{
	const struct opts *o = &j->o;
	char index[4096], cmd[2048], err[512], note[300];
	char sizes[1024], ops[512], nrep[16], npairs[16], seed[32], factor[32],
		ptime[32];
	char pairs[ST_MICRO_MAX_PAIRS * 96];
	char minw[32], refresh[32], config[512], run_id[192], t_init[32];
	struct st_kv kv[24];
	const char *sync = o->barrier ? "barrier" : "window";
	size_t n = 0;
	int rc, ok, all;

	st_bench_cmdline(cmd, sizeof(cmd));
	/* One id per launch: the host, time and pid of rank 0. */
	if (!j->rank) {
		char host[128] = "";

		gethostname(host, sizeof(host) - 1);
		snprintf(run_id, sizeof(run_id), "%s-%lld-%d", host,
			 (long long)time(NULL), (int)getpid());
	}
	MPI_Bcast(run_id, sizeof(run_id), MPI_CHAR, 0, MPI_COMM_WORLD);
	snprintf(index, sizeof(index), "nranks=%d\ncmdline=%s\n"
		 "start_unix=%lld\nbench=1\nsync=%s\nrun_id=%s\n", j->size,
		 cmd, (long long)time(NULL), sync, run_id);
	err[0] = '\0';
	rc = st_bench_trace_dir(&j->tr, MPI_COMM_WORLD, o->dir, index, err,
				sizeof(err));
	if (rc) {
		if (!j->rank)
			st_bench_msg("%s", err);
		return rc;
	}
	list_sizes(o, sizes, sizeof(sizes));
	list_ops(o, ops, sizeof(ops));
	list_pairs(o, pairs, sizeof(pairs));
	snprintf(nrep, sizeof(nrep), "%d", o->nrep);
	snprintf(npairs, sizeof(npairs), "%d", j->npairs);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->seed);
	snprintf(factor, sizeof(factor), "%g", o->factor);
	snprintf(minw, sizeof(minw), "%.0f", o->min_window_ns);
	snprintf(ptime, sizeof(ptime), "%.0f", o->pair_time_ns);
	snprintf(refresh, sizeof(refresh), "%g", o->refresh_s);
	snprintf(config, sizeof(config), "bench=micro sync=%s nrep=%d "
		 "seed=%s window_factor=%s min_window_ns=%s refresh_s=%s"
		 "%s%s%s%s%s%s", sync, o->nrep, seed, factor, minw, refresh,
		 o->pair_time_ns > 0 ? " pair_time_ns=" : "",
		 o->pair_time_ns > 0 ? ptime : "",
		 yield_mode() ? " yield=1" : "",
		 o->cold_coll ? " coll_warmup=0" : " coll_warmup=1",
		 o->cold_coll ? "" : " coll_gap_us=25",	/* items' @US: pairs= */
		 o->warm_p2p ? " p2p_warmup=1" : " p2p_warmup=0");
	note[0] = '\0';
	if (j->skew_spec[0])
		snprintf(note, sizeof(note), "(distorted by "
			 "SYNCTRACE_CLOCK_SKEW=%s)", j->skew_spec);
	/* Where the run starts for 'report': now, on the records' clock. */
	snprintf(t_init, sizeof(t_init), "%llu",
		 (unsigned long long)st_mpi_transport_now(&j->t));
	kv[n++] = (struct st_kv){ "config", config };
	kv[n++] = (struct st_kv){ "t_init_ns", t_init };
	kv[n++] = (struct st_kv){ "bench", "1" };
	kv[n++] = (struct st_kv){ "bench_mode", "micro" };
	kv[n++] = (struct st_kv){ "run_id", run_id };
	kv[n++] = (struct st_kv){ "sync", sync };
	kv[n++] = (struct st_kv){ "sync_method", "hca" };
	kv[n++] = (struct st_kv){ "nrep", nrep };
	kv[n++] = (struct st_kv){ "seed", seed };
	kv[n++] = (struct st_kv){ "sizes", sizes };
	kv[n++] = (struct st_kv){ "ops", ops };
	if (o->npairs)
		kv[n++] = (struct st_kv){ "pairs", pairs };
	kv[n++] = (struct st_kv){ "first_calls", npairs };
	kv[n++] = (struct st_kv){ "window_factor", factor };
	kv[n++] = (struct st_kv){ "cpus", j->cpu_list };
	kv[n++] = (struct st_kv){ "bound", j->bound ? "1" : "0" };
	kv[n++] = (struct st_kv){ "min_window_ns", minw };
	if (o->pair_time_ns > 0)
		kv[n++] = (struct st_kv){ "pair_time_ns", ptime };
	kv[n++] = (struct st_kv){ "data", o->reuse ?
				  "MPI_BYTE; reductions MPI_SUM over "
				  "MPI_UINT8_T; root 0; send data reused "
				  "(--reuse-buffers)" :
				  "MPI_BYTE; reductions MPI_SUM over "
				  "MPI_UINT8_T; root 0; send data written "
				  "before each measurement" };
	rc = st_bench_trace_open(&j->tr, j->rank, j->size, &j->t, note, kv,
				 n);
	ok = !rc;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rc)
		st_bench_msg("rank %d: cannot write '%s': %s", j->rank,
			     j->tr.path, strerror(-rc));
	return all ? 0 : -EIO;
}

/* The benchmark communicator's record, as the interposer's for WORLD. */
static void emit_comm(struct job *j)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_COMM;
	ev.fn = ST_FN_NONE;
	ev.t0 = ev.t1 = st_mpi_transport_now(&j->t);
	ev.comm = BENCH_COMM_ID;
	ev.comm_size = (uint32_t)j->size;
	ev.rank = j->rank;
	st_bench_trace_append(&j->tr, &ev);
}

/*
 * How far the global clocks of the ranks are apart now, as the
 * interposer's SYNCTRACE_SYNC_CHECK measures it (st_sync_check(), Hunold
 * and Carpen-Amarie's Alg 20), into check_ns[k] on rank 0 and the index
 * as 'key'.  Outside any measurement: it costs a few ping-pongs per rank.
 */
static void check_sync(struct job *j, int k, const char *key)
{
	char text[96];
	double v = 0;
	int rc;

	if ((rc = st_sync_check(j->sync, &j->t.tp, CHECK_ROUNDS, &v)))
		fail(j, "st_sync_check", rc);
	if (j->rank)
		return;
	j->check_ns[k] = v;
	snprintf(text, sizeof(text), "%s=%.0f\n", key, v);
	if ((rc = st_bench_trace_index(&j->tr, text)))
		st_bench_msg("cannot write '%s/%s': %s", j->tr.dir,
			     ST_RUN_INDEX, strerror(-rc));
}

/* Rank 0: the worst error estimate and the longest duration of the init. */
static void sync_figures(struct job *j)
{
	struct st_sync_estimate e;
	double mine[2], worst[2];

	st_sync_result(j->sync, &e);
	mine[0] = isnan(e.err_ns) ? INFINITY : e.err_ns;
	mine[1] = (double)e.duration_ns / 1e6;
	MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	j->sync_err_ns = worst[0];
	j->sync_ms = worst[1];
}

static void free_job(struct job *j)
{
	int i;

	for (i = 0; j->pairs && i < j->npairs; i++)
		free(j->pairs[i].dur);
	free(j->pairs);
	free(j->queue);
	free(j->retry);
	free(j->spread);
	st_micro_ctx_release(&j->mc);
	st_sync_free(j->sync);
	st_mpi_transport_release(&j->t);
	if (j->bench != MPI_COMM_NULL)
		MPI_Comm_free(&j->bench);
	free(j);
}

int st_bench_micro(int argc, char **argv)
{
	struct job *j;
	char err[256], text[32];
	int prc, rc, ok, all, status = 0;

	MPI_Init(NULL, NULL);
	j = calloc(1, sizeof(*j));
	if (!j) {
		st_bench_msg("out of memory");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	j->bench = MPI_COMM_NULL;
	j->t.comm = MPI_COMM_NULL;
	j->tr.fd = -1;
	j->mc.prepared_n = SIZE_MAX;
	MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &j->size);
	prc = parse_opts(&j->o, argc, argv, err, sizeof(err));
	if (prc || j->o.help) {
		if (!j->rank && prc)
			st_bench_msg("%s", err);
		if (!j->rank)
			fputs(st_bench_micro_usage, prc ? stderr : stdout);
		status = prc ? ST_BENCH_EXIT_USAGE : 0;
		goto out;
	}
	if (j->size < 2) {
		if (!j->rank)
			st_bench_msg("micro needs at least 2 ranks "
				     "(mpiexec -n 2 or more)");
		status = 1;
		goto out;
	}
	j->t_begin = st_mpi_raw_ns();
	find_hosts(j);
	if (setup_clock(j)) {
		status = 1;
		goto out;
	}
	if (MPI_Comm_dup(MPI_COMM_WORLD, &j->bench) != MPI_SUCCESS)
		fail(j, "MPI_Comm_dup", -EIO);
	rc = st_micro_ctx_init(&j->mc, j->bench, &j->t, buffer_ops(&j->o),
			       buffer_max(&j->o));
	/* Blocking calls as a traced run in yield mode makes them. */
	j->mc.yield = yield_mode();
	ok = !rc;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		if (!j->rank)
			st_bench_msg("cannot allocate the buffers for %zu "
				     "bytes on %d ranks: %s",
				     j->o.sizes[j->o.nsizes - 1], j->size,
				     strerror(rc == -EOVERFLOW ? EOVERFLOW :
					      ENOMEM));
		status = 1;
		goto out;
	}
	make_pairs(j);
	if (open_trace(j)) {
		status = 1;
		goto out;
	}
	if (!j->rank)
		print_header(j);
	emit_comm(j);
	do_sync(j, 0);
	sync_figures(j);
	check_sync(j, 0, "sync_check_init_ns");
	if (j->o.start)
		start_probe(j);
	j->t_pilot = st_mpi_raw_ns();
	pilot(j);
	plan_counts(j);
	make_queue(j);
	if (!j->rank && !(j->spread = malloc(j->nqueue * sizeof(double))))
		fail(j, "planning", -ENOMEM);
	j->t_measure = st_mpi_raw_ns();
	measure(j);
	check_sync(j, 1, "sync_check_end_ns");
	do_sync(j, 1);
	check_sync(j, 2, "sync_check_final_ns");
	j->t_end = st_mpi_raw_ns();
	rc = st_bench_trace_close(&j->tr);
	if (rc)
		st_bench_msg("rank %d: cannot write '%s': %s", j->rank,
			     j->tr.path, strerror(-rc));
	ok = !rc;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!j->rank) {
		snprintf(text, sizeof(text), "complete=%d\n", all);
		if ((rc = st_bench_trace_index(&j->tr, text))) {
			st_bench_msg("cannot write '%s/%s': %s", j->tr.dir,
				     ST_RUN_INDEX, strerror(-rc));
			all = 0;
		}
		print_summary(j);
		printf("trace: %s (%d ranks, %s), %zu records on rank 0\n",
		       j->tr.dir, j->size, all ? "complete" : "incomplete",
		       j->tr.records);
	}
	MPI_Bcast(&all, 1, MPI_INT, 0, MPI_COMM_WORLD);
	status = all ? 0 : 1;
out:
	st_bench_trace_close(&j->tr);
	free_job(j);
	fflush(stdout);
	MPI_Finalize();
	return status;
}
