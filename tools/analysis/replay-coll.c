/*
 * tools/analysis/replay-coll.c: collective instances in the replay.  The
 * members of an instance (same communicator id, sequence number and
 * persistent instance) arrive one by one; by its class an instance
 * releases them at the last arrival plus its cost (all), the root's
 * arrival (Bcast, Scatter), their own sends (Gather, Reduce non-roots)
 * or the latest arrival among the ranks before them (Scan, Exscan).  An
 * instance is freed when its last member is in.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/replay-internal.h"
#include "writer/fn-info.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int coll_class(int bytes)
{
	switch (bytes) {
	case ST_BYTES_BCAST:
	case ST_BYTES_SCATTER:
	case ST_BYTES_SCATTERV:
		return C_BCAST;
	case ST_BYTES_GATHER:
	case ST_BYTES_GATHERV:
	case ST_BYTES_REDUCE:
		return C_GATHER;
	case ST_BYTES_SCAN:
		return C_SCAN;
	default:
		return C_ALL;
	}
}

/*
 * Before the instance's result goes to waiter 'w': where its cost came
 * from ('src') and the cost itself ('busy', not waiting).
 */
static void note_src(struct st_replay *r, int32_t w, int src, double busy)
{
	if (w >= 0) {
		r->units[w]->op_src = src;
		r->units[w]->op_busy = busy;
	}
	else if (w != WNONE && src == SRC_MISSING)
		r->reqs[-2 - w].missing = 1;
}

static uint32_t memb_new(struct st_replay *r)
{
	uint32_t i;

	if (r->memb_free != NIL) {
		i = r->memb_free;
		r->memb_free = r->membs[i].next;
		return i;
	}
	if (GROW(r, r->membs, r->amembs, r->nmembs))
		return NIL;
	return (uint32_t)r->nmembs++;
}

static void memb_drop(struct st_replay *r, uint32_t i)
{
	r->membs[i].next = r->memb_free;
	r->memb_free = i;
}

static int cmp_rin(const void *a, const void *b)
{
	const struct memb *x = a, *y = b;

	return (x->rin > y->rin) - (x->rin < y->rin);
}

/* Every member is in: release the rest, free the instance. */
static void inst_complete(struct st_replay *r, uint32_t ii)
{
	struct inst *in = &r->insts[ii];
	double c = st_rp_inst_cost(r, in, -1);
	struct cpv cp;
	uint32_t m, next;
	size_t n = 0, i;

	if (in->cls == C_SCAN) {
		for (m = in->members; m != NIL; m = r->membs[m].next) {
			if (GROW(r, r->scan_buf, r->ascan, n))
				return;
			r->scan_buf[n++] = r->membs[m];
		}
		qsort(r->scan_buf, n, sizeof(*r->scan_buf), cmp_rin);
	}
	cp_set_add(&cp, &in->maxcp, c);
	for (m = in->members; m != NIL; m = next) {
		next = r->membs[m].next;
		if (in->cls != C_SCAN) {
			note_src(r, r->membs[m].w, in->cost_src, c);
			st_rp_resolve_p(r, r->membs[m].w, in->maxT + c, &cp);
		}
		memb_drop(r, m);
	}
	if (in->cls == C_SCAN) {
		double T = -DBL_MAX;
		struct cpv best = { 0 };

		for (i = 0; i < n; i++) {
			if (r->scan_buf[i].arr > T) {
				T = r->scan_buf[i].arr;
				best = r->scan_buf[i].cp;
			}
			note_src(r, r->scan_buf[i].w, in->cost_src, c);
			st_rp_resolve(r, r->scan_buf[i].w, T + c,
				      cp_add(best, c));
		}
	}
	if (ii == r->inst_last)
		r->inst_last = NIL;
	else
		st_rp_map_del(&r->inst_of, in->comm, in->seq, in->inst);
	in->members = r->inst_free;
	r->inst_free = ii;
	r->live_insts--;
}

uint32_t st_rp_inst_find(const struct st_replay *r, uint64_t comm,
			 uint64_t seq, uint64_t inst)
{
	const uint32_t *v;

	if (r->inst_last != NIL) {
		const struct inst *in = &r->insts[r->inst_last];

		if (in->comm == comm && in->seq == seq && in->inst == inst)
			return r->inst_last;
	}
	v = st_rp_map_get(&r->inst_of, comm, seq, inst);
	return v ? *v : NIL;
}

/* Resolve waiter 'w' at 'T' along '*cp' with 'c' more communication. */
static void resolve_add(struct st_replay *r, int32_t w, double T,
			const struct cpv *cp, double c)
{
	struct cpv t;

	cp_set_add(&t, cp, c);
	st_rp_resolve_p(r, w, T, &t);
}

/*
 * Member 'w' (rank 'rank', its record 'x') arrives at collective instance
 * (x->comm, seq) at 'arr' along '*cp'; 'meas' is its measured duration.
 */
void st_rp_coll_arrive(struct st_replay *r, int rank, int32_t w,
		       const struct rrec *x, uint64_t seq, double arr,
		       const struct cpv *cp, double meas)
{
	const struct comminfo *ci = st_rp_comm_info(r, rank, x->comm);
	uint32_t ii = st_rp_inst_find(r, x->comm, seq, x->inst), m;
	double c;
	int32_t rin = ci ? ci->rin : rank;
	struct inst *in;
	int is_root;

	if (ii == NIL) {
		/* The last one made goes into the map: it is still live. */
		if (r->inst_last != NIL) {
			in = &r->insts[r->inst_last];
			if (st_rp_map_put(&r->inst_of, in->comm, in->seq,
					  in->inst, r->inst_last)) {
				st_rp_oom(r);
				return;
			}
			r->inst_last = NIL;
		}
		if (r->inst_free != NIL) {
			ii = r->inst_free;
			r->inst_free = r->insts[ii].members;
		} else {
			if (GROW(r, r->insts, r->ainsts, r->ninsts))
				return;
			ii = (uint32_t)r->ninsts++;
		}
		r->inst_last = ii;
		in = &r->insts[ii];
		/*
		 * Field by field: neither memset() nor a compound literal,
		 * which compilers make a 'rep stos', slow to start (perf:
		 * a seventh of this function's time).
		 */
		in->comm = x->comm;
		in->seq = seq;
		in->inst = x->inst;
		in->fn = x->fn;
		in->cls = 0;
		in->cost_known = 0;
		in->cost_src = 0;
		in->root_in = 0;
		in->arrived = 0;
		in->sum_s = 0;
		in->sum_r = 0;
		in->max_s = 0;
		in->max_r = 0;
		in->meas_min = DBL_MAX;
		in->root_meas = 0;
		in->cost = 0;
		in->maxT = -DBL_MAX;
		in->rootT = 0;
		cp_zero(&in->maxcp);
		cp_zero(&in->rootcp);
		in->members = NIL;
		in->expected = (int32_t)x->comm_size +
			       (int32_t)(ci ? ci->remote : 0);
		if (in->expected < 1)
			in->expected = 1;
		in->p = in->expected;
		in->cls = ci && ci->remote ? C_ALL :
			  (uint8_t)coll_class(r->fbytes[x->fn]);
		if (r->fkind[x->fn] == ST_KIND_COMM)
			in->cls = C_ALL;
		r->live_insts++;
	} else {
		in = &r->insts[ii];
	}
	in->arrived++;
	in->sum_s = add_sat(in->sum_s, x->sbytes);
	in->sum_r = add_sat(in->sum_r, x->rbytes);
	if (x->sbytes > in->max_s)
		in->max_s = x->sbytes;
	if (x->rbytes > in->max_r)
		in->max_r = x->rbytes;
	if (meas < in->meas_min)
		in->meas_min = meas;
	if (arr > in->maxT) {
		in->maxT = arr;
		cp_set(&in->maxcp, cp);
	}
	is_root = x->root >= 0 && x->root == rin;
	if (in->cls == C_BCAST && is_root) {
		in->root_meas = meas;
		c = st_rp_inst_cost(r, in, meas);
		in->root_in = 1;
		in->rootT = arr;
		cp_set(&in->rootcp, cp);
		note_src(r, w, in->cost_src, c);
		resolve_add(r, w, arr + c, cp, c);
		while ((m = in->members) != NIL) {
			struct memb *mb = &r->membs[m];
			int late = mb->arr > arr;

			in->members = mb->next;
			note_src(r, mb->w, in->cost_src, c);
			resolve_add(r, mb->w, (late ? mb->arr : arr) + c,
				    late ? &mb->cp : cp, c);
			memb_drop(r, m);
		}
	} else if (in->cls == C_BCAST && in->root_in) {
		c = st_rp_inst_cost(r, in, in->root_meas);
		note_src(r, w, in->cost_src, c);
		resolve_add(r, w, (arr > in->rootT ? arr : in->rootT) + c,
			    arr > in->rootT ? cp : &in->rootcp, c);
	} else if (in->cls == C_GATHER && !is_root) {
		int src;

		c = st_rp_send_part(r, in, (double)x->sbytes, meas, &src);
		note_src(r, w, src, c);
		resolve_add(r, w, arr + c, cp, c);
	} else {
		struct memb *mb;

		if ((m = memb_new(r)) == NIL)
			return;
		in = &r->insts[ii];
		mb = &r->membs[m];
		mb->next = in->members;
		mb->w = w;
		mb->rin = rin;
		mb->arr = arr;
		cp_set(&mb->cp, cp);
		in->members = m;
	}
	if (in->arrived >= in->expected)
		inst_complete(r, ii);
}

