/*
 * tools/bench/gen-trace.c: writes a synthetic run for `make bench`'s
 * figure of the tools' throughput, without MPI: what `synctrace run` of
 * a loop of 8-byte MPI_Allreduce on NRANKS ranks writes, through the
 * real writer and its repeat path (so the records cost the bytes a real
 * loop's do), with clocks that agree (one sync record per rank at
 * each end, model slope 0, intercept 0), so the run is as large as the
 * figure needs at any machine speed or load.
 *
 *	gen-trace DIR NRANKS CALLS
 *
 * writes DIR/synctrace.run and DIR/rank-R.st, CALLS + 2 call records
 * per rank (MPI_Init, the loop, MPI_Finalize) plus a communicator and
 * two sync records.  Instance i starts 1 us after instance i - 1; each
 * rank arrives 0 to 255 ns after its start and leaves 400 to 527 ns
 * after it (a fixed pseudo-random sequence: same arguments, same run).
 * Exits 0, or 1 with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gen/ops.h"
#include "sync/sync.h"
#include "writer/event.h"
#include "writer/writer.h"

#define ORIGIN_NS 100000000ULL	/* every rank's clock at its origin */
#define LOOP_NS (ORIGIN_NS + 30000000ULL)
#define STEP_NS 1000ULL

static unsigned char *put(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

static unsigned char *putd(unsigned char *p, double d)
{
	uint64_t w;

	memcpy(&w, &d, sizeof(w));
	return put(p, w, 8);
}

/*
 * The sync record of epoch 'epoch' of 'rank' (sync/sync.h): an HCA model
 * with slope 0 and intercept 0, its root samples at 'anchor'.  Returns
 * its size in 'buf'.
 */
static size_t sync_blob(unsigned char *buf, int rank, int size,
			uint32_t epoch, double anchor)
{
	unsigned char *p = buf;
	uint32_t i, n_root = 8;

	memcpy(p, "STSY", 4);
	p = put(p + 4, ST_SYNC_RECORD_VERSION, 2);
	p = put(p, ST_SYNC_HCA, 1);
	p = put(p, 0, 1);
	p = put(p, (uint32_t)rank, 4);
	p = put(p, (uint32_t)size, 4);
	p = put(p, (uint32_t)rank, 4);		/* leader */
	p = put(p, rank ? 0 : UINT32_MAX, 4);	/* parent */
	p = put(p, epoch, 4);
	p = put(p, 0, 4);			/* n_edge */
	p = put(p, n_root, 4);
	p = put(p, 0, 4);			/* first_edge */
	p = put(p, epoch * n_root, 4);
	p = put(p, 0, 4);
	p = put(p, ORIGIN_NS, 8);
	p = put(p, ORIGIN_NS, 8);		/* root's origin */
	p = put(p, 25000000, 8);		/* duration */
	p = putd(p, 0.0);			/* slope */
	p = putd(p, 0.0);			/* intercept */
	p = putd(p, anchor);
	p = putd(p, rank ? 30.0 : 0.0);		/* error */
	p = putd(p, 0.0);			/* slope error */
	p = putd(p, 20e6);			/* span */
	p = putd(p, rank ? 1000.0 : 0.0);	/* rtt */
	for (i = 0; i < n_root; i++) {
		p = putd(p, anchor + i);
		p = putd(p, 0.0);
		p = putd(p, rank ? 1000.0 : 0.0);
		p = put(p, epoch, 4);
	}
	p = put(p, (uint32_t)crc32(0, buf, (uInt)(p - buf)), 4);
	return (size_t)(p - buf);
}

struct out {
	int fd;
	struct st_sink sink;
	struct st_stream *s;
};

static int append(struct out *o, const struct st_event *ev, uint32_t token)
{
	int rc = st_stream_append_token(o->s, ev, token);

	if (rc == -ENOBUFS && !(rc = st_stream_flush(o->s)))
		rc = st_stream_append_token(o->s, ev, token);
	return rc;
}

static int call(struct out *o, unsigned fn, uint64_t t0, uint64_t t1)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)fn;
	ev.t0 = t0;
	ev.t1 = t1;
	return append(o, &ev, 0);
}

static int sync_rec(struct out *o, int rank, int size, uint32_t epoch,
		    uint64_t t0)
{
	static unsigned char buf[ST_SYNC_RECORD_HEADER +
				 8 * ST_SYNC_SAMPLE_BYTES + 8];
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_SYNC;
	ev.t0 = t0;
	ev.t1 = t0 + 1000000;
	ev.text = (const char *)buf;
	ev.text_len = (uint32_t)sync_blob(buf, rank, size, epoch,
					  (double)t0);
	return append(o, &ev, 0);
}

/* The times of instance 'i' on 'rank': a fixed pseudo-random jitter. */
static void times(uint64_t i, int rank, uint64_t *t0, uint64_t *t1)
{
	uint64_t h = (i * 2 + (uint64_t)rank + 1) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	*t0 = LOOP_NS + i * STEP_NS + (h & 255);
	*t1 = LOOP_NS + i * STEP_NS + 400 + ((h >> 8) & 127);
}

static int write_rank(const char *dir, int rank, int size, uint64_t calls)
{
	char path[4096], rk[16], sz[16], t_init[32];
	struct st_kv kv[] = {
		{ "format", "1" },
		{ "rank", rk },
		{ "size", sz },
		{ "host", "gen" },
		{ "pid", "1" },
		{ "clock", "CLOCK_MONOTONIC_RAW" },
		{ "clock_res_ns", "1" },
		{ "clock_cost_ns", "20" },
		{ "mpi_library", "none (tools/bench/gen-trace.c)" },
		{ "cmdline", "gen-trace" },
		{ "config", "buffer=1048576 depth=8 yield=0 level=1 "
			    "families=all" },
		{ "yield", "0" },
		{ "fn_table", ST_FN_TABLE_HASH },
		{ "t_init_ns", t_init },
		{ "t_start_unix", "1700000000" },
	};
	struct st_event ev;
	struct out o;
	uint64_t i, t0, t1;
	int rc;

	snprintf(rk, sizeof(rk), "%d", rank);
	snprintf(sz, sizeof(sz), "%d", size);
	snprintf(t_init, sizeof(t_init), "%llu",
		 (unsigned long long)(LOOP_NS - 1000));
	snprintf(path, sizeof(path), "%s/rank-%d.st", dir, rank);
	o.s = NULL;
	o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (o.fd < 0) {
		fprintf(stderr, "gen-trace: cannot create '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	o.sink.ctx = (void *)(intptr_t)o.fd;
	o.sink.write = st_sink_fd_write;
	if ((rc = st_trace_write_header(&o.sink, kv,
					sizeof(kv) / sizeof(kv[0]))) ||
	    (rc = st_stream_new(&o.s, &o.sink, 0, 1 << 19, 1)))
		goto fail;
	if ((rc = call(&o, ST_FN_MPI_INIT, ORIGIN_NS - 1000000,
		       LOOP_NS - 1000)) ||
	    (rc = sync_rec(&o, rank, size, 0, ORIGIN_NS)))
		goto fail;
	st_event_clear(&ev);
	ev.kind = ST_REC_COMM;
	ev.fn = ST_FN_MPI_INIT;
	ev.comm = 1;
	ev.comm_size = (uint32_t)size;
	ev.rank = rank;
	ev.t0 = ev.t1 = LOOP_NS - 1000;
	if ((rc = append(&o, &ev, 0)))
		goto fail;
	for (i = 0; i < calls; i++) {
		times(i, rank, &t0, &t1);
		rc = st_stream_append_repeat(o.s, ST_FN_MPI_ALLREDUCE, 1,
					     i + 1, t0, t1);
		if (rc == -ENOBUFS) {
			if ((rc = st_stream_flush(o.s)))
				goto fail;
			rc = st_stream_append_repeat(o.s, ST_FN_MPI_ALLREDUCE,
						     1, i + 1, t0, t1);
		}
		if (rc == 1) {
			st_event_clear(&ev);
			ev.kind = ST_REC_CALL;
			ev.fn = ST_FN_MPI_ALLREDUCE;
			ev.comm = 1;
			ev.comm_size = (uint32_t)size;
			ev.seq = i + 1;
			ev.sbytes = ev.rbytes = 8;
			ev.t0 = t0;
			ev.t1 = t1;
			rc = append(&o, &ev, 1);
		}
		if (rc)
			goto fail;
	}
	t0 = LOOP_NS + calls * STEP_NS + 1000;
	if ((rc = sync_rec(&o, rank, size, 1, t0)) ||
	    (rc = call(&o, ST_FN_MPI_FINALIZE, t0 - 500, t0 + 2000000)) ||
	    (rc = st_stream_flush(o.s)))
		goto fail;
	st_stream_free(o.s);
	if (close(o.fd)) {
		rc = -errno;
		o.fd = -1;
		o.s = NULL;
		goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "gen-trace: cannot write '%s': %s\n", path,
		strerror(-rc));
	if (o.s)
		st_stream_free(o.s);
	if (o.fd >= 0)
		close(o.fd);
	return -1;
}

int main(int argc, char **argv)
{
	char path[4096], *end;
	unsigned long long calls;
	long nranks;
	FILE *f;
	int r;

	if (argc != 4) {
		fprintf(stderr, "usage: gen-trace DIR NRANKS CALLS\n");
		return 1;
	}
	nranks = strtol(argv[2], &end, 10);
	if (*end || nranks < 1 || nranks > 4096) {
		fprintf(stderr, "gen-trace: NRANKS '%s': 1 to 4096\n",
			argv[2]);
		return 1;
	}
	calls = strtoull(argv[3], &end, 10);
	if (*end || !*argv[3]) {
		fprintf(stderr, "gen-trace: CALLS '%s': a number\n", argv[3]);
		return 1;
	}
	if (mkdir(argv[1], 0777) && errno != EEXIST) {
		fprintf(stderr, "gen-trace: cannot create '%s': %s\n",
			argv[1], strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/synctrace.run", argv[1]);
	if (!(f = fopen(path, "w")) ||
	    fprintf(f, "nranks=%ld\ncmdline=gen-trace %ld %llu\n"
		    "complete=1\n", nranks, nranks, calls) < 0 || fclose(f)) {
		fprintf(stderr, "gen-trace: cannot write '%s'\n", path);
		return 1;
	}
	for (r = 0; r < nranks; r++)
		if (write_rank(argv[1], r, (int)nranks, calls))
			return 1;
	return 0;
}
