/*
 * tests/unit/cli-cmd-report.c: 'synctrace report'.  The size and
 * time formats keep three significant digits and always a unit; on a
 * 2-rank run written by the real writer, every number of the report is
 * the one the records imply: calls, bytes (receives counted at
 * completion, persistent operations per instance), time per function
 * with per-rank min/max, start-to-completion times, call sites merged
 * across ranks and symbolised, and the communicator-size table.  With
 * sync records (clocks 1 s apart), blocking collectives are matched
 * across ranks in global time: imbalance, waiting, time after the last
 * arrival and exit skew per function and per call site, instances below
 * the clock error flagged and counted apart; without, the section says
 * there is no clock synchronisation.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/analysis/format.h"
#include "tools/cli/synctrace.h"
#include "tools-sync-test.h"
#include "tools-test.h"

static char dir[256];
static char run[300];

__attribute__((noinline)) int report_marker(int x)
{
	return x * 11 + 3;
}

static void setup(void)
{
	struct fake_obj obj;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)report_marker, &obj);
	fake_run(run, &obj, (uint64_t)(uintptr_t)report_marker + 1, NULL);
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_cmd_report, .init = setup, .fini = teardown);

static char fbuf[64];

static const char *bytes(uint64_t n)
{
	return st_fmt_bytes(n, fbuf, sizeof(fbuf));
}

static const char *ns(double n)
{
	return st_fmt_ns(n, fbuf, sizeof(fbuf));
}

Test(tools_fmt, bytes_have_binary_units)
{
	cr_expect_str_eq(bytes(0), "0 B");
	cr_expect_str_eq(bytes(1023), "1023 B");
	cr_expect_str_eq(bytes(1024), "1.00 KiB");
	cr_expect_str_eq(bytes(1536), "1.50 KiB");
	cr_expect_str_eq(bytes(10 * 1024 + 512), "10.5 KiB");
	cr_expect_str_eq(bytes(1023 * 1024), "1023 KiB");
	cr_expect_str_eq(bytes(1024 * 1024 - 1), "1.00 MiB",
			 "rounding up to 1024 moves a unit up");
	cr_expect_str_eq(bytes(3ULL << 30), "3.00 GiB");
	cr_expect_str_eq(bytes(UINT64_MAX), "16.0 EiB");
}

Test(tools_fmt, times_keep_three_digits)
{
	cr_expect_str_eq(ns(0), "0 ns");
	cr_expect_str_eq(ns(999), "999 ns");
	cr_expect_str_eq(ns(999.6), "1.00 us");
	cr_expect_str_eq(ns(1234), "1.23 us");
	cr_expect_str_eq(ns(12345), "12.3 us");
	cr_expect_str_eq(ns(123456), "123 us");
	cr_expect_str_eq(ns(4.56e6), "4.56 ms");
	cr_expect_str_eq(ns(1.5e9), "1.50 s");
	cr_expect_str_eq(ns(7200e9), "7200 s");
	cr_expect_str_eq(ns(-5), "0 ns");
}

/* The line of 'out' that starts with 'prefix' followed by a space. */
static char *line_of(const char *out, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = out;

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ') {
			const char *nl = strchr(p, '\n');

			return strndup(p, nl ? (size_t)(nl - p) : strlen(p));
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return strdup("");
}

/* Does 'line' hold the whitespace-separated fields 'want' in order? */
static int fields_are(const char *line, const char *want)
{
	char got[512];
	const char *q;
	size_t i = 0;

	/* Squeeze runs of blanks so columns compare as single spaces. */
	for (q = line; *q && i + 1 < sizeof(got); q++)
		if (*q != ' ' || (i && got[i - 1] != ' '))
			got[i++] = *q;
	got[i] = '\0';
	return !strcmp(got, want);
}

static struct captured report(char **argv)
{
	return run_cmd(dir, cmd_report, argv);
}

Test(tools_cmd_report, summary_counts_ranks_hosts_and_times)
{
	char *argv[] = { "report", run, NULL };
	struct captured c = report(argv);

	cr_assert_eq(c.status, 0, "stderr: %s", c.err);
	/* fake_run()'s sync records hold text, not a sync blob. */
	cr_expect_str_eq(c.err, "synctrace: warning: rank 0: the sync record "
			 "at t0=15000 is not a valid sync record: ignored\n"
			 "synctrace: warning: rank 1: the sync record at "
			 "t0=515000 is not a valid sync record: ignored\n");
	cr_expect(strstr(c.out, "ranks:       n=2 read, on n=2 hosts, run "
			 "complete\n"), "%s", c.out);
	cr_expect(strstr(c.out, "command:     mpiexec.mpich -n 2 ./app\n"));
	cr_expect(strstr(c.out, "MPI library: MPICH Version: 4.0.2\n"));
	cr_expect(strstr(c.out, "clock:       CLOCK_MONOTONIC_RAW\n"
			 "             resolution 1 ns, read cost 20 ns\n"));
	/* 19000 (synctrace's finalize work) - 2000 ns on each rank. */
	cr_expect(strstr(c.out, "run time:    mean 17.0 us per rank, min 17.0 "
			 "us, max 17.0 us (n=2 ranks),\n"), "%s", c.out);
	/* Rank 0: 300+100+100+1600+100+100+500; rank 1: 300 more. */
	cr_expect(strstr(c.out, "MPI time:    5.90 us summed over 2 ranks "
			 "(n=18 calls), 17.4% of run time\n"), "%s", c.out);
	/* The flush marks; the finalize marks end the run time. */
	cr_expect(strstr(c.out, "synctrace:   1.00 us of its own work in the "
			 "run time, over 2 ranks (n=2 marks),\n"
			 "             2.9% of run time\n"), "%s", c.out);
	captured_free(&c);
}

Test(tools_cmd_report, function_table_has_calls_time_and_shares)
{
	char *argv[] = { "report", run, NULL };
	struct captured c = report(argv);
	char *l;

	cr_assert_eq(c.status, 0);
	l = line_of(c.out, "MPI_Allreduce");
	/* 3 x 100 ns on rank 0, 3 x 200 ns on rank 1: 900 / 5900. */
	cr_expect(fields_are(l, "MPI_Allreduce n=6 900 ns 150 ns 300 ns 600 "
			     "ns 15.3% 2.6%"), "got '%s'", l);
	free(l);
	l = line_of(c.out, "MPI_Waitall");
	cr_expect(fields_are(l, "MPI_Waitall n=2 3.20 us 1.60 us 1.60 us 1.60 "
			     "us 54.2% 9.4%"), "got '%s'", l);
	free(l);
	l = line_of(c.out, "MPI_Init");
	cr_expect(fields_are(l, "MPI_Init n=2 2.00 us 1.00 us 1.00 us 1.00 us "
			     "- -"), "outside the run time: '%s'", l);
	free(l);
	cr_expect(strstr(c.out, "MPI_Waitall ") < strstr(c.out, "MPI_Wait "),
		  "sorted by total time");
	captured_free(&c);
}

Test(tools_cmd_report, bytes_count_receives_at_completion)
{
	char *argv[] = { "report", run, NULL };
	struct captured c = report(argv);
	const char *tab;
	char *l;

	cr_assert_eq(c.status, 0);
	tab = strstr(c.out, "\nBytes by MPI function");
	cr_assert(tab, "%s", c.out);
	l = line_of(tab, "MPI_Irecv");
	cr_expect(fields_are(l, "MPI_Irecv n=2 0 B 4.00 KiB 0 B 2.00 KiB"),
		  "got '%s'", l);
	free(l);
	l = line_of(tab, "MPI_Isend");
	cr_expect(fields_are(l, "MPI_Isend n=2 2.00 KiB 0 B 1.00 KiB 0 B"),
		  "got '%s'", l);
	free(l);
	/* Persistent: per started instance, the init itself moves nothing. */
	l = line_of(tab, "MPI_Allreduce_init");
	cr_expect(fields_are(l, "MPI_Allreduce_init n=2 128 B 128 B 64 B 64 B"),
		  "got '%s'", l);
	free(l);
	l = line_of(tab, "MPI_Waitall");
	cr_expect_str_eq(l, "", "no bytes, no row");
	free(l);
	captured_free(&c);
}

Test(tools_cmd_report, completion_times_run_from_start_to_done)
{
	char *argv[] = { "report", run, NULL };
	struct captured c = report(argv);
	const char *tab;
	char *l;

	cr_assert_eq(c.status, 0);
	tab = strstr(c.out, "\nNonblocking and persistent operations");
	cr_assert(tab, "%s", c.out);
	l = line_of(tab, "MPI_Isend");
	cr_expect(fields_are(l, "MPI_Isend n=2 4.00 us 2.00 us 2.00 us 2.00 us "
			     "n=0"), "got '%s'", l);
	free(l);
	l = line_of(tab, "MPI_Irecv");
	cr_expect(fields_are(l, "MPI_Irecv n=2 3.60 us 1.80 us 1.80 us 1.80 us "
			     "n=0"), "got '%s'", l);
	free(l);
	l = line_of(tab, "MPI_Allreduce_init");
	cr_expect(fields_are(l, "MPI_Allreduce_init n=2 1.40 us 700 ns 700 ns "
			     "700 ns n=0"), "got '%s'", l);
	free(l);
	captured_free(&c);
}

Test(tools_cmd_report, sites_merge_across_ranks_and_are_symbolised)
{
	char *argv[] = { "report", "--top", "3", run, NULL };
	struct captured c = report(argv);
	const char *tab, *first;
	char *l;

	cr_assert_eq(c.status, 0, "%s", c.err);
	tab = strstr(c.out, "\nTop 3 of 9 call sites by time in MPI");
	cr_assert(tab, "%s", c.out);
	l = line_of(tab, "  1");
	cr_expect(fields_are(l, "1 MPI_Waitall n=2 3.20 us 1.60 us n=2"),
		  "got '%s'", l);
	free(l);
	first = strstr(tab, "  1 MPI_Waitall ");
	cr_expect(first && strstr(first, "\n    at 0x10\n  2 "),
		  "location on the next line: %s", tab);
	/* Rank 1's objects lie 16 MiB higher, yet it is one site. */
	cr_expect(strstr(c.out, "MPI_Allreduce ") &&
		  !strstr(tab, "report_marker"), "not in the top 3");
	captured_free(&c);

	argv[2] = "0";
	c = report(argv);
	cr_assert_eq(c.status, 0);
	tab = strstr(c.out, "\nTop 9 of 9 call sites");
	cr_assert(tab, "%s", c.out);
	l = line_of(tab, "  5");
	cr_expect(fields_are(l, "5 MPI_Allreduce n=6 900 ns 150 ns n=2"),
		  "got '%s'", l);
	free(l);
	l = line_of(strstr(tab, "  5 MPI_Allreduce "), "   ");
	cr_expect(!strncmp(l, "    at report_marker (cli-cmd-report.c:", 39),
		  "got '%s'", l);
	free(l);
	cr_expect(strstr(tab, "MPI_Init                    n=2    2.00 us    "
			 "1.00 us     n=2\n    at unknown (no call-site "
			 "record)\n"), "%s", tab);
	cr_expect_eq(report_marker(0), 3);
	captured_free(&c);
}

Test(tools_cmd_report, communicator_sizes)
{
	char *argv[] = { "report", run, NULL };
	struct captured c = report(argv);
	const char *tab;
	char *l;

	cr_assert_eq(c.status, 0);
	tab = strstr(c.out, "\nCalls by communicator size");
	cr_assert(tab, "%s", c.out);
	l = line_of(tab, "         2");
	/* Allreduce 6 + Isend 2 + Irecv 2 + Allreduce_init 2. */
	cr_expect(fields_are(l, "2 n=1 n=12 1.50 us 125 ns 25.4%"),
		  "got '%s'", l);
	free(l);
	captured_free(&c);
}

Test(tools_cmd_report, lines_fit_in_100_columns)
{
	char *argv[] = { "report", "--top", "0", run, NULL };
	struct captured c = report(argv);
	const char *p = c.out;

	cr_assert_eq(c.status, 0);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		cr_expect_leq(len, 100, "too wide: %.*s", (int)len, p);
		p += len + (nl != NULL);
	}
	captured_free(&c);
}

Test(tools_cmd_report, incomplete_run_is_reported)
{
	char *argv[] = { "report", run, NULL };
	char path[400];
	struct captured c;

	fake_index(run, 2, 0);
	snprintf(path, sizeof(path), "%s/rank-1.st", run);
	cr_assert_eq(unlink(path), 0);
	c = report(argv);
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.err, "warning: no trace file for rank 1 of '"),
		  "%s", c.err);
	cr_expect(strstr(c.out, "ranks:       n=1 read of 2 (no trace from "
			 "rank 1), on n=1 host, run incomplete"), "%s",
		  c.out);
	cr_expect(strstr(c.out, "(n=1 ranks)"));
	captured_free(&c);
}

/*
 * Ranks that ran another command with another config (an MPMD job):
 * the report once showed rank 0's as the run's, and said nothing of
 * rank 1 tracing no completion calls.
 */
Test(tools_cmd_report, ranks_with_another_command_or_config)
{
	char *argv[] = { "report", run, NULL };
	static const char *const want[] = {
		"command:     mpiexec.mpich -n 2 ./app\n"
		"             n=1 other rank ran another command, the first: "
		"rank 1:\n"
		"             ./other -x\n",
		"config:      buffer=1048576 depth=8 level=1 families=0x1ff\n"
		"             n=1 other rank had another, the first: rank 1: "
		"depth=2 families=0x1df\n"
		"             no completion calls traced on n=1 of 2 ranks "
		"(the first: rank 1):\n"
		"             their nonblocking spans and received bytes "
		"unknown\n",
	};
	struct fake_obj obj;
	struct captured c;
	size_t i;

	fake_cmdline[1] = "./other -x";
	fake_config[0] = "buffer=1048576 depth=8 level=1 families=0x1ff";
	fake_config[1] = "buffer=1048576 depth=2 level=1 families=0x1df";
	find_object((const void *)(uintptr_t)report_marker, &obj);
	fake_run(run, &obj, (uint64_t)(uintptr_t)report_marker + 1, NULL);
	fake_cmdline[1] = fake_config[0] = fake_config[1] = NULL;
	c = report(argv);
	cr_expect_eq(c.status, 0, "%s", c.err);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(strstr(c.out, want[i]), "no\n%s\nin\n%s", want[i],
			  c.out);
	captured_free(&c);
}

Test(tools_cmd_report, usage_and_bad_runs)
{
	char *bad_top[] = { "report", "--top", "-1", run, NULL };
	char *none[] = { "report", NULL };
	char *missing[] = { "report", "/nonexistent/run", NULL };
	char *help[] = { "report", "-h", NULL };
	struct captured c;

	c = report(bad_top);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "bad number '-1' for '--top'"), "%s", c.err);
	captured_free(&c);
	c = report(none);
	cr_expect_eq(c.status, 129);
	captured_free(&c);
	c = report(missing);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "cannot open '/nonexistent/run'"));
	captured_free(&c);
	c = report(help);
	cr_expect_eq(c.status, 0);
	cr_expect(!strncmp(c.out, "usage: synctrace report", 23));
	captured_free(&c);
}

Test(tools_cmd_report, many_requests_complete_out_of_order)
{
	enum { N = 20000 };
	char *argv[] = { "report", run, NULL };
	struct fake_rank fr;
	struct st_event ev;
	struct captured c;
	const char *tab;
	uint64_t i, k;
	char *l;

	remove_tree(run);
	cr_assert_eq(mkdir(run, 0777), 0);
	fake_index(run, 1, 1);
	fake_rank_open(&fr, run, 0, "nodeA", "100");
	/* N requests in flight at once, completed in a scrambled order. */
	for (i = 1; i <= N; i++) {
		fake_call(&ev, ST_FN_MPI_ISEND, 1000 + i, 1000 + i, 1);
		ev.req = i;
		ev.sbytes = 1;
		fake_append(&fr, &ev);
	}
	for (i = 0; i < N; i++) {
		k = (i * 7919) % N + 1;	/* 7919 is prime: a permutation */
		st_event_clear(&ev);
		ev.kind = ST_REC_DONE;
		ev.fn = ST_FN_MPI_WAIT;
		ev.req = k;
		ev.t0 = ev.t1 = 1000 + k + 1000;
		fake_append(&fr, &ev);
	}
	/* One more start that never completes, one completion of nothing. */
	fake_call(&ev, ST_FN_MPI_ISEND, 50000, 50000, 1);
	ev.req = N + 1;
	fake_append(&fr, &ev);
	ev.kind = ST_REC_DONE;
	ev.req = N + 5;
	fake_append(&fr, &ev);
	fake_rank_close(&fr);
	c = report(argv);

	cr_assert_eq(c.status, 0, "%s", c.err);
	tab = strstr(c.out, "\nNonblocking and persistent operations");
	cr_assert(tab, "%s", c.out);
	l = line_of(tab, "MPI_Isend");
	/* Every operation took exactly 1000 ns. */
	cr_expect(fields_are(l, "MPI_Isend n=20000 20.0 ms 1.00 us 1.00 us "
			     "1.00 us n=1"), "got '%s'", l);
	free(l);
	cr_expect(strstr(tab, "(n=1 completions of requests whose start was "
			 "not traced are left out)"), "%s", tab);
	captured_free(&c);
}

Test(tools_cmd_report, no_sync_records_no_global_section)
{
	char *argv[] = { "report", run, NULL };
	struct captured c = report(argv);

	cr_assert_eq(c.status, 0);
	cr_expect(strstr(c.out, "\n\nCollectives in global time: no clock "
			 "synchronisation in this trace.\n"), "%s", c.out);
	cr_expect_null(strstr(c.out, "imbalance"));
	captured_free(&c);
}

__attribute__((noinline)) int report_marker2(int x)
{
	return x * 17 + 5;
}

/* A run with sync records: synced_run() in tools-sync-test.h. */
static void setup_synced(void)
{
	struct fake_obj obj;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)report_marker, &obj);
	synced_run(run, &obj, (uint64_t)(uintptr_t)report_marker + 1,
		   (uint64_t)(uintptr_t)report_marker2 + 1);
}

TestSuite(tools_cmd_report_sync, .init = setup_synced, .fini = teardown);

/* The line after the first line of 'out' that starts with 'prefix'. */
static char *line_after(const char *out, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = out, *nl;

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ') {
			p = strchr(p, '\n');
			if (!p)
				break;
			nl = strchr(++p, '\n');
			return strndup(p, nl ? (size_t)(nl - p) : strlen(p));
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return strdup("");
}

Test(tools_cmd_report_sync, collectives_split_in_global_time)
{
	char *argv[] = { "report", run, NULL };
	struct captured c = report(argv);
	const char *sec;
	char *l;

	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.err, "");
	sec = strstr(c.out, "\nCollectives in global time: blocking "
		     "collectives on intra-communicators");
	cr_assert(sec, "%s", c.out);
	cr_expect(strstr(sec, "clocks synchronised by hca (n=2 of 2 ranks)"),
		  "%s", sec);
	cr_expect(strstr(sec, "\nMuch waiting: load imbalance in the "
			 "application.  Much 'after last': the network"));
	/* Errors: 30 ns (rank 1's) or 60 ns (rank 1 last in and out). */
	cr_expect(strstr(sec, "\nclock error:  median 30 ns, max 60 ns per "
			 "instance (n=5 instances)"), "%s", sec);
	cr_expect(strstr(sec, "\nflagged:      n=1 instance shorter than the "
			 "clock error: not in the totals and means\n"));
	cr_expect(strstr(sec, "\nleft out:     n=2 calls on "
			 "inter-communicators (not analysed)\n"));
	/*
	 * Allreduce 1: rank 0 waits 5 us, after last 1.0 + 1.2 us, skew
	 * 200 ns; 2: rank 1 waits 3 us, after last 1 + 1 us; 3 flagged.
	 */
	l = line_of(sec, "MPI_Allreduce");
	cr_expect(fields_are(l, "MPI_Allreduce n=2 n=1 total 8.00 us 8.00 us "
			     "4.20 us 200 ns"), "got '%s'", l);
	free(l);
	l = line_after(sec, "MPI_Allreduce");
	cr_expect(fields_are(l, "mean 4.00 us 4.00 us 2.10 us 100 ns"),
		  "got '%s'", l);
	free(l);
	l = line_of(sec, "MPI_Barrier");
	cr_expect(fields_are(l, "MPI_Barrier n=1 n=0 total 2.00 us 2.00 us "
			     "1.00 us 0 ns"), "got '%s'", l);
	free(l);
	/* The root leaves after 100 ns: it waits only that long. */
	l = line_of(sec, "MPI_Bcast");
	cr_expect(fields_are(l, "MPI_Bcast n=1 n=0 total 1.00 us 100 ns "
			     "300 ns 1.20 us"), "got '%s'", l);
	free(l);
	cr_expect(strstr(sec, "MPI_Allreduce ") < strstr(sec, "MPI_Barrier ")
		  && strstr(sec, "MPI_Barrier ") < strstr(sec, "MPI_Bcast "),
		  "most time first");
	captured_free(&c);
}

Test(tools_cmd_report_sync, collectives_per_call_site)
{
	char *argv[] = { "report", "--top", "2", run, NULL };
	struct captured c = report(argv);
	const char *sec;
	char *l;

	cr_assert_eq(c.status, 0, "%s", c.err);
	sec = strstr(c.out, "\nTop 2 of 3 call sites by waiting + after last");
	cr_assert(sec, "%s", c.out);
	l = line_of(sec, "  1");
	cr_expect(fields_are(l, "1 MPI_Allreduce n=2 n=1 total 8.00 us "
			     "8.00 us 4.20 us 200 ns"), "got '%s'", l);
	free(l);
	cr_expect(strstr(sec, "    2.10 us     100 ns\n"
			 "    at report_marker (cli-cmd-report.c:"),
		  "location after the mean line: %s", sec);
	l = line_of(sec, "  2");
	cr_expect(fields_are(l, "2 MPI_Barrier n=1 n=0 total 2.00 us 2.00 us "
			     "1.00 us 0 ns"), "got '%s'", l);
	free(l);
	cr_expect(strstr(sec, "\n    at report_marker2 (cli-cmd-report.c:"),
		  "%s", sec);
	cr_expect_null(strstr(sec, "MPI_Bcast"), "not in the top 2");
	cr_expect_eq(report_marker2(0), 5);
	captured_free(&c);
}

Test(tools_cmd_report_sync, lines_fit_in_100_columns)
{
	char *argv[] = { "report", "--top", "0", run, NULL };
	struct captured c = report(argv);
	const char *p = c.out;

	cr_assert_eq(c.status, 0);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		cr_expect_leq(len, 100, "too wide: %.*s", (int)len, p);
		p += len + (nl != NULL);
	}
	captured_free(&c);
}

Test(tools_cmd_report_sync, a_rank_without_sync_leaves_its_calls_out)
{
	char *argv[] = { "report", run, NULL };
	struct fake_rank fr;
	struct st_event ev;
	struct captured c;
	int s;

	/* Rank 1 again, without its sync records. */
	fake_rank_open(&fr, run, 1, "nodeB", "0");
	st_event_clear(&ev);
	ev.kind = ST_REC_COMM;
	ev.comm = 1;
	ev.comm_size = 2;
	ev.rank = 1;
	fake_append(&fr, &ev);
	for (s = 1; s <= 5; s++) {
		fake_call(&ev, ST_FN_MPI_BARRIER, 1000 * s, 1000 * s + 10, 0);
		ev.comm = 1;
		ev.comm_size = 2;
		ev.seq = (uint64_t)s;
		fake_append(&fr, &ev);
	}
	fake_rank_close(&fr);
	c = report(argv);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.out, "clocks synchronised by hca (n=1 of 2 ranks)"),
		  "%s", c.out);
	/* Rank 0's 5 calls on comm 1; rank 1 is not walked at all. */
	cr_expect(strstr(c.out, "\nleft out:     n=1 calls on "
			 "inter-communicators (not analysed)\n"
			 "              n=5 calls on communicators with a rank "
			 "that has no global time\n"), "%s", c.out);
	cr_expect(strstr(c.out, "\n(no instance was complete on every member "
			 "rank)\n"), "%s", c.out);
	captured_free(&c);
}

/*
 * synctrace's own work inside MPI_Init (an init mark after PMPI_Init's
 * exit) is not the application's: the run starts where it ends, and the
 * summary gives it apart.
 */
Test(tools_cmd_report, run_starts_after_synctraces_init_work)
{
	char run2[320], *argv[] = { "report", run2, NULL };
	struct fake_rank fr;
	struct st_event ev;
	struct captured c;
	int r;

	snprintf(run2, sizeof(run2), "%s/init", dir);
	cr_assert_eq(mkdir(run2, 0777), 0);
	fake_index(run2, 2, 1);
	for (r = 0; r < 2; r++) {
		fake_rank_open(&fr, run2, r, "nodeA", "2000");
		fake_call(&ev, ST_FN_MPI_INIT, 1000, 2000, 0);
		fake_append(&fr, &ev);
		st_event_clear(&ev);
		ev.kind = ST_REC_MARK;
		ev.fn = ST_MARK_INIT;
		ev.t0 = 2000;
		ev.t1 = 6000 + 2000 * (uint64_t)r;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_BARRIER, 9000, 9500, 0);
		ev.comm = 1;
		ev.comm_size = 2;
		ev.seq = 1;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_FINALIZE, 12000, 13000, 0);
		fake_append(&fr, &ev);
		fake_flush(&fr);
		fake_rank_close(&fr);
	}
	c = report(argv);
	cr_assert_eq(c.status, 0, "stderr: %s", c.err);
	/* 12000 - 6000 on rank 0, 12000 - 8000 on rank 1. */
	cr_expect(strstr(c.out, "run time:    mean 5.00 us per rank, min 4.00 "
			 "us, max 6.00 us (n=2 ranks),\n"), "%s", c.out);
	cr_expect(strstr(c.out, "synctrace:   5.00 us per rank at MPI_Init "
			 "(set-up, clock synchronisation), before\n"
			 "             the run: mean over n=2 ranks\n"),
		  "%s", c.out);
	captured_free(&c);
}
