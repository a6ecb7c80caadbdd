/*
 * tools/analysis/replay-internal.h: private to the replay engine
 * (tools/analysis/replay*.c); the public interface is replay.h.  The
 * engine's state, shared by its parts:
 *
 *   replay.c       the engine: units (a rank's thread's record stream),
 *                  the heap of ready units, ops and their results,
 *                  requests, the nonblocking and completion calls, the
 *                  run loop and what it says when stuck
 *   replay-cost.c  what each call costs: the model's answer (with the
 *                  first-call excess), or the measured fallback
 *   replay-coll.c  collective instances: members arrive, are released
 *                  by the class's rule (all, rooted, scan)
 *   replay-p2p.c   point-to-point: message queues, matching, probes
 *   replay-rma.c   one-sided and I/O calls that are not collectives:
 *                  post-start-complete-wait matched by window and pair
 *                  of ranks, the rest as traced
 *   replay-map.c   the hash map with three-word keys that finds them
 *
 * Instances, messages, queues and requests live in index pools (freed
 * slots are chained through a field); waiters are units (index >= 0)
 * or requests (-2 - pool index), see st_rp_resolve().
 */
#ifndef ST_TOOLS_ANALYSIS_REPLAY_INTERNAL_H
#define ST_TOOLS_ANALYSIS_REPLAY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tools/analysis/replay.h"

#define NIL UINT32_MAX
#define WNONE INT32_MIN		/* no waiter */

/*
 * A critical-path vector: the chain of dependencies ending at a time.
 * The hot paths copy it with cp_set(), field by field: a whole-struct
 * copy moves 16 bytes at a time, and such a load stalls when it spans
 * fields just stored one by one (store forwarding fails); fields of one
 * type are not next to each other, so no copy is merged into one.
 */
struct cpv {
	double comp;
	uint64_t hops;
	double comm;
	int32_t rank;		/* where the chain ends now */
};

static inline void cp_zero(struct cpv *d)
{
	d->comp = 0;
	d->hops = 0;
	d->comm = 0;
	d->rank = 0;
}

static inline void cp_set(struct cpv *d, const struct cpv *s)
{
	d->comp = s->comp;
	d->hops = s->hops;
	d->comm = s->comm;
	d->rank = s->rank;
}

/* cp_set() of cp_add(*s, comm): 'comm' more communication. */
static inline void cp_set_add(struct cpv *d, const struct cpv *s,
			      double comm)
{
	cp_set(d, s);
	d->comm += comm;
}

/* cp_set() of cp_on(*s, rank), field by field. */
static inline void cp_set_on(struct cpv *d, const struct cpv *s, int rank)
{
	d->comp = s->comp;
	d->hops = s->hops + (s->rank != rank);
	d->comm = s->comm;
	d->rank = rank;
}

/* A record, as much of it as the replay needs. */
struct rrec {
	uint8_t kind;
	uint16_t fn, thread;
	uint32_t site, comm_size, remote_size, inst;
	int32_t rc, root, peer, tag, peer2, tag2, rank;
	int32_t arg;		/* MPI_Pcontrol's level, asserts... */
	uint64_t t0, t1, comm, seq, sbytes, rbytes, req;
	/*
	 * MPI_Win_post, MPI_Win_start: the group's ranks in the window,
	 * malloc()ed when read (NULL: none, or 'group_bad'), owned by
	 * whoever holds the record; freed once it is replayed.
	 */
	int32_t *group;
	uint32_t ngroup;
	uint8_t group_bad;	/* cut (" ..."), unreadable, or no memory */
};

/* Open addressing, three-word keys, backward-shift deletion. */
struct hent {
	uint64_t k1, k2, k3;
	uint32_t val;		/* NIL: empty slot */
};

struct hmap {
	struct hent *e;
	size_t cap, n;
};

/*
 * With a pure model (st_replay_model.coll_pure): the last instance
 * costed from it per slot (function, size, sums and arrivals, all that
 * st_rp_inst_cost() reads), its size 'd' and the model's answer 'c'.
 */
#define COST_CACHE 64
struct ccache {
	uint64_t sum_s, sum_r, max_s, max_r;
	long p;
	int32_t expected, arrived;
	uint16_t fn;
	uint8_t used;
	double d, c;
};

/* A pending completion seen in a DONE record, for the next Wait call. */
struct pdone {
	uint64_t req;
	int32_t peer, tag;
	int cancelled;		/* its status said so: nothing moved */
};

enum { U_READY, U_BLOCKED, U_DONE };

/* Where the time of a finished call came from. */
enum { SRC_LOCAL, SRC_MODEL, SRC_MISSING, SRC_TRACED };

/*
 * What a function's call does for the messages of its rank
 * (st_replay.fprog, set once per function by st_replay_new()):
 * PROG_STARTS, it only starts something and returns at once (an I-call,
 * a persistent set-up, MPI_Start, MPI_Startall); PROG_MOVES, it moves
 * messages (a point-to-point call, probes included, a blocking
 * collective, a Wait or Test); PROG_LOCAL, neither (MPI_Request_free,
 * communicator, window, one-sided and file calls, MPI_Finalize, a
 * function the replay does not know).  A rendezvous transfer that needs
 * both sides inside MPI waits for a call that is not PROG_STARTS, held
 * sends and late eager receives for a PROG_MOVES one (on_call()).
 */
enum { PROG_LOCAL, PROG_STARTS, PROG_MOVES };

struct unit {
	int idx, rank, thread;
	int state, started, finalized, running;
	double now;
	struct cpv cp;
	uint64_t last_exit;		/* local t1 of the previous call */
	uint64_t pre_init;		/* latest t1 of synctrace's records
					   before MPI_Init's */
	uint64_t fin_mark;		/* t0 of synctrace's finalize work
					   (0: none yet) */

	/* The op (call) in progress. */
	double op_entry, op_T, op_busy, op_meas;
	struct cpv op_cp;
	int op_nwait, op_src;
	uint16_t op_fn;
	uint32_t op_site;
	uint64_t op_comm, op_seq;	/* what it waits for, for messages */
	int op_coll;
	/*
	 * A receive side (blocking receive, Wait/Test) that may complete
	 * messages the model lacked: its measured global entry and exit,
	 * and the latest measured arrival of those messages (-inf: none).
	 */
	int op_tail;
	double op_g0, op_g1, op_gm;

	/* The last call, for the START records that follow MPI_Start. */
	double last_entry;
	struct cpv last_cp;

	struct pdone *done;
	size_t ndone, adone;
	uint64_t (*ov)[2];		/* synctrace's own work, local ns */
	size_t nov, aov;

	struct rrec *fifo;		/* records read for this unit */
	size_t fhead, fcount, falloc;

	/* Phases (st_replay_opts.phase): where the stream is, whether
	   the op in progress lies in a selected phase, and the predicted
	   and local time the open span began. */
	struct st_phase_pos ph;
	int op_in, span_open;
	int op_prog;			/* its call moves messages
					   (PROG_MOVES) */
	int op_blocked;			/* its op blocked (waited): inside
					   MPI from op_entry to op_exit */
	double op_exit;			/* the end of its last op */
	/*
	 * Its op lasts at least until 'op_ext' (0: no such bound): the
	 * copy of a rendezvous message its rank receives, which the call
	 * does for a receive it does not wait for, from 'op_ext_from';
	 * 'op_ext_cp' its path.
	 */
	double op_ext, op_ext_from;
	struct cpv op_ext_cp;
	/* unit_run() replayed the compute before the unit's next call,
	   which on_call() then skips; a call that starts after another
	   unit's next op waits, so, first in 'fifo'. */
	int pre_done;
	/* The call site its last call counted in (NIL: none). */
	uint32_t site_idx, site_site;
	uint16_t site_fn;
	double span_pred;
	uint64_t span_local;
};

struct rank {
	struct st_replay_source src;
	int has_src, eof;
	struct unit **units;		/* by thread index, sparse */
	size_t nunits;
	int init_known, main_thread;
	uint64_t init_t1;
	struct st_replay_rank res;
	double ph_pred, ph_meas;	/* time in the selected phases */
	uint64_t ci_comm;		/* the communicator found last */
	uint32_t ci_idx;		/* its index in 'cis' (NIL: none) */
	double mpi_out;			/* the last exit of a call that
					   progresses (st_rp_recv_inside()) */
	uint32_t hs_head, hs_tail;	/* its held sends (NIL: none) */
};

/* A collective instance still waiting for members. */
enum { C_ALL, C_BCAST, C_GATHER, C_SCAN };

struct inst {
	uint64_t comm, seq, inst;	/* inst: of a persistent one, else 0 */
	uint16_t fn;
	uint8_t cls, cost_known, cost_src, root_in;
	int32_t expected, arrived;
	long p;
	uint64_t sum_s, sum_r;		/* over the members arrived */
	uint64_t max_s, max_r;		/* the most one of them sent, got */
	double meas_min, root_meas, cost;
	double maxT, rootT;
	struct cpv maxcp, rootcp;
	uint32_t members;		/* list of waiting members */
};

struct memb {
	uint32_t next;
	int32_t w, rin;
	double arr;
	struct cpv cp;
};

/* A message queue: unmatched sends, or receives (and probes) waiting. */
enum { M_SEND, M_RECV, M_PROBE };

struct msg {
	uint32_t next;
	uint8_t type, sync;
	uint8_t net;			/* send: under the network model */
	uint8_t probed;			/* net, eager: a probe took it in,
					   by 'taken' */
	uint16_t fn;			/* receive: its function (0: probe) */
	int32_t w;			/* receiver; sync (or rendezvous)
					   sender */
	int32_t src;			/* send: the sender's rank */
	double t;			/* send entry, or receive post */
	double xfer, bytes;		/* send: transfer time, size */
	double gm;			/* send: measured global time of its
					   exit, NaN unknown */
	double w0;			/* net, eager: its turn at the
					   sender's out-port */
	double taken;
	struct st_replay_msg nm;	/* net: its costs */
	struct cpv cp;
};

/*
 * A nonblocking eager send whose message leaves only while its sender
 * is inside MPI (st_replay_msg.need bit 1), held on its rank's list
 * (and any send of that rank after it, in order) until the rank's next
 * call that progresses: st_rp_flush_sends().
 */
struct hsend {
	struct msg s;
	uint64_t k[3];			/* its queue's key */
	int32_t rw;			/* its request's wait, WNONE: none */
	uint32_t next;
};

/*
 * A rendezvous transfer matched while its sender or receiver (or both)
 * was computing: it starts once each side it waits for ('need': 1 the
 * sender, 2 the receiver) has entered an MPI call, no earlier than
 * 'from': the later post, or the latest such entry after it.  One that
 * needs both sides inside MPI and whose nonblocking side is in a call
 * that does not wait for it moves only while that call lasts ('need'
 * PEND_HELD, 'held' that call's unit, from 'from'): if it cannot end
 * by then, it waits for that side's next call with the time it moved,
 * 'credit', done.
 */
enum { PEND_HELD = 4 };

struct pend {
	struct msg s, v;
	int32_t src, dst;
	uint8_t need;
	uint8_t copy;			/* released by a call of its receiver
					   that copies it (rndv_copy_in()) */
	int32_t held;
	double from, credit;
	uint32_t next;
};

struct mq {
	uint32_t head, tail;
	uint64_t k1, k2, k3;
};

enum { Q_FREE, Q_IDLE, Q_PENDING, Q_DONE, Q_UNKNOWN };

struct req {
	int rank;
	uint64_t id;
	uint8_t state, persistent, deferred, is_coll;
	uint8_t missing;		/* its cost came from measured times */
	uint8_t traced;			/* one-sided or I/O: its Wait keeps
					   its measured time */
	uint8_t cancel_out;		/* a receive taken out of matching
					   at its MPI_Cancel */
	int32_t waiter;			/* unit index, or WNONE */
	int nwait;
	double T;
	struct cpv cp;
	/* A persistent operation, to start again. */
	uint16_t fn;
	uint64_t comm, seq, sbytes, rbytes;
	uint32_t inst;
	uint32_t comm_size;
	int32_t root, peer, tag;
	/* A wildcard receive, matched at completion. */
	double post;
	/* Measured global arrival of its message, when the model lacked
	   its cost (-inf: none). */
	double gm;
	/* A receive whose message the receiver must take in inside MPI:
	   st_replay_msg.rbusy_ns, 0 else (st_rp_recv_inside()). */
	double rwork;
	struct cpv post_cp;
	uint32_t next_free;
};

struct comminfo {
	int32_t rin;
	uint32_t size, remote;
};

struct st_replay {
	int nranks;
	struct st_replay_model model;
	struct st_replay_opts opts;
	struct rank *ranks;
	struct unit **units;		/* by index */
	size_t nunits, aunits;
	struct unit **heap;
	size_t nheap, aheap;

	struct hmap inst_of, mq_of, req_of, comm_of, site_of;
	struct ccache ccache[COST_CACHE];	/* see struct ccache */
	struct hmap start_of;		/* (rank, comm, peer << 32 | start
					   row): the channel's messages
					   so far (model.start_row) */
	struct hmap first_seen;		/* (fn, p, bits of d) whose first
					   call is charged (coll_first) */
	struct inst *insts;
	size_t ninsts, ainsts;
	uint32_t inst_free;
	uint32_t inst_last;		/* the live instance made last, not
					   in 'inst_of' (NIL: none) */
	struct memb *membs;
	size_t nmembs, amembs;
	uint32_t memb_free;
	struct msg *msgs;
	size_t nmsgs, amsgs;
	uint32_t msg_free;
	struct mq *mqs;
	size_t nmqs, amqs;
	uint32_t mq_free;
	struct req *reqs;
	size_t nreqs, areqs;
	uint32_t req_free;
	struct comminfo *cis;
	size_t ncis, acis;
	double *out_free, *in_free;	/* [nranks]: when each rank's ports
					   are free (network model) */
	struct hsend *hsends;		/* sends held, by rank (hs_head) */
	size_t nhsends, ahsends;
	uint32_t hs_free, hs_live;
	struct pend *pends;		/* rendezvous transfers waiting for
					   a side to enter MPI */
	size_t npends, apends;
	uint32_t pend_free, pend_live;
	uint32_t pend_held;		/* of them, PEND_HELD */
	size_t live_insts, live_msgs, live_reqs;

	struct st_replay_fn *fns;	/* [ST_FN_COUNT] */
	struct st_replay_fn *fn_out;
	struct st_replay_site *sites;
	size_t nsites, asites;
	struct st_replay_stats stats;

	uint8_t *fkind, *ffam, *fbytes;	/* [ST_FN_COUNT] */
	uint8_t *fprog;			/* [ST_FN_COUNT]: PROG_* */
	uint8_t *fn_calls;		/* [nranks][ST_FN_COUNT]: each
					   rank's calls of each function,
					   up to ST_REPLAY_EARLY_CALLS */

	void (*aux)(void *ctx, int rank, const struct st_event *ev);
	void *aux_ctx;

	struct memb *scan_buf;
	size_t ascan;

	struct st_rp_rma *rma;		/* replay-rma.c's state */

	int rc;				/* sticky error */
	char *err;
	size_t errlen;
};

/* Critical-path vectors. */

static inline struct cpv cp_add(struct cpv v, double comm)
{
	v.comm += comm;
	return v;
}

/* 'v' as seen from unit 'u': moving to another rank is a hop. */
static inline struct cpv cp_on(struct cpv v, int rank)
{
	if (v.rank != rank) {
		v.hops++;
		v.rank = rank;
	}
	return v;
}

/* Is 'peer' a rank (not MPI_PROC_NULL, an unresolved wildcard...)? */
static inline int peer_ok(int32_t peer)
{
	return peer >= 0;
}

/* replay.c: errors and growable arrays. */

/* Set the replay's sticky error to -ENOMEM, "out of memory"; returns it. */
int st_rp_oom(struct st_replay *r);

/*
 * Grow array '*p' of '*alloc' elements of 'size' so index 'need' fits.
 * Returns 0, or the sticky error after st_rp_oom().
 */
int st_rp_grow(struct st_replay *r, void **p, size_t *alloc, size_t need,
	       size_t size);

#define GROW(r, v, alloc, need) \
	st_rp_grow((r), (void **)&(v), &(alloc), (need), sizeof(*(v)))

/* replay-map.c: all zero is an empty map. */

/* The value of key (a, b, c), or NULL. */
uint32_t *st_rp_map_get(const struct hmap *m, uint64_t a, uint64_t b,
			uint64_t c);

/* Insert a new key (absent) with value 'v'.  0 or -ENOMEM. */
int st_rp_map_put(struct hmap *m, uint64_t a, uint64_t b, uint64_t c,
		  uint32_t v);

/* Remove key (a, b, c) if it is there. */
void st_rp_map_del(struct hmap *m, uint64_t a, uint64_t b, uint64_t c);

void st_rp_map_free(struct hmap *m);

/* replay.c: the engine's parts the others call. */

/* Rank 'rank''s local time 't' in measured global time, or NaN. */
double st_rp_gtime(const struct st_replay *r, int rank, uint64_t t);

/* Start op 'x' of 'u' at its current time with own cost 'busy'. */
void st_rp_op_begin(struct unit *u, const struct rrec *x, double busy,
		    int src);

/* Call 'x' of 'u' (after st_rp_op_begin()) is a receive side. */
void st_rp_op_receives(struct st_replay *r, struct unit *u,
		       const struct rrec *x);

/* Make unit 'u', or request 'qi', a waiter (one more result due). */
int32_t st_rp_w_unit(struct unit *u);
int32_t st_rp_w_req(struct st_replay *r, uint32_t qi);

/* Waiter 'w' has a result: done at 'T' along 'cp'. */
void st_rp_resolve(struct st_replay *r, int32_t w, double T, struct cpv cp);

/* The same, along '*cp' (see struct cpv). */
void st_rp_resolve_p(struct st_replay *r, int32_t w, double T,
		     const struct cpv *cp);

/* The operation of request 'qi' has a result at 'T' along 'cp'. */
void st_rp_req_result(struct st_replay *r, uint32_t qi, double T,
		      struct cpv cp);

/* What rank 'rank' knows of communicator 'comm', or NULL. */
const struct comminfo *st_rp_comm_info(const struct st_replay *r, int rank,
				       uint64_t comm);

/* replay-cost.c: costs, each with where it came from (SRC_*). */

/*
 * The cost of collective instance 'in' (the model's, else measured;
 * 'fallback' >= 0 for a member released before all are in).
 */
double st_rp_inst_cost(struct st_replay *r, struct inst *in,
		       double fallback);

/* A Gather or Reduce non-root's own part: sending 'bytes'. */
double st_rp_send_part(struct st_replay *r, struct inst *in, double bytes,
		       double meas, int *src);

/* Receive function 'fn' getting 'bytes', into '*local'; SRC_*. */
int st_rp_recv_cost(struct st_replay *r, unsigned fn, double bytes,
		    double *local);

/* A send's (or Sendrecv's) 'local' and 'xfer' costs; SRC_*. */
int st_rp_p2p_cost(struct st_replay *r, unsigned fn, double bytes,
		   double meas, double *local, double *xfer);

/* How long nonblocking call 'x' itself takes, into '*busy'; SRC_*. */
int st_rp_icall_cost(struct st_replay *r, const struct rrec *x,
		     double meas, double *busy);

/* replay-coll.c */

/*
 * Member 'w' (rank 'rank', its record 'x') arrives at collective instance
 * (x->comm, 'seq') at 'arr' along '*cp'; 'meas' is its measured duration.
 */
void st_rp_coll_arrive(struct st_replay *r, int rank, int32_t w,
		       const struct rrec *x, uint64_t seq, double arr,
		       const struct cpv *cp, double meas);

/* The live instance (comm, seq, inst), or NIL. */
uint32_t st_rp_inst_find(const struct st_replay *r, uint64_t comm,
			 uint64_t seq, uint64_t inst);

/*
 * The network model's costs of a message of 'bytes' sent by 'fn' into
 * '*m': 1 when the model has them, else 0.
 */
/*
 * The MPI library's start: what the next message of 'bytes' from 'rank'
 * to 'peer' on 'comm' costs beyond the steady state (model.start_row,
 * start_ns), moving the channel's count on; 0 when the model has none.
 * Where the message's cost is the model's, the caller adds it and
 * counts it with st_rp_start_charged() (a measured cost holds it).
 */
double st_rp_start_cost(struct st_replay *r, int rank, uint64_t comm,
			int32_t peer, double bytes);
void st_rp_start_charged(struct st_replay *r, double e);

int st_rp_msg_cost(struct st_replay *r, unsigned fn, double bytes,
		   struct st_replay_msg *m);

/* replay-rma.c */

/*
 * A one-sided or I/O call 'x' of 'u' that is not a group collective
 * (those go to st_rp_coll_arrive()): post-start-complete-wait with
 * their dependencies, anything else its measured duration.
 */
void st_rp_call_rma(struct st_replay *r, struct unit *u, struct rrec *x);

/*
 * Nothing else can move: release the earliest MPI_Win_start or
 * MPI_Win_wait still waiting, as if what it waits for were there.
 * Returns 1 when one was, else 0.
 */
int st_rp_rma_unstick(struct st_replay *r);

/* Non-zero when unit 'u' waits in post-start-complete-wait. */
int st_rp_rma_waiting(const struct st_replay *r, const struct unit *u);

void st_rp_rma_free(struct st_replay *r);

/* replay-p2p.c */

/* Blocking point-to-point call 'x' of 'u'. */
void st_rp_call_p2p(struct st_replay *r, struct unit *u,
		    const struct rrec *x);

/*
 * Start nonblocking point-to-point operation 'fn' as request 'qi' at
 * time 't' along 'cp', by a call that ended at measured global time 'gm';
 * a send costs 'start_ns' more (st_rp_start_cost(), its I-call's
 * caller asks it).
 */
void st_rp_start_p2p(struct st_replay *r, struct unit *u, uint32_t qi,
		     unsigned fn, uint64_t comm, int32_t peer, int32_t tag,
		     uint64_t sbytes, uint64_t rbytes, double meas, double t,
		     struct cpv cp, double gm, double start_ns);

/* A receive (function 'fn'; 0 for a probe) by 'w', posted at 't'. */
void st_rp_do_recv(struct st_replay *r, int rank, uint64_t comm,
		   int32_t peer, int32_t tag, int type, int32_t w,
		   unsigned fn, struct cpv cp, double t);

/* Drop the head of queue 'qi'; returns 1 when that freed the queue. */
int st_rp_mq_pop(struct st_replay *r, uint32_t qi);

/*
 * Take back the receive of waiter 'w' that rank 'rank' posted from
 * 'peer' with 'tag' on 'comm', when no message has matched it yet (a
 * cancelled receive).  1 when it was taken back, 0 when not there.
 */
int st_rp_recv_cancel(struct st_replay *r, int rank, uint64_t comm,
		      int32_t peer, int32_t tag, int32_t w);

/*
 * Unit 'u' of rank 'rank' enters an MPI call at 't': the rendezvous
 * transfers waiting for that rank may start (those that need both sides
 * inside MPI for as long as the call lasts, unless it completes their
 * request: PEND_HELD).  With 'all' (and 'u' NULL), every held transfer
 * starts as if its call had lasted, or if none is held, every waiting
 * one as if its sides had come (nothing else can move).  Returns the
 * number started.
 */
size_t st_rp_progress(struct st_replay *r, struct unit *u, int rank,
		      double t, int all, int icall);

/* The call of unit 'u' ended: the transfers it held go on or wait. */
void st_rp_held_end(struct st_replay *r, struct unit *u);

/*
 * The sends rank 'rank' held (struct hsend) leave now, at 'u''s current
 * time along its path, in the order they were started; with 'u' NULL
 * (nothing else can move) each at its own start.  Returns the number.
 */
size_t st_rp_flush_sends(struct st_replay *r, int rank, struct unit *u);

/*
 * Request 'q', complete at *T along *cp, is completed by the call unit
 * 'u' entered at u->op_entry.  A receive whose message must be taken in
 * inside MPI (q->rwork > 0) and that came while its rank was outside
 * any call that progresses (after ranks[].mpi_out, by u->op_entry) is
 * taken in by this call: it completes q->rwork after the call's entry,
 * if that is later.  Every such message the call completes does so
 * (they took their turns at the in-port as they came; one pass takes
 * in what is there).
 */
void st_rp_recv_inside(struct st_replay *r, struct unit *u,
		       const struct req *q, double *T, struct cpv *cp);

#endif
