/*
 * tests/unit/writer-encode.c: the record encoding.  Every kind
 * round-trips with edge values in every field; a repeated call costs the
 * tag and its two timestamps, and the interposer's shortcuts for it
 * (st_enc_repeat, st_enc_run_next) write the same bytes or decline; call
 * sites, the order of calls, size classes and a completion call's shared
 * timestamps are predicted, and save the bytes they should, as do the
 * requests of a halo-exchange loop, nonblocking or persistent, whose
 * token shortcut (st_enc_token) writes the same bytes; a record
 * that does not fit changes nothing; and garbage never makes the decoder
 * read out of bounds.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "writer/encode.h"
#include "writer/event.h"
#include "writer/format.h"
#include "writer/varint.h"
#include "writer-test.h"

#define BUF (1 << 20)

static struct st_codec enc, dec;

static uint8_t *new_buf(void)
{
	uint8_t *b = malloc(BUF + ST_REC_MAX_FIXED);

	cr_assert(b);
	return b;
}

/*
 * The bytes of a loop run's head that the record just coded at 'q'..'p'
 * by 'c' begins with: 1 (a run's tag) or 2 (tag and count) when it
 * starts a run, else 0.
 */
static long run_head(const struct st_codec *c, const uint8_t *q,
		     const uint8_t *p)
{
	return c->loop_n && c->loop_n >= q && c->loop_n < p ?
	       c->loop_n - q + 1 : 0;
}

/*
 * Decode 'n' records from 'buf'..'end' by the rules of 'version' (11 or
 * 10, whose start records share no timestamps) and compare with 'want';
 * with 'ends', record i must end at ends[i].
 */
static void expect_decodes_as(const uint8_t *buf, const uint8_t *end,
			      const struct st_event *want, int n,
			      int version, uint8_t *const *ends)
{
	struct st_event got;
	const uint8_t *p = buf;
	int i;

	st_codec_init(&dec);
	dec.starts = version >= 11;
	for (i = 0; i < n; i++) {
		cr_assert_eq(st_dec_record(&dec, &p, end, &got), 0,
			     "record %d does not decode", i);
		got.thread = want[i].thread;
		expect_event_eq(&got, &want[i], i);
		if (ends)
			cr_assert_eq(p, ends[i], "record %d's end", i);
	}
	cr_expect_eq(p, end, "bytes left after the last record");
}

/* Decode 'n' records from 'buf'..'end' and compare with 'want'. */
static void expect_decodes(const uint8_t *buf, const uint8_t *end,
			   const struct st_event *want, int n)
{
	expect_decodes_as(buf, end, want, n, ST_FORMAT_VERSION, NULL);
}

Test(writer_encode, roundtrip_every_kind_with_edge_values)
{
	enum { N = 4000 };
	static struct st_event evs[N];
	static char text[N][64];
	uint8_t *buf = new_buf(), *p = buf;
	uint64_t seed = 1;
	int i;

	st_codec_init(&enc);
	for (i = 0; i < N; i++) {
		make_event(&evs[i], ST_REC_CALL + i % ST_REC_MAX, &seed,
			   text[i], sizeof(text[i]));
		evs[i].thread = 0;
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &evs[i], 0), 0,
			     "record %d does not encode", i);
	}
	expect_decodes(buf, p, evs, N);
	free(buf);
}

Test(writer_encode, roundtrip_across_context_collisions)
{
	/* 3000 (kind, fn) pairs share 512 slots; each repeats. */
	enum { N = 9000 };
	static struct st_event evs[N];
	uint8_t *buf = new_buf(), *p = buf;
	uint64_t seed = 7;
	int i;

	st_codec_init(&enc);
	for (i = 0; i < N; i++) {
		make_allreduce(&evs[i]);
		evs[i].kind = (uint8_t)(ST_REC_CALL + i % 3);
		evs[i].fn = (uint16_t)(rng_next(&seed) % 1000);
		evs[i].seq = (uint64_t)i / 3 + 1;
		evs[i].req = rng_next(&seed) % 4;
		evs[i].t0 = 1000 * (uint64_t)i;
		evs[i].t1 = evs[i].t0 + 300;
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &evs[i], 0), 0);
	}
	expect_decodes(buf, p, evs, N);
	free(buf);
}

/* One record of a halo-exchange loop; 't' is the clock. */
static void halo_record(struct st_event *ev, unsigned kind, uint16_t fn,
			int32_t peer, uint64_t req, uint64_t *t,
			uint64_t *seed)
{
	make_allreduce(ev);
	ev->kind = (uint8_t)kind;
	ev->fn = fn;
	ev->op = 0;
	ev->peer = peer;
	ev->tag = peer >= 0 ? 7 : 0;
	ev->req = req;
	ev->sbytes = ev->rbytes = peer >= 0 ? 4096 : 0;
	ev->t0 = *t + 80 + rng_next(seed) % 40;
	ev->t1 = ev->t0 + 200 + rng_next(seed) % 90;
	*t = ev->t1;
}

Test(writer_encode, roundtrip_halo_exchange_loop)
{
	/*
	 * Irecv, Irecv, Isend, Isend, Waitall (4 done and the call),
	 * Allreduce, Barrier, Allreduce: slow and fast records mixed.
	 */
	enum { N = 12 * 500 };
	static struct st_event evs[N];
	uint8_t *buf = new_buf(), *p = buf;
	uint64_t seed = 5, t = 1ull << 40, req = 1;
	int n = 0, it, i;

	for (it = 0; it < 500; it++) {
		uint64_t r0 = req;

		halo_record(&evs[n++], ST_REC_CALL, 50, 1, req++, &t, &seed);
		halo_record(&evs[n++], ST_REC_CALL, 50, 3, req++, &t, &seed);
		halo_record(&evs[n++], ST_REC_CALL, 51, 1, req++, &t, &seed);
		halo_record(&evs[n++], ST_REC_CALL, 51, 3, req++, &t, &seed);
		for (i = 0; i < 4; i++)
			halo_record(&evs[n++], ST_REC_DONE, 60, i % 2 ? 3 : 1,
				    r0 + (uint64_t)i, &t, &seed);
		halo_record(&evs[n++], ST_REC_CALL, 60, ST_RANK_NONE, 0, &t,
			    &seed);
		make_allreduce(&evs[n]);
		evs[n].seq = (uint64_t)it + 1;
		evs[n].t0 = t + 90;
		evs[n].t1 = t = evs[n].t0 + 310;
		n++;
		halo_record(&evs[n++], ST_REC_CALL, 2, ST_RANK_NONE, 0, &t,
			    &seed);
		/* Back to the function before the last. */
		make_allreduce(&evs[n]);
		evs[n].seq = (uint64_t)it + 1001;
		evs[n].t0 = t + 95;
		evs[n].t1 = t = evs[n].t0 + 290;
		n++;
	}
	cr_assert_eq(n, N);
	st_codec_init(&enc);
	for (i = 0; i < N; i++)
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &evs[i], 0), 0);
	expect_decodes(buf, p, evs, N);
	free(buf);
}

/*
 * Record 'i' of iteration 'it' of a halo-exchange loop: Irecv (req
 * 2it+1), Isend (2it+2), Waitall: done of each, its call record; or
 * with 'persistent', START of requests 1 and 2 (instance it+1), done
 * of each, the Waitall.  Timestamps as predicted from the second
 * iteration on.  A start record carries the timestamps of the record
 * before it, as after its MPI_Startall's call record (left out here:
 * the Waitall's before the first, the first's before the second).
 */
static void loop_record(struct st_event *ev, int it, int i, int persistent)
{
	static const int kind[2][5] = {
		{ ST_REC_CALL, ST_REC_CALL, ST_REC_DONE, ST_REC_DONE,
		  ST_REC_CALL },
		{ ST_REC_START, ST_REC_START, ST_REC_DONE, ST_REC_DONE,
		  ST_REC_CALL },
	};
	int recv = i == 0 || i == 2;

	st_event_clear(ev);
	ev->kind = (uint8_t)kind[persistent][i];
	ev->fn = (uint16_t)(i < 2 ? (recv ? 40 : 41) : 60);
	ev->site = i < 2 ? (uint32_t)(recv ? 5 : 6) : 7;
	ev->t0 = 1000 * (uint64_t)(it * 5 + (i < 2 ? i : 2)) + 1;
	ev->t1 = ev->t0 + (i < 2 ? 100 : 500);
	if (persistent && i < 2) {
		ev->t0 = it ? 1000 * (uint64_t)(it * 5 - 3) + 1 : 1;
		ev->t1 = ev->t0 + (it ? 500 : 100);
	}
	if (i == 4)
		return;
	ev->comm = 1;
	ev->comm_size = 2;
	ev->peer = 1;
	ev->tag = 7;
	ev->tsize = 8;
	ev->sbytes = recv ? 0 : 8;
	ev->rbytes = recv && (i == 2 || persistent) ? 8 : 0;
	ev->req = persistent ? (uint64_t)(recv ? 1 : 2)
			     : 2 * (uint64_t)it + (recv ? 1 : 2);
	ev->inst = persistent ? (uint32_t)it + 1 : 0;
}

/*
 * The key st_enc_token() takes from the previous record's context
 * (nkey) is that context's: when its slot is claimed by another
 * context, a done record's ordinal after it differs.  Here a call
 * record's slot is taken by the first done record of a Waitall, whose
 * second done record has ordinal 1, not the 0 the call record's
 * context saw.
 */
Test(writer_encode, token_key_forgotten_when_slot_claimed)
{
	struct st_event ev[3];
	uint8_t *buf = new_buf(), *p = buf;
	uint64_t kb = st_ctx_key(ST_REC_DONE, 60, 7);
	uint32_t site;
	int i;

	st_codec_init(&enc);
	for (site = 1; st_ctx_slot(&enc, st_ctx_key(ST_REC_CALL, 40, site)) !=
		       st_ctx_slot(&enc, kb); site++)
		;
	loop_record(&ev[0], 0, 0, 0);
	ev[0].site = site;
	loop_record(&ev[1], 0, 2, 0);
	ev[2] = ev[1];
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[0], 0), 0);
	for (i = 1; i < 3; i++) {
		/* Declined: the slot holds no token for the record's key. */
		cr_expect_eq(st_enc_token(&enc, &p, buf + BUF, ev[i].kind,
					  ev[i].fn, ev[i].site, 5, ev[i].seq,
					  ev[i].req, ev[i].inst, ev[i].t0,
					  ev[i].t1), 1, "done record %d", i);
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[i], 5), 0);
	}
	expect_decodes(buf, p, ev, 3);
	free(buf);
}

Test(writer_encode, halo_loop_costs_tag_and_timestamps)
{
	struct st_event ev[3 * 5];
	uint8_t *buf = new_buf(), *p = buf, *q;
	int persistent, it, i;

	for (persistent = 0; persistent < 2; persistent++) {
		p = buf;
		st_codec_init(&enc);
		for (it = 0; it < 3; it++) {
			for (i = 0; i < 5; i++) {
				loop_record(&ev[it * 5 + i], it, i,
					    persistent);
				q = p;
				cr_assert_eq(st_enc_record(&enc, &p, buf + BUF,
							   &ev[it * 5 + i], 0),
					     0);
				/*
				 * Every field as predicted, the record the
				 * one before predicts: a loop run's member,
				 * two timestamp residuals of a byte each
				 * (and where a run of 7 is full, the next
				 * run's tag and count).
				 */
				if (it == 2)
					cr_expect_eq(p - q,
						     2 + run_head(&enc, q, p),
						     "persistent %d, record "
						     "%d: %d bytes",
						     persistent, i,
						     (int)(p - q));
			}
		}
		expect_decodes(buf, p, ev, 3 * 5);
	}
	free(buf);
}

Test(writer_encode, token_writes_what_the_full_encoder_writes)
{
	struct st_event ev[4 * 5];
	uint8_t *a = new_buf(), *b = new_buf(), *pa = a, *pb = b;
	static struct st_codec ca, cb;
	int persistent, it, i, n, r;

	for (persistent = 0; persistent < 2; persistent++) {
		pa = a;
		pb = b;
		n = 0;
		st_codec_init(&ca);
		st_codec_init(&cb);
		for (it = 0; it < 4; it++) {
			for (i = 0; i < 5; i++, n++) {
				const struct st_event *e = &ev[n];
				uint32_t tok = 100 + (uint32_t)i;

				loop_record(&ev[n], it, i, persistent);
				cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, e,
							   tok), 0);
				r = st_enc_token(&cb, &pb, b + BUF, e->kind,
						 e->fn, e->site, tok, e->seq,
						 e->req, e->inst, e->t0, e->t1);
				/* Declines until the context holds it. */
				cr_expect_eq(r, it == 0, "iteration %d, record "
					     "%d: %d", it, i, r);
				if (r)
					cr_assert_eq(st_enc_record(&cb, &pb,
								   b + BUF, e,
								   tok), 0);
				cr_assert_eq(pb - b, pa - a);
				cr_assert_eq(memcmp(a, b, (size_t)(pa - a)), 0,
					     "bytes differ at record %d", n);
			}
		}
		expect_decodes(b, pb, ev, n);
		/* A counter other than predicted: declined. */
		loop_record(&ev[0], it, 0, persistent);
		ev[0].req += 5;
		cr_expect_eq(st_enc_token(&cb, &pb, b + BUF, ev[0].kind,
					  ev[0].fn, ev[0].site, 100, ev[0].seq,
					  ev[0].req, ev[0].inst, ev[0].t0,
					  ev[0].t1), 1);
		/* Another token: declined. */
		ev[0].req -= 5;
		cr_expect_eq(st_enc_token(&cb, &pb, b + BUF, ev[0].kind,
					  ev[0].fn, ev[0].site, 99, ev[0].seq,
					  ev[0].req, ev[0].inst, ev[0].t0,
					  ev[0].t1), 1);
	}
	free(a);
	free(b);
}

/*
 * A token names a record of this chunk only: after a reset (a new
 * chunk) the token path declines, even for the context the record
 * before the reset was coded in and with the counters it predicted
 * then, until the full encoder codes the record again.
 */
Test(writer_encode, token_declines_after_reset)
{
	struct st_event ev[3 * 5];
	uint8_t *a = new_buf(), *b = new_buf(), *pa = a, *pb = b;
	static struct st_codec ca, cb;
	int it, i, n = 0;

	st_codec_init(&ca);
	st_codec_init(&cb);
	for (it = 0; it < 2; it++)
		for (i = 0; i < 5; i++, n++) {
			loop_record(&ev[n], it, i, 0);
			cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev[n],
						   100 + (uint32_t)i), 0);
			cr_assert_eq(st_enc_record(&cb, &pb, b + BUF, &ev[n],
						   100 + (uint32_t)i), 0);
		}
	/* The next iteration's Irecv: taken without a reset... */
	loop_record(&ev[n], it, 0, 0);
	cr_expect_eq(st_enc_token(&ca, &pa, a + BUF, ev[n].kind, ev[n].fn,
				  ev[n].site, 100, ev[n].seq, ev[n].req,
				  ev[n].inst, ev[n].t0, ev[n].t1), 0);
	/* ...declined after one, for every record of the loop. */
	st_codec_reset(&cb);
	pb = b;
	for (i = 0; i < 5; i++) {
		loop_record(&ev[n], it, i, 0);
		cr_expect_eq(st_enc_token(&cb, &pb, b + BUF, ev[n].kind,
					  ev[n].fn, ev[n].site,
					  100 + (uint32_t)i, ev[n].seq,
					  ev[n].req, ev[n].inst, ev[n].t0,
					  ev[n].t1), 1, "record %d", i);
		cr_assert_eq(pb, b);
	}
	free(a);
	free(b);
}

/*
 * A repeat's token names a record of this chunk only: st_codec_reset()
 * clears the contexts' tokens, which is all st_enc_repeat() relies on
 * (its context's epoch is not checked).
 */
Test(writer_encode, repeat_declines_after_reset)
{
	struct st_event ev;
	uint8_t *a = new_buf(), *p = a;
	static struct st_codec c;

	st_codec_init(&c);
	make_allreduce(&ev);
	ev.seq = 10;
	ev.t0 = 1000;
	ev.t1 = 1100;
	cr_assert_eq(st_enc_record(&c, &p, a + BUF, &ev, 7), 0);
	/* Taken in the same chunk, as a run... */
	cr_assert_eq(st_enc_repeat(&c, &p, a + BUF, ev.fn, 7, 11, 1500,
				   1600), 0);
	/*
	 * ...and after another collective on the communicator, through
	 * the token map.
	 */
	ev.fn++;
	ev.seq = 12;
	ev.t0 = 2000;
	ev.t1 = 2100;
	cr_assert_eq(st_enc_record(&c, &p, a + BUF, &ev, 0), 0);
	cr_assert_eq(st_enc_repeat(&c, &p, a + BUF, ev.fn - 1, 7, 13, 2500,
				   2600), 0);
	/*
	 * Declined after a reset, nothing written, though the slot would
	 * predict the sequence number 14.
	 */
	st_codec_reset(&c);
	p = a;
	cr_expect_eq(st_enc_repeat(&c, &p, a + BUF, ev.fn - 1, 7, 14, 3000,
				   3100), 1);
	cr_expect_eq(p, a);
	free(a);
}

Test(writer_encode, repeated_call_costs_tag_and_timestamps)
{
	struct st_event ev[5];
	uint8_t *buf = new_buf(), *p = buf, *q;
	int i;

	st_codec_init(&enc);
	for (i = 0; i < 5; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = (uint64_t)i + 10;
		ev[i].t0 = 1000000 + 400 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 100;
	}
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[0], 0), 0);
	q = p;
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[1], 0), 0);
	/*
	 * Tag, gap 300 against the 1000000 of the first record (three
	 * bytes zigzagged), duration as predicted (one byte).
	 */
	cr_expect_eq(p - q, 5, "repeated record took %d bytes", (int)(p - q));
	cr_expect_eq(q[0], ST_REC_CALL - 1, "tag says something differs");
	q = p;
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[2], 0), 0);
	/* Now gap and duration are both as predicted. */
	cr_expect_eq(p - q, 3);
	cr_expect_eq(q[0], ST_REC_CALL - 1);
	q = p;
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[3], 0), 0);
	/*
	 * The third record in a row that is the one the record before
	 * predicts, every field as predicted: a loop run starts, its tag
	 * for the record's tag.
	 */
	cr_expect_eq(p - q, 3);
	cr_expect_eq(q[0], ST_TAG_LOOP);
	q = p;
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[4], 0), 0);
	/* Which the next joins: its timestamps alone; the tag counts 2. */
	cr_expect_eq(p - q, 2);
	cr_expect_eq(q[-3], ST_TAG_LOOP + ST_TAG_LOOP_STEP);
	expect_decodes(buf, p, ev, 5);
	free(buf);
}

/* Encode 'ev' after 'prev' (same kind, fn and site); return its size. */
static long repeat_cost(const struct st_event *prev, const struct st_event *ev)
{
	uint8_t *buf = new_buf(), *p = buf, *q;
	struct st_event both[2] = { *prev, *ev };

	st_codec_init(&enc);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, prev, 0), 0);
	q = p;
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, ev, 0), 0);
	expect_decodes(buf, p, both, 2);
	free(buf);
	return p - q;
}

Test(writer_encode, arg_and_offset_cost_only_when_they_change)
{
	struct st_event a, b;

	/*
	 * A Put: its displacement changes, its window and target do not.
	 * 'b' comes as long after 'a' as 'a' after the chunk's start, and
	 * takes as long: its timestamps cost a byte each.
	 */
	make_allreduce(&a);
	a.t0 = 1000;
	a.t1 = 1100;
	a.arg = -7;
	a.offset = -3;
	b = a;
	b.t0 = 2100;
	b.t1 = 2200;
	/* Tag and the two timestamps: the new fields as predicted. */
	cr_expect_eq(repeat_cost(&a, &b), 3);
	/* Offset, bit 21: a four-byte mask, a two-byte delta (64). */
	b.offset = 61;
	cr_expect_eq(repeat_cost(&a, &b), 3 + 4 + 2);
	b.offset = INT64_MIN;
	b.arg = INT32_MAX;
	repeat_cost(&a, &b);	/* round-trips at the edges */
	/*
	 * The older families never set them: a new size costs a one-byte
	 * mask and delta, as in format version 4.
	 */
	make_allreduce(&a);
	a.t0 = 1000;
	a.t1 = 1100;
	b = a;
	b.t0 = 2100;
	b.t1 = 2200;
	b.sbytes = b.rbytes = 16;
	cr_expect_eq(repeat_cost(&a, &b), 3 + 1 + 1);
}

Test(writer_encode, predicted_counters_cost_nothing)
{
	struct st_event a, b;

	/* Nonblocking call: the next one has the next request and seq. */
	make_allreduce(&a);
	a.req = 41;
	a.seq = 9;
	a.t0 = 10;
	a.t1 = 20;
	b = a;
	b.req = 42;
	b.seq = 10;
	b.t0 = 30;		/* gap and duration as predicted */
	b.t1 = 40;
	cr_expect_eq(repeat_cost(&a, &b), 3);
	/*
	 * A persistent request started again: same req, next instance,
	 * and its init call's seq.
	 */
	a.kind = b.kind = ST_REC_START;
	a.inst = 1;
	b.inst = 2;
	b.req = a.req;
	b.seq = a.seq;
	cr_expect_eq(repeat_cost(&a, &b), 3);
	/*
	 * Done records follow their completion call's other done records
	 * (halo_loop_costs_tag_and_timestamps).
	 */
	a.inst = b.inst = 0;
	a.seq = b.seq = 0;
	/* A blocking call has no request: 0 stays 0. */
	a.kind = b.kind = ST_REC_CALL;
	a.req = b.req = 0;
	cr_expect_eq(repeat_cost(&a, &b), 3, "%ld", repeat_cost(&a, &b));
	/* Something else differs: mask and delta, one byte each here. */
	b.peer = 5;
	cr_expect_eq(repeat_cost(&a, &b), 5);
}

Test(writer_encode, repeated_record_that_does_not_fit_changes_nothing)
{
	struct st_event ev[3];
	uint8_t *buf = new_buf(), *p = buf;
	int i;

	for (i = 0; i < 3; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = (uint64_t)i + 1;
		ev[i].t0 = 5000 + 1000 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 400;
	}
	st_codec_init(&enc);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[0], 0), 0);
	/* The hot path must refuse too, without moving the counters. */
	cr_expect_eq(st_enc_record(&enc, &p, p + 2, &ev[1], 0), -ENOBUFS);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[1], 0), 0);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[2], 0), 0);
	expect_decodes(buf, p, ev, 3);
	free(buf);
}

Test(writer_encode, untimed_record_takes_no_timestamps)
{
	struct st_event ev[3];
	uint8_t *buf = new_buf(), *p = buf, *q;

	make_allreduce(&ev[0]);
	ev[0].t0 = 5000;
	ev[0].t1 = 5300;
	st_event_clear(&ev[1]);
	ev[1].kind = ST_REC_SITE;
	ev[1].site = 3;
	ev[1].nframes = 1;
	ev[1].frames[0] = 0x401000;
	ev[2] = ev[0];
	ev[2].t0 = 5400;
	ev[2].t1 = 5700;
	st_codec_init(&enc);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[0], 0), 0);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[1], 0), 0);
	q = p;
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[2], 0), 0);
	/*
	 * The gap is still taken from the last timed record: 100 ns,
	 * against 5000 predicted (two bytes); the duration as predicted.
	 * fn and site (the site record's, a delta of 0) are spelled out:
	 * the site record's context predicts itself.
	 */
	cr_expect_eq(q[0] & ST_TAG_FN, ST_TAG_FN);
	cr_expect_eq(p - q, 1 + 1 + 1 + 2 + 1, "took %d bytes",
		     (int)(p - q));
	expect_decodes(buf, p, ev, 3);
	free(buf);
}

Test(writer_encode, chunk_reset_makes_records_self_contained)
{
	struct st_event ev[2];
	uint8_t *buf = new_buf(), *p = buf, *mid;

	make_allreduce(&ev[0]);
	ev[0].t0 = 1000;
	ev[0].t1 = 1300;
	ev[1] = ev[0];
	ev[1].t0 = 1400;
	ev[1].t1 = 1700;
	st_codec_init(&enc);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[0], 0), 0);
	mid = p;
	st_codec_reset(&enc);
	cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[1], 0), 0);
	/* The second record decodes with no knowledge of the first. */
	expect_decodes(mid, p, &ev[1], 1);
	free(buf);
}

Test(writer_encode, record_that_does_not_fit_changes_nothing)
{
	struct st_event big, small[2];
	static char text[3000];
	uint8_t *buf = new_buf(), *p = buf, *limit = buf + 2000;

	make_allreduce(&small[0]);
	small[0].t0 = 100;
	small[0].t1 = 200;
	small[1] = small[0];
	small[1].t0 = 300;
	small[1].t1 = 400;
	st_event_clear(&big);
	big.kind = ST_REC_OBJECT;
	big.fn = 9;
	big.t0 = 150;
	big.t1 = 160;
	big.text = text;
	big.text_len = sizeof(text);
	st_codec_init(&enc);
	cr_assert_eq(st_enc_record(&enc, &p, limit, &small[0], 0), 0);
	cr_expect_eq(st_enc_record(&enc, &p, limit, &big, 0), -ENOBUFS);
	/* Many frames overrun the limit within the slack: also refused. */
	big.text_len = 0;
	big.nframes = ST_MAX_FRAMES;
	memset(big.frames, 0xff, sizeof(big.frames));
	cr_expect_eq(st_enc_record(&enc, &p, buf + 20, &big, 0), -ENOBUFS);
	cr_assert_eq(st_enc_record(&enc, &p, limit, &small[1], 0), 0);
	expect_decodes(buf, p, small, 2);
	free(buf);
}

Test(writer_encode, rejects_records_it_cannot_encode)
{
	struct st_event ev;
	uint8_t *buf = new_buf(), *p = buf;

	st_codec_init(&enc);
	make_allreduce(&ev);
	ev.kind = 0;
	cr_expect_eq(st_enc_record(&enc, &p, buf + BUF, &ev, 0), -EINVAL);
	ev.kind = ST_REC_MAX + 1;
	cr_expect_eq(st_enc_record(&enc, &p, buf + BUF, &ev, 0), -EINVAL);
	ev.kind = ST_REC_SITE;
	ev.nframes = ST_MAX_FRAMES + 1;
	cr_expect_eq(st_enc_record(&enc, &p, buf + BUF, &ev, 0), -EINVAL);
	ev.nframes = 0;
	ev.text_len = 4;
	ev.text = NULL;
	cr_expect_eq(st_enc_record(&enc, &p, buf + BUF, &ev, 0), -EINVAL);
	cr_expect_eq(p, buf);
	free(buf);
}

Test(writer_encode, decoder_survives_garbage)
{
	enum { LEN = 256 };
	struct st_event ev;
	uint64_t seed = 99;
	int round, i, ok = 0, bad = 0;

	for (round = 0; round < 20000; round++) {
		/* Exactly LEN bytes on the heap: ASan sees any overread. */
		uint8_t *g = malloc(LEN);
		const uint8_t *p = g;
		int dense = round % 2;

		for (i = 0; i < LEN; i++)
			g[i] = dense ? (uint8_t)rng_next(&seed)
				     : (uint8_t)(rng_next(&seed) % 3 ?
						 rng_next(&seed) % 8 : 0x80);
		st_codec_init(&dec);
		while (p < g + LEN) {
			const uint8_t *before = p;

			if (st_dec_record(&dec, &p, g + LEN, &ev)) {
				cr_assert_eq(p, before);
				bad++;
				break;
			}
			cr_assert_gt(p, before);
			cr_assert_leq(p, g + LEN);
			cr_assert(ev.kind >= 1 && ev.kind <= ST_REC_MAX);
			cr_assert_leq(ev.nframes, ST_MAX_FRAMES);
			if (ev.text_len)
				cr_assert(ev.text >= (const char *)g &&
					  ev.text + ev.text_len <=
					  (const char *)g + LEN);
			ok++;
		}
		free(g);
	}
	/* Both outcomes happen, so both paths were exercised. */
	cr_expect_gt(ok, 0);
	cr_expect_gt(bad, 0);
}

Test(writer_encode, rejects_out_of_range_field)
{
	/* A delta that takes a 32-bit field past 2^32 - 1 is corrupt. */
	uint8_t buf[32], *w = buf;
	const uint8_t *p = buf;
	struct st_event ev;

	*w++ = (ST_REC_CALL - 1) | ST_TAG_DIFF | ST_TAG_NOTIME;
	w = st_varint_put(w, 1u << 10);			/* tsize */
	w = st_varint_put(w, st_zigzag(1ull << 32));
	st_codec_init(&dec);
	cr_expect_eq(st_dec_record(&dec, &p, w, &ev), -EBADMSG);

	/* The same with a delta in range decodes (in a fresh chunk). */
	st_codec_init(&dec);
	w = buf + 1;
	w = st_varint_put(w, 1u << 10);
	w = st_varint_put(w, st_zigzag(0xffffffffull));
	p = buf;
	cr_assert_eq(st_dec_record(&dec, &p, w, &ev), 0);
	cr_expect_eq(ev.tsize, 0xffffffffu);

	/* So with a site: 2^32 - 1 is one; above it or below 0 is not. */
	w = buf;
	*w++ = (ST_REC_CALL - 1) | ST_TAG_FN | ST_TAG_NOTIME;
	w = st_varint_put(w, 17);
	w = st_varint_put(w, st_zigzag(0xffffffffull));
	p = buf;
	st_codec_init(&dec);
	cr_assert_eq(st_dec_record(&dec, &p, w, &ev), 0);
	cr_expect_eq(ev.site, 0xffffffffu);
	/* Relative to the previous record's site, now 2^32 - 1. */
	p = buf;
	cr_expect_eq(st_dec_record(&dec, &p, w, &ev), -EBADMSG);
	w = buf + 2;
	w = st_varint_put(w, st_zigzag((uint64_t)-1));
	p = buf;
	st_codec_init(&dec);
	cr_expect_eq(st_dec_record(&dec, &p, w, &ev), -EBADMSG);

	/* A mask naming a field that does not exist is corrupt. */
	w = buf + 1;
	w = st_varint_put(w, 1u << ST_NFIELDS);
	w = st_varint_put(w, 0);
	p = buf;
	cr_expect_eq(st_dec_record(&dec, &p, w, &ev), -EBADMSG);
}

/*
 * A repeat (st_enc_repeat) after a full record writes exactly the bytes
 * st_enc_record would; the repeats after it form a run, which decodes to
 * the same records without their tag bytes.  It declines, writing
 * nothing, whenever the context does not hold its token or predicts
 * another sequence number.
 */
Test(writer_encode, repeat_writes_what_the_full_encoder_writes)
{
	enum { N = 6 };
	uint8_t *a = new_buf(), *b = new_buf(), *pa = a, *pb = b, *q, *run;
	struct st_codec ca;
	struct st_event ev[N];
	ptrdiff_t two = 0, three = 0;
	int i;

	st_codec_init(&ca);
	st_codec_init(&enc);
	for (i = 0; i < N; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = 10 + (uint64_t)i;
		ev[i].t0 = 1000 + 700 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 300 + 40 * (uint64_t)i;
	}
	cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev[0], 7), 0);
	cr_assert_eq(st_enc_record(&enc, &pb, b + BUF, &ev[0], 0), 0);
	for (i = 1; i < N; i++) {
		cr_assert_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[i].fn, 7,
					   ev[i].seq, ev[i].t0, ev[i].t1), 0);
		cr_assert_eq(st_enc_record(&enc, &pb, b + BUF, &ev[i], 0), 0);
		if (i == 1) {
			two = pb - b;
			cr_assert_eq(pa - a, two);
			cr_expect_eq(memcmp(a, b, (size_t)two), 0);
		}
		if (i == 2)
			three = pb - b;
	}
	/*
	 * Then a run of N - 2: its tag and count for their N - 2 tags;
	 * the full encoder codes the first of them with its tag and the
	 * rest as a loop run, a tag that counts them: as many bytes.
	 */
	cr_expect_eq(a[two], ST_TAG_RUN);
	cr_expect_eq(a[two + 1], N - 2);
	cr_expect_eq(b[two], ST_REC_CALL - 1);
	cr_expect_eq(b[three], ST_TAG_LOOP + (N - 4) * ST_TAG_LOOP_STEP);
	cr_expect_eq(pa - a, pb - b);
	cr_expect_eq(memcmp(a + two + 2, b + two + 1,
			    (size_t)(three - two - 1)), 0);
	cr_expect_eq(memcmp(a + three + 1, b + three + 1,
			    (size_t)(pa - a - three - 1)), 0);
	expect_decodes(a, pa, ev, N);
	expect_decodes(b, pb, ev, N);

	/* Declines: another token, a sequence number off by one, token 0. */
	q = pa;
	cr_expect_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[0].fn, 8, 16, 9000,
				   9300), 1);
	cr_expect_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[0].fn, 7, 17, 9000,
				   9300), 1);
	cr_expect_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[0].fn, 0, 16, 9000,
				   9300), 1);
	cr_expect_eq(pa, q, "a declined repeat wrote something");

	/* A record of the same fn without the token takes it away. */
	ev[0].seq = 16;
	ev[0].t0 = 9000;
	ev[0].t1 = 9300;
	cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev[0], 0), 0);
	cr_expect_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[0].fn, 7, 17, 9400,
				   9700), 1);

	/* A new chunk predicts nothing. */
	st_codec_reset(&ca);
	cr_expect_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[0].fn, 7, 17, 9400,
				   9700), 1);

	/* No room: -ENOBUFS, nothing written, the context unchanged. */
	st_codec_reset(&ca);
	pa = a;
	cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev[1], 5), 0);
	q = pa;
	cr_expect_eq(st_enc_repeat(&ca, &pa, pa + 1, ev[1].fn, 5, 12, 5000,
				   5300), -ENOBUFS);
	cr_expect_eq(pa, q);
	cr_expect_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[1].fn, 5, 12, 5000,
				   5300), 0);
	/* Nor when a run would start or grow. */
	q = pa;
	cr_expect_eq(st_enc_repeat(&ca, &pa, pa + 2, ev[1].fn, 5, 13, 5400,
				   5700), -ENOBUFS);
	cr_expect_eq(pa, q);
	cr_assert_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[1].fn, 5, 13, 5400,
				   5700), 0);
	cr_expect_eq(q[0], ST_TAG_RUN);
	cr_expect_eq(q[1], 1);
	run = q;
	q = pa;
	cr_expect_eq(st_enc_repeat(&ca, &pa, pa + 1, ev[1].fn, 5, 14, 5800,
				   6100), -ENOBUFS);
	cr_expect_eq(pa, q);
	cr_expect_eq(run[1], 1, "a refused member counted in its run");
	free(a);
	free(b);
}

/*
 * Codecs 'x' and 'y', writing at 'xb' and 'yb', are in the same state:
 * every slot, counter and pointer, the latter relative to their own
 * codec or buffer.
 */
static void expect_same_codec(const struct st_codec *x, const uint8_t *xb,
			      const struct st_codec *y, const uint8_t *yb,
			      int i)
{
	unsigned k;

	cr_assert_eq(memcmp(x->ctx, y->ctx, sizeof(x->ctx)), 0, "%d: ctx", i);
	cr_assert_eq(memcmp(x->cseq, y->cseq, sizeof(x->cseq)), 0,
		     "%d: cseq", i);
	cr_assert_eq(memcmp(x->tcls, y->tcls, sizeof(x->tcls)), 0,
		     "%d: tcls", i);
	cr_assert_eq(memcmp(&x->start, &y->start, sizeof(x->start)), 0,
		     "%d: start", i);
	cr_assert(x->last_t1 == y->last_t1 && x->last_req == y->last_req &&
		  x->epoch == y->epoch && x->last_fn == y->last_fn &&
		  x->run_token == y->run_token && x->done_fn == y->done_fn &&
		  x->done_dur == y->done_dur, "%d: counters", i);
	cr_assert(x->prev == &x->start ? y->prev == &y->start
				       : x->prev - x->ctx == y->prev - y->ctx,
		  "%d: prev", i);
	for (k = 0; k <= ST_TOK_SLOTS; k++)
		cr_assert(!x->tok[k] ? !y->tok[k]
				     : x->tok[k] - x->ctx == y->tok[k] - y->ctx,
			  "%d: tok[%u]", i, k);
	cr_assert_eq(!x->run_n, !y->run_n, "%d: run_n", i);
	cr_assert(!x->run_n || x->run_n - xb == y->run_n - yb, "%d", i);
	cr_assert_eq(!x->run_end, !y->run_end, "%d: run_end", i);
	cr_assert(!x->run_end || x->run_end - xb == y->run_end - yb, "%d", i);
	cr_assert_eq(!x->run_x, !y->run_x, "%d: run_x", i);
	cr_assert(!x->run_x || x->run_x - x->ctx == y->run_x - y->ctx, "%d",
		  i);
	cr_assert_eq(!x->run_q, !y->run_q, "%d: run_q", i);
	cr_assert(!x->run_q || x->run_q - x->cseq == y->run_q - y->cseq, "%d",
		  i);
}

/*
 * st_enc_run_next() does just what st_enc_repeat() does when it takes a
 * repeat, and nothing when it declines.  One codec tries it first, the
 * other never does; through runs that fill up, residuals of two bytes
 * and more, records without timestamps, skipped sequence numbers,
 * another function, tight limits and new chunks, both write the same
 * bytes and keep the same state, and it takes most of the repeats.
 */
Test(writer_encode, run_next_does_what_repeat_does)
{
	enum { N = 30000 };
	uint8_t *a = new_buf(), *b = new_buf(), *pa = a, *pb = b, *q;
	struct st_codec ca, cb, before;
	struct st_event ev;
	uint64_t seed = 11, t = 1000, seq = 0, r;
	int i, ra, rb, taken = 0, declined = 0;
	uint32_t token;
	size_t room;

	st_codec_init(&ca);
	st_codec_init(&cb);
	make_allreduce(&ev);
	for (i = 0; i < N; i++) {
		r = rng_next(&seed) % 1000;
		if (pa - a > BUF - 4096 || r >= 995) {
			st_codec_reset(&ca);
			st_codec_reset(&cb);
			if (pa - a > BUF - 4096)
				pa = a, pb = b;
		}
		room = r < 20 ? r % 6 : BUF / 2;
		seq += 1 + (r >= 980 && r < 985);
		ev.fn = r >= 970 && r < 975 ? 18 : 17;
		token = ev.fn;
		ev.seq = seq;
		ev.t0 = t + 300 + rng_next(&seed) % (r < 60 ? 40000 : 200);
		ev.t1 = ev.t0 + 500 + rng_next(&seed) % 100;
		t = ev.t1;
		if (r >= 960 && r < 962)
			ev.t0 = ev.t1 = 0;

		ra = 1;
		if (st_enc_run_open(&ca, pa, ev.fn, token)) {
			before = ca;
			q = pa;
			ra = st_enc_run_next(&ca, &pa, pa + room, ev.seq,
					     ev.t0, ev.t1);
			if (ra) {
				declined++;
				cr_assert_eq(pa, q, "a declined member moved");
				cr_assert_eq(memcmp(&before, &ca, sizeof(ca)),
					     0, "a declined member changed "
					     "the codec");
			} else {
				taken++;
			}
		}
		if (ra)
			ra = st_enc_repeat(&ca, &pa, pa + room, ev.fn, token,
					   ev.seq, ev.t0, ev.t1);
		rb = st_enc_repeat(&cb, &pb, pb + room, ev.fn, token, ev.seq,
				   ev.t0, ev.t1);
		cr_assert_eq(ra, rb, "record %d: %d, %d", i, ra, rb);
		if (ra) {
			cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev,
						   token), 0);
			cr_assert_eq(st_enc_record(&cb, &pb, b + BUF, &ev,
						   token), 0);
		}
		cr_assert_eq(pa - a, pb - b, "record %d", i);
		expect_same_codec(&ca, a, &cb, b, i);
	}
	cr_expect_eq(memcmp(a, b, (size_t)(pa - a)), 0);
	cr_expect_gt(taken, N / 2, "%d members taken", taken);
	cr_expect_gt(declined, 0);
	free(a);
	free(b);
}

/*
 * A repeat stands for its token's record with the next seq, but 'inst'
 * and 'req' would count on: where the context holds one, it declines,
 * and the full record keeps it.
 */
Test(writer_encode, repeat_declines_a_context_that_counts)
{
	uint8_t *a = new_buf(), *p = a;
	struct st_event ev[4];
	int i;

	st_codec_init(&enc);
	for (i = 0; i < 4; i++) {
		make_allreduce(&ev[i]);
		ev[i].fn = (uint16_t)(17 + i / 2);
		ev[i].seq = 5 + (uint64_t)i;
		ev[i].t0 = 1000 + 1000 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 400;
		if (i < 2)
			ev[i].inst = 3;
		else
			ev[i].req = 9;
	}
	for (i = 0; i < 4; i += 2) {
		cr_assert_eq(st_enc_record(&enc, &p, a + BUF, &ev[i], 9), 0);
		cr_expect_eq(st_enc_repeat(&enc, &p, a + BUF, ev[i + 1].fn, 9,
					   ev[i + 1].seq, ev[i + 1].t0,
					   ev[i + 1].t1), 1,
			     "a repeat of record %d would count", i);
		cr_assert_eq(st_enc_record(&enc, &p, a + BUF, &ev[i + 1], 9),
			     0);
	}
	expect_decodes(a, p, ev, 4);
	free(a);
}

/*
 * A run holds at most ST_RUN_MAX members; a longer loop takes several.
 * A repeat of another function, or one after another record, ends it.
 */
Test(writer_encode, runs_split_and_end)
{
	enum { N = 600 };
	static struct st_event ev[N + 3];
	uint8_t *a = new_buf(), *p = a;
	struct st_codec ca;
	int i;

	st_codec_init(&ca);
	for (i = 0; i < N + 3; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = 1 + (uint64_t)i;
		ev[i].t0 = 1000 + 900 * (uint64_t)i + (uint64_t)(i % 7);
		ev[i].t1 = ev[i].t0 + 500 + (uint64_t)(i % 13);
	}
	/* N repeats, a barrier in between, then two more. */
	ev[N].fn = 18;		/* another function */
	ev[N].sbytes = ev[N].rbytes = 0;
	ev[N].tsize = 0;
	ev[N].op = 0;
	cr_assert_eq(st_enc_record(&ca, &p, a + BUF, &ev[0], 3), 0);
	for (i = 1; i < N; i++)
		cr_assert_eq(st_enc_repeat(&ca, &p, a + BUF, ev[i].fn, 3,
					   ev[i].seq, ev[i].t0, ev[i].t1), 0);
	cr_assert_eq(st_enc_record(&ca, &p, a + BUF, &ev[N], 0), 0);
	for (i = N + 1; i < N + 3; i++)
		cr_assert_eq(st_enc_repeat(&ca, &p, a + BUF, ev[i].fn, 3,
					   ev[i].seq, ev[i].t0, ev[i].t1), 0);
	expect_decodes(a, p, ev, N + 3);
	/*
	 * Members take 2 bytes here: 598 of them in three runs (2 bytes
	 * each), 3 + 1 plain repeats and the full records.
	 */
	cr_expect_lt(p - a, 2 * N + 60, "%d bytes", (int)(p - a));
	free(a);
}

/*
 * The tag a run takes stands for nothing else: a call record without
 * timestamps whose fields are all predicted spells its fn out.  A run
 * whose count says more members than its chunk holds (a fatal signal's
 * flush cuts it) decodes the members there are; a count of 0 is
 * corrupt.
 */
Test(writer_encode, run_tag_is_unambiguous)
{
	uint8_t *a = new_buf(), *p = a, *q;
	const uint8_t *r;
	struct st_event ev[5], got;
	struct st_codec ca;
	int i;

	st_codec_init(&ca);
	for (i = 0; i < 2; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = 0;
		ev[i].t0 = ev[i].t1 = 0;
		cr_assert_eq(st_enc_record(&ca, &p, a + BUF, &ev[i], 0), 0);
	}
	q = a;
	cr_assert_eq(st_dec_record(&ca, (const uint8_t **)&q, p, &got), 0);
	cr_expect_neq(*q, ST_TAG_RUN, "an untimed record looks like a run");
	expect_decodes(a, p, ev, 2);

	st_codec_init(&ca);
	p = a;
	for (i = 0; i < 5; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = 1 + (uint64_t)i;
		ev[i].t0 = 100 + 1000 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 400;
		if (!i)
			cr_assert_eq(st_enc_record(&ca, &p, a + BUF, &ev[0],
						   4), 0);
		else
			cr_assert_eq(st_enc_repeat(&ca, &p, a + BUF,
						   ev[i].fn, 4, ev[i].seq,
						   ev[i].t0, ev[i].t1), 0);
	}
	for (q = a; *q != ST_TAG_RUN; q++)
		;
	cr_assert_eq(q[1], 3);
	q[1] = 9;
	expect_decodes(a, p, ev, 5);
	q[1] = 0;
	st_codec_init(&dec);
	r = a;
	for (i = 0; i < 2; i++)
		cr_assert_eq(st_dec_record(&dec, &r, p, &got), 0);
	cr_expect_eq(st_dec_record(&dec, &r, p, &got), -EBADMSG);
	free(a);
}

/*
 * rbytes is predicted from the record's sbytes through the context's
 * ratio: a collective of a new size costs the sbytes delta only.
 */
Test(writer_encode, rbytes_follows_sbytes_in_proportion)
{
	struct st_event a, b;

	make_allreduce(&a);
	a.t0 = 10;
	a.t1 = 20;
	a.sbytes = a.rbytes = 8;
	b = a;
	b.t0 = 30;
	b.t1 = 40;
	b.sbytes = b.rbytes = 48;
	/* Tag, mask, sbytes delta 40 (one byte), gap, duration. */
	cr_expect_eq(repeat_cost(&a, &b), 5);
	/* An Allgather on 4 ranks: receives 4 times what it sends. */
	a.rbytes = 32;
	b.rbytes = 4 * 48;
	cr_expect_eq(repeat_cost(&a, &b), 5);
	/* A Reduce's non-root receives nothing, whatever it sends. */
	a.rbytes = b.rbytes = 0;
	cr_expect_eq(repeat_cost(&a, &b), 5);
	/* No whole ratio: rbytes predicted unchanged, and coded. */
	a.sbytes = 3;
	a.rbytes = 8;
	b.rbytes = 20;
	cr_expect_eq(repeat_cost(&a, &b), 6);
	/* Sends nothing before: rbytes predicted unchanged. */
	a.sbytes = 0;
	b.rbytes = a.rbytes;
	cr_expect_eq(repeat_cost(&a, &b), 5);
}

/*
 * Sequence numbers count per communicator and requests per rank: calls
 * of different functions taking turns cost no field deltas.
 */
Test(writer_encode, seq_and_req_follow_the_communicator_and_the_rank)
{
	struct st_event ev[8];
	uint8_t *buf = new_buf(), *p = buf, *q;
	int i;

	st_codec_init(&enc);
	for (i = 0; i < 8; i++) {
		make_allreduce(&ev[i]);
		/* Allreduce and Bcast take turns on one communicator... */
		ev[i].fn = i % 2 ? 21 : 17;
		ev[i].seq = (uint64_t)i + 1;
		ev[i].t0 = 10 + 20 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 10;
		if (i >= 4) {
			/* ...then Irecv and Isend, with requests 7, 8... */
			ev[i].fn = i % 2 ? 31 : 30;
			ev[i].seq = 0;
			ev[i].req = (uint64_t)i + 3;
			ev[i].peer = 1;
		}
	}
	for (i = 0; i < 8; i++) {
		q = p;
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[i], 0), 0);
		/*
		 * From the second call of a function on: tag, fn and site
		 * (a delta of 0), times; from the second after another
		 * function on, fn and site are predicted too.
		 */
		if (i == 2 || i == 6)
			cr_expect_eq(p - q, 5, "record %d took %d bytes", i,
				     (int)(p - q));
		if (i == 3 || i == 7)
			cr_expect_eq(p - q, 3, "record %d took %d bytes", i,
				     (int)(p - q));
	}
	expect_decodes(buf, p, ev, 8);
	free(buf);
}

/*
 * One function called from two call sites with different peers (a halo
 * exchange's receives from the left and the right) has a context per
 * site, and a loop's order predicts fn and site: from the second
 * iteration on, each record is its tag and two timestamp bytes.
 */
Test(writer_encode, call_sites_and_their_order_are_predicted)
{
	enum { IT = 50, PER = 6 };
	static struct st_event ev[IT * PER];
	uint8_t *buf = new_buf(), *p = buf, *q;
	const uint8_t *run = NULL;
	uint64_t t = 1000;
	int it, i, n = 0, run_short = 0;

	for (it = 0; it < IT; it++) {
		for (i = 0; i < PER; i++) {
			make_allreduce(&ev[n]);
			ev[n].seq = 0;
			ev[n].op = 0;
			ev[n].fn = (uint16_t)(i < 2 ? 30 : i < 4 ? 31 : 40);
			ev[n].site = (uint32_t)(10 + i);
			ev[n].peer = i % 2 ? 3 : 1;
			ev[n].tag = 5;
			ev[n].t0 = t + 100;
			ev[n].t1 = t = ev[n].t0 + 200;
			n++;
		}
	}
	st_codec_init(&enc);
	for (i = 0; i < n; i++) {
		q = p;
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[i], 0), 0);
		/*
		 * The second round learnt what follows the first's end:
		 * each record is a loop run's member, but where a run
		 * with ST_RUN_MAX members is full and the next starts.
		 */
		if (i >= 2 * PER)
			cr_expect_eq(p - q, 2 + run_head(&enc, q, p),
				     "record %d took %d bytes", i,
				     (int)(p - q));
		/*
		 * A run starts only where the one before is full, 7 in
		 * a tag or ST_RUN_MAX in a count; it counts up to
		 * ST_RUN_MAX.
		 */
		if (i >= 2 * PER && run_head(&enc, q, p)) {
			cr_expect_eq(run_head(&enc, q, p), 2, "record %d", i);
			cr_expect(run && *run == (run_short ? ST_TAG_LOOP_FULL
							    : ST_RUN_MAX),
				  "record %d", i);
		}
		if (run_head(&enc, q, p)) {
			run = enc.loop_n;
			run_short = run_head(&enc, q, p) == 1;
		}
	}
	expect_decodes(buf, p, ev, n);
	free(buf);
}

/*
 * Encode 'n' Allreduce records whose sizes take turns over 'sizes' (of
 * 'nsizes'), each size with its own gap and duration, as collectives of
 * very different sizes have; return the bytes the records after the
 * first two rounds took (the first record's gap is from 0).
 */
static long size_turns(const uint64_t *sizes, int nsizes, int n)
{
	static struct st_event ev[600];
	uint8_t *buf = new_buf(), *p = buf, *mid = buf;
	uint64_t t = 1ull << 40;
	int i;

	cr_assert_leq(n, 600);
	for (i = 0; i < n; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = 1 + (uint64_t)i;
		ev[i].sbytes = ev[i].rbytes = sizes[i % nsizes];
		ev[i].t0 = t + 50 + sizes[i % nsizes] / 16;
		ev[i].t1 = t = ev[i].t0 + 400 + sizes[i % nsizes] * 2;
	}
	st_codec_init(&enc);
	for (i = 0; i < n; i++) {
		if (i == 2 * nsizes)
			mid = p;
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[i], 0), 0);
	}
	expect_decodes(buf, p, ev, n);
	free(buf);
	return p - mid;
}

/*
 * Timings are kept per size class: once a loop has seen each size, a
 * record's gap and duration are predicted exactly however far its size
 * is from the last one's.  Each record costs its tag, mask, sbytes
 * delta and two timestamp bytes; taking the timing of the last record
 * of the context instead would add bytes to nearly every one.
 */
Test(writer_encode, timings_follow_the_size_class)
{
	static const uint64_t two[] = { 8, 65536 };
	static const uint64_t three[] = { 8, 512, 1 << 20 };
	long want = 0;
	int i;

	/* 8 <-> 65536: sbytes deltas of 3 bytes. */
	cr_expect_eq(size_turns(two, 2, 400), 396 * (1 + 1 + 3 + 1 + 1));
	/* Three classes: the other two are in the table. */
	for (i = 6; i < 600; i++)
		want += 1 + 1 + 1 + 1 +
			(long)st_varint_len(st_zigzag(three[i % 3] -
						      three[(i + 2) % 3]));
	cr_expect_eq(size_turns(three, 3, 600), want);
}

/*
 * A completion call's done records and its call record share its t0
 * and t1: after the first, each is predicted to repeat them, so its
 * timestamps cost a zero byte each however the call's duration varies;
 * and the first done record's timing stays that of the first done
 * record before it.
 */
Test(writer_encode, completion_records_share_the_call_timestamps)
{
	enum { IT = 40, PER = 6 };
	static struct st_event ev[IT * PER];
	uint8_t *buf = new_buf(), *p = buf, *q;
	uint64_t seed = 3, t = 5000, req = 1, dur;
	int it, i, n = 0;

	for (it = 0; it < IT; it++) {
		/* An Isend, then its Waitall: 4 done records and the call. */
		make_allreduce(&ev[n]);
		ev[n].fn = 31;
		ev[n].seq = 0;
		ev[n].op = 0;
		ev[n].peer = 1;
		ev[n].req = req;
		ev[n].t0 = t + 100;
		ev[n].t1 = t = ev[n].t0 + 300;
		n++;
		dur = 500 + rng_next(&seed) % 5000;
		for (i = 0; i < 5; i++) {
			st_event_clear(&ev[n]);
			ev[n].kind = i < 4 ? ST_REC_DONE : ST_REC_CALL;
			ev[n].fn = 60;
			ev[n].site = 9;
			ev[n].req = i < 4 ? req + (uint64_t)i : 0;
			ev[n].t0 = t + 80;
			ev[n].t1 = ev[n].t0 + dur;
			n++;
		}
		t = ev[n - 1].t1;
		req += 4;
	}
	st_codec_init(&enc);
	for (i = 0; i < n; i++) {
		q = p;
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[i], 0), 0);
		if (i < PER || i % PER < 2)
			continue;
		/*
		 * Gap and duration as predicted; the Isend's req is not
		 * (requests count by one, the loop makes four): the first
		 * two done records cost their tags, the third starts a
		 * loop run (its tag) and the rest join it.
		 */
		cr_expect_eq(p - q, i % PER <= 3 ? 3 : 2,
			     "record %d took %d bytes", i, (int)(p - q));
		cr_expect_eq(run_head(&enc, q, p), i % PER == 3);
		cr_expect(!p[-2] && !p[-1], "record %d: residuals", i);
	}
	expect_decodes(buf, p, ev, n);
	free(buf);
}

/*
 * Format 11: MPI_Start's or MPI_Startall's call record and then a start
 * record for each request all carry the call's t0 and t1, so each start
 * record is predicted to repeat the timestamps of the record before it:
 * two zero bytes however the call's duration varies (the token path
 * from the second iteration on, the full encoder in the first).  A
 * codec of version 10 (starts == 0) predicts them from their context's
 * timing, as it did, so the varying duration shows in their residuals;
 * and each decodes with its own rules.
 */
Test(writer_encode, start_records_share_their_call_timestamps)
{
	enum { IT = 40, PER = 4 };
	static struct st_event ev[IT * PER];
	static uint8_t *pos[IT * PER + 1];
	uint8_t *buf = new_buf(), *p, *q;
	uint64_t seed = 5, t = 7000, dur;
	int it, i, n = 0, v, r, zero;

	for (it = 0; it < IT; it++) {
		/* MPI_Startall of 2 requests, then their Waitall's done. */
		dur = 200 + rng_next(&seed) % 3000;
		for (i = 0; i < PER; i++) {
			st_event_clear(&ev[n]);
			ev[n].kind = i == 0 ? ST_REC_CALL
				   : i < 3 ? ST_REC_START : ST_REC_DONE;
			ev[n].fn = i == 0 ? 70 : i < 3 ? 71 : 60;
			ev[n].site = i < 3 ? 4 : 8;
			if (i) {
				ev[n].comm = 1;
				ev[n].comm_size = 2;
				ev[n].peer = 1;
				ev[n].tsize = 8;
				ev[n].sbytes = i == 2 ? 8 : 0;
				ev[n].req = i == 3 ? 1 : (uint64_t)i;
				ev[n].inst = (uint32_t)it + 1;
			}
			ev[n].t0 = i < 3 ? t + 50 : t + dur + 140;
			ev[n].t1 = ev[n].t0 + (i < 3 ? dur : 40);
			n++;
		}
		t = ev[n - 1].t1;
	}
	for (v = 11; v >= 10; v--) {
		st_codec_init(&enc);
		enc.starts = v == 11;
		p = buf;
		for (i = 0; i < n; i++) {
			q = pos[i] = p;
			r = st_enc_token(&enc, &p, buf + BUF, ev[i].kind,
					 ev[i].fn, ev[i].site, 10 + (uint32_t)(i % PER),
					 ev[i].seq, ev[i].req, ev[i].inst,
					 ev[i].t0, ev[i].t1);
			if (r)
				cr_assert_eq(st_enc_record(&enc, &p, buf + BUF,
							   &ev[i], 10 +
							   (uint32_t)(i % PER)),
					     0);
			zero = p - q >= 2 && !p[-2] && !p[-1];
			/* A start record, from the second iteration on. */
			if (i >= PER && (i % PER == 1 || i % PER == 2))
				cr_expect_eq(zero, v == 11, "version %d, record "
					     "%d: %d bytes, ending %02x %02x",
					     v, i, (int)(p - q), p[-2], p[-1]);
		}
		pos[n] = p;
		expect_decodes_as(buf, p, ev, n, v, pos + 1);
	}
	free(buf);
}

/*
 * A repeat (a blocking collective's call record, st_enc_repeat()) that
 * is no run's member decodes as a timed call record: a start record
 * right after it is predicted to share its timestamps, on the encoder's
 * side as on the decoder's.  After a run's member (the second repeat on)
 * nothing shares; either way the records decode as coded.
 */
Test(writer_encode, start_record_after_a_repeat_decodes)
{
	enum { MAX = 5 };
	struct st_event ev[MAX];
	uint8_t *buf = new_buf(), *p;
	int nrep, i;

	for (nrep = 1; nrep < MAX - 1; nrep++) {
		st_codec_init(&enc);
		p = buf;
		for (i = 0; i <= nrep; i++) {
			make_allreduce(&ev[i]);
			ev[i].seq = (uint64_t)i + 1;
			ev[i].t0 = 1000 + 2000 * (uint64_t)i;
			ev[i].t1 = ev[i].t0 + 700 + 50 * (uint64_t)i;
			cr_assert_eq(i ? st_enc_repeat(&enc, &p, buf + BUF, 17,
						       17, ev[i].seq, ev[i].t0,
						       ev[i].t1)
				       : st_enc_record(&enc, &p, buf + BUF,
						       &ev[i], 17), 0);
		}
		st_event_clear(&ev[i]);
		ev[i].kind = ST_REC_START;
		ev[i].fn = 71;
		ev[i].site = 4;
		ev[i].comm = 1;
		ev[i].comm_size = 2;
		ev[i].req = 1;
		ev[i].inst = 1;
		ev[i].t0 = ev[i - 1].t0;
		ev[i].t1 = ev[i - 1].t1;
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[i], 0), 0);
		if (nrep == 1)
			cr_expect(!p[-2] && !p[-1], "the start record's "
				  "residuals");
		expect_decodes(buf, p, ev, i + 1);
	}
	free(buf);
}

/*
 * The new predictions at their edges round-trip: sites 0 and 2^32 - 1
 * next to each other, size classes 0 to 64, durations that wrap, done
 * records of one fn with and without timestamps, more contexts and
 * classes than the tables hold.
 */
Test(writer_encode, roundtrip_sites_classes_and_completions_at_edges)
{
	enum { N = 20000 };
	static const uint32_t sites[] = { 0, 1, 0xffffffffu, 0x80000000u, 7 };
	static struct st_event ev[N];
	uint8_t *buf = new_buf(), *p = buf;
	uint64_t seed = 21, r;
	int i;

	for (i = 0; i < N; i++) {
		r = rng_next(&seed);
		make_allreduce(&ev[i]);
		ev[i].kind = (uint8_t)(r % 4 == 0 ? ST_REC_CALL : ST_REC_DONE);
		ev[i].fn = (uint16_t)(60 + (r >> 2) % 3);
		ev[i].site = sites[(r >> 4) % 5];
		ev[i].seq = (uint64_t)i;
		ev[i].req = (r >> 8) % 3 ? (uint64_t)i : 0;
		/* Classes 0..64, and many of them in each context. */
		ev[i].sbytes = (r >> 12) % 8 ? (1ull << ((r >> 16) % 64)) : 0;
		ev[i].rbytes = (r >> 22) % 4 ? ev[i].sbytes
					     : rng_edge(&seed);
		if ((r >> 24) % 16 == 0) {
			ev[i].t0 = ev[i].t1 = 0;
		} else if ((r >> 24) % 16 == 1) {
			ev[i].t0 = rng_edge(&seed);
			ev[i].t1 = rng_edge(&seed);	/* may wrap */
		} else {
			ev[i].t0 = 1000 * (uint64_t)i + (r >> 32) % 500;
			ev[i].t1 = ev[i].t0 + (r >> 40) % 100000;
		}
	}
	st_codec_init(&enc);
	for (i = 0; i < N; i++)
		cr_assert_eq(st_enc_record(&enc, &p, buf + BUF, &ev[i], 0), 0,
			     "record %d", i);
	expect_decodes(buf, p, ev, N);
	free(buf);
}

/*
 * A repeat finds the context that holds its token, wherever it comes
 * in a chunk: not where the previous record predicts, it spells fn and
 * site out, as st_enc_record() would; and when the token map has lost
 * the token to another it takes the predicted context.
 */
Test(writer_encode, repeat_finds_its_context_wherever_it_comes)
{
	uint8_t *a = new_buf(), *b = new_buf(), *pa = a, *pb = b;
	struct st_codec ca;
	struct st_event ev[4];
	int i;

	for (i = 0; i < 4; i++) {
		make_allreduce(&ev[i]);
		ev[i].seq = 10 + (uint64_t)i;
		ev[i].t0 = 1000 + 700 * (uint64_t)i;
		ev[i].t1 = ev[i].t0 + 300;
	}
	/* A barrier from another site between two Allreduce repeats. */
	ev[1].fn = 16;
	ev[1].site = 8;
	ev[1].sbytes = ev[1].rbytes = 0;
	ev[1].tsize = 0;
	ev[1].op = 0;
	st_codec_init(&ca);
	st_codec_init(&enc);
	cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev[0], 7), 0);
	cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev[1], 0), 0);
	cr_assert_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[2].fn, 7, ev[2].seq,
				   ev[2].t0, ev[2].t1), 0);
	for (i = 0; i < 3; i++)
		cr_assert_eq(st_enc_record(&enc, &pb, b + BUF, &ev[i], 0), 0);
	cr_assert_eq(pa - a, pb - b);
	cr_expect_eq(memcmp(a, b, (size_t)(pb - b)), 0);

	/* Token 7 + 64 takes token 7's entry in the map. */
	ev[1].seq = 13;
	cr_assert_eq(st_enc_record(&ca, &pa, a + BUF, &ev[1],
				   7 + ST_TOK_SLOTS), 0);
	cr_assert_eq(st_enc_record(&enc, &pb, b + BUF, &ev[1], 0), 0);
	/* After it, the Allreduce's context is the predicted one. */
	cr_assert_eq(st_enc_repeat(&ca, &pa, a + BUF, ev[3].fn, 7, 14,
				   ev[3].t0 + 700, ev[3].t1 + 700), 0);
	ev[3].seq = 14;
	ev[3].t0 += 700;
	ev[3].t1 += 700;
	cr_assert_eq(st_enc_record(&enc, &pb, b + BUF, &ev[3], 0), 0);
	cr_assert_eq(pa - a, pb - b);
	cr_expect_eq(memcmp(a, b, (size_t)(pb - b)), 0);
	free(a);
	free(b);
}

/*
 * Loop runs (format 9).  The records of a halo-exchange loop, calls,
 * starts, done records and the Waitall's call record in turn, each the
 * one its predecessor predicts with every field as predicted, as the
 * token shortcut codes them (declining until the contexts hold their
 * tokens): from the second iteration on they form loop runs, 7 members
 * in a tag and then up to ST_RUN_MAX behind a tag and count, and decode
 * to the very records, kinds included.
 */
Test(writer_encode, loop_runs_of_mixed_records_decode_as_coded)
{
	enum { IT = 300, N = IT * 5 };
	static struct st_event ev[N];
	static uint8_t *heads[N];	/* a short run's tag, a long one's count */
	static long kinds[N];		/* run_head(): 1 short, 2 long */
	uint8_t *b = new_buf(), *p, *q, *first = NULL;
	int persistent, it, i, n, r, longs, nheads, members;

	for (persistent = 0; persistent < 2; persistent++) {
		p = b;
		n = longs = nheads = 0;
		st_codec_init(&enc);
		for (it = 0; it < IT; it++) {
			for (i = 0; i < 5; i++, n++) {
				const struct st_event *e = &ev[n];

				loop_record(&ev[n], it, i, persistent);
				q = p;
				r = st_enc_token(&enc, &p, b + BUF, e->kind,
						 e->fn, e->site, 100 + (uint32_t)i,
						 e->seq, e->req, e->inst, e->t0,
						 e->t1);
				cr_expect_eq(r, it == 0, "iteration %d, record "
					     "%d: %d", it, i, r);
				if (r)
					cr_assert_eq(st_enc_record(&enc, &p,
								   b + BUF, e,
								   100 +
								   (uint32_t)i),
						     0);
				if (run_head(&enc, q, p) == 2)
					longs++;
				if (run_head(&enc, q, p)) {
					kinds[nheads] = run_head(&enc, q, p);
					heads[nheads++] = enc.loop_n;
				}
				if (run_head(&enc, q, p) && !first)
					first = q;
			}
		}
		expect_decodes(b, p, ev, N);
		/*
		 * Every record from the fourth of the second iteration on
		 * is one (the first iteration's last record does not
		 * predict the Irecv yet; the Isend and the first done
		 * record cost their tags): a run of 7 in its tag, full,
		 * then runs of up to ST_RUN_MAX.
		 */
		/* The members, as the runs' heads count them. */
		for (members = 0, i = 0; i < nheads; i++)
			members += kinds[i] == 2 ? *heads[i] :
				   *heads[i] / ST_TAG_LOOP_STEP + 1;
		cr_expect_eq(members, N - 8, "%d members", members);
		cr_expect_eq(*first, ST_TAG_LOOP_FULL);
		cr_expect_eq(longs, (N - 8 - 7 + ST_RUN_MAX - 1) / ST_RUN_MAX);
		/* Two residual bytes a member, and the runs' heads. */
		cr_expect_leq(p - first, 2 * (N - 8) + 1 + 2 * longs);
		first = NULL;
	}
	free(b);
}

/*
 * Where a record of the loop is not as predicted (a field differs,
 * frames, no timestamps, a call out of the loop's order), it is coded
 * in full and the run ends; the next two records cost their tags and
 * the third starts a run again.  Everything decodes as it was.
 */
Test(writer_encode, loop_run_broken_by_a_record_not_as_predicted)
{
	enum { IT = 60, N = IT * 5 + 1 };
	static struct st_event ev[N];
	static uint8_t *pos[N + 1];
	uint8_t *b = new_buf(), *p = b;
	int it, i, n = 0, brk[4];

	for (it = 0; it < IT; it++) {
		for (i = 0; i < 5; i++, n++) {
			loop_record(&ev[n], it, i, 0);
			/* Timestamps that shift, as a loop's do. */
			ev[n].t0 += 10 * (uint64_t)(it % 3);
			ev[n].t1 += 10 * (uint64_t)(it % 3);
		}
		if (it == 40) {
			/* A barrier out of the loop's order. */
			make_allreduce(&ev[n]);
			ev[n].fn = 18;
			ev[n].t0 = ev[n - 1].t1 + 5;
			ev[n].t1 = ev[n].t0 + 7;
			brk[3] = n++;
		}
	}
	cr_assert_eq(n, N);
	ev[brk[0] = 10 * 5 + 1].tag = 9;	/* the Isend's tag */
	ev[brk[1] = 20 * 5 + 3].nframes = 1;	/* a done record's frames */
	ev[brk[1]].frames[0] = 0x4000;
	brk[2] = 30 * 5 + 4;			/* the Waitall, untimed */
	ev[brk[2]].t0 = ev[brk[2]].t1 = 0;
	st_codec_init(&enc);
	for (i = 0; i < N; i++) {
		pos[i] = p;
		cr_assert_eq(st_enc_record(&enc, &p, b + BUF, &ev[i], 0), 0);
	}
	pos[N] = p;
	expect_decodes(b, p, ev, N);
	for (i = 0; i < 4; i++) {
		n = brk[i];
		/* In full: its own tag, which says so. */
		cr_expect((*pos[n] & ST_TAG_LOOP_MASK) != ST_TAG_LOOP &&
			  (i == 3 ? *pos[n] & ST_TAG_FN :
			   *pos[n] & (ST_TAG_DIFF | ST_TAG_FRAMES |
				      ST_TAG_NOTIME)), "break %d: tag %#x",
			  i, *pos[n]);
		/*
		 * Then two tags, then a run (whose tag now counts its
		 * members), from the record after; after the barrier, the
		 * record after it, which the barrier's context does not
		 * predict, spells its fn out first.
		 */
		if (i == 3)
			cr_expect_eq(*pos[++n] & ~ST_TAG_KIND, ST_TAG_FN,
				     "break %d: %#x", i, *pos[n]);
		cr_expect_eq(*pos[n + 1] & ~ST_TAG_KIND, 0, "break %d: %#x", i,
			     *pos[n + 1]);
		cr_expect_eq(*pos[n + 2] & ~ST_TAG_KIND, 0, "break %d", i);
		cr_expect_eq(*pos[n + 3] & ST_TAG_LOOP_MASK, ST_TAG_LOOP,
			     "break %d: %#x", i, *pos[n + 3]);
		cr_expect_eq(pos[n + 4] - pos[n + 3], 3, "break %d", i);
	}
	free(b);
}

/*
 * A chunk may end anywhere in a loop run (a fatal signal's flush: the
 * run's tag or count already says more members than the chunk holds):
 * every record up to there decodes.  A loop run's tag as a chunk's
 * first record (no record before to predict one) or a count of 0 is
 * corrupt, and an untimed start record, whose tag would be a loop
 * run's, spells its fn out.
 */
Test(writer_encode, loop_run_cut_by_the_chunk_end)
{
	enum { N = 5 * 80 };
	static struct st_event ev[N];
	static uint8_t *pos[N + 1];
	struct st_event got[2];
	uint8_t *b = new_buf(), *p = b, *cnt = NULL;
	const uint8_t *r;
	int i, k;

	for (i = 0; i < N; i++)
		loop_record(&ev[i], i / 5, i % 5, 1);
	st_codec_init(&enc);
	for (i = 0; i < N; i++) {
		pos[i] = p;
		cr_assert_eq(st_enc_record(&enc, &p, b + BUF, &ev[i], 0), 0);
		if (run_head(&enc, pos[i], p) == 2 && !cnt)
			cnt = enc.loop_n;
	}
	pos[N] = p;
	for (k = 1; k <= N; k++) {
		st_codec_init(&dec);
		r = b;
		for (i = 0; i < k; i++) {
			cr_assert_eq(st_dec_record(&dec, &r, pos[k], &got[0]),
				     0, "cut at %d: record %d", k, i);
			got[0].thread = ev[i].thread;
			expect_event_eq(&got[0], &ev[i], i);
		}
		cr_expect_eq(r, pos[k], "cut at %d", k);
	}
	/* A count of 0. */
	cr_assert(cnt);
	*cnt = 0;
	st_codec_init(&dec);
	r = b;
	for (i = 0; r < cnt - 1; i++)
		cr_assert_eq(st_dec_record(&dec, &r, p, &got[0]), 0);
	cr_expect_eq(st_dec_record(&dec, &r, p, &got[0]), -EBADMSG);
	/* First in a chunk. */
	b[0] = ST_TAG_LOOP;
	b[1] = b[2] = 0;
	st_codec_init(&dec);
	r = b;
	cr_expect_eq(st_dec_record(&dec, &r, b + 3, &got[0]), -EBADMSG);
	/* Untimed start records: never a loop run's tag. */
	st_codec_init(&enc);
	p = b;
	for (i = 0; i < 2; i++) {
		loop_record(&ev[i], 0, 0, 1);
		ev[i].t0 = ev[i].t1 = 0;
		pos[i] = p;
		cr_assert_eq(st_enc_record(&enc, &p, b + BUF, &ev[i], 0), 0);
		cr_expect_neq(*pos[i] & ST_TAG_LOOP_MASK, ST_TAG_LOOP);
	}
	expect_decodes(b, p, ev, 2);
	free(b);
}
