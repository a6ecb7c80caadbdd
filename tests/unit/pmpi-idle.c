/*
 * tests/unit/pmpi-idle.c: the exit's and a fatal signal's wait for
 * other threads' streams (pmpi/idle.c).  An idle stream is written; one
 * that stays busy is skipped and reported, within the wait, which is
 * one budget for all streams, not one each; one whose append ends
 * during the wait is written, after it ended; the calling thread's own
 * busy stream is skipped without a wait.  The streams are stand-ins:
 * nothing here looks into them.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "pmpi/idle.h"

#define NSLOTS 256

struct rec {
	struct st_stream *seen[NSLOTS];
	int n;
	struct st_slot *slot;	/* when set: its flag must read clear */
	int busy_at_flush;
};

static int record(struct st_stream *s, void *ctx)
{
	struct rec *r = ctx;

	if (r->slot && atomic_load(&r->slot->busy))
		r->busy_at_flush = 1;
	if (r->n < NSLOTS)
		r->seen[r->n++] = s;
	return 0;
}

/* Distinct stand-in streams, never dereferenced. */
static char fake[NSLOTS];
#define STREAM(i) ((struct st_stream *)(void *)&fake[i])

Test(pmpi_idle, idle_written_busy_skipped_and_reported)
{
	static struct st_slot slot[4];
	struct rec r = { .n = 0 };
	int first = 7, skipped;

	slot[0].s = STREAM(0);
	slot[1].s = NULL;		/* a thread that has no stream yet */
	atomic_store(&slot[1].busy, 1);
	slot[2].s = STREAM(2);
	atomic_store(&slot[2].busy, 1);	/* in the middle of an append */
	slot[3].s = STREAM(3);
	skipped = st_slots_flush_idle(slot, 4, -1, 2000000, record, &r, &first);
	cr_expect_eq(skipped, 1);
	cr_expect_eq(first, 2);
	cr_assert_eq(r.n, 2);
	cr_expect_eq(r.seen[0], STREAM(0));
	cr_expect_eq(r.seen[1], STREAM(3));
}

Test(pmpi_idle, none_busy_none_skipped)
{
	static struct st_slot slot[2];
	struct rec r = { .n = 0 };
	int first = 7;

	slot[0].s = STREAM(0);
	slot[1].s = STREAM(1);
	cr_expect_eq(st_slots_flush_idle(slot, 2, -1, 0, record, &r, &first), 0);
	cr_expect_eq(first, -1);
	cr_expect_eq(r.n, 2);
}

/*
 * 256 busy streams and a budget of 2 ms: all skipped, none written,
 * after the budget was waited.  (That the budget is one for all, not
 * one each, is st_slots_flush_idle()'s single deadline; how long the
 * call takes beyond it depends on the machine's load, which this test
 * does not bound.)
 */
Test(pmpi_idle, wait_is_bounded_in_all)
{
	static struct st_slot slot[NSLOTS];
	struct rec r = { .n = 0 };
	uint64_t t0, took;
	int i, first, skipped;

	for (i = 0; i < NSLOTS; i++) {
		slot[i].s = STREAM(i);
		atomic_store(&slot[i].busy, 1);
	}
	t0 = st_idle_now_ns();
	skipped = st_slots_flush_idle(slot, NSLOTS, -1, 2000000, record, &r,
				      &first);
	took = st_idle_now_ns() - t0;
	cr_expect_eq(skipped, NSLOTS);
	cr_expect_eq(first, 0);
	cr_expect_eq(r.n, 0);
	cr_expect_geq(took, 2000000u);
}

struct ender {
	struct st_slot *slot;
	int *payload;
};

/* The owning thread: finish the append, then clear the flag. */
static void *end_append(void *arg)
{
	struct ender *e = arg;
	struct timespec ms = { 0, 1000000 };

	nanosleep(&ms, NULL);
	*e->payload = 42;
	atomic_store_explicit(&e->slot->busy, 0, memory_order_release);
	return NULL;
}

/*
 * An append that ends within the wait: the stream is written, after
 * the flag was cleared, and what the thread wrote before is seen.  The
 * budget is generous so that a slow machine does not make it a skip.
 */
Test(pmpi_idle, written_once_append_ends)
{
	static struct st_slot slot[1];
	static int payload;
	struct ender e = { slot, &payload };
	struct rec r = { .n = 0, .slot = slot };
	pthread_t t;
	int first, skipped;

	slot[0].s = STREAM(0);
	atomic_store(&slot[0].busy, 1);
	cr_assert_eq(pthread_create(&t, NULL, end_append, &e), 0);
	skipped = st_slots_flush_idle(slot, 1, -1, 5000000000u, record, &r,
				      &first);
	cr_expect_eq(payload, 42);
	pthread_join(t, NULL);
	cr_expect_eq(skipped, 0);
	cr_expect_eq(first, -1);
	cr_expect_eq(r.n, 1);
	cr_expect_eq(r.busy_at_flush, 0);
}

Test(pmpi_idle, past_deadline_still_reads_the_flag)
{
	static struct st_slot slot;

	slot.s = STREAM(0);
	cr_expect_eq(st_slot_wait_idle(&slot, 0), 1);
	atomic_store(&slot.busy, 1);
	cr_expect_eq(st_slot_wait_idle(&slot, 0), 0);
}

/*
 * A fatal signal's flush: the calling thread's own stream, busy (its
 * append was interrupted by the signal), is skipped at once, not waited
 * for; another thread's append that ends within the wait is still
 * written.  The budget is 20 s, so a wait for the own stream would show
 * as a call of 20 s; a machine however loaded ends the other append in
 * far less.
 */
Test(pmpi_idle, own_busy_stream_skipped_without_a_wait)
{
	static struct st_slot slot[3];
	static int payload;
	struct ender e = { &slot[2], &payload };
	struct rec r = { .n = 0 };
	const uint64_t budget = 20000000000u;
	uint64_t t0, took;
	pthread_t t;
	int first, skipped;

	slot[0].s = STREAM(0);
	slot[1].s = STREAM(1);
	atomic_store(&slot[1].busy, 1);	/* this thread's, interrupted */
	slot[2].s = STREAM(2);
	atomic_store(&slot[2].busy, 1);	/* another thread's, ending */
	cr_assert_eq(pthread_create(&t, NULL, end_append, &e), 0);
	t0 = st_idle_now_ns();
	skipped = st_slots_flush_idle(slot, 3, 1, budget, record, &r, &first);
	took = st_idle_now_ns() - t0;
	pthread_join(t, NULL);
	cr_expect_eq(skipped, 1);
	cr_expect_eq(first, 1);
	cr_assert_eq(r.n, 2);
	cr_expect_eq(r.seen[0], STREAM(0));
	cr_expect_eq(r.seen[1], STREAM(2));
	cr_expect_eq(payload, 42);
	cr_expect_lt(took, budget);
}
