/*
 * sync/internal.h: private to sync/.  The sync state, the ping-pong
 * exchanges every algorithm is built from (exchange.c), and the least
 * squares fit (model.c).  Exchanged timestamps are local times: the raw
 * clock minus the sender's origin, as int64 nanoseconds, little-endian on
 * the wire.
 */
#ifndef ST_SYNC_INTERNAL_H
#define ST_SYNC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sync/sync.h"
#include "sync/transport.h"

/* A growable array of samples. */
struct st_samples {
	struct st_sync_sample *v;
	size_t n, alloc;
};

int st_samples_push(struct st_samples *a, const struct st_sync_sample *x);
void st_samples_release(struct st_samples *a);

struct st_sync {
	struct st_sync_params params;	/* .leader points to 'leader' */
	int *leader;		/* copy of the caller's, or NULL */
	int rank, size;		/* in the caller's transport */
	int member;		/* handed its model by leader[rank] */
	int *vmap;		/* leader index ("vrank") -> rank */
	int vrank, vsize;	/* among leaders; vrank -1 for a member */
	int vparent;		/* tree parent as a vrank, -1 for none */
	uint64_t origin_ns, root_origin_ns;
	struct st_sync_estimate est;

	/* Offsets against the tree parent, and against the root. */
	struct st_samples edge, root;
	size_t edge_mark, root_mark;	/* first sample of this epoch */
	double edge_half, root_half;	/* last SKaMPI half-widths */
	double root_window;	/* local time the last root SKaMPI spanned */
	/* Slopes the edge samples allow (st_slope_bounds()), and how many
	 * samples went into them. */
	double edge_lo, edge_hi;
	size_t edge_bounded;

	double *min_rtt;	/* by vrank: smallest SKaMPI round trip as p1 */
	double jk_rtt;		/* JK: RTT to the root (st_sync_rtt()) */
};

/* Do ranks of 'method' measure against a tree parent? */
static inline int st_sync_uses_tree(int method)
{
	return method == ST_SYNC_HCA || method == ST_SYNC_HCA2 ||
	       method == ST_SYNC_SKAMPI_TREE;
}

/* Sent instead of a timestamp to end a SKaMPI exchange. */
#define ST_X_TERM ((uint64_t)1 << 63)

/* Local time of 'tp' against 'origin_ns'. */
int64_t st_x_now(const struct st_transport *tp, uint64_t origin_ns);

/* Busy-wait until the local time is at least 't_ns'. */
void st_x_wait_until(const struct st_transport *tp, uint64_t origin_ns,
		     int64_t t_ns);

/* Send or receive 'n' (at most ST_X_MAXWORDS) 64-bit words. */
#define ST_X_MAXWORDS 16
int st_x_send(const struct st_transport *tp, int peer, const uint64_t *w,
	      size_t n);
int st_x_recv(const struct st_transport *tp, int peer, uint64_t *w, size_t n);

/* A double's bits as a word and back. */
uint64_t st_x_dbits(double d);
double st_x_bitsd(uint64_t w);

/*
 * Answer 'n' requests of 'peer' with this rank's local time: the
 * reference side of st_x_minrtt_point() and st_x_jk_point().
 */
int st_x_serve(const struct st_transport *tp, int peer, uint64_t origin_ns,
	       int n);

/*
 * One fit point against 'peer' (which runs st_x_serve()): 'nexch' timed
 * requests, keeping the one with the smallest round trip.  Its offset is
 * the midpoint of the request minus the reply's timestamp.
 */
int st_x_minrtt_point(const struct st_transport *tp, int peer,
		      uint64_t origin_ns, int nexch,
		      struct st_sync_sample *out);

/*
 * One Jones-Koenig fit point: 'nexch' requests, each offset the local
 * arrival of the reply minus its timestamp minus 'rtt_ns' / 2; the
 * median is kept (for even 'nexch' the median of the lowest nexch - 1, so
 * that it is a sample).  'scratch' holds 2 * 'nexch' doubles.
 */
int st_x_jk_point(const struct st_transport *tp, int peer, uint64_t origin_ns,
		  int nexch, double rtt_ns, double *scratch,
		  struct st_sync_sample *out);

/*
 * SKaMPI's pipelined ping-pong (sk_sync.c): the reference 'p1' side.  At
 * most 'maxpp' ping-pongs; after 'minpp', stop once a round trip is
 * within 110% of '*cache' if that is not 0.  '*cache' then gets the
 * smallest round trip seen so far.
 */
int st_x_skampi_ref(const struct st_transport *tp, int peer,
		    uint64_t origin_ns, int maxpp, int minpp, double *cache);

/*
 * The client 'p2' side: '*out' gets the offset client minus reference at
 * the middle of the exchange, '*half' the half-width of the interval the
 * ping-pongs bound it to, '*window' the local time from the first bound
 * to the last.  Each bound holds at its own moment, so they are moved to
 * one moment along 'slope' (the drift of the client against the
 * reference, per ns of client time; 0 when unknown): an error e of
 * 'slope' leaves an error up to e * '*window' / 2 beyond '*half'.
 * -EPROTO if the exchange gave no bound.
 */
int st_x_skampi_client(const struct st_transport *tp, int peer,
		       uint64_t origin_ns, double slope,
		       struct st_sync_sample *out, double *half,
		       double *window);

/* A least squares line through samples, offset_ns over t_ns. */
struct st_fit {
	struct st_clock_model m;	/* offset = slope * t + intercept */
	double slope_se;	/* standard error of the slope; NaN if n < 3 */
	double at_se;		/* standard error of the line at 'at' */
	double span_ns;		/* max t - min t of the points used */
	double min_rtt;
	double xm;		/* weighted mean t: the line turns about it */
	size_t n;		/* points used */
};

/*
 * Fit the 'n' samples 'v', leaving out those whose round trip exceeds
 * twice the median (unless fewer than two would remain); 'at_se' is the
 * error at local time 'at'.  With one point (or all at the same time) the
 * slope is 0 and the intercept their mean offset.  Returns 0, -EINVAL if
 * 'n' is 0, -ENOMEM.
 */
int st_fit_samples(const struct st_sync_sample *v, size_t n, double at,
		   struct st_fit *out);

/*
 * How far a sample's offset can be from the truth: the reply was stamped
 * at some instant of the request's round trip, so the offset at the
 * round trip's middle is off by at most half of it, plus the rounding of
 * the three clock reads to whole nanoseconds and the drift over half the
 * round trip (up to 1000 ppm).  A causal bound: it holds at any load.
 */
double st_sample_half(const struct st_sync_sample *x);

/*
 * The slopes of the lines that pass within st_sample_half() of every
 * sample: for a line, slope a is possible exactly when every pair i, j
 * allows it (for a fixed slope the intercepts each sample allows form an
 * interval, and intervals on a line meet when every two of them do).
 * Adds the pairs of the samples v['first'..'n') with all samples before
 * them to '*lo' and '*hi' (start with -INFINITY and INFINITY; they stay
 * so until two samples differ in time).  '*lo' > '*hi' means no line
 * fits: the clocks did not run linearly.
 */
void st_slope_bounds(const struct st_sync_sample *v, size_t first, size_t n,
		     double *lo, double *hi);

/* Sort 'v' ('n' doubles) in place, ascending. */
void st_sort_doubles(double *v, size_t n);

#endif
