/*
 * nm-persist.c: a halo exchange on persistent requests.  Set up once
 * (MPI_Recv_init and MPI_Send_init of a face of B bytes and an edge of
 * B/16 bytes each way), each step starts all four (MPI_Startall),
 * computes the interior, waits (MPI_Waitall), and checks convergence the
 * old way: MPI_Reduce of four doubles to rank 0, then MPI_Bcast of its
 * verdict.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-persist [steps] [bytes] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 400;
	int bytes = argc > 2 ? atoi(argv[2]) : 32768;
	int reps = argc > 3 ? atoi(argv[3]) : 10;
	int rank, size, peer, s, i, edge;
	double a[4096] = { 1 }, r[4] = { 0 }, rt[4] = { 0 }, verdict[2] = { 0 };
	MPI_Request rq[4];
	MPI_Status st[4];
	char *sb, *rb;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	edge = bytes / 16 > 0 ? bytes / 16 : 1;
	sb = calloc((size_t)(bytes + edge), 1);
	rb = calloc((size_t)(bytes + edge), 1);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	peer = rank ^ 1;
	if (peer < size) {
		MPI_Recv_init(rb, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
			      &rq[0]);
		MPI_Recv_init(rb + bytes, edge, MPI_BYTE, peer, 1,
			      MPI_COMM_WORLD, &rq[1]);
		MPI_Send_init(sb, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
			      &rq[2]);
		MPI_Send_init(sb + bytes, edge, MPI_BYTE, peer, 1,
			      MPI_COMM_WORLD, &rq[3]);
	}
	for (s = 0; s < steps && peer < size; s++) {
		nm_fill(sb, (size_t)(bytes + edge), s);
		MPI_Startall(4, rq);
		r[s % 4] += nm_work(a, 4096, reps);
		MPI_Waitall(4, rq, st);
		r[0] += rb[0] + rb[bytes];
		MPI_Reduce(r, rt, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
		if (rank == 0)
			verdict[s % 2] = rt[0] + rt[1] + rt[2] + rt[3];
		MPI_Bcast(verdict, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	}
	if (peer < size)
		for (i = 0; i < 4; i++)
			MPI_Request_free(&rq[i]);
	if (rank == 0)
		printf("nm-persist: %d steps of %d B, verdict %.6e\n", steps,
		       bytes, verdict[0] + verdict[1]);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
