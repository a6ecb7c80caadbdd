/*
 * tools/analysis/like.c: the (operation, size) pairs of a traced run, for
 * 'synctrace bench --like'.  The pairs are kept in a fixed table of at
 * most ST_MICRO_MAX_PAIRS (operation, exact size) entries per pass; when
 * the run names more than the bench takes, the sizes are rounded to
 * powers of two, which leaves at most one per octave.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/micro-ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/grow.h"
#include "tools/analysis/like.h"
#include "tools/analysis/stats.h"
#include "tools/analysis/table.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"

#define MAX_SIZES 64		/* as synctrace-bench micro */
#define MAX_SIZE (1ull << 30)	/* largest size the bench takes */
#define LIKE_MIN_GAP_US ST_MICRO_DEFAULT_GAP_US	/* see pair_gaps() */

struct pairs {
	int n, op[ST_MICRO_MAX_PAIRS];
	uint64_t size[ST_MICRO_MAX_PAIRS];
	int full;		/* a pair did not fit */
};

/* A collective call's quiet time before it, on one rank. */
struct gap {
	uint64_t comm, seq;	/* its instance (seq 0: unknown, alone) */
	uint64_t size;		/* its exact bench size */
	uint64_t ns;		/* entry minus the rank's last call's exit */
	int op;
	int prev_op;		/* the rank's last call, mapped (-1: none, */
	uint64_t prev_size;	/* or not a warm-up's, st_micro_warm_ok()) */
};

struct gaps {
	struct gap *v;
	size_t n, cap;
};

/* Nonblocking sends to one peer since the rank's last completion. */
struct inflight {
	int32_t peer;
	uint64_t comm;
	int n, max;
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* The bench operation of collective or send 'name' (an MPI name). */
static int op_of_name(const struct st_fn_desc *d)
{
	char base[64];
	const char *s = d->name;
	size_t n;
	unsigned mask;
	int op;

	if (!strncmp(s, "MPI_", 4))
		s += 4;
	if (d->family == ST_FAM_NONBLOCKING && (*s == 'I' || *s == 'i'))
		s++;
	n = strlen(s);
	if (n >= sizeof(base))
		return -1;
	memcpy(base, s, n + 1);
	if ((d->flags & ST_FNF_LARGE) && n > 2 && !strcmp(base + n - 2, "_c"))
		base[n -= 2] = '\0';
	if (d->family == ST_FAM_PERSISTENT && n > 5 &&
	    !strcmp(base + n - 5, "_init"))
		base[n - 5] = '\0';
	if (strchr(base, ',') || st_micro_ops_parse(base, &mask, NULL, 0) ||
	    !mask || (mask & (mask - 1)) || (mask & ST_MICRO_P2P))
		return -1;
	for (op = 0; !(mask & 1u << op); op++)
		;
	return op;
}

int st_like_map(const struct st_event *ev, uint64_t *size)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t p = ev->comm_size ? ev->comm_size : 1, s;
	double v;
	int op;

	if (ev->kind != ST_REC_CALL || !d)
		return -1;
	if (d->kind == ST_KIND_P2P) {
		if (ev->peer == ST_RANK_PROC_NULL)
			return -2;
		*size = ev->sbytes;
		switch (d->bytes) {
		case ST_BYTES_SEND:
			return ST_MICRO_PINGPONG;
		case ST_BYTES_SENDRECV:
		case ST_BYTES_SENDRECV_REPLACE:
			/*
			 * From MPI_PROC_NULL too (the ends of a shift, one
			 * message, which the replay costs as a send where
			 * the table has ping-pongs): measuring such calls
			 * as ping-pongs in the same launch made the bench's
			 * small MPI_Allreduce 1.4 to 1.9 times dearer
			 * (docs/validation.md), so they stay MPI_Sendrecv's.
			 */
			return ST_MICRO_SENDRECV;
		default:
			return -1;
		}
	}
	if (d->kind != ST_KIND_COLL || (op = op_of_name(d)) < 0)
		return -1;	/* neighbourhood collectives among them */
	/* An inter-communicator's root side moves no block of its own. */
	if (ev->root == ST_RANK_ROOT || ev->root == ST_RANK_PROC_NULL)
		return -2;
	/*
	 * The table's d of an instance whose every member sent and got
	 * what this one did; a broadcast's S is the message, which only
	 * the root sends.
	 */
	s = d->bytes == ST_BYTES_BCAST ? (ev->sbytes > ev->rbytes ?
					  ev->sbytes : ev->rbytes) :
					 ev->sbytes * p;
	if (st_table_coll_size(d->bytes, (long)p, s, ev->rbytes * p,
			       ev->sbytes, ev->rbytes, &v))
		return -1;
	*size = (uint64_t)(v + 0.5);
	return op;
}

/* 'v' rounded to the nearest power of two (in log scale); 0 stays. */
static uint64_t round_pow2(uint64_t v)
{
	uint64_t lo = 1;

	if (!v)
		return 0;
	while (lo <= v / 2)
		lo *= 2;
	/* Nearer to 2 lo than to lo in log scale: v^2 >= 2 lo^2. */
	return (double)v * (double)v >= 2.0 * (double)lo * (double)lo ?
		2 * lo : lo;
}

static void add(struct pairs *ps, int op, uint64_t size)
{
	int i;

	for (i = 0; i < ps->n; i++)
		if (ps->op[i] == op && ps->size[i] == size)
			return;
	if (ps->n == ST_MICRO_MAX_PAIRS) {
		ps->full = 1;
		return;
	}
	ps->op[ps->n] = op;
	ps->size[ps->n++] = size;
}

/* Distinct sizes among the pairs. */
static int nsizes(const struct pairs *ps)
{
	int i, k, n = 0;

	for (i = 0; i < ps->n; i++) {
		for (k = 0; k < i && ps->size[k] != ps->size[i]; k++)
			;
		n += k == i;
	}
	return n;
}

/*
 * Count the nonblocking sends of call 'ev' to one peer in a row, until
 * a completion call: the most messages the run had in flight to one
 * peer, near enough (a peer change starts a new count).
 */
static void note_inflight(struct inflight *f, const struct st_event *ev)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);

	if (!d)
		return;
	if (d->kind == ST_KIND_COMPLETE) {
		f->n = 0;
		return;
	}
	if (d->kind != ST_KIND_P2P || d->bytes != ST_BYTES_SEND ||
	    d->family == ST_FAM_BLOCKING || ev->peer < 0)
		return;
	if (f->n && (f->peer != ev->peer || f->comm != ev->comm))
		f->n = 0;
	f->peer = ev->peer;
	f->comm = ev->comm;
	if (++f->n > f->max)
		f->max = f->n;
}

static int add_gap(struct gaps *g, const struct gap *x)
{
	if (ST_GROW(g->v, g->n, g->cap))
		return -ENOMEM;
	g->v[g->n++] = *x;
	return 0;
}

/* Read one rank file into 'exact', 'binned' and 'g'. */
static int scan_file(const char *path, struct pairs *exact,
		     struct pairs *binned, struct gaps *g, struct st_like *out,
		     char *err, size_t errlen)
{
	struct inflight f = { 0 };
	struct st_reader *r;
	struct st_event ev;
	char rerr[512];
	uint64_t size = 0, prev_t1 = 0, prev_size = 0;
	int rc, op, have_prev = 0, prev_op = -1, oom = 0;

	rc = st_fn_reader_open(&r, path, rerr, sizeof(rerr));
	if (rc)
		return fail(err, errlen, rc, "%s", rerr);
	while ((rc = st_reader_next(r, &ev)) > 0) {
		const struct st_fn_desc *d;

		if (ev.kind != ST_REC_CALL)
			continue;
		out->calls++;
		note_inflight(&f, &ev);
		op = st_like_map(&ev, &size);
		/* The bench's size: at most its largest, a barrier's 0. */
		if (size > MAX_SIZE)
			size = MAX_SIZE;
		if (op == ST_MICRO_BARRIER)
			size = 0;
		if (op >= 0 && op < ST_MICRO_P2P_FIRST && have_prev) {
			struct gap x = {
				.comm = ev.comm, .seq = ev.seq, .op = op,
				.size = size,
				.ns = ev.t0 > prev_t1 ? ev.t0 - prev_t1 : 0,
				.prev_op = prev_op, .prev_size = prev_size,
			};

			if (add_gap(g, &x)) {
				oom = 1;
				break;
			}
		}
		have_prev = 1;
		prev_t1 = ev.t1;
		prev_op = st_micro_warm_ok(op) ? op : -1;
		prev_size = prev_op < 0 ? 0 : size;
		if (op == -2)
			continue;
		if (op < 0) {
			d = st_fn_desc(ev.fn);
			if (d && (d->kind == ST_KIND_COLL ||
				  (d->kind == ST_KIND_P2P &&
				   d->bytes == ST_BYTES_SEND))) {
				if (!out->unmapped++)
					snprintf(out->unmapped_fn,
						 sizeof(out->unmapped_fn),
						 "%s", d->name);
			}
			continue;
		}
		out->mapped++;
		add(exact, op, size);
		add(binned, op, round_pow2(size));
	}
	if (oom)
		rc = fail(err, errlen, -ENOMEM, "out of memory");
	else if (rc < 0)
		rc = fail(err, errlen, rc, "%s", st_reader_error(r));
	if (f.max > out->inflight)
		out->inflight = f.max;
	st_reader_close(r);
	return rc;
}

/*
 * The network model's patterns (tools/analysis/predict-model.h) for
 * every message size of 'ps', after its pairs: a late receive, a burst
 * of one and a burst of K, K the most messages the run had in flight
 * to one peer rounded up to 2, 4 or 8, an MPI_Sendrecv (a message
 * each way at once: whether the two directions share the ranks' ports),
 * a busy sender and a busy receiver (whether a transfer moves while
 * that side computes outside MPI), and an exchange whose ranks both
 * compute before their MPI_Waitall, of one message each way and of K.
 */
static void add_net(struct pairs *ps, int inflight)
{
	int k = inflight <= 2 ? 2 : inflight <= 4 ? 4 : 8, n = ps->n, i;

	for (i = 0; i < n; i++) {
		if (ps->op[i] != ST_MICRO_PINGPONG)
			continue;
		add(ps, ST_MICRO_LATE, ps->size[i]);
		add(ps, ST_MICRO_BURST1, ps->size[i]);
		add(ps, st_micro_burst_op(k), ps->size[i]);
		add(ps, ST_MICRO_SENDRECV, ps->size[i]);
		add(ps, ST_MICRO_SBUSY, ps->size[i]);
		add(ps, ST_MICRO_RBUSY, ps->size[i]);
		add(ps, ST_MICRO_XBUSY, ps->size[i]);
		add(ps, st_micro_xbusy_op(k), ps->size[i]);
	}
}

static int cmp_gap(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return (x->ns > y->ns) - (x->ns < y->ns);
}

/*
 * A candidate warm-up: the previous call of an instance's rank with the
 * longest quiet time before it.
 */
struct warm {
	int op;
	uint64_t size;
};

static int cmp_warm(const void *a, const void *b)
{
	const struct warm *x = a, *y = b;

	if (x->op != y->op)
		return (x->op > y->op) - (x->op < y->op);
	return (x->size > y->size) - (x->size < y->size);
}

/*
 * The warm-up of pair 'p' from the 'k' candidates 'w' (sorted in
 * place): the operation more than half of its instances followed, at
 * the median of the sizes they had (the lower one of an even count; an
 * integer sort's MPI_Alltoall follows MPI_Alltoallv's of four sizes in
 * turn), in 'pop' and 'psize'; -1 when there is none, or it is the
 * pair itself or a call that cannot be one (an MPI_Wait...).
 */
static void pair_warm(const struct pairs *ps, int p, struct warm *w,
		      size_t k, int *pop, uint64_t *psize)
{
	size_t i, first = 0, best = 0, at = 0;

	*pop = -1;
	*psize = 0;
	if (!k)
		return;
	qsort(w, k, sizeof(*w), cmp_warm);
	for (i = 1; i <= k; i++) {
		if (i < k && w[i].op == w[first].op)
			continue;
		if (i - first > best) {
			best = i - first;
			at = first;
		}
		first = i;
	}
	at += (best - 1) / 2;
	if (2 * best <= k || w[at].op < 0 ||
	    (w[at].op == ps->op[p] && w[at].size == ps->size[p]))
		return;
	*pop = w[at].op;
	*psize = w[at].size;
}

/*
 * Each collective pair's gap in 'us' (-1: none, a point-to-point pair),
 * from the run's calls 'g': per instance (the ranks' calls of one
 * communicator and sequence number) the longest rank's, then the median
 * over the instances of the pair ('binned': sizes rounded as the
 * pairs'), in whole microseconds, at least LIKE_MIN_GAP_US and at most
 * ST_MICRO_MAX_GAP_US.  And its warm-up in 'pop' and 'psize'
 * (pair_warm(); -1: its own): the call that rank made before it, of
 * the operation more than half the instances had.  Leaves 'g' sorted
 * and cut to its instances.
 */
static int pair_gaps(struct gaps *g, const struct pairs *ps, int binned,
		     long *us, int *pop, uint64_t *psize)
{
	double *v = NULL, med;
	struct warm *w = NULL;
	size_t i, k, n = 0;
	int p;

	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_gap);
	/* One per instance: its last (longest) entry; seq 0 stays alone. */
	for (i = 0; i < g->n; i++) {
		const struct gap *x = &g->v[i], *y = i + 1 < g->n ?
						     &g->v[i + 1] : NULL;

		if (y && x->seq && y->comm == x->comm && y->seq == x->seq &&
		    y->op == x->op && y->size == x->size)
			continue;
		g->v[n++] = *x;
	}
	g->n = n;
	if (n && (!(v = malloc(n * sizeof(*v))) ||
		  !(w = malloc(n * sizeof(*w))))) {
		free(v);
		return -ENOMEM;
	}
	for (p = 0; p < ps->n; p++) {
		us[p] = -1;
		pop[p] = -1;
		psize[p] = 0;
		if (ps->op[p] >= ST_MICRO_P2P_FIRST)
			continue;
		for (i = k = 0; i < n; i++)
			if (g->v[i].op == ps->op[p] &&
			    (binned ? round_pow2(g->v[i].size) :
				      g->v[i].size) == ps->size[p]) {
				w[k].op = g->v[i].prev_op;
				w[k].size = binned ?
					round_pow2(g->v[i].prev_size) :
					g->v[i].prev_size;
				v[k++] = (double)g->v[i].ns;
			}
		pair_warm(ps, p, w, k, &pop[p], &psize[p]);
		us[p] = LIKE_MIN_GAP_US;
		if (!k || st_stats_sort(v, k) || st_stats_median(v, k, &med))
			continue;
		/* The median, rounded to whole microseconds. */
		us[p] = (long)(med / 1e3 + 0.5);
		if (us[p] < LIKE_MIN_GAP_US)
			us[p] = LIKE_MIN_GAP_US;
		if (us[p] > ST_MICRO_MAX_GAP_US)
			us[p] = ST_MICRO_MAX_GAP_US;
	}
	free(v);
	free(w);
	return 0;
}

int st_like_pairs(const char *dir, char *buf, size_t len,
		  struct st_like *out, char *err, size_t errlen)
{
	struct pairs *exact, *binned, *ps;
	struct gaps g = { 0 };
	long *us = NULL;
	int *pop = NULL;
	uint64_t *psize = NULL;
	struct st_run *run;
	char rerr[512];
	size_t used = 0;
	int rc, k, i;

	memset(out, 0, sizeof(*out));
	rc = st_run_open(&run, dir, rerr, sizeof(rerr));
	if (rc)
		return fail(err, errlen, rc, "%s", rerr);
	exact = calloc(1, sizeof(*exact));
	binned = calloc(1, sizeof(*binned));
	if (!exact || !binned) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto done;
	}
	out->nranks = st_run_nranks(run);
	for (k = 0; k < out->nranks; k++) {
		const char *path = st_run_rank_path(run, k);

		if (!path) {
			rc = fail(err, errlen, -ENOMEM, "out of memory");
			goto done;
		}
		rc = scan_file(path, exact, binned, &g, out, err, errlen);
		if (rc)
			goto done;
	}
	add_net(exact, out->inflight);
	add_net(binned, out->inflight);
	ps = exact;
	if (exact->full || nsizes(exact) > MAX_SIZES) {
		ps = binned;
		out->binned = 1;
	}
	if (!ps->n) {
		rc = fail(err, errlen, -ENOENT, "'%s': no operation that "
			  "synctrace bench measures (%llu call%s read)", dir,
			  (unsigned long long)out->calls,
			  out->calls == 1 ? "" : "s");
		goto done;
	}
	if (ps->full || nsizes(ps) > MAX_SIZES) {
		rc = fail(err, errlen, -E2BIG, "'%s': too many operations and "
			  "sizes for one bench (more than %d pairs or %d "
			  "sizes, even with sizes rounded to powers of two)",
			  dir, ST_MICRO_MAX_PAIRS, MAX_SIZES);
		goto done;
	}
	us = malloc((size_t)ps->n * sizeof(*us));
	pop = malloc((size_t)ps->n * sizeof(*pop));
	psize = malloc((size_t)ps->n * sizeof(*psize));
	if (!us || !pop || !psize ||
	    pair_gaps(&g, ps, out->binned, us, pop, psize)) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto done;
	}
	buf[0] = '\0';
	for (i = 0; i < ps->n; i++) {
		char gap[24] = "", warm[64] = "";
		int w;

		if (us[i] >= 0)
			snprintf(gap, sizeof(gap), "@%ld", us[i]);
		if (us[i] > out->gap_max_us)
			out->gap_max_us = us[i];
		if (pop[i] >= 0) {
			snprintf(warm, sizeof(warm), "/%s:%llu",
				 st_micro_op_name(pop[i]),
				 (unsigned long long)psize[i]);
			out->warm_other++;
		}
		w = snprintf(buf + used, len - used, "%s%s:%llu%s%s",
			     i ? "," : "", st_micro_op_name(ps->op[i]),
			     (unsigned long long)ps->size[i], gap, warm);

		if (w < 0 || (size_t)w >= len - used) {
			rc = fail(err, errlen, -E2BIG, "%s", "the pair list "
				  "is too long");
			goto done;
		}
		used += (size_t)w;
	}
	out->npairs = ps->n;
	rc = 0;
done:
	free(us);
	free(pop);
	free(psize);
	free(g.v);
	free(exact);
	free(binned);
	st_run_close(run);
	return rc;
}
