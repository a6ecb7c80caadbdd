/*
 * tools/analysis/matrix.h: who sends how much to whom.  Two matrices of
 * world ranks, sender by receiver, with bytes and messages: one of
 * point-to-point messages, counted at the sender (each send call's
 * bytes to its destination), and one of collectives, counted as what
 * each operation's definition moves between ranks, not the messages of
 * the MPI library's algorithm:
 *
 *	Bcast, Scatter(v)	root -> each other member: what it received
 *	Gather(v), Reduce	each other member -> root: what it sent
 *	Allgather(v), Allreduce	each member -> every other: what it sent
 *	Alltoall(v/w), Reduce_scatter(_block)
 *				each member -> every other: what it sent,
 *				divided by the group size (even blocks;
 *				the v/w forms' blocks are not recorded)
 *	Scan, Exscan		each member -> every higher member: its n
 *	Barrier			nothing
 *
 * A message or transfer is one (sender, receiver) pair of one call.
 * Neighbourhood collectives (the topology is not in the trace) and
 * calls on inter-communicators or communicators the run does not map
 * are not attributed: their bytes are only counted.  Nonblocking
 * collectives count at their call, persistent ones at each start.
 */
#ifndef ST_TOOLS_ANALYSIS_MATRIX_H
#define ST_TOOLS_ANALYSIS_MATRIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/analysis/u64map.h"

struct st_event;
struct st_scan;
struct st_scan_comm;

/* Largest number of ranks a matrix is made for (4 dense n x n arrays). */
#define ST_MATRIX_MAX_RANKS 4096

/* One matrix: [src * n + dst]. */
struct st_matrix_part {
	double *bytes;
	uint64_t *msgs;
};

struct st_matrix {
	int n;				/* world ranks */
	struct st_matrix_part p2p, coll;
	uint64_t p2p_unmapped;		/* sends whose destination is unknown */
	double coll_unattributed;	/* bytes sent in collectives not
					   attributed to pairs */
	uint64_t coll_unattributed_calls;

	/* private: "to every other" and "to every higher" per comm */
	struct st_u64map acc_of;	/* comm index -> index in 'acc' */
	struct acc *acc;
	size_t nacc, alloc_acc;
	uint64_t tick;			/* additions to 'acc' so far */
	/* The last call's communicator, its sums and the caller's rank in
	   it: a run of calls on one communicator looks nothing up. */
	uint64_t last_id;
	const struct st_scan_comm *last_c;
	size_t last_ci, last_acc;
	int last_rank, last_me;
	int have_last_c, have_last_acc, have_last_me;
};

/*
 * Make the empty matrices of 'n' ranks.  Returns 0, -E2BIG above
 * ST_MATRIX_MAX_RANKS, -ENOMEM.
 */
int st_matrix_init(struct st_matrix *m, int n);
void st_matrix_release(struct st_matrix *m);

/*
 * Count record 'ev' of world rank 'rank' (any kind; only CALL and START
 * records count), with the communicators of 'scan'.  Returns 0 or
 * -ENOMEM.
 */
int st_matrix_add(struct st_matrix *m, const struct st_scan *scan, int rank,
		  const struct st_event *ev);

/*
 * After the last st_matrix_add(): spread the per-sender sums.  The
 * result is the same whether the records came rank by rank
 * (st_scan_sweep()) or all ranks merged in global time (st_scan_walk()),
 * as long as each rank's came in file order.  No st_matrix_add() after.
 */
void st_matrix_finish(struct st_matrix *m, const struct st_scan *scan);

/* Sums over a part: bytes and messages, and the pairs that have any. */
void st_matrix_sum(const struct st_matrix_part *p, int n, double *bytes,
		   uint64_t *msgs, uint64_t *pairs);

/*
 * CSV, one line per pair with any traffic after the header
 * "kind,src,dst,bytes,messages" (kind p2p or coll; bytes may have a
 * fraction where a collective's bytes were divided).  Returns 0 or -EIO.
 */
int st_matrix_write_csv(FILE *f, const struct st_matrix *m);

/*
 * JSON: {"ranks":n,"p2p":{"bytes":[[...]...],"messages":[[...]...]},
 * "coll":{...},"p2p_unmapped":k,"coll_unattributed_bytes":b,
 * "coll_unattributed_calls":c}, rows by sender.  Returns 0 or -EIO.
 */
int st_matrix_write_json(FILE *f, const struct st_matrix *m);

#endif
