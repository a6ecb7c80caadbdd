/*
 * nm-cg.c: a conjugate-gradient solver of a 1-D Poisson problem split
 * in blocks over the ranks: each iteration trades one boundary value
 * with each neighbour (MPI_Sendrecv), applies the matrix to its block
 * and takes two dot products (MPI_Allreduce of one double).  A
 * network-model validation app (tools/scripts/predict-validate.py).
 * Usage: nm-cg [iterations] [cells per rank]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double dot(const double *x, const double *y, int n)
{
	double s = 0, t;
	int i;

	for (i = 0; i < n; i++)
		s += x[i] * y[i];
	MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return t;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 1500;
	int n = argc > 2 ? atoi(argv[2]) : 20000;
	int rank, size, left, right, it, i;
	double *x, *r, *p, *q, rr, rr1, alpha, pl = 0, pr = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	x = calloc((size_t)n, sizeof(*x));
	r = calloc((size_t)n, sizeof(*r));
	p = calloc((size_t)n, sizeof(*p));
	q = calloc((size_t)n, sizeof(*q));
	if (!x || !r || !p || !q)
		MPI_Abort(MPI_COMM_WORLD, 1);
	left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
	for (i = 0; i < n; i++)
		r[i] = p[i] = 1.0;
	rr = dot(r, r, n);
	for (it = 0; it < iters; it++) {
		MPI_Sendrecv(&p[0], 1, MPI_DOUBLE, left, 0, &pr, 1,
			     MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		MPI_Sendrecv(&p[n - 1], 1, MPI_DOUBLE, right, 1, &pl, 1,
			     MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		for (i = 0; i < n; i++)
			q[i] = 2 * p[i] - (i ? p[i - 1] : pl) -
			       (i + 1 < n ? p[i + 1] : pr);
		alpha = rr / dot(p, q, n);
		for (i = 0; i < n; i++) {
			x[i] += alpha * p[i];
			r[i] -= alpha * q[i];
		}
		rr1 = dot(r, r, n);
		for (i = 0; i < n; i++)
			p[i] = r[i] + rr1 / rr * p[i];
		rr = rr1;
	}
	if (rank == 0)
		printf("nm-cg: %d iterations, residual %.6e\n", iters,
		       sqrt(rr));
	free(x);
	free(r);
	free(p);
	free(q);
	MPI_Finalize();
	return 0;
}
