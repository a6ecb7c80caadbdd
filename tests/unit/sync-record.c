/*
 * tests/unit/sync-record.c: sync records and the offline timeline.  Every
 * epoch's blob round-trips bit for bit, its CRC is zlib's, truncated and
 * bit-flipped blobs give -EBADMSG, and a timeline built from a rank's
 * records gives global time piecewise between refreshes: exactly the
 * interpolation on hand-made records, and within tens of ns of the truth
 * over 30 s of a simulated run whose init-time slope alone is far off.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sync/sync.h"
#include "sync/transport.h"
#include "tests/unit/fake-transport.h"

#define N 4
#define EPOCHS 4

/* Each rank's blob of each epoch, encoded as the run goes. */
struct blobs {
	struct st_sync **s;
	unsigned char *b[EPOCHS][N];
	size_t len[EPOCHS][N];
	unsigned char *all[N];
	size_t all_len[N];
	double idle_ns;
};

static int encode(struct st_sync *s, unsigned flags, unsigned char **out,
		  size_t *len)
{
	int rc;

	*len = 0;
	if ((rc = st_sync_encode(s, flags, NULL, len)) != -ENOSPC)
		return rc ? rc : -EPROTO;
	if (!(*out = malloc(*len)))
		return -ENOMEM;
	return st_sync_encode(s, flags, *out, len);
}

static int blob_rank(const struct st_transport *tp, void *arg)
{
	struct blobs *bl = arg;
	struct st_sync **s = &bl->s[tp->rank];
	int k, rc, r = tp->rank;

	if ((rc = st_sync_init(s, tp, NULL)) ||
	    (rc = encode(*s, 0, &bl->b[0][r], &bl->len[0][r])))
		return rc;
	for (k = 1; k < EPOCHS; k++) {
		fake_net_idle(tp, bl->idle_ns);
		if ((rc = st_sync_refresh(*s, tp)) ||
		    (rc = encode(*s, 0, &bl->b[k][r], &bl->len[k][r])))
			return rc;
	}
	return encode(*s, ST_SYNC_REC_ALL, &bl->all[r], &bl->all_len[r]);
}

static struct fake_net *net;
static struct st_sync *states[N];
static struct blobs bl;

static void run_job(void)
{
	struct fake_net_params p;

	fake_net_params_init(&p);
	p.nranks = N;
	p.seed = 9;
	cr_assert(net = fake_net_new(&p));
	memset(&bl, 0, sizeof(bl));
	bl.s = states;
	bl.idle_ns = 10e9;
	cr_assert_eq(fake_net_run(net, blob_rank, &bl, NULL), 0);
}

static void free_job(void)
{
	int k, r;

	for (r = 0; r < N; r++) {
		for (k = 0; k < EPOCHS; k++)
			free(bl.b[k][r]);
		free(bl.all[r]);
	}
	fake_sync_free(states, N);
	fake_net_free(net);
}

TestSuite(sync_record, .init = run_job, .fini = free_job);

static void expect_same_double(double a, double b)
{
	cr_expect_eq(memcmp(&a, &b, sizeof(a)), 0, "%a != %a", a, b);
}

static void expect_same_sample(const struct st_sync_sample *a,
			       const struct st_sync_sample *b)
{
	expect_same_double(a->t_ns, b->t_ns);
	expect_same_double(a->offset_ns, b->offset_ns);
	expect_same_double(a->rtt_ns, b->rtt_ns);
	cr_expect_eq(a->epoch, b->epoch);
}

Test(sync_record, every_epoch_round_trips)
{
	struct st_sync_params d;
	int k, r;

	st_sync_params_init(&d);
	for (r = 0; r < N; r++) {
		struct st_sync_estimate e;
		struct st_sync_record rec;

		st_sync_result(states[r], &e);
		for (k = 0; k < EPOCHS; k++) {
			size_t edges = r ? (k ? d.refresh_points :
					    d.fit_points) : 0;

			cr_assert_eq(st_sync_record_parse(&rec, bl.b[k][r],
							  bl.len[k][r]), 0);
			cr_expect_eq(rec.method, ST_SYNC_HCA);
			cr_expect_eq(rec.rank, r);
			cr_expect_eq(rec.size, N);
			cr_expect_eq(rec.leader, r);
			cr_expect_eq(rec.parent, r ? (r == 3 ? 2 : 0) : -1);
			cr_expect_eq(rec.epoch, (uint32_t)k);
			cr_expect_eq(rec.flags, 0u);
			cr_expect_eq(rec.origin_ns, st_sync_origin(states[r]));
			cr_expect_eq(rec.root_origin_ns,
				     st_sync_origin(states[0]));
			cr_expect_eq(rec.n_edge, edges);
			cr_expect_eq(rec.n_root, r ? 1u : 0u);
			cr_expect_eq(rec.first_edge,
				     r && k ? d.fit_points +
				     (k - 1) * d.refresh_points : 0);
			cr_expect_eq(rec.first_root, r ? (uint32_t)k : 0u);
			if (rec.n_edge)
				cr_expect_eq(rec.edge[0].epoch, (uint32_t)k);
			cr_expect_eq(bl.len[k][r], ST_SYNC_RECORD_HEADER + 4 +
				     ST_SYNC_SAMPLE_BYTES *
				     (rec.n_edge + rec.n_root));
			if (k == EPOCHS - 1) {
				expect_same_double(rec.est.model.slope,
						   e.model.slope);
				expect_same_double(rec.est.model.intercept,
						   e.model.intercept);
				expect_same_double(rec.est.anchor_ns,
						   e.anchor_ns);
				expect_same_double(rec.est.err_ns, e.err_ns);
				expect_same_double(rec.est.slope_err,
						   e.slope_err);
				expect_same_double(rec.est.span_ns, e.span_ns);
				expect_same_double(rec.est.rtt_ns, e.rtt_ns);
				cr_expect_eq(rec.est.duration_ns,
					     e.duration_ns);
				cr_expect_eq(rec.est.epoch, e.epoch);
			}
			st_sync_record_release(&rec);
			cr_expect_null(rec.edge);
		}
	}
}

Test(sync_record, all_samples_are_the_epochs_concatenated)
{
	struct st_sync_record all, one;
	size_t i, e = 0, o = 0;
	int k, r;

	for (r = 0; r < N; r++) {
		cr_assert_eq(st_sync_record_parse(&all, bl.all[r],
						  bl.all_len[r]), 0);
		cr_expect_eq(all.flags, ST_SYNC_REC_ALL);
		e = o = 0;
		for (k = 0; k < EPOCHS; k++) {
			cr_assert_eq(st_sync_record_parse(&one, bl.b[k][r],
							  bl.len[k][r]), 0);
			cr_assert_leq(e + one.n_edge, all.n_edge);
			cr_assert_leq(o + one.n_root, all.n_root);
			for (i = 0; i < one.n_edge; i++, e++)
				expect_same_sample(&one.edge[i], &all.edge[e]);
			for (i = 0; i < one.n_root; i++, o++)
				expect_same_sample(&one.root[i], &all.root[o]);
			st_sync_record_release(&one);
		}
		cr_expect_eq(e, all.n_edge);
		cr_expect_eq(o, all.n_root);
		st_sync_record_release(&all);
	}
}

Test(sync_record, crc_is_zlibs_and_size_query_works)
{
	const unsigned char *b = bl.b[1][3];
	size_t len = bl.len[1][3], small;
	unsigned char buf[64];
	uint32_t crc;

	crc = (uint32_t)b[len - 4] | (uint32_t)b[len - 3] << 8 |
	      (uint32_t)b[len - 2] << 16 | (uint32_t)b[len - 1] << 24;
	cr_expect_eq(crc, (uint32_t)crc32(0, b, (uInt)(len - 4)));
	cr_expect_eq(memcmp(b, "STSY\1\0", 6), 0);

	small = sizeof(buf);
	memset(buf, 0xee, sizeof(buf));
	cr_expect_eq(st_sync_encode(states[3], 0, buf, &small), -ENOSPC);
	cr_expect_eq(small, len);
	cr_expect_eq(buf[0], 0xee, "nothing written");
	cr_expect_eq(st_sync_encode(states[3], 0x80, buf, &small), -EINVAL);
}

Test(sync_record, truncated_or_flipped_blobs_are_refused)
{
	const unsigned char *b = bl.b[0][1];
	size_t len = bl.len[0][1], i;
	struct st_sync_record rec;
	unsigned char *c;
	int bit;

	cr_assert(c = malloc(len));
	for (i = 0; i < len; i++) {
		memcpy(c, b, i);
		cr_expect_eq(st_sync_record_parse(&rec, c, i), -EBADMSG,
			     "length %zu", i);
		cr_expect_null(rec.edge);
	}
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit++) {
			memcpy(c, b, len);
			c[i] ^= (unsigned char)(1u << bit);
			cr_expect_eq(st_sync_record_parse(&rec, c, len),
				     -EBADMSG, "byte %zu bit %d", i, bit);
		}
	/* A future version, even with a good CRC, is refused. */
	memcpy(c, b, len);
	c[4] = 2;
	{
		uint32_t crc = (uint32_t)crc32(0, c, (uInt)(len - 4));

		for (bit = 0; bit < 4; bit++)
			c[len - 4 + bit] = (unsigned char)(crc >> (8 * bit));
	}
	cr_expect_eq(st_sync_record_parse(&rec, c, len), -EBADMSG);
	cr_expect_eq(st_sync_record_parse(&rec, NULL, 0), -EBADMSG);
	free(c);
}

/* A one-epoch record with 'model' anchored at 'anchor_ns'. */
static void fake_record(struct st_sync_record *rec, uint32_t epoch,
			double slope, double intercept, double anchor_ns)
{
	memset(rec, 0, sizeof(*rec));
	rec->rank = 1;
	rec->size = 2;
	rec->leader = 1;
	rec->epoch = epoch;
	rec->origin_ns = 5000000000ull;
	rec->root_origin_ns = 7000000000ull;
	rec->est.model.slope = slope;
	rec->est.model.intercept = intercept;
	rec->est.anchor_ns = anchor_ns;
}

Test(sync_record, timeline_interpolates_between_knots)
{
	struct st_sync_timeline *tl;
	struct st_sync_record a, b, c;
	uint64_t o = 5000000000ull;
	double g;

	cr_assert_eq(st_sync_timeline_new(&tl), 0);
	cr_expect_eq(st_sync_timeline_global(tl, 1234), 1234.0);
	/* Knot 0: offset 1000 at t=1e9 (slope 1e-6); knot 1: 3000 at 3e9. */
	fake_record(&a, 0, 1e-6, 0.0, 1e9);
	fake_record(&b, 1, 0.0, 3000.0, 3e9);
	cr_assert_eq(st_sync_timeline_add(tl, &a), 0);
	cr_assert_eq(st_sync_timeline_add(tl, &b), 0);
	cr_expect_eq(st_sync_timeline_root_origin(tl), 7000000000ull);
	/* Before the first knot: the first model. */
	g = st_sync_timeline_global(tl, o + 500000000);
	cr_expect_leq(fabs(g - (5e8 - 500.0)), 1e-6);
	/* Halfway: offset halfway, 2000. */
	g = st_sync_timeline_global(tl, o + 2000000000);
	cr_expect_leq(fabs(g - (2e9 - 2000.0)), 1e-6);
	g = st_sync_timeline_global(tl, o + 1500000000);
	cr_expect_leq(fabs(g - (1.5e9 - 1500.0)), 1e-6);
	/* After the last: the last model. */
	g = st_sync_timeline_global(tl, o + 9000000000ull);
	cr_expect_leq(fabs(g - (9e9 - 3000.0)), 1e-6);

	/* Out of order, another rank or origin: refused. */
	fake_record(&c, 1, 0, 0, 4e9);
	cr_expect_eq(st_sync_timeline_add(tl, &c), -EINVAL);
	fake_record(&c, 2, 0, 0, 4e9);
	c.rank = 0;
	cr_expect_eq(st_sync_timeline_add(tl, &c), -EINVAL);
	fake_record(&c, 2, 0, 0, 4e9);
	c.origin_ns++;
	cr_expect_eq(st_sync_timeline_add(tl, &c), -EINVAL);
	fake_record(&c, 2, 0, 0, 2e9);
	cr_expect_eq(st_sync_timeline_add(tl, &c), -EINVAL);
	fake_record(&c, 2, 0, 0, 4e9);
	cr_expect_eq(st_sync_timeline_add(tl, &c), 0);
	st_sync_timeline_free(tl);
}

Test(sync_record, timeline_follows_the_run_between_refreshes)
{
	double start, end, T, worst = 0, worst_init = 0;
	int k, r;

	start = 1e12 + 0.1e9;	/* after init */
	end = fake_net_true_max(net);
	for (r = 0; r < N; r++) {
		struct st_sync_timeline *tl;
		struct st_sync_record rec;
		struct st_sync_record first;

		cr_assert_eq(st_sync_timeline_new(&tl), 0);
		for (k = 0; k < EPOCHS; k++) {
			cr_assert_eq(st_sync_record_parse(&rec, bl.b[k][r],
							  bl.len[k][r]), 0);
			cr_assert_eq(st_sync_timeline_add(tl, &rec), 0);
			if (k == 0)
				first = rec;
			else
				st_sync_record_release(&rec);
		}
		cr_expect_eq(st_sync_timeline_root_origin(tl),
			     st_sync_origin(states[0]));
		for (T = start; T <= end; T += 0.37e9) {
			double raw = fake_net_clock(net, r, T);
			double truth = fake_net_clock(net, 0, T) -
				       (double)st_sync_origin(states[0]);
			double g = st_sync_timeline_global(tl,
							   (uint64_t)raw);
			double t = raw - (double)first.origin_ns;

			worst = fmax(worst, fabs(g - truth));
			worst_init = fmax(worst_init, fabs(
				st_clock_model_apply(first.est.model, t) -
				truth));
		}
		st_sync_record_release(&first);
		st_sync_timeline_free(tl);
	}
	cr_log_info("timeline over %.0f s: max error %.1f ns (init model "
		    "alone: %.1f ns)", (end - start) / 1e9, worst, worst_init);
	/* Raw clocks are whole ns: 1 ns of rounding on each side. */
	cr_expect_leq(worst, 100.0);
	cr_expect_geq(worst_init, 10 * worst);
}
