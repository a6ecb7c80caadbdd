/*
 * bsp.c: a bulk-synchronous loop: each rank relaxes its share of a 1-D
 * field (real floating-point work), then all ranks agree on the residual
 * with MPI_Allreduce.  Prints the final residual, so traced and untraced
 * runs can be compared.  Usage: bsp [iterations] [points per rank]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, it, i;
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	int n = argc > 2 ? atoi(argv[2]) : 20000;
	double *u, *v, local, global = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	u = malloc((size_t)(n + 2) * sizeof(*u));
	v = malloc((size_t)(n + 2) * sizeof(*v));
	if (!u || !v)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < n + 2; i++)
		u[i] = sin((double)(rank * n + i) * 0.001);
	for (it = 0; it < iters; it++) {
		local = 0;
		for (i = 1; i <= n; i++) {
			v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
			local += (v[i] - u[i]) * (v[i] - u[i]);
		}
		for (i = 1; i <= n; i++)
			u[i] = v[i];
		MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("bsp: %d ranks, %d iterations, residual %.12e\n", size,
		       iters, sqrt(global));
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
