/*
 * tools/bench/mpi-transport.h: the sync/ transport of synctrace-bench.
 * Messages go by PMPI point-to-point on a private duplicate of a
 * communicator (so a run under the interposer does not trace them, and
 * they never match anything else); the clock is CLOCK_MONOTONIC_RAW,
 * distorted by SYNCTRACE_CLOCK_SKEW's entry for this rank so that tests on
 * one machine, where every rank reads the same clock, have offsets and
 * drifts to find.
 */
#ifndef ST_TOOLS_BENCH_MPI_TRANSPORT_H
#define ST_TOOLS_BENCH_MPI_TRANSPORT_H

#include <mpi.h>
#include <stdint.h>

#include "sync/skew.h"
#include "sync/transport.h"

struct st_mpi_transport {
	/* What sync/ gets; its 'ctx' points to this struct: never copy. */
	struct st_transport tp;
	MPI_Comm comm;		/* the private duplicate */
	struct st_skew skew;
	uint64_t skew_base_ns;	/* raw clock value where drift starts */
	/*
	 * Receives test, spin 20 us, then yield the CPU between tests,
	 * instead of spinning in MPI: for more ranks than CPUs, where a rank
	 * waiting for its turn would keep the two ranks it waits for off a
	 * CPU for a whole time slice.
	 */
	int yield;
};

/* CLOCK_MONOTONIC_RAW in nanoseconds. */
uint64_t st_mpi_raw_ns(void);

/*
 * Set up 't' on a duplicate of 'comm' (collective over 'comm').  Its
 * clock is st_skew_apply('skew', 'skew_base_ns', raw clock); 'skew' NULL
 * means none.  To make ranks that share a physical clock share the
 * distorted clock too, give them all the same 'skew_base_ns'.  Returns 0
 * or -EIO.
 */
int st_mpi_transport_init(struct st_mpi_transport *t, MPI_Comm comm,
			  const struct st_skew *skew, uint64_t skew_base_ns,
			  int yield);

/*
 * Complete the request 'req' as the receives of 't' wait: by MPI_Wait(),
 * or in yield mode testing and yielding.  Returns 0 or -EIO.
 */
int st_mpi_transport_wait(const struct st_mpi_transport *t, MPI_Request *req);

/* Free the duplicate communicator (collective). */
void st_mpi_transport_release(struct st_mpi_transport *t);

/* The distorted clock of 't' now, as sync/ sees it. */
uint64_t st_mpi_transport_now(const struct st_mpi_transport *t);

#endif
