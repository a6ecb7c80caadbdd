/*
 * tests/integration/apps/fault.c: an application whose rank 0 dies of a
 * fault or ends the job with MPI_Abort after a known number of calls,
 * so that a test can count what the trace kept of them.
 *
 * Usage: fault MODE N.  Every rank makes N MPI_Allreduce calls, one
 * MPI_Barrier, prints "fault: rank R did N allreduce" and makes another
 * MPI_Barrier.  Then rank 0, by MODE:
 *	segv		writes through a null pointer (SIGSEGV);
 *	bus		reads a mapped page past the end of its file (SIGBUS);
 *	fpe		divides an integer by zero (SIGFPE);
 *	abort		calls abort() (SIGABRT);
 *	ill		runs an illegal instruction (SIGILL), as a program
 *			built for another processor does;
 *	xcpu		raises SIGXCPU, which batch systems send at a soft
 *			CPU time limit;
 *	pipe		writes to a pipe nobody reads (SIGPIPE);
 *	mpiabort	calls MPI_Abort(MPI_COMM_WORLD, 7);
 *	handler		as segv, but with its own SIGSEGV handler, installed
 *			before MPI_Init, that prints "fault: rank 0 handler
 *			ran" and calls _exit(9).
 * and the other ranks sleep (at most 60 s) until mpiexec kills them.
 */
#define _GNU_SOURCE

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void on_segv(int sig)
{
	static const char msg[] = "fault: rank 0 handler ran\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(8);
	_exit(9);
}

static int sigbus(void)
{
	volatile char *p;
	int fd = memfd_create("fault", 0);

	if (fd < 0 || ftruncate(fd, 4096))
		return -1;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0))
		return -1;
	return p[0];
}

static int sigpipe(void)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	close(fds[0]);
	return (int)write(fds[1], "x", 1);
}

int main(int argc, char **argv)
{
	static volatile int *volatile null;
	static volatile int zero;
	struct sigaction sa;
	const char *mode;
	int rank, size, n, i, in, out;

	if (argc < 3) {
		fprintf(stderr, "usage: fault segv|bus|fpe|abort|ill|xcpu|"
			"pipe|mpiabort|handler N\n");
		return 2;
	}
	mode = argv[1];
	n = atoi(argv[2]);
	if (!strcmp(mode, "handler")) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_segv;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, NULL);
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < n; i++) {
		in = rank + i;
		MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("fault: rank %d did %d allreduce\n", rank, n);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank != 0) {
		for (i = 0; i < 60; i++)
			sleep(1);
		return 5;
	}
	if (!strcmp(mode, "segv") || !strcmp(mode, "handler"))
		*null = 1;
	else if (!strcmp(mode, "bus"))
		printf("fault: no SIGBUS (%d)\n", sigbus());
	else if (!strcmp(mode, "fpe"))
		printf("fault: no SIGFPE (%d)\n", n / zero);
	else if (!strcmp(mode, "abort"))
		abort();
	else if (!strcmp(mode, "ill"))
		__builtin_trap();
	else if (!strcmp(mode, "xcpu"))
		raise(SIGXCPU);
	else if (!strcmp(mode, "pipe"))
		printf("fault: no SIGPIPE (%d)\n", sigpipe());
	else if (!strcmp(mode, "mpiabort"))
		MPI_Abort(MPI_COMM_WORLD, 7);
	/* Not reached unless the fault did not happen. */
	printf("fault: rank 0 survived '%s'\n", mode);
	fflush(stdout);
	MPI_Finalize();
	return 4;
}
