/*
 * pmpi/call.c: what happens around each traced call.  st_enter() decides
 * in a few loads whether to trace; st_leave() runs after the exit
 * timestamp and turns the call's arguments (struct st_args, filled by the
 * generated wrapper by role) into records: communicator id and sequence
 * number, bytes by byte class, call site, request tracking from a
 * nonblocking start to the Wait or Test that completes it.
 *
 * The hot path: a blocking collective called again from the same call
 * site with the same arguments makes the same record but for its
 * sequence number and timestamps.  A small per-thread cache keyed by
 * return address remembers the record's fields under a token the
 * encoder also keeps; the wrapper finds its entry before the call
 * (st_key_find(), pmpi/hooks.h), and st_leave_key() writes the repeat
 * without building a struct st_event or comparing its fields
 * (st_stream_append_repeat()).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "pmpi/bytes.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"
#include "writer/writer.h"

/* Per-function facts from ST_FN_LIST, indexed by function id. */
const struct st_fn_info st_fn_info[ST_FN_COUNT] = {
#define X(id, name, kind, family, bytes, flags)                             \
	[id] = { kind, family, bytes, flags },
	ST_FN_LIST(X)
#undef X
};
unsigned char st_fn_on[ST_FN_COUNT];

/* Values of handles, as records carry them. */

static int32_t map_rank(int r)
{
	if (r == MPI_ROOT)
		return ST_RANK_ROOT;
	if (r == MPI_PROC_NULL)
		return ST_RANK_PROC_NULL;
	if (r == MPI_ANY_SOURCE)
		return ST_RANK_ANY;
	return r;
}

static uint16_t map_op(MPI_Op op)
{
	if (op == MPI_MAX) return ST_OP_MAX;
	if (op == MPI_MIN) return ST_OP_MIN;
	if (op == MPI_SUM) return ST_OP_SUM;
	if (op == MPI_PROD) return ST_OP_PROD;
	if (op == MPI_LAND) return ST_OP_LAND;
	if (op == MPI_BAND) return ST_OP_BAND;
	if (op == MPI_LOR) return ST_OP_LOR;
	if (op == MPI_BOR) return ST_OP_BOR;
	if (op == MPI_LXOR) return ST_OP_LXOR;
	if (op == MPI_BXOR) return ST_OP_BXOR;
	if (op == MPI_MINLOC) return ST_OP_MINLOC;
	if (op == MPI_MAXLOC) return ST_OP_MAXLOC;
	if (op == MPI_REPLACE) return ST_OP_REPLACE;
	if (op == MPI_NO_OP) return ST_OP_NO_OP;
	return ST_OP_USER;
}

/*
 * MPICH handles: bits 30..31 the kind (0 invalid, 1 builtin), bits 26..29
 * the object type (3 for datatypes).  Builtins carry their size in bits
 * 8..15, and never change.
 */
static int type_builtin(MPI_Datatype t)
{
	unsigned h = (unsigned)t;

	return (h & 0x3c000000u) == 0x0c000000u && h >> 30 == 1;
}

uint64_t st_type_size(MPI_Datatype t)
{
	MPI_Count n = 0;
	unsigned h = (unsigned)t;

	/*
	 * Anything but a datatype would make PMPI_Type_size_x call the
	 * (fatal) error handler: it is not ours to ask about, so it counts 0.
	 */
	if ((h & 0x3c000000u) != 0x0c000000u || (h >> 30) == 0 ||
	    t == MPI_DATATYPE_NULL)
		return 0;
	if (type_builtin(t))
		return (h >> 8) & 0xff;
	if (PMPI_Type_size_x(t, &n) != MPI_SUCCESS || n < 0)
		return 0;
	return (uint64_t)n;
}

static uint64_t xfer_type_size(void *ctx, const void *types, size_t i)
{
	(void)ctx;
	return st_type_size(((const MPI_Datatype *)types)[i]);
}

/* Bytes of a collective or point-to-point call from its arguments. */
static void count_bytes(struct st_call *c, const struct st_fn_info *fi,
			struct st_comm_entry *e, struct st_event *ev,
			int64_t status_bytes)
{
	const struct st_args *a = &c->a;
	struct st_xfer x;
	struct st_xfer_comm xc;
	uint64_t n;

	/* The commonest classes, without the general machinery. */
	switch (fi->bytes) {
	case ST_BYTES_BARRIER:
		ev->sbytes = ev->rbytes = 0;
		return;
	case ST_BYTES_ALLREDUCE:
		if (a->count < 0)
			break;
		/* leave_coll() has looked the size up already. */
		n = (uint64_t)a->count * ev->tsize;
		ev->sbytes = ev->rbytes = n;
		return;
	}
	memset(&x, 0, sizeof(x));
	x.cls = fi->bytes;
	x.send_in_place = a->sbuf == MPI_IN_PLACE;
	x.recv_in_place = a->rbuf == MPI_IN_PLACE;
	x.root = map_rank(a->root);
	/* One role 'count'/'type' stands for both sides; unset fields are 0. */
	x.scount = a->scount + a->count;
	x.rcount = a->rcount + a->count;
	x.scounts = a->scounts;
	x.rcounts = a->rcounts;
	x.counts_64 = a->large;
	x.stype = a->stype ? &a->stype : a->type ? &a->type : NULL;
	x.rtype = a->rtype ? &a->rtype : a->type ? &a->type : NULL;
	x.stypes = a->stypes;
	x.rtypes = a->rtypes;
	x.partitions = a->partitions;
	x.status_bytes = status_bytes;
	x.type_size = xfer_type_size;
	memset(&xc, 0, sizeof(xc));
	if (e) {
		xc.size = e->size;
		xc.rank = e->rank;
		xc.remote_size = e->remote_size;
		if (fi->bytes >= ST_BYTES_NBR_ALLGATHER &&
		    fi->bytes <= ST_BYTES_NBR_ALLTOALLW) {
			st_comm_degrees(e, a->comm);
			xc.indegree = e->indeg;
			xc.outdegree = e->outdeg;
		}
	}
	st_bytes(&x, &xc, &ev->sbytes, &ev->rbytes);
}

static int64_t status_bytes(const MPI_Status *st)
{
	MPI_Count n = MPI_UNDEFINED;

	if (!st || st == MPI_STATUS_IGNORE ||
	    PMPI_Get_count_c(st, MPI_BYTE, &n) != MPI_SUCCESS ||
	    n == MPI_UNDEFINED)
		return -1;
	return n;
}

static void request_from(struct st_req *r, const struct st_event *ev,
			 int persistent, int recv)
{
	memset(r, 0, sizeof(*r));
	r->fn = ev->fn;
	r->persistent = (uint8_t)persistent;
	r->recv = (uint8_t)recv;
	r->comm = ev->comm;
	r->comm_size = ev->comm_size;
	r->seq = ev->seq;
	r->root = ev->root;
	r->peer = ev->peer;
	r->tag = ev->tag;
	r->peer2 = ev->peer2;
	r->tag2 = ev->tag2;
	r->sbytes = ev->sbytes;
	r->rbytes = ev->rbytes;
	r->tsize = ev->tsize;
	r->op = ev->op;
}

static void event_from(struct st_event *ev, const struct st_req *r)
{
	ev->comm = r->comm;
	ev->comm_size = r->comm_size;
	ev->seq = r->seq;
	ev->inst = r->inst;
	ev->root = r->root;
	ev->peer = r->peer;
	ev->tag = r->tag;
	ev->sbytes = r->sbytes;
	ev->rbytes = r->rbytes;
	ev->tsize = r->tsize;
	ev->op = r->op;
	ev->req = r->id;
	ev->peer2 = r->peer2;
	ev->tag2 = r->tag2;
}

/* The next sequence number of a collective call on 'e'. */
static inline __attribute__((always_inline)) uint64_t
count_call(struct st_comm_entry *e)
{
	return st_comm_count(e);
}

/* The periodic flush is due ('now' in ns): do it, or start counting. */
static __attribute__((cold, noinline)) void st_flush_due(uint64_t now)
{
	if (st_tls.slot < 0)
		return;
	if (st_tls.next_flush_ns)
		st_flush_slot(st_tls.slot, 0);
	else
		st_tls.next_flush_ns = now + st_flush_interval_ns;
}

/*
 * The repeat cache (struct st_fast, pmpi/hot.h).  It serves the functions
 * the generator marks ST_FNF_REPEAT, whose wrappers look their key up
 * with st_key_find() and leave through st_leave_key(): blocking
 * collectives without count or type arrays, whose contents could change
 * under the same pointers.
 */
#define FAST_SLOTS (1 << ST_FAST_BITS)

static int builtin_or_none(MPI_Datatype t)
{
	return !t || type_builtin(t);
}

/* Remember the record 'ev' of call 'c' on 'e', under a new token. */
static __attribute__((noinline)) uint32_t fast_fill(struct st_call *c,
						    struct st_comm_entry *e,
						    const struct st_event *ev)
{
	const struct st_key *k = &c->k;
	struct st_fast *f;

	if (!builtin_or_none(k->type) || !builtin_or_none(k->stype) ||
	    !builtin_or_none(k->rtype))
		return 0;
	if (!st_tls.fast) {
		st_tls.fast = calloc(FAST_SLOTS, sizeof(*st_tls.fast));
		if (!st_tls.fast)
			return 0;
	}
	f = st_fast_slot(st_tls.fast, c->ra);
	if (!++st_tls.next_token)
		++st_tls.next_token;
	*f = (struct st_fast){
		.ra = c->ra, .fn = c->fn,
		.gen = atomic_load_explicit(&st_comm_gen, memory_order_relaxed),
		.token = st_tls.next_token, .k = *k, .e = e,
		.site = ev->site, .comm_size = ev->comm_size,
		.tsize = ev->tsize, .comm_id = ev->comm, .sbytes = ev->sbytes,
		.rbytes = ev->rbytes, .root = ev->root, .op = ev->op,
	};
	return f->token;
}

/* The whole record of a repeat the encoder did not predict. */
static __attribute__((noinline)) void fast_emit(const struct st_fast *f,
						uint64_t seq, uint64_t t0,
						uint64_t t1)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)f->fn;
	ev.t0 = t0;
	ev.t1 = t1;
	ev.site = f->site;
	ev.comm = f->comm_id;
	ev.comm_size = f->comm_size;
	ev.seq = seq;
	ev.root = f->root;
	ev.tsize = f->tsize;
	ev.sbytes = f->sbytes;
	ev.rbytes = f->rbytes;
	ev.op = f->op;
	st_emit_token(&ev, f->token);
}

/*
 * A call that is no repeat: 'c->a' from 'c->k' (which holds every role
 * of a repeatable function; 'large' matters only for count arrays,
 * which they do not take), then the general path.  When st_key_find()
 * found the key, c->k holds only its buffers: the rest is the entry's.
 */
static __attribute__((noinline)) int leave_args(struct st_call *c, int rc)
{
	struct st_key k;

	if (c->fast) {
		k = c->fast->k;
		k.sbuf = c->k.sbuf;
		k.rbuf = c->k.rbuf;
		k.buf = c->k.buf;
		c->k = k;
	}
	c->a = (struct st_args){
		.sbuf = c->k.sbuf, .rbuf = c->k.rbuf, .buf = c->k.buf,
		.scount = c->k.scount, .rcount = c->k.rcount,
		.count = c->k.count, .stype = c->k.stype,
		.rtype = c->k.rtype, .type = c->k.type, .op = c->k.op,
		.root = c->k.root, .comm = c->k.comm,
	};
	st_leave(c, rc);
	return rc;
}

/*
 * The rest of a repeat whose append returned 'r', this thread's busy
 * flag still set: what st_leave_key() leaves out of its common case, in
 * the same order.
 */
static __attribute__((cold, noinline)) int repeat_rest(struct st_call *c,
						       int r)
{
	const struct st_fast *f = c->fast;

	if (r == -ENOBUFS)
		st_flush_slot(st_tls.slot, 1);
	atomic_store_explicit(st_tls.busy, 0, memory_order_release);
	/* Not a repeat to the encoder (a new chunk...): in full. */
	if (r)
		fast_emit(f, c->rep.seq, c->rep.t0, c->rep.t1);
	st_world_seq(f->e, c->rep.seq);
	if (st_flush_interval_ns && c->rep.t1 > st_tls.next_flush_ns)
		st_flush_due(c->rep.t1);
	st_tls.guard = 0;
	return MPI_SUCCESS;
}

/* A repeat that may be due a clock refresh or a periodic flush. */
static __attribute__((cold, noinline)) int repeat_append(struct st_call *c)
{
	const struct st_fast *f = c->fast;
	int r;

	atomic_store_explicit(st_tls.busy, 1, memory_order_relaxed);
	r = st_stream_append_repeat(st_tls.stream, (unsigned)c->fn, f->token,
				    c->rep.seq, c->rep.t0, c->rep.t1);
	return repeat_rest(c, r);
}

/* A repeat whose timestamps the tick-to-ns map alone does not give. */
static __attribute__((cold, noinline)) int repeat_clock(struct st_call *c)
{
	c->rep.t0 = st_clock_ns(c->t0);
	c->rep.t1 = st_clock_ns(c->t1);
	return repeat_append(c);
}

/*
 * The common case of a repeat makes no call but the append, and keeps
 * nothing but 'c' across it: the record's seq and timestamps are in
 * c->rep for the uncommon ones, and whether a refresh or a flush follows
 * the record is known before it.
 */
int st_leave_key(struct st_call *c, int rc)
{
	struct st_fast *f = c->fast;
	uint64_t seq, t0, t1;
	int r;

	if (!f || rc != MPI_SUCCESS ||
	    !atomic_load_explicit(&st_on, memory_order_relaxed))
		return leave_args(c, rc);
	seq = count_call(f->e);
	c->rep.seq = seq;
	if (__builtin_expect(!st_clock_ns_map(c->t0, c->t1, &t0, &t1), 0))
		return repeat_clock(c);
	c->rep.t0 = t0;
	c->rep.t1 = t1;
	if (__builtin_expect(st_world_due(f->e, seq) ||
			     (st_flush_interval_ns &&
			      t1 > st_tls.next_flush_ns), 0))
		return repeat_append(c);
	atomic_store_explicit(st_tls.busy, 1, memory_order_relaxed);
	r = st_stream_append_repeat(st_tls.stream, (unsigned)c->fn, f->token,
				    seq, t0, t1);
	if (__builtin_expect(r != 0, 0))
		return repeat_rest(c, r);
	atomic_store_explicit(st_tls.busy, 0, memory_order_release);
	st_tls.guard = 0;
	return MPI_SUCCESS;
}

static void leave_coll(struct st_call *c, const struct st_fn_info *fi,
		       struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	struct st_comm_entry *e;
	struct st_req r;
	uint32_t token = 0;

	e = rc == MPI_SUCCESS ? st_comm_get(a->comm, 1) : st_comm_find(a->comm);
	if (e) {
		ev->comm = e->id;
		ev->comm_size = (uint32_t)e->size;
		ev->seq = count_call(e);
	}
	if (fi->flags & ST_FNF_ROOTED)
		ev->root = map_rank(a->root);
	if (a->type && !(fi->flags & ST_FNF_ROOTED && a->root == MPI_PROC_NULL))
		ev->tsize = (uint32_t)st_type_size(a->type);
	if (rc == MPI_SUCCESS)
		count_bytes(c, fi, e, ev, -1);
	if (a->op)
		ev->op = map_op(a->op);
	if (rc == MPI_SUCCESS && a->request &&
	    (fi->family == ST_FAM_NONBLOCKING ||
	     fi->family == ST_FAM_PERSISTENT)) {
		request_from(&r, ev, fi->family == ST_FAM_PERSISTENT, 0);
		ev->req = st_req_add(*a->request, &r);
	}
	if (rc == MPI_SUCCESS && e && (fi->flags & ST_FNF_REPEAT))
		token = fast_fill(c, e, ev);
	st_emit_token(ev, token);
	if (e)
		st_world_seq(e, ev->seq);
}

static void leave_p2p(struct st_call *c, const struct st_fn_info *fi,
		      struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	struct st_comm_entry *e;
	const MPI_Status *st = a->status;
	int recv = fi->bytes == ST_BYTES_RECV;
	int sendrecv = fi->bytes == ST_BYTES_SENDRECV ||
		       fi->bytes == ST_BYTES_SENDRECV_REPLACE;
	int persistent = fi->family == ST_FAM_PERSISTENT;
	int blocking = fi->family == ST_FAM_BLOCKING;
	struct st_req r;

	/* An Iprobe that found nothing is polling, not a record. */
	if (a->flag && !*a->flag) {
		st_site_get(c->ra);
		return;
	}
	/* A matched receive: communicator, source and tag of its probe. */
	if (a->message && recv)
		st_message_recv(c);
	e = rc == MPI_SUCCESS ? st_comm_get(a->comm, 0) : st_comm_find(a->comm);
	if (e) {
		ev->comm = e->id;
		ev->comm_size = (uint32_t)e->size;
	}
	ev->peer = map_rank(a->peer);
	ev->tag = a->tag;
	if (sendrecv) {
		ev->peer2 = map_rank(a->peer2);
		ev->tag2 = a->tag2;
	}
	if (a->peer != MPI_PROC_NULL)
		ev->tsize = (uint32_t)st_type_size(a->type ? a->type
					  : a->stype ? a->stype : a->rtype);
	if (rc == MPI_SUCCESS && fi->bytes != ST_BYTES_NONE) {
		count_bytes(c, fi, e, ev, blocking && st ? status_bytes(st) : -1);
		if (!blocking && (recv || sendrecv) &&
		    !(fi->flags & ST_FNF_NOSTATUS))
			ev->rbytes = 0;	/* known at completion */
		/* Nothing moves to or from MPI_PROC_NULL. */
		if (a->peer == MPI_PROC_NULL) {
			ev->sbytes = 0;
			if (!sendrecv)
				ev->rbytes = 0;
		}
		if (sendrecv && a->peer2 == MPI_PROC_NULL)
			ev->rbytes = 0;
	}
	/* The receive side of a blocking call: who it came from. */
	if (rc == MPI_SUCCESS && st && blocking) {
		if (recv || fi->bytes == ST_BYTES_NONE) {
			ev->peer = map_rank(st->MPI_SOURCE);
			ev->tag = st->MPI_TAG;
		} else if (sendrecv) {
			ev->peer2 = map_rank(st->MPI_SOURCE);
			ev->tag2 = st->MPI_TAG;
		}
	}
	if (rc == MPI_SUCCESS && a->request &&
	    (fi->family == ST_FAM_NONBLOCKING || persistent)) {
		request_from(&r, ev, persistent, (recv || sendrecv) &&
			     !(fi->flags & ST_FNF_NOSTATUS));
		r.parts = (uint32_t)(a->partitions > 0 ? a->partitions : 0);
		ev->req = st_req_add(*a->request, &r);
	}
	st_emit(ev);
	/* A matched probe: its message remembers what it matched. */
	if (rc == MPI_SUCCESS && a->message && !recv)
		st_message_note(c, st);
}

/* Emit the DONE record of request 'h' (snapshotted as 'id'). */
static void done(struct st_call *c, MPI_Request h, uint64_t id,
		 const MPI_Status *st, struct st_event *call)
{
	struct st_event ev;
	struct st_req r;
	int64_t n;

	if (!id || !st_req_take(h, id, &r, 0))
		return;
	st_event_clear(&ev);
	ev.kind = ST_REC_DONE;
	ev.fn = (uint16_t)c->fn;
	ev.t0 = call->t0;
	ev.t1 = call->t1;
	ev.site = call->site;
	ev.rc = call->rc;
	event_from(&ev, &r);
	if (r.recv && st && st != MPI_STATUS_IGNORE) {
		n = status_bytes(st);
		if (n >= 0)
			ev.rbytes = (uint64_t)n;
		/* MPI_PROC_NULL's (empty) status names no source. */
		if (r.peer == ST_RANK_PROC_NULL) {
			ev.rbytes = 0;
		} else if (r.fn && st_fn_info[r.fn].bytes == ST_BYTES_RECV) {
			ev.peer = map_rank(st->MPI_SOURCE);
			ev.tag = st->MPI_TAG;
		} else if (r.fn && st_fn_info[r.fn].kind == ST_KIND_P2P) {
			ev.peer2 = map_rank(st->MPI_SOURCE);
			ev.tag2 = st->MPI_TAG;
		}
	}
	st_emit(&ev);
}

void st_complete_pre(struct st_call *c, int n, const MPI_Request *requests)
{
	uint64_t *snap;

	c->nsnap = 0;
	if (n <= 0 || !requests || !(snap = st_snap_buf(2 * n)))
		return;
	st_req_snapshot(requests, n, snap);
	c->snap = snap;
	c->nsnap = n;
}

static const MPI_Status *status_at(const struct st_call *c, int i)
{
	const struct st_args *a = &c->a;

	if (a->statuses && a->statuses != MPI_STATUSES_IGNORE)
		return &a->statuses[i];
	if (a->status && a->status != MPI_STATUS_IGNORE)
		return a->status;
	return NULL;
}

static void leave_complete(struct st_call *c, struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	struct st_event s;
	struct st_req r;
	int i, n, any = 0;

	if (c->fn == ST_FN_MPI_START || c->fn == ST_FN_MPI_STARTALL) {
		const MPI_Request *reqs = a->requests ? a->requests : a->request;

		n = a->requests ? a->nreq : 1;
		st_emit(ev);
		for (i = 0; rc == MPI_SUCCESS && reqs && i < n; i++) {
			if (!st_req_start(reqs[i], &r))
				continue;
			st_event_clear(&s);
			s.kind = ST_REC_START;
			s.fn = r.fn;
			s.t0 = ev->t0;
			s.t1 = ev->t1;
			s.site = ev->site;
			event_from(&s, &r);
			st_emit(&s);
		}
		return;
	}
	if (c->fn == ST_FN_MPI_REQUEST_FREE) {
		st_emit(ev);
		if (c->nsnap == 1 && c->snap[1] && rc == MPI_SUCCESS)
			st_req_take((MPI_Request)c->snap[0], c->snap[1], &r, 1);
		return;
	}
	/* Which of the snapshotted requests completed. */
	if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
		if (c->fn == ST_FN_MPI_WAIT || c->fn == ST_FN_MPI_WAITALL ||
		    ((c->fn == ST_FN_MPI_TEST || c->fn == ST_FN_MPI_TESTALL) &&
		     a->flag && *a->flag))
			any = c->nsnap ? 1 : 0;
		if (any)
			for (i = 0; i < c->nsnap; i++)
				done(c, (MPI_Request)c->snap[2 * i],
				     c->snap[2 * i + 1], status_at(c, i), ev);
		if ((c->fn == ST_FN_MPI_WAITANY || c->fn == ST_FN_MPI_TESTANY) &&
		    a->index && *a->index != MPI_UNDEFINED &&
		    *a->index >= 0 && *a->index < c->nsnap &&
		    (c->fn == ST_FN_MPI_WAITANY || (a->flag && *a->flag))) {
			i = *a->index;
			any = 1;
			done(c, (MPI_Request)c->snap[2 * i], c->snap[2 * i + 1],
			     a->status != MPI_STATUS_IGNORE ? a->status : NULL,
			     ev);
		}
		if ((c->fn == ST_FN_MPI_WAITSOME ||
		     c->fn == ST_FN_MPI_TESTSOME) &&
		    a->outcount && *a->outcount != MPI_UNDEFINED) {
			for (n = 0; n < *a->outcount; n++) {
				i = a->indices[n];
				if (i < 0 || i >= c->nsnap)
					continue;
				any = 1;
				done(c, (MPI_Request)c->snap[2 * i],
				     c->snap[2 * i + 1],
				     a->statuses != MPI_STATUSES_IGNORE
					     ? &a->statuses[n] : NULL,
				     ev);
			}
		}
	}
	/* A Test* that completed nothing is polling, not a record. */
	if (any || c->fn == ST_FN_MPI_WAIT || c->fn == ST_FN_MPI_WAITALL ||
	    c->fn == ST_FN_MPI_WAITANY || c->fn == ST_FN_MPI_WAITSOME ||
	    (a->flag && *a->flag) ||
	    (a->outcount && *a->outcount > 0 &&
	     *a->outcount != MPI_UNDEFINED))
		st_emit(ev);
}

void st_comm_free_pre(struct st_call *c, const MPI_Comm *comm)
{
	c->oldcomm = comm ? *comm : MPI_COMM_NULL;
}

static void leave_comm(struct st_call *c, const struct st_fn_info *fi,
		       struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	struct st_comm_entry *e = NULL;
	MPI_Comm parent = a->comm;

	if (a->commp) {		/* MPI_Comm_free */
		parent = c->oldcomm;
		e = st_comm_find(parent);
	} else if (parent) {
		e = rc == MPI_SUCCESS ? st_comm_get(parent, 1)
				      : st_comm_find(parent);
	}
	if (e) {
		ev->comm = e->id;
		ev->comm_size = (uint32_t)e->size;
		ev->seq = count_call(e);
	}
	st_emit(ev);
	if (a->commp) {
		if (rc == MPI_SUCCESS)
			st_comm_forget(c->oldcomm);
		return;
	}
	if (e)
		st_world_seq(e, ev->seq);
	/* MPI_Comm_idup's communicator is usable only once it completes. */
	if (rc == MPI_SUCCESS && fi->family != ST_FAM_NONBLOCKING &&
	    a->newcomm && *a->newcomm != MPI_COMM_NULL)
		st_comm_register(*a->newcomm, parent ? parent : MPI_COMM_NULL,
				 c->fn, c->t0, c->t1);
}

/*
 * A rank that writes no more still counts collectives and joins every
 * communicator id agreement, which the other ranks' calls wait for.
 */
static __attribute__((cold, noinline)) void keep_ids(struct st_call *c,
						     const struct st_fn_info *fi,
						     int rc)
{
	const struct st_args *a = &c->a;
	struct st_comm_entry *e;

	if (rc != MPI_SUCCESS)
		return;
	if (fi->kind == ST_KIND_COLL && (e = st_comm_get(a->comm, 1)))
		st_world_seq(e, count_call(e));
	if (fi->kind == ST_KIND_WIN)
		st_leave_win(c, fi, NULL, rc);
	else if (fi->kind == ST_KIND_RMA)
		st_leave_rma(c, fi, NULL, rc);
	else if (fi->kind == ST_KIND_FILE)
		st_leave_file(c, fi, NULL, rc);
	else if (fi->kind == ST_KIND_IO)
		st_leave_io(c, fi, NULL, rc);
	else if (fi->kind == ST_KIND_P2P && a->message && rc == MPI_SUCCESS)
		st_message_recv(c);	/* a matched receive takes its message */
	if (fi->kind != ST_KIND_COMM)
		return;
	if (a->commp) {
		st_comm_forget(c->oldcomm);
		return;
	}
	if (a->comm && (e = st_comm_get(a->comm, 1)))
		st_world_seq(e, count_call(e));
	if (fi->family != ST_FAM_NONBLOCKING && a->newcomm &&
	    *a->newcomm != MPI_COMM_NULL)
		st_comm_register(*a->newcomm, a->comm ? a->comm : MPI_COMM_NULL,
				 c->fn, c->t0, c->t1);
}

void st_leave(struct st_call *c, int rc)
{
	const struct st_fn_info *fi = &st_fn_info[c->fn];
	struct st_event ev;

	if (__builtin_expect(!atomic_load_explicit(&st_on,
						   memory_order_relaxed), 0)) {
		keep_ids(c, fi, rc);
		st_tls.guard = 0;
		return;
	}

	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)c->fn;
	ev.rc = rc;
	ev.t0 = st_clock_ns(c->t0);
	ev.t1 = st_clock_ns(c->t1);
	ev.site = st_site_get(c->ra);
	switch (fi->kind) {
	case ST_KIND_COLL:
		leave_coll(c, fi, &ev, rc);
		break;
	case ST_KIND_P2P:
		leave_p2p(c, fi, &ev, rc);
		break;
	case ST_KIND_COMPLETE:
		leave_complete(c, &ev, rc);
		break;
	case ST_KIND_COMM:
		leave_comm(c, fi, &ev, rc);
		break;
	case ST_KIND_WIN:
		st_leave_win(c, fi, &ev, rc);
		break;
	case ST_KIND_RMA:
		st_leave_rma(c, fi, &ev, rc);
		break;
	case ST_KIND_FILE:
		st_leave_file(c, fi, &ev, rc);
		break;
	case ST_KIND_IO:
		st_leave_io(c, fi, &ev, rc);
		break;
	case ST_KIND_PART:
		st_leave_part(c, fi, &ev, rc);
		break;
	case ST_KIND_PHASE:
		st_leave_phase(c, fi, &ev, rc);
		break;
	default:
		st_emit(&ev);
	}
	if (st_flush_interval_ns && ev.t1 > st_tls.next_flush_ns)
		st_flush_due(ev.t1);
	st_tls.guard = 0;
}

MPI_Status *st_status(struct st_call *c, MPI_Status *status)
{
	return status == MPI_STATUS_IGNORE ? &c->status : status;
}

MPI_Status *st_statuses(struct st_call *c, int n, MPI_Status *statuses)
{
	if (statuses == MPI_STATUSES_IGNORE && n >= 0 && n <= ST_MAX_STATUSES)
		return c->statuses;
	return statuses;
}

int st_yield_wait(struct st_call *c, int rc, MPI_Status *status)
{
	int flag = 0;

	if (rc != MPI_SUCCESS)
		return rc;
	for (;;) {
		rc = PMPI_Test(&c->yreq, &flag, status);
		if (rc != MPI_SUCCESS || flag)
			return rc;
		sched_yield();
	}
}

/* The general path's helpers, for pmpi/rma.c, io.c, part.c. */

int32_t st_map_rank(int rank)
{
	return map_rank(rank);
}

uint16_t st_map_op(MPI_Op op)
{
	return map_op(op);
}

void st_count_bytes(struct st_call *c, const struct st_fn_info *fi,
		    struct st_event *ev, int64_t status_bytes)
{
	count_bytes(c, fi, NULL, ev, status_bytes);
}

int64_t st_status_bytes(const MPI_Status *status)
{
	return status_bytes(status);
}

void st_req_track(struct st_call *c, const struct st_fn_info *fi,
		  struct st_event *ev, int recv)
{
	struct st_req r;

	request_from(&r, ev, fi->family == ST_FAM_PERSISTENT, recv);
	ev->req = st_req_add(*c->a.request, &r);
}
