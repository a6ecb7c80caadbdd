/*
 * tools/analysis/rma.c: one-sided communication per window (rma.h).
 * Windows, their per-target and per-function rows live in arrays found
 * through maps, and grow with the windows, targets and functions the
 * run used, not with its records; what one rank has open (epochs, locks
 * by target) is cleared at the rank's end.  A constructor's instance is
 * numbered on its communicator, so the window it made is remembered by
 * (communicator, sequence number) for st_rma_instance().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/grow.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/rma.h"
#include "tools/analysis/u64map.h"
#include "writer/event.h"
#include "writer/fn-info.h"

/* What one rank has open on a window. */
struct open_state {
	uint8_t touched, fence, access, exposure, lock_all;
};

struct win_priv {
	uint64_t ctor_comm, ctor_seq;	/* its constructor's instance */
};

/* A target row, or a function row, with the window it belongs to. */
struct tg_row {
	size_t win;
	struct st_rma_target t;
};

struct fn_row {
	size_t win;
	struct st_rma_call c;
};

struct st_rma {
	/* Per function id: a call on_call() may count (is_ctor(), or of
	   kind window or RMA); the others it passes over. */
	uint8_t rel[ST_FN_COUNT];
	struct st_rma_win *w;
	struct win_priv *wp;
	struct open_state *os;	/* this rank's, by window */
	size_t nw, aw, awp, aos;
	struct st_u64map win_of;	/* id -> index */
	struct st_u64map ctor_of;	/* mix(comm, seq) -> index */
	struct tg_row *tg;
	size_t ntg, atg;
	struct st_u64map tg_of;		/* win << 32 | target -> index */
	struct fn_row *fr;
	size_t nfr, afr;
	struct st_u64map fr_of;		/* win << 16 | fn -> index */
	struct st_u64map lock_of;	/* this rank: win << 32 | target ->
					   epoch kind */
	size_t *touched;		/* this rank's windows */
	size_t ntouched, atouched;
	uint64_t ctor_comm, ctor_seq;	/* this rank's last constructor */
	uint16_t ctor_fn;
	struct st_rma_win *out;		/* st_rma_windows() */
	struct st_rma_target *out_tg;
	struct st_rma_call *out_fn;
};

static uint64_t mix(uint64_t comm, uint64_t seq)
{
	return comm ^ (seq * 0x9e3779b97f4a7c15ULL);
}

struct st_rma *st_rma_new(void)
{
	struct st_rma *a = calloc(1, sizeof(struct st_rma));

	if (!a)
		return NULL;
	st_fn_kinds(a->rel, ST_KIND_WIN, ST_KIND_RMA);
	return a;
}

void st_rma_free(struct st_rma *a)
{
	if (!a)
		return;
	free(a->out);
	free(a->out_tg);
	free(a->out_fn);
	free(a->w);
	free(a->wp);
	free(a->os);
	free(a->tg);
	free(a->fr);
	free(a->touched);
	st_u64map_release(&a->win_of);
	st_u64map_release(&a->ctor_of);
	st_u64map_release(&a->tg_of);
	st_u64map_release(&a->fr_of);
	st_u64map_release(&a->lock_of);
	free(a);
}

int st_rma_is_sync(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	return d && d->kind == ST_KIND_RMA && d->family == ST_FAM_BLOCKING;
}

static int is_ctor(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	return d && d->kind == ST_KIND_WIN && fn != ST_FN_MPI_WIN_FREE;
}

/* The window 'id', made when 'create' (NULL: unknown, or no memory). */
static struct st_rma_win *win_get(struct st_rma *a, uint64_t id, int create,
				  size_t *idx)
{
	uint64_t *v = st_u64map_find(&a->win_of, id);

	if (v) {
		*idx = (size_t)*v;
		return &a->w[*v];
	}
	if (!create)
		return NULL;
	if (ST_GROW(a->w, a->nw, a->aw) || ST_GROW(a->wp, a->nw, a->awp) ||
	    ST_GROW(a->os, a->nw, a->aos))
		return NULL;
	if (!st_u64map_put(&a->win_of, id, a->nw, NULL))
		return NULL;
	memset(&a->w[a->nw], 0, sizeof(a->w[0]));
	memset(&a->wp[a->nw], 0, sizeof(a->wp[0]));
	memset(&a->os[a->nw], 0, sizeof(a->os[0]));
	a->w[a->nw].id = id;
	*idx = a->nw;
	return &a->w[a->nw++];
}

static struct open_state *state_of(struct st_rma *a, size_t idx)
{
	struct open_state *s = &a->os[idx];

	if (!s->touched) {
		if (ST_GROW(a->touched, a->ntouched, a->atouched))
			return NULL;
		a->touched[a->ntouched++] = idx;
		s->touched = 1;
	}
	return s;
}

static int on_comm(struct st_rma *a, const struct st_event *ev, int in)
{
	struct st_rma_win *w;
	size_t idx;
	int fresh;

	if (!ev->comm)
		return 0;
	fresh = !st_u64map_find(&a->win_of, ev->comm);
	if (!(w = win_get(a, ev->comm, 1, &idx)))
		return -ENOMEM;
	if (fresh) {
		w->comm = ev->parent;
		w->ctor = ev->fn;
		w->size = ev->comm_size;
		w->mem_min = ev->len;
	}
	w->nranks++;
	w->mem += ev->len;
	if (ev->len < w->mem_min)
		w->mem_min = ev->len;
	if (ev->len > w->mem_max)
		w->mem_max = ev->len;
	/* Its constructor's CALL record came just before. */
	if (a->ctor_fn == ev->fn && a->ctor_seq) {
		a->wp[idx].ctor_comm = a->ctor_comm;
		a->wp[idx].ctor_seq = a->ctor_seq;
		if (!st_u64map_put(&a->ctor_of, mix(a->ctor_comm, a->ctor_seq),
				   idx, NULL))
			return -ENOMEM;
	}
	a->ctor_fn = 0;
	if (in) {
		w->life.calls++;
		w->life.time_ns += ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0;
	}
	return 0;
}

static int add_target(struct st_rma *a, size_t idx, const struct st_event *ev)
{
	uint64_t key = (uint64_t)idx << 32 | (uint32_t)ev->peer, *v;
	struct st_rma_target *t;
	int added;

	v = st_u64map_put(&a->tg_of, key, a->ntg, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		if (ST_GROW(a->tg, a->ntg, a->atg))
			return -ENOMEM;
		memset(&a->tg[a->ntg], 0, sizeof(a->tg[0]));
		a->tg[a->ntg].win = idx;
		a->tg[a->ntg].t.rank = ev->peer;
		a->ntg++;
	}
	t = &a->tg[*v].t;
	t->calls++;
	t->sbytes += ev->sbytes;
	t->rbytes += ev->rbytes;
	return 0;
}

static int add_fn(struct st_rma *a, size_t idx, const struct st_event *ev,
		  uint64_t dt)
{
	uint64_t key = (uint64_t)idx << 16 | ev->fn, *v;
	struct st_rma_call *c;
	int added;

	v = st_u64map_put(&a->fr_of, key, a->nfr, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		if (ST_GROW(a->fr, a->nfr, a->afr))
			return -ENOMEM;
		memset(&a->fr[a->nfr], 0, sizeof(a->fr[0]));
		a->fr[a->nfr].win = idx;
		a->fr[a->nfr].c.fn = ev->fn;
		a->nfr++;
	}
	c = &a->fr[*v].c;
	c->calls++;
	c->sbytes += ev->sbytes;
	c->rbytes += ev->rbytes;
	c->time_ns += dt;
	return 0;
}

/* A synchronisation call moves this rank's epochs on. */
static int sync_epochs(struct st_rma *a, size_t idx, struct open_state *s,
		       const struct st_event *ev, int in)
{
	struct st_rma_win *w = &a->w[idx];
	uint64_t key = (uint64_t)idx << 32 | (uint32_t)ev->peer, *v;
	int kind;

	switch (ev->fn) {
	case ST_FN_MPI_WIN_FENCE:
		if (s->fence && !(ev->arg & ST_ASSERT_NOPRECEDE) && in)
			w->epochs[ST_RMA_FENCE]++;
		s->fence = !(ev->arg & ST_ASSERT_NOSUCCEED);
		break;
	case ST_FN_MPI_WIN_START:
		s->access = 1;
		break;
	case ST_FN_MPI_WIN_COMPLETE:
		if (s->access && in)
			w->epochs[ST_RMA_ACCESS]++;
		s->access = 0;
		break;
	case ST_FN_MPI_WIN_POST:
		s->exposure = 1;
		break;
	case ST_FN_MPI_WIN_WAIT:
	case ST_FN_MPI_WIN_TEST:
		if (s->exposure && in)
			w->epochs[ST_RMA_EXPOSURE]++;
		s->exposure = 0;
		break;
	case ST_FN_MPI_WIN_LOCK:
		kind = ev->arg & ST_LOCK_SHARED ? ST_RMA_LOCK_SHARED :
		       ST_RMA_LOCK_EXCLUSIVE;
		if (!st_u64map_put(&a->lock_of, key, 0, NULL))
			return -ENOMEM;
		*st_u64map_find(&a->lock_of, key) = (uint64_t)kind;
		break;
	case ST_FN_MPI_WIN_UNLOCK:
		if ((v = st_u64map_find(&a->lock_of, key))) {
			if (in)
				w->epochs[*v]++;
			st_u64map_del(&a->lock_of, key);
		}
		break;
	case ST_FN_MPI_WIN_LOCK_ALL:
		s->lock_all = 1;
		break;
	case ST_FN_MPI_WIN_UNLOCK_ALL:
		if (s->lock_all && in)
			w->epochs[ST_RMA_LOCK_ALL]++;
		s->lock_all = 0;
		break;
	}
	return 0;
}

static int on_call(struct st_rma *a, const struct st_event *ev, int in)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t dt = ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0;
	struct open_state *s;
	struct st_rma_win *w;
	size_t idx;

	if (!d)
		return 0;
	if (is_ctor(ev->fn)) {
		/* Numbered on its communicator; its window comes next. */
		a->ctor_fn = ev->fn;
		a->ctor_comm = ev->comm;
		a->ctor_seq = ev->seq;
		return 0;
	}
	if ((d->kind != ST_KIND_WIN && d->kind != ST_KIND_RMA) || !ev->comm)
		return 0;
	/* A window of which no COMM record was seen is one all the same. */
	if (!(w = win_get(a, ev->comm, 1, &idx)) ||
	    !(s = state_of(a, idx)))
		return -ENOMEM;
	if (d->kind == ST_KIND_WIN) {		/* MPI_Win_free */
		if (in) {
			w->life.calls++;
			w->life.time_ns += dt;
		}
		memset(s, 0, sizeof(*s));
		s->touched = 1;
		return 0;
	}
	if (d->family == ST_FAM_BLOCKING) {
		if (in) {
			w->sync.calls++;
			w->sync.time_ns += dt;
		}
		if (sync_epochs(a, idx, s, ev, in))
			return -ENOMEM;
	} else if (in) {
		w->xfer.calls++;
		w->xfer.time_ns += dt;
		w->sbytes += ev->sbytes;
		w->rbytes += ev->rbytes;
		if (ev->peer != ST_RANK_NONE && add_target(a, idx, ev))
			return -ENOMEM;
	}
	if (in && add_fn(a, idx, ev, dt))
		return -ENOMEM;
	return 0;
}

int st_rma_add(struct st_rma *a, int rank, const struct st_event *ev,
	       int in)
{
	const struct st_fn_desc *d;

	(void)rank;
	if (ev->kind == ST_REC_COMM) {
		d = st_fn_desc(ev->fn);
		if (d && d->kind == ST_KIND_WIN)
			return on_comm(a, ev, in);
		return 0;
	}
	if (ev->kind == ST_REC_CALL &&
	    (ev->fn >= ST_FN_COUNT || a->rel[ev->fn]))
		return on_call(a, ev, in);
	return 0;
}

void st_rma_end_rank(struct st_rma *a)
{
	size_t i;

	for (i = 0; i < a->ntouched; i++)
		memset(&a->os[a->touched[i]], 0, sizeof(a->os[0]));
	a->ntouched = 0;
	st_u64map_clear(&a->lock_of);
	a->ctor_fn = 0;
}

void st_rma_instance(struct st_rma *a, const struct st_imb_done *d)
{
	struct st_rma_win *w;
	uint64_t *v;
	size_t idx;
	uint32_t i;

	if ((w = win_get(a, d->comm, 0, &idx))) {
		if (st_fn_group_coll(d->fn) != ST_GC_WIN)
			return;
	} else if ((v = st_u64map_find(&a->ctor_of, mix(d->comm, d->seq))) &&
		   a->wp[*v].ctor_comm == d->comm &&
		   a->wp[*v].ctor_seq == d->seq) {
		w = &a->w[*v];
	} else {
		return;
	}
	if (d->flagged) {
		w->inst_flagged++;
		return;
	}
	w->inst++;
	for (i = 0; i < d->n; i++) {
		double a0 = d->t[i][0], e = d->t[i][1];
		double until = e < d->last_arr ? e : d->last_arr;

		if (until > a0)
			w->wait_ns += until - a0;
		if (e > d->last_arr)
			w->after_ns += e - d->last_arr;
	}
}

static int cmp_tg(const void *x, const void *y)
{
	const struct tg_row *a = x, *b = y;

	if (a->win != b->win)
		return a->win < b->win ? -1 : 1;
	return (a->t.rank > b->t.rank) - (a->t.rank < b->t.rank);
}

static int cmp_fr(const void *x, const void *y)
{
	const struct fn_row *a = x, *b = y;

	if (a->win != b->win)
		return a->win < b->win ? -1 : 1;
	return (int)a->c.fn - (int)b->c.fn;
}

static int cmp_win(const void *x, const void *y)
{
	const struct st_rma_win *a = x, *b = y;

	return (a->id > b->id) - (a->id < b->id);
}

const struct st_rma_win *st_rma_windows(struct st_rma *a, size_t *n)
{
	size_t i, j;

	free(a->out);
	free(a->out_tg);
	free(a->out_fn);
	a->out = NULL;
	a->out_tg = NULL;
	a->out_fn = NULL;
	*n = 0;
	if (!a->nw)
		return NULL;
	if (a->ntg)
		qsort(a->tg, a->ntg, sizeof(*a->tg), cmp_tg);
	if (a->nfr)
		qsort(a->fr, a->nfr, sizeof(*a->fr), cmp_fr);
	/* The maps of rows now point at other rows: no more adding. */
	st_u64map_clear(&a->tg_of);
	st_u64map_clear(&a->fr_of);
	a->out = malloc(a->nw * sizeof(*a->out));
	a->out_tg = malloc((a->ntg + 1) * sizeof(*a->out_tg));
	a->out_fn = malloc((a->nfr + 1) * sizeof(*a->out_fn));
	if (!a->out || !a->out_tg || !a->out_fn)
		return NULL;
	memcpy(a->out, a->w, a->nw * sizeof(*a->out));
	for (i = 0; i < a->nw; i++) {
		a->out[i].tg = NULL;
		a->out[i].fn = NULL;
		a->out[i].ntg = a->out[i].nfn = 0;
	}
	for (i = 0; i < a->ntg; i = j) {
		for (j = i; j < a->ntg && a->tg[j].win == a->tg[i].win; j++)
			a->out_tg[j] = a->tg[j].t;
		a->out[a->tg[i].win].tg = &a->out_tg[i];
		a->out[a->tg[i].win].ntg = j - i;
	}
	for (i = 0; i < a->nfr; i = j) {
		for (j = i; j < a->nfr && a->fr[j].win == a->fr[i].win; j++)
			a->out_fn[j] = a->fr[j].c;
		a->out[a->fr[i].win].fn = &a->out_fn[i];
		a->out[a->fr[i].win].nfn = j - i;
	}
	qsort(a->out, a->nw, sizeof(*a->out), cmp_win);
	*n = a->nw;
	return a->out;
}
