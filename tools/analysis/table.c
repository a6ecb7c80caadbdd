/*
 * tools/analysis/table.c: the samples of a cost table, their groups, summaries
 * and fits (see tools/analysis/table.h).  Samples are kept whole, since
 * exact medians need them all, and nothing else is kept per instance: a
 * cost (8 bytes) and a clock error (4) each, plus a run (4) only in
 * groups with samples from several runs; a group is found by hashing
 * (operation, p, size key).  st_table_finish() sorts each group's costs
 * in place, keeping runs aligned, so that after Tukey's fences the kept
 * samples are a contiguous slice from which the per-run medians are
 * read in order; medians of clock errors are found by radix selection,
 * without sorting or copying them.  Finishing thus needs no memory in
 * proportion to the samples beyond the samples themselves.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/analysis/fn-names.h"
#include "tools/analysis/table-map.h"
#include "tools/analysis/table.h"
#include "writer/fn-info.h"

static void summary_free(struct st_table_hist *s);

/* tools/analysis/table-start.c */
struct st_table_starts;
int st_tstart_add(struct st_table_starts **sp, uint32_t run, int rank,
		  double bytes, double send_ns);
int st_tstart_finish(struct st_table_starts *st);
size_t st_tstart_nrows(const struct st_table_starts *st);
const struct st_table_start *st_tstart_row(const struct st_table_starts *st,
					   size_t i);
void st_tstart_free(struct st_table_starts *st);

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
	struct st_table_starts *starts;	/* the library's start, or NULL */
	uint64_t nsamples;
	double err_median, err_max;
	int finished;
	/* The last sample's key and group: a loop's samples come in runs
	   of one key, which then need no lookup. */
	struct {
		int ok, kind;
		unsigned fn, fn2;
		long p;
		uint64_t key;
		uint32_t run;
		size_t oi, gi;
	} last;
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
	{ ST_BYTES_ALLTOALLV, "max(S_r, R_r)/p: the busiest rank's block" },
	{ ST_BYTES_ALLTOALLW, "max(S_r, R_r)/p: the busiest rank's block" },
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
		       uint64_t rbytes, uint64_t smax, uint64_t rmax, double *d)
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
	case ST_BYTES_ALLTOALLV:
	case ST_BYTES_ALLTOALLW:
		if (smax | rmax) {
			*d = (double)(smax > rmax ? smax : rmax) / n;
			return 0;
		}
		/* fall through */
	case ST_BYTES_ALLTOALL:
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
	o->exact_max = (size_t)1 << 20;
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
		  !(o->resolve > 0 && o->resolve < 100) || o->exact_max < 1))
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
	st_tstart_free(t->starts);
	for (i = 0; i < t->ngroups; i++) {
		free(t->groups[i].x);
		free(t->groups[i].run);
		free(t->groups[i].err);
		free(t->groups[i].run_med);
		free(t->groups[i].run_no);
		summary_free(t->groups[i].hist);
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

/*
 * The summary of a group past options.exact_max samples: its costs in
 * log-spaced buckets, one histogram per run (the per-run medians need
 * them apart), and its clock errors in one more.  Bucket (e, s) holds
 * [2^e (1/2 + s/2048), 2^e (1/2 + (s+1)/2048)): 1,024 per octave, of
 * relative width at most 2^-10.  Octaves are allocated when first hit,
 * so a group costs a few KiB per octave its samples span; values below
 * 2^HIST_EMIN ns count as 0, values above the top octave in it.
 */
#define HIST_SUB 1024
#define HIST_EMIN (-64)
#define HIST_NOCT 128

struct hist {
	uint64_t *oct[HIST_NOCT];
	uint64_t zero;		/* values 0 (or below 2^HIST_EMIN) */
	uint64_t n;
};

struct run_hist {
	uint32_t run;
	struct hist h;
};

struct st_table_hist {
	struct run_hist *runs;
	size_t nruns, alloc;
	struct hist err;	/* finite clock errors */
	double min, max;	/* exact, over the costs */
	double err_max;
};

static void hist_release(struct hist *h)
{
	int i;

	for (i = 0; i < HIST_NOCT; i++)
		free(h->oct[i]);
	memset(h, 0, sizeof(*h));
}

static int hist_add(struct hist *h, double v, uint64_t count)
{
	int e, s, o;
	double m;

	if (!(v > 0) || v < ldexp(1.0, HIST_EMIN)) {
		h->zero += count;
		h->n += count;
		return 0;
	}
	m = frexp(v, &e);
	o = e - HIST_EMIN;
	if (o >= HIST_NOCT) {
		o = HIST_NOCT - 1;
		s = HIST_SUB - 1;
	} else {
		s = (int)((m - 0.5) * 2 * HIST_SUB);
		if (s >= HIST_SUB)
			s = HIST_SUB - 1;
	}
	if (!h->oct[o] && !(h->oct[o] = calloc(HIST_SUB, sizeof(uint64_t))))
		return -ENOMEM;
	h->oct[o][s] += count;
	h->n += count;
	return 0;
}

/* Add every count of 'b' to 'a'. */
static int hist_merge(struct hist *a, const struct hist *b)
{
	int o, s;

	a->zero += b->zero;
	a->n += b->n;
	for (o = 0; o < HIST_NOCT; o++) {
		if (!b->oct[o])
			continue;
		if (!a->oct[o] &&
		    !(a->oct[o] = calloc(HIST_SUB, sizeof(uint64_t))))
			return -ENOMEM;
		for (s = 0; s < HIST_SUB; s++)
			a->oct[o][s] += b->oct[o][s];
	}
	return 0;
}

/* The middle of bucket (o, s). */
static double bucket_mid(int o, int s)
{
	return ldexp(0.5 + (s + 0.5) / (2.0 * HIST_SUB), o + HIST_EMIN);
}

/* Visit the buckets in ascending order: f(value, count, ctx). */
#define HIST_FOR(h, val, cnt, BODY)					\
	do {								\
		int o_, s_;						\
		double val;						\
		uint64_t cnt;						\
		if ((h)->zero) {					\
			val = 0;					\
			cnt = (h)->zero;				\
			BODY						\
		}							\
		for (o_ = 0; o_ < HIST_NOCT; o_++) {			\
			if (!(h)->oct[o_])				\
				continue;				\
			for (s_ = 0; s_ < HIST_SUB; s_++) {		\
				if (!(cnt = (h)->oct[o_][s_]))		\
					continue;			\
				val = bucket_mid(o_, s_);		\
				BODY					\
			}						\
		}							\
	} while (0)

/* The k-th smallest value (0-based) of 'h', as its bucket's middle
   clamped to [lo, hi]. */
static double hist_at(const struct hist *h, uint64_t k, double lo, double hi)
{
	uint64_t seen = 0;
	double r = hi;

	HIST_FOR(h, v, c, {
		if (k < seen + c) {
			r = v;
			goto found;
		}
		seen += c;
	});
found:
	return r < lo ? lo : r > hi ? hi : r;
}

/* Samples of 'h' whose value (bucket middle) is below 'x' (or_eq: at
   most 'x'). */
static uint64_t hist_count_below(const struct hist *h, double x, int or_eq)
{
	uint64_t n = 0;

	HIST_FOR(h, v, c, {
		if (v < x || (or_eq && v == x))
			n += c;
		else
			return n;
	});
	return n;
}

/* st_stats_quantile()'s interpolation on the order statistics
   'off' .. 'off' + m - 1 of 'h'; the exact extremes at the ends of
   'h'. */
static double hist_quantile(const struct hist *h, uint64_t off, uint64_t m,
			    double p, double lo, double hi, int ends)
{
	double hh = (double)(m - 1) * p, a, b;
	uint64_t k = (uint64_t)floor(hh);

#define AT(i) (ends && (i) == 0 ? lo : ends && (i) == h->n - 1 ? hi : \
		   hist_at(h, (i), lo, hi))
	a = AT(off + k);
	if (k >= m - 1 || hh == (double)k)
		return a;
	b = AT(off + k + 1);
#undef AT
	return a + (hh - (double)k) * (b - a);
}

static void summary_free(struct st_table_hist *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nruns; i++)
		hist_release(&s->runs[i].h);
	free(s->runs);
	hist_release(&s->err);
	free(s);
}

/* The histogram of run 'run' in 's', made if new; NULL: -ENOMEM. */
static struct hist *summary_run(struct st_table_hist *s, uint32_t run)
{
	size_t i;

	for (i = s->nruns; i-- > 0;)
		if (s->runs[i].run == run)
			return &s->runs[i].h;
	if (grow((void **)&s->runs, s->nruns, &s->alloc, sizeof(*s->runs)))
		return NULL;
	memset(&s->runs[s->nruns], 0, sizeof(s->runs[0]));
	s->runs[s->nruns].run = run;
	return &s->runs[s->nruns++].h;
}

/* Count one sample in the summary. */
static int summary_add(struct st_table_hist *s, uint32_t run, double x,
		       float e)
{
	struct hist *h = summary_run(s, run);

	if (!h || hist_add(h, x, 1))
		return -ENOMEM;
	if (x < s->min)
		s->min = x;
	if (x > s->max)
		s->max = x;
	if (isfinite(e)) {
		if (!(e <= s->err_max))
			s->err_max = e;
		if (hist_add(&s->err, e, 1))
			return -ENOMEM;
	}
	return 0;
}

/* Move the exact samples of 'g' into a new summary and free them. */
static int summarise_early(struct st_table_group *g)
{
	struct st_table_hist *s = calloc(1, sizeof(*s));
	size_t i;

	if (!s)
		return -ENOMEM;
	s->min = INFINITY;
	s->max = -INFINITY;
	s->err_max = NAN;
	for (i = 0; i < g->n_in; i++)
		if (summary_add(s, g->run ? g->run[i] : g->run0, g->x[i],
				g->err[i])) {
			summary_free(s);
			return -ENOMEM;
		}
	free(g->x);
	free(g->err);
	free(g->run);
	g->x = NULL;
	g->err = NULL;
	g->run = NULL;
	g->alloc = 0;
	g->hist = s;
	g->resolution = ST_TABLE_SUMMARY_RES;
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
		[ST_TABLE_SND_BUSY] = "snd-busy",
		[ST_TABLE_RCV_BUSY] = "rcv-busy",
		[ST_TABLE_XCHG_BUSY] = "xchg-busy",
		[ST_TABLE_XCHG_BURST] = "xchg-burst",
	};

	return kind > 0 && kind < ST_TABLE_NKINDS ? names[kind] : "?";
}

/* Kinds whose rows name two functions, a send and a receive. */
static int two_fns(int kind)
{
	return kind == ST_TABLE_P2P || kind == ST_TABLE_BURST ||
	       kind == ST_TABLE_SND_BUSY || kind == ST_TABLE_RCV_BUSY ||
	       kind == ST_TABLE_XCHG_BUSY || kind == ST_TABLE_XCHG_BURST;
}

static void op_name(struct st_table_op *op)
{
	static const char *const what[] = {
		[ST_TABLE_CALL] = " (call)",
		[ST_TABLE_BURST] = " (burst)",
		[ST_TABLE_SEND_EAGER] = " (receiver late, eager)",
		[ST_TABLE_SEND_RNDV] = " (receiver late, rendezvous)",
		[ST_TABLE_RECV_LATE] = " (posted late)",
		[ST_TABLE_SND_BUSY] = " (sender busy)",
		[ST_TABLE_RCV_BUSY] = " (receiver busy)",
		[ST_TABLE_XCHG_BUSY] = " (exchange, both busy)",
		[ST_TABLE_XCHG_BURST] = " (exchange burst, both busy)",
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

/*
 * A sample of a run other than 'run0' came: give every sample its run,
 * 'run0' for those so far.  Returns 0 or -ENOMEM.
 */
static int spell_runs(struct st_table_group *g)
{
	size_t i;

	g->run = malloc((g->alloc ? g->alloc : 1) * sizeof(*g->run));
	if (!g->run)
		return -ENOMEM;
	for (i = 0; i < g->n_in; i++)
		g->run[i] = g->run0;
	return 0;
}

int st_table_add(struct st_table *t, int kind, unsigned fn, unsigned fn2,
		 long p, double d, uint32_t run, double cost_ns,
		 double wait_ns, double call_ns, double err_ns)
{
	struct st_table_group *g;
	struct st_table_op *op;
	uint64_t *slot, key;
	size_t oi;
	double x;
	float e;
	int added, rc;

	if (!sample_ok(t, kind, fn, fn2, p, d, cost_ns))
		return -EINVAL;
	key = size_key(t, d);
	if (t->last.ok && t->last.kind == kind && t->last.fn == fn &&
	    t->last.fn2 == fn2 && t->last.p == p && t->last.key == key &&
	    t->last.run == run) {
		/* Its op and group exist, its run's first call is noted. */
		oi = t->last.oi;
		g = &t->groups[t->last.gi];
		goto add;
	}
	if ((rc = op_get(t, kind, fn, fn2, &oi)))
		return rc;
	if ((rc = note_first(t, kind, fn, fn2, p, d, run, cost_ns)) < 0)
		return rc;
	if (st_tmap_put(&t->group_of, oi, (uint64_t)p, key, t->ngroups,
			&slot, &added))
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
	t->last.ok = 1;
	t->last.kind = kind;
	t->last.fn = fn;
	t->last.fn2 = fn2;
	t->last.p = p;
	t->last.key = key;
	t->last.run = run;
	t->last.oi = oi;
	t->last.gi = (size_t)*slot;
add:
	if (!g->n_in)
		g->run0 = run;
	if (!g->hist && g->n_in >= t->o.exact_max &&
	    (rc = summarise_early(g)))
		return rc;
	if (g->hist) {
		x = cost_ns > 0 ? cost_ns : 0;
		e = isfinite(err_ns) ? (float)err_ns : NAN;
		if ((rc = summary_add(g->hist, run, x, e)))
			return rc;
		if (isfinite(e) && x < e)
			g->n_below_err++;
		goto counted;
	}
	if (g->n_in == g->alloc) {
		size_t a = g->alloc ? 2 * g->alloc : 16;
		double *x = realloc(g->x, a * sizeof(*x));
		uint32_t *r;
		float *e;

		if (!x)
			return -ENOMEM;
		g->x = x;
		e = realloc(g->err, a * sizeof(*e));
		if (!e)
			return -ENOMEM;
		g->err = e;
		if (g->run) {
			r = realloc(g->run, a * sizeof(*r));
			if (!r)
				return -ENOMEM;
			g->run = r;
		}
		g->alloc = a;
	}
	if (!g->run && run != g->run0 && (rc = spell_runs(g)))
		return rc;
	x = cost_ns > 0 ? cost_ns : 0;
	e = isfinite(err_ns) ? (float)err_ns : NAN;
	g->x[g->n_in] = x;
	if (g->run)
		g->run[g->n_in] = run;
	g->err[g->n_in] = e;
	if (isfinite(e) && x < e)
		g->n_below_err++;
counted:
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

/* Whether sample i sorts before sample j: by cost, then run. */
static int smp_before(const double *x, const uint32_t *run, size_t i,
		      size_t j)
{
	if (x[i] != x[j])
		return x[i] < x[j];
	return run && run[i] < run[j];
}

static void smp_swap(double *x, uint32_t *run, size_t i, size_t j)
{
	double tx = x[i];

	x[i] = x[j];
	x[j] = tx;
	if (run) {
		uint32_t tr = run[i];

		run[i] = run[j];
		run[j] = tr;
	}
}

static void smp_sift(double *x, uint32_t *run, size_t lo, size_t i,
		     size_t n)
{
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && smp_before(x + lo, run ? run + lo : NULL, c,
					    c + 1))
			c++;
		if (!smp_before(x + lo, run ? run + lo : NULL, i, c))
			break;
		smp_swap(x + lo, run ? run + lo : NULL, i, c);
		i = c;
	}
}

/*
 * Sort samples [lo, hi) by (cost, run) in place: an introsort (quicksort
 * on the median of three, heapsort when it goes too deep, insertion sort
 * for short stretches), so that sorting takes no memory beside the
 * samples (qsort() may take a copy of them).
 */
static void smp_sort(double *x, uint32_t *run, size_t lo, size_t hi,
		     int depth)
{
	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2, i, j;

		if (depth-- <= 0) {
			size_t n = hi - lo, k;

			for (k = n / 2; k-- > 0;)
				smp_sift(x, run, lo, k, n);
			for (k = n; k-- > 1;) {
				smp_swap(x, run, lo, lo + k);
				smp_sift(x, run, lo, 0, k);
			}
			return;
		}
		/* Median of three into lo: x[lo+1] <= x[lo] <= x[hi-1]. */
		smp_swap(x, run, lo + 1, mid);
		if (smp_before(x, run, hi - 1, lo + 1))
			smp_swap(x, run, hi - 1, lo + 1);
		if (smp_before(x, run, hi - 1, lo))
			smp_swap(x, run, hi - 1, lo);
		if (smp_before(x, run, lo, lo + 1))
			smp_swap(x, run, lo, lo + 1);
		/* Hoare's partition around the pivot in lo; the sentinels
		   lo + 1 and hi - 1 keep both scans inside. */
		i = lo + 1;
		j = hi - 1;
		for (;;) {
			do
				i++;
			while (smp_before(x, run, i, lo));
			do
				j--;
			while (smp_before(x, run, lo, j));
			if (i >= j)
				break;
			smp_swap(x, run, i, j);
		}
		smp_swap(x, run, lo, j);
		/* [lo, j) <= pivot at j <= (j, hi): recurse on the smaller. */
		if (j - lo < hi - j - 1) {
			smp_sort(x, run, lo, j, depth);
			lo = j + 1;
		} else {
			smp_sort(x, run, j + 1, hi, depth);
			hi = j;
		}
	}
	for (size_t i = lo + 1; i < hi; i++)
		for (size_t j = i; j > lo && smp_before(x, run, j, j - 1); j--)
			smp_swap(x, run, j, j - 1);
}

/* smp_sort() for costs alone (a group of one run): the same steps,
 * without the runs, which makes it twice as fast. */
static void cost_sort(double *x, size_t lo, size_t hi, int depth)
{
	double p;

	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2, i, j;

		if (depth-- <= 0) {
			smp_sort(x, NULL, lo, hi, 0);
			return;
		}
		smp_swap(x, NULL, lo + 1, mid);
		if (x[hi - 1] < x[lo + 1])
			smp_swap(x, NULL, hi - 1, lo + 1);
		if (x[hi - 1] < x[lo])
			smp_swap(x, NULL, hi - 1, lo);
		if (x[lo] < x[lo + 1])
			smp_swap(x, NULL, lo, lo + 1);
		p = x[lo];
		i = lo + 1;
		j = hi - 1;
		for (;;) {
			do
				i++;
			while (x[i] < p);
			do
				j--;
			while (p < x[j]);
			if (i >= j)
				break;
			smp_swap(x, NULL, i, j);
		}
		smp_swap(x, NULL, lo, j);
		if (j - lo < hi - j - 1) {
			cost_sort(x, lo, j, depth);
			lo = j + 1;
		} else {
			cost_sort(x, j + 1, hi, depth);
			hi = j;
		}
	}
	for (size_t i = lo + 1; i < hi; i++) {
		double v = x[i];
		size_t j = i;

		for (; j > lo && v < x[j - 1]; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

static void sort_samples(double *x, uint32_t *run, size_t n)
{
	int depth = 0;
	size_t k;

	for (k = n; k > 1; k >>= 1)
		depth += 2;
	if (n > 1 && run)
		smp_sort(x, run, 0, n, depth);
	else if (n > 1)
		cost_sort(x, 0, n, depth);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Stretches of clock errors (floats, NaN when unknown). */
struct fspan {
	const float *v;
	size_t n;
};

/* A finite float as an unsigned key in the same order. */
static uint32_t fkey(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b & 0x80000000u ? ~b : b | 0x80000000u;
}

static float key_float(uint32_t k)
{
	uint32_t b = k & 0x80000000u ? k & 0x7fffffffu : ~k;
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

/*
 * The finite value of rank 'k' (from 0) among the finite values of the
 * 'nsp' stretches 'sp' (there must be more than k): a radix selection,
 * one pass over them per byte of the key.
 */
static double select_finite(const struct fspan *sp, size_t nsp, size_t k)
{
	uint32_t prefix = 0, mask = 0;
	size_t cnt[256];
	int shift;

	for (shift = 24; shift >= 0; shift -= 8) {
		size_t i, j, b;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < nsp; i++)
			for (j = 0; j < sp[i].n; j++) {
				uint32_t u;

				if (!isfinite(sp[i].v[j]))
					continue;
				u = fkey(sp[i].v[j]);
				if ((u & mask) == prefix)
					cnt[(u >> shift) & 255]++;
			}
		for (b = 0; b < 255 && k >= cnt[b]; b++)
			k -= cnt[b];
		prefix |= (uint32_t)b << shift;
		mask |= 255u << shift;
	}
	return (double)key_float(prefix);
}

/*
 * The median of the finite values of the stretches, as
 * st_stats_median() gives it for them sorted; NaN when there is none.
 * '*max' (when not NULL) is their maximum, NaN when none.
 */
static double median_finite(const struct fspan *sp, size_t nsp, double *max)
{
	size_t i, j, k = 0, lo;
	double h, a, b;

	if (max)
		*max = NAN;
	for (i = 0; i < nsp; i++)
		for (j = 0; j < sp[i].n; j++)
			if (isfinite(sp[i].v[j])) {
				k++;
				if (max && !(sp[i].v[j] <= *max))
					*max = sp[i].v[j];
			}
	if (!k)
		return NAN;
	/* st_stats_quantile()'s interpolation, on two order statistics. */
	h = (double)(k - 1) * 0.5;
	lo = (size_t)floor(h);
	if (lo >= k - 1)
		return select_finite(sp, nsp, k - 1);
	a = select_finite(sp, nsp, lo);
	b = a;
	if (h - (double)lo) {
		/* The next one is 'a' again, or the least value above. */
		size_t n_le = 0;
		double above = INFINITY;

		for (i = 0; i < nsp; i++)
			for (j = 0; j < sp[i].n; j++) {
				double v = sp[i].v[j];

				if (!isfinite(v))
					continue;
				if (v <= a)
					n_le++;
				else if (v < above)
					above = v;
			}
		b = n_le > lo + 1 ? a : above;
	}
	return a + (h - (double)lo) * (b - a);
}

/*
 * What the per-run medians of 'g' say about its launches.  The spread:
 * (max - min) / min; the standard deviation of their logarithms (each
 * at least the clock resolution, so that a logarithm exists), and the
 * difference it lets a comparison resolve.  And, pooled from 2 or more
 * launches, its median's interval must hold the launch-to-launch
 * spread, which the order statistics of the pooled samples ignore
 * (their interval narrows as 1/sqrt(samples) while the launches' level
 * moves).  With the launch as the unit of replication, as in a
 * cluster-level (two-stage) analysis of a random-effects model
 * (Kalibera and Jones, "Rigorous benchmarking in reasonable time", ISMM
 * 2013; Georges et al., OOPSLA 2007): the mean of the logarithms of the
 * K per-run medians +- t(K - 1, (1 + level) / 2) times their standard
 * deviation / sqrt(K).  Each per-run median carries its own sampling
 * error as well as the launch's offset, so that one spread holds both.
 * The group's interval is the union of this one and the order
 * statistics' (never narrower than one launch's worth of samples
 * claims, and it holds the pooled median), and its standard error the
 * larger of the two.  Groups without an interval (n too small for the
 * level) keep none.
 */
static int launch_stats(const struct st_table *t, struct st_table_group *g)
{
	struct st_summary *s = &g->s;
	double *logs, mean, sd, q, half, lo, hi, se;
	size_t i;
	int rc;

	g->ci_launches = 0;
	if (g->nruns < 2)
		return 0;
	if (g->run_med_min > 0)
		g->run_spread = (g->run_med_max - g->run_med_min) /
				g->run_med_min;
	if (!(logs = malloc(g->nruns * sizeof(*logs))))
		return -ENOMEM;
	for (i = 0; i < g->nruns; i++)
		logs[i] = log(fmax(g->run_med[i], t->o.sigma_min_ns));
	rc = st_stats_mean_sd(logs, g->nruns, &mean, &sd);
	free(logs);
	if (rc) {
		g->run_sd = g->resolvable = NAN;
		return 0;
	}
	g->run_sd = sd;
	if (st_stats_resolvable(sd, g->nruns, 1 - t->o.ci_level, 0.8,
				&g->resolvable))
		g->run_sd = g->resolvable = NAN;
	if (!s->ci_ok || st_stats_t_quantile(0.5 * (1 + t->o.ci_level),
					     (double)(g->nruns - 1), &q))
		return 0;
	half = q * sd / sqrt((double)g->nruns);
	lo = exp(mean - half);
	hi = exp(mean + half);
	g->ci_launches = 1;
	if (lo < s->ci_lo)
		s->ci_lo = lo;
	if (hi > s->ci_hi)
		s->ci_hi = hi;
	/* The launch mean's standard error, on the linear scale. */
	se = 0.5 * (hi - lo) / q;
	if (se > s->se_median)
		s->se_median = se;
	return 0;
}

/* Index of 'r' in the ascending 'runs' [n], or where it would go. */
static size_t run_pos(const uint32_t *runs, size_t n, uint32_t r)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (runs[m] < r)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/*
 * The per-run medians of the kept samples 'x' [n] (ascending), whose
 * runs are 'run' [n]: 'g->run_no' the distinct runs, ascending, and
 * 'g->run_med' their medians, each as st_stats_median() gives it for
 * that run's samples alone.  Two passes over the samples and memory
 * in proportion to the runs.  Returns 0 or -ENOMEM.
 */
static int run_medians(struct st_table_group *g, const double *x,
		       const uint32_t *run, size_t n)
{
	size_t i, j, nr = 0, alloc = 0, *cnt = NULL, *seen = NULL;
	double *lo_v = NULL, *hi_v = NULL;
	uint32_t *runs = NULL;
	int rc = -ENOMEM;

	for (i = 0; i < n; i++) {
		if (i && run[i] == run[i - 1])
			continue;
		j = run_pos(runs, nr, run[i]);
		if (j < nr && runs[j] == run[i])
			continue;
		if (nr == alloc) {
			uint32_t *p;

			alloc = alloc ? 2 * alloc : 8;
			if (!(p = realloc(runs, alloc * sizeof(*p))))
				goto out;
			runs = p;
		}
		memmove(runs + j + 1, runs + j, (nr - j) * sizeof(*runs));
		runs[j] = run[i];
		nr++;
	}
	cnt = calloc(nr + 1, sizeof(*cnt));
	seen = calloc(nr + 1, sizeof(*seen));
	lo_v = calloc(nr + 1, sizeof(*lo_v));
	hi_v = calloc(nr + 1, sizeof(*hi_v));
	g->run_med = malloc((nr + 1) * sizeof(*g->run_med));
	g->run_no = malloc((nr + 1) * sizeof(*g->run_no));
	if (!cnt || !seen || !lo_v || !hi_v || !g->run_med || !g->run_no)
		goto out;
	for (i = 0; i < n; i++)
		cnt[run_pos(runs, nr, run[i])]++;
	for (i = 0; i < n; i++) {
		size_t k, at;

		j = run_pos(runs, nr, run[i]);
		k = seen[j]++;
		at = (size_t)floor((double)(cnt[j] - 1) * 0.5);
		if (k == at)
			lo_v[j] = x[i];
		else if (k == at + 1)
			hi_v[j] = x[i];
	}
	g->nruns = 0;
	for (j = 0; j < nr; j++) {
		double h = (double)(cnt[j] - 1) * 0.5, m;
		size_t at = (size_t)floor(h);

		/* st_stats_quantile()'s interpolation. */
		m = at >= cnt[j] - 1 ? lo_v[j] :
		    lo_v[j] + (h - (double)at) * (hi_v[j] - lo_v[j]);
		if (!g->nruns || m < g->run_med_min)
			g->run_med_min = m;
		if (!g->nruns || m > g->run_med_max)
			g->run_med_max = m;
		g->run_med[g->nruns] = m;
		g->run_no[g->nruns++] = runs[j];
	}
	rc = 0;
out:
	free(runs);
	free(cnt);
	free(seen);
	free(lo_v);
	free(hi_v);
	return rc;
}

/*
 * Sort the samples of 'g', summarise them, find the per-run spread.
 * '*err_max' is the largest known clock error of its samples (NaN: none).
 */
/* The median clock error of a group, found on a thread of its own. */
struct err_job {
	struct fspan sp;
	double median, max;
};

static void *err_median(void *arg)
{
	struct err_job *j = arg;

	j->median = median_finite(&j->sp, 1, &j->max);
	return NULL;
}

/* Groups at least this large find their median clock error on a second
   core while their costs are sorted. */
#define ERR_THREAD_MIN 65536

static int cmp_run_hist(const void *a, const void *b)
{
	uint32_t x = ((const struct run_hist *)a)->run;
	uint32_t y = ((const struct run_hist *)b)->run;

	return (x > y) - (x < y);
}

/*
 * summarise() for a group past options.exact_max samples: the same
 * figures (st_summary_compute()'s, per-run medians, median clock error)
 * from the order statistics of its summary.
 */
static int summarise_hist(const struct st_table *t, struct st_table_group *g,
			  double *err_max)
{
	struct st_table_hist *sh = g->hist;
	struct st_summary *s = &g->s;
	struct hist all;
	uint64_t n = g->n_in, first, end, m;
	double lo = sh->min, hi = sh->max, sum = 0, sq = 0;
	size_t i;
	int rc = -ENOMEM;

	memset(&all, 0, sizeof(all));
	for (i = 0; i < sh->nruns; i++)
		if (hist_merge(&all, &sh->runs[i].h))
			goto out;
	g->err_median_ns = sh->err.n ?
		hist_quantile(&sh->err, 0, sh->err.n, 0.5, 0, INFINITY, 0) : NAN;
	/* The error histogram's extremes are not kept apart: clamp the
	   median's ends to the known maximum. */
	if (sh->err.n && g->err_median_ns > sh->err_max)
		g->err_median_ns = sh->err_max;
	*err_max = sh->err_max;
	if (t->o.bins_per_octave)
		g->d = g->d_sum / (double)g->n_in;

	memset(s, 0, sizeof(*s));
	s->n_in = n;
	if (t->o.tukey_k > 0) {
		double q1 = hist_quantile(&all, 0, n, 0.25, lo, hi, 1);
		double q3 = hist_quantile(&all, 0, n, 0.75, lo, hi, 1);

		s->fence_lo = q1 - t->o.tukey_k * (q3 - q1);
		s->fence_hi = q3 + t->o.tukey_k * (q3 - q1);
		first = lo < s->fence_lo ?
			hist_count_below(&all, s->fence_lo, 0) : 0;
		end = hi > s->fence_hi ?
			hist_count_below(&all, s->fence_hi, 1) : n;
		if (end <= first) {	/* cannot be, the quartiles are in */
			first = 0;
			end = n;
		}
	} else {
		s->fence_lo = -INFINITY;
		s->fence_hi = INFINITY;
		first = 0;
		end = n;
	}
	m = end - first;
	s->n = m;
	s->n_dropped = n - m;
	s->min = first ? hist_at(&all, first, lo, hi) : lo;
	s->max = end < n ? hist_at(&all, end - 1, lo, hi) : hi;
	s->q1 = hist_quantile(&all, first, m, 0.25, lo, hi, 1);
	s->median = hist_quantile(&all, first, m, 0.5, lo, hi, 1);
	s->q3 = hist_quantile(&all, first, m, 0.75, lo, hi, 1);
	{
		uint64_t k = 0;

		HIST_FOR(&all, v, c, {
			if (k >= first && k < end) {
				double w = v < lo ? lo : v > hi ? hi : v;

				sum += w * (double)c;
			}
			k += c;
		});
		s->mean = sum / (double)m;
		k = 0;
		HIST_FOR(&all, v, c, {
			if (k >= first && k < end) {
				double w = (v < lo ? lo : v > hi ? hi : v) -
					   s->mean;

				sq += w * w * (double)c;
			}
			k += c;
		});
		s->sd = m > 1 ? sqrt(sq / (double)(m - 1)) : 0;
	}
	s->ci_level = t->o.ci_level;
	s->ci_lo = s->ci_hi = s->median;
	if (t->o.ci_level > 0) {
		rc = st_stats_median_ci((size_t)m, t->o.ci_level,
					&s->ci_lo_rank, &s->ci_hi_rank,
					&s->ci_coverage);
		if (rc && rc != -ERANGE)
			goto out;
		if (!rc) {
			s->ci_ok = 1;
			s->ci_lo = hist_at(&all, first + s->ci_lo_rank - 1,
					   lo, hi);
			s->ci_hi = hist_at(&all, first + s->ci_hi_rank - 1,
					   lo, hi);
			if ((rc = st_stats_ci_to_se(0.5 * (s->ci_hi -
							   s->ci_lo),
						    s->ci_coverage,
						    &s->se_median)))
				goto out;
		} else {
			s->ci_lo_rank = s->ci_hi_rank = 0;
			s->ci_coverage = 0;
		}
	}

	/* Per-run medians of the kept samples, runs ascending. */
	g->nruns = 0;
	g->run_spread = g->run_sd = g->resolvable = NAN;
	g->run_med_min = g->run_med_max = NAN;
	free(g->run_med);
	free(g->run_no);
	g->run_med = malloc((sh->nruns + 1) * sizeof(*g->run_med));
	g->run_no = malloc((sh->nruns + 1) * sizeof(*g->run_no));
	rc = -ENOMEM;
	if (!g->run_med || !g->run_no)
		goto out;
	qsort(sh->runs, sh->nruns, sizeof(*sh->runs), cmp_run_hist);
	for (i = 0; i < sh->nruns; i++) {
		const struct hist *h = &sh->runs[i].h;
		uint64_t f = hist_count_below(h, s->fence_lo, 0);
		uint64_t e2 = hist_count_below(h, s->fence_hi, 1);
		double med;

		if (!isfinite(s->fence_lo))
			f = 0;
		if (!isfinite(s->fence_hi))
			e2 = h->n;
		if (e2 <= f)
			continue;
		/* Only the group's own extremes are exact. */
		med = hist_quantile(h, f, e2 - f, 0.5, lo, hi, 0);
		if (!g->nruns || med < g->run_med_min)
			g->run_med_min = med;
		if (!g->nruns || med > g->run_med_max)
			g->run_med_max = med;
		g->run_med[g->nruns] = med;
		g->run_no[g->nruns++] = sh->runs[i].run;
	}
	rc = launch_stats(t, g);
out:
	hist_release(&all);
	return rc;
}

static int summarise(const struct st_table *t, struct st_table_group *g,
		     double *err_max)
{
	struct err_job ej = { { g->err, g->n_in }, NAN, NAN };
	size_t first, n_kept;
	pthread_t th;
	int rc, threaded = 0;

	if (g->hist)
		return summarise_hist(t, g, err_max);

	/* The costs and the errors are apart: both at once. */
	if (g->n_in >= ERR_THREAD_MIN && sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		threaded = !pthread_create(&th, NULL, err_median, &ej);
	sort_samples(g->x, g->run, g->n_in);
	if (threaded)
		pthread_join(th, NULL);
	else
		err_median(&ej);
	g->err_median_ns = ej.median;
	*err_max = ej.max;
	if (t->o.bins_per_octave)
		g->d = g->d_sum / (double)g->n_in;

	/* The array is sorted already: st_summary_compute keeps it so. */
	rc = st_summary_compute(&g->s, g->x, g->n_in, t->o.tukey_k,
				t->o.ci_level);
	if (rc)
		return rc;
	for (first = 0; first < g->n_in && g->x[first] < g->s.fence_lo;
	     first++)
		;
	for (n_kept = 0; first + n_kept < g->n_in &&
	     g->x[first + n_kept] <= g->s.fence_hi; n_kept++)
		;

	/* Per-run medians of the kept samples. */
	g->nruns = 0;
	g->run_spread = g->run_sd = g->resolvable = NAN;
	g->run_med_min = g->run_med_max = NAN;
	free(g->run_med);
	free(g->run_no);
	g->run_med = NULL;
	g->run_no = NULL;
	if (g->run) {
		if ((rc = run_medians(g, g->x + first, g->run + first,
				      n_kept)))
			return rc;
	} else {
		g->run_med = malloc(sizeof(*g->run_med));
		g->run_no = malloc(sizeof(*g->run_no));
		if (!g->run_med || !g->run_no)
			return -ENOMEM;
		if (n_kept) {
			st_stats_median(g->x + first, n_kept,
					&g->run_med[0]);
			g->run_no[0] = g->run0;
			g->run_med_min = g->run_med_max = g->run_med[0];
			g->nruns = 1;
		}
	}
	return launch_stats(t, g);
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
	struct fspan *sp;
	double err_max = NAN;
	size_t i;
	int rc;

	if (t->finished)
		return 0;
	summarise_first(t);
	if ((rc = st_tstart_finish(t->starts)))
		return rc;
	sp = malloc((t->ngroups + 1) * sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	for (i = 0; i < t->ngroups; i++) {
		sp[i].v = t->groups[i].err;
		sp[i].n = t->groups[i].n_in;
		if ((rc = summarise(t, &t->groups[i], &err_max))) {
			free(sp);
			return rc;
		}
	}
	for (i = 0; i < t->ngroups && !t->groups[i].hist; i++)
		;
	if (i < t->ngroups) {
		/* Some group is summarised: every clock error in one
		   histogram. */
		struct hist all;
		size_t j;

		memset(&all, 0, sizeof(all));
		rc = 0;
		t->err_max = NAN;
		for (i = 0; i < t->ngroups && !rc; i++) {
			const struct st_table_group *g = &t->groups[i];

			if (g->hist) {
				rc = hist_merge(&all, &g->hist->err);
				if (!(g->hist->err_max <= t->err_max))
					t->err_max = g->hist->err_max;
				continue;
			}
			for (j = 0; j < g->n_in && !rc; j++)
				if (isfinite(g->err[j])) {
					rc = hist_add(&all, g->err[j], 1);
					if (!(g->err[j] <= t->err_max))
						t->err_max = g->err[j];
				}
		}
		t->err_median = all.n ? hist_quantile(&all, 0, all.n, 0.5, 0,
						      t->err_max, 0) : NAN;
		hist_release(&all);
		if (rc) {
			free(sp);
			return rc;
		}
	} else if (t->ngroups == 1) {
		/* The group's figures are the table's. */
		t->err_median = t->groups[0].err_median_ns;
		t->err_max = err_max;
	} else {
		t->err_median = median_finite(sp, t->ngroups, &t->err_max);
	}
	free(sp);
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

int st_table_add_start(struct st_table *t, uint32_t run, int rank,
		       double bytes, double send_ns)
{
	if (t->finished)
		return -EINVAL;
	return st_tstart_add(&t->starts, run, rank, bytes, send_ns);
}

size_t st_table_nstarts(const struct st_table *t)
{
	return st_tstart_nrows(t->starts);
}

const struct st_table_start *st_table_start(const struct st_table *t,
					    size_t i)
{
	return st_tstart_row(t->starts, i);
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
