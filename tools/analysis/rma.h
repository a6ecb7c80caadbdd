/*
 * tools/analysis/rma.h: one-sided communication per window, for
 * 'synctrace report'.  A window is known by the COMM record its
 * constructor left on every member (its id, equal on all of them, its
 * size on that rank, the communicator it was made on); every one-sided
 * call carries the id.  Each rank's records are read in file order,
 * one rank after another: per window, the calls and bytes by function
 * and by target rank, the time in synchronisation calls (fence,
 * post/start/complete/wait/test, lock/unlock, lock_all/unlock_all,
 * flush*, sync), in communication calls (Put, Get, the accumulates,
 * their R* forms) and in making and freeing it, and the epochs each
 * rank closed:
 *
 *  - fence: from a fence without MPI_MODE_NOSUCCEED to the next fence
 *    without MPI_MODE_NOPRECEDE;
 *  - access: MPI_Win_start to MPI_Win_complete; exposure: MPI_Win_post
 *    to the MPI_Win_wait (or successful MPI_Win_test) that ends it;
 *  - passive target: MPI_Win_lock to the MPI_Win_unlock of its target,
 *    by lock type; MPI_Win_lock_all to MPI_Win_unlock_all.
 *
 * Counts and times are summed over ranks: each rank's epochs are its
 * own, as MPI defines them.  With synchronised clocks, each instance of
 * a window's collectives (its constructor, fences, MPI_Win_free)
 * matched across ranks (tools/analysis/imbalance.h) adds its waiting
 * for the last member and its time after the last arrival
 * (st_rma_instance()).
 */
#ifndef ST_TOOLS_ANALYSIS_RMA_H
#define ST_TOOLS_ANALYSIS_RMA_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_imb_done;
struct st_rma;

/* Epochs by kind. */
enum st_rma_epoch {
	ST_RMA_FENCE,
	ST_RMA_ACCESS,		/* start .. complete */
	ST_RMA_EXPOSURE,	/* post .. wait or test */
	ST_RMA_LOCK_SHARED,
	ST_RMA_LOCK_EXCLUSIVE,
	ST_RMA_LOCK_ALL,
	ST_RMA_NEPOCH
};

/* Communication with one target rank of a window, over origins. */
struct st_rma_target {
	int32_t rank;		/* in the window; ST_RANK_PROC_NULL */
	uint64_t calls;
	uint64_t sbytes;	/* put or accumulated into it */
	uint64_t rbytes;	/* got from it */
};

/* One function's calls on a window, over ranks. */
struct st_rma_call {
	uint16_t fn;
	uint64_t calls, sbytes, rbytes, time_ns;
};

/* How much of one kind of call, over ranks. */
struct st_rma_time {
	uint64_t calls, time_ns;
};

struct st_rma_win {
	uint64_t id;
	uint64_t comm;		/* the communicator it was made on */
	uint16_t ctor;		/* MPI_Win_create, _allocate... */
	uint32_t size;		/* its group */
	int nranks;		/* ranks with its COMM record */
	uint64_t mem;		/* its memory, summed over ranks, bytes */
	uint64_t mem_min, mem_max;	/* per rank */
	uint64_t epochs[ST_RMA_NEPOCH];	/* closed, summed over ranks */
	struct st_rma_time sync;	/* synchronisation calls */
	struct st_rma_time xfer;	/* communication calls */
	struct st_rma_time life;	/* making and freeing it */
	uint64_t sbytes, rbytes;	/* by its communication calls */
	/* In global time, from st_rma_instance(). */
	uint64_t inst, inst_flagged;
	double wait_ns, after_ns;
	/* By target rank (ascending, MPI_PROC_NULL first) and function
	   (by id), valid after st_rma_finish(). */
	struct st_rma_target *tg;
	size_t ntg;
	struct st_rma_call *fn;
	size_t nfn;
};

/* A new, empty analysis; NULL when out of memory. */
struct st_rma *st_rma_new(void);
void st_rma_free(struct st_rma *a);

/*
 * One record 'ev' of rank 'rank', in file order; 'in' is zero when it
 * lies outside the part of the run looked at (tools/analysis/phase.h):
 * it then only moves epochs on and counts nothing.  Returns 0 or
 * -ENOMEM.
 */
int st_rma_add(struct st_rma *a, int rank, const struct st_event *ev,
	       int in);

/* The rank's records are over. */
void st_rma_end_rank(struct st_rma *a);

/*
 * A collective instance matched in global time (st_imb_set_hook()): if
 * it is one of a window's, its waiting and time after the last arrival
 * go to that window.
 */
void st_rma_instance(struct st_rma *a, const struct st_imb_done *d);

/*
 * The windows in order of their ids, '*n' their number (NULL with 0
 * when none, or out of memory).  Call it after every record and
 * instance was added; valid until the next call or st_rma_free().
 */
const struct st_rma_win *st_rma_windows(struct st_rma *a, size_t *n);

/* Non-zero when 'fn' is a window's synchronisation call. */
int st_rma_is_sync(unsigned fn);

#endif
