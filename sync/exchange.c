/*
 * sync/exchange.c: the ping-pong exchanges all algorithms are made of:
 * a fit point from the fastest of a few requests (HCA), a Jones-Koenig
 * point (median, corrected by an RTT estimate), SKaMPI's pipelined
 * ping-pong that bounds an offset from both sides, and the RTT estimate
 * of Alg 17.  Every exchange alternates send and receive between its two
 * ranks, so it cannot deadlock even if every send is synchronous.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sync/internal.h"

int64_t st_x_now(const struct st_transport *tp, uint64_t origin_ns)
{
	return (int64_t)(tp->now_ns(tp->ctx) - origin_ns);
}

void st_x_wait_until(const struct st_transport *tp, uint64_t origin_ns,
		     int64_t t_ns)
{
	while (st_x_now(tp, origin_ns) < t_ns)
		;
}

int st_x_send(const struct st_transport *tp, int peer, const uint64_t *w,
	      size_t n)
{
	uint8_t buf[8 * ST_X_MAXWORDS];
	size_t i, b;

	if (n > ST_X_MAXWORDS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			buf[8 * i + b] = (uint8_t)(w[i] >> (8 * b));
	return tp->send(tp->ctx, peer, buf, 8 * n);
}

int st_x_recv(const struct st_transport *tp, int peer, uint64_t *w, size_t n)
{
	uint8_t buf[8 * ST_X_MAXWORDS];
	size_t i, b;
	int rc;

	if (n > ST_X_MAXWORDS)
		return -EINVAL;
	if ((rc = tp->recv(tp->ctx, peer, buf, 8 * n)))
		return rc;
	for (i = 0; i < n; i++) {
		w[i] = 0;
		for (b = 0; b < 8; b++)
			w[i] |= (uint64_t)buf[8 * i + b] << (8 * b);
	}
	return 0;
}

uint64_t st_x_dbits(double d)
{
	uint64_t w;

	memcpy(&w, &d, sizeof(w));
	return w;
}

double st_x_bitsd(uint64_t w)
{
	double d;

	memcpy(&d, &w, sizeof(d));
	return d;
}

int st_x_serve(const struct st_transport *tp, int peer, uint64_t origin_ns,
	       int n)
{
	uint64_t w;
	int i, rc;

	for (i = 0; i < n; i++) {
		if ((rc = st_x_recv(tp, peer, &w, 1)))
			return rc;
		w = (uint64_t)st_x_now(tp, origin_ns);
		if ((rc = st_x_send(tp, peer, &w, 1)))
			return rc;
	}
	return 0;
}

int st_x_minrtt_point(const struct st_transport *tp, int peer,
		      uint64_t origin_ns, int nexch,
		      struct st_sync_sample *out)
{
	double best = INFINITY;
	int i, rc;

	for (i = 0; i < nexch; i++) {
		int64_t s, e;
		uint64_t w;

		s = st_x_now(tp, origin_ns);
		w = (uint64_t)s;
		if ((rc = st_x_send(tp, peer, &w, 1)) ||
		    (rc = st_x_recv(tp, peer, &w, 1)))
			return rc;
		e = st_x_now(tp, origin_ns);
		/*
		 * The reply was stamped between s and e; with equal delays
		 * both ways, at their midpoint.
		 */
		if ((double)(e - s) < best) {
			best = (double)(e - s);
			out->t_ns = (double)s + best / 2.0;
			out->offset_ns = out->t_ns - (double)(int64_t)w;
		}
	}
	out->rtt_ns = best;
	return 0;
}

int st_x_jk_point(const struct st_transport *tp, int peer, uint64_t origin_ns,
		  int nexch, double rtt_ns, double *scratch,
		  struct st_sync_sample *out)
{
	double *diff = scratch, *loc = scratch + nexch, key;
	int i, j, rc, mid;

	for (i = 0; i < nexch; i++) {
		uint64_t w = 0;
		int64_t l;

		if ((rc = st_x_send(tp, peer, &w, 1)) ||
		    (rc = st_x_recv(tp, peer, &w, 1)))
			return rc;
		l = st_x_now(tp, origin_ns);
		diff[i] = (double)(l - (int64_t)w) - rtt_ns / 2.0;
		loc[i] = (double)l;
	}
	/* Insertion sort of the pairs by offset keeps them together. */
	for (i = 1; i < nexch; i++) {
		double l = loc[i];

		key = diff[i];
		for (j = i; j > 0 && diff[j - 1] > key; j--) {
			diff[j] = diff[j - 1];
			loc[j] = loc[j - 1];
		}
		diff[j] = key;
		loc[j] = l;
	}
	mid = (nexch - 1) / 2;
	out->t_ns = loc[mid];
	out->offset_ns = diff[mid];
	out->rtt_ns = rtt_ns;
	return 0;
}

int st_x_skampi_ref(const struct st_transport *tp, int peer,
		    uint64_t origin_ns, int maxpp, int minpp, double *cache)
{
	double best = INFINITY, rtt;
	int64_t s_last, s_now;
	uint64_t w;
	int n, rc;

	s_last = st_x_now(tp, origin_ns);
	w = (uint64_t)s_last;
	if ((rc = st_x_send(tp, peer, &w, 1)))
		return rc;
	for (n = 1;; n++) {
		if ((rc = st_x_recv(tp, peer, &w, 1)))
			return rc;
		s_now = st_x_now(tp, origin_ns);
		rtt = (double)(s_now - s_last);
		best = fmin(best, rtt);
		if (n >= maxpp ||
		    (n >= minpp && *cache > 0 && rtt <= 1.1 * *cache)) {
			w = ST_X_TERM;
			if ((rc = st_x_send(tp, peer, &w, 1)))
				return rc;
			break;
		}
		/* s_now doubles as the next ping: the exchange pipelines. */
		w = (uint64_t)s_now;
		if ((rc = st_x_send(tp, peer, &w, 1)))
			return rc;
		s_last = s_now;
	}
	if (*cache <= 0 || best < *cache)
		*cache = best;
	return 0;
}

int st_x_skampi_client(const struct st_transport *tp, int peer,
		       uint64_t origin_ns, double slope,
		       struct st_sync_sample *out, double *half,
		       double *window)
{
	double lo = -INFINITY, hi = INFINITY, best = INFINITY, mid;
	int64_t s_last, s_now, t_first, t_last, t_now;
	uint64_t w;
	int rc;

	if ((rc = st_x_recv(tp, peer, &w, 1)))
		return rc;
	s_last = (int64_t)w;
	t_first = t_last = st_x_now(tp, origin_ns);
	w = (uint64_t)t_last;
	if ((rc = st_x_send(tp, peer, &w, 1)))
		return rc;
	for (;;) {
		if ((rc = st_x_recv(tp, peer, &w, 1)))
			return rc;
		if (w == ST_X_TERM)
			break;
		s_now = (int64_t)w;
		t_now = st_x_now(tp, origin_ns);
		/*
		 * Bounds on ref minus client: s_last was read before t_last
		 * and s_now before t_now (lower); s_now after t_last (upper).
		 * Each holds at its own moment; moved to t_first along the
		 * drift 'slope', they still meet when the exchange is slow.
		 */
		lo = fmax(lo, (double)(s_last - t_last) +
			      slope * (double)(t_last - t_first));
		lo = fmax(lo, (double)(s_now - t_now) +
			      slope * (double)(t_now - t_first));
		hi = fmin(hi, (double)(s_now - t_last) +
			      slope * (double)(t_last - t_first));
		best = fmin(best, (double)(t_now - t_last));
		w = (uint64_t)t_now;
		if ((rc = st_x_send(tp, peer, &w, 1)))
			return rc;
		s_last = s_now;
		t_last = t_now;
	}
	if (!isfinite(lo) || !isfinite(hi))
		return -EPROTO;
	out->t_ns = ((double)t_first + (double)t_last) / 2.0;
	mid = (lo + hi) / 2.0 - slope * (out->t_ns - (double)t_first);
	out->offset_ns = -mid;
	out->rtt_ns = best;
	*half = fabs(hi - lo) / 2.0;
	*window = (double)(t_last - t_first);
	return 0;
}

#define RTT_WARMUP 5

/* Mean of the 'n' round trips 'v' at most 1.5 times the third quartile. */
static double rtt_mean(double *v, int n)
{
	double q3, pos, sum = 0;
	int i, k = 0, lo;

	st_sort_doubles(v, (size_t)n);
	pos = 0.75 * (double)(n - 1);
	lo = (int)pos;
	q3 = lo + 1 < n ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
	for (i = 0; i < n; i++)
		if (v[i] <= 1.5 * q3) {
			sum += v[i];
			k++;
		}
	return k ? sum / k : q3;
}

int st_sync_rtt(const struct st_transport *tp, int peer, int n,
		double *rtt_ns)
{
	uint64_t w;
	double *v;
	int i, rc = 0;

	if (!tp || !rtt_ns || peer < 0 || peer >= tp->size ||
	    peer == tp->rank || n < 1 || n > 1000000)
		return -EINVAL;
	if (tp->rank > peer) {
		for (i = 0; i < RTT_WARMUP + n; i++) {
			if ((rc = st_x_recv(tp, peer, &w, 1)))
				return rc;
			w = tp->now_ns(tp->ctx);
			if ((rc = st_x_send(tp, peer, &w, 1)))
				return rc;
		}
		if ((rc = st_x_recv(tp, peer, &w, 1)))
			return rc;
		*rtt_ns = st_x_bitsd(w);
		return 0;
	}
	v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < RTT_WARMUP + n; i++) {
		uint64_t s = tp->now_ns(tp->ctx), e;

		w = s;
		if ((rc = st_x_send(tp, peer, &w, 1)) ||
		    (rc = st_x_recv(tp, peer, &w, 1)))
			goto out;
		e = tp->now_ns(tp->ctx);
		if (i >= RTT_WARMUP)
			v[i - RTT_WARMUP] = (double)(int64_t)(e - s);
	}
	*rtt_ns = rtt_mean(v, n);
	w = st_x_dbits(*rtt_ns);
	rc = st_x_send(tp, peer, &w, 1);
out:
	free(v);
	return rc;
}
