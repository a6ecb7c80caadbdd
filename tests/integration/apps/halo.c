/*
 * halo.c: a 1-D halo exchange: each rank updates its block of a
 * diffusion problem (real work), trades boundary cells with both
 * neighbours on a ring by MPI_Isend/MPI_Irecv/MPI_Waitall, and every few
 * steps reduces the total with MPI_Allreduce.  Prints the final total.
 * Usage: halo [steps] [cells per rank] [halo width]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, size, step, i;
	int steps = argc > 1 ? atoi(argv[1]) : 300;
	int n = argc > 2 ? atoi(argv[2]) : 50000;
	int h = argc > 3 ? atoi(argv[3]) : 64;
	double *u, *v, sum = 0, total = 0;
	MPI_Request req[4];
	MPI_Status st[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	u = calloc((size_t)(n + 2 * h), sizeof(*u));
	v = calloc((size_t)(n + 2 * h), sizeof(*v));
	if (!u || !v)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = h; i < n + h; i++)
		u[i] = (double)((rank * n + i) % 97);
	for (step = 0; step < steps; step++) {
		int left = (rank + size - 1) % size, right = (rank + 1) % size;

		MPI_Irecv(u, h, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(u + n + h, h, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
			  &req[1]);
		MPI_Isend(u + h, h, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
			  &req[2]);
		MPI_Isend(u + n, h, MPI_DOUBLE, right, 1, MPI_COMM_WORLD,
			  &req[3]);
		MPI_Waitall(4, req, st);
		for (i = h; i < n + h; i++)
			v[i] = u[i] + 0.1 * (u[i - 1] - 2 * u[i] + u[i + 1]);
		memcpy(u + h, v + h, (size_t)n * sizeof(*u));
		if (step % 10 == 9) {
			sum = 0;
			for (i = h; i < n + h; i++)
				sum += u[i];
			MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("halo: %d ranks, %d steps, total %.9e\n", size, steps,
		       total);
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
