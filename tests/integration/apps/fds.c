/*
 * tests/integration/apps/fds.c: a program that treats every descriptor
 * as its own.  After MPI_Init each rank closes every regular file it
 * has open, whoever opened it (synctrace's trace file and run index
 * among them), opens NFILES files of its own in DIR and puts them on
 * descriptors 700 and up too (where synctrace keeps its own), makes
 * ITERS MPI_Allreduce calls, writes one line to each file, and closes
 * them only after MPI_Finalize.  t-fds.sh checks that each holds
 * exactly its line.
 *
 * Usage: fds DIR [ITERS [kill|stderr]] (default 100000).  Output: "fds:
 * all ranks ok" from rank 0; exit status non-zero when a write failed.
 * With "kill", each rank closes the regular files above its own again
 * and ends with SIGTERM instead of MPI_Finalize, so what synctrace has
 * buffered is written from its signal handler: rank 0 first, and the
 * others only once rank 0 is gone (up to 30 s), so that no rank's
 * death can make the launcher kill rank 0 before its own signal (Hydra
 * did so now and then, even with -disable-auto-cleanup).  With "stderr", each
 * rank closes descriptor 2 (stderr) as well before opening its files,
 * so that its first file gets descriptor 2.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NFILES 8
#define HIGH 700

/* Wait until process 'pid' is gone or a zombie, at most 30 s. */
static void wait_gone(long pid)
{
	struct timespec ms = { 0, 1000000 };
	char path[64], line[256], *p;
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	for (k = 0; k < 30000; k++) {
		if (!(f = fopen(path, "r")))
			return;
		p = fgets(line, sizeof(line), f);
		fclose(f);
		/* "pid (comm) S ...": the state after the last ')'. */
		if (!p || !(p = strrchr(line, ')')) || p[1] != ' ' ||
		    p[2] == 'Z' || p[2] == 'X')
			return;
		nanosleep(&ms, NULL);
	}
}

int main(int argc, char **argv)
{
	long pid0;
	int rank, i, x = 1, y, fd, fds[NFILES], bad = 0, all;
	int iters = argc > 2 ? atoi(argv[2]) : 100000;
	char path[4096], want[64];
	struct stat st;

	if (argc < 2) {
		fprintf(stderr, "usage: fds DIR [ITERS]\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc > 3 && !strcmp(argv[3], "stderr"))
		close(2);
	for (fd = 3; fd < 1024; fd++)
		if (!fstat(fd, &st) && S_ISREG(st.st_mode))
			close(fd);
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/app-%d-%d.txt", argv[1], rank,
			 i);
		fds[i] = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
		if (fds[i] < 0 || dup2(fds[i], HIGH + i) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (i = 0; i < iters; i++)
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < NFILES; i++) {
		snprintf(want, sizeof(want), "rank %d file %d\n", rank, i);
		if (write(fds[i], want, strlen(want)) != (ssize_t)strlen(want))
			bad++;
	}
	MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	pid0 = (long)getpid();
	MPI_Bcast(&pid0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("fds: %s\n", all ? "FAILED" : "all ranks ok");
	fflush(stdout);
	if (argc > 3 && !strcmp(argv[3], "kill")) {
		/* Whatever synctrace opened again since: closed too. */
		for (fd = HIGH + NFILES; fd < 1024; fd++)
			if (!fstat(fd, &st) && S_ISREG(st.st_mode))
				close(fd);
		if (rank)
			wait_gone(pid0);
		raise(SIGTERM);
	}
	/* Open across MPI_Finalize, where synctrace writes what is left. */
	MPI_Finalize();
	for (i = 0; i < NFILES; i++) {
		close(fds[i]);
		close(HIGH + i);
	}
	return all != 0;
}
