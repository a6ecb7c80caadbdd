/*
 * tests/integration/apps/bench-mix.c: a varied MPI workload for the trace
 * size figure of `make bench` (tools/bench/run.sh): collectives of
 * several kinds and sizes on several communicators, and nonblocking
 * point-to-point exchanges, issued from a handful of call sites.
 *
 *	bench-mix ITERATIONS
 *
 * Each iteration runs three phases, each its own function and so its
 * own call sites:
 *
 *	colls	MPI_Bcast (rotating root), MPI_Allreduce (sum or max),
 *		MPI_Reduce, MPI_Allgather and MPI_Alltoall on MPI_COMM_WORLD,
 *		with element counts drawn from 1 to 4096 by a seeded
 *		generator that every rank runs alike;
 *	halo	MPI_Irecv from both ring neighbours, MPI_Isend to both,
 *		MPI_Waitall on the four requests, tags cycling over 0..7;
 *	sub	on a duplicate of MPI_COMM_WORLD: MPI_Sendrecv with the
 *		neighbour, MPI_Iallreduce and MPI_Wait, MPI_Barrier; on a
 *		split communicator with the ranks in reverse order:
 *		MPI_Gather and MPI_Scatter, rooted at its rank 0.
 *
 * Every result is checked; a wrong one prints a message on stderr and
 * exits 1.  At the end each rank prints
 *
 *	rank=R calls=C
 *
 * with C the number of MPI calls it made from MPI_Init to MPI_Finalize
 * inclusive, setup and teardown included, not counting MPI_Comm_rank
 * and MPI_Comm_size.  Works at any size >= 2.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_COUNT 4096

static int rank, size;
static long calls;
static uint64_t rng = 0x9e3779b97f4a7c15u;

static double *sbuf, *rbuf, *abuf;

static void check(int ok, const char *what, long it)
{
	if (ok)
		return;
	fprintf(stderr, "bench-mix: rank %d: wrong result of %s in "
		"iteration %ld\n", rank, what, it);
	exit(1);
}

/* xorshift64: the same sequence on every rank, so counts agree. */
static int draw_count(void)
{
	static const int counts[] = { 1, 1, 2, 4, 16, 64, 256, 1024, 4096 };

	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return counts[rng % (sizeof(counts) / sizeof(*counts))];
}

static void phase_colls(long it)
{
	int n = draw_count(), root = (int)(it % size), i;
	double v = (double)(rank + 1), r = 0;

	for (i = 0; i < n; i++)
		sbuf[i] = rank == root ? (double)(it + i) : -1;
	MPI_Bcast(sbuf, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
	check(sbuf[n - 1] == (double)(it + n - 1), "MPI_Bcast", it);

	n = draw_count();
	for (i = 0; i < n; i++)
		sbuf[i] = v;
	if (it % 3) {
		MPI_Allreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		check(rbuf[0] == size * (size + 1) / 2.0, "MPI_Allreduce",
		      it);
	} else {
		MPI_Allreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_MAX,
			      MPI_COMM_WORLD);
		check(rbuf[0] == size, "MPI_Allreduce", it);
	}

	MPI_Reduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	check(rank || r == size * (size + 1) / 2.0, "MPI_Reduce", it);

	n = draw_count() / size + 1;
	for (i = 0; i < n; i++)
		sbuf[i] = v;
	MPI_Allgather(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE,
		      MPI_COMM_WORLD);
	check(rbuf[(size - 1) * n] == size, "MPI_Allgather", it);

	n = draw_count() / size + 1;
	for (i = 0; i < n * size; i++)
		sbuf[i] = v;
	MPI_Alltoall(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE,
		     MPI_COMM_WORLD);
	check(rbuf[n * size - 1] == size, "MPI_Alltoall", it);
	calls += 5;
}

static void phase_halo(long it)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	int tag = (int)(it % 8), n = draw_count();
	MPI_Request req[4];
	MPI_Status st[4];
	int i;

	for (i = 0; i < n; i++)
		sbuf[i] = rank;
	MPI_Irecv(rbuf, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &req[0]);
	MPI_Irecv(abuf, n, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &req[1]);
	MPI_Isend(sbuf, n, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &req[2]);
	MPI_Isend(sbuf, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &req[3]);
	MPI_Waitall(4, req, st);
	check(rbuf[n - 1] == left && abuf[n - 1] == right, "halo", it);
	calls += 5;
}

static void phase_sub(long it, MPI_Comm dup, MPI_Comm rev)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	int rrank, rsize, i;
	double v = rank, s = 0, got = -1;
	MPI_Request req;

	MPI_Sendrecv(&v, 1, MPI_DOUBLE, right, 1, &got, 1, MPI_DOUBLE, left,
		     1, dup, MPI_STATUS_IGNORE);
	check(got == left, "MPI_Sendrecv", it);
	MPI_Iallreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, dup, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	check(s == size * (size - 1) / 2.0, "MPI_Iallreduce", it);
	MPI_Barrier(dup);

	MPI_Comm_rank(rev, &rrank);
	MPI_Comm_size(rev, &rsize);
	MPI_Gather(&v, 1, MPI_DOUBLE, abuf, 1, MPI_DOUBLE, 0, rev);
	if (rrank == 0)
		for (i = 0; i < rsize; i++)
			abuf[i] += it;
	MPI_Scatter(abuf, 1, MPI_DOUBLE, &got, 1, MPI_DOUBLE, 0, rev);
	check(got == v + it, "MPI_Gather/MPI_Scatter", it);
	calls += 6;
}

int main(int argc, char **argv)
{
	MPI_Comm dup, rev;
	long it, iters;
	char *end;

	if (argc != 2 || (iters = strtol(argv[1], &end, 10)) < 1 || *end) {
		fprintf(stderr, "usage: bench-mix ITERATIONS\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sbuf = malloc(sizeof(*sbuf) * MAX_COUNT * size);
	rbuf = malloc(sizeof(*rbuf) * MAX_COUNT * size);
	abuf = malloc(sizeof(*abuf) * MAX_COUNT * size);
	if (!sbuf || !rbuf || !abuf) {
		fprintf(stderr, "bench-mix: out of memory\n");
		return 1;
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	calls += 3;
	for (it = 0; it < iters; it++) {
		phase_colls(it);
		phase_halo(it);
		phase_sub(it, dup, rev);
	}
	MPI_Comm_free(&rev);
	MPI_Comm_free(&dup);
	MPI_Finalize();
	calls += 3;
	printf("rank=%d calls=%ld\n", rank, calls);
	free(sbuf);
	free(rbuf);
	free(abuf);
	return 0;
}
