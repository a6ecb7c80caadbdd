/*
 * pmpi/idle.h: private; writing other threads' streams from this one
 * (at exit without MPI_Finalize) only once each is idle, waiting a
 * bounded time for one that is being appended to.  Free of mpi.h, so
 * that unit tests link it.
 */
#ifndef ST_PMPI_IDLE_H
#define ST_PMPI_IDLE_H

#include <stdatomic.h>
#include <stdint.h>

struct st_stream;

/* A thread's stream, in the list of every thread's (pmpi/runtime.c). */
struct st_slot {
	struct st_stream *s;	/* NULL: not made yet */
	atomic_int busy;	/* its thread appends to or flushes it */
};

/* How long, in all, an exit waits for busy streams, ns. */
#define ST_IDLE_WAIT_NS 5000000u

/*
 * Wait until 'slot''s busy flag reads clear, polling (sched_yield(),
 * then short sleeps) until CLOCK_MONOTONIC reaches 'deadline_ns' (from
 * st_idle_now_ns()).  The flag is read with acquire semantics, so when
 * this returns 1 everything its thread wrote to the stream before
 * clearing it is visible here.  Returns 1 when idle, 0 when still busy
 * at the deadline (a deadline already past still reads the flag once).
 */
int st_slot_wait_idle(struct st_slot *slot, uint64_t deadline_ns);

/* CLOCK_MONOTONIC, ns. */
uint64_t st_idle_now_ns(void);

/* How long, in all, a fatal signal's flush waits for busy streams, ns. */
#define ST_FATAL_WAIT_NS 1000000000u

/*
 * Call 'flush'('slot'[i].s, 'ctx') for each of the first 'n' slots that
 * has a stream and is idle, waiting for busy ones at most 'wait_ns' in
 * all (not each).  A stream still busy then is skipped: its thread is
 * in the middle of a record.  Slot 'own' (-1: none) is the calling
 * thread's: busy, it is skipped at once, as its append was interrupted
 * (by a signal whose handler this is) and cannot end while this waits.
 * Returns how many were skipped, and sets '*first_skipped' to the index
 * of the first (-1 when none).  What 'flush' returns is its own
 * business; it is not looked at.  Async-signal-safe when 'flush' is.
 */
int st_slots_flush_idle(struct st_slot *slot, int n, int own,
			uint64_t wait_ns,
			int (*flush)(struct st_stream *s, void *ctx),
			void *ctx, int *first_skipped);

#endif
