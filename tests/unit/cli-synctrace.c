/*
 * tests/unit/cli-synctrace.c: the synctrace command's dispatch, run
 * as a program: the build's synctrace next to this test binary (make
 * builds both; the tests skip when it is absent).  Help goes to stdout
 * with status 0, mistakes to stderr with status 129, and each
 * subcommand's help is the one its --help prints.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "gen/version.h"
#include "tools/cli/synctrace.h"
#include "tools-test.h"

static char dir[256];
static char cli[PATH_MAX];

static void setup(void)
{
	ssize_t n = readlink("/proc/self/exe", cli, sizeof(cli) - 16);
	char *slash;

	cr_assert(n > 0);
	cli[n] = '\0';
	slash = strrchr(cli, '/');
	cr_assert(slash);
	memcpy(slash + 1, "synctrace", sizeof("synctrace"));
	if (access(cli, X_OK))
		cr_skip_test("no '%s': run make first", cli);
	scratch_dir(dir, sizeof(dir));
}

static void teardown(void)
{
	if (*dir)
		remove_tree(dir);
}

TestSuite(tools_synctrace, .init = setup, .fini = teardown);

static int exec_cli(int argc, char **argv)
{
	(void)argc;
	execv(cli, argv);
	return 126;
}

static struct captured cli_run(char *a, char *b, char *c)
{
	char *argv[] = { cli, a, b, c, NULL };

	return run_cmd(dir, exec_cli, argv);
}

Test(tools_synctrace, help_goes_to_stdout)
{
	struct captured c;

	c = cli_run("--help", NULL, NULL);
	cr_expect_eq(c.status, 0);
	cr_expect(!strncmp(c.out, "usage: synctrace [--help] [--version] "
			   "<command>", 47), "%s", c.out);
	cr_expect(strstr(c.out, "\n   run "));
	cr_expect(strstr(c.out, "\n   dump "));
	cr_expect(strstr(c.out, "\n   report "));
	cr_expect_str_eq(c.err, "");
	captured_free(&c);
	c = cli_run("help", NULL, NULL);
	cr_expect_eq(c.status, 0);
	cr_expect(!strncmp(c.out, "usage: synctrace", 16));
	captured_free(&c);
}

Test(tools_synctrace, help_for_each_command)
{
	static const struct { char *name; const char *usage; } cmds[] = {
		{ "run", st_run_usage },
		{ "dump", st_dump_usage },
		{ "report", st_report_usage },
	};
	struct captured c;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		c = cli_run("help", cmds[i].name, NULL);
		cr_expect_eq(c.status, 0);
		cr_expect_str_eq(c.out, cmds[i].usage);
		captured_free(&c);
		c = cli_run(cmds[i].name, "--help", NULL);
		cr_expect_eq(c.status, 0);
		cr_expect_str_eq(c.out, cmds[i].usage);
		cr_expect_str_eq(c.err, "");
		captured_free(&c);
	}
}

Test(tools_synctrace, mistakes_exit_129)
{
	struct captured c;

	c = cli_run(NULL, NULL, NULL);
	cr_expect_eq(c.status, 129);
	cr_expect(!strncmp(c.err, "usage: synctrace", 16), "%s", c.err);
	cr_expect_str_eq(c.out, "");
	captured_free(&c);
	c = cli_run("frob", NULL, NULL);
	cr_expect_eq(c.status, 129);
	cr_expect(!strncmp(c.err, "synctrace: unknown command 'frob'\n"
			   "usage: synctrace", 50), "%s", c.err);
	captured_free(&c);
	c = cli_run("--frob", NULL, NULL);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "unknown option '--frob'"), "%s", c.err);
	captured_free(&c);
	c = cli_run("help", "frob", NULL);
	cr_expect_eq(c.status, 129);
	captured_free(&c);
	c = cli_run("report", "--bogus", "x");
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "usage: synctrace report"), "%s", c.err);
	captured_free(&c);
}

Test(tools_synctrace, version_is_the_builds)
{
	struct captured c = cli_run("--version", NULL, NULL);
	char *file, want[256];

	cr_expect_eq(c.status, 0);
	snprintf(want, sizeof(want), "synctrace version %s\n", ST_VERSION);
	cr_expect_str_eq(c.out, want);
	captured_free(&c);
	/* The release comes from the VERSION file at the top (make test
	   runs there). */
	if (access("VERSION", R_OK))
		return;
	file = read_file("VERSION");
	file[strcspn(file, "\n")] = '\0';
	cr_expect(*file && !strncmp(ST_VERSION, file, strlen(file)),
		  "%s vs %s", ST_VERSION, file);
	free(file);
}

Test(tools_synctrace, usage_error_is_short)
{
	struct captured c = cli_run("report", "--bogus", "x");

	cr_expect_eq(c.status, 129);
	cr_expect_str_eq(c.err, "synctrace: unknown option '--bogus'\n"
			 "usage: synctrace report [--top N] [--matrix-csv FILE] "
			 "[--matrix-json FILE]\n"
			 "                        RUN\n"
			 "Run 'synctrace report --help' for its options.\n");
	captured_free(&c);
	c = cli_run("frob", NULL, NULL);
	cr_expect_eq(c.status, 129);
	cr_expect_str_eq(c.err, "synctrace: unknown command 'frob'\n"
			 "usage: synctrace [--help] [--version] <command> "
			 "[<args>]\n"
			 "Run 'synctrace --help' for the commands.\n");
	captured_free(&c);
}

Test(tools_synctrace, missing_run_exits_1)
{
	struct captured c = cli_run("report", "/nonexistent/run", NULL);

	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.err, "synctrace: fatal: cannot open "
			 "'/nonexistent/run': No such file or directory\n");
	captured_free(&c);
}
