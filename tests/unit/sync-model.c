/*
 * tests/unit/sync-model.c: the clock model algebra and the line fit.
 * Merging with the identity changes nothing, merging is associative, a
 * chain of three synthetic clocks composes to the direct model, inverting
 * undoes applying, and the fit recovers an exact line, leaving out points
 * whose round trip says they were delayed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sync/internal.h"
#include "sync/sync.h"

static const struct st_clock_model models[] = {
	{ 0.0, 0.0 },
	{ 1e-4, 1e9 },
	{ -1e-4, -1e9 },
	{ 3.7e-5, -12345.678 },
	{ -8.25e-6, 987654321.5 },
	{ 2e-7, 0.25 },
};
#define NMODELS (sizeof(models) / sizeof(models[0]))

Test(sync_model, merge_with_identity_is_identity)
{
	struct st_clock_model id = st_clock_model_identity(), m;
	size_t i;

	cr_assert_eq(id.slope, 0.0);
	cr_assert_eq(id.intercept, 0.0);
	for (i = 0; i < NMODELS; i++) {
		m = st_clock_model_merge(id, models[i]);
		cr_expect_eq(m.slope, models[i].slope);
		cr_expect_eq(m.intercept, models[i].intercept);
		m = st_clock_model_merge(models[i], id);
		cr_expect_eq(m.slope, models[i].slope);
		cr_expect_eq(m.intercept, models[i].intercept);
		cr_expect_eq(st_clock_model_apply(id, 1234.5), 1234.5);
	}
}

Test(sync_model, merge_is_associative)
{
	size_t a, b, c;

	for (a = 0; a < NMODELS; a++)
		for (b = 0; b < NMODELS; b++)
			for (c = 0; c < NMODELS; c++) {
				struct st_clock_model l, r;
				double t;

				l = st_clock_model_merge(
					st_clock_model_merge(models[a],
							     models[b]),
					models[c]);
				r = st_clock_model_merge(models[a],
					st_clock_model_merge(models[b],
							     models[c]));
				cr_expect_leq(fabs(l.slope - r.slope), 1e-18);
				cr_expect_leq(fabs(l.intercept - r.intercept),
					      1e-6);
				for (t = -1e12; t <= 1e13; t += 5.5e11)
					cr_expect_leq(fabs(
						st_clock_model_apply(l, t) -
						st_clock_model_apply(r, t)),
						1e-3);
			}
}

/*
 * The model of synthetic clock 'k' against clock 'j', each reading
 * (1 + eps) T + off, local times counted from 'org' (raw): exact, from
 * the definition d(t_k) = t_k - t_j at the same true time T.
 */
struct clk {
	double eps, off, org;
};

static double local(const struct clk *c, double T)
{
	return (1.0 + c->eps) * T + c->off - c->org;
}

static struct st_clock_model direct(const struct clk *k, const struct clk *j)
{
	struct st_clock_model m;
	double T1 = 1e12, T2 = 2e12, x1, x2, d1, d2;

	x1 = local(k, T1);
	x2 = local(k, T2);
	d1 = x1 - local(j, T1);
	d2 = x2 - local(j, T2);
	m.slope = (d2 - d1) / (x2 - x1);
	m.intercept = d1 - m.slope * x1;
	return m;
}

Test(sync_model, chain_of_three_clocks_gives_direct_model)
{
	struct clk root = { 3e-5, 4e8, 1.0004e12 };
	struct clk mid = { -7e-5, -9e8, 0.9991e12 };
	struct clk leaf = { 9.5e-5, 6e8, 1.00065e12 };
	struct st_clock_model m10, m21, m20, chained;
	double T;

	m10 = direct(&mid, &root);
	m21 = direct(&leaf, &mid);
	m20 = direct(&leaf, &root);
	chained = st_clock_model_merge(m10, m21);
	cr_expect_leq(fabs(chained.slope - m20.slope), 1e-15);
	cr_expect_leq(fabs(m20.slope - (1 - (1 + root.eps) / (1 + leaf.eps))),
		      1e-15);
	for (T = 1e12; T < 1.1e12; T += 7.3e9) {
		double g = local(&root, T);

		/* Normalised client time is the reference time. */
		cr_expect_leq(fabs(st_clock_model_apply(m20,
				local(&leaf, T)) - g), 1e-3);
		cr_expect_leq(fabs(st_clock_model_apply(chained,
				local(&leaf, T)) - g), 1e-3);
		cr_expect_leq(fabs(st_clock_model_apply(m10,
				local(&mid, T)) - g), 1e-3);
	}
}

Test(sync_model, invert_undoes_apply)
{
	struct st_clock_model inv, bad = { 1.0, 5.0 };
	size_t i;
	double t;

	for (i = 0; i < NMODELS; i++) {
		cr_assert_eq(st_clock_model_invert(models[i], &inv), 0);
		for (t = -1e12; t <= 1e13; t += 1.1e12) {
			double g = st_clock_model_apply(models[i], t);

			cr_expect_leq(fabs(st_clock_model_apply(inv, g) - t),
				      1e-3, "model %zu t %g", i, t);
		}
	}
	inv = models[1];
	cr_expect_eq(st_clock_model_invert(bad, &inv), -EINVAL);
	cr_expect_eq(inv.slope, models[1].slope);
	bad.slope = NAN;
	cr_expect_eq(st_clock_model_invert(bad, &inv), -EINVAL);
}

/*
 * A point 15 times slower than the others weighs (1400/21400)^2 = 0.004
 * of one of them: its 10 us error moves the line about 1 ns where an
 * unweighted fit would move it 10000/41 = 244 ns.  On otherwise exact
 * data it is the only residual, so the slope's standard error (1.4e-6
 * here) overstates the slope's actual error (4e-9): conservative.
 */
Test(sync_model, fit_recovers_line_and_weighs_down_slow_points)
{
	struct st_sync_sample v[41];
	struct st_fit f;
	int i;

	for (i = 0; i < 40; i++) {
		v[i].t_ns = 1e6 * i + 5e12;
		v[i].offset_ns = -3.25e-5 * v[i].t_ns + 7.5e8;
		v[i].rtt_ns = 1400 + (i % 3) * 10;
		v[i].epoch = 0;
	}
	/* Delayed one way: its offset is off by half its extra round trip. */
	v[40] = v[20];
	v[40].rtt_ns = 21400;
	v[40].offset_ns += 10000;
	cr_assert_eq(st_fit_samples(v, 41, v[39].t_ns, &f), 0);
	cr_expect_eq(f.n, 41);
	cr_expect_leq(fabs(f.m.slope + 3.25e-5), 1e-8);
	cr_expect_leq(fabs(st_clock_model_apply(f.m, v[39].t_ns) -
			   (v[39].t_ns - v[39].offset_ns)), 2.0);
	cr_expect(f.slope_se >= fabs(f.m.slope + 3.25e-5) && f.slope_se < 2e-6);
	cr_expect_eq(f.span_ns, 39e6);
	cr_expect_eq(f.min_rtt, 1400);
	cr_expect_eq(st_fit_samples(v, 0, 0, &f), -EINVAL);

	/* One point: slope 0 through it, errors unknown. */
	cr_assert_eq(st_fit_samples(v, 1, 0, &f), 0);
	cr_expect_eq(f.m.slope, 0);
	cr_expect_eq(f.m.intercept, v[0].offset_ns);
	cr_expect(isnan(f.slope_se));
}

Test(sync_model, method_names_round_trip)
{
	int m;

	for (m = 0; m < ST_SYNC_NMETHODS; m++)
		cr_expect_eq(st_sync_method_parse(st_sync_method_name(m)), m);
	cr_expect_str_eq(st_sync_method_name(ST_SYNC_HCA2), "hca2");
	cr_expect_str_eq(st_sync_method_name(-1), "?");
	cr_expect_eq(st_sync_method_parse("ntp"), -EINVAL);
	cr_expect_eq(st_sync_method_parse(NULL), -EINVAL);
}

Test(sync_model, estimate_error_grows_away_from_anchor)
{
	struct st_sync_estimate e;

	memset(&e, 0, sizeof(e));
	e.anchor_ns = 1e9;
	e.err_ns = 50;
	e.slope_err = 1e-8;
	cr_expect_eq(st_sync_estimate_err_at(&e, 1e9), 50);
	cr_expect_leq(fabs(st_sync_estimate_err_at(&e, 11e9) - 150), 1e-9);
	cr_expect_leq(fabs(st_sync_estimate_err_at(&e, 0) - 60), 1e-9);
}

/*
 * Samples of the line 2e-5 t + 300 whose offsets are off by up to half
 * their round trip, the worst way (alternately +- all of it): the bounds
 * hold the true slope and are no wider than the round trips over the
 * span allow; added in two parts they equal the bounds of all at once;
 * a sample outside every line empties them.
 */
Test(sync_model, slope_bounds_hold_the_truth_and_are_tight)
{
	struct st_sync_sample v[40];
	double lo = -INFINITY, hi = INFINITY, lo2 = -INFINITY, hi2 = INFINITY;
	double a = 2e-5;
	int i;

	memset(v, 0, sizeof(v));
	for (i = 0; i < 40; i++) {
		v[i].t_ns = 1e6 * i;
		v[i].rtt_ns = 1000 + 100 * (i % 3);
		v[i].offset_ns = a * v[i].t_ns + 300 +
				 (i % 2 ? 1 : -1) * v[i].rtt_ns / 2;
	}
	st_slope_bounds(v, 0, 1, &lo, &hi);
	cr_expect(isinf(lo) && isinf(hi));
	st_slope_bounds(v, 1, 40, &lo, &hi);
	cr_log_info("slope bounds %.4e .. %.4e, truth %.4e", lo, hi, a);
	cr_expect_leq(lo, a);
	cr_expect_geq(hi, a);
	/* Half width about (h_first + h_last) / span: 1200 ns / 39 ms. */
	cr_expect_leq(hi - lo, 2 * (1200 + 10) / 39e6);
	st_slope_bounds(v, 0, 40, &lo2, &hi2);
	cr_expect_eq(lo, lo2);
	cr_expect_eq(hi, hi2);
	/* One offset in the middle 5 us off: no line fits. */
	v[20].offset_ns += 5000;
	lo = -INFINITY;
	hi = INFINITY;
	st_slope_bounds(v, 0, 40, &lo, &hi);
	cr_expect_gt(lo, hi);
}
