/*
 * tools/analysis/tee.h: every rank's records decoded once for several
 * readers (predict's three replays, one per thread).  Each reader gets
 * each rank's records in order, as if it read the rank's file alone.
 *
 * A rank's records go in chunks: the first reader to need a chunk that
 * is not there decodes it (outside the lock; the others read on in the
 * chunks they hold), and a chunk is reused once every reader is past
 * it.  Memory is bounded: at most 'budget' records in chunks per tee,
 * spread over the ranks (and up to that again behind readers that were
 * let go, below).  A reader that needs a chunk when the ranks' chunks
 * are all taken waits for the slowest to move on; when that takes longer
 * than 'wait_ms' (readers that read their ranks in orders so different
 * that each waits for the other), the slowest reader is let go: it opens
 * the rank's file itself, skips what it read, and reads on alone.
 *
 * Readers use st_tee_next() from any thread, each reader from one
 * thread at a time.
 */
#ifndef ST_TOOLS_ANALYSIS_TEE_H
#define ST_TOOLS_ANALYSIS_TEE_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_tee;

/* Where a rank's records come from. */
struct st_tee_stream {
	void *ctx;
	/*
	 * The next record of stream 'h' as st_replay_source.next: 1 with
	 * '*ev' filled (its frames and text valid until the next call), 0
	 * at the end, or a negative errno with a message in 'err'.
	 */
	int (*next)(void *h, struct st_event *ev, char *err, size_t errlen);
	/*
	 * A new stream of rank 'rank' from its first record (for a reader
	 * let go), or NULL with a message in 'err'.  Closed by 'close'.
	 */
	void *(*open)(void *ctx, int rank, char *err, size_t errlen);
	void (*close)(void *ctx, void *h);
	/*
	 * Optional: records kept in a form of the caller's, 'rec_size'
	 * bytes each (a multiple of 8), read in place by every reader
	 * with st_tee_get() (not st_tee_next()).  'conv' fills 'slot'
	 * (aligned to 8) from 'ev' and returns 1, or returns 0 when the
	 * record is to be kept whole (st_tee_get() gives its event).
	 */
	size_t rec_size;
	int (*conv)(void *ctx, void *slot, const struct st_event *ev);
};

/*
 * A tee of 'nranks' ranks for 'nreaders' readers (1..64), reading rank
 * r from stream 'h[r]' (opened by the caller, who closes it after
 * st_tee_free()), with 'budget' records (>= 4 per rank) and 'wait_ms'
 * as above.  0, -EINVAL or -ENOMEM.
 */
int st_tee_new(struct st_tee **out, int nranks, int nreaders,
	       const struct st_tee_stream *s, void *const *h, size_t budget,
	       long wait_ms);

/*
 * Reader 'reader''s next record of rank 'rank', as the stream's next
 * (the stream's errors and end as it gave them).  Not for a tee with
 * 'conv': -EINVAL on a record 'conv' took.
 */
int st_tee_next(struct st_tee *t, int reader, int rank, struct st_event *ev,
		char *err, size_t errlen);

/*
 * With 'conv': reader 'reader''s next record of rank 'rank', 1 with
 * '*rec' its form made by 'conv' (valid until the reader's next call
 * for that rank), or 2 with '*ev' filled as st_tee_next() fills it (a
 * record 'conv' did not take, or any record once the reader was let
 * go), or the stream's end and errors as it gave them.  Without
 * 'conv', as st_tee_next() but for returning 2 instead of 1.
 */
int st_tee_get(struct st_tee *t, int reader, int rank, const void **rec,
	       struct st_event *ev, char *err, size_t errlen);

/* Reader 'reader' reads no more: the others no longer wait for it. */
void st_tee_close(struct st_tee *t, int reader);

/* How many times a reader was let go (see above). */
uint64_t st_tee_let_go(const struct st_tee *t);

/* Closes every reader first. */
void st_tee_free(struct st_tee *t);

#endif
