/*
 * pmpi/idle.c: waiting for other threads' streams to be idle before
 * writing them (pmpi/idle.h).  The wait is short and bounded: an exit
 * must never hang on a thread that went on appending, so a stream
 * still busy at the deadline is left out rather than written half made.
 */
#include <sched.h>
#include <time.h>

#include "pmpi/idle.h"

/* Spins with sched_yield() before the sleeps begin. */
#define YIELDS 64
/* One sleep between polls, ns. */
#define POLL_NS 50000

uint64_t st_idle_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int st_slot_wait_idle(struct st_slot *slot, uint64_t deadline_ns)
{
	struct timespec pause = { 0, POLL_NS };
	int i;

	for (i = 0;; i++) {
		/*
		 * Acquire: pairs with the release that clears the flag
		 * after an append, so the stream's records are whole here.
		 */
		if (!atomic_load_explicit(&slot->busy, memory_order_acquire))
			return 1;
		if (st_idle_now_ns() >= deadline_ns)
			return 0;
		if (i < YIELDS)
			sched_yield();
		else
			nanosleep(&pause, NULL);
	}
}

int st_slots_flush_idle(struct st_slot *slot, int n, int own,
			uint64_t wait_ns,
			int (*flush)(struct st_stream *s, void *ctx),
			void *ctx, int *first_skipped)
{
	uint64_t deadline = st_idle_now_ns() + wait_ns;
	int i, skipped = 0;

	*first_skipped = -1;
	for (i = 0; i < n; i++) {
		if (!slot[i].s)
			continue;
		if (i == own ? atomic_load_explicit(&slot[i].busy,
						    memory_order_acquire)
			     : !st_slot_wait_idle(&slot[i], deadline)) {
			if (!skipped++)
				*first_skipped = i;
			continue;
		}
		flush(slot[i].s, ctx);
	}
	return skipped;
}
