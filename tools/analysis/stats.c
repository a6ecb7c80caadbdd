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
#include <string.h>

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
	int sorted = 1;

	if (n && !x)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -EINVAL;
		if (i && x[i] < x[i - 1])
			sorted = 0;
	}
	/* Sorted already (a cost table's groups are): qsort() might
	   allocate a copy of a large array for nothing. */
	if (n > 1 && !sorted)
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

/*
 * The null distribution of the rank-sum statistic U for samples of m
 * and n values without ties: 'c' (m n + 1 values) gets the number of
 * the C(m + n, m) orderings with U = u, by the recurrence on the
 * largest of the m + n values: it is an x (U gains the j y's below it)
 * or a y (U gains nothing), c_{i,j}(u) = c_{i-1,j}(u - j) + c_{i,j-1}(u).
 * Counts pass 2^53 for m = n = 30 and stay within about 1e-16 relative;
 * only ratios are used.  'c' is malloc()ed, or NULL when out of memory.
 */
static double *ranksum_counts(size_t m, size_t n)
{
	size_t w = m * n + 1, i, j, u;
	double *c = calloc((m + 1) * w, sizeof(*c));

	if (!c)
		return NULL;
	for (i = 0; i <= m; i++)
		c[i * w] = 1.0;	/* j = 0: one ordering, U = 0 */
	for (j = 1; j <= n; j++)
		for (i = 1; i <= m; i++) {
			double *ci = c + i * w, *cp = c + (i - 1) * w;

			/* ci (j - 1) becomes ci (j); cp is already at j. */
			for (u = i * j; u >= j; u--)
				ci[u] += cp[u - j];
		}
	memmove(c, c + m * w, w * sizeof(*c));
	return c;
}

double st_stats_ranksum_min_p(size_t m, size_t n)
{
	double c = 1.0;
	size_t i;

	/* C(m + n, m) as a product of ratios; 2 / C capped at 1. */
	for (i = 1; i <= m && c < 1e300; i++)
		c = c * (double)(n + i) / (double)i;
	return fmin(1.0, 2.0 / c);
}

static int cmp_pair(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* U and the tie correction sum(t^3 - t) of the pooled sample. */
static int ranksum_u(const double *x, size_t m, const double *y, size_t n,
		     double *u, double *ties)
{
	size_t N = m + n, i, j;
	double (*v)[2] = malloc(N * sizeof(*v)), rx = 0.0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		v[i][0] = x[i];
		v[i][1] = 0.0;
	}
	for (i = 0; i < n; i++) {
		v[m + i][0] = y[i];
		v[m + i][1] = 1.0;
	}
	qsort(v, N, sizeof(*v), cmp_pair);
	*ties = 0.0;
	for (i = 0; i < N; i = j) {
		double rank, t;
		size_t k;

		for (j = i; j < N && v[j][0] == v[i][0]; j++)
			;
		t = (double)(j - i);
		rank = 0.5 * ((double)(i + 1) + (double)j);	/* midrank */
		for (k = i; k < j; k++)
			if (v[k][1] == 0.0)
				rx += rank;
		*ties += t * t * t - t;
	}
	free(v);
	/* Rank sum of x minus its least value: pairs x_i > y_j. */
	*u = (double)m * (double)n - (rx - 0.5 * (double)m * (double)(m + 1));
	return 0;
}

int st_stats_ranksum(const double *x, size_t m, const double *y, size_t n,
		     double level, struct st_ranksum *r)
{
	double mn = (double)m * (double)n, ties, sigma, z, alpha, *d, *c;
	size_t i, j, k = 0, nd;
	int rc;

	if (!x || !y || !r || !m || !n || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	for (i = 0; i < m; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->lo = r->hi = NAN;
	alpha = 1.0 - level;
	rc = ranksum_u(x, m, y, n, &r->u, &ties);
	if (rc)
		return rc;

	/* The differences, for the estimate and the interval. */
	nd = m * n;
	d = malloc(nd * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			d[i * n + j] = y[j] - x[i];
	qsort(d, nd, sizeof(*d), cmp_double);
	st_stats_median(d, nd, &r->shift);

	c = NULL;
	if (m <= ST_STATS_RANKSUM_EXACT_MAX && n <= ST_STATS_RANKSUM_EXACT_MAX) {
		double total = 0.0, cum = 0.0, lo_tail = 0.0, hi_tail = 0.0;
		size_t u, w = nd + 1;

		c = ranksum_counts(m, n);
		if (!c) {
			free(d);
			return -ENOMEM;
		}
		for (u = 0; u < w; u++)
			total += c[u];
		/* Moses: k - 1 the largest u with P(U <= u) <= alpha / 2. */
		for (u = 0; u < w; u++) {
			if ((cum + c[u]) / total > alpha / 2.0 * (1 + 1e-12))
				break;
			cum += c[u];
		}
		k = u;		/* P(U <= k - 1) = cum / total */
		if (k >= 1) {
			r->ci_ok = 1;
			r->coverage = 1.0 - 2.0 * cum / total;
		}
		if (ties == 0.0) {
			for (u = 0; u < w; u++) {
				if ((double)u <= r->u)
					lo_tail += c[u];
				if ((double)u >= r->u)
					hi_tail += c[u];
			}
			r->p = fmin(1.0, 2.0 * fmin(lo_tail, hi_tail) / total);
			r->exact = 1;
		}
		free(c);
	} else {
		rc = st_stats_normal_quantile(1.0 - alpha / 2.0, &z);
		if (rc) {
			free(d);
			return rc;
		}
		sigma = sqrt(mn * (double)(m + n + 1) / 12.0);
		if (mn / 2.0 - z * sigma >= 1.0) {
			k = (size_t)floor(mn / 2.0 - z * sigma);
			r->ci_ok = 1;
			r->coverage = 1.0 - 2.0 * normal_cdf(
				((double)k - 0.5 - mn / 2.0) / sigma);
		}
	}
	if (!r->exact) {
		double N = (double)(m + n);

		sigma = sqrt(mn / 12.0 * ((N + 1.0) - ties / (N * (N - 1.0))));
		if (sigma > 0.0) {
			z = (fabs(r->u - mn / 2.0) - 0.5) / sigma;
			r->p = z > 0.0 ? fmin(1.0, 2.0 * normal_cdf(-z)) : 1.0;
		} else {
			r->p = 1.0;	/* every value equal */
		}
	}
	if (r->ci_ok) {
		r->lo = d[k - 1];
		r->hi = d[nd - k];
	}
	free(d);
	return 0;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	return (x->p > y->p) - (x->p < y->p);
}

int st_stats_bh(const double *p, size_t n, double *q)
{
	struct pidx *v;
	size_t i, nf = 0;
	double run = 1.0;

	if ((n && (!p || !q)))
		return -EINVAL;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		if (p[i] < 0.0 || p[i] > 1.0) {
			free(v);
			return -EINVAL;
		}
		v[nf].p = p[i];
		v[nf++].i = i;
	}
	qsort(v, nf, sizeof(*v), cmp_pidx);
	for (i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	for (i = nf; i-- > 0;) {
		double adj = v[i].p * (double)nf / (double)(i + 1);

		if (adj < run)
			run = adj;
		q[v[i].i] = run;
	}
	free(v);
	return 0;
}

int st_stats_resolvable(double sd_log, size_t n, double alpha, double power,
			double *out)
{
	double ta, tb, dof;
	int rc;

	if (!out || n < 2 || !isfinite(sd_log) || sd_log < 0.0 ||
	    !(alpha > 0.0 && alpha < 1.0) || !(power > 0.0 && power < 1.0))
		return -EINVAL;
	if (st_stats_ranksum_min_p(n, n) > alpha) {
		*out = INFINITY;
		return 0;
	}
	dof = 2.0 * (double)n - 2.0;
	rc = st_stats_t_quantile(1.0 - alpha / 2.0, dof, &ta);
	if (!rc)
		rc = st_stats_t_quantile(power, dof, &tb);
	if (rc)
		return rc;
	*out = expm1((ta + tb) * sd_log * sqrt(2.0 / (double)n));
	return 0;
}
