/*
 * tests/integration/apps/sessworld.c: both MPI 4.0 models in one
 * program.  A session is opened first (as a library that starts before
 * the program may do), a communicator made from its mpi://WORLD process
 * set and used; then the program calls MPI_Init, and the session is
 * finalized while MPI_COMM_WORLD goes on; MPI_Finalize comes last.
 * Results are checked; what the trace must hold goes out as EXPECT
 * lines (apps/expect.h) that t-sessions.sh checks: every call, those
 * after the session's finalize included.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

#define LOOPS 5

int main(int argc, char **argv)
{
	MPI_Session s;
	MPI_Group g;
	MPI_Comm c;
	int rank, size, x, sum = 0, i, errors = 0;

	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
	MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
	MPI_Comm_create_from_group(g, "org.synctrace.sessworld",
				   MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
	MPI_Group_free(&g);
	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &size);
	x = rank + 1;
	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
	errors += sum != size * (size + 1) / 2;

	MPI_Init(&argc, &argv);
	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	errors += sum != size * (size + 1) / 2;
	MPI_Comm_free(&c);
	MPI_Session_finalize(&s);

	/* The session is gone: MPI_COMM_WORLD goes on. */
	for (i = 0; i < LOOPS; i++) {
		x = rank + i;
		MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		errors += sum != size * (size - 1) / 2 + size * i;
	}
	MPI_Barrier(MPI_COMM_WORLD);

	expect_open(rank);
	expect(1, "MPI_Session_init", "rc == 0");
	expect(1, "MPI_Init", "rc == 0");
	expect(1, "MPI_Session_finalize", "rc == 0");
	expect(LOOPS + 2, "MPI_Allreduce", "sbytes == %zu && rbytes == %zu",
	       sizeof(int), sizeof(int));
	expect(1, "MPI_Barrier", "g0_ns != \"\"");
	expect(1, "MPI_Finalize", "rc == 0");
	if (rank == 0)
		printf("sessworld: %d ranks, %s\n", size,
		       errors ? "ERRORS" : "ok");
	expect_close();
	MPI_Finalize();
	return errors != 0;
}
