/*
 * pmpi/selftime.h: the self-time build, where every traced call counts
 * the time it spent inside the interposer: from entering its C wrapper
 * (st_c_X, build/gen/wrappers.c) to leaving it, less its MPI function's
 * own time (c.t1 - c.t0).  Compiled in only with -DST_SELFTIME, which
 * makes $(BUILD)/selftime/libsynctrace.so (`make bench`'s figure 1d,
 * docs/hotpath.md); in the library users run every macro below is
 * empty.
 *
 * Why: added time measured from outside (the loop with the library
 * minus without) is the interposer's work plus how the ranks, which
 * busy-poll, couple; on two cores the second moves the figure by as
 * much as the first.  This is the first alone.  The two clock reads the
 * measure adds (entry and exit) stand in for the parts of the
 * interposer's own two reads that fall inside [c.t0, c.t1], which the
 * subtraction leaves out: the figure is the interposer's time to within
 * a clock read's share, whose cost st_self_report() prints (that of
 * st_clock_describe(), the run's clock_cost_ns).
 *
 * Per process, by function: calls and ticks in plain counters, which
 * the threads of a multi-threaded program would share without a lock
 * (a lock would change what is measured): its figures are approximate.
 * MPI_Init, MPI_Finalize and calls through the Fortran bindings are not
 * counted.
 *
 * Right after an MPI call that sends through shared memory, the
 * interposer's first few dozen instructions run at full speed, and then
 * wait for MPI's own memory operations (its stores to lines the other
 * rank polls) to complete: some 150 ns where the ranks' cores are far
 * apart.  The application would wait for them as well, in its next call
 * (docs/hotpath.md), so they are not all the interposer's.  With
 * SYNCTRACE_SELFTIME_FENCE=1 a full fence ends the MPI call's time
 * (mfence: MPI's operations complete, the trace's timestamps unchanged)
 * and the figure is the interposer's work alone.
 *
 * st_self_report() prints the counts at MPI_Finalize on stderr,
 *
 *	synctrace-selftime: rank=R fn=NAME calls=N ns_per_call=X
 *	synctrace-selftime: rank=R clock_read_ns=X fence=F
 *
 * one line per function that made a traced call, in ns of this rank's
 * clock (st_now() ticks through the clock map's rate).
 */
#ifndef ST_PMPI_SELFTIME_H
#define ST_PMPI_SELFTIME_H

#ifdef ST_SELFTIME

#include <stdint.h>

#include "pmpi/config.h"

#pragma GCC visibility push(hidden)

struct st_self {
	unsigned depth;		/* C wrappers entered and not left */
	int traced;		/* the outermost one's call was traced */
	uint64_t t0;		/* st_now() at its entry */
	uint64_t mpi;		/* its MPI function's c.t1 - c.t0 */
};
extern __thread struct st_self st_self;

/* A traced call of function 'fn' spent 'ticks' in the interposer. */
void st_self_add(int fn, uint64_t ticks);

/* Print the counts (above) on stderr. */
void st_self_report(int rank);
#define ST_SELF_REPORT(rank) st_self_report(rank)

#pragma GCC visibility pop

/* In st_c_X, before its body; st_now() is pmpi/hooks.h's. */
#define ST_SELF_BEGIN()                                                     \
	do {                                                                \
		if (!st_self.depth++) {                                     \
			st_self.traced = 0;                                 \
			st_self.t0 = st_now();                              \
		}                                                           \
	} while (0)
/*
 * In the body, after c.t1: the call is traced; its MPI time, up to a
 * full fence's end with SYNCTRACE_SELFTIME_FENCE=1 (the trace keeps
 * c.t1).
 */
#define ST_SELF_MPI(c)                                                      \
	do {                                                                \
		st_self.traced = 1;                                         \
		if (st_set.selftime_fence) {                                \
			__builtin_ia32_mfence();                            \
			st_self.mpi = st_now() - (c)->t0;                   \
		} else {                                                    \
			st_self.mpi = (c)->t1 - (c)->t0;                    \
		}                                                           \
	} while (0)
/* In st_c_X, after its body. */
#define ST_SELF_END(fn)                                                     \
	do {                                                                \
		if (!--st_self.depth && st_self.traced)                     \
			st_self_add(fn, st_now() - st_self.t0 -             \
					    st_self.mpi);                   \
	} while (0)

#else

#define ST_SELF_REPORT(rank) ((void)0)
#define ST_SELF_BEGIN() ((void)0)
#define ST_SELF_MPI(c) ((void)0)
#define ST_SELF_END(fn) ((void)0)

#endif

#endif
