/*
 * tools/analysis/replay-cost.c: what each replayed call costs.  The
 * model (st_replay_model: a cost table, in predict) is asked first; its
 * answer must be finite and not negative.  Without one the call is
 * costed from what the trace measured, and says so (SRC_MISSING), or is
 * a local call that keeps its measured duration (SRC_LOCAL).  The
 * first instance of each (function, p, d) adds the model's first-call
 * excess, once per replay.
 */
#include <math.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/replay-internal.h"
#include "tools/analysis/table.h"
#include "writer/fn-info.h"

/*
 * The size of instance 'in', by the table's rule
 * (st_table_coll_size()).  Before every member is in (a root
 * releasing early), the sums that every member adds to are scaled up to
 * all members; a Bcast's sent bytes are the root's alone.
 */
static double inst_d(const struct st_replay *r, const struct inst *in)
{
	double s = (double)in->sum_s, v = (double)in->sum_r, d = 0;
	double k = in->arrived ? (double)in->expected / in->arrived : 1;
	int bytes = r->fbytes[in->fn];

	if (in->arrived < in->expected) {
		if (bytes != ST_BYTES_BCAST)
			s *= k;
		v *= k;
	}
	if (st_table_coll_size(bytes, in->p, (uint64_t)s, (uint64_t)v,
			       in->max_s, in->max_r, &d))
		d = s > v ? s : v;
	return d;
}

/*
 * The model's cost '*c' of instance 'in' of size '*d' (inst_d()); 1
 * when kept from an instance before (with a pure model), else 0.
 */
static int model_coll(struct st_replay *r, const struct inst *in, double *d,
		      double *c)
{
	struct ccache *e = NULL;

	if (r->model.coll_pure) {
		e = &r->ccache[(in->fn ^ (in->sum_s >> 3) ^
				((uint64_t)in->p << 4)) % COST_CACHE];
		if (e->used && e->fn == in->fn && e->p == in->p &&
		    e->sum_s == in->sum_s && e->sum_r == in->sum_r &&
		    e->max_s == in->max_s && e->max_r == in->max_r &&
		    e->expected == in->expected &&
		    e->arrived == in->arrived) {
			*d = e->d;
			*c = e->c;
			return 1;
		}
	}
	*d = inst_d(r, in);
	*c = r->model.coll(r->model.ctx, in->fn, in->p, *d);
	if (e)
		*e = (struct ccache){ .sum_s = in->sum_s, .sum_r = in->sum_r,
				      .max_s = in->max_s, .max_r = in->max_r,
				      .p = in->p, .expected = in->expected,
				      .arrived = in->arrived, .fn = in->fn,
				      .used = 1, .d = *d, .c = *c };
	return 0;
}

/*
 * What the first instance of ('fn', 'p', 'd') costs beyond the model's
 * cost, the first time the replay asks (model.coll_first), else 0.  The
 * set of keys seen grows with the distinct keys, not the instances.
 */
static double first_cost(struct st_replay *r, unsigned fn, long p, double d)
{
	uint64_t bits;
	double x;

	if (d == 0)
		d = 0;		/* -0 is 0 */
	memcpy(&bits, &d, sizeof(bits));
	if (st_rp_map_get(&r->first_seen, fn, (uint64_t)p, bits))
		return 0;
	if (st_rp_map_put(&r->first_seen, fn, (uint64_t)p, bits, 0)) {
		st_rp_oom(r);
		return 0;
	}
	x = r->model.coll_first(r->model.ctx, fn, p, d);
	return x > 0 && isfinite(x) ? x : 0;
}

/*
 * The cost of instance 'in': the model's (with the first-call excess
 * when it is the first of its key, see first_cost()), else measured;
 * once known it stays, so every member sees the same.  Measured is
 * the shortest member's duration once every member is in ('fallback'
 * < 0); a rank released before that gets 'fallback' (the root's own
 * duration for a Bcast, a Gather non-root's own), so the result does
 * not depend on which member the replay happened to see first.
 */
double st_rp_inst_cost(struct st_replay *r, struct inst *in, double fallback)
{
	double c = -1, d = 0;
	int kept = 0;

	if (in->cost_known)
		return in->cost;
	if (r->model.coll)
		kept = model_coll(r, in, &d, &c);
	if (c >= 0 && isfinite(c)) {
		/* Kept: its key was asked, its first instance costed. */
		if (r->model.coll_first && !kept)
			c += first_cost(r, in->fn, in->p, d);
		in->cost_src = SRC_MODEL;
		in->cost = c;
		in->cost_known = 1;
		return c;
	}
	in->cost_src = r->fkind[in->fn] == ST_KIND_COMM ? SRC_LOCAL :
		       SRC_MISSING;
	if (fallback >= 0)
		return fallback;
	in->cost = in->meas_min;
	in->cost_known = 1;
	return in->cost;
}

/*
 * Cost of a non-root's own part of a Gather or Reduce: sending its
 * bytes; without a model of sends, the collective's cost, or its own
 * measured duration 'meas'.  '*src' says where it came from.
 */
double st_rp_send_part(struct st_replay *r, struct inst *in, double bytes,
		       double meas, int *src)
{
	double local = 0, xfer = 0, c;

	if (r->model.p2p &&
	    !r->model.p2p(r->model.ctx, ST_FN_MPI_SEND, bytes, &local,
			  &xfer) && isfinite(local) && local >= 0) {
		*src = SRC_MODEL;
		return local;
	}
	c = st_rp_inst_cost(r, in, meas);
	*src = in->cost_src;
	return c;
}

/*
 * The cost of receive function 'fn' getting 'bytes' (known once it is
 * matched: a nonblocking receive's record has no size), into '*local'.
 */
int st_rp_recv_cost(struct st_replay *r, unsigned fn, double bytes,
		    double *local)
{
	double xfer = 0;

	if (r->model.p2p &&
	    !r->model.p2p(r->model.ctx, fn, bytes, local, &xfer) &&
	    isfinite(*local) && *local >= 0)
		return SRC_MODEL;
	*local = 0;
	return SRC_MISSING;
}

/* The model's point-to-point costs, or the measured fallback. */
int st_rp_p2p_cost(struct st_replay *r, unsigned fn, double bytes,
		   double meas, double *local, double *xfer)
{
	*local = 0;
	*xfer = 0;
	if (r->model.p2p &&
	    !r->model.p2p(r->model.ctx, fn, bytes, local, xfer) &&
	    isfinite(*local) && isfinite(*xfer) && *local >= 0 &&
	    *xfer >= 0)
		return SRC_MODEL;
	/* Sends take what they took; the message is there at their exit. */
	*local = r->fbytes[fn] == ST_BYTES_RECV ? 0 : meas;
	*xfer = *local;
	return SRC_MISSING;
}

/*
 * How long nonblocking call 'x' itself takes: a send to a rank hands its
 * message to the transport inside the call, which costs the model's
 * per-message overhead on the predicted network (measured: 4 us per
 * MPI_Isend over TCP, 0.4 us in shared memory); anything else is local,
 * its measured duration.
 */
int st_rp_icall_cost(struct st_replay *r, const struct rrec *x,
		     double meas, double *busy)
{
	double ns;

	*busy = meas;
	if (r->fkind[x->fn] != ST_KIND_P2P ||
	    r->ffam[x->fn] == ST_FAM_PERSISTENT || x->rc ||
	    r->fbytes[x->fn] != ST_BYTES_SEND || !peer_ok(x->peer) ||
	    !r->model.inject ||
	    r->model.inject(r->model.ctx, x->fn, (double)x->sbytes, &ns) ||
	    !isfinite(ns) || ns < 0)
		return SRC_LOCAL;
	*busy = ns;
	return SRC_MODEL;
}

/* Every cost finite and not negative. */
static int msg_ok(const struct st_replay_msg *m)
{
	return isfinite(m->send_ns) && m->send_ns >= 0 &&
	       isfinite(m->xfer_ns) && m->xfer_ns >= 0 &&
	       isfinite(m->gap_ns) && m->gap_ns >= 0 &&
	       isfinite(m->late_ns) && m->late_ns >= 0 &&
	       isfinite(m->rndv_send_ns) && m->rndv_send_ns >= 0 &&
	       m->share >= 0 && m->share <= 1 &&
	       (m->xfer_nb_ns <= 0 || isfinite(m->xfer_nb_ns)) &&
	       (m->rbusy_ns <= 0 || isfinite(m->rbusy_ns)) &&
	       (m->xchg_gap_ns <= 0 || isfinite(m->xchg_gap_ns));
}

int st_rp_msg_cost(struct st_replay *r, unsigned fn, double bytes,
		   struct st_replay_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (!r->model.msg || fn >= ST_FN_COUNT ||
	    r->model.msg(r->model.ctx, fn, bytes, m) || !msg_ok(m))
		return 0;
	return 1;
}


/* Past this many messages a channel's start is over (its count stops). */
#define START_MAX 65536u

double st_rp_start_cost(struct st_replay *r, int rank, uint64_t comm,
			int32_t peer, double bytes)
{
	uint64_t c;
	uint32_t *v;
	double x;
	int row;

	if (!r->model.start_row || !r->model.start_ns ||
	    (row = r->model.start_row(r->model.ctx, bytes)) < 0)
		return 0;
	c = (uint64_t)(uint32_t)peer << 32 | (uint32_t)row;
	v = st_rp_map_get(&r->start_of, (uint64_t)rank, comm, c);
	if (!v) {
		if (st_rp_map_put(&r->start_of, (uint64_t)rank, comm, c, 0)) {
			st_rp_oom(r);
			return 0;
		}
		v = st_rp_map_get(&r->start_of, (uint64_t)rank, comm, c);
	}
	if (!v || *v >= START_MAX)
		return 0;
	x = r->model.start_ns(r->model.ctx, row, (*v)++);
	return isfinite(x) && x > 0 ? x : 0;
}

void st_rp_start_charged(struct st_replay *r, double e)
{
	if (e > 0) {
		r->stats.start_msgs++;
		r->stats.start_ns += e;
	}
}
