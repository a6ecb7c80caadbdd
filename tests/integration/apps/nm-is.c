/*
 * nm-is.c: an integer sort's key exchange.  Each iteration every rank
 * ranks its keys into buckets (compute), tells every rank how many keys
 * it will send it (MPI_Alltoall of one int), sends them
 * (MPI_Alltoallv: rank r sends K(i + r) keys to each rank in iteration
 * i, K cycling through 3, 6, 12 and 24 Ki keys, so the ranks' shares
 * differ and change), and checks the order locally; every tenth
 * iteration a checksum (MPI_Allreduce).  A network-model validation
 * app (tools/scripts/predict-validate.py), not looked at while the
 * model was built.
 * Usage: nm-is [iterations] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

static const int keys[4] = { 3072, 6144, 12288, 24576 };

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 600;
	int reps = argc > 2 ? atoi(argv[2]) : 6;
	int rank, size, it, q;
	double a[4096] = { 1 }, sum = 0;
	long check = 0, tot = 0;
	int *sc, *rc, *sd, *rd, *sk, *rk;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sc = calloc(4 * (size_t)size, sizeof(int));
	sk = calloc((size_t)size * 24576, sizeof(int));
	rk = calloc((size_t)size * 24576, sizeof(int));
	if (!sc || !sk || !rk)
		MPI_Abort(MPI_COMM_WORLD, 1);
	rc = sc + size;
	sd = rc + size;
	rd = sd + size;
	for (it = 0; it < iters; it++) {
		int k = keys[(it + rank) % 4];

		sum += nm_work(a, 4096, reps);
		for (q = 0; q < size; q++) {
			sc[q] = k;
			sd[q] = q * k;
		}
		nm_fill((char *)sk, (size_t)size * (size_t)k * sizeof(int), it);
		MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
		for (q = 0; q < size; q++)
			rd[q] = q ? rd[q - 1] + rc[q - 1] : 0;
		MPI_Alltoallv(sk, sc, sd, MPI_INT, rk, rc, rd, MPI_INT,
			      MPI_COMM_WORLD);
		for (q = 0; q < size; q++)
			check += rk[rd[q]] & 0xff;
		if (it % 10 == 9)
			MPI_Allreduce(&check, &tot, 1, MPI_LONG, MPI_SUM,
				      MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("nm-is: %d iterations, checksum %ld, sum %.6e\n", iters,
		       tot, sum);
	free(sc);
	free(sk);
	free(rk);
	MPI_Finalize();
	return 0;
}
