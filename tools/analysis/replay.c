/*
 * tools/analysis/replay.c: the replay engine behind 'synctrace predict' (the rules
 * are in tools/analysis/replay.h).  Each (rank, thread) stream is a "unit": a
 * state machine that reads its records, advances its predicted clock by
 * each compute segment and starts the next call as an "op" whose end is
 * the maximum of its own cost and of the results it waits for (a
 * collective instance, a matched message, a request).  Every result is a
 * time with its critical-path vector; a unit whose op still waits is off
 * the heap and comes back when its last result arrives.  Instances,
 * message queues and requests live in index pools found through one kind
 * of hash map, and are freed the moment they are consumed.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/replay.h"
#include "tools/analysis/table.h"
#include "writer/event.h"
#include "writer/fn-info.h"

#define NIL UINT32_MAX
#define WNONE INT32_MIN		/* no waiter */
#define MAX_RANKS (1 << 22)

/* A critical-path vector: the chain of dependencies ending at a time. */
struct cpv {
	double comp, comm;
	uint64_t hops;
	int32_t rank;		/* where the chain ends now */
};

/* A record, as much of it as the replay needs. */
struct rrec {
	uint8_t kind;
	uint16_t fn, thread;
	uint32_t site, comm_size, remote_size, inst;
	int32_t rc, root, peer, tag, peer2, tag2, rank;
	uint64_t t0, t1, comm, seq, sbytes, rbytes, req;
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

/* A pending completion seen in a DONE record, for the next Wait call. */
struct pdone {
	uint64_t req;
	int32_t peer, tag;
};

enum { U_READY, U_BLOCKED, U_DONE };

/* Where the time of a finished call came from. */
enum { SRC_LOCAL, SRC_MODEL, SRC_MISSING };

struct unit {
	int idx, rank, thread;
	int state, started, finalized, running;
	double now;
	struct cpv cp;
	uint64_t last_exit;		/* local t1 of the previous call */
	uint64_t pre_init;		/* latest t1 of synctrace's records
					   before MPI_Init's */

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
};

struct rank {
	struct st_replay_source src;
	int has_src, eof;
	struct unit **units;		/* by thread index, sparse */
	size_t nunits;
	int init_known, main_thread;
	uint64_t init_t1;
	struct st_replay_rank res;
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
	uint16_t fn;			/* receive: its function (0: probe) */
	int32_t w;			/* receiver; sync sender */
	double t;			/* send entry, or receive post */
	double xfer, bytes;		/* send: transfer time, size */
	double gm;			/* send: measured global time of its
					   exit, NaN unknown */
	struct cpv cp;
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
	struct hmap first_seen;		/* (fn, p, bits of d) whose first
					   call is charged (coll_first) */
	struct inst *insts;
	size_t ninsts, ainsts;
	uint32_t inst_free;
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
	size_t live_insts, live_msgs, live_reqs;

	struct st_replay_fn *fns;	/* [ST_FN_COUNT] */
	struct st_replay_fn *fn_out;
	struct st_replay_site *sites;
	size_t nsites, asites;
	struct st_replay_stats stats;

	uint8_t *fkind, *ffam, *fbytes;	/* [ST_FN_COUNT] */

	void (*aux)(void *ctx, int rank, const struct st_event *ev);
	void *aux_ctx;

	struct memb *scan_buf;
	size_t ascan;

	int rc;				/* sticky error */
	char *err;
	size_t errlen;
};

/* Errors. */

__attribute__((format(printf, 3, 4)))
static int fail(struct st_replay *r, int rc, const char *fmt, ...)
{
	va_list ap;

	if (r->rc)
		return r->rc;
	r->rc = rc;
	if (r->err && r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int oom(struct st_replay *r)
{
	return fail(r, -ENOMEM, "out of memory");
}

/* Grow array 'p' of 'alloc' elements of 'size' so index 'need' fits. */
static int grow(struct st_replay *r, void **p, size_t *alloc, size_t need,
		size_t size)
{
	size_t a = *alloc ? *alloc : 16;
	void *q;

	if (need < *alloc)
		return 0;
	while (a <= need)
		a *= 2;
	q = realloc(*p, a * size);
	if (!q)
		return oom(r);
	*p = q;
	*alloc = a;
	return 0;
}

#define GROW(r, v, alloc, need) \
	grow((r), (void **)&(v), &(alloc), (need), sizeof(*(v)))

/* The hash map. */

static size_t h_slot(const struct hmap *m, uint64_t a, uint64_t b,
		     uint64_t c)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL;

	h ^= (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;
	h ^= (c + 0x165667b19e3779f9ULL) * 0xff51afd7ed558ccdULL;
	h ^= h >> 29;
	return (size_t)h & (m->cap - 1);
}

static uint32_t *h_get(const struct hmap *m, uint64_t a, uint64_t b,
		       uint64_t c)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = h_slot(m, a, b, c); m->e[i].val != NIL;
	     i = (i + 1) & (m->cap - 1)) {
		struct hent *e = &m->e[i];

		if (e->k1 == a && e->k2 == b && e->k3 == c)
			return &e->val;
	}
	return NULL;
}

static int h_grow(struct hmap *m)
{
	struct hmap g;
	size_t i, j;

	g.cap = m->cap ? 2 * m->cap : 64;
	g.n = m->n;
	g.e = malloc(g.cap * sizeof(*g.e));
	if (!g.e)
		return -ENOMEM;
	for (i = 0; i < g.cap; i++)
		g.e[i].val = NIL;
	for (i = 0; i < m->cap; i++) {
		if (m->e[i].val == NIL)
			continue;
		j = h_slot(&g, m->e[i].k1, m->e[i].k2, m->e[i].k3);
		while (g.e[j].val != NIL)
			j = (j + 1) & (g.cap - 1);
		g.e[j] = m->e[i];
	}
	free(m->e);
	*m = g;
	return 0;
}

/* Insert a new key (absent) with value 'v'.  0 or -ENOMEM. */
static int h_put(struct hmap *m, uint64_t a, uint64_t b, uint64_t c,
		 uint32_t v)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap && h_grow(m))
		return -ENOMEM;
	i = h_slot(m, a, b, c);
	while (m->e[i].val != NIL)
		i = (i + 1) & (m->cap - 1);
	m->e[i] = (struct hent){ a, b, c, v };
	m->n++;
	return 0;
}

static void h_del(struct hmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	uint32_t *v = h_get(m, a, b, c);
	size_t i, j, home;

	if (!v)
		return;
	i = (size_t)((struct hent *)((char *)v -
				      offsetof(struct hent, val)) - m->e);
	m->e[i].val = NIL;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->e[j].val != NIL;
	     j = (j + 1) & (m->cap - 1)) {
		home = h_slot(m, m->e[j].k1, m->e[j].k2, m->e[j].k3);
		/* Move j into the hole unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			m->e[i] = m->e[j];
			m->e[j].val = NIL;
			i = j;
		}
	}
}

static void h_free(struct hmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* Critical-path vectors. */

static struct cpv cp_add(struct cpv v, double comm)
{
	v.comm += comm;
	return v;
}

/* 'v' as seen from unit 'u': moving to another rank is a hop. */
static struct cpv cp_on(struct cpv v, int rank)
{
	if (v.rank != rank) {
		v.hops++;
		v.rank = rank;
	}
	return v;
}

/* The heap of ready units, by predicted time, then unit index. */

static int before(const struct unit *a, const struct unit *b)
{
	if (a->now != b->now)
		return a->now < b->now;
	return a->idx < b->idx;
}

static void heap_set(struct st_replay *r, size_t i, struct unit *u)
{
	r->heap[i] = u;
}

static int heap_push(struct st_replay *r, struct unit *u)
{
	size_t i;

	if (GROW(r, r->heap, r->aheap, r->nheap))
		return r->rc;
	i = r->nheap++;
	while (i > 0 && before(u, r->heap[(i - 1) / 2])) {
		heap_set(r, i, r->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(r, i, u);
	return 0;
}

static struct unit *heap_pop(struct st_replay *r)
{
	struct unit *top = r->heap[0], *u;
	size_t i = 0, c;

	u = r->heap[--r->nheap];
	while ((c = 2 * i + 1) < r->nheap) {
		if (c + 1 < r->nheap && before(r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r->heap[c], u))
			break;
		heap_set(r, i, r->heap[c]);
		i = c;
	}
	if (r->nheap)
		heap_set(r, i, u);
	return top;
}

/* Units. */

static struct unit *unit_of(struct st_replay *r, struct rank *rk,
			    int rank, int thread)
{
	struct unit *u;
	size_t i;

	if ((size_t)thread < rk->nunits && rk->units[thread])
		return rk->units[thread];
	if ((size_t)thread >= rk->nunits) {
		size_t a = (size_t)thread + 1;
		struct unit **v = realloc(rk->units, a * sizeof(*v));

		if (!v) {
			oom(r);
			return NULL;
		}
		for (i = rk->nunits; i < a; i++)
			v[i] = NULL;
		rk->units = v;
		rk->nunits = a;
	}
	u = calloc(1, sizeof(*u));
	if (!u || GROW(r, r->units, r->aunits, r->nunits)) {
		free(u);
		oom(r);
		return NULL;
	}
	u->idx = (int)r->nunits;
	u->rank = rank;
	u->thread = thread;
	u->cp.rank = rank;
	u->state = U_READY;
	r->units[r->nunits++] = u;
	rk->units[thread] = u;
	if (heap_push(r, u))
		return NULL;
	return u;
}

static void rec_from(struct rrec *x, const struct st_event *ev)
{
	x->kind = ev->kind;
	x->fn = ev->fn;
	x->thread = ev->thread;
	x->site = ev->site;
	x->comm_size = ev->comm_size;
	x->remote_size = ev->remote_size;
	x->inst = ev->inst;
	x->rc = ev->rc;
	x->root = ev->root;
	x->peer = ev->peer;
	x->tag = ev->tag;
	x->peer2 = ev->peer2;
	x->tag2 = ev->tag2;
	x->rank = ev->rank;
	x->t0 = ev->t0;
	x->t1 = ev->t1;
	x->comm = ev->comm;
	x->seq = ev->seq;
	x->sbytes = ev->sbytes;
	x->rbytes = ev->rbytes;
	x->req = ev->req;
}

static int fifo_push(struct st_replay *r, struct unit *u,
		     const struct rrec *x)
{
	size_t i;

	if (u->fcount == u->falloc) {
		size_t a = u->falloc ? 2 * u->falloc : 16;
		struct rrec *v = malloc(a * sizeof(*v));

		if (!v)
			return oom(r);
		for (i = 0; i < u->fcount; i++)
			v[i] = u->fifo[(u->fhead + i) % u->falloc];
		free(u->fifo);
		u->fifo = v;
		u->falloc = a;
		u->fhead = 0;
	}
	u->fifo[(u->fhead + u->fcount++) % u->falloc] = *x;
	return 0;
}

/*
 * Read one record of rank 'rank'.  It goes to 'into' (returning 1) when
 * it belongs to unit 'want', else to its own unit's queue (returning 2).
 * 0 at the end, negative on error.
 */
static int read_one(struct st_replay *r, int rank, struct unit *want,
		    struct rrec *into)
{
	struct rank *rk = &r->ranks[rank];
	struct st_event ev;
	struct unit *u;
	struct rrec x;
	int rc;

	if (rk->eof)
		return 0;
	if (!rk->has_src) {
		rk->eof = 1;
		return 0;
	}
	rc = rk->src.next(rk->src.ctx, &ev, r->err, r->errlen);
	if (rc < 0) {
		r->rc = rc;
		return rc;
	}
	if (!rc) {
		rk->eof = 1;
		return 0;
	}
	if (ev.kind == ST_REC_SITE || ev.kind == ST_REC_OBJECT) {
		if (r->aux)
			r->aux(r->aux_ctx, rank, &ev);
		return 2;
	}
	r->stats.records++;
	if (ev.kind == ST_REC_CALL && ev.fn < ST_FN_COUNT &&
	    r->fkind[ev.fn] == ST_KIND_INIT && !rk->init_known) {
		rk->init_known = 1;
		rk->init_t1 = ev.t1;
		rk->main_thread = ev.thread;
	}
	if (want && want->thread == ev.thread && !want->fcount) {
		rec_from(into, &ev);
		return 1;
	}
	u = unit_of(r, rk, rank, ev.thread);
	if (!u)
		return r->rc;
	rec_from(&x, &ev);
	if (fifo_push(r, u, &x))
		return r->rc;
	return 2;
}

/* The next record of unit 'u': 1, 0 at its end, negative on error. */
static int unit_next(struct st_replay *r, struct unit *u, struct rrec *x)
{
	int rc;

	for (;;) {
		if (u->fcount) {
			*x = u->fifo[u->fhead];
			u->fhead = (u->fhead + 1) % u->falloc;
			u->fcount--;
			return 1;
		}
		rc = read_one(r, u->rank, u, x);
		if (rc != 2)
			return rc;
	}
}

/* Per-call statistics. */

static int note_site(struct st_replay *r, const struct unit *u, double dt)
{
	uint32_t *v = h_get(&r->site_of, (uint64_t)u->rank, u->op_site,
			    u->op_fn);
	struct st_replay_site *s;

	if (!v) {
		if (GROW(r, r->sites, r->asites, r->nsites))
			return r->rc;
		if (h_put(&r->site_of, (uint64_t)u->rank, u->op_site, u->op_fn,
			  (uint32_t)r->nsites))
			return oom(r);
		r->sites[r->nsites] = (struct st_replay_site){
			.rank = u->rank, .site = u->op_site, .fn = u->op_fn };
		v = h_get(&r->site_of, (uint64_t)u->rank, u->op_site,
			  u->op_fn);
		r->nsites++;
	}
	s = &r->sites[*v];
	s->calls++;
	s->pred_ns += dt;
	s->meas_ns += u->op_meas;
	return 0;
}

/* Rank 'rank''s local time 't' in measured global time, or NaN. */
static double gtime(const struct st_replay *r, int rank, uint64_t t)
{
	const struct st_replay_source *src = &r->ranks[rank].src;

	return src->global ? src->global(src->ctx, t) : NAN;
}

/*
 * The own work of receive side 'u' after its last message the model
 * lacked was there, as measured: from the later of its entry and that
 * arrival to its exit, in global time; 0 when unknown.
 */
static double op_tail(const struct unit *u)
{
	double from, tail;

	if (!u->op_tail || !isfinite(u->op_gm) || !isfinite(u->op_g0) ||
	    !isfinite(u->op_g1))
		return 0;
	from = u->op_gm > u->op_g0 ? u->op_gm : u->op_g0;
	tail = u->op_g1 - from;
	if (tail < 0)
		return 0;
	return tail < u->op_meas ? tail : u->op_meas;
}

/* The op of 'u' has all its results: it ends at op_T. */
static void op_finish(struct st_replay *r, struct unit *u)
{
	struct st_replay_fn *f = &r->fns[u->op_fn];
	struct rank *rk = &r->ranks[u->rank];
	double tail = op_tail(u), dt, wait;

	if (tail > 0) {
		u->op_T += tail;
		u->op_busy += tail;
		u->op_cp = cp_add(u->op_cp, tail);
	}
	dt = u->op_T - u->op_entry;
	wait = dt - u->op_busy;
	if (wait < 0)
		wait = 0;
	u->now = u->op_T;
	u->cp = u->op_cp;
	f->calls++;
	f->pred_ns += dt;
	f->meas_ns += u->op_meas;
	f->wait_ns += wait;
	if (u->op_src == SRC_MODEL)
		f->n_model++;
	else if (u->op_src == SRC_MISSING)
		f->n_missing++;
	else
		f->n_local++;
	rk->res.mpi_ns += dt;
	rk->res.wait_ns += wait;
	if (wait > 0)
		rk->res.completions++;
	r->stats.calls++;
	note_site(r, u, dt);
}

/* Start op 'fn' of 'u' at its current time with own cost 'busy'. */
static void op_begin(struct unit *u, const struct rrec *x, double busy,
		     int src)
{
	u->op_entry = u->now;
	u->op_fn = x->fn;
	u->op_site = x->site;
	u->op_meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	u->op_busy = busy;
	u->op_T = u->now + busy;
	u->op_cp = cp_add(u->cp, busy);
	u->op_nwait = 0;
	u->op_src = src;
	u->op_coll = 0;
	u->op_tail = 0;
	u->op_gm = -INFINITY;
	u->last_entry = u->now;
	u->last_cp = u->cp;
}

/* A result for unit 'u': done at 'T' along 'cp'. */
static void unit_result(struct st_replay *r, struct unit *u, double T,
			struct cpv cp)
{
	if (T > u->op_T) {
		u->op_T = T;
		u->op_cp = cp_on(cp, u->rank);
	}
	if (--u->op_nwait > 0 || u->running || u->state != U_BLOCKED)
		return;
	op_finish(r, u);
	u->state = U_READY;
	heap_push(r, u);
}

static void req_release(struct st_replay *r, uint32_t qi);

/* A receive side 'x' of 'u' (after op_begin): see op_tail(). */
static void op_receives(struct st_replay *r, struct unit *u,
			const struct rrec *x)
{
	u->op_tail = 1;
	u->op_g0 = gtime(r, u->rank, x->t0);
	u->op_g1 = gtime(r, u->rank, x->t1);
}

/* Unit 'u' learns of request 'q''s measured arrival. */
static void op_learn(struct unit *u, const struct req *q)
{
	if (q->gm > u->op_gm)
		u->op_gm = q->gm;
}

/* The operation of request 'qi' is complete at 'T' along 'cp'. */
static void req_result(struct st_replay *r, uint32_t qi, double T,
		       struct cpv cp)
{
	struct req *q = &r->reqs[qi];

	if (T > q->T) {
		q->T = T;
		q->cp = cp_on(cp, q->rank);
	}
	if (--q->nwait > 0)
		return;
	q->state = Q_DONE;
	if (q->missing && q->fn < ST_FN_COUNT)
		r->fns[q->fn].n_op_missing++;
	if (q->waiter != WNONE) {
		struct unit *u = r->units[q->waiter];

		q->waiter = WNONE;
		T = q->T;
		cp = q->cp;
		op_learn(u, q);
		req_release(r, qi);
		unit_result(r, u, T, cp);
	}
}

/*
 * Waiters are units (index >= 0) or requests (-2 - pool index).
 */
static int32_t w_unit(struct unit *u)
{
	u->op_nwait++;
	return u->idx;
}

static int32_t w_req(struct st_replay *r, uint32_t qi)
{
	r->reqs[qi].nwait++;
	return -2 - (int32_t)qi;
}

static void resolve(struct st_replay *r, int32_t w, double T, struct cpv cp)
{
	if (w >= 0)
		unit_result(r, r->units[w], T, cp);
	else if (w != WNONE)
		req_result(r, (uint32_t)(-2 - w), T, cp);
}

/* Requests. */

static uint32_t req_new(struct st_replay *r, int rank, uint64_t id)
{
	uint32_t *v = h_get(&r->req_of, (uint64_t)rank, id, 0);
	int32_t waiter = WNONE;
	struct req *q;
	uint32_t qi;

	if (v) {
		/*
		 * A placeholder that a Wait of another thread left (keep its
		 * waiter), or an id used again: the slot is reused.
		 */
		qi = *v;
		if (r->reqs[qi].state == Q_UNKNOWN)
			waiter = r->reqs[qi].waiter;
	} else {
		if (r->req_free != NIL) {
			qi = r->req_free;
			r->req_free = r->reqs[qi].next_free;
		} else {
			if (GROW(r, r->reqs, r->areqs, r->nreqs))
				return NIL;
			qi = (uint32_t)r->nreqs++;
		}
		if (h_put(&r->req_of, (uint64_t)rank, id, 0, qi)) {
			oom(r);
			return NIL;
		}
		r->live_reqs++;
	}
	q = &r->reqs[qi];
	memset(q, 0, sizeof(*q));
	q->rank = rank;
	q->id = id;
	q->state = Q_PENDING;
	q->waiter = waiter;
	q->cp.rank = rank;
	q->gm = -INFINITY;
	q->next_free = NIL;
	return qi;
}

/* Forget request 'qi' (persistent ones go back to idle). */
static void req_release(struct st_replay *r, uint32_t qi)
{
	struct req *q = &r->reqs[qi];

	if (q->persistent) {
		q->state = Q_IDLE;
		q->waiter = WNONE;
		return;
	}
	h_del(&r->req_of, (uint64_t)q->rank, q->id, 0);
	q->state = Q_FREE;
	q->next_free = r->req_free;
	r->req_free = qi;
	r->live_reqs--;
}

/* Communicators. */

static const struct comminfo *comm_info(const struct st_replay *r, int rank,
					uint64_t comm)
{
	uint32_t *v = h_get(&r->comm_of, (uint64_t)rank, comm, 0);

	return v ? &r->cis[*v] : NULL;
}

static int on_comm(struct st_replay *r, int rank, const struct rrec *x)
{
	uint32_t *v = h_get(&r->comm_of, (uint64_t)rank, x->comm, 0);

	if (!v) {
		if (GROW(r, r->cis, r->acis, r->ncis))
			return r->rc;
		if (h_put(&r->comm_of, (uint64_t)rank, x->comm, 0,
			  (uint32_t)r->ncis))
			return oom(r);
		v = h_get(&r->comm_of, (uint64_t)rank, x->comm, 0);
		r->ncis++;
	}
	r->cis[*v] = (struct comminfo){ x->rank, x->comm_size,
					x->remote_size };
	return 0;
}

/* Collective instances. */

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * The size of instance 'in', by the table's rule (st_table_coll_size()).
 * Before every member is in (a root releasing early), the sums that
 * every member adds to are scaled up to all members; a Bcast's sent
 * bytes are the root's alone.
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
	if (st_table_coll_size(bytes, in->p, (uint64_t)s, (uint64_t)v, &d))
		d = s > v ? s : v;
	return d;
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
	if (h_get(&r->first_seen, fn, (uint64_t)p, bits))
		return 0;
	if (h_put(&r->first_seen, fn, (uint64_t)p, bits, 0)) {
		oom(r);
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
static double inst_cost(struct st_replay *r, struct inst *in, double fallback)
{
	double c = -1, d = 0;

	if (in->cost_known)
		return in->cost;
	if (r->model.coll) {
		d = inst_d(r, in);
		c = r->model.coll(r->model.ctx, in->fn, in->p, d);
	}
	if (c >= 0 && isfinite(c)) {
		if (r->model.coll_first)
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
static double send_part(struct st_replay *r, struct inst *in, double bytes,
			double meas, int *src)
{
	double local = 0, xfer = 0, c;

	if (r->model.p2p &&
	    !r->model.p2p(r->model.ctx, ST_FN_MPI_SEND, bytes, &local,
			  &xfer) && isfinite(local) && local >= 0) {
		*src = SRC_MODEL;
		return local;
	}
	c = inst_cost(r, in, meas);
	*src = in->cost_src;
	return c;
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
	double c = inst_cost(r, in, -1);
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
	for (m = in->members; m != NIL; m = next) {
		next = r->membs[m].next;
		if (in->cls != C_SCAN) {
			note_src(r, r->membs[m].w, in->cost_src, c);
			resolve(r, r->membs[m].w, in->maxT + c,
				cp_add(in->maxcp, c));
		}
		memb_drop(r, m);
	}
	if (in->cls == C_SCAN) {
		double T = -DBL_MAX;
		struct cpv cp = { 0 };

		for (i = 0; i < n; i++) {
			if (r->scan_buf[i].arr > T) {
				T = r->scan_buf[i].arr;
				cp = r->scan_buf[i].cp;
			}
			note_src(r, r->scan_buf[i].w, in->cost_src, c);
			resolve(r, r->scan_buf[i].w, T + c, cp_add(cp, c));
		}
	}
	h_del(&r->inst_of, in->comm, in->seq, in->inst);
	in->members = r->inst_free;
	r->inst_free = ii;
	r->live_insts--;
}

/*
 * Member 'w' (rank 'rank', its record 'x') arrives at collective instance
 * (x->comm, seq) at 'arr' along 'cp'; 'meas' is its measured duration.
 */
static void coll_arrive(struct st_replay *r, int rank, int32_t w,
			const struct rrec *x, uint64_t seq, double arr,
			struct cpv cp, double meas)
{
	const struct comminfo *ci = comm_info(r, rank, x->comm);
	uint32_t *v = h_get(&r->inst_of, x->comm, seq, x->inst);
	double c;
	int32_t rin = ci ? ci->rin : rank;
	struct inst *in;
	uint32_t ii, m;
	int is_root;

	if (!v) {
		if (r->inst_free != NIL) {
			ii = r->inst_free;
			r->inst_free = r->insts[ii].members;
		} else {
			if (GROW(r, r->insts, r->ainsts, r->ninsts))
				return;
			ii = (uint32_t)r->ninsts++;
		}
		if (h_put(&r->inst_of, x->comm, seq, x->inst, ii)) {
			oom(r);
			return;
		}
		in = &r->insts[ii];
		memset(in, 0, sizeof(*in));
		in->comm = x->comm;
		in->seq = seq;
		in->inst = x->inst;
		in->fn = x->fn;
		in->expected = (int32_t)x->comm_size +
			       (int32_t)(ci ? ci->remote : 0);
		if (in->expected < 1)
			in->expected = 1;
		in->p = in->expected;
		in->cls = ci && ci->remote ? C_ALL :
			  (uint8_t)coll_class(r->fbytes[x->fn]);
		if (r->fkind[x->fn] == ST_KIND_COMM)
			in->cls = C_ALL;
		in->maxT = -DBL_MAX;
		in->meas_min = DBL_MAX;
		in->members = NIL;
		r->live_insts++;
	} else {
		ii = *v;
		in = &r->insts[ii];
	}
	in->arrived++;
	in->sum_s = add_sat(in->sum_s, x->sbytes);
	in->sum_r = add_sat(in->sum_r, x->rbytes);
	if (meas < in->meas_min)
		in->meas_min = meas;
	if (arr > in->maxT) {
		in->maxT = arr;
		in->maxcp = cp;
	}
	is_root = x->root >= 0 && x->root == rin;
	if (in->cls == C_BCAST && is_root) {
		in->root_meas = meas;
		c = inst_cost(r, in, meas);
		in->root_in = 1;
		in->rootT = arr;
		in->rootcp = cp;
		note_src(r, w, in->cost_src, c);
		resolve(r, w, arr + c, cp_add(cp, c));
		while ((m = in->members) != NIL) {
			struct memb *mb = &r->membs[m];
			int late = mb->arr > arr;

			in->members = mb->next;
			note_src(r, mb->w, in->cost_src, c);
			resolve(r, mb->w, (late ? mb->arr : arr) + c,
				cp_add(late ? mb->cp : cp, c));
			memb_drop(r, m);
		}
	} else if (in->cls == C_BCAST && in->root_in) {
		c = inst_cost(r, in, in->root_meas);
		note_src(r, w, in->cost_src, c);
		if (arr > in->rootT)
			resolve(r, w, arr + c, cp_add(cp, c));
		else
			resolve(r, w, in->rootT + c, cp_add(in->rootcp, c));
	} else if (in->cls == C_GATHER && !is_root) {
		int src;

		c = send_part(r, in, (double)x->sbytes, meas, &src);
		note_src(r, w, src, c);
		resolve(r, w, arr + c, cp_add(cp, c));
	} else {
		if ((m = memb_new(r)) == NIL)
			return;
		r->membs[m] = (struct memb){ in->members, w, rin, arr, cp };
		in = &r->insts[ii];
		in->members = m;
	}
	if (in->arrived >= in->expected)
		inst_complete(r, ii);
}

/* Point-to-point messages. */

static uint32_t msg_new(struct st_replay *r)
{
	uint32_t i;

	if (r->msg_free != NIL) {
		i = r->msg_free;
		r->msg_free = r->msgs[i].next;
	} else {
		if (GROW(r, r->msgs, r->amsgs, r->nmsgs))
			return NIL;
		i = (uint32_t)r->nmsgs++;
	}
	r->live_msgs++;
	return i;
}

static void msg_drop(struct st_replay *r, uint32_t i)
{
	r->msgs[i].next = r->msg_free;
	r->msg_free = i;
	r->live_msgs--;
}

/* The queue of key (k1, k2, k3), created when 'create'; NIL if none. */
static uint32_t mq_get(struct st_replay *r, uint64_t k1, uint64_t k2,
		       uint64_t k3, int create)
{
	uint32_t *v = h_get(&r->mq_of, k1, k2, k3), qi;

	if (v || !create)
		return v ? *v : NIL;
	if (r->mq_free != NIL) {
		qi = r->mq_free;
		r->mq_free = r->mqs[qi].head;
	} else {
		if (GROW(r, r->mqs, r->amqs, r->nmqs))
			return NIL;
		qi = (uint32_t)r->nmqs++;
	}
	if (h_put(&r->mq_of, k1, k2, k3, qi)) {
		oom(r);
		return NIL;
	}
	r->mqs[qi] = (struct mq){ NIL, NIL, k1, k2, k3 };
	return qi;
}

static void mq_append(struct st_replay *r, uint32_t qi, uint32_t mi)
{
	struct mq *q = &r->mqs[qi];

	r->msgs[mi].next = NIL;
	if (q->tail == NIL)
		q->head = mi;
	else
		r->msgs[q->tail].next = mi;
	q->tail = mi;
}

/* Drop the head of queue 'qi'; returns 1 when that freed the queue. */
static int mq_pop(struct st_replay *r, uint32_t qi)
{
	struct mq *q = &r->mqs[qi];
	uint32_t mi = q->head;
	int gone = 0;

	q->head = r->msgs[mi].next;
	if (q->head == NIL) {
		q->tail = NIL;
		h_del(&r->mq_of, q->k1, q->k2, q->k3);
		q->head = r->mq_free;
		r->mq_free = qi;
		gone = 1;
	}
	msg_drop(r, mi);
	return gone;
}

/* When a message from send 's' is at the receiver, given receive 'v'. */
static double arrival(const struct msg *s, const struct msg *v,
		      struct cpv *cp)
{
	if (s->sync && v && v->t > s->t) {
		*cp = cp_add(v->cp, s->xfer);
		return v->t + s->xfer;
	}
	*cp = cp_add(s->cp, s->xfer);
	return s->t + s->xfer;
}

/*
 * The cost of receive function 'fn' getting 'bytes' (known once it is
 * matched: a nonblocking receive's record has no size), into '*local'.
 */
static int recv_cost(struct st_replay *r, unsigned fn, double bytes,
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

/*
 * What the receive 'w' waits in learns of its cost at the match, and,
 * when the model lacked it, of its message's measured arrival 'gm'.
 */
static void note_recv(struct st_replay *r, int32_t w, int src, double local,
		      double gm)
{
	if (w >= 0) {
		struct unit *u = r->units[w];

		if (local > u->op_busy)
			u->op_busy = local;
		if (src == SRC_MISSING) {
			u->op_src = SRC_MISSING;
			if (gm > u->op_gm)
				u->op_gm = gm;
		}
	} else if (w != WNONE && src == SRC_MISSING) {
		struct req *q = &r->reqs[-2 - w];

		q->missing = 1;
		if (gm > q->gm)
			q->gm = gm;
	}
}

/*
 * Send 's' meets receive 'v': the receive completes its cost after the
 * later of its post and the message's arrival; a synchronous send when
 * its message arrives.
 */
static void match(struct st_replay *r, const struct msg *s,
		  const struct msg *v)
{
	struct cpv cp;
	double T = arrival(s, v, &cp), local = 0;
	int src = SRC_MODEL;

	if (s->sync)
		resolve(r, s->w, T, cp);
	if (v->fn)
		src = recv_cost(r, v->fn, s->bytes, &local);
	if (v->t > T) {
		T = v->t;
		cp = v->cp;
	}
	note_recv(r, v->w, src, local, s->gm);
	resolve(r, v->w, T + local, cp_add(cp, local));
}

/* Wake the probes at the head of queue 'qi' with send 's'. */
static void wake_probes(struct st_replay *r, uint32_t qi, const struct msg *s)
{
	struct cpv cp;
	double T;

	while (r->mqs[qi].head != NIL &&
	       r->msgs[r->mqs[qi].head].type == M_PROBE) {
		struct msg *p = &r->msgs[r->mqs[qi].head];

		T = arrival(s, NULL, &cp);
		resolve(r, p->w, T, cp);
		if (mq_pop(r, qi))
			return;
	}
}

static void post_send(struct st_replay *r, uint64_t k1, uint64_t k2,
		      uint64_t k3, const struct msg *s)
{
	uint32_t qi = mq_get(r, k1, k2, k3, 1), mi;
	struct msg v;

	if (qi == NIL)
		return;
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type !=
	    M_SEND) {
		wake_probes(r, qi, s);
		qi = mq_get(r, k1, k2, k3, 1);
		if (qi == NIL)
			return;
	}
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type ==
	    M_RECV) {
		v = r->msgs[r->mqs[qi].head];
		mq_pop(r, qi);
		match(r, s, &v);
		return;
	}
	if ((mi = msg_new(r)) == NIL)
		return;
	r->msgs[mi] = *s;
	r->msgs[mi].type = M_SEND;
	mq_append(r, qi, mi);
}

static void post_recv(struct st_replay *r, uint64_t k1, uint64_t k2,
		      uint64_t k3, const struct msg *v)
{
	uint32_t qi = mq_get(r, k1, k2, k3, 1), mi;
	struct msg s;
	struct cpv cp;
	double T;

	if (qi == NIL)
		return;
	if (r->mqs[qi].head != NIL && r->msgs[r->mqs[qi].head].type ==
	    M_SEND) {
		s = r->msgs[r->mqs[qi].head];
		if (v->type == M_PROBE) {
			T = arrival(&s, NULL, &cp);
			resolve(r, v->w, T, cp);
			return;
		}
		mq_pop(r, qi);
		match(r, &s, v);
		return;
	}
	if ((mi = msg_new(r)) == NIL)
		return;
	r->msgs[mi] = *v;
	mq_append(r, qi, mi);
}

/* Message keys: communicator, (source, destination), (group, tag). */
static void send_key(const struct st_replay *r, int rank, uint64_t comm,
		     int32_t peer, int32_t tag, uint64_t k[3])
{
	const struct comminfo *ci = comm_info(r, rank, comm);
	uint32_t src = (uint32_t)(ci ? ci->rin : rank);
	uint32_t grp = ci && ci->remote ? ci->size : 0;

	k[0] = comm;
	k[1] = (uint64_t)src << 32 | (uint32_t)peer;
	k[2] = (uint64_t)grp << 32 | (uint32_t)tag;
}

static void recv_key(const struct st_replay *r, int rank, uint64_t comm,
		     int32_t peer, int32_t tag, uint64_t k[3])
{
	const struct comminfo *ci = comm_info(r, rank, comm);
	uint32_t dst = (uint32_t)(ci ? ci->rin : rank);
	uint32_t grp = ci && ci->remote ? ci->remote : 0;

	k[0] = comm;
	k[1] = (uint64_t)(uint32_t)peer << 32 | dst;
	k[2] = (uint64_t)grp << 32 | (uint32_t)tag;
}

/* The model's point-to-point costs, or the measured fallback. */
static int p2p_cost(struct st_replay *r, unsigned fn, double bytes,
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

static int is_sync_send(unsigned fn)
{
	return fn == ST_FN_MPI_SSEND || fn == ST_FN_MPI_SSEND_C ||
	       fn == ST_FN_MPI_ISSEND || fn == ST_FN_MPI_ISSEND_C;
}

static int peer_ok(int32_t peer)
{
	return peer >= 0;
}

/*
 * A send of 'bytes' to 'peer', 'tag' by 'sw' (sync) from 'u' at 't',
 * whose call ended at measured global time 'gm'.
 */
static void do_send(struct st_replay *r, struct unit *u, uint64_t comm,
		    int32_t peer, int32_t tag, int sync, int32_t sw,
		    double xfer, double bytes, struct cpv cp, double t,
		    double gm)
{
	struct msg s = { .type = M_SEND, .sync = (uint8_t)sync, .w = sw,
			 .t = t, .xfer = xfer, .bytes = bytes, .gm = gm,
			 .cp = cp };
	uint64_t k[3];

	send_key(r, u->rank, comm, peer, tag, k);
	post_send(r, k[0], k[1], k[2], &s);
}

/* A receive (function 'fn'; 0 for a probe) by 'w', posted at 't'. */
static void do_recv(struct st_replay *r, int rank, uint64_t comm,
		    int32_t peer, int32_t tag, int type, int32_t w,
		    unsigned fn, struct cpv cp, double t)
{
	struct msg v = { .type = (uint8_t)type, .fn = (uint16_t)fn, .w = w,
			 .t = t, .cp = cp };
	uint64_t k[3];

	recv_key(r, rank, comm, peer, tag, k);
	post_recv(r, k[0], k[1], k[2], &v);
}

/* Calls. */

/* Blocking point-to-point call 'x' of 'u'. */
static void call_p2p(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	double ls = 0, xs = 0;
	int bytes = r->fbytes[x->fn], src = SRC_LOCAL;
	struct cpv cp0 = u->cp;
	double t = u->now;

	switch (bytes) {
	case ST_BYTES_SEND:
		if (!peer_ok(x->peer)) {
			op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		src = p2p_cost(r, x->fn, (double)x->sbytes, meas, &ls, &xs);
		op_begin(u, x, ls, src);
		do_send(r, u, x->comm, x->peer, x->tag, is_sync_send(x->fn),
			is_sync_send(x->fn) ? w_unit(u) : WNONE, xs,
			(double)x->sbytes, cp0, t, gtime(r, u->rank, x->t1));
		return;
	case ST_BYTES_RECV:
		if (!peer_ok(x->peer)) {
			op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		/* Its cost comes with the message it matches. */
		op_begin(u, x, 0, SRC_MODEL);
		op_receives(r, u, x);
		do_recv(r, u->rank, x->comm, x->peer, x->tag, M_RECV,
			w_unit(u), x->fn, cp0, t);
		return;
	case ST_BYTES_SENDRECV:
	case ST_BYTES_SENDRECV_REPLACE:
		if (!peer_ok(x->peer) && !peer_ok(x->peer2)) {
			op_begin(u, x, meas, SRC_LOCAL);
			return;
		}
		/* One cost for both halves, as the table measures it. */
		src = p2p_cost(r, x->fn, (double)(x->sbytes > x->rbytes ?
						  x->sbytes : x->rbytes),
			       meas, &ls, &xs);
		op_begin(u, x, ls, src);
		if (peer_ok(x->peer))
			do_send(r, u, x->comm, x->peer, x->tag, 0, WNONE, xs,
				(double)x->sbytes, cp0, t,
				gtime(r, u->rank, x->t1));
		if (peer_ok(x->peer2))
			do_recv(r, u->rank, x->comm, x->peer2, x->tag2,
				M_RECV, w_unit(u), x->fn, cp0, t);
		return;
	default:
		/* MPI_Probe waits for the envelope; MPI_Iprobe is local. */
		if ((x->fn == ST_FN_MPI_PROBE) && peer_ok(x->peer) &&
		    x->tag >= 0) {
			op_begin(u, x, 0, SRC_MODEL);
			do_recv(r, u->rank, x->comm, x->peer, x->tag,
				M_PROBE, w_unit(u), 0, cp0, t);
			return;
		}
		op_begin(u, x, meas, SRC_LOCAL);
	}
}

/*
 * Start nonblocking point-to-point operation 'fn' as request 'qi' at
 * time 't' along 'cp' (an I-call, or a START of a persistent one), by a
 * call that ended at measured global time 'gm'.
 */
static void start_p2p(struct st_replay *r, struct unit *u, uint32_t qi,
		      unsigned fn, uint64_t comm, int32_t peer, int32_t tag,
		      uint64_t sbytes, uint64_t rbytes, double meas, double t,
		      struct cpv cp, double gm)
{
	double local = 0, xfer = 0;
	struct req *q = &r->reqs[qi];
	int bytes = r->fbytes[fn];

	q->T = t;
	q->gm = -INFINITY;
	q->cp = cp;
	q->fn = (uint16_t)fn;
	q->nwait = 1;		/* held until set up */
	if (bytes == ST_BYTES_SEND && peer_ok(peer)) {
		if (p2p_cost(r, fn, (double)sbytes, meas, &local, &xfer) ==
		    SRC_MISSING)
			r->reqs[qi].missing = 1;
		q = &r->reqs[qi];
		q->T = t + local;
		q->cp = cp_add(cp, local);
		do_send(r, u, comm, peer, tag, is_sync_send(fn),
			is_sync_send(fn) ? w_req(r, qi) : WNONE, xfer,
			(double)sbytes, cp, t, gm);
	} else if (bytes == ST_BYTES_RECV) {
		/* Its cost comes with the message it matches. */
		(void)rbytes;
		if (peer_ok(peer) && tag >= 0) {
			do_recv(r, u->rank, comm, peer, tag, M_RECV,
				w_req(r, qi), fn, cp, t);
		} else if (peer == ST_RANK_ANY || tag < 0) {
			/*
			 * Matched at completion, where the status says; the
			 * hold stays until then.
			 */
			q->deferred = 1;
			q->post = t;
			q->post_cp = cp;
			q->comm = comm;
			return;
		}
	}
	req_result(r, qi, t, cp);
}

/*
 * How long nonblocking call 'x' itself takes: a send to a rank hands its
 * message to the transport inside the call, which costs the model's
 * per-message overhead on the predicted network (measured: 4 us per
 * MPI_Isend over TCP, 0.4 us in shared memory); anything else is local,
 * its measured duration.
 */
static int icall_cost(struct st_replay *r, const struct rrec *x,
		      double meas, double *busy)
{
	double ns;

	*busy = meas;
	if (r->fkind[x->fn] != ST_KIND_P2P ||
	    r->ffam[x->fn] == ST_FAM_PERSISTENT || x->rc ||
	    r->fbytes[x->fn] != ST_BYTES_SEND || !peer_ok(x->peer) ||
	    !r->model.inject ||
	    r->model.inject(r->model.ctx, x->fn, &ns) || !isfinite(ns) ||
	    ns < 0)
		return SRC_LOCAL;
	*busy = ns;
	return SRC_MODEL;
}

/* A nonblocking or persistent-init call 'x' of 'u'. */
static void call_nonblocking(struct st_replay *r, struct unit *u,
			     const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0, busy;
	int kind = r->fkind[x->fn], fam = r->ffam[x->fn];
	int src = icall_cost(r, x, meas, &busy);
	struct cpv cp0 = u->cp;
	double t = u->now;
	uint32_t qi;

	op_begin(u, x, busy, src);
	if (!x->req || x->rc)
		return;
	qi = req_new(r, u->rank, x->req);
	if (qi == NIL)
		return;
	if (fam == ST_FAM_PERSISTENT) {
		struct req *q = &r->reqs[qi];

		q->persistent = 1;
		q->state = Q_IDLE;
		q->fn = x->fn;
		q->comm = x->comm;
		q->comm_size = x->comm_size;
		q->sbytes = x->sbytes;
		q->rbytes = x->rbytes;
		q->root = x->root;
		q->peer = x->peer;
		q->tag = x->tag;
		q->is_coll = kind != ST_KIND_P2P;
		return;
	}
	if (kind == ST_KIND_P2P) {
		start_p2p(r, u, qi, x->fn, x->comm, x->peer, x->tag,
			  x->sbytes, x->rbytes, meas, t, cp0,
			  gtime(r, u->rank, x->t1));
		return;
	}
	r->reqs[qi].is_coll = 1;
	r->reqs[qi].fn = x->fn;
	r->reqs[qi].comm = x->comm;
	r->reqs[qi].seq = x->seq;
	if (!x->comm || !x->seq) {
		r->reqs[qi].T = t;
		r->reqs[qi].cp = cp0;
		r->reqs[qi].state = Q_DONE;
		return;
	}
	r->reqs[qi].T = t;
	r->reqs[qi].cp = cp0;
	coll_arrive(r, u->rank, w_req(r, qi), x, x->seq, t, cp0, meas);
}

/* A START record: instance of persistent request x->req begins. */
static void on_start(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	uint32_t *v = h_get(&r->req_of, (uint64_t)u->rank, x->req, 0), qi;
	double t = u->last_entry;
	struct cpv cp = u->last_cp;
	struct rrec y;
	struct req *q;

	if (!v)
		return;
	qi = *v;
	q = &r->reqs[qi];
	if (q->state == Q_PENDING || q->state == Q_DONE)
		return;		/* started twice without completing */
	q->state = Q_PENDING;
	q->T = t;
	q->cp = cp;
	q->waiter = WNONE;
	q->deferred = 0;
	if (!q->is_coll) {
		start_p2p(r, u, qi, q->fn, q->comm, q->peer, q->tag,
			  q->sbytes, q->rbytes, 0, t, cp,
			  gtime(r, u->rank, x->t1));
		return;
	}
	y = *x;
	y.fn = q->fn;
	y.comm = x->comm ? x->comm : q->comm;
	y.comm_size = x->comm_size ? x->comm_size : q->comm_size;
	y.root = q->root;
	if (!y.comm || !x->seq) {
		q->state = Q_DONE;
		return;
	}
	q->seq = x->seq;
	q->inst = x->inst;
	coll_arrive(r, u->rank, w_req(r, qi), &y, x->seq, t, cp, 0);
}

/* A Wait/Test call of 'u' that completed the DONE records before it. */
static void call_complete(struct st_replay *r, struct unit *u,
			  const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	struct rank *rk = &r->ranks[u->rank];
	size_t i;

	if (!u->ndone) {
		op_begin(u, x, meas, SRC_LOCAL);
		return;
	}
	op_begin(u, x, 0, SRC_MODEL);
	op_receives(r, u, x);
	for (i = 0; i < u->ndone; i++) {
		const struct pdone *d = &u->done[i];
		uint32_t *v = h_get(&r->req_of, (uint64_t)u->rank, d->req, 0);
		uint32_t qi;
		struct req *q;

		if (!v) {
			if (rk->nunits <= 1 || rk->eof) {
				r->stats.unknown_reqs++;
				continue;
			}
			/* Another thread may start it yet. */
			qi = req_new(r, u->rank, d->req);
			if (qi == NIL)
				return;
			q = &r->reqs[qi];
			q->state = Q_UNKNOWN;
			q->T = u->now;
			q->cp = u->cp;
			q->waiter = u->idx;
			u->op_nwait++;
			continue;
		}
		qi = *v;
		q = &r->reqs[qi];
		if (q->state == Q_IDLE || q->state == Q_FREE ||
		    q->state == Q_UNKNOWN) {
			r->stats.unknown_reqs++;
			continue;
		}
		if (q->deferred) {
			/* The status names the sender: match now. */
			q->deferred = 0;
			if (peer_ok(d->peer) && d->tag >= 0)
				do_recv(r, u->rank, q->comm, d->peer, d->tag,
					M_RECV, w_req(r, qi), q->fn,
					q->post_cp, q->post);
			q = &r->reqs[qi];
			req_result(r, qi, q->post, q->post_cp);
			q = &r->reqs[qi];
		}
		if (q->missing)
			u->op_src = SRC_MISSING;
		if (q->state == Q_DONE) {
			double T = q->T;
			struct cpv cp = q->cp;

			op_learn(u, q);
			req_release(r, qi);
			u->op_nwait++;
			unit_result(r, u, T, cp);
		} else {
			q->waiter = u->idx;
			u->op_nwait++;
		}
	}
	u->ndone = 0;
}

/* A blocking collective or communicator constructor. */
static void call_coll(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	double meas = x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0;
	struct cpv cp0 = u->cp;
	double t = u->now;

	if (!x->comm || !x->seq || x->rc) {
		op_begin(u, x, meas, SRC_LOCAL);
		return;
	}
	op_begin(u, x, 0, SRC_LOCAL);
	u->op_coll = 1;
	u->op_comm = x->comm;
	u->op_seq = x->seq;
	coll_arrive(r, u->rank, w_unit(u), x, x->seq, t, cp0, meas);
}

/* Synctrace's own work inside [lo, hi), local ns. */
static double overhead_in(struct unit *u, uint64_t lo, uint64_t hi)
{
	uint64_t cur_lo = 0, cur_hi = 0, a, b, sum = 0;
	size_t i, j, keep = 0;
	int have = 0;

	/* Few intervals: sort by start, then merge. */
	for (i = 1; i < u->nov; i++)
		for (j = i; j > 0 && u->ov[j][0] < u->ov[j - 1][0]; j--) {
			uint64_t t0 = u->ov[j][0], t1 = u->ov[j][1];

			u->ov[j][0] = u->ov[j - 1][0];
			u->ov[j][1] = u->ov[j - 1][1];
			u->ov[j - 1][0] = t0;
			u->ov[j - 1][1] = t1;
		}
	for (i = 0; i < u->nov; i++) {
		a = u->ov[i][0] > lo ? u->ov[i][0] : lo;
		b = u->ov[i][1] < hi ? u->ov[i][1] : hi;
		if (a < b) {
			if (have && a <= cur_hi) {
				if (b > cur_hi)
					cur_hi = b;
			} else {
				if (have)
					sum += cur_hi - cur_lo;
				cur_lo = a;
				cur_hi = b;
				have = 1;
			}
		}
		/* Work that ends after 'hi' may still cover later gaps. */
		if (u->ov[i][1] > hi) {
			u->ov[keep][0] = u->ov[i][0];
			u->ov[keep][1] = u->ov[i][1];
			keep++;
		}
	}
	if (have)
		sum += cur_hi - cur_lo;
	u->nov = keep;
	return (double)sum;
}

/* The compute segment before the call entered at local 't0'. */
static void compute(struct st_replay *r, struct unit *u, uint64_t t0)
{
	struct rank *rk = &r->ranks[u->rank];
	double raw = t0 > u->last_exit ? (double)(t0 - u->last_exit) : 0;
	double ov = u->nov ? overhead_in(u, u->last_exit, t0) : 0;
	double g = raw - ov;

	if (g < 0)
		g = 0;
	rk->res.overhead_ns += ov;
	rk->res.meas_compute_ns += g;
	g *= r->opts.compute_scale;
	rk->res.compute_ns += g;
	u->now += g;
	u->cp.comp += g;
}

static int on_call(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	struct rank *rk = &r->ranks[u->rank];
	int kind = x->fn < ST_FN_COUNT ? r->fkind[x->fn] : 0;
	int fam = x->fn < ST_FN_COUNT ? r->ffam[x->fn] : 0;

	if (u->finalized)
		return 0;
	if (!u->started) {
		if (kind == ST_KIND_INIT) {
			/*
			 * synctrace's own init work (communicator ids, the
			 * first clock sync, where ranks also wait for each
			 * other) runs after PMPI_Init's exit and before its
			 * CALL record, unmarked: the run starts where the
			 * records it wrote end.
			 */
			u->started = 1;
			u->last_exit = x->t1 > u->pre_init ? x->t1 :
				       u->pre_init;
			rk->init_t1 = u->last_exit;
			return 0;
		}
		/* Another thread: its clock starts at MPI_Init's exit. */
		while (!rk->init_known && !rk->eof)
			if (read_one(r, u->rank, NULL, NULL) < 0)
				return r->rc;
		if (!rk->init_known || u->thread == rk->main_thread)
			return 0;	/* before MPI_Init: not replayed */
		u->started = 1;
		u->last_exit = rk->init_t1;
	}
	if (kind == ST_KIND_INIT)
		return 0;
	compute(r, u, x->t0);
	u->last_exit = x->t1;
	if (kind == ST_KIND_FINALIZE) {
		u->finalized = 1;
		rk->res.finished = 1;
		rk->res.pred_ns = u->now;
		rk->res.path = (struct st_replay_path){ u->cp.comp,
							u->cp.comm,
							u->cp.hops };
		rk->res.meas_ns = x->t0 > rk->init_t1 ?
				  (double)(x->t0 - rk->init_t1) : 0;
		return 0;
	}
	if (x->fn >= ST_FN_COUNT || !kind) {
		op_begin(u, x, x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0,
			 SRC_LOCAL);
	} else if (kind == ST_KIND_COMPLETE) {
		if (x->fn == ST_FN_MPI_START || x->fn == ST_FN_MPI_STARTALL ||
		    x->fn == ST_FN_MPI_REQUEST_FREE)
			op_begin(u, x, x->t1 >= x->t0 ?
				 (double)(x->t1 - x->t0) : 0, SRC_LOCAL);
		else
			call_complete(r, u, x);
	} else if (fam == ST_FAM_NONBLOCKING || fam == ST_FAM_PERSISTENT) {
		call_nonblocking(r, u, x);
	} else if (kind == ST_KIND_P2P) {
		call_p2p(r, u, x);
	} else if (kind == ST_KIND_COLL ||
		   (kind == ST_KIND_COMM && fam == ST_FAM_BLOCKING)) {
		call_coll(r, u, x);
	} else {
		op_begin(u, x, x->t1 >= x->t0 ? (double)(x->t1 - x->t0) : 0,
			 SRC_LOCAL);
	}
	return r->rc;
}

static int on_record(struct st_replay *r, struct unit *u, const struct rrec *x)
{
	switch (x->kind) {
	case ST_REC_CALL:
		return on_call(r, u, x);
	case ST_REC_START:
		if (u->started && !u->finalized)
			on_start(r, u, x);
		return r->rc;
	case ST_REC_DONE:
		if (GROW(r, u->done, u->adone, u->ndone))
			return r->rc;
		u->done[u->ndone++] = (struct pdone){ x->req, x->peer,
						      x->tag };
		return 0;
	case ST_REC_COMM:
		if (!u->started && x->t1 > u->pre_init)
			u->pre_init = x->t1;
		return on_comm(r, u->rank, x);
	case ST_REC_MARK:
	case ST_REC_SYNC:
		if (!u->started && x->t1 > u->pre_init)
			u->pre_init = x->t1;
		if (x->t1 <= x->t0)
			return 0;
		if (GROW(r, u->ov, u->aov, u->nov))
			return r->rc;
		u->ov[u->nov][0] = x->t0;
		u->ov[u->nov][1] = x->t1;
		u->nov++;
		return 0;
	}
	return 0;
}

/* The stream of 'u' ended. */
static int unit_end(struct st_replay *r, struct unit *u)
{
	struct rank *rk = &r->ranks[u->rank];

	u->state = U_DONE;
	if (u->finalized || !rk->eof)
		return 0;
	if (!rk->init_known)
		return fail(r, -EBADMSG, "rank %d's trace has no MPI_Init "
			    "(the rank was killed, or tracing stopped)",
			    u->rank);
	if (u->thread == rk->main_thread)
		return fail(r, -EBADMSG, "rank %d's trace ends before "
			    "MPI_Finalize (the rank was killed, or the "
			    "program did not call MPI_Finalize)", u->rank);
	return 0;
}

/* Run 'u' until it blocks, ends, or passes 'limit'. */
static int unit_run(struct st_replay *r, struct unit *u, double limit)
{
	struct rrec x;
	int rc;

	u->running = 1;
	while (!r->rc) {
		if (u->now > limit) {
			u->running = 0;
			return heap_push(r, u);
		}
		if (u->finalized) {
			/* What follows MPI_Finalize is not replayed. */
			u->running = 0;
			u->state = U_DONE;
			return 0;
		}
		rc = unit_next(r, u, &x);
		if (rc < 0)
			break;
		if (!rc) {
			u->running = 0;
			return unit_end(r, u);
		}
		if (x.kind == ST_REC_CALL)
			u->op_nwait = -1;	/* no op yet */
		if (on_record(r, u, &x))
			break;
		if (x.kind != ST_REC_CALL || u->op_nwait < 0 || u->finalized ||
		    !u->started)
			continue;
		if (r->live_insts + r->live_msgs + r->live_reqs >
		    r->stats.max_inflight)
			r->stats.max_inflight = r->live_insts + r->live_msgs +
						r->live_reqs;
		if (u->op_nwait > 0) {
			u->running = 0;
			u->state = U_BLOCKED;
			return 0;
		}
		op_finish(r, u);
	}
	u->running = 0;
	return r->rc;
}

/*
 * Nothing can move.  First read on in ranks whose streams are not done
 * (a thread not seen yet may hold what is waited for).  Then complete
 * the earliest receive or probe (or synchronous send) that no send
 * (receive) matched, as if its partner had been there: one at a time,
 * since what it lets run may bring the partners of the others.  Last,
 * every wait for a request no thread started.  Returns the number of
 * things that can now move, 0 when nothing.
 */
static size_t unstick(struct st_replay *r)
{
	uint32_t best = NIL;
	double best_t = INFINITY;
	size_t n = 0, i;
	int rank;

	for (rank = 0; rank < r->nranks; rank++) {
		if (r->ranks[rank].eof)
			continue;
		while (!r->ranks[rank].eof && !r->nheap)
			if (read_one(r, rank, NULL, NULL) < 0)
				return 0;
		/* New work, or a stream read to its end: look again. */
		return 1;
	}
	for (i = 0; i < r->mq_of.cap; i++) {
		const struct hent *e = &r->mq_of.e[i];
		const struct msg *m;

		if (e->val == NIL)
			continue;
		m = &r->msgs[r->mqs[e->val].head];
		if ((m->type != M_SEND || m->sync) && m->t < best_t) {
			best_t = m->t;
			best = e->val;
		}
	}
	if (best != NIL) {
		struct msg m = r->msgs[r->mqs[best].head];

		mq_pop(r, best);
		if (m.type == M_SEND) {
			resolve(r, m.w, m.t + m.xfer, cp_add(m.cp, m.xfer));
		} else {
			resolve(r, m.w, m.t, m.cp);
			r->stats.released++;
		}
		return 1;
	}
	for (i = 0; i < r->nreqs; i++) {
		struct req *q = &r->reqs[i];

		if (q->state != Q_UNKNOWN || q->waiter == WNONE)
			continue;
		r->stats.unknown_reqs++;
		q->state = Q_PENDING;
		q->nwait = 1;
		req_result(r, (uint32_t)i, q->T, q->cp);
		n++;
	}
	return n;
}

/* Say why the replay cannot go on. */
static int stuck(struct st_replay *r)
{
	char nm[32], nm2[32];
	uint32_t *v;
	size_t i, k;

	for (i = 0; i < r->nunits; i++) {
		struct unit *u = r->units[i];

		if (u->state != U_BLOCKED)
			continue;
		if (u->op_coll &&
		    (v = h_get(&r->inst_of, u->op_comm, u->op_seq, 0)))
			return fail(r, -EBADMSG, "replay stuck: rank %d waits "
				    "in %s on communicator 0x%llx (call %llu), "
				    "which only %d of its %d members reach",
				    u->rank, st_fn_name(u->op_fn, nm,
							sizeof(nm)),
				    (unsigned long long)u->op_comm,
				    (unsigned long long)u->op_seq,
				    r->insts[*v].arrived,
				    r->insts[*v].expected);
		/* A Wait: for which operation? */
		for (k = 0; k < r->nreqs; k++) {
			const struct req *q = &r->reqs[k];

			if (q->waiter != u->idx || q->state == Q_FREE)
				continue;
			v = q->is_coll ? h_get(&r->inst_of, q->comm, q->seq,
					       q->inst) : NULL;
			if (v)
				return fail(r, -EBADMSG, "replay stuck: rank "
					    "%d waits in %s for %s (request "
					    "%llu) on communicator 0x%llx "
					    "(call %llu), which only %d of its "
					    "%d members reach", u->rank,
					    st_fn_name(u->op_fn, nm,
						       sizeof(nm)),
					    st_fn_name(q->fn, nm2,
						       sizeof(nm2)),
					    (unsigned long long)q->id,
					    (unsigned long long)q->comm,
					    (unsigned long long)q->seq,
					    r->insts[*v].arrived,
					    r->insts[*v].expected);
			return fail(r, -EBADMSG, "replay stuck: rank %d waits "
				    "in %s for %s (request %llu), which "
				    "nothing in the traces completes", u->rank,
				    st_fn_name(u->op_fn, nm, sizeof(nm)),
				    st_fn_name(q->fn, nm2, sizeof(nm2)),
				    (unsigned long long)q->id);
		}
		return fail(r, -EBADMSG, "replay stuck: rank %d waits in %s, "
			    "which nothing in the traces completes", u->rank,
			    st_fn_name(u->op_fn, nm, sizeof(nm)));
	}
	return fail(r, -EBADMSG, "replay stuck");
}

void st_replay_opts_init(struct st_replay_opts *o)
{
	o->compute_scale = 1.0;
}

int st_replay_new(struct st_replay **out, int nranks,
		  const struct st_replay_model *m,
		  const struct st_replay_opts *o)
{
	struct st_replay *r;
	unsigned fn;

	*out = NULL;
	if (nranks < 1 || nranks > MAX_RANKS || !m)
		return -EINVAL;
	if (o && (!isfinite(o->compute_scale) || o->compute_scale < 0))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->nranks = nranks;
	r->model = *m;
	if (o)
		r->opts = *o;
	else
		st_replay_opts_init(&r->opts);
	r->ranks = calloc((size_t)nranks, sizeof(*r->ranks));
	r->fns = calloc(ST_FN_COUNT, sizeof(*r->fns));
	r->fkind = calloc(ST_FN_COUNT, 1);
	r->ffam = calloc(ST_FN_COUNT, 1);
	r->fbytes = calloc(ST_FN_COUNT, 1);
	if (!r->ranks || !r->fns || !r->fkind || !r->ffam || !r->fbytes) {
		st_replay_free(r);
		return -ENOMEM;
	}
	for (fn = 1; fn < ST_FN_COUNT; fn++) {
		const struct st_fn_desc *d = st_fn_desc(fn);

		r->fns[fn].fn = (uint16_t)fn;
		if (!d)
			continue;
		r->fkind[fn] = (uint8_t)d->kind;
		r->ffam[fn] = (uint8_t)d->family;
		r->fbytes[fn] = (uint8_t)d->bytes;
	}
	r->inst_free = r->memb_free = r->msg_free = r->mq_free = NIL;
	r->req_free = NIL;
	r->stats.end_rank = -1;
	*out = r;
	return 0;
}

int st_replay_set_source(struct st_replay *r, int rank,
			 const struct st_replay_source *src)
{
	if (rank < 0 || rank >= r->nranks || !src || !src->next)
		return -EINVAL;
	r->ranks[rank].src = *src;
	r->ranks[rank].has_src = 1;
	return 0;
}

void st_replay_set_aux(struct st_replay *r,
		       void (*fn)(void *ctx, int rank,
				  const struct st_event *ev),
		       void *ctx)
{
	r->aux = fn;
	r->aux_ctx = ctx;
}

static void finish_stats(struct st_replay *r)
{
	struct st_replay_stats *s = &r->stats;
	int rank;

	for (rank = 0; rank < r->nranks; rank++) {
		const struct st_replay_rank *x = &r->ranks[rank].res;

		if (!x->finished)
			continue;
		if (s->end_rank < 0 || x->pred_ns > s->end_ns) {
			s->end_ns = x->pred_ns;
			s->end_rank = rank;
			s->path = x->path;
		}
		if (x->meas_ns > s->meas_end_ns)
			s->meas_end_ns = x->meas_ns;
	}
	/* What no receive took. */
	s->unmatched_sends += r->live_msgs;
}

int st_replay_run(struct st_replay *r, char *err, size_t errlen)
{
	struct unit *u;
	int rank;
	size_t i;

	r->err = err;
	r->errlen = errlen;
	if (err && errlen)
		*err = '\0';
	for (rank = 0; rank < r->nranks; rank++)
		if (!unit_of(r, &r->ranks[rank], rank, 0))
			return r->rc;
	for (;;) {
		while (r->nheap && !r->rc) {
			u = heap_pop(r);
			unit_run(r, u, r->nheap ? r->heap[0]->now : INFINITY);
		}
		if (r->rc)
			return r->rc;
		for (i = 0; i < r->nunits; i++)
			if (r->units[i]->state != U_DONE)
				break;
		for (rank = 0; i == r->nunits && rank < r->nranks; rank++)
			if (!r->ranks[rank].eof)
				break;
		if (i == r->nunits && rank == r->nranks)
			break;
		if (!unstick(r))
			return r->rc ? r->rc : stuck(r);
	}
	finish_stats(r);
	return 0;
}

const struct st_replay_stats *st_replay_stats(const struct st_replay *r)
{
	return &r->stats;
}

const struct st_replay_rank *st_replay_rank(const struct st_replay *r,
					    int rank)
{
	if (rank < 0 || rank >= r->nranks)
		return NULL;
	return &r->ranks[rank].res;
}

const struct st_replay_fn *st_replay_fns(const struct st_replay *r,
					 size_t *n)
{
	struct st_replay *w = (struct st_replay *)r;
	size_t fn, k = 0;

	free(w->fn_out);
	w->fn_out = malloc(ST_FN_COUNT * sizeof(*w->fn_out));
	if (!w->fn_out) {
		*n = 0;
		return NULL;
	}
	for (fn = 1; fn < ST_FN_COUNT; fn++)
		if (r->fns[fn].calls)
			w->fn_out[k++] = r->fns[fn];
	*n = k;
	return w->fn_out;
}

const struct st_replay_site *st_replay_sites(const struct st_replay *r,
					     size_t *n)
{
	*n = r->nsites;
	return r->sites;
}

void st_replay_free(struct st_replay *r)
{
	size_t i;
	int rank;

	if (!r)
		return;
	for (i = 0; i < r->nunits; i++) {
		free(r->units[i]->done);
		free(r->units[i]->ov);
		free(r->units[i]->fifo);
		free(r->units[i]);
	}
	if (r->ranks)
		for (rank = 0; rank < r->nranks; rank++)
			free(r->ranks[rank].units);
	free(r->ranks);
	free(r->units);
	free(r->heap);
	h_free(&r->inst_of);
	h_free(&r->mq_of);
	h_free(&r->req_of);
	h_free(&r->comm_of);
	h_free(&r->site_of);
	h_free(&r->first_seen);
	free(r->insts);
	free(r->membs);
	free(r->msgs);
	free(r->mqs);
	free(r->reqs);
	free(r->cis);
	free(r->fns);
	free(r->fn_out);
	free(r->sites);
	free(r->fkind);
	free(r->ffam);
	free(r->fbytes);
	free(r->scan_buf);
	free(r);
}
