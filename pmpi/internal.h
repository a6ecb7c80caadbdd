/*
 * pmpi/internal.h: what the interposer's own files share: settings, the
 * clock, the record output, and the communicator, request and call-site
 * tables, besides pmpi/hot.h, the part the wrappers read inline.  Nothing
 * here is seen by the application.
 */
#ifndef ST_PMPI_INTERNAL_H
#define ST_PMPI_INTERNAL_H

#include <limits.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "pmpi/config.h"
#include "pmpi/hot.h"
#include "writer/event.h"

/*
 * Everything declared here is defined in libsynctrace.so itself, so
 * declare it hidden: a hidden extern is one rip-relative access, not a
 * load of its address from the GOT first (-fvisibility=hidden only marks
 * definitions).
 */
#pragma GCC visibility push(hidden)

/* Clock (pmpi/clock.c); st_clock_tsc is in pmpi/hot.h. */
void st_clock_begin(void);	/* before PMPI_Init */
void st_clock_end(void);	/* after PMPI_Init: fixes the tick rate */
/*
 * The tick-to-ns map, as pmpi/clock.c last set it.  When the map is not
 * all (no TSC, or an injected skew), 'base_tick' is ST_CLOCK_NOT_PLAIN:
 * every tick of either clock is below it (2^63 ns is 292 years, 2^63
 * ticks of a 5 GHz TSC 58), so that st_clock_ns() finds its difference
 * negative and takes st_clock_ns_slow(), with one test for both cases.
 */
struct st_clock_map {
	uint64_t base_tick, base_ns;
	uint64_t mult;		/* ns per tick, 32.32 fixed point */
};
#define ST_CLOCK_NOT_PLAIN (1ull << 63)
extern struct st_clock_map st_clock_map;
uint64_t st_clock_ns_slow(uint64_t ticks);

/*
 * Ticks of st_now() to this rank's local ns (with any injected skew);
 * inline, since the hot path converts two timestamps a call.
 */
static inline __attribute__((always_inline)) uint64_t
st_clock_ns(uint64_t ticks)
{
	uint64_t d = ticks - st_clock_map.base_tick;

	if (__builtin_expect((int64_t)d >= 0, 1))
		return st_clock_map.base_ns +
		       (uint64_t)(((unsigned __int128)d *
				   st_clock_map.mult) >> 32);
	return st_clock_ns_slow(ticks);
}

/*
 * st_clock_ns() of both 'ticks0' and 'ticks1', in '*ns0' and '*ns1',
 * when the map alone gives them; 0 (nothing stored) when
 * st_clock_ns_slow() is needed for either.  One test for the two.
 */
static inline __attribute__((always_inline)) int
st_clock_ns_map(uint64_t ticks0, uint64_t ticks1, uint64_t *ns0,
		uint64_t *ns1)
{
	uint64_t d0 = ticks0 - st_clock_map.base_tick;
	uint64_t d1 = ticks1 - st_clock_map.base_tick;

	if ((int64_t)(d0 | d1) < 0)
		return 0;
	*ns0 = st_clock_map.base_ns +
	       (uint64_t)(((unsigned __int128)d0 * st_clock_map.mult) >> 32);
	*ns1 = st_clock_map.base_ns +
	       (uint64_t)(((unsigned __int128)d1 * st_clock_map.mult) >> 32);
	return 1;
}
struct st_skew;
/* Distort the clock from local ns 'base' on (SYNCTRACE_CLOCK_SKEW). */
void st_clock_set_skew(const struct st_skew *k, uint64_t base);
/*
 * The tick-to-ns map, so that the processes of a node can share their
 * leader's and read one clock: export on the leader, import elsewhere.
 */
void st_clock_export(uint64_t v[3]);
void st_clock_import(const uint64_t v[3]);
void st_clock_describe(char *src, size_t srclen, double *res_ns,
		       double *cost_ns);

/* State (pmpi/runtime.c); st_live and st_tls are in pmpi/hot.h. */
extern atomic_int st_on;	/* this rank writes records */
extern int st_rank, st_size;
extern MPI_Comm st_comm;	/* synctrace's private duplicate of WORLD */
extern int st_mt;		/* MPI_THREAD_MULTIPLE was provided */

/*
 * Mark this thread's stream busy (its flag, 'busy') before changing it;
 * clear the flag with a release store after.  Returns 1, or 0 when
 * tracing has stopped meanwhile: the flag is clear again and the stream
 * must be left alone, since another thread may be writing it (exit
 * without MPI_Finalize).  The store, then the load of st_on, in that
 * order, is half of the argument at on_exit_flush() (pmpi/runtime.c);
 * the compiler barrier keeps them in order, membarrier(2) on the other
 * side does what a fence would have done here.
 */
static inline __attribute__((always_inline)) int
st_busy_enter(atomic_int *busy)
{
	atomic_store_explicit(busy, 1, memory_order_relaxed);
	/*
	 * A compiler barrier for these two alone: the asm reads the flag
	 * (the store comes before it) and may change st_on (the load
	 * comes after); other values stay in registers.
	 */
	__asm__ __volatile__("" : "+m"(st_on) : "m"(*busy));
	if (__builtin_expect(atomic_load_explicit(&st_on,
						  memory_order_relaxed), 1))
		return 1;
	/* Relaxed: nothing written since that others must see. */
	atomic_store_explicit(busy, 0, memory_order_relaxed);
	return 0;
}

/*
 * A new thread's first need of a per-thread cache or array: take the
 * set an exited thread left (pmpi/runtime.c), when this thread has
 * none yet.
 */
void st_tls_adopt(void);

/* Warn once on stderr and switch tracing off for good. */
void st_disable(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print when SYNCTRACE_VERBOSE >= 'level'; arguments not evaluated otherwise. */
void st_log_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define st_log(level, ...)                                                  \
	do {                                                                \
		if (st_set.verbose >= (level))                              \
			st_log_print(__VA_ARGS__);                          \
	} while (0)

/* Per-function facts from ST_FN_LIST, indexed by function id. */
struct st_fn_info {
	uint8_t kind, family, bytes;
	uint16_t flags;
};
extern const struct st_fn_info st_fn_info[];

/* Periodic flush interval, ns (0: only when a buffer is full). */
extern uint64_t st_flush_interval_ns;

/*
 * This thread's next periodic flush (st_tls.next_flush_ns), 'after' ns
 * from 't_ns'; UINT64_MAX without a periodic flush, so that the hot
 * path's one test, a timestamp above st_tls.next_flush_ns, never holds.
 */
static inline uint64_t st_flush_next(uint64_t t_ns, uint64_t after)
{
	return st_flush_interval_ns ? t_ns + after : UINT64_MAX;
}
void st_flush_slot(int slot, int full);

/* Append 'ev' to this thread's stream, naming its fields 'token' (0: none). */
void st_emit_token(struct st_event *ev, uint32_t token);


/*
 * Append 'ev' to this thread's stream (creating it the first time); a
 * no-op once this rank writes no more (st_on clear).
 */
void st_emit(struct st_event *ev);

/* Thread-owned scratch for request snapshots of 'n' entries. */
uint64_t *st_snap_buf(int n);

/* Communicators (pmpi/comm.c). */
struct st_comm_entry {
	atomic_uint_fast64_t handle; /* ST_HANDLE_KEY + 2, or free/tombstone */
	uint64_t id;
	int size, rank, remote_size;
	int indeg, outdeg;	/* -1 until a neighbourhood call needs them */
	atomic_uint_fast64_t seq;
};

/*
 * The entry of 'comm'.  When it is unknown and 'collective' is set, every
 * member is in the same collective call, so it is registered on the spot
 * (an id agreed over 'comm'); otherwise a rank-local id is made (bit 63
 * set).  Returns NULL only when the table is full.
 */
struct st_comm_entry *st_comm_get(MPI_Comm comm, int collective);

/* The entry of 'comm' if registered; never calls MPI. */
struct st_comm_entry *st_comm_find(MPI_Comm comm);

/*
 * Register 'newcomm', made from 'parent' by 'fn' in a call from 't0' to
 * 't1' (ticks), and emit its ST_REC_COMM record.  Collective over
 * newcomm; over 'parent' instead when 'fn' is flagged ST_FNF_OUTSIDE
 * (MPI_COMM_NULL: a group of one).
 */
void st_comm_register(MPI_Comm newcomm, MPI_Comm parent, int fn, uint64_t t0,
		      uint64_t t1);
void st_comm_forget(MPI_Comm comm);

/*
 * Register 'newcomm', a duplicate of the communicator of entry 'parent'
 * made by 'fn' (MPI_Comm_idup), the call numbered 'seq' on it, from
 * 't0' to 't1' (ticks), and emit its ST_REC_COMM record.  Calls no MPI
 * function on 'newcomm', which is not usable before the request
 * completes: its id is derived from the parent's and 'seq'.
 */
void st_comm_register_dup(MPI_Comm newcomm,
			  const struct st_comm_entry *parent, uint64_t seq,
			  int fn, uint64_t t0, uint64_t t1);

/*
 * An id for a new object (a window, an open file, an outside
 * inter-communicator) agreed over the intra-communicator 'over', whose
 * every member is in the call that made it: collective over 'over'.
 * MPI_COMM_NULL: this rank alone.  Rank-local (bit 63) when 'over' is
 * an inter-communicator or the agreement fails.
 */
uint64_t st_comm_agree_id(MPI_Comm over);
void st_comm_init(void);	/* WORLD and SELF */

/* st_comm_gen is in pmpi/hot.h. */

/* Neighbourhood degrees of 'e', computed once. */
void st_comm_degrees(struct st_comm_entry *e, MPI_Comm comm);

/*
 * The next sequence number of a collective call on 'e'.  Only threads
 * can race here (MPI_THREAD_MULTIPLE); otherwise a plain increment saves
 * the locked instruction, a fifth of the hot path.
 */
static inline __attribute__((always_inline)) uint64_t
st_comm_count(struct st_comm_entry *e)
{
	uint64_t v;

	if (st_mt)
		return atomic_fetch_add_explicit(&e->seq, 1,
						 memory_order_relaxed) + 1;
	v = atomic_load_explicit(&e->seq, memory_order_relaxed) + 1;
	atomic_store_explicit(&e->seq, v, memory_order_relaxed);
	return v;
}

struct st_call;

/* Windows and open files (pmpi/obj.c). */
struct st_obj {
	atomic_uintptr_t key;	/* handle + 2, or a free/tombstone marker */
	uint64_t id;		/* equal on every member */
	int size, rank;		/* of the group it was made on */
	atomic_uint_fast64_t seq; /* its collective calls so far */
};

/* st_obj_gen: pmpi/hot.h. */

/* The entry of window or file handle 'h', or NULL; never calls MPI. */
struct st_obj *st_obj_find(uintptr_t h);

/*
 * Register window or file 'h', just made by a call collective over the
 * intra-communicator 'comm' (an id is agreed over it), and fill the
 * identity of its ST_REC_COMM record into 'ev' (kind, comm, comm_size,
 * rank, parent); the caller adds the rest and emits it.  Returns the
 * entry, or NULL when the table is full (tracing is then disabled).
 */
struct st_obj *st_obj_register(uintptr_t h, MPI_Comm comm,
			       struct st_event *ev);
void st_obj_forget(uintptr_t h);

/* The next sequence number of a collective call on 'o'. */
uint64_t st_obj_count(struct st_obj *o);

/*
 * Finishing a call of the kinds beyond the collective chapter, as
 * st_leave() does for the others: 'ev' is the call record so far (fn,
 * times, site, rc), or NULL when this rank writes no more and only its
 * ids must be kept in step (windows and files are agreed on, their
 * collective calls counted).
 */
void st_leave_win(struct st_call *c, const struct st_fn_info *fi,
		  struct st_event *ev, int rc);		/* pmpi/rma.c */
void st_leave_rma(struct st_call *c, const struct st_fn_info *fi,
		  struct st_event *ev, int rc);
void st_leave_file(struct st_call *c, const struct st_fn_info *fi,
		   struct st_event *ev, int rc);	/* pmpi/io.c */
void st_leave_io(struct st_call *c, const struct st_fn_info *fi,
		 struct st_event *ev, int rc);
void st_leave_part(struct st_call *c, const struct st_fn_info *fi,
		   struct st_event *ev, int rc);	/* pmpi/part.c */
void st_leave_phase(struct st_call *c, const struct st_fn_info *fi,
		    struct st_event *ev, int rc);	/* pmpi/phase.c */

/*
 * Matched probes (pmpi/message.c): a probe's message remembers its
 * communicator, source and tag ('c' the probe call, after it), which
 * the receive of that message takes (before its record is made: it
 * fills c->a.comm, peer and tag from c->oldmsg).
 */
void st_message_note(const struct st_call *c, const MPI_Status *status);
void st_message_recv(struct st_call *c);

/*
 * The whole record of a one-sided repeat (st_leave_rma_key()) that the
 * encoder did not take, from its cache entry 'f' (pmpi/rma.c).
 */
void st_rma_emit(const struct st_rfast *f, uint64_t seq, uint64_t t0,
		 uint64_t t1);

/* What pmpi/call.c's general path does, for the files above. */
int32_t st_map_rank(int rank);			/* ST_RANK_* for specials */
uint16_t st_map_op(MPI_Op op);			/* enum st_reduce_op */
/* Bytes of 'c' by its byte class into 'ev' ('status_bytes' -1: none). */
void st_count_bytes(struct st_call *c, const struct st_fn_info *fi,
		    struct st_event *ev, int64_t status_bytes);
/* Bytes the status says arrived, or -1 when it cannot say. */
int64_t st_status_bytes(const MPI_Status *status);
/* A new token (names a record's fields for the encoder, never 0). */
uint32_t st_new_token(void);
/*
 * Track the request c->a.request of a nonblocking or persistent call
 * whose record is 'ev' (its id goes into ev->req); 'recv': its bytes
 * come from the status at completion.
 */
void st_req_track(struct st_call *c, const struct st_fn_info *fi,
		  struct st_event *ev, int recv);

/* Requests (pmpi/request.c); struct st_req is in pmpi/hot.h. */
/* Track 'h' as described by 'r'; returns the new id. */
uint64_t st_req_add(MPI_Request h, struct st_req *r);
/*
 * At MPI_Init: whether MPI_THREAD_MULTIPLE was provided ('mt'), and
 * whether requests are tracked at all ('track': the completion calls
 * are traced, SYNCTRACE_FAMILIES).
 */
void st_req_init(int mt, int track);
/*
 * Snapshot the 'n' requests of 'reqs' before a completion call: snap[2i]
 * where the entry of the i-th is kept (for st_req_took()), snap[2i+1]
 * the id tracked for it (both 0 when untracked).  Returns non-zero when
 * a receive is among them, whose status is then wanted.
 */
int st_req_snapshot(const MPI_Request *reqs, int n, uint64_t *snap);
/*
 * The same for the one request of MPI_Request_free: of requests that
 * completed at once (a handle MPI gives several, the ring), the newest
 * of its handle rather than the oldest.  A request is mostly freed right
 * after it was made ("fire and forget"), while others of the handle made
 * before it wait for a Wait.
 */
int st_req_snapshot_free(const MPI_Request *req, uint64_t *snap);

/* Copy the entry of 'h' to 'out'; 0 when untracked. */
int st_req_find(MPI_Request h, struct st_req *out);
/* A persistent request starts: count the instance, copy the entry. */
int st_req_start(MPI_Request h, struct st_req *out);
/*
 * The request snapshotted at 'at' as 'id' completed or was freed: copy
 * its entry to 'out' and drop it, unless persistent and not
 * 'drop_persistent' (then it only becomes inactive).  Returns 0 when
 * that entry no longer tracks 'id', or when it is a persistent request
 * not active (not started since its last completion: a Wait on it
 * completes nothing) and not 'drop_persistent'.
 */
int st_req_took(uint64_t at, uint64_t id, struct st_req *out,
		int drop_persistent);
/*
 * st_req_took(..., 0) and st_req_start() without the copy, for a
 * process without MPI_THREAD_MULTIPLE (st_mt clear) only: the entry
 * itself, or NULL.  It stays as it is, though dropped, until the next
 * st_req_add(); a persistent one stays tracked, and what is written to
 * it is kept (as st_req_note() would).
 */
static inline struct st_req *st_req_took_ref(uint64_t at, uint64_t id);
struct st_req *st_req_start_ref(MPI_Request h);

/*
 * An entry of the request table, its spill or its ring (pmpi/request.c), here
 * so that st_req_took_ref() is inline in the completion calls' loop.
 * A snapshot's 'at' is an entry's address, ST_REQ_AT_RING set for the
 * ring's, ST_REQ_AT_SPILL for the spill's (request.c).
 */
struct st_req_slot {
	uint8_t state;		/* 0 free, 1 dead, 2 live, 3 superseded */
	uint8_t unused;
	uint16_t owner;		/* ring, MPI_THREAD_MULTIPLE: its thread's tag */
	MPI_Request h;
	struct st_req r;
};
#define ST_REQ_AT_RING 1u
#define ST_REQ_AT_SPILL 2u	/* the spill's, beyond the table's room */

/* The entry a snapshot's 'at' names (NULL: none). */
static inline struct st_req_slot *st_req_at_slot(uint64_t at)
{
	return (struct st_req_slot *)(uintptr_t)(at & ~(uint64_t)
						 (ST_REQ_AT_RING |
						  ST_REQ_AT_SPILL));
}
extern unsigned st_req_live, st_req_dead;	/* the table's entries */
/*
 * Under MPI_THREAD_MULTIPLE, a completion call whose snapshot was
 * counted (st_tls.reqwait) leaves: after its takes (request.c).
 */
void st_req_wait_end(void);
/* Ring entry 's' taken: dead, and the ring's head past the dead. */
void st_req_ring_drop(struct st_req_slot *s);
/* Spilled entry 's' taken: dead. */
void st_req_spill_drop(struct st_req_slot *s);

/*
 * Table entry 's' taken: dead.  It keeps its contents until the next
 * st_req_add(), which the takes rely on.
 */
static inline void st_req_drop(struct st_req_slot *s)
{
	s->state = 1;
	st_req_live--;
	st_req_dead++;
}

/*
 * The take of st_req_took() and st_req_took_ref(): the request
 * snapshotted at 'at' as 'id', dropped (a persistent one only when
 * 'drop_persistent', else made inactive), or NULL when it is no longer
 * there, or is a persistent one not active and not 'drop_persistent'.
 */
static inline __attribute__((always_inline)) struct st_req *
st_req_took_at(uint64_t at, uint64_t id, int drop_persistent)
{
	struct st_req_slot *s = st_req_at_slot(at);

	/*
	 * Still the request snapshotted (ids are never reused), live or
	 * superseded (request.c: its handle reused meanwhile).
	 */
	if (!s || s->state < 2 || s->r.id != id)
		return NULL;
	if (__builtin_expect(!(at & (ST_REQ_AT_RING | ST_REQ_AT_SPILL)) &&
			     !s->r.persistent, 1)) {
		st_req_drop(s);
	} else if (at & ST_REQ_AT_RING) {
		st_req_ring_drop(s);
	} else if (s->r.persistent && !drop_persistent) {
		/* An inactive one completes nothing (MPI returns at once). */
		if (!s->r.active)
			return NULL;
		s->r.active = 0;
	} else if (at & ST_REQ_AT_SPILL) {
		st_req_spill_drop(s);
	} else {
		st_req_drop(s);
	}
	return &s->r;
}

static inline __attribute__((always_inline)) struct st_req *
st_req_took_ref(uint64_t at, uint64_t id)
{
	return st_req_took_at(at, id, 0);
}

/*
 * The persistent request snapshotted at 'at' (tracked as 'r->id')
 * completes with the done token and status of 'r' from now on.
 */
void st_req_note(uint64_t at, const struct st_req *r);

/*
 * Call sites (pmpi/site.c).  st_site_fill() is st_site_get() out of its
 * cache: cold, so that a hit falls through.
 */
__attribute__((cold)) uint32_t st_site_fill(void *ra);

/*
 * The id of the call site of a call from 'ra' (0: none), from this
 * thread's cache of sites (struct st_csite) when there, else from the
 * table (st_site_fill()): a site's id never changes once made.
 */
static inline __attribute__((always_inline)) uint32_t st_site_get(void *ra)
{
	struct st_csite *cs = st_tls.csite;

	if (__builtin_expect(cs != NULL, 1)) {
		cs = st_csite_slot(cs, ra);
		if (__builtin_expect(cs->ra == ra, 1))
			return cs->site;
	}
	return st_site_fill(ra);
}
void st_objects_emit(void);
void st_site_init(void);	/* at load: Fortran bindings' address range */

/* Global clock (pmpi/sync.c). */
#define ST_WORLD_ID (1ull << 32)	/* MPI_COMM_WORLD's communicator id */
extern uint64_t st_refresh_seq;		/* WORLD seq that triggers a refresh */

/* Synchronise at MPI_Init (collective over st_comm; every live rank). */
void st_sync_start(void);
/* Refresh, from the WORLD collective whose sequence number is 'seq'. */
void st_sync_refresh_at(uint64_t seq);
/* The last synchronisation, at MPI_Finalize; frees the state. */
void st_sync_finish(void);

/* Non-zero when a collective on 'e' numbered 'seq' is due a refresh. */
static inline int st_world_due(const struct st_comm_entry *e, uint64_t seq)
{
	return seq >= st_refresh_seq && e->id == ST_WORLD_ID;
}

/* A WORLD collective got sequence number 'seq': refresh when it is due. */
static inline void st_world_seq(const struct st_comm_entry *e, uint64_t seq)
{
	if (__builtin_expect(st_world_due(e, seq), 0))
		st_sync_refresh_at(seq);
}

/*
 * Sessions (pmpi/session.c).  st_world is what tracing takes for
 * MPI_COMM_WORLD: itself, or in a program that initialises MPI only
 * through Sessions a communicator over the process set mpi://WORLD.
 * st_session_pre() runs first in st_init_pre() and st_finalize_pre():
 * it returns 1 when the call neither starts nor ends tracing, which
 * then only records it (st_session_post(), first in st_init_post() and
 * st_finalize_post(), returns 1 for those and for a start that
 * failed); st_session_end() runs last in st_finalize_pre() and frees
 * what a Sessions start made.
 */
extern MPI_Comm st_world;
int st_session_pre(struct st_call *c, int fn, void *ra);
int st_session_post(struct st_call *c, int rc);
void st_session_end(void);

/* Append 'text' to the run index (rank 0; a no-op elsewhere). */
int st_run_index_append(const char *text);

/* Datatype size in bytes, fast for builtin types (pmpi/abi.h). */
uint64_t st_type_size(MPI_Datatype t);

#pragma GCC visibility pop

/*
 * The span of the PT_LOAD segments of 'info' whose flags include all of
 * 'flags' (PF_X, PF_W; 0: every one): returns its start, '*hi' its end
 * ('*hi' 0 when none).  pmpi/site.c.
 */
struct dl_phdr_info;
uintptr_t st_load_span(const struct dl_phdr_info *info, unsigned flags,
		       uintptr_t *hi);

#endif
