/*
 * tests/unit/analysis-tee.c: the tee that decodes every rank once for
 * several readers.  Each reader gets each rank's records exactly as the
 * stream gave them (fields, frames, text), then the stream's end or its
 * error with its message: readers on threads of their own in different
 * orders over the ranks, with a budget so small that they wait for each
 * other; a reader far behind is let go and reads the rank again on its
 * own, past what it read; a closed reader is not waited for.  With a
 * converter ('conv'), the records it takes are read in place in the
 * caller's form, the others (and a let-go reader's) whole.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tools/analysis/tee.h"
#include "writer/event.h"

#define NRANKS 3
#define NREC 5000

/* Rank r's stream: NREC records (rank 2 fails after them). */
struct fake {
	int rank;
	int i;
	char text[32];
};

struct fake_ctx {
	pthread_mutex_t mu;
	int opens;
};

static void expect_rec(int rank, int i, struct st_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = (uint8_t)(i % 7);
	ev->fn = (uint16_t)(i % 300);
	ev->thread = (uint16_t)(i % 3);
	ev->t0 = (uint64_t)rank << 32 | (uint64_t)i;
	ev->t1 = ev->t0 + 5;
	ev->comm = 0x1234567890ull + (uint64_t)i;
	ev->seq = (uint64_t)i * 3;
	ev->parent = 77;
	ev->nframes = (uint32_t)(i % 5 == 0 ? i % (ST_MAX_FRAMES + 1) : 0);
	for (uint32_t k = 0; k < ev->nframes; k++)
		ev->frames[k] = (uint64_t)i * 1000 + k;
	ev->addr = (uint64_t)i + 9;
	ev->len = (uint64_t)rank;
}

static int fake_next(void *h, struct st_event *ev, char *err, size_t errlen)
{
	struct fake *f = h;
	int i = f->i;

	if (i == NREC) {
		if (f->rank == 2) {
			snprintf(err, errlen, "rank 2 is corrupt");
			return -EBADMSG;
		}
		return 0;
	}
	cr_assert(i < NREC, "read past the end");
	expect_rec(f->rank, i, ev);
	if (i % 3 == 0) {
		snprintf(f->text, sizeof(f->text), "text %d of %d", i, f->rank);
		ev->text = f->text;
		ev->text_len = (uint32_t)strlen(f->text);
	}
	f->i++;
	return 1;
}

static void *fake_open(void *ctx, int rank, char *err, size_t errlen)
{
	struct fake_ctx *c = ctx;
	struct fake *f = calloc(1, sizeof(*f));

	(void)err;
	(void)errlen;
	cr_assert(f);
	f->rank = rank;
	pthread_mutex_lock(&c->mu);
	c->opens++;
	pthread_mutex_unlock(&c->mu);
	return f;
}

static void fake_close(void *ctx, void *h)
{
	(void)ctx;
	free(h);
}

/* The caller's form of a record (conv_mode): odd kinds only. */
struct slot {
	uint64_t t0, comm;
	uint16_t fn, kind;
	uint32_t thread;
};

static int conv_mode;

static int fake_conv(void *ctx, void *slot, const struct st_event *ev)
{
	struct slot *x = slot;

	(void)ctx;
	cr_assert_eq((uintptr_t)slot % 8, 0, "slot not aligned");
	if (ev->kind % 2 == 0)
		return 0;
	x->t0 = ev->t0;
	x->comm = ev->comm;
	x->fn = ev->fn;
	x->kind = ev->kind;
	x->thread = ev->thread;
	return 1;
}

/* Reader 'reader''s record 'i' of 'rank' is the stream's. */
static void check_rec(int reader, int rank, int i, const struct st_event *ev)
{
	struct st_event want;
	char text[32];

	expect_rec(rank, i, &want);
	cr_assert_eq(ev->t0, want.t0, "reader %d rank %d record %d: t0",
		     reader, rank, i);
	cr_assert(ev->kind == want.kind && ev->fn == want.fn &&
		  ev->thread == want.thread && ev->t1 == want.t1 &&
		  ev->comm == want.comm && ev->seq == want.seq &&
		  ev->parent == want.parent && ev->addr == want.addr &&
		  ev->len == want.len && ev->nframes == want.nframes,
		  "reader %d rank %d record %d: fields", reader, rank, i);
	cr_assert(!memcmp(ev->frames, want.frames,
			  want.nframes * sizeof(uint64_t)),
		  "reader %d rank %d record %d: frames", reader, rank, i);
	if (i % 3 == 0) {
		snprintf(text, sizeof(text), "text %d of %d", i, rank);
		cr_assert(ev->text && ev->text_len == strlen(text) &&
			  !memcmp(ev->text, text, ev->text_len),
			  "reader %d rank %d record %d: text", reader, rank,
			  i);
	} else {
		cr_assert(!ev->text && !ev->text_len);
	}
}

/*
 * Reader 'reader' reads rank 'rank' from record '*pos' for 'n' more;
 * 1 when it saw the end.
 */
static int read_some(struct st_tee *t, int reader, int rank, int *pos, int n)
{
	struct st_event ev;
	char err[128];
	int rc;

	while (n-- > 0) {
		const void *rec = NULL;

		err[0] = '\0';
		if (conv_mode) {
			rc = st_tee_get(t, reader, rank, &rec, &ev, err,
					sizeof(err));
			if (rc == 1) {
				const struct slot *x = rec;
				struct st_event want;

				expect_rec(rank, *pos, &want);
				cr_assert(want.kind % 2 == 1 &&
					  x->t0 == want.t0 &&
					  x->comm == want.comm &&
					  x->fn == want.fn &&
					  x->kind == want.kind &&
					  x->thread == want.thread,
					  "reader %d rank %d record %d: slot",
					  reader, rank, *pos);
				(*pos)++;
				continue;
			}
			/* Whole: one conv declined, unless let go. */
			cr_assert(rc != 2 || *pos % 7 % 2 == 0 ||
				  st_tee_let_go(t) > 0,
				  "reader %d rank %d record %d: not in place",
				  reader, rank, *pos);
			if (rc == 2)
				rc = 1;
		} else {
			rc = st_tee_next(t, reader, rank, &ev, err,
					 sizeof(err));
		}
		if (*pos == NREC) {
			if (rank == 2) {
				cr_assert_eq(rc, -EBADMSG);
				cr_assert_str_eq(err, "rank 2 is corrupt");
			} else {
				cr_assert_eq(rc, 0, "reader %d rank %d: end",
					     reader, rank);
			}
			return 1;
		}
		cr_assert_eq(rc, 1, "reader %d rank %d record %d: rc %d (%s)",
			     reader, rank, *pos, rc, err);
		check_rec(reader, rank, *pos, &ev);
		(*pos)++;
	}
	return 0;
}

struct job {
	struct st_tee *t;
	int reader;
	int step;		/* records per turn; 0: random, own order */
};

/* Every rank to its end, in turns over the ranks. */
static void *reader_main(void *arg)
{
	struct job *j = arg;
	int pos[NRANKS] = { 0 }, end[NRANKS] = { 0 }, done = 0;
	int rank = j->step ? 0 : j->reader % NRANKS;
	unsigned seed = (unsigned)j->reader * 7919u + 1;

	while (done < NRANKS) {
		int n = j->step ? j->step : 1 + rand_r(&seed) % 300;

		if (!end[rank] && read_some(j->t, j->reader, rank,
					    &pos[rank], n)) {
			end[rank] = 1;
			done++;
		}
		/* Steps of 1 or 2 over 3 ranks: every rank in turn. */
		rank = (rank + 1 + (j->step ? 0 : j->reader % 2)) % NRANKS;
	}
	return NULL;
}

static void run_readers(struct st_tee *t, int step)
{
	pthread_t th[3];
	struct job j[3];
	int i;

	for (i = 0; i < 3; i++) {
		j[i] = (struct job){ t, i, step };
		cr_assert(!pthread_create(&th[i], NULL, reader_main, &j[i]));
	}
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
}

static struct st_tee *tee_make(struct fake_ctx *c, struct fake *f,
			       size_t budget, long wait_ms)
{
	struct st_tee_stream s = { c, fake_next, fake_open, fake_close,
				   conv_mode ? sizeof(struct slot) : 0,
				   conv_mode ? fake_conv : NULL };
	void *h[NRANKS];
	struct st_tee *t;
	int r;

	pthread_mutex_init(&c->mu, NULL);
	c->opens = 0;
	for (r = 0; r < NRANKS; r++) {
		memset(&f[r], 0, sizeof(f[r]));
		f[r].rank = r;
		h[r] = &f[r];
	}
	cr_assert_eq(st_tee_new(&t, NRANKS, 3, &s, h, budget, wait_ms), 0);
	return t;
}

Test(analysis_tee, readers_in_step_wait_for_each_other)
{
	struct fake_ctx c;
	struct fake f[NRANKS];
	/*
	 * 4 chunks of 1 record a rank: they wait for each other at every
	 * few records, and, reading the ranks in the same order, never
	 * each for the other (a wait would end after 10 s, letting go).
	 */
	struct st_tee *t = tee_make(&c, f, 4 * NRANKS, 10000);

	run_readers(t, 1);
	/* Each rank decoded once: nobody let go, nothing opened again. */
	cr_assert_eq(st_tee_let_go(t), 0);
	cr_assert_eq(c.opens, 0);
	st_tee_free(t);
}

Test(analysis_tee, readers_in_any_order_get_every_record)
{
	struct fake_ctx c;
	struct fake f[NRANKS];
	/*
	 * Each reads the ranks in an order of its own, so they wait for
	 * each other in turn (1 ms, then the slowest is let go).
	 */
	struct st_tee *t = tee_make(&c, f, 16 * NRANKS, 1);

	run_readers(t, 0);
	cr_assert_eq((uint64_t)c.opens, st_tee_let_go(t));
	st_tee_free(t);
}

Test(analysis_tee, a_reader_far_behind_is_let_go)
{
	struct fake_ctx c;
	struct fake f[NRANKS];
	struct st_tee *t = tee_make(&c, f, 64 * NRANKS, 1);
	int pos1 = 0, pos0 = 0, pos2 = 0, r2 = 0;

	/* Reader 1 reads a little; reader 0 reads all of rank 0 alone. */
	cr_assert(!read_some(t, 1, 0, &pos1, 100));
	cr_assert(read_some(t, 0, 0, &pos0, NREC + 1));
	cr_assert_geq(st_tee_let_go(t), 1);
	/* Reader 1 reads on from its own stream, from record 100. */
	cr_assert(read_some(t, 1, 0, &pos1, NREC + 1));
	cr_assert(read_some(t, 2, 0, &pos2, NREC + 1));
	cr_assert_eq(c.opens, 2);
	cr_assert_eq(st_tee_let_go(t), 2);
	/* Another rank: its error reaches the reader at its end. */
	cr_assert(read_some(t, 0, 2, &r2, NREC + 1));
	st_tee_free(t);
}

Test(analysis_tee, closed_readers_are_not_waited_for)
{
	struct fake_ctx c;
	struct fake f[NRANKS];
	/* A wait would let them go after 10 s: the test would see it. */
	struct st_tee *t = tee_make(&c, f, 4 * NRANKS, 10000);
	int pos[NRANKS] = { 0 }, r;

	st_tee_close(t, 1);
	st_tee_close(t, 2);
	for (r = 0; r < NRANKS; r++)
		cr_assert(read_some(t, 0, r, &pos[r], NREC + 1));
	cr_assert_eq(st_tee_let_go(t), 0);
	cr_assert_eq(c.opens, 0);
	st_tee_free(t);
}

Test(analysis_tee, refuses_a_budget_below_four_records_a_rank)
{
	struct fake_ctx c = { .opens = 0 };
	struct st_tee_stream s = { &c, fake_next, fake_open, fake_close,
				   0, NULL };
	struct fake f[NRANKS];
	void *h[NRANKS] = { &f[0], &f[1], &f[2] };
	struct st_tee *t;

	cr_assert_eq(st_tee_new(&t, NRANKS, 3, &s, h, 4 * NRANKS - 1, 1),
		     -EINVAL);
	cr_assert_null(t);
}

Test(analysis_tee, conv_records_are_read_in_place_by_every_reader)
{
	struct fake_ctx c;
	struct fake f[NRANKS];
	struct st_tee *t;

	conv_mode = 1;
	t = tee_make(&c, f, 4 * NRANKS, 10000);
	run_readers(t, 1);
	cr_assert_eq(st_tee_let_go(t), 0);
	cr_assert_eq(c.opens, 0);
	st_tee_free(t);
	/* In any order, with readers let go: whole events from then on. */
	t = tee_make(&c, f, 16 * NRANKS, 1);
	run_readers(t, 0);
	cr_assert_eq((uint64_t)c.opens, st_tee_let_go(t));
	st_tee_free(t);
	conv_mode = 0;
}

Test(analysis_tee, conv_reader_let_go_reads_whole_events)
{
	struct fake_ctx c;
	struct fake f[NRANKS];
	struct st_tee *t;
	int pos1 = 0, pos0 = 0;

	conv_mode = 1;
	t = tee_make(&c, f, 64 * NRANKS, 1);
	cr_assert(!read_some(t, 1, 0, &pos1, 100));
	cr_assert(read_some(t, 0, 0, &pos0, NREC + 1));
	cr_assert_geq(st_tee_let_go(t), 1);
	cr_assert(read_some(t, 1, 0, &pos1, NREC + 1));
	cr_assert_eq(c.opens, 1);
	st_tee_free(t);
	conv_mode = 0;
}

Test(analysis_tee, conv_records_are_not_for_st_tee_next)
{
	struct fake_ctx c;
	struct fake f[NRANKS];
	struct st_event ev;
	struct st_tee *t;
	char err[128] = "";

	conv_mode = 1;
	t = tee_make(&c, f, 4 * NRANKS, 10000);
	/* Record 0 (kind 0) is whole, record 1 (kind 1) in place. */
	cr_assert_eq(st_tee_next(t, 0, 0, &ev, err, sizeof(err)), 1);
	cr_assert_eq(ev.t0, 0);
	cr_assert_eq(st_tee_next(t, 0, 0, &ev, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "caller's form"));
	st_tee_free(t);
	conv_mode = 0;
}

Test(analysis_tee, refuses_a_record_size_not_a_multiple_of_8)
{
	struct fake_ctx c = { .opens = 0 };
	struct st_tee_stream s = { &c, fake_next, fake_open, fake_close,
				   12, fake_conv };
	struct fake f[NRANKS];
	void *h[NRANKS] = { &f[0], &f[1], &f[2] };
	struct st_tee *t;

	cr_assert_eq(st_tee_new(&t, NRANKS, 3, &s, h, 16 * NRANKS, 1),
		     -EINVAL);
	cr_assert_null(t);
	s.rec_size = 0;
	cr_assert_eq(st_tee_new(&t, NRANKS, 3, &s, h, 16 * NRANKS, 1),
		     -EINVAL);
	s.rec_size = 24;
	cr_assert_eq(st_tee_new(&t, NRANKS, 3, &s, h, 16 * NRANKS, 1), 0);
	st_tee_free(t);
}
