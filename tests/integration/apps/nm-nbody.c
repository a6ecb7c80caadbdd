/*
 * nm-nbody.c: a particle code.  Each step every rank gathers all
 * positions (MPI_Allgather of B bytes a rank), computes the forces on
 * its own particles, and every fifth step sums the energy
 * (MPI_Allreduce of one double); every twentieth step rank 0 sends
 * new parameters to all (MPI_Bcast of 64 doubles).  A network-model
 * validation app (tools/scripts/predict-validate.py).
 * Usage: nm-nbody [steps] [bytes] [work]
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
	int rank, size, s;
	double a[4096] = { 1 }, par[64] = { 0 }, e = 0, tot = 0;
	char *mine, *all;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mine = calloc((size_t)bytes, 1);
	all = calloc((size_t)bytes * (size_t)size, 1);
	if (!mine || !all)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (s = 0; s < steps; s++) {
		nm_fill(mine, (size_t)bytes, s + rank);
		MPI_Allgather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE,
			      MPI_COMM_WORLD);
		e += nm_work(a, 4096, reps + (s + rank) % 3) + all[0] +
		     par[0];
		if (s % 5 == 4)
			MPI_Allreduce(&e, &tot, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
		if (s % 20 == 19) {
			if (rank == 0)
				par[s / 20 % 64] = tot;
			MPI_Bcast(par, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("nm-nbody: %d steps of %d B, energy %.6e\n", steps,
		       bytes, tot);
	free(mine);
	free(all);
	MPI_Finalize();
	return 0;
}
