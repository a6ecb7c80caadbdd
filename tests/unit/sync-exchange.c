/*
 * tests/unit/sync-exchange.c: the ping-pong exchanges between two
 * simulated ranks.  A SKaMPI offset lies within the interval its
 * ping-pongs bound, and a cached round trip cuts a later exchange short;
 * a min-RTT fit point is off by at most half its round trip; the RTT
 * estimate drops preemption outliers that would double a plain mean; and
 * the exchanges survive synchronous sends.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sync/internal.h"
#include "sync/sync.h"
#include "sync/transport.h"
#include "tests/unit/fake-transport.h"

/* Two ranks, clock 1 ahead by 0.3 s and 80 ppm faster than clock 0. */
static const double offsets[2] = { -2e8, 1e8 };
static const double drifts[2] = { -30, 50 };

static struct fake_net *pair_net(int sync_send)
{
	struct fake_net_params p;
	struct fake_net *net;

	fake_net_params_init(&p);
	p.nranks = 2;
	p.seed = 7;
	p.offset_ns = offsets;
	p.drift_ppm = drifts;
	p.sync_send = sync_send;
	net = fake_net_new(&p);
	cr_assert(net);
	return net;
}

/* Exact offset rank 1 minus rank 0 (local times) at rank 1's local t. */
static double true_offset(struct fake_net *net, uint64_t org1, uint64_t org0,
			  double t1)
{
	/* Invert rank 1's clock to true time, then read rank 0's. */
	double c1 = t1 + (double)org1;
	double T = (c1 - offsets[1]) / (1.0 + drifts[1] * 1e-6);

	return t1 - (fake_net_clock(net, 0, T) - (double)org0);
}

struct pp {
	uint64_t org[2];
	struct st_sync_sample x[4];
	double half[4];
	double cache;
	long msgs[4];
	struct fake_net *net;
	int npp;
};

static int skampi_rank(const struct st_transport *tp, void *arg)
{
	struct pp *pp = arg;
	double window;
	int k, rc;

	pp->org[tp->rank] = tp->now_ns(tp->ctx);
	for (k = 0; k < pp->npp; k++) {
		if (tp->rank == 0)
			rc = st_x_skampi_ref(tp, 1, pp->org[0], 40, 8,
					     &pp->cache);
		else
			rc = st_x_skampi_client(tp, 0, pp->org[1], 0.0,
						&pp->x[k], &pp->half[k],
						&window);
		if (rc)
			return rc;
		if (tp->rank == 0)
			pp->msgs[k] = fake_net_messages(pp->net);
	}
	return 0;
}

Test(sync_exchange, skampi_offset_lies_within_its_bounds)
{
	struct fake_net *net = pair_net(0);
	struct pp pp;
	int k;

	memset(&pp, 0, sizeof(pp));
	pp.net = net;
	pp.npp = 3;
	cr_assert_eq(fake_net_run(net, skampi_rank, &pp, NULL), 0);
	for (k = 0; k < pp.npp; k++) {
		double truth = true_offset(net, pp.org[1], pp.org[0],
					   pp.x[k].t_ns);
		double err = pp.x[k].offset_ns - truth;

		cr_log_info("skampi %d: error %.1f ns, half-width %.1f ns, "
			    "rtt %.0f ns", k, err, pp.half[k], pp.x[k].rtt_ns);
		/* Drift over the exchange and read noise add a few ns. */
		cr_expect_leq(fabs(err), pp.half[k] + 10.0);
		cr_expect_leq(pp.half[k], pp.x[k].rtt_ns / 2.0 + 10.0);
		cr_expect_gt(pp.x[k].rtt_ns, 1000.0);
	}
	cr_expect_gt(pp.cache, 1000.0);
	/*
	 * N ping-pongs take 2N + 1 messages.  The first exchange had no
	 * cached round trip: all 40.  Later ones stop once within 110% of
	 * it, after at least 8.
	 */
	cr_expect_eq(pp.msgs[0], 2 * 40 + 1);
	cr_expect_lt(pp.msgs[1] - pp.msgs[0], 2 * 40 + 1);
	cr_expect_geq(pp.msgs[1] - pp.msgs[0], 2 * 8 + 1);
	fake_net_free(net);
}

struct mp {
	uint64_t org[2];
	struct st_sync_sample x[16];
	int sync_send;
};

static int minrtt_rank(const struct st_transport *tp, void *arg)
{
	struct mp *mp = arg;
	int k, rc;

	mp->org[tp->rank] = tp->now_ns(tp->ctx);
	for (k = 0; k < 16; k++) {
		if (tp->rank == 0)
			rc = st_x_serve(tp, 1, mp->org[0], 4);
		else
			rc = st_x_minrtt_point(tp, 0, mp->org[1], 4, &mp->x[k]);
		if (rc)
			return rc;
	}
	return 0;
}

Test(sync_exchange, minrtt_point_is_off_by_at_most_half_its_round_trip)
{
	struct fake_net *net = pair_net(1);
	struct mp mp;
	int k;

	memset(&mp, 0, sizeof(mp));
	cr_assert_eq(fake_net_run(net, minrtt_rank, &mp, NULL), 0);
	for (k = 0; k < 16; k++) {
		double truth = true_offset(net, mp.org[1], mp.org[0],
					   mp.x[k].t_ns);

		cr_expect_leq(fabs(mp.x[k].offset_ns - truth),
			      mp.x[k].rtt_ns / 2.0 + 5.0);
		cr_expect_lt(mp.x[k].rtt_ns, 5000.0);
		if (k)
			cr_expect_gt(mp.x[k].t_ns, mp.x[k - 1].t_ns);
	}
	fake_net_free(net);
}

struct rt {
	double rtt[2];
	int n;
};

static int rtt_rank(const struct st_transport *tp, void *arg)
{
	struct rt *rt = arg;

	return st_sync_rtt(tp, 1 - tp->rank, rt->n, &rt->rtt[tp->rank]);
}

static double rtt_with_outliers(double prob, double *other)
{
	struct fake_net_params p;
	struct fake_net *net;
	struct rt rt;

	fake_net_params_init(&p);
	p.nranks = 2;
	p.outlier_prob = prob;
	p.outlier_ns = 50000;
	net = fake_net_new(&p);
	cr_assert(net);
	memset(&rt, 0, sizeof(rt));
	rt.n = 1000;
	cr_assert_eq(fake_net_run(net, rtt_rank, &rt, NULL), 0);
	fake_net_free(net);
	*other = rt.rtt[1];
	return rt.rtt[0];
}

Test(sync_exchange, rtt_estimate_drops_outliers)
{
	double clean, noisy, other;

	clean = rtt_with_outliers(0.0, &other);
	cr_expect_eq(other, clean, "both ranks get the same estimate");
	/*
	 * 5% of messages delayed by up to 50 us (mean 25 us) would add
	 * about 2.5 us to a plain mean of the round trip (~1.7 us).
	 */
	noisy = rtt_with_outliers(0.05, &other);
	cr_expect_eq(other, noisy);
	cr_log_info("rtt: %.1f ns clean, %.1f ns with outliers", clean, noisy);
	cr_expect_gt(clean, 1000.0);
	cr_expect_lt(clean, 3000.0);
	cr_expect_leq(fabs(noisy - clean), 0.1 * clean);
}

Test(sync_exchange, rtt_rejects_bad_arguments)
{
	struct st_transport tp;
	double r;

	memset(&tp, 0, sizeof(tp));
	tp.rank = 0;
	tp.size = 2;
	cr_expect_eq(st_sync_rtt(&tp, 0, 10, &r), -EINVAL);
	cr_expect_eq(st_sync_rtt(&tp, 2, 10, &r), -EINVAL);
	cr_expect_eq(st_sync_rtt(&tp, 1, 0, &r), -EINVAL);
	cr_expect_eq(st_sync_rtt(NULL, 1, 10, &r), -EINVAL);
}
