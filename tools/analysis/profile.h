/*
 * tools/analysis/profile.h: the profile of a run that 'synctrace report'
 * prints.  One pass over each rank's records accumulates, per MPI
 * function, calls, bytes and time (t1 - t0 of CALL records); per
 * nonblocking or persistent operation the time from its start (the
 * I-call, or the START record of MPI_Start) to the exit of the Wait/Test
 * that completed it (the DONE record with the same request id); per call
 * site and per communicator size, calls and time; each rank's run time,
 * from the end of MPI_Init (and of synctrace's own work there) to the
 * start of MPI_Finalize (or of synctrace's finalize work).  Call sites
 * are merged across ranks by what they are (object and offset of the
 * application's frame), not by id, since ids and load addresses differ
 * between ranks.  These use only differences of one rank's own clock.
 *
 * When the trace holds sync records, st_profile_collectives() matches
 * the instances of each blocking collective across ranks in global time
 * (imbalance.h): a second pass walks all ranks at once in global time
 * order (merge.h), so instances complete soon after they begin and
 * memory stays bounded.
 *
 * Nothing is printed: problems the reading works around (a truncated
 * file, a sync record it cannot use, another function table) are
 * warnings through st_warn() (diag.h).
 */
#ifndef ST_TOOLS_ANALYSIS_PROFILE_H
#define ST_TOOLS_ANALYSIS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_imb;
struct st_io;
struct st_phase_sel;
struct st_rma;
struct st_symtab;

/* Function ids are 16 bits: st_profile_fns() has this many entries. */
#define ST_PROFILE_NFN 65536

/* Per function, over all ranks. */
struct st_profile_fn {
	uint64_t calls, sbytes, rbytes, time_ns;
	uint64_t rank_min, rank_max;	/* of the per-rank time totals */
	int nranks;			/* ranks that called it */
	uint64_t starts;		/* persistent: instances started */
	uint64_t ops, op_ns, op_min, op_max; /* completed operations */
	uint64_t pending;		/* started, never seen completed */
	uint64_t freed;			/* freed by MPI_Request_free while
					   active: completion unseen */
	uint64_t cancelled;		/* of 'ops', completed cancelled
					   (ST_DONE_CANCELLED): no data */
};

/* Calls of one function from one place in the code, over all ranks. */
struct st_profile_site {
	long sym;			/* symtab index, -1: unknown place */
	uint16_t fn;
	uint64_t calls, time_ns;
	int nranks, last_rank;
};

/* Calls on communicators of one size (local group). */
struct st_profile_size {
	uint64_t size, ncomms, calls, time_ns;
};

/* The run as a whole. */
struct st_profile_sum {
	int expected;			/* ranks the run declares */
	int nread;			/* ranks whose file was read */
	const int *missing;		/* ranks without a file */
	int nmissing;
	int nsynced;			/* ranks with global time */
	uint64_t mpi_ns, mpi_calls;	/* outside MPI_Init and MPI_Finalize */
	uint64_t run_ns, run_min, run_max;	/* sum, min, max over ranks */
	int nrun;			/* ranks with a run time */
	uint64_t marks, mark_ns;	/* synctrace's work in the run time */
	uint64_t inits, init_ns;	/* synctrace's MPI_Init work */
	uint64_t unmatched;		/* DONE records without a start */
	uint64_t phases;		/* with a phase selected: the
					   selected phases that began, over
					   ranks and threads */
	size_t nhosts;
	/* From the header of the first rank read; NULL when absent. */
	const char *mpi_library, *clock, *clock_res, *clock_cost, *config;
	/*
	 * Ranks whose header's config (cmdline) is not the first rank's,
	 * as in an MPMD job, and the first of them with its own; ranks
	 * whose config leaves the completion calls untraced, and the
	 * first of them.
	 */
	int config_others, config_other_rank;
	char *config_other;
	int cmd_others, cmd_other_rank;
	char *cmd_other;
	int nocomplete, nocomplete_rank;
};

struct st_profile;

/*
 * A profile of a run of 'nranks' ranks, 1 for a single rank file (read
 * as rank 0; with one rank the sync records say which rank it is).
 * Returns 0, -EINVAL ('nranks' < 1) or -ENOMEM.
 */
int st_profile_new(struct st_profile **out, int nranks);
void st_profile_free(struct st_profile *p);

/*
 * Look only at the records in the phases 'sel' selects
 * (tools/analysis/phase.h; copied), before any rank is read: every
 * count, time and byte then comes from CALL, START and DONE records in
 * them, and a rank's run time is the time its threads spent in them,
 * summed (from a marker's exit to the next marker's entry, MPI_Finalize
 * or the last record).  Windows and files opened outside still count
 * as such.
 */
void st_profile_set_phase(struct st_profile *p,
			  const struct st_phase_sel *sel);

/* Rank 'rank' of the run has no trace file. */
int st_profile_missing(struct st_profile *p, int rank);

/*
 * Read rank 'rank''s file 'path'.  Returns 0; -ENOMEM; or another
 * negative errno with a message in 'err' when the file cannot be opened
 * (the rank is not read) or is corrupt (what came before the damage
 * counts).
 */
int st_profile_read_rank(struct st_profile *p, int rank, const char *path,
			 char *err, size_t errlen);

const struct st_profile_sum *st_profile_sum(const struct st_profile *p);

/*
 * Non-zero for MPI_Init and MPI_Finalize, which lie outside the run time
 * (not in 'mpi_ns' or 'mpi_calls').
 */
int st_profile_outside_run(unsigned fn);

/* Per function id, ST_PROFILE_NFN entries. */
const struct st_profile_fn *st_profile_fns(const struct st_profile *p);

/*
 * The call sites, most time first (then most calls, then function id);
 * '*n' gets their number.  Valid until the next call that changes 'p'.
 */
const struct st_profile_site *st_profile_sites(struct st_profile *p,
					       size_t *n);

/* The communicator sizes, smallest first; as st_profile_sites(). */
const struct st_profile_size *st_profile_sizes(struct st_profile *p,
					       size_t *n);

/* Where the sites' 'sym' indices point (resolve it before printing). */
struct st_symtab *st_profile_symtab(struct st_profile *p);

/*
 * The name of the sync method of the first rank with global time, or
 * NULL when no rank has any.
 */
const char *st_profile_sync_method(const struct st_profile *p);

/*
 * Match the blocking collectives of the ranks with global time in one
 * pass over all of them at once (after every rank was read).  Returns
 * 0; -ENOMEM; or another negative errno with a message in 'err' when a
 * file cannot be opened again (then nothing is analysed, since the
 * instances it is in could never complete).
 */
int st_profile_collectives(struct st_profile *p, char *err, size_t errlen);

/*
 * The same from a walk in global time made elsewhere (report's views
 * walk the run once for both): st_profile_coll_begin(), then each CALL
 * record 'ev' of rank 'rank' that st_imb_wants(), in the walk's order,
 * with its global entry time 'g0' (its exit's global time and the
 * errors come from the rank's clock read here, the same as the walk's),
 * then st_profile_coll_end().  st_profile_coll_add() returns 0 or
 * -ENOMEM.
 */
void st_profile_coll_begin(struct st_profile *p);

/*
 * Without --phase: st_profile_read_rank() leaves out the first pass of
 * the analysis of collectives (tools/analysis/imbalance.h), which comes
 * from elsewhere (st_imb_take_scan() into st_profile_imb(): a scan of
 * the same records) or from st_profile_imb_scan(), which reads every
 * rank read again for it (0 or -ENOMEM).  Either before
 * st_profile_collectives() or st_profile_coll_begin().
 */
void st_profile_imb_scan_later(struct st_profile *p);
int st_profile_imb_scan(struct st_profile *p);
int st_profile_coll_add(struct st_profile *p, int rank,
			const struct st_event *ev, double g0);
void st_profile_coll_end(struct st_profile *p);

/* The analysis st_profile_collectives() filled. */
struct st_imb *st_profile_imb(struct st_profile *p);

/*
 * One-sided communication per window and MPI-IO per file
 * (tools/analysis/rma.h, io.h), filled by reading the ranks; their
 * collective instances in global time by st_profile_collectives().
 */
struct st_rma *st_profile_rma(struct st_profile *p);
struct st_io *st_profile_io(struct st_profile *p);

#endif
