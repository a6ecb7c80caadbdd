/*
 * tests/unit/tools-sync-test.h: sync records for the tools' tests.  A
 * blob is built byte by byte from the format in sync/sync.h, with a
 * model chosen by the test, so the global time of every local time is
 * known exactly; fake_sync_rec() appends it as an ST_REC_SYNC record.
 * synced_run() writes a 2-rank run whose clocks are 1 s apart and whose
 * collectives have known arrivals and exits in global time;
 * synced_run_scaled() the same with the collectives' times scaled.
 */
#ifndef ST_TESTS_TOOLS_SYNC_TEST_H
#define ST_TESTS_TOOLS_SYNC_TEST_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "sync/sync.h"
#include "tools-test.h"

/* What one epoch's blob says. */
struct blob_spec {
	int method, rank, size, leader, parent;
	unsigned flags;
	uint32_t epoch;
	uint64_t origin_ns, root_origin_ns, duration_ns;
	double slope, intercept, anchor_ns, err_ns, slope_err, span_ns, rtt_ns;
	uint32_t n_root;	/* root samples (zeros but for t_ns) */
};

static inline unsigned char *blob_put(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

static inline unsigned char *blob_putd(unsigned char *p, double d)
{
	uint64_t w;

	memcpy(&w, &d, sizeof(w));
	return blob_put(p, w, 8);
}

#define BLOB_MAX (ST_SYNC_RECORD_HEADER + 16 * ST_SYNC_SAMPLE_BYTES + 4)

/* Write the blob of 'b' into 'buf' (BLOB_MAX bytes); returns its size. */
static inline size_t blob_make(const struct blob_spec *b, unsigned char *buf)
{
	unsigned char *p = buf;
	uint32_t i;

	cr_assert_leq(b->n_root, 16);
	memcpy(p, "STSY", 4);
	p = blob_put(p + 4, ST_SYNC_RECORD_VERSION, 2);
	p = blob_put(p, (uint64_t)b->method, 1);
	p = blob_put(p, b->flags, 1);
	p = blob_put(p, (uint32_t)b->rank, 4);
	p = blob_put(p, (uint32_t)b->size, 4);
	p = blob_put(p, (uint32_t)b->leader, 4);
	p = blob_put(p, (uint32_t)b->parent, 4);
	p = blob_put(p, b->epoch, 4);
	p = blob_put(p, 0, 4);			/* n_edge */
	p = blob_put(p, b->n_root, 4);
	p = blob_put(p, 0, 4);			/* first_edge */
	p = blob_put(p, b->epoch * b->n_root, 4);
	p = blob_put(p, 0, 4);
	p = blob_put(p, b->origin_ns, 8);
	p = blob_put(p, b->root_origin_ns, 8);
	p = blob_put(p, b->duration_ns, 8);
	p = blob_putd(p, b->slope);
	p = blob_putd(p, b->intercept);
	p = blob_putd(p, b->anchor_ns);
	p = blob_putd(p, b->err_ns);
	p = blob_putd(p, b->slope_err);
	p = blob_putd(p, b->span_ns);
	p = blob_putd(p, b->rtt_ns);
	for (i = 0; i < b->n_root; i++) {
		p = blob_putd(p, b->anchor_ns + i);
		p = blob_putd(p, 0.0);
		p = blob_putd(p, b->rtt_ns);
		p = blob_put(p, b->epoch, 4);
	}
	p = blob_put(p, (uint32_t)crc32(0, buf, (uInt)(p - buf)), 4);
	return (size_t)(p - buf);
}

/* A spec for 'rank' of 'size' ranks with the model (slope, intercept). */
static inline struct blob_spec blob_spec(int rank, int size, uint32_t epoch,
					 uint64_t origin, uint64_t root_origin,
					 double slope, double intercept)
{
	struct blob_spec b;

	memset(&b, 0, sizeof(b));
	b.method = ST_SYNC_HCA;
	b.rank = rank;
	b.size = size;
	b.leader = rank;
	b.parent = rank ? 0 : -1;
	b.epoch = epoch;
	b.origin_ns = origin;
	b.root_origin_ns = root_origin;
	b.duration_ns = 25000000;
	b.slope = slope;
	b.intercept = intercept;
	b.err_ns = rank ? 30.0 : 0.0;
	b.slope_err = 0.0;
	b.span_ns = 20e6;
	b.rtt_ns = rank ? 1000.0 : 0.0;
	b.n_root = 8;
	return b;
}

/* Append the sync record of 'b', taking local time 't0'..'t1'. */
static inline void fake_sync_rec(struct fake_rank *fr,
				 const struct blob_spec *b, uint64_t t0,
				 uint64_t t1)
{
	static unsigned char buf[BLOB_MAX];
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_SYNC;
	ev.t0 = t0;
	ev.t1 = t1;
	ev.text = (const char *)buf;
	ev.text_len = (uint32_t)blob_make(b, buf);
	fake_append(fr, &ev);
}

/*
 * The synced run.  Rank 0's origin is ORIGIN0 and its clock is the
 * reference; rank 1's clock reads 1 s more than rank 0's at every
 * instant, and its origin is ORIGIN1 (500 ns after rank 0's origin, on
 * rank 1's clock), so global time g is rank 0's local time g + ORIGIN0
 * and rank 1's g + ORIGIN0 + 1 s: model slope 0, intercept -500 ns, with
 * an estimated error of 30 ns (rank 0: 0).
 */
#define SYNC_ORIGIN0 100000000ULL
#define SYNC_AHEAD1 1000000000ULL
#define SYNC_ORIGIN1 (SYNC_ORIGIN0 + SYNC_AHEAD1 + 500)

static inline uint64_t sync_local(int rank, double g)
{
	return (uint64_t)((int64_t)g + (int64_t)SYNC_ORIGIN0 +
			  (rank ? (int64_t)SYNC_AHEAD1 : 0));
}

/* One collective CALL record at global times g0..g1 of 'rank'. */
static inline void synced_coll(struct fake_rank *fr, int rank, unsigned fn,
			       uint64_t comm, uint64_t seq, uint32_t site,
			       double g0, double g1)
{
	struct st_event ev;

	fake_call(&ev, fn, sync_local(rank, g0), sync_local(rank, g1), site);
	ev.comm = comm;
	ev.comm_size = 2;
	ev.seq = seq;
	if (fn == ST_FN_MPI_BCAST)
		ev.root = 0;
	fake_append(fr, &ev);
}

/*
 * Open rank 'r''s file of a synced run in 'dir' and write its start:
 * the object 'obj', MPI_Init from -1 ms to 26 ms and the sync of epoch
 * 0 from 0 to 25 ms (global time).  MPI_COMM_WORLD's record comes next.
 */
static inline void synced_rank_open(struct fake_rank *fr, const char *dir,
				    int r, const struct fake_obj *obj)
{
	uint64_t origin = r ? SYNC_ORIGIN1 : SYNC_ORIGIN0;
	struct blob_spec b;
	struct st_event ev;
	char t_init[32];

	snprintf(t_init, sizeof(t_init), "%llu",
		 (unsigned long long)sync_local(r, 26e6));
	fake_rank_open(fr, dir, r, r ? "nodeB" : "nodeA", t_init);
	fake_object(&ev, obj->base, obj->len, obj->path);
	fake_append(fr, &ev);
	fake_call(&ev, ST_FN_MPI_INIT, sync_local(r, -1e6),
		  sync_local(r, 26e6), 0);
	fake_append(fr, &ev);
	b = blob_spec(r, 2, 0, origin, SYNC_ORIGIN0, 0.0, r ? -500.0 : 0.0);
	fake_sync_rec(fr, &b, origin, origin + 25000000);
}

/*
 * Sites: 1 (Allreduce) and 2 (Barrier, Bcast), one frame each at
 * 'frame1' and 'frame2' of the object 'obj'.  Global times of instance
 * k (seq k, from k * 100 ms on), in ns after its start:
 *
 *  seq fn         rank 0 in..out   rank 1 in..out
 *   1  Allreduce     0..6000       5000..6200   (rank 1 arrives 5 us late)
 *   2  Allreduce  3000..4000          0..4000   (rank 0 arrives 3 us late)
 *   3  Allreduce     0..1000         10..1000   (10 ns apart: flagged)
 *   4  Barrier       0..2500       2000..2500
 *   5  Bcast         0..100        1000..1300   (the root leaves early)
 *
 * and on an inter-communicator (0x5, remote size 1) one MPI_Bcast per
 * rank.  MPI_Init runs from -1 ms to 26 ms, with the sync of epoch 0
 * from 0 to 25 ms; the sync of epoch 1 (same model) at 700 ms, before
 * MPI_Finalize's exit.
 */
static inline void synced_run_scaled(const char *dir,
				     const struct fake_obj *obj,
				     uint64_t frame1, uint64_t frame2,
				     double scale)
{
	static const double g[5][2][2] = {
		{ { 0, 6000 }, { 5000, 6200 } },
		{ { 3000, 4000 }, { 0, 4000 } },
		{ { 0, 1000 }, { 10, 1000 } },
		{ { 0, 2500 }, { 2000, 2500 } },
		{ { 0, 100 }, { 1000, 1300 } },
	};
	static const unsigned fn[5] = {
		ST_FN_MPI_ALLREDUCE, ST_FN_MPI_ALLREDUCE, ST_FN_MPI_ALLREDUCE,
		ST_FN_MPI_BARRIER, ST_FN_MPI_BCAST
	};
	struct fake_rank fr;
	struct st_event ev;
	int r, i;

	fake_index(dir, 2, 1);
	for (r = 0; r < 2; r++) {
		uint64_t origin = r ? SYNC_ORIGIN1 : SYNC_ORIGIN0;
		double icpt = r ? -500.0 : 0.0;
		struct blob_spec b;

		synced_rank_open(&fr, dir, r, obj);
		fake_world(&fr, &ev, r, 2, sync_local(r, 26e6));
		ev.comm = 5;
		ev.comm_size = 1;
		ev.rank = 0;
		ev.remote_size = 1;
		fake_append(&fr, &ev);

		st_event_clear(&ev);
		ev.kind = ST_REC_SITE;
		ev.site = 1;
		ev.nframes = 1;
		ev.frames[0] = frame1;
		fake_append(&fr, &ev);
		ev.site = 2;
		ev.frames[0] = frame2;
		fake_append(&fr, &ev);

		for (i = 0; i < 5; i++)
			synced_coll(&fr, r, fn[i], 1, (uint64_t)i + 1,
				    i < 3 ? 1 : 2,
				    (i + 1) * 1e8 + scale * g[i][r][0],
				    (i + 1) * 1e8 + scale * g[i][r][1]);
		fake_call(&ev, ST_FN_MPI_BCAST, sync_local(r, 6e8),
			  sync_local(r, 6e8 + 100), 2);
		ev.comm = 5;
		ev.comm_size = 1;
		ev.seq = 1;
		ev.root = r ? 0 : ST_RANK_ROOT;
		fake_append(&fr, &ev);

		b = blob_spec(r, 2, 1, origin, SYNC_ORIGIN0, 0.0, icpt);
		b.anchor_ns = 7e8;
		fake_sync_rec(&fr, &b, sync_local(r, 7e8),
			      sync_local(r, 7e8 + 1e6));
		fake_call(&ev, ST_FN_MPI_FINALIZE, sync_local(r, 6.99e8),
			  sync_local(r, 7.02e8), 0);
		fake_append(&fr, &ev);
		fake_rank_close(&fr);
	}
}

/* synced_run_scaled() with the collectives' times as above. */
static inline void synced_run(const char *dir, const struct fake_obj *obj,
			      uint64_t frame1, uint64_t frame2)
{
	synced_run_scaled(dir, obj, frame1, frame2, 1.0);
}

/* Records synced_run() writes per rank. */
#define SYNCED_RECORDS_PER_RANK 15

#endif
