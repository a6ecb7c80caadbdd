/*
 * tools/analysis/compare.c: two cost tables compared group by group
 * through their per-launch medians (see tools/analysis/compare.h).  The
 * groups of each table are sorted by (operation, p, d) and merged; each
 * matched pair is tested on the logarithms of its launch medians, so
 * that the shift is a ratio, the same whether the operation takes 1 us
 * or 1 ms; then the p-values of all pairs are adjusted together.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/compare.h"
#include "tools/analysis/stats.h"

#define D_TOLERANCE 1e-6	/* relative: sizes this close are one */
#define MIN_NS 1.0		/* a launch median counts as at least this */

static int cmp_key(const struct st_cmp_group *x, const struct st_cmp_group *y)
{
	int c = strcmp(x->op, y->op);

	if (c)
		return c;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (fabs(x->d - y->d) <= D_TOLERANCE * fmax(fabs(x->d), fabs(y->d)))
		return 0;
	return x->d < y->d ? -1 : 1;
}

static int cmp_idx(const void *a, const void *b, void *ctx)
{
	const struct st_cmp_group *g = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = cmp_key(&g[i], &g[j]);

	return c ? c : (i > j) - (i < j);
}

static int cmp_row(const void *a, const void *b)
{
	const struct st_cmp_row *x = a, *y = b;

	return (x->ia > y->ia) - (x->ia < y->ia);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The indices of 'g' (n groups) sorted by key, malloc()ed into '*out';
 * -EINVAL when a group is malformed or a key comes twice.
 */
static int sorted_index(const struct st_cmp_group *g, size_t n, size_t **out)
{
	size_t *v = malloc((n + 1) * sizeof(*v)), i, k;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!g[i].op || !isfinite(g[i].d) ||
		    (g[i].nruns && !g[i].run_ns)) {
			free(v);
			return -EINVAL;
		}
		for (k = 0; k < g[i].nruns; k++)
			if (!isfinite(g[i].run_ns[k])) {
				free(v);
				return -EINVAL;
			}
		v[i] = i;
	}
	qsort_r(v, n, sizeof(*v), cmp_idx, (void *)g);
	for (i = 1; i < n; i++)
		if (!cmp_key(&g[v[i - 1]], &g[v[i]])) {
			free(v);
			return -EINVAL;
		}
	*out = v;
	return 0;
}

/* Logarithms of the launch medians of 'g' into 'out'; their median. */
static double logs(const struct st_cmp_group *g, double *out)
{
	double *tmp = out + g->nruns, m;
	size_t i;

	for (i = 0; i < g->nruns; i++)
		out[i] = tmp[i] = log(fmax(g->run_ns[i], MIN_NS));
	qsort(tmp, g->nruns, sizeof(*tmp), cmp_double);
	st_stats_median(tmp, g->nruns, &m);
	return m;
}

/* Test one matched pair; the verdict waits for the adjusted p. */
static int test_row(const struct st_cmp_group *ga,
		    const struct st_cmp_group *gb, double level,
		    struct st_cmp_row *row)
{
	struct st_ranksum rs;
	double *la, *lb;
	int rc;

	row->a_ns = row->b_ns = NAN;
	row->diff = row->lo = row->hi = row->p = row->q = NAN;
	if (!ga->nruns || !gb->nruns) {
		row->verdict = ST_CMP_TOO_FEW;
		return 0;
	}
	la = malloc(2 * (ga->nruns + gb->nruns) * sizeof(*la));
	if (!la)
		return -ENOMEM;
	lb = la + 2 * ga->nruns;
	row->a_ns = exp(logs(ga, la));
	row->b_ns = exp(logs(gb, lb));
	if (ga->nruns < 2 || gb->nruns < 2) {
		row->verdict = ST_CMP_TOO_FEW;
		free(la);
		return 0;
	}
	rc = st_stats_ranksum(la, ga->nruns, lb, gb->nruns, level, &rs);
	free(la);
	if (rc)
		return rc;
	row->diff = expm1(rs.shift);
	if (rs.ci_ok) {
		row->lo = expm1(rs.lo);
		row->hi = expm1(rs.hi);
	}
	row->p = rs.p;
	return 0;
}

int st_compare(const struct st_cmp_group *a, size_t na,
	       const struct st_cmp_group *b, size_t nb, double level,
	       double resolve, struct st_cmp_result *r)
{
	size_t *ia = NULL, *ib = NULL, i = 0, j = 0, k;
	double *p = NULL, *ad = NULL;
	int rc;

	if (!r || (na && !a) || (nb && !b) || !(level >= 0.5 && level < 1) ||
	    !(resolve > 0) || !isfinite(resolve))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->level = level;
	r->resolve = resolve;
	r->median_abs_diff = NAN;
	rc = sorted_index(a, na, &ia);
	if (!rc)
		rc = sorted_index(b, nb, &ib);
	if (rc)
		goto out;
	rc = -ENOMEM;
	r->rows = malloc((na + 1) * sizeof(*r->rows));
	r->only_a = malloc((na + 1) * sizeof(*r->only_a));
	r->only_b = malloc((nb + 1) * sizeof(*r->only_b));
	if (!r->rows || !r->only_a || !r->only_b)
		goto out;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 :
			cmp_key(&a[ia[i]], &b[ib[j]]);

		if (c < 0) {
			r->only_a[r->n_only_a++] = ia[i++];
		} else if (c > 0) {
			r->only_b[r->n_only_b++] = ib[j++];
		} else {
			struct st_cmp_row *row = &r->rows[r->nrows++];

			row->ia = ia[i];
			row->ib = ib[j];
			rc = test_row(&a[ia[i++]], &b[ib[j++]], level, row);
			if (rc)
				goto out;
		}
	}
	qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_row);

	/* Adjust the p-values together, then judge each row. */
	rc = -ENOMEM;
	p = malloc((r->nrows + 1) * sizeof(*p));
	ad = malloc((r->nrows + 1) * sizeof(*ad));
	if (!p || !ad)
		goto out;
	for (k = 0; k < r->nrows; k++)
		p[k] = r->rows[k].p;
	rc = st_stats_bh(p, r->nrows, p);
	if (rc)
		goto out;
	for (k = 0; k < r->nrows; k++) {
		struct st_cmp_row *row = &r->rows[k];

		row->q = p[k];
		if (!isnan(row->diff))
			ad[r->n_diff++] = fabs(row->diff);
		if (row->verdict == ST_CMP_TOO_FEW) {
			r->n_too_few++;
		} else if (row->q <= 1 - level) {
			row->verdict = ST_CMP_DIFFERS;
			r->n_differs++;
			if (row->diff > 0)
				r->n_slower++;
			else
				r->n_faster++;
		} else if (row->lo >= -resolve && row->hi <= resolve) {
			row->verdict = ST_CMP_SAME;
			r->n_same++;
		} else {
			row->verdict = ST_CMP_UNRESOLVED;
			r->n_unresolved++;
		}
	}
	r->median_diff = NAN;
	if (r->n_diff) {
		qsort(ad, r->n_diff, sizeof(*ad), cmp_double);
		st_stats_median(ad, r->n_diff, &r->median_abs_diff);
		for (k = 0, i = 0; k < r->nrows; k++)
			if (!isnan(r->rows[k].diff))
				ad[i++] = r->rows[k].diff;
		qsort(ad, i, sizeof(*ad), cmp_double);
		st_stats_median(ad, i, &r->median_diff);
	}
	if (r->n_differs >= 10 && fabs(r->median_diff) >= resolve / 2) {
		size_t way = r->median_diff > 0 ? r->n_slower : r->n_faster;

		r->one_way = 10 * way >= 9 * r->n_differs;
	}
	rc = 0;
out:
	free(ia);
	free(ib);
	free(p);
	free(ad);
	if (rc)
		st_cmp_result_release(r);
	return rc;
}

void st_cmp_result_release(struct st_cmp_result *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->only_a);
	free(r->only_b);
	r->rows = NULL;
	r->only_a = r->only_b = NULL;
	r->nrows = r->n_only_a = r->n_only_b = 0;
}

const char *st_cmp_verdict_name(int verdict)
{
	switch (verdict) {
	case ST_CMP_SAME:
		return "same";
	case ST_CMP_DIFFERS:
		return "differs";
	case ST_CMP_UNRESOLVED:
		return "unresolved";
	case ST_CMP_TOO_FEW:
		return "too few launches";
	}
	return "?";
}
