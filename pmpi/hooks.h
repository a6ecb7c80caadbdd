/*
 * pmpi/hooks.h: what the generated wrappers (build/gen/wrappers.c) call.
 * Every wrapper has the same shape, whatever its kind:
 *
 *	struct st_call c;
 *	int rc;
 *
 *	if (!st_enter(&c, ST_FN_MPI_X, ra))
 *		return <real>(args);
 *	<kind-specific pre step, see below>
 *	c.t0 = st_now();
 *	rc = <real>(args);		(or ST_YIELDABLE(...), see below)
 *	c.t1 = st_now();
 *	c.a = (struct st_args){ .role = param, ... };
 *	st_leave(&c, rc);
 *	return rc;
 *
 * except that a blocking collective whose record follows from its scalar
 * arguments (ST_FNF_REPEAT) hands them all to st_key_find() before t0,
 * which looks them up in the repeat cache, and leaves through
 * st_leave_key(), which makes the record from the cache entry found, or
 * else fills c.a from c.k and goes on as st_leave() (a nonblocking one
 * with a request the same way through st_leave_nb_key()):
 *
 *	st_key_find(&c, (struct st_key){ .role = param, ... });
 *	c.t0 = st_now();
 *	rc = <real>(args);
 *	c.t1 = st_now();
 *	return st_leave_key(&c, rc);
 *
 * so that nothing of the arguments need survive the PMPI call in
 * registers.  A completion call (kind complete) leaves through
 * st_leave_complete() instead of st_leave().  A one-sided call without
 * a request, a group or a flag does the same with st_rma_find() and
 * st_leave_rma_key() and its own
 * cache (struct st_rkey, struct st_rfast).  Here <real> is PMPI_X, or ST_REAL(PMPI_X) for functions
 * whose PMPI_X synctrace defines too (flagged f08, or every function of
 * an MPI with 'pmpi all': the pointer the generated st_gen_resolve()
 * looked up), and the st_args and st_key fields are filled from the
 * parameter roles in wrappers.def.
 *
 * That body is the C function st_c_X, which the exported X reaches
 * through an assembler stub (ST_STUB_PLT, ST_STUB_PTR): one test of
 * st_foreign and a jump, so that in a process that runs another MPI
 * than the one this library was built for every call reaches the real
 * function with its registers and stack untouched, whatever its handle
 * types (MPICH's are int, Open MPI's pointers).
 * The generated code holds no other logic: what a role means is decided
 * here, from the function id's entry in ST_FN_LIST.
 *
 * Pre steps, by kind:
 *  - completion calls (Wait*, Test*, Request_free) call
 *    st_complete_pre(&c, n, requests) before t0, since MPI overwrites
 *    the handles of completed requests;
 *  - communicator calls (kind comm) call st_enter_comm() and
 *    st_leave_comm() instead of st_enter() and st_leave();
 *  - Comm_free calls st_comm_free_pre(&c, comm) before t0; likewise
 *    Win_free st_win_free_pre(&c, win), File_close
 *    st_file_close_pre(&c, fh), and every call with a message role
 *    st_message_pre(&c, message), since MPI overwrites these handles;
 *  - MPI_Init/MPI_Init_thread/MPI_Session_init (kind init) call
 *    st_init_pre(&c, fn, ra) instead of st_enter and st_init_post(&c, rc)
 *    instead of st_leave;
 *  - MPI_Finalize/MPI_Session_finalize (kind finalize) call
 *    st_finalize_pre(&c, fn, ra) instead of st_enter (synctrace's
 *    finalize work must run while MPI still works) and
 *    st_finalize_post(&c, rc) instead of st_leave; so does MPI_Abort,
 *    whose record and flush st_finalize_pre() makes, as it does not
 *    return.
 *
 * Status arguments are passed through st_status(&c, status) and
 * st_statuses(&c, n, statuses) (st_snap_status() and st_snap_statuses()
 * in completion calls), which substitute synctrace's own when the
 * application passed MPI_STATUS(ES)_IGNORE, so received bytes, source and
 * tag can be recorded; the application still sees nothing.
 */
#ifndef ST_PMPI_HOOKS_H
#define ST_PMPI_HOOKS_H

#include <mpi.h>
#include <stdint.h>
#include <time.h>

#include "pmpi/abi.h"
#include "pmpi/hot.h"
#include "writer/event.h"

/* Defined in libsynctrace.so: see pmpi/internal.h. */
#pragma GCC visibility push(hidden)

/*
 * Non-zero when the process runs another MPI than the one this library
 * was built for (pmpi/mpi.c): every stub then jumps to the real function.
 */
extern unsigned char st_foreign;

/*
 * The exported function 'name': a stub that jumps to 'body' (st_c_X),
 * or, with st_foreign set, to 'real' through the PLT (ST_STUB_PLT) or
 * through the pointer 'ptr' (ST_STUB_PTR: st_real_PMPI_X, for names
 * synctrace defines under PMPI_ too).  A jump, not a call: the body
 * sees the application's return address and arguments as they came.
 */
#define ST_STUB_HEAD(name)                                                  \
	".text\n\t.globl " #name "\n\t.type " #name ", @function\n"      \
	"\t.p2align 4\n" #name ":\n\tcmpb $0, st_foreign(%rip)\n"
#define ST_STUB_PLT(name, body, real)                                       \
	__asm__(ST_STUB_HEAD(name) "\tjne " #real "@PLT\n\tjmp " #body      \
		"\n\t.size " #name ", . - " #name "\n")
#define ST_STUB_PTR(name, body, ptr)                                        \
	__asm__(ST_STUB_HEAD(name) "\tjne 1f\n\tjmp " #body "\n1:\tjmp *"  \
		#ptr "(%rip)\n\t.size " #name ", . - " #name "\n")

/*
 * The MPIs of wrappers.def ('mpi' blocks), generated: this build's
 * first, then the others; ends with a NULL name.  'marker' is a symbol
 * only that MPI's library defines, NULL for the MPI that is assumed when
 * no marker is found (MPICH: any MPI of its ABI).
 */
struct st_gen_mpi {
	const char *name;
	const char *marker;
};
extern const struct st_gen_mpi st_gen_mpis[];
/* This MPI's Fortran binding libraries (name parts), NULL-terminated. */
extern const char *const st_gen_fortran_libs[];

/* Statuses a completion call can substitute without allocating. */
#define ST_MAX_STATUSES 64
/* Requests a completion call snapshots into its own st_call. */
#define ST_SNAP_CALL 8

/*
 * The arguments of a call, by role (wrappers.def names the roles).  The
 * wrapper of a completion call (Wait*, Test*, Start*, Request_free)
 * fills only the roles a completion call may have (request, requests,
 * nreq, index, indices, outcount, flag, status, statuses), 0 where it
 * lacks one, and leaves the rest as it was: nothing reads them.  So does
 * that of a one-sided call (kind rma) with the roles that pmpi/rma.c
 * and the bytes read (sbuf, rbuf, scount, rcount, count, stype, rtype,
 * type, scounts, rcounts, stypes, rtypes, root, op, peer, request,
 * flag, win, offset, assert, locktype, group, partitions; and large):
 * tools/gen/main.c, rma_roles.
 */
struct st_args {
	const void *sbuf;	/* role sbuf; sendbuf, or buf of a send */
	void *rbuf;		/* role rbuf; recvbuf, or buf of a receive */
	void *buf;		/* role buf: MPI_Bcast buffer, Sendrecv_replace buffer */
	MPI_Count scount;	/* role scount (int or MPI_Count) */
	MPI_Count rcount;	/* role rcount */
	MPI_Count count;	/* role count: one count for both sides */
	MPI_Datatype stype, rtype, type; /* roles stype, rtype, type */
	const void *scounts, *rcounts; /* roles scounts, rcounts: int[] or MPI_Count[] */
	const MPI_Datatype *stypes, *rtypes; /* roles stypes, rtypes */
	int large;		/* 1 in the _c form: count arrays are MPI_Count[] */
	int root;		/* role root */
	MPI_Op op;		/* role op */
	MPI_Comm comm;		/* role comm */
	MPI_Comm *newcomm;	/* role newcomm: where a constructor puts the result */
	MPI_Comm *commp;	/* role commp: MPI_Comm_free's argument */
	int peer, tag;		/* roles peer, tag (dest or source) */
	int peer2, tag2;	/* roles peer2, tag2 (the receive side of Sendrecv) */
	MPI_Request *request;	/* role request: one request (I*, *_init, Wait, Test, Start) */
	MPI_Request *requests;	/* role requests: an array (Waitall, Startall...) */
	int nreq;		/* role nreq: length of 'requests' */
	int *index;		/* role index: Waitany/Testany */
	int *indices;		/* role indices: Waitsome/Testsome */
	int *outcount;		/* role outcount */
	int *flag;		/* role flag: Test*, Iprobe */
	MPI_Status *status;	/* role status, after st_status() */
	MPI_Status *statuses;	/* role statuses, after st_statuses() */
	int *provided;		/* role provided: MPI_Init_thread */
	MPI_Win win;		/* role win */
	MPI_Win *newwin;	/* role newwin: where a constructor puts it */
	MPI_Win *winp;		/* role winp: MPI_Win_free's argument */
	MPI_File file;		/* role file */
	MPI_File *newfile;	/* role newfile: MPI_File_open's result */
	MPI_File *filep;	/* role filep: MPI_File_close's argument */
	const char *path;	/* role path: a file name */
	MPI_Offset offset;	/* role offset: target displacement, file offset */
	int assert;		/* role assert: an RMA assert argument */
	int locktype;		/* role locktype: MPI_LOCK_SHARED... */
	int amode;		/* role amode: MPI_File_open's access mode */
	int whence;		/* role whence: MPI_SEEK_SET... */
	int level;		/* role level: MPI_Pcontrol's */
	MPI_Group group;	/* role group: Win_post, Win_start */
	int partition;		/* role partition (the low one of a range) */
	int partition2;		/* role partition2: the high one of a range */
	int partitions;		/* role partitions: count, or list length */
	int *partlist;		/* role partlist: Pready_list's partitions */
	MPI_Request req;	/* role req: a request passed by value */
	MPI_Message *message;	/* role message */
	MPI_Session *session;	/* role session */
};

/* Per-call state, on the wrapper's stack. */
struct st_call {
	int fn;			/* ST_FN_* */
	void *ra;		/* return address of the wrapper: the call site key */
	uint64_t t0, t1;	/* st_now() ticks around the PMPI call */
	struct st_key k;	/* repeatable collectives: st_key_find() */
	struct st_fast *fast;	/* st_key_find()'s cache entry, or NULL */
	struct {
		uint64_t seq, t0, t1;
	} rep;			/* st_leave_key(): a repeat's seq, local ns */
	struct st_rkey rk;	/* keyed one-sided calls: st_rma_find() */
	struct st_rfast *rfast;	/* its cache entry, or NULL */
	struct st_args a;
	MPI_Request yreq;	/* yield mode: the nonblocking twin's request */
	MPI_Comm oldcomm;	/* MPI_Comm_free: the handle being freed */
	MPI_Win oldwin;		/* MPI_Win_free: the handle being freed */
	MPI_File oldfile;	/* MPI_File_close: the handle being closed */
	MPI_Message oldmsg;	/* role message: its value before the call */
	int plain;		/* init/finalize: 1 a record only, 2 not even */
	int nested;		/* st_enter_comm(): in another traced call */
	MPI_Status status;	/* substituted for MPI_STATUS_IGNORE */
	int nsnap;		/* completion calls: requests snapshotted */
	int stneed;		/* completion calls: a receive among them */
	uint64_t *snap;		/* their ids (0 = untracked): snapbuf, or
				   thread-owned for more than ST_SNAP_CALL */
	uint64_t snapbuf[2 * ST_SNAP_CALL];
	MPI_Status statuses[ST_MAX_STATUSES];
};

/* Configuration read once at load; read-only afterwards. */
struct st_config {
	int yield;		/* SYNCTRACE_YIELD: blocking calls poll with sched_yield */
};
extern struct st_config st_cfg;

/*
 * Begin a call of 'fn' from return address 'ra'.  Returns 1 when it is to
 * be traced (tracing on, not re-entered from synctrace's own MPI traffic,
 * the function's family enabled); 0 to pass straight through.  Inline:
 * it is a few loads, and every wrapper runs it.
 */
static inline __attribute__((always_inline)) int
st_enter(struct st_call *c, int fn, void *ra)
{
	if (!atomic_load_explicit(&st_live, memory_order_relaxed) ||
	    st_tls.guard || !st_fn_on[fn])
		return 0;
	st_tls.guard = 1;
	c->fn = fn;
	c->ra = ra;
	return 1;
}

/*
 * st_enter() for communicator calls (kind comm), which also begins one
 * made from inside another traced call: from an attribute copy or
 * delete callback that MPI runs inside MPI_Comm_dup or MPI_Comm_free,
 * say.  Such a call ('c->nested') leaves no record, but
 * st_leave_comm() registers and forgets its communicators, so that
 * they keep ids equal on every member.
 */
static inline __attribute__((always_inline)) int
st_enter_comm(struct st_call *c, int fn, void *ra)
{
	if (!atomic_load_explicit(&st_live, memory_order_relaxed) ||
	    !st_fn_on[fn])
		return 0;
	c->nested = st_tls.guard;
	st_tls.guard = 1;
	c->fn = fn;
	c->ra = ra;
	return 1;
}

/*
 * This rank's raw clock in its own ticks (TSC, or ns of
 * CLOCK_MONOTONIC_RAW); st_leave() converts to ns after the timed window.
 */
static inline uint64_t st_now(void)
{
	struct timespec ts;

	if (__builtin_expect(st_clock_tsc, 1))
		return __builtin_ia32_rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether field 'x' of a call's key differs from 'y', the cache entry's.
 * A field that is a constant 0 in the wrapper (ST_KEY_ZERO) is 0 in
 * every key that wrapper makes, and so in every entry its function
 * made: it is not compared.  (A compiler that cannot tell compares it.)
 * Buffers count only as being MPI_IN_PLACE or not: the same pointer, as
 * in a loop, settles it in one comparison.
 */
#define ST_KEY_ZERO(x) (__builtin_constant_p(!(x)) && !(x))
#define ST_KEY_DIFF(x, y) (!ST_KEY_ZERO(x) && (x) != (y))
#define ST_BUF_DIFF(x, y)                                                   \
	(ST_KEY_DIFF(x, y) && ((x) == MPI_IN_PLACE) != ((y) == MPI_IN_PLACE))

/*
 * The key 'k' of a repeatable call that st_enter() let in, before the
 * call: look it up in the repeat cache, where its call site left its
 * last call's, and keep the entry in c->fast when the two are the same
 * (every argument but the buffers, which count only as MPI_IN_PLACE or
 * not) and still good; c->k gets 'k', or on a hit only its buffers, the
 * rest being the entry's.  Inline, with 'k' a compound literal, so that
 * the arguments are compared as they come, before they are stored.
 */
static inline __attribute__((always_inline)) void
st_key_find(struct st_call *c, const struct st_key k)
{
	struct st_fast *f = st_tls.fast;

	c->k.sbuf = k.sbuf;
	c->k.rbuf = k.rbuf;
	c->k.buf = k.buf;
	c->k.request = k.request;
	if (f) {
		f = st_fast_slot(f, c->ra);
		if (f->ra == c->ra && f->fn == c->fn &&
		    f->gen == atomic_load_explicit(&st_comm_gen,
						   memory_order_relaxed) &&
		    !ST_BUF_DIFF(k.sbuf, f->k.sbuf) &&
		    !ST_BUF_DIFF(k.rbuf, f->k.rbuf) &&
		    !ST_KEY_DIFF(k.count, f->k.count) &&
		    !ST_KEY_DIFF(k.type, f->k.type) &&
		    !ST_KEY_DIFF(k.comm, f->k.comm) &&
		    !ST_KEY_DIFF(k.op, f->k.op) &&
		    !ST_KEY_DIFF(k.root, f->k.root) &&
		    !ST_KEY_DIFF(k.scount, f->k.scount) &&
		    !ST_KEY_DIFF(k.stype, f->k.stype) &&
		    !ST_KEY_DIFF(k.rcount, f->k.rcount) &&
		    !ST_KEY_DIFF(k.rtype, f->k.rtype) &&
		    !ST_KEY_DIFF(k.peer, f->k.peer) &&
		    !ST_KEY_DIFF(k.tag, f->k.tag)) {
			c->fast = f;
			return;
		}
	}
	c->fast = NULL;
	c->k = k;
}

/*
 * st_key_find() for a one-sided call without a request, a group or a
 * flag (pmpi/rma.c): its key 'k' against the entry its call site left
 * in the one-sided cache, kept in c->rfast when the same and good;
 * c->rk gets 'k', or on a hit only its buffers.
 */
static inline __attribute__((always_inline)) void
st_rma_find(struct st_call *c, const struct st_rkey k)
{
	struct st_rfast *f = st_tls.rfast;

	c->rk.sbuf = k.sbuf;
	c->rk.rbuf = k.rbuf;
	if (f) {
		f = st_rfast_slot(f, c->ra);
		if (f->ra == c->ra && f->fn == c->fn &&
		    f->gen == atomic_load_explicit(&st_obj_gen,
						   memory_order_relaxed) &&
		    !ST_KEY_DIFF(k.win, f->k.win) &&
		    !ST_KEY_DIFF(k.peer, f->k.peer) &&
		    !ST_KEY_DIFF(k.offset, f->k.offset) &&
		    !ST_KEY_DIFF(k.scount, f->k.scount) &&
		    !ST_KEY_DIFF(k.stype, f->k.stype) &&
		    !ST_KEY_DIFF(k.rcount, f->k.rcount) &&
		    !ST_KEY_DIFF(k.rtype, f->k.rtype) &&
		    !ST_KEY_DIFF(k.count, f->k.count) &&
		    !ST_KEY_DIFF(k.type, f->k.type) &&
		    !ST_KEY_DIFF(k.op, f->k.op) &&
		    !ST_KEY_DIFF(k.assert, f->k.assert) &&
		    !ST_KEY_DIFF(k.locktype, f->k.locktype)) {
			c->rfast = f;
			return;
		}
	}
	c->rfast = NULL;
	c->rk = k;
}

/*
 * Finish a traced call: resolve communicator, bytes, call site and
 * requests from 'c->a', append the record(s).  Never fails visibly.
 */
void st_leave(struct st_call *c, int rc);

/*
 * st_leave() of a completion call (kind complete: Wait*, Test*, Start,
 * Startall, Request_free), which the generator sends here and no other
 * way: those of loops that succeeded append their records without the
 * general path's dispatch (pmpi/call.c), the others go on to st_leave().
 */
void st_leave_complete(struct st_call *c, int rc);
/* st_leave() for communicator calls: see st_enter_comm(). */
void st_leave_comm(struct st_call *c, int rc);

/*
 * Finish a traced call of a repeatable blocking collective from
 * 'c->k'.  When this call site made the same call last time and it
 * succeeded again, the record is made from what that call left in a
 * per-thread cache; otherwise 'c->a' is filled from 'c->k' and
 * st_leave() does the rest.
 * Returns 'rc', so that the wrapper need not keep it across the call.
 */
int st_leave_key(struct st_call *c, int rc);

/*
 * st_leave_key() of a repeatable nonblocking call (one with a request):
 * the generator sends every such wrapper here and no other, so that
 * st_leave_key() need not tell the two apart.
 */
int st_leave_nb_key(struct st_call *c, int rc);

/*
 * The same for a one-sided call keyed by st_rma_find(): a repeat's
 * record from the entry, or else 'c->a' from 'c->rk' and st_leave().
 */
int st_leave_rma_key(struct st_call *c, int rc);

/* pmpi/request.c, pmpi/runtime.c: see pmpi/internal.h. */
int st_req_snapshot(const MPI_Request *reqs, int n, uint64_t *snap);
int st_req_snapshot_free(const MPI_Request *req, uint64_t *snap);
uint64_t *st_snap_buf(int n);
/*
 * pmpi/runtime.c: 'n' statuses this thread owns, for a completion call
 * of more requests than its own st_call holds; NULL when out of memory.
 */
MPI_Status *st_status_buf(int n);

/*
 * Before a completion call: snapshot its 'n' requests (c->snap,
 * c->nsnap), and note whether a receive is among them (c->stneed).
 * Inline, with the snapshot in 'c' for up to ST_SNAP_CALL requests.
 */
static inline __attribute__((always_inline)) void
st_complete_pre(struct st_call *c, int n, const MPI_Request *requests)
{
	uint64_t *snap = c->snapbuf;

	c->nsnap = 0;
	c->stneed = 0;
	if (n <= 0 || !requests ||
	    (n > ST_SNAP_CALL && !(snap = st_snap_buf(2 * n))))
		return;
	c->stneed = st_req_snapshot(requests, n, snap);
	c->snap = snap;
	c->nsnap = n;
}
/* st_complete_pre() of MPI_Request_free (st_req_snapshot_free()). */
static inline void st_free_pre(struct st_call *c, const MPI_Request *request)
{
	c->nsnap = 0;
	c->stneed = 0;
	if (!request)
		return;
	c->stneed = st_req_snapshot_free(request, c->snapbuf);
	c->snap = c->snapbuf;
	c->nsnap = 1;
}
void st_comm_free_pre(struct st_call *c, const MPI_Comm *comm);
void st_win_free_pre(struct st_call *c, const MPI_Win *win);
void st_file_close_pre(struct st_call *c, const MPI_File *fh);
void st_message_pre(struct st_call *c, const MPI_Message *message);
void st_init_pre(struct st_call *c, int fn, void *ra);
void st_init_post(struct st_call *c, int rc);
void st_finalize_pre(struct st_call *c, int fn, void *ra);
void st_finalize_post(struct st_call *c, int rc);

static inline MPI_Status *st_status(struct st_call *c, MPI_Status *status)
{
	return status == MPI_STATUS_IGNORE ? &c->status : status;
}

static inline MPI_Status *st_statuses(struct st_call *c, int n,
				      MPI_Status *statuses)
{
	MPI_Status *b;

	if (statuses != MPI_STATUSES_IGNORE || n < 0)
		return statuses;
	if (n <= ST_MAX_STATUSES)
		return c->statuses;
	/* More: the thread's own, or else the receives' bytes unknown. */
	b = st_status_buf(n);
	return b ? b : statuses;
}

/*
 * The same for completion calls, after st_complete_pre(): only when a
 * receive is among their requests is a status wanted, and MPI spared
 * filling in one the application does not read.
 */
static inline MPI_Status *st_snap_status(struct st_call *c,
					 MPI_Status *status)
{
	return c->stneed ? st_status(c, status) : status;
}

static inline MPI_Status *st_snap_statuses(struct st_call *c, int n,
					   MPI_Status *statuses)
{
	return c->stneed ? st_statuses(c, n, statuses) : statuses;
}

/*
 * Yield mode.  'blocking' and 'nonblocking' are the call and its
 * nonblocking twin, the latter storing its request in c->yreq; with
 * SYNCTRACE_YIELD=1 the twin is started and polled with PMPI_Test and
 * sched_yield() until done, writing the status to 'status' (may be
 * MPI_STATUS_IGNORE).
 */
int st_yield_wait(struct st_call *c, int rc, MPI_Status *status);
#define ST_YIELDABLE(c, blocking, nonblocking, status)                      \
	(st_cfg.yield ? st_yield_wait((c), (nonblocking), (status))         \
		      : (blocking))

/*
 * The same for a point-to-point call with peer 'peer', which waits by
 * its twin only when 'peer' is not MPI_PROC_NULL.  Such a call
 * completes at once anyway, and MPICH 4.0.2 completes the twin of
 * MPI_Recv from MPI_PROC_NULL with source and tag 0, where MPI_Recv
 * gives MPI_PROC_NULL and MPI_ANY_TAG: the application must get the
 * status it gets untraced.
 */
#define ST_YIELDABLE_P2P(c, peer, blocking, nonblocking, status)            \
	(st_cfg.yield && (peer) != MPI_PROC_NULL                            \
		 ? st_yield_wait((c), (nonblocking), (status))              \
		 : (blocking))

/*
 * The real PMPI_X of a function that synctrace also defines under its
 * PMPI_ name, looked up with dlsym(RTLD_NEXT) by the generated
 * st_gen_resolve(), which the runtime calls once at load.
 */
#define ST_REAL(name) st_real_##name
void st_gen_resolve(void);
void *st_dlsym_next(const char *name);

/*
 * Non-zero when 'ra' lies in the MPI's Fortran bindings library
 * (st_gen_fortran_libs): a PMPI_X called from there is the application's
 * call through its Fortran bindings, from anywhere else it is some
 * library's own PMPI traffic and passes through.
 */
int st_from_fortran(void *ra);

#pragma GCC visibility pop

#endif
