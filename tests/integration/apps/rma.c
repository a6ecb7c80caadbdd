/*
 * tests/integration/apps/rma.c: one-sided communication in all three
 * synchronisation modes, on 2 ranks (ranks 0 and 1 pair up; any others
 * only join the collectives).  Every value moved is checked.  For each
 * call the app says what its trace record must say (apps/expect.h),
 * bytes from its counts and sizeof, which t-rma.sh checks.
 *
 *  1. MPI_Win_create (64 doubles, unit 8), MPI_Win_allocate (256 ints,
 *     unit 4), MPI_Win_create_dynamic.
 *  2. Fence epoch on the created window: Put 10 doubles to the peer at
 *     displacement 3, Get 5 from displacement 20, a Put to
 *     MPI_PROC_NULL; Accumulate 4 ints on the allocated window.
 *  3. PSCW: rank 0 posts to {1}, rank 1 starts {0}, Puts 6 doubles,
 *     Get_accumulates 2, completes; rank 0 waits (Win_test once after).
 *  4. Passive target: rank 1 locks rank 0 exclusively, Put, Fetch_and_op,
 *     Compare_and_swap, flush, Rput/Rget/Raccumulate/Rget_accumulate
 *     with Wait, unlock; both lock_all, flush_all, flush_local(_all),
 *     Win_sync, unlock_all.
 *  5. MPI_Win_free of the three windows.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

static int errors;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "rma: line %d: check failed: %s\n",  \
				__LINE__, #cond);                            \
			errors++;                                            \
		}                                                            \
	} while (0)

static int rank, size;

int main(int argc, char **argv)
{
	double *wbuf, src[16], got[8], two[2] = { 1, 1 }, res[2];
	int *abuf, iacc[4] = { 1, 2, 3, 4 }, fetched = -1, cmp = 0, swap = 9;
	int old = -1, i, peer, flag = 0, nb, igot[2] = { 0, 0 };
	MPI_Win win, awin, dwin;
	MPI_Group world, g;
	MPI_Request q;
	long ds = sizeof(double), is = sizeof(int);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	expect_open(rank);
	if (size < 2) {
		fprintf(stderr, "rma: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	peer = rank < 2 ? 1 - rank : MPI_PROC_NULL;
	MPI_Comm_group(MPI_COMM_WORLD, &world);

	/* 1. Windows. */
	MPI_Alloc_mem(64 * sizeof(double), MPI_INFO_NULL, &wbuf);
	for (i = 0; i < 64; i++)
		wbuf[i] = 100 * rank + i;
	for (i = 0; i < 16; i++)
		src[i] = 1000 * rank + i;
	MPI_Win_create(wbuf, 64 * sizeof(double), sizeof(double),
		       MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_allocate(256 * sizeof(int), sizeof(int), MPI_INFO_NULL,
			 MPI_COMM_WORLD, &abuf, &awin);
	for (i = 0; i < 256; i++)
		abuf[i] = rank;
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin);
	expect(1, "MPI_Win_create", "seq != \"\" && comm_size == %d", size);
	expect(1, "MPI_Win_allocate", "seq != \"\"");
	expect(1, "MPI_Win_create_dynamic", "seq != \"\"");
	expect_kind(1, "comm", "MPI_Win_create", "len == %ld && tsize == %ld",
		    64 * ds, ds);
	expect_kind(1, "comm", "MPI_Win_allocate", "len == %ld && "
		    "tsize == %ld", 256 * is, is);

	/* 2. Fence epoch. */
	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	MPI_Win_fence(0, awin);
	if (rank < 2) {
		MPI_Put(src, 10, MPI_DOUBLE, peer, 3, 10, MPI_DOUBLE, win);
		MPI_Get(got, 5, MPI_DOUBLE, peer, 20, 5, MPI_DOUBLE, win);
		MPI_Accumulate(iacc, 4, MPI_INT, peer, 8, 4, MPI_INT, MPI_SUM,
			       awin);
		expect(1, "MPI_Put", "peer == %d && offset == 3 && "
		       "sbytes == %ld && rbytes == 0 && tsize == %ld", peer,
		       10 * ds, ds);
		expect(1, "MPI_Get", "peer == %d && offset == 20 && "
		       "sbytes == 0 && rbytes == %ld", peer, 5 * ds);
		expect(1, "MPI_Accumulate", "peer == %d && offset == 8 && "
		       "sbytes == %ld && op == \"sum\"", peer, 4 * is);
	}
	MPI_Put(src, 7, MPI_DOUBLE, MPI_PROC_NULL, 0, 7, MPI_DOUBLE, win);
	expect(1, "MPI_Put", "peer == -3 && sbytes == 0 && rbytes == 0");
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	MPI_Win_fence(0, awin);
	expect(1, "MPI_Win_fence", "seq == 1 && arg == 8");
	expect(1, "MPI_Win_fence", "seq == 2 && arg == 16");
	expect(2, "MPI_Win_fence", "arg == 0");
	if (rank < 2) {
		for (i = 0; i < 10; i++)
			CHECK(wbuf[3 + i] == 1000 * peer + i);
		for (i = 0; i < 5; i++)
			CHECK(got[i] == 100 * peer + 20 + i);
		for (i = 0; i < 4; i++)
			CHECK(abuf[8 + i] == rank + iacc[i]);
	}

	/* 3. Post, start, complete, wait. */
	if (rank == 0) {
		MPI_Group_incl(world, 1, (int[]){ 1 }, &g);
		MPI_Win_post(g, MPI_MODE_NOSTORE, win);
		MPI_Win_wait(win);
		MPI_Win_post(g, 0, win);
		do
			MPI_Win_test(win, &flag);
		while (!flag);
		expect(1, "MPI_Win_post", "text == \"1\" && arg == 2");
		expect(1, "MPI_Win_post", "text == \"1\" && arg == 0");
		expect(1, "MPI_Win_wait", "1");
		expect(1, "MPI_Win_test", "1");
		for (i = 0; i < 6; i++)
			CHECK(wbuf[30 + i] == 1000 + i);
		CHECK(wbuf[40] == 41 && wbuf[41] == 42);
		MPI_Group_free(&g);
	} else if (rank == 1) {
		MPI_Group_incl(world, 1, (int[]){ 0 }, &g);
		MPI_Win_start(g, 0, win);
		MPI_Put(src, 6, MPI_DOUBLE, 0, 30, 6, MPI_DOUBLE, win);
		MPI_Get_accumulate(two, 2, MPI_DOUBLE, res, 2, MPI_DOUBLE, 0,
				   40, 2, MPI_DOUBLE, MPI_SUM, win);
		MPI_Win_complete(win);
		MPI_Win_start(g, 0, win);
		MPI_Win_complete(win);
		expect(2, "MPI_Win_start", "text == \"0\"");
		expect(2, "MPI_Win_complete", "1");
		expect(1, "MPI_Put", "peer == 0 && offset == 30 && "
		       "sbytes == %ld", 6 * ds);
		expect(1, "MPI_Get_accumulate", "peer == 0 && offset == 40 && "
		       "sbytes == %ld && rbytes == %ld && op == \"sum\"",
		       2 * ds, 2 * ds);
		CHECK(res[0] == 40 && res[1] == 41);
		MPI_Group_free(&g);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 4. Passive target. */
	if (rank == 1) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, awin);
		MPI_Put(iacc, 3, MPI_INT, 0, 100, 3, MPI_INT, awin);
		MPI_Fetch_and_op(&swap, &fetched, MPI_INT, 0, 0, MPI_REPLACE,
				 awin);
		MPI_Compare_and_swap(&swap, &cmp, &old, MPI_INT, 0, 1, awin);
		MPI_Win_flush(0, awin);
		MPI_Rput(iacc, 4, MPI_INT, 0, 110, 4, MPI_INT, awin, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Rget(igot, 2, MPI_INT, 0, 100, 2, MPI_INT, awin, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Raccumulate(iacc, 2, MPI_INT, 0, 120, 2, MPI_INT, MPI_MAX,
				awin, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Rget_accumulate(NULL, 0, MPI_INT, &nb, 1, MPI_INT, 0, 120,
				    1, MPI_INT, MPI_NO_OP, awin, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Win_unlock(0, awin);
		CHECK(fetched == 0);
		CHECK(old == 0);
		CHECK(nb == 1);
		CHECK(igot[0] == iacc[0] && igot[1] == iacc[1]);
		expect(1, "MPI_Win_lock", "peer == 0 && arg == 512");
		expect(1, "MPI_Win_unlock", "peer == 0");
		expect(1, "MPI_Win_flush", "peer == 0");
		expect(1, "MPI_Put", "peer == 0 && offset == 100 && "
		       "sbytes == %ld", 3 * is);
		expect(1, "MPI_Fetch_and_op", "peer == 0 && offset == 0 && "
		       "sbytes == %ld && rbytes == %ld && op == \"replace\"",
		       is, is);
		expect(1, "MPI_Compare_and_swap", "peer == 0 && offset == 1 && "
		       "sbytes == %ld && rbytes == %ld", 2 * is, is);
		expect(1, "MPI_Rput", "peer == 0 && sbytes == %ld && "
		       "req > 0", 4 * is);
		expect(1, "MPI_Rget", "peer == 0 && offset == 100 && "
		       "rbytes == %ld && req > 0", 2 * is);
		expect(1, "MPI_Raccumulate", "peer == 0 && sbytes == %ld && "
		       "op == \"max\" && req > 0", 2 * is);
		expect(1, "MPI_Rget_accumulate", "peer == 0 && sbytes == 0 && "
		       "rbytes == %ld && op == \"no_op\" && req > 0", is);
		expect_kind(4, "done", "MPI_Wait", "peer == 0");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		CHECK(abuf[0] == swap);
		CHECK(abuf[1] == swap);
		for (i = 0; i < 3; i++)
			CHECK(abuf[100 + i] == iacc[i]);
	}
	MPI_Win_lock_all(MPI_MODE_NOCHECK, awin);
	if (rank < 2)
		MPI_Get(&nb, 1, MPI_INT, peer, 200, 1, MPI_INT, awin);
	MPI_Win_flush_all(awin);
	if (rank < 2)
		MPI_Win_flush_local(peer, awin);
	MPI_Win_flush_local_all(awin);
	MPI_Win_sync(awin);
	MPI_Win_unlock_all(awin);
	CHECK(rank >= 2 || nb == peer);
	expect(1, "MPI_Win_lock_all", "arg == 1");
	expect(1, "MPI_Win_flush_all", "1");
	expect(rank < 2, "MPI_Win_flush_local", "peer == %d", peer);
	expect(1, "MPI_Win_flush_local_all", "1");
	expect(1, "MPI_Win_sync", "1");
	expect(1, "MPI_Win_unlock_all", "1");

	/* 5. Free. */
	MPI_Win_free(&dwin);
	MPI_Win_free(&awin);
	MPI_Win_free(&win);
	MPI_Free_mem(wbuf);
	MPI_Group_free(&world);
	expect(3, "MPI_Win_free", "seq != \"\"");

	MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM,
		      MPI_COMM_WORLD);
	if (rank == 0)
		printf("rma: %s\n", errors ? "ERRORS" : "all ranks ok");
	expect_close();
	MPI_Finalize();
	return errors != 0;
}
