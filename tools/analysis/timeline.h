/*
 * tools/analysis/timeline.h: global time for the tools.  The ST_REC_SYNC records
 * of one rank (one per synchronisation epoch, each holding the blob of
 * sync/sync.h) make a "global clock" for that rank: it turns the rank's
 * local timestamps (the t0, t1 of its records, on the clock the sync
 * used) into global time, nanoseconds since rank 0's origin, and says how
 * wrong that global time may be.  A rank without a usable sync record
 * has no global time: the functions then return NaN.
 */
#ifndef ST_TOOLS_ANALYSIS_TIMELINE_H
#define ST_TOOLS_ANALYSIS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_gclock;
struct st_sync_record;

/*
 * A new global clock with no epoch, for rank 'rank' (-1: whichever rank
 * the first record names).  Returns 0, -ENOMEM.
 */
int st_gclock_new(struct st_gclock **out, int rank);

/* Free 'c' (NULL is fine). */
void st_gclock_free(struct st_gclock *c);

/*
 * Add the epoch 'rec' (parsed).  Epochs must come in increasing order,
 * all of this clock's rank with one origin.  Returns 0; -EINVAL (another
 * rank, an epoch out of order, a model that is not finite; nothing
 * added); -ENOMEM.
 */
int st_gclock_add(struct st_gclock *c, const struct st_sync_record *rec);

/*
 * Parse the sync record 'ev' (an ST_REC_SYNC record) and add its epoch.
 * Returns as st_gclock_add(), or -EBADMSG when its text is no valid sync
 * blob.  If 'rec' is not NULL the parsed record is left there (released
 * by the caller with st_sync_record_release()), even when it could not
 * be added; on -EBADMSG it is empty.
 */
int st_gclock_add_event(struct st_gclock *c, const struct st_event *ev,
			struct st_sync_record *rec);

/* What st_gclock_load() found wrong. */
struct st_gclock_problems {
	int nbad;		/* sync records that were not added */
	char first[200];	/* why the first was not, "" when none */
};

/*
 * Read every sync record of the trace file 'path' into 'c', in file
 * order.  Records that cannot be added are counted in '*p' (if not NULL)
 * and skipped.  Returns 0 once the file was read to its end, else the
 * reader's negative errno: what was read before the damage stays added
 * (the caller reports damage when it reads the file itself).
 */
int st_gclock_load(struct st_gclock *c, const char *path,
		   struct st_gclock_problems *p);

/* Number of epochs added; 0 means the rank has no global time. */
size_t st_gclock_epochs(const struct st_gclock *c);

/* The method (enum st_sync_method) of the last epoch, -1 with none. */
int st_gclock_method(const struct st_gclock *c);

/*
 * Global time (ns since rank 0's origin) of this rank's local time
 * 't_ns'; NaN without epochs.  Between epochs the offset is interpolated
 * (st_sync_timeline_global()).
 */
double st_gclock_global(const struct st_gclock *c, uint64_t t_ns);

/*
 * Estimated error (ns) of the global time of local time 't_ns': the
 * estimate of the epoch whose anchor is nearest, err_ns + slope_err *
 * |t - anchor| (only err_ns when the slope's error is unknown); 0 on
 * rank 0, whose clock is the reference; NaN without epochs.
 */
double st_gclock_err(const struct st_gclock *c, uint64_t t_ns);

/*
 * A one-line summary of 'rec' without commas, for CSV: "hca epoch 0 err
 * 35ns".  Returns 'buf'.
 */
char *st_sync_rec_brief(const struct st_sync_record *rec, char *buf,
			size_t len);

#endif
