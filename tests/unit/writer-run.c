/*
 * tests/unit/writer-run.c: run directories.  The index is parsed with
 * later lines overriding earlier ones, nranks is required and checked,
 * rank paths follow ST_RUN_RANK_FMT, and a directory without an index is
 * named as not being a run.  Opening a run refuses rank files of another
 * run (run_id), renamed ones, ones beyond nranks, an nranks the files
 * deny, and a run without any rank file.  Making runs: patterns expand
 * to safe names, a directory is claimed exclusively (never through a
 * symbolic link, never one in use, at most 100 names), rank files are
 * created exclusively, and run ids differ.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer/reader.h"
#include "writer/run.h"
#include "writer/writer.h"
#include "tools-test.h"

static char dir[256];
static char index_path[300];

static void setup(void)
{
	scratch_dir(dir, sizeof(dir));
	snprintf(index_path, sizeof(index_path), "%s/%s", dir, ST_RUN_INDEX);
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(writer_run, .init = setup, .fini = teardown);

static void write_index(const char *text)
{
	write_file(index_path, text);
}

/*
 * Write 'name' in 'dir' as a rank file whose header says 'rank', 'size'
 * and 'id' (each left out when NULL).
 */
static void rank_file(const char *name, const char *rank, const char *size,
		      const char *id)
{
	struct st_kv kv[3];
	struct st_sink sink;
	char path[400];
	size_t n = 0;
	int fd;

	if (id)
		kv[n++] = (struct st_kv){ "run_id", id };
	if (rank)
		kv[n++] = (struct st_kv){ "rank", rank };
	if (size)
		kv[n++] = (struct st_kv){ "size", size };
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	cr_assert(fd >= 0);
	sink.ctx = (void *)(intptr_t)fd;
	sink.write = st_sink_fd_write;
	cr_assert_eq(st_trace_write_header(&sink, kv, n), 0);
	close(fd);
}

Test(writer_run, reads_index_and_later_keys_win)
{
	struct st_run *run;
	char err[256], want[400];

	write_index("nranks=4\ncmdline=./app -n 3\nstart_ns=17\n"
		    "complete=0\ncomplete=1\n");
	rank_file("rank-0.st", "0", "4", NULL);
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
	rank_file("rank-1.st", "1", "2", NULL);
	cr_assert_eq(st_run_open(&run, dir, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(st_run_nranks(run), 2);
	st_run_close(run);
}

Test(writer_run, missing_index_is_not_a_run)
{
	struct st_run *run = (struct st_run *)&run;
	char err[256], want[400];

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

	rank_file("rank-0.st", "0", "2", NULL);
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

/* st_run_open() on 'dir' fails with -EBADMSG and a message with 'msg'. */
static void expect_refused(const char *msg)
{
	struct st_run *run = (struct st_run *)&run;
	char err[1024];

	err[0] = '\0';
	cr_expect_eq(st_run_open(&run, dir, err, sizeof(err)), -EBADMSG,
		     "opened; wanted '%s'", msg);
	cr_expect_null(run);
	cr_expect(strstr(err, msg), "'%s' has no '%s'", err, msg);
}

Test(writer_run, refuses_files_of_another_run)
{
	struct st_run *run;
	char err[1024];

	write_index("run_id=h-A\nnranks=2\n");
	rank_file("rank-0.st", "0", "2", "h-A");
	rank_file("rank-1.st", "1", "2", "h-A");
	cr_assert_eq(st_run_open(&run, dir, err, sizeof(err)), 0, "%s", err);
	st_run_close(run);
	/* Rank 1 of a later run, with the same number of ranks. */
	rank_file("rank-1.st", "1", "2", "h-B");
	expect_refused("rank-1.st' belongs to run h-B, '");
	expect_refused("synctrace.run' to run h-A: files of different runs "
		       "cannot be read as one run");
	/* No id where the index has one, and the other way round. */
	rank_file("rank-1.st", "1", "2", NULL);
	expect_refused("belongs to run (none)");
	write_index("nranks=2\n");
	rank_file("rank-1.st", "1", "2", "h-A");
	expect_refused("to run (none): files of different runs");
	/* An id is shown printable. */
	write_index("run_id=h-\033[31mA\nnranks=2\n");
	expect_refused("to run h-?[31mA: ");
}

Test(writer_run, refuses_an_index_that_the_files_deny)
{
	write_index("nranks=4194304\n");
	rank_file("rank-0.st", "0", "2", NULL);
	expect_refused("rank-0.st' is one of 2 ranks, but '");
	expect_refused("synctrace.run' declares nranks=4194304: the index "
		       "does not belong to these files");
}

Test(writer_run, refuses_rank_files_beyond_nranks)
{
	char path[400];

	write_index("nranks=2\n");
	rank_file("rank-0.st", "0", "2", NULL);
	rank_file("rank-2.st", "2", "3", NULL);
	expect_refused("rank-2.st' is beyond the 2 ranks '");
	snprintf(path, sizeof(path), "%s/rank-2.st", dir);
	cr_assert_eq(unlink(path), 0);
	rank_file("rank-99999999999999999999.st", NULL, NULL, NULL);
	expect_refused("rank-99999999999999999999.st' is beyond the 2 ranks");
}

Test(writer_run, refuses_renamed_rank_files)
{
	write_index("nranks=2\n");
	rank_file("rank-1.st", "0", "2", NULL);
	expect_refused("rank-1.st' holds rank 0, not rank 1");
}

Test(writer_run, needs_a_rank_file)
{
	char path[400];

	write_index("nranks=3\n");
	expect_refused("no rank file (rank-N.st) of the 3 ranks "
		       "'synctrace.run' declares");
	/* Names that only look like rank files are not. */
	rank_file("rank-01.st", "1", "3", NULL);
	rank_file("rank-1.st.bak", "1", "3", NULL);
	rank_file("rank-.st", "1", "3", NULL);
	snprintf(path, sizeof(path), "%s/rank-2.stx", dir);
	write_file(path, "x");
	expect_refused("no rank file");
}

Test(writer_run, unreadable_rank_files_are_left_to_the_reader)
{
	struct st_run *run;
	char err[1024], path[400];

	write_index("run_id=A\nnranks=2\n");
	snprintf(path, sizeof(path), "%s/rank-1.st", dir);
	write_file(path, "");
	cr_expect_eq(st_run_open(&run, dir, err, sizeof(err)), 0, "%s", err);
	st_run_close(run);
}

/* Patterns. */

static struct st_run_facts facts(void)
{
	struct st_run_facts f = {
		.jobid = "4242", .stepid = "3", .exe = "/usr/bin/app",
		.host = "node7.cluster", .pid = 99, .nranks = 16,
	};
	struct tm tm = { .tm_year = 124, .tm_mon = 2, .tm_mday = 5,
			 .tm_hour = 13, .tm_min = 4, .tm_sec = 9,
			 .tm_isdst = -1 };

	f.t = mktime(&tm);
	return f;
}

static void expect_expands(const char *pattern, struct st_run_facts f,
			   const char *want)
{
	char out[512];
	int rc;

	rc = st_run_name_expand(pattern, &f, out, sizeof(out));
	cr_expect_eq(rc, 0, "'%s': %d", pattern, rc);
	cr_expect_str_eq(out, want, "'%s'", pattern);
}

Test(writer_run_name, every_escape)
{
	struct st_run_facts f = facts();

	expect_expands("t/%j.%s-%x-%h-%t-%p-%n-%%", f,
		       "t/4242.3-app-node7-20240305-130409-99-16-%");
	expect_expands(ST_RUN_DEFAULT_NAME, f,
		       "synctrace-app-20240305-130409-99");
	expect_expands("plain/name", f, "plain/name");
	expect_expands("", f, "");
}

Test(writer_run_name, values_become_safe_names)
{
	struct st_run_facts f = facts();
	char long_exe[200];

	f.jobid = "123[4].pbs/x";
	f.exe = "./my app;rm -rf";
	f.host = "..";
	expect_expands("%j|%x|%h", f, "123_4_.pbs_x|my_app_rm_-rf|_");
	/* No batch system: %j is the process id; no step: %s is empty. */
	f.jobid = NULL;
	f.stepid = NULL;
	f.exe = "";
	f.host = NULL;
	expect_expands("%j.%s.%x.%h", f, "99..app.host");
	f.exe = "/path/to/dir/";
	expect_expands("%x", f, "app");
	memset(long_exe, 'x', sizeof(long_exe) - 1);
	long_exe[sizeof(long_exe) - 1] = '\0';
	f.exe = long_exe;
	expect_expands("%x", f, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
}

Test(writer_run_name, bad_patterns_and_long_names)
{
	static const char *bad[] = { "a%", "%q", "x/%J", "%\n" };
	struct st_run_facts f = facts();
	char out[16], err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cr_expect_eq(st_run_name_check(bad[i], err, sizeof(err)),
			     -EINVAL, "'%s'", bad[i]);
		cr_expect_eq(st_run_name_expand(bad[i], &f, out, sizeof(out)),
			     -EINVAL, "'%s'", bad[i]);
	}
	st_run_name_check("x%q", err, sizeof(err));
	cr_expect_str_eq(err, "unknown escape '%q' (known: %j %s %x %h %t %p "
			 "%n %%)");
	cr_expect_eq(st_run_name_check("%j%s%x%h%t%p%n%%", err, sizeof(err)),
		     0);
	cr_expect_eq(st_run_name_expand("0123456789abcdef", &f, out,
					sizeof(out)), -ENAMETOOLONG);
	cr_expect_eq(st_run_name_expand("0123456789%t", &f, out,
					sizeof(out)), -ENAMETOOLONG);
	cr_expect_eq(st_run_name_expand("0123456789abcde", &f, out,
					sizeof(out)), 0);
}

Test(writer_run_name, job_ids_from_the_batch_system)
{
	struct st_run_facts f;

	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_STEP_ID");
	unsetenv("PBS_JOBID");
	unsetenv("LSB_JOBID");
	st_run_facts_env(&f);
	cr_expect_null(f.jobid);
	cr_expect_null(f.stepid);
	setenv("LSB_JOBID", "7", 1);
	st_run_facts_env(&f);
	cr_expect_str_eq(f.jobid, "7");
	setenv("PBS_JOBID", "8.server", 1);
	st_run_facts_env(&f);
	cr_expect_str_eq(f.jobid, "8.server");
	setenv("SLURM_JOB_ID", "", 1);
	st_run_facts_env(&f);
	cr_expect_str_eq(f.jobid, "8.server", "an empty value is none");
	setenv("SLURM_JOB_ID", "9", 1);
	setenv("SLURM_STEP_ID", "2", 1);
	st_run_facts_env(&f);
	cr_expect_str_eq(f.jobid, "9");
	cr_expect_str_eq(f.stepid, "2");
}

/* Claiming directories. */

static void expect_claims(const char *base, int adopt, const char *want)
{
	char path[512], back[64];
	int fd, rc;
	ssize_t n;

	rc = st_run_dir_claim(base, adopt, path, sizeof(path), &fd);
	cr_assert_eq(rc, 0, "'%s': %s", base, strerror(-rc));
	cr_expect_str_eq(path, want);
	cr_assert(fd >= 0);
	/* The descriptor is the new index, which was empty. */
	cr_expect_eq(write(fd, "nranks=1\n", 9), 9);
	close(fd);
	snprintf(back, sizeof(back), "%s", want);
	snprintf(path, sizeof(path), "%s/%s", want, ST_RUN_INDEX);
	fd = open(path, O_RDONLY);
	cr_assert(fd >= 0, "no index in '%s'", back);
	n = read(fd, back, sizeof(back));
	cr_expect_eq(n, 9);
	close(fd);
}

Test(writer_run, claim_takes_a_new_name_or_the_next)
{
	char base[300], want[512], path[400];

	snprintf(base, sizeof(base), "%s/trace", dir);
	expect_claims(base, 1, base);
	/* A run is there: the next name, for this run and the one after. */
	snprintf(want, sizeof(want), "%s.1", base);
	expect_claims(base, 1, want);
	snprintf(want, sizeof(want), "%s.2", base);
	expect_claims(base, 0, want);
	/* An empty directory of ours is adopted only when asked. */
	snprintf(path, sizeof(path), "%s/empty", dir);
	cr_assert_eq(mkdir(path, 0777), 0);
	snprintf(want, sizeof(want), "%s.1", path);
	expect_claims(path, 0, want);
	expect_claims(path, 1, path);
	/* A non-empty one, or a file, is taken. */
	snprintf(path, sizeof(path), "%s/full", dir);
	cr_assert_eq(mkdir(path, 0777), 0);
	snprintf(want, sizeof(want), "%s/full/x", dir);
	write_file(want, "x");
	snprintf(want, sizeof(want), "%s.1", path);
	expect_claims(path, 1, want);
	snprintf(path, sizeof(path), "%s/file", dir);
	write_file(path, "");
	snprintf(want, sizeof(want), "%s.1", path);
	expect_claims(path, 1, want);
	cr_expect_eq(access(path, F_OK), 0);
}

Test(writer_run, claim_never_follows_a_symlink)
{
	char base[300], victim[300], want[512], path[400];
	struct stat st;

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	cr_assert_eq(mkdir(victim, 0777), 0);
	snprintf(base, sizeof(base), "%s/trace", dir);
	cr_assert_eq(symlink(victim, base), 0);
	snprintf(want, sizeof(want), "%s.1", base);
	expect_claims(base, 1, want);
	snprintf(path, sizeof(path), "%s/%s", victim, ST_RUN_INDEX);
	cr_expect_eq(stat(path, &st), -1, "wrote through the symlink");
}

Test(writer_run, claim_gives_up_after_100_names)
{
	char base[300], path[400];
	int i, fd = 7, rc;

	snprintf(base, sizeof(base), "%s/x", dir);
	for (i = 0; i < ST_RUN_MAX_NAMES; i++) {
		if (i)
			snprintf(path, sizeof(path), "%s.%d", base, i);
		else
			snprintf(path, sizeof(path), "%s", base);
		cr_assert_eq(symlink("/tmp", path), 0);
	}
	rc = st_run_dir_claim(base, 1, path, sizeof(path), &fd);
	cr_expect_eq(rc, -EEXIST);
	cr_expect_eq(fd, -1);
	snprintf(path, sizeof(path), "%s.%d", base, ST_RUN_MAX_NAMES);
	cr_expect_eq(access(path, F_OK), -1, "tried a 101st name");
	/* Errors other than a taken name stop at once, naming the path. */
	snprintf(base, sizeof(base), "%s/no/such", dir);
	rc = st_run_dir_claim(base, 1, path, sizeof(path), &fd);
	cr_expect_eq(rc, -ENOENT);
	cr_expect_str_eq(path, base);
	cr_expect_eq(st_run_dir_claim(base, 1, path, 8, &fd), -ENAMETOOLONG);
}

Test(writer_run, rank_files_are_created_exclusively)
{
	char path[400], victim[400];
	int fd;

	fd = st_run_rank_create(dir, 3);
	cr_assert(fd >= 0, "%s", strerror(-fd));
	close(fd);
	snprintf(path, sizeof(path), "%s/rank-3.st", dir);
	cr_expect_eq(access(path, F_OK), 0);
	cr_expect_eq(st_run_rank_create(dir, 3), -EEXIST);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(path, sizeof(path), "%s/rank-4.st", dir);
	cr_assert_eq(symlink(victim, path), 0);
	cr_expect_eq(st_run_rank_create(dir, 4), -EEXIST);
	cr_expect_eq(access(victim, F_OK), -1, "created through a symlink");
	snprintf(path, sizeof(path), "%s/nodir", dir);
	cr_expect_eq(st_run_rank_create(path, 0), -ENOENT);
}

Test(writer_run, run_ids_differ)
{
	char a[ST_RUN_ID_MAX], b[ST_RUN_ID_MAX], host[80];
	long pid = 0;
	char stamp[32];

	st_run_id_make(a, sizeof(a), "node7.cluster", 0, 42);
	st_run_id_make(b, sizeof(b), "node7.cluster", 0, 42);
	cr_expect_str_neq(a, b, "same host, time and pid: still two runs");
	cr_expect_eq(sscanf(a, "%79[^-]-%31[^-]-%ld-", host, stamp, &pid), 3,
		     "%s", a);
	cr_expect_str_eq(host, "node7");
	cr_expect_str_eq(stamp, "19700101T000000Z");
	cr_expect_eq(pid, 42);
	cr_expect_eq(strlen(a), strlen("node7-19700101T000000Z-42-") + 16);
}
