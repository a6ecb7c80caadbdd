/*
 * tests/integration/apps/p2p.c: every point-to-point flavour between the
 * ranks of each pair (2k, 2k+1), with sizes and tags that t-p2p.sh looks
 * for in the trace.  Receives are posted with MPI_ANY_SOURCE or a larger
 * buffer than the message, so only the status can tell the real source
 * and byte count.  Every received value is checked; the app prints one
 * line per rank and exits non-zero on any mismatch.
 *
 * Step (tag)	even rank "a"			odd rank "b"
 *  1 (11)	Send 100 int			Recv ANY_SOURCE/ANY_TAG, 1000 int
 *  2 (12)	Irecv ANY_SOURCE, Test loop	Isend 37 double, Wait
 *  3 (13)	Sendrecv 8 char / ANY_SOURCE	Sendrecv 16 char / ANY_SOURCE
 *  4 (14)	Ssend 7 short			Recv 7 short
 *  5 (99, 15)	Recv 0 byte, Rsend 5 int	Irecv, Send 0 byte, Wait
 *  6 (16)	Bsend 33 char			Recv ANY_SOURCE/ANY_TAG
 *  7 (17)	Recv ANY_SOURCE/ANY_TAG		Issend 3 long long, Wait
 *  8 (18)	Sendrecv_replace 6 int		Sendrecv_replace 6 int
 *  9 (19, 20)	Send 21 char, Send 9 int	Probe + Recv, Iprobe loop + Recv
 * 10 (21)	Recv from MPI_PROC_NULL		Recv from MPI_PROC_NULL
 *
 * Step 10's status must say source MPI_PROC_NULL, tag MPI_ANY_TAG, count
 * 0, as MPI_Recv gives it untraced (and in yield mode: MPICH's MPI_Irecv
 * from MPI_PROC_NULL completes with source and tag 0).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "p2p: line %d: check failed: %s\n",  \
				__LINE__, #cond);                            \
			errors++;                                            \
		}                                                            \
	} while (0)

/* The status of the receive or probe on line 'line'. */
static void check_status_at(int line, const MPI_Status *st,
			    MPI_Datatype type, int source, int tag, int count)
{
	int n;

	MPI_Get_count(st, type, &n);
	if (st->MPI_SOURCE != source || st->MPI_TAG != tag || n != count) {
		fprintf(stderr, "p2p: line %d: status says source %d tag %d "
			"count %d, expected %d %d %d\n", line, st->MPI_SOURCE,
			st->MPI_TAG, n, source, tag, count);
		errors++;
	}
}

#define check_status(st, type, source, tag, count)                          \
	check_status_at(__LINE__, (st), (type), (source), (tag), (count))

static void side_a(int b)
{
	int ibuf[100], i, flag = 0;
	double dbuf[100];
	char c8[8], c16[16], c33[33], c21[21];
	short s7[7];
	int i5[5], i6[6], i9[9];
	long long l3[3];
	MPI_Request req;
	MPI_Status st;
	char *bsend;
	int bsize;
	void *old;

	for (i = 0; i < 100; i++)
		ibuf[i] = 1000 + i;
	MPI_Send(ibuf, 100, MPI_INT, b, 11, MPI_COMM_WORLD);

	MPI_Irecv(dbuf, 100, MPI_DOUBLE, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD,
		  &req);
	while (!flag)
		MPI_Test(&req, &flag, &st);
	check_status(&st, MPI_DOUBLE, b, 12, 37);
	for (i = 0; i < 37; i++)
		CHECK(dbuf[i] == i * 0.5);

	memset(c8, 'a', sizeof(c8));
	MPI_Sendrecv(c8, 8, MPI_CHAR, b, 13, c16, 16, MPI_CHAR,
		     MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &st);
	check_status(&st, MPI_CHAR, b, 13, 16);
	for (i = 0; i < 16; i++)
		CHECK(c16[i] == 'b');

	for (i = 0; i < 7; i++)
		s7[i] = (short)(70 + i);
	MPI_Ssend(s7, 7, MPI_SHORT, b, 14, MPI_COMM_WORLD);

	MPI_Recv(NULL, 0, MPI_BYTE, b, 99, MPI_COMM_WORLD, &st);
	check_status(&st, MPI_BYTE, b, 99, 0);
	for (i = 0; i < 5; i++)
		i5[i] = 50 + i;
	MPI_Rsend(i5, 5, MPI_INT, b, 15, MPI_COMM_WORLD);

	bsize = 33 + MPI_BSEND_OVERHEAD;
	bsend = malloc(bsize);
	MPI_Buffer_attach(bsend, bsize);
	memset(c33, 'c', sizeof(c33));
	MPI_Bsend(c33, 33, MPI_CHAR, b, 16, MPI_COMM_WORLD);
	MPI_Buffer_detach(&old, &bsize);
	free(bsend);

	MPI_Recv(l3, 3, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG,
		 MPI_COMM_WORLD, &st);
	check_status(&st, MPI_LONG_LONG, b, 17, 3);
	for (i = 0; i < 3; i++)
		CHECK(l3[i] == 1LL << (40 + i));

	for (i = 0; i < 6; i++)
		i6[i] = 600 + i;
	MPI_Sendrecv_replace(i6, 6, MPI_INT, b, 18, MPI_ANY_SOURCE, 18,
			     MPI_COMM_WORLD, &st);
	check_status(&st, MPI_INT, b, 18, 6);
	for (i = 0; i < 6; i++)
		CHECK(i6[i] == 700 + i);

	memset(c21, 'd', sizeof(c21));
	MPI_Send(c21, 21, MPI_CHAR, b, 19, MPI_COMM_WORLD);
	for (i = 0; i < 9; i++)
		i9[i] = 90 + i;
	MPI_Send(i9, 9, MPI_INT, b, 20, MPI_COMM_WORLD);
}

static void side_b(int a)
{
	int ibuf[1000], i, flag = 0, n;
	double dbuf[37];
	char c8[8], c16[16], c33[64], c21[21];
	short s7[7];
	int i5[5], i6[6], i9[9];
	long long l3[3];
	MPI_Request req;
	MPI_Status st;

	MPI_Recv(ibuf, 1000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
		 MPI_COMM_WORLD, &st);
	check_status(&st, MPI_INT, a, 11, 100);
	for (i = 0; i < 100; i++)
		CHECK(ibuf[i] == 1000 + i);

	for (i = 0; i < 37; i++)
		dbuf[i] = i * 0.5;
	MPI_Isend(dbuf, 37, MPI_DOUBLE, a, 12, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	memset(c16, 'b', sizeof(c16));
	MPI_Sendrecv(c16, 16, MPI_CHAR, a, 13, c8, 8, MPI_CHAR,
		     MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &st);
	check_status(&st, MPI_CHAR, a, 13, 8);
	for (i = 0; i < 8; i++)
		CHECK(c8[i] == 'a');

	MPI_Recv(s7, 7, MPI_SHORT, a, 14, MPI_COMM_WORLD, &st);
	check_status(&st, MPI_SHORT, a, 14, 7);
	for (i = 0; i < 7; i++)
		CHECK(s7[i] == 70 + i);

	MPI_Irecv(i5, 5, MPI_INT, a, 15, MPI_COMM_WORLD, &req);
	MPI_Send(NULL, 0, MPI_BYTE, a, 99, MPI_COMM_WORLD);
	MPI_Wait(&req, &st);
	check_status(&st, MPI_INT, a, 15, 5);
	for (i = 0; i < 5; i++)
		CHECK(i5[i] == 50 + i);

	MPI_Recv(c33, 64, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG,
		 MPI_COMM_WORLD, &st);
	check_status(&st, MPI_CHAR, a, 16, 33);
	for (i = 0; i < 33; i++)
		CHECK(c33[i] == 'c');

	for (i = 0; i < 3; i++)
		l3[i] = 1LL << (40 + i);
	MPI_Issend(l3, 3, MPI_LONG_LONG, a, 17, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	for (i = 0; i < 6; i++)
		i6[i] = 700 + i;
	MPI_Sendrecv_replace(i6, 6, MPI_INT, a, 18, MPI_ANY_SOURCE, 18,
			     MPI_COMM_WORLD, &st);
	check_status(&st, MPI_INT, a, 18, 6);
	for (i = 0; i < 6; i++)
		CHECK(i6[i] == 600 + i);

	MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	check_status(&st, MPI_CHAR, a, 19, 21);
	MPI_Get_count(&st, MPI_CHAR, &n);
	MPI_Recv(c21, n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	for (i = 0; i < 21; i++)
		CHECK(c21[i] == 'd');
	while (!flag)
		MPI_Iprobe(MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &flag, &st);
	check_status(&st, MPI_INT, a, 20, 9);
	MPI_Recv(i9, 9, MPI_INT, a, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < 9; i++)
		CHECK(i9[i] == 90 + i);
}

/* Step 10, on both sides. */
static void from_proc_null(void)
{
	int i5[5];
	MPI_Status st;

	MPI_Recv(i5, 5, MPI_INT, MPI_PROC_NULL, 21, MPI_COMM_WORLD, &st);
	check_status(&st, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, 0);
}

int main(int argc, char **argv)
{
	int rank, size, all;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size % 2) {
		if (rank == 0)
			fprintf(stderr, "p2p: needs an even number of ranks\n");
		MPI_Finalize();
		return 2;
	}
	if (rank % 2 == 0)
		side_a(rank + 1);
	else
		side_b(rank - 1);
	from_proc_null();
	MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("p2p: rank %d of %d: %s\n", rank, size,
	       errors ? "ERRORS" : "ok");
	if (rank == 0)
		printf("p2p: %s\n", all ? "FAILED" : "all ranks ok");
	MPI_Finalize();
	return all != 0;
}
