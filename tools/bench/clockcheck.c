/*
 * tools/bench/clockcheck.c: "synctrace-bench clockcheck", how far apart
 * the global clocks of the ranks are at chosen times after
 * synchronisation, for each sync method, with and without refresh: the
 * figure to check before trusting global time on a machine.
 *
 * Each row of the table is a sync state of its own (a method, refreshed
 * as the interposer does, or never), synchronised one after another at
 * the start.  A check of a state is due 't' seconds after that state's
 * own synchronisation ended, so every row's "t = 0" is "just after its
 * sync" and the run lasts about as long as the largest 't', not that
 * times the number of rows.  Rank 0 keeps the agenda (syncs, checks and
 * refreshes, by due time on its clock), waits for each event and
 * broadcasts it; the others sleep in a nonblocking broadcast until it
 * comes.  A check is st_sync_check() (Hunold and Carpen-Amarie's Alg 20:
 * rank 0 ping-pongs with each rank, and the exchange with the least round
 * trip gives the offset between the two global clocks), through a
 * transport that times those ping-pongs: half the least round trip
 * bounds the check's own uncertainty, and a check whose round trips were
 * all disturbed is made again.
 *
 * With more ranks than CPUs on a host (tests on a laptop), spinning
 * ranks would steal the CPU from the two that exchange, so rank 0 gets a
 * CPU to itself (every check and root offset involves it) and waiting
 * ranks yield (tools/bench/mpi-transport.c).
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sync/skew.h"
#include "sync/sync.h"
#include "tools/bench/bench.h"
#include "tools/bench/mpi-transport.h"

const char st_bench_clockcheck_usage[] =
"usage: mpiexec.mpich -n N synctrace-bench clockcheck [options]\n"
"\n"
"Synchronise the clocks of all ranks with each method, then measure at\n"
"the given times how far every rank's global clock is from rank 0's,\n"
"and print a table (and, with --csv, a CSV file).  Normally started by\n"
"'synctrace clockcheck', which takes the same options.\n"
"\n"
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
"    --skew SPEC         distort each rank's clock (the syntax of\n"
"                        SYNCTRACE_CLOCK_SKEW, which is used otherwise)\n"
"    --node              node-aware sync: the lowest rank of each node\n"
"                        measures, the node's other ranks take its model\n"
"    --params LIST       sync parameters, KEY=N,...: fit_points, exchanges,\n"
"                        fit_span_ms, pingpongs, min_pingpongs,\n"
"                        rtt_pingpongs, refresh_points, check_pingpongs\n"
"    --csv FILE          also write one CSV line per method, refresh and\n"
"                        time to FILE\n"
"    -h, --help          show this help\n";

#define MAX_TIMES 64
#define MAX_STATES (2 * ST_SYNC_NMETHODS)
#define DEFAULT_CHECK_PINGPONGS 50
#define MAX_SECONDS 86400.0	/* times and refresh period */
#define MIN_REFRESH_S 0.01

/*
 * A check is repeated (at most CHECK_TRIES in all) when its least round
 * trip exceeds CHECK_RTT_FACTOR times the undisturbed one plus
 * CHECK_RTT_SLACK_NS.
 */
#define CHECK_TRIES 3
#define CHECK_RTT_FACTOR 4.0
#define CHECK_RTT_SLACK_NS 2000.0

struct opts {
	double times_s[MAX_TIMES];	/* ascending, no duplicates */
	int ntimes;
	int methods[ST_SYNC_NMETHODS];
	int nmethods;
	unsigned refresh_mask;	/* bit m: method m has a refresh-on row */
	double refresh_s;	/* 0: no refresh-on rows */
	const char *skew;	/* --skew, or NULL for the environment */
	const char *csv;
	int node;
	struct st_sync_params params;
	int check_pp;
	int help;
};

/* One cell: what a check of a row measured (on rank 0). */
struct result {
	double residual_ns, rtt_ns, age_s;
	double took_s;		/* rank 0: the check's duration, all tries */
	double since_sync_s;	/* at its end, since the sync began, worst */
	double est_err_ns, err_ns, slope_err;	/* worst rank, now */
	int epoch;
	int tries;		/* checks made; the least RTT one counts */
	int done;
};

/* One row: a method, refreshed or not, with its own sync state. */
struct state {
	int method;
	int refresh;		/* refreshed every opts.refresh_s */
	struct st_sync *s;
	uint64_t end_ns;	/* rank 0: its clock when the init ended */
	double sync_ms;		/* median over ranks */
	double err_ns, slope_err;	/* worst rank, after init */
	struct result res[MAX_TIMES];
};

/* The job as this rank sees it. */
struct job {
	struct opts o;
	struct st_mpi_transport t;
	int rank, size;
	int nnodes, on_host, cpus;
	int host_of_0;		/* on the same host as rank 0 */
	int yield;		/* more ranks than CPUs here: yield */
	int pinned;		/* rank 0 has a CPU of its own */
	int *leaders;		/* by rank: lowest rank of its node */
	double base_rtt_ns;	/* rank 0: round trip to the farthest rank */
	double *min_rtt;	/* by rank: scratch for the checks */
	char skew_spec[256];
	struct state st[MAX_STATES];
	int nstates;
};

/* --- options ------------------------------------------------------- */

static int bad(char *err, size_t errlen, const char *fmt, const char *arg)
{
	snprintf(err, errlen, fmt, arg);
	return -1;
}

/* Next comma-separated item of '*p' into 'buf'; 0 at the end. */
static int next_item(const char **p, char *buf, size_t len)
{
	size_t n;

	if (!*p)
		return 0;
	n = strcspn(*p, ",");
	if (n >= len)
		n = len - 1;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p = (*p)[strcspn(*p, ",")] ? *p + strcspn(*p, ",") + 1 : NULL;
	return 1;
}

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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int parse_times(struct opts *o, const char *s, char *err,
		       size_t errlen)
{
	const char *p = s;
	char item[64];
	int i, n = 0;

	while (next_item(&p, item, sizeof(item))) {
		if (n == MAX_TIMES)
			return bad(err, errlen, "too many times in '%s' "
				   "(at most 64)", s);
		if (parse_seconds(item, &o->times_s[n]))
			return bad(err, errlen, "bad time '%s' for '--times' "
				   "(seconds, e.g. 0,1,5.5)", item);
		n++;
	}
	qsort(o->times_s, (size_t)n, sizeof(double), cmp_double);
	for (i = 1; i < n; i++)
		if (o->times_s[i] == o->times_s[i - 1])
			return bad(err, errlen, "time given twice in '%s'", s);
	o->ntimes = n;
	return 0;
}

static int parse_methods(const char *s, const char *opt, int *v, int *n,
			 unsigned *mask, char *err, size_t errlen)
{
	const char *p = s;
	char item[64];
	int m;

	*n = 0;
	*mask = 0;
	while (next_item(&p, item, sizeof(item))) {
		if ((m = st_sync_method_parse(item)) < 0) {
			snprintf(err, errlen, "unknown method '%s' for '%s' "
				 "(hca, hca2, skampi, skampi-tree, jk)", item,
				 opt);
			return -1;
		}
		if (*mask & (1u << m))
			return bad(err, errlen, "method '%s' given twice",
				   item);
		*mask |= 1u << m;
		if (v)
			v[(*n)++] = m;
	}
	if (!*mask)
		return bad(err, errlen, "no method in '%s'", s);
	return 0;
}

static int parse_params(struct opts *o, const char *s, char *err,
			size_t errlen)
{
	static const char *const keys[] = {
		"fit_points", "exchanges", "fit_span_ms", "pingpongs",
		"min_pingpongs", "rtt_pingpongs", "refresh_points",
		"check_pingpongs",
	};
	const char *p = s;
	char item[64], *eq, *end;
	size_t k;
	long v;

	while (next_item(&p, item, sizeof(item))) {
		eq = strchr(item, '=');
		if (!eq)
			return bad(err, errlen, "bad parameter '%s' for "
				   "'--params' (KEY=N)", item);
		*eq = '\0';
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(item, keys[k]))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return bad(err, errlen, "unknown sync parameter '%s'",
				   item);
		errno = 0;
		v = strtol(eq + 1, &end, 10);
		if (eq[1] < '0' || eq[1] > '9' || *end || errno ||
		    v > 1000000 || (v < 1 && k != 2))
			return bad(err, errlen, "bad value for sync parameter "
				   "'%s'", item);
		switch (k) {
		case 0: o->params.fit_points = (int)v; break;
		case 1: o->params.exchanges = (int)v; break;
		case 2: o->params.fit_span_ns = (uint64_t)v * 1000000u; break;
		case 3: o->params.pingpongs = (int)v; break;
		case 4: o->params.min_pingpongs = (int)v; break;
		case 5: o->params.rtt_pingpongs = (int)v; break;
		case 6: o->params.refresh_points = (int)v; break;
		default: o->check_pp = (int)v; break;
		}
	}
	return 0;
}

static int parse_opts(struct opts *o, int argc, char **argv, char *err,
		      size_t errlen)
{
	const char *val;
	unsigned mask;
	int i, n, rc;

	memset(o, 0, sizeof(*o));
	st_sync_params_init(&o->params);
	o->check_pp = DEFAULT_CHECK_PINGPONGS;
	o->refresh_s = 10;
	o->refresh_mask = 1u << ST_SYNC_HCA;
	parse_times(o, "0,1,5,10,30,60", err, errlen);
	parse_methods("hca,hca2,skampi,jk", "", o->methods, &o->nmethods,
		      &mask, err, errlen);
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			o->help = 1;
			return 0;
		} else if (!strcmp(arg, "--node")) {
			o->node = 1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--times", &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "list", arg);
			if (parse_times(o, val, err, errlen))
				return -1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i, "--methods",
					   &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "list", arg);
			if (parse_methods(val, "--methods", o->methods,
					  &o->nmethods, &mask, err, errlen))
				return -1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--refresh-methods", &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "list", arg);
			if (parse_methods(val, "--refresh-methods", NULL, &n,
					  &o->refresh_mask, err, errlen))
				return -1;
		} else if ((rc = st_bench_opt_value(argc, argv, &i, "--refresh",
					   &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "number of seconds", arg);
			if (parse_seconds(val, &o->refresh_s) ||
			    (o->refresh_s > 0 && o->refresh_s < MIN_REFRESH_S))
				return bad(err, errlen, "bad period '%s' for "
					   "'--refresh' (0, or 0.01 to 86400 "
					   "seconds)", val);
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--skew", &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "skew list", arg);
			o->skew = val;
		} else if ((rc = st_bench_opt_value(argc, argv, &i,
					    "--csv", &val))) {
			if (rc < 0 || !*val)
				return bad(err, errlen, "option '%s' needs a "
					   "file name", "--csv");
			o->csv = val;
		} else if ((rc = st_bench_opt_value(argc, argv, &i, "--params",
					   &val))) {
			if (rc < 0)
				return bad(err, errlen, "option '%s' needs a "
					   "list", arg);
			if (parse_params(o, val, err, errlen))
				return -1;
		} else {
			return bad(err, errlen, "unknown option '%s'", arg);
		}
	}
	if (!o->ntimes)
		return bad(err, errlen, "%s", "no time to check at");
	return 0;
}

/* --- formatting ---------------------------------------------------- */

/* 'v' with three significant digits (two decimals at most). */
static void fmt3(char *buf, size_t len, double v, const char *unit)
{
	double a = fabs(v);

	if (a < 9.995)
		snprintf(buf, len, "%.2f %s", v, unit);
	else if (a < 99.95)
		snprintf(buf, len, "%.1f %s", v, unit);
	else
		snprintf(buf, len, "%.0f %s", v, unit);
}

/* A time in ns as "850 ns", "1.23 us", "45.6 ms", "1.20 s"; NaN as "?". */
static char *fmt_ns(char *buf, size_t len, double ns)
{
	double a = fabs(ns);

	if (isnan(ns))
		snprintf(buf, len, "?");
	else if (a < 999.5)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 999.5e3)
		fmt3(buf, len, ns / 1e3, "us");
	else if (a < 999.5e6)
		fmt3(buf, len, ns / 1e6, "ms");
	else
		fmt3(buf, len, ns / 1e9, "s");
	return buf;
}

/* A slope (dimensionless) in ppm: "0.32 ppm"; NaN as "?". */
static char *fmt_ppm(char *buf, size_t len, double slope)
{
	if (isnan(slope))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.2g ppm", slope * 1e6);
	return buf;
}

/* --- the job ------------------------------------------------------- */

/* A fatal error on one rank: say so and bring the job down. */
__attribute__((noreturn))
static void fail(const struct job *j, const char *what, int rc)
{
	st_bench_msg("rank %d: %s failed: %s", j->rank, what, strerror(-rc));
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* Max of 'a' and 'b', NaN (unknown) winning. */
static double max_nan(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	return a > b ? a : b;
}

/*
 * With more ranks than CPUs, rank 0 keeps 'cpu0' to itself and the other
 * ranks of its host stay off it (unless it is all they may use).  Every
 * check and every offset against the root is an exchange with rank 0; on
 * a shared CPU both partners of an exchange would take turns, and a round
 * trip would cost two context switches (measured: 8 us instead of
 * 0.7 us).  Returns 0 or -errno.
 */
static int pin_rank0_apart(int rank, int cpu0, cpu_set_t *mine)
{
	cpu_set_t one;

	if (rank == 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu0, &one);
		return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
	}
	if (!CPU_ISSET(cpu0, mine) || CPU_COUNT(mine) < 2)
		return 0;
	CPU_CLR(cpu0, mine);
	return sched_setaffinity(0, sizeof(*mine), mine) ? -errno : 0;
}

/*
 * Hosts: how many ranks share this host and how many CPUs they may run on
 * together (the union of their affinity masks).  With more ranks than
 * CPUs, ranks yield while they wait, and rank 0 gets a CPU of its own.
 */
static int find_hosts(struct job *j)
{
	char host[MPI_MAX_PROCESSOR_NAME], *all;
	cpu_set_t mine, any;
	MPI_Comm hc;
	int len, r, color = -1, cpu0 = -1;

	memset(host, 0, sizeof(host));
	MPI_Get_processor_name(host, &len);
	all = malloc((size_t)j->size * sizeof(host));
	if (!all)
		return -ENOMEM;
	MPI_Allgather(host, sizeof(host), MPI_CHAR, all, sizeof(host),
		      MPI_CHAR, MPI_COMM_WORLD);
	j->on_host = 0;
	for (r = 0; r < j->size; r++)
		if (!strcmp(host, all + (size_t)r * sizeof(host))) {
			j->on_host++;
			if (color < 0)
				color = r;
		}
	j->host_of_0 = color == 0;
	free(all);

	CPU_ZERO(&mine);
	if (sched_getaffinity(0, sizeof(mine), &mine))
		CPU_ZERO(&mine);
	MPI_Comm_split(MPI_COMM_WORLD, color, j->rank, &hc);
	MPI_Allreduce(&mine, &any, (int)sizeof(any), MPI_BYTE, MPI_BOR, hc);
	MPI_Comm_free(&hc);
	j->cpus = CPU_COUNT(&any);
	if (j->cpus < 1)
		j->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	j->yield = j->on_host > j->cpus;
	for (r = 0; r < CPU_SETSIZE && !j->rank && cpu0 < 0; r++)
		if (CPU_ISSET(r, &mine))
			cpu0 = r;
	MPI_Bcast(&cpu0, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (j->yield && j->host_of_0 && j->cpus > 1 && cpu0 >= 0)
		j->pinned = pin_rank0_apart(j->rank, cpu0, &mine) == 0;
	return 0;
}

/* Nodes: each rank's leader, the lowest rank of its MPI_COMM_TYPE_SHARED. */
static int find_nodes(struct job *j)
{
	MPI_Comm node;
	int r, leader;

	j->leaders = malloc((size_t)j->size * sizeof(int));
	j->min_rtt = malloc((size_t)j->size * sizeof(double));
	if (!j->leaders || !j->min_rtt)
		return -ENOMEM;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank,
				MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return -EIO;
	leader = j->rank;
	MPI_Allreduce(&j->rank, &leader, 1, MPI_INT, MPI_MIN, node);
	MPI_Comm_free(&node);
	MPI_Allgather(&leader, 1, MPI_INT, j->leaders, 1, MPI_INT,
		      MPI_COMM_WORLD);
	j->nnodes = 0;
	for (r = 0; r < j->size; r++)
		j->nnodes += j->leaders[r] == r;
	return 0;
}

/*
 * With --node, the ranks of a node take their leader's clock model, which
 * is only right if they read the same clock: the same skew.  1 if so on
 * every rank.
 */
static int node_skews_agree(const struct job *j)
{
	double mine[2], lead[2];
	MPI_Comm node;
	int ok, all = 0;

	mine[0] = lead[0] = (double)j->t.skew.offset_ns;
	mine[1] = lead[1] = j->t.skew.drift_ppm;
	MPI_Comm_split(MPI_COMM_WORLD, j->leaders[j->rank], j->rank, &node);
	MPI_Bcast(lead, 2, MPI_DOUBLE, 0, node);
	MPI_Comm_free(&node);
	ok = mine[0] == lead[0] && mine[1] == lead[1];
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return all;
}

/*
 * The least round trip of 'n' 8-byte ping-pongs between rank 0 and each
 * rank, the largest of them on rank 0 (0 elsewhere): the messages of
 * st_sync_check(), undisturbed, as a yardstick for its round trips.
 */
static int base_rtt(const struct job *j, int n, double *rtt_ns)
{
	const struct st_transport *tp = &j->t.tp;
	uint64_t w = 0;
	int r, k, rc;

	*rtt_ns = 0;
	if (j->rank) {
		for (k = 0; k < n; k++)
			if ((rc = tp->recv(tp->ctx, 0, &w, 8)) ||
			    (rc = tp->send(tp->ctx, 0, &w, 8)))
				return rc;
		return 0;
	}
	for (r = 1; r < j->size; r++) {
		double best = INFINITY;

		for (k = 0; k < n; k++) {
			uint64_t a = tp->now_ns(tp->ctx), b;

			if ((rc = tp->send(tp->ctx, r, &w, 8)) ||
			    (rc = tp->recv(tp->ctx, r, &w, 8)))
				return rc;
			b = tp->now_ns(tp->ctx);
			best = fmin(best, (double)(int64_t)(b - a));
		}
		*rtt_ns = fmax(*rtt_ns, best);
	}
	return 0;
}

/*
 * A few messages between every pair, in one global order, so that the
 * connections are up before anything is timed; then rank 0's round trip
 * to each rank, undisturbed, in 'base_rtt_ns'.
 */
static void warm_up(struct job *j)
{
	const struct st_transport *tp = &j->t.tp;
	uint64_t w = 0;
	int a, b, k, rc = 0;

	for (a = 0; a < j->size; a++)
		for (b = a + 1; b < j->size; b++)
			for (k = 0; k < 4 && !rc; k++) {
				if (j->rank == a &&
				    !(rc = tp->send(tp->ctx, b, &w, 8)))
					rc = tp->recv(tp->ctx, b, &w, 8);
				else if (j->rank == b &&
					 !(rc = tp->recv(tp->ctx, a, &w, 8)))
					rc = tp->send(tp->ctx, a, &w, 8);
			}
	if (rc || (rc = base_rtt(j, j->o.check_pp, &j->base_rtt_ns)))
		fail(j, "warm-up", rc);
}

/*
 * A transport around another that times, on rank 0, each send to a rank
 * and the receive from that rank right after it: the round trips of
 * st_sync_check()'s own ping-pongs, whose least gives the offset it
 * reports and, halved, that offset's uncertainty.
 */
struct probe {
	struct st_transport tp;
	const struct st_transport *in;
	int sent_to;		/* -1 when no round trip is open */
	uint64_t sent_ns;
	double *min_rtt;	/* by rank */
};

static uint64_t probe_now(void *ctx)
{
	const struct probe *p = ctx;

	return p->in->now_ns(p->in->ctx);
}

static int probe_send(void *ctx, int peer, const void *buf, size_t len)
{
	struct probe *p = ctx;

	p->sent_to = peer;
	p->sent_ns = p->in->now_ns(p->in->ctx);
	return p->in->send(p->in->ctx, peer, buf, len);
}

static int probe_recv(void *ctx, int peer, void *buf, size_t len)
{
	struct probe *p = ctx;
	int rc = p->in->recv(p->in->ctx, peer, buf, len);
	double rtt;

	if (!rc && peer == p->sent_to) {
		rtt = (double)(int64_t)(p->in->now_ns(p->in->ctx) -
					p->sent_ns);
		p->min_rtt[peer] = fmin(p->min_rtt[peer], rtt);
	}
	p->sent_to = -1;
	return rc;
}

static void probe_init(struct probe *p, const struct st_transport *in,
		       double *min_rtt)
{
	int r;

	p->tp = *in;
	p->tp.ctx = p;
	p->tp.now_ns = probe_now;
	p->tp.send = probe_send;
	p->tp.recv = probe_recv;
	p->in = in;
	p->sent_to = -1;
	p->min_rtt = min_rtt;
	for (r = 0; r < in->size; r++)
		min_rtt[r] = INFINITY;
}

/*
 * Gather 'n' doubles of every rank on rank 0; 'all' has size * n.  It
 * waits as the transport does, so a rank that is done does not spin in
 * MPI while two others still exchange on a shared CPU.
 */
static void gather(const struct job *j, const double *mine, int n,
		   double *all)
{
	MPI_Request req;

	if (MPI_Igather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, j->t.comm,
			&req) != MPI_SUCCESS ||
	    st_mpi_transport_wait(&j->t, &req))
		fail(j, "MPI_Igather", -EIO);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void do_sync(struct job *j, struct state *st)
{
	struct st_sync_params p = j->o.params;
	struct st_sync_estimate e;
	double mine[3], *all = NULL;
	uint64_t t0, t1;
	int r, rc;

	p.method = st->method;
	p.leader = j->o.node ? j->leaders : NULL;
	t0 = st_mpi_transport_now(&j->t);
	rc = st_sync_init(&st->s, &j->t.tp, &p);
	t1 = st_mpi_transport_now(&j->t);
	if (rc == -EINVAL) {
		/* Every rank finds this before any message. */
		if (!j->rank)
			st_bench_msg("sync parameters rejected by method '%s'"
				     " (see 'struct st_sync_params' in "
				     "sync/sync.h for their ranges)",
				     st_sync_method_name(st->method));
		MPI_Finalize();
		exit(1);
	}
	if (rc)
		fail(j, "clock synchronisation", rc);
	st->end_ns = t1;
	st_sync_result(st->s, &e);
	mine[0] = (double)(t1 - t0) / 1e6;
	mine[1] = e.err_ns;
	mine[2] = e.slope_err;
	if (!j->rank && !(all = malloc((size_t)j->size * 3 * sizeof(*all))))
		fail(j, "gathering results", -ENOMEM);
	gather(j, mine, 3, all);
	if (j->rank)
		return;
	st->err_ns = st->slope_err = 0;
	for (r = 1; r < j->size; r++) {
		st->err_ns = max_nan(st->err_ns, all[3 * r + 1]);
		st->slope_err = max_nan(st->slope_err, all[3 * r + 2]);
	}
	for (r = 0; r < j->size; r++)
		all[r] = all[3 * r];
	st->sync_ms = median(all, j->size);
	free(all);
}

/*
 * Rank 0 says whether to measure again; the others wait as the transport
 * does.  Returns the decision.
 */
static int agree(const struct job *j, int again)
{
	MPI_Request req;

	if (MPI_Ibcast(&again, 1, MPI_INT, 0, j->t.comm, &req) !=
	    MPI_SUCCESS || st_mpi_transport_wait(&j->t, &req))
		fail(j, "MPI_Ibcast", -EIO);
	return again;
}

/*
 * Check 'st' (Alg 20).  A check whose least round trip is well above the
 * undisturbed one (another process took the CPU of one of the ranks for
 * the whole check) cannot resolve the offset; it is repeated up to
 * CHECK_TRIES times in all, and the one with the least round trip
 * counts.  The number of tries goes into the CSV, and when the check
 * measured: all its ping-pongs lie between 'now' and 'end' on rank 0's
 * clock (every one is an exchange with rank 0), and no rank's model had
 * aged more than since_sync_s at its ping-pongs (the time from the
 * start of its synchronisation to the check's end, worst rank): what an
 * offset-only model drifts over.
 */
static void do_check(struct job *j, struct state *st, int ti)
{
	struct result *res = &st->res[ti];
	struct st_sync_estimate e;
	double mine[4], *all = NULL, resid, rtt, t;
	double limit = CHECK_RTT_FACTOR * j->base_rtt_ns + CHECK_RTT_SLACK_NS;
	uint64_t now = st_mpi_transport_now(&j->t), end;
	struct probe pr;
	int r, rc, tries = 0, again;

	res->rtt_ns = INFINITY;
	do {
		probe_init(&pr, &j->t.tp, j->min_rtt);
		resid = 0;
		if ((rc = st_sync_check(st->s, &pr.tp, j->o.check_pp,
					&resid)))
			fail(j, "st_sync_check", rc);
		tries++;
		rtt = 0;
		for (r = 1; r < j->size; r++)
			rtt = fmax(rtt, j->min_rtt[r]);
		if (!j->rank && rtt < res->rtt_ns) {
			res->rtt_ns = rtt;
			res->residual_ns = resid;
		}
		again = agree(j, !j->rank && tries < CHECK_TRIES &&
				 rtt > limit);
	} while (again);
	st_sync_result(st->s, &e);
	end = st_mpi_transport_now(&j->t);
	t = (double)(int64_t)(end - st_sync_origin(st->s));
	mine[0] = st_sync_estimate_err_at(&e, t);
	mine[1] = e.err_ns;
	mine[2] = e.slope_err;
	mine[3] = t / 1e9;
	if (!j->rank && !(all = malloc((size_t)j->size * 4 * sizeof(*all))))
		fail(j, "gathering results", -ENOMEM);
	gather(j, mine, 4, all);
	if (j->rank)
		return;
	res->tries = tries;
	res->age_s = (double)(int64_t)(now - st->end_ns) / 1e9;
	res->took_s = (double)(int64_t)(end - now) / 1e9;
	res->epoch = e.epoch;
	res->est_err_ns = res->err_ns = res->slope_err = 0;
	res->since_sync_s = all[3];
	for (r = 1; r < j->size; r++) {
		res->est_err_ns = max_nan(res->est_err_ns, all[4 * r]);
		res->err_ns = max_nan(res->err_ns, all[4 * r + 1]);
		res->slope_err = max_nan(res->slope_err, all[4 * r + 2]);
		res->since_sync_s = fmax(res->since_sync_s, all[4 * r + 3]);
	}
	res->done = 1;
	free(all);
}

/*
 * Seconds after sync of refresh number 'k' (from 1), on the interposer's
 * schedule (pmpi/sync.c): the first 0.25 s after sync, then each after a
 * gap equal to the time since sync, at most 'period': 0.25, 0.5, 1, 2...
 */
static double refresh_at(double period, int k)
{
	double t = 0, gap;

	while (k-- > 0) {
		gap = t < 0.25 ? 0.25 : t;
		if (gap > period)
			gap = period;
		t += gap;
	}
	return t;
}

static void do_refresh(struct job *j, struct state *st)
{
	int rc = st_sync_refresh(st->s, &j->t.tp);

	if (rc)
		fail(j, "st_sync_refresh", rc);
}

/* --- the agenda ---------------------------------------------------- */

/* Events in the order they go at the same due time. */
enum { EV_CHECK, EV_REFRESH, EV_SYNC, EV_END };

struct event {
	uint64_t due_ns;	/* rank 0's clock */
	int type, state, index;
};

struct agenda {
	struct event *v;
	size_t n, alloc;
};

static int agenda_push(struct agenda *a, uint64_t due, int type, int state,
		       int index)
{
	if (a->n == a->alloc) {
		size_t n = a->alloc ? 2 * a->alloc : 64;
		struct event *v = realloc(a->v, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->alloc = n;
	}
	a->v[a->n++] = (struct event){ due, type, state, index };
	return 0;
}

static int event_before(const struct event *x, const struct event *y)
{
	if (x->due_ns != y->due_ns)
		return (int64_t)(x->due_ns - y->due_ns) < 0;
	if (x->type != y->type)
		return x->type < y->type;
	return x->state < y->state;
}

/* Take the earliest event of 'a' into '*e'; 0 if there is none. */
static int agenda_pop(struct agenda *a, struct event *e)
{
	size_t i, best = 0;

	if (!a->n)
		return 0;
	for (i = 1; i < a->n; i++)
		if (event_before(&a->v[i], &a->v[best]))
			best = i;
	*e = a->v[best];
	a->v[best] = a->v[--a->n];
	return 1;
}

static uint64_t secs_ns(double s)
{
	return (uint64_t)llround(s * 1e9);
}

/*
 * Rank 0: sleep, then spin, until its clock reads 'due'.  The clock may
 * run up to 10 % fast (a skew of +1e5 ppm), so a sleep covers only 80 %
 * of what is left, less 2 ms.
 */
static void wait_until(const struct job *j, uint64_t due)
{
	for (;;) {
		int64_t left = (int64_t)(due - st_mpi_transport_now(&j->t));
		struct timespec ts;

		if (left <= 0)
			return;
		if (left > 3000000) {
			left = left / 5 * 4 - 2000000;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			nanosleep(&ts, NULL);
		}
	}
}

/*
 * The other ranks: wait for rank 0's next event, mostly asleep, so that
 * a rank with nothing to do leaves the CPU to those that have.
 */
static void receive_event(const struct job *j, int *ev)
{
	struct timespec ts = { 0, 100000 };
	MPI_Request req;
	int done = 0;

	MPI_Ibcast(ev, 3, MPI_INT, 0, j->t.comm, &req);
	for (;;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		nanosleep(&ts, NULL);
	}
}

/* Rank 0's side: nonblocking too, as the followers' must match it. */
static void send_event(const struct job *j, int *ev)
{
	MPI_Request req;

	MPI_Ibcast(ev, 3, MPI_INT, 0, j->t.comm, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void run_event(struct job *j, const int *ev)
{
	struct state *st = &j->st[ev[1]];

	switch (ev[0]) {
	case EV_SYNC:
		do_sync(j, st);
		break;
	case EV_CHECK:
		do_check(j, st, ev[2]);
		break;
	case EV_REFRESH:
		do_refresh(j, st);
		break;
	}
}

static void follower(struct job *j)
{
	int ev[3];

	for (;;) {
		receive_event(j, ev);
		if (ev[0] == EV_END)
			return;
		run_event(j, ev);
	}
}

/*
 * Rank 0: run the agenda.  A sync adds its state's checks and first
 * refresh, and the next state's sync right away; a refresh adds the next
 * one.  Refreshes stop before the last check, which they could not help.
 */
static void leader(struct job *j)
{
	const struct opts *o = &j->o;
	double last_s = o->times_s[o->ntimes - 1];
	struct agenda a = { NULL, 0, 0 };
	struct event e;
	int ev[3], k, rc = 0;

	rc = agenda_push(&a, st_mpi_transport_now(&j->t), EV_SYNC, 0, 0);
	while (!rc && agenda_pop(&a, &e)) {
		struct state *st = &j->st[e.state];

		wait_until(j, e.due_ns);
		ev[0] = e.type;
		ev[1] = e.state;
		ev[2] = e.index;
		send_event(j, ev);
		run_event(j, ev);
		if (e.type == EV_SYNC) {
			for (k = 0; k < o->ntimes && !rc; k++)
				rc = agenda_push(&a, st->end_ns + secs_ns(
						 o->times_s[k]), EV_CHECK,
						 e.state, k);
			if (!rc && st->refresh &&
			    refresh_at(o->refresh_s, 1) < last_s)
				rc = agenda_push(&a, st->end_ns + secs_ns(
						 refresh_at(o->refresh_s, 1)),
						 EV_REFRESH, e.state, 1);
			if (!rc && e.state + 1 < j->nstates)
				rc = agenda_push(&a, st->end_ns, EV_SYNC,
						 e.state + 1, 0);
		} else if (e.type == EV_REFRESH &&
			   refresh_at(o->refresh_s, e.index + 1) < last_s) {
			rc = agenda_push(&a, st->end_ns + secs_ns(
					 refresh_at(o->refresh_s, e.index + 1)),
					 EV_REFRESH, e.state, e.index + 1);
		}
	}
	free(a.v);
	if (rc)
		fail(j, "planning", rc);
	ev[0] = EV_END;
	ev[1] = ev[2] = 0;
	send_event(j, ev);
}

/* --- output -------------------------------------------------------- */

static const char *refresh_name(const struct job *j, const struct state *st,
				char *buf, size_t len)
{
	if (!st->refresh)
		return "off";
	snprintf(buf, len, "x2 to %g s", j->o.refresh_s);
	return buf;
}

static void print_header(const struct job *j)
{
	const struct opts *o = &j->o;
	int i;

	printf("synctrace clockcheck: %d ranks on %d node%s", j->size,
	       j->nnodes, j->nnodes == 1 ? "" : "s");
	if (j->o.node)
		printf(" (node-aware: %d rank%s measure%s)", j->nnodes,
		       j->nnodes == 1 ? "" : "s", j->nnodes == 1 ? "s" : "");
	printf("; checks at t = ");
	for (i = 0; i < o->ntimes; i++)
		printf("%s%g", i ? ", " : "", o->times_s[i]);
	printf(" s after each sync\n");
	printf("clock skew injected: %s\n",
	       j->skew_spec[0] ? j->skew_spec : "none");
	if (j->yield)
		printf("note: %d ranks share %d CPU%s on rank 0's host: %s\n"
		       "  waiting ranks yield the CPU; exchanges between two "
		       "other ranks on one CPU\n"
		       "  (tree rounds of hca, hca2, skampi-tree) are less "
		       "precise\n", j->on_host, j->cpus,
		       j->cpus == 1 ? "" : "s",
		       j->pinned ? "rank 0 has a CPU to itself," : "");
	printf("running for about %g s...\n", o->times_s[o->ntimes - 1]);
	fflush(stdout);
}

/* Checked late: more than 1 ms + 0.1 % after the time asked for. */
static int late(const struct result *r, double t_s)
{
	return r->age_s - t_s > 0.001 + 0.001 * t_s;
}

/* Still disturbed after CHECK_TRIES: its round trip is off the scale. */
static int disturbed(const struct job *j, const struct result *r)
{
	return r->rtt_ns > CHECK_RTT_FACTOR * j->base_rtt_ns +
			   CHECK_RTT_SLACK_NS;
}

/* A table line being built, printed without trailing blanks. */
struct line {
	char buf[2048];
	size_t len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len = l->len + (size_t)n < sizeof(l->buf) ?
			 l->len + (size_t)n : sizeof(l->buf) - 1;
}

static void end_line(struct line *l)
{
	while (l->len && l->buf[l->len - 1] == ' ')
		l->len--;
	l->buf[l->len] = '\0';
	puts(l->buf);
	l->len = 0;
}

static void print_table(const struct job *j)
{
	const struct opts *o = &j->o;
	double rtt_lo = INFINITY, rtt_hi = 0;
	char a[32], b[32], c[32], d[32];
	int i, k, nlate = 0, nbad = 0;
	struct line l = { "", 0 };

	printf("\nresidual offset of the global clock, t seconds after each "
	       "method's sync:\n\n");
	put(&l, "%-11s %-12s %9s %9s %10s", "method", "refresh", "sync",
	    "err est", "slope err");
	for (k = 0; k < o->ntimes; k++) {
		snprintf(a, sizeof(a), "t=%g s", o->times_s[k]);
		put(&l, " %9s ", a);
	}
	end_line(&l);
	for (i = 0; i < j->nstates; i++) {
		const struct state *st = &j->st[i];

		fmt_ns(d, sizeof(d), st->sync_ms * 1e6);
		put(&l, "%-11s %-12s %9s %9s %10s",
		    st_sync_method_name(st->method),
		    refresh_name(j, st, a, sizeof(a)), d,
		    fmt_ns(b, sizeof(b), st->err_ns),
		    fmt_ppm(c, sizeof(c), st->slope_err));
		for (k = 0; k < o->ntimes; k++) {
			const struct result *r = &st->res[k];
			char mark = ' ';

			if (!r->done) {
				put(&l, " %9s ", "-");
				continue;
			}
			if (disturbed(j, r)) {
				mark = '!';
				nbad++;
			} else if (late(r, o->times_s[k])) {
				mark = '*';
				nlate++;
			}
			put(&l, " %9s%c", fmt_ns(a, sizeof(a), r->residual_ns),
			    mark);
			rtt_lo = fmin(rtt_lo, r->rtt_ns);
			rtt_hi = fmax(rtt_hi, r->rtt_ns);
		}
		end_line(&l);
	}
	put(&l, "%-11s %-12s %9s %9s %10s", "+-RTT/2", "", "", "", "");
	for (k = 0; k < o->ntimes; k++) {
		double h = 0;

		for (i = 0; i < j->nstates; i++)
			if (j->st[i].res[k].done)
				h = fmax(h, j->st[i].res[k].rtt_ns / 2);
		put(&l, " %9s ", fmt_ns(a, sizeof(a), h));
	}
	end_line(&l);
	printf("\n");
	printf("residual: max over ranks of |global clock of the rank - "
	       "global clock of rank 0|,\n"
	       "  measured by rank 0 with %d ping-pongs per rank "
	       "(st_sync_check, Alg 20: the\n"
	       "  one with the least round trip counts)\n"
	       "+-RTT/2: the residual's uncertainty, half that least round "
	       "trip (worst rank,\n"
	       "  largest per t): round trips %s to %s here, %s "
	       "undisturbed\n",
	       o->check_pp, fmt_ns(a, sizeof(a), rtt_lo),
	       fmt_ns(b, sizeof(b), rtt_hi),
	       fmt_ns(c, sizeof(c), j->base_rtt_ns));
	printf("t: seconds after the row's own sync ended, on rank 0's "
	       "clock; a refresh due at\n"
	       "  a check's time comes after the check\n"
	       "sync: duration of the synchronisation, median over ranks; "
	       "err est, slope err:\n"
	       "  the sync's own error estimates after it (st_sync_result, "
	       "worst rank)\n");
	if (nlate)
		printf("*: checked late, more than 1 ms + 0.1%% after t (the "
		       "CSV's age_s says when)\n");
	if (nbad)
		printf("!: the check's round trip stayed above %s in %d tries "
		       "(CPU taken by\n  something else?): the residual is "
		       "known only to +-RTT/2 (CSV rtt_ns)\n",
		       fmt_ns(a, sizeof(a), CHECK_RTT_FACTOR *
			      j->base_rtt_ns + CHECK_RTT_SLACK_NS),
		       CHECK_TRIES);
	if (o->csv)
		printf("CSV: %s\n", o->csv);
}

static int write_csv(const struct job *j)
{
	const struct opts *o = &j->o;
	FILE *f = fopen(o->csv, "w");
	int i, k;

	if (!f) {
		st_bench_msg("cannot create '%s': %s", o->csv,
			     strerror(errno));
		return -1;
	}
	fprintf(f, "method,refresh,refresh_s,t_s,age_s,residual_ns,rtt_ns,"
		"check_pingpongs,check_tries,ranks,nodes,node_aware,epoch,"
		"est_err_ns,err_ns,slope_err,sync_ms,took_s,since_sync_s\n");
	for (i = 0; i < j->nstates; i++) {
		const struct state *st = &j->st[i];

		for (k = 0; k < o->ntimes; k++) {
			const struct result *r = &st->res[k];

			if (!r->done)
				continue;
			fprintf(f, "%s,%s,%g,%g,%.6f,%.1f,%.1f,%d,%d,%d,%d,%d,"
				"%d,", st_sync_method_name(st->method),
				st->refresh ? "on" : "off",
				st->refresh ? o->refresh_s : 0.0,
				o->times_s[k], r->age_s, r->residual_ns,
				r->rtt_ns, o->check_pp, r->tries, j->size,
				j->nnodes, o->node, r->epoch);
			if (isnan(r->est_err_ns))
				fprintf(f, ",");
			else
				fprintf(f, "%.1f,", r->est_err_ns);
			fprintf(f, "%.1f,", r->err_ns);
			if (!isnan(r->slope_err))
				fprintf(f, "%.3g", r->slope_err);
			fprintf(f, ",%.3f,%.6f,%.6f\n", st->sync_ms, r->took_s,
				r->since_sync_s);
		}
	}
	if (fclose(f)) {
		st_bench_msg("cannot write '%s': %s", o->csv,
			     strerror(errno));
		return -1;
	}
	return 0;
}

/* --- main ---------------------------------------------------------- */

/*
 * Rows: each method, then its refresh-on twin if it has one.  Fails
 * (usage) on rank 0's say only, since every rank parses the same argv.
 */
static void make_states(struct job *j)
{
	int i;

	for (i = 0; i < j->o.nmethods; i++) {
		int m = j->o.methods[i];

		j->st[j->nstates++].method = m;
		if (j->o.refresh_s > 0 && (j->o.refresh_mask & (1u << m))) {
			j->st[j->nstates].method = m;
			j->st[j->nstates++].refresh = 1;
		}
	}
}

/* Set up the clock: skew from --skew or the environment. */
static int setup_clock(struct job *j)
{
	const char *spec = j->o.skew ? j->o.skew :
			   getenv("SYNCTRACE_CLOCK_SKEW");
	struct st_skew k = { 0, 0 };
	uint64_t base = 0;
	char err[160];
	int rc;

	if (spec && *spec) {
		if (st_skew_parse(spec, j->rank, &k, err, sizeof(err))) {
			if (!j->rank)
				st_bench_msg("%s", err);
			return -EINVAL;
		}
		snprintf(j->skew_spec, sizeof(j->skew_spec), "%s", spec);
	}
	/*
	 * The drift starts at one instant for all, rank 0's raw clock now:
	 * ranks that share a physical clock and a skew entry then share the
	 * distorted clock exactly, as ranks of a node share a real one.
	 */
	base = st_mpi_raw_ns();
	MPI_Bcast(&base, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if ((rc = st_mpi_transport_init(&j->t, MPI_COMM_WORLD, &k, base,
					j->yield)))
		fail(j, "MPI_Comm_dup", rc);
	return 0;
}

int st_bench_clockcheck(int argc, char **argv)
{
	struct job *j;
	char err[256];
	int i, status = 0, prc;

	MPI_Init(NULL, NULL);
	j = calloc(1, sizeof(*j));
	if (!j) {
		st_bench_msg("out of memory");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &j->size);
	j->t.comm = MPI_COMM_NULL;
	prc = parse_opts(&j->o, argc, argv, err, sizeof(err));
	if (prc || j->o.help) {
		if (!j->rank && prc)
			st_bench_msg("%s", err);
		if (!j->rank)
			fputs(st_bench_clockcheck_usage, prc ? stderr : stdout);
		status = prc ? ST_BENCH_EXIT_USAGE : 0;
		goto out;
	}
	if (j->size < 2) {
		if (!j->rank)
			st_bench_msg("clockcheck needs at least 2 ranks "
				     "(mpiexec -n 2 or more)");
		status = 1;
		goto out;
	}
	if ((i = find_hosts(j)) || (i = find_nodes(j)))
		fail(j, "finding hosts and nodes", i);
	if (setup_clock(j)) {
		status = 1;
		goto out;
	}
	if (j->o.node && !node_skews_agree(j)) {
		if (!j->rank)
			st_bench_msg("with --node, the ranks of a node must "
				     "have the same skew entry: they share a "
				     "clock (skew '%s')", j->skew_spec);
		status = 1;
		goto out;
	}
	make_states(j);
	if (!j->rank)
		print_header(j);
	warm_up(j);
	if (!j->rank)
		leader(j);
	else
		follower(j);
	if (!j->rank) {
		print_table(j);
		if (j->o.csv && write_csv(j))
			status = 1;
	}
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
out:
	for (i = 0; i < j->nstates; i++)
		st_sync_free(j->st[i].s);
	st_mpi_transport_release(&j->t);
	free(j->leaders);
	free(j->min_rtt);
	free(j);
	fflush(stdout);
	MPI_Finalize();
	return status;
}
