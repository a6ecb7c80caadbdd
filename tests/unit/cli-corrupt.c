/*
 * tests/unit/cli-corrupt.c: the commands on traces damaged in ways the
 * fuzzer found (tests/fuzz/).  A good 2-rank run gets one more chunk on
 * rank 1: a call of a function id beyond the table must be refused by
 * dump, report and predict with a clear error (table, which reads what
 * precedes any damage, with a warning), not used as an index; an object record without text must not reach memcpy() with a
 * NULL pointer (UBSan in the sanitizer build); an object path with a
 * terminal escape sequence must reach the terminal escaped, and so must
 * the run's command line.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/cli/synctrace.h"
#include "tools-test.h"

static char dir[256];
static char run[300];
static char table[300];

/* A cost table for every function the fake run calls. */
static const char table_json[] =
"{\"format\": \"synctrace-table\", \"version\": 1,\n"
" \"metadata\": {\"mpi_library\": \"MPICH Version: 4.0.2\",\n"
"   \"hosts\": [\"nodeA\"], \"process_counts\": [2],\n"
"   \"date\": \"2026-01-01 00:00:00 UTC\", \"ci_level\": 0.95},\n"
" \"operations\": [\n"
"  {\"op\": \"MPI_Allreduce\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Allreduce\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 8, \"d_max_bytes\": 64,\n"
"   \"model\": {\"pieces\": 1, \"piece\": [\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 1000}]}]},\n"
"   \"groups\": []}\n"
" ]}\n";

__attribute__((noinline)) int corrupt_marker(int x)
{
	return x * 7 + 1;
}

static void setup(void)
{
	struct fake_obj obj;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(table, sizeof(table), "%s/t.json", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)corrupt_marker, &obj);
	fake_run(run, &obj, (uint64_t)(uintptr_t)corrupt_marker + 1, NULL);
	write_file(table, table_json);
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_corrupt, .init = setup, .fini = teardown);

/* Append 'ev' to rank 1's file as the first chunk of a new stream. */
static void append_chunk(const struct st_event *ev)
{
	struct fake_rank fr;
	char path[512];

	snprintf(path, sizeof(path), "%s/rank-1.st", run);
	fr.fd = open(path, O_WRONLY | O_APPEND);
	cr_assert(fr.fd >= 0);
	fr.sink.ctx = (void *)(intptr_t)fr.fd;
	fr.sink.write = st_sink_fd_write;
	cr_assert_eq(st_stream_new(&fr.s, &fr.sink, 9, 1 << 16, 6), 0);
	fake_append(&fr, ev);
	fake_rank_close(&fr);
}

Test(tools_corrupt, function_id_beyond_the_table_is_an_error)
{
	char *dump[] = { "dump", run, NULL };
	char *report[] = { "report", run, NULL };
	char *tab[] = { "table", run, NULL };
	char *predict[] = { "predict", run, "--table", table,
			    "--missing=measured", NULL };
	char **argv[] = { dump, report, tab, predict };
	int (*cmd[])(int, char **) = { cmd_dump, cmd_report, cmd_table,
				       cmd_predict };
	struct st_event ev;
	size_t i;

	fake_call(&ev, 65535, 30000, 30100, 1);
	ev.comm = 1;
	ev.comm_size = 2;
	ev.seq = 9;
	append_chunk(&ev);
	for (i = 0; i < 4; i++) {
		struct captured c = run_cmd(dir, cmd[i], argv[i]);

		cr_expect_eq(c.status, cmd[i] == cmd_table ? 0 : 1,
			     "%s: status %d, stderr: %s", argv[i][0],
			     c.status, c.err);
		cr_expect(strstr(c.err, "unknown function id 65535"),
			  "%s: %s", argv[i][0], c.err);
		captured_free(&c);
	}
}

Test(tools_corrupt, object_without_text_is_read)
{
	char *dump[] = { "dump", run, NULL };
	char *sites[] = { "dump", "--sites", run, NULL };
	char *report[] = { "report", run, NULL };
	char *predict[] = { "predict", run, "--table", table,
			    "--missing=measured", NULL };
	char **argv[] = { dump, sites, report, predict };
	int (*cmd[])(int, char **) = { cmd_dump, cmd_dump, cmd_report,
				       cmd_predict };
	struct st_event ev;
	size_t i;

	st_event_clear(&ev);
	ev.kind = ST_REC_OBJECT;
	ev.addr = 0x10000;
	ev.len = 0x1000;
	append_chunk(&ev);
	for (i = 0; i < 4; i++) {
		struct captured c = run_cmd(dir, cmd[i], argv[i]);

		cr_expect_eq(c.status, 0, "%s: status %d, stderr: %s",
			     argv[i][0], c.status, c.err);
		captured_free(&c);
	}
}

Test(tools_corrupt, object_path_escapes_reach_the_terminal_escaped)
{
	static const char evil[] = "/tmp/\x1b]0;pwned\x07\x1b[2J/lib\x9b.so";
	char *dump[] = { "dump", run, NULL };
	char *sites[] = { "dump", "--sites", run, NULL };
	char *report[] = { "report", run, NULL };
	char **argv[] = { dump, sites, report };
	int (*cmd[])(int, char **) = { cmd_dump, cmd_dump, cmd_report };
	struct st_event ev;
	char index[512];
	size_t i;

	/* Rank 1's site 2 has frame 0x10: put the object there. */
	fake_object(&ev, 0x8, 0x100, evil);
	append_chunk(&ev);
	/* and a command line that would clear the screen */
	snprintf(index, sizeof(index), "%s/synctrace.run", run);
	write_file(index, "nranks=2\ncmdline=./app\t\x1b[2J\x9b\n"
		   "complete=1\n");
	for (i = 0; i < 3; i++) {
		struct captured c = run_cmd(dir, cmd[i], argv[i]);
		const char *p;

		cr_expect_eq(c.status, 0, "%s: status %d, stderr: %s",
			     argv[i][0], c.status, c.err);
		for (p = c.out; *p; p++)
			if ((unsigned char)*p < 0x20 && *p != '\n' &&
			    *p != '\t')
				break;
		cr_expect_eq(*p, '\0', "%s %s: control character 0x%02x "
			     "in the output", argv[i][0], argv[i][1],
			     (unsigned char)*p);
		cr_expect_null(strchr(c.out, '\x9b'));
		captured_free(&c);
	}
	{
		struct captured c = run_cmd(dir, cmd_dump, dump);

		cr_expect(strstr(c.out, "/tmp/\\x1b]0;pwned\\x07\\x1b[2J/"
				 "lib\\x9b.so"), "%s", c.out);
		captured_free(&c);
		c = run_cmd(dir, cmd_report, report);
		cr_expect(strstr(c.out, "./app \\x1b[2J\\x9b\n"), "%s", c.out);
		captured_free(&c);
	}
}

/*
 * Header values reach table's, report's and dump --header's text
 * escaped: a host name with an escape sequence (the fuzzer's input had
 * a control character in 'clock', which table printed raw).
 */
Test(tools_corrupt, header_escapes_reach_the_terminal_escaped)
{
	char run1[400];
	char *tab[] = { "table", run1, NULL };
	char *report[] = { "report", run1, NULL };
	char *hdr[] = { "dump", "--header", run1, NULL };
	char **argv[] = { tab, report, hdr };
	int (*cmd[])(int, char **) = { cmd_table, cmd_report, cmd_dump };
	struct fake_rank fr;
	struct st_event ev;
	size_t i;
	int k;

	snprintf(run1, sizeof(run1), "%s/one", dir);
	cr_assert_eq(mkdir(run1, 0777), 0);
	fake_index(run1, 1, 1);
	fake_rank_open(&fr, run1, 0, "node\x1b]0;x\x07\x17", "2000");
	for (k = 0; k < 8; k++) {
		fake_call(&ev, ST_FN_MPI_ALLREDUCE, 3000 + 1000 * (uint64_t)k,
			  3100 + 1000 * (uint64_t)k, 0);
		ev.comm = 1;
		ev.comm_size = 1;
		ev.seq = (uint64_t)k + 1;
		ev.sbytes = ev.rbytes = ev.tsize = 8;
		fake_append(&fr, &ev);
	}
	fake_rank_close(&fr);
	for (i = 0; i < 3; i++) {
		struct captured c = run_cmd(dir, cmd[i], argv[i]);
		const char *p;

		for (p = c.out; *p; p++)
			if ((unsigned char)*p < 0x20 && *p != '\n' &&
			    *p != '\t')
				break;
		cr_expect_eq(*p, '\0', "%s: control character 0x%02x in "
			     "the output", argv[i][0], (unsigned char)*p);
		cr_expect(cmd[i] == cmd_report ||
			  strstr(c.out, "node\\x1b]0;x\\x07\\x17"), "%s: %s",
			  argv[i][0], c.out);
		captured_free(&c);
	}
}
