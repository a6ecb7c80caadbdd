/*
 * tests/unit/cli-cmd-run.c: 'synctrace run'.  Options parse into the
 * right settings or a usage error (a bad option starts nothing, and
 * --families takes what the library takes); LD_PRELOAD keeps sanitizer
 * runtimes first; the child sees the variables (SYNCTRACE_DIR an
 * absolute pattern), its stdout passes through untouched, and run exits
 * as it did (128 + N for signal N); the summary has a line per run the
 * library said it made, says whether each is complete and which ranks
 * are missing, or why the library traced nothing.
 */
#include <criterion/criterion.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/analysis/format.h"
#include "pmpi/config.h"
#include "tools/cli/mpi-pick.h"
#include "tools/cli/spawn.h"
#include "tools/cli/synctrace.h"
#include "tools-test.h"

static struct st_run_opts o;
static char err[256];

static int parse(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	err[0] = '\0';
	return st_run_opts_parse(&o, argc, argv, err, sizeof(err));
}

Test(tools_run_opts, options_and_command)
{
	char *argv[] = { "run", "-o", "out", "--buffer", "4M", "--depth=3",
			 "--yield", "--families", "coll,p2p", "--verbose",
			 "-q", "--lib=/x/lib.so", "--", "mpiexec.mpich", "-n",
			 "2", "./app", NULL };

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect_str_eq(o.dir, "out");
	cr_expect_eq(o.buffer, 4 << 20);
	cr_expect_eq(o.depth, 3);
	cr_expect(o.yield && o.verbose && o.quiet);
	cr_expect_str_eq(o.families, "coll,p2p");
	cr_expect_str_eq(o.lib, "/x/lib.so");
	cr_expect_str_eq(o.cmd[0], "mpiexec.mpich");
	cr_expect_str_eq(o.cmd[1], "-n", "the command's options are its own");
	cr_expect_null(o.cmd[4]);
}

Test(tools_run_opts, command_starts_at_first_non_option)
{
	char *argv[] = { "run", "--output=d", "./app", "--yield", NULL };

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect_str_eq(o.dir, "d");
	cr_expect_eq(o.yield, 0);
	cr_expect_eq(o.depth, -1, "unset");
	cr_expect_eq(o.buffer, 0, "unset");
	cr_expect_str_eq(o.cmd[0], "./app");
	cr_expect_str_eq(o.cmd[1], "--yield");
}

Test(tools_run_opts, mpi)
{
	char *argv[] = { "run", "--mpi", "openmpi", "srun", "./app", NULL };
	char *none[] = { "run", "srun", "./app", NULL };

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect_eq(o.mpi, ST_MPI_OPENMPI);
	cr_expect_str_eq(o.cmd[0], "srun");
	cr_assert_eq(parse(none), 0, "%s", err);
	cr_expect_eq(o.mpi, ST_MPI_UNKNOWN);
}

Test(tools_run_opts, help)
{
	char *argv[] = { "run", "--help", "--nonsense", NULL };

	cr_assert_eq(parse(argv), 0);
	cr_expect(o.help);
}

Test(tools_run_opts, usage_errors)
{
	static const struct { char *a, *b; const char *msg; } bad[] = {
		{ "--frob", "x", "unknown option '--frob'" },
		{ "--buffer", "lots", "bad size 'lots' for '--buffer'" },
		{ "--buffer", "100", "below the minimum of 8192 bytes" },
		{ "--depth", "65", "bad depth '65' for '--depth' (0..64)" },
		{ "--depth", "-1", "bad depth '-1'" },
		{ "--families", "a b", "bad family list 'a b'" },
		{ "--", NULL, "no command given" },
		{ "-o", NULL, "option '--output' needs a directory" },
		{ "--mpi", "lam", "option '--mpi' needs mpich or openmpi" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "run", bad[i].a, bad[i].b, NULL };

		cr_expect_eq(parse(argv), -1, "%s accepted", bad[i].a);
		cr_expect(strstr(err, bad[i].msg), "'%s' for %s", err,
			  bad[i].a);
	}
}

Test(tools_run, preload_keeps_sanitizers_first)
{
	char *s;

	s = st_preload_join("/l/libsynctrace.so", NULL);
	cr_expect_str_eq(s, "/l/libsynctrace.so");
	free(s);
	s = st_preload_join("/l/libsynctrace.so", "");
	cr_expect_str_eq(s, "/l/libsynctrace.so");
	free(s);
	s = st_preload_join("/l/libsynctrace.so", "/a/libx.so /b/liby.so");
	cr_expect_str_eq(s, "/l/libsynctrace.so:/a/libx.so:/b/liby.so");
	free(s);
	s = st_preload_join("/l/libsynctrace.so",
			    "/a/libx.so:/usr/lib/gcc/libasan.so.8");
	cr_expect_str_eq(s, "/usr/lib/gcc/libasan.so.8:/l/libsynctrace.so:"
			 "/a/libx.so");
	free(s);
	s = st_preload_join("/l/libsynctrace.so",
			    "/l/libsynctrace.so::/a/libx.so");
	cr_expect_str_eq(s, "/l/libsynctrace.so:/a/libx.so", "no duplicate");
	free(s);
}

Test(tools_run, rank_lists)
{
	char buf[128];
	int ranks[] = { 0, 2, 3, 4, 7, 9, 10 };

	st_rank_list(ranks, 7, buf, sizeof(buf));
	cr_expect_str_eq(buf, "0,2-4,7,9-10");
	st_rank_list(ranks, 1, buf, sizeof(buf));
	cr_expect_str_eq(buf, "0");
	st_rank_list(ranks, 0, buf, sizeof(buf));
	cr_expect_str_eq(buf, "");
	st_rank_list(ranks, 7, buf, 6);
	cr_expect_str_eq(buf, "0,2-4", "truncated, terminated");
}

static char dir[256];
static char lib[512];

static int find_libz(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libz.so")) {
		snprintf(lib, sizeof(lib), "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static void setup(void)
{
	scratch_dir(dir, sizeof(dir));
	/* A harmless real library to preload: zlib, linked into the tests. */
	cr_assert(dl_iterate_phdr(find_libz, NULL), "libz not loaded");
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_cmd_run, .init = setup, .fini = teardown);

Test(tools_cmd_run, child_gets_environment_and_exit_status)
{
	char out[400], libopt[600];
	char *argv[] = { "run", "-o", out, libopt, "--buffer", "64K",
			 "--depth", "4", "--yield", "--families", "coll",
			 "--verbose", "--", "sh", "-c",
			 "echo \"$SYNCTRACE_DIR|$LD_PRELOAD|"
			 "$SYNCTRACE_BUFFER|$SYNCTRACE_DEPTH|$SYNCTRACE_YIELD|"
			 "$SYNCTRACE_FAMILIES|$SYNCTRACE_VERBOSE\"; exit 3",
			 NULL };
	char want[2048], *real;
	struct captured c;

	snprintf(out, sizeof(out), "%s/trace", dir);
	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	unsetenv("LD_PRELOAD");
	c = run_cmd(dir, cmd_run, argv);
	cr_expect_eq(c.status, 3);
	real = realpath(lib, NULL);
	cr_assert(real);
	snprintf(want, sizeof(want), "%s|%s|65536|4|1|coll|1\n", out, real);
	cr_expect_str_eq(c.out, want, "stdout is exactly the command's");
	cr_expect(strstr(c.err, "synctrace: no trace written"), "%s", c.err);
	cr_expect_eq(access(out, F_OK), -1, "an empty new directory goes");
	free(real);
	captured_free(&c);
}

Test(tools_cmd_run, summary_line_complete_and_incomplete)
{
	char out[400], libopt[600];
	char *argv[] = { "run", "-o", out, libopt, "--", "sh", "-c",
			 "printf 'nranks=3\\ncomplete=1\\n' > "
			 "\"$SYNCTRACE_DIR/synctrace.run\"; for r in 0 1 2; do "
			 ": > \"$SYNCTRACE_DIR/rank-$r.st\"; done", NULL };
	char *argv2[] = { "run", "-o", out, libopt, "--", "sh", "-c",
			  "printf 'nranks=4\\n' > "
			  "\"$SYNCTRACE_DIR/synctrace.run\"; "
			  ": > \"$SYNCTRACE_DIR/rank-0.st\"", NULL };
	char *argv3[] = { "run", "-q", "-o", out, libopt, "--", "sh", "-c",
			  "printf 'nranks=1\\n' > "
			  "\"$SYNCTRACE_DIR/synctrace.run\"", NULL };
	char want[600];
	struct captured c;

	snprintf(out, sizeof(out), "%s/t1", dir);
	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	c = run_cmd(dir, cmd_run, argv);
	cr_expect_eq(c.status, 0);
	snprintf(want, sizeof(want), "synctrace: trace in %s (3 ranks, "
		 "complete)\n", out);
	cr_expect_str_eq(c.err, want);
	cr_expect_str_eq(c.out, "");
	captured_free(&c);

	snprintf(out, sizeof(out), "%s/t2", dir);
	c = run_cmd(dir, cmd_run, argv2);
	cr_expect_eq(c.status, 0);
	snprintf(want, sizeof(want), "synctrace: trace in %s (4 ranks, "
		 "incomplete: ranks 1-3 missing)\n", out);
	cr_expect_str_eq(c.err, want);
	captured_free(&c);

	snprintf(out, sizeof(out), "%s/t3", dir);
	c = run_cmd(dir, cmd_run, argv3);
	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.err, "", "-q prints nothing");
	captured_free(&c);
}

Test(tools_cmd_run, signal_and_exec_failures)
{
	char out[400], libopt[600];
	char *killed[] = { "run", "-q", "-o", out, libopt, "--", "sh", "-c",
			   "kill -TERM $$", NULL };
	char *nocmd[] = { "run", "-o", out, libopt, "--",
			  "/nonexistent/mpiexec", NULL };
	struct captured c;

	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	snprintf(out, sizeof(out), "%s/k", dir);
	c = run_cmd(dir, cmd_run, killed);
	cr_expect_eq(c.status, 128 + 15);
	captured_free(&c);
	snprintf(out, sizeof(out), "%s/n", dir);
	c = run_cmd(dir, cmd_run, nocmd);
	cr_expect_eq(c.status, 127);
	cr_expect(strstr(c.err, "cannot run '/nonexistent/mpiexec': No such "
			 "file or directory"), "%s", c.err);
	captured_free(&c);
}

/*
 * Without --lib, a command that names no MPI and cannot be started: it
 * once got "cannot tell which MPI" (exit 1) when both libraries were
 * there, rather than the exec failure's message and status.
 */
Test(tools_cmd_run, command_not_found_before_the_mpi_is_told)
{
	char out[400], noexec[500];
	char *nocmd[] = { "run", "-o", out, "--", "/nonexistent/app", NULL };
	char *nopath[] = { "run", "-o", out, "--", "st-no-such-program",
			   NULL };
	char *notx[] = { "run", "-o", out, "--", noexec, NULL };
	char want[600];
	struct captured c;

	snprintf(out, sizeof(out), "%s/n", dir);
	unsetenv("LD_PRELOAD");
	c = run_cmd(dir, cmd_run, nocmd);
	cr_expect_eq(c.status, 127, "%s", c.err);
	cr_expect(strstr(c.err, "cannot run '/nonexistent/app': No such "
			 "file or directory"), "%s", c.err);
	captured_free(&c);
	c = run_cmd(dir, cmd_run, nopath);
	cr_expect_eq(c.status, 127, "%s", c.err);
	cr_expect(strstr(c.err, "cannot run 'st-no-such-program': No such "
			 "file or directory"), "%s", c.err);
	captured_free(&c);
	snprintf(noexec, sizeof(noexec), "%s/noexec.sh", dir);
	write_file(noexec, "exit 0\n");
	c = run_cmd(dir, cmd_run, notx);
	cr_expect_eq(c.status, 126, "%s", c.err);
	snprintf(want, sizeof(want), "cannot run '%s': Permission denied",
		 noexec);
	cr_expect(strstr(c.err, want), "%s", c.err);
	captured_free(&c);
	cr_expect_eq(access(out, F_OK), -1, "no run directory is left");
}

Test(tools_cmd_run, refuses_non_empty_directory_and_bad_lib)
{
	char out[400], libopt[600], file[500];
	char *argv[] = { "run", "-o", out, libopt, "--", "true", NULL };
	char *badlib[] = { "run", "-o", out, "--lib", "/nonexistent/lib.so",
			   "--", "true", NULL };
	struct captured c;

	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	snprintf(out, sizeof(out), "%s/full", dir);
	cr_assert_eq(mkdir(out, 0777), 0);
	snprintf(file, sizeof(file), "%s/x", out);
	write_file(file, "x");
	c = run_cmd(dir, cmd_run, argv);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "synctrace: fatal: run directory '"), "%s",
		  c.err);
	cr_expect(strstr(c.err, "already exists and is not empty"));
	captured_free(&c);
	c = run_cmd(dir, cmd_run, badlib);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "cannot use '/nonexistent/lib.so' as the "
			 "synctrace library"), "%s", c.err);
	captured_free(&c);
}

Test(tools_cmd_run, default_directory_is_a_pattern_here)
{
	char libopt[600], cwd[512], sub[400], want[1200];
	char *argv[] = { "run", libopt, "--", "sh", "-c",
			 "echo \"$SYNCTRACE_DIR\"; case $SYNCTRACE_NOTIFY in "
			 "\"$PWD\"/.synctrace-run-*) test -f "
			 "\"$SYNCTRACE_NOTIFY\" && echo notify;; esac", NULL };
	struct captured c;
	char *real;

	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	/* A '%' in the working directory is no escape. */
	snprintf(sub, sizeof(sub), "%s/a%%b", dir);
	cr_assert_eq(mkdir(sub, 0777), 0);
	cr_assert(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(sub), 0);
	c = run_cmd(dir, cmd_run, argv);
	cr_assert_eq(chdir(cwd), 0);
	cr_expect_eq(c.status, 0);
	real = realpath(sub, NULL);
	cr_assert(real);
	cr_assert(strlen(real) > 4);
	snprintf(want, sizeof(want),
		 "%.*s/a%%%%b/synctrace-%%x-%%t-%%p\nnotify\n",
		 (int)strlen(real) - 4, real);
	cr_expect_str_eq(c.out, want);
	cr_expect(strstr(c.err, "no trace written (did the command start MPI "
			 "programs?)"), "%s", c.err);
	/* The notify file is gone, and nothing else was made. */
	cr_expect_eq(st_dir_is_empty(sub), 1);
	free(real);
	captured_free(&c);
}

Test(tools_cmd_run, one_line_per_run_the_library_made)
{
	char libopt[600], cwd[512], script[2048];
	char *argv[] = { "run", libopt, "--", "sh", "-c", script, NULL };
	struct captured c;
	char want[2048];

	/* Two MPI programs, as the library would tell of them. */
	snprintf(script, sizeof(script),
		 "for d in one two; do mkdir \"$PWD/$d\" && "
		 "printf 'run_id=x\\nnranks=1\\ncomplete=1\\n' > "
		 "\"$PWD/$d/synctrace.run\" && : > \"$PWD/$d/rank-0.st\" && "
		 "printf 'run\\t%%s\\n' \"$PWD/$d\" >> \"$SYNCTRACE_NOTIFY\"; "
		 "done; printf 'run\\t/elsewhere/three\\n' >> "
		 "\"$SYNCTRACE_NOTIFY\"");
	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	cr_assert(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	c = run_cmd(dir, cmd_run, argv);
	cr_assert_eq(chdir(cwd), 0);
	cr_expect_eq(c.status, 0);
	snprintf(want, sizeof(want),
		 "synctrace: trace in one (1 rank, complete)\n"
		 "synctrace: trace in two (1 rank, complete)\n"
		 "synctrace: no readable trace in /elsewhere/three: "
		 "'/elsewhere/three': not a synctrace run (no "
		 "synctrace.run)\n");
	cr_expect_str_eq(c.err, want);
	captured_free(&c);
}

Test(tools_cmd_run, says_why_the_library_traced_nothing)
{
	char out[400], libopt[600];
	char *off[] = { "run", "-o", out, libopt, "--", "sh", "-c",
			"printf 'off\\tSYNCTRACE_CLOCK_SKEW=x is bad\\n' >> "
			"\"$SYNCTRACE_NOTIFY\"", NULL };
	char *quiet[] = { "run", "-o", out, libopt, "--", "true", NULL };
	struct captured c;

	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	snprintf(out, sizeof(out), "%s/t1", dir);
	c = run_cmd(dir, cmd_run, off);
	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.err, "synctrace: no trace written: tracing was "
			 "switched off: SYNCTRACE_CLOCK_SKEW=x is bad\n");
	cr_expect_eq(access(out, F_OK), -1, "the empty directory goes");
	captured_free(&c);
	setenv("SYNCTRACE_DISABLE", "1", 1);
	c = run_cmd(dir, cmd_run, quiet);
	unsetenv("SYNCTRACE_DISABLE");
	cr_expect_str_eq(c.err, "synctrace: no trace written "
			 "(SYNCTRACE_DISABLE=1 is set)\n");
	captured_free(&c);
}

Test(tools_cmd_run, bad_options_start_nothing)
{
	char out[400], libopt[600], mark[500], script[600];
	static const char *const bad[][2] = {
		{ "--families", "MPI_Allreduce" },
		{ "--families", "coll," },
		{ "--buffer", "2G" },
		{ "--output", "t-%q" },
	};
	struct captured c;
	size_t i;

	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	snprintf(mark, sizeof(mark), "%s/started", dir);
	snprintf(script, sizeof(script), ": > '%s'", mark);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char *argv[] = { "run", (char *)bad[i][0], (char *)bad[i][1],
				 libopt, "--", "sh", "-c", script, NULL };

		c = run_cmd(dir, cmd_run, argv);
		cr_expect_eq(c.status, 129, "%s %s", bad[i][0], bad[i][1]);
		cr_expect(strstr(c.err, "usage: synctrace run"), "%s", c.err);
		cr_expect_eq(access(mark, F_OK), -1, "%s %s started the job",
			     bad[i][0], bad[i][1]);
		captured_free(&c);
	}
	snprintf(out, sizeof(out), "%s/x", dir);
	{
		char *argv[] = { "run", "--output", "t-%q", libopt, "--",
				 "true", NULL };

		c = run_cmd(dir, cmd_run, argv);
		cr_expect(strstr(c.err, "bad directory pattern 't-%q' for "
				 "'--output': unknown escape '%q'"), "%s",
			  c.err);
		captured_free(&c);
	}
}

Test(tools_cmd_run, output_pattern_goes_to_the_library)
{
	char libopt[600], cwd[512], want[1024];
	char *argv[] = { "run", "-o", "t-%j.%n", libopt, "--", "sh", "-c",
			 "echo \"$SYNCTRACE_DIR\"", NULL };
	struct captured c;
	char *real;

	snprintf(libopt, sizeof(libopt), "--lib=%s", lib);
	cr_assert(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	c = run_cmd(dir, cmd_run, argv);
	cr_assert_eq(chdir(cwd), 0);
	real = realpath(dir, NULL);
	cr_assert(real);
	snprintf(want, sizeof(want), "%s/t-%%j.%%n\n", real);
	cr_expect_str_eq(c.out, want);
	snprintf(want, sizeof(want), "%s/t-%%j.%%n", dir);
	cr_expect_eq(access(want, F_OK), -1, "run made the directory itself");
	free(real);
	captured_free(&c);
}

Test(tools_run_opts, families_as_the_library_reads_them)
{
	static const char *const lists[] = {
		"all", "coll", "blocking,nonblocking", "persistent",
		"neighbor", "p2p,complete", "comm", "-p2p", "all,-p2p",
		"coll,-neighbor", "", "MPI_Allreduce", "coll,", ",coll",
		"coll,,p2p", "Coll", "-", "p2p,-", "all p2p", "rma", "io",
		"all,-io", "rma,io,-rma", "-rma,-io", "RMA",
	};
	struct st_settings set;
	char e[256];
	size_t i;

	for (i = 0; i < sizeof(lists) / sizeof(*lists); i++) {
		int cli = st_run_families_ok(lists[i]);
		int lib;

		setenv("SYNCTRACE_FAMILIES", lists[i], 1);
		lib = st_config_load(&set, e, sizeof(e)) == 0;
		cr_expect_eq(cli, lib, "'%s': run says %d, the library %d",
			     lists[i], cli, lib);
	}
	unsetenv("SYNCTRACE_FAMILIES");
}
