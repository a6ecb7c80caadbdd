/*
 * tools/analysis/table.c: the samples of a cost table, their groups, summaries
 * and fits (see tools/analysis/table.h).  Samples are kept whole, one cost, run
 * and clock error each, since a median needs them all; a group is found
 * by hashing (operation, p, size key).  st_table_finish() sorts each
 * group's samples by cost, keeping run and error aligned, so that after
 * Tukey's fences the kept samples are a contiguous slice from which the
 * per-run medians are read in order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/fn-names.h"
#include "tools/analysis/table-map.h"
#include "tools/analysis/table.h"
#include "writer/fn-info.h"

struct st_table {
	struct st_table_options o;
	struct st_table_op *ops;
	size_t nops, alloc_ops;
	struct st_table_group *groups;
	size_t ngroups, alloc_groups;
	struct st_tmap op_of;	/* (kind, fn, fn2) -> op index */
	struct st_tmap group_of; /* (op, p, size key) -> group index */
	struct st_tmap first_of; /* (kind|fn|fn2, p, size key) -> the
				    last run (+ 1) whose first it has */
	struct first_smp *first;  /* first-call samples, to be matched to
				     their groups by st_table_finish() */
	size_t nfirst, alloc_first;
	uint64_t nsamples;
	double err_median, err_max;
	int finished;
};

/* A first-call sample, by its group's key. */
struct first_smp {
	int kind;
	unsigned fn, fn2;
	long p;
	uint64_t key;
	double x;
	size_t group;		/* set by st_table_finish() */
};

static const struct {
	int cls;
	const char *rule;
} size_rules[] = {
	{ ST_BYTES_BARRIER, "0: no data" },
	{ ST_BYTES_NONE, "0: no data" },
	{ ST_BYTES_WRITE, "S/p: what one rank writes (mean)" },
	{ ST_BYTES_READ, "R/p: what one rank reads (mean)" },
	{ ST_BYTES_BCAST, "S: the message" },
	{ ST_BYTES_REDUCE, "S/p: the vector" },
	{ ST_BYTES_ALLREDUCE, "S/p: the vector" },
	{ ST_BYTES_SCAN, "S/p: the vector" },
	{ ST_BYTES_REDUCE_SCATTER, "R/p: one rank's block (mean)" },
	{ ST_BYTES_REDUCE_SCATTER_BLOCK, "R/p: one rank's block" },
	{ ST_BYTES_GATHER, "S/p: one rank's block" },
	{ ST_BYTES_GATHERV, "S/p: one rank's block (mean)" },
	{ ST_BYTES_ALLGATHER, "S/p: one rank's block" },
	{ ST_BYTES_ALLGATHERV, "S/p: one rank's block (mean)" },
	{ ST_BYTES_SCATTER, "R/p: one rank's block" },
	{ ST_BYTES_SCATTERV, "R/p: one rank's block (mean)" },
	{ ST_BYTES_ALLTOALL, "S/p^2: one block per pair" },
	{ ST_BYTES_ALLTOALLV, "S/p^2: one block per pair (mean)" },
	{ ST_BYTES_ALLTOALLW, "S/p^2: one block per pair (mean)" },
	{ ST_BYTES_NBR_ALLGATHER, "S/p: what one rank sends" },
	{ ST_BYTES_NBR_ALLGATHERV, "S/p: what one rank sends" },
	{ ST_BYTES_NBR_ALLTOALL, "S/p: what one rank sends in all" },
	{ ST_BYTES_NBR_ALLTOALLV, "S/p: what one rank sends in all" },
	{ ST_BYTES_NBR_ALLTOALLW, "S/p: what one rank sends in all" },
};

const char *st_table_size_rule(int bytes_class)
{
	size_t i;

	for (i = 0; i < sizeof(size_rules) / sizeof(size_rules[0]); i++)
		if (size_rules[i].cls == bytes_class)
			return size_rules[i].rule;
	return NULL;
}

int st_table_coll_size(int bytes_class, long p, uint64_t sbytes,
		       uint64_t rbytes, double *d)
{
	double s = (double)sbytes, r = (double)rbytes, n = (double)p;

	if (p < 1)
		return -EINVAL;
	switch (bytes_class) {
	case ST_BYTES_NONE:
	case ST_BYTES_BARRIER:
		*d = 0;
		return 0;
	case ST_BYTES_BCAST:
		*d = s;
		return 0;
	case ST_BYTES_REDUCE:
	case ST_BYTES_ALLREDUCE:
	case ST_BYTES_SCAN:
	case ST_BYTES_GATHER:
	case ST_BYTES_GATHERV:
	case ST_BYTES_ALLGATHER:
	case ST_BYTES_ALLGATHERV:
	case ST_BYTES_NBR_ALLGATHER:
	case ST_BYTES_NBR_ALLGATHERV:
	case ST_BYTES_NBR_ALLTOALL:
	case ST_BYTES_NBR_ALLTOALLV:
	case ST_BYTES_NBR_ALLTOALLW:
	case ST_BYTES_WRITE:
		*d = s / n;
		return 0;
	case ST_BYTES_READ:
	case ST_BYTES_REDUCE_SCATTER:
	case ST_BYTES_REDUCE_SCATTER_BLOCK:
	case ST_BYTES_SCATTER:
	case ST_BYTES_SCATTERV:
		*d = r / n;
		return 0;
	case ST_BYTES_ALLTOALL:
	case ST_BYTES_ALLTOALLV:
	case ST_BYTES_ALLTOALLW:
		*d = s / (n * n);
		return 0;
	}
	return -EINVAL;
}

void st_table_options_init(struct st_table_options *o)
{
	o->tukey_k = 1.5;
	o->ci_level = 0.95;
	o->sigma_min_ns = 1.0;
	o->bins_per_octave = 0;
	o->max_pieces = 2;
	o->resolve = 0.05;
}

int st_table_new(struct st_table **out, const struct st_table_options *o)
{
	struct st_table *t;

	*out = NULL;
	if (o && (!(o->tukey_k >= 0) || !isfinite(o->tukey_k) ||
		  !(o->ci_level > 0 && o->ci_level < 1) ||
		  !(o->sigma_min_ns > 0) || o->bins_per_octave < 0 ||
		  o->bins_per_octave > 64 || o->max_pieces < 1 ||
		  o->max_pieces > ST_FIT_MAX_PIECES ||
		  !(o->resolve > 0 && o->resolve < 100)))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (o)
		t->o = *o;
	else
		st_table_options_init(&t->o);
	t->err_median = t->err_max = NAN;
	*out = t;
	return 0;
}

void st_table_free(struct st_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ngroups; i++) {
		free(t->groups[i].x);
		free(t->groups[i].run);
		free(t->groups[i].err);
		free(t->groups[i].run_med);
		free(t->groups[i].run_no);
	}
	for (i = 0; i < t->nops; i++)
		free(t->ops[i].groups);
	free(t->groups);
	free(t->ops);
	st_tmap_release(&t->op_of);
	st_tmap_release(&t->group_of);
	st_tmap_release(&t->first_of);
	free(t->first);
	free(t);
}

/* Double the array '*v' of '*alloc' elements of 'size' bytes if full. */
static int grow(void **v, size_t n, size_t *alloc, size_t size)
{
	size_t a;
	void *p;

	if (n < *alloc)
		return 0;
	a = *alloc ? 2 * *alloc : 16;
	p = realloc(*v, a * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*alloc = a;
	return 0;
}

const char *st_table_kind_name(int kind)
{
	static const char *const names[] = {
		[ST_TABLE_COLL] = "collective",
		[ST_TABLE_P2P] = "p2p",
		[ST_TABLE_CALL] = "call",
		[ST_TABLE_BURST] = "burst",
		[ST_TABLE_SEND_EAGER] = "send-eager",
		[ST_TABLE_SEND_RNDV] = "send-rendezvous",
		[ST_TABLE_RECV_LATE] = "recv-late",
	};

	return kind > 0 && kind < ST_TABLE_NKINDS ? names[kind] : "?";
}

/* Kinds whose rows name two functions, a send and a receive. */
static int two_fns(int kind)
{
	return kind == ST_TABLE_P2P || kind == ST_TABLE_BURST;
}

static void op_name(struct st_table_op *op)
{
	static const char *const what[] = {
		[ST_TABLE_CALL] = " (call)",
		[ST_TABLE_BURST] = " (burst)",
		[ST_TABLE_SEND_EAGER] = " (receiver late, eager)",
		[ST_TABLE_SEND_RNDV] = " (receiver late, rendezvous)",
		[ST_TABLE_RECV_LATE] = " (posted late)",
	};
	char b1[32], b2[32];
	const char *n1 = st_fn_name(op->fn, b1, sizeof(b1));
	const char *w = op->kind > ST_TABLE_P2P ? what[op->kind] : "";

	if (!two_fns(op->kind) || op->fn == op->fn2)
		snprintf(op->name, sizeof(op->name), "%s%s", n1, w);
	else
		snprintf(op->name, sizeof(op->name), "%s->%s%s", n1,
			 st_fn_name(op->fn2, b2, sizeof(b2)), w);
}

static int op_get(struct st_table *t, int kind, unsigned fn, unsigned fn2,
		  size_t *idx)
{
	const struct st_fn_desc *desc = st_fn_desc(fn);
	struct st_table_op *op;
	uint64_t *slot;
	int added;

	if (!desc || (two_fns(kind) && !st_fn_desc(fn2)) ||
	    kind < ST_TABLE_COLL || kind >= ST_TABLE_NKINDS)
		return -EINVAL;
	if (st_tmap_put(&t->op_of, (uint64_t)kind, fn, fn2, t->nops, &slot,
			&added))
		return -ENOMEM;
	if (!added) {
		*idx = (size_t)*slot;
		return 0;
	}
	if (grow((void **)&t->ops, t->nops, &t->alloc_ops, sizeof(*t->ops))) {
		st_tmap_del(&t->op_of, (uint64_t)kind, fn, fn2);
		return -ENOMEM;
	}
	op = &t->ops[t->nops];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->fn = fn;
	op->fn2 = two_fns(kind) ? fn2 : 0;
	op->bytes_class = desc->bytes;
	op_name(op);
	*idx = t->nops++;
	return 0;
}

/* The key of size 'd' in a group: its bits, or its bin. */
static uint64_t size_key(const struct st_table *t, double d)
{
	uint64_t k;

	if (t->o.bins_per_octave && d > 0)
		return (uint64_t)(int64_t)llround(log2(d) *
						  t->o.bins_per_octave) ^
		       (1ULL << 62);
	memcpy(&k, &d, sizeof(k));
	return k;
}

/*
 * Keep the sample as its group's first-call sample when it is the
 * group's first in 'run': 1 when it is, 0 when not, or -ENOMEM.
 */
static int note_first(struct st_table *t, int kind, unsigned fn,
		      unsigned fn2, long p, double d, uint32_t run,
		      double cost_ns)
{
	uint64_t a = (uint64_t)kind | (uint64_t)fn << 8 |
		     (uint64_t)fn2 << 32, key = size_key(t, d), *slot;
	struct first_smp *f;
	int added;

	if (st_tmap_put(&t->first_of, a, (uint64_t)p, key, 0, &slot, &added))
		return -ENOMEM;
	if (*slot == (uint64_t)run + 1)
		return 0;
	if (grow((void **)&t->first, t->nfirst, &t->alloc_first,
		 sizeof(*t->first)))
		return -ENOMEM;
	*slot = (uint64_t)run + 1;
	f = &t->first[t->nfirst++];
	f->kind = kind;
	f->fn = fn;
	f->fn2 = fn2;
	f->p = p;
	f->key = key;
	f->x = cost_ns > 0 ? cost_ns : 0;
	return 1;
}

/* Whether a sample can be added: the rules of st_table_add(). */
static int sample_ok(const struct st_table *t, int kind, unsigned fn,
		     unsigned fn2, long p, double d, double cost_ns)
{
	return !t->finished && isfinite(cost_ns) && p >= 1 && d >= 0 &&
	       isfinite(d) && st_fn_desc(fn) &&
	       (!two_fns(kind) || st_fn_desc(fn2)) &&
	       kind >= ST_TABLE_COLL && kind < ST_TABLE_NKINDS;
}

int st_table_add_first(struct st_table *t, int kind, unsigned fn,
		       unsigned fn2, long p, double d, uint32_t run,
		       double cost_ns)
{
	int rc;

	if (!sample_ok(t, kind, fn, fn2, p, d, cost_ns))
		return -EINVAL;
	rc = note_first(t, kind, fn, fn2, p, d, run, cost_ns);
	return rc < 0 ? rc : 0;
}

int st_table_add(struct st_table *t, int kind, unsigned fn, unsigned fn2,
		 long p, double d, uint32_t run, double cost_ns,
		 double wait_ns, double call_ns, double err_ns)
{
	struct st_table_group *g;
	struct st_table_op *op;
	uint64_t *slot;
	size_t oi;
	int added, rc;

	if (!sample_ok(t, kind, fn, fn2, p, d, cost_ns))
		return -EINVAL;
	if ((rc = op_get(t, kind, fn, fn2, &oi)))
		return rc;
	if ((rc = note_first(t, kind, fn, fn2, p, d, run, cost_ns)) < 0)
		return rc;
	if (st_tmap_put(&t->group_of, oi, (uint64_t)p, size_key(t, d),
			t->ngroups, &slot, &added))
		return -ENOMEM;
	if (added) {
		if (grow((void **)&t->groups, t->ngroups, &t->alloc_groups,
			 sizeof(*t->groups))) {
			st_tmap_del(&t->group_of, oi, (uint64_t)p,
				    size_key(t, d));
			return -ENOMEM;
		}
		g = &t->groups[t->ngroups++];
		memset(g, 0, sizeof(*g));
		g->op = oi;
		g->p = p;
		g->d = d;
	}
	g = &t->groups[*slot];
	if (g->n_in == g->alloc) {
		size_t a = g->alloc ? 2 * g->alloc : 16;
		double *x = realloc(g->x, a * sizeof(*x));
		uint32_t *r;
		float *e;

		if (!x)
			return -ENOMEM;
		g->x = x;
		r = realloc(g->run, a * sizeof(*r));
		if (!r)
			return -ENOMEM;
		g->run = r;
		e = realloc(g->err, a * sizeof(*e));
		if (!e)
			return -ENOMEM;
		g->err = e;
		g->alloc = a;
	}
	g->x[g->n_in] = cost_ns > 0 ? cost_ns : 0;
	g->run[g->n_in] = run;
	g->err[g->n_in] = isfinite(err_ns) ? (float)err_ns : NAN;
	g->n_in++;
	g->d_sum += d;
	g->wait_ns += wait_ns > 0 ? wait_ns : 0;
	g->call_ns += call_ns > 0 ? call_ns : 0;
	op = &t->ops[oi];
	op->samples++;
	op->wait_ns += wait_ns > 0 ? wait_ns : 0;
	op->call_ns += call_ns > 0 ? call_ns : 0;
	t->nsamples++;
	return 0;
}

/* A sample while sorting: cost, run, clock error. */
struct smp {
	double x;
	uint32_t run;
	float err;
};

static int cmp_smp(const void *a, const void *b)
{
	const struct smp *x = a, *y = b;

	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return (x->run > y->run) - (x->run < y->run);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Median of the finite values of 'v' (n of them; reordered), NaN when
 * there is none.
 */
static double median_finite(double *v, size_t n)
{
	size_t i, k = 0;
	double m;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_double);
	st_stats_median(v, k, &m);
	return m;
}

/*
 * The launch-to-launch spread of 'g' from its per-run medians (at least
 * the clock resolution, so that a logarithm exists): the standard
 * deviation of their logarithms, and the difference it lets a
 * comparison resolve.  'tmp' holds at least nruns values.
 */
static void launch_spread(const struct st_table *t, struct st_table_group *g,
			  double *tmp)
{
	double mean;
	size_t i;

	if (g->nruns < 2)
		return;
	for (i = 0; i < g->nruns; i++)
		tmp[i] = log(fmax(g->run_med[i], t->o.sigma_min_ns));
	if (st_stats_mean_sd(tmp, g->nruns, &mean, &g->run_sd) ||
	    st_stats_resolvable(g->run_sd, g->nruns, 1 - t->o.ci_level, 0.8,
				&g->resolvable))
		g->run_sd = g->resolvable = NAN;
}

/* Sort the samples of 'g', summarise them, find the per-run spread. */
static int summarise(const struct st_table *t, struct st_table_group *g)
{
	struct smp *s;
	double *tmp;
	uint32_t *runs;
	size_t i, j, first, n_kept, nr;
	int rc;

	s = malloc(g->n_in * sizeof(*s));
	tmp = malloc(g->n_in * sizeof(*tmp));
	runs = malloc(g->n_in * sizeof(*runs));
	if (!s || !tmp || !runs) {
		free(s);
		free(tmp);
		free(runs);
		return -ENOMEM;
	}
	for (i = 0; i < g->n_in; i++) {
		s[i].x = g->x[i];
		s[i].run = g->run[i];
		s[i].err = g->err[i];
	}
	qsort(s, g->n_in, sizeof(*s), cmp_smp);
	g->n_below_err = 0;
	for (i = 0; i < g->n_in; i++) {
		g->x[i] = s[i].x;
		g->run[i] = s[i].run;
		g->err[i] = s[i].err;
		tmp[i] = s[i].err;
		if (isfinite(s[i].err) && s[i].x < s[i].err)
			g->n_below_err++;
	}
	g->err_median_ns = median_finite(tmp, g->n_in);
	if (t->o.bins_per_octave)
		g->d = g->d_sum / (double)g->n_in;

	/* The array is sorted already: st_summary_compute keeps it so. */
	rc = st_summary_compute(&g->s, g->x, g->n_in, t->o.tukey_k,
				t->o.ci_level);
	if (rc) {
		free(s);
		free(tmp);
		free(runs);
		return rc;
	}
	for (first = 0; first < g->n_in && g->x[first] < g->s.fence_lo;
	     first++)
		;
	for (n_kept = 0; first + n_kept < g->n_in &&
	     g->x[first + n_kept] <= g->s.fence_hi; n_kept++)
		;

	/* Per-run medians of the kept samples. */
	for (i = 0; i < n_kept; i++)
		runs[i] = g->run[first + i];
	qsort(runs, n_kept, sizeof(*runs), cmp_u32);
	g->nruns = 0;
	g->run_spread = g->run_sd = g->resolvable = NAN;
	g->run_med_min = g->run_med_max = NAN;
	free(g->run_med);
	free(g->run_no);
	g->run_med = malloc((n_kept + 1) * sizeof(*g->run_med));
	g->run_no = malloc((n_kept + 1) * sizeof(*g->run_no));
	if (!g->run_med || !g->run_no) {
		free(s);
		free(tmp);
		free(runs);
		return -ENOMEM;
	}
	for (i = 0; i < n_kept; i = j) {
		double m;

		for (j = i; j < n_kept && runs[j] == runs[i]; j++)
			;
		nr = 0;
		for (size_t k = 0; k < n_kept; k++)
			if (g->run[first + k] == runs[i])
				tmp[nr++] = g->x[first + k];
		st_stats_median(tmp, nr, &m);
		if (!g->nruns || m < g->run_med_min)
			g->run_med_min = m;
		if (!g->nruns || m > g->run_med_max)
			g->run_med_max = m;
		g->run_med[g->nruns] = m;
		g->run_no[g->nruns++] = runs[i];
	}
	if (g->nruns >= 2 && g->run_med_min > 0)
		g->run_spread = (g->run_med_max - g->run_med_min) /
				g->run_med_min;
	launch_spread(t, g, tmp);
	free(s);
	free(tmp);
	free(runs);
	return 0;
}

static int cmp_op_idx(const void *a, const void *b, void *ctx)
{
	const struct st_table *t = ctx;
	const struct st_table_op *x = &t->ops[*(const size_t *)a];
	const struct st_table_op *y = &t->ops[*(const size_t *)b];
	int c;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return (x->fn2 > y->fn2) - (x->fn2 < y->fn2);
}

static int cmp_group(const void *a, const void *b)
{
	const struct st_table_group *x = a, *y = b;

	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);
}

/* Put the operations in table order and the groups after them. */
static int reorder(struct st_table *t)
{
	size_t *order, *rank, i;
	struct st_table_op *ops;

	order = malloc((t->nops + 1) * sizeof(*order));
	rank = malloc((t->nops + 1) * sizeof(*rank));
	ops = malloc((t->nops + 1) * sizeof(*ops));
	if (!order || !rank || !ops) {
		free(order);
		free(rank);
		free(ops);
		return -ENOMEM;
	}
	for (i = 0; i < t->nops; i++)
		order[i] = i;
	if (t->nops)
		qsort_r(order, t->nops, sizeof(*order), cmp_op_idx, t);
	for (i = 0; i < t->nops; i++) {
		rank[order[i]] = i;
		ops[i] = t->ops[order[i]];
	}
	if (t->nops)
		memcpy(t->ops, ops, t->nops * sizeof(*ops));
	for (i = 0; i < t->ngroups; i++)
		t->groups[i].op = rank[t->groups[i].op];
	if (t->ngroups)
		qsort(t->groups, t->ngroups, sizeof(*t->groups), cmp_group);
	/* The maps now point at old places: nothing may be added. */
	st_tmap_release(&t->op_of);
	st_tmap_release(&t->group_of);
	free(order);
	free(rank);
	free(ops);
	return 0;
}

static int fit_op(const struct st_table *t, struct st_table_op *op)
{
	struct st_fit_options fo;
	struct st_fit_group *fg;
	size_t i;
	long prev_p = 0;

	fg = malloc((op->ngroups + 1) * sizeof(*fg));
	if (!fg)
		return -ENOMEM;
	op->nps = 0;
	for (i = 0; i < op->ngroups; i++) {
		const struct st_table_group *g = &t->groups[op->groups[i]];

		fg[i].p = g->p;
		fg[i].d = g->d;
		fg[i].y = g->s.median;
		fg[i].sigma = g->s.ci_ok ? fmax(g->s.se_median,
						t->o.sigma_min_ns) : 0;
		fg[i].n = (long)g->s.n;
		if (!i || g->p < op->p_min)
			op->p_min = g->p;
		if (!i || g->p > op->p_max)
			op->p_max = g->p;
		if (!i || g->d < op->d_min)
			op->d_min = g->d;
		if (!i || g->d > op->d_max)
			op->d_max = g->d;
		if (!i || g->p != prev_p)
			op->nps++;
		prev_p = g->p;
		op->n_dropped += g->s.n_dropped;
		op->n_kept += g->s.n;
	}
	st_fit_options_init(&fo);
	fo.level = t->o.ci_level;
	fo.sigma_min = t->o.sigma_min_ns;
	fo.max_pieces = t->o.max_pieces;
	memset(&op->fit, 0, sizeof(op->fit));
	op->fit_rc = st_fit_run(fg, op->ngroups, &fo, &op->fit);
	free(fg);
	return op->fit_rc == -ENOMEM ? -ENOMEM : 0;
}

static int cmp_first(const void *a, const void *b)
{
	const struct first_smp *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->x > y->x) - (x->x < y->x);
}

/*
 * Each group's first-call summary from the first-call samples of its
 * key (those of a key with no group, every measurement of which was
 * left out, are dropped).
 */
static void summarise_first(struct st_table *t)
{
	size_t i, j, n = 0;

	for (i = 0; i < t->ngroups; i++) {
		t->groups[i].first_n = 0;
		t->groups[i].first_ns = NAN;
		t->groups[i].first_min_ns = t->groups[i].first_max_ns = NAN;
	}
	for (i = 0; i < t->nfirst; i++) {
		struct first_smp *f = &t->first[i];
		uint64_t *op = st_tmap_get(&t->op_of, (uint64_t)f->kind, f->fn,
					   f->fn2), *g;

		if (!op || !(g = st_tmap_get(&t->group_of, *op,
					      (uint64_t)f->p, f->key)))
			continue;
		f->group = (size_t)*g;
		t->first[n++] = *f;
	}
	if (n)
		qsort(t->first, n, sizeof(*t->first), cmp_first);
	for (i = 0; i < n; i = j) {
		struct st_table_group *g = &t->groups[t->first[i].group];
		size_t k;

		for (j = i; j < n && t->first[j].group == t->first[i].group;
		     j++)
			;
		k = j - i;
		g->first_n = k;
		g->first_min_ns = t->first[i].x;
		g->first_max_ns = t->first[j - 1].x;
		g->first_ns = k % 2 ? t->first[i + k / 2].x :
			      (t->first[i + k / 2 - 1].x +
			       t->first[i + k / 2].x) / 2;
	}
}

int st_table_finish(struct st_table *t)
{
	double *errs;
	size_t i, k = 0;
	int rc;

	if (t->finished)
		return 0;
	summarise_first(t);
	errs = malloc((t->nsamples + 1) * sizeof(*errs));
	if (!errs)
		return -ENOMEM;
	for (i = 0; i < t->ngroups; i++) {
		for (size_t j = 0; j < t->groups[i].n_in; j++)
			errs[k++] = t->groups[i].err[j];
		if ((rc = summarise(t, &t->groups[i]))) {
			free(errs);
			return rc;
		}
	}
	t->err_median = median_finite(errs, k);
	t->err_max = NAN;
	for (i = 0; i < k; i++)
		if (isfinite(errs[i]) && !(errs[i] <= t->err_max))
			t->err_max = errs[i];
	free(errs);
	if ((rc = reorder(t)))
		return rc;
	t->finished = 1;
	for (i = 0; i < t->ngroups; i++) {
		struct st_table_op *op = &t->ops[t->groups[i].op];

		if (grow((void **)&op->groups, op->ngroups, &op->alloc,
			 sizeof(*op->groups)))
			return -ENOMEM;
		op->groups[op->ngroups++] = i;
	}
	for (i = 0; i < t->nops; i++)
		if ((rc = fit_op(t, &t->ops[i])))
			return rc;
	return 0;
}

size_t st_table_nops(const struct st_table *t)
{
	return t->nops;
}

const struct st_table_op *st_table_op(const struct st_table *t, size_t i)
{
	return i < t->nops ? &t->ops[i] : NULL;
}

size_t st_table_ngroups(const struct st_table *t)
{
	return t->ngroups;
}

const struct st_table_group *st_table_group(const struct st_table *t,
					    size_t i)
{
	return i < t->ngroups ? &t->groups[i] : NULL;
}

const struct st_table_options *st_table_opts(const struct st_table *t)
{
	return &t->o;
}

uint64_t st_table_nsamples(const struct st_table *t)
{
	return t->nsamples;
}

void st_table_clock_err(const struct st_table *t, double *median_ns,
			double *max_ns)
{
	*median_ns = t->err_median;
	*max_ns = t->err_max;
}

void st_table_meta_init(struct st_table_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->clock_res_ns = NAN;
	m->sync_method = -1;
}

void st_table_meta_release(struct st_table_meta *m)
{
	size_t i;

	for (i = 0; i < m->nruns; i++) {
		free(m->runs[i].dir);
		free(m->runs[i].cmdline);
		free(m->runs[i].run_id);
		free(m->runs[i].sync_check);
	}
	free(m->runs);
	for (i = 0; i < m->nhosts; i++)
		free(m->hosts[i]);
	free(m->hosts);
	free(m->mpi_library);
	free(m->clock);
	st_table_meta_init(m);
}

int st_table_launches(const struct st_table *t,
		      struct st_table_launches *out)
{
	double *sd, *res;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	out->median_run_sd = out->median_resolvable = NAN;
	sd = malloc((t->ngroups + 1) * sizeof(*sd));
	res = malloc((t->ngroups + 1) * sizeof(*res));
	if (!sd || !res) {
		free(sd);
		free(res);
		return -ENOMEM;
	}
	for (i = 0; i < t->ngroups; i++) {
		const struct st_table_group *g = &t->groups[i];

		if (g->nruns > out->max_runs)
			out->max_runs = g->nruns;
		if (!(g->nruns >= 2) || isnan(g->run_sd))
			continue;
		sd[n] = g->run_sd;
		res[n++] = g->resolvable;
		out->n_unresolved += g->resolvable > t->o.resolve;
	}
	out->n_groups = n;
	if (n) {
		/* Infinity sorts last and is a fine median. */
		qsort(sd, n, sizeof(*sd), cmp_double);
		qsort(res, n, sizeof(*res), cmp_double);
		out->median_run_sd = n % 2 ? sd[n / 2] :
				     0.5 * (sd[n / 2 - 1] + sd[n / 2]);
		out->median_resolvable = n % 2 ? res[n / 2] :
					 0.5 * (res[n / 2 - 1] + res[n / 2]);
	}
	free(sd);
	free(res);
	return 0;
}
