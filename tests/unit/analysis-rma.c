/*
 * tests/unit/analysis-rma.c: one-sided communication per window from
 * hand-made records of two ranks: epochs of each kind close where MPI
 * says (asserts respected), bytes go to the target they were sent to,
 * MPI_PROC_NULL moves none, times split into synchronisation,
 * communication and making/freeing, records outside the phase only move
 * epochs on, and matched instances (the constructor's on its
 * communicator, a fence on the window) reach the right window.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/rma.h"
#include "writer/event.h"

#define WORLD 0x100000000ULL
#define WIN 0x100000002ULL

static uint64_t t;

static struct st_event call(unsigned fn, uint64_t dur)
{
	struct st_event e;

	st_event_clear(&e);
	e.kind = ST_REC_CALL;
	e.fn = (uint16_t)fn;
	e.comm = WIN;
	e.comm_size = 2;
	e.t0 = t;
	e.t1 = t + dur;
	t += dur + 10;
	return e;
}

static void add(struct st_rma *a, int rank, struct st_event e, int in)
{
	cr_assert_eq(st_rma_add(a, rank, &e, in), 0);
}

/* Constructor call on WORLD (seq 'seq'), then the window's record. */
static void make_win(struct st_rma *a, int rank, uint64_t len, int in)
{
	struct st_event e = call(ST_FN_MPI_WIN_CREATE, 100);

	e.comm = WORLD;
	e.seq = 7;
	add(a, rank, e, in);
	e.kind = ST_REC_COMM;
	e.comm = WIN;
	e.parent = WORLD;
	e.rank = rank;
	e.len = len;
	e.seq = 0;
	add(a, rank, e, in);
}

static void one_rank(struct st_rma *a, int rank, int in)
{
	struct st_event e;
	int peer = 1 - rank;

	make_win(a, rank, 512 + 256 * (uint64_t)rank, in);
	/* Fence epoch: two puts, a get, one to MPI_PROC_NULL. */
	e = call(ST_FN_MPI_WIN_FENCE, 20);
	e.arg = ST_ASSERT_NOPRECEDE;
	e.seq = 1;
	add(a, rank, e, in);
	e = call(ST_FN_MPI_PUT, 5);
	e.peer = peer;
	e.sbytes = 80;
	add(a, rank, e, in);
	add(a, rank, e, in);
	e = call(ST_FN_MPI_GET, 5);
	e.peer = peer;
	e.rbytes = 40;
	add(a, rank, e, in);
	e = call(ST_FN_MPI_PUT, 5);
	e.peer = ST_RANK_PROC_NULL;
	add(a, rank, e, in);
	e = call(ST_FN_MPI_WIN_FENCE, 20);
	e.seq = 2;
	add(a, rank, e, in);
	/* This one opens no epoch: the next is noprecede. */
	e = call(ST_FN_MPI_WIN_FENCE, 20);
	e.arg = ST_ASSERT_NOPRECEDE | ST_ASSERT_NOSUCCEED;
	e.seq = 3;
	add(a, rank, e, in);
	/* PSCW: rank 0 exposes, rank 1 accesses, twice. */
	for (int k = 0; k < 2; k++) {
		if (rank == 0) {
			add(a, rank, call(ST_FN_MPI_WIN_POST, 3), in);
			add(a, rank, call(k ? ST_FN_MPI_WIN_TEST :
					  ST_FN_MPI_WIN_WAIT, 30), in);
		} else {
			add(a, rank, call(ST_FN_MPI_WIN_START, 3), in);
			e = call(ST_FN_MPI_ACCUMULATE, 5);
			e.peer = 0;
			e.sbytes = 16;
			add(a, rank, e, in);
			add(a, rank, call(ST_FN_MPI_WIN_COMPLETE, 3), in);
		}
	}
	/* Passive target: a shared and an exclusive lock of rank 0. */
	if (rank == 1) {
		e = call(ST_FN_MPI_WIN_LOCK, 2);
		e.peer = 0;
		e.arg = ST_LOCK_SHARED;
		add(a, rank, e, in);
		e = call(ST_FN_MPI_WIN_UNLOCK, 2);
		e.peer = 0;
		add(a, rank, e, in);
		e = call(ST_FN_MPI_WIN_LOCK, 2);
		e.peer = 0;
		e.arg = ST_LOCK_EXCLUSIVE;
		add(a, rank, e, in);
		e = call(ST_FN_MPI_FETCH_AND_OP, 2);
		e.peer = 0;
		e.sbytes = e.rbytes = 4;
		add(a, rank, e, in);
		e = call(ST_FN_MPI_WIN_UNLOCK, 2);
		e.peer = 0;
		add(a, rank, e, in);
		/* An unlock without its lock closes nothing. */
		e = call(ST_FN_MPI_WIN_UNLOCK, 2);
		e.peer = 0;
		add(a, rank, e, in);
	}
	add(a, rank, call(ST_FN_MPI_WIN_LOCK_ALL, 1), in);
	add(a, rank, call(ST_FN_MPI_WIN_UNLOCK_ALL, 1), in);
	e = call(ST_FN_MPI_WIN_FREE, 50);
	e.seq = 4;
	add(a, rank, e, in);
	st_rma_end_rank(a);
}

Test(analysis_rma, epochs_bytes_and_times_per_window)
{
	struct st_rma *a = st_rma_new();
	const struct st_rma_win *w;
	size_t n;

	cr_assert(a);
	one_rank(a, 0, 1);
	one_rank(a, 1, 1);
	w = st_rma_windows(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(w->id, WIN);
	cr_expect_eq(w->comm, WORLD);
	cr_expect_eq(w->ctor, ST_FN_MPI_WIN_CREATE);
	cr_expect_eq(w->nranks, 2);
	cr_expect_eq(w->mem, 512 + 768);
	cr_expect_eq(w->mem_min, 512);
	cr_expect_eq(w->mem_max, 768);
	cr_expect_eq(w->epochs[ST_RMA_FENCE], 2);	/* one per rank */
	cr_expect_eq(w->epochs[ST_RMA_EXPOSURE], 2);	/* rank 0 */
	cr_expect_eq(w->epochs[ST_RMA_ACCESS], 2);	/* rank 1 */
	cr_expect_eq(w->epochs[ST_RMA_LOCK_SHARED], 1);
	cr_expect_eq(w->epochs[ST_RMA_LOCK_EXCLUSIVE], 1);
	cr_expect_eq(w->epochs[ST_RMA_LOCK_ALL], 2);
	cr_expect_eq(w->sbytes, 2 * 160 + 2 * 16 + 4);
	cr_expect_eq(w->rbytes, 2 * 40 + 4);
	/* Calls: 4 puts/gets per rank, 2 accumulates, 1 fetch_and_op. */
	cr_expect_eq(w->xfer.calls, 2 * 4 + 2 + 1);
	cr_expect_eq(w->xfer.time_ns, 5 * 10 + 2);
	/* Constructor and free on each rank. */
	cr_expect_eq(w->life.calls, 4);
	cr_expect_eq(w->life.time_ns, 2 * (100 + 50));
	/* 3 fences + 4 PSCW + 2 lock_all (+ 3 unlocks, 2 locks on 1). */
	cr_expect_eq(w->sync.calls, 2 * (3 + 4 + 2) + 5);
	/* By target: rank 0 got 160 + 32 + 4 sent to it, MPI_PROC_NULL
	 * two calls and nothing. */
	cr_assert_eq(w->ntg, 3);
	cr_expect_eq(w->tg[0].rank, ST_RANK_PROC_NULL);
	cr_expect_eq(w->tg[0].calls, 2);
	cr_expect_eq(w->tg[0].sbytes + w->tg[0].rbytes, 0);
	cr_expect_eq(w->tg[1].rank, 0);
	cr_expect_eq(w->tg[1].sbytes, 160 + 32 + 4);
	cr_expect_eq(w->tg[1].rbytes, 40 + 4);
	cr_expect_eq(w->tg[2].rank, 1);
	cr_expect_eq(w->tg[2].sbytes, 160);
	/* By function, in id order: Put among them with its totals. */
	for (n = 0; n < w->nfn; n++)
		if (w->fn[n].fn == ST_FN_MPI_PUT)
			break;
	cr_assert_lt(n, w->nfn);
	cr_expect_eq(w->fn[n].calls, 6);
	cr_expect_eq(w->fn[n].sbytes, 320);
	for (n = 1; n < w->nfn; n++)
		cr_expect_lt(w->fn[n - 1].fn, w->fn[n].fn);
	st_rma_free(a);
}

Test(analysis_rma, outside_the_phase_nothing_counts)
{
	struct st_rma *a = st_rma_new();
	const struct st_rma_win *w;
	size_t n;

	cr_assert(a);
	one_rank(a, 0, 0);
	one_rank(a, 1, 0);
	w = st_rma_windows(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(w->nranks, 2);	/* the window is known */
	cr_expect_eq(w->epochs[ST_RMA_FENCE], 0);
	cr_expect_eq(w->sync.calls + w->xfer.calls + w->life.calls, 0);
	cr_expect_eq(w->ntg + w->nfn, 0);
	st_rma_free(a);
}

Test(analysis_rma, instances_reach_their_window)
{
	struct st_rma *a = st_rma_new();
	const struct st_rma_win *w;
	int rk[2] = { 0, 1 };
	static const double tt[2][2] = { { 0, 100 }, { 60, 110 } };
	struct st_imb_done d = {
		.comm = WIN, .seq = 1, .fn = ST_FN_MPI_WIN_FENCE, .n = 2,
		.rank = rk, .t = tt, .first_arr = 0, .last_arr = 60,
	};
	size_t n;

	cr_assert(a);
	one_rank(a, 0, 1);
	one_rank(a, 1, 1);
	st_rma_instance(a, &d);
	/* The constructor's, numbered on WORLD. */
	d.comm = WORLD;
	d.seq = 7;
	d.fn = ST_FN_MPI_WIN_CREATE;
	st_rma_instance(a, &d);
	/* Another collective on WORLD is not the window's. */
	d.seq = 8;
	d.fn = ST_FN_MPI_BARRIER;
	st_rma_instance(a, &d);
	d.comm = WIN;
	d.flagged = 1;
	d.fn = ST_FN_MPI_WIN_FREE;
	st_rma_instance(a, &d);
	w = st_rma_windows(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(w->inst, 2);
	cr_expect_eq(w->inst_flagged, 1);
	/* Rank 0 waits 60 each time, both leave 40 and 50 after. */
	cr_expect_float_eq(w->wait_ns, 120, 1e-9);
	cr_expect_float_eq(w->after_ns, 180, 1e-9);
	st_rma_free(a);
}
