/*
 * tests/integration/apps/staticmpi.c: a program with MPI linked into it
 * statically (the Makefile links it with MPICH's libmpich.a), so no
 * preloaded library sees its calls.  Output: "staticmpi: rank R of N
 * ok" from each rank, after an MPI_Allreduce of the ranks.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (sum == size * (size - 1) / 2)
		printf("staticmpi: rank %d of %d ok\n", rank, size);
	MPI_Finalize();
	return sum == size * (size - 1) / 2 ? 0 : 1;
}
