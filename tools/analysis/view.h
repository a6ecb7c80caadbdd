/*
 * tools/analysis/view.h: a run as one self-contained HTML page (no
 * network, no script from elsewhere): a zoomable timeline on global
 * time with a lane per rank and thread, calls coloured by function,
 * waiting inside blocking collectives drawn apart from the operation,
 * messages as lines; the run's key tables (functions, ranks, imbalance
 * by call site with the verdict) and heat maps of the communication
 * matrices.  The page carries at most a set number of calls: when the
 * run has more, the shortest are left out of the detailed view (and
 * still count in every table and in the overview), and each lane also
 * carries a summary in bins, which the page draws while a pixel spans
 * more than a few calls, so millions of records stay responsive.
 */
#ifndef ST_TOOLS_ANALYSIS_VIEW_H
#define ST_TOOLS_ANALYSIS_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct st_scan;

struct st_view_opts {
	size_t max_calls;	/* calls drawn one by one (0: 400000) */
	size_t max_messages;	/* message lines (0: 100000) */
	int top;		/* rows of the call-site table (0: 20) */
};

/* What the page holds. */
struct st_view_stats {
	int lanes;
	uint64_t calls;		/* call records with global time */
	uint64_t kept;		/* drawn one by one */
	double min_ns;		/* the shortest kept: calls below it are
				   only in the bins (0: all kept) */
	uint64_t messages, kept_messages;
};

/*
 * Write the page of 'scan' (not walked yet) to 'f'.  Returns 0, -EIO,
 * -ENOMEM or the walk's negative errno.
 */
int st_view_write(FILE *f, struct st_scan *scan,
		  const struct st_view_opts *opts, struct st_view_stats *st);

#endif
