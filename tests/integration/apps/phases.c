/*
 * tests/integration/apps/phases.c: MPI_Pcontrol as a phase marker, as
 * mpiP users use it: level 1 around a loop of allreduces, level 2 around
 * a loop of barriers, level 0 to close, one call with extra arguments
 * (which MPI ignores).  What the trace must hold goes out as EXPECT lines
 * (apps/expect.h) that t-phases.sh checks; the order of the records is
 * checked there too.
 */
#include <mpi.h>
#include <stdio.h>

#include "expect.h"

#define NRED 5
#define NBAR 3

int main(int argc, char **argv)
{
	int rank, x = 1, y = 0, i, errors = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	expect_open(rank);
	MPI_Pcontrol(1);
	for (i = 0; i < NRED; i++) {
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		errors += y < 1;
	}
	MPI_Pcontrol(2, "barriers", 42);
	for (i = 0; i < NBAR; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	MPI_Pcontrol(0);
	expect(1, "MPI_Pcontrol", "arg == 1");
	expect(1, "MPI_Pcontrol", "arg == 2");
	expect(1, "MPI_Pcontrol", "arg == 0");
	expect(NRED, "MPI_Allreduce", "1");
	expect(NBAR, "MPI_Barrier", "1");
	if (rank == 0)
		printf("phases: %s\n", errors ? "ERRORS" : "ok");
	expect_close();
	MPI_Finalize();
	return errors != 0;
}
