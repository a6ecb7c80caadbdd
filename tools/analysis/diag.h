/*
 * tools/analysis/diag.h: how the analysis library reports a problem that
 * it works around (a damaged rank file it skips, a sync record it cannot
 * use).  The library prints nothing else of its own; the command decides
 * where such warnings go (tools/cli/synctrace.c sends them to stderr as
 * "synctrace: warning: ..."), a test may catch them.
 */
#ifndef ST_TOOLS_ANALYSIS_DIAG_H
#define ST_TOOLS_ANALYSIS_DIAG_H

#include <stddef.h>

/* Receives one warning, without prefix or newline. */
typedef void st_warn_fn(const char *msg);

/*
 * Send later warnings of the calling thread to 'fn'; NULL restores the
 * default, which writes "synctrace: warning: <msg>" to stderr.  Every
 * thread starts with the default.
 */
void st_diag_set_warn(st_warn_fn *fn);

/* Format a warning and pass it to the current receiver. */
__attribute__((format(printf, 1, 2)))
void st_warn(const char *fmt, ...);

/*
 * Warnings kept for later (a thread's, to be given in order once its
 * work is merged): NUL-separated in 'text', 'n' of them.
 */
struct st_msgs {
	char *text;
	size_t n, len, alloc;
};

/* Keep a copy of 'msg'.  Returns 0, or -ENOMEM (nothing kept). */
int st_msgs_add(struct st_msgs *m, const char *msg);

#endif
