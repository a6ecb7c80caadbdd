/*
 * tests/unit/writer-stream.c: streams write chunks a reader gets every
 * record back from, in order, however streams interleave; a record that
 * does not fit writes nothing; a failed flush loses only its own
 * records; a raw (stored) chunk written for a signal handler is readable;
 * a buffer sealed for another thread to write comes out before the
 * records that follow it, once, also when that thread runs concurrently
 * or a signal handler gets there first; a loop of identical
 * collectives costs at most 4 bytes a record, and its repeats are the
 * bytes the codec writes for them; a chunk is never longer than zlib's
 * full deflate makes it, and timing noise is coded shorter.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "writer/encode.h"
#include "writer/event.h"
#include "writer/format.h"
#include "writer/huff.h"
#include "writer/reader.h"
#include "writer/stream.h"
#include "writer/writer.h"
#include "writer-test.h"

static const struct st_kv hdr[] = {
	{ "rank", "0" },
	{ "clock", "monotonic" },
};

static struct membuf mb;
static struct st_sink sink;

static void setup(void)
{
	memset(&mb, 0, sizeof(mb));
	sink = membuf_sink(&mb);
	cr_assert_eq(st_trace_write_header(&sink, hdr, 2), 0);
}

static void teardown(void)
{
	free(mb.buf);
}

TestSuite(writer_stream, .init = setup, .fini = teardown);

/* Append 'ev', flushing first when the buffer is full. */
static void append(struct st_stream *s, const struct st_event *ev)
{
	int rc = st_stream_append(s, ev);

	if (rc == -ENOBUFS) {
		cr_assert_eq(st_stream_flush(s), 0);
		rc = st_stream_append(s, ev);
	}
	cr_assert_eq(rc, 0, "append: %s", strerror(-rc));
}

/* Read the memory file back and compare with 'want' ('n' records). */
static void expect_file(const uint8_t *buf, size_t len,
			const struct st_event *want, int n)
{
	struct st_reader *r;
	struct st_event got;
	char err[256];
	int i, rc;

	rc = st_reader_open_mem(&r, buf, len, "mem", err, sizeof(err));
	cr_assert_eq(rc, 0, "%s", err);
	for (i = 0; i < n; i++) {
		rc = st_reader_next(r, &got);
		cr_assert_eq(rc, 1, "record %d: %d %s", i, rc,
			     st_reader_error(r));
		expect_event_eq(&got, &want[i], i);
	}
	cr_expect_eq(st_reader_next(r, &got), 0, "more records than written");
	cr_expect_not(st_reader_truncated(r));
	st_reader_close(r);
}

Test(writer_stream, roundtrip_every_kind_through_memory_sink)
{
	enum { N = 3000 };
	static struct st_event evs[N];
	static char text[N][200];
	struct st_stream *s;
	uint64_t seed = 3;
	int i;

	cr_assert_eq(st_stream_new(&s, &sink, 5, ST_STREAM_MIN_BUF, 6), 0);
	for (i = 0; i < N; i++) {
		make_event(&evs[i], ST_REC_CALL + i % ST_REC_MAX, &seed,
			   text[i], sizeof(text[i]));
		evs[i].thread = 5;
		append(s, &evs[i]);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	cr_expect_gt(mb.nwrites, 10, "only %zu chunks", mb.nwrites);
	expect_file(mb.buf, mb.len, evs, N);
}

Test(writer_stream, interleaved_streams_come_back_in_chunk_order)
{
	enum { NS = 3, N = 6000 };
	static struct st_event evs[N], want[N];
	static int pending[NS][N];
	int npending[NS] = { 0 }, nwant = 0, i, k, j;
	struct st_stream *s[NS];
	uint64_t seed = 11;

	for (k = 0; k < NS; k++)
		cr_assert_eq(st_stream_new(&s[k], &sink, (uint16_t)(k * 1000),
					   ST_STREAM_MIN_BUF, 1), 0);
	for (i = 0; i < N; i++) {
		k = (int)(rng_next(&seed) % NS);
		make_event(&evs[i], ST_REC_CALL + i % 3, &seed, NULL, 0);
		evs[i].thread = (uint16_t)(k * 1000);
		/* Flushing a stream puts its pending records in the file. */
		if (st_stream_append(s[k], &evs[i]) == -ENOBUFS) {
			cr_assert_eq(st_stream_flush(s[k]), 0);
			for (j = 0; j < npending[k]; j++)
				want[nwant++] = evs[pending[k][j]];
			npending[k] = 0;
			cr_assert_eq(st_stream_append(s[k], &evs[i]), 0);
		}
		pending[k][npending[k]++] = i;
		if (rng_next(&seed) % 100 == 0) {
			cr_assert_eq(st_stream_flush(s[k]), 0);
			for (j = 0; j < npending[k]; j++)
				want[nwant++] = evs[pending[k][j]];
			npending[k] = 0;
		}
	}
	for (k = 0; k < NS; k++) {
		cr_assert_eq(st_stream_flush(s[k]), 0);
		for (j = 0; j < npending[k]; j++)
			want[nwant++] = evs[pending[k][j]];
		st_stream_free(s[k]);
	}
	cr_assert_eq(nwant, N);
	expect_file(mb.buf, mb.len, want, N);
}

Test(writer_stream, full_buffer_gives_enobufs_and_writes_nothing)
{
	enum { N = 2000 };
	static struct st_event evs[N];
	struct st_stream *s;
	size_t before, writes;
	uint64_t seed = 5;
	int i, n = 0, refused = 0, rc;

	cr_assert_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF, 6), 0);
	for (i = 0; i < N; i++) {
		make_event(&evs[i], ST_REC_CALL, &seed, NULL, 0);
		before = st_stream_buffered(s);
		writes = mb.nwrites;
		rc = st_stream_append(s, &evs[i]);
		if (rc == -ENOBUFS) {
			refused++;
			cr_assert_eq(st_stream_buffered(s), before);
			cr_assert_eq(mb.nwrites, writes, "append wrote");
			cr_assert_eq(st_stream_flush(s), 0);
			cr_assert_eq(mb.nwrites, writes + 1);
			cr_assert_eq(st_stream_buffered(s), 0);
			rc = st_stream_append(s, &evs[i]);
		}
		cr_assert_eq(rc, 0);
		cr_assert_leq(st_stream_buffered(s), ST_STREAM_MIN_BUF);
		n++;
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	cr_expect_gt(refused, 5);
	expect_file(mb.buf, mb.len, evs, n);
}

Test(writer_stream, identical_records_fill_buffer_to_its_size)
{
	enum { N = 20000 };
	static struct st_event evs[N];
	struct st_stream *s;
	int i, refused = 0, rc;

	cr_assert_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF, 6), 0);
	for (i = 0; i < N; i++) {
		make_allreduce(&evs[i]);
		evs[i].seq = (uint64_t)i + 1;
		evs[i].t0 = 1000 * (uint64_t)i + 1;
		evs[i].t1 = evs[i].t0 + 300 + (uint64_t)i % 200;
		rc = st_stream_append(s, &evs[i]);
		if (rc == -ENOBUFS) {
			/* Full means full: no room for another 5 bytes. */
			cr_assert_gt(st_stream_buffered(s),
				     ST_STREAM_MIN_BUF - 5);
			cr_assert_eq(st_stream_flush(s), 0);
			rc = st_stream_append(s, &evs[i]);
			refused++;
		}
		cr_assert_eq(rc, 0);
		cr_assert_leq(st_stream_buffered(s), ST_STREAM_MIN_BUF);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	cr_expect_gt(refused, 5);
	expect_file(mb.buf, mb.len, evs, N);
}

Test(writer_stream, record_larger_than_buffer_is_einval)
{
	static char text[ST_STREAM_MIN_BUF + 1];
	struct st_event small, big;
	struct st_stream *s;

	make_allreduce(&small);
	small.t0 = 10;
	small.t1 = 20;
	st_event_clear(&big);
	big.kind = ST_REC_OBJECT;
	big.text = text;
	big.text_len = sizeof(text);
	cr_assert_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF, 6), 0);
	cr_assert_eq(st_stream_append(s, &small), 0);
	/* With records buffered, a flush might help: */
	cr_expect_eq(st_stream_append(s, &big), -ENOBUFS);
	cr_assert_eq(st_stream_flush(s), 0);
	/* but not alone in an empty buffer. */
	cr_expect_eq(st_stream_append(s, &big), -EINVAL);
	cr_expect_eq(st_stream_buffered(s), 0);
	/* Text that just fits is fine. */
	big.text_len = ST_STREAM_MIN_BUF - 8;
	cr_expect_eq(st_stream_append(s, &big), 0);
	st_stream_free(s);
}

Test(writer_stream, flush_of_empty_stream_writes_nothing)
{
	struct st_stream *s;
	size_t len = mb.len;

	cr_assert_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF, 6), 0);
	cr_expect_eq(st_stream_flush(s), 0);
	cr_expect_eq(st_stream_flush_raw(s, -1), 0);
	cr_expect_eq(mb.len, len);
	st_stream_free(s);
}

Test(writer_stream, failed_flush_drops_records_and_stream_stays_usable)
{
	struct st_event ev[4];
	struct st_stream *s;
	int i;

	cr_assert_eq(st_stream_new(&s, &sink, 2, ST_STREAM_MIN_BUF, 6), 0);
	for (i = 0; i < 4; i++) {
		make_allreduce(&ev[i]);
		ev[i].thread = 2;
		ev[i].seq = (uint64_t)i + 1;
		ev[i].t0 = 1000 * (uint64_t)i + 5;
		ev[i].t1 = ev[i].t0 + 300;
	}
	cr_assert_eq(st_stream_append(s, &ev[0]), 0);
	cr_assert_eq(st_stream_append(s, &ev[1]), 0);
	mb.fail = -ENOSPC;
	cr_expect_eq(st_stream_flush(s), -ENOSPC);
	cr_expect_eq(st_stream_buffered(s), 0);
	mb.fail = 0;
	/* The next chunk must not depend on the lost one's delta state. */
	cr_assert_eq(st_stream_append(s, &ev[2]), 0);
	cr_assert_eq(st_stream_append(s, &ev[3]), 0);
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	expect_file(mb.buf, mb.len, ev + 2, 2);
}

Test(writer_stream, new_rejects_bad_arguments)
{
	struct st_stream *s = (struct st_stream *)&s;
	struct st_sink nowrite = { NULL, NULL };

	cr_expect_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF - 1, 6),
		     -EINVAL);
	cr_expect_null(s);
	cr_expect_eq(st_stream_new(&s, &sink, 0, ST_CHUNK_MAX_RAW + 1, 6),
		     -EINVAL);
	cr_expect_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF, 10),
		     -EINVAL);
	cr_expect_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF, -1),
		     -EINVAL);
	cr_expect_eq(st_stream_new(&s, &nowrite, 0, ST_STREAM_MIN_BUF, 6),
		     -EINVAL);
}

/* Method byte of the chunk that write call 'i' produced. */
static int chunk_method(size_t i)
{
	size_t start = mb.ends[i - 1];

	cr_assert(!memcmp(mb.buf + start, ST_CHUNK_MAGIC, 4));
	return mb.buf[start + 6];
}

Test(writer_stream, level_0_writes_stored_chunks)
{
	struct st_event ev[50];
	struct st_stream *s;
	int i;

	cr_assert_eq(st_stream_new(&s, &sink, 1, ST_STREAM_MIN_BUF, 0), 0);
	for (i = 0; i < 50; i++) {
		make_allreduce(&ev[i]);
		ev[i].thread = 1;
		ev[i].t0 = 977 * (uint64_t)i + 1;
		ev[i].t1 = ev[i].t0 + 300;
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	cr_assert_eq(mb.nwrites, 2);
	cr_expect_eq(chunk_method(1), ST_CHUNK_STORED);
	expect_file(mb.buf, mb.len, ev, 50);
}

/*
 * A trace file in a new directory 'dir' (a mkdtemp template), its header
 * written: returns its descriptor, with its name in 'path' and a sink
 * writing to it in 'fds'.
 */
static int file_open(char *dir, char *path, size_t len, struct st_sink *fds)
{
	int fd;

	cr_assert(mkdtemp(dir));
	snprintf(path, len, "%s/rank-0.st", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	cr_assert_geq(fd, 0);
	fds->ctx = (void *)(intptr_t)fd;
	fds->write = st_sink_fd_write;
	cr_assert_eq(st_trace_write_header(fds, hdr, 2), 0);
	return fd;
}

/* The file 'path' holds 'want[0..n-1]', whole; then it and 'dir' go. */
static void expect_path(const char *dir, const char *path,
			const struct st_event *want, int n)
{
	struct st_reader *r;
	struct st_event got;
	char err[256];
	int i;

	cr_assert_eq(st_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	for (i = 0; i < n; i++) {
		cr_assert_eq(st_reader_next(r, &got), 1, "record %d: %s", i,
			     st_reader_error(r));
		expect_event_eq(&got, &want[i], i);
	}
	cr_expect_eq(st_reader_next(r, &got), 0);
	cr_expect_not(st_reader_truncated(r));
	st_reader_close(r);
	unlink(path);
	rmdir(dir);
}

Test(writer_stream, raw_flush_writes_readable_stored_chunk)
{
	char dir[] = "/tmp/st-stream-XXXXXX", path[64];
	struct st_event ev[300];
	struct st_sink fds;
	struct st_stream *s;
	int fd, i;

	fd = file_open(dir, path, sizeof(path), &fds);
	cr_assert_eq(st_stream_new(&s, &fds, 7, 1 << 16, 6), 0);
	for (i = 0; i < 300; i++) {
		make_allreduce(&ev[i]);
		ev[i].thread = 7;
		ev[i].seq = (uint64_t)i + 1;
		ev[i].t0 = 1000 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 250 + (uint64_t)i % 7;
		if (i < 100)
			cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	/* A raw flush that cannot write drops its records. */
	cr_assert_eq(st_stream_append(s, &ev[0]), 0);
	cr_expect_eq(st_stream_flush_raw(s, -1), -EBADF);
	cr_expect_eq(st_stream_buffered(s), 0);
	for (i = 100; i < 300; i++)
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	/* As a fatal-signal handler would. */
	errno = 1234;
	cr_assert_eq(st_stream_flush_raw(s, fd), 0);
	cr_expect_eq(errno, 1234, "errno not preserved");
	cr_expect_eq(st_stream_buffered(s), 0);
	st_stream_free(s);
	close(fd);

	expect_path(dir, path, ev, 300);
}

/*
 * The acceptance test of the encoding: MPI_Allreduce of one double in a
 * loop, ~300 ns +- 50 a call, ~100 ns +- 50 between calls, and now and
 * then an OS hiccup of up to 5 us.  Measured over the whole file.
 */
static double allreduce_bytes_per_record(int level)
{
	enum { N = 200000 };
	struct st_stream *s;
	struct st_event ev;
	uint64_t seed = 2024, t = 1700000000000000000ull;
	int i;

	cr_assert_eq(st_stream_new(&s, &sink, 0, 1 << 20, level), 0);
	make_allreduce(&ev);
	for (i = 0; i < N; i++) {
		uint64_t gap = 50 + rng_next(&seed) % 101;

		if (rng_next(&seed) % 50 == 0)
			gap += rng_next(&seed) % 5000;
		ev.seq = (uint64_t)i + 1;
		ev.t0 = t + gap;
		ev.t1 = ev.t0 + 250 + rng_next(&seed) % 101;
		t = ev.t1;
		append(s, &ev);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	return (double)mb.len / N;
}

Test(writer_stream, allreduce_loop_costs_at_most_4_bytes_per_record)
{
	double b = allreduce_bytes_per_record(6);

	cr_expect_leq(b, 4.0, "%.3f bytes per record at level 6", b);
}

Test(writer_stream, allreduce_loop_at_level_1_costs_at_most_4_bytes)
{
	double b = allreduce_bytes_per_record(1);

	cr_expect_leq(b, 4.0, "%.3f bytes per record at level 1", b);
}

/*
 * Records 'ev[0..n-1]' of an allreduce loop from t = 1000 on: each gap
 * 'gap' + [0, 'gspan'), each duration 'dur' + [0, 'dspan') ns, drawn
 * from 'seed'.
 */
static void jittered_loop(struct st_event *ev, int n, uint64_t seed,
			  uint64_t gap, uint64_t gspan, uint64_t dur,
			  uint64_t dspan)
{
	uint64_t t = 1000;
	int i;

	for (i = 0; i < n; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = (uint64_t)i + 1;
		ev[i].t0 = t + gap + rng_next(&seed) % gspan;
		ev[i].t1 = ev[i].t0 + dur + rng_next(&seed) % dspan;
		t = ev[i].t1;
	}
}

/* Records 'ev[0..n-1]' of a loop, with seq and timestamps moving on. */
static void loop_events(struct st_event *ev, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = (uint64_t)i + 1;
		ev[i].t0 = 5000 + 900 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 300 + (uint64_t)(i * 37 % 101);
	}
}

/*
 * A sealed buffer waits for st_stream_write_sealed() while the other
 * fills; a second seal must wait for it (-EBUSY); a flush writes the
 * sealed records before the filling ones.
 */
Test(writer_stream, sealed_buffer_is_written_before_the_filling_one)
{
	static struct st_event ev[40];
	struct st_stream *s;
	int i;

	loop_events(ev, 40);
	cr_assert_eq(st_stream_new(&s, &sink, 0, 4096, 1), 0);
	cr_expect_eq(st_stream_seal(s), 0, "an empty stream sealed");
	for (i = 0; i < 10; i++)
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	cr_assert_eq(st_stream_seal(s), 1);
	cr_expect(st_stream_sealed(s));
	cr_expect_eq(st_stream_buffered(s), 0);
	for (i = 10; i < 20; i++)
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	cr_expect_eq(st_stream_seal(s), -EBUSY);
	cr_expect_gt(st_stream_buffered(s), 0, "a refused seal emptied it");
	cr_assert_eq(st_stream_write_sealed(s), 1);
	cr_expect_not(st_stream_sealed(s));
	cr_expect_eq(st_stream_write_sealed(s), 0, "wrote a chunk twice");
	cr_assert_eq(st_stream_seal(s), 1);
	for (i = 20; i < 40; i++)
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	/* Records 10..19 sealed, 20..39 filling: the flush keeps order. */
	cr_assert_eq(st_stream_flush(s), 0);
	cr_expect_not(st_stream_sealed(s));
	st_stream_free(s);
	expect_file(mb.buf, mb.len, ev, 40);
}

struct sealer {
	struct st_stream *s;
	atomic_int stop;
	long written;
	int err;		/* a failed write; asserted on by the test */
};

static void *write_sealed_loop(void *arg)
{
	struct sealer *w = arg;
	int rc;

	for (;;) {
		rc = st_stream_write_sealed(w->s);
		if (rc < 0) {
			w->err = rc;
			break;
		}
		w->written += rc;
		if (!rc) {
			if (atomic_load(&w->stop))
				break;
			sched_yield();
		}
	}
	return NULL;
}

/*
 * The interposer's use: one thread appends and seals, another writes
 * the sealed buffers; every record comes back once, in order.
 */
Test(writer_stream, another_thread_writes_sealed_buffers_in_order)
{
	enum { N = 20000 };
	static struct st_event ev[N];
	struct sealer w = { 0 };
	pthread_t t;
	int i, rc;

	loop_events(ev, N);
	cr_assert_eq(st_stream_new(&w.s, &sink, 0, 4096, 1), 0);
	cr_assert_eq(pthread_create(&t, NULL, write_sealed_loop, &w), 0);
	for (i = 0; i < N; i++) {
		rc = st_stream_append(w.s, &ev[i]);
		if (rc == -ENOBUFS) {
			while ((rc = st_stream_seal(w.s)) == -EBUSY)
				sched_yield();
			cr_assert_eq(rc, 1);
			rc = st_stream_append(w.s, &ev[i]);
		}
		cr_assert_eq(rc, 0);
	}
	atomic_store(&w.stop, 1);
	pthread_join(t, NULL);
	cr_assert_eq(w.err, 0, "write_sealed: %s", strerror(-w.err));
	cr_assert_eq(st_stream_flush(w.s), 0);
	st_stream_free(w.s);
	cr_expect_gt(w.written, 10, "the other thread wrote %ld chunks",
		     w.written);
	expect_file(mb.buf, mb.len, ev, N);
}

/*
 * A fatal signal: the sealed buffer nobody claimed yet goes out stored,
 * before the filling one.
 */
Test(writer_stream, raw_flush_writes_the_sealed_buffer_first)
{
	char dir[] = "/tmp/st-stream-XXXXXX", path[64];
	static struct st_event ev[30];
	struct st_sink fds;
	struct st_stream *s;
	int fd, i;

	loop_events(ev, 30);
	fd = file_open(dir, path, sizeof(path), &fds);
	cr_assert_eq(st_stream_new(&s, &fds, 0, 4096, 1), 0);
	for (i = 0; i < 30; i++) {
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
		if (i == 11)
			cr_assert_eq(st_stream_seal(s), 1);
	}
	cr_assert_eq(st_stream_flush_raw(s, fd), 0);
	cr_expect_not(st_stream_sealed(s));
	cr_expect_eq(st_stream_write_sealed(s), 0, "written twice");
	st_stream_free(s);
	close(fd);
	expect_path(dir, path, ev, 30);
}

/*
 * Write 'n' repeats of 'ev' (the interposer's hot path) at 'level' and
 * return how many of the chunks were stored rather than deflated.
 */
static int write_repeats(const struct st_event *ev, int n, int level)
{
	struct st_stream *s;
	size_t i, off;
	int k, rc, stored = 0;

	cr_assert_eq(st_stream_new(&s, &sink, 0, 1 << 16, level), 0);
	for (k = 0; k < n; k++) {
		rc = st_stream_append_repeat(s, ev[k].fn, 9, ev[k].seq,
					     ev[k].t0, ev[k].t1);
		if (rc == -ENOBUFS) {
			cr_assert_eq(st_stream_flush(s), 0);
			rc = 1;
		}
		if (rc == 1)
			rc = st_stream_append_token(s, &ev[k], 9);
		cr_assert_eq(rc, 0, "record %d: %d", k, rc);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	/* Write 0 is the file header; each later one a chunk. */
	for (i = 1; i < mb.nwrites; i++) {
		off = mb.ends[i - 1];
		stored += mb.buf[off + 6] == ST_CHUNK_STORED;
	}
	cr_assert_gt(mb.nwrites, 2, "one chunk only");
	return stored;
}

/*
 * Repeats read back as the records they stand for.  In a loop with
 * realistic jitter they cost about 2 bytes each as runs; level 1 stores
 * such chunks as they are, level 2 Huffman-codes them (smaller, at a
 * cost per byte the interposer's ranks would pay on a busy machine).
 */
Test(writer_stream, repeats_read_back_as_whole_records)
{
	enum { N = 50000 };
	static struct st_event ev[N];
	size_t hdr;
	double stored_b, huff_b;

	jittered_loop(ev, N, 7, 30, 8, 580, 60);
	hdr = mb.len;
	cr_expect_eq(write_repeats(ev, N, 1), (int)mb.nwrites - 1,
		     "a chunk of runs was deflated at level 1");
	expect_file(mb.buf, mb.len, ev, N);
	stored_b = (double)(mb.len - hdr) / N;
	cr_expect_lt(stored_b, 2.1, "%.3f bytes per record", stored_b);

	teardown();
	setup();
	cr_expect_eq(write_repeats(ev, N, 2), 0,
		     "a chunk of runs was stored at level 2");
	expect_file(mb.buf, mb.len, ev, N);
	huff_b = (double)(mb.len - hdr) / N;
	cr_expect_lt(huff_b, stored_b, "Huffman %.3f, stored %.3f bytes",
		     huff_b, stored_b);
}

/*
 * The stream's repeats are the codec's: a loop with outliers (residuals
 * past two bytes, skipped sequence numbers) makes, at level 0 and in one
 * stored chunk, the bytes that st_enc_repeat() and st_enc_record()
 * write, and reads back.
 */
Test(writer_stream, repeats_write_what_the_codec_writes)
{
	enum { N = 3000, CAP = 1 << 16 };
	static struct st_event ev[N];
	uint8_t *want = malloc(CAP + ST_REC_MAX_FIXED), *p = want;
	struct st_codec c;
	struct st_stream *s;
	uint64_t seed = 5, t = 1000, seq = 0, r;
	size_t off, len;
	int i, rc;

	cr_assert(want);
	for (i = 0; i < N; i++) {
		r = rng_next(&seed) % 100;
		make_allreduce(&ev[i]);
		seq += 1 + (r == 0);
		ev[i].seq = seq;
		ev[i].t0 = t + 30 + rng_next(&seed) % (r < 5 ? 100000 : 8);
		ev[i].t1 = ev[i].t0 + 580 + rng_next(&seed) % 60;
		t = ev[i].t1;
	}
	cr_assert_eq(st_stream_new(&s, &sink, 0, CAP, 0), 0);
	st_codec_init(&c);
	for (i = 0; i < N; i++) {
		rc = st_stream_append_repeat(s, ev[i].fn, 9, ev[i].seq,
					     ev[i].t0, ev[i].t1);
		if (rc == 1)
			rc = st_stream_append_token(s, &ev[i], 9);
		cr_assert_eq(rc, 0, "record %d: %d", i, rc);
		rc = st_enc_repeat(&c, &p, want + CAP, ev[i].fn, 9, ev[i].seq,
				   ev[i].t0, ev[i].t1);
		if (rc == 1)
			rc = st_enc_record(&c, &p, want + CAP, &ev[i], 9);
		cr_assert_eq(rc, 0);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	cr_assert_eq(mb.nwrites, 2, "one chunk");
	cr_assert_eq(chunk_method(1), ST_CHUNK_STORED);
	off = mb.ends[0] + ST_CHUNK_HDR_LEN;
	len = mb.ends[1] - off;
	cr_assert_eq(len, (size_t)(p - want));
	cr_expect_eq(memcmp(mb.buf + off, want, len), 0);
	expect_file(mb.buf, mb.len, ev, N);
	free(want);
}

/*
 * A clock that stands still: zlib costs nothing, so that a test of the
 * chunks' sizes does not depend on how fast this machine deflates
 * (zlib_keeps_to_its_share_of_the_records_time tests zlib's share).
 */
static uint64_t free_zlib_clock(void)
{
	return 1;
}

/*
 * The one chunk a stream of 'n' events 'ev' (one buffer, at level 1,
 * zlib free) writes: its method, its record bytes ('*raw', malloc'ed,
 * '*rawlen') and its payload's length.
 */
static int one_chunk(const struct st_event *ev, int n, uint8_t **raw,
		     size_t *rawlen, size_t *paylen)
{
	struct st_stream *s;
	const uint8_t *c;
	uLongf got;
	int i;

	cr_assert_eq(st_stream_new(&s, &sink, 0, 1 << 20, 1), 0);
	s->cpu_ns = free_zlib_clock;
	for (i = 0; i < n; i++)
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	cr_assert_eq(mb.nwrites, 2, "%zu writes: header and one chunk",
		     mb.nwrites);
	c = mb.buf + mb.ends[0];
	*rawlen = st_get_le32(c + 8);
	*paylen = st_get_le32(c + 12);
	*raw = malloc(*rawlen);
	cr_assert(*raw);
	if (c[6] == ST_CHUNK_STORED) {
		memcpy(*raw, c + ST_CHUNK_HDR_LEN, *rawlen);
	} else if (c[6] == ST_CHUNK_HUFF) {
		cr_assert_eq(st_huff_decode(c + ST_CHUNK_HDR_LEN, *paylen,
					    *raw, *rawlen), 0);
	} else if (c[6] == ST_CHUNK_HUFF_CTX) {
		cr_assert_eq(st_huff_ctx_decode(c + ST_CHUNK_HDR_LEN, *paylen,
						*raw, *rawlen), 0);
	} else {
		got = *rawlen;
		cr_assert_eq(uncompress(*raw, &got, c + ST_CHUNK_HDR_LEN,
					*paylen), Z_OK);
		cr_assert_eq(got, *rawlen);
	}
	return c[6];
}

/* zlib's own deflate of 'raw' at level 1, as every chunk once was. */
static size_t full_deflate(const uint8_t *raw, size_t len)
{
	uLongf n = compressBound(len);
	uint8_t *out = malloc(n);

	cr_assert(out);
	cr_assert_eq(compress2(out, &n, raw, len, 1), Z_OK);
	free(out);
	return n;
}

/*
 * A chunk of records whose bytes are timing noise (an allreduce loop's
 * timestamps, written as general records, not repeats) is Huffman
 * coded (ST_CHUNK_HUFF): shorter than full deflating, which finds no
 * strings there, and read back record for record.
 */
Test(writer_stream, timing_noise_chunk_is_shorter_than_full_deflate)
{
	enum { N = 12000 };
	static struct st_event ev[N];
	size_t rawlen, paylen, full;
	uint8_t *raw;

	jittered_loop(ev, N, 77, 50, 101, 250, 101);
	cr_assert_eq(one_chunk(ev, N, &raw, &rawlen, &paylen),
		     ST_CHUNK_HUFF);
	cr_assert_leq(rawlen, 65536, "the probe sees the whole chunk");
	full = full_deflate(raw, rawlen);
	cr_expect_lt(paylen, full, "%zu bytes against deflate's %zu", paylen,
		     full);
	expect_file(mb.buf, mb.len, ev, N);
	free(raw);
}

/*
 * Records 'ev[0..n-1]' of an allreduce loop whose call records carry one
 * of a few texts each, in an order drawn from 'seed': strings that
 * deflate finds; a record every 'step' ns.
 */
static void string_events(struct st_event *ev, int n, uint64_t seed,
			  uint64_t step)
{
	static const char *const words[] = { "alpha beta gamma delta",
		"the quick brown fox jumps", "over the lazy dog again",
		"epsilon zeta eta theta iota" };
	int i;

	for (i = 0; i < n; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = (uint64_t)i + 1;
		ev[i].t0 = 1000 + step * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 300;
		ev[i].text = words[rng_next(&seed) % 4];
		ev[i].text_len = (uint32_t)strlen(ev[i].text);
	}
}

/*
 * A run's first chunk of other records, deflated (its strings; zlib
 * free), does not fix the strategy of the chunks that follow until the
 * next probe:
 * a loop's timing noise after it is Huffman-coded at once, and both
 * read back.
 */
Test(writer_stream, a_deflated_chunk_does_not_fix_the_next_ones)
{
	enum { NS = 3000, NL = 12000 };
	static struct st_event ev[NS + NL];
	struct st_stream *s;
	int i;

	string_events(ev, NS, 79, 1000);
	jittered_loop(ev + NS, NL, 77, 50, 101, 250, 101);
	for (i = NS; i < NS + NL; i++) {
		ev[i].seq += NS;
		ev[i].t0 += 10000000;
		ev[i].t1 += 10000000;
	}
	cr_assert_eq(st_stream_new(&s, &sink, 0, 1 << 20, 1), 0);
	s->cpu_ns = free_zlib_clock;
	for (i = 0; i < NS + NL; i++) {
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
		if (i == NS - 1)
			cr_assert_eq(st_stream_flush(s), 0);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);
	cr_assert_eq(mb.nwrites, 3, "%zu writes: header and two chunks",
		     mb.nwrites);
	cr_expect_eq(chunk_method(1), ST_CHUNK_DEFLATE);
	cr_expect_eq(chunk_method(2), ST_CHUNK_HUFF);
	expect_file(mb.buf, mb.len, ev, NS + NL);
}

/*
 * A chunk whose records repeat a few different texts, strings that
 * deflate finds, is no longer than full deflating makes it.
 */
Test(writer_stream, chunk_of_strings_is_no_longer_than_full_deflate)
{
	enum { N = 3000 };
	static struct st_event ev[N];
	size_t rawlen, paylen, full;
	uint8_t *raw;

	string_events(ev, N, 78, 1000);
	cr_assert_eq(one_chunk(ev, N, &raw, &rawlen, &paylen),
		     ST_CHUNK_DEFLATE);
	full = full_deflate(raw, rawlen);
	cr_expect_leq(paylen, full, "%zu bytes against deflate's %zu",
		      paylen, full);
	cr_expect_lt(paylen * 4, rawlen, "strings were not matched: %zu of %zu",
		     paylen, rawlen);
	free(raw);
}

/* A zlib that takes 1 ms of CPU for whatever it deflates. */
static uint64_t slow_zlib_clock(void)
{
	static uint64_t t = 1;

	return t += 1000000;
}

/*
 * The methods of the two chunks a stream at 'level' writes for two runs
 * of 3,000 records of strings, one every 'step' ns, with its coders as
 * slow as slow_zlib_clock() makes them, into 'm'; sealed and written as
 * the writer thread does when 'sealed', else flushed.  The records read
 * back.
 */
static void budget_chunks(int level, uint64_t step, int sealed, int *m)
{
	enum { N = 3000 };
	static struct st_event ev[2 * N];
	struct st_stream *s;
	int i;

	free(mb.buf);
	memset(&mb, 0, sizeof(mb));
	sink = membuf_sink(&mb);
	cr_assert_eq(st_trace_write_header(&sink, hdr, 2), 0);
	string_events(ev, 2 * N, 80, step);
	cr_assert_eq(st_stream_new(&s, &sink, 0, 1 << 20, level), 0);
	s->cpu_ns = slow_zlib_clock;
	for (i = 0; i < 2 * N; i++) {
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
		if (i % N < N - 1)
			continue;
		if (sealed) {
			cr_assert_eq(st_stream_seal(s), 1);
			cr_assert_eq(st_stream_write_sealed(s), 1);
		} else {
			cr_assert_eq(st_stream_flush(s), 0);
		}
	}
	st_stream_free(s);
	cr_assert_eq(mb.nwrites, 3, "%zu writes: header and two chunks",
		     mb.nwrites);
	expect_file(mb.buf, mb.len, ev, 2 * N);
	m[0] = chunk_method(1);
	m[1] = chunk_method(2);
	free(mb.buf);
	mb.buf = NULL;		/* for teardown() */
}

/*
 * At level 1 zlib gets 1/50 of the time the records took, and the
 * context coding 1/25.  Strings, which deflate shortens most, that
 * came faster than a coder taking 1 ms a chunk can afford (3,000
 * records in 3 ms) are context coded (its cost is not known yet), then
 * Huffman-coded (it took 1 ms for the first chunk); deflated when they
 * came slowly (in 3,000 s); on both the writer thread's path and the
 * flush's.  Other levels ask for the shortest chunks: deflated however
 * fast the records came.
 */
Test(writer_stream, coders_keep_to_their_share_of_the_records_time)
{
	int m[2], sealed;

	for (sealed = 0; sealed < 2; sealed++) {
		budget_chunks(1, 1000, sealed, m);
		cr_expect_eq(m[0], ST_CHUNK_HUFF_CTX, "sealed %d", sealed);
		cr_expect_eq(m[1], ST_CHUNK_HUFF, "sealed %d", sealed);
		budget_chunks(1, 1000000000, sealed, m);
		cr_expect_eq(m[0], ST_CHUNK_DEFLATE, "sealed %d", sealed);
		cr_expect_eq(m[1], ST_CHUNK_DEFLATE, "sealed %d", sealed);
	}
	budget_chunks(6, 1000, 1, m);
	cr_expect_eq(m[0], ST_CHUNK_DEFLATE);
	cr_expect_eq(m[1], ST_CHUNK_DEFLATE);
}
