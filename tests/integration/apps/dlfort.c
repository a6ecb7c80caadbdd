/*
 * tests/integration/apps/dlfort.c: MPI calls through the MPI's Fortran
 * bindings loaded after MPI_Init, as a program that dlopen()s a plugin
 * written in Fortran makes them.  The bindings library (Open MPI's
 * libmpi_mpifh, MPICH's libmpichfort) was not loaded when the
 * interposer started.  Between MPI_Init and MPI_Finalize: one
 * MPI_Allreduce in C, then through the bindings MPI_ALLREDUCE three
 * times from one line and once from another, and MPI_BARRIER once; so
 * 5 MPI_Allreduce, 1 MPI_Barrier and 4 call sites.
 * Output: "dlfort: rank R sums S S S S S" from each rank (each S the
 * number of ranks).
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

#ifdef OPEN_MPI
#define BINDINGS "libmpi_mpifh.so.40"
#else
#define BINDINGS "libmpichfort.so.12"
#endif

typedef void fort_allreduce(const MPI_Fint *, MPI_Fint *, const MPI_Fint *,
			    const MPI_Fint *, const MPI_Fint *,
			    const MPI_Fint *, MPI_Fint *);
typedef void fort_barrier(const MPI_Fint *, MPI_Fint *);

int main(int argc, char **argv)
{
	fort_allreduce *allreduce;
	fort_barrier *barrier;
	MPI_Fint one = 1, n = 1, type, op, comm, ierr = 0, sum[5] = { 0 };
	void *h;
	int rank, i, c_one = 1, c_sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allreduce(&c_one, &c_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	sum[0] = c_sum;
	h = dlopen(BINDINGS, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "dlfort: %s\n", dlerror());
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	*(void **)&allreduce = dlsym(h, "mpi_allreduce_");
	*(void **)&barrier = dlsym(h, "mpi_barrier_");
	if (!allreduce || !barrier) {
		fprintf(stderr, "dlfort: no mpi_allreduce_ in %s\n", BINDINGS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	type = MPI_Type_c2f(MPI_INTEGER);
	op = MPI_Op_c2f(MPI_SUM);
	comm = MPI_Comm_c2f(MPI_COMM_WORLD);
	for (i = 1; i <= 3; i++)
		allreduce(&one, &sum[i], &n, &type, &op, &comm, &ierr);
	allreduce(&one, &sum[4], &n, &type, &op, &comm, &ierr);
	barrier(&comm, &ierr);
	printf("dlfort: rank %d sums %d %d %d %d %d\n", rank, (int)sum[0],
	       (int)sum[1], (int)sum[2], (int)sum[3], (int)sum[4]);
	MPI_Finalize();
	return ierr != MPI_SUCCESS;
}
