/*
 * tests/integration/apps/repeat.c: the interposer's repeat path under
 * test.  A blocking collective called again from the same call site with
 * the same arguments is recorded from a cache; these calls change one
 * argument at a time between long runs of repeats from the same sites,
 * so a stale cache entry would record wrong bytes, roots, ops or
 * communicators:
 *
 *	count, datatype, op, MPI_IN_PLACE, root and communicator changes,
 *	also to 0;
 *	derived datatypes (never cached), one freed and another made,
 *	likely under the same handle, then a builtin one;
 *	a communicator freed and a new one made, likely under the same
 *	handle, from the same call site;
 *	two call sites taking turns with different arguments;
 *	one call site calling MPI_Allreduce and MPI_Scan, which take the
 *	same arguments, through a pointer, by turns.
 *
 *	repeat [N]	(N repeats per step, default 300)
 *
 * For every call each rank prints
 *
 *	expect,RANK,FN,LABEL,ROOT,SBYTES,RBYTES,OP
 *
 * (ROOT -1 where there is none; OP the trace's name of the reduction,
 * or "-"), in call order, which the test compares with the trace.
 * LABEL names the communicator: "world", "dup1", "dup2".  Results are
 * checked; a wrong one exits 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;
static char outbuf[1 << 16];

static void expect(const char *fn, const char *label, int root, long s,
		   long r, const char *op)
{
	printf("expect,%d,%s,%s,%d,%ld,%ld,%s\n", wrank, fn, label, root, s, r,
	       op);
}

static void check(int ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "repeat: rank %d: wrong result of %s\n", wrank, what);
	exit(1);
}

/*
 * The call sites.  Each is one call instruction, whoever calls it: not
 * inlined, cloned or merged with another (noipa), and not a tail call
 * (its result is checked), so that the repeat cache, keyed by return
 * address, sees one site.
 */
#define SITE static __attribute__((noipa)) void

/* One call site for MPI_Allreduce, whatever the arguments. */
SITE allreduce_site(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
		    MPI_Comm c)
{
	check(MPI_Allreduce(s, r, n, t, op, c) == MPI_SUCCESS, "allreduce");
}

/* Another call site, taking turns with the first. */
SITE allreduce_other(const void *s, void *r, int n, MPI_Datatype t,
		     MPI_Op op, MPI_Comm c)
{
	check(MPI_Allreduce(s, r, n, t, op, c) == MPI_SUCCESS, "allreduce");
}

SITE bcast_site(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
	check(MPI_Bcast(b, n, t, root, c) == MPI_SUCCESS, "bcast");
}

SITE reduce_site(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
		 int root, MPI_Comm c)
{
	check(MPI_Reduce(s, r, n, t, op, root, c) == MPI_SUCCESS, "reduce");
}

SITE barrier_site(MPI_Comm c)
{
	check(MPI_Barrier(c) == MPI_SUCCESS, "barrier");
}

/*
 * One call site for whichever function 'coll' points to: volatile, so
 * that the compiler cannot make one call of each function.
 */
static int (*volatile coll)(const void *, void *, int, MPI_Datatype, MPI_Op,
			    MPI_Comm);

SITE pointer_site(const void *s, void *r)
{
	check(coll(s, r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
	      "pointer_site");
}

/* n repeats of MPI_Allreduce of 'count' ints (sum) from allreduce_site. */
static void ar_ints(int n, int count, int in_place, MPI_Comm c,
		    const char *label)
{
	int s[8], r[8], i, k, p;

	MPI_Comm_size(c, &p);
	for (k = 0; k < n; k++) {
		for (i = 0; i < count; i++)
			s[i] = r[i] = wrank + i + k;
		allreduce_site(in_place ? MPI_IN_PLACE : s, r, count, MPI_INT,
			       MPI_SUM, c);
		expect("MPI_Allreduce", label, -1, 4L * count, 4L * count,
		       "sum");
		for (i = 0; i < count; i++)
			check(r[i] == p * (p - 1) / 2 + p * (i + k),
			      "MPI_Allreduce of ints");
	}
}

static void ar_doubles(int n, int count, MPI_Op op, const char *opname,
		       MPI_Comm c, const char *label)
{
	double s[8], r[8];
	int i, k;

	for (k = 0; k < n; k++) {
		for (i = 0; i < count; i++)
			s[i] = wrank + i;
		allreduce_site(s, r, count, MPI_DOUBLE, op, c);
		expect("MPI_Allreduce", label, -1, 8L * count, 8L * count,
		       opname);
		check(r[0] == (op == MPI_MAX ? wsize - 1 : 0),
		      "MPI_Allreduce of doubles");
	}
}

/* n broadcasts of 2 elements of 't' ('bytes' in all) from rank 0. */
static void bcast_ints(int n, MPI_Datatype t, long bytes)
{
	int b[8], i, k;

	for (k = 0; k < n; k++) {
		for (i = 0; i < 8; i++)
			b[i] = wrank ? -1 : k + i;
		bcast_site(b, 2, t, 0, MPI_COMM_WORLD);
		expect("MPI_Bcast", "world", 0, wrank ? 0 : bytes,
		       wrank ? bytes : 0, "-");
		check(b[bytes / 4 - 1] == k + bytes / 4 - 1, "MPI_Bcast");
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	MPI_Datatype pair;
	MPI_Comm d;
	double x[4];
	int s[4], r[4], i, k, root;

	MPI_Init(&argc, &argv);
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));	/* whole lines */
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);

	/* Count, in-place and type changes from one site. */
	ar_ints(n, 1, 0, MPI_COMM_WORLD, "world");
	ar_ints(n, 2, 0, MPI_COMM_WORLD, "world");
	ar_ints(n, 2, 1, MPI_COMM_WORLD, "world");
	ar_doubles(n, 3, MPI_MIN, "min", MPI_COMM_WORLD, "world");
	ar_doubles(n, 3, MPI_MAX, "max", MPI_COMM_WORLD, "world");

	/*
	 * Derived datatypes: two ints, then four (likely under the same
	 * handle once the first is freed), then ints, then doubles: only
	 * the type changes, the count stays 2.
	 */
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	bcast_ints(n, pair, 16);
	MPI_Type_free(&pair);
	MPI_Type_contiguous(4, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	bcast_ints(n, pair, 32);
	MPI_Type_free(&pair);
	bcast_ints(n, MPI_INT, 8);
	bcast_ints(n, MPI_DOUBLE, 16);
	ar_ints(n, 1, 0, MPI_COMM_WORLD, "world");

	/* Communicators: a duplicate, freed, and another one. */
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	ar_ints(n, 1, 0, d, "dup1");
	barrier_site(d);
	expect("MPI_Barrier", "dup1", -1, 0, 0, "-");
	MPI_Comm_free(&d);
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	ar_ints(n, 1, 0, d, "dup2");
	barrier_site(d);
	expect("MPI_Barrier", "dup2", -1, 0, 0, "-");
	ar_ints(n, 1, 0, MPI_COMM_WORLD, "world");
	barrier_site(MPI_COMM_WORLD);
	expect("MPI_Barrier", "world", -1, 0, 0, "-");

	/* Two sites taking turns, with different counts. */
	for (k = 0; k < n; k++) {
		s[0] = s[1] = 1;
		allreduce_site(s, r, 1, MPI_INT, MPI_SUM, d);
		expect("MPI_Allreduce", "dup2", -1, 4, 4, "sum");
		allreduce_other(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		expect("MPI_Allreduce", "world", -1, 8, 8, "sum");
		check(r[1] == wsize, "MPI_Allreduce, two sites");
	}
	MPI_Comm_free(&d);

	/*
	 * Rooted: the root moves, so do the bytes; last back to 0, an
	 * argument that changes to 0.
	 */
	for (i = 0; i <= wsize; i++)
		for (root = i % wsize, k = 0; k < n; k++) {
			x[0] = wrank == root ? 42.0 + k : -1;
			bcast_site(x, 4, MPI_DOUBLE, root, MPI_COMM_WORLD);
			expect("MPI_Bcast", "world", root,
			       wrank == root ? 32 : 0,
			       wrank == root ? 0 : 32, "-");
			check(x[0] == 42.0 + k, "MPI_Bcast");
			s[0] = 1;
			reduce_site(s, r, 1, MPI_INT, MPI_SUM, root,
				    MPI_COMM_WORLD);
			expect("MPI_Reduce", "world", root, 4,
			       wrank == root ? 4 : 0, "sum");
			check(wrank != root || r[0] == wsize, "MPI_Reduce");
		}

	/*
	 * One site, two functions with the same arguments: runs of three
	 * of each, so that some calls repeat and some follow the other.
	 */
	for (k = 0; k < n; k++) {
		int scan = k / 3 % 2;

		s[0] = 1;
		coll = scan ? MPI_Scan : MPI_Allreduce;
		pointer_site(s, r);
		expect(scan ? "MPI_Scan" : "MPI_Allreduce", "world", -1, 4, 4,
		       "sum");
		check(r[0] == (scan ? wrank + 1 : wsize), "pointer_site");
	}

	MPI_Finalize();
	return 0;
}
