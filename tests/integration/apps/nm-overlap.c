/*
 * nm-overlap.c: computation overlapped with transfers.  Each step both
 * ranks post a receive and a send of B bytes to each other
 * (MPI_Irecv, MPI_Isend), compute, then wait (MPI_Waitall); every ten
 * steps an MPI_Allreduce.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-overlap [steps] [bytes] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 300;
	int bytes = argc > 2 ? atoi(argv[2]) : 262144;
	int reps = argc > 3 ? atoi(argv[3]) : 20;
	int rank, size, peer, s;
	double a[4096] = { 1 }, sum = 0, tot = 0;
	MPI_Request rq[2];
	MPI_Status st[2];
	char *sb, *rb;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sb = calloc((size_t)bytes, 1);
	rb = calloc((size_t)bytes, 1);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	peer = rank ^ 1;
	for (s = 0; s < steps && peer < size; s++) {
		MPI_Irecv(rb, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &rq[0]);
		nm_fill(sb, (size_t)bytes, s);
		MPI_Isend(sb, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &rq[1]);
		sum += nm_work(a, 4096, reps);
		MPI_Waitall(2, rq, st);
		sum += rb[0];
		if (s % 10 == 9)
			MPI_Allreduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("nm-overlap: %d steps of %d B, total %.6e\n", steps,
		       bytes, tot);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
