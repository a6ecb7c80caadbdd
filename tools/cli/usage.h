/*
 * tools/cli/usage.h: how the synctrace command reports problems, after
 * git/git:usage.c.  Messages are lower-case, problem first, subject
 * quoted, no full stop: error("cannot open '%s': %s", path, strerror(e)).
 * Only main() and cmd_*() may die; helpers return error(...) (-1).
 */
#ifndef ST_TOOLS_CLI_USAGE_H
#define ST_TOOLS_CLI_USAGE_H

#include <stdio.h>

/* Exit status of a failed command and of a command-line mistake. */
#define ST_EXIT_FAILURE 1
#define ST_EXIT_USAGE 129

/* Print "synctrace: fatal: <msg>" to stderr and exit ST_EXIT_FAILURE. */
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);

/*
 * Have die(), called from this thread, call 'hook'('arg') before it
 * exits: a command that runs threads of its own joins them there, so
 * none outlives the command (a test harness turns the exit into a jump
 * back and runs the next command).  NULL: none.
 */
void st_on_die(void (*hook)(void *), void *arg);

/* Print "synctrace: error: <msg>" to stderr; returns -1. */
__attribute__((format(printf, 1, 2)))
int error(const char *fmt, ...);

/* Print "synctrace: warning: <msg>" to stderr. */
__attribute__((format(printf, 1, 2)))
void warning(const char *fmt, ...);

/*
 * A command-line mistake: print "synctrace: <msg>" (if 'fmt' is not
 * NULL), the one line that says what was wrong, then the synopsis of
 * 'usage' (a subcommand's help text, see st_usage_synopsis()), to
 * stderr, and exit ST_EXIT_USAGE.
 */
__attribute__((format(printf, 2, 3), noreturn))
void usage_die(const char *usage, const char *fmt, ...);

/*
 * Print to 'f' the synopsis of help text 'usage': its "usage:" and
 * "or:" lines (up to the first blank line, examples left out), then one
 * line saying where the options are ("Run 'synctrace dump --help' for
 * its options.").
 */
void st_usage_synopsis(const char *usage, FILE *f);

/* An impossible state: print "BUG: file:line: <msg>" and abort. */
#define ST_BUG(...) st_bug_fl(__FILE__, __LINE__, __VA_ARGS__)
__attribute__((format(printf, 3, 4), noreturn))
void st_bug_fl(const char *file, int line, const char *fmt, ...);

/*
 * The C library's strerror() for a negative or positive errno 'err', so
 * callers can pass what writer/ returned: strerror_neg(-ENOENT).
 */
const char *strerror_neg(int err);

#endif
