/*
 * pmpi/bytes.c: the bytes one rank sends and receives in one call.
 * The rule is the "buffer view": bytes sent are the bytes the operation
 * reads from this rank's send arguments that the MPI standard says are
 * significant at this rank, bytes received the bytes it writes into this
 * rank's receive buffer.  So a broadcast root sends its buffer once, not
 * once per receiver, and a gather root receives p blocks, its own
 * included.  With MPI_IN_PLACE the rank's contribution lives in the
 * receive buffer; it is counted as sent, with the size the standard gives
 * the in-place block.  README.md, "Byte accounting", has the whole
 * table.
 *
 * Which fields hold what:
 *  - a call with one count and one datatype (Bcast, Reduce, Allreduce,
 *    Scan, Exscan, Send, Recv, Sendrecv_replace) gives them in
 *    'scount'/'stype', or in 'rcount'/'rtype' when 'stype' is NULL;
 *  - Reduce_scatter_block's recvcount is 'rcount', Reduce_scatter's
 *    recvcounts 'rcounts'; their datatype is 'stype' (or 'rtype');
 *  - every other argument goes where its name says.
 *
 * Significance: datatype sizes are asked for, and count arrays read,
 * only where the standard makes them significant at this rank (gather:
 * the receive side only at the root; scatter: the send side only at the
 * root; never the send side under MPI_IN_PLACE; nothing at all on the
 * MPI_PROC_NULL side of an inter-communicator rooted call), since the
 * application may pass garbage anywhere else.
 *
 * One-sided calls count the origin side: a Put or Accumulate sends origin
 * count * size, a Get receives it, Get_accumulate both (its result side
 * in 'rcount'/'rtype'); Fetch_and_op and Compare_and_swap move single
 * elements of their one datatype.  (MPI_NO_OP and MPI_PROC_NULL, which
 * move nothing, are the interposer's to apply.)  File reads and writes
 * count as receives and sends; partitioned inits the whole buffer,
 * 'partitions' times the count.
 *
 * Arithmetic is uint64 and saturates at UINT64_MAX; negative counts count
 * as zero.
 */
#include <errno.h>

#include "pmpi/bytes.h"
#include "writer/event.h"
#include "writer/fn-info.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t count_val(int64_t n)
{
	return n < 0 ? 0 : (uint64_t)n;
}

static uint64_t group_val(int n)
{
	return n < 0 ? 0 : (uint64_t)n;
}

/* Entry 'i' of the count array 'counts' (int or int64_t by 'x'). */
static uint64_t count_at(const struct st_xfer *x, const void *counts,
			 size_t i)
{
	if (!counts)
		return 0;
	if (x->counts_64)
		return count_val(((const int64_t *)counts)[i]);
	return count_val(((const int *)counts)[i]);
}

static uint64_t count_sum(const struct st_xfer *x, const void *counts,
			  uint64_t n)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum = add_sat(sum, count_at(x, counts, i));
	return sum;
}

/* Size of handle 'i' of 'types'; only call for significant handles. */
static uint64_t tsize(const struct st_xfer *x, const void *types, size_t i)
{
	if (!types || !x->type_size)
		return 0;
	return x->type_size(x->ctx, types, i);
}

/* count * size of the single datatype, send or receive side. */
static uint64_t send_block(const struct st_xfer *x)
{
	return mul_sat(count_val(x->scount), tsize(x, x->stype, 0));
}

static uint64_t recv_block(const struct st_xfer *x)
{
	return mul_sat(count_val(x->rcount), tsize(x, x->rtype, 0));
}

/* The datatype of a call with one datatype (see the file comment). */
static const void *one_type(const struct st_xfer *x)
{
	return x->stype ? x->stype : x->rtype;
}

/* count * size for a call with one count and one datatype. */
static uint64_t one_block(const struct st_xfer *x)
{
	int64_t n = x->stype ? x->scount : x->rcount;

	return mul_sat(count_val(n), tsize(x, one_type(x), 0));
}

/* sum over i < n of counts[i] * size(types[i]), skipping empty entries. */
static uint64_t w_sum(const struct st_xfer *x, const void *counts,
		      const void *types, uint64_t n)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t k = count_at(x, counts, i);

		if (k)
			sum = add_sat(sum, mul_sat(k, tsize(x, types, i)));
	}
	return sum;
}

/* Entry 'rank' of an array of 'n' counts, 0 when out of range. */
static uint64_t count_own(const struct st_xfer *x, const void *counts,
			  int rank, uint64_t n)
{
	if (rank < 0 || (uint64_t)rank >= n)
		return 0;
	return count_at(x, counts, rank);
}

/*
 * Which side of a rooted call this rank is on.  Intra-communicator: the
 * root or not.  Inter-communicator: ST_RANK_ROOT is the root,
 * ST_RANK_PROC_NULL the rest of the root's group, any rank the remote
 * (receiving or contributing) group.
 */
enum side { SIDE_ROOT, SIDE_OTHER, SIDE_NONE };

static enum side rooted_side(const struct st_xfer *x,
			     const struct st_xfer_comm *c)
{
	if (c->remote_size > 0) {
		if (x->root == ST_RANK_ROOT)
			return SIDE_ROOT;
		if (x->root == ST_RANK_PROC_NULL)
			return SIDE_NONE;
		return x->root >= 0 ? SIDE_OTHER : SIDE_NONE;
	}
	return x->root == c->rank ? SIDE_ROOT : SIDE_OTHER;
}

/*
 * The rooted classes.  'n' is the number of blocks at the root: the
 * local group size p, or the remote size q on an inter-communicator,
 * where MPI_IN_PLACE does not exist and the root contributes nothing.
 */
static void bytes_rooted(const struct st_xfer *x,
			 const struct st_xfer_comm *c, uint64_t n,
			 uint64_t *s, uint64_t *r)
{
	enum side side = rooted_side(x, c);
	int inter = c->remote_size > 0;

	if (side == SIDE_NONE)
		return;
	switch (x->cls) {
	case ST_BYTES_BCAST:
		if (side == SIDE_ROOT)
			*s = one_block(x);
		else
			*r = one_block(x);
		break;
	case ST_BYTES_REDUCE:
		if (side == SIDE_ROOT) {
			*r = one_block(x);
			*s = inter ? 0 : *r;
		} else {
			*s = one_block(x);
		}
		break;
	case ST_BYTES_GATHER:
		if (side == SIDE_OTHER) {
			*s = x->send_in_place ? 0 : send_block(x);
			break;
		}
		*r = mul_sat(n, recv_block(x));
		if (!inter)
			*s = x->send_in_place ? recv_block(x) : send_block(x);
		break;
	case ST_BYTES_GATHERV:
		if (side == SIDE_OTHER) {
			*s = x->send_in_place ? 0 : send_block(x);
			break;
		}
		*r = mul_sat(count_sum(x, x->rcounts, n),
			     tsize(x, x->rtype, 0));
		if (inter)
			break;
		if (x->send_in_place)
			*s = mul_sat(count_own(x, x->rcounts, c->rank, n),
				     tsize(x, x->rtype, 0));
		else
			*s = send_block(x);
		break;
	case ST_BYTES_SCATTER:
		if (side == SIDE_OTHER) {
			*r = x->recv_in_place ? 0 : recv_block(x);
			break;
		}
		*s = mul_sat(n, send_block(x));
		if (!inter)
			*r = x->recv_in_place ? send_block(x) : recv_block(x);
		break;
	case ST_BYTES_SCATTERV:
		if (side == SIDE_OTHER) {
			*r = x->recv_in_place ? 0 : recv_block(x);
			break;
		}
		*s = mul_sat(count_sum(x, x->scounts, n),
			     tsize(x, x->stype, 0));
		if (inter)
			break;
		if (x->recv_in_place)
			*r = mul_sat(count_own(x, x->scounts, c->rank, n),
				     tsize(x, x->stype, 0));
		else
			*r = recv_block(x);
		break;
	}
}

/*
 * The all-to-all-like classes.  'n' is the number of blocks each side
 * has: p on an intra-communicator, q on an inter-communicator.
 */
static void bytes_all(const struct st_xfer *x, const struct st_xfer_comm *c,
		      uint64_t n, uint64_t *s, uint64_t *r)
{
	uint64_t size;

	switch (x->cls) {
	case ST_BYTES_ALLGATHER:
		*r = mul_sat(n, recv_block(x));
		*s = x->send_in_place ? recv_block(x) : send_block(x);
		break;
	case ST_BYTES_ALLGATHERV:
		size = tsize(x, x->rtype, 0);
		*r = mul_sat(count_sum(x, x->rcounts, n), size);
		if (x->send_in_place)
			*s = mul_sat(count_own(x, x->rcounts, c->rank, n),
				     size);
		else
			*s = send_block(x);
		break;
	case ST_BYTES_ALLTOALL:
		*r = mul_sat(n, recv_block(x));
		*s = x->send_in_place ? *r : mul_sat(n, send_block(x));
		break;
	case ST_BYTES_ALLTOALLV:
		*r = mul_sat(count_sum(x, x->rcounts, n),
			     tsize(x, x->rtype, 0));
		if (x->send_in_place)
			*s = *r;
		else
			*s = mul_sat(count_sum(x, x->scounts, n),
				     tsize(x, x->stype, 0));
		break;
	case ST_BYTES_ALLTOALLW:
		*r = w_sum(x, x->rcounts, x->rtypes, n);
		*s = x->send_in_place ? *r
				      : w_sum(x, x->scounts, x->stypes, n);
		break;
	}
}

/*
 * Neighbourhood classes: 'indegree' and 'outdegree' exclude MPI_PROC_NULL
 * neighbours, and the v/w sums run over the first 'indegree' (receive) or
 * 'outdegree' (send) entries of the count arrays.  That is exact for
 * graph and dist-graph topologies and for Cartesian ones without
 * MPI_PROC_NULL neighbours (periodic in every dimension); on a Cartesian
 * topology with a non-periodic boundary the arrays also hold entries for
 * the MPI_PROC_NULL neighbours, and the sums then cover the wrong
 * entries.  MPI_IN_PLACE is not allowed here, so it sends nothing.
 */
static void bytes_nbr(const struct st_xfer *x, const struct st_xfer_comm *c,
		      uint64_t *s, uint64_t *r)
{
	uint64_t in = group_val(c->indegree), out = group_val(c->outdegree);
	int send = !x->send_in_place && out > 0;

	switch (x->cls) {
	case ST_BYTES_NBR_ALLGATHER:
		*s = send ? mul_sat(out, send_block(x)) : 0;
		*r = in ? mul_sat(in, recv_block(x)) : 0;
		break;
	case ST_BYTES_NBR_ALLGATHERV:
		*s = send ? mul_sat(out, send_block(x)) : 0;
		*r = in ? mul_sat(count_sum(x, x->rcounts, in),
				  tsize(x, x->rtype, 0)) : 0;
		break;
	case ST_BYTES_NBR_ALLTOALL:
		*s = send ? mul_sat(out, send_block(x)) : 0;
		*r = in ? mul_sat(in, recv_block(x)) : 0;
		break;
	case ST_BYTES_NBR_ALLTOALLV:
		*s = send ? mul_sat(count_sum(x, x->scounts, out),
				    tsize(x, x->stype, 0)) : 0;
		*r = in ? mul_sat(count_sum(x, x->rcounts, in),
				  tsize(x, x->rtype, 0)) : 0;
		break;
	case ST_BYTES_NBR_ALLTOALLW:
		*s = send ? w_sum(x, x->scounts, x->stypes, out) : 0;
		*r = w_sum(x, x->rcounts, x->rtypes, in);
		break;
	}
}

/*
 * Point-to-point receives count what the status reports; when it is
 * unknown (negative), the receive buffer's size is the upper bound.
 */
static int have_status(const struct st_xfer *x)
{
	return x->status_bytes >= 0;
}

int st_bytes(const struct st_xfer *x, const struct st_xfer_comm *c,
	     uint64_t *sbytes, uint64_t *rbytes)
{
	uint64_t p = group_val(c->size), q = group_val(c->remote_size);
	uint64_t n = q ? q : p;	/* blocks of the all-to-all classes */
	uint64_t s = 0, r = 0, size;

	switch (x->cls) {
	case ST_BYTES_NONE:
	case ST_BYTES_BARRIER:
		break;
	case ST_BYTES_BCAST:
	case ST_BYTES_REDUCE:
	case ST_BYTES_GATHER:
	case ST_BYTES_GATHERV:
	case ST_BYTES_SCATTER:
	case ST_BYTES_SCATTERV:
		bytes_rooted(x, c, n, &s, &r);
		break;
	case ST_BYTES_ALLGATHER:
	case ST_BYTES_ALLGATHERV:
	case ST_BYTES_ALLTOALL:
	case ST_BYTES_ALLTOALLV:
	case ST_BYTES_ALLTOALLW:
		bytes_all(x, c, n, &s, &r);
		break;
	case ST_BYTES_ALLREDUCE:
	case ST_BYTES_SCAN:
		s = r = one_block(x);
		break;
	case ST_BYTES_REDUCE_SCATTER:
		/*
		 * Also on an inter-communicator, each group gives vectors
		 * of sum(recvcounts) elements over its own p ranks, and
		 * receives its block of the other group's reduction.
		 */
		size = tsize(x, one_type(x), 0);
		s = mul_sat(count_sum(x, x->rcounts, p), size);
		r = mul_sat(count_own(x, x->rcounts, c->rank, p), size);
		break;
	case ST_BYTES_REDUCE_SCATTER_BLOCK:
		/* Inter-communicator: p * recvcount elements, as above. */
		r = mul_sat(count_val(x->rcount), tsize(x, one_type(x), 0));
		s = mul_sat(p, r);
		break;
	case ST_BYTES_NBR_ALLGATHER:
	case ST_BYTES_NBR_ALLGATHERV:
	case ST_BYTES_NBR_ALLTOALL:
	case ST_BYTES_NBR_ALLTOALLV:
	case ST_BYTES_NBR_ALLTOALLW:
		bytes_nbr(x, c, &s, &r);
		break;
	case ST_BYTES_SEND:
		s = one_block(x);
		break;
	case ST_BYTES_RECV:
		r = have_status(x) ? (uint64_t)x->status_bytes : one_block(x);
		break;
	case ST_BYTES_SENDRECV:
		s = send_block(x);
		r = have_status(x) ? (uint64_t)x->status_bytes : recv_block(x);
		break;
	case ST_BYTES_SENDRECV_REPLACE:
		s = one_block(x);
		r = have_status(x) ? (uint64_t)x->status_bytes : s;
		break;
	case ST_BYTES_PUT:
	case ST_BYTES_ACC:
	case ST_BYTES_WRITE:
		s = send_block(x);
		break;
	case ST_BYTES_GET:
		r = recv_block(x);
		break;
	case ST_BYTES_GET_ACC:
		s = send_block(x);
		r = recv_block(x);
		break;
	case ST_BYTES_FETCH_OP:
		s = r = tsize(x, one_type(x), 0);
		break;
	case ST_BYTES_CAS:
		r = tsize(x, one_type(x), 0);
		s = mul_sat(2, r);
		break;
	case ST_BYTES_READ:
		r = have_status(x) ? (uint64_t)x->status_bytes : recv_block(x);
		break;
	case ST_BYTES_PSEND:
		s = mul_sat(count_val(x->partitions), send_block(x));
		break;
	case ST_BYTES_PRECV:
		r = mul_sat(count_val(x->partitions), recv_block(x));
		break;
	case ST_BYTES_PREADY:
	case ST_BYTES_PARRIVED:
		break;		/* from the request: pmpi/part.c */
	default:
		*sbytes = *rbytes = 0;
		return -EINVAL;
	}
	*sbytes = s;
	*rbytes = r;
	return 0;
}
