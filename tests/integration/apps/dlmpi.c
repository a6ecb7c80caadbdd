/*
 * tests/integration/apps/dlmpi.c: a program that calls the MPI
 * library's own MPI_Init, MPI_Barrier and MPI_Finalize, found with
 * dlopen() and dlsym() on the library (as language bindings that load
 * MPI at run time do), so no interposer sees them.  The library is the
 * one that holds PMPI_Comm_rank, which this program is linked with.
 * Output: "dlmpi: rank R ok" from each rank.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int (*init)(int *, char ***), (*fin)(void), (*barrier)(MPI_Comm);
	Dl_info info;
	void *h;
	int rank, i;

	if (!dladdr((void *)&PMPI_Comm_rank, &info) || !info.dli_fname ||
	    !(h = dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL))) {
		fprintf(stderr, "dlmpi: cannot load the MPI library\n");
		return 2;
	}
	*(void **)&init = dlsym(h, "MPI_Init");
	*(void **)&fin = dlsym(h, "MPI_Finalize");
	*(void **)&barrier = dlsym(h, "MPI_Barrier");
	if (!init || !fin || !barrier)
		return 2;
	init(&argc, &argv);
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (i = 0; i < 10; i++)
		barrier(MPI_COMM_WORLD);
	printf("dlmpi: rank %d ok\n", rank);
	fin();
	return 0;
}
