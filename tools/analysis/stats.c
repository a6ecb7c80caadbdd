/*
 * tools/analysis/stats.c: medians with order-statistic confidence intervals,
 * quartiles, Tukey's fences, mean and standard deviation, and the
 * distribution functions behind a fit's goodness of fit and coefficient
 * intervals (chi-square Q through the incomplete gamma function,
 * Student's t through the incomplete beta function, after Numerical
 * Recipes' gammq/gser/gcf and betai/betacf).
 *
 * Quantile inversions use bisection: they run a few times per fitted
 * table row, so robustness matters more than speed.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "tools/analysis/stats.h"

/*
 * Iteration limit of the series and continued fractions below; the
 * gamma series needs O(sqrt(a)) terms, so this covers dof ~ 1e8.
 */
#define MAX_ITER 100000
#define EPS 1e-15
#define FPMIN (DBL_MIN / EPS)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int st_stats_sort(double *x, size_t n)
{
	size_t i;

	if (n && !x)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_double);
	return 0;
}

int st_stats_quantile(const double *sorted, size_t n, double prob,
		      double *out)
{
	double h, frac;
	size_t i;

	if (!sorted || !n || !out || !(prob >= 0.0 && prob <= 1.0))
		return -EINVAL;
	h = (double)(n - 1) * prob;
	i = (size_t)floor(h);
	if (i >= n - 1) {
		*out = sorted[n - 1];
		return 0;
	}
	frac = h - (double)i;
	*out = sorted[i] + frac * (sorted[i + 1] - sorted[i]);
	return 0;
}

int st_stats_median(const double *sorted, size_t n, double *out)
{
	return st_stats_quantile(sorted, n, 0.5, out);
}

int st_stats_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	double m = 0.0, s2 = 0.0;
	size_t i;

	if (!x || !n || !mean || !sd)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		double delta = x[i] - m;

		if (!isfinite(x[i]))
			return -EINVAL;
		m += delta / (double)(i + 1);
		s2 += delta * (x[i] - m);
	}
	*mean = m;
	*sd = n > 1 ? sqrt(s2 / (double)(n - 1)) : 0.0;
	return 0;
}

/* P(Z <= z), Z standard normal. */
static double normal_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

int st_stats_normal_quantile(double prob, double *z)
{
	double lo = -40.0, hi = 40.0;
	int i;

	if (!z || !(prob > 0.0 && prob < 1.0))
		return -EINVAL;
	for (i = 0; i < 200 && hi - lo > 1e-14; i++) {
		double mid = 0.5 * (lo + hi);

		if (normal_cdf(mid) < prob)
			lo = mid;
		else
			hi = mid;
	}
	*z = 0.5 * (lo + hi);
	return 0;
}

/*
 * Ranks from the exact binomial distribution: widen j from 1 while the
 * tail P(Bin(n, 1/2) <= j - 1) keeps the coverage at 'level' or more.
 * The terms C(n, i) 2^-n start at 2^-n, a normal double for
 * n <= ST_STATS_CI_EXACT_MAX.
 */
static int median_ci_exact(size_t n, double level, size_t *lo,
			   double *coverage)
{
	double term = ldexp(1.0, -(int)n), tail = term, cov;
	size_t j = 1;

	cov = 1.0 - 2.0 * tail;
	if (cov < level - 1e-12)
		return -ERANGE;
	for (;;) {
		double next_term = term * (double)(n - j + 1) / (double)j;
		double next_cov = 1.0 - 2.0 * (tail + next_term);

		if (2 * (j + 1) > n || next_cov < level - 1e-12)
			break;
		term = next_term;
		tail += term;
		cov = next_cov;
		j++;
	}
	*lo = j;
	*coverage = cov;
	return 0;
}

int st_stats_median_ci(size_t n, double level, size_t *lo, size_t *hi,
		       double *coverage)
{
	double cov = 0.0, z, half;
	size_t j = 0;
	int rc;

	if (!lo || !hi)
		return -EINVAL;
	*lo = *hi = 0;
	if (coverage)
		*coverage = 0.0;
	if (!n || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	if (n <= ST_STATS_CI_EXACT_MAX) {
		rc = median_ci_exact(n, level, &j, &cov);
		if (rc)
			return rc;
	} else {
		rc = st_stats_normal_quantile(0.5 * (1.0 + level), &z);
		if (rc)
			return rc;
		half = z * sqrt((double)n);
		if (half >= (double)n)
			return -ERANGE;
		j = (size_t)floor(((double)n - half) / 2.0);
		if (j < 1)
			j = 1;
		/* P(Bin <= j - 1) with a continuity correction. */
		cov = 1.0 - 2.0 * normal_cdf(((double)j - 0.5 -
					      (double)n / 2.0) /
					     (sqrt((double)n) / 2.0));
	}
	*lo = j;
	*hi = n + 1 - j;
	if (coverage)
		*coverage = cov;
	return 0;
}

int st_stats_tukey(const double *sorted, size_t n, double k,
		   struct st_fences *f)
{
	double q1, q3, iqr;
	size_t first = 0, end = n;
	int rc;

	if (!f || !isfinite(k) || k < 0.0)
		return -EINVAL;
	rc = st_stats_quantile(sorted, n, 0.25, &q1);
	if (!rc)
		rc = st_stats_quantile(sorted, n, 0.75, &q3);
	if (rc)
		return rc;
	iqr = q3 - q1;
	f->lo = q1 - k * iqr;
	f->hi = q3 + k * iqr;
	while (first < n && sorted[first] < f->lo)
		first++;
	while (end > first && sorted[end - 1] > f->hi)
		end--;
	f->first = first;
	f->n_kept = end - first;
	f->n_dropped = n - f->n_kept;
	return 0;
}

int st_stats_ci_to_se(double half, double coverage, double *se)
{
	double z;
	int rc;

	if (!se || !isfinite(half) || half < 0.0 ||
	    !(coverage > 0.0 && coverage < 1.0))
		return -EINVAL;
	rc = st_stats_normal_quantile(0.5 * (1.0 + coverage), &z);
	if (rc)
		return rc;
	*se = half / z;
	return 0;
}

int st_summary_compute(struct st_summary *s, double *x, size_t n,
		       double tukey_k, double ci_level)
{
	struct st_fences fe;
	const double *v;
	size_t m;
	int rc;

	if (!s || !x || !n || !isfinite(tukey_k) || tukey_k < 0.0 ||
	    !(ci_level == 0.0 || (ci_level > 0.0 && ci_level < 1.0)))
		return -EINVAL;
	rc = st_stats_sort(x, n);
	if (rc)
		return rc;
	s->n_in = n;
	if (tukey_k > 0.0) {
		rc = st_stats_tukey(x, n, tukey_k, &fe);
		if (rc)
			return rc;
		v = x + fe.first;
		m = fe.n_kept;
		s->fence_lo = fe.lo;
		s->fence_hi = fe.hi;
	} else {
		v = x;
		m = n;
		s->fence_lo = -INFINITY;
		s->fence_hi = INFINITY;
	}
	/* The quartiles lie between the fences, so m >= 1. */
	s->n = m;
	s->n_dropped = n - m;
	s->min = v[0];
	s->max = v[m - 1];
	if ((rc = st_stats_quantile(v, m, 0.25, &s->q1)) ||
	    (rc = st_stats_quantile(v, m, 0.5, &s->median)) ||
	    (rc = st_stats_quantile(v, m, 0.75, &s->q3)) ||
	    (rc = st_stats_mean_sd(v, m, &s->mean, &s->sd)))
		return rc;

	s->ci_level = ci_level;
	s->ci_ok = 0;
	s->ci_lo = s->ci_hi = s->median;
	s->ci_lo_rank = s->ci_hi_rank = 0;
	s->ci_coverage = 0.0;
	s->se_median = 0.0;
	if (ci_level == 0.0)
		return 0;
	rc = st_stats_median_ci(m, ci_level, &s->ci_lo_rank, &s->ci_hi_rank,
				&s->ci_coverage);
	if (rc == -ERANGE)
		return 0;
	if (rc)
		return rc;
	s->ci_ok = 1;
	s->ci_lo = v[s->ci_lo_rank - 1];
	s->ci_hi = v[s->ci_hi_rank - 1];
	return st_stats_ci_to_se(0.5 * (s->ci_hi - s->ci_lo),
				 s->ci_coverage, &s->se_median);
}

/* P(a, x) by its series, for x < a + 1. */
static int gamma_series(double a, double x, double *p)
{
	double ap = a, sum = 1.0 / a, del = sum;
	int i;

	if (x == 0.0) {
		*p = 0.0;
		return 0;
	}
	for (i = 0; i < MAX_ITER; i++) {
		ap += 1.0;
		del *= x / ap;
		sum += del;
		if (fabs(del) < fabs(sum) * EPS) {
			*p = sum * exp(-x + a * log(x) - lgamma(a));
			return 0;
		}
	}
	return -EDOM;
}

/* Q(a, x) by its continued fraction (modified Lentz), for x >= a + 1. */
static int gamma_cfrac(double a, double x, double *q)
{
	double b = x + 1.0 - a, c = 1.0 / FPMIN, d = 1.0 / b, h = d;
	int i;

	for (i = 1; i <= MAX_ITER; i++) {
		double an = -(double)i * ((double)i - a), del;

		b += 2.0;
		d = an * d + b;
		if (fabs(d) < FPMIN)
			d = FPMIN;
		c = b + an / c;
		if (fabs(c) < FPMIN)
			c = FPMIN;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < EPS) {
			*q = exp(-x + a * log(x) - lgamma(a)) * h;
			return 0;
		}
	}
	return -EDOM;
}

int st_stats_chi2_q(double chi2, double dof, double *q)
{
	double a = 0.5 * dof, x = 0.5 * chi2, p;
	int rc;

	if (!q || !isfinite(chi2) || chi2 < 0.0 || !isfinite(dof) ||
	    dof <= 0.0)
		return -EINVAL;
	if (x < a + 1.0) {
		rc = gamma_series(a, x, &p);
		if (!rc)
			*q = 1.0 - p;
	} else {
		rc = gamma_cfrac(a, x, q);
	}
	if (!rc && *q < 0.0)
		*q = 0.0;
	return rc;
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
static int beta_cfrac(double a, double b, double x, double *out)
{
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap, h;
	int m;

	if (fabs(d) < FPMIN)
		d = FPMIN;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= MAX_ITER; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < FPMIN)
			d = FPMIN;
		c = 1.0 + aa / c;
		if (fabs(c) < FPMIN)
			c = FPMIN;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < FPMIN)
			d = FPMIN;
		c = 1.0 + aa / c;
		if (fabs(c) < FPMIN)
			c = FPMIN;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < EPS) {
			*out = h;
			return 0;
		}
	}
	return -EDOM;
}

/* The regularised incomplete beta function I_x(a, b), 0 <= x <= 1. */
static int beta_inc(double a, double b, double x, double *out)
{
	double bt, cf;
	int rc;

	if (x <= 0.0 || x >= 1.0) {
		*out = x <= 0.0 ? 0.0 : 1.0;
		return 0;
	}
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		 b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0)) {
		rc = beta_cfrac(a, b, x, &cf);
		if (!rc)
			*out = bt * cf / a;
	} else {
		rc = beta_cfrac(b, a, 1.0 - x, &cf);
		if (!rc)
			*out = 1.0 - bt * cf / b;
	}
	return rc;
}

/* P(T <= t) for t >= 0, T Student's t with 'dof' degrees of freedom. */
static int t_cdf_upper(double t, double dof, double *p)
{
	double ib;
	int rc = beta_inc(0.5 * dof, 0.5, dof / (dof + t * t), &ib);

	if (!rc)
		*p = 1.0 - 0.5 * ib;
	return rc;
}

int st_stats_t_quantile(double prob, double dof, double *t)
{
	double lo = 0.0, hi = 1.0, p, target;
	int i, rc, neg;

	if (!t || !(prob > 0.0 && prob < 1.0) || !isfinite(dof) ||
	    dof <= 0.0)
		return -EINVAL;
	neg = prob < 0.5;
	target = neg ? 1.0 - prob : prob;
	if (target == 0.5) {
		*t = 0.0;
		return 0;
	}
	for (;;) {
		rc = t_cdf_upper(hi, dof, &p);
		if (rc)
			return rc;
		if (p >= target)
			break;
		lo = hi;
		hi *= 2.0;
		if (hi > 1e300)
			return -EDOM;
	}
	for (i = 0; i < 400 && hi - lo > 1e-13 * hi; i++) {
		double mid = 0.5 * (lo + hi);

		rc = t_cdf_upper(mid, dof, &p);
		if (rc)
			return rc;
		if (p < target)
			lo = mid;
		else
			hi = mid;
	}
	*t = neg ? -0.5 * (lo + hi) : 0.5 * (lo + hi);
	return 0;
}
