/*
 * tests/integration/apps/colls.c: calls every collective of MPICH
 * 4.0.2's mpi.h (blocking, I*, *_init and all _c forms) with known
 * arguments, checks every result numerically, and prints on stdout, in
 * call order, one line per call that a trace of this rank must show:
 *
 *	expect,<rank>,<function>,<comm>,<root>,<sbytes>,<rbytes>
 *
 * <rank> is the rank in MPI_COMM_WORLD; <comm> a label ("world",
 * "split", "inter", "cart", "graph"); <root> the root's rank in the
 * communicator, -1 for calls without a root, and on an inter-communicator
 * -2 on the root itself (MPI_ROOT) and -3 on the rest of its group
 * (MPI_PROC_NULL), as in writer/event.h.  Bytes follow the "buffer view"
 * of pmpi/bytes.c, computed here from the arguments alone.  A nonblocking
 * call is completed with MPI_Wait right away; a persistent one is
 * started twice (one "MPI_Start" line each, with the *_init call's root
 * and bytes), waited for, then freed.  Any wrong result prints a message
 * on stderr and exits 1.
 *
 * Where the standard says an argument is not significant (the receive
 * side of a gather off the root, the send side of a scatter off the
 * root, the send side under MPI_IN_PLACE), this program passes NULL
 * buffers and count arrays and MPI_DATATYPE_NULL, so a tracer that looks
 * at them fails loudly.
 *
 * Communicators: world; "split", world split in two interleaved halves
 * (one at 2 and 3 ranks) with ranks reversed; "inter", an
 * inter-communicator between the lower and upper halves of world; "cart",
 * a periodic 1-d ring; "graph", a distributed graph whose ranks have
 * different in- and out-degrees.  Works at any size >= 2.
 *
 * Three MPICH 4.0.2 bugs shape the program: some persistent collectives
 * need another algorithm (work_around_mpich), the ring at 2 ranks sends
 * the same data both ways in the neighbourhood v and w calls (ring_init),
 * and the graph runs only the _c forms of MPI_Neighbor_alltoallw
 * (nbr_all); each place says why.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a collective is called. */
enum mode { M_BLK, M_BLK_C, M_NB, M_NB_C, M_PI, M_PI_C, M_MAX };

/* Root values printed for inter-communicators (writer/event.h). */
#define ROOT_NONE (-1)
#define ROOT_ROOT (-2)
#define ROOT_PROC_NULL (-3)

/* Element types used in typed byte buffers (the w variants). */
enum { T_INT, T_DBL, T_CHAR, T_MAX };

struct cx {
	MPI_Comm comm;
	const char *label;
	int rank, size;		/* in the (local) group */
	int inter;		/* an inter-communicator: */
	int rsize;		/*   remote group size */
	int group;		/*   0: lower half of world, 1: upper half */
	int indeg, outdeg;	/* neighbourhood: */
	int *srcs, *dsts;	/*   neighbours, in MPI's order */
	int *sblk;		/*   srcs[i]'s send block landing in block i */
	int dup;		/*   both ring neighbours are one rank */
	/* the last call issued, repeated on its MPI_Start lines */
	char fn[48];
	int root;
	uint64_t s, r;
};

static int wrank;

static void fail(const struct cx *cx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void fail(const struct cx *cx, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "colls: rank %d: %s on %s: ", wrank, cx->fn,
		cx->label);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *zalloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);

	if (!p) {
		fprintf(stderr, "colls: out of memory\n");
		exit(1);
	}
	return p;
}

/* Known values: element 'i' from communicator rank 'id', run 'k'. */
static int ival(int id, int i, int k)
{
	return 1000 * id + 10 * i + k + 1;
}

static double dval(int id, int i, int k)
{
	return ival(id, i, k) + 0.25;
}

static char cval(int id, int i, int k)
{
	return (char)('A' + (7 * id + 3 * i + k) % 26);
}

static MPI_Datatype tmpi(int t)
{
	return t == T_INT ? MPI_INT : t == T_DBL ? MPI_DOUBLE : MPI_CHAR;
}

static size_t tsize(int t)
{
	return t == T_INT ? sizeof(int) : t == T_DBL ? sizeof(double) : 1;
}

/* Store the value (id, i, k) of type 't' at 'dst' (unaligned). */
static void put(void *dst, int t, int id, int i, int k)
{
	int iv = ival(id, i, k);
	double dv = dval(id, i, k);
	char cv = cval(id, i, k);

	if (t == T_INT)
		memcpy(dst, &iv, sizeof(iv));
	else if (t == T_DBL)
		memcpy(dst, &dv, sizeof(dv));
	else
		memcpy(dst, &cv, sizeof(cv));
}

static void want_i(const struct cx *cx, int idx, int got, int want)
{
	if (got != want)
		fail(cx, "element %d is %d, want %d", idx, got, want);
}

static void want_d(const struct cx *cx, int idx, double got, double want)
{
	if (got != want)
		fail(cx, "element %d is %g, want %g", idx, got, want);
}

static void want_c(const struct cx *cx, int idx, char got, char want)
{
	if (got != want)
		fail(cx, "element %d is '%c', want '%c'", idx, got, want);
}

/* Check the value (id, i, k) of type 't' at 'src'. */
static void want_at(const struct cx *cx, int idx, const void *src, int t,
		    int id, int i, int k)
{
	int iv;
	double dv;
	char cv;

	if (t == T_INT) {
		memcpy(&iv, src, sizeof(iv));
		want_i(cx, idx, iv, ival(id, i, k));
	} else if (t == T_DBL) {
		memcpy(&dv, src, sizeof(dv));
		want_d(cx, idx, dv, dval(id, i, k));
	} else {
		memcpy(&cv, src, sizeof(cv));
		want_c(cx, idx, cv, cval(id, i, k));
	}
}

/* Sums over ranks lo <= r < hi of ival / dval (id = r + base). */
static int isum(int base, int lo, int hi, int i, int k)
{
	int r, sum = 0;

	for (r = lo; r < hi; r++)
		sum += ival(base + r, i, k);
	return sum;
}

static double dsum(int base, int lo, int hi, int i, int k)
{
	double sum = 0;
	int r;

	for (r = lo; r < hi; r++)
		sum += dval(base + r, i, k);
	return sum;
}

static void emit(const struct cx *cx, const char *fn)
{
	printf("expect,%d,%s,%s,%d,%" PRIu64 ",%" PRIu64 "\n", wrank, fn,
	       cx->label, cx->root, cx->s, cx->r);
}

/* The root and bytes the next call must be traced with. */
static void expect(struct cx *cx, int root, uint64_t s, uint64_t r)
{
	cx->root = root;
	cx->s = s;
	cx->r = r;
}

/* A call was made in mode 'm'; 'b' and 'i' name its blocking and I forms. */
static void issued(struct cx *cx, int m, const char *b, const char *i,
		   int rc)
{
	static const char *const suffix[M_MAX] = {
		"", "_c", "", "_c", "_init", "_init_c"
	};

	snprintf(cx->fn, sizeof(cx->fn), "%s%s",
		 m == M_NB || m == M_NB_C ? i : b, suffix[m]);
	if (rc != MPI_SUCCESS)
		fail(cx, "returned %d", rc);
	emit(cx, cx->fn);
}

/* How many times a call in mode 'm' runs: persistent ones start twice. */
static int runs(int m)
{
	return m == M_PI || m == M_PI_C ? 2 : 1;
}

/* Finish one run of the call issued in mode 'm'. */
static void complete(struct cx *cx, int m, MPI_Request *req)
{
	if (m == M_PI || m == M_PI_C) {
		if (MPI_Start(req) != MPI_SUCCESS)
			fail(cx, "MPI_Start failed");
		emit(cx, "MPI_Start");
	}
	if (m != M_BLK && m != M_BLK_C &&
	    MPI_Wait(req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		fail(cx, "MPI_Wait failed");
}

static void release(int m, MPI_Request *req)
{
	if (m == M_PI || m == M_PI_C)
		MPI_Request_free(req);
}

/*
 * Call MPI_<B> in mode 'm': MPI_<B>, MPI_<B>_c, MPI_<I>, MPI_<I>_c,
 * MPI_<B>_init or MPI_<B>_init_c, with the parenthesised argument list
 * 'a' (int counts) or 'ac' (MPI_Count counts); the I and init forms get
 * the caller's local 'req' (and MPI_INFO_NULL) appended.
 */
#define WITH_REQ(...) (__VA_ARGS__, &req)
#define WITH_INIT(...) (__VA_ARGS__, MPI_INFO_NULL, &req)
#define CALL6(cx, m, B, I, a, ac)                                       \
	do {                                                            \
		int rc_;                                                \
		switch (m) {                                            \
		case M_BLK:                                             \
			rc_ = MPI_##B a;                                \
			break;                                          \
		case M_BLK_C:                                           \
			rc_ = MPI_##B##_c ac;                           \
			break;                                          \
		case M_NB:                                              \
			rc_ = MPI_##I WITH_REQ a;                       \
			break;                                          \
		case M_NB_C:                                            \
			rc_ = MPI_##I##_c WITH_REQ ac;                  \
			break;                                          \
		case M_PI:                                              \
			rc_ = MPI_##B##_init WITH_INIT a;               \
			break;                                          \
		default:                                                \
			rc_ = MPI_##B##_init_c WITH_INIT ac;            \
			break;                                          \
		}                                                       \
		issued((cx), (m), "MPI_" #B, "MPI_" #I, rc_);           \
	} while (0)
/* The same when every count is a scalar, which converts by itself. */
#define CALL6S(cx, m, B, I, a) CALL6(cx, m, B, I, a, a)

/* Root of a call rooted at local rank 0 of group 'g' of an inter-comm. */
static int inter_root_arg(const struct cx *cx, int g)
{
	if (cx->group != g)
		return 0;
	return cx->rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
}

static int inter_root_print(const struct cx *cx, int g)
{
	if (cx->group != g)
		return 0;
	return cx->rank == 0 ? ROOT_ROOT : ROOT_PROC_NULL;
}

/* Value ids on an inter-communicator: 100 * group + rank. */
static int my_id(const struct cx *cx)
{
	return cx->inter ? 100 * cx->group + cx->rank : cx->rank;
}

static int remote_id(const struct cx *cx, int i)
{
	return 100 * (1 - cx->group) + i;
}

/* ---- calls without data ---- */

static void op_barrier(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int k, rc;

	expect(cx, ROOT_NONE, 0, 0);
	for (k = 0; k < runs(m); k++) {
		if (!k) {
			if (m == M_BLK)
				rc = MPI_Barrier(cx->comm);
			else if (m == M_NB)
				rc = MPI_Ibarrier(cx->comm, &req);
			else
				rc = MPI_Barrier_init(cx->comm, MPI_INFO_NULL,
						      &req);
			issued(cx, m, "MPI_Barrier", "MPI_Ibarrier", rc);
		}
		complete(cx, m, &req);
	}
	release(m, &req);
}

/* ---- rooted calls on intra-communicators ---- */

static void op_bcast(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, root = (m + 1) % p, k, i;
	double buf[3];
	uint64_t n = sizeof(buf);

	expect(cx, root, me == root ? n : 0, me == root ? 0 : n);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 3; i++)
			buf[i] = me == root ? dval(root, i, k) : -1;
		if (!k)
			CALL6S(cx, m, Bcast, Ibcast,
			       (buf, 3, MPI_DOUBLE, root, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 3; i++)
			want_d(cx, i, buf[i], dval(root, i, k));
	}
	release(m, &req);
}

/* With 'ip' the root passes MPI_IN_PLACE, its input in 'rbuf'. */
static void op_reduce(struct cx *cx, int m, int ip)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, root = (m + 2) % p, k, i;
	int sbuf[4], rbuf[4];
	int at_root = me == root;
	const void *sb = ip && at_root ? MPI_IN_PLACE : sbuf;
	uint64_t n = sizeof(sbuf);

	expect(cx, root, n, at_root ? n : 0);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 4; i++) {
			sbuf[i] = ival(me, i, k);
			rbuf[i] = ip && at_root ? ival(me, i, k) : -1;
		}
		if (!k)
			CALL6S(cx, m, Reduce, Ireduce,
			       (sb, at_root ? rbuf : NULL, 4, MPI_INT, MPI_SUM,
				root, cx->comm));
		complete(cx, m, &req);
		for (i = 0; at_root && i < 4; i++)
			want_i(cx, i, rbuf[i], isum(0, 0, p, i, k));
	}
	release(m, &req);
}

static void op_gather(struct cx *cx, int m, int ip)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, root = (m + 3) % p, k, i;
	int at_root = me == root, sbuf[2], *rbuf = NULL;
	const void *sb = ip && at_root ? MPI_IN_PLACE : sbuf;
	MPI_Datatype st = ip && at_root ? MPI_DATATYPE_NULL : MPI_INT;
	MPI_Datatype rt = at_root ? MPI_INT : MPI_DATATYPE_NULL;
	int scount = ip && at_root ? 0 : 2, rcount = at_root ? 2 : 0;
	uint64_t n = 2 * sizeof(int);

	if (at_root)
		rbuf = zalloc(p * n);
	expect(cx, root, n, at_root ? p * n : 0);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2; i++)
			sbuf[i] = ival(me, i, k);
		for (i = 0; at_root && i < 2 * p; i++)
			rbuf[i] = ip && i / 2 == me ? ival(me, i % 2, k) : -1;
		if (!k)
			CALL6S(cx, m, Gather, Igather,
			       (sb, scount, st, rbuf, rcount, rt, root,
				cx->comm));
		complete(cx, m, &req);
		for (i = 0; at_root && i < 2 * p; i++)
			want_i(cx, i, rbuf[i], ival(i / 2, i % 2, k));
	}
	release(m, &req);
	free(rbuf);
}

/* Gatherv: rank i sends i % 3 + 1 chars; blocks lie one byte apart. */
static void op_gatherv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, root = (m + 4) % p, k, i, t;
	int at_root = me == root, n = me % 3 + 1, tot = 0;
	int *rc = NULL, *dis = NULL;
	MPI_Count *rc_c = NULL;
	MPI_Aint *dis_c = NULL;
	char sbuf[3], *rbuf = NULL;

	if (at_root) {
		rc = zalloc(p * sizeof(*rc));
		dis = zalloc(p * sizeof(*dis));
		rc_c = zalloc(p * sizeof(*rc_c));
		dis_c = zalloc(p * sizeof(*dis_c));
		for (i = 0; i < p; i++) {
			rc_c[i] = rc[i] = i % 3 + 1;
			dis_c[i] = dis[i] = tot + i;
			tot += rc[i];
		}
		rbuf = zalloc(tot + p);
	}
	expect(cx, root, n, at_root ? tot : 0);
	for (k = 0; k < runs(m); k++) {
		for (t = 0; t < n; t++)
			sbuf[t] = cval(me, t, k);
		if (at_root)
			memset(rbuf, '.', tot + p);
		if (!k)
			CALL6(cx, m, Gatherv, Igatherv,
			      (sbuf, n, MPI_CHAR, rbuf, rc, dis,
			       at_root ? MPI_CHAR : MPI_DATATYPE_NULL, root,
			       cx->comm),
			      (sbuf, n, MPI_CHAR, rbuf, rc_c, dis_c,
			       at_root ? MPI_CHAR : MPI_DATATYPE_NULL, root,
			       cx->comm));
		complete(cx, m, &req);
		for (i = 0; at_root && i < p; i++)
			for (t = 0; t < rc[i]; t++)
				want_c(cx, dis[i] + t, rbuf[dis[i] + t],
				       cval(i, t, k));
	}
	release(m, &req);
	free(rc);
	free(dis);
	free(rc_c);
	free(dis_c);
	free(rbuf);
}

/* With 'ip' the root passes MPI_IN_PLACE as its receive buffer. */
static void op_scatter(struct cx *cx, int m, int ip)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, root = (m + 5) % p, k, i;
	int at_root = me == root, rin = ip && at_root;
	double *sbuf = NULL, rbuf[2];
	uint64_t n = sizeof(rbuf);

	if (at_root)
		sbuf = zalloc(p * n);
	expect(cx, root, at_root ? p * n : 0, n);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; at_root && i < 2 * p; i++)
			sbuf[i] = dval(root, i, k);
		rbuf[0] = rbuf[1] = -1;
		if (!k)
			CALL6S(cx, m, Scatter, Iscatter,
			       (sbuf, at_root ? 2 : 0,
				at_root ? MPI_DOUBLE : MPI_DATATYPE_NULL,
				rin ? MPI_IN_PLACE : (void *)rbuf,
				rin ? 0 : 2,
				rin ? MPI_DATATYPE_NULL : MPI_DOUBLE, root,
				cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 2; i++) {
			if (rin)
				want_d(cx, i, sbuf[2 * me + i],
				       dval(root, 2 * me + i, k));
			else
				want_d(cx, i, rbuf[i],
				       dval(root, 2 * me + i, k));
		}
	}
	release(m, &req);
	free(sbuf);
}

/* Scatterv: rank i gets i % 3 + 1 ints; blocks lie one int apart. */
static void op_scatterv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, root = m % p, k, i, t;
	int at_root = me == root, n = me % 3 + 1, tot = 0;
	int *sc = NULL, *dis = NULL, *sbuf = NULL, rbuf[3];
	MPI_Count *sc_c = NULL;
	MPI_Aint *dis_c = NULL;

	if (at_root) {
		sc = zalloc(p * sizeof(*sc));
		dis = zalloc(p * sizeof(*dis));
		sc_c = zalloc(p * sizeof(*sc_c));
		dis_c = zalloc(p * sizeof(*dis_c));
		for (i = 0; i < p; i++) {
			sc_c[i] = sc[i] = i % 3 + 1;
			dis_c[i] = dis[i] = tot + i;
			tot += sc[i];
		}
		sbuf = zalloc((tot + p) * sizeof(int));
	}
	expect(cx, root, at_root ? tot * sizeof(int) : 0, n * sizeof(int));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; at_root && i < p; i++)
			for (t = 0; t < sc[i]; t++)
				sbuf[dis[i] + t] = ival(i, t, k);
		for (t = 0; t < 3; t++)
			rbuf[t] = -1;
		if (!k)
			CALL6(cx, m, Scatterv, Iscatterv,
			      (sbuf, sc, dis,
			       at_root ? MPI_INT : MPI_DATATYPE_NULL, rbuf, n,
			       MPI_INT, root, cx->comm),
			      (sbuf, sc_c, dis_c,
			       at_root ? MPI_INT : MPI_DATATYPE_NULL, rbuf, n,
			       MPI_INT, root, cx->comm));
		complete(cx, m, &req);
		for (t = 0; t < n; t++)
			want_i(cx, t, rbuf[t], ival(me, t, k));
	}
	release(m, &req);
	free(sc);
	free(dis);
	free(sc_c);
	free(dis_c);
	free(sbuf);
}

/* ---- reductions ---- */

static void op_allreduce(struct cx *cx, int m, int ip)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, k, i;
	double sbuf[2], rbuf[2];

	expect(cx, ROOT_NONE, sizeof(sbuf), sizeof(rbuf));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2; i++) {
			sbuf[i] = dval(me, i, k);
			rbuf[i] = ip ? sbuf[i] : -1;
		}
		if (!k)
			CALL6S(cx, m, Allreduce, Iallreduce,
			       (ip ? MPI_IN_PLACE : (void *)sbuf, rbuf, 2,
				MPI_DOUBLE, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 2; i++)
			want_d(cx, i, rbuf[i], dsum(0, 0, p, i, k));
	}
	release(m, &req);
}

static void op_scan(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int me = cx->rank, k, i;
	int sbuf[3], rbuf[3];

	expect(cx, ROOT_NONE, sizeof(sbuf), sizeof(rbuf));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 3; i++) {
			sbuf[i] = ival(me, i, k);
			rbuf[i] = -1;
		}
		if (!k)
			CALL6S(cx, m, Scan, Iscan,
			       (sbuf, rbuf, 3, MPI_INT, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 3; i++)
			want_i(cx, i, rbuf[i], isum(0, 0, me + 1, i, k));
	}
	release(m, &req);
}

/* Exscan: the result on rank 0 is undefined and not checked. */
static void op_exscan(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int me = cx->rank, k, i;
	double sbuf[2], rbuf[2];

	expect(cx, ROOT_NONE, sizeof(sbuf), sizeof(rbuf));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2; i++) {
			sbuf[i] = dval(me, i, k);
			rbuf[i] = -1;
		}
		if (!k)
			CALL6S(cx, m, Exscan, Iexscan,
			       (sbuf, rbuf, 2, MPI_DOUBLE, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; me > 0 && i < 2; i++)
			want_d(cx, i, rbuf[i], dsum(0, 0, me, i, k));
	}
	release(m, &req);
}

/* Reduce_scatter: rank i gets i % 2 + 1 ints. */
static void op_reduce_scatter(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, k, i, tot = 0, off = 0;
	int *rc = zalloc(p * sizeof(*rc)), *sbuf, rbuf[2];
	MPI_Count *rc_c = zalloc(p * sizeof(*rc_c));

	for (i = 0; i < p; i++) {
		rc_c[i] = rc[i] = i % 2 + 1;
		off += i < me ? rc[i] : 0;
		tot += rc[i];
	}
	sbuf = zalloc(tot * sizeof(int));
	expect(cx, ROOT_NONE, tot * sizeof(int), rc[me] * sizeof(int));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < tot; i++)
			sbuf[i] = ival(me, i, k);
		rbuf[0] = rbuf[1] = -1;
		if (!k)
			CALL6(cx, m, Reduce_scatter, Ireduce_scatter,
			      (sbuf, rbuf, rc, MPI_INT, MPI_SUM, cx->comm),
			      (sbuf, rbuf, rc_c, MPI_INT, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < rc[me]; i++)
			want_i(cx, i, rbuf[i], isum(0, 0, p, off + i, k));
	}
	release(m, &req);
	free(rc);
	free(rc_c);
	free(sbuf);
}

/* With 'ip' the input is in the receive buffer, the result at its top. */
static void op_reduce_scatter_block(struct cx *cx, int m, int ip)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, k, i;
	double *sbuf = zalloc(2 * p * sizeof(double));
	double *rbuf = zalloc(2 * p * sizeof(double));

	expect(cx, ROOT_NONE, 2 * p * sizeof(double), 2 * sizeof(double));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2 * p; i++) {
			sbuf[i] = dval(me, i, k);
			rbuf[i] = ip ? sbuf[i] : -1;
		}
		if (!k)
			CALL6S(cx, m, Reduce_scatter_block,
			       Ireduce_scatter_block,
			       (ip ? MPI_IN_PLACE : (void *)sbuf, rbuf, 2,
				MPI_DOUBLE, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 2; i++)
			want_d(cx, i, rbuf[i], dsum(0, 0, p, 2 * me + i, k));
	}
	release(m, &req);
	free(sbuf);
	free(rbuf);
}

/* ---- all-to-all-like calls ---- */

/* With 'ip' each rank's block is already in place in the receive buffer. */
static void op_allgather(struct cx *cx, int m, int ip)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, k, i;
	char sbuf[3], *rbuf = zalloc(3 * p);

	expect(cx, ROOT_NONE, 3, 3 * p);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 3; i++)
			sbuf[i] = cval(me, i, k);
		for (i = 0; i < 3 * p; i++)
			rbuf[i] = ip && i / 3 == me ? sbuf[i % 3] : '.';
		if (!k)
			CALL6S(cx, m, Allgather, Iallgather,
			       (ip ? MPI_IN_PLACE : (void *)sbuf, ip ? 0 : 3,
				ip ? MPI_DATATYPE_NULL : MPI_CHAR, rbuf, 3,
				MPI_CHAR, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 3 * p; i++)
			want_c(cx, i, rbuf[i], cval(i / 3, i % 3, k));
	}
	release(m, &req);
	free(rbuf);
}

/* Allgatherv: rank i gives i % 3 + 1 doubles; blocks one double apart. */
static void op_allgatherv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, n = me % 3 + 1, k, i, t, tot = 0;
	int *rc = zalloc(p * sizeof(*rc)), *dis = zalloc(p * sizeof(*dis));
	MPI_Count *rc_c = zalloc(p * sizeof(*rc_c));
	MPI_Aint *dis_c = zalloc(p * sizeof(*dis_c));
	double sbuf[3], *rbuf;

	for (i = 0; i < p; i++) {
		rc_c[i] = rc[i] = i % 3 + 1;
		dis_c[i] = dis[i] = tot + i;
		tot += rc[i];
	}
	rbuf = zalloc((tot + p) * sizeof(double));
	expect(cx, ROOT_NONE, n * sizeof(double), tot * sizeof(double));
	for (k = 0; k < runs(m); k++) {
		for (t = 0; t < n; t++)
			sbuf[t] = dval(me, t, k);
		for (i = 0; i < tot + p; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6(cx, m, Allgatherv, Iallgatherv,
			      (sbuf, n, MPI_DOUBLE, rbuf, rc, dis, MPI_DOUBLE,
			       cx->comm),
			      (sbuf, n, MPI_DOUBLE, rbuf, rc_c, dis_c,
			       MPI_DOUBLE, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < p; i++)
			for (t = 0; t < rc[i]; t++)
				want_d(cx, dis[i] + t, rbuf[dis[i] + t],
				       dval(i, t, k));
	}
	release(m, &req);
	free(rc);
	free(dis);
	free(rc_c);
	free(dis_c);
	free(rbuf);
}

/* With 'ip' the data to send is in the receive buffer. */
static void op_alltoall(struct cx *cx, int m, int ip)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, k, i;
	int *sbuf = zalloc(2 * p * sizeof(int));
	int *rbuf = zalloc(2 * p * sizeof(int));

	expect(cx, ROOT_NONE, 2 * p * sizeof(int), 2 * p * sizeof(int));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2 * p; i++) {
			sbuf[i] = ival(me, i, k);
			rbuf[i] = ip ? sbuf[i] : -1;
		}
		if (!k)
			CALL6S(cx, m, Alltoall, Ialltoall,
			       (ip ? MPI_IN_PLACE : (void *)sbuf, ip ? 0 : 2,
				ip ? MPI_DATATYPE_NULL : MPI_INT, rbuf, 2,
				MPI_INT, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 2 * p; i++)
			want_i(cx, i, rbuf[i], ival(i / 2, 2 * me + i % 2, k));
	}
	release(m, &req);
	free(sbuf);
	free(rbuf);
}

/* Elements rank 'src' sends to rank 'dst' in the v and w variants. */
static int vcount(int src, int dst)
{
	return (src + 2 * dst) % 3 + 1;
}

static void op_alltoallv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, k, i, t, stot = 0, rtot = 0;
	int *sc = zalloc(p * sizeof(int)), *sd = zalloc(p * sizeof(int));
	int *rc = zalloc(p * sizeof(int)), *rd = zalloc(p * sizeof(int));
	MPI_Count *sc_c = zalloc(p * sizeof(MPI_Count));
	MPI_Count *rc_c = zalloc(p * sizeof(MPI_Count));
	MPI_Aint *sd_c = zalloc(p * sizeof(MPI_Aint));
	MPI_Aint *rd_c = zalloc(p * sizeof(MPI_Aint));
	char *sbuf, *rbuf;

	for (i = 0; i < p; i++) {
		sc_c[i] = sc[i] = vcount(me, i);
		rc_c[i] = rc[i] = vcount(i, me);
		sd_c[i] = sd[i] = stot;
		rd_c[i] = rd[i] = rtot;
		stot += sc[i];
		rtot += rc[i];
	}
	sbuf = zalloc(stot);
	rbuf = zalloc(rtot);
	expect(cx, ROOT_NONE, stot, rtot);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < p; i++)
			for (t = 0; t < sc[i]; t++)
				sbuf[sd[i] + t] = cval(me, 16 * i + t, k);
		memset(rbuf, '.', rtot);
		if (!k)
			CALL6(cx, m, Alltoallv, Ialltoallv,
			      (sbuf, sc, sd, MPI_CHAR, rbuf, rc, rd, MPI_CHAR,
			       cx->comm),
			      (sbuf, sc_c, sd_c, MPI_CHAR, rbuf, rc_c, rd_c,
			       MPI_CHAR, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < p; i++)
			for (t = 0; t < rc[i]; t++)
				want_c(cx, rd[i] + t, rbuf[rd[i] + t],
				       cval(i, 16 * me + t, k));
	}
	release(m, &req);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(sc_c);
	free(rc_c);
	free(sd_c);
	free(rd_c);
	free(sbuf);
	free(rbuf);
}

/* Alltoallw: what 'src' sends 'dst' has vcount() elements of wtype(). */
static int wtype(int src, int dst)
{
	return (src + dst) % T_MAX;
}

static void op_alltoallw(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, me = cx->rank, k, i, t, stot = 0, rtot = 0;
	int *sc = zalloc(p * sizeof(int)), *sd = zalloc(p * sizeof(int));
	int *rc = zalloc(p * sizeof(int)), *rd = zalloc(p * sizeof(int));
	MPI_Count *sc_c = zalloc(p * sizeof(MPI_Count));
	MPI_Count *rc_c = zalloc(p * sizeof(MPI_Count));
	MPI_Aint *sd_c = zalloc(p * sizeof(MPI_Aint));
	MPI_Aint *rd_c = zalloc(p * sizeof(MPI_Aint));
	MPI_Datatype *st = zalloc(p * sizeof(MPI_Datatype));
	MPI_Datatype *rt = zalloc(p * sizeof(MPI_Datatype));
	unsigned char *sbuf, *rbuf;

	for (i = 0; i < p; i++) {
		sc_c[i] = sc[i] = vcount(me, i);
		rc_c[i] = rc[i] = vcount(i, me);
		st[i] = tmpi(wtype(me, i));
		rt[i] = tmpi(wtype(i, me));
		sd_c[i] = sd[i] = stot;
		rd_c[i] = rd[i] = rtot;
		stot += sc[i] * tsize(wtype(me, i));
		rtot += rc[i] * tsize(wtype(i, me));
	}
	sbuf = zalloc(stot);
	rbuf = zalloc(rtot);
	expect(cx, ROOT_NONE, stot, rtot);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < p; i++)
			for (t = 0; t < sc[i]; t++)
				put(sbuf + sd[i] + t * tsize(wtype(me, i)),
				    wtype(me, i), me, 16 * i + t, k);
		memset(rbuf, 0xff, rtot);
		if (!k)
			CALL6(cx, m, Alltoallw, Ialltoallw,
			      (sbuf, sc, sd, st, rbuf, rc, rd, rt, cx->comm),
			      (sbuf, sc_c, sd_c, st, rbuf, rc_c, rd_c, rt,
			       cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < p; i++)
			for (t = 0; t < rc[i]; t++)
				want_at(cx, rd[i],
					rbuf + rd[i] +
						t * tsize(wtype(i, me)),
					wtype(i, me), i, 16 * me + t, k);
	}
	release(m, &req);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(sc_c);
	free(rc_c);
	free(sd_c);
	free(rd_c);
	free(st);
	free(rt);
	free(sbuf);
	free(rbuf);
}

/* ---- neighbourhood calls (cart and graph) ---- */

static void op_nbr_allgather(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int me = cx->rank, in = cx->indeg, k, i, t;
	int sbuf[2], *rbuf = zalloc(2 * in * sizeof(int));

	expect(cx, ROOT_NONE, cx->outdeg * sizeof(sbuf), in * sizeof(sbuf));
	for (k = 0; k < runs(m); k++) {
		for (t = 0; t < 2; t++)
			sbuf[t] = ival(me, t, k);
		for (i = 0; i < 2 * in; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6S(cx, m, Neighbor_allgather, Ineighbor_allgather,
			       (sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 2 * in; i++)
			want_i(cx, i, rbuf[i], ival(cx->srcs[i / 2], i % 2, k));
	}
	release(m, &req);
	free(rbuf);
}

/* Rank r gives r % 2 + 1 doubles; blocks lie one double apart. */
static void op_nbr_allgatherv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int me = cx->rank, in = cx->indeg, n = me % 2 + 1, k, i, t, tot = 0;
	int *rc = zalloc(in * sizeof(int)), *dis = zalloc(in * sizeof(int));
	MPI_Count *rc_c = zalloc(in * sizeof(MPI_Count));
	MPI_Aint *dis_c = zalloc(in * sizeof(MPI_Aint));
	double sbuf[2], *rbuf;

	for (i = 0; i < in; i++) {
		rc_c[i] = rc[i] = cx->srcs[i] % 2 + 1;
		dis_c[i] = dis[i] = tot + i;
		tot += rc[i];
	}
	rbuf = zalloc((tot + in) * sizeof(double));
	expect(cx, ROOT_NONE, cx->outdeg * n * sizeof(double),
	       tot * sizeof(double));
	for (k = 0; k < runs(m); k++) {
		for (t = 0; t < n; t++)
			sbuf[t] = dval(me, t, k);
		for (i = 0; i < tot + in; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6(cx, m, Neighbor_allgatherv,
			      Ineighbor_allgatherv,
			      (sbuf, n, MPI_DOUBLE, rbuf, rc, dis, MPI_DOUBLE,
			       cx->comm),
			      (sbuf, n, MPI_DOUBLE, rbuf, rc_c, dis_c,
			       MPI_DOUBLE, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < in; i++)
			for (t = 0; t < rc[i]; t++)
				want_d(cx, dis[i] + t, rbuf[dis[i] + t],
				       dval(cx->srcs[i], t, k));
	}
	release(m, &req);
	free(rc);
	free(dis);
	free(rc_c);
	free(dis_c);
	free(rbuf);
}

static void op_nbr_alltoall(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int me = cx->rank, in = cx->indeg, out = cx->outdeg, k, i, t;
	char *sbuf = zalloc(3 * out), *rbuf = zalloc(3 * in);

	expect(cx, ROOT_NONE, 3 * out, 3 * in);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < out; i++)
			for (t = 0; t < 3; t++)
				sbuf[3 * i + t] = cval(me, 8 * i + t, k);
		memset(rbuf, '.', 3 * in);
		if (!k)
			CALL6S(cx, m, Neighbor_alltoall, Ineighbor_alltoall,
			       (sbuf, 3, MPI_CHAR, rbuf, 3, MPI_CHAR,
				cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < in; i++)
			for (t = 0; t < 3; t++)
				want_c(cx, 3 * i + t, rbuf[3 * i + t],
				       cval(cx->srcs[i], 8 * cx->sblk[i] + t,
					    k));
	}
	release(m, &req);
	free(sbuf);
	free(rbuf);
}

/* Elements rank 'src' sends in its send block 'blk' (v and w). */
static int ncount(int src, int blk)
{
	return (src + blk) % 2 + 1;
}

/*
 * The send block that decides counts, types and values in the v and w
 * variants: the block itself, or 0 for all when both ring neighbours
 * are the same rank (see ring_init).
 */
static int nkey(const struct cx *cx, int blk)
{
	return cx->dup ? 0 : blk;
}

static void op_nbr_alltoallv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int me = cx->rank, in = cx->indeg, out = cx->outdeg, k, i, t;
	int stot = 0, rtot = 0;
	int *sc = zalloc(out * sizeof(int)), *sd = zalloc(out * sizeof(int));
	int *rc = zalloc(in * sizeof(int)), *rd = zalloc(in * sizeof(int));
	MPI_Count *sc_c = zalloc(out * sizeof(MPI_Count));
	MPI_Count *rc_c = zalloc(in * sizeof(MPI_Count));
	MPI_Aint *sd_c = zalloc(out * sizeof(MPI_Aint));
	MPI_Aint *rd_c = zalloc(in * sizeof(MPI_Aint));
	int *sbuf, *rbuf;

	for (i = 0; i < out; i++) {
		sc_c[i] = sc[i] = ncount(me, nkey(cx, i));
		sd_c[i] = sd[i] = stot;
		stot += sc[i];
	}
	for (i = 0; i < in; i++) {
		rc_c[i] = rc[i] = ncount(cx->srcs[i], nkey(cx, cx->sblk[i]));
		rd_c[i] = rd[i] = rtot;
		rtot += rc[i];
	}
	sbuf = zalloc(stot * sizeof(int));
	rbuf = zalloc(rtot * sizeof(int));
	expect(cx, ROOT_NONE, stot * sizeof(int), rtot * sizeof(int));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < out; i++)
			for (t = 0; t < sc[i]; t++)
				sbuf[sd[i] + t] =
					ival(me, 8 * nkey(cx, i) + t, k);
		for (i = 0; i < rtot; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6(cx, m, Neighbor_alltoallv, Ineighbor_alltoallv,
			      (sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT,
			       cx->comm),
			      (sbuf, sc_c, sd_c, MPI_INT, rbuf, rc_c, rd_c,
			       MPI_INT, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < in; i++)
			for (t = 0; t < rc[i]; t++)
				want_i(cx, rd[i] + t, rbuf[rd[i] + t],
				       ival(cx->srcs[i],
					    8 * nkey(cx, cx->sblk[i]) + t, k));
	}
	release(m, &req);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(sc_c);
	free(rc_c);
	free(sd_c);
	free(rd_c);
	free(sbuf);
	free(rbuf);
}

static void op_nbr_alltoallw(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int me = cx->rank, in = cx->indeg, out = cx->outdeg, k, i, t;
	int stot = 0, rtot = 0;
	int *sc = zalloc(out * sizeof(int)), *rc = zalloc(in * sizeof(int));
	int *sty = zalloc(out * sizeof(int)), *rty = zalloc(in * sizeof(int));
	MPI_Count *sc_c = zalloc(out * sizeof(MPI_Count));
	MPI_Count *rc_c = zalloc(in * sizeof(MPI_Count));
	MPI_Aint *sd = zalloc(out * sizeof(MPI_Aint));
	MPI_Aint *rd = zalloc(in * sizeof(MPI_Aint));
	MPI_Datatype *st = zalloc(out * sizeof(MPI_Datatype));
	MPI_Datatype *rt = zalloc(in * sizeof(MPI_Datatype));
	unsigned char *sbuf, *rbuf;

	for (i = 0; i < out; i++) {
		sc_c[i] = sc[i] = ncount(me, nkey(cx, i));
		sty[i] = wtype(me, nkey(cx, i));
		st[i] = tmpi(sty[i]);
		sd[i] = stot;
		stot += sc[i] * tsize(sty[i]);
	}
	for (i = 0; i < in; i++) {
		rc_c[i] = rc[i] = ncount(cx->srcs[i], nkey(cx, cx->sblk[i]));
		rty[i] = wtype(cx->srcs[i], nkey(cx, cx->sblk[i]));
		rt[i] = tmpi(rty[i]);
		rd[i] = rtot;
		rtot += rc[i] * tsize(rty[i]);
	}
	sbuf = zalloc(stot);
	rbuf = zalloc(rtot);
	expect(cx, ROOT_NONE, stot, rtot);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < out; i++)
			for (t = 0; t < sc[i]; t++)
				put(sbuf + sd[i] + t * tsize(sty[i]), sty[i],
				    me, 8 * nkey(cx, i) + t, k);
		memset(rbuf, 0xff, rtot);
		if (!k)
			CALL6(cx, m, Neighbor_alltoallw, Ineighbor_alltoallw,
			      (sbuf, sc, sd, st, rbuf, rc, rd, rt, cx->comm),
			      (sbuf, sc_c, sd, st, rbuf, rc_c, rd, rt,
			       cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < in; i++)
			for (t = 0; t < rc[i]; t++)
				want_at(cx, (int)rd[i],
					rbuf + rd[i] + t * tsize(rty[i]),
					rty[i], cx->srcs[i],
					8 * nkey(cx, cx->sblk[i]) + t, k);
	}
	release(m, &req);
	free(sc);
	free(rc);
	free(sty);
	free(rty);
	free(sc_c);
	free(rc_c);
	free(sd);
	free(rd);
	free(st);
	free(rt);
	free(sbuf);
	free(rbuf);
}

/* ---- inter-communicator calls ---- */

/* Root: rank 0 of the lower group; the upper group receives. */
static void inter_bcast(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int root = inter_root_arg(cx, 0), k, i;
	double buf[3];
	uint64_t n = sizeof(buf);

	if (root == MPI_ROOT)
		expect(cx, ROOT_ROOT, n, 0);
	else if (root == MPI_PROC_NULL)
		expect(cx, ROOT_PROC_NULL, 0, 0);
	else
		expect(cx, root, 0, n);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 3; i++)
			buf[i] = root == MPI_ROOT ? dval(0, i, k) : -1;
		if (!k)
			CALL6S(cx, m, Bcast, Ibcast,
			       (buf, 3, MPI_DOUBLE, root, cx->comm));
		complete(cx, m, &req);
		for (i = 0; root >= 0 && i < 3; i++)
			want_d(cx, i, buf[i], dval(0, i, k));
	}
	release(m, &req);
}

/* Root: rank 0 of the upper group; the lower group contributes. */
static void inter_reduce(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int root = inter_root_arg(cx, 1), k, i;
	int sbuf[4], rbuf[4];
	uint64_t n = sizeof(sbuf);

	expect(cx, inter_root_print(cx, 1), root >= 0 ? n : 0,
	       root == MPI_ROOT ? n : 0);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 4; i++) {
			sbuf[i] = ival(my_id(cx), i, k);
			rbuf[i] = -1;
		}
		if (!k)
			CALL6S(cx, m, Reduce, Ireduce,
			       (sbuf, root == MPI_ROOT ? rbuf : NULL, 4,
				MPI_INT, MPI_SUM, root, cx->comm));
		complete(cx, m, &req);
		for (i = 0; root == MPI_ROOT && i < 4; i++)
			want_i(cx, i, rbuf[i], isum(0, 0, cx->rsize, i, k));
	}
	release(m, &req);
}

/* Root: rank 0 of the lower group gathers 2 ints from each upper rank. */
static void inter_gather(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int root = inter_root_arg(cx, 0), q = cx->rsize, k, i;
	int at_root = root == MPI_ROOT, sbuf[2], *rbuf = NULL;
	uint64_t n = sizeof(sbuf);

	if (at_root)
		rbuf = zalloc(q * n);
	expect(cx, inter_root_print(cx, 0), root >= 0 ? n : 0,
	       at_root ? q * n : 0);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2; i++)
			sbuf[i] = ival(my_id(cx), i, k);
		for (i = 0; at_root && i < 2 * q; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6S(cx, m, Gather, Igather,
			       (root >= 0 ? sbuf : NULL, root >= 0 ? 2 : 0,
				root >= 0 ? MPI_INT : MPI_DATATYPE_NULL, rbuf,
				at_root ? 2 : 0,
				at_root ? MPI_INT : MPI_DATATYPE_NULL, root,
				cx->comm));
		complete(cx, m, &req);
		for (i = 0; at_root && i < 2 * q; i++)
			want_i(cx, i, rbuf[i],
			       ival(remote_id(cx, i / 2), i % 2, k));
	}
	release(m, &req);
	free(rbuf);
}

/* Root: rank 0 of the upper group scatters 2 doubles to each lower rank. */
static void inter_scatter(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int root = inter_root_arg(cx, 1), q = cx->rsize, k, i;
	int at_root = root == MPI_ROOT;
	double *sbuf = NULL, rbuf[2];
	uint64_t n = sizeof(rbuf);

	if (at_root)
		sbuf = zalloc(q * n);
	expect(cx, inter_root_print(cx, 1), at_root ? q * n : 0,
	       root >= 0 ? n : 0);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; at_root && i < 2 * q; i++)
			sbuf[i] = dval(100, i, k);
		rbuf[0] = rbuf[1] = -1;
		if (!k)
			CALL6S(cx, m, Scatter, Iscatter,
			       (sbuf, at_root ? 2 : 0,
				at_root ? MPI_DOUBLE : MPI_DATATYPE_NULL,
				root >= 0 ? rbuf : NULL, root >= 0 ? 2 : 0,
				root >= 0 ? MPI_DOUBLE : MPI_DATATYPE_NULL,
				root, cx->comm));
		complete(cx, m, &req);
		for (i = 0; root >= 0 && i < 2; i++)
			want_d(cx, i, rbuf[i], dval(100, 2 * cx->rank + i, k));
	}
	release(m, &req);
	free(sbuf);
}

/* Root: rank 0 of the upper group; lower rank i sends i % 3 + 1 chars. */
static void inter_gatherv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int root = inter_root_arg(cx, 1), q = cx->rsize, k, i, t, tot = 0;
	int at_root = root == MPI_ROOT, n = cx->rank % 3 + 1;
	int *rc = NULL, *dis = NULL;
	MPI_Count *rc_c = NULL;
	MPI_Aint *dis_c = NULL;
	char sbuf[3], *rbuf = NULL;

	if (at_root) {
		rc = zalloc(q * sizeof(int));
		dis = zalloc(q * sizeof(int));
		rc_c = zalloc(q * sizeof(MPI_Count));
		dis_c = zalloc(q * sizeof(MPI_Aint));
		for (i = 0; i < q; i++) {
			rc_c[i] = rc[i] = i % 3 + 1;
			dis_c[i] = dis[i] = tot;
			tot += rc[i];
		}
		rbuf = zalloc(tot);
	}
	expect(cx, inter_root_print(cx, 1), root >= 0 ? n : 0, tot);
	for (k = 0; k < runs(m); k++) {
		for (t = 0; t < n; t++)
			sbuf[t] = cval(my_id(cx), t, k);
		if (at_root)
			memset(rbuf, '.', tot);
		if (!k)
			CALL6(cx, m, Gatherv, Igatherv,
			      (root >= 0 ? sbuf : NULL, root >= 0 ? n : 0,
			       root >= 0 ? MPI_CHAR : MPI_DATATYPE_NULL, rbuf,
			       rc, dis, at_root ? MPI_CHAR : MPI_DATATYPE_NULL,
			       root, cx->comm),
			      (root >= 0 ? sbuf : NULL, root >= 0 ? n : 0,
			       root >= 0 ? MPI_CHAR : MPI_DATATYPE_NULL, rbuf,
			       rc_c, dis_c,
			       at_root ? MPI_CHAR : MPI_DATATYPE_NULL, root,
			       cx->comm));
		complete(cx, m, &req);
		for (i = 0; at_root && i < q; i++)
			for (t = 0; t < rc[i]; t++)
				want_c(cx, dis[i] + t, rbuf[dis[i] + t],
				       cval(remote_id(cx, i), t, k));
	}
	release(m, &req);
	free(rc);
	free(dis);
	free(rc_c);
	free(dis_c);
	free(rbuf);
}

/* Root: rank 0 of the lower group; upper rank i gets i % 3 + 1 ints. */
static void inter_scatterv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int root = inter_root_arg(cx, 0), q = cx->rsize, k, i, t, tot = 0;
	int at_root = root == MPI_ROOT, n = cx->rank % 3 + 1;
	int *sc = NULL, *dis = NULL, *sbuf = NULL, rbuf[3];
	MPI_Count *sc_c = NULL;
	MPI_Aint *dis_c = NULL;

	if (at_root) {
		sc = zalloc(q * sizeof(int));
		dis = zalloc(q * sizeof(int));
		sc_c = zalloc(q * sizeof(MPI_Count));
		dis_c = zalloc(q * sizeof(MPI_Aint));
		for (i = 0; i < q; i++) {
			sc_c[i] = sc[i] = i % 3 + 1;
			dis_c[i] = dis[i] = tot;
			tot += sc[i];
		}
		sbuf = zalloc(tot * sizeof(int));
	}
	expect(cx, inter_root_print(cx, 0), tot * sizeof(int),
	       root >= 0 ? n * sizeof(int) : 0);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; at_root && i < q; i++)
			for (t = 0; t < sc[i]; t++)
				sbuf[dis[i] + t] = ival(remote_id(cx, i), t, k);
		for (t = 0; t < 3; t++)
			rbuf[t] = -1;
		if (!k)
			CALL6(cx, m, Scatterv, Iscatterv,
			      (sbuf, sc, dis,
			       at_root ? MPI_INT : MPI_DATATYPE_NULL,
			       root >= 0 ? rbuf : NULL, root >= 0 ? n : 0,
			       root >= 0 ? MPI_INT : MPI_DATATYPE_NULL, root,
			       cx->comm),
			      (sbuf, sc_c, dis_c,
			       at_root ? MPI_INT : MPI_DATATYPE_NULL,
			       root >= 0 ? rbuf : NULL, root >= 0 ? n : 0,
			       root >= 0 ? MPI_INT : MPI_DATATYPE_NULL, root,
			       cx->comm));
		complete(cx, m, &req);
		for (t = 0; root >= 0 && t < n; t++)
			want_i(cx, t, rbuf[t], ival(my_id(cx), t, k));
	}
	release(m, &req);
	free(sc);
	free(dis);
	free(sc_c);
	free(dis_c);
	free(sbuf);
}

static void inter_allgather(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int q = cx->rsize, k, i;
	char sbuf[2], *rbuf = zalloc(2 * q);

	expect(cx, ROOT_NONE, 2, 2 * q);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2; i++)
			sbuf[i] = cval(my_id(cx), i, k);
		memset(rbuf, '.', 2 * q);
		if (!k)
			CALL6S(cx, m, Allgather, Iallgather,
			       (sbuf, 2, MPI_CHAR, rbuf, 2, MPI_CHAR,
				cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 2 * q; i++)
			want_c(cx, i, rbuf[i],
			       cval(remote_id(cx, i / 2), i % 2, k));
	}
	release(m, &req);
	free(rbuf);
}

/* Rank i of either group gives i % 2 + 1 doubles. */
static void inter_allgatherv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int q = cx->rsize, n = cx->rank % 2 + 1, k, i, t, tot = 0;
	int *rc = zalloc(q * sizeof(int)), *dis = zalloc(q * sizeof(int));
	MPI_Count *rc_c = zalloc(q * sizeof(MPI_Count));
	MPI_Aint *dis_c = zalloc(q * sizeof(MPI_Aint));
	double sbuf[2], *rbuf;

	for (i = 0; i < q; i++) {
		rc_c[i] = rc[i] = i % 2 + 1;
		dis_c[i] = dis[i] = tot;
		tot += rc[i];
	}
	rbuf = zalloc(tot * sizeof(double));
	expect(cx, ROOT_NONE, n * sizeof(double), tot * sizeof(double));
	for (k = 0; k < runs(m); k++) {
		for (t = 0; t < n; t++)
			sbuf[t] = dval(my_id(cx), t, k);
		for (i = 0; i < tot; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6(cx, m, Allgatherv, Iallgatherv,
			      (sbuf, n, MPI_DOUBLE, rbuf, rc, dis, MPI_DOUBLE,
			       cx->comm),
			      (sbuf, n, MPI_DOUBLE, rbuf, rc_c, dis_c,
			       MPI_DOUBLE, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < q; i++)
			for (t = 0; t < rc[i]; t++)
				want_d(cx, dis[i] + t, rbuf[dis[i] + t],
				       dval(remote_id(cx, i), t, k));
	}
	release(m, &req);
	free(rc);
	free(dis);
	free(rc_c);
	free(dis_c);
	free(rbuf);
}

/* Each group receives the sum over the other group. */
static void inter_allreduce(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int k, i;
	int sbuf[2], rbuf[2];

	expect(cx, ROOT_NONE, sizeof(sbuf), sizeof(rbuf));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < 2; i++) {
			sbuf[i] = ival(my_id(cx), i, k);
			rbuf[i] = -1;
		}
		if (!k)
			CALL6S(cx, m, Allreduce, Iallreduce,
			       (sbuf, rbuf, 2, MPI_INT, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < 2; i++)
			want_i(cx, i, rbuf[i],
			       isum(100 * (1 - cx->group), 0, cx->rsize, i,
				    k));
	}
	release(m, &req);
}

static void inter_alltoall(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int q = cx->rsize, k, i;
	int *sbuf = zalloc(q * sizeof(int)), *rbuf = zalloc(q * sizeof(int));

	expect(cx, ROOT_NONE, q * sizeof(int), q * sizeof(int));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < q; i++) {
			sbuf[i] = ival(my_id(cx), i, k);
			rbuf[i] = -1;
		}
		if (!k)
			CALL6S(cx, m, Alltoall, Ialltoall,
			       (sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < q; i++)
			want_i(cx, i, rbuf[i],
			       ival(remote_id(cx, i), cx->rank, k));
	}
	release(m, &req);
	free(sbuf);
	free(rbuf);
}

/* Elements rank 'src' of group 'g' sends rank 'dst' of the other group. */
static int icount(int g, int src, int dst)
{
	return (src + 2 * dst + g) % 3 + 1;
}

static void inter_alltoallv(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int q = cx->rsize, me = cx->rank, g = cx->group, k, i, t;
	int stot = 0, rtot = 0;
	int *sc = zalloc(q * sizeof(int)), *sd = zalloc(q * sizeof(int));
	int *rc = zalloc(q * sizeof(int)), *rd = zalloc(q * sizeof(int));
	MPI_Count *sc_c = zalloc(q * sizeof(MPI_Count));
	MPI_Count *rc_c = zalloc(q * sizeof(MPI_Count));
	MPI_Aint *sd_c = zalloc(q * sizeof(MPI_Aint));
	MPI_Aint *rd_c = zalloc(q * sizeof(MPI_Aint));
	char *sbuf, *rbuf;

	for (i = 0; i < q; i++) {
		sc_c[i] = sc[i] = icount(g, me, i);
		rc_c[i] = rc[i] = icount(1 - g, i, me);
		sd_c[i] = sd[i] = stot;
		rd_c[i] = rd[i] = rtot;
		stot += sc[i];
		rtot += rc[i];
	}
	sbuf = zalloc(stot);
	rbuf = zalloc(rtot);
	expect(cx, ROOT_NONE, stot, rtot);
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < q; i++)
			for (t = 0; t < sc[i]; t++)
				sbuf[sd[i] + t] =
					cval(my_id(cx), 16 * i + t, k);
		memset(rbuf, '.', rtot);
		if (!k)
			CALL6(cx, m, Alltoallv, Ialltoallv,
			      (sbuf, sc, sd, MPI_CHAR, rbuf, rc, rd, MPI_CHAR,
			       cx->comm),
			      (sbuf, sc_c, sd_c, MPI_CHAR, rbuf, rc_c, rd_c,
			       MPI_CHAR, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < q; i++)
			for (t = 0; t < rc[i]; t++)
				want_c(cx, rd[i] + t, rbuf[rd[i] + t],
				       cval(remote_id(cx, i), 16 * me + t, k));
	}
	release(m, &req);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(sc_c);
	free(rc_c);
	free(sd_c);
	free(rd_c);
	free(sbuf);
	free(rbuf);
}

/*
 * Inter-communicator reduce-scatter: each group's vectors are reduced
 * and the result scattered over the other group, so both groups must
 * agree on the vector length: p * q elements, q per rank for the block
 * form; for the v form q per rank with one moved from rank 1 to rank 0.
 */
static void inter_reduce_scatter_block(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, q = cx->rsize, me = cx->rank, k, i;
	int *sbuf = zalloc(p * q * sizeof(int));
	int *rbuf = zalloc(q * sizeof(int));

	expect(cx, ROOT_NONE, p * q * sizeof(int), q * sizeof(int));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < p * q; i++)
			sbuf[i] = ival(my_id(cx), i, k);
		for (i = 0; i < q; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6S(cx, m, Reduce_scatter_block,
			       Ireduce_scatter_block,
			       (sbuf, rbuf, q, MPI_INT, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < q; i++)
			want_i(cx, i, rbuf[i],
			       isum(100 * (1 - cx->group), 0, q, me * q + i,
				    k));
	}
	release(m, &req);
	free(sbuf);
	free(rbuf);
}

static void inter_reduce_scatter(struct cx *cx, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int p = cx->size, q = cx->rsize, me = cx->rank, k, i, off = 0;
	int *rc = zalloc(p * sizeof(int)), *sbuf, *rbuf;
	MPI_Count *rc_c = zalloc(p * sizeof(MPI_Count));

	for (i = 0; i < p; i++)
		rc[i] = q;
	if (p > 1) {
		rc[0]++;
		rc[1]--;
	}
	for (i = 0; i < p; i++)
		rc_c[i] = rc[i];
	for (i = 0; i < me; i++)
		off += rc[i];
	sbuf = zalloc(p * q * sizeof(int));
	rbuf = zalloc((q + 1) * sizeof(int));
	expect(cx, ROOT_NONE, p * q * sizeof(int), rc[me] * sizeof(int));
	for (k = 0; k < runs(m); k++) {
		for (i = 0; i < p * q; i++)
			sbuf[i] = ival(my_id(cx), i, k);
		for (i = 0; i <= q; i++)
			rbuf[i] = -1;
		if (!k)
			CALL6(cx, m, Reduce_scatter, Ireduce_scatter,
			      (sbuf, rbuf, rc, MPI_INT, MPI_SUM, cx->comm),
			      (sbuf, rbuf, rc_c, MPI_INT, MPI_SUM, cx->comm));
		complete(cx, m, &req);
		for (i = 0; i < rc[me]; i++)
			want_i(cx, i, rbuf[i],
			       isum(100 * (1 - cx->group), 0, q, off + i, k));
	}
	release(m, &req);
	free(rc);
	free(rc_c);
	free(sbuf);
	free(rbuf);
}

/* ---- communicators and the run ---- */

static void cx_init(struct cx *cx, MPI_Comm comm, const char *label)
{
	memset(cx, 0, sizeof(*cx));
	cx->comm = comm;
	cx->label = label;
	snprintf(cx->fn, sizeof(cx->fn), "setup");
	MPI_Comm_rank(comm, &cx->rank);
	MPI_Comm_size(comm, &cx->size);
	MPI_Comm_test_inter(comm, &cx->inter);
	if (cx->inter)
		MPI_Comm_remote_size(comm, &cx->rsize);
}

static void cx_release(struct cx *cx)
{
	free(cx->srcs);
	free(cx->dsts);
	free(cx->sblk);
	MPI_Comm_free(&cx->comm);
}

/* Destinations of rank 'r' in the graph: r + 1, and rank 0 to all >= 2. */
static int graph_dsts(int r, int p, int *dsts)
{
	int n = 0, i;

	dsts[n++] = (r + 1) % p;
	for (i = 2; r == 0 && i < p; i++)
		dsts[n++] = i;
	return n;
}

static void graph_init(struct cx *cx, int p, int me)
{
	int *d = zalloc(p * sizeof(int)), *in, *out, nin, nout, w;
	int r, i, n;
	MPI_Comm comm;

	cx->srcs = zalloc(p * sizeof(int));
	cx->sblk = zalloc(p * sizeof(int));
	cx->dsts = zalloc(p * sizeof(int));
	cx->outdeg = graph_dsts(me, p, cx->dsts);
	for (r = 0; r < p; r++) {
		n = graph_dsts(r, p, d);
		for (i = 0; i < n; i++) {
			if (d[i] != me)
				continue;
			cx->srcs[cx->indeg] = r;
			cx->sblk[cx->indeg++] = i;
		}
	}
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, cx->indeg, cx->srcs,
				       MPI_UNWEIGHTED, cx->outdeg, cx->dsts,
				       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
	cx->comm = comm;
	cx->label = "graph";
	MPI_Comm_rank(comm, &cx->rank);
	MPI_Comm_size(comm, &cx->size);
	MPI_Dist_graph_neighbors_count(comm, &nin, &nout, &w);
	in = zalloc(p * sizeof(int));
	out = zalloc(p * sizeof(int));
	MPI_Dist_graph_neighbors(comm, nin, in, MPI_UNWEIGHTED, nout, out,
				 MPI_UNWEIGHTED);
	if (cx->rank != me || nin != cx->indeg || nout != cx->outdeg ||
	    memcmp(in, cx->srcs, nin * sizeof(int)) ||
	    memcmp(out, cx->dsts, nout * sizeof(int)))
		fail(cx, "the graph's neighbours are not the ones given");
	free(in);
	free(out);
	free(d);
}

/*
 * A periodic ring: neighbours [left, right] for receiving and sending;
 * what arrives in block 0 (from the left) is the left neighbour's block
 * 1 (sent to its right), and the other way round.  At 2 ranks left and
 * right are the same rank, and MPICH 4.0.2 matches the two messages by
 * direction in Neighbor_alltoall but by order in the v and w variants
 * (pmodels/mpich#2194, mpi-forum/mpi-issues#153), so there the v and w
 * calls send the same thing both ways ('dup').
 */
static void ring_init(struct cx *cx, int p)
{
	int dims[1] = { p }, periods[1] = { 1 };
	MPI_Comm comm;

	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &comm);
	cx_init(cx, comm, "cart");
	cx->indeg = cx->outdeg = 2;
	cx->srcs = zalloc(2 * sizeof(int));
	cx->dsts = zalloc(2 * sizeof(int));
	cx->sblk = zalloc(2 * sizeof(int));
	MPI_Cart_shift(comm, 0, 1, &cx->srcs[0], &cx->srcs[1]);
	cx->dsts[0] = cx->srcs[0];
	cx->dsts[1] = cx->srcs[1];
	cx->sblk[0] = 1;
	cx->sblk[1] = 0;
	cx->dup = cx->srcs[0] == cx->srcs[1];
}

static const int all_modes[] = { M_BLK, M_BLK_C, M_NB, M_NB_C, M_PI, M_PI_C };
#define NMODES ((int)(sizeof(all_modes) / sizeof(all_modes[0])))

/* Every intra-communicator collective but the neighbourhood ones. */
static void intra_all(struct cx *cx, const int *modes, int nmodes)
{
	int i;

	for (i = 0; i < nmodes; i++)
		if (modes[i] == M_BLK || modes[i] == M_NB ||
		    modes[i] == M_PI)
			op_barrier(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_bcast(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_reduce(cx, modes[i], 0);
	for (i = 0; i < nmodes; i++)
		op_allreduce(cx, modes[i], 0);
	for (i = 0; i < nmodes; i++)
		op_scan(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_exscan(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_reduce_scatter(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_reduce_scatter_block(cx, modes[i], 0);
	for (i = 0; i < nmodes; i++)
		op_gather(cx, modes[i], 0);
	for (i = 0; i < nmodes; i++)
		op_gatherv(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_scatter(cx, modes[i], 0);
	for (i = 0; i < nmodes; i++)
		op_scatterv(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_allgather(cx, modes[i], 0);
	for (i = 0; i < nmodes; i++)
		op_allgatherv(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_alltoall(cx, modes[i], 0);
	for (i = 0; i < nmodes; i++)
		op_alltoallv(cx, modes[i]);
	for (i = 0; i < nmodes; i++)
		op_alltoallw(cx, modes[i]);
}

/* A few MPI_IN_PLACE calls. */
static void in_place(struct cx *cx)
{
	op_allreduce(cx, M_BLK, 1);
	op_allreduce(cx, M_NB, 1);
	op_reduce(cx, M_BLK, 1);
	op_gather(cx, M_BLK, 1);
	op_scatter(cx, M_BLK, 1);
	op_allgather(cx, M_BLK, 1);
	op_alltoall(cx, M_BLK, 1);
	op_reduce_scatter_block(cx, M_BLK, 1);
}

/*
 * Every neighbourhood collective.  MPICH 4.0.2's int-count
 * MPI_Neighbor_alltoallw forms mix up in- and out-degree when converting
 * the counts (pmodels/mpich#6233), so with 'w_large_only' (the graph,
 * where the degrees differ) only the _c forms of it run.
 */
static void nbr_all(struct cx *cx, int w_large_only)
{
	int i;

	op_barrier(cx, M_BLK);
	for (i = 0; i < NMODES; i++)
		op_nbr_allgather(cx, all_modes[i]);
	for (i = 0; i < NMODES; i++)
		op_nbr_allgatherv(cx, all_modes[i]);
	for (i = 0; i < NMODES; i++)
		op_nbr_alltoall(cx, all_modes[i]);
	for (i = 0; i < NMODES; i++)
		op_nbr_alltoallv(cx, all_modes[i]);
	for (i = 0; i < NMODES; i++)
		if (!w_large_only || all_modes[i] == M_BLK_C ||
		    all_modes[i] == M_NB_C || all_modes[i] == M_PI_C)
			op_nbr_alltoallw(cx, all_modes[i]);
}

static void inter_all(struct cx *cx)
{
	op_barrier(cx, M_BLK);
	inter_bcast(cx, M_BLK);
	inter_bcast(cx, M_NB);
	inter_reduce(cx, M_BLK);
	inter_allgather(cx, M_BLK);
	inter_allreduce(cx, M_BLK);
	inter_allreduce(cx, M_PI);
	inter_alltoall(cx, M_BLK);
	inter_alltoall(cx, M_NB_C);
	inter_gather(cx, M_BLK);
	inter_scatter(cx, M_BLK);
	inter_gatherv(cx, M_BLK);
	inter_scatterv(cx, M_BLK);
	inter_allgatherv(cx, M_BLK);
	inter_alltoallv(cx, M_BLK);
	inter_reduce_scatter_block(cx, M_BLK);
	inter_reduce_scatter(cx, M_BLK);
	op_barrier(cx, M_NB);
}

/*
 * MPICH 4.0.2's default schedules for some persistent collectives are
 * wrong: MPI_Gather_init and MPI_Scatter_init skip the root's local
 * copy and reuse the data of the first start (pmodels/mpich#7078), and
 * MPI_Allgather_init by recursive doubling loses blocks at 2 and 4
 * ranks (pmodels/mpich#6423).  Other algorithms, chosen before MPI_Init,
 * are correct; a setting already in the environment wins.
 */
static void work_around_mpich(void)
{
	setenv("MPIR_CVAR_IGATHER_INTRA_ALGORITHM", "tsp_tree", 0);
	setenv("MPIR_CVAR_ISCATTER_INTRA_ALGORITHM", "tsp_tree", 0);
	setenv("MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM", "tsp_ring", 0);
}

int main(int argc, char **argv)
{
	static const int split_modes[] = { M_BLK, M_NB };
	static char outbuf[8192];
	struct cx world, split, inter, cart, graph;
	MPI_Comm half, sc, ic;
	int p, lower;

	work_around_mpich();
	MPI_Init(&argc, &argv);
	/*
	 * MPI_Init leaves stdout unbuffered, so printf would write a line
	 * in pieces that mpiexec interleaves with other ranks' output; one
	 * write per line keeps lines whole.
	 */
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	memset(&world, 0, sizeof(world));
	world.label = "world";
	snprintf(world.fn, sizeof(world.fn), "setup");
	if (p < 2)
		fail(&world, "needs at least 2 ranks, got %d", p);

	cx_init(&world, MPI_COMM_WORLD, "world");
	intra_all(&world, all_modes, NMODES);
	in_place(&world);

	MPI_Comm_split(MPI_COMM_WORLD, p >= 4 ? wrank % 2 : 0, -wrank, &sc);
	cx_init(&split, sc, "split");
	intra_all(&split, split_modes, 2);
	cx_release(&split);

	lower = wrank < p / 2;
	MPI_Comm_split(MPI_COMM_WORLD, !lower, wrank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? p / 2 : 0, 7,
			     &ic);
	cx_init(&inter, ic, "inter");
	inter.group = !lower;
	inter_all(&inter);
	cx_release(&inter);
	MPI_Comm_free(&half);

	ring_init(&cart, p);
	nbr_all(&cart, 0);
	cx_release(&cart);

	memset(&graph, 0, sizeof(graph));
	snprintf(graph.fn, sizeof(graph.fn), "setup");
	graph_init(&graph, p, wrank);
	nbr_all(&graph, 1);
	cx_release(&graph);

	MPI_Finalize();
	return 0;
}
