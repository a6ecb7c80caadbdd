/*
 * tools/analysis/replay-rma.c: one-sided and I/O calls in the replay,
 * but for the collectives over a window or a file, which
 * replay-coll.c replays as any collective.  Post-start-complete-wait
 * is the one other synchronisation MPI defines between ranks: an
 * origin's access epoch on a target begins once the target posted an
 * exposure epoch naming it, and the target's MPI_Win_wait returns once
 * every origin it named completed.  Each (window, rank, rank, kind)
 * has a queue, in order, of what was signalled (a post, a complete:
 * its predicted exit with its critical path and its measured global
 * time) or of who waits for it (an MPI_Win_start, an MPI_Win_wait),
 * and the heads pair as they come, as messages do: the n-th start of
 * an origin toward a target meets the n-th post of that target naming
 * it.  The groups of a post and a start are kept, per rank and window,
 * until the wait and complete that end their epochs.  Passive target
 * synchronisation (lock, unlock, flush, lock_all, sync) waits for
 * nobody in MPI's definition, since the target takes no part: like
 * every other call here it takes its measured time ("traced").
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/replay-internal.h"
#include "writer/event.h"
#include "writer/fn-info.h"

/* What a queue holds: signals (posts, completes) or who waits. */
enum { K_POST = 1, K_COMPLETE = 2 };

/* An entry of a queue. */
struct ent {
	uint32_t next;
	int32_t w;		/* waiter (unit), or WNONE for a signal */
	double T;		/* signal: its predicted time */
	double gm;		/* signal: its measured global time, NaN */
	double post;		/* waiter: when it began waiting */
	struct cpv cp;
};

struct queue {
	uint32_t head, tail;
	uint64_t k1, k2, k3;
};

/* An epoch's group, kept until the call that ends it. */
struct grp {
	int32_t *v;
	uint32_t n;
};

struct st_rp_rma {
	struct hmap q_of;		/* (win, from << 32 | to, kind) */
	struct queue *q;
	size_t nq, aq;
	uint32_t q_free;
	struct ent *e;
	size_t ne, ae;
	uint32_t e_free;
	struct hmap g_of;		/* (rank, win, kind) -> in 'g' */
	struct grp *g;
	size_t ng, ag;
	uint32_t g_free;
	size_t waiting;			/* waiters queued */
};

static struct st_rp_rma *state(struct st_replay *r)
{
	if (!r->rma) {
		r->rma = calloc(1, sizeof(*r->rma));
		if (!r->rma) {
			st_rp_oom(r);
			return NULL;
		}
		r->rma->q_free = r->rma->e_free = r->rma->g_free = NIL;
	}
	return r->rma;
}

void st_rp_rma_free(struct st_replay *r)
{
	struct st_rp_rma *a = r->rma;
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->ng; i++)
		free(a->g[i].v);
	free(a->g);
	free(a->q);
	free(a->e);
	st_rp_map_free(&a->q_of);
	st_rp_map_free(&a->g_of);
	free(a);
	r->rma = NULL;
}

static uint32_t ent_new(struct st_replay *r, struct st_rp_rma *a)
{
	uint32_t i;

	if (a->e_free != NIL) {
		i = a->e_free;
		a->e_free = a->e[i].next;
		return i;
	}
	if (GROW(r, a->e, a->ae, a->ne))
		return NIL;
	return (uint32_t)a->ne++;
}

/* The queue of key (k1, k2, k3), made when absent; NIL: no memory. */
static uint32_t queue_of(struct st_replay *r, struct st_rp_rma *a,
			 uint64_t k1, uint64_t k2, uint64_t k3)
{
	uint32_t *v = st_rp_map_get(&a->q_of, k1, k2, k3), i;

	if (v)
		return *v;
	if (a->q_free != NIL) {
		i = a->q_free;
		a->q_free = a->q[i].head;
	} else {
		if (GROW(r, a->q, a->aq, a->nq))
			return NIL;
		i = (uint32_t)a->nq++;
	}
	if (st_rp_map_put(&a->q_of, k1, k2, k3, i)) {
		st_rp_oom(r);
		return NIL;
	}
	a->q[i] = (struct queue){ NIL, NIL, k1, k2, k3 };
	return i;
}

/* Take the head of queue 'qi' off (freeing the queue when empty). */
static struct ent pop(struct st_rp_rma *a, uint32_t qi)
{
	struct queue *q = &a->q[qi];
	uint32_t h = q->head;
	struct ent x = a->e[h];

	q->head = x.next;
	if (q->head == NIL) {
		st_rp_map_del(&a->q_of, q->k1, q->k2, q->k3);
		q->head = a->q_free;
		a->q_free = qi;
	}
	a->e[h].next = a->e_free;
	a->e_free = h;
	return x;
}

static int append(struct st_replay *r, struct st_rp_rma *a, uint32_t qi,
		  const struct ent *x)
{
	uint32_t i = ent_new(r, a);

	if (i == NIL)
		return -1;
	a->e[i] = *x;
	a->e[i].next = NIL;
	if (a->q[qi].tail != NIL && a->q[qi].head != NIL)
		a->e[a->q[qi].tail].next = i;
	else
		a->q[qi].head = i;
	a->q[qi].tail = i;
	return 0;
}

/* Waiter 'w' (a unit) meets signal 's'. */
static void meet(struct st_replay *r, int32_t w, const struct ent *s)
{
	struct unit *u = r->units[w];

	if (s->gm > u->op_gm)
		u->op_gm = s->gm;
	st_rp_resolve(r, w, s->T, s->cp);
}

/*
 * Signal 'kind' from window rank 'from' to 'to' on window 'win' at 'T'
 * along 'cp', measured at global 'gm'.
 */
static void notify(struct st_replay *r, uint64_t win, int32_t from,
		   int32_t to, int kind, double T, struct cpv cp, double gm)
{
	struct st_rp_rma *a = state(r);
	struct ent x = { NIL, WNONE, T, gm, 0, cp };
	uint32_t qi;

	if (!a)
		return;
	qi = queue_of(r, a, win, (uint64_t)(uint32_t)from << 32 |
		      (uint32_t)to, (uint64_t)kind);
	if (qi == NIL)
		return;
	if (a->q[qi].head != NIL && a->e[a->q[qi].head].w != WNONE) {
		struct ent y = pop(a, qi);

		a->waiting--;
		meet(r, y.w, &x);
		return;
	}
	append(r, a, qi, &x);
}

/* Unit 'u' waits for signal 'kind' from 'from' to 'to' on 'win'. */
static void await(struct st_replay *r, struct unit *u, uint64_t win,
		  int32_t from, int32_t to, int kind)
{
	struct st_rp_rma *a = state(r);
	struct ent x = { NIL, 0, 0, NAN, u->now, u->cp };
	uint32_t qi;

	if (!a)
		return;
	qi = queue_of(r, a, win, (uint64_t)(uint32_t)from << 32 |
		      (uint32_t)to, (uint64_t)kind);
	if (qi == NIL)
		return;
	x.w = st_rp_w_unit(u);
	if (a->q[qi].head != NIL && a->e[a->q[qi].head].w == WNONE) {
		struct ent y = pop(a, qi);

		meet(r, x.w, &y);
		return;
	}
	if (!append(r, a, qi, &x))
		a->waiting++;
}

/* Keep group 'x->group' for (rank, win, kind), taking it from 'x'. */
static void keep_group(struct st_replay *r, int rank, uint64_t win, int kind,
		       struct rrec *x)
{
	struct st_rp_rma *a = state(r);
	uint32_t *v, i;

	if (!a)
		return;
	v = st_rp_map_get(&a->g_of, (uint64_t)rank, win, (uint64_t)kind);
	if (v) {
		/* An epoch begun again without its end: the new one. */
		i = *v;
		free(a->g[i].v);
	} else {
		if (a->g_free != NIL) {
			i = a->g_free;
			a->g_free = a->g[i].n;
		} else {
			if (GROW(r, a->g, a->ag, a->ng))
				return;
			i = (uint32_t)a->ng++;
		}
		if (st_rp_map_put(&a->g_of, (uint64_t)rank, win,
				  (uint64_t)kind, i)) {
			a->g[i] = (struct grp){ NULL, a->g_free };
			a->g_free = i;
			st_rp_oom(r);
			return;
		}
	}
	a->g[i].v = x->group;
	a->g[i].n = x->ngroup;
	x->group = NULL;
	x->ngroup = 0;
}

/* Take the group kept for (rank, win, kind); 0 when there is none. */
static int take_group(struct st_replay *r, int rank, uint64_t win, int kind,
		      struct grp *out)
{
	struct st_rp_rma *a = r->rma;
	uint32_t *v, i;

	if (!a || !(v = st_rp_map_get(&a->g_of, (uint64_t)rank, win,
				       (uint64_t)kind)))
		return 0;
	i = *v;
	*out = a->g[i];
	st_rp_map_del(&a->g_of, (uint64_t)rank, win, (uint64_t)kind);
	a->g[i] = (struct grp){ NULL, a->g_free };
	a->g_free = i;
	return 1;
}

static double meas_of(const struct rrec *x)
{
	return x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
}

/*
 * MPI_Win_start (signals of kind K_POST) or MPI_Win_wait/test
 * (K_COMPLETE) of 'u' over the ranks of 'g': waits for each, then its
 * measured work after the last in global time (op_tail()).
 */
static void wait_all(struct st_replay *r, struct unit *u, struct rrec *x,
		     int32_t me, const struct grp *g, int kind)
{
	uint32_t i;

	st_rp_op_begin(u, x, 0, SRC_TRACED);
	st_rp_op_receives(r, u, x);
	for (i = 0; i < g->n && !r->rc; i++)
		await(r, u, x->comm, g->v[i], me, kind);
}

void st_rp_call_rma(struct st_replay *r, struct unit *u, struct rrec *x)
{
	const struct comminfo *ci;
	double meas = meas_of(x);
	int fam = x->fn < ST_FN_COUNT ? r->ffam[x->fn] : 0;
	int32_t me;
	uint32_t i;
	struct grp g;

	ci = x->comm ? st_rp_comm_info(r, u->rank, x->comm) : NULL;
	me = ci ? ci->rin : -1;
	switch (x->fn) {
	case ST_FN_MPI_WIN_POST:
		st_rp_op_begin(u, x, meas, SRC_TRACED);
		if (x->rc || x->group_bad || me < 0)
			return;
		for (i = 0; i < x->ngroup; i++)
			notify(r, x->comm, me, x->group[i], K_POST, u->op_T,
			       u->op_cp, st_rp_gtime(r, u->rank, x->t1));
		keep_group(r, u->rank, x->comm, K_POST, x);
		return;
	case ST_FN_MPI_WIN_START:
		if (x->rc || x->group_bad || me < 0) {
			st_rp_op_begin(u, x, meas, SRC_TRACED);
			return;
		}
		g = (struct grp){ x->group, x->ngroup };
		wait_all(r, u, x, me, &g, K_POST);
		keep_group(r, u->rank, x->comm, K_COMPLETE, x);
		return;
	case ST_FN_MPI_WIN_COMPLETE:
		st_rp_op_begin(u, x, meas, SRC_TRACED);
		if (x->rc || me < 0 ||
		    !take_group(r, u->rank, x->comm, K_COMPLETE, &g))
			return;
		for (i = 0; i < g.n; i++)
			notify(r, x->comm, me, g.v[i], K_COMPLETE, u->op_T,
			       u->op_cp, st_rp_gtime(r, u->rank, x->t1));
		free(g.v);
		return;
	case ST_FN_MPI_WIN_WAIT:
	case ST_FN_MPI_WIN_TEST:
		if (x->rc || me < 0 ||
		    !take_group(r, u->rank, x->comm, K_POST, &g)) {
			st_rp_op_begin(u, x, meas, SRC_TRACED);
			return;
		}
		wait_all(r, u, x, me, &g, K_COMPLETE);
		free(g.v);
		return;
	}
	/* A seek, a split collective's _end: local to the rank. */
	st_rp_op_begin(u, x, meas, fam == ST_FAM_LOCAL ? SRC_LOCAL :
		       SRC_TRACED);
}

int st_rp_rma_unstick(struct st_replay *r)
{
	struct st_rp_rma *a = r->rma;
	uint32_t best = NIL;
	double best_t = INFINITY;
	size_t i;

	if (!a || !a->waiting)
		return 0;
	for (i = 0; i < a->q_of.cap; i++) {
		const struct hent *h = &a->q_of.e[i];
		const struct ent *x;

		if (h->val == NIL || a->q[h->val].head == NIL)
			continue;
		x = &a->e[a->q[h->val].head];
		if (x->w != WNONE && x->post < best_t) {
			best_t = x->post;
			best = h->val;
		}
	}
	if (best == NIL)
		return 0;
	{
		struct ent y = pop(a, best);
		struct ent s = { NIL, WNONE, y.post, NAN, 0, y.cp };

		a->waiting--;
		r->stats.released++;
		meet(r, y.w, &s);
	}
	return 1;
}

int st_rp_rma_waiting(const struct st_replay *r, const struct unit *u)
{
	return u->state == U_BLOCKED && r->rma && r->rma->waiting &&
	       (u->op_fn == ST_FN_MPI_WIN_START ||
		u->op_fn == ST_FN_MPI_WIN_WAIT ||
		u->op_fn == ST_FN_MPI_WIN_TEST);
}
