/*
 * tests/unit/writer-run.c: run directories.  The index is parsed with
 * later lines overriding earlier ones, nranks is required and checked,
 * rank paths follow ST_RUN_RANK_FMT, and a directory without an index is
 * named as not being a run.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writer/reader.h"

static char dir[] = "/tmp/st-run-XXXXXX";
static char index_path[64];

static void setup(void)
{
	cr_assert(mkdtemp(dir));
	snprintf(index_path, sizeof(index_path), "%s/%s", dir, ST_RUN_INDEX);
}

static void teardown(void)
{
	unlink(index_path);
	rmdir(dir);
}

TestSuite(writer_run, .init = setup, .fini = teardown);

static void write_index(const char *text)
{
	FILE *f = fopen(index_path, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

Test(writer_run, reads_index_and_later_keys_win)
{
	struct st_run *run;
	char err[256], want[128];

	write_index("nranks=4\ncmdline=./app -n 3\nstart_ns=17\n"
		    "complete=0\ncomplete=1\n");
	cr_assert_eq(st_run_open(&run, dir, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(st_run_nranks(run), 4);
	cr_expect_str_eq(st_run_get(run, "cmdline"), "./app -n 3");
	cr_expect_str_eq(st_run_get(run, "complete"), "1");
	cr_expect_null(st_run_get(run, "missing"));
	snprintf(want, sizeof(want), "%s/rank-2.st", dir);
	cr_expect_str_eq(st_run_rank_path(run, 2), want);
	/* Same pointer on the second call: made once. */
	cr_expect_eq(st_run_rank_path(run, 2), st_run_rank_path(run, 2));
	snprintf(want, sizeof(want), "%s/" ST_RUN_RANK_FMT, dir, 0);
	cr_expect_str_eq(st_run_rank_path(run, 0), want);
	cr_expect_null(st_run_rank_path(run, 4));
	cr_expect_null(st_run_rank_path(run, -1));
	st_run_close(run);
}

Test(writer_run, last_line_without_newline_counts)
{
	struct st_run *run;
	char err[256];

	write_index("cmdline=x\n\nnranks=2");
	cr_assert_eq(st_run_open(&run, dir, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(st_run_nranks(run), 2);
	st_run_close(run);
}

Test(writer_run, missing_index_is_not_a_run)
{
	struct st_run *run = (struct st_run *)&run;
	char err[256], want[128];

	cr_expect_eq(st_run_open(&run, dir, err, sizeof(err)), -ENOENT);
	cr_expect_null(run);
	snprintf(want, sizeof(want), "'%s': not a synctrace run (no "
		 "synctrace.run)", dir);
	cr_expect_str_eq(err, want);
}

Test(writer_run, nranks_is_required_and_checked)
{
	static const char *bad[] = {
		"cmdline=x\n", "nranks=\n", "nranks=0\n", "nranks=-2\n",
		"nranks=3x\n", "nranks=99999999999\n", "nranks=4\nno equals\n",
		"nranks=4\nBad=1\n",
	};
	struct st_run *run;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_index(bad[i]);
		err[0] = '\0';
		cr_expect_eq(st_run_open(&run, dir, err, sizeof(err)),
			     -EBADMSG, "accepted '%s'", bad[i]);
		cr_expect(strstr(err, index_path), "'%s'", err);
	}
	write_index("nranks=4\nnranks=2\n");
	cr_assert_eq(st_run_open(&run, dir, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(st_run_nranks(run), 2);
	st_run_close(run);
}
