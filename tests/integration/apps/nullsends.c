/*
 * tests/integration/apps/nullsends.c: many requests that complete at
 * once, cheaply: N MPI_Isend to MPI_PROC_NULL (MPI completes each in
 * the call and gives it the builtin handle of a completed send), all
 * waited for by one MPI_Waitall; then one message each way with the
 * other rank (MPI_Irecv, MPI_Isend, MPI_Waitall), checked.  No rank
 * waits for another in the loop, so it takes as long on a busy machine
 * as its calls do.
 *
 * Usage: nullsends [N] (default 20000).  Prints "nullsends: all ranks
 * ok" from rank 0; exit status non-zero on a wrong value.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* See bench-calls.c: a false warning on MPI_STATUSES_IGNORE. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

int main(int argc, char **argv)
{
	int rank, size, n, i, x = 7, mine, theirs = -1, bad, all;
	MPI_Request *q, r[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	n = argc > 1 ? atoi(argv[1]) : 20000;
	if (n < 1 || !(q = malloc((size_t)n * sizeof(*q)))) {
		fprintf(stderr, "usage: nullsends [N], N >= 1\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
		return 2;
	}
	for (i = 0; i < n; i++)
		MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
			  &q[i]);
	MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
	mine = 100 + rank;
	MPI_Irecv(&theirs, 1, MPI_INT, (rank + size - 1) % size, 1,
		  MPI_COMM_WORLD, &r[0]);
	MPI_Isend(&mine, 1, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD,
		  &r[1]);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	bad = theirs != 100 + (rank + size - 1) % size;
	MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("nullsends: %s\n", all ? "WRONG VALUES" : "all ranks ok");
	free(q);
	MPI_Finalize();
	return all != 0;
}
