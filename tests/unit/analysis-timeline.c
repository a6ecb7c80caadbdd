/*
 * tests/unit/analysis-timeline.c: a rank's global clock from its sync
 * records.  On hand-made blobs with a known offset and drift, global
 * times are exact, interpolated between epochs, and the error comes from
 * the epoch with the nearest anchor (0 on rank 0); records of another
 * rank, out of order or not valid are refused.  On blobs from the real
 * HCA over the simulated network (clocks up to 1 s apart, drifting tens
 * of ppm), global times match rank 0's clock at the same true instant
 * within the sync's accuracy.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"
#include "sync/transport.h"
#include "tests/unit/fake-transport.h"
#include "tools/analysis/timeline.h"
#include "tools-sync-test.h"

/* A parsed record of the blob of 'b'. */
static void parse_spec(const struct blob_spec *b, struct st_sync_record *rec)
{
	unsigned char buf[BLOB_MAX];
	size_t len = blob_make(b, buf);

	cr_assert_eq(st_sync_record_parse(rec, buf, len), 0,
		     "the hand-made blob follows sync/sync.h");
}

static void add_spec(struct st_gclock *c, const struct blob_spec *b, int want)
{
	struct st_sync_record rec;

	parse_spec(b, &rec);
	cr_expect_eq(st_gclock_add(c, &rec), want, "epoch %u", b->epoch);
	st_sync_record_release(&rec);
}

Test(tools_timeline, no_epoch_means_no_global_time)
{
	struct st_gclock *c;

	cr_assert_eq(st_gclock_new(&c, 1), 0);
	cr_expect_eq(st_gclock_epochs(c), 0);
	cr_expect_eq(st_gclock_method(c), -1);
	cr_expect(isnan(st_gclock_global(c, 12345)));
	cr_expect(isnan(st_gclock_err(c, 12345)));
	st_gclock_free(c);
	st_gclock_free(NULL);
}

Test(tools_timeline, global_time_is_exact_and_interpolated)
{
	const uint64_t o = 5000000000ull, root = 7000000000ull;
	struct st_gclock *c;
	struct blob_spec b;

	cr_assert_eq(st_gclock_new(&c, 1), 0);
	/* Epoch 0 at t=1e9: offset 1e-6 t = 1000 ns; epoch 1 at 3e9: 3000. */
	b = blob_spec(1, 2, 0, o, root, 1e-6, 0.0);
	b.anchor_ns = 1e9;
	add_spec(c, &b, 0);
	b = blob_spec(1, 2, 1, o, root, 0.0, 3000.0);
	b.anchor_ns = 3e9;
	b.method = ST_SYNC_HCA2;
	add_spec(c, &b, 0);
	cr_expect_eq(st_gclock_epochs(c), 2);
	cr_expect_eq(st_gclock_method(c), ST_SYNC_HCA2);
	/* Before the first anchor the first model: g = t - 1e-6 t. */
	cr_expect_float_eq(st_gclock_global(c, o + 500000000), 5e8 - 500.0,
			   1e-6);
	/* Between anchors the offset goes linearly from 1000 to 3000. */
	cr_expect_float_eq(st_gclock_global(c, o + 2000000000), 2e9 - 2000.0,
			   1e-6);
	cr_expect_float_eq(st_gclock_global(c, o + 1500000000),
			   1.5e9 - 1500.0, 1e-6);
	/* After the last, the last model. */
	cr_expect_float_eq(st_gclock_global(c, o + 9000000000ull),
			   9e9 - 3000.0, 1e-6);
	st_gclock_free(c);
}

/*
 * The tools compute global time themselves; it must be sync/'s to the
 * bit (the outputs of report and table are compared byte for byte):
 * five epochs of varied drift and offset, times before, between, on and
 * after the anchors.
 */
Test(tools_timeline, global_time_is_sync_timelines_to_the_bit)
{
	const uint64_t o = 3000000000ull, root = 1000000000ull;
	static const double slope[] = { 1.3e-5, -7.1e-6, 2.2e-5, 0, -3e-7 };
	static const double icpt[] = { 123.456, -98765.4321, 1e6 / 3, 0.5,
				       -1e-3 };
	struct st_sync_timeline *tl;
	struct st_sync_record rec;
	struct st_gclock *c;
	struct blob_spec b;
	uint64_t t, x = 88172645463325252ull;
	uint32_t e;
	int i, same = 0;

	cr_assert_eq(st_gclock_new(&c, 1), 0);
	cr_assert_eq(st_sync_timeline_new(&tl), 0);
	for (e = 0; e < 5; e++) {
		b = blob_spec(1, 2, e, o, root, slope[e], icpt[e]);
		b.anchor_ns = 1e9 * e + 333333.3 * e * e;
		parse_spec(&b, &rec);
		cr_assert_eq(st_gclock_add(c, &rec), 0);
		cr_assert_eq(st_sync_timeline_add(tl, &rec), 0);
		st_sync_record_release(&rec);
	}
	for (i = 0; i < 200000; i++) {
		double g, want;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i < 10)	/* on the anchors, and 1 ns past */
			t = o + (uint64_t)(1e9 * (i / 2) +
					   333333.3 * (i / 2) * (i / 2)) +
			    (uint64_t)(i % 2);
		else		/* 1 s before the first to 1 s after */
			t = o - 1000000000ull + x % 7000000000ull;
		g = st_gclock_global(c, t);
		want = st_sync_timeline_global(tl, t);
		same += !memcmp(&g, &want, sizeof(g));
	}
	cr_expect_eq(same, 200000, "%d of 200000 times differ",
		     200000 - same);
	st_sync_timeline_free(tl);
	st_gclock_free(c);
}

Test(tools_timeline, error_comes_from_the_nearest_epoch)
{
	const uint64_t o = 1000;
	struct st_gclock *c, *c0;
	struct blob_spec b;

	cr_assert_eq(st_gclock_new(&c, 2), 0);
	b = blob_spec(2, 3, 0, o, 0, 0.0, 0.0);
	b.anchor_ns = 0;
	b.err_ns = 40;
	b.slope_err = 1e-6;	/* 1 ns per ms away from the anchor */
	add_spec(c, &b, 0);
	b = blob_spec(2, 3, 1, o, 0, 0.0, 0.0);
	b.anchor_ns = 1e9;
	b.err_ns = 20;
	b.slope_err = NAN;	/* unknown: err_ns alone */
	add_spec(c, &b, 0);
	b = blob_spec(2, 3, 2, o, 0, 0.0, 0.0);
	b.anchor_ns = 2e9;
	b.err_ns = 10;
	b.slope_err = 2e-6;
	add_spec(c, &b, 0);
	cr_expect_float_eq(st_gclock_err(c, o), 40.0, 1e-9);
	cr_expect_float_eq(st_gclock_err(c, o + 100000000), 140.0, 1e-9);
	/* 0.6 s is nearer the anchor at 1 s, whose slope error is unknown. */
	cr_expect_float_eq(st_gclock_err(c, o + 600000000), 20.0, 1e-9);
	cr_expect_float_eq(st_gclock_err(c, o + 1400000000), 20.0, 1e-9);
	cr_expect_float_eq(st_gclock_err(c, o + 1600000000), 810.0, 1e-6);
	/* Past the last anchor: the last epoch. */
	cr_expect_float_eq(st_gclock_err(c, o + 3000000000ull), 2010.0,
			   1e-6);

	/* Rank 0 is the reference: no error, whatever its record says. */
	cr_assert_eq(st_gclock_new(&c0, 0), 0);
	b = blob_spec(0, 3, 0, o, o, 0.0, 0.0);
	b.err_ns = 5;
	add_spec(c0, &b, 0);
	cr_expect_eq(st_gclock_err(c0, o + 12345), 0.0);
	cr_expect_float_eq(st_gclock_global(c0, o + 12345), 12345.0, 1e-9);
	st_gclock_free(c0);
	st_gclock_free(c);
}

Test(tools_timeline, foreign_or_disordered_records_are_refused)
{
	struct st_gclock *c, *any;
	struct blob_spec b;
	struct st_event ev;
	struct st_sync_record rec;
	unsigned char buf[BLOB_MAX];

	cr_assert_eq(st_gclock_new(&c, 1), 0);
	b = blob_spec(2, 3, 0, 100, 0, 0.0, 0.0);
	add_spec(c, &b, -EINVAL);		/* another rank */
	b = blob_spec(1, 3, 1, 100, 0, 0.0, 0.0);
	add_spec(c, &b, 0);
	b = blob_spec(1, 3, 1, 100, 0, 0.0, 0.0);
	add_spec(c, &b, -EINVAL);		/* the same epoch again */
	b = blob_spec(1, 3, 2, 101, 0, 0.0, 0.0);
	add_spec(c, &b, -EINVAL);		/* another origin */
	b = blob_spec(1, 3, 2, 100, 0, NAN, 0.0);
	add_spec(c, &b, -EINVAL);		/* no model */
	cr_expect_eq(st_gclock_epochs(c), 1);

	/* Through an event: a blob that is no sync record is -EBADMSG. */
	st_event_clear(&ev);
	ev.kind = ST_REC_SYNC;
	ev.text = "offset=12";
	ev.text_len = 9;
	cr_expect_eq(st_gclock_add_event(c, &ev, &rec), -EBADMSG);
	cr_expect_null(rec.root);
	b = blob_spec(1, 3, 2, 100, 0, 0.0, 0.0);
	ev.text = (const char *)buf;
	ev.text_len = (uint32_t)blob_make(&b, buf);
	cr_expect_eq(st_gclock_add_event(c, &ev, &rec), 0);
	cr_expect_eq(rec.epoch, 2u);
	cr_expect_eq(rec.n_root, 8u);
	st_sync_record_release(&rec);
	cr_expect_eq(st_gclock_epochs(c), 2);

	/* A clock for "any rank" takes the first record's. */
	cr_assert_eq(st_gclock_new(&any, -1), 0);
	b = blob_spec(2, 3, 0, 100, 0, 0.0, 0.0);
	add_spec(any, &b, 0);
	b = blob_spec(1, 3, 1, 100, 0, 0.0, 0.0);
	add_spec(any, &b, -EINVAL);
	st_gclock_free(any);
	st_gclock_free(c);
}

Test(tools_timeline, brief_summary_has_no_commas)
{
	struct st_sync_record rec;
	struct blob_spec b = blob_spec(3, 4, 7, 0, 0, 0.0, 0.0);
	char buf[96];

	b.err_ns = 35.4;
	parse_spec(&b, &rec);
	cr_expect_str_eq(st_sync_rec_brief(&rec, buf, sizeof(buf)),
			 "hca epoch 7 err 35ns");
	st_sync_record_release(&rec);
	b = blob_spec(0, 4, 0, 0, 0, 0.0, 0.0);
	b.method = ST_SYNC_JK;
	b.err_ns = 12;
	parse_spec(&b, &rec);
	cr_expect_str_eq(st_sync_rec_brief(&rec, buf, sizeof(buf)),
			 "jk epoch 0 err 0ns", "rank 0 is the reference");
	st_sync_record_release(&rec);
}

Test(tools_timeline, load_reads_a_files_sync_records)
{
	char dir[256], path[300];
	struct st_gclock_problems p;
	struct fake_rank fr;
	struct st_gclock *c;
	struct blob_spec b;
	struct st_event ev;

	scratch_dir(dir, sizeof(dir));
	fake_rank_open(&fr, dir, 1, "nodeB", "0");
	b = blob_spec(1, 2, 0, 1000, 0, 0.0, -500.0);
	fake_sync_rec(&fr, &b, 1000, 2000);
	fake_call(&ev, ST_FN_MPI_BARRIER, 5000, 6000, 0);
	fake_append(&fr, &ev);
	st_event_clear(&ev);
	ev.kind = ST_REC_SYNC;
	ev.t0 = 7000;
	ev.text = "junk";
	ev.text_len = 4;
	fake_append(&fr, &ev);
	b = blob_spec(1, 2, 1, 1000, 0, 0.0, -700.0);
	b.anchor_ns = 1e6;
	fake_sync_rec(&fr, &b, 1001000, 1002000);
	fake_rank_close(&fr);
	snprintf(path, sizeof(path), "%s/rank-1.st", dir);

	cr_assert_eq(st_gclock_new(&c, 1), 0);
	cr_expect_eq(st_gclock_load(c, path, &p), 0);
	cr_expect_eq(st_gclock_epochs(c), 2);
	cr_expect_eq(p.nbad, 1);
	cr_expect(strstr(p.first, "t0=7000 is not a valid sync record"), "%s",
		  p.first);
	/* Offsets -500 at t=0 and -700 at t=1e6: halfway -600. */
	cr_expect_float_eq(st_gclock_global(c, 1000 + 500000), 500600.0,
			   1e-6);
	st_gclock_free(c);
	cr_assert_eq(st_gclock_new(&c, 1), 0);
	snprintf(path, sizeof(path), "%s/nope.st", dir);
	cr_expect_eq(st_gclock_load(c, path, NULL), -ENOENT);
	st_gclock_free(c);
	remove_tree(dir);
}

/* The real thing: HCA over the simulated network, one blob per epoch. */
#define N 3
#define EPOCHS 3

struct job {
	struct st_sync *s[N];
	unsigned char *b[EPOCHS][N];
	size_t len[EPOCHS][N];
};

static int encode(struct st_sync *s, unsigned char **out, size_t *len)
{
	int rc;

	*len = 0;
	if ((rc = st_sync_encode(s, 0, NULL, len)) != -ENOSPC)
		return rc ? rc : -EPROTO;
	if (!(*out = malloc(*len)))
		return -ENOMEM;
	return st_sync_encode(s, 0, *out, len);
}

static int sync_rank(const struct st_transport *tp, void *arg)
{
	struct job *j = arg;
	int k, rc, r = tp->rank;

	if ((rc = st_sync_init(&j->s[r], tp, NULL)) ||
	    (rc = encode(j->s[r], &j->b[0][r], &j->len[0][r])))
		return rc;
	for (k = 1; k < EPOCHS; k++) {
		fake_net_idle(tp, 5e9);
		if ((rc = st_sync_refresh(j->s[r], tp)) ||
		    (rc = encode(j->s[r], &j->b[k][r], &j->len[k][r])))
			return rc;
	}
	return 0;
}

Test(tools_timeline, real_sync_gives_rank_0s_clock)
{
	static const double offset[N] = { 0, 1e9, -3e8 };
	static const double drift[N] = { 0, 40, -25 };
	struct fake_net_params p;
	struct st_gclock *c[N];
	struct fake_net *net;
	struct job j;
	double T, end, origin0, worst = 0, worst_err = 0;
	int k, r;

	fake_net_params_init(&p);
	p.nranks = N;
	p.seed = 3;
	p.offset_ns = offset;
	p.drift_ppm = drift;
	cr_assert(net = fake_net_new(&p));
	memset(&j, 0, sizeof(j));
	cr_assert_eq(fake_net_run(net, sync_rank, &j, NULL), 0);
	for (r = 0; r < N; r++) {
		struct st_event ev;

		cr_assert_eq(st_gclock_new(&c[r], r), 0);
		st_event_clear(&ev);
		ev.kind = ST_REC_SYNC;
		for (k = 0; k < EPOCHS; k++) {
			ev.text = (const char *)j.b[k][r];
			ev.text_len = (uint32_t)j.len[k][r];
			cr_assert_eq(st_gclock_add_event(c[r], &ev, NULL), 0);
		}
	}
	origin0 = (double)st_sync_origin(j.s[0]);
	end = fake_net_true_max(net);
	for (T = 1e12 + 1e8; T <= end; T += 0.29e9) {
		double truth = fake_net_clock(net, 0, T) - origin0;

		for (r = 0; r < N; r++) {
			uint64_t raw = (uint64_t)fake_net_clock(net, r, T);
			double g = st_gclock_global(c[r], raw);
			double e = st_gclock_err(c[r], raw);

			worst = fmax(worst, fabs(g - truth));
			cr_expect(isfinite(e) && e >= 0, "rank %d err %g", r,
				  e);
			/* The errors are bounds: they hold everywhere. */
			cr_expect_leq(fabs(g - truth), e + 1.0,
				      "rank %d at %.0f: off by %.1f, err %.1f",
				      r, T, g - truth, e);
			worst_err = fmax(worst_err, e);
			if (!r)
				cr_expect_eq(e, 0.0);
		}
	}
	cr_log_info("global time over %.0f s: max error %.1f ns, largest "
		    "estimate %.1f ns", (end - 1e12) / 1e9, worst, worst_err);
	/*
	 * Clocks 1 s apart and drifting 65 ppm apart end up within 100 ns.
	 * The bound is far wider: 2.5 s from the nearest anchor, the init's
	 * 20 ms fit allows some 75 ppm (a round trip over 20 ms).
	 */
	cr_expect_leq(worst, 100.0);
	cr_expect_leq(worst_err, 1e6);
	for (r = 0; r < N; r++) {
		st_gclock_free(c[r]);
		for (k = 0; k < EPOCHS; k++)
			free(j.b[k][r]);
	}
	fake_sync_free(j.s, N);
	fake_net_free(net);
}
