/*
 * tests/integration/apps/rmarepeat.c: the repeat path of one-sided calls
 * (t-rmarepeat.sh).  Each rank makes MPI_Put, MPI_Win_flush,
 * MPI_Accumulate, MPI_Get and MPI_Win_flush_all from the same call
 * sites N times in passive-target epochs, changing one thing at a time
 * between runs of repeats, then MPI_Win_fence from one call site N / 4
 * times, and prints what every record of those calls must say:
 *
 *	- the target changes every 20 iterations: this rank, the other,
 *	  MPI_PROC_NULL (no bytes);
 *	- the origin count every 50 (10 before the others), the
 *	  datatype every 40 (MPI_INT64_T, MPI_INT32_T), the target
 *	  displacement every 25, the accumulate op every 30;
 *	- the window every 50: window A, or window B, which is freed and
 *	  allocated again every 100 iterations, in the middle of a run of
 *	  calls on it (so that a new window may take the handle of the
 *	  one freed while the call sites stay the same);
 *	- the fences' assert every 3 fences; their sequence numbers count
 *	  on window A.
 *
 *	rmarepeat N
 *
 * Output lines, in the order of the calls:
 *
 *	call,RANK,FN,WIN,PEER,OFFSET,SBYTES,RBYTES,OP,SEQ,ARG
 *
 * WIN the window's place among the windows this rank allocated (0 for
 * A, then 1, 2... for B's), PEER the target (empty for calls without
 * one, "proc_null" for MPI_PROC_NULL), OP "sum", "max" or empty, SEQ
 * a fence's number or empty, ARG the assert as records say it
 * (ST_ASSERT_*); then "rmarepeat: all ranks ok" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Each origin writes its own half of a window: rank % 2 says which. */
#define WIN_BYTES 128
#define NO_PEER (-1000)	/* line(): a call without a target */

static int rank;

static void line(const char *fn, int win, int peer, long off, long s,
		 long r, const char *op, long seq, int arg)
{
	char p[32] = "", q[32] = "";

	if (peer == MPI_PROC_NULL)
		snprintf(p, sizeof(p), "proc_null");
	else if (peer != NO_PEER)
		snprintf(p, sizeof(p), "%d", peer);
	if (seq > 0)
		snprintf(q, sizeof(q), "%ld", seq);
	printf("call,%d,%s,%d,%s,%ld,%ld,%ld,%s,%s,%d\n", rank, fn, win, p,
	       off, s, r, op, q, arg);
}

static MPI_Win make(int64_t **base)
{
	MPI_Win w;

	MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, base,
			 &w);
	MPI_Win_lock_all(0, w);
	return w;
}

int main(int argc, char **argv)
{
	int64_t sbuf[4] = { 1, 2, 3, 4 }, rbuf[4], *abase, *bbase;
	MPI_Win a, b, win;
	MPI_Datatype type;
	MPI_Op op;
	long n, i, off, seq = 0;
	int size, other, made = 0, widx, bidx, target, count, tsize, assert;
	int bad = 0;

	n = argc > 1 ? atol(argv[1]) : 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (n < 1 || size % 2) {
		fprintf(stderr, "usage: rmarepeat N, on an even number of "
			"ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	other = rank ^ 1;
	a = make(&abase);
	b = make(&bbase);
	bidx = made = 1;
	for (i = 0; i < n; i++) {
		if (i % 100 == 75) {
			MPI_Win_unlock_all(b);
			MPI_Win_free(&b);
			b = make(&bbase);
			bidx = ++made;
		}
		count = 1 + (int)((i + 10) / 50 % 3);
		type = i / 40 % 2 ? MPI_INT32_T : MPI_INT64_T;
		tsize = i / 40 % 2 ? 4 : 8;
		op = i / 30 % 2 ? MPI_MAX : MPI_SUM;
		off = 64 * (rank % 2) + 8 * (i / 25 % 2);
		win = i / 50 % 2 ? b : a;
		widx = i / 50 % 2 ? bidx : 0;
		target = i / 20 % 3 == 2 ? MPI_PROC_NULL
		       : i / 20 % 3 ? other : rank;
#define B(x) (target == MPI_PROC_NULL ? 0 : (long)(x))
		MPI_Put(sbuf, count, type, target, off, count, type, win);
		line("MPI_Put", widx, target, off, B(count * tsize), 0, "", 0,
		     0);
		MPI_Win_flush(target == MPI_PROC_NULL ? rank : target, win);
		line("MPI_Win_flush", widx,
		     target == MPI_PROC_NULL ? rank : target, 0, 0, 0, "", 0, 0);
		MPI_Accumulate(sbuf, count, type, target, 32 + off, count,
			       type, op, win);
		line("MPI_Accumulate", widx, target, 32 + off,
		     B(count * tsize), 0, i / 30 % 2 ? "max" : "sum", 0, 0);
		MPI_Get(rbuf, count, type, target, off, count, type, win);
		line("MPI_Get", widx, target, off, 0, B(count * tsize), "", 0,
		     0);
		MPI_Win_flush_all(win);
		line("MPI_Win_flush_all", widx, NO_PEER, 0, 0, 0, "", 0, 0);
		if (target != MPI_PROC_NULL && tsize == 8 &&
		    rbuf[count - 1] != sbuf[count - 1])
			bad = 1;
	}
	MPI_Win_unlock_all(a);
	for (i = 0; i < n / 4; i++) {
		assert = i / 3 % 2 ? MPI_MODE_NOSTORE : 0;
		MPI_Win_fence(assert, a);
		line("MPI_Win_fence", 0, NO_PEER, 0, 0, 0, "", ++seq,
		     i / 3 % 2 ? 0x02 : 0);
	}
	MPI_Win_unlock_all(b);
	MPI_Win_free(&b);
	MPI_Win_free(&a);
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf(bad ? "rmarepeat: wrong results\n"
			   : "rmarepeat: all ranks ok\n");
	MPI_Finalize();
	return bad;
}
