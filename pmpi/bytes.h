/*
 * pmpi/bytes.h: the bytes one rank sends and receives in one call, by
 * byte class (writer/fn-info.h).  Free of mpi.h so it is unit-tested
 * without MPI: the interposer fills 'struct st_xfer' from the call's
 * arguments and resolves datatype sizes through a callback, which is
 * asked only for datatypes the MPI standard says are significant at this
 * rank (an insignificant handle may be garbage).
 */
#ifndef ST_PMPI_BYTES_H
#define ST_PMPI_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* The communicator as seen from this rank. */
struct st_xfer_comm {
	int size;		/* local group size */
	int rank;		/* this rank in the local group */
	int remote_size;	/* remote group size; 0 for an intra-communicator */
	int indegree;		/* neighbourhood: sources that are not PROC_NULL */
	int outdegree;		/* neighbourhood: destinations not PROC_NULL */
};

/*
 * The call's arguments, as far as bytes go.  Types are opaque handles;
 * 'type_size(ctx, types, i)' returns the size in bytes of the i-th
 * handle of the array 'types' (i = 0 for a single handle).
 */
struct st_xfer {
	int cls;		/* enum st_bytes_class */
	int send_in_place;	/* sendbuf == MPI_IN_PLACE */
	int recv_in_place;	/* recvbuf == MPI_IN_PLACE (scatter root) */
	int root;		/* rank, or ST_RANK_ROOT / ST_RANK_PROC_NULL */
	int64_t scount, rcount;	/* scalar counts */
	const void *scounts, *rcounts; /* count arrays, int or int64_t */
	int counts_64;		/* count arrays hold int64_t (MPI_Count) */
	const void *stype, *rtype; /* pointer to one handle */
	const void *stypes, *rtypes; /* arrays of handles (w variants) */
	int64_t partitions;	/* partitioned: partitions of 'scount'/'rcount' */
	int64_t status_bytes;	/* ST_BYTES_RECV: bytes the status reports */
	void *ctx;
	uint64_t (*type_size)(void *ctx, const void *types, size_t i);
};

/*
 * Compute this rank's bytes sent and received for 'x' on 'c' into
 * '*sbytes' and '*rbytes'.  Negative counts count as zero.  Returns 0, or
 * -EINVAL for an unknown class (both set to 0).
 */
int st_bytes(const struct st_xfer *x, const struct st_xfer_comm *c,
	     uint64_t *sbytes, uint64_t *rbytes);

#endif
