/*
 * nm-pipe.c: blocking sends in a pipeline.  Rank 0 computes chunks and
 * sends each with MPI_Send; rank 1 receives each with MPI_Recv and
 * computes on it; every 'every' chunks rank 1 sends a small
 * acknowledgement back.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-pipe [chunks] [bytes] [work] [every]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int chunks = argc > 1 ? atoi(argv[1]) : 600;
	int bytes = argc > 2 ? atoi(argv[2]) : 16384;
	int reps = argc > 3 ? atoi(argv[3]) : 10;
	int every = argc > 4 ? atoi(argv[4]) : 8;
	int rank, size, c, ack = 0;
	double a[4096] = { 1 }, sum = 0;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	buf = calloc((size_t)bytes, 1);
	if (!buf || size < 2 || every < 1)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (c = 0; c < chunks; c++) {
		if (rank == 0) {
			sum += nm_work(a, 4096, reps);
			nm_fill(buf, (size_t)bytes, c);
			MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			if (c % every == every - 1)
				MPI_Recv(&ack, 1, MPI_INT, 1, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			sum += nm_work(a, 4096, reps) + buf[0];
			if (c % every == every - 1)
				MPI_Send(&c, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("nm-pipe: %d chunks of %d B, sum %.6e\n", chunks, bytes,
		       sum);
	free(buf);
	MPI_Finalize();
	return 0;
}
