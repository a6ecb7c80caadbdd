/*
 * tests/integration/apps/threads-p2p.c: MPI_THREAD_MULTIPLE with several
 * threads per rank, each exchanging many nonblocking messages with the
 * same thread of the other rank at the same time, completed in turn by
 * MPI_Waitall (with and without statuses), MPI_Waitany, MPI_Testsome
 * and MPI_Wait.  MPI frees a completed request's handle and gives it to
 * the next request, which another thread may make before the completing
 * thread's wrapper has seen its own: every request must still have its
 * done record, with a receive's bytes.
 *
 * Usage: threads-p2p [NTHREADS [K [ITERS [init]]]] (default 4 threads,
 * 300 messages each way per iteration, 5 iterations).  With "init" it
 * calls MPI_Init, not MPI_Init_thread, and takes the level
 * MPI_Query_thread says (an MPI may give MPI_THREAD_MULTIPLE there too:
 * OMPI_MPI_THREAD_LEVEL=3, MPIR_CVAR_DEFAULT_THREAD_LEVEL).  Two ranks.
 * Writes
 * its expectations (expect.h) for each thread's tags; prints
 * "threads-p2p: all ranks ok" from rank 0; exit status non-zero on a
 * wrong value.
 */
#include <pthread.h>
#include <string.h>

#include "expect.h"

/* See bench-calls.c: a false warning on MPI_STATUSES_IGNORE. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, peer, nthreads, k, iters;

struct worker {
	pthread_t th;
	int t;
	int errors;
};

static int value(int from, int t, int it, int i)
{
	return from * 1000003 + t * 10007 + it * 101 + i;
}

/* Complete the 2k requests in 'rq' the way iteration 'it' says. */
static void complete(int it, MPI_Request *rq, MPI_Status *st)
{
	int n = 2 * k, done = 0, idx, out, i, *ind;

	switch (it % 5) {
	case 0:
		MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
		break;
	case 1:
		MPI_Waitall(n, rq, st);
		break;
	case 2:
		while (done < n) {
			MPI_Waitany(n, rq, &idx, MPI_STATUS_IGNORE);
			done++;
		}
		break;
	case 3:
		ind = malloc(n * sizeof(*ind));
		while (done < n) {
			MPI_Testsome(n, rq, &out, ind, st);
			if (out != MPI_UNDEFINED)
				done += out;
		}
		free(ind);
		break;
	default:
		for (i = 0; i < n; i++)
			MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	int *sb = malloc(k * sizeof(int)), *rb = malloc(k * sizeof(int));
	MPI_Request *rq = malloc(2 * k * sizeof(*rq));
	MPI_Status *st = malloc(2 * k * sizeof(*st));
	int it, i, tag0 = 1000 * (w->t + 1);

	if (!sb || !rb || !rq || !st) {
		w->errors++;
		return NULL;
	}
	for (it = 0; it < iters; it++) {
		for (i = 0; i < k; i++) {
			sb[i] = value(rank, w->t, it, i);
			rb[i] = -1;
		}
		for (i = 0; i < k; i++)
			MPI_Irecv(&rb[i], 1, MPI_INT, peer, tag0 + i % 7,
				  MPI_COMM_WORLD, &rq[i]);
		for (i = 0; i < k; i++)
			MPI_Isend(&sb[i], 1, MPI_INT, peer, tag0 + i % 7,
				  MPI_COMM_WORLD, &rq[k + i]);
		complete(it, rq, st);
		for (i = 0; i < k; i++)
			if (rb[i] != value(peer, w->t, it, i))
				w->errors++;
	}
	free(sb);
	free(rb);
	free(rq);
	free(st);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[64];
	int provided, size, t, errors = 0, all;
	const char *styles[] = { "MPI_Waitall", "MPI_Waitall", "MPI_Waitany",
				 "MPI_Testsome", "MPI_Wait" };

	if (argc > 4 && !strcmp(argv[4], "init")) {
		MPI_Init(&argc, &argv);
		MPI_Query_thread(&provided);
	} else {
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	nthreads = argc > 1 ? atoi(argv[1]) : 4;
	k = argc > 2 ? atoi(argv[2]) : 300;
	iters = argc > 3 ? atoi(argv[3]) : 5;
	if (size != 2 || nthreads < 1 || nthreads > 64 || k < 1 ||
	    iters < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: threads-p2p [NTHREADS [K "
				"[ITERS [init]]]], 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (provided != MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			printf("threads-p2p: MPI_THREAD_MULTIPLE not "
			       "provided\n");
		MPI_Finalize();
		return 0;
	}
	peer = 1 - rank;
	expect_open(rank);
	for (t = 0; t < nthreads; t++) {
		int s, lo = 1000 * (t + 1), hi = lo + 6;

		w[t].t = t;
		w[t].errors = 0;
		expect(k * iters, "MPI_Irecv", "tag >= %d && tag <= %d", lo,
		       hi);
		expect(k * iters, "MPI_Isend", "tag >= %d && tag <= %d", lo,
		       hi);
		/*
		 * Each request done once, by the call of its iteration's
		 * style (the two Waitall styles together); each receive
		 * with its bytes and source.
		 */
		for (s = 1; s < 5; s++) {
			int n = (iters - s + 4) / 5;

			if (s == 1)
				n += (iters + 4) / 5;
			expect_kind(2 * k * n, "done", styles[s],
				    "tag >= %d && tag <= %d", lo, hi);
			expect_kind(k * n, "done", styles[s],
				    "tag >= %d && tag <= %d && rbytes == %zu "
				    "&& peer == %d", lo, hi, sizeof(int),
				    peer);
		}
	}
	expect_close();
	for (t = 0; t < nthreads; t++)
		pthread_create(&w[t].th, NULL, work, &w[t]);
	for (t = 0; t < nthreads; t++) {
		pthread_join(w[t].th, NULL);
		errors += w[t].errors;
	}
	MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf(all ? "threads-p2p: %d wrong values\n"
			   : "threads-p2p: all ranks ok\n", all);
	MPI_Finalize();
	return all != 0;
}
