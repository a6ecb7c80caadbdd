/*
 * tools/bench/micro-ops.h: the operations "synctrace-bench micro"
 * measures, by name.  This part is free of mpi.h so that the synctrace
 * command (tools/cli/cmd-bench.c), which never links MPI, checks --ops
 * against the same list before it starts a job; tools/bench/micro-run.h
 * has the MPI side (buffers, the calls and their records).
 *
 * ST_MICRO_OPS(X) lists X(ID, name, label, sized): 'name' is what --ops
 * takes, 'label' what the summary prints, 'sized' 0 for an operation
 * that moves no data (measured once per repetition, at size 0).
 */
#ifndef ST_TOOLS_BENCH_MICRO_OPS_H
#define ST_TOOLS_BENCH_MICRO_OPS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#define ST_MICRO_OPS(X) \
	X(ALLGATHER, "allgather", "MPI_Allgather", 1) \
	X(ALLGATHERV, "allgatherv", "MPI_Allgatherv", 1) \
	X(ALLREDUCE, "allreduce", "MPI_Allreduce", 1) \
	X(ALLTOALL, "alltoall", "MPI_Alltoall", 1) \
	X(ALLTOALLV, "alltoallv", "MPI_Alltoallv", 1) \
	X(ALLTOALLW, "alltoallw", "MPI_Alltoallw", 1) \
	X(BARRIER, "barrier", "MPI_Barrier", 0) \
	X(BCAST, "bcast", "MPI_Bcast", 1) \
	X(EXSCAN, "exscan", "MPI_Exscan", 1) \
	X(GATHER, "gather", "MPI_Gather", 1) \
	X(GATHERV, "gatherv", "MPI_Gatherv", 1) \
	X(REDUCE, "reduce", "MPI_Reduce", 1) \
	X(REDUCE_SCATTER, "reduce_scatter", "MPI_Reduce_scatter", 1) \
	X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block", \
	  "MPI_Reduce_scatter_block", 1) \
	X(SCAN, "scan", "MPI_Scan", 1) \
	X(SCATTER, "scatter", "MPI_Scatter", 1) \
	X(SCATTERV, "scatterv", "MPI_Scatterv", 1) \
	X(PINGPONG, "pingpong", "ping-pong", 1) \
	X(SENDRECV, "sendrecv", "MPI_Sendrecv", 1) \
	X(BURST1, "burst1", "burst x1 (Isend/Waitall)", 1) \
	X(BURST2, "burst2", "burst x2 (Isend/Waitall)", 1) \
	X(BURST4, "burst4", "burst x4 (Isend/Waitall)", 1) \
	X(BURST8, "burst8", "burst x8 (Isend/Waitall)", 1) \
	X(LATE, "late", "late receive (Send/Recv)", 1) \
	X(SBUSY, "sbusy", "sender busy (Isend)", 1) \
	X(RBUSY, "rbusy", "receiver busy (Irecv)", 1) \
	X(XBUSY, "xbusy", "exchange, both busy", 1) \
	X(XBUSY2, "xbusy2", "exchange x2, both busy", 1) \
	X(XBUSY4, "xbusy4", "exchange x4, both busy", 1) \
	X(XBUSY8, "xbusy8", "exchange x8, both busy", 1)

enum st_micro_op {
#define ST_MICRO_ENUM(id, name, label, sized) ST_MICRO_##id,
	ST_MICRO_OPS(ST_MICRO_ENUM)
#undef ST_MICRO_ENUM
	ST_MICRO_NOPS
};

/* Sets of operations are bits of an unsigned int. */
_Static_assert(ST_MICRO_NOPS < 32, "too many operations for a mask");

/* The point-to-point operations: from ST_MICRO_P2P_FIRST to the end. */
#define ST_MICRO_P2P_FIRST ST_MICRO_PINGPONG

/*
 * The point-to-point patterns between the rank pairs (0,1), (2,3)...,
 * each with its own tag, so that 'synctrace table' tells them apart in
 * a bench run:
 *  - pingpong: MPI_Send, then MPI_Recv (the even rank), the reverse on
 *    the odd one; sendrecv: MPI_Sendrecv both ways;
 *  - burstK: the even rank starts K messages of the size to its partner
 *    at once (K MPI_Isend, then MPI_Waitall), the odd one receives them
 *    (K MPI_Irecv posted first, then MPI_Waitall): how messages in
 *    flight together share the endpoints (K - 1 messages' worth of
 *    time beyond one), and what starting a send costs at that size;
 *  - late: the even rank sends (MPI_Send), the odd one posts its
 *    MPI_Recv only ST_MICRO_LATE_NS(n) after the start: what the send
 *    costs its sender when it need not wait (eager), or whether it
 *    waits for the receive (rendezvous), and what a receive costs when
 *    its message was sent long before;
 *  - sbusy, rbusy: one message from the even rank to the odd one, each
 *    side an I-call then MPI_Wait, one side computing (a spin on the
 *    clock, outside MPI) for ST_MICRO_LATE_NS(n) between the two: the
 *    sender (sbusy; the receiver waits at once), or the receiver
 *    (rbusy; the sender waits at once).  Whether a transfer moves
 *    while that side is outside MPI: over TCP from 16 KiB it does not
 *    (a busy sender delays the receive by its whole compute, a busy
 *    receiver pays the whole transfer in its Wait); in shared memory a
 *    busy sender costs nothing.
 * The one-way patterns (burstK, late, sbusy, rbusy) swap the two ranks'
 * roles every other call (micro-run.c, sends()): their rows hold both
 * directions of the pair.
 */
#define ST_MICRO_TAG_PINGPONG 1
#define ST_MICRO_TAG_SENDRECV 2
#define ST_MICRO_TAG_BURST 3
#define ST_MICRO_TAG_LATE 4
#define ST_MICRO_TAG_SBUSY 5
#define ST_MICRO_TAG_RBUSY 6
#define ST_MICRO_TAG_XBUSY 7
/*
 * The library's start (micro --start): before the pilots, in a fresh
 * process, ST_MICRO_START_MSGS ping-pongs at each message size of the
 * point-to-point items of --pairs, in their order, every call recorded
 * with this tag: what a process's first messages of a size cost beyond
 * the later ones (an MPI library fills its pools and maps its shared
 * memory as the first messages go).  'synctrace table' keeps them apart
 * from the ping-pong groups (the table's "start" rows).
 */
#define ST_MICRO_TAG_START 8
#define ST_MICRO_START_MSGS 128

/* Whether 'op' is one of the busy-side patterns (sbusy, rbusy). */
static inline int st_micro_busy(int op)
{
	return op == ST_MICRO_SBUSY || op == ST_MICRO_RBUSY;
}

/* The messages of burst operation 'op', 0 when it is none. */
static inline int st_micro_burst_k(int op)
{
	return op == ST_MICRO_BURST1 ? 1 : op == ST_MICRO_BURST2 ? 2 :
	       op == ST_MICRO_BURST4 ? 4 : op == ST_MICRO_BURST8 ? 8 : 0;
}

/* The messages each way of exchange 'op' (xbusy: 1), 0 when none. */
static inline int st_micro_xbusy_k(int op)
{
	return op == ST_MICRO_XBUSY ? 1 : op == ST_MICRO_XBUSY2 ? 2 :
	       op == ST_MICRO_XBUSY4 ? 4 : op == ST_MICRO_XBUSY8 ? 8 : 0;
}

/* The exchange of K messages each way (2, 4, 8), -1 when none. */
static inline int st_micro_xbusy_op(int k)
{
	return k == 2 ? ST_MICRO_XBUSY2 : k == 4 ? ST_MICRO_XBUSY4 :
	       k == 8 ? ST_MICRO_XBUSY8 : -1;
}

/* The burst operation of K messages (1, 2, 4, 8), -1 when none. */
static inline int st_micro_burst_op(int k)
{
	return k == 1 ? ST_MICRO_BURST1 : k == 2 ? ST_MICRO_BURST2 :
	       k == 4 ? ST_MICRO_BURST4 : k == 8 ? ST_MICRO_BURST8 : -1;
}

/*
 * How long the receiver of 'late' at 'n' bytes waits before it posts
 * its receive: 100 us plus 2 ns a byte, longer than any eager message
 * of that size takes to arrive over loopback TCP or shared memory, and
 * than most stalls of a virtual CPU.
 */
#define ST_MICRO_LATE_NS(n) (100000.0 + 2.0 * (double)(n))

/*
 * The groups: "all" is the collectives and the two classic point-to-point
 * patterns; "net" the patterns of the network model (bursts, late
 * receives, busy senders, receivers and exchanges), which the grid
 * leaves out unless asked, since they take as long again (synctrace
 * bench --like adds the ones a run needs).
 */
#define ST_MICRO_NET ((1u << ST_MICRO_BURST1) | (1u << ST_MICRO_BURST2) | \
		      (1u << ST_MICRO_BURST4) | (1u << ST_MICRO_BURST8) | \
		      (1u << ST_MICRO_LATE) | (1u << ST_MICRO_SBUSY) | \
		      (1u << ST_MICRO_RBUSY) | (1u << ST_MICRO_XBUSY) | \
		      (1u << ST_MICRO_XBUSY2) | (1u << ST_MICRO_XBUSY4) | \
		      (1u << ST_MICRO_XBUSY8))
#define ST_MICRO_ALL (((1u << ST_MICRO_NOPS) - 1) & ~ST_MICRO_NET)
#define ST_MICRO_P2P (ST_MICRO_ALL & ~((1u << ST_MICRO_P2P_FIRST) - 1))
#define ST_MICRO_COLL (ST_MICRO_ALL & ~ST_MICRO_P2P)

/* The name of operation 'op' as --ops takes it; "?" when out of range. */
static inline const char *st_micro_op_name(int op)
{
	static const char *const names[] = {
#define ST_MICRO_NAME(id, name, label, sized) name,
		ST_MICRO_OPS(ST_MICRO_NAME)
#undef ST_MICRO_NAME
	};

	return op >= 0 && op < ST_MICRO_NOPS ? names[op] : "?";
}

/*
 * The operations named by the comma-separated list 's' into '*mask'
 * (bit i for operation i).  A name is matched without regard to case,
 * with or without "MPI_" in front ("Allreduce", "MPI_Allreduce" and
 * "allreduce" are one); "all", "coll", "p2p" and "net" name groups.  Returns 0,
 * -EINVAL for an unknown or empty name (its text, at most 'len' - 1
 * bytes, is left in 'bad' when 'bad' is not NULL).
 */
static inline int st_micro_ops_parse(const char *s, unsigned *mask,
				     char *bad, size_t len)
{
	unsigned m = 0;
	int i;

	for (;;) {
		size_t n = strcspn(s, ",");
		const char *w = s;
		size_t wn = n;
		int found = -1;

		if (wn > 4 && !strncasecmp(w, "mpi_", 4)) {
			w += 4;
			wn -= 4;
		}
		for (i = 0; i < ST_MICRO_NOPS && found < 0; i++)
			if (strlen(st_micro_op_name(i)) == wn &&
			    !strncasecmp(w, st_micro_op_name(i), wn))
				found = i;
		if (found >= 0)
			m |= 1u << found;
		else if (n == 3 && !strncasecmp(s, "all", 3))
			m |= ST_MICRO_ALL;
		else if (n == 4 && !strncasecmp(s, "coll", 4))
			m |= ST_MICRO_COLL;
		else if (n == 3 && !strncasecmp(s, "p2p", 3))
			m |= ST_MICRO_P2P;
		else if (n == 3 && !strncasecmp(s, "net", 3))
			m |= ST_MICRO_NET;
		else {
			if (bad && len) {
				if (n >= len)
					n = len - 1;
				memcpy(bad, s, n);
				bad[n] = '\0';
			}
			return -EINVAL;
		}
		if (!s[n])
			break;
		s += n + 1;
	}
	*mask = m;
	return 0;
}

/* At most this many items in a --pairs list. */
#define ST_MICRO_MAX_PAIRS 256

/*
 * The operation of one "op:size" item of a --pairs list: the 'len'
 * bytes at 'item'.  The operation is one name as st_micro_ops_parse()
 * takes it, but not a group.  Returns its enum st_micro_op and points
 * '*size' at the size text (its length in '*size_len'), which the caller
 * parses; -EINVAL when the item has no ':' or names no single operation.
 */
static inline int st_micro_pair_split(const char *item, size_t len,
				      const char **size, size_t *size_len)
{
	const char *colon = memchr(item, ':', len);
	char name[32];
	unsigned mask;
	size_t n;
	int op;

	if (!colon)
		return -EINVAL;
	n = (size_t)(colon - item);
	if (!n || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, item, n);
	name[n] = '\0';
	if (strchr(name, ',') || st_micro_ops_parse(name, &mask, NULL, 0) ||
	    !mask || (mask & (mask - 1)))
		return -EINVAL;
	for (op = 0; !(mask & 1u << op); op++)
		;
	*size = colon + 1;
	*size_len = len - n - 1;
	return op;
}

/*
 * A collective's item may end in "/PREV:PSIZE": the operation and size
 * of its warm-up call, which is by default the item's own (see
 * --cold-coll); 'synctrace bench --like' gives a collective the
 * operation more than half its instances followed in the run, when
 * that was another collective or an MPI_Sendrecv (st_micro_warm_ok()),
 * at the median of its sizes there.  Cuts it off the size text of
 * st_micro_pair_split(), before the "@US" below, and points '*prev' at
 * it ('*prev_len' bytes, an item for st_micro_pair_split()), NULL when
 * there is none.  Returns 0, or -EINVAL for an empty one or one on a
 * point-to-point item.
 */
static inline int st_micro_pair_prev(int op, const char *size,
				     size_t *size_len, const char **prev,
				     size_t *prev_len)
{
	const char *slash = memchr(size, '/', *size_len);

	*prev = NULL;
	*prev_len = 0;
	if (!slash)
		return 0;
	if (op >= ST_MICRO_P2P_FIRST || slash + 1 == size + *size_len)
		return -EINVAL;
	*prev = slash + 1;
	*prev_len = (size_t)(size + *size_len - slash - 1);
	*size_len = (size_t)(slash - size);
	return 0;
}

/* Whether 'op' can be a collective's warm-up call ("/PREV:PSIZE"). */
static inline int st_micro_warm_ok(int op)
{
	return op >= 0 && (op < ST_MICRO_P2P_FIRST || op == ST_MICRO_SENDRECV);
}

/*
 * A collective's item may end in "@US": the quiet time, in whole
 * microseconds (0 to ST_MICRO_MAX_GAP_US), the bench puts between its
 * warm-up call and the timed one ('synctrace bench --like' reads it from
 * the run).  Cuts it off the size text of st_micro_pair_split() and sets
 * '*gap_us' (-1 when there is none).  Returns 0, or -EINVAL for a bad
 * gap or one on a point-to-point item.
 */
#define ST_MICRO_MAX_GAP_US 2000
#define ST_MICRO_DEFAULT_GAP_US 25	/* plain bench: the apps' typical */

static inline int st_micro_pair_gap(int op, const char *size,
				    size_t *size_len, long *gap_us)
{
	const char *at = memchr(size, '@', *size_len);
	long v = 0;
	size_t i;

	*gap_us = -1;
	if (!at)
		return 0;
	if (op >= ST_MICRO_P2P_FIRST || at + 1 == size + *size_len)
		return -EINVAL;
	for (i = (size_t)(at + 1 - size); i < *size_len; i++) {
		if (size[i] < '0' || size[i] > '9')
			return -EINVAL;
		v = 10 * v + (size[i] - '0');
		if (v > ST_MICRO_MAX_GAP_US)
			return -EINVAL;
	}
	*size_len = (size_t)(at - size);
	*gap_us = v;
	return 0;
}

/*
 * One --pairs item, the 'len' bytes at 'item': "OP:SIZE", a
 * collective's optionally with "@US" and "/PREV:PSIZE" (above).  Points
 * '*size' at its size text ('*size_len' bytes) and '*psize' at the
 * warm-up's (NULL, 0 when none); sets '*gap_us' (-1: none) and
 * '*prev_op' (-1: none).  The caller parses the sizes.  Returns the
 * operation, or -EINVAL for a bad item.
 */
static inline int st_micro_pair_parse(const char *item, size_t len,
				      const char **size, size_t *size_len,
				      long *gap_us, int *prev_op,
				      const char **psize, size_t *psize_len)
{
	const char *prev;
	size_t prev_len;
	int op = st_micro_pair_split(item, len, size, size_len);

	*prev_op = -1;
	*psize = NULL;
	*psize_len = 0;
	if (op < 0 ||
	    st_micro_pair_prev(op, *size, size_len, &prev, &prev_len) ||
	    (prev && !st_micro_warm_ok(*prev_op = st_micro_pair_split(
					       prev, prev_len, psize,
					       psize_len))) ||
	    st_micro_pair_gap(op, *size, size_len, gap_us))
		return -EINVAL;
	return op;
}

#endif
