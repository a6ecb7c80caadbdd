/*
 * tests/integration/apps/comms.c: communicators made and freed in
 * unusual but legal ways, each used for collectives and messages, so
 * t-comms.sh can check that every rank names each communicator and each
 * collective instance alike.  On 3 or more ranks:
 *
 * 1. MPI_Comm_create_group over ranks 0 and 1 of MPI_COMM_WORLD, which
 *    only those two call, ITER times between MPI_COMM_WORLD collectives
 *    (more than the 64 that bring the first clock refresh), with an
 *    allreduce on each new communicator before it is freed, so its
 *    handle is reused.
 * 2. MPI_Comm_idup three times: the first communicator carries a
 *    message before its first collective; the second's first collective
 *    is an MPI_Ibarrier that rank 1 starts only after a synchronous
 *    message from rank 0, which rank 0 sends after starting its own;
 *    the third starts with a blocking collective.
 * 3. MPI_Comm_split four times into groups that change ({0, 1} and {2},
 *    then {0} and {1, 2}...), an allreduce on each, each freed before
 *    the next is made, so MPI hands out its handles again.
 * 4. Ranks 0, 1 and 2 pairwise in three communicators, each duplicated
 *    by MPI_Comm_idup and reduced over by MPI_Iallreduce, every rank
 *    starting with another one.
 * 5. Communicators made and freed by attribute callbacks, inside
 *    MPI_Comm_dup and MPI_Comm_free, each first used by a message.
 *
 * Every value received is checked; rank 0 prints one line.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITER 100

static int errors, rank, size;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "comms: line %d: check failed: "     \
				"%s\n", __LINE__, #cond);                    \
			errors++;                                            \
		}                                                            \
	} while (0)

/* See bench-calls.c: a false warning on MPI_STATUSES_IGNORE. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

/* 1. A communicator made by two ranks only, between WORLD collectives. */
static void subgroup(void)
{
	MPI_Group world, pair;
	MPI_Comm c;
	int two[2] = { 0, 1 }, i, x, sum;

	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 2, two, &pair);
	for (i = 0; i < ITER; i++) {
		if (rank < 2) {
			MPI_Comm_create_group(MPI_COMM_WORLD, pair, 7, &c);
			x = rank + i;
			MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
			CHECK(sum == 2 * i + 1);
			MPI_Comm_free(&c);
		}
		x = i;
		MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		CHECK(sum == size * i);
	}
	MPI_Group_free(&pair);
	MPI_Group_free(&world);
}

/* 2. Communicators made by MPI_Comm_idup, first used in three ways. */
static void idup(void)
{
	MPI_Comm c[3];
	MPI_Request r[3];
	int i, x = rank, sum = 0, msg = 0;

	for (i = 0; i < 3; i++)
		MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &r[i]);
	MPI_Waitall(3, r, MPI_STATUSES_IGNORE);

	if (rank == 0) {
		msg = 42;
		MPI_Send(&msg, 1, MPI_INT, 1, 5, c[0]);
	} else if (rank == 1) {
		MPI_Recv(&msg, 1, MPI_INT, 0, 5, c[0], MPI_STATUS_IGNORE);
		CHECK(msg == 42);
	}
	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c[0]);
	CHECK(sum == size * (size - 1) / 2);

	/* Rank 1 joins the barrier only after rank 0's message. */
	if (rank == 1)
		MPI_Recv(&msg, 1, MPI_INT, 0, 6, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	MPI_Ibarrier(c[1], &r[0]);
	if (rank == 0)
		MPI_Ssend(&msg, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);

	sum = 0;
	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_MAX, c[2]);
	CHECK(sum == size - 1);
	for (i = 0; i < 3; i++)
		MPI_Comm_free(&c[i]);
}

/*
 * 3. MPI_Comm_split into groups that change each time, each freed before
 *    the next: MPI hands out the same handles again.
 */
static void resplit(void)
{
	MPI_Comm c;
	int i, n, x = 1, sum;

	for (i = 0; i < 4; i++) {
		MPI_Comm_split(MPI_COMM_WORLD, i % 2 ? rank == 0 : rank == 2,
			       rank, &c);
		MPI_Comm_size(c, &n);
		MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
		CHECK(sum == n);
		CHECK(n == (i % 2 ? (rank == 0 ? 1 : size - 1) :
			    (rank == 2 ? 1 : size - 1)));
		MPI_Comm_free(&c);
	}
}

/*
 * 4. Three pair communicators around a ring of ranks 0, 1, 2, each
 *    duplicated by MPI_Comm_idup and reduced over by MPI_Iallreduce,
 *    each rank starting with a different one: only nonblocking calls
 *    let the ranks go round.
 */
static void ring(void)
{
	MPI_Comm p[3], d[3];
	MPI_Request r[3];
	int i, k, n = 0, x = rank + 1, sum[3] = { 0, 0, 0 };

	for (i = 0; i < 3; i++) {
		d[i] = MPI_COMM_NULL;
		MPI_Comm_split(MPI_COMM_WORLD,
			       rank == i || rank == (i + 1) % 3 ? 0 :
			       MPI_UNDEFINED, rank, &p[i]);
	}
	for (k = 0; k < 3; k++) {
		i = (rank + 3 - k) % 3;
		if (p[i] != MPI_COMM_NULL)
			MPI_Comm_idup(p[i], &d[i], &r[n++]);
	}
	MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
	for (n = 0, k = 0; k < 3; k++) {
		i = (rank + k) % 3;
		if (d[i] != MPI_COMM_NULL)
			MPI_Iallreduce(&x, &sum[i], 1, MPI_INT, MPI_SUM, d[i],
				       &r[n++]);
	}
	MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
	for (i = 0; i < 3; i++) {
		if (d[i] == MPI_COMM_NULL)
			continue;
		CHECK(sum[i] == i + 1 + (i + 1) % 3 + 1);
		MPI_Comm_free(&d[i]);
		MPI_Comm_free(&p[i]);
	}
}

/*
 * 5. A library's private communicator, kept as an attribute: the copy
 *    callback that MPI_Comm_dup runs makes the duplicate's own one
 *    (MPI_Comm_dup inside MPI_Comm_dup), the delete callback that
 *    MPI_Comm_free runs frees it (MPI_Comm_free inside MPI_Comm_free).
 *    Each carries a message before its first collective.
 */
static int inner_copy(MPI_Comm old, int key, void *extra, void *in,
		      void *out, int *flag)
{
	MPI_Comm *mine = malloc(sizeof(*mine));

	(void)old;
	(void)key;
	(void)extra;
	if (!mine)
		return MPI_ERR_NO_MEM;
	MPI_Comm_dup(*(MPI_Comm *)in, mine);
	*(MPI_Comm **)out = mine;
	*flag = 1;
	return MPI_SUCCESS;
}

static int inner_delete(MPI_Comm comm, int key, void *val, void *extra)
{
	MPI_Comm *mine = val;

	(void)comm;
	(void)key;
	(void)extra;
	MPI_Comm_free(mine);
	free(mine);
	return MPI_SUCCESS;
}

static void attr_comms(void)
{
	MPI_Comm *top = malloc(sizeof(*top)), outer, *inner;
	int key, flag = 0, i, x, sum;

	MPI_Comm_create_keyval(inner_copy, inner_delete, &key, NULL);
	MPI_Comm_dup(MPI_COMM_WORLD, top);
	MPI_Comm_set_attr(MPI_COMM_WORLD, key, top);
	for (i = 0; i < 3; i++) {
		MPI_Comm_dup(MPI_COMM_WORLD, &outer);
		MPI_Comm_get_attr(outer, key, &inner, &flag);
		CHECK(flag);
		x = rank;
		if (rank == 0)
			MPI_Send(&x, 1, MPI_INT, 1, 8, *inner);
		else if (rank == 1)
			MPI_Recv(&x, 1, MPI_INT, 0, 8, *inner,
				 MPI_STATUS_IGNORE);
		CHECK(rank > 1 || x == 0);
		MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_MAX, *inner);
		CHECK(sum == size - 1);
		MPI_Comm_free(&outer);
	}
	MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
	MPI_Comm_free_keyval(&key);
}

int main(int argc, char **argv)
{
	int all = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 3) {
		if (rank == 0)
			fprintf(stderr, "comms: needs 3 ranks or more\n");
		MPI_Finalize();
		return 2;
	}
	subgroup();
	idup();
	resplit();
	ring();
	attr_comms();
	MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0 && all)
		printf("comms: %d errors\n", all);
	else if (rank == 0)
		printf("comms: all ranks ok\n");
	MPI_Finalize();
	return all != 0;
}
