/*
 * tools/bench/micro-run.h: running one measurement of "synctrace-bench
 * micro" and turning it into trace records.  A measurement is one call
 * of a collective on the benchmark communicator, or one point-to-point
 * pattern between the rank pairs (0,1), (2,3)...: a ping-pong (MPI_Send
 * then MPI_Recv on the even rank, the reverse on the odd one) or an
 * exchange with MPI_Sendrecv; with an odd number of ranks the last one
 * sits those out.
 *
 * The size 'n' of a measurement is the bytes of one block: what each
 * rank contributes to an allgather or gather, sends to each rank in an
 * alltoall, the root scatters to each rank, the vector of a broadcast or
 * a reduction, each rank's block of a reduce-scatter.  Data moves as
 * MPI_BYTE, reductions are MPI_SUM over MPI_UINT8_T, the root is rank 0.
 * Buffers are allocated and touched once, for the largest size, and
 * reused; the send data is written anew before each measurement unless
 * --reuse-buffers (no other cache control).
 */
#ifndef ST_TOOLS_BENCH_MICRO_RUN_H
#define ST_TOOLS_BENCH_MICRO_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "tools/bench/micro-ops.h"

struct st_event;
struct st_mpi_transport;

/* The most MPI calls of one measurement on one rank: xbusy8's. */
#define ST_MICRO_MAX_CALLS 17

/* The local clock around each MPI call of one measurement on this rank. */
struct st_micro_stamps {
	int ncalls;		/* 0 (rank idle in a p2p pattern) to
				   ST_MICRO_MAX_CALLS */
	int rc[ST_MICRO_MAX_CALLS];	/* what MPI returned */
	uint64_t t0[ST_MICRO_MAX_CALLS], t1[ST_MICRO_MAX_CALLS];
				/* entry and exit, transport clock */
	int64_t rbytes[ST_MICRO_MAX_CALLS]; /* received, from the status;
					       -1: n/a */
	uint64_t delay_ns;	/* the rank waited this long on purpose
				   before its first call (late) */
	int swap;		/* a one-way pattern (burstK, late, sbusy,
				   rbusy) the other way: the odd rank of
				   the pair sends */
};

struct st_micro_ctx {
	MPI_Comm comm;		/* the benchmark communicator */
	int rank, size;
	int partner;		/* p2p partner, -1 when idle */
	const struct st_mpi_transport *clock;
	char *sbuf, *rbuf;
	size_t sbuf_bytes, rbuf_bytes;
	int *scounts, *sdispls, *rcounts, *rdispls;	/* 'size' entries */
	MPI_Datatype *types;	/* MPI_BYTE, 'size' entries */
	size_t prepared_n;	/* the size the arrays hold, SIZE_MAX none */
	unsigned fresh;		/* st_micro_fresh()'s calls */
	int yield;		/* blocking calls as twin + test + yield
				   (SYNCTRACE_YIELD=1, micro-run.c) */
	int start;		/* ping-pongs are the library's start's:
				   tagged ST_MICRO_TAG_START */
	unsigned turns[ST_MICRO_NOPS];	/* calls of each one-way pattern
					   so far: odd ones swap */
};

/*
 * Set up 'c' for the operations in 'mask' at sizes up to 'max_n' bytes
 * on 'comm' (not duplicated: the caller owns it), reading the clock of
 * 'clock'.  Returns 0, -ENOMEM, or -EOVERFLOW when a buffer would need
 * more than INT_MAX elements.
 */
int st_micro_ctx_init(struct st_micro_ctx *c, MPI_Comm comm,
		      const struct st_mpi_transport *clock, unsigned mask,
		      size_t max_n);

void st_micro_ctx_release(struct st_micro_ctx *c);

/*
 * Write new data where operation 'op' at size 'n' sends from, as an
 * application computes what it sends: a benchmark that sends the same
 * buffer again finds it in the caches, clean, where an application's
 * data is modified in its own core's (an Alltoall of 128 KiB blocks on
 * 2 ranks here: 10 us against 15.5 us with fresh data).
 */
void st_micro_fresh(struct st_micro_ctx *c, int op, size_t n);

/*
 * Make 'c' ready to run any operation at size 'n' (the count and
 * displacement arrays of the v and w forms); cheap when 'n' did not
 * change.  Call it before waiting for a measurement's start.
 */
void st_micro_prepare(struct st_micro_ctx *c, size_t n);

/*
 * Run operation 'op' at size 'n' (prepared) once, reading the clock
 * right around each MPI call into 's'.  Nothing else happens between
 * the clock reads.
 */
void st_micro_call(struct st_micro_ctx *c, int op, size_t n,
		   struct st_micro_stamps *s);

/*
 * An untimed call of 'op' at size 'n' (prepared) to warm up the timed
 * one after it: st_micro_call(), but a one-way pattern's warm-up goes
 * the way its next call will, so that the timed calls still alternate.
 */
void st_micro_warm(struct st_micro_ctx *c, int op, size_t n);

/*
 * The records of measurement 's' of 'op' on this rank: one ST_REC_CALL
 * per MPI call, and before an MPI_Waitall the ST_REC_DONE record of
 * each request it completed, as the interposer writes them.
 */
int st_micro_nrecords(int op, const struct st_micro_stamps *s);

/*
 * Fill 'ev' with record 'k' (0 .. st_micro_nrecords() - 1) of the
 * measurement 's' of 'op' at size 'n': function id, times, the
 * benchmark communicator's id 'comm_id', its size, 'seq', root, peer
 * and tags, request ids, bytes sent and received as the interposer
 * counts them (README.md, "Bytes sent and received"), element size and
 * reduction op.
 */
void st_micro_event(const struct st_micro_ctx *c, int op, size_t n,
		    const struct st_micro_stamps *s, int k, uint64_t comm_id,
		    uint64_t seq, struct st_event *ev);

/* Bytes of the send and receive buffers 'op' needs at size 'n'. */
void st_micro_buffers(int op, int size, size_t n, size_t *sbytes,
		      size_t *rbytes);

#endif
