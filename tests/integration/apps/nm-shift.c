/*
 * nm-shift.c: non-periodic shifts by MPI_Sendrecv.  Each step every
 * rank computes, then shifts a message of B bytes to its right
 * neighbour (MPI_Sendrecv to the right, from the left: the first rank
 * receives from MPI_PROC_NULL, the last sends to it), computes again
 * (the odd ranks half as much), and shifts one back to the left; every
 * fourth step the two ranks of a pair also swap one (both halves real).
 * The sizes cycle through 8 B, 1 KiB and 16 KiB.  A network-model
 * validation app of the tuning set (tools/scripts/predict-validate.py).
 * Usage: nm-shift [steps] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	static const int sizes[] = { 8, 1024, 16384 };
	int steps = argc > 1 ? atoi(argv[1]) : 600;
	int reps = argc > 2 ? atoi(argv[2]) : 6;
	int rank, size, left, right, peer, s, n;
	double a[4096] = { 1 }, sum = 0;
	char *sb = calloc(16384, 1), *rb = calloc(16384, 1);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
	peer = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
	for (s = 0; s < steps; s++) {
		n = sizes[s % 3];
		sum += nm_work(a, 4096, reps);
		nm_fill(sb, (size_t)n, s);
		MPI_Sendrecv(sb, n, MPI_BYTE, right, 0, rb, n, MPI_BYTE, left,
			     0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sum += nm_work(a, 4096, rank % 2 ? reps / 2 : reps) + rb[0];
		MPI_Sendrecv(sb, n, MPI_BYTE, left, 1, rb, n, MPI_BYTE, right,
			     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (s % 4 == 3)
			MPI_Sendrecv(sb, n, MPI_BYTE, peer, 2, rb, n,
				     MPI_BYTE, peer, 2, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE);
	}
	if (rank == 0)
		printf("nm-shift: %d steps, sum %.6e\n", steps, sum);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
