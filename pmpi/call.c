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
 *
 * Nonblocking calls with scalar arguments take the same cache: the entry
 * also holds the request they make, which is tracked as a copy of it,
 * and their record is appended from the entry's token with only its
 * sequence number, request id and timestamps new
 * (st_stream_like()).  A request carries tokens for its done
 * record (given the status its last completion had: source, tag,
 * bytes) and, if persistent, its start records, so that Wait, Waitall,
 * Test, Testall, Start and Startall append those the same way
 * (complete_ok()).  Tokens are unique across threads, since a request
 * may complete on another thread than the one that made it.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "pmpi/abi.h"
#include "pmpi/bytes.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"
#include "writer/stream.h"
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

uint64_t st_type_size(MPI_Datatype t)
{
	/* Anything MPI could not be asked about counts 0 (pmpi/abi.h). */
	if (!st_type_valid(t))
		return 0;
	return st_type_size_of(t);
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

/*
 * The bytes a status says arrived; -1 when unknown.  MPICH keeps them in
 * the status itself (its MPIR_STATUS_GET_COUNT()), which is read
 * directly: PMPI_Get_count_c(MPI_BYTE) says the same in ten times the
 * instructions.
 */
static int64_t status_bytes(const MPI_Status *st)
{
	MPI_Count n = MPI_UNDEFINED;

	if (!st || st == MPI_STATUS_IGNORE)
		return -1;
#ifdef MPICH
	(void)n;
	return (int64_t)((uint64_t)((unsigned)st->count_hi_and_cancelled >> 1)
			 << 32 | (unsigned)st->count_lo);
#else
	if (st_status_bytes_of(st, &n) ||
	    n == MPI_UNDEFINED)
		return -1;
	return n;
#endif
}

/*
 * Tokens: names for the fields of a record but its counters and
 * timestamps (st_stream_like()).  One sequence for all threads,
 * since a request made on one thread may complete on another; taken
 * only when a cache entry or a request is made, never per call.
 * TOKEN_PLAIN + fn names a completion call's own record, every field
 * of which but the timestamps is as it does not apply (rc 0).
 */
#define TOKEN_PLAIN 0xfffff000u
static atomic_uint next_token;

static uint32_t new_token(void)
{
	uint32_t t;

	do
		t = atomic_fetch_add_explicit(&next_token, 1,
					      memory_order_relaxed) + 1;
	while (!t || t >= TOKEN_PLAIN);
	return t;
}

/*
 * Append the record 'l', like an earlier one with the same token but for
 * its counters and timestamps (st_stream_like()).  Returns 0, or
 * 1 when it was not appended: make the whole record.
 */
static inline __attribute__((always_inline)) int
emit_like(const struct st_tok_rec *l)
{
	struct st_stream *s = st_tls.stream;
	int r;

	/* No stream yet (st_tls.slot < 0): the whole record makes one. */
	if (__builtin_expect(!s, 0))
		return 1;
	if (!st_busy_enter(st_tls.busy))
		return 0;	/* tracing stopped: no record at all */
	r = st_stream_like(s, l, l->kind);
	/* Full: make room (the caller appends the whole record after). */
	if (__builtin_expect(r == -ENOBUFS, 0))
		st_flush_slot(st_tls.slot, 1);
	atomic_store_explicit(st_tls.busy, 0, memory_order_release);
	return r != 0;
}

/*
 * The records of one completion call appended like earlier ones
 * (run_like()): this thread's busy flag is taken for the first and
 * kept for the next, so that a call's records take it once.  'held'
 * says whether it is taken; like_end() gives it back, which a record
 * appended in full needs first (st_emit_token() takes the flag itself).
 */
struct like_run {
	struct st_stream *s;	/* this thread's stream, while 'held' */
	int held;
};

static inline __attribute__((always_inline)) void
like_end(struct like_run *lr)
{
	if (lr->held) {
		atomic_store_explicit(st_tls.busy, 0, memory_order_release);
		lr->held = 0;
	}
}

/*
 * emit_like() within the run 'lr': returns 0 when appended (or when
 * tracing has stopped: no record at all), else 1 with the flag given
 * back: append the whole record.  The record has timestamps (its
 * caller, complete_ok(), leaves a call without them to the general
 * path), which spares the encoder its test for each record.
 */
static inline __attribute__((always_inline)) int
run_like(struct like_run *lr, const struct st_tok_rec *l)
{
	int r;

	if (!(l->t0 | l->t1))
		__builtin_unreachable();

	if (!lr->held) {
		lr->s = st_tls.stream;
		/* No stream yet: the whole record makes one. */
		if (__builtin_expect(!lr->s, 0))
			return 1;
		if (!st_busy_enter(st_tls.busy))
			return 0;
		lr->held = 1;
	}
	r = st_stream_like(lr->s, l, l->kind);
	if (__builtin_expect(!r, 1))
		return 0;
	/* Full: make room (the caller appends the whole record after). */
	if (r == -ENOBUFS)
		st_flush_slot(st_tls.slot, 1);
	like_end(lr);
	return 1;
}

uint32_t st_new_token(void)
{
	return new_token();
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
	if (persistent)
		r->start_token = new_token();
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

/*
 * The periodic flush is due ('now' in ns, past st_tls.next_flush_ns):
 * do it, or start counting (st_tls.next_flush_ns 0, a thread's first
 * record), or, without a periodic flush, never come here again.
 */
static __attribute__((cold, noinline)) void st_flush_due(uint64_t now)
{
	if (!st_flush_interval_ns) {
		st_tls.next_flush_ns = UINT64_MAX;
		return;
	}
	if (st_tls.slot < 0)
		return;
	if (st_tls.next_flush_ns) {
		/* It changes the stream too (pmpi/runtime.c, exit_flush). */
		if (!st_busy_enter(st_tls.busy))
			return;
		st_flush_slot(st_tls.slot, 0);
		atomic_store_explicit(st_tls.busy, 0, memory_order_release);
	} else {
		st_tls.next_flush_ns = st_flush_next(now, st_flush_interval_ns);
	}
}

/* After a record whose t1 is 't1' (ns): is the periodic flush due? */
static inline __attribute__((always_inline)) void flush_check(uint64_t t1)
{
	if (__builtin_expect(t1 > st_tls.next_flush_ns, 0))
		st_flush_due(t1);
}

/*
 * The repeat cache (struct st_fast, pmpi/hot.h).  It serves the functions
 * the generator marks ST_FNF_REPEAT, whose wrappers look their key up
 * with st_key_find() and leave through st_leave_key() (blocking
 * collectives without count or type arrays, whose contents could change
 * under the same pointers) or, with a request, through
 * st_leave_nb_key() (the nonblocking ones; tools/gen checks the split).
 */
#define FAST_SLOTS (1 << ST_FAST_BITS)

/*
 * Whether 'f' (NULL: no) is an entry of this thread's repeat cache,
 * which only this thread may change: a request made on one thread can
 * complete on another.
 */
static int own_fast(const struct st_fast *f)
{
	return f && st_tls.fast &&
	       (uintptr_t)f - (uintptr_t)st_tls.fast <
		       FAST_SLOTS * sizeof(*st_tls.fast);
}

static int builtin_or_none(MPI_Datatype t)
{
	return !t || st_type_builtin(t);
}

/*
 * Remember the record 'ev' of call 'c' on 'e', under a new token; for a
 * nonblocking call also its request 'r', which takes the entry's
 * tokens.
 */
static __attribute__((noinline)) uint32_t fast_fill(struct st_call *c,
						    struct st_comm_entry *e,
						    const struct st_event *ev,
						    struct st_req *r)
{
	const struct st_key *k = &c->k;
	struct st_fast *f;

	if (!builtin_or_none(k->type) || !builtin_or_none(k->stype) ||
	    !builtin_or_none(k->rtype))
		return 0;
	/*
	 * A call through the Fortran bindings returns into them, whatever
	 * the program's line: keyed by that address, every site would be
	 * given the first one's.  Such calls take the general path, which
	 * finds the program's frame (st_site_get()).
	 */
	if (st_from_fortran(c->ra))
		return 0;
	if (!st_tls.fast)
		st_tls_adopt();
	if (!st_tls.fast) {
		st_tls.fast = aligned_alloc(64, FAST_SLOTS *
						    sizeof(*st_tls.fast));
		if (!st_tls.fast)
			return 0;
		memset(st_tls.fast, 0, FAST_SLOTS * sizeof(*st_tls.fast));
	}
	f = st_fast_slot(st_tls.fast, c->ra);
	*f = (struct st_fast){
		.ra = c->ra, .fn = c->fn,
		.gen = atomic_load_explicit(&st_comm_gen, memory_order_relaxed),
		.token = new_token(), .k = *k, .e = e,
		.coll = st_fn_info[c->fn].kind == ST_KIND_COLL,
		.site = ev->site,
	};
	if (r) {
		r->fast = f;
		r->fast_token = f->token;
		f->req = *r;
	} else {
		request_from(&f->req, ev, 0, 0);
	}
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
	ev.comm = f->req.comm;
	ev.comm_size = f->req.comm_size;
	ev.seq = seq;
	ev.root = f->req.root;
	ev.tsize = f->req.tsize;
	ev.sbytes = f->req.sbytes;
	ev.rbytes = f->req.rbytes;
	ev.op = f->req.op;
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
		k.request = c->k.request;
		c->k = k;
	}
	c->a = (struct st_args){
		.sbuf = c->k.sbuf, .rbuf = c->k.rbuf, .buf = c->k.buf,
		.scount = c->k.scount, .rcount = c->k.rcount,
		.count = c->k.count, .stype = c->k.stype,
		.rtype = c->k.rtype, .type = c->k.type, .op = c->k.op,
		.root = c->k.root, .comm = c->k.comm, .peer = c->k.peer,
		.tag = c->k.tag, .request = c->k.request,
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
	flush_check(c->rep.t1);
	st_tls.guard = 0;
	return MPI_SUCCESS;
}

/* A repeat that may be due a clock refresh or a periodic flush. */
static __attribute__((cold, noinline)) int repeat_append(struct st_call *c)
{
	const struct st_fast *f = c->fast;
	int r;

	if (!st_busy_enter(st_tls.busy))
		return repeat_rest(c, 0);	/* tracing stopped */
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
 * The wrappers of the repeatable functions with a request, the
 * nonblocking ones (the generator's guarantee: tools/gen/main.c), leave
 * here.  A call made again from its call site with the same arguments:
 * its request is tracked as the entry's, and its record appended like
 * the entry's last one (st_stream_like()) but for its sequence number,
 * request and timestamps.
 */
int st_leave_nb_key(struct st_call *c, int rc)
{
	struct st_fast *f = c->fast;
	struct st_event ev;
	uint64_t seq = 0, id, t0, t1;

	if (!f || rc != MPI_SUCCESS ||
	    !atomic_load_explicit(&st_on, memory_order_relaxed))
		return leave_args(c, rc);
	/* The request's seq: 0 but in a collective's entry. */
	if (f->coll) {
		seq = count_call(f->e);
		f->req.seq = seq;
	}
	id = st_req_add(*c->k.request, &f->req);
	t0 = st_clock_ns(c->t0);
	t1 = st_clock_ns(c->t1);
	if (!id || emit_like(&(struct st_tok_rec){
			.kind = ST_REC_CALL, .fn = (uint32_t)c->fn,
			.site = f->site, .token = f->token, .seq = seq,
			.req = id, .t0 = t0, .t1 = t1 })) {
		st_event_clear(&ev);
		ev.kind = ST_REC_CALL;
		ev.fn = (uint16_t)c->fn;
		ev.t0 = t0;
		ev.t1 = t1;
		ev.site = f->site;
		event_from(&ev, &f->req);
		ev.req = id;
		st_emit_token(&ev, f->token);
	}
	if (f->coll)
		st_world_seq(f->e, seq);
	flush_check(t1);
	st_tls.guard = 0;
	return MPI_SUCCESS;
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
			     t1 > st_tls.next_flush_ns, 0))
		return repeat_append(c);
	if (__builtin_expect(!st_busy_enter(st_tls.busy), 0))
		return repeat_rest(c, 0);	/* tracing stopped */
	r = st_stream_append_repeat(st_tls.stream, (unsigned)c->fn, f->token,
				    seq, t0, t1);
	if (__builtin_expect(r != 0, 0))
		return repeat_rest(c, r);
	atomic_store_explicit(st_tls.busy, 0, memory_order_release);
	st_tls.guard = 0;
	return MPI_SUCCESS;
}

/*
 * A keyed one-sided call that is no repeat: 'c->a' from 'c->rk' (or,
 * when st_rma_find() found the key, from the entry's but for the
 * buffers), with the roles a keyed function lacks 0 as its wrapper
 * would have them, then the general path.
 */
static __attribute__((noinline)) int rma_args(struct st_call *c, int rc)
{
	const struct st_rkey *k = c->rfast ? &c->rfast->k : &c->rk;
	struct st_args *a = &c->a;

	a->sbuf = c->rk.sbuf;
	a->rbuf = c->rk.rbuf;
	a->scount = k->scount;
	a->rcount = k->rcount;
	a->count = k->count;
	a->stype = k->stype;
	a->rtype = k->rtype;
	a->type = k->type;
	a->scounts = a->rcounts = NULL;
	a->stypes = a->rtypes = NULL;
	a->root = 0;
	a->op = k->op;
	a->peer = k->peer;
	a->request = NULL;
	a->flag = NULL;
	a->win = k->win;
	a->offset = k->offset;
	a->assert = k->assert;
	a->locktype = k->locktype;
	a->group = 0;
	a->partitions = 0;
	a->large = k->large;
	st_leave(c, rc);
	return rc;
}

/*
 * A one-sided call made again from its call site with the same
 * arguments on the same window (pmpi/rma.c): its record appended like
 * the entry's last one but for a fence's sequence number and the
 * timestamps, with no struct st_event and no st_args.
 */
int st_leave_rma_key(struct st_call *c, int rc)
{
	const struct st_rfast *f = c->rfast;
	uint64_t seq = 0, t0, t1;

	if (!f || rc != MPI_SUCCESS ||
	    !atomic_load_explicit(&st_on, memory_order_relaxed))
		return rma_args(c, rc);
	if (f->coll)
		seq = st_obj_count(f->o);
	if (__builtin_expect(!st_clock_ns_map(c->t0, c->t1, &t0, &t1), 0)) {
		t0 = st_clock_ns(c->t0);
		t1 = st_clock_ns(c->t1);
	}
	if (emit_like(&(struct st_tok_rec){
		    .kind = ST_REC_CALL, .fn = (uint32_t)c->fn,
		    .site = f->site, .token = f->token, .seq = seq,
		    .t0 = t0, .t1 = t1 }))
		st_rma_emit(f, seq, t0, t1);
	flush_check(t1);
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
		if (e && (fi->flags & ST_FNF_REPEAT))
			token = fast_fill(c, e, ev, &r);
		ev->req = st_req_add(*a->request, &r);
	} else if (rc == MPI_SUCCESS && e && (fi->flags & ST_FNF_REPEAT) &&
		   fi->family == ST_FAM_BLOCKING) {
		/* Only a blocking collective's entry has no request. */
		token = fast_fill(c, e, ev, NULL);
	}
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
	uint32_t token = 0;

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
		if (e && (fi->flags & ST_FNF_REPEAT))
			token = fast_fill(c, e, ev, &r);
		ev->req = st_req_add(*a->request, &r);
	}
	st_emit_token(ev, token);
	/* A matched probe: its message remembers what it matched. */
	if (rc == MPI_SUCCESS && a->message && !recv)
		st_message_note(c, st);
}

/*
 * Whether the receive 'r' was cancelled, as its status 'st' says.  Only
 * a point-to-point receive can be: an MPI-IO read or an RMA get never
 * is, and Open MPI 4.1 leaves the flag in the status of an OMPIO read
 * as its request object last held it (often not 0), so it is read for
 * point-to-point requests only; the kind is looked up only when the
 * flag is set.
 */
static inline int recv_cancelled(const struct st_req *r,
				 const MPI_Status *st)
{
	return st_status_cancelled(st) &&
	       (!r->fn || st_fn_info[r->fn].kind == ST_KIND_P2P);
}

/*
 * The done record of request 'r', completed with status 'st' (NULL:
 * unknown) by call 'c' (fn, rc) from 't0' to 't1' at call site 'site'.
 */
static void done_event(struct st_event *ev, const struct st_call *c,
		       const struct st_req *r, const MPI_Status *st, int rc,
		       uint32_t site, uint64_t t0, uint64_t t1)
{
	int64_t n;

	st_event_clear(ev);
	ev->kind = ST_REC_DONE;
	ev->fn = (uint16_t)c->fn;
	ev->t0 = t0;
	ev->t1 = t1;
	ev->site = site;
	ev->rc = rc;
	event_from(ev, r);
	if (r->recv && st && recv_cancelled(r, st)) {
		/* Nothing came; the rest of its status is undefined. */
		ev->arg = ST_DONE_CANCELLED;
		ev->rbytes = 0;
		return;
	}
	if (r->recv && st) {
		n = status_bytes(st);
		if (n >= 0)
			ev->rbytes = (uint64_t)n;
		/* MPI_PROC_NULL's (empty) status names no source. */
		if (r->peer == ST_RANK_PROC_NULL) {
			ev->rbytes = 0;
		} else if (r->fn && st_fn_info[r->fn].bytes == ST_BYTES_RECV) {
			ev->peer = map_rank(st->MPI_SOURCE);
			ev->tag = st->MPI_TAG;
		} else if (r->fn && st_fn_info[r->fn].kind == ST_KIND_P2P) {
			ev->peer2 = map_rank(st->MPI_SOURCE);
			ev->tag2 = st->MPI_TAG;
		}
	}
}

/*
 * done_ok()'s common case, inline in the completion calls' loop: when
 * the status of 'r' says what its last one's did, its done record
 * appended like that one's, in the run 'lr'.  Returns 1 when appended,
 * else 0 having appended nothing: done_ok() then appends it (in full),
 * after like_end().  A request that is no receive keeps st_src, st_tag
 * and st_bytes 0 (done_ok()), as its status is not read; a receive's
 * source is compared as it is when the token's is a rank (MPI's special
 * ranks are negative, and map_rank() leaves the others as they are).
 */
static inline __attribute__((always_inline)) int
done_like(struct like_run *lr, const struct st_call *c,
	  const struct st_req *r, const MPI_Status *st, uint32_t site,
	  uint64_t t0, uint64_t t1)
{
	if (!r->done_token)
		return 0;
	if (r->recv &&
	    (!st || recv_cancelled(r, st) || st->MPI_TAG != r->st_tag ||
	     status_bytes(st) != r->st_bytes ||
	     (st->MPI_SOURCE != r->st_src &&
	      (r->st_src >= 0 || map_rank(st->MPI_SOURCE) != r->st_src))))
		return 0;
	return !run_like(lr, &(struct st_tok_rec){
		       .kind = ST_REC_DONE, .fn = (uint32_t)c->fn,
		       .site = site, .token = r->done_token, .seq = r->seq,
		       .req = r->id, .inst = r->inst, .t0 = t0, .t1 = t1 });
}
_Static_assert(MPI_ROOT < 0 && MPI_PROC_NULL < 0 && MPI_ANY_SOURCE < 0,
	       "done_like() compares ranks unmapped");

/*
 * Request 'r' (snapshotted at 'at') completed with status 'st' (NULL:
 * unknown) in a call of 'c' that succeeded: its done record, appended
 * like the last one of its kind when its status says what that one's
 * did (the request's done token), else in full under a new done token,
 * which the request's cache entry (or persistent request) then keeps
 * for the next.
 */
static void done_ok(const struct st_call *c, uint64_t at, struct st_req *r,
		    const MPI_Status *st, uint32_t site, uint64_t t0,
		    uint64_t t1)
{
	struct st_event ev;
	int32_t src = 0, tag = 0;
	int64_t n = 0;
	uint32_t token;

	if (r->recv && st && recv_cancelled(r, st)) {
		/* Not its done token's fields: in full, unnamed. */
		done_event(&ev, c, r, st, MPI_SUCCESS, site, t0, t1);
		st_emit(&ev);
		return;
	}
	if (r->recv) {
		if (!st) {
			/* Fields not the token's: in full, unnamed. */
			done_event(&ev, c, r, NULL, MPI_SUCCESS, site, t0, t1);
			st_emit(&ev);
			return;
		}
		src = map_rank(st->MPI_SOURCE);
		tag = st->MPI_TAG;
		n = status_bytes(st);
	}
	if (r->done_token && src == r->st_src && tag == r->st_tag &&
	    n == r->st_bytes &&
	    !emit_like(&(struct st_tok_rec){
		    .kind = ST_REC_DONE, .fn = (uint32_t)c->fn, .site = site,
		    .token = r->done_token, .seq = r->seq, .req = r->id,
		    .inst = r->inst, .t0 = t0, .t1 = t1 }))
		return;
	token = r->done_token;
	if (!token || src != r->st_src || tag != r->st_tag ||
	    n != r->st_bytes) {
		token = new_token();
		r->done_token = token;
		r->st_src = src;
		r->st_tag = tag;
		r->st_bytes = n;
		if (r->persistent) {
			st_req_note(at, r);
		} else if (own_fast(r->fast) &&
			   r->fast->token == r->fast_token) {
			r->fast->req.done_token = token;
			r->fast->req.st_src = src;
			r->fast->req.st_tag = tag;
			r->fast->req.st_bytes = n;
		}
	}
	done_event(&ev, c, r, st, MPI_SUCCESS, site, t0, t1);
	st_emit_token(&ev, token);
}

/* Emit the DONE record of the request snapshotted at 'at' as 'id'. */
static void done(struct st_call *c, uint64_t at, uint64_t id,
		 const MPI_Status *st, struct st_event *call)
{
	struct st_event ev;
	struct st_req r;

	if (!st_req_took(at, id, &r, 0))
		return;
	if (st == MPI_STATUS_IGNORE)
		st = NULL;
	if (call->rc == MPI_SUCCESS) {
		done_ok(c, at, &r, st, call->site, call->t0, call->t1);
		return;
	}
	done_event(&ev, c, &r, st, call->rc, call->site, call->t0, call->t1);
	st_emit(&ev);
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

/*
 * After MPI_ERR_IN_STATUS from a Waitall or Testall: whether the i-th
 * request is still pending (MPI completes the others, with or without
 * an error).  Its status says so with MPI_ERR_PENDING; without a status,
 * a request still holding its handle did not complete, unless it is a
 * persistent one, which keeps its handle either way (taken as done).
 */
static int still_pending(const struct st_call *c, int i)
{
	const MPI_Status *st = status_at(c, i);
	const struct st_req_slot *s = st_req_at_slot(c->snap[2 * i]);

	if (st)
		return st->MPI_ERROR == MPI_ERR_PENDING;
	return c->a.requests && c->a.requests[i] != MPI_REQUEST_NULL &&
	       !(s && s->r.id == c->snap[2 * i + 1] && s->r.persistent);
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
	if (c->fn == ST_FN_MPI_REQUEST_FREE || c->fn == ST_FN_MPI_CANCEL) {
		/*
		 * Its record names the request freed, which the tools stop
		 * waiting for (an active one completes unseen), or marked
		 * for cancelling, which stays tracked until it completes.
		 */
		if (c->nsnap == 1 && c->snap[1] && rc == MPI_SUCCESS)
			ev->req = c->snap[1];
		st_emit(ev);
		if (ev->req && c->fn == ST_FN_MPI_REQUEST_FREE)
			st_req_took(c->snap[0], c->snap[1], &r, 1);
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
				if (rc == MPI_SUCCESS || !still_pending(c, i))
					done(c, c->snap[2 * i],
					     c->snap[2 * i + 1],
					     status_at(c, i), ev);
		if ((c->fn == ST_FN_MPI_WAITANY || c->fn == ST_FN_MPI_TESTANY) &&
		    a->index && *a->index != MPI_UNDEFINED &&
		    *a->index >= 0 && *a->index < c->nsnap &&
		    (c->fn == ST_FN_MPI_WAITANY || (a->flag && *a->flag))) {
			i = *a->index;
			any = 1;
			done(c, c->snap[2 * i], c->snap[2 * i + 1],
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
				done(c, c->snap[2 * i], c->snap[2 * i + 1],
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

/*
 * Register the communicator that the successful call 'c' made, if any,
 * from 'parent' (entry 'e', where the call is numbered 'seq').
 * MPI_Comm_idup's is usable only once its request completes: its id
 * comes from the parent's (without one, from the first collective call
 * on it).
 */
static void comm_made(const struct st_call *c, const struct st_fn_info *fi,
		      MPI_Comm parent, const struct st_comm_entry *e,
		      uint64_t seq)
{
	const struct st_args *a = &c->a;

	if (!a->newcomm || *a->newcomm == MPI_COMM_NULL)
		return;
	if (fi->family != ST_FAM_NONBLOCKING)
		st_comm_register(*a->newcomm, parent ? parent : MPI_COMM_NULL,
				 c->fn, c->t0, c->t1);
	else if (e && seq)
		st_comm_register_dup(*a->newcomm, e, seq, c->fn, c->t0, c->t1);
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
	} else if (parent && (fi->flags & ST_FNF_SUBGROUP)) {
		/*
		 * Only the members of the group call it: no agreement over
		 * 'parent', no number on it.
		 */
		e = st_comm_find(parent);
	} else if (parent) {
		e = rc == MPI_SUCCESS ? st_comm_get(parent, 1)
				      : st_comm_find(parent);
	}
	if (e) {
		ev->comm = e->id;
		ev->comm_size = (uint32_t)e->size;
		if (!(fi->flags & ST_FNF_SUBGROUP))
			ev->seq = count_call(e);
	}
	if (st_fn_on[c->fn] != ST_FN_KEEP)
		st_emit(ev);
	if (a->commp) {
		if (rc == MPI_SUCCESS)
			st_comm_forget(c->oldcomm);
		return;
	}
	if (e && ev->seq)
		st_world_seq(e, ev->seq);
	if (rc == MPI_SUCCESS)
		comm_made(c, fi, parent, e, ev->seq);
}

/*
 * What a communicator call that leaves no record still does: forget the
 * communicator it freed, number the call on its parent, register the
 * communicator it made, as leave_comm() does.
 */
static void keep_comm(struct st_call *c, const struct st_fn_info *fi, int rc)
{
	const struct st_args *a = &c->a;
	struct st_comm_entry *e = NULL;
	uint64_t seq = 0;

	if (rc != MPI_SUCCESS)
		return;
	if (a->commp) {
		st_comm_forget(c->oldcomm);
		return;
	}
	if (a->comm && !(fi->flags & ST_FNF_SUBGROUP) &&
	    (e = st_comm_get(a->comm, 1))) {
		seq = count_call(e);
		st_world_seq(e, seq);
	}
	comm_made(c, fi, a->comm, e, seq);
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
	if (fi->kind == ST_KIND_COMM)
		keep_comm(c, fi, rc);
}

/*
 * A completion or start call's own record, every field as it does not
 * apply: in the run 'lr', left open (returns 1), or else in full
 * (returns 0).
 */
static inline __attribute__((always_inline)) int
plain_record(struct like_run *lr, const struct st_call *c, uint32_t site,
	     uint64_t t0, uint64_t t1)
{
	struct st_event ev;

	if (!run_like(lr, &(struct st_tok_rec){
		    .kind = ST_REC_CALL, .fn = (uint32_t)c->fn, .site = site,
		    .token = TOKEN_PLAIN + (uint32_t)c->fn, .t0 = t0,
		    .t1 = t1 }))
		return 1;
	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)c->fn;
	ev.t0 = t0;
	ev.t1 = t1;
	ev.site = site;
	st_emit_token(&ev, TOKEN_PLAIN + (unsigned)c->fn);
	return 0;
}

/* A completion call's own record, in the run 'lr', which it ends. */
static inline __attribute__((always_inline)) void
plain_call(struct like_run *lr, const struct st_call *c, uint32_t site,
	   uint64_t t0, uint64_t t1)
{
	if (plain_record(lr, c, site, t0, t1))
		like_end(lr);
}

/* MPI_Start(all) that succeeded: its record, then each start's. */
static void start_ok(const struct st_call *c, uint32_t site, uint64_t t0,
		     uint64_t t1)
{
	const struct st_args *a = &c->a;
	const MPI_Request *reqs = a->requests ? a->requests : a->request;
	int i, n = a->requests ? a->nreq : 1, mt = st_mt;
	struct like_run lr = { NULL, 0 };
	struct st_event s;
	struct st_req copy;
	const struct st_req *r;

	/* The call's record first, its run left open for the starts'. */
	plain_record(&lr, c, site, t0, t1);
	for (i = 0; reqs && i < n; i++) {
		/* Threads that may race for the table take a copy. */
		if (!mt)
			r = st_req_start_ref(reqs[i]);
		else
			r = st_req_start(reqs[i], &copy) ? &copy : NULL;
		if (!r)
			continue;
		if (r->start_token &&
		    !run_like(&lr, &(struct st_tok_rec){
			    .kind = ST_REC_START, .fn = r->fn, .site = site,
			    .token = r->start_token, .seq = r->seq,
			    .req = r->id, .inst = r->inst, .t0 = t0,
			    .t1 = t1 }))
			continue;
		like_end(&lr);
		st_event_clear(&s);
		s.kind = ST_REC_START;
		s.fn = r->fn;
		s.t0 = t0;
		s.t1 = t1;
		s.site = site;
		event_from(&s, r);
		st_emit_token(&s, r->start_token);
	}
	like_end(&lr);
}

/*
 * The completion calls of loops (Wait, Waitall, Test, Testall, Start,
 * Startall) when they succeeded: their records without building what
 * does not change, as leave_complete() would write them.  Returns 0
 * for any other call.
 */
static inline __attribute__((always_inline)) int
complete_ok(struct st_call *c)
{
	const struct st_args *a = &c->a;
	struct like_run lr = { NULL, 0 };
	uint64_t t0, t1;
	uint32_t site;
	struct st_req r, *rp;
	const MPI_Status *st;
	uint64_t at;
	int i;

	switch (c->fn) {
	case ST_FN_MPI_TEST:
	case ST_FN_MPI_TESTALL:
		if (!a->flag)
			return 0;
		if (!*a->flag) {
			/* Polling, not a record. */
			st_site_get(c->ra);
			return 1;
		}
		break;
	case ST_FN_MPI_WAIT:
	case ST_FN_MPI_WAITALL:
	case ST_FN_MPI_START:
	case ST_FN_MPI_STARTALL:
		break;
	default:
		return 0;
	}
	t0 = st_clock_ns(c->t0);
	t1 = st_clock_ns(c->t1);
	/* Records without timestamps (never, in practice) go in full. */
	if (__builtin_expect(!(t0 | t1), 0))
		return 0;
	site = st_site_get(c->ra);
	if (c->fn == ST_FN_MPI_START || c->fn == ST_FN_MPI_STARTALL) {
		start_ok(c, site, t0, t1);
	} else {
		for (i = 0; i < c->nsnap; i++) {
			at = c->snap[2 * i];
			/* Threads that may race for the table take a copy. */
			if (!st_mt)
				rp = st_req_took_ref(at, c->snap[2 * i + 1]);
			else
				rp = st_req_took(at, c->snap[2 * i + 1], &r, 0)
					     ? &r : NULL;
			if (!rp)
				continue;
			st = status_at(c, i);
			if (!done_like(&lr, c, rp, st, site, t0, t1)) {
				like_end(&lr);
				done_ok(c, at, rp, st, site, t0, t1);
			}
		}
		plain_call(&lr, c, site, t0, t1);
	}
	flush_check(t1);
	return 1;
}

/*
 * st_leave_complete() of a call whose snapshot request.c counted
 * (MPI_THREAD_MULTIPLE): uncounted once its requests are taken.
 */
static __attribute__((noinline)) void leave_complete_mt(struct st_call *c,
							 int rc)
{
	st_tls.reqwait = 0;
	st_leave_complete(c, rc);
	st_req_wait_end();
}

/*
 * Every completion call comes here first (the generator's guarantee:
 * tools/gen/main.c), so st_leave() need not look for the common cases.
 */
void st_leave_complete(struct st_call *c, int rc)
{
	if (__builtin_expect(st_tls.reqwait, 0)) {
		leave_complete_mt(c, rc);
		return;
	}
	if (__builtin_expect(rc == MPI_SUCCESS &&
			     atomic_load_explicit(&st_on,
						  memory_order_relaxed), 1) &&
	    complete_ok(c)) {
		st_tls.guard = 0;
		return;
	}
	st_leave(c, rc);
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
	flush_check(ev.t1);
	st_tls.guard = 0;
}

void st_leave_comm(struct st_call *c, int rc)
{
	/* Inside another call's attribute callback: the guard is its. */
	if (c->nested)
		keep_comm(c, &st_fn_info[c->fn], rc);
	else
		st_leave(c, rc);
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
