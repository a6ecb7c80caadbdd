/*
 * tests/integration/apps/rmaio.c: one-sided communication, then MPI-IO,
 * on 2 ranks, each in a phase of its own (MPI_Pcontrol(1), (2), then
 * (0)), for the tools' tests: the app counts what it does and prints
 * it, and t-rmaio.sh checks report, table, predict, view and --phase
 * against those numbers.  Usage: rmaio FILE [ITER] (FILE on a tmpfs).
 *
 * Phase 1, a window of 256 doubles per rank: ITER fence epochs, each a
 * Put of 8 + i doubles and a Get of 4 from the peer (the first fence
 * noprecede, the last nosucceed; rank 1 sleeps 20 ms before the last);
 * a barrier, then two post-start-complete-wait epochs, rank 0 the
 * target, which sleeps 30 ms before its first post, rank 1 putting 16
 * doubles in each; passive target: rank 1 locks rank 0 exclusively and
 * puts 5 doubles, then shared and gets 3; both lock_all, flush_all,
 * unlock_all; MPI_Win_free.
 *
 * Phase 2, a file: MPI_File_open, rank 0 sleeps 20 ms, ITER rounds of
 * MPI_File_write_at_all and MPI_File_read_at_all of 16 ints per rank,
 * one MPI_File_write and one MPI_File_iwrite_at of 16 ints per rank,
 * MPI_File_close; rank 0 deletes the file.
 *
 * Every value moved is checked; a wrong one makes the app fail.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 256			/* doubles in a rank's window */
#define B 16			/* ints per rank per file block */

static int errors;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "rmaio: line %d: check failed: %s\n",\
				__LINE__, #cond);                            \
			errors++;                                            \
		}                                                            \
	} while (0)

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * What the window moved, counted where it was sent from: bytes put into
 * and got from each target, and calls to each.
 */
static long put_to[2], got_from[2], calls_to[2];

int main(int argc, char **argv)
{
	double *wbuf, src[32], got[8];
	int rank, size, peer, iter = 10, i, k, fbuf[B], rbuf[B];
	long sums[6], written = 0, rd = 0, wcalls = 0, rcalls = 0;
	MPI_Win win;
	MPI_Group world, g;
	MPI_File fh;
	MPI_Status st;
	MPI_Request q;
	MPI_Offset off;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || argc < 2 || argc > 3 ||
	    (argc == 3 && (iter = atoi(argv[2])) < 2)) {
		if (!rank)
			fprintf(stderr, "usage: rmaio FILE [ITER >= 2] (on 2 "
				"ranks)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	peer = 1 - rank;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	for (i = 0; i < 32; i++)
		src[i] = 1000 * rank + i;

	/* Phase 1: one-sided. */
	MPI_Pcontrol(1);
	MPI_Alloc_mem(N * sizeof(double), MPI_INFO_NULL, &wbuf);
	for (i = 0; i < N; i++)
		wbuf[i] = -1;
	MPI_Win_create(wbuf, N * sizeof(double), sizeof(double),
		       MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	for (k = 0; k < iter; k++) {
		MPI_Win_fence(k ? 0 : MPI_MODE_NOPRECEDE, win);
		MPI_Put(src, 8 + k, MPI_DOUBLE, peer, 0, 8 + k, MPI_DOUBLE,
			win);
		MPI_Get(got, 4, MPI_DOUBLE, peer, 200, 4, MPI_DOUBLE, win);
		put_to[peer] += (8 + k) * (long)sizeof(double);
		got_from[peer] += 4 * (long)sizeof(double);
		calls_to[peer] += 2;
	}
	if (rank == 1)
		nap(20);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	for (i = 0; i < 8 + iter - 1; i++)
		CHECK(wbuf[i] == 1000 * peer + i);
	CHECK(got[0] == -1 && got[3] == -1);

	MPI_Barrier(MPI_COMM_WORLD);
	for (k = 0; k < 2; k++) {
		if (rank == 0) {
			if (!k)
				nap(30);
			MPI_Group_incl(world, 1, (int[]){ 1 }, &g);
			MPI_Win_post(g, 0, win);
			MPI_Win_wait(win);
			MPI_Group_free(&g);
			CHECK(wbuf[100] == 1000 && wbuf[115] == 1015);
		} else {
			MPI_Group_incl(world, 1, (int[]){ 0 }, &g);
			MPI_Win_start(g, 0, win);
			MPI_Put(src, 16, MPI_DOUBLE, 0, 100, 16, MPI_DOUBLE,
				win);
			MPI_Win_complete(win);
			MPI_Group_free(&g);
			put_to[0] += 16 * (long)sizeof(double);
			calls_to[0]++;
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		MPI_Put(src, 5, MPI_DOUBLE, 0, 150, 5, MPI_DOUBLE, win);
		MPI_Win_unlock(0, win);
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Get(got, 3, MPI_DOUBLE, 0, 150, 3, MPI_DOUBLE, win);
		MPI_Win_unlock(0, win);
		CHECK(got[0] == 1000 && got[2] == 1002);
		put_to[0] += 5 * (long)sizeof(double);
		got_from[0] += 3 * (long)sizeof(double);
		calls_to[0] += 2;
	}
	MPI_Win_lock_all(0, win);
	MPI_Win_flush_all(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	MPI_Free_mem(wbuf);

	/* Phase 2: a file. */
	MPI_Pcontrol(2);
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
		      MPI_INFO_NULL, &fh);
	if (rank == 0)
		nap(20);
	for (k = 0; k < iter; k++) {
		off = ((MPI_Offset)k * size + rank) * B * (MPI_Offset)sizeof(int);
		for (i = 0; i < B; i++)
			fbuf[i] = 1000 * k + 100 * rank + i;
		MPI_File_write_at_all(fh, off, fbuf, B, MPI_INT, &st);
		MPI_File_read_at_all(fh, off, rbuf, B, MPI_INT, &st);
		for (i = 0; i < B; i++)
			CHECK(rbuf[i] == fbuf[i]);
		written += B * (long)sizeof(int);
		rd += B * (long)sizeof(int);
		wcalls++;
		rcalls++;
	}
	off = ((MPI_Offset)iter * size + rank) * B * (MPI_Offset)sizeof(int);
	MPI_File_seek(fh, off, MPI_SEEK_SET);
	MPI_File_write(fh, fbuf, B, MPI_INT, &st);
	off += (MPI_Offset)size * B * (MPI_Offset)sizeof(int);
	MPI_File_iwrite_at(fh, off, fbuf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	written += 2 * B * (long)sizeof(int);
	wcalls += 2;
	MPI_File_close(&fh);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		MPI_File_delete(argv[1], MPI_INFO_NULL);
	MPI_Pcontrol(0);

	/* What each target got, over origins; the file, over ranks. */
	sums[0] = put_to[0];
	sums[1] = got_from[0];
	sums[2] = calls_to[0];
	sums[3] = put_to[1];
	sums[4] = got_from[1];
	sums[5] = calls_to[1];
	MPI_Allreduce(MPI_IN_PLACE, sums, 6, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &written, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &rd, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &wcalls, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &rcalls, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM,
		      MPI_COMM_WORLD);
	if (rank == 0) {
		for (i = 0; i < 2; i++)
			printf("rmaio: target %d calls %ld sent %ld received "
			       "%ld\n", i, sums[3 * i + 2], sums[3 * i],
			       sums[3 * i + 1]);
		printf("rmaio: window memory %ld fence %d access 2 exposure 2 "
		       "shared 1 exclusive 1 lock_all 2\n",
		       2 * N * (long)sizeof(double), 2 * iter);
		printf("rmaio: file written %ld in %ld calls, read %ld in %ld "
		       "calls, %d collective instances\n", written, wcalls,
		       rd, rcalls, 2 * iter + 2);
		printf("rmaio: %s\n", errors ? "ERRORS" : "all ranks ok");
	}
	MPI_Group_free(&world);
	MPI_Finalize();
	return errors != 0;
}
