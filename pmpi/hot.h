/*
 * pmpi/hot.h: the interposer's state that the wrappers' inline part
 * reads on every call (pmpi/hooks.h: st_enter(), st_key_find(),
 * st_rma_find()): whether
 * ids are kept (st_live), which functions are traced (st_fn_on), the
 * clock source, the per-thread state, and the repeat cache that
 * pmpi/call.c fills.  pmpi/internal.h has the rest.
 */
#ifndef ST_PMPI_HOT_H
#define ST_PMPI_HOT_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Defined in libsynctrace.so: see pmpi/internal.h. */
#pragma GCC visibility push(hidden)

struct st_stream;
struct st_comm_entry;

extern atomic_int st_live;	/* ids kept in step (MPI_Init..MPI_Finalize) */
extern unsigned char st_fn_on[];	/* traced, per SYNCTRACE_FAMILIES */
/*
 * st_fn_on[] of a communicator constructor or MPI_Comm_free whose family
 * is not traced: no call record, but its communicators are registered
 * and forgotten as when it is, so that ids follow handles MPI reuses.
 */
#define ST_FN_KEEP 2
extern int st_clock_tsc;	/* st_now() reads the TSC */

/*
 * Bumped whenever a communicator entry is made, remade or forgotten
 * (pmpi/comm.c): what was learnt of a handle holds while it has not
 * changed.
 */
extern atomic_uint st_comm_gen;

/*
 * Bumped whenever a window or file entry is made or forgotten
 * (pmpi/obj.c): what was learnt of a handle holds while it has not
 * changed.
 */
extern atomic_uint st_obj_gen;

/*
 * The arguments of a repeatable call (a blocking collective, or a
 * nonblocking collective or point-to-point call with scalar arguments),
 * by role: all that decides its record but for the sequence number,
 * the request and the timestamps.  Buffers count only as being
 * MPI_IN_PLACE or not, 'buf' and 'request' not at all.
 */
struct st_key {
	const void *sbuf;
	void *rbuf;
	void *buf;
	MPI_Count scount, rcount, count;
	MPI_Datatype stype, rtype, type;
	MPI_Op op;
	int root;
	int peer, tag;
	MPI_Comm comm;
	MPI_Request *request;
};

/*
 * A tracked request (pmpi/request.c): what its call record said, so
 * that its start and done records can say it again, and the tokens
 * under which the encoder knows those records' fields.  Laid out
 * without padding in 120 bytes, so that an entry of the request table
 * (struct st_req_slot, pmpi/internal.h) takes two cache lines under
 * MPICH, whose handles are ints.
 */
struct st_req {
	uint64_t id;
	uint64_t comm;
	uint64_t seq;
	uint64_t sbytes, rbytes;
	int64_t st_bytes;	/* see st_src */
	/*
	 * The cache entry it was made from, while that entry's token is
	 * 'fast_token'; this thread's when it lies in st_tls.fast.
	 */
	struct st_fast *fast;
	int32_t root, peer, tag, peer2, tag2;
	uint32_t comm_size;
	uint32_t inst;		/* starts so far */
	uint32_t tsize;
	uint32_t parts;		/* a partitioned request's partitions */
	/*
	 * Tokens (0: none yet): of its start records, and of its done
	 * records when the status says 'st_src', 'st_tag' and 'st_bytes'
	 * (a receive's; the others' do not count).
	 */
	uint32_t start_token, done_token;
	int32_t st_src, st_tag;
	uint32_t fast_token;
	uint16_t fn;
	uint16_t op;
	uint8_t persistent;
	uint8_t active;		/* persistent: started, not yet completed
				   (0 when added: request_from() clears) */
	uint8_t recv;		/* a receive: peer/tag/bytes come from the status */
};

/*
 * An entry of the repeat cache: a call site's last repeatable call, the
 * key it was made with, and the fields of the record it made.  It is
 * good while st_comm_gen has not changed, and only made for builtin
 * datatypes, whose sizes never change.  Entries start on a cache line
 * (the cache is allocated so), four lines each under MPICH.
 */
struct st_fast {
	void *ra;		/* call site; NULL: empty */
	int fn;
	unsigned gen;		/* st_comm_gen when made */
	uint32_t token;		/* the encoder's name for the fields */
	int coll;		/* counts a sequence number on 'e' */
	struct st_key k;	/* the key it was made with */
	struct st_comm_entry *e;
	uint32_t site;		/* the record's call site */
	/*
	 * The record's other fields, as its requests' (but for id and
	 * seq), or a blocking collective's, which makes none.
	 */
	struct st_req req;
} __attribute__((aligned(64)));
#define ST_FAST_BITS 6		/* a thread's cache has 2^ST_FAST_BITS slots */

/*
 * The arguments of a one-sided call that decide its record (pmpi/rma.c)
 * but for the sequence number of a fence and the timestamps: those of
 * the functions of kind rma without a request, a group or a flag.
 * Buffers do not count; 'large' is the _c form's 1, which the function
 * decides.
 */
struct st_rkey {
	const void *sbuf;
	void *rbuf;
	MPI_Count scount, rcount, count;
	MPI_Datatype stype, rtype, type;
	MPI_Op op;
	MPI_Offset offset;
	int peer, assert, locktype, large;
	MPI_Win win;
};

struct st_obj;

/*
 * An entry of the one-sided repeat cache: a call site's last such call,
 * its key and the fields of the record it made.  It is good while
 * st_obj_gen has not changed (the window entry 'o' is then the same),
 * and only made for builtin datatypes.
 */
struct st_rfast {
	void *ra;		/* call site; NULL: empty */
	int fn;
	unsigned gen;		/* st_obj_gen when made */
	uint32_t token, site;	/* the encoder's name for the fields */
	int coll;		/* Win_fence: counts a sequence number on 'o' */
	struct st_obj *o;
	struct st_rkey k;
	/* The record's fields but comm and comm_size, o's. */
	int32_t arg, peer;
	int64_t offset;
	uint16_t op;
	uint32_t tsize;
	uint64_t sbytes, rbytes;
};
#define ST_RFAST_BITS 5		/* 2^ST_RFAST_BITS slots a thread */

/*
 * A call site's id (st_site_get(), pmpi/internal.h), so that the calls
 * from one site look it up once a thread; never for a call through the
 * Fortran bindings, whose site is the caller's frame.
 */
struct st_csite {
	void *ra;		/* call site; NULL: empty */
	uint32_t site;
};
#define ST_CSITE_BITS 6		/* 2^ST_CSITE_BITS slots a thread */

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
	int reqtag;		/* request.c's tag of this thread; 0: none yet */
	int reqwait;		/* in a completion call request.c counts */
	MPI_Status *stbuf;	/* st_status_buf() */
	int stcap;
	struct st_stream *stream; /* streams[slot] */
	atomic_int *busy;	/* its flag: an append or flush is under way */
	struct st_fast *fast;	/* the repeat cache; NULL until used */
	struct st_rfast *rfast;	/* the one-sided one; NULL until used */
	struct st_csite *csite;	/* call sites; NULL until used */
};
#define ST_TLS_MODEL __attribute__((tls_model("initial-exec")))
extern _Thread_local struct st_tls st_tls ST_TLS_MODEL;

/*
 * The slot of call site 'ra' in a per-thread cache of 2^bits slots (a
 * multiplicative hash: its top bits).
 */
static inline size_t st_ra_slot(void *ra, unsigned bits)
{
	return (size_t)(((uint64_t)(uintptr_t)ra * 0x9e3779b97f4a7c15u) >>
			(64 - bits));
}

/*
 * The slot of call site 'ra' in 'cache'.  A site that calls several
 * functions through a pointer takes turns in one slot; the entry says
 * which function made it.
 */
static inline struct st_fast *st_fast_slot(struct st_fast *cache, void *ra)
{
	return &cache[st_ra_slot(ra, ST_FAST_BITS)];
}

/* The slot of call site 'ra' in the one-sided cache 'cache'. */
static inline struct st_rfast *st_rfast_slot(struct st_rfast *cache,
					     void *ra)
{
	return &cache[st_ra_slot(ra, ST_RFAST_BITS)];
}

/* The slot of call site 'ra' in the call-site cache 'cache' (st_site_get()). */
static inline struct st_csite *st_csite_slot(struct st_csite *cache,
					     void *ra)
{
	return &cache[st_ra_slot(ra, ST_CSITE_BITS)];
}

#pragma GCC visibility pop

#endif
