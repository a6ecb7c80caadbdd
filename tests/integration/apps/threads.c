/*
 * tests/integration/apps/threads.c: MPI_THREAD_MULTIPLE with several
 * threads per rank, each running collectives on its own duplicate of
 * MPI_COMM_WORLD at the same time as the others.
 *
 * Usage: threads [NTHREADS [ITERS [CHURN]]] (default 3 threads, 200
 * iterations, no churn).  Each iteration of thread t does one
 * MPI_Allreduce, one MPI_Bcast and one MPI_Barrier on its communicator
 * and checks both results, so every rank makes exactly ITERS calls of
 * each per thread.  Then CHURN threads one after another (each joined
 * before the next starts) make one MPI_Allreduce each on
 * MPI_COMM_WORLD, as a program that makes its thread pool anew for each
 * phase does.  Output: one line per rank and thread with its call
 * counts, and "threads: all ranks ok" from rank 0; exit status non-zero
 * on any wrong result.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct worker {
	pthread_t tid;
	int t;			/* thread index, 0..nthreads-1 */
	MPI_Comm comm;
	int errors;
	int nallreduce, nbcast, nbarrier;
};

static int rank, size, iters;
static pthread_barrier_t start;

static void *work(void *arg)
{
	struct worker *w = arg;
	int i, in, out, expect, root, v;

	pthread_barrier_wait(&start);
	for (i = 0; i < iters; i++) {
		in = rank * 1000 + w->t * 100000 + i;
		MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, w->comm);
		w->nallreduce++;
		expect = size * (w->t * 100000 + i) + 1000 * size * (size - 1) / 2;
		if (out != expect)
			w->errors++;

		root = i % size;
		v = rank == root ? w->t * 7 + i : -1;
		MPI_Bcast(&v, 1, MPI_INT, root, w->comm);
		w->nbcast++;
		if (v != w->t * 7 + i)
			w->errors++;

		MPI_Barrier(w->comm);
		w->nbarrier++;
	}
	return NULL;
}

/* One thread of the churn: an MPI_Allreduce on MPI_COMM_WORLD. */
static void *churn_one(void *arg)
{
	int *errors = arg, in = rank + 1, out = 0;

	MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (out != size * (size + 1) / 2)
		(*errors)++;
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker *w;
	int provided, nthreads, churn, t, errors = 0, all;
	pthread_t tid;

	nthreads = argc > 1 ? atoi(argv[1]) : 3;
	iters = argc > 2 ? atoi(argv[2]) : 200;
	churn = argc > 3 ? atoi(argv[3]) : 0;
	if (nthreads < 1 || iters < 1 || churn < 0) {
		fprintf(stderr, "usage: threads [NTHREADS [ITERS [CHURN]]]\n");
		return 2;
	}
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (provided != MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			printf("threads: MPI_THREAD_MULTIPLE not provided\n");
		MPI_Finalize();
		return 3;
	}
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		MPI_Abort(MPI_COMM_WORLD, 1);
	pthread_barrier_init(&start, NULL, nthreads);
	for (t = 0; t < nthreads; t++) {
		w[t].t = t;
		MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
	}
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&w[t].tid, NULL, work, &w[t]))
			MPI_Abort(MPI_COMM_WORLD, 1);
	for (t = 0; t < nthreads; t++) {
		pthread_join(w[t].tid, NULL);
		errors += w[t].errors;
		printf("threads: rank %d thread %d: allreduce %d bcast %d "
		       "barrier %d errors %d\n", rank, t, w[t].nallreduce,
		       w[t].nbcast, w[t].nbarrier, w[t].errors);
	}
	for (t = 0; t < nthreads; t++)
		MPI_Comm_free(&w[t].comm);
	for (t = 0; t < churn; t++) {
		if (pthread_create(&tid, NULL, churn_one, &errors))
			MPI_Abort(MPI_COMM_WORLD, 1);
		pthread_join(tid, NULL);
	}
	if (churn)
		printf("threads: rank %d: %d threads one after another\n",
		       rank, churn);
	MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("threads: %s\n", all ? "FAILED" : "all ranks ok");
	pthread_barrier_destroy(&start);
	free(w);
	MPI_Finalize();
	return all != 0;
}
