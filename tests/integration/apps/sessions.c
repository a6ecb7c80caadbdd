/*
 * tests/integration/apps/sessions.c: a program that initialises MPI only
 * through Sessions (MPI 4.0), never calling MPI_Init: two sessions, a
 * communicator made from the first one's mpi://WORLD process set, a few
 * collectives and point-to-point calls on it, a duplicate, then the
 * sessions finalized in turn.  Results are checked; what the trace must
 * hold goes out as EXPECT lines (apps/expect.h) that t-sessions.sh
 * checks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

int main(void)
{
	MPI_Session s1, s2;
	MPI_Group g;
	MPI_Comm c, d;
	int rank, size, sum = 0, x, y[4] = { 0, 0, 0, 0 }, i, errors = 0;

	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1);
	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
	MPI_Group_from_session_pset(s1, "mpi://WORLD", &g);
	MPI_Comm_create_from_group(g, "org.synctrace.test", MPI_INFO_NULL,
				   MPI_ERRORS_RETURN, &c);
	MPI_Group_free(&g);
	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &size);
	expect_open(rank);

	x = rank + 1;
	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
	errors += sum != size * (size + 1) / 2;
	for (i = 0; i < 4; i++)
		y[i] = rank == 0 ? 10 + i : 0;
	MPI_Bcast(y, 4, MPI_INT, 0, c);
	errors += y[3] != 13;
	if (size >= 2 && rank < 2) {
		MPI_Sendrecv(&x, 1, MPI_INT, 1 - rank, 7, &sum, 1, MPI_INT,
			     1 - rank, 7, c, MPI_STATUS_IGNORE);
		errors += sum != 2 - rank;
		expect(1, "MPI_Sendrecv", "peer == %d && sbytes == %zu && "
		       "rbytes == %zu", 1 - rank, sizeof(int), sizeof(int));
	}
	MPI_Comm_dup(c, &d);
	MPI_Barrier(d);
	MPI_Comm_free(&d);
	MPI_Comm_free(&c);

	expect(2, "MPI_Session_init", "rc == 0");
	expect(1, "MPI_Comm_create_from_group", "rc == 0");
	expect_kind(1, "comm", "MPI_Comm_create_from_group", "comm_size == %d",
		    size);
	expect(1, "MPI_Allreduce", "seq == 1 && sbytes == %zu && "
	       "rbytes == %zu", sizeof(int), sizeof(int));
	expect(1, "MPI_Bcast", "seq == 2 && root == 0 && %s == %zu",
	       rank == 0 ? "sbytes" : "rbytes", 4 * sizeof(int));
	expect(1, "MPI_Comm_dup", "seq == 3");
	expect(1, "MPI_Barrier", "seq == 1");
	expect(2, "MPI_Comm_free", "rc == 0");
	expect(2, "MPI_Session_finalize", "rc == 0");
	/* No MPI_COMM_WORLD nor MPI_COMM_SELF record: there are none. */
	expect_kind(0, "comm", "-", "1");
	if (rank == 0)
		printf("sessions: %d ranks, %s\n", size,
		       errors ? "ERRORS" : "ok");
	expect_close();
	MPI_Session_finalize(&s2);
	MPI_Session_finalize(&s1);
	return errors != 0;
}
