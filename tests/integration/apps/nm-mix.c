/*
 * nm-mix.c: a halo exchange and an all-to-all.  Each step both ranks
 * trade four blocks of B bytes with their neighbour (MPI_Irecv and
 * MPI_Isend x 4, MPI_Waitall), compute, and every fourth step transpose
 * a matrix with MPI_Alltoall.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-mix [steps] [bytes] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 300;
	int bytes = argc > 2 ? atoi(argv[2]) : 65536;
	int reps = argc > 3 ? atoi(argv[3]) : 20;
	int rank, size, peer, s, i;
	double a[4096] = { 1 }, sum = 0;
	MPI_Request rq[8];
	MPI_Status st[8];
	char *sb, *rb, *ta, *tb;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sb = calloc(4, (size_t)bytes);
	rb = calloc(4, (size_t)bytes);
	ta = calloc((size_t)size, 32768);
	tb = calloc((size_t)size, 32768);
	if (!sb || !rb || !ta || !tb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	peer = rank ^ 1;
	for (s = 0; s < steps && peer < size; s++) {
		for (i = 0; i < 4; i++)
			MPI_Irecv(rb + (size_t)i * bytes, bytes, MPI_BYTE, peer,
				  i, MPI_COMM_WORLD, &rq[i]);
		nm_fill(sb, 4 * (size_t)bytes, s);
		for (i = 0; i < 4; i++)
			MPI_Isend(sb + (size_t)i * bytes, bytes, MPI_BYTE,
				  peer, i, MPI_COMM_WORLD, &rq[4 + i]);
		MPI_Waitall(8, rq, st);
		sum += nm_work(a, 4096, reps) + rb[0];
		if (s % 4 == 3) {
			nm_fill(ta, (size_t)size * 32768, s);
			MPI_Alltoall(ta, 32768, MPI_BYTE, tb, 32768, MPI_BYTE,
				     MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("nm-mix: %d steps, sum %.6e\n", steps, sum);
	free(sb);
	free(rb);
	free(ta);
	free(tb);
	MPI_Finalize();
	return 0;
}
