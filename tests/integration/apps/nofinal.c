/*
 * tests/integration/apps/nofinal.c: an application that calls exit(0)
 * after MPI_Init and some collectives, never calling MPI_Finalize.  The
 * trace must still hold every collective it made.
 *
 * Usage: nofinal [N [atexit|quick|_exit]] (default 50).  Each rank makes N
 * MPI_Allreduce, N / 2 MPI_Bcast and 3 MPI_Barrier calls, checks the
 * results and prints its counts as "nofinal: rank R allreduce A bcast B
 * barrier C".
 *
 * With "atexit", an exit handler registered before MPI_Init (as some
 * libraries and language runtimes do) makes one more MPI_Allreduce and
 * calls MPI_Finalize, printing "nofinal: rank R atexit errors E": the
 * trace must hold both, and the run be complete.  With "quick", the
 * program ends in quick_exit(3) instead of exit(3); with "_exit", an
 * exit handler registered before MPI_Init ends it in _exit(2), so that
 * no later exit handler or destructor runs.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fast(void)
{
	_exit(0);
}

static void finish(void)
{
	int rank, size, in, out;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	in = rank;
	MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	printf("nofinal: rank %d atexit errors %d\n", rank,
	       out != size * (size - 1) / 2);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int rank, size, n, i, in, out, v, errors = 0;
	int nallreduce = 0, nbcast = 0, nbarrier = 0;

	n = argc > 1 ? atoi(argv[1]) : 50;
	if (argc > 2 && !strcmp(argv[2], "atexit"))
		atexit(finish);
	if (argc > 2 && !strcmp(argv[2], "_exit"))
		atexit(fast);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	MPI_Barrier(MPI_COMM_WORLD);
	nbarrier++;
	for (i = 0; i < n; i++) {
		in = rank + i;
		MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		nallreduce++;
		if (out != size * i + size * (size - 1) / 2)
			errors++;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	nbarrier++;
	for (i = 0; i < n / 2; i++) {
		v = rank == 0 ? i : -1;
		MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
		nbcast++;
		if (v != i)
			errors++;
	}
	/* All ranks are done with MPI before any of them exits. */
	MPI_Barrier(MPI_COMM_WORLD);
	nbarrier++;
	printf("nofinal: rank %d allreduce %d bcast %d barrier %d errors %d\n",
	       rank, nallreduce, nbcast, nbarrier, errors);
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "quick"))
		quick_exit(errors != 0);
	exit(errors != 0);
}
