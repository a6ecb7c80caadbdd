/*
 * tests/integration/apps/refault.c: a program that takes SIGSEGV on
 * purpose and goes on, with its own handler installed before MPI_Init:
 *	jump	the handler (SA_NODEFER) leaves by longjmp(), which
 *		restores no signal mask, as memory probes do; the next
 *		fault must reach it again;
 *	repair	the handler (SA_SIGINFO) makes the page writable and
 *		returns, so that the write is made again, as incremental
 *		garbage collectors do.
 *
 * Usage: refault MODE N K.  Every rank makes N MPI_Allreduce calls,
 * then K faults, each after an MPI_Allreduce, then N more calls, checks
 * every result and prints "refault: rank R faults F errors E" before
 * MPI_Finalize.
 */
#define _GNU_SOURCE

#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "allreduces.h"

static char *page;
static long page_size;
static jmp_buf back;
static volatile sig_atomic_t faults;

static void on_jump(int sig)
{
	(void)sig;
	faults++;
	longjmp(back, 1);
}

static void on_repair(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)info;
	(void)uc;
	faults++;
	mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int rank, size, n, k, i, jump, errors = 0;

	if (argc != 4 ||
	    (strcmp(argv[1], "jump") && strcmp(argv[1], "repair"))) {
		fprintf(stderr, "usage: refault jump|repair N K\n");
		return 2;
	}
	jump = !strcmp(argv[1], "jump");
	n = atoi(argv[2]);
	k = atoi(argv[3]);
	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, (size_t)page_size, PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 3;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (jump) {
		sa.sa_handler = on_jump;
		sa.sa_flags = SA_NODEFER;
	} else {
		sa.sa_sigaction = on_repair;
		sa.sa_flags = SA_SIGINFO;
	}
	sigaction(SIGSEGV, &sa, NULL);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	errors += allreduces(n, rank, size);
	for (i = 0; i < k; i++) {
		errors += allreduces(1, rank, size);
		if (jump) {
			if (!setjmp(back))
				*(volatile char *)page = 1;
		} else {
			*(volatile char *)page = (char)i;
			mprotect(page, (size_t)page_size, PROT_READ);
		}
	}
	errors += allreduces(n, rank, size);
	errors += faults != k;
	printf("refault: rank %d faults %d errors %d\n", rank, (int)faults,
	       errors);
	fflush(stdout);
	MPI_Finalize();
	return errors != 0;
}
