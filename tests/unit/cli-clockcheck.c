/*
 * tests/unit/cli-clockcheck.c: 'synctrace clockcheck'.  Options parse
 * into the right settings or a usage error naming the problem; the
 * mpiexec command line carries exactly the options given, with the extra
 * mpiexec arguments before the program; and the command really runs it:
 * a stand-in mpiexec sees the arguments, SYNCTRACE_CLOCK_SKEW and an
 * absolute CSV path, and a CSV path that cannot be written fails first.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli/synctrace.h"
#include "tools-test.h"

static struct st_clockcheck_opts o;
static char err[256];

static int parse(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	err[0] = '\0';
	return st_clockcheck_opts_parse(&o, argc, argv, err, sizeof(err));
}

/* The command line of 'o' as one string, words separated by spaces. */
static void joined(const char *bench, const char *csv, char *buf,
		   size_t len)
{
	char nbuf[32], **v = st_clockcheck_argv(&o, bench, csv, nbuf,
						 sizeof(nbuf));
	size_t used = 0;
	int i;

	cr_assert(v);
	buf[0] = '\0';
	for (i = 0; v[i]; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? " " : "", v[i]);
	free(v);
}

Test(tools_clockcheck_opts, defaults)
{
	char *argv[] = { "clockcheck", NULL };
	char line[1024];

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect_eq(o.nranks, 2);
	cr_expect_str_eq(o.mpiexec, "mpiexec.mpich");
	cr_expect_null(o.times);
	cr_expect_null(o.methods);
	cr_expect_null(o.refresh);
	cr_expect_null(o.skew);
	cr_expect_null(o.csv);
	cr_expect_eq(o.node, 0);
	cr_expect_eq(o.nextra, 0);
	joined("/b/synctrace-bench", NULL, line, sizeof(line));
	cr_expect_str_eq(line, "mpiexec.mpich -n 2 /b/synctrace-bench "
			 "clockcheck", "the program's defaults apply");
}

Test(tools_clockcheck_opts, every_option_reaches_the_program)
{
	char *argv[] = { "clockcheck", "-n", "4", "--times=0,2.5,1",
			 "--methods", "hca,skampi-tree,jk", "--refresh", "0.5",
			 "--refresh-methods=hca,jk", "--skew",
			 "0,+0.9s@+100ppm", "--node", "--params",
			 "fit_points=8,fit_span_ms=0,check_pingpongs=20",
			 "--csv", "out.csv", "--mpiexec", "/x/mpiexec", "--",
			 "-launcher", "fork", "-hosts", "a,b", NULL };
	char line[1024];

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect_eq(o.nranks, 4);
	cr_expect_str_eq(o.times, "0,2.5,1");
	cr_expect_str_eq(o.skew, "0,+0.9s@+100ppm");
	cr_expect_str_eq(o.csv, "out.csv");
	cr_expect(o.node);
	cr_assert_eq(o.nextra, 4);
	cr_expect_str_eq(o.extra[0], "-launcher");
	cr_expect_str_eq(o.extra[3], "a,b");
	joined("/b/synctrace-bench", "/abs/out.csv", line, sizeof(line));
	cr_expect_str_eq(line, "/x/mpiexec -n 4 -launcher fork -hosts a,b "
			 "/b/synctrace-bench clockcheck --times 0,2.5,1 "
			 "--methods hca,skampi-tree,jk --refresh 0.5 "
			 "--refresh-methods hca,jk --params "
			 "fit_points=8,fit_span_ms=0,check_pingpongs=20 "
			 "--csv /abs/out.csv --node",
			 "the skew goes by the environment, not argv");
}

Test(tools_clockcheck_opts, help)
{
	char *argv[] = { "clockcheck", "--help", "--nonsense", NULL };

	cr_assert_eq(parse(argv), 0);
	cr_expect(o.help);
}

Test(tools_clockcheck_opts, usage_errors)
{
	static const struct { char *a, *b; const char *msg; } bad[] = {
		{ "--frob", NULL, "unknown option '--frob'" },
		{ "stray", NULL, "unexpected argument 'stray'" },
		{ "-n", "1", "bad number of ranks '1' for '-n' (2 or more)" },
		{ "-n", "two", "bad number of ranks 'two'" },
		{ "-n", NULL, "option '-n' needs a number" },
		{ "--times", "0,x", "bad time list '0,x' for '--times'" },
		{ "--times", "-1", "bad time list '-1'" },
		{ "--times", "0,,1", "bad time list '0,,1'" },
		{ "--times", "", "bad time list ''" },
		{ "--times", "1,0,1", "time given twice in '1,0,1'" },
		{ "--times", "100000", "bad time list '100000'" },
		{ "--methods", "hca,ntp", "bad method list 'hca,ntp' for "
					  "'--methods'" },
		{ "--methods", "jk,jk", "method given twice in 'jk,jk'" },
		{ "--refresh-methods", "x", "bad method list 'x' for "
					    "'--refresh-methods'" },
		{ "--refresh", "0.001", "bad period '0.001' for '--refresh'" },
		{ "--refresh", "soon", "bad period 'soon'" },
		{ "--skew", "0,fast", "bad '--skew': SYNCTRACE_CLOCK_SKEW "
				      "entry 1 'fast'" },
		{ "--params", "fit_points=0", "bad value in 'fit_points=0'" },
		{ "--params", "exchanges=x", "bad value in 'exchanges=x'" },
		{ "--params", "speed=3", "unknown key in 'speed=3'" },
		{ "--params", "fit_points", "bad parameter list 'fit_points'" },
		{ "--csv", "", "option '--csv' needs a file name" },
		{ "--mpiexec", NULL, "option '--mpiexec' needs a program" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "clockcheck", bad[i].a, bad[i].b, NULL };

		cr_expect_eq(parse(argv), -1, "%s %s accepted", bad[i].a,
			     bad[i].b ? bad[i].b : "");
		cr_expect(strstr(err, bad[i].msg), "'%s' for %s %s", err,
			  bad[i].a, bad[i].b ? bad[i].b : "");
	}
}

Test(tools_clockcheck_opts, values_at_the_limits)
{
	char *ok[][3] = {
		{ "--times", "0", NULL },
		{ "--times", "86400", NULL },
		{ "--refresh", "0", NULL },
		{ "--refresh", "0.01", NULL },
		{ "--params", "fit_span_ms=0,pingpongs=1000000", NULL },
		{ "--methods", "hca,hca2,skampi,skampi-tree,jk", NULL },
		{ "-n", "2", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *argv[] = { "clockcheck", ok[i][0], ok[i][1], NULL };

		cr_expect_eq(parse(argv), 0, "%s %s: %s", ok[i][0], ok[i][1],
			     err);
	}
}

static char dir[256];

static void setup(void)
{
	scratch_dir(dir, sizeof(dir));
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_cmd_clockcheck, .init = setup, .fini = teardown);

Test(tools_cmd_clockcheck, help_to_stdout)
{
	char *argv[] = { "clockcheck", "-h", NULL };
	struct captured c = run_cmd(dir, cmd_clockcheck, argv);

	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.out, st_clockcheck_usage);
	cr_expect_str_eq(c.err, "");
	captured_free(&c);
}

Test(tools_cmd_clockcheck, usage_error_exits_129)
{
	char *argv[] = { "clockcheck", "--times", "soon", NULL };
	struct captured c = run_cmd(dir, cmd_clockcheck, argv);

	cr_expect_eq(c.status, 129);
	cr_expect(!strncmp(c.err, "synctrace: bad time list 'soon'", 31),
		  "%s", c.err);
	cr_expect(strstr(c.err, "usage: synctrace clockcheck"));
	cr_expect_str_eq(c.out, "");
	captured_free(&c);
}

Test(tools_cmd_clockcheck, runs_mpiexec_with_the_bench)
{
	char self[PATH_MAX], bench[PATH_MAX + 32], fake[512], mpiexec[600];
	char csv[PATH_MAX + 16], cwd[PATH_MAX], want[3 * PATH_MAX];
	char *slash, *real;
	char *argv[] = { "clockcheck", "-n", "3", "--times", "0,2",
			 "--skew", "0,-1s@-100ppm", "--csv", "cc.csv",
			 mpiexec, "--", "-hosts", "a,b", NULL };
	struct captured c;
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert(n > 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	cr_assert(slash);
	*slash = '\0';
	snprintf(bench, sizeof(bench), "%s/synctrace-bench", self);
	if (access(bench, X_OK))
		cr_skip_test("no '%s': run make first", bench);

	/* The stand-in mpiexec prints its environment and arguments. */
	snprintf(fake, sizeof(fake), "%s/mpiexec", dir);
	write_file(fake, "#!/bin/sh\n"
		   "echo \"skew=$SYNCTRACE_CLOCK_SKEW\"\n"
		   "echo \"$*\"\n"
		   "exit 7\n");
	cr_assert_eq(chmod(fake, 0755), 0);
	snprintf(mpiexec, sizeof(mpiexec), "--mpiexec=%s", fake);
	cr_assert(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	c = run_cmd(dir, cmd_clockcheck, argv);
	cr_assert_eq(chdir(cwd), 0);

	/* getcwd() gives the physical path, which the CSV path starts with. */
	real = realpath(dir, NULL);
	cr_assert(real);
	snprintf(csv, sizeof(csv), "%s/cc.csv", real);
	free(real);
	cr_expect_neq(stat(csv, &st), 0, "no CSV file: mpiexec did nothing");
	cr_expect_eq(c.status, 7, "mpiexec's exit status: %s", c.err);
	snprintf(want, sizeof(want), "skew=0,-1s@-100ppm\n"
		 "-n 3 -hosts a,b %s clockcheck --times 0,2 --csv %s\n",
		 bench, csv);
	cr_expect_str_eq(c.out, want);
	cr_expect_str_eq(c.err, "");
	captured_free(&c);
}

Test(tools_cmd_clockcheck, unwritable_csv_fails_before_mpiexec)
{
	char *argv[] = { "clockcheck", "--csv", "/nonexistent/dir/cc.csv",
			 "--mpiexec", "/bin/false", NULL };
	struct captured c = run_cmd(dir, cmd_clockcheck, argv);

	if (c.status == 1 && strstr(c.err, "cannot find 'synctrace-bench'"))
		cr_skip_test("no synctrace-bench: run make first");
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.err, "synctrace: fatal: cannot write "
			 "'/nonexistent/dir/cc.csv': No such file or "
			 "directory\n");
	captured_free(&c);
}

Test(tools_cmd_clockcheck, missing_mpiexec_exits_127)
{
	char *argv[] = { "clockcheck", "--mpiexec", "/nonexistent/mpiexec",
			 NULL };
	char self[PATH_MAX], *slash, bench[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct captured c;

	cr_assert(n > 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	cr_assert(slash);
	*slash = '\0';
	snprintf(bench, sizeof(bench), "%s/synctrace-bench", self);
	if (access(bench, X_OK))
		cr_skip_test("no '%s': run make first", bench);
	c = run_cmd(dir, cmd_clockcheck, argv);
	cr_expect_eq(c.status, 127);
	cr_expect(strstr(c.err, "synctrace: error: cannot run "
			 "'/nonexistent/mpiexec': No such file or directory"),
		  "%s", c.err);
	captured_free(&c);
}
