/*
 * pmpi/hot.h: the interposer's state that the wrappers' inline part
 * reads on every call (pmpi/hooks.h: st_enter(), st_key_find()): whether
 * ids are kept (st_live), which functions are traced (st_fn_on), the
 * clock source, the per-thread state, and the repeat cache that
 * pmpi/call.c fills.  pmpi/internal.h has the rest.
 */
#ifndef ST_PMPI_HOT_H
#define ST_PMPI_HOT_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

/* Defined in libsynctrace.so: see pmpi/internal.h. */
#pragma GCC visibility push(hidden)

struct st_stream;
struct st_comm_entry;

extern atomic_int st_live;	/* ids kept in step (MPI_Init..MPI_Finalize) */
extern unsigned char st_fn_on[];	/* traced, per SYNCTRACE_FAMILIES */
extern int st_clock_tsc;	/* st_now() reads the TSC */

/*
 * Bumped whenever a communicator entry is made, remade or forgotten
 * (pmpi/comm.c): what was learnt of a handle holds while it has not
 * changed.
 */
extern atomic_uint st_comm_gen;

/*
 * The arguments of a repeatable blocking collective, by role: all that
 * decides its record but for the sequence number and the timestamps.
 * Buffers count only as being MPI_IN_PLACE or not, and 'buf' not at all.
 */
struct st_key {
	const void *sbuf;
	void *rbuf;
	void *buf;
	MPI_Count scount, rcount, count;
	MPI_Datatype stype, rtype, type;
	MPI_Op op;
	int root;
	MPI_Comm comm;
};

/*
 * An entry of the repeat cache: a call site's last repeatable call, the
 * key it was made with, and the fields of the record it made.  It is
 * good while st_comm_gen has not changed, and only made for builtin
 * datatypes, whose sizes never change.
 */
struct st_fast {
	void *ra;		/* call site; NULL: empty */
	int fn;
	unsigned gen;		/* st_comm_gen when made */
	uint32_t token;		/* the encoder's name for the fields */
	struct st_key k;	/* the key it was made with */
	struct st_comm_entry *e;
	/* The record's fields. */
	uint32_t site, comm_size, tsize;
	int32_t root;
	uint64_t comm_id, sbytes, rbytes;
	uint16_t op;
};
#define ST_FAST_BITS 6		/* a thread's cache has 2^ST_FAST_BITS slots */

/*
 * Per-thread state.  Initial-exec TLS: the library is loaded at start-up,
 * so a thread-local access is one %fs-relative load, not a call.
 */
struct st_tls {
	int guard;		/* inside a traced call or synctrace's own */
	int slot;		/* this thread's stream, -1 before the first */
	uint64_t next_flush_ns;
	uint64_t *snap;
	int snapcap;
	struct st_stream *stream; /* streams[slot] */
	atomic_int *busy;	/* its flag: an append or flush is under way */
	struct st_fast *fast;	/* the repeat cache; NULL until used */
	uint32_t next_token;	/* last token handed out for 'fast' */
};
#define ST_TLS_MODEL __attribute__((tls_model("initial-exec")))
extern _Thread_local struct st_tls st_tls ST_TLS_MODEL;

/*
 * The slot of call site 'ra' in 'cache' (a multiplicative hash: its top
 * bits).  A site that calls several functions through a pointer takes
 * turns in one slot; the entry says which function made it.
 */
static inline struct st_fast *st_fast_slot(struct st_fast *cache, void *ra)
{
	uint64_t h = (uint64_t)(uintptr_t)ra * 0x9e3779b97f4a7c15u;

	return &cache[h >> (64 - ST_FAST_BITS)];
}

#pragma GCC visibility pop

#endif
