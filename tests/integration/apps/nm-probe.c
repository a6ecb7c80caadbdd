/*
 * nm-probe.c: messages of unknown size.  Each step every rank sends its
 * neighbour a message whose size changes from step to step (1 KiB to
 * 256 KiB, across the eager limit) with MPI_Isend; the neighbour learns
 * the size with MPI_Probe and MPI_Get_count, receives it with MPI_Recv,
 * computes, and completes its send with MPI_Wait.  Every eighth step
 * each rank confirms with a synchronous 8-byte MPI_Ssend to the other,
 * received by MPI_Recv.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-probe [steps] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

#define MSG_MAX 262144

static int msg_size(int step, int rank)
{
	static const int sizes[] = { 1024, 262144, 8192, 65536, 2048,
				     131072, 32768, 4096 };

	return sizes[(step * 3 + rank) % 8];
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 400;
	int reps = argc > 2 ? atoi(argv[2]) : 10;
	int rank, size, peer, s, n, got = 0;
	double a[4096] = { 1 }, sum = 0;
	long ok = 0;
	char *sb, *rb;
	MPI_Request rq;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sb = calloc(MSG_MAX, 1);
	rb = calloc(MSG_MAX, 1);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	peer = rank ^ 1;
	for (s = 0; s < steps && peer < size; s++) {
		n = msg_size(s, rank);
		nm_fill(sb, (size_t)n, s);
		MPI_Isend(sb, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &rq);
		MPI_Probe(peer, 1, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &got);
		MPI_Recv(rb, got, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		ok += got == msg_size(s, peer);
		sum += nm_work(a, 4096, reps) + rb[0];
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		if (s % 8 == 7) {
			double v = sum, w = 0;

			if (rank == 0) {
				MPI_Ssend(&v, 1, MPI_DOUBLE, peer, 2,
					  MPI_COMM_WORLD);
				MPI_Recv(&w, 1, MPI_DOUBLE, peer, 2,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(&w, 1, MPI_DOUBLE, peer, 2,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Ssend(&v, 1, MPI_DOUBLE, peer, 2,
					  MPI_COMM_WORLD);
			}
			sum += w * 1e-12;
		}
	}
	if (rank == 0)
		printf("nm-probe: %d steps, %ld sizes right, sum %.6e\n", steps,
		       ok, sum);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
