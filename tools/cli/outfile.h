/*
 * tools/cli/outfile.h: the files the commands write (view's page,
 * export's JSON, table's JSON, CSV and HTML, report's matrices,
 * clockcheck's CSV).  Two rules keep a user's data:
 *
 *  - a trace is never overwritten: an output path that names a rank
 *    file (it starts with the trace magic) or a run's index is refused
 *    before anything is written, so `synctrace view -o run/rank-0.st
 *    run` cannot destroy the run it reads;
 *  - a regular file is replaced only when the output is complete: the
 *    command writes a temporary file beside it and renames it over the
 *    path at the end, so a command that fails halfway leaves the
 *    previous file as it was.  Anything else (a FIFO, a device such as
 *    /dev/stdout, a symbolic link, a directory that cannot hold the
 *    temporary; a file of another owner's, with several names, or not
 *    writable, which a rename would change or overwrite) is written in
 *    place.
 */
#ifndef ST_TOOLS_CLI_OUTFILE_H
#define ST_TOOLS_CLI_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct st_out {
	FILE *f;		/* where to write */
	const char *path;	/* as given; "-" is standard output */
	char *tmp;		/* the temporary beside 'path', or NULL */
};

/*
 * Open 'path' for writing ("-": standard output).  Returns 0, or -1
 * with the reason in 'err' ("'run/rank-0.st' is a synctrace trace
 * file: not overwritten").
 */
int st_out_open(struct st_out *o, const char *path, char *err,
		size_t errlen);

/*
 * Finish 'o': flush and close it; when 'ok' and every write succeeded,
 * rename the temporary over the path, else remove it (the path keeps
 * what it held).  Returns 0, or -1 with the reason in 'err' (also when
 * 'ok' is 0 but then 'err' is left empty).
 */
int st_out_close(struct st_out *o, int ok, char *err, size_t errlen);

/*
 * Whether 'path' may be an output: -1 with the reason in 'err' when it
 * holds synctrace data that must not be overwritten (a rank file or a
 * run index), else 0 (also for NULL and "-").  A command checks its
 * outputs this way before it reads its input, so it fails at once;
 * st_out_open() checks again.
 */
int st_out_check(const char *path, char *err, size_t errlen);

#endif
