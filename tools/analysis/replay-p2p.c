/*
 * tools/analysis/replay-p2p.c: point-to-point messages in the replay.
 * Sends and receives meet in queues keyed by (communicator, source and
 * destination, group and tag), in posting order: MPI's non-overtaking
 * rule, the trace having resolved the wildcards.  Every send is eager;
 * a synchronous one completes when its message arrives.  A probe waits
 * for the envelope and takes nothing from the queue.
 */
#include <math.h>

#include "gen/ops.h"
#include "tools/analysis/replay-internal.h"
#include "writer/event.h"
#include "writer/fn-info.h"

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

/*
 * Send 's' meets receive 'v': the receive completes its cost after the
 * later of its post and the message's arrival; a synchronous send when
 * its message arrives.
 */
static void match(struct st_replay *r, const struct msg *s,
		  const struct msg *v)
{
	struct cpv cp;
	double T = arrival(s, v, &cp), local = 0;
	int src = SRC_MODEL;

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

/* Wake the probes at the head of queue 'qi' with send 's'. */
static void wake_probes(struct st_replay *r, uint32_t qi, const struct msg *s)
{
	struct cpv cp;
	double T;

	while (r->mqs[qi].head != NIL &&
	       r->msgs[r->mqs[qi].head].type == M_PROBE) {
		struct msg *p = &r->msgs[r->mqs[qi].head];

		T = arrival(s, NULL, &cp);
		st_rp_resolve(r, p->w, T, cp);
		if (st_rp_mq_pop(r, qi))
			return;
	}
}

static void post_send(struct st_replay *r, uint64_t k1, uint64_t k2,
		      uint64_t k3, const struct msg *s)
{
	uint32_t qi = mq_get(r, k1, k2, k3, 1), mi;
	struct msg v;

	if (qi == NIL)
		return;
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type !=
	    M_SEND) {
		wake_probes(r, qi, s);
		qi = mq_get(r, k1, k2, k3, 1);
		if (qi == NIL)
			return;
	}
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type ==
	    M_RECV) {
		v = r->msgs[r->mqs[qi].head];
		st_rp_mq_pop(r, qi);
		match(r, s, &v);
		return;
	}
	if ((mi = msg_new(r)) == NIL)
		return;
	r->msgs[mi] = *s;
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
		s = r->msgs[r->mqs[qi].head];
		if (v->type == M_PROBE) {
			T = arrival(&s, NULL, &cp);
			st_rp_resolve(r, v->w, T, cp);
			return;
		}
		st_rp_mq_pop(r, qi);
		match(r, &s, v);
		return;
	}
	if ((mi = msg_new(r)) == NIL)
		return;
	r->msgs[mi] = *v;
	mq_append(r, qi, mi);
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

static int is_sync_send(unsigned fn)
{
	return fn == ST_FN_MPI_SSEND || fn == ST_FN_MPI_SSEND_C ||
	       fn == ST_FN_MPI_ISSEND || fn == ST_FN_MPI_ISSEND_C;
}

/*
 * A send of 'bytes' to 'peer', 'tag' by 'sw' (sync) from 'u' at 't',
 * whose call ended at measured global time 'gm'.
 */
static void do_send(struct st_replay *r, struct unit *u, uint64_t comm,
		    int32_t peer, int32_t tag, int sync, int32_t sw,
		    double xfer, double bytes, struct cpv cp, double t,
		    double gm)
{
	struct msg s = { .type = M_SEND, .sync = (uint8_t)sync, .w = sw,
			 .t = t, .xfer = xfer, .bytes = bytes, .gm = gm,
			 .cp = cp };
	uint64_t k[3];

	send_key(r, u->rank, comm, peer, tag, k);
	post_send(r, k[0], k[1], k[2], &s);
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

/* Blocking point-to-point call 'x' of 'u'. */
void st_rp_call_p2p(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	double ls = 0, xs = 0;
	int bytes = r->fbytes[x->fn], src = SRC_LOCAL;
	struct cpv cp0 = u->cp;
	double t = u->now;

	switch (bytes) {
	case ST_BYTES_SEND:
		if (!peer_ok(x->peer)) {
			st_rp_op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		src = st_rp_p2p_cost(r, x->fn, (double)x->sbytes, meas, &ls,
				     &xs);
		st_rp_op_begin(u, x, ls, src);
		do_send(r, u, x->comm, x->peer, x->tag, is_sync_send(x->fn),
			is_sync_send(x->fn) ? st_rp_w_unit(u) : WNONE, xs,
			(double)x->sbytes, cp0, t,
			st_rp_gtime(r, u->rank, x->t1));
		return;
	case ST_BYTES_RECV:
		if (!peer_ok(x->peer)) {
			st_rp_op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		/* Its cost comes with the message it matches. */
		st_rp_op_begin(u, x, 0, SRC_MODEL);
		st_rp_op_receives(r, u, x);
		st_rp_do_recv(r, u->rank, x->comm, x->peer, x->tag, M_RECV,
			      st_rp_w_unit(u), x->fn, cp0, t);
		return;
	case ST_BYTES_SENDRECV:
	case ST_BYTES_SENDRECV_REPLACE:
		if (!peer_ok(x->peer) && !peer_ok(x->peer2)) {
			st_rp_op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		/* One cost for both halves, as the table measures it. */
		src = st_rp_p2p_cost(r, x->fn, (double)(x->sbytes > x->rbytes ?
						  x->sbytes : x->rbytes),
			       meas, &ls, &xs);
		st_rp_op_begin(u, x, ls, src);
		if (peer_ok(x->peer))
			do_send(r, u, x->comm, x->peer, x->tag, 0, WNONE, xs,
				(double)x->sbytes, cp0, t,
				st_rp_gtime(r, u->rank, x->t1));
		if (peer_ok(x->peer2))
			st_rp_do_recv(r, u->rank, x->comm, x->peer2, x->tag2,
				      M_RECV, st_rp_w_unit(u), x->fn, cp0, t);
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
		     struct cpv cp, double gm)
{
	double local = 0, xfer = 0;
	struct req *q = &r->reqs[qi];
	int bytes = r->fbytes[fn];

	q->T = t;
	q->gm = -INFINITY;
	q->cp = cp;
	q->fn = (uint16_t)fn;
	q->nwait = 1;		/* held until set up */
	if (bytes == ST_BYTES_SEND && peer_ok(peer)) {
		if (st_rp_p2p_cost(r, fn, (double)sbytes, meas, &local,
				   &xfer) == SRC_MISSING)
			r->reqs[qi].missing = 1;
		q = &r->reqs[qi];
		q->T = t + local;
		q->cp = cp_add(cp, local);
		do_send(r, u, comm, peer, tag, is_sync_send(fn),
			is_sync_send(fn) ? st_rp_w_req(r, qi) : WNONE, xfer,
			(double)sbytes, cp, t, gm);
	} else if (bytes == ST_BYTES_RECV) {
		/* Its cost comes with the message it matches. */
		(void)rbytes;
		if (peer_ok(peer) && tag >= 0) {
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

