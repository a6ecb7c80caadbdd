/*
 * tools/cli/report-views.h: the sections of 'synctrace report' on
 * imbalance by rank and on who talks to whom (report-views.c).
 */
#ifndef ST_TOOLS_CLI_REPORT_VIEWS_H
#define ST_TOOLS_CLI_REPORT_VIEWS_H

#include <stddef.h>

/*
 * Print the verdict, the ranks table and the communication matrices of
 * run 'run' to stdout ('top' pairs of each matrix, 0: all), and write
 * the matrices as CSV to 'csv' and as JSON to 'json' (NULL: not), in
 * two steps so that the views' own read of the run goes on while the
 * report reads it for its other sections.  st_report_views_start()
 * starts reading 'run' (of 'nranks' ranks; 1 for a single file) on a
 * thread of its own when the machine has a second core and the
 * open-file limit allows both reads at once, holding the views'
 * warnings back; st_report_views_finish() waits for it (or reads the
 * run then), prints, gives the warnings where a read at that point
 * would have, and frees 'v'.  It returns 0, or -1 after an error
 * message when the run cannot be read; dies on a file it cannot write
 * and when out of memory.
 */
struct st_profile;
struct st_rviews;
struct st_rviews *st_report_views_start(const char *run, int nranks);
int st_report_views_finish(struct st_rviews *v, long top, const char *csv,
			   const char *json, struct st_profile *p);

/*
 * With the views on a thread of their own, their walk of the run in
 * global time also serves the report's collective sections:
 * st_report_views_collectives() does st_profile_collectives()'s work
 * for profile 'p' (every rank read) from the records the walk hands
 * over, as they come, and returns what it would return; or 1 when the
 * views did not walk the run (the report then walks it itself).  The
 * verdict and the ranks table of st_report_views_finish() then come
 * from 'p''s analysis, which is the scan's (one walk, the same records,
 * the same order), named by 'p''s call sites.
 */
int st_report_views_collectives(struct st_rviews *v, struct st_profile *p,
				char *err, size_t errlen);

/* Non-zero when the views' walk will serve the report so (NULL: 0). */
int st_report_views_streams(const struct st_rviews *v);
/* Wait for the thread of 'v' (a struct st_rviews *), if it has one. */
void st_report_views_join(void *v);

#endif
