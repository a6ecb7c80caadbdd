/*
 * tests/unit/cli-cmd-table.c: the 'synctrace table' command.  On a
 * synchronised 2-rank run it prints the formula table and writes the
 * CSV pair (FILE.csv and FILE-groups.csv), the JSON and the HTML page it
 * was asked for; '-' sends one of them to stdout instead of the text;
 * command-line mistakes exit 129 with the usage, a missing run exits 1.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "tools-sync-test.h"
#include "tools-test.h"
#include "tools/cli/synctrace.h"

static void cmd_table_marker(void)
{
}

static void make_run(char *dir, size_t len, char *run, size_t rlen)
{
	struct fake_obj obj;

	scratch_dir(dir, len);
	snprintf(run, rlen, "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)cmd_table_marker, &obj);
	synced_run(run, &obj, (uint64_t)(uintptr_t)cmd_table_marker + 1,
		   (uint64_t)(uintptr_t)cmd_table_marker + 2);
}

Test(tools_cmd_table, writes_text_csv_json_and_html)
{
	char dir[256], run[300], csv[300], json[300], html[300], path[320];
	char *argv[] = { "table", "--csv", csv, "--json", json, "--html",
			 html, run, NULL };
	struct captured c;
	char *s;

	make_run(dir, sizeof(dir), run, sizeof(run));
	snprintf(csv, sizeof(csv), "%s/t.csv", dir);
	snprintf(json, sizeof(json), "%s/t.json", dir);
	snprintf(html, sizeof(html), "%s/t.html", dir);
	c = run_cmd(dir, cmd_table, argv);
	cr_assert_eq(c.status, 0, "stderr: %s", c.err);
	cr_expect(strstr(c.out, "synctrace table: cost of MPI operations"));
	cr_expect(strstr(c.out, "MPI_Allreduce"));
	cr_expect(strstr(c.out, "MPI_Barrier"));
	cr_expect(strstr(c.out, "MPI_Bcast"));
	cr_expect(strstr(c.out, "n=2 calls on inter-communicators"));
	s = read_file(csv);
	cr_expect_eq(count_lines(s), 4, "header + 3 operations:\n%s", s);
	free(s);
	snprintf(path, sizeof(path), "%s/t-groups.csv", dir);
	s = read_file(path);
	cr_expect_eq(count_lines(s), 4, "header + 3 groups:\n%s", s);
	free(s);
	s = read_file(json);
	cr_expect(strstr(s, "\"format\": \"synctrace-table\""));
	free(s);
	s = read_file(html);
	cr_expect(strstr(s, "<svg"));
	free(s);
	captured_free(&c);
}

Test(tools_cmd_table, bench_runs_directory_stands_for_its_runs)
{
	char dir[256], run[300], sub[320];
	char *argv[] = { "table", "--csv", "-", run, NULL };
	struct fake_obj obj;
	struct captured c;
	int k;

	make_run(dir, sizeof(dir), run, sizeof(run));
	/* Turn 'run' into the parent of run-1 and run-2, as bench does. */
	snprintf(run, sizeof(run), "%s/costs", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)cmd_table_marker, &obj);
	for (k = 1; k <= 2; k++) {
		snprintf(sub, sizeof(sub), "%s/run-%d", run, k);
		cr_assert_eq(mkdir(sub, 0777), 0);
		synced_run(sub, &obj, (uint64_t)(uintptr_t)cmd_table_marker + 1,
			   (uint64_t)(uintptr_t)cmd_table_marker + 2);
	}
	c = run_cmd(dir, cmd_table, argv);
	cr_assert_eq(c.status, 0, "stderr: %s", c.err);
	/* Groups: ...,wait_ns,runs,run_median_min_ns,..,run_spread_pct,.. */
	cr_expect(strstr(c.out, "\nMPI_Allreduce,collective,2,0,6,6,0,1000,"),
		  "%s", c.out);
	cr_expect_eq(count_lines_with(c.out, ",2,1000,1000,0,", NULL), 1,
		     "two runs, equal medians: spread 0:\n%s", c.out);
	captured_free(&c);
}

/* A bench-like directory 'name' of 'n' runs, collectives scaled. */
static void runs_dir(const char *dir, const char *name, int n, double scale,
		     char *out, size_t len)
{
	struct fake_obj obj;
	char sub[400];
	int k;

	snprintf(out, len, "%s/%s", dir, name);
	cr_assert_eq(mkdir(out, 0777), 0);
	find_object((const void *)(uintptr_t)cmd_table_marker, &obj);
	for (k = 1; k <= n; k++) {
		snprintf(sub, sizeof(sub), "%s/run-%d", out, k);
		cr_assert_eq(mkdir(sub, 0777), 0);
		synced_run_scaled(sub, &obj,
				  (uint64_t)(uintptr_t)cmd_table_marker + 1,
				  (uint64_t)(uintptr_t)cmd_table_marker + 2,
				  scale);
	}
}

/*
 * --compare: equal tables are the same group by group; a table whose
 * collectives take 1.5 times as long is slower in every group, by
 * +50 %; 3 launches a side are too few to tell; mistakes are usage
 * errors.
 */
Test(tools_cmd_table, compare_equal_and_slower_tables)
{
	char dir[256], a[300], b[300], c[300], few[300];
	char *same[] = { "table", "--compare", a, b, NULL };
	char *slower[] = { "table", "--compare", a, c, NULL };
	char *faster[] = { "table", "--compare", "--resolve=2", c, a, NULL };
	char *toofew[] = { "table", "--compare", a, few, NULL };
	char *one[] = { "table", "--compare", a, NULL };
	char *csv[] = { "table", "--compare", "--csv", "x", a, b, NULL };
	char ja[320], jc[320];
	char *mk_a[] = { "table", "--json", ja, a, NULL };
	char *mk_c[] = { "table", "--json", jc, c, NULL };
	char *json[] = { "table", "--compare", "--json", "-", ja, jc, NULL };
	char *mixed[] = { "table", "--compare", ja, c, NULL };
	struct captured r;

	scratch_dir(dir, sizeof(dir));
	runs_dir(dir, "a", 4, 1.0, a, sizeof(a));
	runs_dir(dir, "b", 4, 1.0, b, sizeof(b));
	runs_dir(dir, "c", 4, 1.5, c, sizeof(c));
	runs_dir(dir, "few", 3, 1.0, few, sizeof(few));

	r = run_cmd(dir, cmd_table, same);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "synctrace table --compare: does B cost what "
			 "A costs?"), "%s", r.out);
	cr_expect_eq(count_lines_with(r.out, "+0.0%  [+0.0%, +0.0%]", NULL),
		     3, "%s", r.out);
	cr_expect(strstr(r.out, "3 groups in both tables: B slower in 0, B "
			 "faster in 0, the same within +-5% in 3,"), "%s",
		  r.out);
	captured_free(&r);

	r = run_cmd(dir, cmd_table, slower);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect_eq(count_lines_with(r.out, "+50.0%", "B slower"), 3, "%s",
		     r.out);
	cr_expect(strstr(r.out, "B slower in 3, B faster in 0"), "%s", r.out);
	cr_expect(strstr(r.out, "median |B/A - 1| over 3 groups: 50.0%"),
		  "%s", r.out);
	captured_free(&r);

	r = run_cmd(dir, cmd_table, faster);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect_eq(count_lines_with(r.out, "-33.3%", "B faster"), 3, "%s",
		     r.out);
	captured_free(&r);

	r = run_cmd(dir, cmd_table, toofew);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "unresolved in 3"), "%s", r.out);
	captured_free(&r);

	/* Tables' JSON in, the comparison's JSON out (alone on stdout). */
	snprintf(ja, sizeof(ja), "%s/a.json", dir);
	snprintf(jc, sizeof(jc), "%s/c.json", dir);
	r = run_cmd(dir, cmd_table, mk_a);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	captured_free(&r);
	r = run_cmd(dir, cmd_table, mk_c);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	captured_free(&r);
	r = run_cmd(dir, cmd_table, json);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect(r.out[0] == '{', "JSON only: %.60s", r.out);
	cr_expect(strstr(r.out, "\"format\": \"synctrace-compare\""));
	cr_expect_eq(count_lines_with(r.out, "\"verdict\": \"differs\"",
				      "\"direction\": \"slower\""), 3, "%s",
		     r.out);
	captured_free(&r);
	r = run_cmd(dir, cmd_table, mixed);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "B slower in 3"), "%s", r.out);
	captured_free(&r);

	r = run_cmd(dir, cmd_table, one);
	cr_expect_eq(r.status, 129);
	cr_expect(strstr(r.err, "'--compare' needs two tables"), "%s", r.err);
	captured_free(&r);
	r = run_cmd(dir, cmd_table, csv);
	cr_expect_eq(r.status, 129);
	captured_free(&r);
}

Test(tools_cmd_table, dash_sends_json_to_stdout)
{
	char dir[256], run[300];
	char *argv[] = { "table", "--json", "-", run, NULL };
	struct captured c;

	make_run(dir, sizeof(dir), run, sizeof(run));
	c = run_cmd(dir, cmd_table, argv);
	cr_assert_eq(c.status, 0, "stderr: %s", c.err);
	cr_expect(c.out[0] == '{', "JSON only: %.40s", c.out);
	cr_expect(!strstr(c.out, "synctrace table:"));
	captured_free(&c);
}

Test(tools_cmd_table, usage_errors_exit_129)
{
	char dir[256];
	char *none[] = { "table", NULL };
	char *bad[] = { "table", "--frobnicate", "x", NULL };
	char *tukey[] = { "table", "--tukey", "-1", "x", NULL };
	char *level[] = { "table", "--level=1", "x", NULL };
	char *two[] = { "table", "--json", "-", "--html", "-", "x", NULL };
	char *res0[] = { "table", "--resolve", "0", "x", NULL };
	char *res100[] = { "table", "--resolve=100%", "x", NULL };
	char *resx[] = { "table", "--resolve", "5%%", "x", NULL };
	char **cases[] = { none, bad, tukey, level, two, res0, res100, resx };
	size_t i;

	scratch_dir(dir, sizeof(dir));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct captured c = run_cmd(dir, cmd_table, cases[i]);

		cr_expect_eq(c.status, 129, "case %zu: %d", i, c.status);
		cr_expect(strstr(c.err, "usage: synctrace table"));
		captured_free(&c);
	}
}

Test(tools_cmd_table, missing_run_exits_1)
{
	char dir[256], missing[300];
	char *argv[] = { "table", missing, NULL };
	struct captured c;

	scratch_dir(dir, sizeof(dir));
	snprintf(missing, sizeof(missing), "%s/nothing", dir);
	c = run_cmd(dir, cmd_table, argv);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "cannot open"), "%s", c.err);
	captured_free(&c);
}

Test(tools_cmd_table, help_goes_to_stdout)
{
	char dir[256];
	char *argv[] = { "table", "--help", NULL };
	struct captured c;

	scratch_dir(dir, sizeof(dir));
	c = run_cmd(dir, cmd_table, argv);
	cr_expect_eq(c.status, 0);
	cr_expect(strstr(c.out, "usage: synctrace table"));
	captured_free(&c);
}
