/*
 * tests/integration/apps/jacobi.c: a 2-D Jacobi solver with one slow rank,
 * for the views.  The ranks form a Cartesian grid (MPI_Dims_create);
 * each owns an N x N block with a one-cell halo, and every iteration
 * exchanges its four edges with MPI_Irecv/MPI_Isend/MPI_Waitall (rows
 * contiguous, columns packed), sweeps its block, and agrees on the
 * residual with MPI_Allreduce.  Rank SLOW sleeps MS milliseconds before
 * each sweep, far longer than a sweep takes, so it arrives last at
 * nearly every MPI_Allreduce whatever the machine's load, and the
 * others wait for it there.
 *
 *	jacobi [ITER [SLOW [MS [N]]]]	(defaults 100, 1, 2, 32)
 *
 * Prints one line per rank, "jacobi: rank R of P at (X,Y) slow S",
 * then rank 0 "jacobi: ITER iterations, residual E", and exits 1 if the
 * residual is not finite.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define AT(i, j) a[(size_t)(i) * (n + 2) + (j)]

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int slow = argc > 2 ? atoi(argv[2]) : 1;
	int ms = argc > 3 ? atoi(argv[3]) : 2;
	int n = argc > 4 ? atoi(argv[4]) : 32;
	int rank, size, dims[2] = { 0, 0 }, periods[2] = { 0, 0 };
	int coords[2], up, down, left, right, it, i, j;
	double *a, *b, *sbuf[2], *rbuf[2], res = 0, local;
	struct timespec nap;
	MPI_Request req[8];
	MPI_Status sts[8];
	MPI_Comm grid;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
	MPI_Comm_rank(grid, &rank);
	MPI_Cart_coords(grid, rank, 2, coords);
	MPI_Cart_shift(grid, 0, 1, &up, &down);
	MPI_Cart_shift(grid, 1, 1, &left, &right);
	printf("jacobi: rank %d of %d at (%d,%d) slow %d\n", rank, size,
	       coords[0], coords[1], slow);
	a = calloc((size_t)(n + 2) * (n + 2), sizeof(*a));
	b = calloc((size_t)(n + 2) * (n + 2), sizeof(*b));
	for (i = 0; i < 2; i++) {
		sbuf[i] = malloc((size_t)n * sizeof(double));
		rbuf[i] = malloc((size_t)n * sizeof(double));
	}
	if (!a || !b)
		MPI_Abort(MPI_COMM_WORLD, 1);
	/* A hot top edge of the whole grid. */
	if (up == MPI_PROC_NULL)
		for (j = 0; j <= n + 1; j++)
			AT(0, j) = 1.0;
	nap.tv_sec = ms / 1000;
	nap.tv_nsec = (long)(ms % 1000) * 1000000L;
	for (it = 0; it < iters; it++) {
		for (i = 0; i < n; i++) {
			sbuf[0][i] = AT(i + 1, 1);
			sbuf[1][i] = AT(i + 1, n);
		}
		MPI_Irecv(&AT(0, 1), n, MPI_DOUBLE, up, 1, grid, &req[0]);
		MPI_Irecv(&AT(n + 1, 1), n, MPI_DOUBLE, down, 2, grid, &req[1]);
		MPI_Irecv(rbuf[0], n, MPI_DOUBLE, left, 3, grid, &req[2]);
		MPI_Irecv(rbuf[1], n, MPI_DOUBLE, right, 4, grid, &req[3]);
		MPI_Isend(&AT(1, 1), n, MPI_DOUBLE, up, 2, grid, &req[4]);
		MPI_Isend(&AT(n, 1), n, MPI_DOUBLE, down, 1, grid, &req[5]);
		MPI_Isend(sbuf[0], n, MPI_DOUBLE, left, 4, grid, &req[6]);
		MPI_Isend(sbuf[1], n, MPI_DOUBLE, right, 3, grid, &req[7]);
		MPI_Waitall(8, req, sts);
		if (left != MPI_PROC_NULL)
			for (i = 0; i < n; i++)
				AT(i + 1, 0) = rbuf[0][i];
		if (right != MPI_PROC_NULL)
			for (i = 0; i < n; i++)
				AT(i + 1, n + 1) = rbuf[1][i];
		if (rank == slow && ms > 0)
			nanosleep(&nap, NULL);
		local = 0;
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++) {
				double v = 0.25 * (AT(i - 1, j) + AT(i + 1, j) +
						   AT(i, j - 1) + AT(i, j + 1));

				local += (v - AT(i, j)) * (v - AT(i, j));
				b[(size_t)i * (n + 2) + j] = v;
			}
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++)
				AT(i, j) = b[(size_t)i * (n + 2) + j];
		MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, grid);
	}
	if (rank == 0)
		printf("jacobi: %d iterations, residual %.6g\n", iters,
		       sqrt(res));
	free(a);
	free(b);
	for (i = 0; i < 2; i++) {
		free(sbuf[i]);
		free(rbuf[i]);
	}
	MPI_Comm_free(&grid);
	MPI_Finalize();
	return isfinite(res) ? 0 : 1;
}
