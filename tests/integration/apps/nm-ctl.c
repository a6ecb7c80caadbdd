/*
 * nm-ctl.c: a halo exchange with a control message in flight.  Each
 * step every rank posts MPI_Irecv of its neighbour's face, starts
 * MPI_Isend of its own (the size alternates between a small and a large
 * face: 'face' bytes and a quarter of them), agrees on a 16-byte
 * control record (a residual and a flag) with the neighbour by
 * MPI_Sendrecv while the faces are in flight, computes, and completes
 * both faces by MPI_Waitall.  Every tenth step the ranks agree on a
 * global norm by MPI_Allreduce.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-ctl [steps] [face] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 400;
	int face = argc > 2 ? atoi(argv[2]) : 131072;
	int reps = argc > 3 ? atoi(argv[3]) : 10;
	int rank, size, peer, s, n;
	double a[4096] = { 1 }, sum = 0, ctl[2], got[2], norm;
	char *sb, *rb;
	MPI_Request rq[2];
	MPI_Status sts[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (face < 64)
		face = 64;
	sb = calloc((size_t)face, 1);
	rb = calloc((size_t)face, 1);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	peer = rank ^ 1;
	for (s = 0; s < steps && peer < size; s++) {
		n = s % 2 ? face / 4 : face;
		nm_fill(sb, (size_t)n, s);
		MPI_Irecv(rb, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(sb, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &rq[1]);
		ctl[0] = sum * 1e-9;
		ctl[1] = s;
		MPI_Sendrecv(ctl, 2, MPI_DOUBLE, peer, 2, got, 2, MPI_DOUBLE,
			     peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sum += nm_work(a, 4096, reps) + got[1] * 1e-12;
		MPI_Waitall(2, rq, sts);
		sum += rb[n - 1] * 1e-9;
		if (s % 10 == 9) {
			MPI_Allreduce(&sum, &norm, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
			sum = norm * 0.5;
		}
	}
	if (rank == 0)
		printf("nm-ctl: %d steps, sum %.6e\n", steps, sum);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
