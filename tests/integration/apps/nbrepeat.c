/*
 * tests/integration/apps/nbrepeat.c: the repeat path of nonblocking calls
 * and their completions (t-nbrepeat.sh).  Ranks 2k and 2k+1 exchange
 * messages from the same call sites N times, changing one thing at a
 * time between runs of repeats, and each rank prints what every call
 * record and done record of its nonblocking calls must say:
 *
 *	- the count sent changes every 50 iterations (10 before the tag
 *	  does), so the received bytes (from the status) change with it;
 *	- the tag changes every 25 iterations; the receive is posted with
 *	  that tag, or in every other run of 100 iterations with
 *	  MPI_ANY_TAG, so that its tag comes from the status;
 *	- every fourth iteration completes the receive by polling MPI_Test
 *	  and the send by MPI_Wait, the others both by one MPI_Waitall,
 *	  half of them with MPI_STATUSES_IGNORE;
 *	- an MPI_Iallreduce and MPI_Wait change op every 30 iterations.
 *
 *	nbrepeat N
 *
 * Output lines, in the order of the calls:
 *
 *	call,RANK,K,FN,PEER,TAG,SBYTES,RBYTES	(the K-th nonblocking call)
 *	done,RANK,K,PEER,TAG,SBYTES,RBYTES	(its request completes)
 *
 * with PEER and TAG empty where they do not apply, -1 for MPI_ANY_TAG
 * not yet resolved; then "nbrepeat: all ranks ok" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* See bench-calls.c: a false warning on MPI_STATUSES_IGNORE. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, other, bad;
static long k;			/* nonblocking calls so far */

static void call(const char *fn, int peer, int tag, long s, long r)
{
	if (peer < 0)
		printf("call,%d,%ld,%s,,,%ld,%ld\n", rank, k, fn, s, r);
	else
		printf("call,%d,%ld,%s,%d,%d,%ld,%ld\n", rank, k, fn, peer,
		       tag, s, r);
	k++;
}

static void done(long which, int peer, int tag, long s, long r)
{
	if (peer < 0)
		printf("done,%d,%ld,,,%ld,%ld\n", rank, which, s, r);
	else
		printf("done,%d,%ld,%d,%d,%ld,%ld\n", rank, which, peer, tag,
		       s, r);
}

int main(int argc, char **argv)
{
	int64_t sbuf[4] = { 1, 2, 3, 4 }, rbuf[4], x, y;
	MPI_Status st[2];
	MPI_Request r[2];
	long n, i, kr, ks;
	int size, count, tag, flag, any;

	n = argc > 1 ? atol(argv[1]) : 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (n < 1 || size % 2) {
		fprintf(stderr, "usage: nbrepeat N, on an even number of "
			"ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	other = rank ^ 1;
	for (i = 0; i < n; i++) {
		count = 1 + (int)((i + 10) / 50 % 3);
		tag = 5 + (int)(i / 25 % 2);
		kr = k;
		any = i / 100 % 2;
		MPI_Irecv(rbuf, 4, MPI_INT64_T, other, any ? MPI_ANY_TAG : tag,
			  MPI_COMM_WORLD, &r[0]);
		call("MPI_Irecv", other, any ? -1 : tag, 0, 0);
		ks = k;
		MPI_Isend(sbuf, count, MPI_INT64_T, other, tag,
			  MPI_COMM_WORLD, &r[1]);
		call("MPI_Isend", other, tag, 8L * count, 0);
		if (i % 4 == 3) {
			do
				MPI_Test(&r[0], &flag, &st[0]);
			while (!flag);
			done(kr, other, tag, 0, 8L * count);
			MPI_Wait(&r[1], MPI_STATUS_IGNORE);
			done(ks, other, tag, 8L * count, 0);
		} else {
			MPI_Waitall(2, r, i % 2 ? st : MPI_STATUSES_IGNORE);
			done(kr, other, tag, 0, 8L * count);
			done(ks, other, tag, 8L * count, 0);
		}
		if (rbuf[count - 1] != count)
			bad = 1;
		x = rank + i;
		MPI_Iallreduce(&x, &y, 1, MPI_INT64_T,
			       i / 30 % 2 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD,
			       &r[0]);
		call("MPI_Iallreduce", -1, 0, 8, 8);
		MPI_Wait(&r[0], i % 3 ? &st[0] : MPI_STATUS_IGNORE);
		done(k - 1, -1, 0, 8, 8);
		if (y != (i / 30 % 2 ? (size - 1) + i :
			  (int64_t)size * (size - 1) / 2 + size * i))
			bad = 1;
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf(bad ? "nbrepeat: wrong results\n"
			   : "nbrepeat: all ranks ok\n");
	MPI_Finalize();
	return bad;
}
