/*
 * tests/unit/analysis-table-read.c: the samples a cost table finds in a run
 * directory.  Two 2-rank runs are written through the real writer with
 * clocks 1 s apart and sync records that undo it, so every record's
 * global time is known: collectives (synced_run(), tools-sync-test.h)
 * cost exactly last exit - last arrival and wait what the definition
 * says; point-to-point calls pair by channel in order, a blocking pair
 * costs the receive's exit - the later entry, MPI_Sendrecv pairs each
 * half with the other rank's, nonblocking pairs and a wildcard receive
 * (matched at its completion) give no sample, and an unmatched send is
 * counted.  Without a member's file no instance completes, and the calls
 * are counted as left out.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gen/ops.h"
#include "tools-sync-test.h"
#include "tools-test.h"
#include "tools/analysis/table.h"
#include "writer/event.h"

static void table_marker(void)
{
}

/* The group of operation 'name' at d, or fail. */
static const struct st_table_group *group_of(const struct st_table *t,
					     const char *name, double d)
{
	size_t i;

	for (i = 0; i < st_table_ngroups(t); i++) {
		const struct st_table_group *g = st_table_group(t, i);

		if (!strcmp(st_table_op(t, g->op)->name, name) && g->d == d)
			return g;
	}
	cr_assert_fail("no group %s at d=%g", name, d);
	return NULL;
}

static const struct st_table_op *op_of(const struct st_table *t,
				       const char *name)
{
	size_t i;

	for (i = 0; i < st_table_nops(t); i++)
		if (!strcmp(st_table_op(t, i)->name, name))
			return st_table_op(t, i);
	cr_assert_fail("no operation %s", name);
	return NULL;
}

/* The finished table of run 'dir' into '*t', its metadata into '*m'. */
static void read_table(const char *dir, struct st_table **t,
		       struct st_table_meta *m)
{
	char err[512];

	cr_assert_eq(st_table_new(t, NULL), 0);
	st_table_meta_init(m);
	cr_assert_eq(st_table_read_run(*t, m, dir, 0, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(st_table_finish(*t), 0);
}

static double sample_sum(const struct st_table_group *g)
{
	double s = 0;
	size_t i;

	for (i = 0; i < g->n_in; i++)
		s += g->x[i];
	return s;
}

Test(tools_table_read, collectives_cost_from_last_arrival_to_last_exit)
{
	struct st_table_meta m;
	struct st_table *t;
	const struct st_table_group *g;
	const struct st_table_op *op;
	struct fake_obj obj;
	char dir[256];

	scratch_dir(dir, sizeof(dir));
	find_object((const void *)(uintptr_t)table_marker, &obj);
	synced_run(dir, &obj, (uint64_t)(uintptr_t)table_marker + 1,
		   (uint64_t)(uintptr_t)table_marker + 2);
	read_table(dir, &t, &m);

	/* Allreduce: 6200-5000, 4000-3000, 1000-10. */
	g = group_of(t, "MPI_Allreduce", 0);
	cr_assert_eq(g->n_in, 3);
	cr_expect_eq(g->p, 2);
	cr_expect_float_eq(g->x[0], 990.0, 1e-6);
	cr_expect_float_eq(g->x[1], 1000.0, 1e-6);
	cr_expect_float_eq(g->x[2], 1200.0, 1e-6);
	cr_expect_float_eq(g->s.median, 1000.0, 1e-6);
	/* An application's first instance: its first call, and a sample. */
	cr_expect_eq(g->first_n, 1);
	cr_expect_float_eq(g->first_ns, 1200.0, 1e-6, "seq 1");
	op = op_of(t, "MPI_Allreduce");
	cr_expect_float_eq(op->wait_ns, 5000.0 + 3000.0 + 10.0, 1e-6);
	cr_expect_float_eq(op->call_ns, 6000 + 1200 + 1000 + 4000 + 1000 +
			   990.0, 1e-6);
	/* Barrier: 2500 - 2000; rank 0 waited 2000. */
	g = group_of(t, "MPI_Barrier", 0);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 500.0, 1e-6);
	cr_expect_float_eq(g->wait_ns, 2000.0, 1e-6);
	/* Bcast: the root left at 100, before rank 1 came at 1000. */
	g = group_of(t, "MPI_Bcast", 0);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 300.0, 1e-6);
	cr_expect_float_eq(g->wait_ns, 100.0, 1e-6);
	cr_expect_eq(st_table_nops(t), 3);

	/* The inter-communicator's Bcast, once per rank. */
	cr_expect_eq(m.calls_inter, 2);
	cr_expect_eq(m.incomplete, 0);
	cr_assert_eq(m.nruns, 1);
	cr_expect_eq(m.runs[0].nranks, 2);
	cr_expect_eq(m.runs[0].nread, 2);
	cr_expect_eq(m.runs[0].nsynced, 2);
	cr_expect(m.runs[0].complete);
	cr_expect_str_eq(m.runs[0].cmdline, "mpiexec.mpich -n 2 ./app");
	cr_expect_eq(m.nhosts, 2);
	cr_expect_str_eq(m.mpi_library, "MPICH Version: 4.0.2");
	cr_expect_str_eq(m.clock, "CLOCK_MONOTONIC_RAW");
	cr_expect_float_eq(m.clock_res_ns, 1.0, 1e-12);
	cr_expect_eq(m.sync_method, ST_SYNC_HCA);
	st_table_meta_release(&m);
	st_table_free(t);
}

/* A point-to-point CALL of 'rank' at global g0..g1 on comm 1. */
/*
 * Open rank 'r''s file of a 2-rank run in 'dir', with its clock
 * synchronised (global times through sync_local()); MPI_COMM_WORLD's
 * record comes next.
 */
static void synced_rank(struct fake_rank *fr, const char *dir, int r)
{
	uint64_t origin = r ? SYNC_ORIGIN1 : SYNC_ORIGIN0;
	struct blob_spec b = blob_spec(r, 2, 0, origin, SYNC_ORIGIN0, 0.0,
				       r ? -500.0 : 0.0);

	fake_rank_open(fr, dir, r, "nodeA", "100");
	fake_sync_rec(fr, &b, origin, origin + 1000);
}

static void p2p(struct fake_rank *fr, int rank, unsigned fn, double g0,
		double g1, int32_t peer, int32_t tag, uint64_t sb,
		uint64_t rb, uint64_t req)
{
	struct st_event ev;

	fake_call(&ev, fn, sync_local(rank, g0), sync_local(rank, g1), 0);
	ev.comm = 1;
	ev.comm_size = 2;
	ev.peer = peer;
	ev.tag = tag;
	ev.sbytes = sb;
	ev.rbytes = rb;
	ev.req = req;
	fake_append(fr, &ev);
}

/* A Wait from g0..g1 completing request 'req' (DONE first, then CALL). */
static void wait_done(struct fake_rank *fr, int rank, double g0, double g1,
		      uint64_t req, int32_t peer, int32_t tag, uint64_t rb)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_DONE;
	ev.fn = ST_FN_MPI_WAIT;
	ev.t0 = sync_local(rank, g0);
	ev.t1 = sync_local(rank, g1);
	ev.comm = 1;
	ev.req = req;
	ev.peer = peer;
	ev.tag = tag;
	ev.rbytes = rb;
	fake_append(fr, &ev);
	fake_call(&ev, ST_FN_MPI_WAIT, sync_local(rank, g0),
		  sync_local(rank, g1), 0);
	fake_append(fr, &ev);
}

/*
 * Global times (ns after 1 ms):
 *  rank 0: Send(1, tag 5, 8 B) 1000..1100; Send(1, 5, 16 B) 2000..2100;
 *          Sendrecv(1:7, 1:7, 32 B) 5000..5800; Isend(1, 9) 6000..6010
 *          + Wait; Send(1, 11) 7000..7100; Send(1, 13) 8000..8100 (never
 *          received)
 *  rank 1: Recv(0, 5) 500..1600; Recv(0, 5) 3000..3500;
 *          Sendrecv(0:7, 0:7, 32 B) 5200..5900; Irecv(0, 9) 6005..6008
 *          + Wait; Irecv(ANY, ANY) 6900..6905 + Wait 7100..7300 (source
 *          0, tag 11)
 */
static void p2p_run(const char *dir)
{
	struct fake_rank fr;
	struct st_event ev;
	int r;

	fake_index(dir, 2, 1);
	for (r = 0; r < 2; r++) {
		double o = 1e6;
		struct st_event sr;

		synced_rank(&fr, dir, r);
		fake_world(&fr, &ev, r, 2, sync_local(r, 5e5));
		if (r == 0) {
			p2p(&fr, 0, ST_FN_MPI_SEND, o + 1000, o + 1100, 1, 5, 8,
			    0, 0);
			p2p(&fr, 0, ST_FN_MPI_SEND, o + 2000, o + 2100, 1, 5,
			    16, 0, 0);
		} else {
			p2p(&fr, 1, ST_FN_MPI_RECV, o + 500, o + 1600, 0, 5, 0,
			    8, 0);
			p2p(&fr, 1, ST_FN_MPI_RECV, o + 3000, o + 3500, 0, 5,
			    0, 16, 0);
		}
		fake_call(&sr, ST_FN_MPI_SENDRECV,
			  sync_local(r, o + (r ? 5200 : 5000)),
			  sync_local(r, o + (r ? 5900 : 5800)), 0);
		sr.comm = 1;
		sr.comm_size = 2;
		sr.peer = sr.peer2 = 1 - r;
		sr.tag = sr.tag2 = 7;
		sr.sbytes = sr.rbytes = 32;
		fake_append(&fr, &sr);
		if (r == 0) {
			p2p(&fr, 0, ST_FN_MPI_ISEND, o + 6000, o + 6010, 1, 9,
			    4, 0, 1);
			wait_done(&fr, 0, o + 6020, o + 6030, 1, ST_RANK_NONE,
				  0, 0);
			p2p(&fr, 0, ST_FN_MPI_SEND, o + 7000, o + 7100, 1, 11,
			    4, 0, 0);
			p2p(&fr, 0, ST_FN_MPI_SEND, o + 8000, o + 8100, 1, 13,
			    4, 0, 0);
		} else {
			p2p(&fr, 1, ST_FN_MPI_IRECV, o + 6005, o + 6008, 0, 9,
			    0, 0, 1);
			wait_done(&fr, 1, o + 6100, o + 6200, 1, 0, 9, 4);
			p2p(&fr, 1, ST_FN_MPI_IRECV, o + 6900, o + 6905,
			    ST_RANK_ANY, ST_TAG_ANY, 0, 0, 2);
			wait_done(&fr, 1, o + 7100, o + 7300, 2, 0, 11, 4);
		}
		fake_rank_close(&fr);
	}
}

Test(tools_table_read, transfers_pair_in_order_per_channel)
{
	struct st_table_meta m;
	struct st_table *t;
	const struct st_table_group *g;
	const struct st_table_op *op;
	char dir[256];

	scratch_dir(dir, sizeof(dir));
	p2p_run(dir);
	read_table(dir, &t, &m);
	cr_assert_eq(st_table_nops(t), 3);

	/* What starting the nonblocking send cost: 6010 - 6000. */
	op = op_of(t, "MPI_Isend (call)");
	cr_expect_eq(op->kind, ST_TABLE_CALL);
	g = group_of(t, "MPI_Isend (call)", 4);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 10.0, 1e-6);

	op = op_of(t, "MPI_Send->MPI_Recv");
	cr_expect_eq(op->kind, ST_TABLE_P2P);
	cr_expect_eq(op->samples, 2);
	/* The receive came first: 1600 - 1000, and it waited 500. */
	g = group_of(t, "MPI_Send->MPI_Recv", 8);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 600.0, 1e-6);
	cr_expect_float_eq(g->wait_ns, 500.0, 1e-6);
	cr_expect_eq(g->p, 2);
	/* The send came first (eager): 3500 - 3000, no wait. */
	g = group_of(t, "MPI_Send->MPI_Recv", 16);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 500.0, 1e-6);
	cr_expect_float_eq(g->wait_ns, 0.0, 1e-6);
	/* Sendrecv: 5800 - 5200 and 5900 - 5200. */
	g = group_of(t, "MPI_Sendrecv", 32);
	cr_assert_eq(g->n_in, 2);
	cr_expect_float_eq(sample_sum(g), 1300.0, 1e-6);
	cr_expect_float_eq(g->s.median, 650.0, 1e-6);

	cr_expect_eq(m.p2p_nonblocking, 2, "Isend/Irecv and the wildcard");
	cr_expect_eq(m.p2p_unmatched, 1, "the send to tag 13");
	cr_expect_eq(m.p2p_inconsistent, 0);
	st_table_meta_release(&m);
	st_table_free(t);
}

/*
 * A rank's messages to itself are no transfer between two processes:
 * rank 0 sends 8 B to itself (MPI_Send 1000..1100, MPI_Recv
 * 1200..1300) and makes an MPI_Sendrecv with itself (2000..2400), both
 * left out of the table (two self-messages) where the old table made
 * p = 2 samples of them; the MPI_Send to rank 1 (3000..3100, received
 * 3000..3500) is the one sample.
 */
Test(tools_table_read, messages_to_self_are_left_out)
{
	struct st_table_meta m;
	struct st_table *t;
	const struct st_table_group *g;
	struct fake_rank fr;
	struct st_event ev;
	char dir[256];
	int r;

	scratch_dir(dir, sizeof(dir));
	fake_index(dir, 2, 1);
	for (r = 0; r < 2; r++) {
		double o = 1e6;

		synced_rank(&fr, dir, r);
		fake_world(&fr, &ev, r, 2, sync_local(r, 5e5));
		if (r == 1) {
			p2p(&fr, 1, ST_FN_MPI_RECV, o + 3000, o + 3500, 0, 5,
			    0, 8, 0);
			fake_rank_close(&fr);
			continue;
		}
		p2p(&fr, 0, ST_FN_MPI_SEND, o + 1000, o + 1100, 0, 5, 8, 0, 0);
		p2p(&fr, 0, ST_FN_MPI_RECV, o + 1200, o + 1300, 0, 5, 0, 8, 0);
		fake_call(&ev, ST_FN_MPI_SENDRECV, sync_local(0, o + 2000),
			  sync_local(0, o + 2400), 0);
		ev.comm = 1;
		ev.comm_size = 2;
		ev.peer = ev.peer2 = 0;
		ev.tag = ev.tag2 = 7;
		ev.sbytes = ev.rbytes = 32;
		fake_append(&fr, &ev);
		p2p(&fr, 0, ST_FN_MPI_SEND, o + 3000, o + 3100, 1, 5, 8, 0, 0);
		fake_rank_close(&fr);
	}
	read_table(dir, &t, &m);
	g = group_of(t, "MPI_Send->MPI_Recv", 8);
	cr_assert_eq(g->n_in, 1, "only the message to rank 1");
	cr_expect_float_eq(g->x[0], 500.0, 1e-6);
	cr_expect_eq(m.p2p_self, 2);
	cr_expect_eq(m.p2p_unmatched, 0);
	st_table_meta_release(&m);
	st_table_free(t);
}

/*
 * A persistent send is a message at each start, its init none: rank 0
 * makes a Send_init (tag 5) and one it never starts (tag 5 too), starts
 * the first three times, then sends 8 B by MPI_Send (1 ms +
 * 5000..5100); rank 1 receives four times by MPI_Recv, the fourth
 * (4900..5300) the blocking send's.
 */
Test(tools_table_read, persistent_sends_take_a_place_per_start)
{
	struct st_table_meta m;
	struct st_table *t;
	const struct st_table_group *g;
	struct fake_rank fr;
	struct st_event ev;
	char dir[256];
	int r, i;

	scratch_dir(dir, sizeof(dir));
	fake_index(dir, 2, 1);
	for (r = 0; r < 2; r++) {
		double o = 1e6;

		synced_rank(&fr, dir, r);
		fake_world(&fr, &ev, r, 2, sync_local(r, 5e5));
		if (r == 1) {
			for (i = 0; i < 3; i++)
				p2p(&fr, 1, ST_FN_MPI_RECV, o + 1000 + 1000 * i,
				    o + 1500 + 1000 * i, 0, 5, 0, 4, 0);
			p2p(&fr, 1, ST_FN_MPI_RECV, o + 4900, o + 5300, 0, 5,
			    0, 8, 0);
			fake_rank_close(&fr);
			continue;
		}
		p2p(&fr, 0, ST_FN_MPI_SEND_INIT, o + 100, o + 200, 1, 5, 4, 0,
		    1);
		p2p(&fr, 0, ST_FN_MPI_SEND_INIT, o + 300, o + 400, 1, 5, 4, 0,
		    2);
		for (i = 0; i < 3; i++) {
			fake_call(&ev, ST_FN_MPI_START,
				  sync_local(0, o + 900 + 1000 * i),
				  sync_local(0, o + 950 + 1000 * i), 0);
			fake_append(&fr, &ev);
			ev.kind = ST_REC_START;
			ev.fn = ST_FN_MPI_SEND_INIT;
			ev.comm = 1;
			ev.comm_size = 2;
			ev.peer = 1;
			ev.tag = 5;
			ev.sbytes = 4;
			ev.req = 1;
			ev.inst = (uint32_t)i + 1;
			fake_append(&fr, &ev);
			wait_done(&fr, 0, o + 960 + 1000 * i,
				  o + 990 + 1000 * i, 1, ST_RANK_NONE, 0, 0);
		}
		p2p(&fr, 0, ST_FN_MPI_SEND, o + 5000, o + 5100, 1, 5, 8, 0, 0);
		fake_rank_close(&fr);
	}
	read_table(dir, &t, &m);
	/* The blocking pair: 5300 - 5000, the receive waiting 100. */
	g = group_of(t, "MPI_Send->MPI_Recv", 8);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 300.0, 1e-6);
	cr_expect_float_eq(g->wait_ns, 100.0, 1e-6);
	cr_expect_eq(m.p2p_nonblocking, 3, "one per start");
	cr_expect_eq(m.p2p_unmatched, 0, "the init never started is none");
	cr_expect_eq(m.p2p_inconsistent, 0);
	st_table_meta_release(&m);
	st_table_free(t);
}

/* A CALL of a bench measurement 'seq', at global g0..g1 on comm 1. */
static void bench_call(struct fake_rank *fr, int rank, unsigned fn,
		       double g0, double g1, int32_t tag, uint64_t sb,
		       uint64_t rb, uint64_t req, uint64_t seq)
{
	struct st_event ev;

	fake_call(&ev, fn, sync_local(rank, g0), sync_local(rank, g1), 0);
	ev.comm = 1;
	ev.comm_size = 2;
	ev.seq = seq;
	if (tag >= 0) {
		ev.peer = 1 - rank;
		ev.tag = tag;
	}
	ev.sbytes = sb;
	ev.rbytes = rb;
	ev.req = req;
	fake_append(fr, &ev);
}

/*
 * A bench run (bench=1) of the network model's patterns, global times
 * after 1 ms:
 *  seq 5, burst2 of 64 B: rank 0 Isend 1000..1010, 1010..1020, Waitall
 *   1020..1500; rank 1 Irecv 990..995, 995..1000, Waitall 1000..1800;
 *  seq 6, late of 64 B: rank 0 Send 3000..3100, rank 1 Recv 3500..3550;
 *  seq 7, late of 1 MiB: rank 0 Send 5000..9000, rank 1 Recv
 *   6000..9500 (the send waited for the receive).
 */
static void pattern_run_at(const char *dir, double recv_at)
{
	struct fake_rank fr;
	struct st_event ev;
	char path[512];
	int r;

	fake_run_size = 2;
	snprintf(path, sizeof(path), "%s/synctrace.run", dir);
	write_file(path, "nranks=2\ncmdline=synctrace-bench micro\nbench=1\n"
		   "complete=1\n");
	for (r = 0; r < 2; r++) {
		double o = 1e6;
		int i;

		synced_rank(&fr, dir, r);
		fake_world(&fr, &ev, r, 2, sync_local(r, 5e5));
		for (i = 0; i < 2; i++)
			bench_call(&fr, r, r ? ST_FN_MPI_IRECV : ST_FN_MPI_ISEND,
				   o + (r ? recv_at + 5 * i : 1000 + 10 * i),
				   o + (r ? recv_at + 5 + 5 * i :
				       1010 + 10 * i), 3,
				   r ? 0 : 64, 0, (uint64_t)i + 1, 5);
		bench_call(&fr, r, ST_FN_MPI_WAITALL,
			   o + (r ? recv_at + 10 : 1020),
			   o + (r ? 1800 : 1500), -1, 0, 0, 0, 5);
		if (r == 0) {
			bench_call(&fr, 0, ST_FN_MPI_SEND, o + 3000, o + 3100,
				   4, 64, 0, 0, 6);
			bench_call(&fr, 0, ST_FN_MPI_SEND, o + 5000, o + 9000,
				   4, 1 << 20, 0, 0, 7);
		} else {
			bench_call(&fr, 1, ST_FN_MPI_RECV, o + 3500, o + 3550,
				   4, 0, 64, 0, 6);
			bench_call(&fr, 1, ST_FN_MPI_RECV, o + 6000, o + 9500,
				   4, 0, 1 << 20, 0, 7);
		}
		fake_rank_close(&fr);
	}
}

static void pattern_run(const char *dir)
{
	pattern_run_at(dir, 990);
}

Test(tools_table_read, bench_patterns_give_the_network_rows)
{
	struct st_table_meta m;
	struct st_table *t;
	const struct st_table_group *g;
	char dir[256];

	scratch_dir(dir, sizeof(dir));
	pattern_run(dir);
	read_table(dir, &t, &m);
	/* The burst: first Isend's entry to the receiver's Waitall exit. */
	cr_expect_eq(op_of(t, "MPI_Isend->MPI_Irecv (burst)")->kind,
		     ST_TABLE_BURST);
	g = group_of(t, "MPI_Isend->MPI_Irecv (burst)", 64);
	cr_assert_eq(g->n_in, 1);
	cr_expect_eq(g->p, 2, "two messages at once");
	cr_expect_float_eq(g->x[0], 800.0, 1e-6);
	g = group_of(t, "MPI_Isend (call)", 64);
	cr_expect_eq(g->n_in, 2);
	cr_expect_float_eq(g->s.median, 10.0, 1e-6);
	/* Late receives: a send that did not wait, one that did. */
	g = group_of(t, "MPI_Send (receiver late, eager)", 64);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 100.0, 1e-6);
	g = group_of(t, "MPI_Send (receiver late, rendezvous)", 1 << 20);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 9000.0 - 6000.0, 1e-6);
	g = group_of(t, "MPI_Recv (posted late)", 64);
	cr_expect_float_eq(g->x[0], 50.0, 1e-6);
	g = group_of(t, "MPI_Recv (posted late)", 1 << 20);
	cr_expect_float_eq(g->x[0], 3500.0, 1e-6);
	/* None of them is a plain transfer. */
	cr_expect_eq(st_table_nops(t), 5);
	st_table_meta_release(&m);
	st_table_free(t);
}

/*
 * A bench run of the busy-side patterns, 4 KiB each, global times after
 * 1 ms (tags 5, 6, 7: tools/bench/micro-ops.h):
 *  seq 8, sbusy: rank 0 Isend 1000..1010, computes, Wait 5000..5100;
 *   rank 1 Irecv 1000..1005, Wait 1005..5200;
 *  seq 9, rbusy: rank 0 Isend 7000..7010, Wait 7010..7300; rank 1 Irecv
 *   7000..7005, computes, Wait 9000..9250;
 *  seq 10, xbusy: each rank Irecv 11000..11005, Isend 11005..11010,
 *   computes, Waitall: rank 0 14000..14300, rank 1 14100..14350;
 *  seq 11, xbusy2: each rank 2 Irecv, 2 Isend from 21000, computes,
 *   Waitall: rank 0 24000..24500, rank 1 24100..24700.
 */
static void busy_run(const char *dir)
{
	struct fake_rank fr;
	struct st_event ev;
	char path[512];
	int r;

	fake_run_size = 2;
	snprintf(path, sizeof(path), "%s/synctrace.run", dir);
	write_file(path, "nranks=2\ncmdline=synctrace-bench micro\nbench=1\n"
		   "complete=1\n");
	for (r = 0; r < 2; r++) {
		double o = 1e6;

		synced_rank(&fr, dir, r);
		fake_world(&fr, &ev, r, 2, sync_local(r, 5e5));
		if (r == 0) {
			bench_call(&fr, 0, ST_FN_MPI_ISEND, o + 1000, o + 1010,
				   5, 4096, 0, 1, 8);
			bench_call(&fr, 0, ST_FN_MPI_WAIT, o + 5000, o + 5100,
				   -1, 0, 0, 0, 8);
			bench_call(&fr, 0, ST_FN_MPI_ISEND, o + 7000, o + 7010,
				   6, 4096, 0, 1, 9);
			bench_call(&fr, 0, ST_FN_MPI_WAIT, o + 7010, o + 7300,
				   -1, 0, 0, 0, 9);
		} else {
			bench_call(&fr, 1, ST_FN_MPI_IRECV, o + 1000, o + 1005,
				   5, 0, 0, 1, 8);
			bench_call(&fr, 1, ST_FN_MPI_WAIT, o + 1005, o + 5200,
				   -1, 0, 0, 0, 8);
			bench_call(&fr, 1, ST_FN_MPI_IRECV, o + 7000, o + 7005,
				   6, 0, 0, 1, 9);
			bench_call(&fr, 1, ST_FN_MPI_WAIT, o + 9000, o + 9250,
				   -1, 0, 0, 0, 9);
		}
		bench_call(&fr, r, ST_FN_MPI_IRECV, o + 11000, o + 11005, 7,
			   0, 0, 1, 10);
		bench_call(&fr, r, ST_FN_MPI_ISEND, o + 11005, o + 11010, 7,
			   4096, 0, 2, 10);
		bench_call(&fr, r, ST_FN_MPI_WAITALL, o + (r ? 14100 : 14000),
			   o + (r ? 14350 : 14300), -1, 0, 0, 0, 10);
		bench_call(&fr, r, ST_FN_MPI_IRECV, o + 21000, o + 21005, 7,
			   0, 0, 1, 11);
		bench_call(&fr, r, ST_FN_MPI_IRECV, o + 21005, o + 21010, 7,
			   0, 0, 2, 11);
		bench_call(&fr, r, ST_FN_MPI_ISEND, o + 21010, o + 21015, 7,
			   4096, 0, 3, 11);
		bench_call(&fr, r, ST_FN_MPI_ISEND, o + 21015, o + 21020, 7,
			   4096, 0, 4, 11);
		bench_call(&fr, r, ST_FN_MPI_WAITALL, o + (r ? 24100 : 24000),
			   o + (r ? 24700 : 24500), -1, 0, 0, 0, 11);
		fake_rank_close(&fr);
	}
}

Test(tools_table_read, busy_patterns_give_their_rows)
{
	struct st_table_meta m;
	struct st_table *t;
	const struct st_table_group *g;
	char dir[256];

	scratch_dir(dir, sizeof(dir));
	busy_run(dir);
	read_table(dir, &t, &m);
	/* A busy sender: from its Isend's entry to the receiver's exit. */
	cr_expect_eq(op_of(t, "MPI_Isend->MPI_Irecv (sender busy)")->kind,
		     ST_TABLE_SND_BUSY);
	g = group_of(t, "MPI_Isend->MPI_Irecv (sender busy)", 4096);
	cr_assert_eq(g->n_in, 1);
	cr_expect_eq(g->p, 2);
	cr_expect_float_eq(g->x[0], 5200.0 - 1000.0, 1e-6);
	/* A busy receiver: its Wait. */
	cr_expect_eq(op_of(t, "MPI_Isend->MPI_Irecv (receiver busy)")->kind,
		     ST_TABLE_RCV_BUSY);
	g = group_of(t, "MPI_Isend->MPI_Irecv (receiver busy)", 4096);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 250.0, 1e-6);
	/* The exchange: the later Waitall entry to the later exit. */
	cr_expect_eq(op_of(t, "MPI_Isend->MPI_Irecv (exchange, both "
			   "busy)")->kind, ST_TABLE_XCHG_BUSY);
	g = group_of(t, "MPI_Isend->MPI_Irecv (exchange, both busy)", 4096);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 14350.0 - 14100.0, 1e-6);
	/* Two each way: a row of its own, p = 2 messages each way. */
	cr_expect_eq(op_of(t, "MPI_Isend->MPI_Irecv (exchange burst, both "
			   "busy)")->kind, ST_TABLE_XCHG_BURST);
	g = group_of(t, "MPI_Isend->MPI_Irecv (exchange burst, both busy)",
		     4096);
	cr_assert_eq(g->n_in, 1);
	cr_expect_eq(g->p, 2);
	cr_expect_float_eq(g->x[0], 24700.0 - 24100.0, 1e-6);
	/* Their MPI_Isend calls leave the call row to the others. */
	cr_expect_eq(st_table_nops(t), 4);
	st_table_meta_release(&m);
	st_table_free(t);
}

/*
 * The receiver posted its receives and entered MPI_Waitall (at 960)
 * before the sender's first MPI_Isend (1000) in global time, as when its
 * global clock runs some microseconds behind: the burst is still one
 * sample, from 1000 to the receiver's exit at 1800.
 */
Test(tools_table_read, a_burst_whose_receiver_waits_first_is_kept)
{
	struct st_table_meta m;
	struct st_table *t;
	const struct st_table_group *g;
	char dir[256];

	scratch_dir(dir, sizeof(dir));
	pattern_run_at(dir, 950);
	read_table(dir, &t, &m);
	g = group_of(t, "MPI_Isend->MPI_Irecv (burst)", 64);
	cr_assert(g, "the burst row is there");
	cr_assert_eq(g->n_in, 1);
	cr_expect_eq(g->p, 2);
	cr_expect_float_eq(g->x[0], 800.0, 1e-6);
	st_table_meta_release(&m);
	st_table_free(t);
}

Test(tools_table_read, not_a_run_is_an_error)
{
	struct st_table_meta m;
	struct st_table *t;
	char dir[256], err[512] = "";

	scratch_dir(dir, sizeof(dir));
	cr_assert_eq(st_table_new(&t, NULL), 0);
	st_table_meta_init(&m);
	cr_expect_eq(st_table_read_run(t, &m, dir, 0, err, sizeof(err)),
		     -ENOENT);
	cr_expect(strstr(err, "not a synctrace run"), "%s", err);
	cr_expect_eq(m.nruns, 0);
	st_table_meta_release(&m);
	st_table_free(t);
}

Test(tools_table_read, a_missing_rank_leaves_its_collectives_out)
{
	struct st_table_meta m;
	struct st_table *t;
	struct fake_obj obj;
	char dir[256], path[300], err[512], *warn;
	int saved, fd, rc;

	scratch_dir(dir, sizeof(dir));
	find_object((const void *)(uintptr_t)table_marker, &obj);
	synced_run(dir, &obj, (uint64_t)(uintptr_t)table_marker + 1,
		   (uint64_t)(uintptr_t)table_marker + 2);
	snprintf(path, sizeof(path), "%s/rank-1.st", dir);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(st_table_new(&t, NULL), 0);
	st_table_meta_init(&m);
	/* The warning goes to a file, read back below. */
	snprintf(path, sizeof(path), "%s/stderr", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	cr_assert(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
	rc = st_table_read_run(t, &m, dir, 0, err, sizeof(err));
	fflush(stderr);
	dup2(saved, 2);
	close(fd);
	close(saved);
	cr_assert_eq(rc, 0, "%s", err);
	warn = read_file(path);
	cr_expect(strstr(warn, "1 of 2 rank files missing"), "%s", warn);
	free(warn);
	cr_assert_eq(st_table_finish(t), 0);
	cr_expect_eq(st_table_nops(t), 0, "no instance can complete");
	cr_expect_eq(m.calls_missing, 5, "rank 0's five collectives");
	cr_expect_eq(m.calls_inter, 1);
	cr_expect_eq(m.runs[0].nread, 1);
	st_table_meta_release(&m);
	st_table_free(t);
}

/*
 * A window (0x7) and a file (0x8) on communicator 1, both ranks:
 * Pcontrol(1); Win_fence seq 1, 2 (rank 1 arrives 400 ns late at the
 * first); Pcontrol(2); File_write_all seq 1 (64 B each); File_close
 * seq 2.  Global times from 1 ms.
 */
static void osio_run(const char *dir)
{
	static const double g[4][2][2] = {
		{ { 0, 1000 }, { 400, 1100 } },
		{ { 0, 300 }, { 0, 350 } },
		{ { 0, 5000 }, { 100, 5200 } },
		{ { 0, 700 }, { 50, 600 } },
	};
	static const unsigned fn[4] = {
		ST_FN_MPI_WIN_FENCE, ST_FN_MPI_WIN_FENCE,
		ST_FN_MPI_FILE_WRITE_ALL, ST_FN_MPI_FILE_CLOSE
	};
	struct fake_rank fr;
	struct st_event ev;
	int r, i;

	fake_index(dir, 2, 1);
	for (r = 0; r < 2; r++) {
		double o = 1e6;

		synced_rank(&fr, dir, r);
		fake_world(&fr, &ev, r, 2, sync_local(r, 5e5));
		ev.fn = ST_FN_MPI_WIN_CREATE;
		ev.comm = 7;
		ev.parent = 1;
		fake_append(&fr, &ev);
		ev.fn = ST_FN_MPI_FILE_OPEN;
		ev.comm = 8;
		fake_append(&fr, &ev);
		for (i = 0; i < 4; i++) {
			if (i == 0 || i == 2) {
				fake_call(&ev, ST_FN_MPI_PCONTROL,
					  sync_local(r, o + i * 1e4 - 10),
					  sync_local(r, o + i * 1e4 - 5), 0);
				ev.arg = i ? 2 : 1;
				fake_append(&fr, &ev);
			}
			fake_call(&ev, fn[i],
				  sync_local(r, o + i * 1e4 + g[i][r][0]),
				  sync_local(r, o + i * 1e4 + g[i][r][1]), 0);
			ev.comm = i < 2 ? 7 : 8;
			ev.comm_size = 2;
			ev.seq = i < 2 ? (uint64_t)i + 1 : (uint64_t)i - 1;
			ev.sbytes = i == 2 ? 64 : 0;
			fake_append(&fr, &ev);
		}
		fake_rank_close(&fr);
	}
}

/* The table of run 'dir' with phase 'phase' (NULL: all). */
static struct st_table *osio_table(const char *dir, const char *phase,
				   struct st_table_meta *m)
{
	struct st_table *t;
	char err[512];

	cr_assert_eq(st_table_new(&t, NULL), 0);
	st_table_meta_init(m);
	if (phase)
		cr_assert_eq(st_phase_parse(phase, &m->phase), 0);
	cr_assert_eq(st_table_read_run(t, m, dir, 0, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(st_table_finish(t), 0);
	return t;
}

Test(tools_table_read, window_and_file_collectives_and_phases)
{
	const struct st_table_group *g;
	struct st_table_meta m;
	struct st_table *t;
	char dir[256];

	scratch_dir(dir, sizeof(dir));
	osio_run(dir);
	t = osio_table(dir, NULL, &m);
	cr_expect_eq(st_table_nops(t), 3);
	g = group_of(t, "MPI_Win_fence", 0);
	cr_assert_eq(g->n_in, 2);
	cr_expect_float_eq(g->x[0], 350.0, 1e-6);
	cr_expect_float_eq(g->x[1], 700.0, 1e-6);
	cr_expect_float_eq(op_of(t, "MPI_Win_fence")->wait_ns, 400.0, 1e-6);
	/* d of a collective write: what one rank wrote. */
	g = group_of(t, "MPI_File_write_all", 64);
	cr_assert_eq(g->n_in, 1);
	cr_expect_float_eq(g->x[0], 5100.0, 1e-6);
	g = group_of(t, "MPI_File_close", 0);
	cr_expect_float_eq(g->x[0], 650.0, 1e-6);
	cr_expect_eq(m.incomplete + m.calls_missing + m.calls_unsynced, 0);
	st_table_meta_release(&m);
	st_table_free(t);

	t = osio_table(dir, "1", &m);
	cr_expect_eq(st_table_nops(t), 1);
	cr_expect_eq(op_of(t, "MPI_Win_fence")->samples, 2);
	cr_expect_eq(m.phases, 2);
	st_table_meta_release(&m);
	st_table_free(t);

	t = osio_table(dir, "level=2", &m);
	cr_expect_eq(st_table_nops(t), 2);
	cr_expect_eq(op_of(t, "MPI_File_write_all")->samples, 1);
	cr_expect_eq(op_of(t, "MPI_File_close")->samples, 1);
	st_table_meta_release(&m);
	st_table_free(t);

	t = osio_table(dir, "3", &m);
	cr_expect_eq(st_table_nops(t), 0);
	cr_expect_eq(m.phases, 0);
	st_table_meta_release(&m);
	st_table_free(t);
}
