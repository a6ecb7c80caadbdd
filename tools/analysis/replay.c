/*
 * tools/analysis/replay.c: the replay engine behind 'synctrace predict'
 * (the rules are in tools/analysis/replay.h).  Each (rank, thread) stream
 * is a "unit": a state machine that reads its records, advances its
 * predicted clock by each compute segment and starts the next call as an
 * "op" whose end is the maximum of its own cost and of the results it
 * waits for (a collective instance, replay-coll.c; a matched message,
 * replay-p2p.c; a request, here).  Every result is a time with its
 * critical-path vector; a unit whose op still waits is off the heap and
 * comes back when its last result arrives.  Instances, message queues and
 * requests live in index pools found through one kind of hash map
 * (replay-map.c), and are freed the moment they are consumed.  What a
 * call costs is asked of replay-cost.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/phase.h"
#include "tools/analysis/replay-internal.h"
#include "tools/analysis/replay.h"
#include "writer/event.h"
#include "writer/fn-info.h"

#define MAX_RANKS (1 << 22)

/* Errors. */

__attribute__((format(printf, 3, 4)))
static int fail(struct st_replay *r, int rc, const char *fmt, ...)
{
	va_list ap;

	if (r->rc)
		return r->rc;
	r->rc = rc;
	if (r->err && r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int st_rp_oom(struct st_replay *r)
{
	return fail(r, -ENOMEM, "out of memory");
}

int st_rp_grow(struct st_replay *r, void **p, size_t *alloc, size_t need,
	       size_t size)
{
	size_t a = *alloc ? *alloc : 16;
	void *q;

	if (need < *alloc)
		return 0;
	while (a <= need)
		a *= 2;
	q = realloc(*p, a * size);
	if (!q)
		return st_rp_oom(r);
	*p = q;
	*alloc = a;
	return 0;
}

/* The heap of ready units, by predicted time, then unit index. */

static int before(const struct unit *a, const struct unit *b)
{
	if (a->now != b->now)
		return a->now < b->now;
	return a->idx < b->idx;
}

static void heap_set(struct st_replay *r, size_t i, struct unit *u)
{
	r->heap[i] = u;
}

static int heap_push(struct st_replay *r, struct unit *u)
{
	size_t i;

	if (GROW(r, r->heap, r->aheap, r->nheap))
		return r->rc;
	i = r->nheap++;
	while (i > 0 && before(u, r->heap[(i - 1) / 2])) {
		heap_set(r, i, r->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(r, i, u);
	return 0;
}

static struct unit *heap_pop(struct st_replay *r)
{
	struct unit *top = r->heap[0], *u;
	size_t i = 0, c;

	u = r->heap[--r->nheap];
	while ((c = 2 * i + 1) < r->nheap) {
		if (c + 1 < r->nheap && before(r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r->heap[c], u))
			break;
		heap_set(r, i, r->heap[c]);
		i = c;
	}
	if (r->nheap)
		heap_set(r, i, u);
	return top;
}

/* Units. */

static struct unit *unit_of(struct st_replay *r, struct rank *rk,
			    int rank, int thread)
{
	struct unit *u;
	size_t i;

	if ((size_t)thread < rk->nunits && rk->units[thread])
		return rk->units[thread];
	if ((size_t)thread >= rk->nunits) {
		size_t a = (size_t)thread + 1;
		struct unit **v = realloc(rk->units, a * sizeof(*v));

		if (!v) {
			st_rp_oom(r);
			return NULL;
		}
		for (i = rk->nunits; i < a; i++)
			v[i] = NULL;
		rk->units = v;
		rk->nunits = a;
	}
	u = calloc(1, sizeof(*u));
	if (!u || GROW(r, r->units, r->aunits, r->nunits)) {
		free(u);
		st_rp_oom(r);
		return NULL;
	}
	u->idx = (int)r->nunits;
	u->rank = rank;
	u->thread = thread;
	u->cp.rank = rank;
	u->state = U_READY;
	u->site_idx = NIL;
	st_phase_pos_init(&r->opts.phase, &u->ph);
	r->units[r->nunits++] = u;
	rk->units[thread] = u;
	if (heap_push(r, u))
		return NULL;
	return u;
}

static void rec_from(struct rrec *x, const struct st_event *ev)
{
	x->kind = ev->kind;
	x->fn = ev->fn;
	x->thread = ev->thread;
	x->site = ev->site;
	x->comm_size = ev->comm_size;
	x->remote_size = ev->remote_size;
	x->inst = ev->inst;
	x->rc = ev->rc;
	x->root = ev->root;
	x->peer = ev->peer;
	x->tag = ev->tag;
	x->peer2 = ev->peer2;
	x->tag2 = ev->tag2;
	x->rank = ev->rank;
	x->t0 = ev->t0;
	x->t1 = ev->t1;
	x->comm = ev->comm;
	x->seq = ev->seq;
	x->sbytes = ev->sbytes;
	x->rbytes = ev->rbytes;
	x->req = ev->req;
	x->arg = ev->arg;
	x->group = NULL;
	x->ngroup = 0;
	x->group_bad = 0;
}

/*
 * The ranks of a group as MPI_Win_post and MPI_Win_start record it
 * ("0 2-5", ascending; " ..." when cut) into x->group, or x->group_bad
 * when the list is cut, unreadable or too long for memory.
 */
static void rec_group(struct rrec *x, const char *text, uint32_t len)
{
	uint64_t total = 0;
	uint32_t k = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		const char *p = text, *end = text + len;

		k = 0;
		while (p < end) {
			long a, b;
			char buf[24], *q;
			size_t n = 0;

			while (p < end && *p == ' ')
				p++;
			if (p == end)
				break;
			while (p < end && *p != ' ' && n < sizeof(buf) - 1)
				buf[n++] = *p++;
			buf[n] = '\0';
			if (buf[0] < '0' || buf[0] > '9')
				goto bad;
			a = strtol(buf, &q, 10);
			b = a;
			if (*q == '-') {
				if (q[1] < '0' || q[1] > '9')
					goto bad;
				b = strtol(q + 1, &q, 10);
			}
			if (*q || a < 0 || b < a || b >= (1L << 22))
				goto bad;
			if (!pass) {
				total += (uint64_t)(b - a) + 1;
				if (total > (1u << 22))
					goto bad;
			} else {
				for (; a <= b; a++)
					x->group[k++] = (int32_t)a;
			}
		}
		if (!pass) {
			if (!total)
				return;
			x->group = malloc(total * sizeof(*x->group));
			if (!x->group)
				goto bad;
		}
	}
	x->ngroup = k;
	return;
bad:
	free(x->group);
	x->group = NULL;
	x->ngroup = 0;
	x->group_bad = 1;
}

/* A post or start with its group (no text: an empty group). */
static int has_group(const struct st_event *ev)
{
	return ev->kind == ST_REC_CALL && (ev->fn == ST_FN_MPI_WIN_POST ||
					   ev->fn == ST_FN_MPI_WIN_START) &&
	       ev->text_len;
}

/* rec_from(), and the group of a post or start. */
static void rec_read(struct rrec *x, const struct st_event *ev)
{
	rec_from(x, ev);
	if (has_group(ev))
		rec_group(x, ev->text, ev->text_len);
}

/* Two cache lines in predict's tee (tools/analysis/tee.h). */
_Static_assert(sizeof(struct rrec) == 128, "struct rrec: 128 bytes");

size_t st_replay_rec_size(void)
{
	return sizeof(struct rrec);
}

int st_replay_rec_make(void *slot, const struct st_event *ev)
{
	if (ev->kind == ST_REC_SITE || ev->kind == ST_REC_OBJECT ||
	    has_group(ev))
		return 0;
	rec_from(slot, ev);
	return 1;
}

/* Room for one more record in the queue of 'u'. */
static int fifo_room(struct st_replay *r, struct unit *u)
{
	size_t i, a = u->falloc ? 2 * u->falloc : 16;
	struct rrec *v;

	if (u->fcount < u->falloc)
		return 0;
	v = malloc(a * sizeof(*v));
	if (!v)
		return st_rp_oom(r);
	for (i = 0; i < u->fcount; i++)
		v[i] = u->fifo[(u->fhead + i) % u->falloc];
	free(u->fifo);
	u->fifo = v;
	u->falloc = a;
	u->fhead = 0;
	return 0;
}

/* Record 'x' at the end of the queue of 'u'. */
static int fifo_push(struct st_replay *r, struct unit *u,
		     const struct rrec *x)
{
	if (fifo_room(r, u))
		return r->rc;
	u->fifo[(u->fhead + u->fcount++) % u->falloc] = *x;
	return 0;
}

/* Record 'x', taken from the queue of 'u', back at its front. */
static int fifo_unget(struct st_replay *r, struct unit *u,
		      const struct rrec *x)
{
	if (fifo_room(r, u))
		return r->rc;
	u->fhead = (u->fhead + u->falloc - 1) % u->falloc;
	u->fifo[u->fhead] = *x;
	u->fcount++;
	return 0;
}

/* A record of rank 'rk' was read: counted; its MPI_Init noted. */
static inline void count_record(struct st_replay *r, struct rank *rk,
				unsigned kind, unsigned fn, uint64_t t1,
				unsigned thread)
{
	r->stats.records++;
	if (!rk->init_known && kind == ST_REC_CALL && fn < ST_FN_COUNT &&
	    r->fkind[fn] == ST_KIND_INIT) {
		rk->init_known = 1;
		rk->init_t1 = t1;
		rk->main_thread = (int)thread;
	}
}

/*
 * read_one() of a record 'c' st_replay_rec_make() made (not a call-site
 * or object record, no group): as read_one() does with its event.
 */
static int read_rec(struct st_replay *r, int rank, struct unit *want,
		    struct rrec *into, const struct rrec *c)
{
	struct rank *rk = &r->ranks[rank];
	struct unit *u;

	count_record(r, rk, c->kind, c->fn, c->t1, c->thread);
	if (want && want->thread == c->thread && !want->fcount) {
		*into = *c;
		return 1;
	}
	u = unit_of(r, rk, rank, c->thread);
	if (!u)
		return r->rc;
	if (fifo_push(r, u, c))
		return r->rc;
	return 2;
}

/*
 * Read one record of rank 'rank'.  It goes to 'into' (returning 1) when
 * it belongs to unit 'want', else to its own unit's queue (returning 2).
 * 0 at the end, negative on error.
 */
static int read_one(struct st_replay *r, int rank, struct unit *want,
		    struct rrec *into)
{
	struct rank *rk = &r->ranks[rank];
	struct st_event ev;
	struct unit *u;
	struct rrec x;
	int rc;

	if (rk->eof)
		return 0;
	if (!rk->has_src) {
		rk->eof = 1;
		return 0;
	}
	if (rk->src.next_rec) {
		const struct rrec *c = NULL;

		rc = rk->src.next_rec(rk->src.ctx, (const void **)&c, &ev,
				      r->err, r->errlen);
		if (rc == 1)
			return read_rec(r, rank, want, into, c);
		if (rc == 2)
			rc = 1;
	} else {
		rc = rk->src.next(rk->src.ctx, &ev, r->err, r->errlen);
	}
	if (rc < 0) {
		r->rc = rc;
		return rc;
	}
	if (!rc) {
		rk->eof = 1;
		return 0;
	}
	if (ev.kind == ST_REC_SITE || ev.kind == ST_REC_OBJECT) {
		if (r->aux)
			r->aux(r->aux_ctx, rank, &ev);
		return 2;
	}
	count_record(r, rk, ev.kind, ev.fn, ev.t1, ev.thread);
	if (want && want->thread == ev.thread && !want->fcount) {
		rec_read(into, &ev);
		return 1;
	}
	u = unit_of(r, rk, rank, ev.thread);
	if (!u)
		return r->rc;
	rec_read(&x, &ev);
	if (fifo_push(r, u, &x)) {
		free(x.group);
		return r->rc;
	}
	return 2;
}

/* The next record of unit 'u': 1, 0 at its end, negative on error. */
static int unit_next(struct st_replay *r, struct unit *u, struct rrec *x)
{
	int rc;

	for (;;) {
		if (u->fcount) {
			*x = u->fifo[u->fhead];
			u->fhead = (u->fhead + 1) % u->falloc;
			u->fcount--;
			return 1;
		}
		rc = read_one(r, u->rank, u, x);
		if (rc != 2)
			return rc;
	}
}

/* Per-call statistics. */

static int note_site(struct st_replay *r, struct unit *u, double dt)
{
	uint32_t *v, idx;
	struct st_replay_site *s;

	if (r->opts.no_sites)
		return 0;
	/* Sites stay where they are once made: the unit's last one. */
	if (u->site_idx == NIL || u->site_site != u->op_site ||
	    u->site_fn != u->op_fn) {
		v = st_rp_map_get(&r->site_of, (uint64_t)u->rank, u->op_site,
				  u->op_fn);
		if (v) {
			idx = *v;
		} else {
			if (GROW(r, r->sites, r->asites, r->nsites))
				return r->rc;
			idx = (uint32_t)r->nsites;
			if (st_rp_map_put(&r->site_of, (uint64_t)u->rank,
					  u->op_site, u->op_fn, idx))
				return st_rp_oom(r);
			r->sites[idx] = (struct st_replay_site){
				.rank = u->rank, .site = u->op_site,
				.fn = u->op_fn };
			r->nsites++;
		}
		u->site_idx = idx;
		u->site_site = u->op_site;
		u->site_fn = u->op_fn;
	}
	s = &r->sites[u->site_idx];
	s->calls++;
	s->pred_ns += dt;
	s->meas_ns += u->op_meas;
	return 0;
}

/* Rank 'rank''s local time 't' in measured global time, or NaN. */
double st_rp_gtime(const struct st_replay *r, int rank, uint64_t t)
{
	const struct st_replay_source *src = &r->ranks[rank].src;

	return src->global ? src->global(src->ctx, t) : NAN;
}

/*
 * The own work of receive side 'u' after its last message the model
 * lacked was there, as measured: from the later of its entry and that
 * arrival to its exit, in global time; 0 when unknown.
 */
static double op_tail(const struct unit *u)
{
	double from, tail;

	if (!u->op_tail || !isfinite(u->op_gm) || !isfinite(u->op_g0) ||
	    !isfinite(u->op_g1))
		return 0;
	from = u->op_gm > u->op_g0 ? u->op_gm : u->op_g0;
	tail = u->op_g1 - from;
	if (tail < 0)
		return 0;
	return tail < u->op_meas ? tail : u->op_meas;
}

/* The op of 'u' has all its results: it ends at op_T. */
static void op_finish(struct st_replay *r, struct unit *u)
{
	struct st_replay_fn *f = &r->fns[u->op_fn];
	struct rank *rk = &r->ranks[u->rank];
	uint8_t *seen = &r->fn_calls[(size_t)u->rank * ST_FN_COUNT + u->op_fn];
	double tail = op_tail(u), dt, wait;
	int early = *seen < ST_REPLAY_EARLY_CALLS;

	if (tail > 0) {
		u->op_T += tail;
		u->op_busy += tail;
		u->op_cp.comm += tail;
	}
	if (u->op_ext > 0) {
		/*
		 * Busy while it does its own work (the last op_busy before
		 * op_T) or the copy (op_ext_from to op_ext); waiting the
		 * rest of the time.
		 */
		double b0 = u->op_T - u->op_busy, x0 = u->op_ext_from, over;

		if (x0 < u->op_entry)
			x0 = u->op_entry;
		over = (u->op_ext < u->op_T ? u->op_ext : u->op_T) -
		       (x0 > b0 ? x0 : b0);
		u->op_busy += u->op_ext - x0 - (over > 0 ? over : 0);
		if (u->op_ext > u->op_T) {
			u->op_T = u->op_ext;
			cp_set(&u->op_cp, &u->op_ext_cp);
		}
		u->op_ext = 0;
	}
	dt = u->op_T - u->op_entry;
	wait = dt - u->op_busy;
	if (wait < 0)
		wait = 0;
	u->now = u->op_T;
	cp_set(&u->cp, &u->op_cp);
	if (u->op_prog && u->op_T > rk->mpi_out)
		rk->mpi_out = u->op_T;
	u->op_exit = u->op_T;
	if (r->pend_held)
		st_rp_held_end(r, u);
	r->stats.calls++;
	*seen += early;
	/* Outside the selected phases it only moves time on. */
	if (!u->op_in)
		return;
	f->calls++;
	f->pred_ns += dt;
	f->meas_ns += u->op_meas;
	if (early) {
		f->early_calls++;
		f->early_meas_ns += u->op_meas;
	}
	f->wait_ns += wait;
	if (u->op_src == SRC_MODEL)
		f->n_model++;
	else if (u->op_src == SRC_MISSING)
		f->n_missing++;
	else if (u->op_src == SRC_TRACED)
		f->n_traced++;
	else
		f->n_local++;
	rk->res.mpi_ns += dt;
	rk->res.wait_ns += wait;
	if (wait > 0)
		rk->res.completions++;
	note_site(r, u, dt);
}

/* Start op 'fn' of 'u' at its current time with own cost 'busy'. */
void st_rp_op_begin(struct unit *u, const struct rrec *x, double busy,
		    int src)
{
	u->op_entry = u->now;
	u->op_blocked = 0;
	u->op_fn = x->fn;
	u->op_site = x->site;
	u->op_meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	u->op_busy = busy;
	u->op_T = u->now + busy;
	cp_set_add(&u->op_cp, &u->cp, busy);
	u->op_nwait = 0;
	u->op_src = src;
	u->op_coll = 0;
	u->op_tail = 0;
	u->op_gm = -INFINITY;
	u->last_entry = u->now;
	cp_set(&u->last_cp, &u->cp);
}

/* A result for unit 'u': done at 'T' along '*cp'. */
static void unit_result(struct st_replay *r, struct unit *u, double T,
			const struct cpv *cp)
{
	if (T > u->op_T) {
		u->op_T = T;
		cp_set_on(&u->op_cp, cp, u->rank);
	}
	if (--u->op_nwait > 0 || u->running || u->state != U_BLOCKED)
		return;
	op_finish(r, u);
	u->state = U_READY;
	heap_push(r, u);
}

static void req_release(struct st_replay *r, uint32_t qi);

/* A receive side 'x' of 'u' (after op_begin): see op_tail(). */
void st_rp_op_receives(struct st_replay *r, struct unit *u,
		       const struct rrec *x)
{
	u->op_tail = 1;
	u->op_g0 = st_rp_gtime(r, u->rank, x->t0);
	u->op_g1 = st_rp_gtime(r, u->rank, x->t1);
}

/* Unit 'u' learns of request 'q''s measured arrival. */
static void op_learn(struct unit *u, const struct req *q)
{
	if (q->gm > u->op_gm)
		u->op_gm = q->gm;
}

/*
 * Request 'qi' ('q'), done, gives its result to unit 'u', which waits
 * for it (counted in u->op_nwait), and is released.
 */
static void req_to_unit(struct st_replay *r, struct unit *u,
			const struct req *q, uint32_t qi)
{
	double T = q->T;
	struct cpv cp = q->cp;

	st_rp_recv_inside(r, u, q, &T, &cp);
	op_learn(u, q);
	req_release(r, qi);
	unit_result(r, u, T, &cp);
}

/* The operation of request 'qi' is complete at 'T' along 'cp'. */
void st_rp_req_result(struct st_replay *r, uint32_t qi, double T,
		      struct cpv cp)
{
	struct req *q = &r->reqs[qi];

	if (T > q->T) {
		q->T = T;
		q->cp = cp_on(cp, q->rank);
	}
	if (--q->nwait > 0)
		return;
	q->state = Q_DONE;
	if (q->missing && q->fn < ST_FN_COUNT)
		r->fns[q->fn].n_op_missing++;
	if (q->waiter != WNONE) {
		struct unit *u = r->units[q->waiter];

		q->waiter = WNONE;
		req_to_unit(r, u, q, qi);
	}
}

/*
 * Waiters are units (index >= 0) or requests (-2 - pool index).
 */
int32_t st_rp_w_unit(struct unit *u)
{
	u->op_nwait++;
	return u->idx;
}

int32_t st_rp_w_req(struct st_replay *r, uint32_t qi)
{
	r->reqs[qi].nwait++;
	return -2 - (int32_t)qi;
}

void st_rp_resolve_p(struct st_replay *r, int32_t w, double T,
		     const struct cpv *cp)
{
	if (w >= 0)
		unit_result(r, r->units[w], T, cp);
	else if (w != WNONE)
		st_rp_req_result(r, (uint32_t)(-2 - w), T, *cp);
}

void st_rp_resolve(struct st_replay *r, int32_t w, double T, struct cpv cp)
{
	st_rp_resolve_p(r, w, T, &cp);
}

/* Requests. */

static uint32_t req_new(struct st_replay *r, int rank, uint64_t id)
{
	uint32_t *v = st_rp_map_get(&r->req_of, (uint64_t)rank, id, 0);
	int32_t waiter = WNONE;
	struct req *q;
	uint32_t qi;

	if (v) {
		/*
		 * A placeholder that a Wait of another thread left (keep its
		 * waiter), or an id used again: the slot is reused.
		 */
		qi = *v;
		if (r->reqs[qi].state == Q_UNKNOWN)
			waiter = r->reqs[qi].waiter;
	} else {
		if (r->req_free != NIL) {
			qi = r->req_free;
			r->req_free = r->reqs[qi].next_free;
		} else {
			if (GROW(r, r->reqs, r->areqs, r->nreqs))
				return NIL;
			qi = (uint32_t)r->nreqs++;
		}
		if (st_rp_map_put(&r->req_of, (uint64_t)rank, id, 0, qi)) {
			st_rp_oom(r);
			return NIL;
		}
		r->live_reqs++;
	}
	q = &r->reqs[qi];
	memset(q, 0, sizeof(*q));
	q->rank = rank;
	q->id = id;
	q->state = Q_PENDING;
	q->waiter = waiter;
	q->cp.rank = rank;
	q->gm = -INFINITY;
	q->next_free = NIL;
	return qi;
}

/* Forget request 'qi' (persistent ones go back to idle). */
static void req_release(struct st_replay *r, uint32_t qi)
{
	struct req *q = &r->reqs[qi];

	if (q->persistent) {
		q->state = Q_IDLE;
		q->waiter = WNONE;
		return;
	}
	st_rp_map_del(&r->req_of, (uint64_t)q->rank, q->id, 0);
	q->state = Q_FREE;
	q->next_free = r->req_free;
	r->req_free = qi;
	r->live_reqs--;
}

/* Communicators. */

const struct comminfo *st_rp_comm_info(const struct st_replay *r, int rank,
				       uint64_t comm)
{
	struct rank *rk = &r->ranks[rank];
	uint32_t *v;

	/* Entries stay where they are once made: the last one found. */
	if (rk->ci_idx != NIL && rk->ci_comm == comm)
		return &r->cis[rk->ci_idx];
	v = st_rp_map_get(&r->comm_of, (uint64_t)rank, comm, 0);
	if (!v)
		return NULL;
	rk->ci_comm = comm;
	rk->ci_idx = *v;
	return &r->cis[*v];
}

static int on_comm(struct st_replay *r, int rank, const struct rrec *x)
{
	uint32_t *v = st_rp_map_get(&r->comm_of, (uint64_t)rank, x->comm, 0);

	if (!v) {
		if (GROW(r, r->cis, r->acis, r->ncis))
			return r->rc;
		if (st_rp_map_put(&r->comm_of, (uint64_t)rank, x->comm, 0,
				  (uint32_t)r->ncis))
			return st_rp_oom(r);
		v = st_rp_map_get(&r->comm_of, (uint64_t)rank, x->comm, 0);
		r->ncis++;
	}
	r->cis[*v] = (struct comminfo){ x->rank, x->comm_size,
					x->remote_size };
	return 0;
}

/* Calls. */

/*
 * Whether I-call 'x' sends a message that waits for its receive (a
 * rendezvous or synchronous send under the network model): the call
 * hands over only the request to send, and returns.
 */
static int sends_rendezvous(struct st_replay *r, const struct rrec *x)
{
	struct st_replay_msg nm;

	return st_rp_msg_cost(r, x->fn, (double)x->sbytes, &nm) &&
	       (nm.rendezvous || st_replay_sync_send(x->fn));
}

/* A nonblocking or persistent-init call 'x' of 'u'. */
static void call_nonblocking(struct st_replay *r, struct unit *u,
			     const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0, busy;
	int kind = r->fkind[x->fn], fam = r->ffam[x->fn];
	int src = st_rp_icall_cost(r, x, meas, &busy);
	struct cpv cp0 = u->cp;
	double t = u->now, e = 0;
	uint32_t qi;

	/*
	 * A send's start is in its I-call, as its hand-over is, when the
	 * model costs the call; it is counted with the message's cost
	 * (st_rp_start_p2p()).  Not a rendezvous send's: its I-call
	 * returns at once, and the start delays only the message (a
	 * fresh process's first MPI_Isend of 256 KiB took 1 to 8 us, the
	 * receive it met 1.1 to 3.5 ms).
	 */
	if (kind == ST_KIND_P2P && fam != ST_FAM_PERSISTENT && !x->rc &&
	    r->fbytes[x->fn] == ST_BYTES_SEND && peer_ok(x->peer)) {
		e = st_rp_start_cost(r, u->rank, x->comm, x->peer,
				     (double)x->sbytes);
		if (src == SRC_MODEL && e > 0 && !sends_rendezvous(r, x))
			busy += e;
	}
	st_rp_op_begin(u, x, busy, src);
	if (!x->req || x->rc)
		return;
	qi = req_new(r, u->rank, x->req);
	if (qi == NIL)
		return;
	if (fam == ST_FAM_PERSISTENT) {
		struct req *q = &r->reqs[qi];

		q->persistent = 1;
		q->state = Q_IDLE;
		q->fn = x->fn;
		q->comm = x->comm;
		q->comm_size = x->comm_size;
		q->sbytes = x->sbytes;
		q->rbytes = x->rbytes;
		q->root = x->root;
		q->peer = x->peer;
		q->tag = x->tag;
		q->is_coll = kind != ST_KIND_P2P;
		return;
	}
	if (kind == ST_KIND_P2P) {
		st_rp_start_p2p(r, u, qi, x->fn, x->comm, x->peer, x->tag,
				x->sbytes, x->rbytes, meas, t, cp0,
				st_rp_gtime(r, u->rank, x->t1), e);
		return;
	}
	r->reqs[qi].is_coll = 1;
	r->reqs[qi].fn = x->fn;
	r->reqs[qi].comm = x->comm;
	r->reqs[qi].seq = x->seq;
	if (!x->comm || !x->seq) {
		/*
		 * Not a collective (MPI_Rput, MPI_File_iwrite_at...): its
		 * completion keeps the time it measured.
		 */
		r->reqs[qi].T = t;
		r->reqs[qi].cp = cp0;
		r->reqs[qi].state = Q_DONE;
		r->reqs[qi].traced = kind == ST_KIND_RMA ||
				     kind == ST_KIND_IO;
		return;
	}
	r->reqs[qi].T = t;
	r->reqs[qi].cp = cp0;
	st_rp_coll_arrive(r, u->rank, st_rp_w_req(r, qi), x, x->seq, t, &cp0,
			  meas);
}

/* The I-call that starts its message as persistent send 'fn' does; 0. */
static unsigned icall_of(unsigned fn)
{
	switch (fn) {
	case ST_FN_MPI_SEND_INIT:
		return ST_FN_MPI_ISEND;
	case ST_FN_MPI_SSEND_INIT:
		return ST_FN_MPI_ISSEND;
	case ST_FN_MPI_BSEND_INIT:
		return ST_FN_MPI_IBSEND;
	case ST_FN_MPI_RSEND_INIT:
		return ST_FN_MPI_IRSEND;
	}
	return 0;
}

/*
 * What starting persistent send 'q' (start cost 'e') costs its MPI_Start
 * under the model, into '*cost': its I-call's and, eager, its start, as
 * in an I-call (call_nonblocking()).  0 when the model does not cost it.
 */
static int start_model(struct st_replay *r, const struct req *q, double e,
		       double *cost)
{
	struct rrec y = { .fn = (uint16_t)icall_of(q->fn), .peer = q->peer,
			  .comm = q->comm, .sbytes = q->sbytes };

	if (!y.fn || st_rp_icall_cost(r, &y, 0, cost) != SRC_MODEL)
		return 0;
	if (e > 0 && !sends_rendezvous(r, &y))
		*cost += e;
	return 1;
}

/*
 * A START record: instance of persistent request x->req begins, 'at'
 * after its call's entry.  Returns 1 when the model costs that start,
 * into '*cost' (when not NULL; start_model()).
 */
static int on_start(struct st_replay *r, struct unit *u, const struct rrec *x,
		    double at, double *cost)
{
	uint32_t *v = st_rp_map_get(&r->req_of, (uint64_t)u->rank, x->req,
				    0), qi;
	double t = u->last_entry + at, e;
	struct cpv cp = cp_add(u->last_cp, at);
	struct rrec y;
	struct req *q;

	if (!v)
		return 0;
	qi = *v;
	q = &r->reqs[qi];
	if (q->state == Q_PENDING || q->state == Q_DONE)
		return 0;	/* started twice without completing */
	q->state = Q_PENDING;
	q->T = t;
	q->cp = cp;
	q->waiter = WNONE;
	q->deferred = 0;
	if (!q->is_coll) {
		e = r->fbytes[q->fn] == ST_BYTES_SEND && peer_ok(q->peer) ?
		    st_rp_start_cost(r, u->rank, q->comm, q->peer,
				     (double)q->sbytes) : 0;
		st_rp_start_p2p(r, u, qi, q->fn, q->comm, q->peer, q->tag,
				q->sbytes, q->rbytes, 0, t, cp,
				st_rp_gtime(r, u->rank, x->t1), e);
		q = &r->reqs[qi];
		return cost && start_model(r, q, e, cost);
	}
	y = *x;
	y.fn = q->fn;
	y.comm = x->comm ? x->comm : q->comm;
	y.comm_size = x->comm_size ? x->comm_size : q->comm_size;
	y.root = q->root;
	if (!y.comm || !x->seq) {
		q->state = Q_DONE;
		return 0;
	}
	q->seq = x->seq;
	q->inst = x->inst;
	st_rp_coll_arrive(r, u->rank, st_rp_w_req(r, qi), &y, x->seq, t, &cp,
			  0);
	return 0;
}

/*
 * MPI_Start or MPI_Startall 'x' of 'u' and the START records after it,
 * which share its times.  Where the model costs the sends it starts (as
 * an I-call's: start_model()), the call takes their costs, each send
 * starting after those before it; its other starts (receives, a few
 * hundred ns where a send's take microseconds over TCP) add nothing:
 * a share of the measured time, which holds the sends' own costs where
 * it was measured, counted them twice (a Startall of two sends and two
 * receives over TCP, traced and tabled there: 17.5 us a call predicted,
 * 10 us measured, the sends' modelled costs 12.4 us).  Else the call
 * keeps its measured time.
 */
static void start_call(struct st_replay *r, struct unit *u,
		       const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	double model = 0, c;
	size_t nm = 0;
	struct rrec y;

	st_rp_op_begin(u, x, meas, SRC_LOCAL);
	while (unit_next(r, u, &y) == 1) {
		if (y.kind != ST_REC_START) {
			if (fifo_unget(r, u, &y))
				free(y.group);
			break;
		}
		if (u->started && !u->finalized &&
		    on_start(r, u, &y, model, &c)) {
			model += c;
			nm++;
		}
	}
	if (!nm)
		return;
	u->op_busy = model;
	u->op_T = u->op_entry + model;
	cp_set_add(&u->op_cp, &u->cp, model);
	u->op_src = SRC_MODEL;
}

/*
 * MPI_Cancel of request x->req: a receive no message has matched in the
 * replay is taken out of matching now, before receives posted after the
 * cancel; its completion then says whether the cancel succeeded
 * (call_complete()).  A local call.
 */
static void cancel_call(struct st_replay *r, struct unit *u,
			const struct rrec *x)
{
	uint32_t *v = x->req ? st_rp_map_get(&r->req_of, (uint64_t)u->rank,
					     x->req, 0) : NULL;
	struct req *q;

	st_rp_op_begin(u, x, x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0,
		       SRC_LOCAL);
	if (!v)
		return;
	q = &r->reqs[*v];
	if (q->state != Q_DONE && !q->deferred && q->nwait > 0 &&
	    st_rp_recv_cancel(r, u->rank, q->comm, q->peer, q->tag,
			      -2 - (int32_t)*v))
		q->cancel_out = 1;
}

/* A Wait/Test call of 'u' that completed the DONE records before it. */
static void call_complete(struct st_replay *r, struct unit *u,
			  const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	struct rank *rk = &r->ranks[u->rank];
	size_t i;
	int traced;

	if (!u->ndone) {
		st_rp_op_begin(u, x, meas, SRC_LOCAL);
		return;
	}
	st_rp_op_begin(u, x, 0, SRC_MODEL);
	st_rp_op_receives(r, u, x);
	traced = 0;
	for (i = 0; i < u->ndone; i++) {
		const struct pdone *d = &u->done[i];
		uint32_t *v = st_rp_map_get(&r->req_of, (uint64_t)u->rank,
					    d->req, 0);
		uint32_t qi;
		struct req *q;

		if (!v) {
			if (rk->nunits <= 1 || rk->eof) {
				r->stats.unknown_reqs++;
				continue;
			}
			/* Another thread may start it yet. */
			qi = req_new(r, u->rank, d->req);
			if (qi == NIL)
				return;
			q = &r->reqs[qi];
			q->state = Q_UNKNOWN;
			q->T = u->now;
			q->cp = u->cp;
			q->waiter = u->idx;
			u->op_nwait++;
			continue;
		}
		qi = *v;
		q = &r->reqs[qi];
		if (q->state == Q_IDLE || q->state == Q_FREE ||
		    q->state == Q_UNKNOWN) {
			r->stats.unknown_reqs++;
			continue;
		}
		if (d->cancelled && q->state != Q_DONE &&
		    (q->deferred || q->cancel_out ||
		     st_rp_recv_cancel(r, u->rank, q->comm, q->peer, q->tag,
				       -2 - (int32_t)qi))) {
			/* Cancelled before a message came: done at once. */
			q->deferred = 0;
			q->cancel_out = 0;
			st_rp_req_result(r, qi, q->post, q->post_cp);
			q = &r->reqs[qi];
		} else if (q->cancel_out) {
			/*
			 * Taken out at its MPI_Cancel, but a message came
			 * first in the run: back into matching.
			 */
			q->cancel_out = 0;
			st_rp_do_recv(r, u->rank, q->comm, q->peer, q->tag,
				      M_RECV, st_rp_w_req(r, qi), q->fn,
				      q->post_cp, q->post);
			q = &r->reqs[qi];
			st_rp_req_result(r, qi, q->post, q->post_cp);
			q = &r->reqs[qi];
		} else if (q->deferred) {
			/* The status names the sender: match now. */
			q->deferred = 0;
			if (peer_ok(d->peer) && d->tag >= 0)
				st_rp_do_recv(r, u->rank, q->comm, d->peer,
					      d->tag, M_RECV,
					      st_rp_w_req(r, qi), q->fn,
					      q->post_cp, q->post);
			q = &r->reqs[qi];
			st_rp_req_result(r, qi, q->post, q->post_cp);
			q = &r->reqs[qi];
		}
		if (q->missing)
			u->op_src = SRC_MISSING;
		if (q->traced)
			traced = 1;
		if (q->state == Q_DONE) {
			u->op_nwait++;
			req_to_unit(r, u, q, qi);
		} else {
			q->waiter = u->idx;
			u->op_nwait++;
		}
	}
	u->ndone = 0;
	/*
	 * It completed one-sided or I/O requests, which no model costs:
	 * at least its measured time.
	 */
	if (traced && meas > u->op_busy) {
		if (u->op_src == SRC_MODEL)
			u->op_src = SRC_TRACED;
		u->op_busy = meas;
		if (u->op_entry + meas > u->op_T) {
			u->op_T = u->op_entry + meas;
			u->op_cp = cp_add(u->cp, meas);
		}
	}
}

/* A blocking collective or communicator constructor. */
static void call_coll(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	struct cpv cp0;
	double t = u->now;

	cp_set(&cp0, &u->cp);
	if (!x->comm || !x->seq || x->rc) {
		st_rp_op_begin(u, x, meas, SRC_LOCAL);
		return;
	}
	st_rp_op_begin(u, x, 0, SRC_LOCAL);
	u->op_coll = 1;
	u->op_comm = x->comm;
	u->op_seq = x->seq;
	st_rp_coll_arrive(r, u->rank, st_rp_w_unit(u), x, x->seq, t, &cp0,
			  meas);
}

/* Synctrace's own work inside [lo, hi), local ns. */
static double overhead_in(struct unit *u, uint64_t lo, uint64_t hi)
{
	uint64_t cur_lo = 0, cur_hi = 0, a, b, sum = 0;
	size_t i, j, keep = 0;
	int have = 0;

	/* Few intervals: sort by start, then merge. */
	for (i = 1; i < u->nov; i++)
		for (j = i; j > 0 && u->ov[j][0] < u->ov[j - 1][0]; j--) {
			uint64_t t0 = u->ov[j][0], t1 = u->ov[j][1];

			u->ov[j][0] = u->ov[j - 1][0];
			u->ov[j][1] = u->ov[j - 1][1];
			u->ov[j - 1][0] = t0;
			u->ov[j - 1][1] = t1;
		}
	for (i = 0; i < u->nov; i++) {
		a = u->ov[i][0] > lo ? u->ov[i][0] : lo;
		b = u->ov[i][1] < hi ? u->ov[i][1] : hi;
		if (a < b) {
			if (have && a <= cur_hi) {
				if (b > cur_hi)
					cur_hi = b;
			} else {
				if (have)
					sum += cur_hi - cur_lo;
				cur_lo = a;
				cur_hi = b;
				have = 1;
			}
		}
		/* Work that ends after 'hi' may still cover later gaps. */
		if (u->ov[i][1] > hi) {
			u->ov[keep][0] = u->ov[i][0];
			u->ov[keep][1] = u->ov[i][1];
			keep++;
		}
	}
	if (have)
		sum += cur_hi - cur_lo;
	u->nov = keep;
	return (double)sum;
}

/*
 * The compute segment before the call entered at local 't0'; 'in' when
 * it lies in a selected phase (it counts then).
 */
static void compute(struct st_replay *r, struct unit *u, uint64_t t0, int in)
{
	struct rank *rk = &r->ranks[u->rank];
	double raw = t0 > u->last_exit ? (double)(t0 - u->last_exit) : 0;
	double ov = u->nov ? overhead_in(u, u->last_exit, t0) : 0;
	double g = raw - ov;

	if (g < 0)
		g = 0;
	if (in) {
		rk->res.overhead_ns += ov;
		rk->res.meas_compute_ns += g;
	}
	g *= r->opts.compute_scale;
	if (in)
		rk->res.compute_ns += g;
	u->now += g;
	u->cp.comp += g;
}

/* A span of a selected phase ends at 'u''s current time, local 't'. */
static void span_close(struct st_replay *r, struct unit *u, uint64_t t)
{
	struct rank *rk = &r->ranks[u->rank];

	if (!u->span_open)
		return;
	u->span_open = 0;
	if (u->now > u->span_pred)
		rk->ph_pred += u->now - u->span_pred;
	if (t > u->span_local)
		rk->ph_meas += (double)(t - u->span_local);
}

static void span_start(struct unit *u, double pred, uint64_t local)
{
	u->span_open = 1;
	u->span_pred = pred;
	u->span_local = local;
}

static int on_call(struct st_replay *r, struct unit *u, struct rrec *x)
{
	struct rank *rk = &r->ranks[u->rank];
	int kind = x->fn < ST_FN_COUNT ? r->fkind[x->fn] : 0;
	int fam = x->fn < ST_FN_COUNT ? r->ffam[x->fn] : 0;
	int prog = x->fn < ST_FN_COUNT ? r->fprog[x->fn] : PROG_LOCAL;
	int phased = r->opts.phase.mode != ST_PHASE_ALL, was_in, in, marker;

	if (u->finalized)
		return 0;
	if (!u->started) {
		if (kind == ST_KIND_INIT) {
			/*
			 * synctrace's own init work (communicator ids, the
			 * first clock sync, where ranks also wait for each
			 * other) runs after PMPI_Init's exit and before its
			 * CALL record, unmarked: the run starts where the
			 * records it wrote end.
			 */
			u->started = 1;
			u->last_exit = x->t1 > u->pre_init ? x->t1 :
				       u->pre_init;
			rk->init_t1 = u->last_exit;
			if (phased && u->ph.in)
				span_start(u, u->now, u->last_exit);
			return 0;
		}
		/* Another thread: its clock starts at MPI_Init's exit. */
		while (!rk->init_known && !rk->eof)
			if (read_one(r, u->rank, NULL, NULL) < 0)
				return r->rc;
		if (!rk->init_known || u->thread == rk->main_thread)
			return 0;	/* before MPI_Init: not replayed */
		u->started = 1;
		u->last_exit = rk->init_t1;
		if (phased && u->ph.in)
			span_start(u, u->now, u->last_exit);
	}
	if (kind == ST_KIND_INIT)
		return 0;
	was_in = u->ph.in;
	in = !phased || st_phase_step(&r->opts.phase, &u->ph, ST_REC_CALL,
				      x->fn, x->arg);
	marker = phased && st_phase_marker(x->fn);
	if (u->pre_done)
		u->pre_done = 0;	/* unit_run() did */
	else
		compute(r, u, x->t0, was_in);
	u->last_exit = x->t1;
	/*
	 * In MPI now: rendezvous transfers waiting for this rank go (those
	 * that need both sides inside MPI not at a call that only starts
	 * something and returns at once, which nm-progress found does
	 * nothing for them; a local call does release them).
	 */
	if (r->pend_live)
		st_rp_progress(r, kind == ST_KIND_FINALIZE ? NULL : u,
			       u->rank, u->now, 0, prog == PROG_STARTS);
	/*
	 * Held sends and the receives of eager messages a rank must take
	 * in wait for a call that moves messages: local calls, which
	 * release the transfers above, do not count here.  Both rules are
	 * docs/prediction.md's; one for both would change predictions of
	 * traces with local calls between a send and its Wait.
	 */
	u->op_prog = prog == PROG_MOVES;
	/* Inside MPI now: its held sends leave. */
	if (u->op_prog && r->hs_live && rk->hs_head != NIL)
		st_rp_flush_sends(r, u->rank, u);
	u->op_in = in;
	if (marker)
		span_close(r, u, x->t0);
	if (kind == ST_KIND_FINALIZE) {
		span_close(r, u, x->t0);
		u->finalized = 1;
		rk->res.finished = 1;
		rk->res.pred_ns = u->now;
		rk->res.path = (struct st_replay_path){ u->cp.comp,
							u->cp.comm,
							u->cp.hops };
		rk->res.meas_ns = x->t0 > rk->init_t1 ?
				  (double)(x->t0 - rk->init_t1) : 0;
		return 0;
	}
	if (x->fn >= ST_FN_COUNT || !kind) {
		st_rp_op_begin(u, x, x->t1 >= x->t0 ?
			       (double)(x->t1 - x->t0) : 0, SRC_LOCAL);
	} else if (kind == ST_KIND_COMPLETE) {
		if (x->fn == ST_FN_MPI_START || x->fn == ST_FN_MPI_STARTALL)
			start_call(r, u, x);
		else if (x->fn == ST_FN_MPI_REQUEST_FREE)
			st_rp_op_begin(u, x, x->t1 >= x->t0 ?
				       (double)(x->t1 - x->t0) : 0, SRC_LOCAL);
		else if (x->fn == ST_FN_MPI_CANCEL)
			cancel_call(r, u, x);
		else
			call_complete(r, u, x);
	} else if (fam == ST_FAM_NONBLOCKING || fam == ST_FAM_PERSISTENT) {
		call_nonblocking(r, u, x);
	} else if (kind == ST_KIND_P2P) {
		st_rp_call_p2p(r, u, x);
	} else if (kind == ST_KIND_COLL ||
		   (kind == ST_KIND_COMM && fam == ST_FAM_BLOCKING) ||
		   st_fn_group_coll(x->fn) != ST_GC_NONE) {
		call_coll(r, u, x);
	} else if (kind == ST_KIND_RMA || kind == ST_KIND_WIN ||
		   kind == ST_KIND_FILE || kind == ST_KIND_IO) {
		st_rp_call_rma(r, u, x);
	} else {
		st_rp_op_begin(u, x, x->t1 >= x->t0 ?
			       (double)(x->t1 - x->t0) : 0, SRC_LOCAL);
	}
	/* A marker that opens a selected phase: from its exit. */
	if (marker && u->ph.in)
		span_start(u, u->op_T, x->t1);
	return r->rc;
}

static int on_record(struct st_replay *r, struct unit *u, struct rrec *x)
{
	switch (x->kind) {
	case ST_REC_CALL:
		return on_call(r, u, x);
	case ST_REC_START:
		if (u->started && !u->finalized)
			on_start(r, u, x, 0, NULL);
		return r->rc;
	case ST_REC_DONE:
		if (GROW(r, u->done, u->adone, u->ndone))
			return r->rc;
		u->done[u->ndone++] = (struct pdone){
			x->req, x->peer, x->tag,
			(x->arg & ST_DONE_CANCELLED) != 0 };
		return 0;
	case ST_REC_COMM:
		if (!u->started && x->t1 > u->pre_init)
			u->pre_init = x->t1;
		return on_comm(r, u->rank, x);
	case ST_REC_MARK:
		if (x->fn == ST_MARK_FINALIZE && u->started && !u->fin_mark)
			u->fin_mark = x->t0;
		/* fall through */
	case ST_REC_SYNC:
		if (!u->started && x->t1 > u->pre_init)
			u->pre_init = x->t1;
		if (x->t1 <= x->t0)
			return 0;
		if (GROW(r, u->ov, u->aov, u->nov))
			return r->rc;
		u->ov[u->nov][0] = x->t0;
		u->ov[u->nov][1] = x->t1;
		u->nov++;
		return 0;
	}
	return 0;
}

/* The stream of 'u' ended. */
static int unit_end(struct st_replay *r, struct unit *u)
{
	struct rank *rk = &r->ranks[u->rank];

	/*
	 * MPI_Finalize began (synctrace's finalize work is recorded) but
	 * never returned, so its record is missing: a finalize that hung
	 * and was killed.  The run still ended at its entry.
	 */
	if (!u->finalized && u->fin_mark && rk->eof &&
	    u->thread == rk->main_thread) {
		struct rrec f;

		memset(&f, 0, sizeof(f));
		f.kind = ST_REC_CALL;
		f.fn = ST_FN_MPI_FINALIZE;
		f.thread = (uint16_t)u->thread;
		f.t0 = f.t1 = u->fin_mark;
		if (on_call(r, u, &f))
			return r->rc;
	}
	u->state = U_DONE;
	if (!u->finalized)
		span_close(r, u, u->last_exit);
	if (u->finalized || !rk->eof)
		return 0;
	if (!rk->init_known)
		return fail(r, -EBADMSG, "rank %d's trace has no MPI_Init "
			    "(the rank was killed, or tracing stopped)",
			    u->rank);
	if (u->thread == rk->main_thread)
		return fail(r, -EBADMSG, "rank %d's trace ends before "
			    "MPI_Finalize (the rank was killed, or the "
			    "program did not call MPI_Finalize)", u->rank);
	return 0;
}

/* Run 'u' until it blocks, ends, or passes 'limit'. */
static int unit_run(struct st_replay *r, struct unit *u, double limit)
{
	struct rrec x;
	int rc;

	u->running = 1;
	while (!r->rc) {
		/*
		 * Ops start in time order across units (the heap's top
		 * may have come back since), so that messages take their
		 * turns at the ports in the order they were sent.
		 */
		if (r->nheap && r->heap[0]->now < limit)
			limit = r->heap[0]->now;
		if (u->now > limit) {
			u->running = 0;
			return heap_push(r, u);
		}
		if (u->finalized) {
			/* What follows MPI_Finalize is not replayed. */
			u->running = 0;
			u->state = U_DONE;
			return 0;
		}
		rc = unit_next(r, u, &x);
		if (rc < 0)
			break;
		if (!rc) {
			u->running = 0;
			return unit_end(r, u);
		}
		if (x.kind == ST_REC_CALL)
			u->op_nwait = -1;	/* no op yet */
		/*
		 * The compute before a call, then the call only if it still
		 * comes first: ops start in time order.  A collective with
		 * no transfer pending and no send held touches nothing that
		 * other ranks' calls take in turn (ports, pending transfers,
		 * held sends): it need not wait its turn, which spares a
		 * trace of collectives a switch of units at every call.
		 */
		if (x.kind == ST_REC_CALL && u->started && !u->finalized &&
		    !u->pre_done && x.fn < ST_FN_COUNT &&
		    r->fkind[x.fn] != ST_KIND_INIT &&
		    (r->fkind[x.fn] != ST_KIND_COLL || r->pend_live ||
		     r->hs_live)) {
			compute(r, u, x.t0, u->ph.in);
			u->pre_done = 1;
			if (r->nheap && r->heap[0]->now < limit)
				limit = r->heap[0]->now;
			if (u->now > limit) {
				/* Not its turn: first in its queue. */
				if (fifo_unget(r, u, &x)) {
					free(x.group);
					break;
				}
				u->running = 0;
				return heap_push(r, u);
			}
		}
		rc = on_record(r, u, &x);
		if (x.group)
			free(x.group);
		if (rc)
			break;
		if (x.kind != ST_REC_CALL || u->op_nwait < 0 || u->finalized ||
		    !u->started)
			continue;
		if (r->live_insts + r->live_msgs + r->live_reqs >
		    r->stats.max_inflight)
			r->stats.max_inflight = r->live_insts + r->live_msgs +
						r->live_reqs;
		if (u->op_nwait > 0) {
			u->running = 0;
			u->state = U_BLOCKED;
			u->op_blocked = 1;
			return 0;
		}
		op_finish(r, u);
	}
	u->running = 0;
	return r->rc;
}

/*
 * Nothing can move.  First read on in ranks whose streams are not done
 * (a thread not seen yet may hold what is waited for).  Then complete
 * the earliest receive or probe (or synchronous send) that no send
 * (receive) matched, as if its partner had been there: one at a time,
 * since what it lets run may bring the partners of the others.  Last,
 * every wait for a request no thread started.  Returns the number of
 * things that can now move, 0 when nothing.
 */
static size_t unstick(struct st_replay *r)
{
	uint32_t best = NIL;
	double best_t = INFINITY;
	size_t n = 0, i;
	int rank;

	for (rank = 0; rank < r->nranks; rank++) {
		if (r->ranks[rank].eof)
			continue;
		while (!r->ranks[rank].eof && !r->nheap)
			if (read_one(r, rank, NULL, NULL) < 0)
				return 0;
		/* New work, or a stream read to its end: look again. */
		return 1;
	}
	/* Rendezvous transfers whose sides never came back into MPI. */
	if (r->pend_live && st_rp_progress(r, NULL, -1, 0, 1, 0))
		return 1;
	/* Sends held by ranks that never came back into MPI. */
	for (rank = 0; r->hs_live && rank < r->nranks; rank++)
		n += st_rp_flush_sends(r, rank, NULL);
	if (n)
		return 1;
	for (i = 0; i < r->mq_of.cap; i++) {
		const struct hent *e = &r->mq_of.e[i];
		const struct msg *m;

		if (e->val == NIL)
			continue;
		m = &r->msgs[r->mqs[e->val].head];
		if ((m->type != M_SEND || m->sync) && m->t < best_t) {
			best_t = m->t;
			best = e->val;
		}
	}
	if (best != NIL) {
		struct msg m = r->msgs[r->mqs[best].head];

		st_rp_mq_pop(r, best);
		if (m.type == M_SEND) {
			st_rp_resolve(r, m.w, m.t + m.xfer,
				      cp_add(m.cp, m.xfer));
		} else {
			st_rp_resolve(r, m.w, m.t, m.cp);
			r->stats.released++;
		}
		return 1;
	}
	if (st_rp_rma_unstick(r))
		return 1;
	for (i = 0; i < r->nreqs; i++) {
		struct req *q = &r->reqs[i];

		if (q->state != Q_UNKNOWN || q->waiter == WNONE)
			continue;
		r->stats.unknown_reqs++;
		q->state = Q_PENDING;
		q->nwait = 1;
		st_rp_req_result(r, (uint32_t)i, q->T, q->cp);
		n++;
	}
	return n;
}

/* Say why the replay cannot go on. */
static int stuck(struct st_replay *r)
{
	char nm[32], nm2[32];
	uint32_t ii;
	size_t i, k;

	for (i = 0; i < r->nunits; i++) {
		struct unit *u = r->units[i];

		if (u->state != U_BLOCKED)
			continue;
		if (u->op_coll &&
		    (ii = st_rp_inst_find(r, u->op_comm, u->op_seq, 0)) != NIL)
			return fail(r, -EBADMSG, "replay stuck: rank %d waits "
				    "in %s on communicator 0x%llx (call %llu), "
				    "which only %d of its %d members reach",
				    u->rank, st_fn_name(u->op_fn, nm,
				    sizeof(nm)),
				    (unsigned long long)u->op_comm,
				    (unsigned long long)u->op_seq,
				    r->insts[ii].arrived,
				    r->insts[ii].expected);
		/* A Wait: for which operation? */
		for (k = 0; k < r->nreqs; k++) {
			const struct req *q = &r->reqs[k];

			if (q->waiter != u->idx || q->state == Q_FREE)
				continue;
			ii = q->is_coll ? st_rp_inst_find(r, q->comm, q->seq,
							  q->inst) : NIL;
			if (ii != NIL)
				return fail(r, -EBADMSG, "replay stuck: rank "
					    "%d waits in %s for %s (request "
					    "%llu) on communicator 0x%llx "
					    "(call %llu), which only %d of its "
					    "%d members reach", u->rank,
					    st_fn_name(u->op_fn, nm,
					    sizeof(nm)),
					    st_fn_name(q->fn, nm2,
					    sizeof(nm2)),
					    (unsigned long long)q->id,
					    (unsigned long long)q->comm,
					    (unsigned long long)q->seq,
					    r->insts[ii].arrived,
					    r->insts[ii].expected);
			return fail(r, -EBADMSG, "replay stuck: rank %d waits "
				    "in %s for %s (request %llu), which "
				    "nothing in the traces completes", u->rank,
				    st_fn_name(u->op_fn, nm, sizeof(nm)),
				    st_fn_name(q->fn, nm2, sizeof(nm2)),
				    (unsigned long long)q->id);
		}
		return fail(r, -EBADMSG, "replay stuck: rank %d waits in %s, "
			    "which nothing in the traces completes", u->rank,
			    st_fn_name(u->op_fn, nm, sizeof(nm)));
	}
	return fail(r, -EBADMSG, "replay stuck");
}

void st_replay_opts_init(struct st_replay_opts *o)
{
	o->compute_scale = 1.0;
	o->phase.mode = ST_PHASE_ALL;
	o->phase.value = 0;
	o->no_sites = 0;
}

const char *st_replay_waits_for(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	if (!d)
		return "-";
	if (d->kind == ST_KIND_COLL && d->family == ST_FAM_BLOCKING) {
		switch (d->bytes) {
		case ST_BYTES_BCAST:
		case ST_BYTES_SCATTER:
		case ST_BYTES_SCATTERV:
			return "root";
		case ST_BYTES_SCAN:
			return "lower ranks";
		}
		return "members";
	}
	if (st_fn_group_coll(fn) != ST_GC_NONE ||
	    (d->kind == ST_KIND_COMM && d->family == ST_FAM_BLOCKING))
		return "members";
	switch (fn) {
	case ST_FN_MPI_WIN_START:
		return "post";
	case ST_FN_MPI_WIN_WAIT:
	case ST_FN_MPI_WIN_TEST:
		return "completes";
	case ST_FN_MPI_START:
	case ST_FN_MPI_STARTALL:
	case ST_FN_MPI_REQUEST_FREE:
	case ST_FN_MPI_CANCEL:
		return "-";
	}
	if (d->kind == ST_KIND_COMPLETE)
		return "requests";
	if (d->kind == ST_KIND_P2P && d->family == ST_FAM_BLOCKING &&
	    (d->bytes != ST_BYTES_SEND || fn == ST_FN_MPI_SSEND ||
	     fn == ST_FN_MPI_SSEND_C))
		return "message";
	return "-";
}

/* What a call of function 'fn' (described by 'd') does for messages:
   PROG_*. */
static int fn_prog(unsigned fn, const struct st_fn_desc *d)
{
	if (d->family == ST_FAM_NONBLOCKING ||
	    d->family == ST_FAM_PERSISTENT ||
	    fn == ST_FN_MPI_START || fn == ST_FN_MPI_STARTALL)
		return PROG_STARTS;
	if (d->kind == ST_KIND_P2P || d->kind == ST_KIND_COLL ||
	    (d->kind == ST_KIND_COMPLETE && fn != ST_FN_MPI_REQUEST_FREE &&
	     fn != ST_FN_MPI_CANCEL))
		return PROG_MOVES;
	return PROG_LOCAL;
}

int st_replay_new(struct st_replay **out, int nranks,
		  const struct st_replay_model *m,
		  const struct st_replay_opts *o)
{
	struct st_replay *r;
	unsigned fn;

	*out = NULL;
	if (nranks < 1 || nranks > MAX_RANKS || !m)
		return -EINVAL;
	if (o && (!isfinite(o->compute_scale) || o->compute_scale < 0))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->nranks = nranks;
	r->model = *m;
	if (o)
		r->opts = *o;
	else
		st_replay_opts_init(&r->opts);
	r->ranks = calloc((size_t)nranks, sizeof(*r->ranks));
	r->out_free = malloc(2 * (size_t)nranks * sizeof(*r->out_free));
	r->fns = calloc(ST_FN_COUNT, sizeof(*r->fns));
	r->fkind = calloc(ST_FN_COUNT, 1);
	r->ffam = calloc(ST_FN_COUNT, 1);
	r->fbytes = calloc(ST_FN_COUNT, 1);
	r->fprog = calloc(ST_FN_COUNT, 1);
	_Static_assert(ST_REPLAY_EARLY_CALLS <= UINT8_MAX, "fn_calls' bytes");
	r->fn_calls = calloc((size_t)nranks, ST_FN_COUNT);
	if (!r->ranks || !r->fns || !r->fkind || !r->ffam || !r->fbytes ||
	    !r->fprog || !r->fn_calls || !r->out_free) {
		st_replay_free(r);
		return -ENOMEM;
	}
	r->in_free = r->out_free + nranks;
	for (fn = 0; fn < 2 * (unsigned)nranks; fn++)
		r->out_free[fn] = -INFINITY;
	for (fn = 1; fn < ST_FN_COUNT; fn++) {
		const struct st_fn_desc *d = st_fn_desc(fn);

		r->fns[fn].fn = (uint16_t)fn;
		if (!d)
			continue;
		r->fkind[fn] = (uint8_t)d->kind;
		r->ffam[fn] = (uint8_t)d->family;
		r->fbytes[fn] = (uint8_t)d->bytes;
		r->fprog[fn] = (uint8_t)fn_prog(fn, d);
	}
	r->inst_free = r->memb_free = r->msg_free = r->mq_free = NIL;
	r->inst_last = NIL;
	for (fn = 0; fn < (unsigned)nranks; fn++)
		r->ranks[fn].ci_idx = r->ranks[fn].hs_head =
			r->ranks[fn].hs_tail = NIL;
	r->req_free = r->pend_free = r->hs_free = NIL;
	r->stats.end_rank = -1;
	*out = r;
	return 0;
}

int st_replay_set_source(struct st_replay *r, int rank,
			 const struct st_replay_source *src)
{
	if (rank < 0 || rank >= r->nranks || !src ||
	    (!src->next && !src->next_rec))
		return -EINVAL;
	r->ranks[rank].src = *src;
	r->ranks[rank].has_src = 1;
	return 0;
}

void st_replay_set_aux(struct st_replay *r,
		       void (*fn)(void *ctx, int rank,
				  const struct st_event *ev),
		       void *ctx)
{
	r->aux = fn;
	r->aux_ctx = ctx;
}

static void finish_stats(struct st_replay *r)
{
	struct st_replay_stats *s = &r->stats;
	int rank;

	for (rank = 0; rank < r->nranks; rank++) {
		struct st_replay_rank *x = &r->ranks[rank].res;

		if (r->opts.phase.mode != ST_PHASE_ALL) {
			x->pred_ns = r->ranks[rank].ph_pred;
			x->meas_ns = r->ranks[rank].ph_meas;
		}
		if (!x->finished)
			continue;
		if (s->end_rank < 0 || x->pred_ns > s->end_ns) {
			s->end_ns = x->pred_ns;
			s->end_rank = rank;
			s->path = x->path;
		}
		if (x->meas_ns > s->meas_end_ns)
			s->meas_end_ns = x->meas_ns;
	}
	/* What no receive took. */
	s->unmatched_sends += r->live_msgs;
}

int st_replay_run(struct st_replay *r, char *err, size_t errlen)
{
	struct unit *u;
	int rank;
	size_t i;

	r->err = err;
	r->errlen = errlen;
	if (err && errlen)
		*err = '\0';
	for (rank = 0; rank < r->nranks; rank++)
		if (!unit_of(r, &r->ranks[rank], rank, 0))
			return r->rc;
	for (;;) {
		while (r->nheap && !r->rc) {
			u = heap_pop(r);
			unit_run(r, u, r->nheap ? r->heap[0]->now : INFINITY);
		}
		if (r->rc)
			return r->rc;
		for (i = 0; i < r->nunits; i++)
			if (r->units[i]->state != U_DONE)
				break;
		for (rank = 0; i == r->nunits && rank < r->nranks; rank++)
			if (!r->ranks[rank].eof)
				break;
		if (i == r->nunits && rank == r->nranks)
			break;
		if (!unstick(r))
			return r->rc ? r->rc : stuck(r);
	}
	finish_stats(r);
	return 0;
}

const struct st_replay_stats *st_replay_stats(const struct st_replay *r)
{
	return &r->stats;
}

const struct st_replay_rank *st_replay_rank(const struct st_replay *r,
					    int rank)
{
	if (rank < 0 || rank >= r->nranks)
		return NULL;
	return &r->ranks[rank].res;
}

const struct st_replay_fn *st_replay_fns(const struct st_replay *r,
					 size_t *n)
{
	struct st_replay *w = (struct st_replay *)r;
	size_t fn, k = 0;

	free(w->fn_out);
	w->fn_out = malloc(ST_FN_COUNT * sizeof(*w->fn_out));
	if (!w->fn_out) {
		*n = 0;
		return NULL;
	}
	for (fn = 1; fn < ST_FN_COUNT; fn++)
		if (r->fns[fn].calls)
			w->fn_out[k++] = r->fns[fn];
	*n = k;
	return w->fn_out;
}

const struct st_replay_site *st_replay_sites(const struct st_replay *r,
					     size_t *n)
{
	*n = r->nsites;
	return r->sites;
}

void st_replay_free(struct st_replay *r)
{
	size_t i;
	int rank;

	if (!r)
		return;
	for (i = 0; i < r->nunits; i++) {
		struct unit *u = r->units[i];
		size_t k;

		for (k = 0; k < u->fcount; k++)
			free(u->fifo[(u->fhead + k) % u->falloc].group);
		free(r->units[i]->done);
		free(r->units[i]->ov);
		free(r->units[i]->fifo);
		free(r->units[i]);
	}
	if (r->ranks)
		for (rank = 0; rank < r->nranks; rank++)
			free(r->ranks[rank].units);
	free(r->ranks);
	free(r->out_free);
	free(r->pends);
	free(r->hsends);
	free(r->units);
	free(r->heap);
	st_rp_map_free(&r->inst_of);
	st_rp_map_free(&r->mq_of);
	st_rp_map_free(&r->req_of);
	st_rp_map_free(&r->comm_of);
	st_rp_map_free(&r->site_of);
	st_rp_map_free(&r->first_seen);
	st_rp_map_free(&r->start_of);
	free(r->insts);
	free(r->membs);
	free(r->msgs);
	free(r->mqs);
	free(r->reqs);
	free(r->cis);
	free(r->fns);
	free(r->fn_out);
	free(r->sites);
	free(r->fkind);
	free(r->ffam);
	free(r->fbytes);
	free(r->fprog);
	free(r->fn_calls);
	free(r->scan_buf);
	st_rp_rma_free(r);
	free(r);
}

