/*
 * tools/analysis/imbalance.h: where the time of blocking collectives goes, from
 * synchronised clocks.  The CALL records of one collective instance, the
 * same (communicator id, sequence number) on every member rank, are
 * matched; in global time the instance has a first and a last arrival
 * (entry) and a first and a last exit.  Each member's time in the call
 * splits into waiting for the last rank to arrive (until the last
 * arrival, or until it left if earlier, as a broadcast's root may) and
 * time in the operation after the last arrival (its exit minus the last
 * arrival, if positive).  Much waiting points at load imbalance in the
 * application, much time after the last arrival at the collective itself
 * (network, algorithm).
 *
 * Two passes.  The first (st_imb_scan*) sees each rank's records, one
 * rank after another, and learns per communicator its size, whether it
 * is an inter-communicator, which ranks have records on it and how far
 * each of their traces goes; so the second pass (st_imb_add, records of
 * all ranks in about global time order) only opens instances that can
 * complete, and frees each as soon as its last member's record came:
 * memory grows with the number of ranks, communicators and instances in
 * flight, not with the length of the traces.
 *
 * Only intra-communicators are analysed (on an inter-communicator the
 * two groups play different parts); calls on others are counted as left
 * out.  An instance whose arrival imbalance, or whose time from the last
 * arrival to the last exit, is below the estimated clock error (the sum
 * of the two ranks' errors there) is flagged, not taken as fact.
 */
#ifndef ST_TOOLS_ANALYSIS_IMBALANCE_H
#define ST_TOOLS_ANALYSIS_IMBALANCE_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_imb;

/* Times of a set of collective instances, summed over them. */
struct st_imb_stat {
	uint64_t n;		/* instances analysed (not flagged) */
	uint64_t flagged;	/* left out: shorter than the clock error */
	double imb_ns;		/* last arrival - first arrival */
	double wait_ns;		/* waiting for the last rank, over ranks */
	double after_ns;	/* in the operation after the last arrival,
				   over ranks */
	double skew_ns;		/* last exit - first exit */
};

/*
 * Imbalance pinned on one rank: of the instances analysed (not flagged),
 * how many it arrived last at, and the waiting of all members of those
 * instances, which its late arrival caused.
 */
struct st_imb_blame {
	uint64_t last;
	double caused_ns;
};

/* One row: a function, or a function at one call site. */
struct st_imb_row {
	uint16_t fn;
	long sym;		/* st_imb_site()'s value; -1: unknown */
	struct st_imb_stat s;
	struct st_imb_blame *blame;	/* [nblame], by rank; ranks past
					   the end arrived last nowhere */
	int nblame;
};

/* The whole analysis. */
struct st_imb_totals {
	struct st_imb_stat all;
	uint64_t nerr;		/* instances with a known clock error */
	double err_median_ns;	/* clock error of an instance: the larger */
	double err_max_ns;	/* of its two sums (imbalance, duration) */
	uint64_t incomplete;	/* instances begun, never complete */
	uint64_t calls_inter;	/* calls on inter-communicators */
	uint64_t calls_single;	/* calls on one-rank communicators */
	uint64_t calls_missing;	/* a member's trace is missing or ends
				   before the instance */
	uint64_t calls_unsynced; /* a member has no global time */
	size_t max_open;	/* most instances in flight at once */
};

/* A new analysis, or NULL when out of memory. */
struct st_imb *st_imb_new(void);

/*
 * Give 'dst' what the first pass of 'src' learnt of the communicators
 * (the same records scanned in the same order would teach it the same),
 * in place of its own; 'src' keeps none.  Its call sites (st_imb_site())
 * stay each one's own.
 */
void st_imb_take_scan(struct st_imb *dst, struct st_imb *src);
void st_imb_free(struct st_imb *a);

/*
 * First pass: every record of one rank, in file order, then
 * st_imb_scan_end() with 'synced' non-zero when that rank has global
 * time; then the next rank.  Returns 0 or -ENOMEM.
 */
int st_imb_scan(struct st_imb *a, const struct st_event *ev);
int st_imb_scan_end(struct st_imb *a, int synced);

/*
 * Where call site 'site' of rank 'rank' is, as an index that
 * st_imb_by_site() rows carry in 'sym' (the tools give a symbol table
 * index, so sites merge across ranks).  Returns 0 or -ENOMEM.  Sites
 * not given are -1.
 */
int st_imb_site(struct st_imb *a, int rank, uint32_t site, long sym);

/*
 * Second pass: a record 'ev' of rank 'rank' with its global entry and
 * exit 'g0', 'g1' and their estimated errors 'err0', 'err1' (ns).
 * Records other than CALLs of blocking collectives are ignored.  Each
 * rank's records must come in file order; across ranks, about global
 * time order keeps few instances in flight.  An instance is attributed
 * to the call site of its lowest member rank.  Returns 0 or -ENOMEM.
 */
int st_imb_add(struct st_imb *a, int rank, const struct st_event *ev,
	       double g0, double g1, double err0, double err1);

/*
 * Non-zero when st_imb_add() would use 'ev' (a CALL of a blocking
 * collective with a communicator and a sequence number); the others it
 * ignores, so a walk may hand over these alone.
 */
int st_imb_wants(const struct st_imb *a, const struct st_event *ev);

/* End of the second pass: instances still in flight are incomplete. */
void st_imb_finish(struct st_imb *a);

/*
 * The rows per function, and per (call site, function), in no order;
 * '*n' gets their number.  Valid until the next call that changes 'a'.
 */
const struct st_imb_row *st_imb_by_fn(const struct st_imb *a, size_t *n);
const struct st_imb_row *st_imb_by_site(const struct st_imb *a, size_t *n);

/* Totals, clock errors and what was left out. */
const struct st_imb_totals *st_imb_totals(struct st_imb *a);

/* Instances in flight now. */
size_t st_imb_open(const struct st_imb *a);

/* The blame of every row together, by rank; '*n' gets the length. */
const struct st_imb_blame *st_imb_blame_all(const struct st_imb *a, int *n);

/* A complete instance, as st_imb_set_hook()'s function sees it. */
struct st_imb_done {
	uint64_t comm, seq;
	uint16_t fn;
	uint32_t n;		/* members */
	const int *rank;	/* [n]: each member's rank */
	const double (*t)[2];	/* [n]: its global entry and exit */
	const uint64_t *cookie;	/* [n]: st_imb_set_cookie() at its add */
	double first_arr, last_arr;
	int last_rank;		/* the member that arrived last */
	int flagged;		/* shorter than the clock error */
	long sym;		/* call site of the lowest member rank */
};

typedef void st_imb_done_fn(void *ctx, const struct st_imb_done *d);

/*
 * Call 'fn' with 'ctx' for each instance as it completes (from inside
 * st_imb_add(); the pointers are valid during the call only).
 */
void st_imb_set_hook(struct st_imb *a, st_imb_done_fn *fn, void *ctx);

/*
 * Non-zero when 'ev' (after the first pass) is a blocking collective
 * call whose instance every member's trace holds, with global time, on
 * an intra-communicator of two or more ranks: one that st_imb_add()
 * will see complete when every rank's records are added.
 */
int st_imb_expected(const struct st_imb *a, const struct st_event *ev);

/* Tag the records of the next st_imb_add() calls with 'cookie'. */
void st_imb_set_cookie(struct st_imb *a, uint64_t cookie);

#endif
