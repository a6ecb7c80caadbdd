/*
 * tools/cli/report-views.h: the sections of 'synctrace report' on
 * imbalance by rank and on who talks to whom (report-views.c).
 */
#ifndef ST_TOOLS_CLI_REPORT_VIEWS_H
#define ST_TOOLS_CLI_REPORT_VIEWS_H

/*
 * Print the verdict, the ranks table and the communication matrices of
 * run 'run' to stdout ('top' pairs of each matrix, 0: all), and write
 * the matrices as CSV to 'csv' and as JSON to 'json' (NULL: not).
 * Returns 0, or -1 after an error message when the run cannot be read;
 * dies on a file it cannot write.
 */
int st_report_views(const char *run, long top, const char *csv,
		    const char *json);

#endif
