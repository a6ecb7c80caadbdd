/*
 * tests/fuzz/fuzz-tools.c: the commands on a fuzzed rank file.  The
 * input (checksums repaired) becomes rank 0 of a run whose index names
 * the run and the size its header gives (a one-rank run's file is read
 * whole; another's as a run whose other ranks left no file), which
 * dump (text, CSV, --header, --sync, --sites), report, table and
 * predict (replay against a small cost table) read in this process.
 * A command's die() ends in exit(), which the link wraps
 * (-Wl,--wrap=exit) to jump back here; files it left open are closed.
 * Oracle beyond the sanitizers: text output holds no control character
 * but newline and tab (trace text reaches the terminal escaped).
 *
 * Run with -close_fd_mask=2 (the commands' messages are not wanted;
 * libFuzzer keeps its own stderr for crash reports) and without leak
 * checks (ASAN_OPTIONS=detect_leaks=0): a command that dies leaks.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"
#include "tools/cli/synctrace.h"
#include "writer/reader.h"

static const char table_json[] =
"{\"format\": \"synctrace-table\", \"version\": 1,\n"
" \"metadata\": {\"mpi_library\": \"MPICH Version: 4.0.2\",\n"
"   \"hosts\": [\"a\"], \"process_counts\": [1, 2],\n"
"   \"date\": \"2026-01-01 00:00:00 UTC\", \"ci_level\": 0.95},\n"
" \"operations\": [\n"
"  {\"op\": \"MPI_Allreduce\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Allreduce\", \"recv_fn\": null, \"p_min\": 1,\n"
"   \"p_max\": 2, \"d_min_bytes\": 0, \"d_max_bytes\": 65536,\n"
"   \"model\": {\"pieces\": 1, \"piece\": [\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 1000},\n"
"                {\"name\": \"c\", \"fn\": \"1\", \"coef\": 0.5}]}]},\n"
"   \"groups\": []},\n"
"  {\"op\": \"MPI_Send\", \"kind\": \"p2p\",\n"
"   \"fn\": \"MPI_Send\", \"recv_fn\": \"MPI_Recv\",\n"
"   \"p_min\": 2, \"p_max\": 2, \"d_min_bytes\": 0,\n"
"   \"d_max_bytes\": 65536, \"model\": {\"pieces\": 1, \"piece\": [\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 1000},\n"
"                {\"name\": \"c\", \"fn\": \"1\", \"coef\": 0.5}]}]}}\n"
" ]}\n";

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

static jmp_buf back;
static int armed;
static int out_fd = -1;
static char run[512], table[512];

void __wrap_exit(int status)
{
	if (armed) {
		armed = 0;
		longjmp(back, 1);
	}
	__real_exit(status);
}

/* Close the files a command that died left open: fds above 'low'. */
static void close_above(int low)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd, self;

	if (!d)
		return;
	self = dirfd(d);
	while ((e = readdir(d)))
		if ((fd = atoi(e->d_name)) > low && fd != self && fd != out_fd)
			close(fd);
	closedir(d);
}

static void setup(void)
{
	setenv("SYNCTRACE_ADDR2LINE", "/nonexistent/addr2line", 1);
	snprintf(run, sizeof(run), "%s", fuzz_dir());
	snprintf(table, sizeof(table), "%s/t.json", run);
	fuzz_write(table, table_json, sizeof(table_json) - 1);
	out_fd = memfd_create("fuzz-out", 0);
	if (out_fd < 0 || dup2(out_fd, 1) < 0)
		abort();
}

/* Run 'cmd' on 'argv'; when 'text', check what it printed. */
static void run_cmd(int (*cmd)(int, char **), char **argv, int text)
{
	static char out[1 << 16];
	int argc = 0, low;
	ssize_t n, i;

	while (argv[argc])
		argc++;
	fflush(stdout);
	if (ftruncate(1, 0) || lseek(1, 0, SEEK_SET))
		abort();
	low = dup(0);
	close(low);
	armed = 1;
	if (!setjmp(back))
		(void)cmd(argc, argv);
	armed = 0;
	fflush(stdout);
	close_above(low - 1);
	if (!text)
		return;
	if (lseek(1, 0, SEEK_SET))
		abort();
	while ((n = read(1, out, sizeof(out))) > 0)
		for (i = 0; i < n; i++)
			if ((unsigned char)out[i] < 0x20 && out[i] != '\n' &&
			    out[i] != '\t') {
				fprintf(stderr, "%s: control character 0x%02x "
					"in the output\n", argv[0],
					(unsigned char)out[i]);
				abort();
			}
}

/*
 * The run's index, as rank 0 would write it for the file 'r': its run_id
 * and size (1 when the size is none the index could declare), so that
 * the commands read the file instead of refusing it as another run's.
 */
static void write_index(const struct st_reader *r)
{
	const char *id = st_reader_get(r, "run_id");
	const char *sz = st_reader_get(r, "size");
	char path[600], text[512];
	long size = sz ? strtol(sz, NULL, 10) : 1;
	int n;

	if (size < 1 || size > 64)
		size = 1;
	n = snprintf(text, sizeof(text),
		     "%s%.200s%snranks=%ld\ncmdline=./app\ncomplete=1\n",
		     id ? "run_id=" : "", id ? id : "", id ? "\n" : "", size);
	snprintf(path, sizeof(path), "%s/synctrace.run", run);
	fuzz_write(path, text, (size_t)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[600];
	char *dump[] = { "dump", run, NULL };
	char *csv[] = { "dump", "--csv", run, NULL };
	char *hdr[] = { "dump", "--header", run, NULL };
	char *sync[] = { "dump", "--sync", run, NULL };
	char *sites[] = { "dump", "--sites", run, NULL };
	char *report[] = { "report", run, NULL };
	char *tab[] = { "table", run, NULL };
	char *predict[] = { "predict", run, "--table", table,
			    "--missing=measured", NULL };
	struct st_reader *r;
	uint8_t *buf;

	if (!run[0])
		setup();
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	fuzz_fix_checksums(buf, size);
	/*
	 * A file whose header does not read makes every command die at
	 * once, leaking what it allocated (fuzz-rank covers the reader):
	 * not worth the memory.
	 */
	if (st_reader_open_mem(&r, buf, size, "fuzz", NULL, 0)) {
		free(buf);
		return 0;
	}
	write_index(r);
	st_reader_close(r);
	snprintf(path, sizeof(path), "%s/rank-0.st", run);
	fuzz_write(path, buf, size);
	free(buf);
	run_cmd(cmd_dump, dump, 1);
	run_cmd(cmd_dump, csv, 0);
	run_cmd(cmd_dump, hdr, 1);
	run_cmd(cmd_dump, sync, 1);
	run_cmd(cmd_dump, sites, 1);
	run_cmd(cmd_report, report, 1);
	run_cmd(cmd_table, tab, 1);
	run_cmd(cmd_predict, predict, 1);
	return 0;
}
