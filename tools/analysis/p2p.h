/*
 * tools/analysis/p2p.h: pairing the two ends of point-to-point messages
 * across ranks, for flows and message lines.  MPI does not let two
 * messages with the same communicator, source, destination and tag
 * overtake each other, so the k-th send of such a key matches the k-th
 * receive of it.  A send is counted at its call (a persistent one at
 * each START record, its init not at all); a receive when its source
 * and tag are known: at MPI_Recv or MPI_Sendrecv (the status), at the
 * MPI_Irecv call (a persistent receive's START) when it names both,
 * else (MPI_ANY_SOURCE, MPI_ANY_TAG) at the Wait/Test that completed
 * it, which may pair a wildcard receive out of order when it overtakes
 * a named one of the same key.  Keys use ranks in the communicator, as
 * MPI does; ends report world ranks (from the run's COMM records).  Messages on
 * communicators the scan cannot map (inter-communicators, ones made
 * without agreement) are counted as unmapped.  An optional first sweep
 * (st_p2p_count(), each rank's records in file order) counts the ends
 * of each key, so that the walk can tell at a message's first end
 * whether its other end exists anywhere in the trace.
 */
#ifndef ST_TOOLS_ANALYSIS_P2P_H
#define ST_TOOLS_ANALYSIS_P2P_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_p2p;
struct st_scan;

/* One end of a message, as st_p2p_add() reports it. */
struct st_p2p_end {
	int recv;		/* 0: the send end, 1: the receive end */
	int rank, peer;		/* world ranks: this end's and the other's */
	uint16_t thread;
	double g0, g1;		/* the record's global entry and exit */
	uint64_t bytes;		/* sent (send end) or received */
	int32_t tag;
	uint64_t comm;
};

/* One end, and the other end once both have been seen. */
struct st_p2p_msg {
	uint64_t id;		/* the message's number, from 1, equal at
				   both ends */
	struct st_p2p_end end;	/* the end just seen */
	int paired;		/* the other end came before: 'other' */
	struct st_p2p_end other;
	int both;		/* both ends are in the trace (known after
				   st_p2p_count(); else always 1) */
};

typedef int st_p2p_fn(void *ctx, const struct st_p2p_msg *m);

/* A new matcher over the communicators of 'scan'.  NULL: no memory. */
struct st_p2p *st_p2p_new(const struct st_scan *scan);
void st_p2p_free(struct st_p2p *m);

/*
 * Feed record 'ev' of world rank 'rank' with its global times 'g0',
 * 'g1' (records of each rank in file order; across ranks in any order).
 * Calls 'fn' once per message end the record holds (a Sendrecv has
 * two).  Returns 0, what 'fn' returned if not 0, or -ENOMEM.
 */
int st_p2p_add(struct st_p2p *m, int rank, const struct st_event *ev,
	       double g0, double g1, st_p2p_fn *fn, void *ctx);

/*
 * The optional first sweep: every record of every rank (each rank's in
 * file order), then st_p2p_counted() once before st_p2p_add().
 * Returns 0 or -ENOMEM.
 */
int st_p2p_count(struct st_p2p *m, int rank, const struct st_event *ev);
void st_p2p_counted(struct st_p2p *m);

/* Message ends seen but not paired (yet), and ends not mapped. */
uint64_t st_p2p_unpaired(const struct st_p2p *m);
uint64_t st_p2p_unmapped(const struct st_p2p *m);

#endif
