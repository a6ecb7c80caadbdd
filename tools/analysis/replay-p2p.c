/*
 * tools/analysis/replay-p2p.c: point-to-point messages in the replay.
 * Sends and receives meet in queues keyed by (communicator, source and
 * destination, group and tag), in posting order: MPI's non-overtaking
 * rule, the trace having resolved the wildcards.  Under the model's
 * network part (struct st_replay_msg) messages take turns at their
 * ranks' ports and large ones wait for their receive; without it every
 * send is eager and a synchronous one completes when its message
 * arrives.  A probe waits for the envelope and takes nothing from the
 * queue.
 */
#include <math.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/replay-internal.h"
#include "writer/event.h"
#include "writer/fn-info.h"

static void recv_key(const struct st_replay *r, int rank, uint64_t comm,
		     int32_t peer, int32_t tag, uint64_t k[3]);

static uint32_t msg_new(struct st_replay *r)
{
	uint32_t i;

	if (r->msg_free != NIL) {
		i = r->msg_free;
		r->msg_free = r->msgs[i].next;
	} else {
		if (GROW(r, r->msgs, r->amsgs, r->nmsgs))
			return NIL;
		i = (uint32_t)r->nmsgs++;
	}
	r->live_msgs++;
	return i;
}

static void msg_drop(struct st_replay *r, uint32_t i)
{
	r->msgs[i].next = r->msg_free;
	r->msg_free = i;
	r->live_msgs--;
}

/* The queue of key (k1, k2, k3), created when 'create'; NIL if none. */
static uint32_t mq_get(struct st_replay *r, uint64_t k1, uint64_t k2,
		       uint64_t k3, int create)
{
	uint32_t *v = st_rp_map_get(&r->mq_of, k1, k2, k3), qi;

	if (v || !create)
		return v ? *v : NIL;
	if (r->mq_free != NIL) {
		qi = r->mq_free;
		r->mq_free = r->mqs[qi].head;
	} else {
		if (GROW(r, r->mqs, r->amqs, r->nmqs))
			return NIL;
		qi = (uint32_t)r->nmqs++;
	}
	if (st_rp_map_put(&r->mq_of, k1, k2, k3, qi)) {
		st_rp_oom(r);
		return NIL;
	}
	r->mqs[qi] = (struct mq){ NIL, NIL, k1, k2, k3 };
	return qi;
}

static void mq_append(struct st_replay *r, uint32_t qi, uint32_t mi)
{
	struct mq *q = &r->mqs[qi];

	r->msgs[mi].next = NIL;
	if (q->tail == NIL)
		q->head = mi;
	else
		r->msgs[q->tail].next = mi;
	q->tail = mi;
}

/* Drop the head of queue 'qi'; returns 1 when that freed the queue. */
int st_rp_mq_pop(struct st_replay *r, uint32_t qi)
{
	struct mq *q = &r->mqs[qi];
	uint32_t mi = q->head;
	int gone = 0;

	q->head = r->msgs[mi].next;
	if (q->head == NIL) {
		q->tail = NIL;
		st_rp_map_del(&r->mq_of, q->k1, q->k2, q->k3);
		q->head = r->mq_free;
		r->mq_free = qi;
		gone = 1;
	}
	msg_drop(r, mi);
	return gone;
}

/* When a message from send 's' is at the receiver, given receive 'v'. */
static double arrival(const struct msg *s, const struct msg *v,
		      struct cpv *cp)
{
	double t;

	if (s->net) {
		/*
		 * Its envelope (a probe's wait): an eager message is there
		 * once its data has come, before the receive's own work of
		 * taking it in; a rendezvous one announces itself at once.
		 */
		t = s->nm.rendezvous ? s->t : s->w0 + s->nm.xfer_ns -
		    (s->nm.late_ns < s->nm.xfer_ns ? s->nm.late_ns : 0);
		*cp = cp_add(s->cp, t - s->t);
		return t;
	}
	if (s->sync && v && v->t > s->t) {
		*cp = cp_add(v->cp, s->xfer);
		return v->t + s->xfer;
	}
	*cp = cp_add(s->cp, s->xfer);
	return s->t + s->xfer;
}

/*
 * What the receive 'w' waits in learns of its cost at the match, and,
 * when the model lacked it, of its message's measured arrival 'gm'.
 */
static void note_recv(struct st_replay *r, int32_t w, int src, double local,
		      double gm)
{
	if (w >= 0) {
		struct unit *u = r->units[w];

		if (local > u->op_busy)
			u->op_busy = local;
		if (src == SRC_MISSING) {
			u->op_src = SRC_MISSING;
			if (gm > u->op_gm)
				u->op_gm = gm;
		}
	} else if (w != WNONE && src == SRC_MISSING) {
		struct req *q = &r->reqs[-2 - w];

		q->missing = 1;
		if (gm > q->gm)
			q->gm = gm;
	}
}

/* The rank of waiter 'w' (a unit or a request), -1 when none. */
static int waiter_rank(const struct st_replay *r, int32_t w)
{
	if (w >= 0)
		return r->units[w]->rank;
	if (w != WNONE)
		return r->reqs[-2 - w].rank;
	return -1;
}

/*
 * The transfer of message 'm' to receive 'v': between nonblocking
 * calls (a send that set 'xfer_nb_ns', a receive completed by a Wait or
 * Test) the burst of one message's, else the ping-pong's.
 */
static double xfer_to(const struct st_replay_msg *m, const struct msg *v)
{
	return m->xfer_nb_ns > 0 && v->w < 0 && v->w != WNONE ?
	       m->xfer_nb_ns : m->xfer_ns;
}

/*
 * Whether unit 'u' is blocked in a call at or after 't': blocked now,
 * or its last call blocked and ended after 't' (the replay may have
 * resolved that call, from another rank's earlier event, before it
 * reached 't').
 */
static int blocked_at(const struct unit *u, double t)
{
	return u->state == U_BLOCKED ||
	       (u->op_blocked && !u->running && u->op_exit > t);
}

/*
 * The earliest entry of a call rank 'rank' is blocked in at or after
 * 't' (blocked_at()), -1 when none.  The replay may have run a rank
 * past the time a message is matched at: a call it entered after that
 * time, and is blocked in, was read before the transfer existed.
 */
static struct unit *blocked_unit(const struct st_replay *r, int rank,
				 double t)
{
	const struct rank *rk = &r->ranks[rank];
	struct unit *b = NULL;
	size_t i;

	for (i = 0; i < rk->nunits; i++) {
		struct unit *u = rk->units[i];

		if (u && blocked_at(u, t) && (!b || u->op_entry < b->op_entry))
			b = u;
	}
	return b;
}

static double blocked_since(const struct st_replay *r, int rank, double t)
{
	const struct unit *b = blocked_unit(r, rank, t);

	return b ? b->op_entry : -1;
}

/*
 * Whether rank 'rank' is inside an MPI call at 't': one of its units is
 * blocked in a call it entered by then (blocked_at()).
 */
static int in_mpi(const struct st_replay *r, int rank, double t)
{
	double e = blocked_since(r, rank, t);

	return e >= 0 && e <= t;
}

/*
 * A transfer from 'src' to 'dst' whose turn is 'w0' and that shares
 * the ports of the other direction (the sender's in-port, the
 * receiver's out-port) as far as 'm->share' says: its turn, held up by
 * share x the time those ports are still busy.  It holds none of them:
 * a transfer the other way meets this one through its own ports' times
 * (this one's gap), so one message each way, both received as they
 * come, ends share x gap after one alone, the MPI_Sendrecv the share
 * came from (eager sends that came before their receives, share x gap
 * x (1 + share): each direction meets the other's turn at its
 * in-port), and K pairs each way queued at once are spaced 2 gap / (2
 * - share) apart (st_pmodel_share() inverts that).  (Holding the other
 * direction's ports too made the pair end share x gap x (2 - share)
 * later, and let K transfers queued one way hold off the first
 * transfer the other way, started earlier, until the last of them:
 * the two directions of an exchange replayed one after the other.)
 * Where the model has the exchange of one each way (m->xone_ns) and
 * the other direction holds no more than one transfer (its ports free
 * within a gap), this transfer of 'dur' ends that exchange's cost after
 * its turn instead: the share, fitted to K each way, made a lone
 * exchange cost share x gap more than the table's own row (nm-overlap
 * in shared memory, 256 KiB: 56 us a Waitall against the row's 44).
 */
static double share_ports(struct st_replay *r, const struct st_replay_msg *m,
			  int src, int dst, double w0, double dur)
{
	double x = -INFINITY;

	if (src >= 0)
		x = r->in_free[src];
	if (dst >= 0 && r->out_free[dst] > x)
		x = r->out_free[dst];
	if (m->xone_ns > 0 && x > w0 && x - w0 <= m->gap_ns)
		return m->xone_ns > dur ? w0 + (m->xone_ns - dur) : w0;
	if (!(m->share > 0))
		return w0;
	if (x > w0)
		w0 += m->share * (x - w0);
	return w0;
}

/*
 * The turn of a transfer from 'src' to 'dst' (either -1: not a rank's
 * port) ready at 'w0': when both the sender's out-port and the
 * receiver's in-port are free.
 */
static double port_turn(const struct st_replay *r, int src, int dst,
			double w0)
{
	if (src >= 0 && r->out_free[src] > w0)
		w0 = r->out_free[src];
	if (dst >= 0 && r->in_free[dst] > w0)
		w0 = r->in_free[dst];
	return w0;
}

/*
 * The side of a rendezvous transfer (send 's', receive 'v') that posted
 * last, the send on a tie: the transfer's base, whose time and critical
 * path its sides' completions count from.
 */
static const struct msg *rndv_base(const struct msg *s, const struct msg *v)
{
	return v->t > s->t ? v : s;
}

/*
 * How long rendezvous transfer of send 's' and receive 'v' takes from
 * its turn to its later side's completion (rndv_start()).
 */
static double rndv_dur(const struct msg *s, const struct msg *v)
{
	const struct st_replay_msg *m = &s->nm;

	if (rndv_base(s, v) == v)
		return m->late_ns > m->rndv_send_ns ? m->late_ns :
		       m->rndv_send_ns;
	return xfer_to(m, v);
}

/*
 * Rendezvous transfer of send 's' and receive 'v' starts at 'start'
 * (both sides posted and in MPI), takes its turns at the ports, and
 * completes both sides, 'credit' (the time it moved before a side left
 * MPI) sooner, not before its turn; with 'late', the receiver's copy
 * of a message whose request came before: from 'start', as a receive
 * posted after its send, holding no port.  Returns the receive's end, its path into
 * '*cpr' (unless NULL).
 */
static double rndv_start(struct st_replay *r, const struct msg *s,
			 const struct msg *v, int dst, double start,
			 double credit, struct cpv *cpr, int late)
{
	const struct st_replay_msg *m = &s->nm;
	const struct msg *b = rndv_base(s, v);
	double *in = dst >= 0 ? &r->in_free[dst] : NULL;
	double w0, tr, ts, base = b->t;
	struct cpv cpb = b->cp;

	if (start < base)
		start = base;
	if (late) {
		/* The receiver's copy: its own work, not the ports'. */
		w0 = start;
	} else {
		w0 = share_ports(r, m, s->src, dst,
				 port_turn(r, s->src, dst, start),
				 b == v ? m->late_ns : xfer_to(m, v));
		if (s->src >= 0)
			r->out_free[s->src] = w0 + m->gap_ns;
		if (in)
			*in = w0 + m->gap_ns;
	}
	if (b == v || late) {
		tr = w0 + m->late_ns;
		ts = w0 + m->rndv_send_ns;
	} else {
		tr = w0 + xfer_to(m, v);
		ts = tr - (m->late_ns > m->rndv_send_ns ?
			   m->late_ns - m->rndv_send_ns : 0);
	}
	if (credit > 0) {
		tr -= credit;
		ts -= credit;
	}
	if (tr < w0)
		tr = w0;
	if (ts < w0)
		ts = w0;
	st_rp_resolve(r, s->w, ts, cp_add(cpb, ts - base));
	note_recv(r, v->w, SRC_MODEL, tr - w0, s->gm);
	if (cpr)
		*cpr = cp_add(cpb, tr - base);
	st_rp_resolve(r, v->w, tr, cp_add(cpb, tr - base));
	return tr;
}

/*
 * Rendezvous transfer of send 's' and receive 'v' that the receiver
 * copies (the table found the sender free), started at 'from' by unit
 * 'u' of the receiving rank in a call that does not wait for it: the
 * copy, a late receive's (the request to send came before), is that
 * call's work, which lasts until it is done (shared memory: MPICH's
 * progress copies a message it begins at once).
 */
static void rndv_copy_in(struct st_replay *r, const struct msg *s,
			 const struct msg *v, int dst, double from,
			 struct unit *u)
{
	struct cpv cp;
	double tr = rndv_start(r, s, v, dst, from, 0, &cp, 1);

	if (tr > u->op_ext) {
		u->op_ext = tr;
		u->op_ext_from = from;
		u->op_ext_cp = cp;
	}
}

/*
 * Rendezvous transfers 'x' and 'y', one each way between the same two
 * ranks, released together, each needing both sides inside MPI: both
 * complete the exchange's cost after the later of their starts and the
 * four ports; the ports are held as the two transfers one after the
 * other would hold them under the share (a gap, and share x gap).
 */
static void xchg_start(struct st_replay *r, const struct pend *x,
		       const struct pend *y)
{
	const struct pend *p[2] = { x, y };
	double w0 = -INFINITY, t, hold;
	struct cpv cpb[2];
	double base[2];
	int i;

	for (i = 0; i < 2; i++) {
		const struct msg *b = rndv_base(&p[i]->s, &p[i]->v);

		base[i] = b->t;
		cpb[i] = b->cp;
		if (p[i]->from > w0)
			w0 = p[i]->from;
		w0 = port_turn(r, p[i]->src, p[i]->dst, w0);
	}
	/*
	 * The next pair between these ranks starts when the ports are
	 * free: one exchange-burst spacing later where the table measured
	 * K each way, else a gap and the share of the other direction's.
	 */
	hold = w0 + (x->s.nm.xchg_gap_ns > 0 ? x->s.nm.xchg_gap_ns :
		     x->s.nm.gap_ns + x->s.nm.share * x->s.nm.gap_ns);
	t = w0 + x->s.nm.xchg_ns;
	for (i = 0; i < 2; i++) {
		const struct msg *s = &p[i]->s, *v = &p[i]->v;

		if (p[i]->src >= 0 && r->out_free[p[i]->src] < hold)
			r->out_free[p[i]->src] = hold;
		if (p[i]->dst >= 0 && r->in_free[p[i]->dst] < hold)
			r->in_free[p[i]->dst] = hold;
		st_rp_resolve(r, s->w, t, cp_add(cpb[i], t - base[i]));
		note_recv(r, v->w, SRC_MODEL, t - w0, s->gm);
		st_rp_resolve(r, v->w, t, cp_add(cpb[i], t - base[i]));
	}
}

/* Pend 'i' back on the free list. */
static void pend_free(struct st_replay *r, uint32_t i)
{
	r->pends[i].need = 0;
	r->pends[i].next = r->pend_free;
	r->pend_free = i;
	r->pend_live--;
}

/* Whether pend 'p' needs both sides inside MPI: no I-call releases it. */
static int pend_strict(const struct pend *p)
{
	return p->s.nm.need == 3;
}

/*
 * Whether only a call that is not an I-call releases pend 'p': one
 * that needs both sides, or its receiver alone (sender_free).
 */
static int pend_blocking(const struct pend *p)
{
	return pend_strict(p) || p->s.nm.sender_free;
}

/* A new pend for send 's' and receive 'v'; NULL when out of memory. */
static struct pend *pend_add(struct st_replay *r, const struct msg *s,
			     const struct msg *v, int dst, uint8_t need,
			     double from, double credit)
{
	struct pend *p;
	uint32_t i;

	if (r->pend_free != NIL) {
		i = r->pend_free;
		r->pend_free = r->pends[i].next;
	} else {
		if (GROW(r, r->pends, r->apends, r->npends))
			return NULL;
		i = (uint32_t)r->npends++;
	}
	p = &r->pends[i];
	p->s = *s;
	p->v = *v;
	p->src = s->src;
	p->dst = dst;
	p->need = need;
	p->copy = 0;
	p->held = -1;
	p->from = from;
	p->credit = credit;
	p->next = NIL;
	r->pend_live++;
	return p;
}

/*
 * Strict transfer 'x' moves from x->from while the call of its side
 * 'bit' (1 sender, 2 receiver) lasts, until 'until': it ends if it can
 * by then, else waits for that side's next call with what it moved.
 */
static void rndv_until(struct st_replay *r, const struct pend *x,
		       double until, uint8_t bit)
{
	double left = rndv_dur(&x->s, &x->v) - x->credit;

	if (x->from + left <= until) {
		rndv_start(r, &x->s, &x->v, x->dst, x->from, x->credit,
			   NULL, 0);
		return;
	}
	pend_add(r, &x->s, &x->v, x->dst, bit, until,
		 x->credit + (until > x->from ? until - x->from : 0));
}

/* Whether unit 'u''s call, about to start, completes waiter 'w'. */
static int call_completes(const struct st_replay *r, const struct unit *u,
			  int32_t w)
{
	uint64_t id;
	size_t i;

	if (w >= 0 || w == WNONE)
		return 1;
	id = r->reqs[-2 - w].id;
	for (i = 0; i < u->ndone; i++)
		if (u->done[i].req == id)
			return 1;
	return 0;
}

/* Whether unit 'u''s call waits for waiter 'w' (a request). */
static int call_waits_for(const struct st_replay *r, const struct unit *u,
			  int32_t w)
{
	return w >= 0 || w == WNONE || r->reqs[-2 - w].waiter == u->idx;
}

/* The unit blocked waiting for waiter 'w' (a unit, or a request's
   waiter); -1 when none. */
static int32_t waiting_unit(const struct st_replay *r, int32_t w)
{
	if (w == WNONE)
		return -1;
	if (w < 0)
		w = r->reqs[-2 - w].waiter;
	return w >= 0 ? w : -1;
}

/* Whether unit 'u''s call, about to start or going on, waits for
   waiter 'w' of its rank's side of a transfer. */
static int side_waited(const struct st_replay *r, const struct unit *u,
		       int32_t w)
{
	if (w >= 0)
		return w == u->idx;
	return w != WNONE && (call_completes(r, u, w) ||
			      r->reqs[-2 - w].waiter == u->idx);
}

/*
 * The transfer held by the call that waits for pend 'x' on its other
 * side (the rank that is not unit 'u''s: a blocking call, or the Wait
 * of its request) and that unit 'u' waits for: the other half of an
 * exchange, whose two calls each wait for what the other holds; NIL
 * when none.
 */
static uint32_t held_partner(const struct st_replay *r, const struct pend *x,
			     const struct unit *u)
{
	int32_t w = waiting_unit(r, x->src == u->rank ? x->v.w : x->s.w);
	uint32_t i;

	if (w < 0)
		return NIL;
	for (i = 0; i < r->npends; i++) {
		const struct pend *p = &r->pends[i];

		if (p->need == PEND_HELD && p->held == w &&
		    side_waited(r, u, p->src == u->rank ? p->s.w : p->v.w))
			return i;
	}
	return NIL;
}

/*
 * Hold pend 'p' for as long as the call of unit 'u' lasts; but when that
 * call waits for the transfer that the call waiting for 'p' holds, both
 * go on: each side's call lasts while the other's does.
 */
static void pend_hold(struct st_replay *r, struct pend *p,
		      const struct unit *u)
{
	uint32_t j = r->pend_held ? held_partner(r, p, u) : NIL;
	struct pend x, y;

	if (j == NIL) {
		p->need = PEND_HELD;
		p->held = u->idx;
		r->pend_held++;
		return;
	}
	x = *p;
	y = r->pends[j];
	pend_free(r, (uint32_t)(p - r->pends));
	pend_free(r, j);
	r->pend_held--;
	/*
	 * Neither moved yet: the exchange the table measured (one that
	 * moved alone before goes on as it did).
	 */
	if (pend_strict(&x) && x.s.nm.xchg_ns > 0 && y.src == x.dst &&
	    y.dst == x.src && !(x.credit > 0) && !(y.credit > 0)) {
		xchg_start(r, &y, &x);
		return;
	}
	rndv_start(r, &y.s, &y.v, y.dst, y.from, y.credit, NULL, 0);
	rndv_start(r, &x.s, &x.v, x.dst, x.from, x.credit, NULL, 0);
}

size_t st_rp_progress(struct st_replay *r, struct unit *u, int rank,
		      double t, int all, int icall)
{
	uint32_t i, j, head = NIL, last = NIL, *l;
	int held = all && r->pend_held;
	size_t n = 0;

	/* Those released, listed in index order through 'next'. */
	for (i = 0; i < r->npends; i++) {
		struct pend *p = &r->pends[i];

		if (!p->need)
			continue;	/* a free slot */
		if (!all) {
			uint8_t was = p->need;

			if (was == PEND_HELD ||
			    (icall && pend_blocking(p)))
				continue;
			if (p->src == rank)
				p->need &= (uint8_t)~1u;
			if (p->dst == rank)
				p->need &= (uint8_t)~2u;
			if (p->need == was)
				continue;
			if (t > p->from)
				p->from = t;
			if (p->need)
				continue;
			/*
			 * A side that needs both inside MPI, come back in a
			 * call that does not complete its request: while that
			 * call lasts.
			 */
			if (u && pend_strict(p) && p->src != p->dst &&
			    !call_completes(r, u, was == 1 ? p->s.w :
					    p->v.w)) {
				pend_hold(r, p, u);
				continue;
			}
			/* Its receiver's copy, done by this call. */
			p->copy = u && !icall && !pend_strict(p) &&
				  p->s.nm.sender_free && (was & 2) &&
				  p->dst == rank &&
				  !call_completes(r, u, p->v.w);
		} else if (held && p->need != PEND_HELD) {
			continue;
		}
		if (p->need == PEND_HELD)
			r->pend_held--;
		p->need = 0;
		p->next = NIL;
		/* By index: a held pair started above may move the pends. */
		if (last == NIL)
			head = i;
		else
			r->pends[last].next = i;
		last = i;
	}
	while (head != NIL) {
		struct pend x = r->pends[head], y;
		struct unit *copy_by = x.copy ? u : NULL;
		int pairs = pend_strict(&x) && x.s.nm.xchg_ns > 0;

		pend_free(r, head);
		head = x.next;
		n++;
		/* Its partner the other way, released with it. */
		for (l = &head; pairs && *l != NIL; l = &r->pends[*l].next)
			if (pend_strict(&r->pends[*l]) &&
			    r->pends[*l].src == x.dst &&
			    r->pends[*l].dst == x.src)
				break;
		if (pairs && *l != NIL) {
			j = *l;
			y = r->pends[j];
			*l = y.next;
			pend_free(r, j);
			n++;
			xchg_start(r, &x, &y);
			continue;
		}
		if (copy_by)
			rndv_copy_in(r, &x.s, &x.v, x.dst, x.from, copy_by);
		else
			rndv_start(r, &x.s, &x.v, x.dst, x.from, x.credit,
				   NULL, 0);
	}
	return n;
}

void st_rp_held_end(struct st_replay *r, struct unit *u)
{
	uint32_t i;

	for (i = 0; i < r->npends && r->pend_held; i++) {
		struct pend x = r->pends[i];

		if (x.need != PEND_HELD || x.held != u->idx)
			continue;
		pend_free(r, i);
		r->pend_held--;
		rndv_until(r, &x, u->op_T, x.src == u->rank ? 1 : 2);
	}
}

/*
 * A rendezvous transfer needs both sides inside MPI (no asynchronous
 * progress: the receiver must answer the request to send, the sender
 * push the data): a side that posted last is in its call; a blocking
 * side is in its call until the transfer ends; a nonblocking side that
 * posted first is in MPI only if it is blocked in a call now, else the
 * transfer waits for its next MPI call (st_rp_progress()).  Where the
 * model says the transfer needs both sides inside MPI (s->nm.need), a
 * nonblocking side is in MPI only when blocked in a call, whichever
 * side posted last (from that call's entry, which may be later than the
 * match), and only a call that is not an I-call releases it; the
 * transfer then moves only while that call lasts, unless the call waits
 * for it (with one such side; with two, it goes on once both are in).
 */
static void rndv_match(struct st_replay *r, const struct msg *s,
		       const struct msg *v, int dst)
{
	double ready = s->t > v->t ? s->t : v->t, from = ready;
	int strict = s->nm.need == 3;
	struct unit *b, *hold = NULL, *copy_by = NULL;
	uint8_t need = 0, bit = 0;
	int sides = 0;
	struct pend *p;

	if (strict || s->nm.sender_free) {
		/*
		 * Each nonblocking side it needs from when it is blocked in
		 * a call: both, or (sender_free) the receiver alone, which
		 * copies the data out of the sender's buffer.
		 */
		if (strict && s->w < 0 && s->src >= 0) {
			if (!(b = blocked_unit(r, s->src, ready))) {
				need |= 1;
			} else {
				if (b->op_entry > from)
					from = b->op_entry;
				if (!call_waits_for(r, b, s->w)) {
					hold = b;
					bit = 1;
				}
			}
			sides++;
		}
		if (v->w < 0 && dst >= 0) {
			if (!(b = blocked_unit(r, dst, ready))) {
				need |= 2;
			} else {
				if (b->op_entry > from)
					from = b->op_entry;
				if (!call_waits_for(r, b, v->w)) {
					if (strict) {
						hold = b;
						bit = 2;
					} else if (b->state == U_BLOCKED) {
						copy_by = b;
					}
				}
			}
			sides++;
		}
	} else {
		if (s->w < 0 && s->t < ready && s->src >= 0 &&
		    !in_mpi(r, s->src, ready))
			need |= 1;
		if (v->w < 0 && v->t < ready && dst >= 0 &&
		    !in_mpi(r, dst, ready))
			need |= 2;
	}
	if (!need && hold && sides == 1 && s->src != dst) {
		struct pend x = { .s = *s, .v = *v, .src = s->src, .dst = dst,
				  .from = from };

		/* Its side's call: ended already, or still going. */
		if (hold->state != U_BLOCKED) {
			rndv_until(r, &x, hold->op_exit, bit);
			return;
		}
		p = pend_add(r, s, v, dst, 0, from, 0);
		if (p)
			pend_hold(r, p, hold);
		return;
	}
	if (!need && copy_by) {
		rndv_copy_in(r, s, v, dst, from, copy_by);
		return;
	}
	if (!need) {
		rndv_start(r, s, v, dst, from, 0, NULL, 0);
		return;
	}
	pend_add(r, s, v, dst, need, from, 0);
}

/*
 * Send 's' under the network model meets receive 'v' (the rules are
 * struct st_replay_msg's, tools/analysis/replay.h).  Each result's
 * critical path is the chain of whichever side came later (eager: the
 * sender's, unless the receive came after its message), plus what
 * followed.
 */
static void match_net(struct st_replay *r, const struct msg *s,
		      const struct msg *v)
{
	const struct st_replay_msg *m = &s->nm;
	int dst = waiter_rank(r, v->w);
	double *in = dst >= 0 ? &r->in_free[dst] : NULL;
	double w0, tr;
	struct cpv cpr;

	if (!m->rendezvous && s->probed) {
		/*
		 * In the library since a probe took it in: the receive only
		 * copies it, as long as it took to in the trace (a blocking
		 * receive; no longer than the late-receive cost).
		 */
		double copy = 0;

		if (v->w >= 0) {
			copy = r->units[v->w]->op_meas;
			if (copy > m->late_ns)
				copy = m->late_ns;
		}
		tr = s->taken;
		cpr = cp_add(s->cp, tr - s->t);
		if (v->t + copy > tr) {
			tr = v->t + copy;
			cpr = cp_add(v->cp, copy);
		}
		note_recv(r, v->w, SRC_MODEL, tr - v->t < copy ? tr - v->t :
			  copy, s->gm);
		st_rp_resolve(r, v->w, tr, cpr);
		return;
	}
	if (!m->rendezvous) {
		w0 = s->w0;
		if (in && *in > w0)
			w0 = *in;
		w0 = share_ports(r, m, s->src, dst, w0, xfer_to(m, v));
		if (in)
			*in = w0 + m->gap_ns;
		tr = w0 + xfer_to(m, v);
		cpr = cp_add(s->cp, tr - s->t);
		if (v->t + m->late_ns > tr) {
			tr = v->t + m->late_ns;
			cpr = cp_add(v->cp, m->late_ns);
		}
		note_recv(r, v->w, SRC_MODEL, tr - v->t < m->late_ns ?
			  tr - v->t : m->late_ns, s->gm);
		if (m->rbusy_ns > 0 && v->w < 0 && v->w != WNONE) {
			/* Taken in by the call that completes it, maybe. */
			struct req *q = &r->reqs[-2 - v->w];

			if (m->rbusy_ns > q->rwork)
				q->rwork = m->rbusy_ns;
		}
		st_rp_resolve(r, v->w, tr, cpr);
		return;
	}
	rndv_match(r, s, v, dst);
}

void st_rp_recv_inside(struct st_replay *r, struct unit *u,
		       const struct req *q, double *T, struct cpv *cp)
{
	double e = u->op_entry;

	if (!(q->rwork > 0) || *T > e || r->ranks[u->rank].mpi_out >= *T)
		return;
	if (e + q->rwork > *T) {
		*cp = cp_add(u->cp, q->rwork);
		*T = e + q->rwork;
	}
	if (*T - e > u->op_busy)
		u->op_busy = *T - e;
}

/*
 * Send 's' meets receive 'v': the receive completes its cost after the
 * later of its post and the message's arrival; a synchronous send when
 * its message arrives.
 */
static void match(struct st_replay *r, const struct msg *s,
		  const struct msg *v)
{
	struct cpv cp;
	double T, local = 0;
	int src = SRC_MODEL;

	if (s->net) {
		match_net(r, s, v);
		return;
	}
	T = arrival(s, v, &cp);

	if (s->sync)
		st_rp_resolve(r, s->w, T, cp);
	if (v->fn)
		src = st_rp_recv_cost(r, v->fn, s->bytes, &local);
	if (v->t > T) {
		T = v->t;
		cp = v->cp;
	}
	note_recv(r, v->w, src, local, s->gm);
	st_rp_resolve(r, v->w, T + local, cp_add(cp, local));
}

/*
 * When probe 'p' returns with the envelope of send 's'.  An eager
 * message under the network model the probe takes in, as a receive
 * posted after it came would (MPI_Probe progresses the transport until
 * the message is in the library: over TCP it reads the socket): the
 * probe returns when its data has come (after its turn at the ports,
 * which the probe takes as a receive would) and no sooner than the
 * late-receive cost after its post, and the receive that takes it then
 * only copies it ('probed').
 */
static double probe_take(struct st_replay *r, struct msg *s,
			 const struct msg *p, struct cpv *cp)
{
	double T = arrival(s, NULL, cp), in, w0;
	int dst;

	if (!s->net || s->nm.rendezvous)
		return T;
	if (s->probed) {
		in = s->taken;
	} else {
		/* Its turn at the ports, as match_net() takes it. */
		dst = waiter_rank(r, p->w);
		w0 = s->w0;
		if (dst >= 0 && r->in_free[dst] > w0)
			w0 = r->in_free[dst];
		w0 = share_ports(r, &s->nm, s->src, dst, w0, s->nm.xfer_ns);
		if (dst >= 0)
			r->in_free[dst] = w0 + s->nm.gap_ns;
		in = w0 + s->nm.xfer_ns;
	}
	if (p->t + s->nm.late_ns > in) {
		in = p->t + s->nm.late_ns;
		*cp = cp_add(p->cp, s->nm.late_ns);
	} else {
		*cp = cp_add(s->cp, in - s->t);
	}
	if (!s->probed || in < s->taken) {
		s->probed = 1;
		s->taken = in;
	}
	return in;
}

/* Wake the probes at the head of queue 'qi' with send 's'. */
static void wake_probes(struct st_replay *r, uint32_t qi, struct msg *s)
{
	struct cpv cp;
	double T;

	while (r->mqs[qi].head != NIL &&
	       r->msgs[r->mqs[qi].head].type == M_PROBE) {
		struct msg *p = &r->msgs[r->mqs[qi].head];

		T = probe_take(r, s, p, &cp);
		st_rp_resolve(r, p->w, T, cp);
		if (st_rp_mq_pop(r, qi))
			return;
	}
}

static void post_send(struct st_replay *r, uint64_t k1, uint64_t k2,
		      uint64_t k3, const struct msg *s0)
{
	uint32_t qi = mq_get(r, k1, k2, k3, 1), mi;
	struct msg v, s = *s0;

	if (qi == NIL)
		return;
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type !=
	    M_SEND) {
		wake_probes(r, qi, &s);
		qi = mq_get(r, k1, k2, k3, 1);
		if (qi == NIL)
			return;
	}
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type ==
	    M_RECV) {
		v = r->msgs[r->mqs[qi].head];
		st_rp_mq_pop(r, qi);
		match(r, &s, &v);
		return;
	}
	if ((mi = msg_new(r)) == NIL)
		return;
	r->msgs[mi] = s;
	r->msgs[mi].type = M_SEND;
	mq_append(r, qi, mi);
}

static void post_recv(struct st_replay *r, uint64_t k1, uint64_t k2,
		      uint64_t k3, const struct msg *v)
{
	uint32_t qi = mq_get(r, k1, k2, k3, 1), mi;
	struct msg s;
	struct cpv cp;
	double T;

	if (qi == NIL)
		return;
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type ==
	    M_SEND) {
		if (v->type == M_PROBE) {
			T = probe_take(r, &r->msgs[r->mqs[qi].head], v, &cp);
			st_rp_resolve(r, v->w, T, cp);
			return;
		}
		s = r->msgs[r->mqs[qi].head];
		st_rp_mq_pop(r, qi);
		match(r, &s, v);
		return;
	}
	if ((mi = msg_new(r)) == NIL)
		return;
	r->msgs[mi] = *v;
	mq_append(r, qi, mi);
}

int st_rp_recv_cancel(struct st_replay *r, int rank, uint64_t comm,
		      int32_t peer, int32_t tag, int32_t w)
{
	uint32_t qi, mi, prev = NIL;
	uint64_t k[3];
	struct mq *q;

	recv_key(r, rank, comm, peer, tag, k);
	if ((qi = mq_get(r, k[0], k[1], k[2], 0)) == NIL)
		return 0;
	q = &r->mqs[qi];
	for (mi = q->head; mi != NIL; prev = mi, mi = r->msgs[mi].next)
		if (r->msgs[mi].type == M_RECV && r->msgs[mi].w == w)
			break;
	if (mi == NIL)
		return 0;
	if (prev == NIL) {
		st_rp_mq_pop(r, qi);
		return 1;
	}
	r->msgs[prev].next = r->msgs[mi].next;
	if (q->tail == mi)
		q->tail = prev;
	msg_drop(r, mi);
	return 1;
}

/* Message keys: communicator, (source, destination), (group, tag). */
static void send_key(const struct st_replay *r, int rank, uint64_t comm,
		     int32_t peer, int32_t tag, uint64_t k[3])
{
	const struct comminfo *ci = st_rp_comm_info(r, rank, comm);
	uint32_t src = (uint32_t)(ci ? ci->rin : rank);
	uint32_t grp = ci && ci->remote ? ci->size : 0;

	k[0] = comm;
	k[1] = (uint64_t)src << 32 | (uint32_t)peer;
	k[2] = (uint64_t)grp << 32 | (uint32_t)tag;
}

static void recv_key(const struct st_replay *r, int rank, uint64_t comm,
		     int32_t peer, int32_t tag, uint64_t k[3])
{
	const struct comminfo *ci = st_rp_comm_info(r, rank, comm);
	uint32_t dst = (uint32_t)(ci ? ci->rin : rank);
	uint32_t grp = ci && ci->remote ? ci->remote : 0;

	k[0] = comm;
	k[1] = (uint64_t)(uint32_t)peer << 32 | dst;
	k[2] = (uint64_t)grp << 32 | (uint32_t)tag;
}

int st_replay_sync_send(unsigned fn)
{
	return fn == ST_FN_MPI_SSEND || fn == ST_FN_MPI_SSEND_C ||
	       fn == ST_FN_MPI_ISSEND || fn == ST_FN_MPI_ISSEND_C;
}

/*
 * A send of 'bytes' to 'peer', 'tag' by 'sw' (sync) from 'u' at 't',
 * whose call ended at measured global time 'gm'.  Under the network
 * model ('nm' not NULL; 'sync' set for a rendezvous), an eager message
 * takes its turn at the sender's out-port now, and the function returns
 * when the send completes; else -1.
 */
static double do_send(struct st_replay *r, struct unit *u, uint64_t comm,
		      int32_t peer, int32_t tag, int sync, int32_t sw,
		      double xfer, double bytes, struct cpv cp, double t,
		      double gm, const struct st_replay_msg *nm)
{
	struct msg s = { .type = M_SEND, .sync = (uint8_t)sync, .w = sw,
			 .t = t, .xfer = xfer, .bytes = bytes, .gm = gm,
			 .cp = cp, .src = u->rank };
	double done = -1;
	uint64_t k[3];

	if (nm) {
		s.net = 1;
		s.nm = *nm;
		s.nm.rendezvous = sync;
		if (sync) {
			/* Released alone (unstick), it takes this. */
			s.xfer = nm->rndv_send_ns;
		} else {
			s.w0 = t > r->out_free[u->rank] ? t :
			       r->out_free[u->rank];
			r->out_free[u->rank] = s.w0 + nm->gap_ns;
			done = s.w0 + nm->send_ns;
		}
	}
	send_key(r, u->rank, comm, peer, tag, k);
	post_send(r, k[0], k[1], k[2], &s);
	return done;
}

/*
 * Nonblocking send 's' (to key 'k', its request's wait 'rw' when
 * eager) waits on rank 'rank''s list of held sends.  Returns 0, -1 out
 * of memory.
 */
static int hold_send(struct st_replay *r, int rank, const struct msg *s,
		     const uint64_t k[3], int32_t rw)
{
	struct rank *rk = &r->ranks[rank];
	uint32_t i;

	if (r->hs_free != NIL) {
		i = r->hs_free;
		r->hs_free = r->hsends[i].next;
	} else {
		if (GROW(r, r->hsends, r->ahsends, r->nhsends))
			return -1;
		i = (uint32_t)r->nhsends++;
	}
	r->hsends[i].s = *s;
	memcpy(r->hsends[i].k, k, sizeof(r->hsends[i].k));
	r->hsends[i].rw = rw;
	r->hsends[i].next = NIL;
	if (rk->hs_tail == NIL)
		rk->hs_head = i;
	else
		r->hsends[rk->hs_tail].next = i;
	rk->hs_tail = i;
	r->hs_live++;
	return 0;
}

size_t st_rp_flush_sends(struct st_replay *r, int rank, struct unit *u)
{
	struct rank *rk = &r->ranks[rank];
	size_t n = 0;

	while (rk->hs_head != NIL) {
		uint32_t i = rk->hs_head;
		struct hsend h = r->hsends[i];
		double done;

		rk->hs_head = h.next;
		if (rk->hs_head == NIL)
			rk->hs_tail = NIL;
		r->hsends[i].next = r->hs_free;
		r->hs_free = i;
		r->hs_live--;
		n++;
		if (u) {
			/* It leaves now, along the sender's path. */
			h.s.t = u->now;
			h.s.cp = u->cp;
		}
		if (!h.s.nm.rendezvous) {
			h.s.w0 = h.s.t > r->out_free[rank] ? h.s.t :
				 r->out_free[rank];
			r->out_free[rank] = h.s.w0 + h.s.nm.gap_ns;
			done = h.s.w0 + h.s.nm.send_ns;
			st_rp_resolve(r, h.rw, done,
				      cp_add(h.s.cp, done - h.s.t));
		}
		post_send(r, h.k[0], h.k[1], h.k[2], &h.s);
	}
	return n;
}

/* A receive (function 'fn'; 0 for a probe) by 'w', posted at 't'. */
void st_rp_do_recv(struct st_replay *r, int rank, uint64_t comm,
		   int32_t peer, int32_t tag, int type, int32_t w,
		   unsigned fn, struct cpv cp, double t)
{
	struct msg v = { .type = (uint8_t)type, .fn = (uint16_t)fn, .w = w,
			 .t = t, .cp = cp };
	uint64_t k[3];

	recv_key(r, rank, comm, peer, tag, k);
	post_recv(r, k[0], k[1], k[2], &v);
}

/*
 * The library's start costs 'e' more: the sender's part and the
 * message's arrival (the copy into memory the library touches first),
 * whichever of the transfer's costs the replay takes for it; a
 * rendezvous transfer that waited for a late receive moves then.
 */
static void msg_start(struct st_replay_msg *nm, double e, int rv)
{
	nm->send_ns += e;
	nm->xfer_ns += e;
	nm->rndv_send_ns += e;
	if (nm->xfer_nb_ns > 0)
		nm->xfer_nb_ns += e;
	if (nm->xchg_ns > 0)
		nm->xchg_ns += e;
	if (nm->xone_ns > 0)
		nm->xone_ns += e;
	if (rv)
		nm->late_ns += e;
}

/*
 * Call 'x' of 'u' sends 'bytes' to 'peer', 'tag', costed as blocking
 * send 'fn' (x->fn, or MPI_Send for the one half of an MPI_Sendrecv
 * whose other half is MPI_PROC_NULL) at 't' along 'cp0'.
 */
static void send_call(struct st_replay *r, struct unit *u,
		      const struct rrec *x, unsigned fn, int32_t peer,
		      int32_t tag, uint64_t bytes, double meas,
		      struct cpv cp0, double t)
{
	double ls = 0, xs = 0, done;
	double e = x->rc ? 0 : st_rp_start_cost(r, u->rank, x->comm, peer,
					      (double)bytes);
	struct st_replay_msg nm;
	int rv, src;

	if (st_rp_msg_cost(r, fn, (double)bytes, &nm)) {
		rv = nm.rendezvous || st_replay_sync_send(fn);
		nm.xfer_nb_ns = 0;	/* a blocking send: the ping-pong's */
		msg_start(&nm, e, rv);
		st_rp_start_charged(r, e);
		st_rp_op_begin(u, x, 0, SRC_MODEL);
		done = do_send(r, u, x->comm, peer, tag, rv,
			       rv ? st_rp_w_unit(u) : WNONE, 0,
			       (double)bytes, cp0, t,
			       st_rp_gtime(r, u->rank, x->t1), &nm);
		if (!rv) {
			u->op_busy = done - t;
			u->op_T = done;
			u->op_cp = cp_add(cp0, done - t);
		}
		return;
	}
	src = st_rp_p2p_cost(r, fn, (double)bytes, meas, &ls, &xs);
	if (src == SRC_MODEL) {
		ls += e;
		xs += e;
		st_rp_start_charged(r, e);
	}
	st_rp_op_begin(u, x, ls, src);
	do_send(r, u, x->comm, peer, tag, st_replay_sync_send(fn),
		st_replay_sync_send(fn) ? st_rp_w_unit(u) : WNONE, xs,
		(double)bytes, cp0, t, st_rp_gtime(r, u->rank, x->t1), NULL);
}

/* Call 'x' of 'u' receives from 'peer', 'tag', costed as 'fn'. */
static void recv_call(struct st_replay *r, struct unit *u,
		      const struct rrec *x, unsigned fn, int32_t peer,
		      int32_t tag, struct cpv cp0, double t)
{
	/* Its cost comes with the message it matches. */
	st_rp_op_begin(u, x, 0, SRC_MODEL);
	st_rp_op_receives(r, u, x);
	st_rp_do_recv(r, u->rank, x->comm, peer, tag, M_RECV,
		      st_rp_w_unit(u), fn, cp0, t);
}

/* Whether the model costs point-to-point function 'fn' (a table of
 * application traces may have MPI_Sendrecv's row and not MPI_Send's). */
static int has_p2p(const struct st_replay *r, unsigned fn, uint64_t bytes)
{
	double local = 0, xfer = 0;

	return r->model.p2p &&
	       !r->model.p2p(r->model.ctx, fn, (double)bytes, &local, &xfer);
}

/* Blocking point-to-point call 'x' of 'u'. */
void st_rp_call_p2p(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	double ls = 0, xs = 0, e;
	int bytes = r->fbytes[x->fn], src = SRC_LOCAL;
	struct cpv cp0 = u->cp;
	double t = u->now;

	switch (bytes) {
	case ST_BYTES_SEND:
		if (!peer_ok(x->peer)) {
			st_rp_op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		send_call(r, u, x, x->fn, x->peer, x->tag, x->sbytes, meas,
			  cp0, t);
		return;
	case ST_BYTES_RECV:
		if (!peer_ok(x->peer)) {
			st_rp_op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		recv_call(r, u, x, x->fn, x->peer, x->tag, cp0, t);
		return;
	case ST_BYTES_SENDRECV:
	case ST_BYTES_SENDRECV_REPLACE:
		if (!peer_ok(x->peer) && !peer_ok(x->peer2)) {
			st_rp_op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		/*
		 * One half MPI_PROC_NULL (the ends of a non-periodic shift):
		 * one message moves, as with MPI_Send or MPI_Recv; the
		 * MPI_Sendrecv row measures two crossing at once (1.46 us
		 * against a ping-pong's 1.23 at 1 KiB in shared memory).
		 */
		if (!peer_ok(x->peer2)) {
			send_call(r, u, x, has_p2p(r, ST_FN_MPI_SEND, x->sbytes) ?
				  ST_FN_MPI_SEND : x->fn, x->peer, x->tag,
				  x->sbytes, meas, cp0, t);
			return;
		}
		if (!peer_ok(x->peer)) {
			recv_call(r, u, x, has_p2p(r, ST_FN_MPI_RECV, x->rbytes) ?
				  ST_FN_MPI_RECV : x->fn, x->peer2, x->tag2,
				  cp0, t);
			return;
		}
		/* One cost for both halves, as the table measures it. */
		src = st_rp_p2p_cost(r, x->fn, (double)(x->sbytes > x->rbytes ?
						  x->sbytes : x->rbytes),
			       meas, &ls, &xs);
		/* Its send's start, as any send's on the channel. */
		e = x->rc ? 0 : st_rp_start_cost(r, u->rank, x->comm, x->peer,
						 (double)x->sbytes);
		if (src == SRC_MODEL) {
			ls += e;
			xs += e;
			st_rp_start_charged(r, e);
		}
		st_rp_op_begin(u, x, ls, src);
		do_send(r, u, x->comm, x->peer, x->tag, 0, WNONE, xs,
			(double)x->sbytes, cp0, t,
			st_rp_gtime(r, u->rank, x->t1), NULL);
		st_rp_do_recv(r, u->rank, x->comm, x->peer2, x->tag2, M_RECV,
			      st_rp_w_unit(u), x->fn, cp0, t);
		return;
	default:
		/* MPI_Probe waits for the envelope; MPI_Iprobe is local. */
		if ((x->fn == ST_FN_MPI_PROBE) && peer_ok(x->peer) &&
		    x->tag >= 0) {
			st_rp_op_begin(u, x, 0, SRC_MODEL);
			st_rp_do_recv(r, u->rank, x->comm, x->peer, x->tag,
				      M_PROBE, st_rp_w_unit(u), 0, cp0, t);
			return;
		}
		st_rp_op_begin(u, x, meas, SRC_LOCAL);
	}
}

/*
 * Start nonblocking point-to-point operation 'fn' as request 'qi' at
 * time 't' along 'cp' (an I-call, or a START of a persistent one), by a
 * call that ended at measured global time 'gm'.
 */
void st_rp_start_p2p(struct st_replay *r, struct unit *u, uint32_t qi,
		     unsigned fn, uint64_t comm, int32_t peer, int32_t tag,
		     uint64_t sbytes, uint64_t rbytes, double meas, double t,
		     struct cpv cp, double gm, double start_ns)
{
	double local = 0, xfer = 0, done;
	struct req *q = &r->reqs[qi];
	int bytes = r->fbytes[fn], rv, net;
	struct st_replay_msg nm;

	q->T = t;
	q->gm = -INFINITY;
	q->cp = cp;
	q->fn = (uint16_t)fn;
	q->rwork = 0;
	q->nwait = 1;		/* held until set up */
	net = bytes == ST_BYTES_SEND && peer_ok(peer) &&
	      st_rp_msg_cost(r, fn, (double)sbytes, &nm);
	rv = net && (nm.rendezvous || st_replay_sync_send(fn));
	if (net) {
		msg_start(&nm, start_ns, rv);
		st_rp_start_charged(r, start_ns);
	}
	if (net && (r->ranks[u->rank].hs_head != NIL ||
		    (!rv && (nm.need & 1)))) {
		/*
		 * Its message leaves when its sender is next inside MPI (or
		 * after a message held so, in order).
		 */
		struct msg s = { .type = M_SEND, .net = 1, .t = t,
				 .bytes = (double)sbytes, .gm = gm, .cp = cp,
				 .src = u->rank, .nm = nm };
		uint64_t k[3];
		int32_t rw;

		s.sync = (uint8_t)rv;
		s.nm.rendezvous = rv;
		if (rv)
			s.xfer = nm.rndv_send_ns;
		rw = st_rp_w_req(r, qi);
		if (rv)
			s.w = rw;
		send_key(r, u->rank, comm, peer, tag, k);
		if (hold_send(r, u->rank, &s, k, rv ? WNONE : rw)) {
			st_rp_oom(r);
			return;
		}
	} else if (net) {
		done = do_send(r, u, comm, peer, tag, rv,
			       rv ? st_rp_w_req(r, qi) : WNONE, 0,
			       (double)sbytes, cp, t, gm, &nm);
		q = &r->reqs[qi];
		if (!rv) {
			q->T = done;
			q->cp = cp_add(cp, done - t);
		}
	} else if (bytes == ST_BYTES_SEND && peer_ok(peer)) {
		if (st_rp_p2p_cost(r, fn, (double)sbytes, meas, &local,
				   &xfer) == SRC_MISSING) {
			r->reqs[qi].missing = 1;
		} else {
			local += start_ns;
			xfer += start_ns;
			st_rp_start_charged(r, start_ns);
		}
		q = &r->reqs[qi];
		q->T = t + local;
		q->cp = cp_add(cp, local);
		do_send(r, u, comm, peer, tag, st_replay_sync_send(fn),
			st_replay_sync_send(fn) ? st_rp_w_req(r, qi) : WNONE, xfer,
			(double)sbytes, cp, t, gm, NULL);
	} else if (bytes == ST_BYTES_RECV) {
		/* Its cost comes with the message it matches. */
		(void)rbytes;
		if (peer_ok(peer) && tag >= 0) {
			/* Where a cancel finds it (st_rp_recv_cancel()). */
			q->post = t;
			q->post_cp = cp;
			q->comm = comm;
			q->peer = peer;
			q->tag = tag;
			st_rp_do_recv(r, u->rank, comm, peer, tag, M_RECV,
				      st_rp_w_req(r, qi), fn, cp, t);
		} else if (peer == ST_RANK_ANY || tag < 0) {
			/*
			 * Matched at completion, where the status says; the
			 * hold stays until then.
			 */
			q->deferred = 1;
			q->post = t;
			q->post_cp = cp;
			q->comm = comm;
			return;
		}
	}
	st_rp_req_result(r, qi, t, cp);
}

