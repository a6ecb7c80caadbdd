/*
 * tests/unit/analysis-like.c: the (operation, size) pairs of a traced run
 * (tools/analysis/like.c), for 'synctrace bench --like'.  Every byte class maps
 * to the bench's operation at the bench's size, nonblocking, persistent
 * and large-count forms to their blocking one; what the bench cannot
 * measure is counted, not mapped; a run's pairs come out sorted and
 * distinct, rounded to powers of two when they name too many sizes; a
 * directory that is no run is refused with its message.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "tools/bench/micro-ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/like.h"
#include "tools-test.h"

static char dir[256];

static void setup(void)
{
	scratch_dir(dir, sizeof(dir));
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_like, .init = setup, .fini = teardown);

static int map(unsigned fn, uint32_t p, uint64_t sbytes, uint64_t rbytes,
	       uint64_t *size)
{
	struct st_event ev;

	fake_call(&ev, fn, 10, 20, 1);
	ev.comm_size = p;
	ev.sbytes = sbytes;
	ev.rbytes = rbytes;
	*size = 12345;
	return st_like_map(&ev, size);
}

Test(tools_like, each_class_maps_to_the_benchs_operation_and_size)
{
	static const struct {
		unsigned fn;
		uint32_t p;
		uint64_t s, r;
		int op;
		uint64_t size;
	} c[] = {
		{ ST_FN_MPI_ALLREDUCE, 2, 8, 8, ST_MICRO_ALLREDUCE, 8 },
		{ ST_FN_MPI_BARRIER, 4, 0, 0, ST_MICRO_BARRIER, 0 },
		/* A broadcast's receiver: the message it got. */
		{ ST_FN_MPI_BCAST, 4, 0, 64, ST_MICRO_BCAST, 64 },
		{ ST_FN_MPI_BCAST, 4, 64, 0, ST_MICRO_BCAST, 64 },
		/* Alltoall: the block sent to each rank. */
		{ ST_FN_MPI_ALLTOALL, 4, 4096, 4096, ST_MICRO_ALLTOALL, 1024 },
		{ ST_FN_MPI_IALLTOALL_C, 4, 4096, 4096, ST_MICRO_ALLTOALL,
		  1024 },
		/* Gather: one rank's block; scatter: the block it gets. */
		{ ST_FN_MPI_GATHER, 4, 16, 64, ST_MICRO_GATHER, 16 },
		{ ST_FN_MPI_ALLGATHERV, 4, 24, 96, ST_MICRO_ALLGATHERV, 24 },
		{ ST_FN_MPI_ISCATTER, 4, 128, 32, ST_MICRO_SCATTER, 32 },
		{ ST_FN_MPI_IREDUCE_SCATTER, 4, 64, 16,
		  ST_MICRO_REDUCE_SCATTER, 16 },
		{ ST_FN_MPI_REDUCE_INIT, 2, 40, 40, ST_MICRO_REDUCE, 40 },
		{ ST_FN_MPI_ALLREDUCE_INIT, 2, 8, 8, ST_MICRO_ALLREDUCE, 8 },
		{ ST_FN_MPI_ISSEND, 2, 512, 0, ST_MICRO_PINGPONG, 512 },
		{ ST_FN_MPI_SENDRECV_REPLACE, 2, 256, 256, ST_MICRO_SENDRECV,
		  256 },
	};
	uint64_t size;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		cr_expect_eq(map(c[i].fn, c[i].p, c[i].s, c[i].r, &size),
			     c[i].op, "case %zu: operation", i);
		cr_expect_eq(size, c[i].size, "case %zu: size %llu", i,
			     (unsigned long long)size);
	}
}

Test(tools_like, what_the_bench_lacks_is_not_mapped)
{
	unsigned fns[] = { ST_FN_MPI_RECV, ST_FN_MPI_NEIGHBOR_ALLGATHER,
			   ST_FN_MPI_INEIGHBOR_ALLGATHERV, ST_FN_MPI_WAITALL,
			   ST_FN_MPI_INIT };
	struct st_event ev;
	uint64_t size;
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		cr_expect_eq(map(fns[i], 2, 8, 8, &size), -1, "fn %u", fns[i]);
	/* The root side of an inter-communicator: no block to size. */
	fake_call(&ev, ST_FN_MPI_GATHER, 1, 2, 1);
	ev.comm_size = 2;
	ev.root = ST_RANK_ROOT;
	ev.rbytes = 64;
	cr_expect_eq(st_like_map(&ev, &size), -2);
	ev.root = ST_RANK_PROC_NULL;
	cr_expect_eq(st_like_map(&ev, &size), -2);
	fake_call(&ev, ST_FN_MPI_ISEND, 1, 2, 1);
	ev.peer = ST_RANK_PROC_NULL;
	cr_expect_eq(st_like_map(&ev, &size), -2);
	/*
	 * An MPI_Sendrecv with one half MPI_PROC_NULL is measured as an
	 * MPI_Sendrecv (as ping-pongs, they made the launch's small
	 * collectives dearer: tools/analysis/like.c); its receiving side
	 * is the sender's.
	 */
	fake_call(&ev, ST_FN_MPI_SENDRECV, 1, 2, 1);
	ev.comm_size = 2;
	ev.peer = 1;
	ev.peer2 = ST_RANK_PROC_NULL;
	ev.sbytes = 8;
	cr_expect_eq(st_like_map(&ev, &size), ST_MICRO_SENDRECV);
	cr_expect_eq(size, 8);
	ev.peer = ST_RANK_PROC_NULL;
	ev.peer2 = 1;
	ev.sbytes = 0;
	ev.rbytes = 8;
	cr_expect_eq(st_like_map(&ev, &size), -2);
	/* Only call records are operations. */
	fake_call(&ev, ST_FN_MPI_ALLREDUCE, 1, 2, 1);
	ev.kind = ST_REC_START;
	cr_expect_eq(st_like_map(&ev, &size), -1);
}

static void rank_file(int rank, const unsigned *fn, const uint64_t *sbytes,
		      int n)
{
	struct fake_rank fr;
	struct st_event ev;
	int i;

	fake_rank_open(&fr, dir, rank, "h", "0");
	for (i = 0; i < n; i++) {
		fake_call(&ev, fn[i], 100 * (uint64_t)i, 100 * (uint64_t)i + 50,
			  1);
		ev.comm = 1ull << 32;
		ev.comm_size = 2;
		ev.seq = (uint64_t)i + 1;
		ev.sbytes = sbytes[i];
		ev.rbytes = sbytes[i];
		if (fn[i] == ST_FN_MPI_ISEND || fn[i] == ST_FN_MPI_IRECV) {
			ev.seq = 0;
			ev.peer = 1 - rank;
			ev.req = (uint64_t)i + 1;
		}
		fake_append(&fr, &ev);
	}
	fake_rank_close(&fr);
}

Test(tools_like, a_runs_pairs_in_first_call_order_and_distinct)
{
	unsigned fn[] = { ST_FN_MPI_ALLTOALL, ST_FN_MPI_ALLREDUCE,
			  ST_FN_MPI_ISEND, ST_FN_MPI_IRECV, ST_FN_MPI_WAITALL,
			  ST_FN_MPI_ALLREDUCE, ST_FN_MPI_ALLREDUCE,
			  ST_FN_MPI_NEIGHBOR_ALLGATHER };
	uint64_t sb[] = { 2048, 64, 512, 0, 0, 8, 64, 8 };
	struct st_like like;
	char buf[256], err[512];

	fake_index(dir, 2, 1);
	rank_file(0, fn, sb, 8);
	rank_file(1, fn, sb, 7);
	cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), 0, "%s", err);
	/* The run's pairs, then the network model's for its message. */
	/*
	 * Collectives 50 ns after the last call: the bench's least gap.
	 * The 64 B allreduce follows the alltoall once and the 8 B
	 * allreduce once: no call more than half the time, no "/".
	 */
	cr_expect_str_eq(buf, "alltoall:1024@25,allreduce:64@25,"
			 "pingpong:512,allreduce:8@25,late:512,burst1:512,"
			 "burst2:512,sendrecv:512,sbusy:512,rbusy:512,"
			 "xbusy:512,xbusy2:512");
	cr_expect_eq(like.inflight, 1);
	cr_expect_eq(like.nranks, 2);
	cr_expect_eq(like.calls, 15);
	cr_expect_eq(like.mapped, 10, "3 allreduce, alltoall, isend x 2");
	cr_expect_eq(like.unmapped, 1, "the neighbourhood collective");
	cr_expect_str_eq(like.unmapped_fn, "MPI_Neighbor_allgather");
	cr_expect_eq(like.npairs, 12);
	cr_expect_eq(like.binned, 0);
	/* Too short a buffer is an error, not a cut list. */
	cr_expect_eq(st_like_pairs(dir, buf, 20, &like, err, sizeof(err)),
		     -E2BIG);
}

Test(tools_like, too_many_sizes_are_rounded_to_powers_of_two)
{
	unsigned fn[100];
	uint64_t sb[100];
	struct st_like like;
	char buf[4096], err[512];
	int i;

	/* 100 sizes from 1000 to 100000 B: over the bench's 64. */
	for (i = 0; i < 100; i++) {
		fn[i] = ST_FN_MPI_ALLREDUCE;
		sb[i] = 1000 * (uint64_t)(i + 1);
	}
	fake_index(dir, 1, 1);
	rank_file(0, fn, sb, 100);
	cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), 0, "%s", err);
	cr_expect_eq(like.binned, 1);
	/*
	 * 1000 rounds to 1024; 100000 to 131072 (above 2^16 * sqrt 2).
	 * The one call rounded to 2048, of 2000 B, follows one of 1024:
	 * its warm-up; the others follow calls of their own size.
	 */
	cr_expect_str_eq(buf, "allreduce:1024@25,"
			 "allreduce:2048@25/allreduce:1024,"
			 "allreduce:4096@25,allreduce:8192@25,"
			 "allreduce:16384@25,allreduce:32768@25,"
			 "allreduce:65536@25,allreduce:131072@25");
}

/*
 * Rank 'rank' of a run of 'n' steps: an MPI_Send of 64 B, then after
 * 'gap_us[k]' us (step k) an 8 B MPI_Allreduce (seq k + 1), then after
 * 'gap_us2[k]' an MPI_Bcast of 4 B (seq k + 1 on its own comm).
 */
static void gap_file(int rank, const long *gap_us, const long *gap_us2,
		     int n)
{
	struct fake_rank fr;
	struct st_event ev;
	uint64_t t = 1000000;
	int k;

	fake_rank_open(&fr, dir, rank, "h", "0");
	for (k = 0; k < n; k++) {
		fake_call(&ev, ST_FN_MPI_SEND, t, t + 1000, 1);
		ev.comm = 1ull << 32;
		ev.comm_size = 2;
		ev.peer = 1 - rank;
		ev.sbytes = 64;
		fake_append(&fr, &ev);
		t += 1000 + 1000 * (uint64_t)gap_us[k];
		fake_call(&ev, ST_FN_MPI_ALLREDUCE, t, t + 2000, 1);
		ev.comm = 1ull << 32;
		ev.comm_size = 2;
		ev.seq = (uint64_t)k + 1;
		ev.sbytes = ev.rbytes = 8;
		fake_append(&fr, &ev);
		t += 2000 + 1000 * (uint64_t)gap_us2[k];
		fake_call(&ev, ST_FN_MPI_BCAST, t, t + 2000, 1);
		ev.comm = (1ull << 32) + 1;
		ev.comm_size = 2;
		ev.seq = (uint64_t)k + 1;
		ev.root = 0;
		ev.sbytes = ev.rbytes = 4;
		fake_append(&fr, &ev);
		t += 2000 + 100000;
	}
	fake_rank_close(&fr);
}

/*
 * Each collective pair gets the run's quiet time before it: per
 * instance the longer rank's time from its last call's exit, the median
 * over the instances, whole us, at least 25, at most 2000.  Here the
 * allreduce instances' longer ranks wait 300, 500 (rank 1), 400 us:
 * 400, where the median of all the ranks' calls would be 300 (100, 300,
 * 300, 500, 400, 200); the broadcast's 5000 us are cut to 2000.  The
 * broadcast follows the allreduce on every rank, which is its warm-up
 * ("/allreduce:8"); the allreduce follows a send, which is none.
 */
Test(tools_like, a_collectives_gap_is_the_runs_quiet_time_before_it)
{
	long a0[] = { 300, 100, 400 }, a1[] = { 300, 500, 200 };
	long b0[] = { 5000, 5000, 10 }, b1[] = { 5000, 5000, 10 };
	struct st_like like;
	char buf[256], err[512];

	fake_index(dir, 2, 1);
	gap_file(0, a0, b0, 3);
	gap_file(1, a1, b1, 3);
	cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(buf, "pingpong:64,allreduce:8@400,"
			 "bcast:4@2000/allreduce:8,"
			 "late:64,burst1:64,burst2:64,sendrecv:64,sbusy:64,"
			 "rbusy:64,xbusy:64,xbusy2:64");
	cr_expect_eq(like.gap_max_us, 2000);
	cr_expect_eq(like.warm_other, 1);
	/* Short gaps: the bench's least, 25 us. */
	{
		long s[] = { 3, 4, 5 };
		char path[300];

		snprintf(path, sizeof(path), "%s/rank-1.st", dir);
		cr_assert_eq(unlink(path), 0);
		fake_index(dir, 1, 1);
		gap_file(0, s, s, 3);
		cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
					   sizeof(err)), 0, "%s", err);
		cr_expect_str_eq(buf, "pingpong:64,allreduce:8@25,"
				 "bcast:4@25/allreduce:8,late:64,burst1:64,burst2:64,"
				 "sendrecv:64,sbusy:64,rbusy:64,xbusy:64,"
				 "xbusy2:64");
		cr_expect_eq(like.gap_max_us, 25);
	}
}

/*
 * Rank 'rank' of a run of 'n' steps: in step k a call of 'prev[k]'
 * (MPI_Sendrecv of 'bytes[k]' B each way, MPI_Alltoallv of 'bytes[k]'
 * B to each of the 2 ranks, MPI_Barrier, or MPI_Wait), then after 100
 * us a 4 B MPI_Alltoall (seq k + 1).
 */
static void warm_file(int rank, const unsigned *prev, const uint64_t *bytes,
		      int n)
{
	struct fake_rank fr;
	struct st_event ev;
	uint64_t t = 1000000, cseq = 0;
	int k;

	fake_rank_open(&fr, dir, rank, "h", "0");
	for (k = 0; k < n; k++) {
		fake_call(&ev, prev[k], t, t + 1000, 1);
		ev.comm = 1ull << 32;
		ev.comm_size = 2;
		ev.peer = 1 - rank;
		ev.sbytes = ev.rbytes = bytes[k];
		if (prev[k] == ST_FN_MPI_ALLTOALLV)
			ev.sbytes = ev.rbytes = 2 * bytes[k];
		if (st_fn_desc(prev[k])->kind == ST_KIND_COLL)
			ev.seq = ++cseq;
		fake_append(&fr, &ev);
		t += 101000;
		fake_call(&ev, ST_FN_MPI_ALLTOALL, t, t + 2000, 1);
		ev.comm = 1ull << 32;
		ev.comm_size = 2;
		ev.seq = ++cseq;
		ev.sbytes = ev.rbytes = 8;
		fake_append(&fr, &ev);
		t += 2000 + 100000;
	}
	fake_rank_close(&fr);
}

/*
 * A collective's warm-up is the call more than half of its instances
 * followed (on the rank with the longer quiet time): an MPI_Alltoall
 * after an MPI_Alltoallv of 96 KiB blocks in 2 of 3 instances, after a
 * barrier in 1, is warmed up by the MPI_Alltoallv (of sizes that vary,
 * at their median); one after MPI_Sendrecv of 16 KiB by that; one
 * after MPI_Wait (no operation the bench makes) or after itself by
 * itself (no "/").
 */
Test(tools_like, a_collectives_warm_up_is_the_call_before_it)
{
	const unsigned a2av[] = { ST_FN_MPI_ALLTOALLV, ST_FN_MPI_BARRIER,
				  ST_FN_MPI_ALLTOALLV };
	const unsigned srv[] = { ST_FN_MPI_SENDRECV, ST_FN_MPI_SENDRECV,
				 ST_FN_MPI_SENDRECV };
	const unsigned wait[] = { ST_FN_MPI_WAIT, ST_FN_MPI_WAIT,
				  ST_FN_MPI_WAIT };
	const uint64_t big[] = { 98304, 0, 98304 },
		       mid[] = { 16384, 16384, 16384 }, none[] = { 0, 0, 0 };
	struct st_like like;
	char buf[512], err[512];

	fake_index(dir, 2, 1);
	warm_file(0, a2av, big, 3);
	warm_file(1, a2av, big, 3);
	cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(buf, "alltoallv:98304@100/alltoall:4,"
			 "alltoall:4@100/alltoallv:98304,"
			 "barrier:0@100/alltoall:4");
	cr_expect_eq(like.warm_other, 3);
	warm_file(0, srv, mid, 3);
	warm_file(1, srv, mid, 3);
	cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(buf, "sendrecv:16384,alltoall:4@100/sendrecv:16384");
	/* Of sizes that vary, the median: 16, 96 and 32 KiB give 32. */
	{
		const unsigned a3[] = { ST_FN_MPI_ALLTOALLV,
					ST_FN_MPI_ALLTOALLV,
					ST_FN_MPI_ALLTOALLV };
		const uint64_t vary[] = { 16384, 98304, 32768 };

		warm_file(0, a3, vary, 3);
		warm_file(1, a3, vary, 3);
		cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
					   sizeof(err)), 0, "%s", err);
		cr_expect(strstr(buf, "alltoall:4@100/alltoallv:32768,"),
			  "%s", buf);
	}
	warm_file(0, wait, none, 3);
	warm_file(1, wait, none, 3);
	cr_assert_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(buf, "alltoall:4@100");
	cr_expect_eq(like.warm_other, 0);
}

Test(tools_like, refusals)
{
	unsigned fn[] = { ST_FN_MPI_WAITALL };
	uint64_t sb[] = { 0 };
	struct st_like like;
	char buf[256], err[512];

	cr_expect_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), -ENOENT);
	cr_expect(strstr(err, "not a synctrace run"), "%s", err);
	fake_index(dir, 1, 1);
	rank_file(0, fn, sb, 1);
	cr_expect_eq(st_like_pairs(dir, buf, sizeof(buf), &like, err,
				   sizeof(err)), -ENOENT);
	cr_expect(strstr(err, "no operation that synctrace bench measures "
			 "(1 call read)"), "%s", err);
}
