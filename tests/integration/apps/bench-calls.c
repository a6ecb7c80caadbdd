/*
 * tests/integration/apps/bench-calls.c: tight loops of one cheap MPI call
 * for `make bench` (tools/bench/run.sh), timed with CLOCK_MONOTONIC, so
 * the same binary run with and without the interposer gives the added
 * time per intercepted call.
 *
 *	bench-calls OP N BLOCKS [WARMUP]
 *
 * OP is "barrier" (MPI_Barrier on MPI_COMM_WORLD), "allreduce" (an 8-byte
 * MPI_Allreduce, one int64_t summed, on MPI_COMM_WORLD), or "self-barrier"
 * and "self-allreduce" (the same on MPI_COMM_SELF: no communication, so
 * the loop is nearly all interposer cost; used for the memory figure);
 * or, the loops of halo exchanges and overlapped collectives, "bcast"
 * (8 bytes from rank 0), "halo" (one iteration: MPI_Irecv from the
 * previous rank, MPI_Isend of 8 bytes to the next, MPI_Waitall of the
 * two, so 3 calls) and "iallreduce" (MPI_Iallreduce of 8 bytes and
 * MPI_Wait, 2 calls).  Figures are per iteration of the loop.
 * Several ops may be given, separated by commas; each is run in turn.
 *
 * For each op: WARMUP untimed calls (default N / 10), then BLOCKS timed
 * blocks of N calls.  Every block starts after an MPI_Barrier; each rank
 * times its own loop and the block's figure is the maximum over ranks
 * (MPI_Allreduce with MPI_MAX), as the slowest rank bounds the job.
 * Rank 0 prints one line per op:
 *
 *	op=OP calls=N blocks=B ns_mean=X ns_median=X ns_min=X ns_max=X
 *
 * in ns per call: the mean over blocks (the sum of the block times over
 * B * N, which spreads the interposer's periodic buffer flushes over all
 * calls, as a long run sees them), then the median, smallest and largest
 * block figure (the median leaves out blocks that happened to flush).
 * After MPI_Finalize every rank prints its peak resident set size,
 *
 *	rank=R vmhwm_kib=K
 *
 * from the VmHWM line of /proc/self/status (-1 when unavailable).  The
 * barrier before each block and the reduction after it are outside the
 * timed loop but are intercepted too: a traced run holds WARMUP + B * N
 * records per op and rank, plus 2 * B + 1 per op and a fixed few dozen.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BLOCKS 1000

enum op {
	OP_BARRIER, OP_ALLREDUCE, OP_SELF_BARRIER, OP_SELF_ALLREDUCE,
	OP_BCAST, OP_HALO, OP_IALLREDUCE
};

static const char *const op_names[] = {
	"barrier", "allreduce", "self-barrier", "self-allreduce", "bcast",
	"halo", "iallreduce"
};

static int parse_op(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(op_names) / sizeof(*op_names); i++)
		if (strlen(op_names[i]) == n && !strncmp(op_names[i], s, n))
			return (int)i;
	return -1;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Run 'n' calls of 'op'; the loop the benchmark times. */
static void run_calls(int op, long n)
{
	int64_t in = 1, out = 0, rbuf = 0;
	MPI_Request req[2];
	MPI_Status st[2];
	int rank, size;
	long i;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	switch (op) {
	case OP_BARRIER:
		for (i = 0; i < n; i++)
			MPI_Barrier(MPI_COMM_WORLD);
		break;
	case OP_ALLREDUCE:
		for (i = 0; i < n; i++)
			MPI_Allreduce(&in, &out, 1, MPI_INT64_T, MPI_SUM,
				      MPI_COMM_WORLD);
		break;
	case OP_SELF_BARRIER:
		for (i = 0; i < n; i++)
			MPI_Barrier(MPI_COMM_SELF);
		break;
	case OP_SELF_ALLREDUCE:
		for (i = 0; i < n; i++)
			MPI_Allreduce(&in, &out, 1, MPI_INT64_T, MPI_SUM,
				      MPI_COMM_SELF);
		break;
	case OP_BCAST:
		for (i = 0; i < n; i++)
			MPI_Bcast(&in, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
		break;
	case OP_HALO:
		for (i = 0; i < n; i++) {
			MPI_Irecv(&rbuf, 1, MPI_INT64_T,
				  (rank + size - 1) % size, 7, MPI_COMM_WORLD,
				  &req[0]);
			MPI_Isend(&in, 1, MPI_INT64_T, (rank + 1) % size, 7,
				  MPI_COMM_WORLD, &req[1]);
			MPI_Waitall(2, req, st);
		}
		break;
	case OP_IALLREDUCE:
		for (i = 0; i < n; i++) {
			MPI_Iallreduce(&in, &out, 1, MPI_INT64_T, MPI_SUM,
				       MPI_COMM_WORLD, &req[0]);
			MPI_Wait(&req[0], MPI_STATUS_IGNORE);
		}
		break;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long vmhwm_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6)) {
			kib = strtol(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return kib;
}

static long parse_count(const char *s, const char *what, long lo)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo) {
		fprintf(stderr, "bench-calls: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static double per_call[MAX_BLOCKS];
	double sum;
	long n, blocks, warmup;
	const char *p;
	int rank;

	if (argc < 4 || argc > 5) {
		fprintf(stderr,
			"usage: bench-calls OP[,OP...] N BLOCKS [WARMUP]\n");
		return 2;
	}
	n = parse_count(argv[2], "N", 1);
	blocks = parse_count(argv[3], "BLOCKS", 1);
	if (blocks > MAX_BLOCKS) {
		fprintf(stderr, "bench-calls: at most %d blocks\n", MAX_BLOCKS);
		return 2;
	}
	warmup = argc > 4 ? parse_count(argv[4], "WARMUP", 0) : n / 10;
	for (p = argv[1]; *p; ) {
		size_t len = strcspn(p, ",");

		if (parse_op(p, len) < 0) {
			fprintf(stderr, "bench-calls: unknown op '%.*s'\n",
				(int)len, p);
			return 2;
		}
		p += len + (p[len] == ',');
	}

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (p = argv[1]; *p; ) {
		size_t len = strcspn(p, ",");
		int op = parse_op(p, len);
		long b;

		run_calls(op, warmup);
		sum = 0;
		for (b = 0; b < blocks; b++) {
			double t0, dt, dt_max;

			MPI_Barrier(MPI_COMM_WORLD);
			t0 = now_ns();
			run_calls(op, n);
			dt = now_ns() - t0;
			MPI_Allreduce(&dt, &dt_max, 1, MPI_DOUBLE, MPI_MAX,
				      MPI_COMM_WORLD);
			per_call[b] = dt_max / (double)n;
			sum += per_call[b];
		}
		if (rank == 0) {
			double med;

			qsort(per_call, (size_t)blocks, sizeof(*per_call),
			      cmp_double);
			med = blocks % 2 ? per_call[blocks / 2] :
			      (per_call[blocks / 2 - 1] +
			       per_call[blocks / 2]) / 2;
			printf("op=%s calls=%ld blocks=%ld ns_mean=%.2f "
			       "ns_median=%.2f ns_min=%.2f ns_max=%.2f\n",
			       op_names[op], n, blocks, sum / (double)blocks,
			       med, per_call[0], per_call[blocks - 1]);
			fflush(stdout);
		}
		p += len + (p[len] == ',');
	}
	MPI_Finalize();
	printf("rank=%d vmhwm_kib=%ld\n", rank, vmhwm_kib());
	return 0;
}
