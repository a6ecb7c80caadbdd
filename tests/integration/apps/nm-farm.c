/*
 * nm-farm.c: a task farm.  Rank 0 hands rank 1 a task (a 64-byte
 * descriptor, MPI_Send), rank 1 computes it (how long depends on the
 * task) and returns a result whose size depends on it too (512 B to
 * 12 KiB, across the eager limit over TCP) by MPI_Send; rank 0, which
 * computes its own share meanwhile, learns the result's size by
 * MPI_Probe from any source, takes it by MPI_Recv and sends the next
 * task.  Two tasks are in flight: rank 0 always sends the next one
 * before it waits for a result.  A network-model validation app
 * (tools/scripts/predict-validate.py).
 * Usage: nm-farm [tasks] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

#define RES_MAX 12288

static int res_size(int task)
{
	static const int sizes[] = { 512, 12288, 2048, 6144, 1024, 8192 };

	return sizes[task % 6];
}

int main(int argc, char **argv)
{
	int tasks = argc > 1 ? atoi(argv[1]) : 600;
	int reps = argc > 2 ? atoi(argv[2]) : 8;
	int rank, size, t, n, got = 0, desc[16] = { 0 };
	double a[4096] = { 1 }, sum = 0;
	char *res;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	res = calloc(RES_MAX, 1);
	if (!res)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (size < 2) {
		MPI_Finalize();
		return 0;
	}
	if (rank == 0) {
		for (t = 0; t < 2 && t < tasks; t++) {
			desc[0] = t;
			MPI_Send(desc, 16, MPI_INT, 1, 1, MPI_COMM_WORLD);
		}
		for (t = 0; t < tasks; t++) {
			sum += nm_work(a, 4096, reps / 2);
			MPI_Probe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &n);
			MPI_Recv(res, n, MPI_BYTE, st.MPI_SOURCE, 2,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			got += n == res_size(t);
			desc[0] = t + 2 < tasks ? t + 2 : -1;
			MPI_Send(desc, 16, MPI_INT, 1, 1, MPI_COMM_WORLD);
		}
		printf("nm-farm: %d tasks, %d sizes right, sum %.6e\n", tasks,
		       got, sum);
	} else if (rank == 1) {
		for (;;) {
			MPI_Recv(desc, 16, MPI_INT, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (desc[0] < 0)
				break;
			sum += nm_work(a, 4096, reps / 2 + desc[0] % 3 * reps);
			n = res_size(desc[0]);
			nm_fill(res, (size_t)n, desc[0]);
			MPI_Send(res, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		}
		/* The task beyond the last one's stop message. */
		if (tasks > 1)
			MPI_Recv(desc, 16, MPI_INT, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
	}
	free(res);
	MPI_Finalize();
	return 0;
}
