/*
 * tests/unit/cli-cmd-dump.c: 'synctrace dump' on a 2-rank run written
 * by the real writer: every record once, in rank then file order, in
 * text and in CSV with exactly the documented columns; --rank, --header
 * and --sites; a truncated file warns and exits 0, a corrupted one
 * prints what precedes the damage and exits 1; usage errors exit 129.
 * On a run with sync records (clocks 1 s apart), every timed record
 * shows the global times its rank's epochs imply, sync records are
 * decoded, and --sync lists every rank's epochs; a rank without sync
 * records has no global time.
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
	/* fake_run()'s sync records hold text, not a sync blob. */
	cr_expect_str_eq(c.err, "synctrace: warning: rank 0: the sync record "
			 "at t0=15000 is not a valid sync record (n=1 sync "
			 "record ignored)\nsynctrace: warning: rank 1: the "
			 "sync record at t0=515000 is not a valid sync record "
			 "(n=1 sync record ignored)\n");
	cr_expect(!strncmp(c.out, "rank,thread,kind,fn,t0_ns,t1_ns,comm,"
			   "comm_size,seq,inst,root,peer,tag,sbytes,rbytes,"
			   "tsize,op,req,site,rc,g0_ns,g1_ns,arg,offset,len,"
			   "text\n", 137));
	cr_expect_eq(count_lines(c.out), 1 + 2 * FAKE_RECORDS_PER_RANK);
	/* Rank order, then file order: rank 0's Init first, rank 1 last. */
	first_line = strchr(c.out, '\n') + 1;
	cr_expect(!strncmp(first_line, "0,0,object,", 11), "%.40s",
		  first_line);
	/* No usable sync record: the global times are empty. */
	cr_expect(strstr(c.out, "\n0,0,call,MPI_Allreduce,3000,3100,0x1,2,1,,"
			 ",,,8,8,8,sum,,1,0,,,,,,\n"),
		  "allreduce line missing");
	cr_expect(strstr(c.out, "\n1,0,call,MPI_Allreduce,505000,505200,0x1,2,"
			 "3,,,,,8,8,8,sum,,1,0,,,,,,\n"));
	cr_expect(strstr(c.out, "\n0,0,call,MPI_Isend,10000,10100,0x1,2,,,,1,5,"
			 "1024,0,1,,1,2,0,,,,,,\n"));
	/* A done record's arg: 0, not cancelled (ST_DONE_CANCELLED). */
	cr_expect(strstr(c.out, "\n0,0,done,MPI_Waitall,10400,12000,,,,,,1,6,"
			 "0,2048,,,2,2,0,,,0,,,\n"));
	cr_expect(strstr(c.out, "\n1,0,start,MPI_Allreduce_init,513200,513300,"
			 "0x1,2,4,1,,,,64,64,,max,3,2,0,,,,,,\n"));
	cr_expect(strstr(c.out, "\n0,0,comm,MPI_Init,2000,2000,0x1,2,,,,,,,,,,"
			 ",,0,,,,,,\n"));
	cr_expect(strstr(c.out, "\n0,0,mark,flush,14000,14500,,,,,,,,,,,,,"
			 ",,,,,,,\n"));
	cr_expect(strstr(c.out, "\n0,0,sync,invalid sync record,15000,"
			 "15100,,,,,,,,,,,,,,,,,,,,\n"), "not the raw text");
	cr_expect_null(strstr(c.out, FAKE_SYNC_TEXT));
	cr_expect(strstr(c.out, "\n0,0,site,,,,,,,,,,,,,,,,1,,,,,,,\n"));
	cr_expect(strstr(c.out, "\n1,0,object," FAKE_FORT_PATH ",,,,,,,,,,,,,,,"
			 ",,,,,,,\n"));
	last = c.out + strlen(c.out) - 1;
	while (last > c.out && last[-1] != '\n')
		last--;
	cr_expect_str_eq(last, "1,0,call,MPI_Finalize,520000,521000,,,,,,,,"
			 "0,0,,,,,0,,,,,,\n",
			 "rank 1's Finalize is the last line");
	captured_free(&c);
}

/* Every line of CSV 'out' has 'want' fields. */
static void expect_fields(const char *out, int want)
{
	const char *p = out;
	int line = 0;

	while (*p) {
		int fields = 1, quoted = 0;

		for (; *p && (quoted || *p != '\n'); p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (*p == ',' && !quoted)
				fields++;
		}
		cr_expect_eq(fields, want, "line %d has %d fields", line,
			     fields);
		line++;
		p += *p == '\n';
	}
}

Test(tools_cmd_dump, every_csv_line_has_twenty_six_fields)
{
	char *argv[] = { "dump", "--csv", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);

	cr_assert_eq(c.status, 0);
	expect_fields(c.out, 26);
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
	cr_expect_eq(count_lines_with(c.out, " sync ", "invalid sync record "
				      "(17 bytes)"), 2);
	cr_expect_eq(count_lines_with(c.out, " flush ", NULL), 2);
	cr_expect_eq(count_lines_with(c.out, " finalize ", NULL), 2);
	captured_free(&c);
}

/*
 * A Sendrecv's receive side (its source and tag, from the status) shows
 * as from=SOURCE:TAG; other records have none.
 */
Test(tools_cmd_dump, text_shows_the_source_of_a_sendrecv)
{
	char one[400];
	char *argv[] = { "dump", one, NULL };
	struct fake_rank fr;
	struct st_event ev;
	struct captured c;

	snprintf(one, sizeof(one), "%s/one", dir);
	cr_assert_eq(mkdir(one, 0777), 0);
	fake_index(one, 1, 1);
	fake_rank_open(&fr, one, 0, "h", "1000");
	fake_world(&fr, &ev, 0, 1, 1000);
	fake_call(&ev, ST_FN_MPI_SENDRECV, 2000, 3000, 0);
	ev.comm = 1;
	ev.peer = 0;
	ev.tag = 5;
	ev.peer2 = 0;
	ev.tag2 = 6;
	ev.sbytes = 8;
	ev.rbytes = 16;
	fake_append(&fr, &ev);
	ev.peer2 = ST_RANK_PROC_NULL;
	ev.tag2 = ST_TAG_ANY;
	ev.rbytes = 0;
	fake_append(&fr, &ev);
	fake_call(&ev, ST_FN_MPI_SEND, 4000, 5000, 0);
	ev.comm = 1;
	ev.peer = 0;
	ev.tag = 5;
	fake_append(&fr, &ev);
	fake_rank_close(&fr);
	c = run_cmd(dir, cmd_dump, argv);
	cr_expect_eq(c.status, 0, "stderr: %s", c.err);
	cr_expect_str_eq(c.err, "");
	cr_expect_eq(count_lines_with(c.out, "MPI_Sendrecv ", " from=0:6"), 1,
		     "%s", c.out);
	cr_expect_eq(count_lines_with(c.out, "MPI_Sendrecv ",
				      " from=null:any"), 1, "%s", c.out);
	cr_expect_eq(count_lines_with(c.out, " from=", NULL), 2, "%s", c.out);
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
	cr_expect_eq(count_lines_with(c.out, "cli-cmd-dump.c:", NULL), 2);
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

/* A run with sync records: synced_run() in tools-sync-test.h. */
static void setup_synced(void)
{
	struct fake_obj obj;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)dump_marker, &obj);
	synced_run(run, &obj, (uint64_t)(uintptr_t)dump_marker + 1,
		   (uint64_t)(uintptr_t)dump_marker + 2);
}

TestSuite(tools_cmd_dump_sync, .init = setup_synced, .fini = teardown);

/* 'out' with runs of blanks squeezed to one, for comparing text tables. */
static char *squeeze(const char *out)
{
	char *s = strdup(out), *w = s;
	const char *p;

	cr_assert(s);
	for (p = out; *p; p++)
		if (*p != ' ' || (w > s && w[-1] != ' ' && w[-1] != '\n'))
			*w++ = *p;
	*w = '\0';
	for (w = s; (w = strstr(w, " \n")); )
		memmove(w, w + 1, strlen(w));
	return s;
}

Test(tools_cmd_dump_sync, csv_has_global_times)
{
	char *argv[] = { "dump", "--csv", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);

	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.err, "");
	cr_expect_eq(count_lines(c.out), 1 + 2 * SYNCED_RECORDS_PER_RANK);
	expect_fields(c.out, 26);
	/* Rank 1's clock reads 1 s more: its global times are rank 0's. */
	cr_expect(strstr(c.out, "\n0,0,call,MPI_Allreduce,200000000,200006000,"
			 "0x1,2,1,,,,,0,0,,,,1,0,100000000.0,100006000.0,"
			 ",,,\n"),
		  "%s", c.out);
	cr_expect(strstr(c.out, "\n1,0,call,MPI_Allreduce,1200005000,"
			 "1200006200,0x1,2,1,,,,,0,0,,,,1,0,100005000.0,"
			 "100006200.0,,,,\n"));
	cr_expect(strstr(c.out, "\n1,0,call,MPI_Init,1099000000,1126000000,,,"
			 ",,,,,0,0,,,,,0,-1000000.0,26000000.0,,,,\n"));
	/* Sync records: a summary in 'fn', and their own global times. */
	cr_expect(strstr(c.out, "\n0,0,sync,hca epoch 0 err 0ns,100000000,"
			 "125000000,,,,,,,,,,,,,,,0.0,25000000.0,,,,\n"));
	cr_expect(strstr(c.out, "\n1,0,sync,hca epoch 1 err 30ns,1800000000,"
			 "1801000000,,,,,,,,,,,,,,,700000000.0,701000000.0,"
			 ",,,\n"));
	/* Records without times have no global time either. */
	cr_expect(strstr(c.out, "\n1,0,site,,,,,,,,,,,,,,,,2,,,,,,,\n"));
	captured_free(&c);
}

Test(tools_cmd_dump_sync, text_shows_global_t0_and_decoded_sync)
{
	char *argv[] = { "dump", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);
	char *sq;

	cr_expect_eq(c.status, 0, "%s", c.err);
	sq = squeeze(c.out);
	cr_expect(!strncmp(sq, "rank thr kind function comm seq root peer:tag "
			   "bytes s/r t0_ns g0_ns dur_ns site\n", 77), "%s",
		  sq);
	cr_expect(strstr(sq, "\n1 0 call MPI_Allreduce 0x1 1 - - 0/0 "
			 "1200005000 100005000.0 1200 1\n"), "%s", sq);
	cr_expect(strstr(sq, "\n1 0 sync - - - - - - 1100000500 500.0 "
			 "25000000 - method=hca epoch=0 slope=0 "
			 "intercept_ns=-500.0 err_ns=30.0 slope_err=0 "
			 "rtt_ns=1000 samples=8\n"), "%s", sq);
	cr_expect(strstr(sq, "\n0 0 site - - - - - - - - - 1 frames: "));
	free(sq);
	captured_free(&c);
}

Test(tools_cmd_dump_sync, sync_lists_every_ranks_epochs)
{
	char *argv[] = { "dump", "--sync", run, NULL };
	char *csv[] = { "dump", "--sync", "--csv", "--rank", "1", run, NULL };
	struct captured c = run_cmd(dir, cmd_dump, argv);
	char *sq;

	cr_expect_eq(c.status, 0, "%s", c.err);
	sq = squeeze(c.out);
	cr_expect_str_eq(sq,
		"rank epoch method t0_ns dur_ns slope_ppm intercept_ns err_ns "
		"serr_ppm rtt_ns samples\n"
		"0 0 hca 100000000 25000000 0.0000 0.0 0.0 0.0000 0 8\n"
		"0 1 hca 800000000 1000000 0.0000 0.0 0.0 0.0000 0 8\n"
		"1 0 hca 1100000500 25000000 0.0000 -500.0 30.0 0.0000 1000 8\n"
		"1 1 hca 1800000000 1000000 0.0000 -500.0 30.0 0.0000 1000 "
		"8\n");
	free(sq);
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, csv);
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out,
		"rank,epoch,method,t0_ns,dur_ns,slope_ppm,intercept_ns,err_ns,"
		"slope_err_ppm,rtt_ns,samples\n"
		"1,0,hca,1100000500,25000000,0.0000,-500.0,30.0,0.0000,1000,8\n"
		"1,1,hca,1800000000,1000000,0.0000,-500.0,30.0,0.0000,1000,"
		"8\n");
	captured_free(&c);
}

Test(tools_cmd_dump_sync, drift_shows_in_ppm_and_in_global_time)
{
	char *argv[] = { "dump", "--sync", "--rank", "1", run, NULL };
	char *csv[] = { "dump", "--csv", "--rank", "1", run, NULL };
	struct blob_spec b;
	struct fake_rank fr;
	struct st_event ev;
	struct captured c;
	char *sq;

	/* Rank 1 runs 50 ppm fast: g = (1 - 5e-5) t + 200. */
	fake_rank_open(&fr, run, 1, "nodeB", "0");
	b = blob_spec(1, 2, 0, 1000000, 0, 5e-5, -200.0);
	b.slope_err = 2.5e-9;
	fake_sync_rec(&fr, &b, 1000000, 1100000);
	fake_call(&ev, ST_FN_MPI_BARRIER, 1000000 + 2000000000ull,
		  1000000 + 2000010000ull, 0);
	fake_append(&fr, &ev);
	fake_rank_close(&fr);
	c = run_cmd(dir, cmd_dump, argv);
	sq = squeeze(c.out);
	cr_expect(strstr(sq, "\n1 0 hca 1000000 100000 50.0000 -200.0 30.0 "
			 "0.0025 1000 8\n"), "%s", sq);
	free(sq);
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, csv);
	/* t = 2e9: g = 2e9 - 1e5 + 200; t = 2e9 + 1e4: 0.5 ns less drift. */
	cr_expect(strstr(c.out, ",1999900200.0,1999910199.5,,,,\n"), "%s",
		  c.out);
	captured_free(&c);
}

Test(tools_cmd_dump_sync, a_rank_without_sync_records_has_no_global_time)
{
	char *argv[] = { "dump", "--csv", run, NULL };
	char *text[] = { "dump", "--rank", "1", run, NULL };
	char *sync[] = { "dump", "--sync", run, NULL };
	struct fake_rank fr;
	struct st_event ev;
	struct captured c;
	char *sq;

	fake_rank_open(&fr, run, 1, "nodeB", "0");
	fake_call(&ev, ST_FN_MPI_BARRIER, 5000, 6000, 0);
	fake_append(&fr, &ev);
	fake_rank_close(&fr);
	c = run_cmd(dir, cmd_dump, argv);
	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.err, "");
	cr_expect(strstr(c.out, "\n1,0,call,MPI_Barrier,5000,6000,,,,,,,,0,0,"
			 ",,,,0,,,,,,\n"), "%s", c.out);
	cr_expect(strstr(c.out, ",0,100000000.0,100006000.0,,,,\n"),
		  "rank 0 still has it");
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, text);
	sq = squeeze(c.out);
	cr_expect(strstr(sq, "\n1 0 call MPI_Barrier - - - - 0/0 5000 - 1000 "
			 "-\n"), "%s", sq);
	free(sq);
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, sync);
	cr_expect_eq(c.status, 0);
	cr_expect(strstr(c.out, "\n   1     - (no sync record: this rank has "
			 "no global time)\n"), "%s", c.out);
	captured_free(&c);
}

Test(tools_cmd_dump_sync, sync_option_combinations)
{
	char *sites[] = { "dump", "--sync", "--sites", run, NULL };
	char *header[] = { "dump", "--csv", "--header", run, NULL };
	struct captured c;

	c = run_cmd(dir, cmd_dump, sites);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "exclude each other"), "%s", c.err);
	captured_free(&c);
	c = run_cmd(dir, cmd_dump, header);
	cr_expect_eq(c.status, 129);
	captured_free(&c);
}
