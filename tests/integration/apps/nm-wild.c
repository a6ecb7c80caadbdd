/*
 * nm-wild.c: wildcard receives.  Rank 0 hands out tasks: it receives
 * each result with MPI_Recv from MPI_ANY_SOURCE and MPI_ANY_TAG and
 * answers its sender with the next task (MPI_Send); the other ranks
 * compute each task and send back a result whose size depends on it.
 * A network-model validation app (tools/scripts/predict-validate.py).
 * Usage: nm-wild [tasks] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

#define RESULT_MAX 32768

int main(int argc, char **argv)
{
	int tasks = argc > 1 ? atoi(argv[1]) : 1000;
	int reps = argc > 2 ? atoi(argv[2]) : 10;
	int rank, size, task, done = 0, sent = 0, w;
	double a[4096] = { 1 }, sum = 0;
	static char res[RESULT_MAX];
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0) {
		for (w = 1; w < size; w++) {
			task = sent < tasks ? sent++ : -1;
			MPI_Send(&task, 1, MPI_INT, w, 0, MPI_COMM_WORLD);
		}
		while (done < tasks) {
			MPI_Recv(res, RESULT_MAX, MPI_BYTE, MPI_ANY_SOURCE,
				 MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			done++;
			sum += res[0] + nm_work(a, 1024, 1);
			task = sent < tasks ? sent++ : -1;
			MPI_Send(&task, 1, MPI_INT, st.MPI_SOURCE, 0,
				 MPI_COMM_WORLD);
		}
		printf("nm-wild: %d tasks, sum %.6e\n", tasks, sum);
	} else {
		for (;;) {
			MPI_Recv(&task, 1, MPI_INT, 0, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (task < 0)
				break;
			sum += nm_work(a, 4096, reps);
			res[0] = (char)task;
			MPI_Send(res, 256 << (task % 8), MPI_BYTE, 0, task % 7,
				 MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
