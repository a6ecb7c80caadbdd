/*
 * nm-mg.c: a multigrid V-cycle.  Each cycle goes down 'levels' grids,
 * each a quarter of the one above: at each, both ranks trade two faces
 * with their neighbour (MPI_Irecv and MPI_Isend x 2, MPI_Waitall) and
 * smooth; at the coarsest they sum a residual (MPI_Allreduce); on the
 * way up each level trades one face each way (MPI_Sendrecv) and
 * smooths again.  The faces run from B bytes at the finest grid to
 * B / 4^(levels - 1) at the coarsest, across the eager limit, and the
 * compute shrinks with them.  A network-model validation app
 * (tools/scripts/predict-validate.py), not looked at while the model
 * was built.
 * Usage: nm-mg [cycles] [bytes] [levels] [work]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm-work.h"

int main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 150;
	int bytes = argc > 2 ? atoi(argv[2]) : 65536;
	int levels = argc > 3 ? atoi(argv[3]) : 5;
	int reps = argc > 4 ? atoi(argv[4]) : 4;
	int rank, size, peer, c, l;
	double a[4096] = { 1 }, sum = 0, res = 0, tot = 0;
	MPI_Request rq[4];
	MPI_Status st[4];
	char *sb, *rb;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sb = calloc(2, (size_t)bytes);
	rb = calloc(2, (size_t)bytes);
	if (!sb || !rb || levels < 1 || levels > 8)
		MPI_Abort(MPI_COMM_WORLD, 1);
	peer = rank ^ 1;
	for (c = 0; c < cycles && peer < size; c++) {
		for (l = 0; l < levels; l++) {
			int n = bytes >> (2 * l), w = reps >> l;

			n = n < 8 ? 8 : n;
			MPI_Irecv(rb, n, MPI_BYTE, peer, 2 * l, MPI_COMM_WORLD,
				  &rq[0]);
			MPI_Irecv(rb + n, n, MPI_BYTE, peer, 2 * l + 1,
				  MPI_COMM_WORLD, &rq[1]);
			nm_fill(sb, 2 * (size_t)n, c + l);
			MPI_Isend(sb, n, MPI_BYTE, peer, 2 * l, MPI_COMM_WORLD,
				  &rq[2]);
			MPI_Isend(sb + n, n, MPI_BYTE, peer, 2 * l + 1,
				  MPI_COMM_WORLD, &rq[3]);
			MPI_Waitall(4, rq, st);
			sum += nm_work(a, 4096, w > 0 ? w : 1) + rb[0];
		}
		res = sum * 1e-9;
		MPI_Allreduce(&res, &tot, 1, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		for (l = levels - 1; l >= 0; l--) {
			int n = bytes >> (2 * l), w = reps >> l;

			n = n < 8 ? 8 : n;
			nm_fill(sb, (size_t)n, c - l);
			MPI_Sendrecv(sb, n, MPI_BYTE, peer, 20 + l, rb, n,
				     MPI_BYTE, peer, 20 + l, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE);
			sum += nm_work(a, 4096, w > 0 ? w : 1) + rb[0];
		}
	}
	if (rank == 0)
		printf("nm-mg: %d cycles of %d levels, residual %.6e\n", cycles,
		       levels, tot);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
