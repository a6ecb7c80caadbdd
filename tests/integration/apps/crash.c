/*
 * tests/integration/apps/crash.c: an application that dies part-way,
 * so the trace is cut off where the process was.
 *
 * Usage: crash MODE [N] (default N 2000).  Every rank makes N
 * MPI_Allreduce calls, checks them, makes one MPI_Barrier, prints
 * "crash: rank R did N allreduce errors E" and makes another
 * MPI_Barrier.  Then, by MODE:
 *	kill, term, int	rank 0 raises SIGKILL, SIGTERM or SIGINT, the
 *			others sleep (at most 60 s) until mpiexec kills
 *			them as it cleans up;
 *	wait		print "crash: rank R waiting pid P" and sleep (at
 *			most 60 s) until someone else kills it;
 *	exit3		call MPI_Finalize and exit with status 3.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, n, i, in, out, errors = 0, sig = 0;
	const char *mode;

	if (argc < 2) {
		fprintf(stderr, "usage: crash kill|term|int|wait|exit3 [N]\n");
		return 2;
	}
	mode = argv[1];
	n = argc > 2 ? atoi(argv[2]) : 2000;
	if (!strcmp(mode, "kill"))
		sig = SIGKILL;
	else if (!strcmp(mode, "term"))
		sig = SIGTERM;
	else if (!strcmp(mode, "int"))
		sig = SIGINT;
	else if (strcmp(mode, "wait") && strcmp(mode, "exit3")) {
		fprintf(stderr, "crash: unknown mode '%s'\n", mode);
		return 2;
	}

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < n; i++) {
		in = rank + i;
		MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		if (out != size * i + size * (size - 1) / 2)
			errors++;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("crash: rank %d did %d allreduce errors %d\n", rank, n, errors);
	fflush(stdout);
	/* Every rank has printed before any of them dies. */
	MPI_Barrier(MPI_COMM_WORLD);
	/*
	 * Only rank 0 raises the signal, so that the job's exit status is
	 * always that signal's; the other ranks wait for mpiexec to kill
	 * them as it cleans up.
	 */
	if (sig && rank != 0) {
		for (i = 0; i < 60; i++)
			sleep(1);
		return 5;
	}
	if (sig) {
		raise(sig);
		/* Not reached unless the signal was caught and returned. */
		printf("crash: rank %d survived signal %d\n", rank, sig);
		fflush(stdout);
		return 4;
	}
	if (!strcmp(mode, "wait")) {
		printf("crash: rank %d waiting pid %ld\n", rank,
		       (long)getpid());
		fflush(stdout);
		for (i = 0; i < 60; i++)
			sleep(1);
		return 5;
	}
	MPI_Finalize();
	return errors ? 1 : 3;
}
