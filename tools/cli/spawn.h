/*
 * tools/cli/spawn.h: how the synctrace command finds and starts the programs
 * it stands in front of (libsynctrace.so, synctrace-bench, mpiexec).
 * Companions are looked for relative to the synctrace binary, so a build
 * tree and an installed prefix both work without configuration; a job is
 * run as system(3) runs one, and its status becomes the exit status of
 * synctrace, 128 + N when signal N killed it, as a shell reports it.
 */
#ifndef ST_TOOLS_CLI_SPAWN_H
#define ST_TOOLS_CLI_SPAWN_H

#include <stddef.h>

/*
 * The first of the NULL-terminated paths 'rel' that, taken relative to
 * directory 'dir', exists and passes access(2) with 'mode' (R_OK, X_OK).
 * Returns it as an absolute path (realpath(3); free() it), or NULL when
 * none does.
 */
char *st_spawn_find_in(const char *dir, const char *const *rel, int mode);

/*
 * st_spawn_find_in() from the directory that holds the running program
 * (/proc/self/exe), e.g. { "synctrace-bench",
 * "../libexec/synctrace-bench", NULL }.  Returns NULL also when that
 * directory cannot be known.
 */
char *st_spawn_find(const char *const *rel, int mode);

/*
 * The MPI half of 'bench' and 'clockcheck': an executable
 * synctrace-bench next to this program, or in ../libexec or ../bin, as
 * st_spawn_find() returns it (free() it), or NULL.
 */
char *st_spawn_find_bench(void);

/*
 * Replace this process with 'cmd' (NULL-terminated; cmd[0] is looked up
 * in PATH), after flushing stdio.  Returns only on failure, having
 * printed "cannot run 'cmd[0]': <reason>" with error(): 127 when cmd[0]
 * does not exist, else 126, the exit status a shell would give.
 */
int st_spawn_exec(char **cmd);

/*
 * Whether st_spawn_exec() could start a program called 'word' (looked up
 * in PATH when it holds no '/'), as far as a look at the file system
 * tells: 0 when an executable file of that name is there, else the
 * errno execvp(3) would fail with, ENOENT (nothing by that name) or
 * EACCES (not executable, or a directory).
 */
int st_spawn_can_run(const char *word);

/*
 * Run 'cmd' (as st_spawn_exec()) in a child process, wait for it and
 * return its exit status: its exit code, 128 + N when signal N killed
 * it.  While it runs, SIGINT and SIGQUIT are ignored here (as by
 * system(3): ^C reaches the whole job through the terminal, and the
 * caller must outlive it to report what the job left behind), and
 * SIGTERM and SIGHUP are passed on to the child; on return all four are
 * as before, except that SIGTERM and SIGHUP are back to SIG_DFL.
 * Returns -1 with a message in 'err' ('errlen' bytes, as "cannot fork:
 * <reason>") when the child cannot be started or waited for.
 */
int st_spawn_run(char **cmd, char *err, size_t errlen);

/*
 * st_spawn_run(), asking 'stop'('ctx') every 100 ms while the child
 * runs: when it returns nonzero the child gets SIGTERM (once), and is
 * then waited for as usual.  'stop' NULL is st_spawn_run().
 */
int st_spawn_run_watched(char **cmd, char *err, size_t errlen,
			 int (*stop)(void *), void *ctx);

/*
 * Is directory 'dir' empty?  Returns 1 or 0, or -1 with errno set when
 * it cannot be read.  The commands that run a job check with it that
 * the output directory is unused before, and was written after.
 */
int st_dir_is_empty(const char *dir);

#endif
