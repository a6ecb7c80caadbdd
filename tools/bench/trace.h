/*
 * tools/bench/trace.h: a synctrace run directory written by a
 * synctrace-bench mode itself, with the writer API, so that the
 * synctrace tools read a benchmark's samples like any traced job: rank 0
 * makes the directory and its index (ST_RUN_INDEX), every rank writes
 * its ST_RUN_RANK_FMT file with a header like the interposer's and one
 * zlib stream.  A failed write does not stop the benchmark: the rank
 * stops writing and remembers the error, and the run is then declared
 * incomplete (complete=0) at the end.
 */
#ifndef ST_TOOLS_BENCH_TRACE_H
#define ST_TOOLS_BENCH_TRACE_H

#include <limits.h>
#include <mpi.h>
#include <stddef.h>

#include "writer/writer.h"

struct st_event;
struct st_mpi_transport;

struct st_bench_trace {
	char dir[PATH_MAX];	/* the run directory, absolute */
	char path[PATH_MAX + 32];	/* this rank's file */
	int rank;
	int fd;			/* -1 when not open */
	struct st_sink sink;
	struct st_stream *stream;
	int err;		/* first error (negative errno), 0 when none */
	size_t records;		/* appended */
};

/*
 * Make the run directory (collective over 'comm'): rank 0 creates 'dir',
 * or accepts it when it exists and is empty, or, 'dir' NULL, creates a
 * new "synctrace-bench-YYYYMMDD-HHMMSS-PID" in its working directory;
 * then it writes 'index' (key=value lines, ending in a newline) to the
 * directory's ST_RUN_INDEX.  Every rank gets the absolute path in
 * 't->dir'.  Returns 0 on every rank, or on every rank the same negative
 * errno, with a message in 'err' on rank 0.
 */
int st_bench_trace_dir(struct st_bench_trace *t, MPI_Comm comm,
		       const char *dir, const char *index, char *err,
		       size_t errlen);

/*
 * Create this rank's file in 't->dir' and write its header: rank, size,
 * host, pid, clock (that of 'clock', with its resolution and the cost of
 * a read), mpi_library, cmdline, fn_table, t_start_unix, then the 'n'
 * entries of 'extra'.  Returns 0 or a negative errno (also kept in
 * 't->err').
 */
int st_bench_trace_open(struct st_bench_trace *t, int rank, int size,
			const struct st_mpi_transport *clock,
			const char *clock_note, const struct st_kv *extra,
			size_t n);

/*
 * Append 'ev', flushing a full buffer first.  After an error this does
 * nothing (see 't->err').  Not for the timed part of a measurement: a
 * flush compresses and writes.
 */
void st_bench_trace_append(struct st_bench_trace *t,
			   const struct st_event *ev);

/* Flush and close the file.  Returns 't->err' (0 when all went well). */
int st_bench_trace_close(struct st_bench_trace *t);

/*
 * Rank 0: append 'text' (key=value lines) to the run index of 't->dir'.
 * Returns 0 or a negative errno.
 */
int st_bench_trace_index(const struct st_bench_trace *t, const char *text);

/* This process's command line, arguments separated by spaces. */
void st_bench_cmdline(char *buf, size_t len);

#endif
