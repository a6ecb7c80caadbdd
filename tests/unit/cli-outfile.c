/*
 * tests/unit/cli-outfile.c: the commands' output files (outfile.h).  An
 * output named after a file of the run being read (view, export, table,
 * report's matrices, clockcheck's CSV) is refused and the run is left
 * byte for byte as it was; an output that fails halfway leaves the file
 * it would have replaced as it was, and nothing beside it; a complete
 * one keeps the old file's mode, or gets the umask's; a device is
 * written in place.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools-sync-test.h"
#include "tools-test.h"
#include "tools/cli/outfile.h"
#include "tools/cli/synctrace.h"

static char dir[256];
static char run[300];

static void cli_outfile_marker(void)
{
}

static void setup(void)
{
	struct fake_obj obj;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)cli_outfile_marker, &obj);
	synced_run(run, &obj, (uint64_t)(uintptr_t)cli_outfile_marker + 1,
		   (uint64_t)(uintptr_t)cli_outfile_marker + 2);
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(cli_outfile, .init = setup, .fini = teardown);

/* The bytes of 'path' (binary), their number in '*len'; malloc()ed. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert(f, "cannot open %s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	cr_assert(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The names in 'd', one per line; malloc()ed. */
static char *names(const char *d)
{
	char *s = calloc(1, 4096);
	struct dirent *e;
	DIR *dp = opendir(d);

	cr_assert(dp && s);
	while ((e = readdir(dp)))
		if (e->d_name[0] != '.' &&
		    strlen(s) + strlen(e->d_name) + 2 < 4096) {
			strcat(s, e->d_name);
			strcat(s, "\n");
		}
	closedir(dp);
	return s;
}

Test(cli_outfile, outputs_that_are_the_runs_files_are_refused)
{
	char r0[320], r1[320], idx[320], csv[320], groups[320];
	char *view[] = { "view", "-q", "-o", r0, run, NULL };
	char *export[] = { "export", "-q", "-o", r1, run, NULL };
	char *mcsv[] = { "report", "--matrix-csv", r0, run, NULL };
	char *mjson[] = { "report", "--matrix-json", idx, run, NULL };
	char *tjson[] = { "table", "--json", r0, run, NULL };
	char *thtml[] = { "table", "--html", idx, run, NULL };
	char *tcsv[] = { "table", "--csv", csv, run, NULL };
	char *check[] = { "clockcheck", "--csv", r1, NULL };
	char **argv[] = { view, export, mcsv, mjson, tjson, thtml, tcsv,
			  check };
	int (*cmd[])(int, char **) = { cmd_view, cmd_export, cmd_report,
				       cmd_report, cmd_table, cmd_table,
				       cmd_table, cmd_clockcheck };
	const char *file[] = { r0, r1, idx };
	char *before[3], *list;
	size_t len[3], i, k;
	FILE *g;

	snprintf(r0, sizeof(r0), "%s/rank-0.st", run);
	snprintf(r1, sizeof(r1), "%s/rank-1.st", run);
	snprintf(idx, sizeof(idx), "%s/synctrace.run", run);
	/* t.csv's groups go to t-groups.csv: a copy of a rank file there. */
	snprintf(csv, sizeof(csv), "%s/t.csv", dir);
	snprintf(groups, sizeof(groups), "%s/t-groups.csv", dir);
	for (k = 0; k < 3; k++)
		before[k] = slurp(file[k], &len[k]);
	g = fopen(groups, "wb");
	cr_assert(g);
	cr_assert_eq(fwrite(before[0], 1, len[0], g), len[0]);
	fclose(g);
	list = names(run);
	for (i = 0; i < sizeof(cmd) / sizeof(cmd[0]); i++) {
		struct captured c = run_cmd(dir, cmd[i], argv[i]);
		char *now;

		cr_expect_eq(c.status, 1, "%s %s: status %d, stderr: %s",
			     argv[i][0], argv[i][1], c.status, c.err);
		cr_expect(strstr(c.err, "not overwritten"), "%s %s: %s",
			  argv[i][0], argv[i][1], c.err);
		for (k = 0; k < 3; k++) {
			size_t n;
			char *b = slurp(file[k], &n);

			cr_expect(n == len[k] && !memcmp(b, before[k], n),
				  "%s %s changed %s", argv[i][0], argv[i][1],
				  file[k]);
			free(b);
		}
		now = names(run);
		cr_expect_str_eq(now, list, "%s %s left files behind",
				 argv[i][0], argv[i][1]);
		free(now);
		captured_free(&c);
	}
	/* No CSV written beside the groups it refused. */
	cr_expect_eq(access(csv, F_OK), -1);
	free(list);
	for (k = 0; k < 3; k++)
		free(before[k]);
}

Test(cli_outfile, a_failed_output_keeps_the_old_file)
{
	char path[320], err[600], *s, *list;
	struct st_out o;

	snprintf(path, sizeof(path), "%s/page.html", dir);
	write_file(path, "old page\n");
	list = names(dir);
	cr_assert_eq(st_out_open(&o, path, err, sizeof(err)), 0, "%s", err);
	cr_expect_neq(o.tmp, NULL, "a regular file is replaced by rename");
	fputs("half a new pa", o.f);
	cr_expect_eq(st_out_close(&o, 0, err, sizeof(err)), -1);
	s = read_file(path);
	cr_expect_str_eq(s, "old page\n");
	free(s);
	s = names(dir);
	cr_expect_str_eq(s, list, "the temporary is removed");
	free(s);
	free(list);
}

Test(cli_outfile, a_complete_output_replaces_the_file_with_its_mode)
{
	char path[320], fresh[320], err[600], *s;
	struct st_out o;
	struct stat sb;
	mode_t old;

	snprintf(path, sizeof(path), "%s/m.json", dir);
	write_file(path, "old\n");
	cr_assert_eq(chmod(path, 0640), 0);
	cr_assert_eq(st_out_open(&o, path, err, sizeof(err)), 0, "%s", err);
	fputs("new\n", o.f);
	cr_assert_eq(st_out_close(&o, 1, err, sizeof(err)), 0, "%s", err);
	s = read_file(path);
	cr_expect_str_eq(s, "new\n");
	free(s);
	cr_assert_eq(stat(path, &sb), 0);
	cr_expect_eq(sb.st_mode & 07777, 0640, "mode %o",
		     (unsigned)(sb.st_mode & 07777));

	snprintf(fresh, sizeof(fresh), "%s/fresh.csv", dir);
	old = umask(027);
	cr_assert_eq(st_out_open(&o, fresh, err, sizeof(err)), 0, "%s", err);
	umask(old);
	fputs("a,b\n", o.f);
	cr_assert_eq(st_out_close(&o, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(stat(fresh, &sb), 0);
	cr_expect_eq(sb.st_mode & 07777, 0640, "mode %o",
		     (unsigned)(sb.st_mode & 07777));
}

Test(cli_outfile, devices_and_stdout_are_written_in_place)
{
	char err[600];
	struct st_out o;

	cr_assert_eq(st_out_open(&o, "/dev/null", err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(o.tmp, NULL);
	fputs("x\n", o.f);
	cr_expect_eq(st_out_close(&o, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st_out_open(&o, "-", err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(o.f, stdout);
	cr_expect_eq(st_out_close(&o, 1, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(st_out_check(NULL, err, sizeof(err)), 0);
	cr_expect_eq(st_out_check("-", err, sizeof(err)), 0);
}

/*
 * A file that a rename would change otherwise is written in place: one
 * of another owner's keeps its owner, one with a second name shows the
 * new content under both.
 */
Test(cli_outfile, files_a_rename_would_change_are_written_in_place)
{
	char path[320], twin[320], err[600], *s;
	struct st_out o;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/linked.csv", dir);
	snprintf(twin, sizeof(twin), "%s/twin.csv", dir);
	write_file(path, "old\n");
	cr_assert_eq(link(path, twin), 0);
	cr_assert_eq(st_out_open(&o, path, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(o.tmp, NULL, "a file with two names is not renamed over");
	fputs("new\n", o.f);
	cr_assert_eq(st_out_close(&o, 1, err, sizeof(err)), 0, "%s", err);
	s = read_file(twin);
	cr_expect_str_eq(s, "new\n", "the other name lost the output");
	free(s);

	if (geteuid() != 0)
		return;	/* only root can give a file to another owner */
	snprintf(path, sizeof(path), "%s/theirs.html", dir);
	write_file(path, "old\n");
	cr_assert_eq(chown(path, 65534, 65534), 0);
	cr_assert_eq(st_out_open(&o, path, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(o.tmp, NULL, "another owner's file is not renamed over");
	fputs("new\n", o.f);
	cr_assert_eq(st_out_close(&o, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(stat(path, &sb), 0);
	cr_expect_eq(sb.st_uid, 65534, "owner %u", (unsigned)sb.st_uid);
	s = read_file(path);
	cr_expect_str_eq(s, "new\n");
	free(s);
}
