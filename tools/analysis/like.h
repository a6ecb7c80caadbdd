/*
 * tools/analysis/like.h: the operations and sizes a traced run used, as a
 * 'synctrace bench --pairs' list, so that a cost table can be measured
 * in the application's own mix ('synctrace bench --like RUN').  A small
 * operation's cost depends on what ran just before it (the code paths,
 * caches and branch predictors the last calls left warm), so a table
 * measured over the operations and sizes the application calls fits it
 * better than one measured over a wide shuffled grid.
 *
 * Each call record of every rank file is mapped to the blocking
 * operation the bench measures: a nonblocking, persistent or large-count
 * collective to its blocking int form (MPI_Iallreduce_c: allreduce), a
 * send of any mode to pingpong, MPI_Sendrecv(_replace) to sendrecv, at
 * the size the bench gives that operation: the block one rank
 * contributes (allgather, gather), sends to each rank (alltoall: its
 * sent bytes / p) or gets (scatter, reduce_scatter), the vector of a
 * broadcast or reduction, a message.  Receives, probes, completions and
 * neighbourhood collectives (the bench has none) are not mapped.  Every
 * message size also gets the patterns of the network model, after the
 * run's own pairs: late:SIZE, burst1:SIZE and burstK:SIZE (K the most
 * nonblocking sends to one peer in a row, rounded up to 2, 4 or 8).
 *
 * A collective's item says what came before it in the run, on the rank
 * with the longest quiet time before each instance: "@US", the median
 * of that time since the rank's previous call, and "/PREV:PSIZE", that
 * call when more than half the instances had the same operation there
 * (at the median of its sizes), another collective or an MPI_Sendrecv,
 * which the bench then makes its untimed warm-up call (see
 * tools/bench/micro.c, warm_call()).
 */
#ifndef ST_TOOLS_ANALYSIS_LIKE_H
#define ST_TOOLS_ANALYSIS_LIKE_H

#include <stddef.h>
#include <stdint.h>

struct st_event;

/* What st_like_pairs() found. */
struct st_like {
	long nranks;		/* ranks of the run */
	uint64_t calls;		/* call records read */
	uint64_t mapped;	/* of those, mapped to a pair */
	uint64_t unmapped;	/* collectives and sends the bench lacks */
	int npairs;		/* distinct (operation, size) pairs */
	int binned;		/* sizes were rounded to powers of two */
	int inflight;		/* most nonblocking sends to one peer in
				   a row before a completion */
	char unmapped_fn[64];	/* the first unmapped function's name */
	long gap_max_us;	/* the longest collective pair's gap, or 0 */
	int warm_other;		/* collective pairs warmed up by another
				   call ("/PREV:PSIZE") */
};

/*
 * The bench operation (enum st_micro_op) and size of call record 'ev';
 * -1 when the bench has no operation for it; -2 for a call that moves
 * no block the bench could size (a send to MPI_PROC_NULL, the root side
 * of an inter-communicator's rooted collective).
 */
int st_like_map(const struct st_event *ev, uint64_t *size);

/*
 * Read every rank file of run directory 'dir' and write its pairs as
 * "op:size,..." to 'buf' ('len' bytes) in the order rank 0 first called
 * them (then those only other ranks called, in their order): the bench
 * makes each pair's first call in that order, so that each pays the
 * first-call cost it paid in the run.  When they name more than 64
 * sizes, each size is rounded to the nearest power of two first.  Returns 0, or a negative
 * errno with a message in 'err': the run's or a file's error, -ENOENT
 * ("no operation the bench measures"), -E2BIG (too many pairs even so,
 * or 'buf' too short).
 */
int st_like_pairs(const char *dir, char *buf, size_t len,
		  struct st_like *out, char *err, size_t errlen);

#endif
