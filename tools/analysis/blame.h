/*
 * tools/analysis/blame.h: imbalance pinned on ranks, in words and per
 * rank, from a scan whose walk is done (tools/analysis/runscan.h): which
 * rank arrives last at which collective call site how often, and how
 * much of the others' waiting that caused; each rank's MPI time and
 * share of its run time; and whether the ranks outnumbered the cores of
 * their host, in which case waiting may come from the machine.
 */
#ifndef ST_TOOLS_ANALYSIS_BLAME_H
#define ST_TOOLS_ANALYSIS_BLAME_H

#include <stddef.h>
#include <stdint.h>

struct st_imb_row;
struct st_scan;
struct st_symtab;

/* The most telling finding. */
struct st_blame {
	int found;		/* 0: no site with waiting */
	const struct st_imb_row *row;	/* the call site with most waiting */
	int rank;		/* the rank that caused most of it */
	uint64_t last;		/* instances it arrived last at */
	double last_pct;	/* of the row's instances analysed */
	double caused_ns;	/* waiting it caused there */
	double caused_pct;	/* of the row's waiting */
};

struct st_imb;

/* Fill '*b' from the walked scan 's'. */
void st_blame_find(const struct st_scan *s, struct st_blame *b);

/* The same from the analysis 'imb' (the scan's, or another walk's). */
void st_blame_find_imb(const struct st_imb *imb, struct st_blame *b);

/*
 * The verdict as one line into 'buf': "rank 1 arrives last in 97 % of
 * MPI_Allreduce at jacobi.c:101 (n=100 instances) and causes 81 % of
 * its waiting (785 ms of 790 ms)", or why there is none.  Returns 'buf'.
 */
char *st_blame_verdict(const struct st_scan *s, const struct st_blame *b,
		       char *buf, size_t len);

/* The same with the call sites' symbols in 'syms' (st_scan's own). */
char *st_blame_verdict_syms(struct st_symtab *syms, const struct st_blame *b,
			    char *buf, size_t len);

/*
 * When the ranks outnumbered a host's cores, the warning line into
 * 'buf' ("8 ranks ran on host 'vm', which has 2 cores: the waiting may
 * be the machine's, not the application's") and 1; else "" and 0.
 */
int st_blame_oversubscribed(const struct st_scan *s, char *buf, size_t len);

#endif
