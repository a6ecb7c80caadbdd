/*
 * tests/integration/apps/cg.c: an application shaped like a conjugate-
 * gradient solver, for the whole-application figure of `make bench`
 * (tools/bench/run.sh): unpreconditioned CG on the 1-D Poisson matrix
 * (2 on the diagonal, -1 beside it), the unknowns split in equal blocks
 * over the ranks.  Each iteration makes the calls a CG code makes:
 *
 *	halo	MPI_Irecv from both neighbours, MPI_Isend to both (8 bytes
 *		each; none past the ends), MPI_Waitall on the requests;
 *	matvec	the local product, a few microseconds for N = 4096;
 *	dots	two dot products, each an MPI_Allreduce of one double;
 *	axpys	three vector updates.
 *
 *	cg N ITERATIONS
 *
 * N is the number of unknowns per rank.  The right-hand side is all
 * ones and the start vector zero; the solver runs exactly ITERATIONS
 * iterations (no convergence test, so every run makes the same calls).
 * CG converges in at most P N iterations; once the residual has fallen
 * by 1e-24 the solver restarts from zero (the decision is taken on the
 * global residual, so every rank restarts at once), which keeps the
 * arithmetic away from denormals and 0/0 however many iterations run.
 * Rank 0 prints
 *
 *	cg ranks=P n=N iterations=K time_s=T residual=R
 *
 * with T the slowest rank's time for the iterations (after an
 * MPI_Barrier) and R the final residual norm, printed in full so that
 * runs with and without the interposer can be seen to compute the same.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* See bench-calls.c: a false warning on MPI_STATUSES_IGNORE. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, size;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double dot(const double *a, const double *b, int n)
{
	double s = 0, g;
	int i;

	for (i = 0; i < n; i++)
		s += a[i] * b[i];
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

/*
 * y = A x, x having one ghost value at each end (x[-1], x[n]), which
 * the halo exchange fills from the neighbours (0 past the ends).
 */
static void matvec(double *y, double *x, int n)
{
	MPI_Request r[4];
	int k = 0, i;

	x[-1] = x[n] = 0;
	if (rank > 0) {
		MPI_Irecv(&x[-1], 1, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD,
			  &r[k++]);
		MPI_Isend(&x[0], 1, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD,
			  &r[k++]);
	}
	if (rank < size - 1) {
		MPI_Irecv(&x[n], 1, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD,
			  &r[k++]);
		MPI_Isend(&x[n - 1], 1, MPI_DOUBLE, rank + 1, 0,
			  MPI_COMM_WORLD, &r[k++]);
	}
	MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
	for (i = 0; i < n; i++)
		y[i] = 2 * x[i] - x[i - 1] - x[i + 1];
}

int main(int argc, char **argv)
{
	double *xs, *ps, *x, *p, *r, *q, rr, rr0, rr_new, alpha, t0, t, tmax;
	long iters, it;
	int n, i;

	if (argc != 3 || (n = atoi(argv[1])) < 1 ||
	    (iters = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: cg N ITERATIONS\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	xs = calloc((size_t)n + 2, sizeof(double));
	ps = calloc((size_t)n + 2, sizeof(double));
	r = malloc((size_t)n * sizeof(double));
	q = malloc((size_t)n * sizeof(double));
	if (!xs || !ps || !r || !q) {
		fprintf(stderr, "cg: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	x = xs + 1;
	p = ps + 1;
	for (i = 0; i < n; i++)
		r[i] = p[i] = 1;	/* b - A 0 */
	rr0 = rr = dot(r, r, n);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = now_s();
	for (it = 0; it < iters; it++) {
		matvec(q, p, n);
		alpha = rr / dot(p, q, n);
		for (i = 0; i < n; i++) {
			x[i] += alpha * p[i];
			r[i] -= alpha * q[i];
		}
		rr_new = dot(r, r, n);
		for (i = 0; i < n; i++)
			p[i] = r[i] + rr_new / rr * p[i];
		rr = rr_new;
		if (rr < 1e-24 * rr0) {		/* converged: restart */
			for (i = 0; i < n; i++) {
				x[i] = 0;
				r[i] = p[i] = 1;
			}
			rr = rr0;
		}
	}
	t = now_s() - t0;
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("cg ranks=%d n=%d iterations=%ld time_s=%.6f "
		       "residual=%.17g\n", size, n, iters, tmax, sqrt(rr));
	free(xs);
	free(ps);
	free(r);
	free(q);
	MPI_Finalize();
	return 0;
}
