/*
 * nm-sweep.c: messages across the eager limit.  Each step rank 0 sends
 * one message with MPI_Send and rank 1 answers with one of the same
 * size, the size cycling from 1 KiB to 512 KiB; both compute in
 * between.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-sweep [steps] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	static const int sizes[] = { 1024, 8192, 32768, 65536, 131072,
				     524288 };
	int steps = argc > 1 ? atoi(argv[1]) : 300;
	int reps = argc > 2 ? atoi(argv[2]) : 20;
	int rank, size, s, n;
	double a[4096] = { 1 }, sum = 0;
	char *buf = calloc(524288, 1);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!buf || size < 2)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (s = 0; s < steps; s++) {
		n = sizes[s % 6];
		sum += nm_work(a, 4096, reps);
		if (rank == 0) {
			nm_fill(buf, (size_t)n, s);
			MPI_Send(buf, n, MPI_BYTE, 1, s, MPI_COMM_WORLD);
			MPI_Recv(buf, n, MPI_BYTE, 1, s, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, n, MPI_BYTE, 0, s, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			sum += nm_work(a, 4096, reps / 2);
			MPI_Send(buf, n, MPI_BYTE, 0, s, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("nm-sweep: %d steps, sum %.6e\n", steps, sum);
	free(buf);
	MPI_Finalize();
	return 0;
}
