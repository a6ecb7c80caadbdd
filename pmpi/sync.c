/*
 * pmpi/sync.c: the global clock inside the interposer.  sync/ does the
 * algorithms; this file gives it a transport (PMPI point-to-point on
 * synctrace's private communicator, on the same clock as the records)
 * and decides when to run it: at MPI_Init, at MPI_Finalize, and in
 * between at a point every rank reaches in the same order.
 *
 * That point is the first collective on MPI_COMM_WORLD whose sequence
 * number reaches 'st_refresh_seq'.  Every rank numbers WORLD's collectives
 * alike, so they all refresh inside the same call, after its exit
 * timestamp, and no application message can be reordered or blocked by
 * it.  Rank 0 picks the next number at each refresh from the rate of
 * WORLD collectives it has seen and hands it out in the refresh itself.
 * Refreshes come at about 0.25 s, 0.5 s, 1 s, 2 s... after MPI_Init,
 * then every SYNCTRACE_SYNC_INTERVAL ms: the slope's error shrinks as
 * the span of samples grows, so doubling the span at each refresh keeps
 * the error reached before the next one about constant.
 * Each epoch (init, each refresh, finalize) becomes an ST_REC_SYNC
 * record holding its samples and model, so tools recompute global time
 * offline, and its duration, so analyses can leave it out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/hooks.h"
#include "pmpi/internal.h"
#include "sync/skew.h"
#include "sync/sync.h"
#include "sync/transport.h"

#define TAG 7301	/* on st_comm, which only synctrace uses */

/* The first refresh comes soon: it tells rank 0 the rate of WORLD calls. */
#define FIRST_REFRESH_SEQ 64
#define MIN_GAP_NS 250000000.0	/* the first planned gap, 0.25 s */
/*
 * A refresh is followed by at least this many times its own duration of
 * the application's time, so that refreshing costs at most 1/20 of the
 * run.  On an oversubscribed node a refresh's ping-pongs wait for CPUs:
 * with 3 ranks on 2 busy CPUs one took 0.3 to 0.7 s, and refreshes every
 * 0.3 s then left the application nearly no time to run.
 */
#define REFRESH_COST_RATIO 20.0

uint64_t st_refresh_seq = UINT64_MAX;

static struct st_sync *state;
static struct st_transport tp;
static int *leaders;
static uint64_t last_seq, last_ns, start_ns;

static uint64_t tp_now(void *ctx)
{
	(void)ctx;
	return st_clock_ns(st_now());
}

/* In yield mode, wait as the application's calls do (pmpi/hooks.h). */
static int wait_yield(int rc, MPI_Request *req)
{
	struct st_call c;

	if (rc != MPI_SUCCESS)
		return rc;
	c.yreq = *req;
	return st_yield_wait(&c, rc, MPI_STATUS_IGNORE);
}

static int tp_send(void *ctx, int peer, const void *buf, size_t len)
{
	MPI_Request req;
	int rc;

	(void)ctx;
	if (st_cfg.yield)
		rc = wait_yield(PMPI_Isend(buf, (int)len, MPI_BYTE, peer, TAG,
					   st_comm, &req), &req);
	else
		rc = PMPI_Send(buf, (int)len, MPI_BYTE, peer, TAG, st_comm);
	return rc == MPI_SUCCESS ? 0 : -EIO;
}

static int tp_recv(void *ctx, int peer, void *buf, size_t len)
{
	MPI_Request req;
	int rc;

	(void)ctx;
	if (st_cfg.yield)
		rc = wait_yield(PMPI_Irecv(buf, (int)len, MPI_BYTE, peer, TAG,
					   st_comm, &req), &req);
	else
		rc = PMPI_Recv(buf, (int)len, MPI_BYTE, peer, TAG, st_comm,
			       MPI_STATUS_IGNORE);
	return rc == MPI_SUCCESS ? 0 : -EIO;
}

/* The epoch just measured, as an ST_REC_SYNC record. */
static void emit_epoch(uint64_t t0, uint64_t t1)
{
	struct st_event ev;
	size_t len = 0;
	void *buf;

	if (st_sync_encode(state, 0, NULL, &len) != -ENOSPC &&
	    len == 0)
		return;
	if (!(buf = malloc(len)))
		return;
	if (st_sync_encode(state, 0, buf, &len) == 0) {
		st_event_clear(&ev);
		ev.kind = ST_REC_SYNC;
		ev.t0 = t0;
		ev.t1 = t1;
		ev.text = buf;
		ev.text_len = (uint32_t)len;
		st_emit(&ev);
	}
	free(buf);
}

/*
 * Rank 0 says which WORLD sequence number triggers the next refresh;
 * 'seq' is the one that triggered this refresh (0 at init), which took
 * 'cost_ns'.
 */
static void plan_next(uint64_t seq, uint64_t now, uint64_t cost_ns)
{
	uint64_t next = UINT64_MAX;

	if (st_rank == 0 && st_set.sync_interval_ms) {
		if (seq == 0) {
			next = FIRST_REFRESH_SEQ;
		} else {
			double rate = (double)(seq - last_seq) /
				      (double)(now - last_ns + 1);
			double gap = (double)(now - start_ns);
			double ahead;

			if (gap < MIN_GAP_NS)
				gap = MIN_GAP_NS;
			if (gap > (double)st_set.sync_interval_ms * 1e6)
				gap = (double)st_set.sync_interval_ms * 1e6;
			if (gap < REFRESH_COST_RATIO * (double)cost_ns)
				gap = REFRESH_COST_RATIO * (double)cost_ns;
			ahead = rate * gap;

			if (ahead < 1)
				ahead = 1;
			if (ahead > 1e12)
				ahead = 1e12;
			next = seq + (uint64_t)ahead;
		}
	}
	PMPI_Bcast(&next, 1, MPI_UINT64_T, 0, st_comm);
	st_refresh_seq = next;
	last_seq = seq;
	last_ns = now;
}

/* SYNCTRACE_SYNC_CHECK: measure the result as the paper does. */
static void check(const char *when)
{
	char text[96];
	double max_abs = 0;

	if (!st_set.sync_check ||
	    st_sync_check(state, &tp, st_set.sync_check, &max_abs))
		return;
	snprintf(text, sizeof(text), "sync_check_%s_ns=%.1f\n", when, max_abs);
	st_run_index_append(text);
}

/*
 * Node leaders: the lowest world rank on each node measures for it; the
 * others read the same clock (they take the leader's tick-to-ns map).
 * Not with injected skew, unless every rank of a node has its leader's,
 * nor unless every rank of a node reads the clock its leader reads
 * (SYNCTRACE_CLOCK=raw on some ranks only): a TSC rank would take a
 * raw leader's map, which holds nothing.
 */
static int *node_leaders(const struct st_skew *k)
{
	MPI_Comm node;
	uint64_t map[3];
	double mine[3], lead[3];
	int leader = st_rank, ok, all = 0;
	int *l;

	if (PMPI_Comm_split_type(st_comm, MPI_COMM_TYPE_SHARED, st_rank,
				 MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return NULL;
	PMPI_Allreduce(&st_rank, &leader, 1, MPI_INT, MPI_MIN, node);
	mine[0] = lead[0] = (double)k->offset_ns;
	mine[1] = lead[1] = k->drift_ppm;
	mine[2] = lead[2] = st_clock_tsc;
	PMPI_Bcast(lead, 3, MPI_DOUBLE, 0, node);
	ok = mine[0] == lead[0] && mine[1] == lead[1] && mine[2] == lead[2];
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, st_comm);
	if (all) {
		st_clock_export(map);
		PMPI_Bcast(map, 3, MPI_UINT64_T, 0, node);
		st_clock_import(map);
	}
	PMPI_Comm_free(&node);
	if (!all || !(l = malloc((size_t)st_size * sizeof(*l))))
		return NULL;
	PMPI_Allgather(&leader, 1, MPI_INT, l, 1, MPI_INT, st_comm);
	return l;
}

void st_sync_start(void)
{
	struct st_sync_params p;
	struct st_skew k = { 0, 0 };
	char err[160];
	uint64_t t0, t1;
	int rc;

	if (st_set.sync_method < 0 || st_comm == MPI_COMM_NULL)
		return;
	if (st_set.skew[0]) {
		/* Config already checked the syntax; this picks our entry. */
		if (st_skew_parse(st_set.skew, st_rank, &k, err, sizeof(err)))
			return;
		st_clock_set_skew(&k, st_clock_ns(st_now()));
	}
	st_sync_params_init(&p);
	p.method = st_set.sync_method;
	if (st_set.sync_points)
		p.fit_points = st_set.sync_points;
	if (st_set.sync_exchanges)
		p.exchanges = st_set.sync_exchanges;
	if (st_set.sync_pingpongs)
		p.pingpongs = st_set.sync_pingpongs;
	if (st_set.sync_span_ms >= 0)
		p.fit_span_ns = (uint64_t)st_set.sync_span_ms * 1000000u;
	if (st_set.sync_node && st_size > 1)
		leaders = node_leaders(&k);
	p.leader = leaders;
	tp = (struct st_transport){ NULL, st_rank, st_size, tp_now, tp_send,
				    tp_recv };
	t0 = tp_now(NULL);
	start_ns = t0;
	rc = st_sync_init(&state, &tp, &p);
	t1 = tp_now(NULL);
	if (rc) {
		/* -EINVAL comes on every rank before any message. */
		state = NULL;
		if (st_rank == 0)
			st_log(1, "clock synchronisation failed: %s",
			       strerror(-rc));
		return;
	}
	emit_epoch(t0, t1);
	check("init");
	plan_next(0, t1, 0);
}

void st_sync_refresh_at(uint64_t seq)
{
	uint64_t t0, t1;

	if (!state)
		return;
	t0 = tp_now(NULL);
	if (st_sync_refresh(state, &tp)) {
		st_sync_free(state);
		state = NULL;
		st_refresh_seq = UINT64_MAX;
		return;
	}
	t1 = tp_now(NULL);
	emit_epoch(t0, t1);
	plan_next(seq, t1, t1 - t0);
}

void st_sync_finish(void)
{
	uint64_t t0, t1;

	if (!state)
		return;
	/* How well the model held over the run, then after re-measuring. */
	check("end");
	t0 = tp_now(NULL);
	if (st_sync_refresh(state, &tp) == 0) {
		t1 = tp_now(NULL);
		emit_epoch(t0, t1);
		check("final");
	}
	st_sync_free(state);
	state = NULL;
	st_refresh_seq = UINT64_MAX;
	free(leaders);
	leaders = NULL;
}
