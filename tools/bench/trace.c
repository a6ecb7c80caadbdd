/*
 * tools/bench/trace.c: the run directory of a synctrace-bench mode,
 * written as pmpi/runtime.c writes a traced job's: the same index keys,
 * the same header keys where they apply, one stream per rank file.  The
 * clock in the header is the benchmark's (CLOCK_MONOTONIC_RAW through
 * the transport, possibly distorted for tests), since that is what its
 * timestamps and sync records are on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gen/ops.h"
#include "gen/version.h"
#include "tools/bench/mpi-transport.h"
#include "tools/bench/trace.h"
#include "writer/reader.h"

#define BUFFER_BYTES (1u << 20)
#define LEVEL 1
#define MAX_HEADER 32

void st_bench_cmdline(char *buf, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n, i;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	buf[n] = '\0';
}

/* 1 if 'dir' holds nothing, 0 if it holds something, -errno. */
static int dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/* Rank 0's part of st_bench_trace_dir(); returns 0 or -errno. */
static int make_dir(char *out, size_t outlen, const char *dir,
		    char *err, size_t errlen)
{
	char name[128], stamp[32], *abs;
	struct tm tm;
	time_t now;
	int i, rc;

	if (dir) {
		if (!mkdir(dir, 0777))
			goto made;
		rc = -errno;
		if (rc != -EEXIST) {
			snprintf(err, errlen, "cannot create run directory "
				 "'%s': %s", dir, strerror(-rc));
			return rc;
		}
		rc = dir_empty(dir);
		if (rc < 0) {
			snprintf(err, errlen, "cannot use '%s' as run "
				 "directory: %s", dir, strerror(-rc));
			return rc;
		}
		if (!rc) {
			snprintf(err, errlen, "run directory '%s' already "
				 "exists and is not empty", dir);
			return -EEXIST;
		}
		goto made;
	}
	now = time(NULL);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (i = 0;; i++) {
		snprintf(name, sizeof(name), "synctrace-bench-%s-%ld%s%.0d",
			 stamp, (long)getpid(), i ? "." : "", i);
		if (!mkdir(name, 0777))
			break;
		if (errno != EEXIST || i == 99) {
			rc = -errno;
			snprintf(err, errlen, "cannot create run directory "
				 "'%s': %s", name, strerror(errno));
			return rc;
		}
	}
	dir = name;
made:
	abs = realpath(dir, NULL);
	if (!abs || strlen(abs) >= outlen) {
		rc = abs ? -ENAMETOOLONG : -errno;
		snprintf(err, errlen, "cannot resolve '%s': %s", dir,
			 strerror(-rc));
		free(abs);
		return rc;
	}
	memcpy(out, abs, strlen(abs) + 1);
	free(abs);
	return 0;
}

int st_bench_trace_dir(struct st_bench_trace *t, MPI_Comm comm,
		       const char *dir, const char *index, char *err,
		       size_t errlen)
{
	struct {
		int rc;
		char path[PATH_MAX];
	} msg;
	int rank;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	memset(&msg, 0, sizeof(msg));
	MPI_Comm_rank(comm, &rank);
	t->rank = rank;
	if (!rank) {
		msg.rc = make_dir(msg.path, sizeof(msg.path), dir, err,
				  errlen);
		if (!msg.rc) {
			memcpy(t->dir, msg.path, sizeof(t->dir));
			msg.rc = st_bench_trace_index(t, index);
			if (msg.rc)
				snprintf(err, errlen, "cannot write '%s/%s': "
					 "%s", msg.path, ST_RUN_INDEX,
					 strerror(-msg.rc));
		}
	}
	MPI_Bcast(&msg, (int)sizeof(msg), MPI_BYTE, 0, comm);
	if (msg.rc)
		return msg.rc;
	memcpy(t->dir, msg.path, sizeof(t->dir));
	return 0;
}

int st_bench_trace_index(const struct st_bench_trace *t, const char *text)
{
	char path[PATH_MAX + 32];
	size_t n = strlen(text);
	ssize_t w;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, ST_RUN_INDEX);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	w = write(fd, text, n);
	if (close(fd) && w == (ssize_t)n)
		return -errno;
	return w == (ssize_t)n ? 0 : -EIO;
}

/* Median cost of one read of the transport's clock, ns. */
static double clock_cost(const struct st_mpi_transport *clock)
{
	uint64_t c[64], a, b;
	int i, j;

	for (i = 0; i < 64; i++) {
		a = st_mpi_transport_now(clock);
		for (j = 0; j < 100; j++)
			(void)st_mpi_transport_now(clock);
		b = st_mpi_transport_now(clock);
		c[i] = b - a;
	}
	for (i = 1; i < 64; i++)
		for (j = i; j > 0 && c[j - 1] > c[j]; j--) {
			a = c[j];
			c[j] = c[j - 1];
			c[j - 1] = a;
		}
	return (double)c[32] / 101.0;
}

int st_bench_trace_open(struct st_bench_trace *t, int rank, int size,
			const struct st_mpi_transport *clock,
			const char *clock_note, const struct st_kv *extra,
			size_t n)
{
	char host[256] = "", clk[512], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	char rank_s[16], size_s[16], pid_s[16], res_s[32], cost_s[32];
	char start_s[32], cmd[2048];
	struct st_kv kv[MAX_HEADER];
	struct timespec res;
	size_t nkv = 0, i;
	int len = 0, rc;

	t->rank = rank;
	snprintf(t->path, sizeof(t->path), "%s/" ST_RUN_RANK_FMT, t->dir,
		 rank);
	t->fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			      O_APPEND | O_CLOEXEC, 0644);
	if (t->fd < 0)
		return t->err = -errno;
	t->sink.ctx = (void *)(intptr_t)t->fd;
	t->sink.write = st_sink_fd_write;
	gethostname(host, sizeof(host) - 1);
	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = '\0';
	st_bench_cmdline(cmd, sizeof(cmd));
	clock_getres(CLOCK_MONOTONIC_RAW, &res);
	snprintf(clk, sizeof(clk), "CLOCK_MONOTONIC_RAW%s%s",
		 clock_note && *clock_note ? " " : "",
		 clock_note ? clock_note : "");
	snprintf(rank_s, sizeof(rank_s), "%d", rank);
	snprintf(size_s, sizeof(size_s), "%d", size);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(res_s, sizeof(res_s), "%.3f",
		 (double)res.tv_sec * 1e9 + (double)res.tv_nsec);
	snprintf(cost_s, sizeof(cost_s), "%.1f", clock_cost(clock));
	snprintf(start_s, sizeof(start_s), "%lld", (long long)time(NULL));
	kv[nkv++] = (struct st_kv){ "rank", rank_s };
	kv[nkv++] = (struct st_kv){ "size", size_s };
	kv[nkv++] = (struct st_kv){ "host", host };
	kv[nkv++] = (struct st_kv){ "pid", pid_s };
	kv[nkv++] = (struct st_kv){ "clock", clk };
	kv[nkv++] = (struct st_kv){ "clock_res_ns", res_s };
	kv[nkv++] = (struct st_kv){ "clock_cost_ns", cost_s };
	kv[nkv++] = (struct st_kv){ "mpi_library", lib };
	kv[nkv++] = (struct st_kv){ "cmdline", cmd };
	kv[nkv++] = (struct st_kv){ "fn_table", ST_FN_TABLE_HASH };
	kv[nkv++] = (struct st_kv){ "synctrace_version", ST_VERSION };
	kv[nkv++] = (struct st_kv){ "t_start_unix", start_s };
	for (i = 0; i < n && nkv < MAX_HEADER; i++)
		kv[nkv++] = extra[i];
	if (i < n)
		return t->err = -EINVAL;
	rc = st_trace_write_header(&t->sink, kv, nkv);
	if (!rc)
		rc = st_stream_new(&t->stream, &t->sink, 0, BUFFER_BYTES,
				   LEVEL);
	if (rc)
		t->err = rc;
	return rc;
}

void st_bench_trace_append(struct st_bench_trace *t,
			   const struct st_event *ev)
{
	int rc;

	if (t->err || !t->stream)
		return;
	rc = st_stream_append(t->stream, ev);
	if (rc == -ENOBUFS) {
		rc = st_stream_flush(t->stream);
		if (!rc)
			rc = st_stream_append(t->stream, ev);
	}
	if (rc)
		t->err = rc;
	else
		t->records++;
}

int st_bench_trace_close(struct st_bench_trace *t)
{
	int rc;

	if (t->stream) {
		if (!t->err && (rc = st_stream_flush(t->stream)))
			t->err = rc;
		st_stream_free(t->stream);
		t->stream = NULL;
	}
	if (t->fd >= 0) {
		if (close(t->fd) && !t->err)
			t->err = -errno;
		t->fd = -1;
	}
	return t->err;
}
