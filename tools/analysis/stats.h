/*
 * tools/stats.h: robust summaries of measured durations, and the few
 * distribution functions the cost-table fit needs.
 *
 * Timings are skewed to the right and rarely normal, so the
 * representative value is the median and its uncertainty a
 * nonparametric confidence interval: the interval between two order
 * statistics X_(j) <= median <= X_(n-j+1), whose coverage
 * 1 - 2 P(Bin(n, 1/2) <= j - 1) is known exactly whatever the
 * distribution.  Quartiles, Tukey's fences (outliers are kept unless the
 * caller asks, and the number dropped is always reported), mean and
 * standard deviation complete a summary.
 *
 * Every function returns 0 or a negative errno (-EINVAL for a NaN or
 * infinite value, an empty set or a parameter out of range) and never
 * prints.  Sample values are doubles in any unit (the tools use ns).
 */
#ifndef ST_TOOLS_ANALYSIS_STATS_H
#define ST_TOOLS_ANALYSIS_STATS_H

#include <stddef.h>

/*
 * Largest n for which st_stats_median_ci() computes the ranks from the
 * exact binomial distribution; above it, the normal approximation of
 * Le Boudec: ranks floor((n - z sqrt(n)) / 2) and
 * ceil(1 + (n + z sqrt(n)) / 2).  The two agree at this size.
 */
#define ST_STATS_CI_EXACT_MAX 1000

/*
 * Sort 'x' (n values) in ascending order, in place.  -EINVAL when a
 * value is NaN or infinite (the order of 'x' is then unspecified).
 * n == 0 is allowed.  The functions below that take 'sorted' expect
 * the output of this function.
 */
int st_stats_sort(double *x, size_t n);

/*
 * Quantile 'prob' (0 <= prob <= 1) of the n >= 1 ascending values
 * 'sorted', by linear interpolation between order statistics (Hyndman
 * and Fan's type 7, the default of R and NumPy): with h = (n - 1) prob,
 * x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]), 0-based.
 * The median is prob = 0.5 (the mean of the two middle values for an
 * even n), the quartiles 0.25 and 0.75.
 */
int st_stats_quantile(const double *sorted, size_t n, double prob,
		      double *out);

/* The median of the n >= 1 ascending values 'sorted'. */
int st_stats_median(const double *sorted, size_t n, double *out);

/*
 * Arithmetic mean and sample standard deviation (n - 1 denominator, 0
 * when n == 1) of the n >= 1 values 'x', in any order (Welford).
 */
int st_stats_mean_sd(const double *x, size_t n, double *mean, double *sd);

/*
 * Order statistics bounding a 'level' (0 < level < 1, e.g. 0.95)
 * confidence interval of the median of n samples.  On success '*lo' and
 * '*hi' are 1-based ranks (the interval is [sorted[*lo - 1],
 * sorted[*hi - 1]]), symmetric (*hi = n + 1 - *lo), and '*coverage'
 * (may be NULL) is the interval's actual coverage probability, at least
 * 'level' (exact for n <= ST_STATS_CI_EXACT_MAX, from the normal
 * approximation above).  For n <= ST_STATS_CI_EXACT_MAX the ranks are
 * the narrowest with exact coverage >= level: the largest j with
 * 1 - 2 P(Bin(n, 1/2) <= j - 1) >= level.
 *
 * Returns -ERANGE when even [min, max] covers less than 'level' (n < 6
 * at 95%, n < 8 at 99%): the interval is unavailable, and '*lo', '*hi'
 * and '*coverage' are set to 0.  -EINVAL for n == 0 or a bad level.
 */
int st_stats_median_ci(size_t n, double level, size_t *lo, size_t *hi,
		       double *coverage);

/* What st_stats_tukey() found. */
struct st_fences {
	double lo, hi;		/* fences: Q1 - k IQR and Q3 + k IQR */
	size_t first;		/* index in 'sorted' of the first kept value */
	size_t n_kept;		/* kept values: sorted[first .. first+n_kept) */
	size_t n_dropped;	/* n - n_kept: values outside the fences */
};

/*
 * Tukey's fences with constant 'k' (1.5 usually; larger is more
 * conservative) on the n >= 1 ascending values 'sorted', quartiles as
 * st_stats_quantile().  A value equal to a fence is kept.  Since the
 * input is sorted the kept values are a contiguous slice, described in
 * '*f'; nothing is copied.  -EINVAL for k < 0 or not finite.
 */
int st_stats_tukey(const double *sorted, size_t n, double k,
		   struct st_fences *f);

/* A summary of one group of samples (st_summary_compute). */
struct st_summary {
	size_t n_in;		/* samples given */
	size_t n_dropped;	/* removed by Tukey's fences (0: no filter) */
	size_t n;		/* samples summarised: n_in - n_dropped */
	double fence_lo, fence_hi; /* the fences; -inf, +inf: no filter */
	double min, q1, median, q3, max;
	double mean, sd;	/* sd: n - 1 denominator, 0 when n == 1 */
	/*
	 * Confidence interval of the median at level 'ci_level'.  When
	 * 'ci_ok' is 0 (level 0 asked, or n too small for the level) the
	 * interval is unavailable: ci_lo == ci_hi == median, the ranks
	 * and coverage are 0 and se_median is 0.
	 */
	double ci_level;
	int ci_ok;
	double ci_lo, ci_hi;
	size_t ci_lo_rank, ci_hi_rank;	/* 1-based, among the n kept */
	double ci_coverage;	/* actual coverage, >= ci_level */
	/*
	 * Standard error of the median derived from the interval, for a
	 * weighted fit: (ci_hi - ci_lo) / (2 z), z the normal quantile
	 * of the actual coverage, (1 + ci_coverage) / 2.  It is 0 when
	 * the values around the median are all equal (durations are
	 * whole nanoseconds): floor it at the clock resolution before
	 * giving it to st_fit_run().
	 */
	double se_median;
};

/*
 * Summarise the n >= 1 samples 'x', which are sorted in place (the
 * caller's buffer is reordered, nothing is allocated).  If 'tukey_k' >
 * 0 values outside Tukey's fences with that constant are dropped first
 * and everything else describes the kept values; 0 keeps every value.
 * 'ci_level' (0 < ci_level < 1, or 0 for none) is the level of the
 * median's confidence interval.  -EINVAL for NaN or infinite samples,
 * n == 0, or a bad 'tukey_k' or 'ci_level'; an interval unavailable
 * because n is too small is not an error (ci_ok == 0).
 */
int st_summary_compute(struct st_summary *s, double *x, size_t n,
		       double tukey_k, double ci_level);

/*
 * Goodness of fit: '*q' = Q(dof/2, chi2/2), the regularised upper
 * incomplete gamma function, i.e. the probability that a chi-square
 * variable with 'dof' degrees of freedom is at least 'chi2'.  Q near 0
 * says the model or the error bars are wrong; Q near 1 that the errors
 * were overestimated.  -EINVAL for dof <= 0, chi2 < 0 or not finite.
 */
int st_stats_chi2_q(double chi2, double dof, double *q);

/* '*z' with P(Z <= z) = prob for a standard normal Z, 0 < prob < 1. */
int st_stats_normal_quantile(double prob, double *z);

/*
 * '*t' with P(T <= t) = prob for Student's t with 'dof' > 0 degrees of
 * freedom, 0 < prob < 1 (e.g. prob 0.975, dof 10: 2.228).
 */
int st_stats_t_quantile(double prob, double dof, double *t);

/*
 * Standard error of an estimate from a symmetric confidence interval of
 * half-width 'half' (>= 0) whose coverage is 'coverage' (0 < c < 1),
 * assuming normal errors: half / z((1 + coverage) / 2).
 */
int st_stats_ci_to_se(double half, double coverage, double *se);

/*
 * Largest sample sizes for which st_stats_ranksum() uses the exact null
 * distribution of the rank-sum statistic (no ties, m and n both at most
 * this); above it, or with ties, the normal approximation.
 */
#define ST_STATS_RANKSUM_EXACT_MAX 50

/* What st_stats_ranksum() found. */
struct st_ranksum {
	double u;		/* pairs (x_i, y_j) with y_j > x_i, a tie
				   counting 1/2; mn/2 expected under H0 */
	double p;		/* two-sided p-value of H0: same location */
	int exact;		/* 1: p from the exact null distribution */
	double shift;		/* Hodges-Lehmann estimate of the shift of
				   y against x: the median of y_j - x_i */
	/*
	 * Moses's confidence interval of the shift: order statistics
	 * D_(k) and D_(mn+1-k) of the mn differences y_j - x_i, k the
	 * largest with P(U <= k - 1) <= (1 - level) / 2 under H0 (exact
	 * for m, n <= ST_STATS_RANKSUM_EXACT_MAX, else from the normal
	 * approximation).  It excludes 0 exactly when the exact test
	 * rejects at 1 - coverage.  'ci_ok' 0 (lo = hi = NaN, coverage 0):
	 * too few samples for the level (3 against 3 at 95 %).
	 */
	int ci_ok;
	double lo, hi;
	double coverage;	/* actual coverage, >= level (exact case) */
};

/*
 * The Wilcoxon-Mann-Whitney rank-sum test of the m values 'x' against
 * the n values 'y' (any order; neither array is changed), with the
 * Hodges-Lehmann shift and its confidence interval at 'level'
 * (0 < level < 1).  Nonparametric: no assumption on the distribution
 * beyond the two samples being independent, each of independent
 * values.  p is exact when there are no ties and m, n <=
 * ST_STATS_RANKSUM_EXACT_MAX, otherwise from the normal approximation
 * with tie correction and continuity correction.  Returns 0; -EINVAL
 * for m or n 0, a value not finite, or a bad level; -ENOMEM.
 */
int st_stats_ranksum(const double *x, size_t m, const double *y, size_t n,
		     double level, struct st_ranksum *r);

/*
 * The smallest two-sided p-value the exact rank-sum test can give for
 * samples of m and n values: 2 / C(m + n, m), at most 1.  Below 'alpha'
 * or the test can never reject: 3 against 3 gives 0.1.
 */
double st_stats_ranksum_min_p(size_t m, size_t n);

/*
 * Benjamini-Hochberg adjusted p-values ("q-values") of the n p-values
 * 'p', into 'q' (may be 'p'): q_(i) = min over j >= i of p_(j) n' / j
 * in ascending order of p, capped at 1, with n' the number of finite
 * p-values.  Rejecting every q <= alpha keeps the expected share of
 * false discoveries among the rejections at or below alpha, and when
 * no difference is real, rejects nothing with probability at least
 * 1 - alpha.  A NaN p gets a NaN q.  Returns 0, -EINVAL, -ENOMEM.
 */
int st_stats_bh(const double *p, size_t n, double *q);

/*
 * The smallest relative difference between two sets of n >= 2
 * replicates each, whose logarithms have standard deviation 'sd_log',
 * that a two-sided test at 'alpha' detects with probability 'power'
 * (0.8, say): exp((t_{1-alpha/2} + t_{power}) sd_log sqrt(2/n)) - 1,
 * t with 2n - 2 degrees of freedom.  Infinity when even the exact
 * rank-sum test of n against n cannot reject at 'alpha'
 * (st_stats_ranksum_min_p()).  -EINVAL for n < 2, sd_log < 0 or not
 * finite, alpha or power outside (0, 1).
 */
int st_stats_resolvable(double sd_log, size_t n, double alpha, double power,
			double *out);

#endif
