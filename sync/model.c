/*
 * sync/model.c: the linear clock model (apply, invert, merge) and the
 * least squares line fitted through offset samples.  A model is the
 * affine map g = (1 - slope) t - intercept, so chaining two is composing
 * two affine maps; the fit centres its data first, because local times
 * reach 1e13 ns over a long run and offsets 1e9 ns.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sync/internal.h"

struct st_clock_model st_clock_model_identity(void)
{
	struct st_clock_model m = { 0.0, 0.0 };

	return m;
}

double st_clock_model_apply(struct st_clock_model m, double t_ns)
{
	return t_ns - (m.slope * t_ns + m.intercept);
}

int st_clock_model_invert(struct st_clock_model m, struct st_clock_model *out)
{
	double k = 1.0 - m.slope;

	if (!isfinite(m.slope) || !isfinite(m.intercept) || k == 0.0 ||
	    !isfinite(1.0 / k))
		return -EINVAL;
	/* t = (g + i) / (1 - s) = g - (s' g + i') */
	out->slope = -m.slope / k;
	out->intercept = -m.intercept / k;
	return 0;
}

struct st_clock_model st_clock_model_merge(struct st_clock_model upper,
					   struct st_clock_model lower)
{
	struct st_clock_model m;

	/*
	 * (1 - s) = (1 - s_u)(1 - s_l);
	 * g = (1 - s_u)((1 - s_l) t - i_l) - i_u.
	 */
	m.slope = upper.slope + lower.slope - upper.slope * lower.slope;
	m.intercept = upper.intercept + lower.intercept -
		      upper.slope * lower.intercept;
	return m;
}

static const char *const method_names[ST_SYNC_NMETHODS] = {
	[ST_SYNC_HCA] = "hca",
	[ST_SYNC_HCA2] = "hca2",
	[ST_SYNC_SKAMPI] = "skampi",
	[ST_SYNC_SKAMPI_TREE] = "skampi-tree",
	[ST_SYNC_JK] = "jk",
};

const char *st_sync_method_name(int method)
{
	if (method < 0 || method >= ST_SYNC_NMETHODS)
		return "?";
	return method_names[method];
}

int st_sync_method_parse(const char *name)
{
	int i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < ST_SYNC_NMETHODS; i++)
		if (!strcmp(name, method_names[i]))
			return i;
	return -EINVAL;
}

void st_sync_params_init(struct st_sync_params *p)
{
	memset(p, 0, sizeof(*p));
	p->method = ST_SYNC_HCA;
	p->fit_points = 32;
	p->exchanges = 8;
	p->fit_span_ns = 20000000;
	p->pingpongs = 32;
	p->min_pingpongs = 8;
	p->rtt_pingpongs = 100;
	p->refresh_points = 2;
	p->leader = NULL;
}

double st_sync_estimate_err_at(const struct st_sync_estimate *e, double t_ns)
{
	return e->err_ns + e->slope_err * fabs(t_ns - e->anchor_ns);
}

int st_samples_push(struct st_samples *a, const struct st_sync_sample *x)
{
	if (a->n == a->alloc) {
		size_t alloc = a->alloc ? 2 * a->alloc : 64;
		struct st_sync_sample *v;

		if (alloc > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = realloc(a->v, alloc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
		a->alloc = alloc;
	}
	a->v[a->n++] = *x;
	return 0;
}

void st_samples_release(struct st_samples *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void st_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

int st_fit_samples(const struct st_sync_sample *v, size_t n, double at,
		   struct st_fit *out)
{
	double cut, xm = 0, ym = 0, sw = 0, sxx = 0, sxy = 0, ssr = 0, lo, hi;
	double s2;
	size_t i, used = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	/*
	 * Weighted least squares: a point's offset is wrong by at most half
	 * its round trip, so it weighs 1/rtt^2.  A point taken while
	 * something (a preemption, a busy link) delayed one direction counts
	 * for little, but is not thrown away: a refresh adds only a couple of
	 * points, and a hard cut at some multiple of the median round trip
	 * dropped them all whenever the refresh met a busy moment, leaving
	 * the slope of the short init span; nor do points taken while the
	 * machine was busy (all of them, at times: a loaded MPI_Init) set
	 * what counts as an outlier.
	 */
	cut = INFINITY;
	used = 0;
	lo = INFINITY;
	hi = -INFINITY;
	out->min_rtt = INFINITY;
	for (i = 0; i < n; i++) {
		double w;

		if (v[i].rtt_ns > cut)
			continue;
		w = 1.0 / fmax(v[i].rtt_ns * v[i].rtt_ns, 1.0);
		used++;
		sw += w;
		xm += w * (v[i].t_ns - xm) / sw;
		ym += w * (v[i].offset_ns - ym) / sw;
		lo = fmin(lo, v[i].t_ns);
		hi = fmax(hi, v[i].t_ns);
		out->min_rtt = fmin(out->min_rtt, v[i].rtt_ns);
	}
	for (i = 0; i < n; i++) {
		double dx, dy, w;

		if (v[i].rtt_ns > cut)
			continue;
		w = 1.0 / fmax(v[i].rtt_ns * v[i].rtt_ns, 1.0);
		dx = v[i].t_ns - xm;
		dy = v[i].offset_ns - ym;
		sxx += w * dx * dx;
		sxy += w * dx * dy;
	}
	out->n = used;
	out->xm = xm;
	out->span_ns = hi - lo;
	if (sxx <= 0.0) {
		out->m.slope = 0.0;
		out->m.intercept = ym;
		out->slope_se = NAN;
		out->at_se = NAN;
		return 0;
	}
	out->m.slope = sxy / sxx;
	out->m.intercept = ym - out->m.slope * xm;
	for (i = 0; i < n; i++) {
		double r, w;

		if (v[i].rtt_ns > cut)
			continue;
		w = 1.0 / fmax(v[i].rtt_ns * v[i].rtt_ns, 1.0);
		r = v[i].offset_ns - (ym + out->m.slope * (v[i].t_ns - xm));
		ssr += w * r * r;
	}
	if (used < 3) {
		out->slope_se = NAN;
		out->at_se = NAN;
		return 0;
	}
	/* Weighted residual variance per unit weight, as in WLS. */
	s2 = ssr / (double)(used - 2);
	out->slope_se = sqrt(s2 / sxx);
	out->at_se = sqrt(s2 * (1.0 / sw + (at - xm) * (at - xm) / sxx));
	return 0;
}

double st_sample_half(const struct st_sync_sample *x)
{
	return x->rtt_ns / 2.0 * (1.0 + 1e-3) + 2.0;
}

void st_slope_bounds(const struct st_sync_sample *v, size_t first, size_t n,
		     double *lo, double *hi)
{
	size_t i, j;

	/*
	 * Sample i allows the offsets o_i - h_i .. o_i + h_i at t_i; a line
	 * of slope a through both i and j (t_i < t_j) has
	 * (o_j - h_j - o_i - h_i) / dt <= a <= (o_j + h_j - o_i + h_i) / dt.
	 */
	for (j = first; j < n; j++) {
		double hj = st_sample_half(&v[j]);

		for (i = 0; i < j; i++) {
			const struct st_sync_sample *a = &v[i], *b = &v[j];
			double hi_ = st_sample_half(&v[i]), h2 = hj, dt;

			dt = b->t_ns - a->t_ns;
			if (dt < 0) {
				const struct st_sync_sample *t = a;

				a = b;
				b = t;
				dt = -dt;
				hi_ = hj;
				h2 = st_sample_half(&v[i]);
			}
			if (!(dt > 0))
				continue;
			*lo = fmax(*lo, (b->offset_ns - h2 - a->offset_ns -
					 hi_) / dt);
			*hi = fmin(*hi, (b->offset_ns + h2 - a->offset_ns +
					 hi_) / dt);
		}
	}
}
