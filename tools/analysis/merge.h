/*
 * tools/analysis/merge.h: walk the records of several ranks at once, in global
 * time order: a k-way merge of the ranks' files by the global time of
 * each record's entry (t0).  Each file is read chunk by chunk as usual,
 * so memory grows with the number of ranks, not with the traces.
 */
#ifndef ST_TOOLS_ANALYSIS_MERGE_H
#define ST_TOOLS_ANALYSIS_MERGE_H

#include <stddef.h>

struct st_event;
struct st_gclock;
struct st_merge;

/* One record of the merged walk. */
struct st_merged {
	int rank;
	const struct st_event *ev;	/* valid until the next call */
	double g0, g1;			/* global entry and exit, ns; NaN
					   for records without times */
};

/* A new, empty merge.  Returns 0 or -ENOMEM. */
int st_merge_new(struct st_merge **out);

/*
 * Add rank 'rank', whose trace file is 'path' and whose global clock is
 * 'clk' (not copied: it must outlive the merge; it needs epochs, or the
 * rank's records are ordered by local time, which is meaningless next to
 * other ranks).  The file is opened and its first record read.  Returns
 * 0, or a negative errno with a message in 'err' (at most 'errlen'
 * bytes).  If no descriptor is left, the limit on open files is raised
 * to its maximum once and the open retried.  Ranks are added before the
 * first st_merge_next(); after it, -EINVAL.
 */
int st_merge_add(struct st_merge *m, int rank, const char *path,
		 const struct st_gclock *clk, char *err, size_t errlen);

/*
 * The next record in order of global entry time (ties: lower rank
 * first).  Records without times (call sites, objects) come right after
 * the record before them in their file.  Within one file, records keep
 * their file order whatever their times.  Returns 1 and fills '*out', or
 * 0 when every file is done.  A file that turns out damaged just ends
 * (see st_merge_failed()).
 */
int st_merge_next(struct st_merge *m, struct st_merged *out);

/*
 * From now on st_merge_next() leaves 'g1' NaN: a walk that needs the
 * exit time of a few records only computes it for them
 * (st_gclock_global() of the rank's clock and 'ev->t1': the same value).
 */
void st_merge_skip_g1(struct st_merge *m);

/* Number of ranks whose file ended on an error instead of its end. */
int st_merge_failed(const struct st_merge *m);

/* Close every file and free 'm' (NULL is fine). */
void st_merge_free(struct st_merge *m);

#endif
