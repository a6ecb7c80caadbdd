/*
 * tests/integration/apps/fsize.c: a program under a small file size
 * limit (RLIMIT_FSIZE) that it never reaches itself: after MPI_Init it
 * lowers the limit to LIMIT bytes, then makes N MPI_Allreduce calls and
 * finalizes.  Only a trace file grows past the limit, and a write past
 * it raises SIGXFSZ, whose default action ends the process: synctrace
 * must take the error and leave the program to finish as it would have.
 *
 * Usage: fsize LIMIT N.  Prints "fsize: rank R allreduce N errors E".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "allreduces.h"

int main(int argc, char **argv)
{
	struct rlimit rl;
	int rank, size, n, errors = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: fsize LIMIT N\n");
		return 2;
	}
	n = atoi(argv[2]);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rl.rlim_cur = rl.rlim_max = (rlim_t)atol(argv[1]);
	if (setrlimit(RLIMIT_FSIZE, &rl)) {
		perror("fsize: setrlimit");
		errors++;
	}
	errors += allreduces(n, rank, size);
	printf("fsize: rank %d allreduce %d errors %d\n", rank, n, errors);
	MPI_Finalize();
	return errors != 0;
}
