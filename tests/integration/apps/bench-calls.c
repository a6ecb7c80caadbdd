/*
 * tests/integration/apps/bench-calls.c: tight loops of one cheap MPI call
 * for `make bench` (tools/bench/run.sh), timed with CLOCK_MONOTONIC, so
 * the same binary run with and without the interposer gives the added
 * time per intercepted call.
 *
 *	bench-calls OP N BLOCKS [WARMUP]
 *
 * OP is one of (8-byte messages and reductions, one int64_t; "the peer"
 * is rank ^ 1, or this rank itself when the size is odd and it has none):
 *
 *	barrier		MPI_Barrier on MPI_COMM_WORLD
 *	allreduce	MPI_Allreduce (sum) on MPI_COMM_WORLD
 *	bcast		MPI_Bcast from rank 0 on MPI_COMM_WORLD
 *	sites		MPI_Allreduce from 64 call sites in turn
 *	p2p		MPI_Irecv from the peer, MPI_Isend to it, MPI_Waitall
 *			on both (one iteration, 3 calls)
 *	iallreduce	MPI_Iallreduce, MPI_Wait (2 calls)
 *	test		MPI_Irecv, MPI_Isend, then MPI_Test on each, from a
 *			call site of its own, until it completes (4 calls
 *			when each completes at once; tests=T on the output
 *			line counts them all)
 *	start		persistent requests made once (MPI_Recv_init,
 *			MPI_Send_init): MPI_Start on each, MPI_Waitall
 *			(3 calls)
 *	pcoll		a persistent MPI_Allreduce made once
 *			(MPI_Allreduce_init): MPI_Start, MPI_Wait (2 calls)
 *	put		in a passive-target epoch on a window made once
 *			(MPI_Win_create, MPI_Win_lock_all): MPI_Put of 8
 *			bytes to the peer, MPI_Win_flush (2 calls)
 *	self-barrier, self-allreduce, self-p2p, self-iallreduce, self-test,
 *	self-start, self-pcoll, self-put
 *			the same on MPI_COMM_SELF, the peer being this rank:
 *			no communication, so the loop is nearly all
 *			interposer cost (the memory figure; callgrind)
 *
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
 * (and for "test" tests=T, the MPI_Test calls of one rank in the timed
 * blocks) in ns per loop iteration ("call" for the single-call ops): the mean over blocks (the sum of the block times over
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

/*
 * Open MPI 4.1 (MPI 3.1) has MPI-4's persistent collectives as MPIX_ ones
 * in mpi-ext.h; its build of the library traces them under their MPI-4
 * names (docs/mpis.md).
 */
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#define MPI_Allreduce_init MPIX_Allreduce_init
#endif

#define MAX_BLOCKS 1000

/*
 * GCC takes MPICH's MPI_STATUSES_IGNORE, a null pointer of array type,
 * for an empty array that MPI_Waitall writes into; it is not.
 */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

enum op {
	OP_BARRIER, OP_ALLREDUCE, OP_BCAST, OP_SITES, OP_P2P, OP_IALLREDUCE,
	OP_TEST, OP_START, OP_PCOLL, OP_PUT,
	OP_SELF_BARRIER, OP_SELF_ALLREDUCE, OP_SELF_P2P, OP_SELF_IALLREDUCE,
	OP_SELF_TEST, OP_SELF_START, OP_SELF_PCOLL, OP_SELF_PUT,
	NOPS
};

static const char *const op_names[NOPS] = {
	"barrier", "allreduce", "bcast", "sites", "p2p", "iallreduce", "test",
	"start", "pcoll", "put", "self-barrier", "self-allreduce", "self-p2p",
	"self-iallreduce", "self-test", "self-start", "self-pcoll", "self-put"
};

static int peer;		/* rank ^ 1, or this rank */
static long tests;		/* MPI_Test calls of the "test" ops */

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

/*
 * The 64 call sites of "sites": each its own function (noipa, so that
 * none is merged with another or inlined), each one call instruction.
 */
#define SITE_FN(i)							\
	static __attribute__((noipa)) void site_##i(int64_t *in,	\
						   int64_t *out)	\
	{								\
		MPI_Allreduce(in, out, 1, MPI_INT64_T, MPI_SUM,		\
			      MPI_COMM_WORLD);				\
	}
#define SITES8(i)							\
	SITE_FN(i##0) SITE_FN(i##1) SITE_FN(i##2) SITE_FN(i##3)		\
	SITE_FN(i##4) SITE_FN(i##5) SITE_FN(i##6) SITE_FN(i##7)
SITES8(1) SITES8(2) SITES8(3) SITES8(4) SITES8(5) SITES8(6) SITES8(7)
SITES8(8)
#define SITE_REF8(i)							\
	site_##i##0, site_##i##1, site_##i##2, site_##i##3, site_##i##4,	\
	site_##i##5, site_##i##6, site_##i##7
static void (*const sites[64])(int64_t *, int64_t *) = {
	SITE_REF8(1), SITE_REF8(2), SITE_REF8(3), SITE_REF8(4),
	SITE_REF8(5), SITE_REF8(6), SITE_REF8(7), SITE_REF8(8)
};

/* Irecv and Isend with 'to' on 'comm', then Waitall. */
static void p2p_loop(MPI_Comm comm, int to, long n)
{
	int64_t in = 1, out = 0;
	MPI_Request r[2];
	long i;

	for (i = 0; i < n; i++) {
		MPI_Irecv(&out, 1, MPI_INT64_T, to, 7, comm, &r[0]);
		MPI_Isend(&in, 1, MPI_INT64_T, to, 7, comm, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
}

/* Irecv and Isend, then MPI_Test on each until it completes. */
static void test_loop(MPI_Comm comm, int to, long n)
{
	int64_t in = 1, out = 0;
	MPI_Request r[2];
	long i;
	int flag;

	for (i = 0; i < n; i++) {
		MPI_Irecv(&out, 1, MPI_INT64_T, to, 7, comm, &r[0]);
		MPI_Isend(&in, 1, MPI_INT64_T, to, 7, comm, &r[1]);
		do {
			MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
			tests++;
		} while (!flag);
		do {
			MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);
			tests++;
		} while (!flag);
	}
}

static void iallreduce_loop(MPI_Comm comm, long n)
{
	int64_t in = 1, out = 0;
	MPI_Request r;
	long i;

	for (i = 0; i < n; i++) {
		MPI_Iallreduce(&in, &out, 1, MPI_INT64_T, MPI_SUM, comm, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
}

/* Persistent requests, made and freed outside the loop. */
static void start_loop(MPI_Comm comm, int to, long n)
{
	int64_t in = 1, out = 0;
	MPI_Request r[2];
	long i;

	MPI_Recv_init(&out, 1, MPI_INT64_T, to, 7, comm, &r[0]);
	MPI_Send_init(&in, 1, MPI_INT64_T, to, 7, comm, &r[1]);
	for (i = 0; i < n; i++) {
		MPI_Start(&r[0]);
		MPI_Start(&r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);
}

/* A persistent Allreduce, made and freed outside the loop. */
static void pcoll_loop(MPI_Comm comm, long n)
{
	int64_t in = 1, out = 0;
	MPI_Request r;
	long i;

	MPI_Allreduce_init(&in, &out, 1, MPI_INT64_T, MPI_SUM, comm,
			   MPI_INFO_NULL, &r);
	for (i = 0; i < n; i++) {
		MPI_Start(&r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&r);
}

/* MPI_Put and MPI_Win_flush to 'to', the window made outside the loop. */
static void put_loop(MPI_Comm comm, int to, long n)
{
	int64_t in = 1, *base;
	MPI_Win win;
	long i;

	MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, comm,
			 &base, &win);
	MPI_Win_lock_all(0, win);
	for (i = 0; i < n; i++) {
		MPI_Put(&in, 1, MPI_INT64_T, to, 0, 1, MPI_INT64_T, win);
		MPI_Win_flush(to, win);
	}
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
}

/*
 * Run 'n' calls (iterations) of 'op'; the loop the benchmark times.  Not
 * inlined: tools/bench/icount.sh counts the instructions under it.
 */
static __attribute__((noinline)) void run_calls(int op, long n)
{
	int64_t in = 1, out = 0;
	long i;

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
	case OP_BCAST:
		for (i = 0; i < n; i++)
			MPI_Bcast(&in, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
		break;
	case OP_SITES:
		for (i = 0; i < n; i++)
			sites[i & 63](&in, &out);
		break;
	case OP_P2P:
		p2p_loop(MPI_COMM_WORLD, peer, n);
		break;
	case OP_IALLREDUCE:
		iallreduce_loop(MPI_COMM_WORLD, n);
		break;
	case OP_TEST:
		test_loop(MPI_COMM_WORLD, peer, n);
		break;
	case OP_START:
		start_loop(MPI_COMM_WORLD, peer, n);
		break;
	case OP_PCOLL:
		pcoll_loop(MPI_COMM_WORLD, n);
		break;
	case OP_SELF_PCOLL:
		pcoll_loop(MPI_COMM_SELF, n);
		break;
	case OP_PUT:
		put_loop(MPI_COMM_WORLD, peer, n);
		break;
	case OP_SELF_PUT:
		put_loop(MPI_COMM_SELF, 0, n);
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
	case OP_SELF_P2P:
		p2p_loop(MPI_COMM_SELF, 0, n);
		break;
	case OP_SELF_IALLREDUCE:
		iallreduce_loop(MPI_COMM_SELF, n);
		break;
	case OP_SELF_TEST:
		test_loop(MPI_COMM_SELF, 0, n);
		break;
	case OP_SELF_START:
		start_loop(MPI_COMM_SELF, 0, n);
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
	int rank, size;

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
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (rank ^ 1) < size ? rank ^ 1 : rank;
	for (p = argv[1]; *p; ) {
		size_t len = strcspn(p, ",");
		int op = parse_op(p, len);
		long b;

		run_calls(op, warmup);
		sum = 0;
		tests = 0;
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
			       "ns_median=%.2f ns_min=%.2f ns_max=%.2f",
			       op_names[op], n, blocks, sum / (double)blocks,
			       med, per_call[0], per_call[blocks - 1]);
			if (op == OP_TEST || op == OP_SELF_TEST)
				printf(" tests=%ld", tests);
			printf("\n");
			fflush(stdout);
		}
		p += len + (p[len] == ',');
	}
	MPI_Finalize();
	printf("rank=%d vmhwm_kib=%ld\n", rank, vmhwm_kib());
	return 0;
}
