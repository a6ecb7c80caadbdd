/*
 * tests/integration/apps/gone.c: a program whose trace goes while it
 * runs, as a clean-up script or a scratch purge might take it: after
 * MPI_Init and N MPI_Allreduce calls, rank 0 removes the directory DIR
 * and the files in it (synctrace's run directory), then every rank
 * makes N more calls and finalizes.  Untraced, DIR does not exist and
 * nothing is removed.
 *
 * Usage: gone DIR N.  Prints "gone: rank R allreduce 2N errors E".
 */
#define _DEFAULT_SOURCE

#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allreduces.h"

static void remove_dir(const char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	int rank, size, n, errors;

	if (argc != 3) {
		fprintf(stderr, "usage: gone DIR N\n");
		return 2;
	}
	n = atoi(argv[2]);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	errors = allreduces(n, rank, size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		remove_dir(argv[1]);
	MPI_Barrier(MPI_COMM_WORLD);
	errors += allreduces(n, rank, size);
	printf("gone: rank %d allreduce %d errors %d\n", rank, 2 * n, errors);
	MPI_Finalize();
	return errors != 0;
}
