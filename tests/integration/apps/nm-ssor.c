/*
 * nm-ssor.c: an SSOR-like wavefront.  Each iteration sweeps the rows
 * forward, block by block: a rank waits for the boundary row of the
 * block from the rank before it (MPI_Recv), updates the block and passes
 * its own boundary on (MPI_Send); then the same backward.  Small
 * blocking messages in a pipeline, as in an LU/SSOR solver.  A
 * network-model validation app (tools/scripts/predict-validate.py).
 * Usage: nm-ssor [iterations] [blocks] [row bytes] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 40;
	int blocks = argc > 2 ? atoi(argv[2]) : 32;
	int bytes = argc > 3 ? atoi(argv[3]) : 2048;
	int reps = argc > 4 ? atoi(argv[4]) : 4;
	int rank, size, it, b;
	double a[4096] = { 1 }, sum = 0;
	char *row;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	row = calloc((size_t)bytes, 1);
	if (!row)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (it = 0; it < iters; it++) {
		for (b = 0; b < blocks; b++) {
			if (rank > 0)
				MPI_Recv(row, bytes, MPI_BYTE, rank - 1, b,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			sum += nm_work(a, 4096, reps) + row[0];
			if (rank + 1 < size)
				MPI_Send(row, bytes, MPI_BYTE, rank + 1, b,
					 MPI_COMM_WORLD);
		}
		for (b = 0; b < blocks; b++) {
			if (rank + 1 < size)
				MPI_Recv(row, bytes, MPI_BYTE, rank + 1, b,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			sum += nm_work(a, 4096, reps) + row[0];
			if (rank > 0)
				MPI_Send(row, bytes, MPI_BYTE, rank - 1, b,
					 MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("nm-ssor: %d iterations, sum %.6e\n", iters, sum);
	free(row);
	MPI_Finalize();
	return 0;
}
