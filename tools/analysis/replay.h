/*
 * tools/analysis/replay.h: trace-driven prediction ("reverse profiling", after
 * Howell).  Every rank's record stream is replayed in file order on a
 * predicted clock: the time between one MPI call's exit and the next
 * call's entry on the same rank (compute; synctrace's own work inside it
 * left out) is kept or scaled, and each MPI call is re-timed from a cost
 * model while honouring the dependencies between ranks:
 *
 *  - a collective instance (same communicator id and sequence number on
 *    every member; members = comm_size, plus remote_size on an
 *    inter-communicator) completes at its last member's arrival plus the
 *    model's cost(fn, p, d); rooted operations release ranks earlier
 *    (Bcast, Scatter(v): the root leaves at its arrival + cost, the
 *    others at max(own arrival, root's arrival) + cost; Gather(v),
 *    Reduce: the others leave at their arrival + the cost of sending
 *    their bytes, the root waits for all; Scan, Exscan: rank i waits for
 *    ranks 0..i); every other class (and every operation on an
 *    inter-communicator) waits for all members;
 *  - point-to-point messages match by (communicator, source, destination,
 *    tag) in posting order, which is MPI's non-overtaking rule once
 *    wildcards are resolved (the trace resolves them from the status);
 *    with the model's network part (struct st_replay_msg), messages
 *    share their ranks' ports and large ones wait for their receive
 *    (rendezvous); without it every send is eager (no send waits for
 *    its receive but a synchronous one): a standard, buffered or ready
 *    send
 *    completes 'local' after its entry and its message is at the
 *    receiver 'xfer' after the entry; a synchronous send completes when
 *    its message arrives, which starts once both sides are there;
 *    a receive completes its 'local' (at the size of the message it
 *    matched) after max(its entry, arrival);
 *  - a message whose costs the model lacks is replayed from measured
 *    times: the send takes what it took and its message is there at the
 *    send's exit; the blocking receive, or the Wait/Test call, that
 *    completes its receive takes, after the later of its entry and the
 *    last such arrival, the time it measured after that same point in
 *    global time (the sources' clocks), its own work of taking the
 *    messages in; without global time, nothing;
 *  - a nonblocking operation (I-call, or an instance of a persistent one
 *    started by MPI_Start) starts at its call and completes at the Wait or
 *    Test that completed it (its DONE record), no earlier than its
 *    modelled completion.  Calls that only start or free something (the
 *    I-calls themselves, MPI_Start, MPI_Request_free, MPI_Comm_free,
 *    MPI_Iprobe) and calls the model does not know keep their measured
 *    duration;
 *  - collectives over a window or a file (st_fn_group_coll(): a window's
 *    constructor, MPI_Win_fence, MPI_Win_free, MPI_File_open and
 *    MPI_File_close, the blocking collective file calls) are collective
 *    instances as above, on the window's or file's id: a fence ends its
 *    cost after its last member arrives;
 *  - post-start-complete-wait: the n-th MPI_Win_start of an origin
 *    whose group holds a target waits for that target's n-th
 *    MPI_Win_post whose group holds the origin (its exit); the n-th
 *    MPI_Win_wait (or MPI_Win_test that found the epoch over) of a
 *    target waits for the n-th MPI_Win_complete of every origin in its
 *    post's group; each then takes its measured work after the last of
 *    those in global time, as a receive the model lacks does (without
 *    global time, none).  Passive-target synchronisation (lock, unlock,
 *    flush, lock_all) synchronises nobody but the caller: every other
 *    one-sided call, and every file call that is not collective, keeps
 *    its measured duration ("traced"), and the Wait or Test completing
 *    its request (MPI_Rput, MPI_File_iwrite_at...) its own;
 *  - the first instance of each (function, p, d) the model costs is
 *    charged the model's first-call excess on top (coll_first), once
 *    per replay;
 *  - MPI_Init's exit is time 0 on every rank; a rank's predicted run time
 *    ends at its MPI_Finalize entry.
 *
 * Ranks are state machines that block on unmet dependencies; the engine
 * runs the rank (thread) with the earliest predicted time from a heap, so
 * state in flight (instances, messages, requests) stays near what the
 * program itself had in flight, and every matched piece is freed at once:
 * memory grows with the number of ranks and of operations in flight, not
 * with the length of the traces.  Results do not depend on that order:
 * every completion is a maximum of sums.  Threads of one rank are
 * replayed as separate streams sharing the rank's requests.
 *
 * The critical path is carried forward rather than walked back: every
 * time point carries the compute and communication time of the longest
 * chain of dependencies that ends there, so the vector at the last rank's
 * end is the path walked back from it.  A path never waits (it follows
 * whatever arrived last), so waiting is reported per rank instead.
 */
#ifndef ST_TOOLS_ANALYSIS_REPLAY_H
#define ST_TOOLS_ANALYSIS_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "tools/analysis/phase.h"

struct st_event;
struct st_replay;

/*
 * A message under the network model (LogGP, with LogGPS's switch to a
 * synchronising protocol above a size; see docs/prediction.md).  Each
 * rank has one port out and one port in; a message holds its sender's
 * out-port and its receiver's in-port for 'gap_ns' (LogGP's g + G d: the
 * time K messages in flight together add per message), in turn.  All
 * times in ns.
 *
 * Eager ('rendezvous' 0): the message's turn w0 is the later of the
 * send's entry and the time its sender's out-port is free (its
 * receiver's in-port is taken at the match, from w0).  The send
 * completes at w0 + 'send_ns'.  A receive completes at the later of
 * w0' + 'xfer_ns' (w0' its turn at the in-port: the receive was there
 * first) and its post + 'late_ns' (it came after its message).
 *
 * Rendezvous ('rendezvous' 1, and every synchronous send): nothing
 * moves before both the send and its receive are posted; from the later
 * of the two (and both ports free), w0: when the receive came first,
 * the receive completes at w0 + 'xfer_ns' and the send 'late_ns' -
 * 'rndv_send_ns' before it (not before w0); when the send came first,
 * the receive completes at w0 + 'late_ns' and the send at w0 +
 * 'rndv_send_ns'.
 *
 * 'share' (0 to 1): how much a transfer waits for its ranks' ports of
 * the other direction (the sender's in-port, the receiver's out-port),
 * where both ranks' processors move the data (TCP: the sender writes
 * the socket, the receiver reads it; small messages in shared memory):
 * its turn (a rendezvous transfer's start, an eager message's turn at
 * the receiver's in-port) comes no earlier than w0 + share x (the later
 * of those two ports' ends - w0).  It holds only its own ports, so one
 * message each way ends share x 'gap_ns' after one alone, and K pairs
 * each way queued at once are 2 'gap_ns' / (2 - share) apart.  1: one
 * port per rank, messages both ways take turns; 0: the two directions
 * are independent (large messages in shared memory, where the receiver
 * copies alone).
 *
 * 'xfer_nb_ns' (> 0; else 'xfer_ns' holds): 'xfer_ns' for a message
 * whose send and receive are both nonblocking (I-calls, then a Wait):
 * the burst of one message measures that pattern, the ping-pong the
 * blocking one, and in shared memory the two differ (512 B: 0.94
 * against 1.76 us, spinning).
 *
 * 'need' (0: as above): the transfer moves only while its sender (bit
 * 1) and its receiver (bit 2) are inside MPI.  Both: a rendezvous
 * transfer starts when each nonblocking side is blocked in a call (an
 * I-call, which returns at once, does not count, whichever side posted
 * last), or else at that side's next call that is not an I-call, and
 * moves only while that call lasts unless the call waits for it (its
 * request's Wait): what it has left when the call ends waits for the
 * side's next call (two such calls that each wait for the transfer the
 * other holds, an exchange, let both go on); two
 * such transfers between the same two ranks, one each way, that start
 * together take 'xchg_ns' (> 0) from their start, both, and the next
 * such pair between the two starts 'xchg_gap_ns' (> 0; else a gap and
 * the share of the other direction's) after them: the j-th of K pairs
 * started together ends j x 'xchg_gap_ns' after the first.
 * 'sender_free' (non-zero: the table measured it at the size; 0: not
 * measured, or the sender is needed): a rendezvous transfer moves
 * while its sender computes (the bench's busy-sender pattern found its
 * receive not held up: in shared memory the receiver copies the data
 * out of the sender's buffer), so a nonblocking sender that posted
 * first need not be inside MPI for it to start; a nonblocking receive
 * moves it only while its rank is blocked in a call, whichever side
 * posted last (an I-call does not release it); a call that does not
 * wait for the receive copies the message itself, from its entry, in
 * 'late_ns' and holding no port, and lasts until it is done.
 * An eager message whose 'need' has the sender, sent by an I-call,
 * leaves (takes its turn at the out-port) when its rank next enters a
 * call that moves messages (blocking point-to-point, collective, Wait
 * or Test); sends the rank starts after it wait behind it.
 * 'rbusy_ns' (> 0; 0: as above): an eager message to a nonblocking
 * receive that arrived while its rank was outside MPI (after its last
 * call that moves messages, before the call that completes the
 * receive) is taken in by that call: it completes at least 'rbusy_ns'
 * after the call's entry (each such message the call completes: they
 * took their turns at the in-port as they came, and one pass takes in
 * what is there).
 */
struct st_replay_msg {
	int rendezvous;
	double send_ns, xfer_ns, gap_ns, late_ns, rndv_send_ns;
	double share;
	double xfer_nb_ns;
	int need;
	int sender_free;
	double xchg_ns;
	double xchg_gap_ns;
	double rbusy_ns;
	double xone_ns;		/* one each way at once, both sides busy
				   before: where only the receiver moves
				   the data (sender_free, need not 3) */
};

/*
 * Whether 'fn' is a synchronous send (MPI_Ssend, MPI_Issend and their
 * _c forms): it completes only once its receive has begun, at any size,
 * so the replay takes it as a rendezvous.
 */
int st_replay_sync_send(unsigned fn);

/*
 * The cost model, in nanoseconds.  Any function may be NULL, which is
 * a model that knows nothing of that kind.
 */
struct st_replay_model {
	void *ctx;
	/*
	 * Time collective 'fn' takes from its last member's arrival on 'p'
	 * processes of size 'd' bytes, the per-rank size of the cost
	 * tables (st_table_coll_size(), tools/analysis/table.h: the vector of a
	 * reduction, one rank's block of a gather...).  Negative: the
	 * model does not know 'fn'.
	 */
	double (*coll)(void *ctx, unsigned fn, long p, double d);
	/*
	 * Point-to-point call 'fn' moving 'bytes': '*local_ns' the time the
	 * call takes when it need not wait (a send copying its data out, a
	 * receive copying an arrived message in), '*xfer_ns' (sends) the
	 * time from the send's entry until the message is at the receiver.
	 * Returns 0, or negative when the model does not know 'fn'.
	 */
	int (*p2p)(void *ctx, unsigned fn, double bytes, double *local_ns,
		   double *xfer_ns);
	/*
	 * Time the call that starts nonblocking send 'fn' (MPI_Isend...)
	 * of 'bytes' takes, into '*ns': what the sender spends handing its
	 * message to the transport (the rest of an eager message, or a
	 * rendezvous transfer, follows in the background, as the request's
	 * completion models).  Returns 0, or negative when the model does
	 * not know 'fn'.  NULL, or unknown: the I-call's measured duration,
	 * as for a local call.
	 */
	int (*inject)(void *ctx, unsigned fn, double bytes, double *ns);
	/*
	 * Time the first instance of collective 'fn' at ('p', 'd') takes
	 * beyond 'coll' (lazy set-up in the MPI library, cold code): asked
	 * once per distinct (fn, p, d) in a replay, when the replay costs
	 * the first instance with that key whose cost comes from 'coll',
	 * and added to that instance's cost (every member sees it).  <= 0
	 * (or NaN): nothing.  NULL: no first-call costs.
	 */
	double (*coll_first)(void *ctx, unsigned fn, long p, double d);
	/*
	 * The network model of one message of 'bytes' sent by 'fn' (a
	 * send of any mode, blocking, nonblocking or persistent; not
	 * MPI_Sendrecv), into '*m' (see struct st_replay_msg).  Returns 0,
	 * or negative when the model has none: the message then follows
	 * 'p2p'.  NULL: every message follows 'p2p'.
	 */
	int (*msg)(void *ctx, unsigned fn, double bytes,
		   struct st_replay_msg *m);
	/*
	 * Non-zero: 'coll' answers from its arguments alone and does
	 * nothing else (no counting), so the replay may keep its answers
	 * for instances of the same function, group and sizes.
	 */
	int coll_pure;
	/*
	 * The MPI library's start: a process's first messages of a size
	 * on a channel cost more than the later ones (the library fills
	 * its pools, maps its shared memory).  'start_row' names the row
	 * that answers for messages of 'bytes' (sizes that share one
	 * count together), negative when none; 'start_ns' what the k-th
	 * message (0-based) of a channel at that row costs beyond what
	 * the other functions say.  The replay counts each channel's
	 * messages (a rank, communicator and peer) per row, and adds the
	 * excess to the send: its call, and the message's arrival.  NULL:
	 * no start costs.
	 */
	int (*start_row)(void *ctx, double bytes);
	double (*start_ns)(void *ctx, int row, uint32_t k);
};

/*
 * Where one rank's records come from, in file order.  'next' returns 1
 * with '*ev' filled (valid until the next call), 0 at the end, or a
 * negative errno with a message in 'err' (at most 'errlen' bytes).
 */
struct st_replay_source {
	void *ctx;
	int (*next)(void *ctx, struct st_event *ev, char *err, size_t errlen);
	/*
	 * Optional: the global time (ns, any origin common to all ranks)
	 * of this rank's local time 't_ns' as measured, NaN when unknown.
	 * With it, a receive the model has no cost for is charged its own
	 * measured work after its message was there (see below).
	 */
	double (*global)(void *ctx, uint64_t t_ns);
	/*
	 * Optional, used instead of 'next' when set ('next' may then be
	 * NULL): 1 with '*rec' a record st_replay_rec_make() made (valid
	 * until the next call; several replays can read the same one), 2
	 * with '*ev' filled as 'next' fills it, 0 at the end, or a
	 * negative errno with a message in 'err'.
	 */
	int (*next_rec)(void *ctx, const void **rec, struct st_event *ev,
			char *err, size_t errlen);
};

/*
 * A record in the replay's own form, for sources that make it once for
 * several replays: st_replay_rec_size() bytes (a multiple of 8).
 * st_replay_rec_make() fills 'slot' (aligned to 8) from 'ev' and returns
 * 1, or returns 0 when the replay needs the event itself (call-site and
 * object records, MPI_Win_post and MPI_Win_start with a group).
 */
size_t st_replay_rec_size(void);
int st_replay_rec_make(void *slot, const struct st_event *ev);

struct st_replay_opts {
	double compute_scale;	/* compute segments are multiplied by it */
	/*
	 * Report only these MPI_Pcontrol phases (tools/analysis/phase.h):
	 * the whole run is replayed, every dependency kept, but the
	 * results per rank, function and call site hold only what lies in
	 * them (see struct st_replay_rank).
	 */
	struct st_phase_sel phase;
	/* Non-zero: no results per call site (st_replay_sites() has none). */
	int no_sites;
};

/* Defaults: compute_scale 1, the whole run, call sites counted. */
void st_replay_opts_init(struct st_replay_opts *o);

/*
 * A replay of 'nranks' ranks (1..2^22) with model 'm' (copied; its ctx
 * must outlive the replay) and options 'o' (NULL: defaults).  Returns 0,
 * -EINVAL or -ENOMEM.
 */
int st_replay_new(struct st_replay **out, int nranks,
		  const struct st_replay_model *m,
		  const struct st_replay_opts *o);

/* Rank 'rank's records come from 'src' (copied).  0 or -EINVAL. */
int st_replay_set_source(struct st_replay *r, int rank,
			 const struct st_replay_source *src);

/*
 * 'fn' sees every ST_REC_SITE and ST_REC_OBJECT record of rank 'rank'
 * when the replay reads it (to symbolise call sites).
 */
void st_replay_set_aux(struct st_replay *r,
		       void (*fn)(void *ctx, int rank,
				  const struct st_event *ev),
		       void *ctx);

/*
 * Replay every rank to its end.  Returns 0; or a negative errno with a
 * message in 'err': a source's error; -EBADMSG when a rank's records end
 * before its MPI_Finalize ("rank 3's trace ends before MPI_Finalize..."),
 * or when the replay cannot go on because the ranks wait for each other
 * in a way no run could have (a collective that never gets all its
 * members; the message names it); -ENOMEM.  Receives that no send ever
 * matches do not stop it: once nothing else can move, the earliest
 * completes at its own post (one at a time, since what it lets run may
 * bring the partners of the others), counted in 'released'.
 */
int st_replay_run(struct st_replay *r, char *err, size_t errlen);

/* A chain of dependencies: its compute and communication time. */
struct st_replay_path {
	double compute_ns;	/* compute segments on the path */
	double comm_ns;		/* MPI time on the path: model costs,
				   transfers, measured local calls */
	uint64_t hops;		/* times the path moves to another rank */
};

/*
 * Per rank, after st_replay_run().  With a phase selected, 'pred_ns'
 * and 'meas_ns' are the time in the selected phases (from each marker's
 * exit to the next marker's entry, or MPI_Finalize's), summed over the
 * rank's threads, and compute, MPI time, waiting and overhead only what
 * lies in them; the critical path stays the whole run's.
 */
struct st_replay_rank {
	int finished;		/* MPI_Init and MPI_Finalize were seen */
	double pred_ns;		/* predicted run time: Init exit to
				   Finalize entry */
	double compute_ns;	/* compute, as replayed (scaled) */
	double mpi_ns;		/* predicted time in MPI calls */
	double wait_ns;		/* of which waiting for other ranks */
	double meas_ns;		/* measured run time, same span */
	double meas_compute_ns;	/* measured compute, synctrace's own work
				   left out */
	double overhead_ns;	/* synctrace's own work inside the run */
	uint64_t completions;	/* calls that waited for another rank */
	struct st_replay_path path;	/* critical path to its end */
};

/* Per MPI function, over all ranks. */
struct st_replay_fn {
	uint16_t fn;
	uint64_t calls;
	double pred_ns;		/* predicted time in the calls */
	double meas_ns;		/* measured time in the calls */
	double wait_ns;		/* predicted waiting inside them */
	uint64_t n_model;	/* calls costed by the model */
	uint64_t n_missing;	/* the model lacked them: measured used */
	uint64_t n_local;	/* local calls: measured by design */
	uint64_t n_traced;	/* one-sided or I/O calls with no cost
				   model: measured by design, after what
				   they wait for */
	uint64_t n_op_missing;	/* nonblocking or persistent operations
				   these calls started that the model
				   lacked (measured used) */
	uint64_t early_calls;	/* of 'calls', those among the rank's
				   first ST_REPLAY_EARLY_CALLS of the
				   function in the whole run (phases
				   or not), in the order the replay
				   ends them (a rank's threads mixed) */
	double early_meas_ns;	/* measured time in those */
};

/*
 * The calls of a function each rank makes first, which st_replay_fn
 * counts apart: an MPI library's start (its shared-memory pools' first
 * use: UCX's queue has 64 entries by default) can make them dearer
 * than the table's steady state, and than the one first call a table
 * may charge extra (docs/prediction.md, Limits).
 */
#define ST_REPLAY_EARLY_CALLS 64

/* Per call site of one rank and function. */
struct st_replay_site {
	int rank;
	uint32_t site;
	uint16_t fn;
	uint64_t calls;
	double pred_ns, meas_ns;
};

/* The whole replay. */
struct st_replay_stats {
	double end_ns;		/* largest predicted run time */
	int end_rank;		/* the rank that has it */
	struct st_replay_path path;	/* critical path, from that rank */
	double meas_end_ns;	/* largest measured run time */
	uint64_t records;	/* records replayed */
	uint64_t calls;		/* MPI calls among them */
	uint64_t unmatched_sends;	/* messages no receive took */
	uint64_t released;	/* receives no send matched (see run) */
	uint64_t unknown_reqs;	/* completions of untracked requests */
	size_t max_inflight;	/* most instances + messages + requests */
	/* The library's start (model.start_ns): messages whose modelled
	   cost it added to, and what it added (ns). */
	uint64_t start_msgs;
	double start_ns;
};

const struct st_replay_stats *st_replay_stats(const struct st_replay *r);

/* Rank 'rank's results, or NULL when out of range. */
const struct st_replay_rank *st_replay_rank(const struct st_replay *r,
					    int rank);

/* Functions that were called, in id order; '*n' gets their number. */
const struct st_replay_fn *st_replay_fns(const struct st_replay *r,
					 size_t *n);

/*
 * What a call of 'fn' waits for in the replay, beyond its own cost, in
 * a few words: "members" (a collective: its last member; "root" for a
 * Bcast or Scatter non-root, "own send" for a Gather or Reduce
 * non-root, "lower ranks" for a Scan), "message" (a receive, a probe,
 * a synchronous send), "post" (MPI_Win_start), "completes"
 * (MPI_Win_wait, MPI_Win_test), "requests" (a Wait or Test), "-"
 * (nothing: its own cost alone).
 */
const char *st_replay_waits_for(unsigned fn);

/* Call sites, in no order; '*n' gets their number. */
const struct st_replay_site *st_replay_sites(const struct st_replay *r,
					     size_t *n);

void st_replay_free(struct st_replay *r);

#endif
