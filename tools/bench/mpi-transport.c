/*
 * tools/bench/mpi-transport.c: sync/'s transport over PMPI point-to-point
 * on a private communicator, with an optionally distorted clock.  Every
 * message of sync/ is a few bytes and alternates direction, so blocking
 * standard sends are enough; receives either block in MPI (which spins)
 * or, in yield mode, test and yield the CPU between tests.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "tools/bench/mpi-transport.h"

#define TAG 7302

/*
 * In yield mode a receive spins for SPIN_NS, within which the reply of a
 * ping-pong comes, then yields the CPU between tests: a rank waiting for
 * its turn in a long exchange of two others lets them run, but keeps its
 * CPU busy (on a virtual machine an idle CPU takes tens of microseconds
 * to wake up, as sleeping in nanosleep() showed).
 */
#define SPIN_NS 3000

uint64_t st_mpi_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t st_mpi_transport_now(const struct st_mpi_transport *t)
{
	return st_skew_apply(&t->skew, t->skew_base_ns, st_mpi_raw_ns());
}

static uint64_t tp_now(void *ctx)
{
	return st_mpi_transport_now(ctx);
}

static int tp_send(void *ctx, int peer, const void *buf, size_t len)
{
	struct st_mpi_transport *t = ctx;

	if (len > (size_t)INT32_MAX)
		return -EINVAL;
	return PMPI_Send(buf, (int)len, MPI_BYTE, peer, TAG, t->comm) ==
	       MPI_SUCCESS ? 0 : -EIO;
}

/* Complete 'req' by testing, yielding the CPU once SPIN_NS have passed. */
static int wait_yielding(MPI_Request *req, MPI_Status *st)
{
	uint64_t t0 = st_mpi_raw_ns();
	int done = 0;

	for (;;) {
		if (PMPI_Test(req, &done, st) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (st_mpi_raw_ns() - t0 >= SPIN_NS)
			sched_yield();
	}
}

static int tp_recv(void *ctx, int peer, void *buf, size_t len)
{
	struct st_mpi_transport *t = ctx;
	MPI_Request req;
	MPI_Status st;
	int count;

	if (len > (size_t)INT32_MAX)
		return -EINVAL;
	if (!t->yield) {
		if (PMPI_Recv(buf, (int)len, MPI_BYTE, peer, TAG, t->comm,
			      &st) != MPI_SUCCESS)
			return -EIO;
	} else if (PMPI_Irecv(buf, (int)len, MPI_BYTE, peer, TAG, t->comm,
			      &req) != MPI_SUCCESS ||
		   wait_yielding(&req, &st)) {
		return -EIO;
	}
	/* sync/ always knows the exact length: anything else is a bug. */
	if (PMPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS ||
	    (size_t)count != len)
		return -EPROTO;
	return 0;
}

int st_mpi_transport_wait(const struct st_mpi_transport *t, MPI_Request *req)
{
	if (t->yield)
		return wait_yielding(req, MPI_STATUS_IGNORE);
	return PMPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -EIO;
}

int st_mpi_transport_init(struct st_mpi_transport *t, MPI_Comm comm,
			  const struct st_skew *skew, uint64_t skew_base_ns,
			  int yield)
{
	memset(t, 0, sizeof(*t));
	t->comm = MPI_COMM_NULL;
	if (PMPI_Comm_dup(comm, &t->comm) != MPI_SUCCESS) {
		t->comm = MPI_COMM_NULL;
		return -EIO;
	}
	if (PMPI_Comm_rank(t->comm, &t->tp.rank) != MPI_SUCCESS ||
	    PMPI_Comm_size(t->comm, &t->tp.size) != MPI_SUCCESS) {
		PMPI_Comm_free(&t->comm);
		return -EIO;
	}
	if (skew)
		t->skew = *skew;
	t->skew_base_ns = skew_base_ns;
	t->yield = yield;
	t->tp.ctx = t;
	t->tp.now_ns = tp_now;
	t->tp.send = tp_send;
	t->tp.recv = tp_recv;
	return 0;
}

void st_mpi_transport_release(struct st_mpi_transport *t)
{
	if (t->comm != MPI_COMM_NULL)
		PMPI_Comm_free(&t->comm);
	t->comm = MPI_COMM_NULL;
}
