/*
 * tools/analysis/table.h: cost tables of MPI operations, in the spirit of
 * Howell's microbenchmark tables: per operation a formula
 * T(p, d) = a + b f(p) + c g(p) d fitted to the medians of its measured
 * costs, grouped by process count p and message size d.
 *
 * A sample is the cost of one instance of an operation, in global time
 * (tools/analysis/table-read.c finds them in traces):
 *  - a blocking collective on an intra-communicator, or over a window
 *    or a file (MPI_Win_fence, MPI_File_write_all..., see
 *    st_fn_group_coll()): from the last member's arrival (entry) to the
 *    last member's exit, the time the operation itself took once every
 *    rank was there; the time ranks spent waiting for the last one to
 *    arrive is kept apart;
 *  - a point-to-point transfer, a blocking send matched with a blocking
 *    receive (or either half of MPI_Sendrecv): from the later of the
 *    send's and the receive's entry to the receive's exit.
 *
 * Samples are grouped by (operation, p, d).  Each group is summarised
 * by its median after Tukey's fences, with a nonparametric confidence
 * interval (tools/analysis/stats.h); with samples from several runs, the spread
 * of the per-run medians says how far runs disagree.  Each operation's
 * group medians are then fitted (tools/analysis/fit.h).
 *
 * Functions return 0 or a negative errno (-EINVAL, -ENOMEM) and never
 * print.
 */
#ifndef ST_TOOLS_ANALYSIS_TABLE_H
#define ST_TOOLS_ANALYSIS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/analysis/fit.h"
#include "tools/analysis/phase.h"
#include "tools/analysis/stats.h"

/*
 * What kind of operation a table row is.  Every kind but ST_TABLE_COLL
 * is point-to-point, its d the bytes of one message; the last nine are
 * the parts of the network model of 'synctrace predict'
 * (tools/analysis/predict-model.h), the first of them from any trace,
 * the others from the patterns of 'synctrace bench' (by their tags,
 * tools/bench/micro-ops.h), in bench runs only.
 */
enum st_table_kind {
	ST_TABLE_COLL = 1,	/* a blocking collective */
	ST_TABLE_P2P = 2,	/* a blocking point-to-point transfer */
	ST_TABLE_CALL = 3,	/* a nonblocking send's start: the
				   MPI_Isend call's own duration */
	ST_TABLE_BURST = 4,	/* p = K messages started at once: from
				   the first MPI_Isend's entry to the
				   receiver's MPI_Waitall exit */
	ST_TABLE_SEND_EAGER = 5, /* a send whose receive came late and
				   which did not wait for it: its own
				   duration */
	ST_TABLE_SEND_RNDV = 6,	/* a send whose receive came late and
				   which waited for it (rendezvous): from
				   the receive's entry to the send's
				   exit */
	ST_TABLE_RECV_LATE = 7,	/* a receive posted well after its send:
				   its own duration */
	ST_TABLE_SND_BUSY = 8,	/* one message, its sender computing
				   between MPI_Isend and MPI_Wait: from
				   the MPI_Isend's entry to the receiver's
				   MPI_Wait exit */
	ST_TABLE_RCV_BUSY = 9,	/* one message, its receiver computing
				   between MPI_Irecv and MPI_Wait: the
				   receiver's MPI_Wait */
	ST_TABLE_XCHG_BUSY = 10, /* a message each way, both ranks
				   computing between their I-calls and
				   MPI_Waitall: from the later MPI_Waitall
				   entry to the later exit */
	ST_TABLE_XCHG_BURST = 11, /* p = K messages each way, as
				   ST_TABLE_XCHG_BUSY (K >= 2) */
	ST_TABLE_NKINDS
};

/* The name of 'kind' in the table's JSON and CSV ("collective", "p2p",
 * "call", "burst", "send-eager", "send-rendezvous", "recv-late",
 * "snd-busy", "rcv-busy", "xchg-busy", "xchg-burst"). */
const char *st_table_kind_name(int kind);

/*
 * The size d of one instance of a collective of byte class 'bytes_class'
 * (enum st_bytes_class) on 'p' processes, from the bytes its members
 * sent ('sbytes', summed over the members) and received ('rbytes',
 * likewise), as the record's buffer-view counts give them (README,
 * "Bytes sent and received").  d is the natural per-rank size:
 *
 *	barrier                        0
 *	bcast                          the message: S (only the root sends)
 *	reduce, allreduce, scan        the vector: S / p
 *	reduce_scatter(_block)         one rank's block: R / p
 *	gather(v), allgather(v)        one rank's block: S / p
 *	scatter(v)                     one rank's block: R / p
 *	alltoall(v,w)                  one block per pair: S / p^2 (v, w:
 *	                               the busiest member's, below)
 *	neighbour collectives          what one rank sends in all: S / p
 *	collective file write          what one rank writes: S / p
 *	collective file read           what one rank reads: R / p
 *	window and file collectives    0 (fence, open, close, set_view...)
 *	without data
 *
 * (v variants: the mean block; for alltoallv and alltoallw given 'smax'
 * and 'rmax', the most bytes one member sent and received, nonzero:
 * the busiest member's block, max(smax, rmax) / p, which is S / p^2
 * when every member sends and receives alike.  The larger transfers set
 * such an exchange's time: 12 KiB blocks one way and 96 KiB the other
 * cost about what 96 KiB both ways cost, not 54.  Other classes ignore
 * 'smax' and 'rmax'.)  Returns 0, or -EINVAL for a class that is not a
 * collective's (point-to-point, one-sided) or p < 1.
 */
int st_table_coll_size(int bytes_class, long p, uint64_t sbytes,
		       uint64_t rbytes, uint64_t smax, uint64_t rmax,
		       double *d);

/* The rule above for 'bytes_class' as text ("S/p: the vector"); NULL
 * when the class is not a collective's. */
const char *st_table_size_rule(int bytes_class);

/* Options of a table; st_table_options_init() sets the defaults. */
struct st_table_options {
	double tukey_k;		/* Tukey's fences constant, 1.5; 0 keeps
				   every sample */
	double ci_level;	/* level of the medians' CIs, 0.95 */
	double sigma_min_ns;	/* floor of a group's standard error given
				   to the fit (the clock resolution), 1 */
	int bins_per_octave;	/* 0: one group per exact size; N > 0:
				   sizes binned N per octave (d = the
				   mean size of the bin's samples) */
	int max_pieces;		/* of the fit: 1 (no split in d) or 2 */
	double resolve;		/* a difference the table should resolve,
				   relative (0.05): groups whose
				   launches disagree too much for it are
				   flagged (st_table_group.resolvable) */
	size_t exact_max;	/* samples a group keeps exactly, 2^20;
				   past
				   it the group keeps a summary of
				   relative resolution
				   ST_TABLE_SUMMARY_RES instead */
};

/*
 * The relative resolution of a summarised group's figures: its costs
 * (and clock errors) are counted in log-spaced buckets 2^-10 wide
 * (relative), 1,024 per octave, and each order statistic is read as
 * its bucket's middle (clamped to the exact minimum and maximum), so
 * within 2^-11 of the true value; quantiles, fences and CI bounds are
 * computed from those order statistics as for exact groups.
 */
#define ST_TABLE_SUMMARY_RES (1.0 / 1024)

void st_table_options_init(struct st_table_options *o);

/* One group: an operation at one (p, d). */
struct st_table_group {
	size_t op;		/* index of its operation */
	long p;
	double d;		/* bytes (the mean size with binning) */
	size_t n_in;		/* samples before the fences */
	double *x;		/* [n_in] costs, ns (ascending once
				   finished); NULL when summarised
				   ('hist' below) */
	uint32_t *run;		/* [n_in] run of each sample, aligned
				   with 'x'; NULL while every sample
				   is from run 'run0' */
	uint32_t run0;		/* the run of the group's first sample */
	float *err;		/* [n_in] clock error of each, ns, in the
				   order added (not aligned with 'x'
				   once finished: only their median is
				   used) */
	double d_sum;		/* sum of the samples' sizes */
	double wait_ns;		/* waiting for late ranks, over instances
				   and ranks */
	double call_ns;		/* time in the call, over instances and
				   ranks */
	/* Set by st_table_finish(). */
	struct st_summary s;	/* after Tukey's fences */
	double err_median_ns;	/* median clock error of its samples */
	size_t n_below_err;	/* samples whose cost is below their
				   clock error */
	size_t nruns;		/* runs with kept samples in this group */
	double run_med_min, run_med_max; /* per-run medians, ns */
	double run_spread;	/* (max - min) / min of the per-run
				   medians; NaN with fewer than 2 runs */
	double *run_med;	/* [nruns] the per-run medians, ns, in
				   run order */
	uint32_t *run_no;	/* [nruns] their runs */
	/*
	 * How well launches agree, with the launch as the unit of
	 * replication: 'run_sd' is the standard deviation of the
	 * logarithms of the per-run medians (a relative spread: 0.02 is
	 * about 2 %), NaN with fewer than 2 runs; 'resolvable' the
	 * smallest relative difference between two tables with this
	 * group's runs and spread that a comparison (st_compare(), at
	 * level ci_level) finds with probability 0.8
	 * (st_stats_resolvable()): infinity when too few runs can never
	 * show one, NaN with fewer than 2 runs.
	 */
	double run_sd;
	double resolvable;
	/*
	 * 1 when the median's interval (s.ci_lo, s.ci_hi, s.se_median)
	 * holds the launch-to-launch spread: a group of 2 or more runs
	 * with an order-statistics interval gets the union of that one
	 * and mean +- t(nruns - 1) sd / sqrt(nruns) of the logarithms of
	 * its per-run medians (s.ci_coverage and the ranks stay the
	 * order statistics').  0: order statistics of the samples alone
	 * (one run, or no interval).
	 */
	int ci_launches;
	/* The first instance of the group in each run (its first call
	   there), set by st_table_finish(): */
	size_t first_n;		/* runs that gave one */
	double first_ns;	/* their median cost; NaN when none */
	double first_min_ns, first_max_ns;
	size_t alloc;
	/* Past options.exact_max samples: 'x', 'err' and 'run' are
	   freed and the samples counted in 'hist' (opaque); 'resolution'
	   is then ST_TABLE_SUMMARY_RES, else 0 (exact figures). */
	struct st_table_hist *hist;
	double resolution;
};

/* One operation: a collective function, or a (send, receive) pair. */
struct st_table_op {
	int kind;		/* enum st_table_kind */
	unsigned fn;		/* collective; p2p: the send's function */
	unsigned fn2;		/* p2p: the receive's function; else 0 */
	int bytes_class;	/* of 'fn' */
	char name[96];		/* "MPI_Allreduce", "MPI_Send->MPI_Recv",
				   "MPI_Sendrecv" */
	uint64_t samples;	/* instances (collective) or transfers */
	double wait_ns;		/* total waiting, ns */
	double call_ns;		/* total time in the call, ns */
	/* Set by st_table_finish(). */
	size_t *groups;		/* indices, by p then d */
	size_t ngroups;
	size_t n_dropped;	/* by the fences, over its groups */
	size_t n_kept;
	long p_min, p_max;
	double d_min, d_max;
	int nps;		/* distinct process counts */
	int fit_rc;		/* 0, or st_fit_run()'s error (-EDOM:
				   too few groups for any model) */
	struct st_fit_result fit;
	size_t alloc;
};

struct st_table;

/* A new, empty table ('o' NULL for the defaults); -ENOMEM, -EINVAL. */
int st_table_new(struct st_table **out, const struct st_table_options *o);
void st_table_free(struct st_table *t);

/*
 * Add one sample: an instance of operation (kind, fn, fn2) on 'p'
 * processes of size 'd' bytes, measured in run 'run', which cost
 * 'cost_ns' (clamped at 0), while ranks waited 'wait_ns' in all and
 * spent 'call_ns' in the call in all; 'err_ns' is the clock error of
 * the cost (NaN: unknown).  -EINVAL for a non-finite cost, p < 1, d < 0
 * or an unknown function; -ENOMEM.  Not after st_table_finish().
 */
int st_table_add(struct st_table *t, int kind, unsigned fn, unsigned fn2,
		 long p, double d, uint32_t run, double cost_ns,
		 double wait_ns, double call_ns, double err_ns);

/*
 * The first sample of each group in each run is also its first-call
 * sample: the cost of the process's first instance of that operation
 * and size, which lazy set-up in the MPI library and cold code paths
 * make dearer than the rest.  st_table_add_first() adds a first call
 * that is not a sample (a bench's pilot call, apart from its
 * measurements): the group's first-call sample for 'run' unless it has
 * one already.  Its group must get samples too, or it is dropped.
 * Returns 0, -EINVAL as st_table_add(), -ENOMEM.
 */
int st_table_add_first(struct st_table *t, int kind, unsigned fn,
		       unsigned fn2, long p, double d, uint32_t run,
		       double cost_ns);

/*
 * The MPI library's start (synctrace bench --start, micro-ops.h
 * ST_MICRO_TAG_START): in a fresh process, ST_TABLE_START_MSGS
 * ping-pongs in a row at a message size, before anything else of the
 * bench sends one.  st_table_add_start() adds the time of one of those
 * sends ('send_ns', the MPI_Send's own) by 'rank' in launch 'run', in
 * the order they came: each (run, rank, bytes) is a series.
 * st_table_finish() makes a row per size from its series of at least
 * ST_TABLE_START_MIN sends: the later half of a series is its steady
 * state; a send's excess is its time less that half's median.
 * Returns 0, -EINVAL (finished, bad bytes or time), -ENOMEM.
 */
#define ST_TABLE_START_MSGS 128
#define ST_TABLE_START_MIN 16

struct st_table_start {
	double bytes;		/* the message size */
	size_t series;		/* (launch, rank) series */
	size_t msgs;		/* sends in the longest series */
	double steady_ns;	/* median over the series of their steady
				   state (the later half's median send) */
	/* Each series' excess summed over its sends: median, least, most. */
	double excess_ns, excess_min_ns, excess_max_ns;
	/* The i-th send's excess: the median over the series, 0 when
	   that is below 0; and their sum. */
	double profile_ns[ST_TABLE_START_MSGS];
	double profile_sum_ns;
	size_t slow;		/* 1 + the last send whose profile is over
				   twice the steady state + 1 us; 0: none */
};

int st_table_add_start(struct st_table *t, uint32_t run, int rank,
		       double bytes, double send_ns);

/* The start rows (after st_table_finish()), by size ascending. */
size_t st_table_nstarts(const struct st_table *t);
const struct st_table_start *st_table_start(const struct st_table *t,
					    size_t i);

/*
 * Summarise every group and fit every operation.  Operations are then
 * in order: collectives by name, then point-to-point by name; groups by
 * operation, p, d.  Returns 0 or -ENOMEM (a fit that fails for want of
 * groups is not an error: see st_table_op.fit_rc).
 */
int st_table_finish(struct st_table *t);

/* The operations and groups (after st_table_finish(), in order). */
size_t st_table_nops(const struct st_table *t);
const struct st_table_op *st_table_op(const struct st_table *t, size_t i);
size_t st_table_ngroups(const struct st_table *t);
const struct st_table_group *st_table_group(const struct st_table *t,
					    size_t i);
const struct st_table_options *st_table_opts(const struct st_table *t);

/*
 * How well the launches of a finished table agree, over its groups with
 * at least 2 runs ('n_groups'): the median of their 'run_sd' and of
 * their 'resolvable', and how many cannot resolve the options'
 * 'resolve' (resolvable > resolve).  Medians are NaN when no group has
 * 2 runs.  Returns 0 or -ENOMEM.
 */
struct st_table_launches {
	size_t n_groups;
	size_t max_runs;	/* the most runs any group has */
	double median_run_sd;
	double median_resolvable;
	size_t n_unresolved;
};

int st_table_launches(const struct st_table *t,
		      struct st_table_launches *out);

/* Samples added, and the median and maximum of their known clock
 * errors (NaN when none is known). */
uint64_t st_table_nsamples(const struct st_table *t);
void st_table_clock_err(const struct st_table *t, double *median_ns,
			double *max_ns);

/* One run directory read into the table (tools/analysis/table-read.c). */
struct st_table_run {
	char *dir;
	int nranks;		/* declared by its index */
	int nread;		/* rank files read */
	int nsynced;		/* of them, with global time */
	int complete;		/* the index says complete=1 */
	char *cmdline;
	long long start_unix;	/* -1 when unknown */
	int bench;		/* written by synctrace bench (bench=1) */
	char *run_id;		/* its run_id, or NULL */
	char *sync_check;	/* "init=.. end=.. final=.." ns, or NULL */
	long first_calls;	/* a bench run's first calls, seq 1 to
				   this (header first_calls=N), or 0 */
};

/* Where the samples came from, and what was left out. */
struct st_table_meta {
	struct st_table_run *runs;
	size_t nruns;
	char **hosts;
	size_t nhosts;
	char *mpi_library;	/* of the first rank read */
	int mpi_differs;	/* another rank or run names another one */
	char *clock;		/* clock source of the first rank read */
	double clock_res_ns;	/* largest resolution seen, NaN: unknown */
	int sync_method;	/* enum st_sync_method, -1: none */
	int sync_differs;	/* ranks used several methods */
	/* Left out, over all runs. */
	uint64_t calls_inter;	/* collectives on inter-communicators */
	uint64_t calls_missing;	/* a member's trace missing or cut */
	uint64_t calls_unsynced; /* a member without global time */
	uint64_t incomplete;	/* instances never complete */
	uint64_t p2p_nonblocking; /* transfers with a nonblocking side */
	uint64_t p2p_unmatched;	/* sends or receives never matched */
	uint64_t p2p_inconsistent; /* receive ended before the send began */
	uint64_t p2p_self;	/* a rank's messages to itself */
	uint64_t p2p_unsynced;	/* a side without global time */
	uint64_t ranks_failed;	/* rank files that could not be read */
	/*
	 * Set before reading: only the records in these phases count
	 * (tools/analysis/phase.h; ST_PHASE_ALL by default), and how many
	 * of them began, over runs, ranks and threads.
	 */
	struct st_phase_sel phase;
	uint64_t phases;
};

/* An empty description: no run, resolution NaN, sync method -1. */
void st_table_meta_init(struct st_table_meta *m);

/* Free what 'm' holds; it is then empty (as after st_table_meta_init). */
void st_table_meta_release(struct st_table_meta *m);

/*
 * Read run directory 'dir' into 't' as run number 'run' (0, 1, ...;
 * samples keep it) and describe it in 'm' (appended to m->runs).
 * Blocking collectives are matched across ranks by communicator and
 * sequence number, blocking transfers by (communicator, sender,
 * receiver, tag) in order, all in global time (tools/analysis/merge.h);
 * with a phase selected in m->phase, only CALL, START and DONE records
 * in it are looked at (in both passes, so an instance is there on every
 * member or on none when the ranks mark the same phases).
 * Returns 0; -ENOENT, -EBADMSG (not a run, or no rank readable) with a
 * message in 'err'; -ENOMEM.  A damaged rank file is warned about and
 * read up to the damage.
 */
int st_table_read_run(struct st_table *t, struct st_table_meta *m,
		      const char *dir, uint32_t run, char *err,
		      size_t errlen);

/*
 * Outputs (tools/analysis/table-out.c, tools/analysis/table-html.c), of a finished table
 * and its metadata.  Each returns 0, or -EIO when writing failed.
 *
 * Text: provenance, the formulas (Howell's columns: function, time
 * formula, Q; then adjusted R^2, ranges and counts), the coefficients'
 * confidence intervals, waiting for late ranks, and the group medians.
 */
int st_table_write_text(FILE *f, const struct st_table *t,
			const struct st_table_meta *m);

/* CSV: 'ops' one row per operation and piece of its fit, 'groups' one
 * row per group (either may be NULL). */
int st_table_write_csv(FILE *ops, FILE *groups, const struct st_table *t,
		       const struct st_table_meta *m);

/*
 * JSON for 'synctrace predict': metadata, models, group medians (built
 * with jansson, see tools/analysis/json-out.h).  Returns 0, -EIO or
 * -ENOMEM.
 */
int st_table_write_json(FILE *f, const struct st_table *t,
			const struct st_table_meta *m);

/* A static HTML page with one SVG plot per operation. */
int st_table_write_html(FILE *f, const struct st_table *t,
			const struct st_table_meta *m);

#endif
