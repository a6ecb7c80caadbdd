/*
 * nm-burst.c: concurrent messages to one peer.  Each step both ranks
 * start K messages of B bytes to each other at once (K MPI_Irecv, K
 * MPI_Isend, one MPI_Waitall), then compute.  A network-model
 * validation app (tools/scripts/predict-validate.py).  The messages are
 * written whole before they are sent, as data an application computed
 * is (nm_fill()); with 'write' 0 only their first byte is, and most of
 * the calloc'd send buffers' pages stay the kernel's zero page, cheap
 * to copy from (the form of the validations before 2026-11-26 11:00).
 * Usage: nm-burst [steps] [bytes] [K] [work] [write]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 400;
	int bytes = argc > 2 ? atoi(argv[2]) : 65536;
	int k = argc > 3 ? atoi(argv[3]) : 4;
	int reps = argc > 4 ? atoi(argv[4]) : 20;
	int write = argc > 5 ? atoi(argv[5]) : 1;
	int rank, size, peer, s, i;
	MPI_Request rq[64];
	MPI_Status st[64];
	double a[4096] = { 1 }, sum = 0;
	char *sb, *rb;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (k < 1 || k > 32)
		k = 4;
	sb = calloc((size_t)k, (size_t)bytes);
	rb = calloc((size_t)k, (size_t)bytes);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	peer = rank ^ 1;
	for (s = 0; s < steps && peer < size; s++) {
		for (i = 0; i < k; i++)
			MPI_Irecv(rb + (size_t)i * bytes, bytes, MPI_BYTE, peer,
				  i, MPI_COMM_WORLD, &rq[i]);
		if (write)
			nm_fill(sb, (size_t)k * (size_t)bytes, s);
		for (i = 0; i < k; i++) {
			sb[(size_t)i * bytes] = (char)s;
			MPI_Isend(sb + (size_t)i * bytes, bytes, MPI_BYTE,
				  peer, i, MPI_COMM_WORLD, &rq[k + i]);
		}
		MPI_Waitall(2 * k, rq, st);
		sum += nm_work(a, 4096, reps) + rb[0];
	}
	if (rank == 0)
		printf("nm-burst: %d steps, %d x %d B, sum %.6e\n", steps, k,
		       bytes, sum);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
