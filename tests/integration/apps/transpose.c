/*
 * transpose.c: a distributed matrix transpose, as in a 2-D FFT: each rank
 * owns a block of rows, fills it (real work), exchanges blocks with
 * MPI_Alltoall, transposes locally and sums a checksum with MPI_Reduce.
 * Prints the checksum.  Usage: transpose [rounds] [rows per rank]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, r, i, j, b;
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	int m = argc > 2 ? atoi(argv[2]) : 128;
	int n;
	double *a, *t, *out, sum, check = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	n = m * size;		/* global matrix is n x n, m rows per rank */
	a = malloc((size_t)m * n * sizeof(*a));
	t = malloc((size_t)m * n * sizeof(*t));
	out = malloc((size_t)m * n * sizeof(*out));
	if (!a || !t || !out)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++)
				a[(size_t)i * n + j] =
					cos(0.01 * (rank * m + i) + 0.003 * j + r);
		/* Pack: block b holds columns b*m..b*m+m-1 of my rows. */
		for (b = 0; b < size; b++)
			for (i = 0; i < m; i++)
				for (j = 0; j < m; j++)
					t[(size_t)b * m * m + i * m + j] =
						a[(size_t)i * n + b * m + j];
		MPI_Alltoall(t, m * m, MPI_DOUBLE, out, m * m, MPI_DOUBLE,
			     MPI_COMM_WORLD);
		/* Unpack transposed: my rows of A^T. */
		sum = 0;
		for (b = 0; b < size; b++)
			for (i = 0; i < m; i++)
				for (j = 0; j < m; j++)
					sum += out[(size_t)b * m * m + j * m + i] *
					       (double)(b + 1);
		MPI_Reduce(&sum, &check, 1, MPI_DOUBLE, MPI_SUM, 0,
			   MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("transpose: %d ranks, %dx%d, checksum %.9e\n", size, n,
		       n, check);
	free(a);
	free(t);
	free(out);
	MPI_Finalize();
	return 0;
}
