/*
 * tools/analysis/runscan.h: one read of a whole run for the views
 * (export, view, matrix, imbalance by rank).  st_scan_open() reads every
 * rank's file once, in file order, and keeps only what is small: each
 * rank's global clock, header facts (host, core count), threads, its
 * global time span, run time and MPI time; every communicator's members
 * (world ranks by communicator rank, from the COMM records of all
 * ranks); call sites symbolised with addr2line; per function, calls and
 * time; and the first pass of the collective-instance analysis
 * (tools/analysis/imbalance.h).  st_scan_walk() then hands out every
 * record of the ranks with global time in global time order, feeding
 * the second pass of that analysis on the way, so a consumer sees a
 * record and the analysis in step.  Memory grows with ranks,
 * communicators and call sites, not with the length of the traces.
 */
#ifndef ST_TOOLS_ANALYSIS_RUNSCAN_H
#define ST_TOOLS_ANALYSIS_RUNSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "tools/analysis/u64map.h"

struct st_event;
struct st_gclock;
struct st_imb;
struct st_merge;
struct st_merged;
struct st_symtab;

/* What the scan learnt of one rank. */
struct st_scan_rank {
	char *path;		/* its trace file; NULL when missing */
	int read;		/* the file was opened */
	int damaged;		/* it ended on an error: counts stop there */
	int truncated;		/* its writer was killed mid-chunk */
	struct st_gclock *clk;	/* no epochs: no global time */
	char *host;		/* header 'host', NULL when absent */
	long ncores;		/* header 'ncores' (online CPUs), 0: unknown */
	uint32_t nthreads;	/* highest thread index + 1 */
	uint64_t records;	/* of every kind */
	uint64_t kinds[9];	/* records per enum st_rec_kind */
	uint64_t calls;		/* CALL records */
	double g_min, g_max;	/* global span of its timed records, NaN */
	int have_run;		/* run_ns is known */
	uint64_t t_start, t_end; /* local: end of MPI_Init, start of
				   MPI_Finalize (or last record) */
	double g_start, g_end;	/* the same in global time, NaN */
	uint64_t run_ns;	/* t_end - t_start */
	uint64_t mpi_ns;	/* time in calls other than Init, Finalize */
	uint64_t mpi_calls;
};

/* A communicator as the COMM records of its members describe it. */
struct st_scan_comm {
	uint64_t id;
	uint32_t size;		/* local group */
	uint32_t remote_size;	/* 0 unless an inter-communicator */
	int32_t *world;		/* [size]: world rank of each rank in it,
				   -1 unknown; NULL for inter-communicators */
};

/* Per function id, over all ranks. */
struct st_scan_fn {
	uint64_t calls, time_ns;
};

struct st_scan {
	char *dir;		/* as given */
	int nranks;		/* declared (1 for a single file) */
	int nread;		/* ranks whose file was opened */
	int nsynced;		/* of them, ranks with global time */
	int failed;		/* a file could not be read whole */
	struct st_scan_rank *rank;	/* [nranks] */
	char *cmdline;		/* run index, NULL when unknown */
	int complete;		/* run index 'complete': 1, 0, -1 unknown */
	long long start_unix;	/* run index 'start_unix', -1 unknown */
	char *clock;		/* rank 0's header: clock source, or NULL */
	double clock_res_ns;	/* its resolution, NaN unknown */
	char *mpi_library;
	int sync_method;	/* enum st_sync_method, -1 none */
	double g_min, g_max;	/* global span of the run, NaN */
	struct st_scan_comm *comms;
	size_t ncomms;
	struct st_scan_fn *fn;	/* [st_fn_count()] */
	struct st_symtab *syms;	/* call sites, resolved */
	struct st_imb *imb;	/* collective instances: first pass done */

	/* private */
	struct st_u64map comm_of;	/* id -> index in 'comms' */
	struct st_u64map site_of;	/* rank << 32 | site -> sym + 1 */
	size_t alloc_comms;
};

/*
 * Read run directory (or single rank file) 'path'.  Damaged, truncated
 * and missing files give a warning (tools/analysis/diag.h) and are read
 * as far as they go; 'addr2line' names the program that symbolises call
 * sites (NULL: sites stay unresolved).  Returns 0, or a negative errno
 * with a message in 'err' when 'path' is no run or no rank could be
 * read; -ENOMEM.
 */
int st_scan_open(struct st_scan **out, const char *path,
		 const char *addr2line, char *err, size_t errlen);

/*
 * The same, but for a caller that needs no global span: each rank's
 * 'g_min' and 'g_max' and the run's stay NaN, and each rank file is read
 * once instead of twice (its clock is built from its sync records as
 * they come, since no record needs global time before the end).
 */
int st_scan_open_nospan(struct st_scan **out, const char *path,
			const char *addr2line, char *err, size_t errlen);

void st_scan_free(struct st_scan *s);

/* The communicator 'id', or NULL when no member recorded it. */
const struct st_scan_comm *st_scan_comm(const struct st_scan *s,
					uint64_t id);

/*
 * World rank of rank 'r' of communicator 'id' (an intra-communicator),
 * or -1 when unknown.
 */
int st_scan_world(const struct st_scan *s, uint64_t id, int32_t r);

/*
 * The symbol table index of call site 'site' of rank 'rank' (merged
 * across ranks by object and offset of the application's frame), or -1.
 */
long st_scan_site(const struct st_scan *s, int rank, uint32_t site);

/*
 * "file.c:88" (or "func", or "obj+0xoff") of symbol 'sym' into 'buf';
 * "?" for -1.  Returns 'buf'.
 */
char *st_scan_site_label(const struct st_scan *s, long sym, char *buf,
			 size_t len);

/*
 * A merge in global time ('*out', tools/analysis/merge.h) of every rank
 * of 's' that was read and has a clock.  Returns 0, or -ENOMEM, or
 * another negative errno, warned of, with its message in 'err'.
 */
int st_scan_merge(const struct st_scan *s, struct st_merge **out, char *err,
		  size_t errlen);

/* st_scan_site_label() of symbol 'sym' of the table 'syms'. */
char *st_sym_site_label(struct st_symtab *syms, long sym, char *buf,
			size_t len);

/*
 * Called by st_scan_walk() for every record of every rank with global
 * time, in global entry time order (st_merge_next()), just before the
 * collective analysis sees it (so the callback may st_imb_set_cookie()
 * for it).  Returns 0 to go on, else the walk stops with that value.
 */
typedef int st_scan_walk_fn(void *ctx, const struct st_merged *x);

/*
 * Walk the run once ('fn' may be NULL): the second pass of the
 * collective analysis, st_imb_finish() at its end.  Call it at most
 * once per scan.  Returns 0, the callback's non-zero value, or a
 * negative errno when a file cannot be opened (after a warning).
 */
int st_scan_walk(struct st_scan *s, st_scan_walk_fn *fn, void *ctx);

/*
 * Call 'fn' for every record of every rank that was read, rank by rank,
 * each rank's in file order (damage just ends a rank: the scan warned
 * already).  Returns 0, 'fn''s non-zero value, or a negative errno when
 * a file cannot be opened.
 */
typedef int st_scan_sweep_fn(void *ctx, int rank, const struct st_event *ev);
int st_scan_sweep(const struct st_scan *s, st_scan_sweep_fn *fn, void *ctx);

/*
 * When some host ran more ranks than it has cores (header 'ncores'), the
 * largest such number of ranks, with that host and its core count in
 * '*host' and '*ncores' (either may be NULL); else 0.
 */
int st_scan_oversubscribed(const struct st_scan *s, const char **host,
			   long *ncores);

#endif
