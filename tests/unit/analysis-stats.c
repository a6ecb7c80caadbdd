/*
 * tests/unit/analysis-stats.c: the summaries behind cost tables, against
 * values worked out by hand: order-statistic ranks of the median's
 * confidence interval (and their coverage, checked by simulation),
 * quantiles, Tukey's fences on a set with known outliers, mean and
 * standard deviation, chi-square Q against tables and closed forms,
 * Student's t and normal quantiles, the rank-sum test with its shift
 * and interval (against R's example and enumeration, and calibrated on
 * seeded samples), Benjamini-Hochberg, the resolvable difference, and
 * bad input.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tools/analysis/stats.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void expect_ci(size_t n, double level, size_t lo, size_t hi,
		      double coverage)
{
	size_t l = 99, h = 99;
	double c = -1.0;

	cr_assert_eq(st_stats_median_ci(n, level, &l, &h, &c), 0,
		     "n %zu level %g", n, level);
	cr_expect_eq(l, lo, "n %zu level %g: lo %zu, want %zu", n, level, l,
		     lo);
	cr_expect_eq(h, hi, "n %zu level %g: hi %zu, want %zu", n, level, h,
		     hi);
	cr_expect(fabs(c - coverage) < 1e-9,
		  "n %zu: coverage %.12f, want %.12f", n, c, coverage);
	cr_expect(c >= level);
}

/*
 * The interval [X_(j), X_(n+1-j)] covers the median with probability
 * 1 - 2 P(Bin(n, 1/2) <= j - 1); j is the largest with that >= level.
 *  n = 10: P(<= 1) = (1 + 10) / 1024 = 11/1024, coverage 1 - 22/1024 =
 *          0.978515625; j = 3 would give P(<= 2) = 56/1024, coverage
 *          0.890625 < 0.95.  So [2, 9].
 *  n = 20: P(<= 5) = (1 + 20 + 190 + 1140 + 4845 + 15504) / 2^20 =
 *          21700/1048576, coverage 0.958610534668; j = 7 adds 38760,
 *          coverage 0.884681701660.  So [6, 15].
 *  n = 100: P(<= 39) = 2.2310777467e28 / 2^100 = 0.0176001, coverage
 *          0.964799799782; j = 41: 0.943112066359.  So [40, 61].
 *  n = 6: only [1, 6], coverage 1 - 2/64 = 0.96875.
 *  99%: n = 8: 1 - 2/256 = 0.9921875, [1, 8]; n = 20: j = 4 gives
 *       0.997423171997, j = 5 0.988182067871 < 0.99, so [4, 17];
 *       n = 100: [37, 64] at 0.993362879484 (j = 38: 0.98797).
 */
Test(tools_stats, median_ci_exact_ranks)
{
	expect_ci(10, 0.95, 2, 9, 0.978515625);
	expect_ci(20, 0.95, 6, 15, 1.0 - 2.0 * 21700.0 / 1048576.0);
	expect_ci(100, 0.95, 40, 61, 0.9647997997822952);
	expect_ci(6, 0.95, 1, 6, 0.96875);
	expect_ci(8, 0.99, 1, 8, 0.9921875);
	expect_ci(20, 0.99, 4, 17, 0.9974231719970703);
	expect_ci(100, 0.99, 37, 64, 0.9933628794840739);
	/* lmbench's median of 11: [2nd smallest, 2nd largest]. */
	expect_ci(11, 0.95, 2, 10, 0.98828125);
	/* n = 1000, the last exact size: P(<= 468), coverage 0.95371. */
	expect_ci(1000, 0.95, 469, 532, 0.9537088026395019);
}

/*
 * Above ST_STATS_CI_EXACT_MAX: Le Boudec's ranks with z = 1.959964,
 * n = 1001, z sqrt(n) = 62.0099: floor((1001 - 62.0099) / 2) = 469 and
 * ceil(1 + (1001 + 62.0099) / 2) = 533.  Coverage from the normal
 * approximation with continuity correction: 1 - 2 Phi((468.5 - 500.5) /
 * (sqrt(1001) / 2)) = 1 - 2 Phi(-2.0228) = 0.9569.
 */
Test(tools_stats, median_ci_normal_approximation)
{
	size_t lo, hi;
	double c;

	cr_assert_eq(ST_STATS_CI_EXACT_MAX, 1000);
	cr_assert_eq(st_stats_median_ci(1001, 0.95, &lo, &hi, &c), 0);
	cr_expect_eq(lo, 469);
	cr_expect_eq(hi, 533);
	cr_expect(fabs(c - 0.9569) < 5e-4, "coverage %f", c);
	cr_assert_eq(st_stats_median_ci(1000000, 0.95, &lo, &hi, &c), 0);
	/* floor((1e6 - 1959.96) / 2) = 499020. */
	cr_expect_eq(lo, 499020);
	cr_expect_eq(hi, 1000001 - 499020);
	cr_expect(c >= 0.95 && c < 0.951, "coverage %f", c);
}

/* Too few samples for the level: unavailable, not widened or faked. */
Test(tools_stats, median_ci_unavailable_when_n_too_small)
{
	size_t lo = 7, hi = 7, n;
	double c = 7.0;

	for (n = 1; n <= 5; n++) {
		cr_expect_eq(st_stats_median_ci(n, 0.95, &lo, &hi, &c),
			     -ERANGE, "n %zu", n);
		cr_expect_eq(lo, 0);
		cr_expect_eq(hi, 0);
		cr_expect_eq(c, 0.0);
	}
	/* 99% needs n >= 8: [1, 7] covers 1 - 2/128 = 0.984. */
	cr_expect_eq(st_stats_median_ci(7, 0.99, &lo, &hi, &c), -ERANGE);
	cr_expect_eq(st_stats_median_ci(8, 0.99, &lo, &hi, &c), 0);
	cr_expect_eq(st_stats_median_ci(0, 0.95, &lo, &hi, &c), -EINVAL);
	cr_expect_eq(st_stats_median_ci(10, 1.0, &lo, &hi, &c), -EINVAL);
	cr_expect_eq(st_stats_median_ci(10, 0.0, &lo, &hi, &c), -EINVAL);
	cr_expect_eq(st_stats_median_ci(10, NAN, &lo, &hi, &c), -EINVAL);
}

/* xorshift64*: a small seeded generator, the same stream everywhere. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double rng_uniform(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

/*
 * The interval really covers the median as often as it says, whatever
 * the distribution: 4000 sets of 20 exponential samples (median ln 2),
 * expected coverage 0.9586, binomial sd 0.0031.
 */
Test(tools_stats, median_ci_coverage_by_simulation)
{
	uint64_t seed = 0x5eed5eed12345ULL;
	double x[20], c;
	size_t lo, hi;
	int rep, hit = 0, k;

	cr_assert_eq(st_stats_median_ci(20, 0.95, &lo, &hi, &c), 0);
	for (rep = 0; rep < 4000; rep++) {
		for (k = 0; k < 20; k++)
			x[k] = -log(rng_uniform(&seed));
		cr_assert_eq(st_stats_sort(x, 20), 0);
		hit += x[lo - 1] <= M_LN2 && M_LN2 <= x[hi - 1];
	}
	cr_expect(hit >= 0.947 * 4000 && hit <= 0.970 * 4000,
		  "coverage %d/4000, expected 0.9586", hit);
}

/* Type 7 quantiles of 1..10: h = 9 prob. */
Test(tools_stats, quantiles_interpolate_between_order_statistics)
{
	double x[10], q;
	int i;

	for (i = 0; i < 10; i++)
		x[i] = i + 1;
	cr_assert_eq(st_stats_quantile(x, 10, 0.25, &q), 0);
	cr_expect_float_eq(q, 3.25, 1e-12);	/* h = 2.25 */
	cr_assert_eq(st_stats_median(x, 10, &q), 0);
	cr_expect_float_eq(q, 5.5, 1e-12);
	cr_assert_eq(st_stats_quantile(x, 10, 0.75, &q), 0);
	cr_expect_float_eq(q, 7.75, 1e-12);	/* h = 6.75 */
	cr_assert_eq(st_stats_quantile(x, 10, 0.0, &q), 0);
	cr_expect_eq(q, 1.0);
	cr_assert_eq(st_stats_quantile(x, 10, 1.0, &q), 0);
	cr_expect_eq(q, 10.0);
	cr_assert_eq(st_stats_median(x, 9, &q), 0);
	cr_expect_eq(q, 5.0);
	cr_assert_eq(st_stats_median(x + 3, 1, &q), 0);
	cr_expect_eq(q, 4.0);
	cr_expect_eq(st_stats_quantile(x, 10, 1.5, &q), -EINVAL);
	cr_expect_eq(st_stats_quantile(x, 10, NAN, &q), -EINVAL);
	cr_expect_eq(st_stats_median(x, 0, &q), -EINVAL);
}

/*
 * {-50, 2, 3, ..., 9, 100}: Q1 = x[2] + 0.25 (x[3] - x[2]) = 3.25, Q3 =
 * x[6] + 0.75 (x[7] - x[6]) = 7.75, IQR 4.5, fences 3.25 - 6.75 = -3.5
 * and 7.75 + 6.75 = 14.5: -50 and 100 go, 2..9 stay.
 */
Test(tools_stats, tukey_fences_drop_known_outliers)
{
	double x[] = { 100, 5, -50, 2, 9, 3, 8, 4, 7, 6 };
	double edge[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 14.5 };
	struct st_fences f;

	cr_assert_eq(st_stats_sort(x, NELEM(x)), 0);
	cr_assert_eq(st_stats_tukey(x, NELEM(x), 1.5, &f), 0);
	cr_expect_float_eq(f.lo, -3.5, 1e-12);
	cr_expect_float_eq(f.hi, 14.5, 1e-12);
	cr_expect_eq(f.first, 1);
	cr_expect_eq(f.n_kept, 8);
	cr_expect_eq(f.n_dropped, 2);
	cr_expect_eq(x[f.first], 2.0);
	cr_expect_eq(x[f.first + f.n_kept - 1], 9.0);

	/* Q1 3.25, Q3 7.75 again: 14.5 sits on the fence and stays. */
	cr_assert_eq(st_stats_tukey(edge, NELEM(edge), 1.5, &f), 0);
	cr_expect_float_eq(f.hi, 14.5, 1e-12);
	cr_expect_eq(f.n_dropped, 0);
	/* k = 0: fences at the quartiles, 1..3 and 8..14.5 go. */
	cr_assert_eq(st_stats_tukey(edge, NELEM(edge), 0.0, &f), 0);
	cr_expect_eq(f.first, 3);
	cr_expect_eq(f.n_kept, 4);
	cr_expect_eq(st_stats_tukey(edge, NELEM(edge), -1.0, &f), -EINVAL);
	cr_expect_eq(st_stats_tukey(edge, 0, 1.5, &f), -EINVAL);
}

/* The textbook set: mean 5, sum of squares 32, sd sqrt(32/7). */
Test(tools_stats, mean_and_sd)
{
	double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 }, m, sd;
	double big[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };

	cr_assert_eq(st_stats_mean_sd(x, NELEM(x), &m, &sd), 0);
	cr_expect_float_eq(m, 5.0, 1e-12);
	cr_expect_float_eq(sd, sqrt(32.0 / 7.0), 1e-12);
	cr_assert_eq(st_stats_mean_sd(x, 1, &m, &sd), 0);
	cr_expect_eq(m, 2.0);
	cr_expect_eq(sd, 0.0);
	/* Welford keeps the digits a naive sum of squares loses. */
	cr_assert_eq(st_stats_mean_sd(big, 4, &m, &sd), 0);
	cr_expect_float_eq(m, 1e9 + 10, 1e-6);
	cr_expect_float_eq(sd, sqrt(30.0), 1e-6);
	x[3] = NAN;
	cr_expect_eq(st_stats_mean_sd(x, NELEM(x), &m, &sd), -EINVAL);
	cr_expect_eq(st_stats_mean_sd(x, 0, &m, &sd), -EINVAL);
}

/*
 * The tukey set summarised with the filter: 2..9 remain, median and
 * mean 5.5, sd sqrt(42/7) (squares 12.25 + 6.25 + 2.25 + 0.25, twice);
 * n = 8 at 95% gives ranks [1, 8] (0.9921875), so the interval is
 * [2, 9] and se = 3.5 / z(0.99609375) = 3.5 / 2.66007.
 */
Test(tools_stats, summary_with_filter_and_interval)
{
	double x[] = { 100, 5, -50, 2, 9, 3, 8, 4, 7, 6 };
	struct st_summary s;

	cr_assert_eq(st_summary_compute(&s, x, NELEM(x), 1.5, 0.95), 0);
	cr_expect_eq(s.n_in, 10);
	cr_expect_eq(s.n_dropped, 2);
	cr_expect_eq(s.n, 8);
	cr_expect_float_eq(s.fence_lo, -3.5, 1e-12);
	cr_expect_eq(s.min, 2.0);
	cr_expect_eq(s.max, 9.0);
	cr_expect_float_eq(s.median, 5.5, 1e-12);
	cr_expect_float_eq(s.q1, 3.75, 1e-12);	/* h = 1.75 in 2..9 */
	cr_expect_float_eq(s.q3, 7.25, 1e-12);
	cr_expect_float_eq(s.mean, 5.5, 1e-12);
	cr_expect_float_eq(s.sd, sqrt(6.0), 1e-12);
	cr_expect(s.ci_ok);
	cr_expect_eq(s.ci_lo_rank, 1);
	cr_expect_eq(s.ci_hi_rank, 8);
	cr_expect_eq(s.ci_lo, 2.0);
	cr_expect_eq(s.ci_hi, 9.0);
	cr_expect_float_eq(s.ci_coverage, 0.9921875, 1e-12);
	cr_expect_float_eq(s.se_median, 3.5 / 2.660067, 1e-5);
}

Test(tools_stats, summary_without_filter_or_with_too_few)
{
	double x[] = { 100, 5, -50, 2, 9, 3, 8, 4, 7, 6 };
	double few[] = { 3, 1, 2 };
	struct st_summary s;

	cr_assert_eq(st_summary_compute(&s, x, NELEM(x), 0.0, 0.95), 0);
	cr_expect_eq(s.n, 10);
	cr_expect_eq(s.n_dropped, 0);
	cr_expect(isinf(s.fence_lo) && s.fence_lo < 0);
	cr_expect_eq(s.min, -50.0);
	cr_expect_float_eq(s.median, 5.5, 1e-12);
	cr_expect_float_eq(s.mean, 9.4, 1e-12);
	/* n = 10: ranks [2, 9] of the sorted set: 2 and 9. */
	cr_expect_eq(s.ci_lo, 2.0);
	cr_expect_eq(s.ci_hi, 9.0);

	cr_assert_eq(st_summary_compute(&s, few, 3, 1.5, 0.95), 0);
	cr_expect_eq(s.median, 2.0);
	cr_expect_eq(s.ci_ok, 0);
	cr_expect_eq(s.ci_lo, 2.0);
	cr_expect_eq(s.ci_hi, 2.0);
	cr_expect_eq(s.se_median, 0.0);
	cr_assert_eq(st_summary_compute(&s, few, 3, 0.0, 0.0), 0);
	cr_expect_eq(s.ci_ok, 0);
}

Test(tools_stats, summary_rejects_bad_input)
{
	double x[] = { 1, 2, NAN, 4 }, y[] = { 1, 2, 3, 4 };
	struct st_summary s;

	cr_expect_eq(st_summary_compute(&s, x, 4, 1.5, 0.95), -EINVAL);
	x[2] = INFINITY;
	cr_expect_eq(st_summary_compute(&s, x, 4, 1.5, 0.95), -EINVAL);
	cr_expect_eq(st_summary_compute(&s, y, 0, 1.5, 0.95), -EINVAL);
	cr_expect_eq(st_summary_compute(&s, y, 4, -1.0, 0.95), -EINVAL);
	cr_expect_eq(st_summary_compute(&s, y, 4, 1.5, 1.5), -EINVAL);
	cr_expect_eq(st_summary_compute(NULL, y, 4, 1.5, 0.95), -EINVAL);
	cr_expect_eq(st_stats_sort(x, 4), -EINVAL);
	cr_expect_eq(st_stats_sort(NULL, 0), 0);
}

/*
 * Q(chi2, dof) against a chi-square table (the 5% points 3.841 for one
 * degree of freedom and 18.307 for ten) and closed forms: for dof 1,
 * Q = erfc(sqrt(chi2 / 2)); for dof 2, exp(-chi2 / 2); for even dof 2k,
 * exp(-x) sum_{i<k} x^i / i!, x = chi2 / 2.
 */
Test(tools_stats, chi2_q_against_tables)
{
	double q;

	cr_assert_eq(st_stats_chi2_q(3.84, 1, &q), 0);
	cr_expect_float_eq(q, 0.05004352124870509, 1e-10);
	cr_assert_eq(st_stats_chi2_q(18.31, 10, &q), 0);
	/* x = 9.155: exp(-x) (1 + x + x^2/2 + x^3/6 + x^4/24). */
	cr_expect_float_eq(q, 0.049954166343696704, 1e-10);
	cr_assert_eq(st_stats_chi2_q(2.0, 2, &q), 0);
	cr_expect_float_eq(q, exp(-1.0), 1e-12);
	cr_assert_eq(st_stats_chi2_q(0.0, 5, &q), 0);
	cr_expect_float_eq(q, 1.0, 1e-15);
	/* Far tail, through the continued fraction: x = 50, dof 10. */
	cr_assert_eq(st_stats_chi2_q(100.0, 10, &q), 0);
	cr_expect(fabs(q / 5.4497019829205295e-17 - 1.0) < 1e-8, "Q %g", q);
	/* chi2 = dof: just under one half for large dof. */
	cr_assert_eq(st_stats_chi2_q(1000.0, 1000, &q), 0);
	cr_expect_float_eq(q, 0.4940528538292015, 1e-9);
	cr_assert_eq(st_stats_chi2_q(1e6, 1e6, &q), 0);
	cr_expect(q > 0.49 && q < 0.5, "Q %f", q);
	cr_assert_eq(st_stats_chi2_q(30.0, 30, &q), 0);
	cr_expect(q > 0.44 && q < 0.5, "Q %f", q);

	cr_expect_eq(st_stats_chi2_q(1.0, 0, &q), -EINVAL);
	cr_expect_eq(st_stats_chi2_q(-1.0, 3, &q), -EINVAL);
	cr_expect_eq(st_stats_chi2_q(NAN, 3, &q), -EINVAL);
	cr_expect_eq(st_stats_chi2_q(1.0, INFINITY, &q), -EINVAL);
}

/* Table values: t(0.975; 1) = 12.7062, t(0.975; 10) = 2.2281,
 * t(0.995; 5) = 4.0321; z(0.975) = 1.959964. */
Test(tools_stats, t_and_normal_quantiles)
{
	double t, z, se;

	cr_assert_eq(st_stats_t_quantile(0.975, 1, &t), 0);
	cr_expect_float_eq(t, 12.7062047, 1e-6);
	cr_assert_eq(st_stats_t_quantile(0.975, 10, &t), 0);
	cr_expect_float_eq(t, 2.2281389, 1e-6);
	cr_assert_eq(st_stats_t_quantile(0.025, 10, &t), 0);
	cr_expect_float_eq(t, -2.2281389, 1e-6);
	cr_assert_eq(st_stats_t_quantile(0.995, 5, &t), 0);
	cr_expect_float_eq(t, 4.0321430, 1e-6);
	cr_assert_eq(st_stats_t_quantile(0.975, 1e7, &t), 0);
	cr_expect_float_eq(t, 1.959964, 1e-5);
	cr_assert_eq(st_stats_t_quantile(0.5, 3, &t), 0);
	cr_expect_eq(t, 0.0);
	cr_assert_eq(st_stats_normal_quantile(0.975, &z), 0);
	cr_expect_float_eq(z, 1.959963985, 1e-8);
	cr_assert_eq(st_stats_normal_quantile(0.5, &z), 0);
	cr_expect(fabs(z) < 1e-12);
	cr_assert_eq(st_stats_ci_to_se(1.959963985, 0.95, &se), 0);
	cr_expect_float_eq(se, 1.0, 1e-8);

	cr_expect_eq(st_stats_t_quantile(1.0, 3, &t), -EINVAL);
	cr_expect_eq(st_stats_t_quantile(0.9, 0, &t), -EINVAL);
	cr_expect_eq(st_stats_normal_quantile(0.0, &z), -EINVAL);
	cr_expect_eq(st_stats_ci_to_se(-1.0, 0.95, &se), -EINVAL);
}

/*
 * 1..5 against 6..10: every y above every x, U = 25, p = 2 / C(10, 5)
 * = 2/252.  The 25 differences are 1..9 with multiplicities 1, 2, 3,
 * 4, 5, 4, 3, 2, 1: median 5.  The null counts of U for 5 against 5
 * start 1, 1, 2, 3: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252,
 * so k = 3, the interval [D_(3), D_(23)] = [2, 8], coverage 1 - 8/252.
 */
Test(tools_stats, ranksum_exact_separated)
{
	double x[] = { 3, 1, 5, 2, 4 }, y[] = { 10, 6, 8, 7, 9 };
	struct st_ranksum r;

	cr_assert_eq(st_stats_ranksum(x, 5, y, 5, 0.95, &r), 0);
	cr_expect_eq(r.u, 25.0);
	cr_expect(r.exact);
	cr_expect_float_eq(r.p, 2.0 / 252.0, 1e-12);
	cr_expect_eq(r.shift, 5.0);
	cr_assert(r.ci_ok);
	cr_expect_eq(r.lo, 2.0);
	cr_expect_eq(r.hi, 8.0);
	cr_expect_float_eq(r.coverage, 1.0 - 8.0 / 252.0, 1e-12);
	/* The input is not reordered. */
	cr_expect(x[0] == 3 && y[0] == 10);

	/* Swapped: the same p, the shift and interval negated. */
	cr_assert_eq(st_stats_ranksum(y, 5, x, 5, 0.95, &r), 0);
	cr_expect_eq(r.u, 0.0);
	cr_expect_float_eq(r.p, 2.0 / 252.0, 1e-12);
	cr_expect_eq(r.shift, -5.0);
	cr_expect(r.lo == -8.0 && r.hi == -2.0, "[%g, %g]", r.lo, r.hi);
}

/*
 * R's example of wilcox.test (x: 10 values, y: 5): W = 35 for x, so
 * U = 50 - 35 = 15 for y above x; the two-sided exact p 0.25441225
 * (all 3003 splits enumerated); the Hodges-Lehmann shift is the mean
 * of the 25th and 26th of the 50 sorted differences, -0.305.
 */
Test(tools_stats, ranksum_against_r)
{
	double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73,
		       1.46 };
	double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	struct st_ranksum r;

	cr_assert_eq(st_stats_ranksum(x, 10, y, 5, 0.95, &r), 0);
	cr_expect_eq(r.u, 15.0);
	cr_expect(r.exact);
	cr_expect_float_eq(r.p, 0.2544122544122544, 1e-12);
	cr_expect_float_eq(r.shift, -0.305, 1e-12);
	cr_assert(r.ci_ok);
	cr_expect(r.lo < 0 && r.hi > 0, "[%g, %g] must hold 0", r.lo, r.hi);
}

/*
 * Ties: the normal approximation with the tie correction.  1,2,2,3
 * against 2,3,3,4: U = 13 (y above x, ties 1/2); the pooled 2 and 3
 * come three times each, sum(t^3 - t) = 48, sigma = sqrt(16/12 (9 -
 * 48/56)) = 3.2950179, z = (|13 - 8| - 0.5) / sigma = 1.3656982,
 * p = 2 (1 - Phi(z)) = 0.1720337.  All values equal: p = 1, shift 0.
 */
Test(tools_stats, ranksum_ties_normal)
{
	double x[] = { 1, 2, 2, 3 }, y[] = { 2, 3, 3, 4 }, e[] = { 7, 7, 7 };
	struct st_ranksum r;

	cr_assert_eq(st_stats_ranksum(x, 4, y, 4, 0.95, &r), 0);
	cr_expect_eq(r.u, 13.0);
	cr_expect(!r.exact);
	cr_expect_float_eq(r.p, 0.17203370892182296, 1e-9);
	cr_assert_eq(st_stats_ranksum(e, 3, e, 3, 0.95, &r), 0);
	cr_expect_eq(r.p, 1.0);
	cr_expect_eq(r.shift, 0.0);
	/* 3 against 3 cannot give a 95 % interval: min p is 0.1. */
	cr_expect(!r.ci_ok && isnan(r.lo) && isnan(r.hi));
	cr_expect_float_eq(st_stats_ranksum_min_p(3, 3), 0.1, 1e-15);
	cr_expect_float_eq(st_stats_ranksum_min_p(4, 4), 2.0 / 70.0, 1e-15);
	cr_expect_eq(st_stats_ranksum_min_p(1, 1), 1.0);
}

/* A seeded standard normal (xorshift64*, Box-Muller). */
static double rnorm(uint64_t *s)
{
	double u1, u2;

	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	u1 = ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) /
	     9007199254740992.0;
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	u2 = ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) /
	     9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * Calibration on seeded normal samples, 10 against 10: with no shift
 * the exact test rejects at 0.05 in at most about 5 % of 2000 trials
 * (its true size is 0.043; 0.06 leaves 3.5 binomial sd) and the
 * interval covers 0 as often as its coverage says; with a shift of
 * 1.5 sd it rejects in most trials, and the estimate is near 1.5.
 */
Test(tools_stats, ranksum_calibration)
{
	double x[10], y[10], est = 0;
	uint64_t s = 42;
	int t, i, rej = 0, cover = 0, rej1 = 0;
	struct st_ranksum r;

	for (t = 0; t < 2000; t++) {
		for (i = 0; i < 10; i++) {
			x[i] = rnorm(&s);
			y[i] = rnorm(&s);
		}
		cr_assert_eq(st_stats_ranksum(x, 10, y, 10, 0.95, &r), 0);
		rej += r.p <= 0.05;
		cover += r.lo <= 0 && r.hi >= 0;
		for (i = 0; i < 10; i++)
			y[i] += 1.5;
		cr_assert_eq(st_stats_ranksum(x, 10, y, 10, 0.95, &r), 0);
		rej1 += r.p <= 0.05;
		est += r.shift;
		/* The interval excludes 0 exactly when the test rejects
		 * at 1 - coverage. */
		cr_assert_eq(r.lo > 0 || r.hi < 0, r.p <= 1 - r.coverage,
			     "p %g coverage %g [%g, %g]", r.p, r.coverage,
			     r.lo, r.hi);
	}
	cr_expect(rej <= 120, "%d of 2000 rejected with no shift", rej);
	cr_expect(cover >= 1880, "%d of 2000 intervals covered 0", cover);
	cr_expect(rej1 >= 1400, "%d of 2000 found a 1.5 sd shift", rej1);
	cr_expect(fabs(est / 2000 - 1.5) < 0.05, "mean estimate %g",
		  est / 2000);
}

/* Beyond the exact sizes: 60 against 60, shifted by 10 of 60 ranks. */
Test(tools_stats, ranksum_large_normal)
{
	double x[60], y[60];
	struct st_ranksum r;
	int i;

	for (i = 0; i < 60; i++) {
		x[i] = i;
		y[i] = i + 10.5;
	}
	cr_assert_eq(st_stats_ranksum(x, 60, y, 60, 0.95, &r), 0);
	cr_expect(!r.exact);
	cr_expect_eq(r.shift, 10.5);
	cr_expect(r.ci_ok && r.lo <= 10.5 && r.hi >= 10.5);
	/* y_j above x_i for i <= j + 10: sum over j of min(60, j + 11)
	 * = 1715 + 660 = 2375; sigma = sqrt(3600 * 121 / 12). */
	cr_expect_eq(r.u, 2375.0);
	cr_expect_float_eq(r.p, erfc((2375.0 - 1800 - 0.5) /
				     sqrt(3600.0 * 121 / 12) / M_SQRT2),
			   1e-9);
}

Test(tools_stats, ranksum_bad_input)
{
	double x[] = { 1, 2 }, y[] = { 3, NAN };
	struct st_ranksum r;

	cr_expect_eq(st_stats_ranksum(x, 0, x, 2, 0.95, &r), -EINVAL);
	cr_expect_eq(st_stats_ranksum(x, 2, y, 2, 0.95, &r), -EINVAL);
	cr_expect_eq(st_stats_ranksum(x, 2, x, 2, 1.0, &r), -EINVAL);
	cr_expect_eq(st_stats_ranksum(NULL, 2, x, 2, 0.95, &r), -EINVAL);
}

/*
 * Benjamini-Hochberg by hand: p .01 .04 .03 .005 sorted .005 .01 .03
 * .04, times 4/rank: .02 .02 .04 .04, then the running minimum from the
 * top changes nothing.  NaN stays NaN and does not count in n.
 */
Test(tools_stats, bh_by_hand)
{
	double p[] = { 0.01, 0.04, 0.03, NAN, 0.005 }, q[5];
	double one[] = { 0.5, 0.9, 0.7 };

	cr_assert_eq(st_stats_bh(p, 5, q), 0);
	cr_expect_float_eq(q[0], 0.02, 1e-15);
	cr_expect_float_eq(q[1], 0.04, 1e-15);
	cr_expect_float_eq(q[2], 0.04, 1e-15);
	cr_expect(isnan(q[3]));
	cr_expect_float_eq(q[4], 0.02, 1e-15);
	/* In place; the running minimum: 0.9*3/3, 0.7*3/2 > .9, .5*3 */
	cr_assert_eq(st_stats_bh(one, 3, one), 0);
	cr_expect_float_eq(one[0], 0.9, 1e-15);
	cr_expect_float_eq(one[1], 0.9, 1e-15);
	cr_expect_float_eq(one[2], 0.9, 1e-15);
	p[0] = 1.5;
	cr_expect_eq(st_stats_bh(p, 5, q), -EINVAL);
	cr_expect_eq(st_stats_bh(p, 0, q), 0);
}

/*
 * n = 10, sd 0.02: dof 18, t(0.975) = 2.100922, t(0.8) = 0.862049;
 * exp(2.962971 * 0.02 * sqrt(0.2)) - 1 = 0.026856.  3 launches a side
 * can never show a difference at 0.05.
 */
Test(tools_stats, resolvable)
{
	double v;

	cr_assert_eq(st_stats_resolvable(0.02, 10, 0.05, 0.8, &v), 0);
	cr_expect_float_eq(v, expm1(2.962971 * 0.02 * sqrt(0.2)), 1e-6);
	cr_assert_eq(st_stats_resolvable(0.0, 10, 0.05, 0.8, &v), 0);
	cr_expect_eq(v, 0.0);
	cr_assert_eq(st_stats_resolvable(0.02, 3, 0.05, 0.8, &v), 0);
	cr_expect(isinf(v));
	cr_expect_eq(st_stats_resolvable(0.02, 1, 0.05, 0.8, &v), -EINVAL);
	cr_expect_eq(st_stats_resolvable(-1, 5, 0.05, 0.8, &v), -EINVAL);
	cr_expect_eq(st_stats_resolvable(0.1, 5, 0.05, 1.0, &v), -EINVAL);
}
