/*
 * tools/analysis/fit.c: choosing and fitting T(p, d) = a + b f(p) + c g(p) d to
 * group medians (see tools/analysis/fit.h for the method).
 *
 * Each candidate model is a linear least-squares problem with at most
 * three columns.  The rows are weighted (1 / sigma), the columns scaled
 * to unit length (p^2 d spans twenty decades where 1 spans none) and the
 * system solved by Householder QR, so collinear columns show as a tiny
 * diagonal of R instead of a garbage solution.  Leave-one-group-out
 * residuals need no refits: for a linear fit the prediction error of
 * point i from the others is e_i / (1 - h_ii), h_ii the leverage
 * ||R^-T z_i||^2 of the scaled row z_i.  (When h_ii is within 1e-6 of
 * 1, for a sigma far below the others', that quotient is rounding, and
 * the point is predicted by a refit to the others: loo_refit.)  So a
 * model costs O(n); splits in d are screened from running sums of the
 * normal equations (see best_split) before the few best are scored
 * exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/fit.h"
#include "tools/analysis/stats.h"

/* |R_kk| below this (columns have unit length) means collinear. */
#define RANK_TOL 1e-9
/* Relative difference under which two cv errors count as equal. */
#define CV_TIE 1e-9

/* A group as the fit uses it. */
struct pt {
	double p, d, y;
	double w;		/* 1 / sigma, or 1 for an unweighted fit */
	long n;
	double basis[ST_FIT_NFN]; /* st_fit_fn_value(fn, p) */
};

/* The least-squares solution of one model on one set of points. */
struct model_fit {
	int f, g, m;		/* model, number of coefficients */
	int col[3];		/* coefficient index (0 a, 1 b, 2 c) of
				   each column */
	double beta[3];		/* by coefficient index */
	double cov[3][3];	/* (X'WX)^-1, by coefficient index */
	double chi2;		/* sum of squared weighted residuals */
	double rss, tss;	/* unweighted, ns^2: residuals; medians
				   about the constant fitted the same way */
	double ymax;		/* largest |y| */
	double cv, cv_se;	/* -1 when not defined */
};

double st_fit_fn_value(int fn, double p)
{
	switch (fn) {
	case ST_FIT_ONE:
		return 1.0;
	case ST_FIT_LOG2P:
		return log2(p);
	case ST_FIT_P:
		return p;
	case ST_FIT_PLOG2P:
		return p * log2(p);
	case ST_FIT_P2:
		return p * p;
	default:
		return 0.0;
	}
}

const char *st_fit_fn_name(int fn)
{
	static const char *const names[ST_FIT_NFN] = {
		"", "1", "log2(p)", "p", "p*log2(p)", "p^2",
	};

	if (fn < 0 || fn >= ST_FIT_NFN)
		return NULL;
	return names[fn];
}

void st_fit_options_init(struct st_fit_options *opt)
{
	opt->level = 0.95;
	opt->sigma_min = 1.0;
	opt->max_pieces = ST_FIT_MAX_PIECES;
}

/* Normal equations of one model, summed over some points. */
struct neq {
	double a[3][3];		/* lower triangle of X'WX */
	double b[3];		/* X'Wy */
	double yy;		/* y'Wy */
};

static void neq_add(struct neq *q, const struct pt *p, int f, int g)
{
	double x[3], w2 = p->w * p->w;
	int j = 0, k, m;

	x[j++] = 1.0;
	if (f != ST_FIT_NONE)
		x[j++] = p->basis[f];
	if (g != ST_FIT_NONE)
		x[j++] = p->basis[g] * p->d;
	m = j;
	for (j = 0; j < m; j++) {
		for (k = 0; k <= j; k++)
			q->a[j][k] += w2 * x[j] * x[k];
		q->b[j] += w2 * x[j] * p->y;
	}
	q->yy += w2 * p->y * p->y;
}

/* '*c' = 'hi' - 'lo', term by term. */
static void neq_sub(const struct neq *hi, const struct neq *lo,
		    struct neq *c)
{
	int j, k;

	for (j = 0; j < 3; j++) {
		for (k = 0; k < 3; k++)
			c->a[j][k] = hi->a[j][k] - lo->a[j][k];
		c->b[j] = hi->b[j] - lo->b[j];
	}
	c->yy = hi->yy - lo->yy;
}

/*
 * Factor the 'm'-coefficient normal equations 'q', scaled to a unit
 * diagonal (the scales in 'dg'), by Cholesky into 'l', and solve
 * L v = D^-1 b into 'v'; -EDOM when singular.
 */
static int neq_factor(const struct neq *q, int m, double l[3][3],
		      double dg[3], double v[3])
{
	int j, k, i;

	for (j = 0; j < m; j++) {
		if (!(q->a[j][j] > 0.0) || !isfinite(q->a[j][j]))
			return -EDOM;
		dg[j] = sqrt(q->a[j][j]);
	}
	for (j = 0; j < m; j++) {
		for (k = 0; k <= j; k++) {
			double s = q->a[j][k] / (dg[j] * dg[k]);

			for (i = 0; i < k; i++)
				s -= l[j][i] * l[k][i];
			if (j == k) {
				if (s < 1e-12)
					return -EDOM;
				l[j][j] = sqrt(s);
			} else {
				l[j][k] = s / l[k][k];
			}
		}
	}
	for (j = 0; j < m; j++) {
		double s = q->b[j] / dg[j];

		for (i = 0; i < j; i++)
			s -= l[j][i] * v[i];
		v[j] = s / l[j][j];
	}
	return 0;
}

/*
 * Generalised cv error of the 'm'-coefficient fit with normal equations
 * 'q' over 'n' points; -EDOM when singular or n <= m.
 */
static int neq_gcv(const struct neq *q, size_t n, int m, double *gcv)
{
	double l[3][3], dg[3], v[3], chi2 = q->yy;
	int j;

	if (n <= (size_t)m || neq_factor(q, m, l, dg, v))
		return -EDOM;
	/* chi2 = y'Wy - b' beta = y'Wy - |v|^2. */
	for (j = 0; j < m; j++)
		chi2 -= v[j] * v[j];
	if (chi2 < 0.0)
		chi2 = 0.0;
	*gcv = (double)n * chi2 / (((double)n - m) * ((double)n - m));
	return 0;
}

/*
 * Prediction error, in its sigmas, of point 'skip' of the 'n' points
 * 'pt' from model (f, g) fitted to the others, by an explicit refit:
 * for a point whose leverage is so near 1 (a sigma far below the
 * others') that e / (1 - h) is all rounding.  -EDOM when the others
 * cannot determine the model.
 */
static int loo_refit(const struct pt *pt, size_t n, size_t skip, int f,
		     int g, double *err)
{
	struct neq q;
	double l[3][3], dg[3], v[3], x[3], pred = 0.0;
	size_t i;
	int j, k, m = 0;

	memset(&q, 0, sizeof(q));
	for (i = 0; i < n; i++)
		if (i != skip)
			neq_add(&q, &pt[i], f, g);
	x[m++] = 1.0;
	if (f != ST_FIT_NONE)
		x[m++] = pt[skip].basis[f];
	if (g != ST_FIT_NONE)
		x[m++] = pt[skip].basis[g] * pt[skip].d;
	if (n <= (size_t)m || neq_factor(&q, m, l, dg, v))
		return -EDOM;
	/* L' u = v, beta = D^-1 u. */
	for (j = m - 1; j >= 0; j--) {
		for (k = j + 1; k < m; k++)
			v[j] -= l[k][j] * v[k];
		v[j] /= l[j][j];
		pred += v[j] / dg[j] * x[j];
	}
	*err = pt[skip].w * (pt[skip].y - pred);
	return isfinite(*err) ? 0 : -EDOM;
}

/* Number of doubles of scratch space fit_model() needs for n points. */
#define FIT_SCRATCH(n) (7 * (n))

/*
 * Fit model (f, g) to the 'n' points 'pt' into '*mf'.  'z' is scratch
 * space for FIT_SCRATCH(n) doubles.  If 'terms' is not NULL it receives
 * each point's squared leave-one-out prediction error (in sigmas).
 * -EDOM when the points cannot determine the model or (with 'need_cv')
 * leave some point's prediction undetermined when it is left out.
 */
static int fit_model(const struct pt *pt, size_t n, int f, int g,
		     int need_cv, double *z, double *terms,
		     struct model_fit *mf)
{
	double norm[3] = { 0.0, 0.0, 0.0 }, r[3][3], rinv[3][3], qty[3];
	double bs[3], *rhs = z + 3 * n, *zr = z + 4 * n;
	double sw = 0.0, swy = 0.0, ybar, sum = 0.0, sum2 = 0.0;
	size_t i;
	int j, k, m = 0, cv_ok = 1;

	memset(mf, 0, sizeof(*mf));
	mf->f = f;
	mf->g = g;
	mf->col[m++] = 0;
	if (f != ST_FIT_NONE)
		mf->col[m++] = 1;
	if (g != ST_FIT_NONE)
		mf->col[m++] = 2;
	mf->m = m;
	if (n < (size_t)m + 1)
		return -EDOM;

	/* Weighted rows, then columns scaled to unit length. */
	for (i = 0; i < n; i++) {
		double w = pt[i].w, *row = zr + 3 * i;

		j = 0;
		row[j++] = w;
		if (f != ST_FIT_NONE)
			row[j++] = w * pt[i].basis[f];
		if (g != ST_FIT_NONE)
			row[j++] = w * pt[i].basis[g] * pt[i].d;
		for (j = 0; j < m; j++)
			norm[j] += row[j] * row[j];
		sw += w * w;
		swy += w * w * pt[i].y;
	}
	for (j = 0; j < m; j++) {
		if (!(norm[j] > 0.0) || !isfinite(norm[j]))
			return -EDOM;
		norm[j] = sqrt(norm[j]);
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++) {
			zr[3 * i + j] /= norm[j];
			z[3 * i + j] = zr[3 * i + j];
		}
		rhs[i] = pt[i].w * pt[i].y;
	}

	/* Householder QR of z, applied to rhs as well. */
	for (k = 0; k < m; k++) {
		double s = 0.0, alpha, vk, vtv;

		for (i = (size_t)k; i < n; i++)
			s += z[3 * i + k] * z[3 * i + k];
		alpha = z[3 * k + k] > 0.0 ? -sqrt(s) : sqrt(s);
		if (fabs(alpha) < RANK_TOL)
			return -EDOM;
		vk = z[3 * k + k] - alpha;
		vtv = s - z[3 * k + k] * z[3 * k + k] + vk * vk;
		z[3 * k + k] = vk;
		for (j = k + 1; j <= m; j++) {
			double dot = 0.0, fac;

			if (j < m) {
				for (i = (size_t)k; i < n; i++)
					dot += z[3 * i + k] * z[3 * i + j];
				fac = 2.0 * dot / vtv;
				for (i = (size_t)k; i < n; i++)
					z[3 * i + j] -= fac * z[3 * i + k];
			} else {
				for (i = (size_t)k; i < n; i++)
					dot += z[3 * i + k] * rhs[i];
				fac = 2.0 * dot / vtv;
				for (i = (size_t)k; i < n; i++)
					rhs[i] -= fac * z[3 * i + k];
			}
		}
		r[k][k] = alpha;
		for (j = k + 1; j < m; j++)
			r[k][j] = z[3 * k + j];
		qty[k] = rhs[k];
	}
	for (k = m - 1; k >= 0; k--) {
		double s = qty[k];

		for (j = k + 1; j < m; j++)
			s -= r[k][j] * bs[j];
		bs[k] = s / r[k][k];
	}
	/* rinv = R^-1, upper triangular. */
	for (j = 0; j < m; j++) {
		for (k = 0; k < m; k++)
			rinv[k][j] = 0.0;
		rinv[j][j] = 1.0 / r[j][j];
		for (k = j - 1; k >= 0; k--) {
			double s = 0.0;
			int l;

			for (l = k + 1; l <= j; l++)
				s += r[k][l] * rinv[l][j];
			rinv[k][j] = -s / r[k][k];
		}
	}
	for (j = 0; j < m; j++) {
		mf->beta[mf->col[j]] = bs[j] / norm[j];
		for (k = 0; k < m; k++) {
			double s = 0.0;
			int l;

			for (l = j > k ? j : k; l < m; l++)
				s += rinv[j][l] * rinv[k][l];
			mf->cov[mf->col[j]][mf->col[k]] = s / (norm[j] *
							       norm[k]);
		}
	}

	/*
	 * Residuals in sigmas, e_i = w_i y_i - z_i . bs, and leverages
	 * h_i = ||R^-T z_i||^2.  For R^2, the same residuals in ns and the
	 * medians' spread about their weighted mean (the constant model).
	 */
	ybar = swy / sw;
	for (i = 0; i < n; i++) {
		const double *row = zr + 3 * i;
		double e = pt[i].w * pt[i].y, h = 0.0, dy;

		for (j = 0; j < m; j++)
			e -= row[j] * bs[j];
		dy = pt[i].y - ybar;
		mf->chi2 += e * e;
		mf->rss += (e / pt[i].w) * (e / pt[i].w);
		mf->tss += dy * dy;
		mf->ymax = fmax(mf->ymax, fabs(pt[i].y));
		for (j = 0; j < m; j++) {
			double u = 0.0;

			for (k = 0; k <= j; k++)
				u += rinv[k][j] * row[k];
			h += u * u;
		}
		if (h < 1.0 - 1e-6)
			e /= 1.0 - h;
		else if (loo_refit(pt, n, i, f, g, &e))
			cv_ok = 0;
		e *= e;
		if (terms)
			terms[i] = e;
		sum += e;
		sum2 += e * e;
	}
	if (!cv_ok) {
		if (need_cv)
			return -EDOM;
		mf->cv = mf->cv_se = -1.0;
		return 0;
	}
	mf->cv = sum / (double)n;
	mf->cv_se = sqrt(fmax(0.0, sum2 / (double)n - mf->cv * mf->cv) /
			 (double)(n > 1 ? n - 1 : 1));
	return 0;
}

/* How many distinct p and d values 'pt' has, counted up to 3. */
static void count_levels(const struct pt *pt, size_t n, int *np, int *nd)
{
	double p0 = pt[0].p, p1 = 0.0, d0 = pt[0].d, d1 = 0.0;
	size_t i;

	*np = *nd = 1;
	for (i = 1; i < n && (*np < 3 || *nd < 3); i++) {
		if (*np == 1 && pt[i].p != p0) {
			p1 = pt[i].p;
			*np = 2;
		} else if (*np == 2 && pt[i].p != p0 && pt[i].p != p1) {
			*np = 3;
		}
		if (*nd == 1 && pt[i].d != d0) {
			d1 = pt[i].d;
			*nd = 2;
		} else if (*nd == 2 && pt[i].d != d0 && pt[i].d != d1) {
			*nd = 3;
		}
	}
}

static unsigned level_flags(int np, int nd)
{
	return (np == 1 ? ST_FIT_P_NOT_IDENTIFIED : 0) |
	       (np == 2 ? ST_FIT_P_SHAPE_AMBIGUOUS : 0) |
	       (nd == 1 ? ST_FIT_D_NOT_IDENTIFIED : 0);
}

/* Is model (f, g) a candidate for points with np, nd levels? */
static int model_allowed(int f, int g, int np, int nd)
{
	if (f == ST_FIT_ONE || (f != ST_FIT_NONE && np < 2))
		return 0;
	if (g != ST_FIT_NONE && nd < 2)
		return 0;
	return !(g > ST_FIT_ONE && np < 2);
}

static int model_terms(int f, int g)
{
	return 1 + (f != ST_FIT_NONE) + (g != ST_FIT_NONE);
}

/*
 * The smallest cv difference that is not rounding: (1e-9 of the largest
 * weighted value)^2, far above the leave-one-out residuals of an exact
 * fit (about 1e-13 of it), far below any real misfit.  Noiseless data
 * must neither prefer a model with a needless term nor find a protocol
 * switch in rounding errors.
 */
static double cv_floor(const struct pt *pt, size_t n)
{
	double big = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		big = fmax(big, fabs(pt[i].w * pt[i].y));
	return 1e-18 * big * big;
}

/* Does candidate 'a' beat 'b' (fewer terms, lower cv, catalogue)? */
static int simpler(const struct model_fit *a, const struct model_fit *b)
{
	if (a->m != b->m)
		return a->m < b->m;
	if (fabs(a->cv - b->cv) > CV_TIE * fmax(a->cv, b->cv))
		return a->cv < b->cv;
	if (a->f != b->f)
		return a->f < b->f;
	return a->g < b->g;
}

/*
 * Does 'm', which has more terms than 's', fit the 'n' points both
 * significantly and substantially better?  Significantly: its extra
 * terms lower the misfit by more than noise would, at level
 * ST_FIT_MISFIT_ALPHA; for a weighted fit the sigmas are the noise
 * (the drop in chi-square is a chi-square with as many degrees of
 * freedom as terms were added), for an unweighted one the residual
 * variance of 'm' is (the F-test).  Substantially: the misfit per
 * degree of freedom of 's' is at least ST_FIT_MISFIT_RATIO times that
 * of 'm' (or of the sigmas, if larger).  A drop at rounding level
 * ('eps' per point) is neither.
 */
static int fits_better(const struct model_fit *m, const struct model_fit *s,
		       size_t n, int weighted, double eps)
{
	int dk = m->m - s->m, dof_m = (int)n - m->m;
	double drop = s->chi2 - m->chi2, noise, q, t;

	if (dk <= 0 || dof_m < 1 || !(drop > (double)n * eps))
		return 0;
	noise = m->chi2 / dof_m;
	if (weighted)
		noise = fmax(noise, 1.0);
	if (!(s->chi2 / ((double)n - s->m) >= ST_FIT_MISFIT_RATIO * noise))
		return 0;
	if (weighted)
		return !st_stats_chi2_q(drop, dk, &q) &&
		       q < ST_FIT_MISFIT_ALPHA;
	if (!(noise > 0.0))
		return 1;	/* 'm' is exact, 's' is not */
	/* F(dk, dof_m) critical values: t^2 for dk = 1, closed form for
	   dk = 2. */
	if (dk == 1) {
		if (st_stats_t_quantile(1.0 - 0.5 * ST_FIT_MISFIT_ALPHA,
					dof_m, &t))
			return 0;
		q = t * t;
	} else {
		q = 0.5 * dof_m * (pow(ST_FIT_MISFIT_ALPHA, -2.0 / dof_m) -
				   1.0);
	}
	return drop / dk > q * noise;
}

/* Result of selecting a model for one piece. */
struct selection {
	struct model_fit chosen, best;
	unsigned flags;
	int nalt;
	struct st_fit_alt alt[ST_FIT_MAX_ALT];
};

/*
 * Choose the model of the 'n' points 'pt' ('weighted' or not) as the
 * top of tools/analysis/fit.h describes: leave out the models that another
 * fits significantly and substantially better (fits_better), then take
 * the one with the fewest terms whose cv is both within one standard
 * error of the lowest cv left and within ST_FIT_CV_RATIO times it.  If
 * not NULL, 'terms' receives the chosen model's leave-one-out terms and
 * 'best_terms' those of the model with the lowest cv of all.  -EDOM
 * when no candidate can be cross-validated.
 */
static int select_model(const struct pt *pt, size_t n, int weighted,
			double *z, double *terms, double *best_terms,
			struct selection *sel)
{
	struct model_fit all[ST_FIT_NFN * ST_FIT_NFN], *best = NULL;
	struct model_fit *chosen = NULL, *ref = NULL;
	unsigned char out[ST_FIT_NFN * ST_FIT_NFN];
	int np, nd, f, g, nfit = 0, i, j;
	double limit, se, eps = cv_floor(pt, n);

	count_levels(pt, n, &np, &nd);
	sel->flags = level_flags(np, nd);
	for (f = ST_FIT_NONE; f < ST_FIT_NFN; f++) {
		for (g = ST_FIT_NONE; g < ST_FIT_NFN; g++) {
			struct model_fit *mf = &all[nfit];

			if (!model_allowed(f, g, np, nd) ||
			    fit_model(pt, n, f, g, 1, z, NULL, mf))
				continue;
			if (!best || mf->cv < best->cv)
				best = mf;
			nfit++;
		}
	}
	if (!nfit)
		return -EDOM;
	/*
	 * A model the data reject in favour of one that fits far better
	 * is no candidate, however its cv compares: with few groups, or
	 * with sigmas far below the misfit, leave-one-out errors are
	 * dominated by a single group and cannot tell.  A model with the
	 * most terms is never out, so some remain.
	 */
	for (i = 0; i < nfit; i++) {
		out[i] = 0;
		for (j = 0; j < nfit && !out[i]; j++)
			out[i] = fits_better(&all[j], &all[i], n, weighted,
					     eps);
		if (!out[i] && (!ref || all[i].cv < ref->cv))
			ref = &all[i];
	}
	/*
	 * The one-SE rule.  For a weighted fit, each term of a right
	 * model is about a chi-square with one degree of freedom
	 * (variance 2), so its cv is not known better than sqrt(2 / n),
	 * however few the groups.  But when the model is wrong for some
	 * groups (a protocol switch, cache effects, sigmas far below
	 * the misfit) one group's term dominates the standard error,
	 * which then admits almost anything; so a simpler model must
	 * also be within a factor of the lowest cv (for a weighted fit,
	 * of the noise level 1 if that is larger: any two cvs at the
	 * level of the sigmas are alike).
	 */
	se = ref->cv_se;
	if (weighted)
		se = fmax(se, sqrt(2.0 / (double)n));
	limit = fmin(ref->cv + se, ST_FIT_CV_RATIO *
		     (weighted ? fmax(ref->cv, 1.0) : ref->cv)) + eps;
	for (i = 0; i < nfit; i++)
		if (!out[i] && all[i].cv <= limit &&
		    (!chosen || simpler(&all[i], chosen)))
			chosen = &all[i];
	sel->chosen = *chosen;
	sel->best = *best;

	/* Runners-up, lowest cv first (a small insertion sort). */
	sel->nalt = 0;
	for (i = 0; i < nfit; i++) {
		struct st_fit_alt a;

		if (&all[i] == chosen)
			continue;
		a.f = all[i].f;
		a.g = all[i].g;
		a.nterms = all[i].m;
		a.cv = all[i].cv;
		for (j = sel->nalt; j > 0 && sel->alt[j - 1].cv > a.cv; j--)
			if (j < ST_FIT_MAX_ALT)
				sel->alt[j] = sel->alt[j - 1];
		if (j < ST_FIT_MAX_ALT)
			sel->alt[j] = a;
		if (sel->nalt < ST_FIT_MAX_ALT)
			sel->nalt++;
	}

	/* Fill in the terms (the refit is cheaper than keeping them all). */
	if (terms)
		fit_model(pt, n, sel->chosen.f, sel->chosen.g, 1, z, terms,
			  &sel->chosen);
	if (best_terms)
		fit_model(pt, n, sel->best.f, sel->best.g, 1, z, best_terms,
			  &sel->best);
	return 0;
}

/* Turn the solution 'mf' on points 'pt' into the public '*pc'. */
static int make_piece(const struct model_fit *mf, const struct pt *pt,
		      size_t n, int weighted, unsigned flags, double level,
		      struct st_fit_piece *pc)
{
	double scale, t;
	size_t i;
	int j, k, rc;

	memset(pc, 0, sizeof(*pc));
	pc->f = mf->f;
	pc->g = mf->g;
	pc->nterms = mf->m;
	pc->level = level;
	pc->weighted = weighted;
	pc->chi2 = mf->chi2;
	pc->dof = (int)(n - (size_t)mf->m);
	pc->cv = mf->cv;
	pc->cv_se = mf->cv_se;
	pc->flags = flags;
	pc->n_groups = n;

	scale = mf->chi2 / pc->dof;
	if (weighted) {
		if (scale < 1.0)
			scale = 1.0;
		pc->has_q = 1;
		rc = st_stats_chi2_q(mf->chi2, pc->dof, &pc->q);
		if (rc)
			return rc;
	}
	rc = st_stats_t_quantile(0.5 * (1.0 + level), pc->dof, &t);
	if (rc)
		return rc;
	for (j = 0; j < 3; j++)
		for (k = 0; k < 3; k++)
			pc->cov[j][k] = mf->cov[j][k] * scale;
	for (j = 0; j < mf->m; j++) {
		int c = mf->col[j];

		pc->coef[c] = mf->beta[c];
		pc->se[c] = sqrt(pc->cov[c][c]);
		pc->ci_lo[c] = pc->coef[c] - t * pc->se[c];
		pc->ci_hi[c] = pc->coef[c] + t * pc->se[c];
	}
	/*
	 * Adjusted R^2 of the medians, unweighted, against the constant
	 * fitted the same way: 0 for the constant itself, whatever the
	 * weights (a spread of the medians at rounding level counts as
	 * none).
	 */
	if (mf->tss > (double)n * 1e-24 * mf->ymax * mf->ymax)
		pc->r2_adj = 1.0 - (mf->rss / pc->dof) /
				   (mf->tss / (double)(n - 1));

	pc->p_min = pc->p_max = (long)pt[0].p;
	pc->d_min = pc->d_max = pt[0].d;
	for (i = 0; i < n; i++) {
		if (pt[i].p < pc->p_min)
			pc->p_min = (long)pt[i].p;
		if (pt[i].p > pc->p_max)
			pc->p_max = (long)pt[i].p;
		if (pt[i].d < pc->d_min)
			pc->d_min = pt[i].d;
		if (pt[i].d > pc->d_max)
			pc->d_max = pt[i].d;
		pc->n_samples += pt[i].n;
	}
	return 0;
}

static int check_options(const struct st_fit_options *opt)
{
	if (!(opt->level > 0.0 && opt->level < 1.0) ||
	    !isfinite(opt->sigma_min) || opt->sigma_min < 0.0 ||
	    opt->max_pieces < 1 || opt->max_pieces > ST_FIT_MAX_PIECES)
		return -EINVAL;
	return 0;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

/*
 * Check the groups and turn them into points sorted by (d, p) in a new
 * array '*out' (free() it) of '*nout' entries; '*weighted' says whether
 * any group had a sigma (then those without are left out).
 */
static int make_points(const struct st_fit_group *g, size_t ngroups,
		       const struct st_fit_options *opt, struct pt **out,
		       size_t *nout, int *weighted)
{
	size_t i, known = 0, m = 0;
	struct pt *pt;
	int fn;

	if (!g || !ngroups || !out || !nout)
		return -EINVAL;
	for (i = 0; i < ngroups; i++) {
		if (g[i].p < 1 || !isfinite(g[i].d) || g[i].d < 0.0 ||
		    !isfinite(g[i].y) || !isfinite(g[i].sigma) ||
		    g[i].sigma < 0.0 || g[i].n < 1)
			return -EINVAL;
		known += g[i].sigma > 0.0;
	}
	pt = malloc(ngroups * sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	*weighted = known > 0;
	for (i = 0; i < ngroups; i++) {
		struct pt *q = &pt[m];

		if (*weighted && !(g[i].sigma > 0.0))
			continue;
		q->p = (double)g[i].p;
		q->d = g[i].d;
		q->y = g[i].y;
		q->w = *weighted ? 1.0 / fmax(g[i].sigma, opt->sigma_min) :
				   1.0;
		q->n = g[i].n;
		for (fn = 0; fn < ST_FIT_NFN; fn++)
			q->basis[fn] = st_fit_fn_value(fn, q->p);
		m++;
	}
	qsort(pt, m, sizeof(*pt), cmp_pt);
	*out = pt;
	*nout = m;
	return 0;
}

/* Mean and standard error of terms a[i] - b[i]. */
static void paired_diff(const double *a, const double *b, size_t n,
			double *mean, double *se)
{
	double s = 0.0, s2 = 0.0;
	size_t i;

	for (i = 0; i < n; i++) {
		double dlt = a[i] - b[i];

		s += dlt;
		s2 += dlt * dlt;
	}
	*mean = s / (double)n;
	*se = sqrt(fmax(0.0, s2 / (double)n - *mean * *mean) /
		   (double)(n > 1 ? n - 1 : 1));
}

/* Scratch space of st_fit_run. */
struct scratch {
	int weighted;
	double *z;		/* FIT_SCRATCH(n) */
	double *single;		/* n: terms of the best one-piece model */
	double *cur, *keep;	/* n: terms of a split, of the best split */
};

/*
 * Splits are screened cheaply and only the best few are scored
 * exactly.  For each model the weighted normal equations are summed
 * over the points below each size, so a piece's least-squares fit on
 * either side of any split costs O(1); its generalised cross-validation
 * error, n chi2 / (n - m)^2 (leave-one-out with every leverage replaced
 * by the mean m / n), ranks the splits.  The SPLIT_EXACT best then go
 * through the exact selection of select_model().
 */
#define SPLIT_EXACT 3
#define NMODELS (ST_FIT_NFN * ST_FIT_NFN)

/* Lowest generalised cv error over the candidates of one piece. */
static double piece_gcv(const struct neq *sums, size_t n, int np, int nd)
{
	double best = INFINITY, v;
	int f, g;

	for (f = 0; f < ST_FIT_NFN; f++)
		for (g = 0; g < ST_FIT_NFN; g++)
			if (model_allowed(f, g, np, nd) &&
			    !neq_gcv(&sums[f * ST_FIT_NFN + g], n,
				     model_terms(f, g), &v) && v < best)
				best = v;
	return best;
}

/*
 * Find the best split in d of the 'n' sorted points; on success '*at'
 * is the index of the first point of the upper piece, its per-point
 * terms are in s->keep and '*cv' is its (exact) error.  -EDOM when no
 * split can be fitted.
 */
static int best_split(const struct pt *pt, size_t n, struct scratch *s,
		      size_t *at, double *cv)
{
	size_t i, k, ndist = 1, *start = NULL, cand[SPLIT_EXACT];
	struct neq *pre = NULL, lo_sum[NMODELS], hi_sum[NMODELS];
	double score[SPLIT_EXACT], best = INFINITY;
	struct selection lo, hi;
	int mi, ncand = 0, rc = -EDOM, c;

	for (i = 1; i < n; i++)
		ndist += pt[i].d != pt[i - 1].d;
	if (ndist < 2 * ST_FIT_PIECE_MIN_D)
		return -EDOM;
	/* start[k]: first point of the k-th size; start[ndist] = n. */
	start = malloc((ndist + 1) * sizeof(*start));
	pre = calloc((ndist + 1) * NMODELS, sizeof(*pre));
	if (!start || !pre) {
		rc = -ENOMEM;
		goto done;
	}
	for (i = 0, k = 0; i < n; i++)
		if (!i || pt[i].d != pt[i - 1].d)
			start[k++] = i;
	start[ndist] = n;
	/* pre[k * NMODELS + mi]: sums over the points below size k. */
	for (k = 0; k < ndist; k++) {
		struct neq *row = pre + (k + 1) * NMODELS;

		memcpy(row, row - NMODELS, NMODELS * sizeof(*row));
		for (i = start[k]; i < start[k + 1]; i++)
			for (mi = 0; mi < NMODELS; mi++)
				neq_add(&row[mi], &pt[i], mi / ST_FIT_NFN,
					mi % ST_FIT_NFN);
	}

	for (k = ST_FIT_PIECE_MIN_D; k + ST_FIT_PIECE_MIN_D <= ndist; k++) {
		size_t cut = start[k];
		int np_lo, nd_lo, np_hi, nd_hi;
		double sc;

		count_levels(pt, cut, &np_lo, &nd_lo);
		count_levels(pt + cut, n - cut, &np_hi, &nd_hi);
		for (mi = 0; mi < NMODELS; mi++) {
			lo_sum[mi] = pre[k * NMODELS + mi];
			neq_sub(&pre[ndist * NMODELS + mi], &lo_sum[mi],
				&hi_sum[mi]);
		}
		sc = (double)cut * piece_gcv(lo_sum, cut, np_lo, nd_lo) +
		     (double)(n - cut) * piece_gcv(hi_sum, n - cut, np_hi,
						   nd_hi);
		if (!isfinite(sc))
			continue;
		/* Keep the SPLIT_EXACT lowest scores, in order. */
		for (c = ncand; c > 0 && score[c - 1] > sc; c--)
			if (c < SPLIT_EXACT) {
				score[c] = score[c - 1];
				cand[c] = cand[c - 1];
			}
		if (c < SPLIT_EXACT) {
			score[c] = sc;
			cand[c] = cut;
			if (ncand < SPLIT_EXACT)
				ncand++;
		}
	}

	for (c = 0; c < ncand; c++) {
		size_t cut = cand[c];
		double e;

		if (select_model(pt, cut, s->weighted, s->z, s->cur, NULL,
				 &lo) ||
		    select_model(pt + cut, n - cut, s->weighted, s->z,
				 s->cur + cut, NULL, &hi))
			continue;
		e = (lo.chosen.cv * (double)cut +
		     hi.chosen.cv * (double)(n - cut)) / (double)n;
		if (e < best) {
			best = e;
			*at = cut;
			memcpy(s->keep, s->cur, n * sizeof(*s->keep));
		}
	}
	if (isfinite(best)) {
		*cv = best;
		rc = 0;
	}
done:
	free(start);
	free(pre);
	return rc;
}

int st_fit_run(const struct st_fit_group *g, size_t ngroups,
	       const struct st_fit_options *opt, struct st_fit_result *out)
{
	struct st_fit_options def;
	struct selection single, lo, hi;
	struct scratch s = { 0, NULL, NULL, NULL, NULL };
	struct pt *pt = NULL;
	size_t n, at = 0;
	double cv_split = INFINITY, mean, se;
	int weighted, rc, split = 0;

	if (!opt) {
		st_fit_options_init(&def);
		opt = &def;
	}
	if (!out || check_options(opt))
		return -EINVAL;
	rc = make_points(g, ngroups, opt, &pt, &n, &weighted);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->weighted = s.weighted = weighted;
	out->n_groups = ngroups;
	out->n_groups_nosigma = ngroups - n;
	rc = -ENOMEM;
	s.z = malloc((FIT_SCRATCH(n) + 3 * n) * sizeof(*s.z) + 1);
	if (!s.z)
		goto done;
	s.single = s.z + FIT_SCRATCH(n);
	s.cur = s.single + n;
	s.keep = s.cur + n;

	rc = select_model(pt, n, weighted, s.z, NULL, s.single, &single);
	if (rc)
		goto done;
	out->cv_single = single.best.cv;
	if (opt->max_pieces > 1 && !best_split(pt, n, &s, &at, &cv_split)) {
		paired_diff(s.keep, s.single, n, &mean, &se);
		split = cv_split <= (1.0 - ST_FIT_SPLIT_GAIN) *
				    single.best.cv &&
			mean + ST_FIT_SPLIT_NSE * se < 0.0 &&
			-mean > cv_floor(pt, n);
	}
	if (split) {
		/* Selections are deterministic: redo the kept one. */
		if ((rc = select_model(pt, at, weighted, s.z, NULL, NULL,
				       &lo)) ||
		    (rc = select_model(pt + at, n - at, weighted, s.z, NULL,
				       NULL, &hi)))
			goto done;
		out->npieces = 2;
		out->d_below = pt[at - 1].d;
		out->d_split = pt[at].d;
		out->cv = cv_split;
		rc = make_piece(&lo.chosen, pt, at, weighted, lo.flags,
				opt->level, &out->piece[0]);
		if (!rc)
			rc = make_piece(&hi.chosen, pt + at, n - at, weighted,
					hi.flags, opt->level, &out->piece[1]);
		out->piece[0].nalt = lo.nalt;
		memcpy(out->piece[0].alt, lo.alt, sizeof(lo.alt));
		out->piece[1].nalt = hi.nalt;
		memcpy(out->piece[1].alt, hi.alt, sizeof(hi.alt));
		out->flags = lo.flags | hi.flags;
	} else {
		out->npieces = 1;
		out->cv = single.chosen.cv;
		rc = make_piece(&single.chosen, pt, n, weighted, single.flags,
				opt->level, &out->piece[0]);
		out->piece[0].nalt = single.nalt;
		memcpy(out->piece[0].alt, single.alt, sizeof(single.alt));
		out->flags = single.flags;
	}
	out->n_groups_used = n;
	out->n_samples = out->piece[0].n_samples +
			 (out->npieces > 1 ? out->piece[1].n_samples : 0);
done:
	free(s.z);
	free(pt);
	return rc;
}

int st_fit_one(const struct st_fit_group *g, size_t ngroups, int f,
	       int gfn, const struct st_fit_options *opt,
	       struct st_fit_piece *out)
{
	struct st_fit_options def;
	struct model_fit mf;
	struct pt *pt = NULL;
	double *z = NULL;
	size_t n;
	int weighted, rc, np, nd;

	if (!opt) {
		st_fit_options_init(&def);
		opt = &def;
	}
	if (!out || check_options(opt) || f < 0 || f >= ST_FIT_NFN ||
	    f == ST_FIT_ONE || gfn < 0 || gfn >= ST_FIT_NFN)
		return -EINVAL;
	rc = make_points(g, ngroups, opt, &pt, &n, &weighted);
	if (rc)
		return rc;
	rc = -ENOMEM;
	z = malloc(FIT_SCRATCH(n) * sizeof(*z) + 1);
	if (!z)
		goto done;
	rc = n ? fit_model(pt, n, f, gfn, 0, z, NULL, &mf) : -EDOM;
	if (rc)
		goto done;
	count_levels(pt, n, &np, &nd);
	rc = make_piece(&mf, pt, n, weighted, level_flags(np, nd),
			opt->level, out);
done:
	free(z);
	free(pt);
	return rc;
}

int st_fit_eval(const struct st_fit_result *fit, long p, double d,
		double *t_ns, double *se_ns)
{
	const struct st_fit_piece *pc;
	double x[3], t = 0.0, v = 0.0;
	int j, k;

	if (!fit || !t_ns || fit->npieces < 1 ||
	    fit->npieces > ST_FIT_MAX_PIECES || p < 1 || !isfinite(d) ||
	    d < 0.0)
		return -EINVAL;
	pc = &fit->piece[fit->npieces > 1 && d >= fit->d_split];
	x[0] = 1.0;
	x[1] = st_fit_fn_value(pc->f, (double)p);
	x[2] = st_fit_fn_value(pc->g, (double)p) * d;
	for (j = 0; j < 3; j++) {
		t += pc->coef[j] * x[j];
		for (k = 0; k < 3; k++)
			v += x[j] * pc->cov[j][k] * x[k];
	}
	*t_ns = t;
	if (se_ns)
		*se_ns = sqrt(fmax(0.0, v));
	return 0;
}

/* Text being built in a caller's buffer, counted as snprintf does. */
struct text {
	char *buf;
	size_t len, pos;
};

__attribute__((format(printf, 2, 3)))
static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(t->pos < t->len ? t->buf + t->pos : NULL,
		      t->pos < t->len ? t->len - t->pos : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		t->pos += (size_t)k;
}

/*
 * A value with its unit: 'v' in the base unit, 'ladder' the units from
 * the smallest with their sizes in base units and the upper bound of
 * the magnitude (base units) each is used for.
 */
struct unit {
	const char *name;
	double size, upto;
};

static const struct unit time_units[] = {
	{ "ns", 1.0, 999.5 },
	{ "us", 1e3, 999.5e3 },
	{ "ms", 1e6, 999.5e6 },
	{ "s", 1e9, INFINITY },
};

/* Per-byte costs, base unit ns/B. */
static const struct unit byte_units[] = {
	{ "ps/B", 1e-3, 0.09995 },
	{ "ns/B", 1.0, 9.995 },
	{ "us/KiB", 1e3 / 1024.0, 999.5e3 / 1024.0 },
	{ "ms/KiB", 1e6 / 1024.0, INFINITY },
};

static const struct unit *pick_unit(const struct unit *ladder, double v)
{
	while (fabs(v) >= ladder->upto)
		ladder++;
	return ladder;
}

/* A half-width to two significant digits, without an exponent. */
static void add_half(struct text *t, double half)
{
	if (half >= 100.0 && half < 1e6)
		text_add(t, "%.0f", half);
	else
		text_add(t, "%.2g", half);
}

/*
 * Coefficient 'j' of 'pc' as the 'first' term or a later one; 'v' is
 * its value, 0 when the term is rounding (see add_piece).
 */
static void add_coef(struct text *t, const struct st_fit_piece *pc, int j,
		     double v, int first, unsigned flags)
{
	const struct unit *u = pick_unit(j == 2 ? byte_units : time_units,
					 v);

	v /= u->size;
	if (v == 0.0)
		v = 0.0;	/* no "-0" */
	if (flags & ST_FIT_FMT_CI) {
		text_add(t, "%s(%.3g +- ", first ? "" : " + ", v);
		add_half(t, 0.5 * (pc->ci_hi[j] - pc->ci_lo[j]) / u->size);
		text_add(t, ") %s", u->name);
	} else if (first) {
		text_add(t, "%.3g %s", v, u->name);
	} else {
		text_add(t, " %c %.3g %s", v < 0.0 ? '-' : '+', fabs(v),
			 u->name);
	}
}

static int check_piece(const struct st_fit_piece *pc)
{
	return pc->f < 0 || pc->f >= ST_FIT_NFN || pc->f == ST_FIT_ONE ||
	       pc->g < 0 || pc->g >= ST_FIT_NFN;
}

/*
 * A coefficient whose term, at the largest p and d of the piece, is
 * below 1e-9 of the largest term is rounding (an exact zero fitted
 * through floating point) and printed as 0, not as "-2.54e-13 ns".
 */
static void add_piece(struct text *t, const struct st_fit_piece *pc,
		      unsigned flags)
{
	double p = pc->p_max > 2 ? (double)pc->p_max : 2.0;
	double d = pc->d_max > 1.0 ? pc->d_max : 1.0, v[3], mag[3], big;
	int j;

	mag[0] = fabs(pc->coef[0]);
	mag[1] = fabs(pc->coef[1] * st_fit_fn_value(pc->f, p));
	mag[2] = fabs(pc->coef[2] * st_fit_fn_value(pc->g, p) * d);
	big = fmax(mag[0], fmax(mag[1], mag[2]));
	for (j = 0; j < 3; j++)
		v[j] = mag[j] < 1e-9 * big ? 0.0 : pc->coef[j];

	add_coef(t, pc, 0, v[0], 1, flags);
	if (pc->f != ST_FIT_NONE) {
		add_coef(t, pc, 1, v[1], 0, flags);
		text_add(t, "*%s", st_fit_fn_name(pc->f));
	}
	if (pc->g != ST_FIT_NONE) {
		add_coef(t, pc, 2, v[2], 0, flags);
		if (pc->g != ST_FIT_ONE)
			text_add(t, "*%s", st_fit_fn_name(pc->g));
		text_add(t, "*d");
	}
}

int st_fit_piece_format(const struct st_fit_piece *pc, unsigned flags,
			char *buf, size_t len)
{
	struct text t = { buf, len, 0 };

	if (!pc || (!buf && len) || check_piece(pc))
		return -EINVAL;
	if (len)
		buf[0] = '\0';
	add_piece(&t, pc, flags);
	return (int)t.pos;
}

/* A size in bytes: "64 KiB" when exact, else three digits. */
static void add_size(struct text *t, double d)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB",
					     "TiB" };
	int k = 0;

	while (k < 4 && d >= 1024.0) {
		d /= 1024.0;
		k++;
	}
	if (d == floor(d))
		text_add(t, "%.0f %s", d, names[k]);
	else
		text_add(t, "%.3g %s", d, names[k]);
}

int st_fit_format(const struct st_fit_result *fit, unsigned flags,
		  char *buf, size_t len)
{
	struct text t = { buf, len, 0 };
	int i;

	if (!fit || (!buf && len) || fit->npieces < 1 ||
	    fit->npieces > ST_FIT_MAX_PIECES)
		return -EINVAL;
	for (i = 0; i < fit->npieces; i++)
		if (check_piece(&fit->piece[i]))
			return -EINVAL;
	if (len)
		buf[0] = '\0';
	if (fit->npieces == 1) {
		add_piece(&t, &fit->piece[0], flags);
		return (int)t.pos;
	}
	text_add(&t, "d <= ");
	add_size(&t, fit->d_below);
	text_add(&t, ": ");
	add_piece(&t, &fit->piece[0], flags);
	text_add(&t, "; d >= ");
	add_size(&t, fit->d_split);
	text_add(&t, ": ");
	add_piece(&t, &fit->piece[1], flags);
	return (int)t.pos;
}

int st_fit_format_q(const struct st_fit_piece *pc, char *buf, size_t len)
{
	if (!pc || (!buf && len))
		return -EINVAL;
	if (!pc->has_q)
		return snprintf(buf, len, "n/a");
	if (pc->q < 0.001)
		return snprintf(buf, len, "<0.001");
	return snprintf(buf, len, "%.2g", pc->q);
}
