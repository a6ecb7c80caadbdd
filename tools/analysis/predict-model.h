/*
 * tools/analysis/predict-model.h: a cost table written by 'synctrace table
 * --json' as a replay cost model (tools/analysis/replay.h).
 *
 * Collectives: where the table measured the function at this p on both
 * sides of d, the group medians interpolated linearly in d (the data,
 * rather than a fit that may not follow it); elsewhere the table's
 * formula T(p, d) = a + b f(p) + c g(p) d, the piece that holds d; a row
 * without a formula (one group) gives the median of its group nearest in
 * (log d, p).  st_pmodel_formula_only() uses the formulas alone.  A
 * nonblocking or persistent collective, or a large-count (_c) form, is
 * costed as its blocking int form when the table has no row of its own
 * (MPI_Iallreduce, MPI_Allreduce_init, MPI_Allreduce_c: MPI_Allreduce).
 *
 * Point-to-point: the table's cost C(d) of a transfer runs from the later
 * of the send's and the receive's entry to the receive's exit.  So a
 * receive gets C(d) as its local cost after max(its entry, the send's
 * entry), which is the table's definition, with a transfer time of 0;
 * a send keeps its sender busy C(d) too (an eager copy; an upper bound
 * for small messages, since the table does not time the send alone).
 * Rows: "MPI_Send->MPI_Recv" for every send and receive function
 * (another pair, such as "MPI_Ssend->MPI_Recv", when the table has that
 * send's own), "MPI_Sendrecv" for MPI_Sendrecv(_replace).
 *
 * First calls: a group may say what the first instance of its operation
 * in a process cost ("first_ns", the median over the table's runs: lazy
 * set-up in the MPI library, cold code paths).  Its excess over the
 * group's median is what a replay adds to the first instance of each
 * (function, p, d) it costs (st_pmodel_coll_first()), from the row's
 * group with a first cost nearest in (log d, log p).
 *
 * Every lookup is counted per table row, with those outside the row's
 * fitted ranges of p and d (the formula is extrapolated there), and so
 * is every first-call excess charged.
 */
#ifndef ST_TOOLS_ANALYSIS_PREDICT_MODEL_H
#define ST_TOOLS_ANALYSIS_PREDICT_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct st_pmodel;
struct st_replay_model;
struct st_replay_msg;

/*
 * Read the table in file 'path' (or the 'len' bytes at 'text', called
 * 'name').  Returns 0, or a negative errno with a message in 'err':
 * -ENOENT (no such file), -EBADMSG (not JSON, or not a table:
 * "'x.json': not a synctrace cost table (no \"format\":
 * \"synctrace-table\")"; a group's "first_ns" that is neither null nor
 * a finite number >= 0), -ENOMEM.
 */
int st_pmodel_load(struct st_pmodel **out, const char *path, char *err,
		   size_t errlen);
int st_pmodel_parse(struct st_pmodel **out, const char *text, size_t len,
		    const char *name, char *err, size_t errlen);

void st_pmodel_free(struct st_pmodel *m);

/* With 'on', costs come from the formulas alone, never the groups. */
void st_pmodel_formula_only(struct st_pmodel *m, int on);

/*
 * With 'on', every cost of a row is multiplied by the row's mean factor
 * (st_pmodel_use.mean_factor): the table's medians and formulas say
 * what one operation typically costs, but a run time adds costs up, and
 * a few slow operations (outliers, dropped by the table's fences) weigh
 * in a sum.  Off by default.
 */
void st_pmodel_mean(struct st_pmodel *m, int on);

/*
 * 'side' < 0 (> 0): every cost at the low (high) end of the table's
 * confidence intervals: multiplied by the row's median, over its groups,
 * of each group's CI end over its median (1 where the table gives no
 * CI).  0: the costs themselves (the default).  Lookups made while a
 * bound is set do not count in st_pmodel_use.
 */
void st_pmodel_bound(struct st_pmodel *m, int side);

/*
 * The table's launches in two states, when the machine's costs moved
 * between the bench's launches as a whole: each launch's factor is the
 * median, over the groups that hold it and another launch, of its
 * median over the group's; sorted, the launches split at the largest
 * step between neighbours when that is ST_PMODEL_STATE_STEP times or
 * more.  'n' is 0 (one state: nothing to split, or no launches) or 2;
 * 'id' the launches' ids ("run_ids": their index in the table's runs),
 * cheapest first, 'f' their factors, 'split' the first of the dearer
 * state, 'factor' the median factor of each state, 'nruns' the table's
 * launches.
 */
#define ST_PMODEL_STATE_STEP 1.25
#define ST_PMODEL_MAX_LAUNCHES 64
struct st_pmodel_states {
	int n;
	size_t nlaunch, split, nruns;
	int id[ST_PMODEL_MAX_LAUNCHES];
	double f[ST_PMODEL_MAX_LAUNCHES];
	double factor[2];
};
const struct st_pmodel_states *st_pmodel_states(const struct st_pmodel *m);

/*
 * 'state' 1 (2): every cost of a row as the cheaper (dearer) state's
 * launches measured it: multiplied by the median over its groups of
 * the median of that state's launches over the group's median, over
 * its groups of two launches or more (1 where none of them measured the
 * row; a start row: the state's factor), as st_pmodel_bound() scales, and
 * lookups made then do not count either; 0: the costs themselves.
 * Nothing when the table has one state.
 */
void st_pmodel_state(struct st_pmodel *m, int state);

/*
 * What starting nonblocking send 'fn' of 'bytes' costs its sender
 * (st_replay_model.inject): the table's "call" row of 'fn' (or of
 * MPI_Isend) at that size.  Without one: with
 * st_pmodel_send_start_fallback() on, the per-message cost of its
 * point-to-point row, its cost at the smallest size measured (which
 * includes the latency the sender does not wait for); else negative, as
 * when the table has no row for it.
 */
double st_pmodel_p2p_inject(struct st_pmodel *m, unsigned fn, double bytes);
void st_pmodel_send_start_fallback(struct st_pmodel *m, int on);

/*
 * The network model (st_replay_model.msg, struct st_replay_msg in
 * tools/analysis/replay.h) of a message of 'bytes' sent by 'fn', from
 * the table's rows:
 *  - xfer_ns: the transfer C(d), its point-to-point row (as 'p2p');
 *  - send_ns: its "send-eager" row (a send's own cost when it need not
 *    wait), else C(d);
 *  - late_ns: its "recv-late" row (a receive posted after its message),
 *    else C(d);
 *  - rndv_send_ns: its "send-rendezvous" row, else C(d);
 *  - gap_ns: st_pmodel_gap();
 *  - rendezvous: st_pmodel_rendezvous();
 *  - share: st_pmodel_share(), eager or rendezvous;
 *  - xfer_nb_ns: the burst row's cost of one message (K = 1: its
 *    "burst" row, Isend and Irecv then MPI_Waitall), the transfer
 *    between nonblocking calls; 0 (C(d) then) without that group;
 *  - need: st_pmodel_progress();
 *  - xchg_ns: where 'need' is both sides, the "xchg-busy" row (a
 *    message each way, both ranks computing between their I-calls and
 *    MPI_Waitall: from the later MPI_Waitall entry to the later exit),
 *    else 0;
 *  - xchg_gap_ns: with xchg_ns, st_pmodel_xchg_gap(), else 0;
 *  - rbusy_ns: for an eager message, the "rcv-busy" row (the MPI_Wait
 *    of a receiver that computed between MPI_Irecv and MPI_Wait), else
 *    (rendezvous, or no such row) 0.
 * A table with none of the model's rows gives the costs of 'p2p' (a
 * send busy C(d), a receive C(d) after the later of its post and the
 * send) and no gap: the replay is then what it was without the model.
 * Returns 0, or -1 when the table has no point-to-point row for 'fn' or
 * the model is off (st_pmodel_network()).
 */
int st_pmodel_msg(struct st_pmodel *m, unsigned fn, double bytes,
		  struct st_replay_msg *nm);

/* With 'on' 0, st_pmodel_msg() gives nothing (the replay as before). */
void st_pmodel_network(struct st_pmodel *m, int on);

/*
 * The MPI library's start (the table's "start" rows, from synctrace
 * bench --start): st_pmodel_start_row() is the row for messages of
 * 'bytes', the one nearest in log size within a factor of 2, or -1
 * (none, or st_pmodel_no_start() set); st_pmodel_start_ns() what the
 * k-th message (0-based) of a channel at that row costs beyond the
 * steady state, 0 past the row's messages: the row's profile, scaled
 * under a bound (st_pmodel_bound()) so that a whole channel is charged
 * the least (low) or most (high) series' summed excess where the row
 * gives them (the low no more, the high no less than the profile).
 */
int st_pmodel_start_row(struct st_pmodel *m, double bytes);
double st_pmodel_start_ns(const struct st_pmodel *m, int row, uint32_t k);
void st_pmodel_no_start(struct st_pmodel *m, int off);
size_t st_pmodel_start_rows(const struct st_pmodel *m);

/* What the network model makes of the table, in a line, into 'buf'. */
void st_pmodel_net_describe(struct st_pmodel *m, char *buf, size_t len);

/*
 * What each message of 'bytes' adds when K go at once: (B(K, d) -
 * B(1, d)) / (K - 1), B the table's "burst" row at its largest K (B(1,
 * d) from its bursts of one, else the point-to-point row of 'fn'), at
 * least 0; 0 without bursts of two or more.
 */
double st_pmodel_gap(struct st_pmodel *m, unsigned fn, double bytes);

/*
 * How much a transfer of 'bytes' holds the ports of the other direction
 * too (st_replay_msg.share): (S(d) - C(d)) / g(d), S the table's
 * MPI_Sendrecv row (a message each way at once), C the point-to-point
 * row of 'fn', g st_pmodel_gap(), kept within 0..1.  Where both ranks'
 * processors move the data (TCP) a message each way costs about one gap
 * more than one alone; where the receiver alone copies a large message
 * (shared memory) about the same; small messages in shared memory a gap
 * more again (512 B: 1.84 against 1.04 us, gap 0.29).  0 when the MPI_Sendrecv row
 * was not measured on both sides of 'bytes' (or at it), without a gap,
 * and when S is not measurably more than C: where the two rows' groups
 * nearest 'bytes' (at the same size) have 2 or more launches in common,
 * when S is not dearer launch by launch (st_pmodel_paired_dearer(), at
 * the table's ci_level); else when S at the low end of its row's
 * confidence intervals is no more than C at the high end of its (a table
 * pooled from several launches holds their spread in those intervals,
 * which then hid a 1.3 to 1.7 times dearer MPI_Sendrecv over TCP).
 */
double st_pmodel_share(struct st_pmodel *m, unsigned fn, double bytes);

/*
 * The spacing of the pairs of an exchange of K messages each way
 * started together (st_replay_msg.xchg_gap_ns): (XB(K) - X(d)) / (K -
 * 1), XB the table's "xchg-burst" row at its largest K, X its
 * "xchg-busy" row; 0 without both rows, or when XB is not above X.
 */
double st_pmodel_xchg_gap(struct st_pmodel *m, double bytes);

/*
 * Whether 'a' is dearer than 'b' launch by launch: their per-launch
 * medians paired by launch id, the t interval of the mean log ratio at
 * 'level' (two-sided; 0.95 when not in 0..1) above 0.  1 yes, 0 no, -1
 * fewer than 2 launches in common (up to 256 are paired).
 */
int st_pmodel_paired_dearer(const double *a, const double *a_id, size_t na,
			    const double *b, const double *b_id, size_t nb,
			    double level);

/*
 * Whether a message of 'bytes' waits for its receive: the table's
 * "send-rendezvous" row has groups (sizes whose send waited for a late
 * receive), and 'bytes' lies above the geometric middle between the
 * largest size that did not wait and the smallest that did (above both
 * when they overlap).  A size counts as one that waited when more of
 * its late sends waited than did not (its groups' samples before the
 * fences): a sender descheduled until after the receive's post looks as
 * if it had waited.  0 without such sizes.
 */
int st_pmodel_rendezvous(struct st_pmodel *m, double bytes);

/*
 * Whether a transfer of 'bytes' moves only while its sender (bit 1)
 * and its receiver (bit 2) are inside MPI, from the bench's busy-side
 * rows at the size nearest 'bytes': the sender's, where a sender that
 * computed C = ST_MICRO_LATE_NS(d) between MPI_Isend and MPI_Wait
 * (tools/bench/micro-ops.h, "snd-busy") delayed the receive by more
 * than C / 2; the receiver's, where a receiver that computed between
 * MPI_Irecv and MPI_Wait ("rcv-busy") took more than half the burst of
 * one message at that size in its MPI_Wait.  0 without those rows
 * (and with the network model off).
 */
int st_pmodel_progress(struct st_pmodel *m, double bytes);

/* Fill 'rm' with functions over 'm' (which must outlive its use). */
void st_pmodel_replay_model(struct st_pmodel *m, struct st_replay_model *rm);

/* What the table says about itself (NULL, or -1, when it does not). */
const char *st_pmodel_mpi_library(const struct st_pmodel *m);
const char *st_pmodel_hosts(const struct st_pmodel *m);	/* "a, b" */
const char *st_pmodel_date(const struct st_pmodel *m);
long st_pmodel_p_min(const struct st_pmodel *m);
/* The level of the table's confidence intervals (0.95), NaN unknown. */
double st_pmodel_ci_level(const struct st_pmodel *m);
/* Non-zero when a run behind the table was a 'synctrace bench' run. */
int st_pmodel_from_bench(const struct st_pmodel *m);
long st_pmodel_p_max(const struct st_pmodel *m);
size_t st_pmodel_nrows(const struct st_pmodel *m);

/* One row of the table and how the replay used it. */
/* Launch medians closer than this are not said to disagree, ns. */
#define ST_PMODEL_SPREAD_FLOOR_NS 1000.0

struct st_pmodel_use {
	const char *op;		/* the row: "MPI_Allreduce"... */
	int has_formula;	/* 0: a group's median */
	long p_min, p_max;	/* fitted ranges */
	double d_min, d_max;
	uint64_t lookups;	/* costs asked of it */
	uint64_t p_out;		/* of them, p outside [p_min, p_max] */
	uint64_t d_out;		/* with d outside [d_min, d_max] */
	long p_lo, p_hi;	/* range of p asked */
	double d_lo, d_hi;	/* range of d asked */
	double mean_factor;	/* its mean time after the last arrival
				   (every sample, from the row's totals)
				   over the mean of its group medians; 1
				   when the table does not say */
	int has_first;		/* a group gives a first-call cost */
	uint64_t first_calls;	/* first instances charged an excess > 0
				   (st_pmodel_coll_first(), not under a
				   bound) */
	double first_ns;	/* their excesses summed, ns */
	/*
	 * Its group whose launches disagree most ("run_medians_ns"): the
	 * largest of their medians over the smallest (0: no group with
	 * two launches or more whose medians lie ST_PMODEL_SPREAD_FLOOR_NS
	 * or more apart), at 'spread_p' and 'spread_d' bytes, from
	 * 'spread_lo' to 'spread_hi' ns over 'spread_n' launches.
	 */
	double spread;
	long spread_p;
	double spread_d, spread_lo, spread_hi;
	size_t spread_n;
};

/* Row 'i' (0 .. st_pmodel_nrows() - 1). */
const struct st_pmodel_use *st_pmodel_use(const struct st_pmodel *m,
					  size_t i);

/*
 * The cost of collective 'fn' at ('p', 'd') and of point-to-point 'fn'
 * moving 'bytes', as the replay sees them (for tests).  Negative when
 * the table has no row for 'fn'.
 */
double st_pmodel_coll(struct st_pmodel *m, unsigned fn, long p, double d);
double st_pmodel_p2p(struct st_pmodel *m, unsigned fn, double bytes);

/*
 * What the first instance of collective 'fn' at ('p', 'd') costs on top
 * of st_pmodel_coll(): among the groups of its row (the row
 * st_pmodel_coll() uses) that give a first-call cost, the one nearest in
 * |log2((d + 1) / (g.d + 1))| + |log2(p / g.p)|, and its "first_ns" less
 * its median, at least 0 (st_replay_model.coll_first).  0 when the row
 * gives no first-call cost, and with st_pmodel_mean() on (the mean
 * factor already spreads the first calls' time over every instance);
 * not scaled by st_pmodel_bound(), and the same under
 * st_pmodel_formula_only().  Negative when the table has no row
 * for 'fn'.  An excess > 0 counts in the row's first_calls and first_ns
 * unless a bound is set: call it once per first instance.
 */
double st_pmodel_coll_first(struct st_pmodel *m, unsigned fn, long p,
			    double d);

/* The number of table rows with a group that gives a first-call cost. */
size_t st_pmodel_first_rows(const struct st_pmodel *m);

#endif
