/*
 * tests/unit/fake-transport.h: N simulated ranks in one process for the
 * sync/ tests.  Each rank is a thread with its own st_transport; time is
 * simulated, so the same seed gives the same result on any machine.
 */
#ifndef ST_TESTS_FAKE_TRANSPORT_H
#define ST_TESTS_FAKE_TRANSPORT_H

#include <stdint.h>

struct fake_net;
struct st_sync;
struct st_sync_params;
struct st_transport;

/*
 * Every rank has its own true time (ns, starting at 1000 s), advanced by
 * what it does: a clock read costs 'read_ns' (times 0.5..1.5), a send or
 * receive call 'op_ns'; a receive completes at the later of the rank's
 * time and the message's arrival, which is the send time plus
 * 'latency_ns' plus an exponential delay of mean 'jitter_ns', plus, with
 * probability 'outlier_prob', up to 'outlier_ns' more (a preemption).
 * Messages between two ranks stay in order.  Since every receive names
 * its sender, the result does not depend on how threads are scheduled.
 *
 * Rank r's raw clock at true time T reads T (1 + drift_r 1e-6) +
 * offset_r plus a uniform noise in +-'read_noise_ns', rounded to ns.
 * Offsets and drifts are drawn uniformly in +-'max_offset_ns' and
 * +-'max_drift_ppm' (rank 0 too), or taken from 'offset_ns' and
 * 'drift_ppm' if not NULL; ranks with equal 'node' ids share the clock
 * (offset and drift) of the lowest of them.
 */
struct fake_net_params {
	int nranks;		/* default 8 */
	uint64_t seed;		/* default 1 */
	double max_offset_ns;	/* default 1e9 */
	double max_drift_ppm;	/* default 100 */
	double latency_ns;	/* default 500 */
	double jitter_ns;	/* default 100 */
	double outlier_prob;	/* default 0.01 */
	double outlier_ns;	/* default 20000 */
	double read_ns;		/* default 40 */
	double read_noise_ns;	/* default 2 */
	double op_ns;		/* default 100 */
	int sync_send;		/* sends wait until received; default 0 */
	const int *node;	/* NULL or a node id per rank */
	const double *offset_ns, *drift_ppm;	/* NULL or per rank */
};

void fake_net_params_init(struct fake_net_params *p);

/* A new network; NULL if out of memory or 'p' is invalid. */
struct fake_net *fake_net_new(const struct fake_net_params *p);
void fake_net_free(struct fake_net *net);

/*
 * Run 'fn' on every rank, each in its own thread, and wait for all.  If
 * every rank still alive is blocked (a deadlock), their calls return
 * -EDEADLK.  'rcs' (if not NULL) gets each rank's return value.  Returns
 * the first nonzero return value in rank order, or 0.  Ranks keep their
 * true time from one run to the next.
 */
typedef int (*fake_rank_fn)(const struct st_transport *tp, void *arg);
int fake_net_run(struct fake_net *net, fake_rank_fn fn, void *arg, int *rcs);

/* Within 'fn': let 'ns' of true time pass on this rank without reading. */
void fake_net_idle(const struct st_transport *tp, double ns);

/* Within 'fn': this rank's true time. */
double fake_net_now_true(const struct st_transport *tp);

/* The true time of 'rank' now (between runs). */
double fake_net_true(const struct fake_net *net, int rank);

/* Largest true time of any rank (between runs). */
double fake_net_true_max(const struct fake_net *net);

/* Noise-free reading of 'rank''s clock at true time 'true_ns'. */
double fake_net_clock(const struct fake_net *net, int rank, double true_ns);

/* Messages sent since the network was made. */
long fake_net_messages(const struct fake_net *net);

/*
 * Run st_sync_init() with 'params' on every rank of 'net', then
 * 'refreshes' times let 'idle_ns' of true time pass and st_sync_refresh().
 * 's' (one per rank) gets the states, NULL where a rank failed; 'rcs' (if
 * not NULL) each rank's result.  Returns as fake_net_run().
 */
int fake_sync_run(struct fake_net *net, const struct st_sync_params *params,
		  int refreshes, double idle_ns, struct st_sync **s, int *rcs);

/*
 * The exact error of 'rank''s global time at true time 'true_ns': its
 * model applied to its noise-free clock, minus rank 0's local time.
 */
double fake_sync_error(const struct fake_net *net, struct st_sync *const *s,
		       int rank, double true_ns);

/* Largest |fake_sync_error()| over all ranks. */
double fake_sync_max_error(const struct fake_net *net,
			   struct st_sync *const *s, double true_ns);

/* The true slope of 'rank''s clock against rank 0's (see sync/sync.h). */
double fake_net_true_slope(const struct fake_net *net, int rank);

/* Free the 'n' states 's'. */
void fake_sync_free(struct st_sync **s, int n);

#endif
