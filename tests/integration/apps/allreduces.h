/*
 * tests/integration/apps/allreduces.h: the apps' common work, 'n'
 * MPI_Allreduce calls over MPI_COMM_WORLD from one call site, each sum
 * checked.
 */
#ifndef ST_APPS_ALLREDUCES_H
#define ST_APPS_ALLREDUCES_H

#include <mpi.h>

/* 'n' allreduces of rank + i by this rank of 'size'; wrong sums. */
static inline int allreduces(int n, int rank, int size)
{
	int i, in, out, errors = 0;

	for (i = 0; i < n; i++) {
		in = rank + i;
		MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		errors += out != size * i + size * (size - 1) / 2;
	}
	return errors;
}

#endif
