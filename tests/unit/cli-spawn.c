/*
 * tests/unit/cli-spawn.c: finding and running programs.  The search
 * takes the first candidate that exists with the wanted access and
 * returns its absolute path; a spawned command's exit code comes back
 * (128 + N when signal N killed it, 127 when it does not exist); while
 * it runs, ^C is ignored and SIGTERM is passed on to it, and afterwards
 * the signal dispositions are as they were.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli/spawn.h"
#include "tools-test.h"

static char dir[256];

static void setup(void)
{
	scratch_dir(dir, sizeof(dir));
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_spawn, .init = setup, .fini = teardown);

Test(tools_spawn, find_takes_first_accessible_candidate)
{
	const char *const rel[] = { "missing", "plain", "sub/../tool", NULL };
	char path[512], real[PATH_MAX], want[PATH_MAX + 16];
	char *got;

	snprintf(path, sizeof(path), "%s/sub", dir);
	cr_assert_eq(mkdir(path, 0777), 0);
	snprintf(path, sizeof(path), "%s/plain", dir);
	write_file(path, "data\n");
	cr_assert_eq(chmod(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/tool", dir);
	write_file(path, "#!/bin/sh\n");
	cr_assert_eq(chmod(path, 0755), 0);
	cr_assert(realpath(dir, real));

	got = st_spawn_find_in(dir, rel, R_OK);
	snprintf(want, sizeof(want), "%s/plain", real);
	cr_expect_str_eq(got ? got : "(null)", want, "first readable one");
	free(got);
	got = st_spawn_find_in(dir, rel, X_OK);
	snprintf(want, sizeof(want), "%s/tool", real);
	cr_expect_str_eq(got ? got : "(null)", want,
			 "'plain' is not executable, and the path is resolved");
	free(got);
	cr_expect_null(st_spawn_find_in(dir, rel + 3, R_OK), "empty list");
	cr_expect_null(st_spawn_find_in("/nonexistent", rel, R_OK));
}

Test(tools_spawn, find_looks_beside_this_program)
{
	char self[PATH_MAX], rel[PATH_MAX + 8];
	const char *const cands[] = { "no-such-program", rel, NULL };
	const char *const none[] = { "no-such-program", NULL };
	char *got, *base, *parent;

	cr_assert(realpath("/proc/self/exe", self));
	/* "../<its directory>/<its name>" leads back to this program. */
	base = strrchr(self, '/');
	*base = '\0';
	parent = strrchr(self, '/');
	snprintf(rel, sizeof(rel), "../%s/%s", parent + 1, base + 1);
	*base = '/';
	got = st_spawn_find(cands, X_OK);
	cr_expect_str_eq(got ? got : "(null)", self);
	free(got);
	cr_expect_null(st_spawn_find(none, X_OK));
}

/* Run argv[1...] and print the exit code, or the error, on stdout. */
static int spawn_and_print(int argc, char **argv)
{
	char err[256];
	int code;

	(void)argc;
	code = st_spawn_run(argv + 1, err, sizeof(err));
	if (code < 0)
		printf("error: %s\n", err);
	else
		printf("code=%d\n", code);
	return 0;
}

Test(tools_spawn, run_returns_exit_code_or_128_plus_signal)
{
	char *exit3[] = { "x", "sh", "-c", "exit 3", NULL };
	char *killed[] = { "x", "sh", "-c", "kill -KILL $$", NULL };
	char *missing[] = { "x", "/nonexistent/mpiexec", NULL };
	char *noexec[] = { "x", dir, NULL };
	struct captured c;

	c = run_cmd(dir, spawn_and_print, exit3);
	cr_expect_str_eq(c.out, "code=3\n");
	captured_free(&c);
	c = run_cmd(dir, spawn_and_print, killed);
	cr_expect_str_eq(c.out, "code=137\n");
	captured_free(&c);
	c = run_cmd(dir, spawn_and_print, missing);
	cr_expect_str_eq(c.out, "code=127\n");
	cr_expect(strstr(c.err, "cannot run '/nonexistent/mpiexec': No such "
			 "file or directory"), "%s", c.err);
	captured_free(&c);
	c = run_cmd(dir, spawn_and_print, noexec);
	cr_expect_str_eq(c.out, "code=126\n", "a directory cannot be run");
	captured_free(&c);
}

Test(tools_spawn, run_survives_int_and_forwards_term)
{
	/* The child signals its parent, the process in st_spawn_run(). */
	char *intr[] = { "x", "sh", "-c", "kill -INT $PPID; kill -QUIT $PPID; "
			 "exit 4", NULL };
	char *term[] = { "x", "sh", "-c", "kill -TERM $PPID; exec sleep 10",
			 NULL };
	char *hup[] = { "x", "sh", "-c", "kill -HUP $PPID; exec sleep 10",
			NULL };
	struct captured c;

	c = run_cmd(dir, spawn_and_print, intr);
	cr_expect_str_eq(c.out, "code=4\n", "^C and ^\\ are ignored");
	captured_free(&c);
	c = run_cmd(dir, spawn_and_print, term);
	cr_expect_str_eq(c.out, "code=143\n", "SIGTERM went to the child");
	captured_free(&c);
	c = run_cmd(dir, spawn_and_print, hup);
	cr_expect_str_eq(c.out, "code=129\n", "SIGHUP went to the child");
	captured_free(&c);
}

static void on_signal(int sig)
{
	(void)sig;
}

Test(tools_spawn, run_restores_signal_dispositions)
{
	struct sigaction mine = { .sa_handler = on_signal }, now;
	char *cmd[] = { "true", NULL };
	char err[256];

	sigemptyset(&mine.sa_mask);
	cr_assert_eq(sigaction(SIGINT, &mine, NULL), 0);
	cr_assert_eq(sigaction(SIGQUIT, &mine, NULL), 0);
	cr_assert_eq(st_spawn_run(cmd, err, sizeof(err)), 0, "%s", err);
	sigaction(SIGINT, NULL, &now);
	cr_expect_eq(now.sa_handler, on_signal);
	sigaction(SIGQUIT, NULL, &now);
	cr_expect_eq(now.sa_handler, on_signal);
	sigaction(SIGTERM, NULL, &now);
	cr_expect_eq(now.sa_handler, SIG_DFL, "no forwarding to a gone pid");
	sigaction(SIGHUP, NULL, &now);
	cr_expect_eq(now.sa_handler, SIG_DFL);
}

/* Exec argv[1...]; st_spawn_exec() returns only on failure. */
static int exec_and_return(int argc, char **argv)
{
	(void)argc;
	return st_spawn_exec(argv + 1);
}

Test(tools_spawn, exec_failure_reports_like_a_shell)
{
	char *missing[] = { "x", "/nonexistent/prog", NULL };
	char *noexec[] = { "x", dir, NULL };
	char *ok[] = { "x", "sh", "-c", "echo replaced; exit 5", NULL };
	struct captured c;

	c = run_cmd(dir, exec_and_return, missing);
	cr_expect_eq(c.status, 127);
	cr_expect(strstr(c.err, "cannot run '/nonexistent/prog': No such "
			 "file or directory"), "%s", c.err);
	captured_free(&c);
	c = run_cmd(dir, exec_and_return, noexec);
	cr_expect_eq(c.status, 126);
	cr_expect(strstr(c.err, "Permission denied"), "%s", c.err);
	captured_free(&c);
	c = run_cmd(dir, exec_and_return, ok);
	cr_expect_eq(c.status, 5);
	cr_expect_str_eq(c.out, "replaced\n");
	cr_expect_str_eq(c.err, "");
	captured_free(&c);
}

Test(tools_spawn, dir_is_empty)
{
	char path[512];

	cr_expect_eq(st_dir_is_empty(dir), 1);
	snprintf(path, sizeof(path), "%s/f", dir);
	write_file(path, "");
	cr_expect_eq(st_dir_is_empty(dir), 0);
	cr_expect_eq(st_dir_is_empty(path), -1, "not a directory");
	snprintf(path, sizeof(path), "%s/none", dir);
	cr_expect_eq(st_dir_is_empty(path), -1);
	cr_expect_eq(errno, ENOENT);
}
