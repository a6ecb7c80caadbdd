/*
 * nm-progress.c: does a nonblocking transfer progress while the ranks
 * compute outside MPI?  Two ranks exchange B bytes (MPI_Irecv,
 * MPI_Isend), spin C microseconds outside MPI (or, "polled", calling
 * MPI_Testall every 5 us of it), then MPI_Waitall; the time of the
 * MPI_Waitall is reported per (B, C, mode).  With asynchronous progress
 * the wait shrinks as C grows; without it, it stays near its C = 0 time
 * unless the compute is polled.  Two one-way modes say which side must
 * be inside MPI (step()).  Configurations are interleaved, each step
 * starts after an MPI_Barrier.  A measurement app for issue 14
 * (docs/validation.md, "Transfers progress only inside MPI over TCP").
 * Usage: nm-progress [steps]   (rank 0 prints a table: median, min, max)
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NB 4
#define NC 4
#define NM 4

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Spin 'us' microseconds; with 'rq', call MPI_Test on both every 5 us. */
static void spin(double us, MPI_Request *rq)
{
	double t0 = now_us(), next = t0 + 5, t;
	MPI_Status st[2];
	int flag;

	while ((t = now_us()) - t0 < us) {
		if (rq && t >= next) {
			MPI_Testall(2, rq, &flag, st);
			next = t + 5;
		}
	}
}

/*
 * One measurement, after an MPI_Barrier; returns this rank's time.
 * Modes 0 and 1 (both ranks): MPI_Irecv and MPI_Isend to each other,
 * C us of compute (mode 1: polled), MPI_Waitall: the MPI_Waitall's time.
 * Modes 2 and 3 (one way, rank 0 to rank 1; rank 1's time is used):
 * mode 2, the sender computes C us between MPI_Isend and MPI_Wait while
 * the receiver waits at once: the receive's time from its post to its
 * completion; mode 3, the receiver computes C us between MPI_Irecv and
 * MPI_Wait while the sender waits at once: the receiver's MPI_Wait.
 */
static double step(int rank, int peer, int n, double us, int mode,
		   char *sb, char *rb)
{
	MPI_Request rq[2];
	MPI_Status st[2];
	double t0, t1;

	MPI_Barrier(MPI_COMM_WORLD);
	if (mode < 2) {
		MPI_Irecv(rb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(sb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &rq[1]);
		spin(us, mode ? rq : NULL);
		t1 = now_us();
		MPI_Waitall(2, rq, st);
		return now_us() - t1;
	}
	if (rank == 0) {
		MPI_Isend(sb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &rq[0]);
		if (mode == 2)
			spin(us, NULL);
		MPI_Wait(&rq[0], st);
		return 0;
	}
	t0 = now_us();
	MPI_Irecv(rb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &rq[0]);
	if (mode == 3)
		spin(us, NULL);
	t1 = now_us();
	MPI_Wait(&rq[0], st);
	return now_us() - (mode == 2 ? t0 : t1);
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const int bytes[NB] = { 1024, 16384, 65536, 262144 };
	static const double comp[NC] = { 0, 20, 50, 100 };
	int steps = argc > 1 ? atoi(argv[1]) : 200;
	static const char *const mname[NM] = { "plain", "polled",
					       "snd-busy", "rcv-busy" };
	int rank, size, peer, s, b, c, m;
	double *w, *w1;
	char *sb, *rb;
	MPI_Status st[1];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = rank ^ 1;
	sb = malloc(262144);
	rb = malloc(262144);
	w = malloc(sizeof(double) * NB * NC * NM * (size_t)steps);
	w1 = malloc(sizeof(double) * NB * NC * NM * (size_t)steps);
	if (!sb || !rb || !w || !w1 || steps < 1)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(sb, 1, 262144);
	memset(rb, 0, 262144);
	for (s = 0; s < steps && peer < size; s++)
		for (b = 0; b < NB; b++)
			for (c = 0; c < NC; c++)
				for (m = 0; m < NM; m++)
					w[((b * NC + c) * NM + m) * steps + s] =
						step(rank, peer, bytes[b],
						     comp[c], m, sb, rb);
	if (peer < size && rank == 1)
		MPI_Send(w, NB * NC * NM * steps, MPI_DOUBLE, 0, 1,
			 MPI_COMM_WORLD);
	if (peer < size && rank == 0)
		MPI_Recv(w1, NB * NC * NM * steps, MPI_DOUBLE, 1, 1,
			 MPI_COMM_WORLD, st);
	if (rank == 0 && peer < size) {
		printf("# nm-progress: %d steps; us (see the source's "
		       "step()) after C us of compute\n", steps);
		printf("%8s %6s %-8s %9s %9s %9s\n", "bytes", "C_us", "mode",
		       "median", "min", "max");
		for (b = 0; b < NB; b++)
			for (c = 0; c < NC; c++)
				for (m = 0; m < NM; m++) {
					double *v = (m < 2 ? w : w1) +
						((b * NC + c) * NM + m) * steps;

					if ((m == 1 || m == 3) && comp[c] == 0)
						continue;
					qsort(v, (size_t)steps, sizeof(*v),
					      cmpd);
					printf("%8d %6.0f %-8s %9.2f %9.2f "
					       "%9.2f\n", bytes[b], comp[c],
					       mname[m],
					       v[steps / 2], v[0],
					       v[steps - 1]);
				}
	}
	free(w);
	free(w1);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
