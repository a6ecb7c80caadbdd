/*
 * sync/hca.c: the sync state and the algorithms.  Ranks are leaves of a
 * binary tree as in HCA (Alg 3): with m the largest power of two <= p,
 * round k pairs r with r + 2^(k-1) for r a multiple of 2^k below m, and a
 * last round pairs r with r + m; so every rank but the root has one parent
 * edge, on which it (the client) measures its offset against the parent.
 * Edges are then chained top down (each rank receives its parent's model
 * to the root and merges its own edge into it), which also tells every
 * rank the root's origin.  HCA replaces the chained intercept by a SKaMPI
 * offset measured directly against the root; HCA2 keeps it.  Every rank
 * runs the same sequence of pairwise exchanges, ordered by round, so no
 * rank can wait for a partner that waits for it.
 *
 * With node leaders, the algorithms run among the leaders only, through a
 * transport that renumbers them 0..L-1, and each leader then hands its
 * model to the other ranks of its node.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sync/internal.h"

/* Leaders as a transport of their own: vrank v is rank map[v]. */
struct vnet {
	const struct st_transport *base;
	const int *map;
};

static uint64_t vnow(void *ctx)
{
	const struct vnet *v = ctx;

	return v->base->now_ns(v->base->ctx);
}

static int vsend(void *ctx, int peer, const void *buf, size_t len)
{
	const struct vnet *v = ctx;

	return v->base->send(v->base->ctx, v->map[peer], buf, len);
}

static int vrecv(void *ctx, int peer, void *buf, size_t len)
{
	const struct vnet *v = ctx;

	return v->base->recv(v->base->ctx, v->map[peer], buf, len);
}

static void leader_net(const struct st_sync *s, const struct st_transport *tp,
		       struct vnet *vn, struct st_transport *out)
{
	vn->base = tp;
	vn->map = s->vmap;
	out->ctx = vn;
	out->rank = s->vrank;
	out->size = s->vsize;
	out->now_ns = vnow;
	out->send = vsend;
	out->recv = vrecv;
}

/* The largest power of two not above 'n' (n >= 1). */
static int maxpow2(int n)
{
	int m = 1;

	while (m <= n / 2)
		m *= 2;
	return m;
}

static int tree_parent(int r, int n)
{
	int m = maxpow2(n);

	if (r == 0)
		return -1;
	if (r >= m)
		return r - m;
	return r - (r & -r);
}

static int check_transport(const struct st_transport *tp)
{
	if (!tp || !tp->now_ns || !tp->send || !tp->recv || tp->size < 1 ||
	    tp->rank < 0 || tp->rank >= tp->size)
		return -EINVAL;
	return 0;
}

static int check_params(const struct st_sync_params *p, int size)
{
	int r;

	if (p->method < 0 || p->method >= ST_SYNC_NMETHODS ||
	    p->fit_points < 2 || p->fit_points > 100000 ||
	    p->exchanges < 1 || p->exchanges > 10000 ||
	    p->min_pingpongs < 2 || p->pingpongs < p->min_pingpongs ||
	    p->pingpongs > 100000 ||
	    p->rtt_pingpongs < 1 || p->rtt_pingpongs > 1000000 ||
	    p->refresh_points < 1 || p->refresh_points > 100000 ||
	    p->fit_span_ns > 3600000000000ull)
		return -EINVAL;
	if (!p->leader)
		return 0;
	if (p->leader[0] != 0)
		return -EINVAL;
	for (r = 0; r < size; r++) {
		int l = p->leader[r];

		if (l < 0 || l >= size || p->leader[l] != l)
			return -EINVAL;
	}
	return 0;
}

/* |change of offset| / time between the first and last of 'a'. */
static double offset_drift(const struct st_samples *a)
{
	const struct st_sync_sample *f, *l;

	if (a->n < 2)
		return NAN;
	f = &a->v[0];
	l = &a->v[a->n - 1];
	if (l->t_ns == f->t_ns)
		return NAN;
	return fabs((l->offset_ns - f->offset_ns) / (l->t_ns - f->t_ns));
}

/* The reference side of this rank's round with its tree child 'peer'. */
static int edge_ref(struct st_sync *s, const struct st_transport *tp,
		    int peer, int npoints)
{
	const struct st_sync_params *p = &s->params;

	if (p->method == ST_SYNC_SKAMPI_TREE)
		return st_x_skampi_ref(tp, peer, s->origin_ns, p->pingpongs,
				       p->min_pingpongs, &s->min_rtt[peer]);
	return st_x_serve(tp, peer, s->origin_ns, npoints * p->exchanges);
}

/*
 * The client side: this rank measures its offset against its parent
 * 'peer' at 'npoints' fit points, 'spacing_ns' apart from the first.
 */
static int edge_client(struct st_sync *s, const struct st_transport *tp,
		       int peer, int npoints, double spacing_ns)
{
	struct st_sync_sample x;
	double window;
	int64_t t0 = 0;
	int j, rc;

	memset(&x, 0, sizeof(x));
	x.epoch = (uint32_t)s->est.epoch;
	if (s->params.method == ST_SYNC_SKAMPI_TREE) {
		if ((rc = st_x_skampi_client(tp, peer, s->origin_ns, 0.0, &x,
					     &s->edge_half, &window)))
			return rc;
		return st_samples_push(&s->edge, &x);
	}
	for (j = 0; j < npoints; j++) {
		if (j > 0 && spacing_ns > 0)
			st_x_wait_until(tp, s->origin_ns,
					t0 + (int64_t)(j * spacing_ns));
		if ((rc = st_x_minrtt_point(tp, peer, s->origin_ns,
					    s->params.exchanges, &x)))
			return rc;
		if (j == 0)
			t0 = st_x_now(tp, s->origin_ns);
		if ((rc = st_samples_push(&s->edge, &x)))
			return rc;
	}
	return 0;
}

/* Bottom up: every pair of the tree takes its measurements, by rounds. */
static int tree_up(struct st_sync *s, const struct st_transport *tp,
		   int npoints, double spacing_ns)
{
	int r = tp->rank, n = tp->size, m = maxpow2(n), half, rc = 0;

	if (r < m)
		for (half = 1; half < m && !rc; half *= 2) {
			if (r % (2 * half) == 0)
				rc = edge_ref(s, tp, r + half, npoints);
			else if (r % (2 * half) == half)
				rc = edge_client(s, tp, r - half, npoints,
						 spacing_ns);
		}
	if (rc)
		return rc;
	if (r < n - m)
		return edge_ref(s, tp, r + m, npoints);
	if (r >= m)
		return edge_client(s, tp, r - m, npoints, spacing_ns);
	return 0;
}

/* A model with its errors, as passed down the tree. */
struct chain {
	struct st_clock_model m;
	double err, slope_err;
	uint64_t root_origin;
};

/*
 * Top down: receive the parent's chain to the root, merge this rank's
 * edge 'e' into it giving '*out', and pass that to the children.
 */
static int tree_down(struct st_sync *s, const struct st_transport *tp,
		     const struct chain *e, struct chain *out)
{
	int r = tp->rank, n = tp->size, m = maxpow2(n), half, rc;
	uint64_t w[5];

	if (r == 0) {
		out->m = st_clock_model_identity();
		out->err = 0.0;
		out->slope_err = 0.0;
		out->root_origin = s->origin_ns;
	} else {
		struct st_clock_model up;

		if ((rc = st_x_recv(tp, tree_parent(r, n), w, 5)))
			return rc;
		up.slope = st_x_bitsd(w[0]);
		up.intercept = st_x_bitsd(w[1]);
		out->m = st_clock_model_merge(up, e->m);
		/*
		 * Bounds add: with s = s_u + s_l - s_u s_l, an error e_u of
		 * s_u and e_l of s_l move s by at most
		 * e_u (1 + |s_l|) + e_l (1 + |s_u| + e_u).
		 */
		out->err = st_x_bitsd(w[2]) + e->err;
		out->slope_err = st_x_bitsd(w[3]) * (1.0 + fabs(e->m.slope)) +
				 e->slope_err * (1.0 + fabs(up.slope) +
						 st_x_bitsd(w[3]));
		out->root_origin = w[4];
	}
	w[0] = st_x_dbits(out->m.slope);
	w[1] = st_x_dbits(out->m.intercept);
	w[2] = st_x_dbits(out->err);
	w[3] = st_x_dbits(out->slope_err);
	w[4] = out->root_origin;
	if (r < m)
		for (half = m / 2; half >= 1; half /= 2)
			if (r % (2 * half) == 0 &&
			    (rc = st_x_send(tp, r + half, w, 5)))
				return rc;
	if (r < n - m)
		return st_x_send(tp, r + m, w, 5);
	return 0;
}

/*
 * SKaMPI offsets of every rank against the root, one rank after another;
 * 'slope' is this rank's drift against the root as far as known.
 */
static int root_phase(struct st_sync *s, const struct st_transport *tp,
		      double slope)
{
	const struct st_sync_params *p = &s->params;
	struct st_sync_sample x;
	int v, rc;

	if (tp->rank == 0) {
		for (v = 1; v < tp->size; v++)
			if ((rc = st_x_skampi_ref(tp, v, s->origin_ns,
						  p->pingpongs,
						  p->min_pingpongs,
						  &s->min_rtt[v])))
				return rc;
		return 0;
	}
	memset(&x, 0, sizeof(x));
	if ((rc = st_x_skampi_client(tp, 0, s->origin_ns, slope, &x,
				     &s->root_half, &s->root_window)))
		return rc;
	x.epoch = (uint32_t)s->est.epoch;
	return st_samples_push(&s->root, &x);
}

/*
 * Jones-Koenig (Alg 15): at init each rank's RTT to the root, one after
 * another; then fit points, the root serving the ranks round robin.
 */
static int jk_phase(struct st_sync *s, const struct st_transport *tp,
		    int npoints, double spacing_ns, int init)
{
	const struct st_sync_params *p = &s->params;
	struct st_sync_sample x;
	double *scratch, rtt;
	int64_t t0 = 0;
	int v, j, rc = 0;

	if (tp->rank == 0) {
		for (v = 1; v < tp->size && init && !rc; v++)
			rc = st_sync_rtt(tp, v, p->rtt_pingpongs, &rtt);
		for (j = 0; j < npoints && !rc; j++)
			for (v = 1; v < tp->size && !rc; v++)
				rc = st_x_serve(tp, v, s->origin_ns,
						p->exchanges);
		return rc;
	}
	if (init && (rc = st_sync_rtt(tp, 0, p->rtt_pingpongs, &s->jk_rtt)))
		return rc;
	scratch = malloc(2 * (size_t)p->exchanges * sizeof(*scratch));
	if (!scratch)
		return -ENOMEM;
	memset(&x, 0, sizeof(x));
	for (j = 0; j < npoints && !rc; j++) {
		if (j > 0 && spacing_ns > 0)
			st_x_wait_until(tp, s->origin_ns,
					t0 + (int64_t)(j * spacing_ns));
		rc = st_x_jk_point(tp, 0, s->origin_ns, p->exchanges,
				   s->jk_rtt, scratch, &x);
		if (rc)
			break;
		if (j == 0)
			t0 = st_x_now(tp, s->origin_ns);
		x.epoch = (uint32_t)s->est.epoch;
		rc = st_samples_push(&s->root, &x);
	}
	free(scratch);
	return rc;
}

static const struct st_sync_sample *last(const struct st_samples *a)
{
	return a->n ? &a->v[a->n - 1] : NULL;
}

/* The edge of a non-root leader, fitted from its samples. */
static int edge_chain(struct st_sync *s, struct chain *e, struct st_fit *f)
{
	const struct st_sync_sample *x = last(&s->edge);
	int rc;

	if (!x)
		return -EPROTO;
	if (s->params.method == ST_SYNC_SKAMPI_TREE) {
		e->m.slope = 0.0;
		e->m.intercept = x->offset_ns;
		e->err = s->edge_half;
		e->slope_err = offset_drift(&s->edge);
		f->span_ns = x->t_ns - s->edge.v[0].t_ns;
		f->min_rtt = x->rtt_ns;
		return 0;
	}
	if ((rc = st_fit_samples(s->edge.v, s->edge.n, x->t_ns, f)))
		return rc;
	e->m = f->m;
	/*
	 * The least squares slope is the estimate; the error is a bound: the
	 * slopes every pair of samples allows, each offset being within
	 * half its round trip of the truth.  The fit's standard error
	 * assumes errors that are independent and in proportion to the
	 * round trip, which a loaded machine breaks (a refresh measured
	 * while a rank waited for a CPU has the leverage of the whole span
	 * and an error the other points cannot show), and it came out 2 to
	 * 8 times too small.  A slope outside the bound is moved into it.
	 */
	st_slope_bounds(s->edge.v, s->edge_bounded, s->edge.n, &s->edge_lo,
			&s->edge_hi);
	s->edge_bounded = s->edge.n;
	e->slope_err = NAN;
	if (s->edge_lo <= s->edge_hi && isfinite(s->edge_lo) &&
	    isfinite(s->edge_hi)) {
		double a = fmin(fmax(f->m.slope, s->edge_lo), s->edge_hi);

		e->m.slope = a;
		e->m.intercept = f->m.intercept + (f->m.slope - a) * f->xm;
		e->slope_err = fmax(a - s->edge_lo, s->edge_hi - a);
	}
	/* At the last sample the line is within the sample's own bound. */
	e->err = fabs(e->m.slope * x->t_ns + e->m.intercept - x->offset_ns) +
		 st_sample_half(x);
	return 0;
}

/* This leader's result from its samples and the chain 'c' to the root. */
static int leader_result(struct st_sync *s, const struct st_transport *tp,
			 const struct chain *c, const struct st_fit *ef)
{
	struct st_sync_estimate *e = &s->est;
	const struct st_sync_sample *x;
	struct st_fit f;
	int rc;

	if (tp->rank == 0) {
		e->model = st_clock_model_identity();
		e->anchor_ns = (double)st_x_now(tp, s->origin_ns);
		e->err_ns = 0.0;
		e->slope_err = 0.0;
		e->span_ns = 0.0;
		e->rtt_ns = 0.0;
		return 0;
	}
	switch (s->params.method) {
	case ST_SYNC_HCA:
		/* Re-anchor the chained slope at the root offset (Fig 5). */
		if (!(x = last(&s->root)))
			return -EPROTO;
		e->model.slope = c->m.slope;
		e->model.intercept = x->offset_ns - c->m.slope * x->t_ns;
		e->anchor_ns = x->t_ns;
		/*
		 * SKaMPI's bounds, each moved along the slope to the
		 * middle of the exchange: the slope's error over half the
		 * exchange widens them, and the clock reads' rounding.
		 */
		e->err_ns = s->root_half + 2.0 +
			    (isfinite(c->slope_err) ? c->slope_err : 1e-3) *
			    s->root_window / 2.0;
		e->slope_err = c->slope_err;
		e->span_ns = ef->span_ns;
		e->rtt_ns = ef->min_rtt;
		return 0;
	case ST_SYNC_HCA2:
	case ST_SYNC_SKAMPI_TREE:
		e->model = c->m;
		e->anchor_ns = last(&s->edge)->t_ns;
		e->err_ns = c->err;
		e->slope_err = c->slope_err;
		e->span_ns = ef->span_ns;
		e->rtt_ns = ef->min_rtt;
		return 0;
	case ST_SYNC_SKAMPI:
		if (!(x = last(&s->root)))
			return -EPROTO;
		e->model.slope = 0.0;
		e->model.intercept = x->offset_ns;
		e->anchor_ns = x->t_ns;
		e->err_ns = s->root_half;
		e->slope_err = offset_drift(&s->root);
		e->span_ns = x->t_ns - s->root.v[0].t_ns;
		e->rtt_ns = x->rtt_ns;
		return 0;
	case ST_SYNC_JK:
		if (!(x = last(&s->root)))
			return -EPROTO;
		if ((rc = st_fit_samples(s->root.v, s->root.n, x->t_ns, &f)))
			return rc;
		e->model = f.m;
		e->anchor_ns = x->t_ns;
		e->err_ns = f.at_se;
		e->slope_err = f.slope_se;
		e->span_ns = f.span_ns;
		e->rtt_ns = s->jk_rtt;
		return 0;
	}
	return -EINVAL;
}

/* One epoch among the leaders: measure, chain, compute the result. */
static int run_leaders(struct st_sync *s, const struct st_transport *tp,
		       int init)
{
	const struct st_sync_params *p = &s->params;
	int tree = st_sync_uses_tree(p->method), rc = 0, npoints;
	struct chain edge, chain;
	struct st_fit ef;
	double spacing = 0;

	memset(&edge, 0, sizeof(edge));
	memset(&chain, 0, sizeof(chain));
	memset(&ef, 0, sizeof(ef));
	npoints = init ? p->fit_points : p->refresh_points;
	if (init && npoints > 1)
		spacing = (double)p->fit_span_ns / (npoints - 1);
	s->edge_mark = s->edge.n;
	s->root_mark = s->root.n;

	if (tree && (rc = tree_up(s, tp, npoints, spacing)))
		return rc;
	if (tree && tp->rank && (rc = edge_chain(s, &edge, &ef)))
		return rc;
	if (tree || init) {
		if ((rc = tree_down(s, tp, &edge, &chain)))
			return rc;
		s->root_origin_ns = chain.root_origin;
	}
	if (p->method == ST_SYNC_HCA || p->method == ST_SYNC_SKAMPI)
		rc = root_phase(s, tp, p->method == ST_SYNC_HCA &&
				isfinite(chain.m.slope) ? chain.m.slope : 0.0);
	else if (p->method == ST_SYNC_JK)
		rc = jk_phase(s, tp, npoints, spacing, init);
	if (rc)
		return rc;
	return leader_result(s, tp, &chain, &ef);
}

#define HANDOFF_WORDS 11

/*
 * Leaders send their result (or their error 'rc') to the other ranks of
 * their node, which adopt it with the leader's origin.
 */
static int handoff(struct st_sync *s, const struct st_transport *tp, int rc)
{
	struct st_sync_estimate *e = &s->est;
	uint64_t w[HANDOFF_WORDS];
	int r, rc2;

	if (!s->leader)
		return rc;
	if (s->member) {
		if ((rc2 = st_x_recv(tp, s->leader[s->rank], w,
				     HANDOFF_WORDS)))
			return rc2;
		if (w[0])
			return (int)(int64_t)w[0];
		e->model.slope = st_x_bitsd(w[1]);
		e->model.intercept = st_x_bitsd(w[2]);
		e->anchor_ns = st_x_bitsd(w[3]);
		e->err_ns = st_x_bitsd(w[4]);
		e->slope_err = st_x_bitsd(w[5]);
		e->span_ns = st_x_bitsd(w[6]);
		e->rtt_ns = st_x_bitsd(w[7]);
		s->origin_ns = w[8];
		s->root_origin_ns = w[9];
		e->epoch = (int)w[10];
		return 0;
	}
	w[0] = (uint64_t)(int64_t)rc;
	w[1] = st_x_dbits(e->model.slope);
	w[2] = st_x_dbits(e->model.intercept);
	w[3] = st_x_dbits(e->anchor_ns);
	w[4] = st_x_dbits(e->err_ns);
	w[5] = st_x_dbits(e->slope_err);
	w[6] = st_x_dbits(e->span_ns);
	w[7] = st_x_dbits(e->rtt_ns);
	w[8] = s->origin_ns;
	w[9] = s->root_origin_ns;
	w[10] = (uint64_t)e->epoch;
	for (r = 0; r < s->size; r++)
		if (r != s->rank && s->leader[r] == s->rank &&
		    (rc2 = st_x_send(tp, r, w, HANDOFF_WORDS)) && !rc)
			rc = rc2;
	return rc;
}

static int run(struct st_sync *s, const struct st_transport *tp, int init)
{
	uint64_t t0 = tp->now_ns(tp->ctx);
	struct st_transport vt;
	struct vnet vn;
	int rc = 0;

	if (!s->member) {
		leader_net(s, tp, &vn, &vt);
		rc = run_leaders(s, &vt, init);
	}
	rc = handoff(s, tp, rc);
	s->est.duration_ns = tp->now_ns(tp->ctx) - t0;
	return rc;
}

void st_sync_free(struct st_sync *s)
{
	if (!s)
		return;
	st_samples_release(&s->edge);
	st_samples_release(&s->root);
	free(s->leader);
	free(s->vmap);
	free(s->min_rtt);
	free(s);
}

int st_sync_init(struct st_sync **out, const struct st_transport *tp,
		 const struct st_sync_params *params)
{
	struct st_sync_params def;
	struct st_sync *s;
	int r, rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!params) {
		st_sync_params_init(&def);
		params = &def;
	}
	if ((rc = check_transport(tp)) || (rc = check_params(params, tp->size)))
		return rc;
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->params = *params;
	s->edge_lo = -INFINITY;
	s->edge_hi = INFINITY;
	s->rank = tp->rank;
	s->size = tp->size;
	s->vmap = malloc((size_t)tp->size * sizeof(*s->vmap));
	if (!s->vmap)
		goto nomem;
	if (params->leader) {
		s->leader = malloc((size_t)tp->size * sizeof(*s->leader));
		if (!s->leader)
			goto nomem;
		memcpy(s->leader, params->leader,
		       (size_t)tp->size * sizeof(*s->leader));
		s->params.leader = s->leader;
	}
	s->vrank = -1;
	for (r = 0; r < tp->size; r++)
		if (!s->leader || s->leader[r] == r) {
			if (r == tp->rank)
				s->vrank = s->vsize;
			s->vmap[s->vsize++] = r;
		}
	s->member = s->vrank < 0;
	s->vparent = s->member ? -1 : tree_parent(s->vrank, s->vsize);
	s->min_rtt = calloc((size_t)s->vsize, sizeof(*s->min_rtt));
	if (!s->min_rtt)
		goto nomem;
	s->origin_ns = tp->now_ns(tp->ctx);
	s->root_origin_ns = s->origin_ns;
	if ((rc = run(s, tp, 1))) {
		st_sync_free(s);
		return rc;
	}
	*out = s;
	return 0;
nomem:
	st_sync_free(s);
	return -ENOMEM;
}

int st_sync_refresh(struct st_sync *s, const struct st_transport *tp)
{
	int rc;

	if (!s || (rc = check_transport(tp)))
		return -EINVAL;
	if (tp->rank != s->rank || tp->size != s->size)
		return -EINVAL;
	s->est.epoch++;
	return run(s, tp, 0);
}

void st_sync_result(const struct st_sync *s, struct st_sync_estimate *e)
{
	*e = s->est;
}

uint64_t st_sync_origin(const struct st_sync *s)
{
	return s->origin_ns;
}

double st_sync_global(const struct st_sync *s, uint64_t raw_ns)
{
	return st_clock_model_apply(s->est.model,
				    (double)(int64_t)(raw_ns - s->origin_ns));
}

int st_sync_check(const struct st_sync *s, const struct st_transport *tp,
		  int rounds, double *max_abs_ns)
{
	double worst = 0;
	uint64_t w;
	int r, j, rc;

	if (!s || !max_abs_ns || rounds < 1 || check_transport(tp) ||
	    tp->rank != s->rank || tp->size != s->size)
		return -EINVAL;
	*max_abs_ns = 0;
	if (tp->rank) {
		for (j = 0; j < rounds; j++) {
			if ((rc = st_x_recv(tp, 0, &w, 1)))
				return rc;
			w = st_x_dbits(st_sync_global(s, tp->now_ns(tp->ctx)));
			if ((rc = st_x_send(tp, 0, &w, 1)))
				return rc;
		}
		return 0;
	}
	for (r = 1; r < tp->size; r++) {
		double best = INFINITY, diff = 0;

		for (j = 0; j < rounds; j++) {
			double a, b;

			a = st_sync_global(s, tp->now_ns(tp->ctx));
			w = st_x_dbits(a);
			if ((rc = st_x_send(tp, r, &w, 1)) ||
			    (rc = st_x_recv(tp, r, &w, 1)))
				return rc;
			b = st_sync_global(s, tp->now_ns(tp->ctx));
			if (b - a < best) {
				best = b - a;
				diff = st_x_bitsd(w) - (a + b) / 2.0;
			}
		}
		worst = fmax(worst, fabs(diff));
	}
	*max_abs_ns = worst;
	return 0;
}
