/*
 * tests/unit/tools-test.h: helpers for the tests of the synctrace
 * command: write a run directory through the real writer (index file,
 * rank files with headers and records), run a cmd_*() in a child process
 * with stdout and stderr captured in files, and read files back.
 */
#ifndef ST_TESTS_TOOLS_TEST_H
#define ST_TESTS_TOOLS_TEST_H

#include <criterion/criterion.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen/ops.h"
#include "writer/event.h"
#include "writer/writer.h"

/* A fresh scratch directory for one test; 'buf' gets its path. */
static inline void scratch_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/st-tools-test-XXXXXX");
	cr_assert(mkdtemp(buf), "mkdtemp: %s", strerror(errno));
}

static inline void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot create '%s'", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The whole of file 'path', NUL-terminated; free() it. */
static inline char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, got;

	cr_assert(f, "cannot open '%s'", path);
	for (;;) {
		buf = realloc(buf, len + 4097);
		cr_assert(buf);
		got = fread(buf + len, 1, 4096, f);
		len += got;
		if (!got)
			break;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* Number of lines in 's' (each ends in '\n'). */
static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Number of lines of 's' that contain every one of 'a' and 'b'. */
static inline int count_lines_with(const char *s, const char *a,
				   const char *b)
{
	int n = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = strndup(s, len);

		n += strstr(line, a) && (!b || strstr(line, b));
		free(line);
		s += len + (nl != NULL);
	}
	return n;
}

/*
 * Remove the "==PID==..." lines a sanitizer build's leak checker prints
 * when a child of the (threaded) test process calls exit(); a real leak
 * still shows in the exit status.
 */
static inline void drop_sanitizer_notes(char *s)
{
	char *w = s;

	while (*s) {
		char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s + 1) : strlen(s);

		if (!(s[0] == '=' && s[1] == '=')) {
			memmove(w, s, len);
			w += len;
		}
		s += len;
	}
	*w = '\0';
}

/* The captured result of running a command. */
struct captured {
	int status;		/* exit status, or 128 + signal */
	char *out, *err;
};

static inline void captured_free(struct captured *c)
{
	free(c->out);
	free(c->err);
}

/*
 * Run 'fn' on the NULL-terminated 'argv' in a child process, stdout and
 * stderr going to files in 'dir'; return what it printed and its exit
 * status (a die() exits the child, not the test).
 */
static inline struct captured run_cmd(const char *dir,
				      int (*fn)(int, char **), char **argv)
{
	char out[512], err[512];
	struct captured c;
	int argc = 0, status;
	pid_t pid;

	while (argv[argc])
		argc++;
	snprintf(out, sizeof(out), "%s/cmd.out", dir);
	snprintf(err, sizeof(err), "%s/cmd.err", dir);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(99);
		status = fn(argc, argv);
		fflush(NULL);
		_exit(status);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	c.status = WIFEXITED(status) ? WEXITSTATUS(status) :
		   128 + WTERMSIG(status);
	c.out = read_file(out);
	c.err = read_file(err);
	drop_sanitizer_notes(c.err);
	return c;
}

/* One rank file being written. */
struct fake_rank {
	int fd;
	struct st_sink sink;
	struct st_stream *s;
};

/*
 * The size the next fake_rank_open() writes: the 'nranks' of the last
 * fake_index(), so that a run's files agree with its index as a real
 * run's do (st_run_open checks).
 */
static int fake_run_size = 2;

/* Write the index file of a run of 'nranks' ranks. */
static inline void fake_index(const char *dir, int nranks, int complete)
{
	char path[512], text[256];

	fake_run_size = nranks;

	snprintf(path, sizeof(path), "%s/synctrace.run", dir);
	snprintf(text, sizeof(text),
		 "nranks=%d\ncmdline=mpiexec.mpich -n %d ./app\n%s", nranks,
		 nranks, complete ? "complete=1\n" : "");
	write_file(path, text);
}

/*
 * The cmdline and config headers of ranks 0 and 1, where a test wants
 * them to differ (an MPMD run); NULL for fake_rank_open()'s own.
 */
static const char *fake_cmdline[2], *fake_config[2];

/*
 * Start rank 'rank's file in 'dir' with the header keys the interposer
 * writes ('host' and 't_init_ns' as given) and this build's fn_table.
 */
static inline void fake_rank_open(struct fake_rank *fr, const char *dir,
				  int rank, const char *host,
				  const char *t_init_ns)
{
	char path[512], rk[16], size[16];
	struct st_kv kv[] = {
		{ "format", "1" },
		{ "rank", rk },
		{ "size", size },
		{ "host", host },
		{ "pid", "4242" },
		{ "clock", "CLOCK_MONOTONIC_RAW" },
		{ "clock_res_ns", "1" },
		{ "clock_cost_ns", "20" },
		{ "mpi_library", "MPICH Version: 4.0.2" },
		{ "cmdline", rank < 2 && fake_cmdline[rank] ?
			     fake_cmdline[rank] : "./app" },
		{ "config", rank < 2 && fake_config[rank] ?
			    fake_config[rank] : "buffer=1048576 depth=8 "
			    "yield=0 level=1 families=all" },
		{ "yield", "0" },
		{ "fn_table", ST_FN_TABLE_HASH },
		{ "t_init_ns", t_init_ns },
		{ "t_start_unix", "1700000000" },
	};

	snprintf(rk, sizeof(rk), "%d", rank);
	snprintf(size, sizeof(size), "%d", fake_run_size);
	snprintf(path, sizeof(path), "%s/rank-%d.st", dir, rank);
	fr->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0666);
	cr_assert(fr->fd >= 0, "cannot create '%s'", path);
	fr->sink.ctx = (void *)(intptr_t)fr->fd;
	fr->sink.write = st_sink_fd_write;
	cr_assert_eq(st_trace_write_header(&fr->sink, kv,
					   sizeof(kv) / sizeof(kv[0])), 0);
	cr_assert_eq(st_stream_new(&fr->s, &fr->sink, 0, 1 << 16, 6), 0);
}

static inline void fake_append(struct fake_rank *fr, const struct st_event *ev)
{
	int rc = st_stream_append(fr->s, ev);

	if (rc == -ENOBUFS) {
		cr_assert_eq(st_stream_flush(fr->s), 0);
		rc = st_stream_append(fr->s, ev);
	}
	cr_assert_eq(rc, 0, "append: %s", strerror(-rc));
}

/* End the current chunk, so the next records go to a new one. */
static inline void fake_flush(struct fake_rank *fr)
{
	cr_assert_eq(st_stream_flush(fr->s), 0);
}

static inline void fake_rank_close(struct fake_rank *fr)
{
	cr_assert_eq(st_stream_flush(fr->s), 0);
	st_stream_free(fr->s);
	cr_assert_eq(close(fr->fd), 0);
}

/* A CALL record of 'fn' from 't0' to 't1' at 'site'. */
static inline void fake_call(struct st_event *ev, unsigned fn, uint64_t t0,
			     uint64_t t1, uint32_t site)
{
	st_event_clear(ev);
	ev->kind = ST_REC_CALL;
	ev->fn = (uint16_t)fn;
	ev->t0 = t0;
	ev->t1 = t1;
	ev->site = site;
}

/*
 * The COMM record of MPI_COMM_WORLD (id 1, 'size' ranks) that MPI_Init
 * leaves on rank 'rank' at 't', appended; 'ev' keeps it, for records
 * made from it after.
 */
static inline void fake_world(struct fake_rank *fr, struct st_event *ev,
			      int rank, int size, uint64_t t)
{
	st_event_clear(ev);
	ev->kind = ST_REC_COMM;
	ev->fn = ST_FN_MPI_INIT;
	ev->comm = 1;
	ev->comm_size = size;
	ev->rank = rank;
	ev->t0 = ev->t1 = t;
	fake_append(fr, ev);
}

/* The loaded object holding 'addr' in this process, as pmpi/ records it. */
struct fake_obj {
	char path[512];
	uint64_t base, len;
};

struct find_obj_ctx {
	uintptr_t addr;
	struct fake_obj *obj;
	int found;
};

static inline int find_obj_cb(struct dl_phdr_info *info, size_t size,
			      void *data)
{
	struct find_obj_ctx *c = data;
	uint64_t end = 0;
	int i, hit = 0;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr + ph->p_memsz > end)
			end = ph->p_vaddr + ph->p_memsz;
		if (c->addr >= lo && c->addr < lo + ph->p_memsz)
			hit = 1;
	}
	if (!hit)
		return 0;
	c->obj->base = info->dlpi_addr;
	c->obj->len = end;
	if (info->dlpi_name && *info->dlpi_name) {
		snprintf(c->obj->path, sizeof(c->obj->path), "%s",
			 info->dlpi_name);
	} else {
		ssize_t n = readlink("/proc/self/exe", c->obj->path,
				     sizeof(c->obj->path) - 1);

		cr_assert(n > 0);
		c->obj->path[n] = '\0';
	}
	c->found = 1;
	return 1;
}

static inline void find_object(const void *addr, struct fake_obj *obj)
{
	struct find_obj_ctx c = { (uintptr_t)addr, obj, 0 };

	dl_iterate_phdr(find_obj_cb, &c);
	cr_assert(c.found, "no object holds %p", addr);
}

static inline void fake_object(struct st_event *ev, uint64_t base,
			       uint64_t len, const char *path)
{
	st_event_clear(ev);
	ev->kind = ST_REC_OBJECT;
	ev->addr = base;
	ev->len = len;
	ev->text = path;
	ev->text_len = (uint32_t)strlen(path);
}

#define FAKE_FORT_BASE 0x7f0000000000ULL
#define FAKE_FORT_PATH "/usr/lib/x86_64-linux-gnu/libmpichfort.so.12"
#define FAKE_RANK1_SHIFT 0x1000000ULL
#define FAKE_SYNC_TEXT "offset=12,drift=0"

/*
 * Offsets in the file of rank 'rank' (filled by fake_run): where its
 * second chunk starts, and its size.
 */
struct fake_layout {
	off_t chunk2;
	off_t size;
};

/*
 * Write a complete 2-rank run into 'dir'.  Each rank (clocks 500 us
 * apart, rank 1's objects loaded 16 MiB higher) records:
 *  - objects: 'obj' and a fake libmpichfort;
 *  - MPI_Init 1000..2000, a COMM record for comm 0x1 (size 2);
 *  - site 1: frames [libmpichfort, 'frame', 0xdead]; site 2: [0x10];
 *  - 3 x MPI_Allreduce at site 1, 8 B each way, 100 ns on rank 0 and
 *    200 ns on rank 1, seq 1..3, op sum; then a new chunk;
 *  - MPI_Isend (req 1, 1 KiB, 10000..10100), MPI_Irecv (req 2,
 *    10200..10300), MPI_Waitall 10400..12000 completing both (the
 *    receive got 2 KiB), all at site 2;
 *  - MPI_Allreduce_init (req 3, 64 B each way) 13000..13100,
 *    MPI_Start + START (seq 4) 13200..13300, MPI_Wait + DONE
 *    13400..13900, at site 2;
 *  - a flush mark 14000..14500, a sync record 15000..15100;
 *  - synctrace's finalize mark 19000..19500, MPI_Finalize 20000..21000.
 */
static inline void fake_run(const char *dir, const struct fake_obj *obj,
			    uint64_t frame, struct fake_layout *layout)
{
	struct fake_rank fr;
	struct st_event ev;
	struct stat st;
	int r, i;

	fake_index(dir, 2, 1);
	for (r = 0; r < 2; r++) {
		uint64_t o = (uint64_t)r * 500000, shift = r * FAKE_RANK1_SHIFT;
		char t_init[32];

		snprintf(t_init, sizeof(t_init), "%llu",
			 (unsigned long long)(2000 + o));
		fake_rank_open(&fr, dir, r, r ? "nodeB" : "nodeA", t_init);
		fake_object(&ev, obj->base + shift, obj->len, obj->path);
		fake_append(&fr, &ev);
		fake_object(&ev, FAKE_FORT_BASE + shift, 0x100000,
			    FAKE_FORT_PATH);
		fake_append(&fr, &ev);

		fake_call(&ev, ST_FN_MPI_INIT, 1000 + o, 2000 + o, 0);
		fake_append(&fr, &ev);
		fake_world(&fr, &ev, r, 2, 2000 + o);

		st_event_clear(&ev);
		ev.kind = ST_REC_SITE;
		ev.site = 1;
		ev.nframes = 3;
		ev.frames[0] = FAKE_FORT_BASE + shift + 0x100;
		ev.frames[1] = frame + shift;
		ev.frames[2] = 0xdead;
		fake_append(&fr, &ev);
		ev.site = 2;
		ev.nframes = 1;
		ev.frames[0] = 0x10;
		fake_append(&fr, &ev);

		for (i = 0; i < 3; i++) {
			uint64_t t0 = 3000 + (uint64_t)i * 1000 + o;

			fake_call(&ev, ST_FN_MPI_ALLREDUCE, t0,
				  t0 + 100 * (uint64_t)(r + 1), 1);
			ev.comm = 1;
			ev.comm_size = 2;
			ev.seq = (uint64_t)i + 1;
			ev.sbytes = ev.rbytes = 8;
			ev.tsize = 8;
			ev.op = ST_OP_SUM;
			fake_append(&fr, &ev);
		}
		fake_flush(&fr);
		cr_assert_eq(fstat(fr.fd, &st), 0);
		if (layout)
			layout[r].chunk2 = st.st_size;

		fake_call(&ev, ST_FN_MPI_ISEND, 10000 + o, 10100 + o, 2);
		ev.req = 1;
		ev.peer = 1 - r;
		ev.tag = 5;
		ev.comm = 1;
		ev.comm_size = 2;
		ev.sbytes = 1024;
		ev.tsize = 1;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_IRECV, 10200 + o, 10300 + o, 2);
		ev.req = 2;
		ev.peer = 1 - r;
		ev.tag = 6;
		ev.comm = 1;
		ev.comm_size = 2;
		ev.tsize = 1;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_WAITALL, 10400 + o, 12000 + o, 2);
		fake_append(&fr, &ev);
		ev.kind = ST_REC_DONE;
		ev.req = 1;
		fake_append(&fr, &ev);
		ev.req = 2;
		ev.rbytes = 2048;
		ev.peer = 1 - r;
		ev.tag = 6;
		fake_append(&fr, &ev);

		fake_call(&ev, ST_FN_MPI_ALLREDUCE_INIT, 13000 + o, 13100 + o,
			  2);
		ev.req = 3;
		ev.comm = 1;
		ev.comm_size = 2;
		ev.sbytes = ev.rbytes = 64;
		ev.op = ST_OP_MAX;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_START, 13200 + o, 13300 + o, 2);
		ev.req = 3;
		fake_append(&fr, &ev);
		ev.kind = ST_REC_START;
		ev.fn = ST_FN_MPI_ALLREDUCE_INIT;
		ev.inst = 1;
		ev.comm = 1;
		ev.comm_size = 2;
		ev.seq = 4;
		ev.sbytes = ev.rbytes = 64;
		ev.op = ST_OP_MAX;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_WAIT, 13400 + o, 13900 + o, 2);
		fake_append(&fr, &ev);
		ev.kind = ST_REC_DONE;
		ev.req = 3;
		fake_append(&fr, &ev);

		st_event_clear(&ev);
		ev.kind = ST_REC_MARK;
		ev.fn = ST_MARK_FLUSH;
		ev.t0 = 14000 + o;
		ev.t1 = 14500 + o;
		fake_append(&fr, &ev);
		st_event_clear(&ev);
		ev.kind = ST_REC_SYNC;
		ev.t0 = 15000 + o;
		ev.t1 = 15100 + o;
		ev.text = FAKE_SYNC_TEXT;
		ev.text_len = (uint32_t)strlen(FAKE_SYNC_TEXT);
		fake_append(&fr, &ev);

		st_event_clear(&ev);
		ev.kind = ST_REC_MARK;
		ev.fn = ST_MARK_FINALIZE;
		ev.t0 = 19000 + o;
		ev.t1 = 19500 + o;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_FINALIZE, 20000 + o, 21000 + o, 0);
		fake_append(&fr, &ev);
		fake_flush(&fr);
		cr_assert_eq(fstat(fr.fd, &st), 0);
		if (layout)
			layout[r].size = st.st_size;
		fake_rank_close(&fr);
	}
}

/* Records fake_run() writes per rank. */
#define FAKE_RECORDS_PER_RANK 23

/* Remove 'dir' and everything in it (a scratch directory). */
static inline void remove_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

#endif
