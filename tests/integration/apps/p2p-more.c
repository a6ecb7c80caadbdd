/*
 * tests/integration/apps/p2p-more.c: the point-to-point calls beyond
 * apps/p2p.c, between ranks 0 and 1: persistent sends of every mode and
 * persistent receives, started ITER times; a partitioned send and
 * receive (Pready, Pready_range, Pready_list, Parrived); matched probes
 * (Mprobe + Mrecv, Improbe + Imrecv, and MPI_PROC_NULL's message);
 * calls to and from MPI_PROC_NULL, which move no bytes; Irsend, Ibsend
 * and Isendrecv; receives cancelled before any message came, whose
 * status MPI leaves undefined but for its flag; more requests in
 * flight at once than the interposer's table holds, and an inactive
 * persistent request in a Waitall; Waitany, Waitsome, Testany and
 * Testsome; a Waitall that fails in one request and leaves another
 * pending.  Built for MPI 3.1 (Open MPI 4.1), it leaves out the
 * partitioned calls and Isendrecv.  Every value received
 * is checked; what each record
 * must say goes out as EXPECT lines (apps/expect.h) that t-p2p-more.sh
 * checks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

#define ITER 3
#define NPART 4
#define PCOUNT 10

static int errors, rank;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "p2p-more: line %d: check failed: "  \
				"%s\n", __LINE__, #cond);                    \
			errors++;                                            \
		}                                                            \
	} while (0)

static const long is = sizeof(int), ds = sizeof(double);

/* See bench-calls.c: a false warning on MPI_STATUSES_IGNORE. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

/* 'arg' of a cancelled request's done record (writer/event.h). */
#define ST_DONE_CANCELLED_ARG 1

/* 1. Persistent sends of every mode, and the receives for them. */
static void persistent(int peer)
{
	int a[10], c[3], d[2], ra[10], rc[3], rd[2], i, it, n;
	double b[5], rb[5];
	MPI_Request s[5], r[4], nq;
	MPI_Status st[5];
	char *bsend = malloc(1024);

	MPI_Buffer_attach(bsend, 1024);
	if (rank == 0) {
		MPI_Send_init(a, 10, MPI_INT, peer, 21, MPI_COMM_WORLD, &s[0]);
		MPI_Bsend_init(b, 5, MPI_DOUBLE, peer, 22, MPI_COMM_WORLD,
			       &s[1]);
		MPI_Ssend_init(c, 3, MPI_INT, peer, 23, MPI_COMM_WORLD, &s[2]);
		MPI_Rsend_init(d, 2, MPI_INT, peer, 24, MPI_COMM_WORLD, &s[3]);
		MPI_Send_init(a, 10, MPI_INT, MPI_PROC_NULL, 25,
			      MPI_COMM_WORLD, &s[4]);
		for (it = 1; it <= ITER; it++) {
			for (i = 0; i < 10; i++)
				a[i] = 100 * it + i;
			for (i = 0; i < 5; i++)
				b[i] = 0.5 * it + i;
			c[0] = c[1] = c[2] = it;
			d[0] = d[1] = -it;
			/* The receives are posted. */
			MPI_Barrier(MPI_COMM_WORLD);
			MPI_Startall(4, s);
			MPI_Start(&s[4]);
			MPI_Waitall(5, s, st);
		}
		for (i = 0; i < 5; i++)
			MPI_Request_free(&s[i]);
		expect(1, "MPI_Send_init", "peer == 1 && tag == 21 && "
		       "sbytes == %ld && req > 0", 10 * is);
		expect(1, "MPI_Bsend_init", "tag == 22 && sbytes == %ld",
		       5 * ds);
		expect(1, "MPI_Ssend_init", "tag == 23 && sbytes == %ld",
		       3 * is);
		expect(1, "MPI_Rsend_init", "tag == 24 && sbytes == %ld",
		       2 * is);
		expect(1, "MPI_Send_init", "peer == -3 && tag == 25 && "
		       "sbytes == 0");
		expect_kind(ITER, "start", "MPI_Send_init", "tag == 21 && "
			    "sbytes == %ld && inst >= 1 && inst <= %d",
			    10 * is, ITER);
		expect_kind(ITER, "start", "MPI_Rsend_init", "tag == 24 && "
			    "sbytes == %ld", 2 * is);
		expect_kind(ITER, "done", "MPI_Waitall", "tag == 22 && "
			    "sbytes == %ld", 5 * ds);
		expect_kind(ITER, "done", "MPI_Waitall", "peer == -3 && "
			    "sbytes == 0");
	} else {
		MPI_Recv_init(ra, 10, MPI_INT, MPI_ANY_SOURCE, 21,
			      MPI_COMM_WORLD, &r[0]);
		MPI_Recv_init(rb, 5, MPI_DOUBLE, peer, MPI_ANY_TAG,
			      MPI_COMM_WORLD, &r[1]);
		MPI_Recv_init(rc, 3, MPI_INT, peer, 23, MPI_COMM_WORLD, &r[2]);
		MPI_Recv_init(rd, 2, MPI_INT, peer, 24, MPI_COMM_WORLD, &r[3]);
		MPI_Recv_init(ra, 10, MPI_INT, MPI_PROC_NULL, 26,
			      MPI_COMM_WORLD, &nq);
		for (it = 1; it <= ITER; it++) {
			MPI_Startall(4, r);
			MPI_Start(&nq);
			MPI_Barrier(MPI_COMM_WORLD);
			MPI_Waitall(4, r, st);
			MPI_Wait(&nq, MPI_STATUS_IGNORE);
			for (i = 0; i < 10; i++)
				CHECK(ra[i] == 100 * it + i);
			for (i = 0; i < 5; i++)
				CHECK(rb[i] == 0.5 * it + i);
			CHECK(rc[2] == it && rd[1] == -it);
			MPI_Get_count(&st[1], MPI_BYTE, &n);
			CHECK(n == 5 * ds && st[1].MPI_TAG == 22);
		}
		for (i = 0; i < 4; i++)
			MPI_Request_free(&r[i]);
		MPI_Request_free(&nq);
		expect(1, "MPI_Recv_init", "peer == -4 && tag == 21 && "
		       "rbytes == 0 && req > 0");
		expect_kind(ITER, "start", "MPI_Recv_init", "tag == 21 && "
			    "rbytes == 0");
		/* The done records: source, tag and bytes from the status. */
		expect_kind(ITER, "done", "MPI_Waitall", "peer == 0 && "
			    "tag == 21 && rbytes == %ld", 10 * is);
		expect_kind(ITER, "done", "MPI_Waitall", "peer == 0 && "
			    "tag == 22 && rbytes == %ld", 5 * ds);
		expect_kind(ITER, "done", "MPI_Wait", "peer == -3 && "
			    "tag == 26 && rbytes == 0");
	}
	MPI_Buffer_detach(&bsend, &n);
	free(bsend);
}

/* 2. A partitioned send and receive, started twice (MPI 4.0). */
static void partitioned(int peer)
{
#if MPI_VERSION >= 4
	int buf[NPART * PCOUNT], i, it, flag, list[1] = { 3 };
	long pb = PCOUNT * is;
	MPI_Request q;

	if (rank == 0) {
		MPI_Psend_init(buf, NPART, PCOUNT, MPI_INT, peer, 41,
			       MPI_COMM_WORLD, MPI_INFO_NULL, &q);
		for (it = 1; it <= 2; it++) {
			for (i = 0; i < NPART * PCOUNT; i++)
				buf[i] = 1000 * it + i;
			MPI_Start(&q);
			MPI_Pready(0, q);
			MPI_Pready_range(1, 2, q);
			MPI_Pready_list(1, list, q);
			MPI_Wait(&q, MPI_STATUS_IGNORE);
		}
		MPI_Request_free(&q);
		expect(1, "MPI_Psend_init", "peer == 1 && tag == 41 && "
		       "sbytes == %ld", NPART * pb);
		expect(2, "MPI_Pready", "arg == 0 && sbytes == %ld && "
		       "tsize == %ld && peer == 1 && req > 0", pb, pb);
		expect(2, "MPI_Pready_range", "arg == 1 && sbytes == %ld",
		       2 * pb);
		expect(2, "MPI_Pready_list", "arg == 3 && sbytes == %ld", pb);
		expect(1, "MPI_Pready", "inst == 2");
	} else {
		MPI_Precv_init(buf, NPART, PCOUNT, MPI_INT, peer, 41,
			       MPI_COMM_WORLD, MPI_INFO_NULL, &q);
		for (it = 1; it <= 2; it++) {
			MPI_Start(&q);
			do
				MPI_Parrived(q, NPART - 1, &flag);
			while (!flag);
			MPI_Wait(&q, MPI_STATUS_IGNORE);
			for (i = 0; i < NPART * PCOUNT; i++)
				CHECK(buf[i] == 1000 * it + i);
		}
		MPI_Request_free(&q);
		expect(1, "MPI_Precv_init", "peer == 0 && rbytes == %ld",
		       NPART * pb);
		/* The calls that found it not there yet are not records. */
		expect(2, "MPI_Parrived", "arg == %d && rbytes == %ld && "
		       "peer == 0", NPART - 1, pb);
		expect_kind(2, "start", "MPI_Precv_init", "rbytes == %ld",
			    NPART * pb);
	}
#else
	(void)peer;
#endif
}

/* 3. Matched probes. */
static void matched(int peer)
{
	int a[7], r7[7], flag = 0, n;
	double b[9], r9[9];
	MPI_Message m;
	MPI_Status st;
	MPI_Request q;

	if (rank == 0) {
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		a[6] = 7;
		b[8] = 9.5;
		MPI_Send(a, 7, MPI_INT, peer, 31, MPI_COMM_WORLD);
		MPI_Send(b, 9, MPI_DOUBLE, peer, 32, MPI_COMM_WORLD);
		return;
	}
	MPI_Mprobe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &m, &st);
	MPI_Mrecv(r7, 7, MPI_INT, &m, &st);
	MPI_Get_count(&st, MPI_BYTE, &n);
	CHECK(r7[6] == 7 && n == 7 * is);
	do
		MPI_Improbe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
	while (!flag);
	MPI_Imrecv(r9, 9, MPI_DOUBLE, &m, &q);
	MPI_Wait(&q, &st);
	CHECK(r9[8] == 9.5);
	MPI_Mprobe(MPI_PROC_NULL, 33, MPI_COMM_WORLD, &m, &st);
	CHECK(m == MPI_MESSAGE_NO_PROC);
	MPI_Mrecv(r7, 7, MPI_INT, &m, &st);
	expect(1, "MPI_Mprobe", "peer == 0 && tag == 31");
	expect(1, "MPI_Mrecv", "peer == 0 && tag == 31 && comm_size == 2 && "
	       "rbytes == %ld", 7 * is);
	expect(1, "MPI_Improbe", "peer == 0 && tag == 32");
	expect(1, "MPI_Imrecv", "peer == 0 && tag == 32 && comm_size == 2 && "
	       "req > 0");
	expect_kind(1, "done", "MPI_Wait", "peer == 0 && tag == 32 && "
		    "rbytes == %ld", 9 * ds);
	expect(1, "MPI_Mprobe", "peer == -3");
	expect(1, "MPI_Mrecv", "peer == -3 && rbytes == 0");
}

/* 4. To and from MPI_PROC_NULL: no bytes move. */
static void proc_null(int peer)
{
	int a[100], b[100];
	MPI_Request q;

	memset(a, 0, sizeof(a));
	MPI_Send(a, 100, MPI_INT, MPI_PROC_NULL, 51, MPI_COMM_WORLD);
	MPI_Recv(b, 100, MPI_INT, MPI_PROC_NULL, 52, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	MPI_Isend(a, 100, MPI_INT, MPI_PROC_NULL, 53, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a, 100, MPI_INT, MPI_PROC_NULL, 54, b, 100, MPI_INT,
		     MPI_PROC_NULL, 54, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	/* A shift with no left neighbour: sends, receives nothing. */
	MPI_Sendrecv(a, 10, MPI_INT, rank == 0 ? peer : MPI_PROC_NULL, 55, b,
		     10, MPI_INT, rank == 1 ? peer : MPI_PROC_NULL, 55,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	expect(1, "MPI_Send", "peer == -3 && tag == 51 && sbytes == 0");
	expect(1, "MPI_Recv", "peer == -3 && sbytes == 0 && rbytes == 0");
	expect(1, "MPI_Isend", "peer == -3 && sbytes == 0");
	expect(1, "MPI_Sendrecv", "peer == -3 && tag == 54 && sbytes == 0 && "
	       "rbytes == 0");
	expect(1, "MPI_Sendrecv", "tag == 55 && sbytes == %ld && "
	       "rbytes == %ld", rank == 0 ? 10 * is : 0,
	       rank == 1 ? 10 * is : 0);
}

/* 5. Irsend, Ibsend, Isendrecv. */
static void more_sends(int peer)
{
	int a[6] = { 1, 2, 3, 4, 5, 6 }, b[6], n;
	double x[3] = { 1, 2, 3 }, y[4];
	MPI_Request q[2];
	MPI_Status st[2];
	char *bsend = malloc(512);

	MPI_Buffer_attach(bsend, 512);
	if (rank == 0) {
		MPI_Barrier(MPI_COMM_WORLD);	/* the receive is posted */
		MPI_Irsend(a, 6, MPI_INT, peer, 61, MPI_COMM_WORLD, &q[0]);
		MPI_Ibsend(a, 4, MPI_INT, peer, 62, MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, st);
		expect(1, "MPI_Irsend", "tag == 61 && sbytes == %ld", 6 * is);
		expect(1, "MPI_Ibsend", "tag == 62 && sbytes == %ld", 4 * is);
	} else {
		MPI_Irecv(b, 6, MPI_INT, peer, 61, MPI_COMM_WORLD, &q[0]);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Wait(&q[0], MPI_STATUS_IGNORE);
		MPI_Recv(b, 4, MPI_INT, peer, 62, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		CHECK(b[3] == 4);
	}
#if MPI_VERSION >= 4
	/* Received bytes are the posted count: MPICH gives no status. */
	MPI_Isendrecv(x, 3 - rank, MPI_DOUBLE, peer, 63, y, 4, MPI_DOUBLE,
		      peer, 63, MPI_COMM_WORLD, &q[0]);
	MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	CHECK(y[0] == 1);
	expect(1, "MPI_Isendrecv", "peer == %d && sbytes == %ld && "
	       "rbytes == %ld", peer, (3 - rank) * ds, 4 * ds);
	expect_kind(1, "done", "MPI_Wait", "tag == 63 && rbytes == %ld",
		    4 * ds);
#else
	(void)x;
	(void)y;
#endif
	MPI_Buffer_detach(&bsend, &n);
	free(bsend);
}

/*
 * Sends freed while active (MPI_Request_free right after MPI_Isend, the
 * "fire and forget" idiom): each free's record names the request it
 * freed, which `synctrace report` then counts as freed, not pending.
 * A send kept for a later MPI_Wait is made first: with MPICH, small
 * sends complete at once and share one handle, and each free must name
 * the send it came right after, not the kept one, whose done record
 * (tag 52, 2 ints) must come at the Wait.
 */
static void freed(int peer)
{
	int v[5] = { 0 }, k[2] = { 7, 8 }, i;
	MPI_Request q, kept;

	if (rank == 0)
		MPI_Isend(k, 2, MPI_INT, peer, 52, MPI_COMM_WORLD, &kept);
	else
		MPI_Recv(k, 2, MPI_INT, peer, 52, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	for (i = 0; i < 5; i++) {
		if (rank == 0) {
			v[i] = 100 + i;
			MPI_Isend(&v[i], 1, MPI_INT, peer, 51, MPI_COMM_WORLD,
				  &q);
			MPI_Request_free(&q);
			CHECK(q == MPI_REQUEST_NULL);
		} else {
			MPI_Recv(&v[i], 1, MPI_INT, peer, 51, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			CHECK(v[i] == 100 + i);
		}
	}
	if (rank == 0)
		MPI_Wait(&kept, MPI_STATUS_IGNORE);
	/* The sends are complete once the receives are (MPI_Barrier). */
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		expect(5, "MPI_Isend", "tag == 51 && sbytes == %ld && req > 0",
		       is);
		expect_kind(1, "done", "MPI_Wait", "tag == 52 && sbytes == %ld",
			    2 * is);
	} else {
		CHECK(k[0] == 7 && k[1] == 8);
	}
}

/*
 * 7. Receives cancelled before a message came: a wildcard one completed
 * into a status that a real receive filled just before (MPI defines
 * only its cancelled flag), and one from the peer with tag 71, the tag
 * of the message a second receive then takes; then one cancelled with
 * a second receive of its key posted before it is waited for.  Each
 * done record says cancelled, with no bytes and the source and tag it
 * was posted with, each MPI_Cancel names its request, and the messages
 * go to the second receives.
 */
static void cancelled(int peer)
{
	int v = 0, w = 7, flag = 0, n = -1;
	MPI_Request q, q2;
	MPI_Status st;

	MPI_Sendrecv(&w, 1, MPI_INT, peer, 70, &v, 1, MPI_INT, peer, 70,
		     MPI_COMM_WORLD, &st);
	CHECK(v == 7);
	MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
		  &q);
	MPI_Cancel(&q);
	MPI_Wait(&q, &st);
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag);
	MPI_Irecv(&v, 1, MPI_INT, peer, 71, MPI_COMM_WORLD, &q);
	MPI_Cancel(&q);
	MPI_Wait(&q, &st);
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag);
	/* Neither rank sends before both receives are cancelled. */
	MPI_Barrier(MPI_COMM_WORLD);
	w = 710 + rank;
	MPI_Irecv(&v, 1, MPI_INT, peer, 71, MPI_COMM_WORLD, &q);
	MPI_Send(&w, 1, MPI_INT, peer, 71, MPI_COMM_WORLD);
	MPI_Wait(&q, &st);
	MPI_Test_cancelled(&st, &flag);
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(!flag && n == 1 && v == 710 + peer);
	expect_kind(1, "done", "MPI_Wait", "peer == -4 && tag == -1 && "
		    "arg == %d && rbytes == 0", ST_DONE_CANCELLED_ARG);
	expect_kind(1, "done", "MPI_Wait", "peer == %d && tag == 71 && "
		    "arg == %d && rbytes == 0", peer, ST_DONE_CANCELLED_ARG);
	expect_kind(1, "done", "MPI_Wait", "peer == %d && tag == 71 && "
		    "arg == 0 && rbytes == %ld", peer, is);
	/*
	 * Cancelled, then a second receive of its key posted before the
	 * first is waited for: the message is the second's.
	 */
	MPI_Irecv(&v, 1, MPI_INT, peer, 74, MPI_COMM_WORLD, &q);
	MPI_Cancel(&q);
	MPI_Irecv(&n, 1, MPI_INT, peer, 74, MPI_COMM_WORLD, &q2);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Send(&w, 1, MPI_INT, peer, 74, MPI_COMM_WORLD);
	MPI_Wait(&q2, MPI_STATUS_IGNORE);
	MPI_Wait(&q, &st);
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag && n == 710 + peer);
	expect_kind(1, "done", "MPI_Wait", "tag == 74 && arg == %d && "
		    "rbytes == 0", ST_DONE_CANCELLED_ARG);
	expect_kind(1, "done", "MPI_Wait", "tag == 74 && arg == 0 && "
		    "rbytes == %ld", is);
	expect(3, "MPI_Cancel", "req > 0");
}

/*
 * 8. More receives in flight than the interposer's table holds (16,384:
 * pmpi/request.c), whatever MPI makes of the sends: M receives posted,
 * then M blocking sends each way, then one MPI_Waitall on the receives
 * without statuses: every receive has its done record, with its bytes.
 * Then a persistent request in a Waitall before it is started and after
 * its one instance completed: inactive, it completes nothing.
 */
static void many(int peer)
{
	enum { M = 17000 };
	int *v = calloc(M, sizeof(int)), *w = malloc(M * sizeof(int));
	MPI_Request *q = malloc(M * sizeof(*q)), p[2];
	int i, bad = 0;

	if (!v || !w || !q)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < M; i++) {
		w[i] = 2 * i + rank;
		MPI_Irecv(&v[i], 1, MPI_INT, peer, 72, MPI_COMM_WORLD, &q[i]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < M; i++)
		MPI_Send(&w[i], 1, MPI_INT, peer, 72, MPI_COMM_WORLD);
	MPI_Waitall(M, q, MPI_STATUSES_IGNORE);
	for (i = 0; i < M; i++)
		bad += v[i] != 2 * i + peer;
	CHECK(bad == 0);
	expect_kind(M, "done", "MPI_Waitall", "tag == 72 && peer == %d && "
		    "rbytes == %ld", peer, is);
	MPI_Send_init(w, 1, MPI_INT, peer, 73, MPI_COMM_WORLD, &p[0]);
	p[1] = MPI_REQUEST_NULL;
	MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
	MPI_Start(&p[0]);
	MPI_Recv(v, 1, MPI_INT, peer, 73, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
	MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
	MPI_Request_free(&p[0]);
	CHECK(v[0] == peer);
	expect_kind(1, "done", "MPI_Waitall", "tag == 73 && inst == 1");
	free(v);
	free(w);
	free(q);
}

/*
 * 9. Requests completed one or some at a time: MPI_Waitany,
 * MPI_Waitsome, MPI_Testany, MPI_Testsome (polled until done), over
 * arrays with a null request, with and without statuses.  Each request
 * has one done record from the call that completed it, a receive's
 * with the source, tag and bytes its status gives.
 */
static void any_some(int peer)
{
	enum { R = 4 };
	int i, k, done, idx, out, ind[3], flag, v[3 * R], w[3 * R];
	MPI_Request q[3];
	MPI_Status st[3];
	const char *fns[4] = { "MPI_Waitany", "MPI_Waitsome", "MPI_Testany",
			       "MPI_Testsome" };

	for (k = 0; k < 4; k++) {
		for (i = 0; i < R; i++) {
			w[i] = 100 * k + i;
			MPI_Irecv(&v[i], 3, MPI_INT, peer, 80 + k,
				  MPI_COMM_WORLD, &q[0]);
			MPI_Isend(&w[i], 1 + (k & 1), MPI_INT, peer, 80 + k,
				  MPI_COMM_WORLD, &q[1]);
			q[2] = MPI_REQUEST_NULL;
			for (done = 0; done < 2;) {
				switch (k) {
				case 0:
					MPI_Waitany(3, q, &idx, &st[0]);
					done += idx != MPI_UNDEFINED;
					break;
				case 1:
					MPI_Waitsome(3, q, &out, ind, st);
					done += out != MPI_UNDEFINED ? out : 0;
					break;
				case 2:
					MPI_Testany(3, q, &idx, &flag,
						    MPI_STATUS_IGNORE);
					done += flag && idx != MPI_UNDEFINED;
					break;
				default:
					MPI_Testsome(3, q, &out, ind,
						     MPI_STATUSES_IGNORE);
					done += out != MPI_UNDEFINED ? out : 0;
				}
			}
			CHECK(v[i] == 100 * k + i);
		}
		expect_kind(R, "done", fns[k], "tag == %d && peer == %d && "
			    "rbytes == %ld", 80 + k, peer, (1 + (k & 1)) * is);
		expect_kind(R, "done", fns[k], "tag == %d && sbytes == %ld",
			    80 + k, (1 + (k & 1)) * is);
	}
}

/*
 * 10. A Waitall that fails in one request (a truncated receive, on a
 * communicator that returns errors): MPI returns MPI_ERR_IN_STATUS,
 * completes that request with its error, and may leave others pending
 * (MPI_ERR_PENDING in their statuses, their handles kept), to be
 * completed by a later call.  A pending request has no done record from
 * the Waitall, and one from the call that completes it, with its bytes.
 * With statuses and with MPI_STATUSES_IGNORE.
 */
static void in_status(int peer)
{
	int k, i, rc, big[10], small[5], rest[5], wall = 0, wait = 0;
	MPI_Request q[2];
	MPI_Status st[2];
	MPI_Comm c;

	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	/* MPICH reports a Waitall's error on MPI_COMM_WORLD's handler. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (i = 0; i < 10; i++)
		big[i] = i;
	for (k = 0; k < 2; k++) {
		if (rank == 1) {
			MPI_Send(big, 10, MPI_INT, peer, 90 + 2 * k, c);
			MPI_Send(big, 3, MPI_INT, peer, 91 + 2 * k, c);
			continue;
		}
		MPI_Irecv(small, 5, MPI_INT, peer, 90 + 2 * k, c, &q[0]);
		MPI_Irecv(rest, 5, MPI_INT, peer, 91 + 2 * k, c, &q[1]);
		rc = MPI_Waitall(2, q, k ? MPI_STATUSES_IGNORE : st);
		CHECK(rc != MPI_SUCCESS);
		CHECK(q[0] == MPI_REQUEST_NULL);
		for (i = 0; i < 2; i++) {
			if (q[i] == MPI_REQUEST_NULL) {
				wall++;
				continue;
			}
			CHECK(k || st[i].MPI_ERROR == MPI_ERR_PENDING);
			CHECK(MPI_Wait(&q[i], MPI_STATUS_IGNORE) ==
			      MPI_SUCCESS);
			CHECK(rest[2] == 2);
			wait++;
		}
	}
	if (rank == 0) {
		expect_kind(wall, "done", "MPI_Waitall", "tag >= 90 && "
			    "tag <= 93");
		expect_kind(wait, "done", "MPI_Wait", "tag >= 90 && "
			    "tag <= 93 && peer == %d && rbytes == %ld", peer,
			    3 * is);
		expect_kind(0, "done", "MPI_Wait", "tag >= 90 && tag <= 93 "
			    "&& rbytes != %ld", 3 * is);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
	int size, peer, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		fprintf(stderr, "p2p-more: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	expect_open(rank);
	peer = 1 - rank;
	persistent(peer);
	partitioned(peer);
	matched(peer);
	proc_null(peer);
	more_sends(peer);
	freed(peer);
	cancelled(peer);
	many(peer);
	any_some(peer);
	in_status(peer);
	MPI_Allreduce(&errors, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("p2p-more: %s\n", sum ? "ERRORS" : "all ranks ok");
	expect_close();
	MPI_Finalize();
	return sum != 0;
}
