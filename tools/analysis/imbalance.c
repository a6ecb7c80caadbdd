/*
 * tools/analysis/imbalance.c: matching collective instances across ranks and
 * splitting their time (see tools/analysis/imbalance.h).  An instance in flight
 * keeps its members' global entry and exit times, since a member's
 * waiting ends at the last arrival, known only once every member came;
 * it is dropped when complete, its arrays kept for the next instance
 * (no allocation per instance).  Lookups that repeat record after record
 * (the communicator, the rows of a call site) are cached.  The median clock error comes from a
 * histogram with 64 bins per octave (within 0.6%), clamped to the exact
 * minimum and maximum, so it needs no list of every instance.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/imbalance.h"
#include "writer/event.h"
#include "writer/fn-info.h"

/* A map from 64-bit keys to 64-bit values, open addressing. */
struct map {
	uint64_t *key, *val;
	unsigned char *used;
	size_t cap, n;
};

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

static uint64_t *map_find(const struct map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = hash64(key) & (m->cap - 1); m->used[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key)
			return &m->val[i];
	return NULL;
}

static int map_grow(struct map *m)
{
	struct map g = { 0 };
	size_t i, j;

	g.cap = m->cap ? 2 * m->cap : 64;
	g.key = malloc(g.cap * sizeof(*g.key));
	g.val = malloc(g.cap * sizeof(*g.val));
	g.used = calloc(g.cap, 1);
	if (!g.key || !g.val || !g.used) {
		free(g.key);
		free(g.val);
		free(g.used);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		for (j = hash64(m->key[i]) & (g.cap - 1); g.used[j];
		     j = (j + 1) & (g.cap - 1))
			;
		g.used[j] = 1;
		g.key[j] = m->key[i];
		g.val[j] = m->val[i];
	}
	g.n = m->n;
	free(m->key);
	free(m->val);
	free(m->used);
	*m = g;
	return 0;
}

/*
 * Point '*slot' at the value of 'key', inserting 'val' when absent
 * ('*added' says which).  Returns 0 or -ENOMEM.
 */
static int map_put(struct map *m, uint64_t key, uint64_t val,
		   uint64_t **slot, int *added)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap && map_grow(m))
		return -ENOMEM;
	for (i = hash64(key) & (m->cap - 1); m->used[i];
	     i = (i + 1) & (m->cap - 1)) {
		if (m->key[i] == key) {
			*slot = &m->val[i];
			*added = 0;
			return 0;
		}
	}
	m->used[i] = 1;
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	*slot = &m->val[i];
	*added = 1;
	return 0;
}

static void map_clear(struct map *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->n = 0;
}

static void map_free(struct map *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* What the first pass learnt of one communicator. */
struct comm_info {
	uint32_t size;		/* local group */
	uint8_t inter;
	int present;		/* ranks with records on it */
	int unsynced;		/* of them, ranks without global time */
	uint64_t min_last;	/* least last blocking seq over 'present' */
	uint64_t open;		/* instances in flight */
	uint64_t evict_from;	/* no instance below is in flight */
};

/* A collective instance in flight. */
struct inst {
	uint64_t comm, seq;
	uint32_t size, seen;
	uint16_t fn;
	int low_rank;		/* lowest member seen, and its call site */
	uint32_t low_site;
	double first_arr, last_arr, first_exit, last_exit;
	double e_first_arr, e_last_arr, e_last_exit;
	int last_rank;		/* the member that arrived last */
	double (*t)[2];		/* per member seen: entry, exit */
	int *rk;		/* per member seen: its rank */
	uint64_t *cookie;	/* per member seen: st_imb_set_cookie() */
	uint32_t cap;		/* members the arrays hold */
};

/* Instances in flight by (comm, seq): open addressing, no tombstones. */
struct itab {
	struct inst *v;
	unsigned char *used;
	size_t cap, n;
};

/* The member arrays of an instance, for 'cap' members. */
struct spare {
	double (*t)[2];
	int *rk;
	uint64_t *cookie;
	uint32_t cap;
};

#define MAX_SPARE 64

#define HIST_PER_OCT 64
#define HIST_MIN_LOG2 (-10)
#define HIST_BINS (54 * HIST_PER_OCT)

struct st_imb {
	/* Per function id: a blocking collective (st_fn_group_coll()). */
	uint8_t gc[ST_FN_COUNT];
	/* first pass */
	struct comm_info *comms;
	size_t ncomms, alloc_comms;
	struct map comm_of;	/* comm id -> index in 'comms' */
	struct map rank_last;	/* this rank: comm id -> last blocking seq */
	struct map site_of;	/* rank << 32 | site -> sym + 1 */
	/* The last communicator st_imb_scan() saw: its index in 'comms'
	   and its slot in 'rank_last' (valid until 'rank_last' changes). */
	uint64_t scan_comm;
	size_t scan_ci, scan_slot;
	int scan_valid;

	/* second pass */
	struct itab it;
	/* The instance made last, kept out of 'it' until another is made
	   while it is in flight: most complete before the next starts. */
	struct inst pend;
	int have_pend;
	/* Member arrays of completed instances, kept for the next ones. */
	struct spare *spare;
	size_t nspare;
	/* The last communicator st_imb_add() saw and its index in 'comms'
	   (an index never changes: communicators are only added). */
	uint64_t add_comm;
	size_t add_ci;
	int add_valid;
	/* The last instance's row keys and rows, and its clock error's
	   histogram bin (the same error gives the same bin). */
	uint64_t last_site_key, last_srow_key;
	long last_sym;
	size_t last_frow, last_srow;
	uint16_t last_fn;
	int have_last_site, have_last_frow, have_last_srow;
	double last_err;
	long last_bin;
	int have_last_bin;
	struct st_imb_row *fn_rows, *site_rows;
	size_t nfn, alloc_fn, nsite, alloc_site;
	struct map fn_row_of;	/* fn -> index in 'fn_rows' */
	struct map site_row_of;	/* (sym + 1) << 16 | fn -> index */
	uint64_t hist[HIST_BINS], hist_zero;
	double err_min;
	struct st_imb_totals tot;
	struct st_imb_blame *blame_all;	/* over every row, by rank */
	int nblame_all;
	uint64_t cookie;		/* of the next st_imb_add() */
	st_imb_done_fn *hook;
	void *hook_ctx;
};

struct st_imb *st_imb_new(void)
{
	struct st_imb *a = calloc(1, sizeof(struct st_imb));
	unsigned fn;

	if (!a)
		return NULL;
	for (fn = 0; fn < ST_FN_COUNT; fn++)
		a->gc[fn] = st_fn_group_coll(fn) != ST_GC_NONE;
	return a;
}

static void inst_release(struct inst *in)
{
	free(in->t);
	free(in->rk);
	free(in->cookie);
	in->t = NULL;
	in->rk = NULL;
	in->cookie = NULL;
}

void st_imb_free(struct st_imb *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->it.cap; i++)
		if (a->it.used[i])
			inst_release(&a->it.v[i]);
	if (a->have_pend)
		inst_release(&a->pend);
	for (i = 0; i < a->nspare; i++) {
		free(a->spare[i].t);
		free(a->spare[i].rk);
		free(a->spare[i].cookie);
	}
	free(a->spare);
	free(a->it.v);
	free(a->it.used);
	free(a->comms);
	for (i = 0; i < a->nfn; i++)
		free(a->fn_rows[i].blame);
	for (i = 0; i < a->nsite; i++)
		free(a->site_rows[i].blame);
	free(a->fn_rows);
	free(a->site_rows);
	free(a->blame_all);
	map_free(&a->comm_of);
	map_free(&a->rank_last);
	map_free(&a->site_of);
	map_free(&a->fn_row_of);
	map_free(&a->site_row_of);
	free(a);
}

/*
 * A CALL of a blocking collective with a communicator (window, file) and
 * a sequence number: the collective chapter's, and those over a window
 * or a file (st_fn_group_coll()).
 */
static int is_blocking_coll(const struct st_imb *a, const struct st_event *ev)
{
	if (ev->kind != ST_REC_CALL || !ev->comm || !ev->seq)
		return 0;
	/* st_fn_group_coll(ev->fn) != ST_GC_NONE, looked up (an unknown
	   id is none). */
	return ev->fn < ST_FN_COUNT && a->gc[ev->fn];
}

int st_imb_wants(const struct st_imb *a, const struct st_event *ev)
{
	return is_blocking_coll(a, ev);
}

void st_imb_take_scan(struct st_imb *dst, struct st_imb *src)
{
	free(dst->comms);
	map_free(&dst->comm_of);
	dst->comms = src->comms;
	dst->ncomms = src->ncomms;
	dst->alloc_comms = src->alloc_comms;
	dst->comm_of = src->comm_of;
	dst->scan_valid = dst->add_valid = 0;
	src->comms = NULL;
	src->ncomms = src->alloc_comms = 0;
	memset(&src->comm_of, 0, sizeof(src->comm_of));
	src->scan_valid = src->add_valid = 0;
}

static struct comm_info *comm_get(struct st_imb *a, uint64_t id, int create)
{
	uint64_t *v;
	int added;

	v = map_find(&a->comm_of, id);
	if (v || !create)
		return v ? &a->comms[*v] : NULL;
	if (a->ncomms == a->alloc_comms) {
		size_t alloc = a->alloc_comms ? 2 * a->alloc_comms : 64;
		struct comm_info *c = realloc(a->comms, alloc * sizeof(*c));

		if (!c)
			return NULL;
		a->comms = c;
		a->alloc_comms = alloc;
	}
	if (map_put(&a->comm_of, id, a->ncomms, &v, &added))
		return NULL;
	memset(&a->comms[a->ncomms], 0, sizeof(a->comms[0]));
	a->comms[a->ncomms].min_last = UINT64_MAX;
	return &a->comms[a->ncomms++];
}

int st_imb_scan(struct st_imb *a, const struct st_event *ev)
{
	struct comm_info *c;
	uint64_t *last;
	int added;

	if (!ev->comm || (ev->kind != ST_REC_CALL && ev->kind != ST_REC_START &&
			  ev->kind != ST_REC_DONE && ev->kind != ST_REC_COMM))
		return 0;
	if (a->scan_valid && a->scan_comm == ev->comm) {
		c = &a->comms[a->scan_ci];
		last = &a->rank_last.val[a->scan_slot];
	} else {
		if (!(c = comm_get(a, ev->comm, 1)) ||
		    map_put(&a->rank_last, ev->comm, 0, &last, &added))
			return -ENOMEM;
		a->scan_comm = ev->comm;
		a->scan_ci = (size_t)(c - a->comms);
		a->scan_slot = (size_t)(last - a->rank_last.val);
		a->scan_valid = 1;
	}
	if (ev->kind == ST_REC_COMM) {
		if (ev->remote_size)
			c->inter = 1;
		if (ev->comm_size)
			c->size = ev->comm_size;
	}
	if (is_blocking_coll(a, ev)) {
		if (ev->comm_size && !c->size)
			c->size = ev->comm_size;
		if (ev->root == ST_RANK_ROOT || ev->root == ST_RANK_PROC_NULL)
			c->inter = 1;
		if (ev->seq > *last)
			*last = ev->seq;
	}
	return 0;
}

int st_imb_scan_end(struct st_imb *a, int synced)
{
	size_t i;

	for (i = 0; i < a->rank_last.cap; i++) {
		struct comm_info *c;

		if (!a->rank_last.used[i])
			continue;
		c = comm_get(a, a->rank_last.key[i], 0);
		if (!c)
			continue;
		c->present++;
		if (!synced)
			c->unsynced++;
		if (a->rank_last.val[i] < c->min_last)
			c->min_last = a->rank_last.val[i];
	}
	map_clear(&a->rank_last);
	a->scan_valid = 0;
	return 0;
}

int st_imb_site(struct st_imb *a, int rank, uint32_t site, long sym)
{
	uint64_t *v;
	int added;

	if (map_put(&a->site_of, (uint64_t)(uint32_t)rank << 32 | site, 0, &v,
		    &added))
		return -ENOMEM;
	*v = (uint64_t)(sym + 1);
	a->have_last_site = 0;
	return 0;
}

static size_t inst_home(const struct itab *t, uint64_t comm, uint64_t seq)
{
	return hash64(comm * 0x9e3779b97f4a7c15ULL ^ seq) & (t->cap - 1);
}

static struct inst *inst_find(const struct itab *t, uint64_t comm,
			      uint64_t seq)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = inst_home(t, comm, seq); t->used[i];
	     i = (i + 1) & (t->cap - 1))
		if (t->v[i].comm == comm && t->v[i].seq == seq)
			return &t->v[i];
	return NULL;
}

/* The instance (comm, seq) in flight, made last or in the table. */
static struct inst *inst_lookup(struct st_imb *a, uint64_t comm,
				uint64_t seq)
{
	if (a->have_pend && a->pend.comm == comm && a->pend.seq == seq)
		return &a->pend;
	return inst_find(&a->it, comm, seq);
}

static int itab_grow(struct itab *t)
{
	struct itab g = { 0 };
	size_t i, j;

	g.cap = t->cap ? 2 * t->cap : 64;
	g.v = malloc(g.cap * sizeof(*g.v));
	g.used = calloc(g.cap, 1);
	if (!g.v || !g.used) {
		free(g.v);
		free(g.used);
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->used[i])
			continue;
		for (j = inst_home(&g, t->v[i].comm, t->v[i].seq); g.used[j];
		     j = (j + 1) & (g.cap - 1))
			;
		g.used[j] = 1;
		g.v[j] = t->v[i];
	}
	g.n = t->n;
	free(t->v);
	free(t->used);
	*t = g;
	return 0;
}

/*
 * Give the member arrays of 'in' back: kept for a later instance while
 * there is room, else freed.
 */
static void inst_recycle(struct st_imb *a, struct inst *in)
{
	struct spare *sp;

	if (in->t && a->nspare < MAX_SPARE) {
		if (!a->spare &&
		    !(a->spare = malloc(MAX_SPARE * sizeof(*a->spare)))) {
			inst_release(in);
			return;
		}
		sp = &a->spare[a->nspare++];
		sp->t = in->t;
		sp->rk = in->rk;
		sp->cookie = in->cookie;
		sp->cap = in->cap;
		in->t = NULL;
		in->rk = NULL;
		in->cookie = NULL;
		return;
	}
	inst_release(in);
}

/*
 * A new instance (comm, seq) of 'size' members, not in the table yet,
 * with the arrays of a completed one when the last kept fits; NULL: no
 * memory.
 */
static struct inst *inst_add(struct st_imb *a, uint64_t comm, uint64_t seq,
			     uint32_t size)
{
	struct itab *t = &a->it;
	struct inst *in = &a->pend;
	size_t i;

	/* The one made before, still in flight, goes into the table. */
	if (a->have_pend) {
		if (2 * (t->n + 1) > t->cap && itab_grow(t))
			return NULL;
		for (i = inst_home(t, a->pend.comm, a->pend.seq); t->used[i];
		     i = (i + 1) & (t->cap - 1))
			;
		t->v[i] = a->pend;
		t->used[i] = 1;
		t->n++;
		a->have_pend = 0;
	}
	memset(in, 0, sizeof(*in));
	if (a->nspare && a->spare[a->nspare - 1].cap >= size) {
		struct spare *sp = &a->spare[--a->nspare];

		in->t = sp->t;
		in->rk = sp->rk;
		in->cookie = sp->cookie;
		in->cap = sp->cap;
	} else {
		in->t = malloc(size * sizeof(*in->t));
		in->rk = malloc(size * sizeof(*in->rk));
		in->cookie = malloc(size * sizeof(*in->cookie));
		in->cap = size;
		if (!in->t || !in->rk || !in->cookie) {
			inst_release(in);
			return NULL;
		}
	}
	a->have_pend = 1;
	in->comm = comm;
	in->seq = seq;
	in->size = size;
	return in;
}

/*
 * Drop 'in' (its arrays kept for the next instance) and close its hole
 * by shifting later entries back.
 */
static void inst_del(struct st_imb *a, struct inst *in)
{
	struct itab *t = &a->it;
	size_t i, j, home;

	if (in == &a->pend) {
		inst_recycle(a, in);
		a->have_pend = 0;
		return;
	}
	i = (size_t)(in - t->v);
	inst_recycle(a, in);
	t->used[i] = 0;
	t->n--;
	for (j = (i + 1) & (t->cap - 1); t->used[j];
	     j = (j + 1) & (t->cap - 1)) {
		home = inst_home(t, t->v[j].comm, t->v[j].seq);
		/* Move j into the hole unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			t->v[i] = t->v[j];
			t->used[i] = 1;
			t->used[j] = 0;
			i = j;
		}
	}
}

static struct st_imb_row *row_get(struct map *of, struct st_imb_row **rows,
				  size_t *n, size_t *alloc, uint64_t key,
				  uint16_t fn, long sym)
{
	uint64_t *v = map_find(of, key);
	int added;

	if (v)
		return &(*rows)[*v];
	if (*n == *alloc) {
		size_t al = *alloc ? 2 * *alloc : 32;
		struct st_imb_row *r = realloc(*rows, al * sizeof(*r));

		if (!r)
			return NULL;
		*rows = r;
		*alloc = al;
	}
	if (map_put(of, key, *n, &v, &added))
		return NULL;
	memset(&(*rows)[*n], 0, sizeof(**rows));
	(*rows)[*n].fn = fn;
	(*rows)[*n].sym = sym;
	return &(*rows)[(*n)++];
}

static void stat_add(struct st_imb_stat *s, int flagged, double imb,
		     double wait, double after, double skew)
{
	if (flagged) {
		s->flagged++;
		return;
	}
	s->n++;
	s->imb_ns += imb;
	s->wait_ns += wait;
	s->after_ns += after;
	s->skew_ns += skew;
}

static void hist_add(struct st_imb *a, double err)
{
	long b;

	if (isnan(err))
		return;
	if (!a->tot.nerr || err < a->err_min)
		a->err_min = err;
	if (!a->tot.nerr || err > a->tot.err_max_ns)
		a->tot.err_max_ns = err;
	a->tot.nerr++;
	if (err <= 0) {
		a->hist_zero++;
		return;
	}
	if (a->have_last_bin && err == a->last_err) {
		a->hist[a->last_bin]++;
		return;
	}
	b = (long)floor((log2(err) - HIST_MIN_LOG2) * HIST_PER_OCT);
	if (b < 0)
		b = 0;
	if (b >= HIST_BINS)
		b = HIST_BINS - 1;
	a->hist[b]++;
	a->last_err = err;
	a->last_bin = b;
	a->have_last_bin = 1;
}

/*
 * Charge 'wait' (the waiting of an instance's members) and one last
 * arrival to 'rank' in the table '*v' of '*n' ranks, grown to fit.
 */
static int blame_add(struct st_imb_blame **v, int *n, int rank, double wait)
{
	if (rank >= *n) {
		int m = rank + 1 > 2 * *n ? rank + 1 : 2 * *n;
		struct st_imb_blame *b = realloc(*v, (size_t)m * sizeof(*b));

		if (!b)
			return -ENOMEM;
		memset(b + *n, 0, (size_t)(m - *n) * sizeof(*b));
		*v = b;
		*n = m;
	}
	(*v)[rank].last++;
	(*v)[rank].caused_ns += wait;
	return 0;
}

/* Fold the complete instance 'in' into the tables, then free it. */
static int complete(struct st_imb *a, struct comm_info *c, struct inst *in)
{
	double imb = in->last_arr - in->first_arr, dur, wait = 0, after = 0;
	double err_imb = in->e_first_arr + in->e_last_arr;
	double err_dur = in->e_last_exit + in->e_last_arr, err;
	struct st_imb_row *fr, *sr;
	uint64_t *v, key;
	long sym = -1;
	uint32_t i;
	int flagged;

	for (i = 0; i < in->seen; i++) {
		double g0 = in->t[i][0], g1 = in->t[i][1];
		double until = g1 < in->last_arr ? g1 : in->last_arr;

		if (until > g0)
			wait += until - g0;
		if (g1 > in->last_arr)
			after += g1 - in->last_arr;
	}
	dur = in->last_exit - in->last_arr;
	/* Written so that an unknown (NaN) error flags the instance. */
	flagged = !(imb >= err_imb) || !(dur >= err_dur);
	err = err_imb > err_dur ? err_imb : err_dur;
	hist_add(a, isnan(err_imb) || isnan(err_dur) ? NAN : err);

	key = (uint64_t)(uint32_t)in->low_rank << 32 | in->low_site;
	if (a->have_last_site && key == a->last_site_key) {
		sym = a->last_sym;
	} else {
		v = map_find(&a->site_of, key);
		if (v)
			sym = (long)*v - 1;
		a->last_site_key = key;
		a->last_sym = sym;
		a->have_last_site = 1;
	}
	if (a->have_last_frow && in->fn == a->last_fn) {
		fr = &a->fn_rows[a->last_frow];
	} else {
		fr = row_get(&a->fn_row_of, &a->fn_rows, &a->nfn,
			     &a->alloc_fn, in->fn, in->fn, -1);
		if (!fr)
			return -ENOMEM;
		a->last_fn = in->fn;
		a->last_frow = (size_t)(fr - a->fn_rows);
		a->have_last_frow = 1;
	}
	key = (uint64_t)(sym + 1) << 16 | in->fn;
	if (a->have_last_srow && key == a->last_srow_key) {
		sr = &a->site_rows[a->last_srow];
	} else {
		sr = row_get(&a->site_row_of, &a->site_rows, &a->nsite,
			     &a->alloc_site, key, in->fn, sym);
		if (!sr)
			return -ENOMEM;
		a->last_srow_key = key;
		a->last_srow = (size_t)(sr - a->site_rows);
		a->have_last_srow = 1;
	}
	stat_add(&fr->s, flagged, imb, wait, after,
		 in->last_exit - in->first_exit);
	stat_add(&sr->s, flagged, imb, wait, after,
		 in->last_exit - in->first_exit);
	stat_add(&a->tot.all, flagged, imb, wait, after,
		 in->last_exit - in->first_exit);
	if (!flagged && in->last_rank >= 0 &&
	    (blame_add(&fr->blame, &fr->nblame, in->last_rank, wait) ||
	     blame_add(&sr->blame, &sr->nblame, in->last_rank, wait) ||
	     blame_add(&a->blame_all, &a->nblame_all, in->last_rank, wait)))
		return -ENOMEM;
	if (a->hook) {
		struct st_imb_done d = {
			.comm = in->comm, .seq = in->seq, .fn = in->fn,
			.n = in->seen, .rank = in->rk, .t = in->t,
			.cookie = in->cookie, .first_arr = in->first_arr,
			.last_arr = in->last_arr, .last_rank = in->last_rank,
			.flagged = flagged, .sym = sym,
		};

		a->hook(a->hook_ctx, &d);
	}
	c->open--;
	inst_del(a, in);
	return 0;
}

/*
 * Instance (comm, seq) just completed: every member has gone past any
 * earlier instance on the communicator, so one still open never will.
 */
static void evict_before(struct st_imb *a, uint64_t comm,
			 struct comm_info *c, uint64_t seq)
{
	uint64_t s;
	struct inst *in;

	for (s = c->evict_from; c->open && s < seq; s++) {
		in = inst_lookup(a, comm, s);
		if (!in)
			continue;
		c->open--;
		a->tot.incomplete++;
		inst_del(a, in);
	}
	if (seq + 1 > c->evict_from)
		c->evict_from = seq + 1;
}

int st_imb_add(struct st_imb *a, int rank, const struct st_event *ev,
	       double g0, double g1, double err0, double err1)
{
	struct comm_info *c;
	struct inst *in;
	uint64_t comm = ev->comm, seq = ev->seq;
	int rc;

	if (!is_blocking_coll(a, ev))
		return 0;
	if (a->add_valid && a->add_comm == comm) {
		c = &a->comms[a->add_ci];
	} else {
		c = comm_get(a, comm, 0);
		if (c) {
			a->add_comm = comm;
			a->add_ci = (size_t)(c - a->comms);
			a->add_valid = 1;
		}
	}
	if (c && c->inter) {
		a->tot.calls_inter++;
		return 0;
	}
	if (c && c->size < 2) {
		a->tot.calls_single++;
		return 0;
	}
	if (!c || c->present < (int)c->size || seq > c->min_last) {
		a->tot.calls_missing++;
		return 0;
	}
	if (c->unsynced || isnan(g0) || isnan(g1)) {
		a->tot.calls_unsynced++;
		return 0;
	}
	in = inst_lookup(a, comm, seq);
	if (!in) {
		if (!(in = inst_add(a, comm, seq, c->size)))
			return -ENOMEM;
		c->open++;
		if (a->it.n + (size_t)a->have_pend > a->tot.max_open)
			a->tot.max_open = a->it.n + (size_t)a->have_pend;
		in->fn = ev->fn;
		in->low_rank = rank;
		in->low_site = ev->site;
		in->last_rank = rank;
		in->first_arr = in->last_arr = g0;
		in->e_first_arr = in->e_last_arr = err0;
		in->first_exit = in->last_exit = g1;
		in->e_last_exit = err1;
	} else {
		if (rank < in->low_rank) {
			in->low_rank = rank;
			in->low_site = ev->site;
		}
		if (g0 < in->first_arr) {
			in->first_arr = g0;
			in->e_first_arr = err0;
		}
		if (g0 > in->last_arr) {
			in->last_arr = g0;
			in->e_last_arr = err0;
			in->last_rank = rank;
		}
		if (g1 < in->first_exit)
			in->first_exit = g1;
		if (g1 > in->last_exit) {
			in->last_exit = g1;
			in->e_last_exit = err1;
		}
	}
	in->t[in->seen][0] = g0;
	in->t[in->seen][1] = g1;
	in->rk[in->seen] = rank;
	in->cookie[in->seen] = a->cookie;
	if (++in->seen < in->size)
		return 0;
	rc = complete(a, c, in);
	evict_before(a, comm, c, seq);
	return rc;
}

void st_imb_finish(struct st_imb *a)
{
	size_t i;

	for (i = 0; i < a->it.cap; i++) {
		if (!a->it.used[i])
			continue;
		inst_release(&a->it.v[i]);
		a->it.used[i] = 0;
		a->tot.incomplete++;
	}
	a->it.n = 0;
	if (a->have_pend) {
		inst_release(&a->pend);
		a->have_pend = 0;
		a->tot.incomplete++;
	}
	for (i = 0; i < a->ncomms; i++)
		a->comms[i].open = 0;
}

const struct st_imb_row *st_imb_by_fn(const struct st_imb *a, size_t *n)
{
	*n = a->nfn;
	return a->fn_rows;
}

const struct st_imb_row *st_imb_by_site(const struct st_imb *a, size_t *n)
{
	*n = a->nsite;
	return a->site_rows;
}

const struct st_imb_totals *st_imb_totals(struct st_imb *a)
{
	uint64_t want, seen;
	double v = 0;
	long b;

	if (!a->tot.nerr) {
		a->tot.err_median_ns = NAN;
		return &a->tot;
	}
	/* The lower median: the ((n + 1) / 2)-th smallest. */
	want = (a->tot.nerr + 1) / 2;
	seen = a->hist_zero;
	for (b = 0; seen < want && b < HIST_BINS; b++) {
		seen += a->hist[b];
		if (seen >= want)
			v = exp2(HIST_MIN_LOG2 + (b + 0.5) / HIST_PER_OCT);
	}
	if (v < a->err_min)
		v = a->err_min;
	if (v > a->tot.err_max_ns)
		v = a->tot.err_max_ns;
	a->tot.err_median_ns = v;
	return &a->tot;
}

size_t st_imb_open(const struct st_imb *a)
{
	return a->it.n + (size_t)a->have_pend;
}

const struct st_imb_blame *st_imb_blame_all(const struct st_imb *a, int *n)
{
	*n = a->nblame_all;
	return a->blame_all;
}

void st_imb_set_cookie(struct st_imb *a, uint64_t cookie)
{
	a->cookie = cookie;
}

void st_imb_set_hook(struct st_imb *a, st_imb_done_fn *fn, void *ctx)
{
	a->hook = fn;
	a->hook_ctx = ctx;
}

int st_imb_expected(const struct st_imb *a, const struct st_event *ev)
{
	const struct comm_info *c;
	uint64_t *v;

	if (!is_blocking_coll(a, ev) || !(v = map_find(&a->comm_of, ev->comm)))
		return 0;
	c = &a->comms[*v];
	return !c->inter && c->size >= 2 && c->present >= (int)c->size &&
	       ev->seq <= c->min_last && !c->unsynced;
}
