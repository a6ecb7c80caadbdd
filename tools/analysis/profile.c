/*
 * tools/analysis/profile.c: the profile of a run (profile.h), what
 * 'synctrace report' prints.  Each rank is read once, its per-rank
 * tables (time per function, requests in flight, call sites, site
 * records and loaded objects; maps are st_u64map's, u64map.h) are folded
 * into the run's at the end of the rank and cleared, so memory grows
 * with the functions, sites and sizes the run used, not with the number
 * of ranks or records.  The same pass feeds the per-window and per-file
 * analyses (rma.h, io.h); with a phase selected (phase.h), each record
 * is first placed in its thread's phase, and only those in a selected
 * one count.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "sync/sync.h"
#include "tools/analysis/diag.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/io.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/phase.h"
#include "tools/analysis/profile.h"
#include "tools/analysis/rma.h"
#include "tools/analysis/symbols.h"
#include "tools/analysis/timeline.h"
#include "tools/analysis/u64map.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"

#define NFN ST_PROFILE_NFN

/*
 * Growable arrays of fixed-size elements: make room for one more after
 * 'nr'.  Returns 0 or -ENOMEM.
 */
static int grow(void **v, size_t nr, size_t *alloc, size_t size)
{
	size_t a;
	void *p;

	if (nr < *alloc)
		return 0;
	a = *alloc ? 2 * *alloc : 64;
	p = realloc(*v, a * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*alloc = a;
	return 0;
}

#define GROW(v, nr, alloc) \
	grow((void **)&(v), (nr), &(alloc), sizeof(*(v)))

/* An operation in flight on one rank, keyed by request id. */
struct req {
	uint16_t fn;
	uint8_t persistent, active;
	uint8_t got_rbytes;		/* its start counted rbytes */
	uint64_t t0;
};

/* Calls of one function from one site of one rank. */
struct rank_site {
	uint32_t site;
	uint16_t fn;
	uint64_t calls, time_ns;
};

/* A site record of one rank. */
struct site_rec {
	uint32_t nframes;
	uint64_t frames[ST_MAX_FRAMES];
};

struct st_profile {
	struct st_profile_sum sum;
	int table_warned;
	int imb_scan_later;	/* st_profile_imb_scan_later() */
	int *missing;			/* [sum.expected] */

	struct st_profile_fn *fn;	/* [NFN] */
	uint64_t *rank_ns;		/* [NFN] this rank's time per fn */
	uint16_t *touched;		/* functions this rank called */
	unsigned char *touched_flag;	/* [NFN] */
	size_t ntouched, alloc_touched;

	uint64_t (*rank_marks)[2];	/* this rank's marks: t0, t1 */
	size_t nrank_marks, alloc_rank_marks;

	struct req *reqs;
	size_t nreqs, alloc_reqs;
	uint64_t *free_reqs;
	size_t nfree, alloc_free;
	struct st_u64map req_of;	/* request id -> index in 'reqs' */

	struct rank_site *rs;
	size_t nrs, alloc_rs;
	struct st_u64map rs_of;		/* site << 16 | fn -> in 'rs' */
	struct site_rec *srec;
	size_t nsrec, alloc_srec;
	struct st_u64map srec_of;	/* site id -> index in 'srec' */
	struct st_objmap objs;

	struct st_symtab *syms;
	struct st_profile_site *gs;
	size_t ngs, alloc_gs;
	struct st_u64map gs_of;		/* sym << 16 | fn -> in 'gs' */

	struct st_profile_size *sizes;
	size_t nsizes, alloc_sizes;
	struct st_u64map size_of;	/* comm size -> in 'sizes' */
	struct st_u64map comm_seen;	/* comm id -> 1 */
	/* The keys of the last call's entries in 'rs_of', 'size_of' and
	   'comm_seen' and the first two's values: a run of calls from one
	   site on one communicator looks nothing up. */
	uint64_t last_rs_key, last_rs, last_size_key, last_size;
	uint64_t last_comm;
	int have_last_rs, have_last_size, have_last_comm;

	char **hosts;
	size_t alloc_hosts;
	struct st_reader *first;	/* first rank read: its header */

	/* Phases: the selection; this rank's threads' positions (thread
	   -> n << 1 | in) and the start of their open span (thread ->
	   local t + 1); the spans it closed. */
	struct st_phase_sel sel;
	struct st_u64map phase_pos, span_open;
	uint64_t (*spans)[2];
	size_t nspans, alloc_spans;

	struct st_rma *rma;
	struct st_io *io;

	/* Collectives in global time. */
	struct st_imb *imb;
	struct st_gclock **clk;		/* [expected], NULL: not read */
	char **path;			/* [expected] */
};

static int fn_kind(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	return d ? d->kind : 0;
}

int st_profile_outside_run(unsigned fn)
{
	int kind = fn_kind(fn);

	return kind == ST_KIND_INIT || kind == ST_KIND_FINALIZE;
}

static int touch(struct st_profile *p, uint16_t fn)
{
	if (p->touched_flag[fn])
		return 0;
	if (GROW(p->touched, p->ntouched, p->alloc_touched))
		return -ENOMEM;
	p->touched[p->ntouched++] = fn;
	p->touched_flag[fn] = 1;
	return 0;
}

/* A free slot of 'reqs' into '*idx'.  Returns 0 or -ENOMEM. */
static int new_req(struct st_profile *p, uint64_t *idx)
{
	if (p->nfree) {
		*idx = p->free_reqs[--p->nfree];
		return 0;
	}
	if (GROW(p->reqs, p->nreqs, p->alloc_reqs))
		return -ENOMEM;
	*idx = p->nreqs++;
	return 0;
}

static int free_req(struct st_profile *p, uint64_t id, size_t idx)
{
	st_u64map_del(&p->req_of, id);
	if (GROW(p->free_reqs, p->nfree, p->alloc_free))
		return -ENOMEM;
	p->free_reqs[p->nfree++] = idx;
	return 0;
}

/* The request 'id' starts afresh; NULL when out of memory. */
static struct req *track(struct st_profile *p, uint64_t id, uint16_t fn,
			 int persistent)
{
	uint64_t *v;
	struct req *q;
	int added;

	v = st_u64map_put(&p->req_of, id, 0, &added);
	if (!v || (added && new_req(p, v)))
		return NULL;
	q = &p->reqs[*v];
	q->fn = fn;
	q->persistent = (uint8_t)persistent;
	q->active = 0;
	q->got_rbytes = 0;
	q->t0 = 0;
	return q;
}

static int on_call(struct st_profile *p, const struct st_event *ev)
{
	struct st_profile_fn *s = &p->fn[ev->fn];
	uint64_t dt = ev->t1 >= ev->t0 ? ev->t1 - ev->t0 : 0;
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	int fam = d ? d->family : 0, added;
	int outside = d && (d->kind == ST_KIND_INIT ||
			    d->kind == ST_KIND_FINALIZE);
	uint64_t *v, key;

	if (touch(p, ev->fn))
		return -ENOMEM;
	s->calls++;
	s->time_ns += dt;
	p->rank_ns[ev->fn] += dt;
	if (!outside) {
		p->sum.mpi_ns += dt;
		p->sum.mpi_calls++;
	}
	/* A persistent init moves no data: its instances (START) do. */
	if (fam != ST_FAM_PERSISTENT) {
		s->sbytes += ev->sbytes;
		s->rbytes += ev->rbytes;
	}
	if (ev->req && ev->fn == ST_FN_MPI_REQUEST_FREE) {
		/* It names the request it freed: no longer pending. */
		v = st_u64map_find(&p->req_of, ev->req);
		if (v) {
			struct req *q = &p->reqs[*v];

			if (q->active)
				p->fn[q->fn].freed++;
			if (free_req(p, ev->req, (size_t)*v))
				return -ENOMEM;
		}
	} else if (ev->req && fam == ST_FAM_NONBLOCKING) {
		struct req *q = track(p, ev->req, ev->fn, 0);

		if (!q)
			return -ENOMEM;
		q->active = 1;
		q->t0 = ev->t0;
		q->got_rbytes = ev->rbytes != 0;
	} else if (ev->req && fam == ST_FAM_PERSISTENT) {
		if (!track(p, ev->req, ev->fn, 1))
			return -ENOMEM;
	}

	key = (uint64_t)ev->site << 16 | ev->fn;
	if (!p->have_last_rs || key != p->last_rs_key) {
		v = st_u64map_put(&p->rs_of, key, 0, &added);
		if (!v)
			return -ENOMEM;
		if (added) {
			if (GROW(p->rs, p->nrs, p->alloc_rs))
				return -ENOMEM;
			*v = p->nrs;
			p->rs[p->nrs++] = (struct rank_site){
				.site = ev->site, .fn = ev->fn };
		}
		p->last_rs_key = key;
		p->last_rs = *v;
		p->have_last_rs = 1;
	}
	p->rs[p->last_rs].calls++;
	p->rs[p->last_rs].time_ns += dt;

	if (ev->comm && ev->comm_size && !outside) {
		struct st_profile_size *z;

		if (!p->have_last_size || ev->comm_size != p->last_size_key) {
			v = st_u64map_put(&p->size_of, ev->comm_size, 0,
					  &added);
			if (!v)
				return -ENOMEM;
			if (added) {
				if (GROW(p->sizes, p->nsizes, p->alloc_sizes))
					return -ENOMEM;
				*v = p->nsizes;
				p->sizes[p->nsizes++] =
					(struct st_profile_size){
						.size = ev->comm_size };
			}
			p->last_size_key = ev->comm_size;
			p->last_size = *v;
			p->have_last_size = 1;
		}
		z = &p->sizes[p->last_size];
		z->calls++;
		z->time_ns += dt;
		if (!p->have_last_comm || ev->comm != p->last_comm) {
			if (!st_u64map_put(&p->comm_seen, ev->comm, 1, &added))
				return -ENOMEM;
			if (added)
				z->ncomms++;
			p->last_comm = ev->comm;
			p->have_last_comm = 1;
		}
	}
	return 0;
}

static int on_start(struct st_profile *p, const struct st_event *ev)
{
	struct st_profile_fn *s = &p->fn[ev->fn];
	uint64_t *v = st_u64map_find(&p->req_of, ev->req);
	struct req *q;

	q = v ? &p->reqs[*v] : track(p, ev->req, ev->fn, 1);
	if (!q)
		return -ENOMEM;
	q->active = 1;
	q->t0 = ev->t0;
	q->got_rbytes = ev->rbytes != 0;
	s->starts++;
	s->sbytes += ev->sbytes;
	s->rbytes += ev->rbytes;
	return 0;
}

static int on_done(struct st_profile *p, const struct st_event *ev)
{
	uint64_t *v = st_u64map_find(&p->req_of, ev->req);
	struct st_profile_fn *s;
	struct req *q;
	uint64_t dt;

	if (!v || !p->reqs[*v].active) {
		p->sum.unmatched++;
		return 0;
	}
	q = &p->reqs[*v];
	s = &p->fn[q->fn];
	dt = ev->t1 >= q->t0 ? ev->t1 - q->t0 : 0;
	if (!s->ops || dt < s->op_min)
		s->op_min = dt;
	if (dt > s->op_max)
		s->op_max = dt;
	s->ops++;
	s->op_ns += dt;
	s->cancelled += (ev->arg & ST_DONE_CANCELLED) != 0;
	/* A receive learns its size from the status, at completion. */
	if (!q->got_rbytes)
		s->rbytes += ev->rbytes;
	if (q->persistent) {
		q->active = 0;
		return 0;
	}
	return free_req(p, ev->req, (size_t)*v);
}

static int on_site(struct st_profile *p, const struct st_event *ev)
{
	uint64_t *v;
	int added;

	v = st_u64map_put(&p->srec_of, ev->site, 0, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		if (GROW(p->srec, p->nsrec, p->alloc_srec))
			return -ENOMEM;
		*v = p->nsrec++;
	}
	p->srec[*v].nframes = ev->nframes < ST_MAX_FRAMES ? ev->nframes :
			      ST_MAX_FRAMES;
	memcpy(p->srec[*v].frames, ev->frames,
	       p->srec[*v].nframes * sizeof(ev->frames[0]));
	return 0;
}

/*
 * Where site 'id' of the current rank is: the symtab index of its first
 * frame outside MPI (Fortran calls come through libmpifort), -1 when the
 * site has no record, -2 when out of memory.
 */
static long site_sym(struct st_profile *p, uint32_t id)
{
	uint64_t *v = id ? st_u64map_find(&p->srec_of, id) : NULL;
	const struct st_object *o, *first = NULL;
	const struct site_rec *sr;
	uint64_t addr, first_addr = 0;
	uint32_t i;
	long sym;

	if (!v || !p->srec[*v].nframes)
		return -1;
	sr = &p->srec[*v];
	for (i = 0; i < sr->nframes; i++) {
		o = st_objmap_find(&p->objs, sr->frames[i], &addr);
		if (!o)
			continue;
		if (!first) {
			first = o;
			first_addr = addr;
		}
		if (!st_object_is_mpi(o->path)) {
			first = o;
			first_addr = addr;
			break;
		}
	}
	if (first)
		sym = st_symtab_add(p->syms, first->path, first_addr);
	else
		sym = st_symtab_add(p->syms, "?", sr->frames[0]);
	return sym < 0 ? -2 : sym;
}

/* Add 't' to the run-time figures of the run. */
static void add_run_time(struct st_profile *p, uint64_t t)
{
	if (!p->sum.nrun || t < p->sum.run_min)
		p->sum.run_min = t;
	if (t > p->sum.run_max)
		p->sum.run_max = t;
	p->sum.run_ns += t;
	p->sum.nrun++;
}

static int add_span(struct st_profile *p, uint64_t a, uint64_t b)
{
	if (GROW(p->spans, p->nspans, p->alloc_spans))
		return -ENOMEM;
	p->spans[p->nspans][0] = a;
	p->spans[p->nspans++][1] = b;
	return 0;
}

/*
 * Place 'ev' (of the rank being read) in its thread's phase: 1 when it
 * counts, 0 when not, -ENOMEM.  A marker closes its thread's open span
 * at its entry and opens one at its exit when the phase it opens is
 * selected; a span open from the start is open from 0 (the run's start,
 * clipped at the end of the rank).
 */
static int phase_in(struct st_profile *p, const struct st_event *ev)
{
	struct st_phase_pos pos;
	uint64_t *v, *o;
	int added, in, was;

	if (p->sel.mode == ST_PHASE_ALL)
		return 1;
	v = st_u64map_put(&p->phase_pos, ev->thread, 0, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		st_phase_pos_init(&p->sel, &pos);
		/* Phase 0 is open from the start. */
		if (pos.in && !st_u64map_put(&p->span_open, ev->thread, 1,
					     NULL))
			return -ENOMEM;
		if (pos.in)
			p->sum.phases++;
		v = st_u64map_find(&p->phase_pos, ev->thread);
	} else {
		pos.n = (long)(*v >> 1);
		pos.in = (int)(*v & 1);
	}
	was = pos.in;
	in = st_phase_step(&p->sel, &pos, ev->kind, ev->fn, ev->arg);
	*v = (uint64_t)pos.n << 1 | (uint64_t)(pos.in != 0);
	if (ev->kind != ST_REC_CALL || !st_phase_marker(ev->fn))
		return in;
	if (was && (o = st_u64map_find(&p->span_open, ev->thread))) {
		if (add_span(p, *o - 1, ev->t0))
			return -ENOMEM;
		st_u64map_del(&p->span_open, ev->thread);
	}
	if (pos.in) {
		p->sum.phases++;
		if (!st_u64map_put(&p->span_open, ev->thread, 0, NULL))
			return -ENOMEM;
		*st_u64map_find(&p->span_open, ev->thread) = ev->t1 + 1;
	}
	return in;
}

/*
 * The end of a rank with a phase selected: its spans, clipped to its run
 * [t_start, t_end], are its run time; synctrace's marks inside them
 * count.  Returns 0 or -ENOMEM.
 */
static int end_phase_rank(struct st_profile *p, uint64_t t_start,
			  uint64_t t_end, int have_start, int have_end)
{
	uint64_t total = 0;
	size_t i, j;
	int any = 0;

	for (i = 0; i < p->span_open.cap; i++)
		if (p->span_open.used[i] && have_end &&
		    add_span(p, p->span_open.val[i] - 1, t_end))
			return -ENOMEM;
	for (i = 0; have_start && have_end && i < p->nspans; i++) {
		uint64_t a = p->spans[i][0] > t_start ? p->spans[i][0] :
			     t_start;
		uint64_t b = p->spans[i][1] < t_end ? p->spans[i][1] : t_end;

		any = 1;
		if (b <= a)
			continue;
		total += b - a;
		for (j = 0; j < p->nrank_marks; j++) {
			uint64_t m0 = p->rank_marks[j][0];
			uint64_t m1 = p->rank_marks[j][1];

			if (m0 >= a && m1 <= b && m1 >= m0) {
				p->sum.marks++;
				p->sum.mark_ns += m1 - m0;
			}
		}
	}
	if (any)
		add_run_time(p, total);
	p->nrank_marks = 0;
	p->nspans = 0;
	st_u64map_clear(&p->phase_pos);
	st_u64map_clear(&p->span_open);
	return 0;
}

/* Fold the current rank's per-rank tables into the run's. */
static int end_rank(struct st_profile *p, int rank, uint64_t t_start,
		    uint64_t t_end, int have_start, int have_end)
{
	size_t i;

	for (i = 0; i < p->ntouched; i++) {
		uint16_t fn = p->touched[i];
		struct st_profile_fn *s = &p->fn[fn];
		uint64_t t = p->rank_ns[fn];

		p->touched_flag[fn] = 0;
		if (!s->nranks || t < s->rank_min)
			s->rank_min = t;
		if (t > s->rank_max)
			s->rank_max = t;
		s->nranks++;
		p->rank_ns[fn] = 0;
	}
	p->ntouched = 0;

	for (i = 0; i < p->req_of.cap; i++) {
		if (p->req_of.used[i] && p->reqs[p->req_of.val[i]].active)
			p->fn[p->reqs[p->req_of.val[i]].fn].pending++;
	}
	st_u64map_clear(&p->req_of);
	p->nreqs = p->nfree = 0;

	for (i = 0; i < p->nrs; i++) {
		struct rank_site *r = &p->rs[i];
		long sym = site_sym(p, r->site);
		struct st_profile_site *g;
		uint64_t *v;
		int added;

		if (sym < -1 || st_imb_site(p->imb, rank, r->site, sym))
			return -ENOMEM;
		v = st_u64map_put(&p->gs_of, (uint64_t)(sym + 1) << 16 | r->fn,
				  0, &added);
		if (!v)
			return -ENOMEM;
		if (added) {
			if (GROW(p->gs, p->ngs, p->alloc_gs))
				return -ENOMEM;
			*v = p->ngs;
			p->gs[p->ngs++] = (struct st_profile_site){
				.sym = sym, .fn = r->fn, .last_rank = -1 };
		}
		g = &p->gs[*v];
		g->calls += r->calls;
		g->time_ns += r->time_ns;
		if (g->last_rank != rank) {
			g->last_rank = rank;
			g->nranks++;
		}
	}
	p->nrs = p->nsrec = 0;
	st_u64map_clear(&p->rs_of);
	p->have_last_rs = 0;
	st_u64map_clear(&p->srec_of);
	st_objmap_release(&p->objs);

	if (p->sel.mode != ST_PHASE_ALL)
		return end_phase_rank(p, t_start, t_end, have_start, have_end);
	for (i = 0; i < p->nrank_marks; i++) {
		uint64_t m0 = p->rank_marks[i][0], m1 = p->rank_marks[i][1];

		if (have_start && have_end && m0 >= t_start && m1 <= t_end &&
		    m1 >= m0) {
			p->sum.marks++;
			p->sum.mark_ns += m1 - m0;
		}
	}
	p->nrank_marks = 0;
	if (have_start && have_end && t_end > t_start)
		add_run_time(p, t_end - t_start);
	return 0;
}

static int note_host(struct st_profile *p, const char *host)
{
	size_t i;

	if (!host)
		return 0;
	for (i = 0; i < p->sum.nhosts; i++)
		if (!strcmp(p->hosts[i], host))
			return 0;
	if (GROW(p->hosts, p->sum.nhosts, p->alloc_hosts))
		return -ENOMEM;
	p->hosts[p->sum.nhosts] = strdup(host);
	if (!p->hosts[p->sum.nhosts])
		return -ENOMEM;
	p->sum.nhosts++;
	return 0;
}

/* All of 's' as a decimal count of ns: 0, or -EINVAL. */
static int parse_ns(const char *s, uint64_t *out)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

/*
 * One record 'ev' of rank 'rank', 'in' a selected phase or not; 0 or
 * -ENOMEM.
 */
static int on_record(struct st_profile *p, int rank,
		     const struct st_event *ev, int in)
{
	if (st_rma_add(p->rma, rank, ev, in) || st_io_add(p->io, rank, ev, in))
		return -ENOMEM;
	switch (ev->kind) {
	case ST_REC_CALL:
		return in ? on_call(p, ev) : 0;
	case ST_REC_START:
		return in ? on_start(p, ev) : 0;
	case ST_REC_DONE:
		return in ? on_done(p, ev) : 0;
	case ST_REC_SITE:
		return on_site(p, ev);
	case ST_REC_OBJECT:
		return st_objmap_add(&p->objs, ev->addr, ev->len, ev->text,
				     ev->text_len) ? -ENOMEM : 0;
	}
	return 0;
}

/*
 * Count 'mine' when it is not 'first' (both header values, NULL when
 * absent); the first such keeps its 'rank' and a copy of the value.
 * Returns 0 or -ENOMEM.
 */
static int note_other(const char *mine, const char *first, int rank,
		      int *n, int *other_rank, char **other)
{
	if (!mine || !first || !strcmp(mine, first))
		return 0;
	if (!(*n)++) {
		*other_rank = rank;
		if (!(*other = strdup(mine)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * What the header of 'rank' ('r') says that the first rank's does not:
 * ranks may run other programs (an MPMD job) with other settings, so
 * the first rank's cmdline and config need not hold for the run.
 * Returns 0 or -ENOMEM.
 */
static int note_header(struct st_profile *p, int rank, struct st_reader *r)
{
	const char *cfg = st_reader_get(r, "config");
	const char *f = cfg ? strstr(cfg, "families=") : NULL;

	/* ST_FAMILY_COMPLETE (pmpi/config.h): Wait, Test, Start. */
	if (f && !(strtoul(f + 9, NULL, 0) & 0x20) && !p->sum.nocomplete++)
		p->sum.nocomplete_rank = rank;
	if (!p->first)
		return 0;
	if (note_other(cfg, p->sum.config, rank, &p->sum.config_others,
		       &p->sum.config_other_rank, &p->sum.config_other))
		return -ENOMEM;
	return note_other(st_reader_get(r, "cmdline"),
			  st_reader_get(p->first, "cmdline"), rank,
			  &p->sum.cmd_others, &p->sum.cmd_other_rank,
			  &p->sum.cmd_other);
}

int st_profile_read_rank(struct st_profile *p, int rank, const char *path,
			 char *err, size_t errlen)
{
	uint64_t t_start = 0, t_end = 0, t_last = 0, t_fin = 0, t_init_end = 0;
	int have_start = 0, have_end = 0, have_last = 0, have_fin = 0;
	int have_init = 0;
	int rc, ret = 0, nbad = 0;
	struct st_gclock *clk;
	struct st_reader *r;
	struct st_event ev;
	const char *v;

	if (rank < 0 || rank >= p->sum.expected)
		return -EINVAL;
	*err = '\0';
	rc = st_fn_reader_open(&r, path, err, errlen);
	if (rc) {
		if (!*err)
			snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	p->sum.nread++;
	/* A single file may hold any rank: its sync records say which. */
	if (st_gclock_new(&clk, p->sum.expected > 1 ? rank : -1)) {
		st_reader_close(r);
		return -ENOMEM;
	}
	st_gclock_free(p->clk[rank]);
	p->clk[rank] = clk;
	free(p->path[rank]);
	if (!(p->path[rank] = strdup(path))) {
		st_reader_close(r);
		return -ENOMEM;
	}
	if (st_fn_table_differs(st_reader_get(r, "fn_table")) &&
	    !p->table_warned++)
		st_warn("'%s' was written with another function table "
			"(fn_table %s, this synctrace has %s): function "
			"names may be wrong", path,
			st_reader_get(r, "fn_table"), st_fn_table_hash());
	if (note_host(p, st_reader_get(r, "host")))
		goto oom;
	v = st_reader_get(r, "t_init_ns");
	if (v && !parse_ns(v, &t_start))
		have_start = 1;
	while ((rc = st_reader_next(r, &ev)) > 0) {
		int in = phase_in(p, &ev);

		if (in < 0)
			goto oom;
		if (!p->imb_scan_later &&
		    (in || (ev.kind != ST_REC_CALL &&
			    ev.kind != ST_REC_START &&
			    ev.kind != ST_REC_DONE)) &&
		    st_imb_scan(p->imb, &ev))
			goto oom;
		if (ev.kind == ST_REC_SYNC) {
			int bad = st_gclock_add_event(clk, &ev, NULL);

			if (bad == -ENOMEM)
				goto oom;
			if (bad && !nbad++)
				st_warn("rank %d: the sync record at t0=%"
					PRIu64 " %s: ignored", rank, ev.t0,
					bad == -EBADMSG ? "is not a valid sync "
					"record" : "does not follow the "
					"earlier ones");
		}
		if (ev.kind != ST_REC_OBJECT && ev.kind != ST_REC_SITE &&
		    (!have_last || ev.t1 > t_last)) {
			t_last = ev.t1;
			have_last = 1;
		}
		if (ev.kind == ST_REC_CALL) {
			int kind = fn_kind(ev.fn);

			if (kind == ST_KIND_INIT) {
				t_start = ev.t1;
				have_start = 1;
			} else if (kind == ST_KIND_FINALIZE && !have_end) {
				t_end = ev.t0;
				have_end = 1;
			}
		}
		if (ev.kind == ST_REC_MARK) {
			if (ev.fn == ST_MARK_FINALIZE && !have_fin) {
				t_fin = ev.t0;
				have_fin = 1;
			}
			/*
			 * synctrace's own MPI_Init work: the application
			 * gets control back, and its run starts, after it.
			 */
			if (ev.fn == ST_MARK_INIT && ev.t1 >= ev.t0) {
				t_init_end = ev.t1;
				have_init = 1;
				p->sum.inits++;
				p->sum.init_ns += ev.t1 - ev.t0;
				continue;
			}
			/* Counted at the end, once the run time is known. */
			if (GROW(p->rank_marks, p->nrank_marks,
				 p->alloc_rank_marks))
				goto oom;
			p->rank_marks[p->nrank_marks][0] = ev.t0;
			p->rank_marks[p->nrank_marks++][1] = ev.t1;
			continue;
		}
		if (on_record(p, rank, &ev, in))
			goto oom;
	}
	if (rc < 0) {
		const char *msg = st_reader_error(r);

		ret = rc;
		if (*msg)
			snprintf(err, errlen, "%s", msg);
		else
			snprintf(err, errlen, "'%s' is corrupt at offset %"
				 PRIu64 ": %s", path, st_reader_offset(r),
				 strerror(-rc));
	} else if (st_reader_truncated(r)) {
		st_warn("'%s' is truncated after offset %" PRIu64
			" (its writer was killed, or its disk was full?): "
			"reporting what it holds", path, st_reader_offset(r));
	}
	if (!have_end && have_last) {
		t_end = t_last;
		have_end = 1;
	}
	if (have_init && have_start && t_init_end > t_start)
		t_start = t_init_end;
	/*
	 * synctrace's own finalize work runs just before the real
	 * MPI_Finalize, on the application's behalf: the run ends there.
	 */
	if (have_fin && have_end && t_fin < t_end)
		t_end = t_fin;
	if (end_rank(p, rank, t_start, t_end, have_start, have_end))
		goto oom;
	st_rma_end_rank(p->rma);
	st_io_end_rank(p->io);
	if (st_gclock_epochs(clk))
		p->sum.nsynced++;
	if (!p->imb_scan_later &&
	    st_imb_scan_end(p->imb, st_gclock_epochs(clk) > 0))
		goto oom;
	if (note_header(p, rank, r))
		goto oom;
	if (!p->first) {
		p->first = r;
		p->sum.mpi_library = st_reader_get(r, "mpi_library");
		p->sum.clock = st_reader_get(r, "clock");
		p->sum.clock_res = st_reader_get(r, "clock_res_ns");
		p->sum.clock_cost = st_reader_get(r, "clock_cost_ns");
		p->sum.config = st_reader_get(r, "config");
	} else {
		st_reader_close(r);
	}
	return ret;
oom:
	st_reader_close(r);
	return -ENOMEM;
}

int st_profile_new(struct st_profile **out, int nranks)
{
	struct st_profile *p;

	*out = NULL;
	if (nranks < 1)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->sum.expected = nranks;
	p->fn = calloc(NFN, sizeof(*p->fn));
	p->rank_ns = calloc(NFN, sizeof(*p->rank_ns));
	p->touched_flag = calloc(NFN, 1);
	p->missing = calloc((size_t)nranks, sizeof(*p->missing));
	p->clk = calloc((size_t)nranks, sizeof(*p->clk));
	p->path = calloc((size_t)nranks, sizeof(*p->path));
	p->syms = st_symtab_new();
	p->imb = st_imb_new();
	p->rma = st_rma_new();
	p->io = st_io_new();
	st_objmap_init(&p->objs);
	if (!p->fn || !p->rank_ns || !p->touched_flag || !p->missing ||
	    !p->clk || !p->path || !p->syms || !p->imb || !p->rma ||
	    !p->io) {
		st_profile_free(p);
		return -ENOMEM;
	}
	p->sum.missing = p->missing;
	*out = p;
	return 0;
}

void st_profile_free(struct st_profile *p)
{
	size_t i;
	int r;

	if (!p)
		return;
	for (r = 0; p->clk && p->path && r < p->sum.expected; r++) {
		st_gclock_free(p->clk[r]);
		free(p->path[r]);
	}
	free(p->clk);
	free(p->path);
	free(p->sum.config_other);
	free(p->sum.cmd_other);
	st_imb_free(p->imb);
	st_rma_free(p->rma);
	st_io_free(p->io);
	free(p->spans);
	st_u64map_release(&p->phase_pos);
	st_u64map_release(&p->span_open);
	for (i = 0; i < p->sum.nhosts; i++)
		free(p->hosts[i]);
	free(p->hosts);
	free(p->missing);
	free(p->fn);
	free(p->rank_ns);
	free(p->touched);
	free(p->touched_flag);
	free(p->rank_marks);
	free(p->reqs);
	free(p->free_reqs);
	free(p->rs);
	free(p->srec);
	free(p->gs);
	free(p->sizes);
	st_u64map_release(&p->req_of);
	st_u64map_release(&p->rs_of);
	st_u64map_release(&p->srec_of);
	st_u64map_release(&p->gs_of);
	st_u64map_release(&p->size_of);
	st_u64map_release(&p->comm_seen);
	st_objmap_release(&p->objs);
	st_symtab_free(p->syms);
	if (p->first)
		st_reader_close(p->first);
	free(p);
}

void st_profile_set_phase(struct st_profile *p,
			  const struct st_phase_sel *sel)
{
	p->sel = *sel;
}

struct st_rma *st_profile_rma(struct st_profile *p)
{
	return p->rma;
}

struct st_io *st_profile_io(struct st_profile *p)
{
	return p->io;
}

int st_profile_missing(struct st_profile *p, int rank)
{
	if (rank < 0 || rank >= p->sum.expected ||
	    p->sum.nmissing >= p->sum.expected)
		return -EINVAL;
	p->missing[p->sum.nmissing++] = rank;
	return 0;
}

const struct st_profile_sum *st_profile_sum(const struct st_profile *p)
{
	return &p->sum;
}

const struct st_profile_fn *st_profile_fns(const struct st_profile *p)
{
	return p->fn;
}

static int cmp_site(const void *a, const void *b)
{
	const struct st_profile_site *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->fn - y->fn;
}

const struct st_profile_site *st_profile_sites(struct st_profile *p,
					       size_t *n)
{
	/* The index by key is not needed once every rank is read. */
	if (p->ngs)
		qsort(p->gs, p->ngs, sizeof(*p->gs), cmp_site);
	st_u64map_clear(&p->gs_of);
	*n = p->ngs;
	return p->gs;
}

static int cmp_size(const void *a, const void *b)
{
	const struct st_profile_size *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

const struct st_profile_size *st_profile_sizes(struct st_profile *p,
					       size_t *n)
{
	if (p->nsizes)
		qsort(p->sizes, p->nsizes, sizeof(*p->sizes), cmp_size);
	st_u64map_clear(&p->size_of);
	p->have_last_size = 0;
	*n = p->nsizes;
	return p->sizes;
}

struct st_symtab *st_profile_symtab(struct st_profile *p)
{
	return p->syms;
}

const char *st_profile_sync_method(const struct st_profile *p)
{
	int r;

	for (r = 0; r < p->sum.expected; r++)
		if (p->clk[r] && st_gclock_epochs(p->clk[r]))
			return st_sync_method_name(
				st_gclock_method(p->clk[r]));
	return NULL;
}

/* A collective instance complete: is it a window's or a file's? */
static void on_instance(void *ctx, const struct st_imb_done *d)
{
	struct st_profile *p = ctx;

	st_rma_instance(p->rma, d);
	st_io_instance(p->io, d);
}

/* Rank 'rank''s CALL 'ev' (global entry g0, exit g1) to the matching. */
static int coll_add(struct st_profile *p, int rank, const struct st_event *ev,
		    double g0, double g1)
{
	const struct st_gclock *c = p->clk[rank];

	return st_imb_add(p->imb, rank, ev, g0, g1, st_gclock_err(c, ev->t0),
			  st_gclock_err(c, ev->t1)) ? -ENOMEM : 0;
}

int st_profile_collectives(struct st_profile *p, char *err, size_t errlen)
{
	struct st_phase_tracker trk = { .sel = p->sel };
	struct st_merge *m;
	struct st_merged x;
	int r, rc, in;

	*err = '\0';
	st_profile_coll_begin(p);
	if (st_merge_new(&m))
		return -ENOMEM;
	for (r = 0; r < p->sum.expected; r++) {
		if (!p->clk[r] || !st_gclock_epochs(p->clk[r]))
			continue;
		rc = st_merge_add(m, r, p->path[r], p->clk[r], err, errlen);
		if (rc) {
			if (!*err)
				snprintf(err, errlen, "%s", strerror(-rc));
			st_merge_free(m);
			return rc;
		}
	}
	while (st_merge_next(m, &x) > 0) {
		if ((in = st_phase_track(&trk, x.rank, x.ev)) < 0)
			goto oom;
		if (x.ev->kind != ST_REC_CALL || !in)
			continue;
		if (coll_add(p, x.rank, x.ev, x.g0, x.g1))
			goto oom;
	}
	st_profile_coll_end(p);
	st_merge_free(m);
	st_phase_tracker_release(&trk);
	return 0;
oom:
	st_merge_free(m);
	st_phase_tracker_release(&trk);
	return -ENOMEM;
}

void st_profile_imb_scan_later(struct st_profile *p)
{
	p->imb_scan_later = 1;
}

int st_profile_imb_scan(struct st_profile *p)
{
	struct st_reader *r;
	struct st_event ev;
	int rank, rc;

	for (rank = 0; rank < p->sum.expected; rank++) {
		if (!p->path[rank])
			continue;
		rc = st_fn_reader_open(&r, p->path[rank], NULL, 0);
		if (rc == -ENOMEM)
			return rc;
		if (rc)
			continue;
		while ((rc = st_reader_next(r, &ev)) > 0)
			if (st_imb_scan(p->imb, &ev)) {
				st_reader_close(r);
				return -ENOMEM;
			}
		st_reader_close(r);
		if (st_imb_scan_end(p->imb,
				    st_gclock_epochs(p->clk[rank]) > 0))
			return -ENOMEM;
	}
	return 0;
}

void st_profile_coll_begin(struct st_profile *p)
{
	st_imb_set_hook(p->imb, on_instance, p);
}

int st_profile_coll_add(struct st_profile *p, int rank,
			const struct st_event *ev, double g0)
{
	return coll_add(p, rank, ev, g0,
			st_gclock_global(p->clk[rank], ev->t1));
}

void st_profile_coll_end(struct st_profile *p)
{
	st_imb_finish(p->imb);
}

struct st_imb *st_profile_imb(struct st_profile *p)
{
	return p->imb;
}
