/*
 * sync/transport.h: public; everything sync/ knows about other ranks.
 * sync/ is built with plain cc and never sees MPI: pmpi/ implements this
 * transport with PMPI_ calls on its private communicator, the unit tests
 * with in-memory queues and simulated clocks (tests/unit/fake-transport.c).
 */
#ifndef ST_SYNC_TRANSPORT_H
#define ST_SYNC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * One rank's view of the job.  'rank' is this rank, 'size' the number of
 * ranks; 'ctx' is passed back to every function.
 *
 * 'now_ns' reads this rank's raw clock in nanoseconds (a steady clock:
 * never slewed, never going backwards; its origin is arbitrary).
 *
 * 'send' and 'recv' move 'len' raw bytes to or from rank 'peer' and
 * block until 'buf' may be reused or holds the message.  A 'recv' names
 * its peer and the exact length of the message it expects; messages
 * between two ranks arrive in the order they were sent.  sync/ never
 * relies on buffering: its exchanges are safe with synchronous sends.
 * Both return 0 or a negative errno.
 */
struct st_transport {
	void *ctx;
	int rank, size;
	uint64_t (*now_ns)(void *ctx);	/* this rank's raw clock */
	int (*send)(void *ctx, int peer, const void *buf, size_t len);
	int (*recv)(void *ctx, int peer, void *buf, size_t len);
};

#endif
