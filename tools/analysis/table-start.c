/*
 * tools/analysis/table-start.c: the table's start rows (see
 * tools/analysis/table.h, st_table_add_start()).  Each send of a
 * bench's start probe is kept by launch, rank and size in the order it
 * came; st_table_finish() makes a row per size from the series.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/grow.h"
#include "tools/analysis/stats.h"
#include "tools/analysis/table.h"

struct start_smp {
	double bytes;
	uint32_t run;
	int rank;
	size_t idx;		/* order of arrival */
	double x;
};

struct st_table_starts {
	struct start_smp *s;
	size_t n, alloc;
	struct st_table_start *rows;
	size_t nrows;
};

int st_tstart_add(struct st_table_starts **sp, uint32_t run, int rank,
		  double bytes, double send_ns)
{
	struct st_table_starts *st = *sp;

	if (!(bytes >= 0) || !isfinite(bytes) || !isfinite(send_ns) ||
	    rank < 0)
		return -EINVAL;
	if (!st && !(st = *sp = calloc(1, sizeof(*st))))
		return -ENOMEM;
	if (ST_GROW(st->s, st->n, st->alloc))
		return -ENOMEM;
	st->s[st->n] = (struct start_smp){ .bytes = bytes, .run = run,
					   .rank = rank, .idx = st->n,
					   .x = send_ns > 0 ? send_ns : 0 };
	st->n++;
	return 0;
}

static int cmp_smp(const void *a, const void *b)
{
	const struct start_smp *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Median of v[0..n-1] (n >= 1, finite), sorting v. */
static double median(double *v, size_t n)
{
	double m = NAN;

	if (!st_stats_sort(v, n))
		st_stats_median(v, n, &m);
	return m;
}

/*
 * One row from the series s[0..n-1] of one size (sorted by launch,
 * rank, order): each series of ST_TABLE_START_MIN sends or more counts.
 */
static int make_row(const struct start_smp *s, size_t n,
		    struct st_table_start *row)
{
	double *steady = NULL, *ex = NULL, *col = NULL, *tmp = NULL;
	size_t i, j, k, ns = 0, len, nser = 0;
	int rc = -ENOMEM;

	memset(row, 0, sizeof(*row));
	row->bytes = s[0].bytes;
	/* Memory by series (each up to ST_TABLE_START_MSGS sends). */
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && s[j].run == s[i].run &&
			    s[j].rank == s[i].rank; j++)
			;
		nser++;
	}
	steady = malloc(nser * sizeof(*steady));
	ex = malloc(nser * sizeof(*ex));
	col = calloc((size_t)ST_TABLE_START_MSGS * nser, sizeof(*col));
	tmp = malloc((nser > ST_TABLE_START_MSGS ? nser :
		      ST_TABLE_START_MSGS) * sizeof(*tmp));
	if (!steady || !ex || !col || !tmp)
		goto out;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && s[j].run == s[i].run &&
			    s[j].rank == s[i].rank; j++)
			;
		len = j - i;
		if (len > ST_TABLE_START_MSGS)
			len = ST_TABLE_START_MSGS;
		if (len < ST_TABLE_START_MIN)
			continue;
		/* The later half is the steady state. */
		for (k = len / 2; k < len; k++)
			tmp[k - len / 2] = s[i + k].x;
		steady[ns] = median(tmp, len - len / 2);
		ex[ns] = 0;
		for (k = 0; k < len; k++) {
			col[k * nser + ns] = s[i + k].x - steady[ns];
			ex[ns] += s[i + k].x - steady[ns];
		}
		for (; k < ST_TABLE_START_MSGS; k++)
			col[k * nser + ns] = 0;
		if (len > row->msgs)
			row->msgs = len;
		ns++;
	}
	row->series = ns;
	rc = 0;
	if (!ns)
		goto out;
	for (k = 0; k < ST_TABLE_START_MSGS; k++) {
		double m = median(col + k * nser, ns);

		row->profile_ns[k] = m > 0 ? m : 0;
		if (row->profile_ns[k] > 0)
			row->profile_sum_ns += row->profile_ns[k];
	}
	memcpy(tmp, ex, ns * sizeof(*tmp));
	row->excess_ns = median(tmp, ns);
	row->excess_min_ns = tmp[0];
	row->excess_max_ns = tmp[ns - 1];
	row->steady_ns = median(steady, ns);
	for (k = 0; k < ST_TABLE_START_MSGS; k++)
		if (row->profile_ns[k] > 2 * row->steady_ns + 1000)
			row->slow = k + 1;
out:
	free(steady);
	free(ex);
	free(col);
	free(tmp);
	return rc;
}

int st_tstart_finish(struct st_table_starts *st)
{
	size_t i, j, nr = 0;

	if (!st || st->rows)
		return 0;
	qsort(st->s, st->n, sizeof(*st->s), cmp_smp);
	for (i = 0; i < st->n; i = j) {
		for (j = i; j < st->n && st->s[j].bytes == st->s[i].bytes; j++)
			;
		nr++;
	}
	if (nr && !(st->rows = calloc(nr, sizeof(*st->rows))))
		return -ENOMEM;
	for (i = 0; i < st->n; i = j) {
		for (j = i; j < st->n && st->s[j].bytes == st->s[i].bytes; j++)
			;
		if (make_row(st->s + i, j - i, &st->rows[st->nrows]))
			return -ENOMEM;
		if (st->rows[st->nrows].series)
			st->nrows++;
	}
	return 0;
}

size_t st_tstart_nrows(const struct st_table_starts *st)
{
	return st ? st->nrows : 0;
}

const struct st_table_start *st_tstart_row(const struct st_table_starts *st,
					   size_t i)
{
	return st && i < st->nrows ? &st->rows[i] : NULL;
}

void st_tstart_free(struct st_table_starts *st)
{
	if (!st)
		return;
	free(st->s);
	free(st->rows);
	free(st);
}
