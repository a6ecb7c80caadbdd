/*
 * tests/unit/tools-cmd-dump.c: 'synctrace dump' on a 2-rank run written
 * by the real writer: every record once, in rank then file order, in
 * text and in CSV with exactly the documented columns; --rank, --header
 * and --sites; a truncated file warns and exits 0, a corrupted one
 * prints what precedes the damage and exits 1; usage errors exit 129.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/synctrace.h"
#include "tools-test.h"

static char dir[256];
static char run[300];

__attribute__((noinline)) int dump_marker(int x)
{
	return x * 5 + 2;
}

static void setup(void)
{
	struct fake_obj obj;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)dump_marker, &obj);
	fake_run(run, &obj, (uint64_t)(uintptr_t)dump_marker + 1, NULL);
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_cmd_dump, .init = setup, .fini = teardown);

Test(tools_csv, field_quotes_only_when_needed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	st_csv_field(f, "MPI_Send", 8);
	putc('|', f);
	st_csv_field(f, "a,b", 3);
	putc('|', f);
	st_csv_field(f, "say \"hi\"", 8);
	putc('|', f);
	st_csv_field(f, "two\nlines", 9);
	putc('|', f);
	st_csv_field(f, " pad", 4);
	putc('|', f);
	st_csv_field(f, "", 0);
	fclose(f);
	cr_expect_str_eq(buf, "MPI_Send|\"a,b\"|\"say \"\"hi\"\"\"|"
			 "\"two\nlines\"|\" pad\"|");
	free(buf);
}

Test(tools_cmd_dump, csv_has_every_record_and_exact_columns)
{
	char *argv[] = { "dump", "--csv", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);
	const char *first_line, *last;

	cr_expect_eq(c.status, 0, "stderr: %s", c.err);
	cr_expect_str_eq(c.err, "");
	cr_expect(!strncmp(c.out, "rank,thread,kind,fn,t0_ns,t1_ns,comm,"
			   "comm_size,seq,inst,root,peer,tag,sbytes,rbytes,"
			   "tsize,op,req,site,rc\n", 96));
	cr_expect_eq(count_lines(c.out), 1 + 2 * FAKE_RECORDS_PER_RANK);
	/* Rank order, then file order: rank 0's Init first, rank 1 last. */
	first_line = strchr(c.out, '\n') + 1;
	cr_expect(!strncmp(first_line, "0,0,object,", 11), "%.40s",
		  first_line);
	cr_expect(strstr(c.out, "\n0,0,call,MPI_Allreduce,3000,3100,0x1,2,1,,"
			 ",,,8,8,8,sum,,1,0\n"), "allreduce line missing");
	cr_expect(strstr(c.out, "\n1,0,call,MPI_Allreduce,505000,505200,0x1,2,"
			 "3,,,,,8,8,8,sum,,1,0\n"));
	cr_expect(strstr(c.out, "\n0,0,call,MPI_Isend,10000,10100,0x1,2,,,,1,5,"
			 "1024,0,1,,1,2,0\n"));
	cr_expect(strstr(c.out, "\n0,0,done,MPI_Waitall,10400,12000,,,,,,1,6,"
			 "0,2048,,,2,2,0\n"));
	cr_expect(strstr(c.out, "\n1,0,start,MPI_Allreduce_init,513200,513300,"
			 "0x1,2,4,1,,,,64,64,,max,3,2,0\n"));
	cr_expect(strstr(c.out, "\n0,0,comm,MPI_Init,2000,2000,0x1,2,,,,,,,,,,"
			 ",,0\n"));
	cr_expect(strstr(c.out, "\n0,0,mark,flush,14000,14500,,,,,,,,,,,,,"
			 ",\n"));
	cr_expect(strstr(c.out, "\n0,0,sync,\"" FAKE_SYNC_TEXT "\",15000,"
			 "15100,,,,,,,,,,,,,,\n"), "sync text is quoted");
	cr_expect(strstr(c.out, "\n0,0,site,,,,,,,,,,,,,,,,1,\n"));
	cr_expect(strstr(c.out, "\n1,0,object," FAKE_FORT_PATH ",,,,,,,,,,,,,,,"
			 ",\n"));
	last = c.out + strlen(c.out) - 1;
	while (last > c.out && last[-1] != '\n')
		last--;
	cr_expect_str_eq(last, "1,0,call,MPI_Finalize,520000,521000,,,,,,,,"
			 "0,0,,,,,0\n", "rank 1's Finalize is the last line");
	captured_free(&c);
}

Test(tools_cmd_dump, every_csv_line_has_twenty_fields)
{
	char *argv[] = { "dump", "--csv", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);
	const char *p = c.out;
	int line = 0;

	cr_assert_eq(c.status, 0);
	while (*p) {
		int fields = 1, quoted = 0;

		for (; *p && (quoted || *p != '\n'); p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (*p == ',' && !quoted)
				fields++;
		}
		cr_expect_eq(fields, 20, "line %d has %d fields", line, fields);
		line++;
		p += *p == '\n';
	}
	captured_free(&c);
}

Test(tools_cmd_dump, text_is_one_line_per_record_with_names)
{
	char *argv[] = { "dump", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);

	cr_expect_eq(c.status, 0, "stderr: %s", c.err);
	cr_expect_eq(count_lines(c.out), 1 + 2 * FAKE_RECORDS_PER_RANK);
	cr_expect_eq(count_lines_with(c.out, "MPI_Allreduce ", "0x1"), 6);
	cr_expect_eq(count_lines_with(c.out, "MPI_Isend", "1:5"), 1);
	cr_expect_eq(count_lines_with(c.out, "MPI_Isend", "0:5"), 1);
	cr_expect_eq(count_lines_with(c.out, "1024/0", NULL), 2);
	cr_expect_eq(count_lines_with(c.out, "op=sum", NULL), 6);
	cr_expect_eq(count_lines_with(c.out, "req=3", "inst=1"), 2);
	cr_expect_eq(count_lines_with(c.out, "frames: libmpichfort.so.12+0xff",
				      NULL), 2, "%s", c.out);
	cr_expect_eq(count_lines_with(c.out, "frames: 0x10", NULL), 2);
	cr_expect_eq(count_lines_with(c.out, FAKE_SYNC_TEXT, NULL), 2);
	cr_expect_eq(count_lines_with(c.out, " flush ", NULL), 2);
	cr_expect_eq(count_lines_with(c.out, " finalize ", NULL), 2);
	captured_free(&c);
}

Test(tools_cmd_dump, rank_option_selects_one_rank)
{
	char *argv[] = { "dump", "--csv", "--rank", "1", run, NULL };
	char *argv2[] = { "dump", "--rank=2", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);

	cr_expect_eq(c.status, 0);
	cr_expect_eq(count_lines(c.out), 1 + FAKE_RECORDS_PER_RANK);
	cr_expect_eq(count_lines_with(c.out, "\n0,", NULL), 0);
	cr_expect_null(strstr(c.out, "\n0,"));
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, argv2);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "no rank 2 in"), "%s", c.err);
	captured_free(&c);
}

Test(tools_cmd_dump, header_prints_each_ranks_keys)
{
	char *argv[] = { "dump", "--header", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);

	cr_expect_eq(c.status, 0);
	cr_expect_eq(count_lines_with(c.out, "# rank ", "rank-"), 2);
	cr_expect_eq(count_lines_with(c.out, "host=node", NULL), 2);
	cr_expect(strstr(c.out, "\nhost=nodeB\n"));
	cr_expect(strstr(c.out, "\nclock=CLOCK_MONOTONIC_RAW\n"));
	cr_expect(strstr(c.out, "\nfn_table=" ST_FN_TABLE_HASH "\n"));
	cr_expect_null(strstr(c.out, "MPI_Allreduce"), "no records");
	captured_free(&c);
}

Test(tools_cmd_dump, sites_are_symbolised)
{
	char *argv[] = { "dump", "--sites", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);

	cr_expect_eq(c.status, 0, "stderr: %s", c.err);
	cr_expect_eq(count_lines_with(c.out, "site 1 (3 frames):", NULL), 2);
	cr_expect_eq(count_lines_with(c.out, "site 2 (1 frame):", NULL), 2);
	cr_expect_eq(count_lines_with(c.out, "#1", "dump_marker ("), 2,
		     "%s", c.out);
	cr_expect_eq(count_lines_with(c.out, "tools-cmd-dump.c:", NULL), 2);
	cr_expect_eq(count_lines_with(c.out, "#0", FAKE_FORT_PATH "+0xff"), 2);
	cr_expect_eq(count_lines_with(c.out, "#2", "0xdead"), 2);
	cr_expect_eq(dump_marker(0), 2);
	captured_free(&c);
}

Test(tools_cmd_dump, truncated_file_warns_and_succeeds)
{
	struct fake_layout lay[2];
	struct fake_obj obj;
	char *argv[] = { "dump", "--csv", run, NULL };
	char path[400];
	struct captured c;

	find_object((const void *)(uintptr_t)dump_marker, &obj);
	fake_run(run, &obj, (uint64_t)(uintptr_t)dump_marker + 1, lay);
	snprintf(path, sizeof(path), "%s/rank-1.st", run);
	/* Cut into rank 1's second chunk: its first chunk survives. */
	cr_assert_eq(truncate(path, lay[1].chunk2 + 40), 0);
	c = run_cmd(dir, cmd_dump, argv);
	cr_expect_eq(c.status, 0, "stderr: %s", c.err);
	cr_expect(strstr(c.err, "warning: '"), "%s", c.err);
	cr_expect(strstr(c.err, "rank-1.st' is truncated"), "%s", c.err);
	cr_expect_eq(count_lines_with(c.out, "\n1,", NULL), 0);
	cr_expect_eq(count_lines(c.out), 1 + FAKE_RECORDS_PER_RANK + 9,
		     "rank 1's first chunk holds 9 records");
	captured_free(&c);
}

Test(tools_cmd_dump, corrupt_file_prints_what_it_can_and_fails)
{
	struct fake_layout lay[2];
	struct fake_obj obj;
	char *argv[] = { "dump", "--csv", run, NULL };
	char path[400];
	struct captured c;
	FILE *f;
	int ch;

	find_object((const void *)(uintptr_t)dump_marker, &obj);
	fake_run(run, &obj, (uint64_t)(uintptr_t)dump_marker + 1, lay);
	snprintf(path, sizeof(path), "%s/rank-0.st", run);
	f = fopen(path, "r+");
	cr_assert(f);
	/* Flip a payload byte of rank 0's second chunk. */
	fseek(f, lay[0].chunk2 + 40, SEEK_SET);
	ch = getc(f);
	fseek(f, lay[0].chunk2 + 40, SEEK_SET);
	putc(ch ^ 0x55, f);
	fclose(f);
	c = run_cmd(dir, cmd_dump, argv);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "error: "), "%s", c.err);
	cr_expect(strstr(c.err, "rank-0.st"), "names the file: %s", c.err);
	cr_expect_eq(count_lines(c.out), 1 + 9 + FAKE_RECORDS_PER_RANK,
		     "rank 0's first chunk, then all of rank 1");
	captured_free(&c);
}

Test(tools_cmd_dump, missing_rank_file_and_incomplete_run_warn)
{
	char *argv[] = { "dump", "--csv", run, NULL };
	char path[400];
	struct captured c;

	snprintf(path, sizeof(path), "%s/rank-0.st", run);
	cr_assert_eq(unlink(path), 0);
	fake_index(run, 2, 0);
	c = run_cmd(dir, cmd_dump, argv);
	cr_expect_eq(c.status, 0);
	cr_expect(strstr(c.err, "no trace for rank 0"), "%s", c.err);
	cr_expect(strstr(c.err, "' is incomplete: not every rank finished"),
		  "%s", c.err);
	cr_expect_eq(count_lines(c.out), 1 + FAKE_RECORDS_PER_RANK);
	captured_free(&c);
}

Test(tools_cmd_dump, one_trace_file_can_be_dumped)
{
	char path[400];
	char *argv[] = { "dump", "--csv", path, NULL };
	struct captured c;

	snprintf(path, sizeof(path), "%s/rank-1.st", run);
	c = run_cmd(dir, cmd_dump, argv);
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_eq(count_lines(c.out), 1 + FAKE_RECORDS_PER_RANK);
	cr_expect_eq(count_lines_with(c.out, "1,0,call,", NULL), 11,
		     "rank from the header: %s", c.out);
	captured_free(&c);
}

Test(tools_cmd_dump, bad_run_directories_fail_clearly)
{
	char missing[400], empty[400];
	char *argv1[] = { "dump", missing, NULL };
	char *argv2[] = { "dump", empty, NULL };
	struct captured c;

	snprintf(missing, sizeof(missing), "%s/nope", dir);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	cr_assert_eq(mkdir(empty, 0777), 0);
	c = run_cmd(dir, cmd_dump, argv1);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "synctrace: fatal: cannot open '"), "%s",
		  c.err);
	cr_expect(strstr(c.err, "No such file or directory"), "%s", c.err);
	cr_expect_str_eq(c.out, "");
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, argv2);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "not a synctrace run"), "%s", c.err);
	captured_free(&c);
}

Test(tools_cmd_dump, usage_errors_exit_129)
{
	char *bad_opt[] = { "dump", "--frobnicate", run, NULL };
	char *no_run[] = { "dump", "--csv", NULL };
	char *two[] = { "dump", "--csv", "--sites", run, NULL };
	char *bad_rank[] = { "dump", "--rank", "x", run, NULL };
	char *help[] = { "dump", "--help", NULL };
	struct captured c;

	c = run_cmd(dir, cmd_dump, bad_opt);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "unknown option '--frobnicate'"), "%s", c.err);
	cr_expect(strstr(c.err, "usage: synctrace dump"));
	cr_expect_str_eq(c.out, "");
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, no_run);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "no run directory given"));
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, two);
	cr_expect_eq(c.status, 129);
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, bad_rank);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "bad rank 'x'"));
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, help);
	cr_expect_eq(c.status, 0);
	cr_expect(!strncmp(c.out, "usage: synctrace dump", 21));
	cr_expect_str_eq(c.err, "");
	captured_free(&c);
}

Test(tools_cmd_dump, sites_use_their_own_ranks_objects)
{
	char *argv[] = { "dump", "--sites", run, NULL };
	struct fake_rank fr;
	struct fake_obj obj;
	struct st_event ev;
	struct captured c;

	/* Rank 0 has no sites; rank 1's objects lie 16 MiB higher. */
	remove_tree(run);
	cr_assert_eq(mkdir(run, 0777), 0);
	fake_index(run, 2, 1);
	fake_rank_open(&fr, run, 0, "nodeA", "0");
	fake_call(&ev, ST_FN_MPI_INIT, 1, 2, 0);
	fake_append(&fr, &ev);
	fake_rank_close(&fr);
	find_object((const void *)(uintptr_t)dump_marker, &obj);
	fake_rank_open(&fr, run, 1, "nodeB", "0");
	fake_object(&ev, obj.base + FAKE_RANK1_SHIFT, obj.len, obj.path);
	fake_append(&fr, &ev);
	st_event_clear(&ev);
	ev.kind = ST_REC_SITE;
	ev.site = 7;
	ev.nframes = 1;
	ev.frames[0] = (uintptr_t)dump_marker + 1 + FAKE_RANK1_SHIFT;
	fake_append(&fr, &ev);
	fake_rank_close(&fr);
	c = run_cmd(dir, cmd_dump, argv);
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.out, "rank 1 site 7 (1 frame):\n"
			 "  #0  dump_marker ("), "%s", c.out);
	captured_free(&c);
}
