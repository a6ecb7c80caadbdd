/*
 * tests/integration/apps/pmpisites.c: PMPI_Iprobe from 512 call sites,
 * each called 20 times, as a library polling through the profiling
 * interface does.  Such a call reaches the interposer's PMPI_Iprobe,
 * which asks whether it came through the Fortran bindings; an address
 * found outside them must be looked up in the loaded objects once, not
 * at each call.  The program defines dl_iterate_phdr() (exported with
 * -rdynamic, so the library's calls reach it first) to count those
 * lookups, and prints how many the loops made:
 * "pmpisites: rank R: N sites, N loader scans".  Two ranks or more.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

#include <mpi.h>

static long scans;

int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
		   void *data)
{
	static int (*real)(int (*)(struct dl_phdr_info *, size_t, void *),
			   void *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "dl_iterate_phdr");
	scans++;
	return real(cb, data);
}

#define P PMPI_Iprobe(MPI_ANY_SOURCE, 4711, MPI_COMM_WORLD, &flag, \
		      MPI_STATUS_IGNORE);
#define P8 P P P P P P P P
#define P64 P8 P8 P8 P8 P8 P8 P8 P8
#define P512 P64 P64 P64 P64 P64 P64 P64 P64

int main(int argc, char **argv)
{
	int rank, flag, i;
	long before;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	before = scans;
	for (i = 0; i < 20; i++) {
		P512
	}
	printf("pmpisites: rank %d: 512 sites, %ld loader scans\n", rank,
	       scans - before);
	MPI_Finalize();
	return 0;
}
