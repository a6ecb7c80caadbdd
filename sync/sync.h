/*
 * sync/sync.h: public; clock synchronisation.  Every rank learns a linear
 * model that maps its local clock to the global clock (rank 0's), using
 * the hierarchical algorithm HCA of Hunold and Carpen-Amarie ("MPI
 * Benchmarking Revisited", Alg 2-4): pairwise drift models learned along
 * a binary tree in O(log p) rounds and merged towards the root, with
 * intercepts re-measured against the root by SKaMPI ping-pongs (HCA) or
 * merged too (HCA2).  Offset-only SKaMPI and Jones-Koenig are here for
 * comparison.  The sync state keeps every offset sample, so a refresh
 * during the run adds a few samples and refits over the whole span, and
 * each epoch can be stored in the trace as a record from which tools
 * recompute global time offline.  Library code: functions return 0 or a
 * negative errno, and never print or exit.
 */
#ifndef ST_SYNC_SYNC_H
#define ST_SYNC_SYNC_H

#include <stddef.h>
#include <stdint.h>

struct st_transport;
struct st_sync;
struct st_sync_timeline;

/*
 * A linear clock model of one rank against the reference clock (rank 0).
 * All times are nanoseconds held in doubles.  't' is the rank's local
 * time: its raw clock minus its origin (st_sync_origin()), so t = 0 at
 * the start of synchronisation.  The global time 'g' is rank 0's local
 * time, that is rank 0's raw clock minus rank 0's origin.  The model
 * gives the offset "local minus reference" as a function of local time:
 *
 *	d(t) = slope * t + intercept
 *	g    = t - d(t) = (1 - slope) * t - intercept
 *
 * A positive slope means this clock runs faster than rank 0's; for
 * synthetic clocks c = (1 + e_c) T + o_c against r = (1 + e_r) T + o_r,
 * slope = 1 - (1 + e_r) / (1 + e_c), about e_c - e_r.  The identity model
 * {0, 0} is rank 0's.  This is the convention of ReproMPI's code
 * (Get_Normalized_Time, Merge_LMs); the same form maps any clock to any
 * reference clock, which is what st_clock_model_merge() chains.
 */
struct st_clock_model {
	double slope;
	double intercept;	/* ns */
};

/* The identity model {0, 0}: global time equals local time. */
struct st_clock_model st_clock_model_identity(void);

/* Global time of local time 't_ns' under 'm': t - (slope * t + intercept). */
double st_clock_model_apply(struct st_clock_model m, double t_ns);

/*
 * The inverse of 'm', in the same form: applying '*out' to a global time
 * gives the local time that 'm' maps to it.  Returns 0, or -EINVAL (and
 * leaves '*out' alone) if 'm' is not invertible (slope 1 or not finite).
 */
int st_clock_model_invert(struct st_clock_model m, struct st_clock_model *out);

/*
 * Chain two models: 'upper' maps clock B to clock C, 'lower' maps clock A
 * to clock B; the result maps A to C, i.e. apply(result, t) equals
 * apply(upper, apply(lower, t)).  With A a child, B its parent and C the
 * root: slope = s_u + s_l - s_u * s_l, intercept = i_u + i_l - s_u * i_l.
 * Merging with the identity on either side gives the other model.
 */
struct st_clock_model st_clock_model_merge(struct st_clock_model upper,
					   struct st_clock_model lower);

/* Algorithms.  The numbers are stored in sync records: never reuse one. */
enum st_sync_method {
	/* slopes along the tree, intercepts against rank 0 (default) */
	ST_SYNC_HCA = 0,
	/* slopes and intercepts along the tree: O(log p) rounds only */
	ST_SYNC_HCA2 = 1,
	/* offset only (slope 0), each rank against rank 0: O(p) */
	ST_SYNC_SKAMPI = 2,
	/* offset only, offsets added along the tree (Netgauge-like) */
	ST_SYNC_SKAMPI_TREE = 3,
	/* Jones-Koenig: a linear fit of each rank against rank 0 */
	ST_SYNC_JK = 4,
	ST_SYNC_NMETHODS = 5
};

/* "hca", "hca2", "skampi", "skampi-tree", "jk"; "?" when out of range. */
const char *st_sync_method_name(int method);

/* The method called 'name' (as above), or -EINVAL. */
int st_sync_method_parse(const char *name);

/*
 * Parameters.  Every rank must pass the same values.  The defaults
 * (st_sync_params_init()) finish in about 25 ms at 2 ranks on shared
 * memory (one ping-pong ~1 us), plus ~20 ms per further tree level; the
 * slope they give is good to 1e-7..1e-6 per tree edge, which refreshes
 * then improve.  st_sync_init() refuses (-EINVAL) fit_points outside
 * 2..100000, exchanges outside 1..10000, min_pingpongs < 2, pingpongs
 * outside min_pingpongs..100000, rtt_pingpongs outside 1..1000000,
 * refresh_points outside 1..100000 and fit_span_ns above one hour.
 */
struct st_sync_params {
	int method;		/* enum st_sync_method (ST_SYNC_HCA) */
	/*
	 * Fit points per pairwise model at init (HCA, HCA2, JK); default 32.
	 * Each is the offset from 'exchanges' ping-pongs: the one with the
	 * smallest round trip (HCA, HCA2), or the median corrected by the
	 * estimated RTT / 2 (JK).  Default 8.
	 */
	int fit_points;
	int exchanges;
	/*
	 * The fit points of one model are spread over at least this much
	 * local time (busy-waiting on the clock in between), since the
	 * slope's error is the offset noise divided by the span.  Default
	 * 20 ms; 0 takes them back to back.
	 */
	uint64_t fit_span_ns;
	/*
	 * SKaMPI offsets (intercepts of HCA, SKaMPI methods): at most
	 * 'pingpongs' pipelined ping-pongs (default 32), and once a minimum
	 * round trip is cached for the pair (after the first measurement),
	 * stop after 'min_pingpongs' (default 8) as soon as a round trip is
	 * within 110% of it.
	 */
	int pingpongs;
	int min_pingpongs;
	/* Ping-pongs of the RTT estimation of JK (Alg 17); default 100. */
	int rtt_pingpongs;
	/* Fit points per model added by st_sync_refresh(); default 2. */
	int refresh_points;
	/*
	 * Node awareness: NULL (every rank synchronises), or 'size' entries
	 * where leader[r] is the rank that synchronises for rank r, normally
	 * the lowest rank on r's node.  Leaders are their own leaders and
	 * rank 0 is one.  Only leaders measure; each other rank is handed its
	 * leader's model and origin (they must read the same physical clock
	 * through 'now_ns').  Copied by st_sync_init().
	 */
	const int *leader;
};

/* Fill 'p' with the defaults above. */
void st_sync_params_init(struct st_sync_params *p);

/*
 * This rank's synchronisation result.  The error at local time t is at
 * most err_ns + slope_err * |t - anchor_ns| for HCA and HCA2: bounds, not
 * standard errors, that hold at any load as long as the clocks run
 * linearly, since each offset measured is within half its round trip of
 * the truth (the reply was stamped during the round trip).  err_ns is
 * the SKaMPI interval's half-width (HCA) or the line's distance from the
 * last sample plus that sample's half round trip (HCA2), slope_err the
 * widest distance from the slope to the slopes every pair of samples
 * allows; both add up along the tree.  slope_err is NaN when no line fits
 * the samples.  JK's errors are the fit's standard errors (JK does not
 * time its requests, so it has no bound), SKaMPI's slope_err the drift it
 * saw and ignores.  A constant asymmetry between the two directions of a
 * link is invisible to any round-trip method, but stays within the half
 * round trip.
 */
struct st_sync_estimate {
	struct st_clock_model model;	/* identity on rank 0 */
	double anchor_ns;	/* local time where err_ns holds */
	double err_ns;		/* error of global time at anchor_ns */
	double slope_err;	/* error of the slope; NaN: unknown */
	double span_ns;		/* local time spanned by the samples */
	double rtt_ns;		/* least round trip to the reference */
	uint64_t duration_ns;	/* of the last init or refresh */
	int epoch;		/* 0 after init, k after refresh k */
};

/* err_ns + slope_err * |t_ns - anchor_ns|; NaN if slope_err is NaN. */
double st_sync_estimate_err_at(const struct st_sync_estimate *e, double t_ns);

/*
 * Synchronise: every rank of 'tp' calls this with the same 'params'
 * (NULL for the defaults).  On success '*out' is a new state owned by the
 * caller (st_sync_free()), holding this rank's origin (its raw clock at
 * the start, or its leader's), its samples and model.  Returns 0, -EINVAL
 * for bad parameters (every rank finds the same, before any message),
 * -ENOMEM, or an error of the transport; after a transport error other
 * ranks may be left blocked, so the caller must give up synchronisation.
 */
int st_sync_init(struct st_sync **out, const struct st_transport *tp,
		 const struct st_sync_params *params);

/*
 * Refresh: every rank calls this collectively, with 'tp' equal to the
 * init's (same ranks, same clock).  Each model gets 'refresh_points'
 * more fit points taken now (and HCA and SKaMPI a new offset against
 * rank 0, cheap thanks to the cached round trip), then is refitted over
 * all its samples since init, so a longer span gives a better slope.
 * Starts a new epoch.  Returns as st_sync_init().
 */
int st_sync_refresh(struct st_sync *s, const struct st_transport *tp);

/* Free 's' (NULL is fine). */
void st_sync_free(struct st_sync *s);

/* Copy this rank's current result into '*e'. */
void st_sync_result(const struct st_sync *s, struct st_sync_estimate *e);

/* This rank's origin: the raw clock value that is local time 0. */
uint64_t st_sync_origin(const struct st_sync *s);

/* Global time (ns since rank 0's origin) of this rank's raw clock 'raw_ns'. */
double st_sync_global(const struct st_sync *s, uint64_t raw_ns);

/*
 * Check the result as Hunold and Carpen-Amarie do (Alg 20): rank 0
 * exchanges 'rounds' ping-pongs with every other rank, each carrying the
 * partner's global time, and takes the offset between the global clocks
 * from the exchange with the smallest round trip.  Collective.  On rank
 * 0, '*max_abs_ns' gets the largest absolute offset (0 elsewhere), which
 * measures the sync error to within that round trip / 2.  Returns as
 * st_sync_init(), -EINVAL if 'rounds' < 1.
 */
int st_sync_check(const struct st_sync *s, const struct st_transport *tp,
		  int rounds, double *max_abs_ns);

/*
 * Round-trip time between this rank and 'peer' (Alg 17): both call it.
 * The lower rank times 5 warm-up and 'n' ping-pongs, drops values above
 * 1.5 times the third quartile, and sends the mean to the other, so both
 * get it in '*rtt_ns'.  Returns 0, -EINVAL, or a transport error.
 */
int st_sync_rtt(const struct st_transport *tp, int peer, int n,
		double *rtt_ns);

/*
 * Sync records.  st_sync_encode() stores one epoch of a rank in a blob
 * (the trace keeps one per init and refresh); st_sync_record_parse()
 * reads it back.  Format, version 1, all little-endian, doubles as
 * IEEE-754 binary64:
 *
 *	off  size  field
 *	  0    4  magic "STSY"
 *	  4    2  version, 1
 *	  6    1  method (enum st_sync_method)
 *	  7    1  flags: bit 0 ST_SYNC_REC_MEMBER (model handed over by the
 *		  node leader), bit 1 ST_SYNC_REC_ALL (samples of every epoch
 *		  up to this one, not only this epoch's); others 0
 *	  8    4  rank (int32)
 *	 12    4  size: number of ranks (int32)
 *	 16    4  leader: rank whose measurements the model rests on (int32)
 *	 20    4  parent: rank the edge samples were taken against, -1 if
 *		  none (int32)
 *	 24    4  epoch (uint32): 0 for init, k for the k-th refresh
 *	 28    4  n_edge: edge samples below (uint32)
 *	 32    4  n_root: root samples below (uint32)
 *	 36    4  first_edge: index among all edge samples since init of
 *		  the first one below (uint32)
 *	 40    4  first_root: the same for root samples (uint32)
 *	 44    4  zero
 *	 48    8  origin_ns: raw clock value of local time 0 (uint64)
 *	 56    8  root_origin_ns: rank 0's origin, on rank 0's raw clock
 *	 64    8  duration_ns (uint64)
 *	 72    8  slope		(struct st_sync_estimate, double)
 *	 80    8  intercept
 *	 88    8  anchor_ns
 *	 96    8  err_ns
 *	104    8  slope_err
 *	112    8  span_ns
 *	120    8  rtt_ns
 *	128 28*n  n_edge then n_root samples: t_ns, offset_ns, rtt_ns
 *		  (doubles), epoch (uint32)
 *	 end   4  CRC-32 (that of zlib and IEEE 802.3) of all bytes before
 *
 * Edge samples are offsets against the tree parent (HCA, HCA2, SKaMPI
 * tree); root samples are offsets against rank 0 (HCA intercepts,
 * SKaMPI, JK).  A version other than 1 is refused.
 */
#define ST_SYNC_RECORD_VERSION 1
#define ST_SYNC_RECORD_HEADER 128	/* bytes before the samples */
#define ST_SYNC_SAMPLE_BYTES 28
#define ST_SYNC_REC_MEMBER 0x1u
#define ST_SYNC_REC_ALL 0x2u

/*
 * One offset measurement: at this rank's local time 't_ns' its clock was
 * 'offset_ns' ahead of the reference's local clock (local minus
 * reference), from an exchange with round trip 'rtt_ns'.
 */
struct st_sync_sample {
	double t_ns;
	double offset_ns;
	double rtt_ns;
	uint32_t epoch;
};

/* A parsed record; 'edge' and 'root' are owned by it. */
struct st_sync_record {
	int method;
	unsigned flags;		/* ST_SYNC_REC_* */
	int rank, size, leader, parent;
	uint32_t epoch;
	uint32_t first_edge, first_root;
	uint64_t origin_ns, root_origin_ns;
	struct st_sync_estimate est;	/* est.epoch, est.duration_ns set */
	size_t n_edge, n_root;
	struct st_sync_sample *edge, *root;
};

/*
 * Encode the current epoch of 's' into 'buf', which has room for '*len'
 * bytes; with 'flags' ST_SYNC_REC_ALL, the samples of all epochs go in.
 * '*len' is set to the blob's size.  Returns 0, or -ENOSPC (nothing
 * written) if it does not fit: call with '*len' 0 to learn the size.
 */
int st_sync_encode(const struct st_sync *s, unsigned flags, void *buf,
		   size_t *len);

/*
 * Parse the blob 'buf' of 'len' bytes into 'rec'.  Returns 0; -EBADMSG
 * for a truncated, corrupted or foreign blob or an unknown version, with
 * 'rec' left empty; -ENOMEM.  Release 'rec' with st_sync_record_release().
 */
int st_sync_record_parse(struct st_sync_record *rec, const void *buf,
			 size_t len);

/* Free the samples of 'rec' and clear it. */
void st_sync_record_release(struct st_sync_record *rec);

/*
 * Offline global time of one rank, piecewise between sync epochs.  Each
 * record adds a knot at its anchor (local time a_k, offset d_k given by
 * that epoch's model).  Between two knots the offset is interpolated
 * linearly, so the drift between refreshes is what the two measurements
 * say; before the first knot the first model applies, after the last the
 * last model.
 */
int st_sync_timeline_new(struct st_sync_timeline **out);
void st_sync_timeline_free(struct st_sync_timeline *tl);

/*
 * Add the record 'rec' of this timeline's rank.  Records must come in
 * increasing epoch order, from one rank with one origin.  Returns 0,
 * -EINVAL (wrong order, rank or origin; nothing added), -ENOMEM.
 */
int st_sync_timeline_add(struct st_sync_timeline *tl,
			 const struct st_sync_record *rec);

/*
 * Global time (ns since rank 0's origin) of the raw clock value 'raw_ns'
 * of the timeline's rank.  With no record added, 'raw_ns' as a double.
 */
double st_sync_timeline_global(const struct st_sync_timeline *tl,
			       uint64_t raw_ns);

/* Rank 0's origin as recorded, to turn global time into rank 0's clock. */
uint64_t st_sync_timeline_root_origin(const struct st_sync_timeline *tl);

#endif
