/*
 * tools/bench/micro-run.c: one measurement of "synctrace-bench micro"
 * and its records.  The calls are made as an application makes them,
 * through MPI_ (so a PMPI tool under the benchmark would see them), with
 * the clock read right before and right after each; everything that is
 * not the call (counts, displacements, bytes) is worked out before the
 * measurement's start or after its end.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/bench/micro-run.h"
#include "tools/bench/mpi-transport.h"
#include "writer/event.h"

#define TAG_PINGPONG ST_MICRO_TAG_PINGPONG
#define TAG_SENDRECV ST_MICRO_TAG_SENDRECV
#define TAG_BURST ST_MICRO_TAG_BURST
#define TAG_LATE ST_MICRO_TAG_LATE

void st_micro_buffers(int op, int size, size_t n, size_t *sbytes,
		      size_t *rbytes)
{
	size_t p = (size_t)size;

	*sbytes = *rbytes = n;
	switch (op) {
	case ST_MICRO_ALLGATHER:
	case ST_MICRO_ALLGATHERV:
	case ST_MICRO_GATHER:
	case ST_MICRO_GATHERV:
		*rbytes = p * n;
		break;
	case ST_MICRO_ALLTOALL:
	case ST_MICRO_ALLTOALLV:
	case ST_MICRO_ALLTOALLW:
		*sbytes = *rbytes = p * n;
		break;
	case ST_MICRO_SCATTER:
	case ST_MICRO_SCATTERV:
	case ST_MICRO_REDUCE_SCATTER:
	case ST_MICRO_REDUCE_SCATTER_BLOCK:
		*sbytes = p * n;
		break;
	case ST_MICRO_BARRIER:
		*sbytes = *rbytes = 0;
		break;
	case ST_MICRO_BURST1:
	case ST_MICRO_BURST2:
	case ST_MICRO_BURST4:
	case ST_MICRO_BURST8:
		/* Each message of a burst has its own buffer. */
		*sbytes = *rbytes = (size_t)st_micro_burst_k(op) * n;
		break;
	case ST_MICRO_XBUSY2:
	case ST_MICRO_XBUSY4:
	case ST_MICRO_XBUSY8:
		*sbytes = *rbytes = (size_t)st_micro_xbusy_k(op) * n;
		break;
	}
}

int st_micro_ctx_init(struct st_micro_ctx *c, MPI_Comm comm,
		      const struct st_mpi_transport *clock, unsigned mask,
		      size_t max_n)
{
	size_t sb = 1, rb = 1, s, r;
	int op, i;

	memset(c, 0, sizeof(*c));
	c->comm = comm;
	c->clock = clock;
	c->prepared_n = SIZE_MAX;
	MPI_Comm_rank(comm, &c->rank);
	MPI_Comm_size(comm, &c->size);
	c->partner = (c->rank ^ 1) < c->size ? c->rank ^ 1 : -1;
	if (max_n > (size_t)INT_MAX / (size_t)c->size)
		return -EOVERFLOW;
	for (op = 0; op < ST_MICRO_NOPS; op++) {
		if (!(mask & (1u << op)))
			continue;
		st_micro_buffers(op, c->size, max_n, &s, &r);
		if (s > sb)
			sb = s;
		if (r > rb)
			rb = r;
	}
	c->sbuf = malloc(sb);
	c->rbuf = malloc(rb);
	c->scounts = malloc((size_t)c->size * 4 * sizeof(int));
	c->types = malloc((size_t)c->size * sizeof(MPI_Datatype));
	if (!c->sbuf || !c->rbuf || !c->scounts || !c->types) {
		st_micro_ctx_release(c);
		return -ENOMEM;
	}
	c->sdispls = c->scounts + c->size;
	c->rcounts = c->sdispls + c->size;
	c->rdispls = c->rcounts + c->size;
	for (i = 0; i < c->size; i++)
		c->types[i] = MPI_BYTE;
	/* Touch every page now, not inside the first measurements. */
	memset(c->sbuf, c->rank + 1, sb);
	memset(c->rbuf, 0, rb);
	c->sbuf_bytes = sb;
	c->rbuf_bytes = rb;
	return 0;
}

void st_micro_ctx_release(struct st_micro_ctx *c)
{
	free(c->sbuf);
	free(c->rbuf);
	free(c->scounts);
	free(c->types);
	c->sbuf = c->rbuf = NULL;
	c->scounts = c->sdispls = c->rcounts = c->rdispls = NULL;
	c->types = NULL;
}

void st_micro_fresh(struct st_micro_ctx *c, int op, size_t n)
{
	size_t sb, rb;

	st_micro_buffers(op, c->size, n, &sb, &rb);
	if (sb > c->sbuf_bytes)
		sb = c->sbuf_bytes;
	memset(c->sbuf, ++c->fresh & 0x7f, sb);
}

void st_micro_prepare(struct st_micro_ctx *c, size_t n)
{
	int i;

	if (c->prepared_n == n)
		return;
	for (i = 0; i < c->size; i++) {
		c->scounts[i] = c->rcounts[i] = (int)n;
		c->sdispls[i] = c->rdispls[i] = i * (int)n;
	}
	c->prepared_n = n;
}

static inline uint64_t now(const struct st_micro_ctx *c)
{
	return st_mpi_transport_now(c->clock);
}

/* Spin on the clock for 'ns' (computing, outside MPI); how long it took. */
static uint64_t spin_ns(const struct st_micro_ctx *c, uint64_t ns)
{
	uint64_t t = now(c);

	while (now(c) - t < ns)
		;
	return now(c) - t;
}

/* Call number 'k' of 's': the clock, 'call', the clock. */
#define TIMED(k, call) \
	do { \
		s->t0[k] = now(c); \
		s->rc[k] = (call); \
		s->t1[k] = now(c); \
	} while (0)

/*
 * Yield mode (c->yield, SYNCTRACE_YIELD=1 in the benchmark's
 * environment): a blocking call is made as the interposer makes it in a
 * traced run with SYNCTRACE_YIELD=1 (pmpi/hooks.h, ST_YIELDABLE): its
 * nonblocking twin, then MPI_Test with sched_yield() between tests,
 * so that the table holds what those calls cost where the application
 * runs in yield mode.  Calls without a twin there (MPI_Sendrecv,
 * MPI_Waitall) are made as they are.
 */
static int yield_wait(int rc, MPI_Request *req, MPI_Status *st)
{
	int flag = 0;

	if (rc != MPI_SUCCESS)
		return rc;
	for (;;) {
		rc = MPI_Test(req, &flag, st);
		if (rc != MPI_SUCCESS || flag)
			return rc;
		sched_yield();
	}
}

/* Call 'k': 'blocking', or in yield mode 'twin' (storing its request
 * in 'yreq') completed by yield_wait() with status 'st'. */
#define YTIMED(k, blocking, twin, st) \
	do { \
		if (c->yield) \
			TIMED(k, yield_wait((twin), &yreq, (st))); \
		else \
			TIMED(k, blocking); \
	} while (0)

/*
 * Whether this rank sends in call 's' of a one-way pattern (burstK,
 * late, sbusy, rbusy): the even rank of the pair, but the odd one in
 * every other call of the pattern (s->swap), so that a table row holds
 * both directions.  One direction of a pair can cost more than the
 * other for a whole launch, and an application sends both ways.  In
 * the other patterns (swap 0), whether the rank is the even one.
 */
static int sends(const struct st_micro_ctx *c,
		 const struct st_micro_stamps *s)
{
	return (c->rank % 2 == 0) != (s->swap != 0);
}

/* Whether 'op' sends one way only: burstK, late, sbusy, rbusy. */
static int one_way(int op)
{
	return st_micro_burst_k(op) || op == ST_MICRO_LATE ||
	       st_micro_busy(op);
}

static void p2p(struct st_micro_ctx *c, int op, int n, int tag,
		struct st_micro_stamps *s)
{
	MPI_Status st[2];
	MPI_Request yreq;
	int got, k;

	if (c->partner < 0)
		return;
	if (op == ST_MICRO_SENDRECV) {
		s->ncalls = 1;
		TIMED(0, MPI_Sendrecv(c->sbuf, n, MPI_BYTE, c->partner,
				      TAG_SENDRECV, c->rbuf, n, MPI_BYTE,
				      c->partner, TAG_SENDRECV, c->comm,
				      &st[0]));
	} else if (c->rank % 2 == 0) {
		s->ncalls = 2;
		YTIMED(0, MPI_Send(c->sbuf, n, MPI_BYTE, c->partner,
				   tag, c->comm),
		       MPI_Isend(c->sbuf, n, MPI_BYTE, c->partner,
				 tag, c->comm, &yreq),
		       MPI_STATUS_IGNORE);
		YTIMED(1, MPI_Recv(c->rbuf, n, MPI_BYTE, c->partner,
				   tag, c->comm, &st[1]),
		       MPI_Irecv(c->rbuf, n, MPI_BYTE, c->partner,
				 tag, c->comm, &yreq),
		       &st[1]);
	} else {
		s->ncalls = 2;
		YTIMED(0, MPI_Recv(c->rbuf, n, MPI_BYTE, c->partner,
				   tag, c->comm, &st[0]),
		       MPI_Irecv(c->rbuf, n, MPI_BYTE, c->partner,
				 tag, c->comm, &yreq),
		       &st[0]);
		YTIMED(1, MPI_Send(c->sbuf, n, MPI_BYTE, c->partner,
				   tag, c->comm),
		       MPI_Isend(c->sbuf, n, MPI_BYTE, c->partner,
				 tag, c->comm, &yreq),
		       MPI_STATUS_IGNORE);
	}
	/* After the last clock read: bytes as the status says. */
	for (k = 0; k < 2 && k < s->ncalls; k++) {
		int recv = op == ST_MICRO_SENDRECV ||
			   (c->rank % 2) == (k == 0);

		if (recv && MPI_Get_count(&st[k], MPI_BYTE, &got) ==
			    MPI_SUCCESS && got != MPI_UNDEFINED)
			s->rbytes[k] = got;
	}
}

/*
 * burstK: K messages at once from the even rank to the odd one, each
 * from (into) its own part of the buffer; the receives are posted
 * first.
 */
static void burst(struct st_micro_ctx *c, int k, int n,
		  struct st_micro_stamps *s)
{
	MPI_Request rq[8];
	MPI_Status st[8];
	size_t at = (size_t)n;
	int i, got, send = sends(c, s);

	if (c->partner < 0)
		return;
	s->ncalls = k + 1;
	for (i = 0; i < k; i++) {
		if (send)
			TIMED(i, MPI_Isend(c->sbuf + at * (size_t)i, n,
					   MPI_BYTE, c->partner, TAG_BURST,
					   c->comm, &rq[i]));
		else
			TIMED(i, MPI_Irecv(c->rbuf + at * (size_t)i, n,
					   MPI_BYTE, c->partner, TAG_BURST,
					   c->comm, &rq[i]));
	}
	TIMED(k, MPI_Waitall(k, rq, st));
	for (i = 0; !send && i < k; i++)
		if (MPI_Get_count(&st[i], MPI_BYTE, &got) == MPI_SUCCESS &&
		    got != MPI_UNDEFINED)
			s->rbytes[i] = got;
}

/*
 * late: the sender (sends()) sends at once; the other rank waits
 * ST_MICRO_LATE_NS(n), busy, then receives.
 */
static void late(struct st_micro_ctx *c, int n, struct st_micro_stamps *s)
{
	MPI_Status st;
	MPI_Request yreq;
	int got;

	if (c->partner < 0)
		return;
	s->ncalls = 1;
	if (sends(c, s)) {
		YTIMED(0, MPI_Send(c->sbuf, n, MPI_BYTE, c->partner, TAG_LATE,
				   c->comm),
		       MPI_Isend(c->sbuf, n, MPI_BYTE, c->partner, TAG_LATE,
				 c->comm, &yreq),
		       MPI_STATUS_IGNORE);
		return;
	}
	s->delay_ns = spin_ns(c, (uint64_t)ST_MICRO_LATE_NS(n));
	YTIMED(0, MPI_Recv(c->rbuf, n, MPI_BYTE, c->partner, TAG_LATE,
			   c->comm, &st),
	       MPI_Irecv(c->rbuf, n, MPI_BYTE, c->partner, TAG_LATE, c->comm,
			 &yreq),
	       &st);
	if (MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS &&
	    got != MPI_UNDEFINED)
		s->rbytes[0] = got;
}

/*
 * sbusy, rbusy: the even rank sends one message to the odd one
 * (MPI_Isend, then MPI_Wait), which receives it (MPI_Irecv, then
 * MPI_Wait); the sender (sbusy) or the receiver (rbusy) spins on the
 * clock for ST_MICRO_LATE_NS(n) between its two calls.  Recorded as a
 * burst of one (calls 0 and 1: the I-call and its MPI_Wait).
 */
static void busy(struct st_micro_ctx *c, int op, int n,
		 struct st_micro_stamps *s)
{
	MPI_Request rq;
	MPI_Status st;
	int send = sends(c, s), got;
	int tag = op == ST_MICRO_SBUSY ? ST_MICRO_TAG_SBUSY :
		  ST_MICRO_TAG_RBUSY;

	if (c->partner < 0)
		return;
	s->ncalls = 2;
	if (send)
		TIMED(0, MPI_Isend(c->sbuf, n, MPI_BYTE, c->partner, tag,
				   c->comm, &rq));
	else
		TIMED(0, MPI_Irecv(c->rbuf, n, MPI_BYTE, c->partner, tag,
				   c->comm, &rq));
	if (send == (op == ST_MICRO_SBUSY))
		spin_ns(c, (uint64_t)ST_MICRO_LATE_NS(n));
	TIMED(1, MPI_Wait(&rq, &st));
	if (!send && MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS &&
	    got != MPI_UNDEFINED)
		s->rbytes[0] = got;
}

/*
 * xbusy, xbusyK: both ranks post K MPI_Irecv, then K MPI_Isend, to each
 * other, each message in its own part of the buffers, spin on the clock
 * for ST_MICRO_LATE_NS(n), then MPI_Waitall (calls 0 to 2K).
 */
static void xbusy(struct st_micro_ctx *c, int k, int n,
		  struct st_micro_stamps *s)
{
	MPI_Request rq[16];
	MPI_Status st[16];
	size_t at = (size_t)n;
	int i, got;

	if (c->partner < 0)
		return;
	s->ncalls = 2 * k + 1;
	for (i = 0; i < k; i++)
		TIMED(i, MPI_Irecv(c->rbuf + (size_t)i * at, n, MPI_BYTE,
				   c->partner, ST_MICRO_TAG_XBUSY, c->comm,
				   &rq[i]));
	for (i = 0; i < k; i++)
		TIMED(k + i, MPI_Isend(c->sbuf + (size_t)i * at, n, MPI_BYTE,
				       c->partner, ST_MICRO_TAG_XBUSY,
				       c->comm, &rq[k + i]));
	spin_ns(c, (uint64_t)ST_MICRO_LATE_NS(n));
	TIMED(2 * k, MPI_Waitall(2 * k, rq, st));
	for (i = 0; i < k; i++)
		if (MPI_Get_count(&st[i], MPI_BYTE, &got) == MPI_SUCCESS &&
		    got != MPI_UNDEFINED)
			s->rbytes[i] = got;
}

/*
 * Record 'r' of an exchange of 'k' each way: the K MPI_Irecv (requests
 * 1 to K), the K MPI_Isend (K + 1 to 2K), the DONE records of the 2K,
 * then the MPI_Waitall.
 */
static void xbusy_event(const struct st_micro_ctx *c, int k, size_t n,
			const struct st_micro_stamps *s, int r,
			struct st_event *ev)
{
	int call = r < 2 * k ? r : 2 * k, req = r < 2 * k ? r : r - 2 * k;

	ev->kind = r >= 2 * k && r < 4 * k ? ST_REC_DONE : ST_REC_CALL;
	ev->fn = (uint16_t)(r < k ? ST_FN_MPI_IRECV : r < 2 * k ?
			    ST_FN_MPI_ISEND : ST_FN_MPI_WAITALL);
	ev->t0 = s->t0[call];
	ev->t1 = s->t1[call];
	ev->rc = s->rc[call];
	ev->sbytes = ev->rbytes = 0;
	if (r == 4 * k)
		return;
	ev->req = (uint64_t)req + 1;
	ev->peer = c->partner;
	ev->tag = ST_MICRO_TAG_XBUSY;
	if (req >= k)
		ev->sbytes = n;
	else if (r >= 2 * k)
		ev->rbytes = s->rbytes[req] >= 0 ? (uint64_t)s->rbytes[req] :
			     n;
}

void st_micro_warm(struct st_micro_ctx *c, int op, size_t n)
{
	struct st_micro_stamps w;
	unsigned turn = c->turns[op];

	st_micro_call(c, op, n, &w);
	c->turns[op] = turn;
}

void st_micro_call(struct st_micro_ctx *c, int op, size_t nbytes,
		   struct st_micro_stamps *s)
{
	int n = (int)nbytes, i;
	MPI_Request yreq;
	char *sb = c->sbuf, *rb = c->rbuf;
	MPI_Comm comm = c->comm;

	/* A pattern sets its count once it has a partner: 0 until then. */
	s->ncalls = op >= 0 && op < ST_MICRO_P2P_FIRST;
	s->delay_ns = 0;
	/* Both ranks of a pair make the same calls: they agree on it. */
	s->swap = one_way(op) ? (int)(c->turns[op]++ & 1u) : 0;
	for (i = 0; i < ST_MICRO_MAX_CALLS; i++) {
		s->rc[i] = 0;
		s->rbytes[i] = -1;
		if (i) {
			s->t0[i] = s->t1[i] = 0;
		}
	}
	switch (op) {
	case ST_MICRO_ALLGATHER:
		YTIMED(0, MPI_Allgather(sb, n, MPI_BYTE, rb, n, MPI_BYTE,
				       comm),
		       MPI_Iallgather(sb, n, MPI_BYTE, rb, n, MPI_BYTE,
				       comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_ALLGATHERV:
		YTIMED(0, MPI_Allgatherv(sb, n, MPI_BYTE, rb, c->rcounts,
					c->rdispls, MPI_BYTE, comm),
		       MPI_Iallgatherv(sb, n, MPI_BYTE, rb, c->rcounts,
					c->rdispls, MPI_BYTE, comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_ALLREDUCE:
		YTIMED(0, MPI_Allreduce(sb, rb, n, MPI_UINT8_T, MPI_SUM,
				       comm),
		       MPI_Iallreduce(sb, rb, n, MPI_UINT8_T, MPI_SUM,
				       comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_ALLTOALL:
		YTIMED(0, MPI_Alltoall(sb, n, MPI_BYTE, rb, n, MPI_BYTE, comm),
		       MPI_Ialltoall(sb, n, MPI_BYTE, rb, n, MPI_BYTE, comm,
				     &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_ALLTOALLV:
		YTIMED(0, MPI_Alltoallv(sb, c->scounts, c->sdispls, MPI_BYTE,
				       rb, c->rcounts, c->rdispls, MPI_BYTE,
				       comm),
		       MPI_Ialltoallv(sb, c->scounts, c->sdispls, MPI_BYTE,
				       rb, c->rcounts, c->rdispls, MPI_BYTE,
				       comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_ALLTOALLW:
		/* Displacements in bytes, which they are for MPI_BYTE. */
		YTIMED(0, MPI_Alltoallw(sb, c->scounts, c->sdispls, c->types,
				       rb, c->rcounts, c->rdispls, c->types,
				       comm),
		       MPI_Ialltoallw(sb, c->scounts, c->sdispls, c->types,
				       rb, c->rcounts, c->rdispls, c->types,
				       comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_BARRIER:
		YTIMED(0, MPI_Barrier(comm),
		       MPI_Ibarrier(comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_BCAST:
		YTIMED(0, MPI_Bcast(c->rank ? rb : sb, n, MPI_BYTE, 0, comm),
		       MPI_Ibcast(c->rank ? rb : sb, n, MPI_BYTE, 0, comm,
				  &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_EXSCAN:
		YTIMED(0, MPI_Exscan(sb, rb, n, MPI_UINT8_T, MPI_SUM, comm),
		       MPI_Iexscan(sb, rb, n, MPI_UINT8_T, MPI_SUM, comm,
				   &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_GATHER:
		YTIMED(0, MPI_Gather(sb, n, MPI_BYTE, rb, n, MPI_BYTE, 0,
				    comm),
		       MPI_Igather(sb, n, MPI_BYTE, rb, n, MPI_BYTE, 0,
				    comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_GATHERV:
		YTIMED(0, MPI_Gatherv(sb, n, MPI_BYTE, rb, c->rcounts,
				     c->rdispls, MPI_BYTE, 0, comm),
		       MPI_Igatherv(sb, n, MPI_BYTE, rb, c->rcounts,
				     c->rdispls, MPI_BYTE, 0, comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_REDUCE:
		YTIMED(0, MPI_Reduce(sb, rb, n, MPI_UINT8_T, MPI_SUM, 0,
				    comm),
		       MPI_Ireduce(sb, rb, n, MPI_UINT8_T, MPI_SUM, 0,
				    comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_REDUCE_SCATTER:
		YTIMED(0, MPI_Reduce_scatter(sb, rb, c->rcounts, MPI_UINT8_T,
					    MPI_SUM, comm),
		       MPI_Ireduce_scatter(sb, rb, c->rcounts, MPI_UINT8_T,
					    MPI_SUM, comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_REDUCE_SCATTER_BLOCK:
		YTIMED(0, MPI_Reduce_scatter_block(sb, rb, n, MPI_UINT8_T,
						  MPI_SUM, comm),
		       MPI_Ireduce_scatter_block(sb, rb, n, MPI_UINT8_T,
						  MPI_SUM, comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_SCAN:
		YTIMED(0, MPI_Scan(sb, rb, n, MPI_UINT8_T, MPI_SUM, comm),
		       MPI_Iscan(sb, rb, n, MPI_UINT8_T, MPI_SUM, comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_SCATTER:
		YTIMED(0, MPI_Scatter(sb, n, MPI_BYTE, rb, n, MPI_BYTE, 0,
				     comm),
		       MPI_Iscatter(sb, n, MPI_BYTE, rb, n, MPI_BYTE, 0,
				     comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_SCATTERV:
		YTIMED(0, MPI_Scatterv(sb, c->scounts, c->sdispls, MPI_BYTE,
				      rb, n, MPI_BYTE, 0, comm),
		       MPI_Iscatterv(sb, c->scounts, c->sdispls, MPI_BYTE,
				      rb, n, MPI_BYTE, 0, comm, &yreq),
		       MPI_STATUS_IGNORE);
		break;
	case ST_MICRO_PINGPONG:
	case ST_MICRO_SENDRECV:
		p2p(c, op, n, op == ST_MICRO_PINGPONG && c->start ?
		    ST_MICRO_TAG_START : TAG_PINGPONG, s);
		break;
	case ST_MICRO_BURST1:
	case ST_MICRO_BURST2:
	case ST_MICRO_BURST4:
	case ST_MICRO_BURST8:
		burst(c, st_micro_burst_k(op), n, s);
		break;
	case ST_MICRO_LATE:
		late(c, n, s);
		break;
	case ST_MICRO_SBUSY:
	case ST_MICRO_RBUSY:
		busy(c, op, n, s);
		break;
	case ST_MICRO_XBUSY:
	case ST_MICRO_XBUSY2:
	case ST_MICRO_XBUSY4:
	case ST_MICRO_XBUSY8:
		xbusy(c, st_micro_xbusy_k(op), n, s);
		break;
	default:
		break;
	}
}

/* Function id of call 'k' of 'op' on a rank that sends or not (sends()). */
static int fn_of(int op, int send, int k)
{
	static const int ids[] = {
		[ST_MICRO_ALLGATHER] = ST_FN_MPI_ALLGATHER,
		[ST_MICRO_ALLGATHERV] = ST_FN_MPI_ALLGATHERV,
		[ST_MICRO_ALLREDUCE] = ST_FN_MPI_ALLREDUCE,
		[ST_MICRO_ALLTOALL] = ST_FN_MPI_ALLTOALL,
		[ST_MICRO_ALLTOALLV] = ST_FN_MPI_ALLTOALLV,
		[ST_MICRO_ALLTOALLW] = ST_FN_MPI_ALLTOALLW,
		[ST_MICRO_BARRIER] = ST_FN_MPI_BARRIER,
		[ST_MICRO_BCAST] = ST_FN_MPI_BCAST,
		[ST_MICRO_EXSCAN] = ST_FN_MPI_EXSCAN,
		[ST_MICRO_GATHER] = ST_FN_MPI_GATHER,
		[ST_MICRO_GATHERV] = ST_FN_MPI_GATHERV,
		[ST_MICRO_REDUCE] = ST_FN_MPI_REDUCE,
		[ST_MICRO_REDUCE_SCATTER] = ST_FN_MPI_REDUCE_SCATTER,
		[ST_MICRO_REDUCE_SCATTER_BLOCK] =
			ST_FN_MPI_REDUCE_SCATTER_BLOCK,
		[ST_MICRO_SCAN] = ST_FN_MPI_SCAN,
		[ST_MICRO_SCATTER] = ST_FN_MPI_SCATTER,
		[ST_MICRO_SCATTERV] = ST_FN_MPI_SCATTERV,
		[ST_MICRO_PINGPONG] = ST_FN_MPI_SEND,
		[ST_MICRO_SENDRECV] = ST_FN_MPI_SENDRECV,
	};

	int kb = st_micro_burst_k(op);

	if (op == ST_MICRO_PINGPONG)
		return send == (k == 0) ? ST_FN_MPI_SEND : ST_FN_MPI_RECV;
	if (op == ST_MICRO_LATE)
		return send ? ST_FN_MPI_SEND : ST_FN_MPI_RECV;
	if (kb)
		return k == kb ? ST_FN_MPI_WAITALL : send ?
		       ST_FN_MPI_ISEND : ST_FN_MPI_IRECV;
	return op >= 0 && op < ST_MICRO_NOPS && op < ST_MICRO_BURST1 ?
	       ids[op] : ST_FN_NONE;
}

int st_micro_nrecords(int op, const struct st_micro_stamps *s)
{
	return s->ncalls + (s->ncalls ? st_micro_busy(op) ? 1 :
			    st_micro_xbusy_k(op) ? 2 * st_micro_xbusy_k(op) :
			    st_micro_burst_k(op) : 0);
}

/*
 * Record 'k' of a burst of 'kb': calls 0 .. kb - 1 (the I-calls), then
 * the DONE record of each request, then the MPI_Waitall.
 */
static void burst_event(const struct st_micro_ctx *c, int kb, size_t n,
			const struct st_micro_stamps *s, int k, int tag,
			struct st_event *ev)
{
	int send = sends(c, s), call = k < kb ? k : kb;
	int req = k < kb ? k : k - kb;

	ev->kind = k < kb || k == 2 * kb ? ST_REC_CALL : ST_REC_DONE;
	ev->fn = (uint16_t)(k < kb ? (send ? ST_FN_MPI_ISEND :
					     ST_FN_MPI_IRECV) :
			    tag == TAG_BURST ? ST_FN_MPI_WAITALL :
			    ST_FN_MPI_WAIT);
	ev->t0 = s->t0[call];
	ev->t1 = s->t1[call];
	ev->rc = s->rc[call];
	ev->sbytes = ev->rbytes = 0;
	if (k == 2 * kb)
		return;
	ev->req = (uint64_t)req + 1;
	ev->peer = c->partner;
	ev->tag = tag;
	if (send)
		ev->sbytes = n;
	else if (k >= kb)
		ev->rbytes = s->rbytes[req] >= 0 ? (uint64_t)s->rbytes[req] :
			     n;
}

void st_micro_event(const struct st_micro_ctx *c, int op, size_t n,
		    const struct st_micro_stamps *s, int k, uint64_t comm_id,
		    uint64_t seq, struct st_event *ev)
{
	uint64_t p = (uint64_t)c->size, un = n;
	int root0 = c->rank == 0, kb = st_micro_burst_k(op);

	st_event_clear(ev);
	ev->comm = comm_id;
	ev->comm_size = (uint32_t)c->size;
	ev->seq = seq;
	if (kb) {
		ev->tsize = 1;
		burst_event(c, kb, n, s, k, TAG_BURST, ev);
		return;
	}
	if (st_micro_xbusy_k(op)) {
		ev->tsize = 1;
		xbusy_event(c, st_micro_xbusy_k(op), n, s, k, ev);
		return;
	}
	if (st_micro_busy(op)) {
		ev->tsize = 1;
		burst_event(c, 1, n, s, k, op == ST_MICRO_SBUSY ?
			    ST_MICRO_TAG_SBUSY : ST_MICRO_TAG_RBUSY, ev);
		return;
	}
	ev->kind = ST_REC_CALL;
	ev->fn = (uint16_t)fn_of(op, sends(c, s), k);
	ev->t0 = s->t0[k];
	ev->t1 = s->t1[k];
	ev->rc = s->rc[k];
	ev->tsize = op == ST_MICRO_BARRIER ? 0 : 1;
	ev->sbytes = ev->rbytes = un;
	switch (op) {
	case ST_MICRO_ALLGATHER:
	case ST_MICRO_ALLGATHERV:
		ev->rbytes = p * un;
		break;
	case ST_MICRO_ALLTOALL:
	case ST_MICRO_ALLTOALLV:
	case ST_MICRO_ALLTOALLW:
		ev->sbytes = ev->rbytes = p * un;
		break;
	case ST_MICRO_ALLREDUCE:
	case ST_MICRO_EXSCAN:
	case ST_MICRO_SCAN:
		ev->op = ST_OP_SUM;
		break;
	case ST_MICRO_BARRIER:
		ev->sbytes = ev->rbytes = 0;
		break;
	case ST_MICRO_BCAST:
		ev->root = 0;
		ev->sbytes = root0 ? un : 0;
		ev->rbytes = root0 ? 0 : un;
		break;
	case ST_MICRO_GATHER:
	case ST_MICRO_GATHERV:
		ev->root = 0;
		ev->rbytes = root0 ? p * un : 0;
		break;
	case ST_MICRO_REDUCE:
		ev->root = 0;
		ev->op = ST_OP_SUM;
		ev->rbytes = root0 ? un : 0;
		break;
	case ST_MICRO_REDUCE_SCATTER:
	case ST_MICRO_REDUCE_SCATTER_BLOCK:
		ev->op = ST_OP_SUM;
		ev->sbytes = p * un;
		break;
	case ST_MICRO_SCATTER:
	case ST_MICRO_SCATTERV:
		ev->root = 0;
		ev->sbytes = root0 ? p * un : 0;
		break;
	case ST_MICRO_PINGPONG:
		ev->peer = c->partner;
		ev->tag = c->start ? ST_MICRO_TAG_START : TAG_PINGPONG;
		if (ev->fn == ST_FN_MPI_SEND) {
			ev->rbytes = 0;
		} else {
			ev->sbytes = 0;
			if (s->rbytes[k] >= 0)
				ev->rbytes = (uint64_t)s->rbytes[k];
		}
		break;
	case ST_MICRO_SENDRECV:
		ev->peer = ev->peer2 = c->partner;
		ev->tag = ev->tag2 = TAG_SENDRECV;
		if (s->rbytes[k] >= 0)
			ev->rbytes = (uint64_t)s->rbytes[k];
		break;
	case ST_MICRO_LATE:
		ev->peer = c->partner;
		ev->tag = TAG_LATE;
		if (ev->fn == ST_FN_MPI_SEND) {
			ev->rbytes = 0;
		} else {
			ev->sbytes = 0;
			if (s->rbytes[k] >= 0)
				ev->rbytes = (uint64_t)s->rbytes[k];
		}
		break;
	}
}
