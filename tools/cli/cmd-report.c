/*
 * tools/cli/cmd-report.c: 'synctrace report', a profile of a run.  One pass
 * over each rank's records accumulates, per MPI function, calls, bytes
 * and time (t1 - t0 of CALL records); per nonblocking or persistent
 * operation the time from its start (the I-call, or the START record of
 * MPI_Start) to the exit of the Wait/Test that completed it (the DONE
 * record with the same request id); per call site and per communicator
 * size, calls and time.  Call sites are merged across ranks by what
 * they are (object and offset of the application's frame), not by id,
 * since ids and load addresses differ between ranks.  These sections use
 * only differences of one rank's own clock, so they need no clock
 * synchronisation.  When the trace holds sync records, a last section
 * matches the instances of each blocking collective across ranks in
 * global time (tools/analysis/imbalance.h): a second pass walks all ranks at once
 * in global time order (tools/analysis/merge.h), so instances complete soon after
 * they begin and memory stays bounded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/sync.h"
#include "tools/analysis/format.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/symbols.h"
#include "tools/cli/report-views.h"
#include "tools/cli/synctrace.h"
#include "tools/analysis/timeline.h"
#include "tools/cli/usage.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"

const char st_report_usage[] =
"usage: synctrace report [--top N] [--matrix-csv FILE] [--matrix-json FILE]\n"
"                        RUN\n"
"\n"
"Summarise run directory RUN: time and bytes per MPI function, time from\n"
"start to completion of nonblocking and persistent operations, the call\n"
"sites that spent most time in MPI (symbolised with addr2line), and calls\n"
"per communicator size.  Run time is, per rank, from the end of MPI_Init\n"
"(and of synctrace's own work there) to the start of MPI_Finalize (or of\n"
"synctrace's finalize work, which precedes it; or to the last record when\n"
"there is no MPI_Finalize).\n"
"With clock synchronisation records, blocking collectives are matched\n"
"across ranks in global time: arrival imbalance, waiting for the last\n"
"rank, time in the operation after the last arrival and exit skew, per\n"
"function and per call site; the verdict names the rank that arrives\n"
"last at the call site with most waiting, and how much of it it causes.\n"
"Then time per rank and who sends how many bytes to whom.\n"
"\n"
"    --top N     show the N call sites with most time, the N pairs with\n"
"                most bytes (default 10, 0: all)\n"
"    --matrix-csv FILE   write the communication matrices as CSV\n"
"    --matrix-json FILE  write them as JSON\n"
"    -h, --help  show this help\n";

#define NFN 65536		/* function ids are 16 bits */
#define WIDTH 100		/* lines are kept within this many columns */

/* A map from 64-bit keys to 64-bit values: linear probing. */
struct u64map {
	uint64_t *key, *val;
	unsigned char *used;
	size_t cap, n;
};

static uint64_t *map_slot(const struct u64map *m, uint64_t key, size_t *at)
{
	size_t i;

	if (!m->cap) {
		*at = 0;
		return NULL;
	}
	i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (m->cap - 1);
	while (m->used[i]) {
		if (m->key[i] == key) {
			*at = i;
			return &m->val[i];
		}
		i = (i + 1) & (m->cap - 1);
	}
	*at = i;
	return NULL;
}

static uint64_t *map_get(const struct u64map *m, uint64_t key)
{
	size_t at;

	return map_slot(m, key, &at);
}

static void map_grow(struct u64map *m)
{
	struct u64map g = { 0 };
	size_t i, at;

	g.cap = m->cap ? 2 * m->cap : 64;
	g.key = malloc(g.cap * sizeof(*g.key));
	g.val = malloc(g.cap * sizeof(*g.val));
	g.used = calloc(g.cap, 1);
	if (!g.key || !g.val || !g.used)
		die("out of memory");
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		map_slot(&g, m->key[i], &at);
		g.used[at] = 1;
		g.key[at] = m->key[i];
		g.val[at] = m->val[i];
	}
	g.n = m->n;
	free(m->key);
	free(m->val);
	free(m->used);
	*m = g;
}

/* The value of 'key', inserted as 'val' when absent ('*added' says). */
static uint64_t *map_put(struct u64map *m, uint64_t key, uint64_t val,
			 int *added)
{
	uint64_t *v;
	size_t at;

	if (2 * (m->n + 1) > m->cap)
		map_grow(m);
	v = map_slot(m, key, &at);
	*added = !v;
	if (v)
		return v;
	m->used[at] = 1;
	m->key[at] = key;
	m->val[at] = val;
	m->n++;
	return &m->val[at];
}

/* Remove 'key', shifting later entries back (no tombstones). */
static void map_del(struct u64map *m, uint64_t key)
{
	size_t i, j, home;

	if (!map_slot(m, key, &i))
		return;
	m->used[i] = 0;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->used[j];
	     j = (j + 1) & (m->cap - 1)) {
		home = (size_t)((m->key[j] * 0x9e3779b97f4a7c15ULL) >> 20) &
		       (m->cap - 1);
		/* Move j to the hole i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			m->used[i] = 1;
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			m->used[j] = 0;
			i = j;
		}
	}
}

static void map_clear(struct u64map *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->n = 0;
}

static void map_free(struct u64map *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* Growable arrays of fixed-size elements. */
#define GROW(v, nr, alloc)                                                  \
	do {                                                                \
		if ((nr) == (alloc)) {                                      \
			size_t a_ = (alloc) ? 2 * (alloc) : 64;             \
			void *p_ = realloc((v), a_ * sizeof(*(v)));         \
			if (!p_)                                            \
				die("out of memory");                       \
			(v) = p_;                                           \
			(alloc) = a_;                                       \
		}                                                           \
	} while (0)

/* Per function, over all ranks. */
struct fn_stat {
	uint64_t calls, sbytes, rbytes, time_ns;
	uint64_t rank_min, rank_max;	/* of the per-rank time totals */
	int nranks;			/* ranks that called it */
	uint64_t starts;		/* persistent: instances started */
	uint64_t ops, op_ns, op_min, op_max; /* completed operations */
	uint64_t pending;		/* started, never seen completed */
};

/* An operation in flight on one rank, keyed by request id. */
struct req {
	uint16_t fn;
	uint8_t persistent, active;
	uint8_t got_rbytes;		/* its start already counted rbytes */
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

/* Calls of one function from one place in the code, over all ranks. */
struct gsite {
	long sym;			/* symtab index, -1: unknown place */
	uint16_t fn;
	uint64_t calls, time_ns;
	int nranks, last_rank;
};

struct size_stat {
	uint64_t size, ncomms, calls, time_ns;
};

struct report {
	long top;
	const char *matrix_csv, *matrix_json;
	int nread;			/* ranks whose file was read */
	int failed;
	int table_warned;
	int expected;			/* ranks the run declares */
	int *missing;
	int nmissing;

	struct fn_stat *fn;		/* [NFN] */
	uint64_t *rank_ns;		/* [NFN] this rank's time per fn */
	uint16_t *touched;		/* functions this rank called */
	unsigned char *touched_flag;	/* [NFN] */
	size_t ntouched, alloc_touched;

	uint64_t mpi_ns, mpi_calls;	/* outside MPI_Init and MPI_Finalize */
	uint64_t run_ns, run_min, run_max;
	int nrun;			/* ranks with a run time */
	uint64_t marks, mark_ns;	/* inside the run time */
	uint64_t inits, init_ns;	/* synctrace's MPI_Init work */
	uint64_t (*rank_marks)[2];	/* this rank's marks: t0, t1 */
	size_t nrank_marks, alloc_rank_marks;
	uint64_t unmatched;		/* DONE records without a start */

	struct req *reqs;
	size_t nreqs, alloc_reqs;
	uint64_t *free_reqs;
	size_t nfree, alloc_free;
	struct u64map req_of;		/* request id -> index in 'reqs' */

	struct rank_site *rs;
	size_t nrs, alloc_rs;
	struct u64map rs_of;		/* site << 16 | fn -> index in 'rs' */
	struct site_rec *srec;
	size_t nsrec, alloc_srec;
	struct u64map srec_of;		/* site id -> index in 'srec' */
	struct st_objmap objs;

	struct st_symtab *syms;
	struct gsite *gs;
	size_t ngs, alloc_gs;
	struct u64map gs_of;		/* sym << 16 | fn -> index in 'gs' */

	struct size_stat *sizes;
	size_t nsizes, alloc_sizes;
	struct u64map size_of;		/* comm size -> index in 'sizes' */
	struct u64map comm_seen;	/* comm id -> 1 */

	char **hosts;
	size_t nhosts, alloc_hosts;
	const char *mpi_library, *clock, *clock_res, *clock_cost, *config;
	struct st_reader *first;	/* first rank read: its header */

	/* Collectives in global time. */
	struct st_imb *imb;
	struct st_gclock **clk;		/* [expected], NULL: not read */
	char **path;			/* [expected] */
	int nsynced;			/* ranks with global time */
};

/* "12.3%" of 'part' in 'whole', or "-" when there is no whole. */
static char *fmt_pct(double part, double whole, char *buf, size_t len)
{
	if (whole <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * part / whole);
	return buf;
}

static char *fmt_n(uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "n=%" PRIu64, n);
	return buf;
}

static int fn_kind(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	return d ? d->kind : 0;
}

static int fn_family(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	return d ? d->family : 0;
}

static int outside_run(unsigned fn)
{
	int kind = fn_kind(fn);

	return kind == ST_KIND_INIT || kind == ST_KIND_FINALIZE;
}

static void touch(struct report *rp, uint16_t fn)
{
	if (rp->touched_flag[fn])
		return;
	GROW(rp->touched, rp->ntouched, rp->alloc_touched);
	rp->touched[rp->ntouched++] = fn;
	rp->touched_flag[fn] = 1;
}

static size_t new_req(struct report *rp)
{
	if (rp->nfree)
		return (size_t)rp->free_reqs[--rp->nfree];
	GROW(rp->reqs, rp->nreqs, rp->alloc_reqs);
	return rp->nreqs++;
}

static void free_req(struct report *rp, uint64_t id, size_t idx)
{
	map_del(&rp->req_of, id);
	GROW(rp->free_reqs, rp->nfree, rp->alloc_free);
	rp->free_reqs[rp->nfree++] = idx;
}

static struct req *track(struct report *rp, uint64_t id, uint16_t fn,
			 int persistent)
{
	uint64_t *v;
	struct req *q;
	int added;

	v = map_put(&rp->req_of, id, 0, &added);
	if (added)
		*v = new_req(rp);
	q = &rp->reqs[*v];
	q->fn = fn;
	q->persistent = (uint8_t)persistent;
	q->active = 0;
	q->got_rbytes = 0;
	q->t0 = 0;
	return q;
}

static void on_call(struct report *rp, const struct st_event *ev)
{
	struct fn_stat *s = &rp->fn[ev->fn];
	uint64_t dt = ev->t1 >= ev->t0 ? ev->t1 - ev->t0 : 0;
	int fam = fn_family(ev->fn), added;
	uint64_t *v;

	touch(rp, ev->fn);
	s->calls++;
	s->time_ns += dt;
	rp->rank_ns[ev->fn] += dt;
	if (!outside_run(ev->fn)) {
		rp->mpi_ns += dt;
		rp->mpi_calls++;
	}
	/* A persistent init moves no data: its instances (START) do. */
	if (fam != ST_FAM_PERSISTENT) {
		s->sbytes += ev->sbytes;
		s->rbytes += ev->rbytes;
	}
	if (ev->req && fam == ST_FAM_NONBLOCKING) {
		struct req *q = track(rp, ev->req, ev->fn, 0);

		q->active = 1;
		q->t0 = ev->t0;
		q->got_rbytes = ev->rbytes != 0;
	} else if (ev->req && fam == ST_FAM_PERSISTENT) {
		track(rp, ev->req, ev->fn, 1);
	}

	v = map_put(&rp->rs_of, (uint64_t)ev->site << 16 | ev->fn, 0, &added);
	if (added) {
		GROW(rp->rs, rp->nrs, rp->alloc_rs);
		*v = rp->nrs;
		rp->rs[rp->nrs++] = (struct rank_site){ .site = ev->site,
							.fn = ev->fn };
	}
	rp->rs[*v].calls++;
	rp->rs[*v].time_ns += dt;

	if (ev->comm && ev->comm_size && !outside_run(ev->fn)) {
		struct size_stat *z;

		v = map_put(&rp->size_of, ev->comm_size, 0, &added);
		if (added) {
			GROW(rp->sizes, rp->nsizes, rp->alloc_sizes);
			*v = rp->nsizes;
			rp->sizes[rp->nsizes++] = (struct size_stat){
				.size = ev->comm_size };
		}
		z = &rp->sizes[*v];
		z->calls++;
		z->time_ns += dt;
		map_put(&rp->comm_seen, ev->comm, 1, &added);
		if (added)
			z->ncomms++;
	}
}

static void on_start(struct report *rp, const struct st_event *ev)
{
	struct fn_stat *s = &rp->fn[ev->fn];
	uint64_t *v = map_get(&rp->req_of, ev->req);
	struct req *q;

	q = v ? &rp->reqs[*v] : track(rp, ev->req, ev->fn, 1);
	q->active = 1;
	q->t0 = ev->t0;
	q->got_rbytes = ev->rbytes != 0;
	s->starts++;
	s->sbytes += ev->sbytes;
	s->rbytes += ev->rbytes;
}

static void on_done(struct report *rp, const struct st_event *ev)
{
	uint64_t *v = map_get(&rp->req_of, ev->req);
	struct fn_stat *s;
	struct req *q;
	uint64_t dt;

	if (!v || !rp->reqs[*v].active) {
		rp->unmatched++;
		return;
	}
	q = &rp->reqs[*v];
	s = &rp->fn[q->fn];
	dt = ev->t1 >= q->t0 ? ev->t1 - q->t0 : 0;
	if (!s->ops || dt < s->op_min)
		s->op_min = dt;
	if (dt > s->op_max)
		s->op_max = dt;
	s->ops++;
	s->op_ns += dt;
	/* A receive learns its size from the status, at completion. */
	if (!q->got_rbytes)
		s->rbytes += ev->rbytes;
	if (q->persistent)
		q->active = 0;
	else
		free_req(rp, ev->req, (size_t)*v);
}

static void on_site(struct report *rp, const struct st_event *ev)
{
	uint64_t *v;
	int added;

	v = map_put(&rp->srec_of, ev->site, 0, &added);
	if (added) {
		GROW(rp->srec, rp->nsrec, rp->alloc_srec);
		*v = rp->nsrec++;
	}
	rp->srec[*v].nframes = ev->nframes < ST_MAX_FRAMES ? ev->nframes :
			       ST_MAX_FRAMES;
	memcpy(rp->srec[*v].frames, ev->frames,
	       rp->srec[*v].nframes * sizeof(ev->frames[0]));
}

/*
 * Where site 'id' of the current rank is: the symtab index of its first
 * frame outside MPI (Fortran calls come through libmpifort), -1 when the
 * site has no record.
 */
static long site_sym(struct report *rp, uint32_t id)
{
	uint64_t *v = id ? map_get(&rp->srec_of, id) : NULL;
	const struct st_object *o, *first = NULL;
	const struct site_rec *sr;
	uint64_t addr, first_addr = 0;
	uint32_t i;
	long sym;

	if (!v || !rp->srec[*v].nframes)
		return -1;
	sr = &rp->srec[*v];
	for (i = 0; i < sr->nframes; i++) {
		o = st_objmap_find(&rp->objs, sr->frames[i], &addr);
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
		sym = st_symtab_add(rp->syms, first->path, first_addr);
	else
		sym = st_symtab_add(rp->syms, "?", sr->frames[0]);
	if (sym < 0)
		die("out of memory");
	return sym;
}

/* Fold the current rank's per-rank tables into the run's. */
static void end_rank(struct report *rp, int rank, uint64_t t_start,
		     uint64_t t_end, int have_start, int have_end)
{
	size_t i;

	for (i = 0; i < rp->ntouched; i++) {
		uint16_t fn = rp->touched[i];
		struct fn_stat *s = &rp->fn[fn];
		uint64_t t = rp->rank_ns[fn];

		rp->touched_flag[fn] = 0;
		if (!s->nranks || t < s->rank_min)
			s->rank_min = t;
		if (t > s->rank_max)
			s->rank_max = t;
		s->nranks++;
		rp->rank_ns[fn] = 0;
	}
	rp->ntouched = 0;

	for (i = 0; i < rp->req_of.cap; i++) {
		if (rp->req_of.used[i] && rp->reqs[rp->req_of.val[i]].active)
			rp->fn[rp->reqs[rp->req_of.val[i]].fn].pending++;
	}
	map_clear(&rp->req_of);
	rp->nreqs = rp->nfree = 0;

	for (i = 0; i < rp->nrs; i++) {
		struct rank_site *r = &rp->rs[i];
		long sym = site_sym(rp, r->site);
		struct gsite *g;
		uint64_t *v;
		int added;

		if (st_imb_site(rp->imb, rank, r->site, sym))
			die("out of memory");
		v = map_put(&rp->gs_of, (uint64_t)(sym + 1) << 16 | r->fn, 0,
			    &added);
		if (added) {
			GROW(rp->gs, rp->ngs, rp->alloc_gs);
			*v = rp->ngs;
			rp->gs[rp->ngs++] = (struct gsite){
				.sym = sym, .fn = r->fn, .last_rank = -1 };
		}
		g = &rp->gs[*v];
		g->calls += r->calls;
		g->time_ns += r->time_ns;
		if (g->last_rank != rank) {
			g->last_rank = rank;
			g->nranks++;
		}
	}
	rp->nrs = rp->nsrec = 0;
	map_clear(&rp->rs_of);
	map_clear(&rp->srec_of);
	st_objmap_release(&rp->objs);

	for (i = 0; i < rp->nrank_marks; i++) {
		uint64_t m0 = rp->rank_marks[i][0], m1 = rp->rank_marks[i][1];

		if (have_start && have_end && m0 >= t_start && m1 <= t_end &&
		    m1 >= m0) {
			rp->marks++;
			rp->mark_ns += m1 - m0;
		}
	}
	rp->nrank_marks = 0;
	if (have_start && have_end && t_end > t_start) {
		uint64_t t = t_end - t_start;

		if (!rp->nrun || t < rp->run_min)
			rp->run_min = t;
		if (t > rp->run_max)
			rp->run_max = t;
		rp->run_ns += t;
		rp->nrun++;
	}
}

static void note_host(struct report *rp, const char *host)
{
	size_t i;

	if (!host)
		return;
	for (i = 0; i < rp->nhosts; i++)
		if (!strcmp(rp->hosts[i], host))
			return;
	GROW(rp->hosts, rp->nhosts, rp->alloc_hosts);
	rp->hosts[rp->nhosts] = strdup(host);
	if (!rp->hosts[rp->nhosts])
		die("out of memory");
	rp->nhosts++;
}

/* Read rank 'rank's file 'path'.  Returns 0, or -1 after an error. */
static int read_rank(struct report *rp, int rank, const char *path)
{
	uint64_t t_start = 0, t_end = 0, t_last = 0, t_fin = 0, t_init_end = 0;
	int have_start = 0, have_end = 0, have_last = 0, have_fin = 0;
	int have_init = 0;
	int rc, ret = 0, nbad = 0;
	struct st_gclock *clk;
	struct st_reader *r;
	struct st_event ev;
	const char *v;
	char err[512];
	long init_ns;

	rc = st_fn_reader_open(&r, path, err, sizeof(err));
	if (rc)
		return error("%s", *err ? err : strerror_neg(rc));
	rp->nread++;
	/* A single file may hold any rank: its sync records say which. */
	if (st_gclock_new(&clk, rp->expected > 1 ? rank : -1))
		die("out of memory");
	rp->clk[rank] = clk;
	if (!(rp->path[rank] = strdup(path)))
		die("out of memory");
	if (st_fn_table_differs(st_reader_get(r, "fn_table")) &&
	    !rp->table_warned++)
		warning("'%s' was written with another function table "
			"(fn_table %s, this synctrace has %s): function "
			"names may be wrong", path,
			st_reader_get(r, "fn_table"), st_fn_table_hash());
	note_host(rp, st_reader_get(r, "host"));
	v = st_reader_get(r, "t_init_ns");
	if (v && !st_parse_int(v, 0, INT64_MAX, &init_ns)) {
		t_start = (uint64_t)init_ns;
		have_start = 1;
	}
	while ((rc = st_reader_next(r, &ev)) > 0) {
		if (st_imb_scan(rp->imb, &ev))
			die("out of memory");
		if (ev.kind == ST_REC_SYNC) {
			int bad = st_gclock_add_event(clk, &ev, NULL);

			if (bad == -ENOMEM)
				die("out of memory");
			if (bad && !nbad++)
				warning("rank %d: the sync record at t0=%"
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
		switch (ev.kind) {
		case ST_REC_CALL:
			if (fn_kind(ev.fn) == ST_KIND_INIT) {
				t_start = ev.t1;
				have_start = 1;
			} else if (fn_kind(ev.fn) == ST_KIND_FINALIZE &&
				   !have_end) {
				t_end = ev.t0;
				have_end = 1;
			}
			on_call(rp, &ev);
			break;
		case ST_REC_START:
			on_start(rp, &ev);
			break;
		case ST_REC_DONE:
			on_done(rp, &ev);
			break;
		case ST_REC_SITE:
			on_site(rp, &ev);
			break;
		case ST_REC_OBJECT:
			if (st_objmap_add(&rp->objs, ev.addr, ev.len, ev.text,
					  ev.text_len))
				die("out of memory");
			break;
		case ST_REC_MARK:
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
				rp->inits++;
				rp->init_ns += ev.t1 - ev.t0;
				break;
			}
			/* Counted at the end, once the run time is known. */
			GROW(rp->rank_marks, rp->nrank_marks,
			     rp->alloc_rank_marks);
			rp->rank_marks[rp->nrank_marks][0] = ev.t0;
			rp->rank_marks[rp->nrank_marks++][1] = ev.t1;
			break;
		}
	}
	if (rc < 0) {
		const char *msg = st_reader_error(r);

		ret = *msg ? error("%s", msg) :
		      error("'%s' is corrupt at offset %" PRIu64 ": %s", path,
			    st_reader_offset(r), strerror_neg(rc));
	} else if (st_reader_truncated(r)) {
		warning("'%s' is truncated after offset %" PRIu64
			" (its writer was killed?): reporting what it holds",
			path, st_reader_offset(r));
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
	end_rank(rp, rank, t_start, t_end, have_start, have_end);
	if (st_gclock_epochs(clk))
		rp->nsynced++;
	if (st_imb_scan_end(rp->imb, st_gclock_epochs(clk) > 0))
		die("out of memory");
	if (!rp->first)
		rp->first = r;
	else
		st_reader_close(r);
	return ret;
}

/* Print 's' cut to 'width' columns, "..." marking a cut. */
static void put_cut(const char *s, size_t width)
{
	size_t len = strlen(s);

	if (len <= width || width < 4)
		printf("%s\n", s);
	else
		printf("%.*s...\n", (int)(width - 3), s);
}

/* Sort keys of a function id: by 'key' descending, then by id. */
static int cmp_desc(uint64_t x, uint64_t y, const void *a, const void *b)
{
	if (x != y)
		return x < y ? 1 : -1;
	return *(const uint16_t *)a - *(const uint16_t *)b;
}

static int cmp_fn_time(const void *a, const void *b, void *ctx)
{
	const struct fn_stat *fn = ctx;

	return cmp_desc(fn[*(const uint16_t *)a].time_ns,
			fn[*(const uint16_t *)b].time_ns, a, b);
}

static int cmp_fn_bytes(const void *a, const void *b, void *ctx)
{
	const struct fn_stat *x = (const struct fn_stat *)ctx +
				  *(const uint16_t *)a;
	const struct fn_stat *y = (const struct fn_stat *)ctx +
				  *(const uint16_t *)b;

	return cmp_desc(x->sbytes + x->rbytes, y->sbytes + y->rbytes, a, b);
}

static int cmp_fn_optime(const void *a, const void *b, void *ctx)
{
	const struct fn_stat *fn = ctx;

	return cmp_desc(fn[*(const uint16_t *)a].op_ns,
			fn[*(const uint16_t *)b].op_ns, a, b);
}

/* Sort the 'n' function ids 'ids' by 'cmp' over the table 'rp->fn'. */
static void sort_ids(struct report *rp, uint16_t *ids, size_t n,
		     int (*cmp)(const void *, const void *, void *))
{
	qsort_r(ids, n, sizeof(*ids), cmp, rp->fn);
}

/*
 * "label: value" cut to the report's width; tabs in 'value' (header
 * values may hold them) print as spaces, what else a terminal would
 * obey escaped (st_fmt_str()).
 */
static void print_field(const char *label, const char *value)
{
	char line[WIDTH + 8], raw[WIDTH + 8], safe[WIDTH + 8];
	size_t n, i;

	/* Longer than the line: cut anyway ("..." below). */
	n = strlen(value);
	n = n < sizeof(raw) ? n : sizeof(raw);
	for (i = 0; i < n; i++)
		raw[i] = value[i] == '\t' ? ' ' : value[i];
	st_fmt_text(raw, n, safe, sizeof(safe));
	n = (size_t)snprintf(line, sizeof(line), "%-13s%s", label, safe);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	if (n > WIDTH) {
		memcpy(line + WIDTH - 3, "...", 4);
	}
	puts(line);
}

static int cmp_gsite(const void *a, const void *b)
{
	const struct gsite *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->fn - y->fn;
}

static int cmp_size(const void *a, const void *b)
{
	const struct size_stat *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

static const char *name_of(unsigned fn, char *buf, size_t len)
{
	return st_fn_name(fn, buf, len);
}

static void print_summary(struct report *rp, const char *dir,
			  struct st_run *run)
{
	const char *cmdline = run ? st_run_get(run, "cmdline") : NULL;
	const char *complete = run ? st_run_get(run, "complete") : NULL;
	char a[32], b[32], c[32], d[32], list[128], line[WIDTH];
	double run_total = (double)rp->run_ns;

	printf("synctrace report: %s\n", dir);
	printf("ranks:       n=%d read", rp->nread);
	if (rp->nmissing) {
		st_rank_list(rp->missing, (size_t)rp->nmissing, list,
			     sizeof(list));
		printf(" of %d (no trace from rank%s %s)", rp->expected,
		       rp->nmissing == 1 ? "" : "s", list);
	}
	if (rp->nhosts)
		printf(", on n=%zu host%s", rp->nhosts,
		       rp->nhosts == 1 ? "" : "s");
	if (run)
		printf(", run %s", complete && !strcmp(complete, "1") ?
		       "complete" : "incomplete (not every rank finished)");
	putchar('\n');
	if (cmdline)
		print_field("command:", cmdline);
	if (rp->mpi_library)
		print_field("MPI library:", rp->mpi_library);
	if (rp->clock) {
		print_field("clock:", rp->clock);
		snprintf(line, sizeof(line),
			 "resolution %s ns, read cost %s ns",
			 rp->clock_res ? rp->clock_res : "?",
			 rp->clock_cost ? rp->clock_cost : "?");
		print_field("", line);
	}
	if (rp->config)
		print_field("config:", rp->config);
	if (rp->nrun) {
		printf("run time:    mean %s per rank, min %s, max %s (n=%d "
		       "ranks),\n"
		       "             from the end of MPI_Init to the start of "
		       "MPI_Finalize\n",
		       st_fmt_ns(run_total / rp->nrun, a, sizeof(a)),
		       st_fmt_ns((double)rp->run_min, b, sizeof(b)),
		       st_fmt_ns((double)rp->run_max, c, sizeof(c)), rp->nrun);
	} else {
		printf("run time:    unknown (no rank has records)\n");
	}
	printf("MPI time:    %s summed over %d ranks (n=%" PRIu64 " calls), "
	       "%s of run time\n",
	       st_fmt_ns((double)rp->mpi_ns, a, sizeof(a)), rp->nread,
	       rp->mpi_calls, fmt_pct((double)rp->mpi_ns, run_total, b,
				      sizeof(b)));
	if (rp->marks)
		printf("synctrace:   %s of its own work in the run time, "
		       "over %d ranks (n=%" PRIu64 " marks),\n"
		       "             %s of run time\n",
		       st_fmt_ns((double)rp->mark_ns, c, sizeof(c)),
		       rp->nread, rp->marks,
		       fmt_pct((double)rp->mark_ns, run_total, d, sizeof(d)));
	if (rp->inits)
		printf("%s%s per rank at MPI_Init (set-up, clock "
		       "synchronisation), before\n"
		       "             the run: mean over n=%" PRIu64 " ranks\n",
		       rp->marks ? "             and " : "synctrace:   ",
		       st_fmt_ns((double)rp->init_ns / (double)rp->inits, a,
				 sizeof(a)), rp->inits);
}

static void print_functions(struct report *rp, uint16_t *ids, size_t n)
{
	char nm[32], cn[32], t[32], mean[32], mn[32], mx[32], pm[16], pr[16];
	double run_total = (double)rp->run_ns;
	size_t i, w = 8;

	for (i = 0; i < n; i++) {
		size_t l = strlen(name_of(ids[i], nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	printf("\nTime in MPI functions, summed over %d ranks; min/max "
	       "are of the per-rank totals.\n"
	       "%%MPI and %%run leave out MPI_Init and MPI_Finalize, which "
	       "lie outside the run time.\n\n", rp->nread);
	printf("%-*s %9s %10s %10s %10s %10s %6s %6s\n", (int)w, "function",
	       "calls", "total", "mean/call", "min/rank", "max/rank", "%MPI",
	       "%run");
	for (i = 0; i < n; i++) {
		const struct fn_stat *s = &rp->fn[ids[i]];
		uint64_t min = s->nranks < rp->nread ? 0 : s->rank_min;
		int out = outside_run(ids[i]);

		printf("%-*s %9s %10s %10s %10s %10s %6s %6s\n", (int)w,
		       name_of(ids[i], nm, sizeof(nm)),
		       fmt_n(s->calls, cn, sizeof(cn)),
		       st_fmt_ns((double)s->time_ns, t, sizeof(t)),
		       st_fmt_ns(s->calls ? (double)s->time_ns / s->calls : 0,
				 mean, sizeof(mean)),
		       st_fmt_ns((double)min, mn, sizeof(mn)),
		       st_fmt_ns((double)s->rank_max, mx, sizeof(mx)),
		       out ? "-" : fmt_pct((double)s->time_ns,
					   (double)rp->mpi_ns, pm, sizeof(pm)),
		       out ? "-" : fmt_pct((double)s->time_ns, run_total, pr,
					   sizeof(pr)));
	}
}

static void print_bytes(struct report *rp, uint16_t *ids, size_t n)
{
	char nm[32], cn[32], sb[32], rb[32], ms[32], mr[32];
	size_t i, w = 8, rows = 0;

	for (i = 0; i < n; i++) {
		const struct fn_stat *s = &rp->fn[ids[i]];
		size_t l = strlen(name_of(ids[i], nm, sizeof(nm)));

		if (!s->sbytes && !s->rbytes)
			continue;
		rows++;
		if (l > w)
			w = l;
	}
	if (!rows)
		return;
	sort_ids(rp, ids, n, cmp_fn_bytes);
	printf("\nBytes by MPI function, summed over %d ranks; per call of "
	       "the function (persistent:\nper started instance).\n\n",
	       rp->nread);
	printf("%-*s %10s %11s %11s %11s %11s\n", (int)w, "function",
	       "calls", "sent", "received", "sent/call", "recv/call");
	for (i = 0; i < n; i++) {
		const struct fn_stat *s = &rp->fn[ids[i]];
		uint64_t per = s->starts ? s->starts : s->calls;

		if (!s->sbytes && !s->rbytes)
			continue;
		printf("%-*s %10s %11s %11s %11s %11s\n", (int)w,
		       name_of(ids[i], nm, sizeof(nm)),
		       fmt_n(per, cn, sizeof(cn)),
		       st_fmt_bytes(s->sbytes, sb, sizeof(sb)),
		       st_fmt_bytes(s->rbytes, rb, sizeof(rb)),
		       st_fmt_bytes(per ? s->sbytes / per : 0, ms, sizeof(ms)),
		       st_fmt_bytes(per ? s->rbytes / per : 0, mr, sizeof(mr)));
	}
}

static void print_completions(struct report *rp, uint16_t *ids, size_t n)
{
	char nm[32], cn[32], t[32], mean[32], mn[32], mx[32], pend[32];
	size_t i, w = 8, rows = 0;

	for (i = 0; i < n; i++) {
		const struct fn_stat *s = &rp->fn[ids[i]];
		size_t l = strlen(name_of(ids[i], nm, sizeof(nm)));

		if (!s->ops && !s->pending)
			continue;
		rows++;
		if (l > w)
			w = l;
	}
	if (!rows)
		return;
	sort_ids(rp, ids, n, cmp_fn_optime);
	printf("\nNonblocking and persistent operations: time from the start "
	       "(entry of the I-call or\nof MPI_Start) to the exit of the "
	       "Wait/Test call that completed it, over %d ranks;\n"
	       "pending: started but never seen completed.\n\n", rp->nread);
	printf("%-*s %10s %10s %10s %10s %10s %8s\n", (int)w, "function",
	       "operations", "total", "mean/op", "min/op", "max/op",
	       "pending");
	for (i = 0; i < n; i++) {
		const struct fn_stat *s = &rp->fn[ids[i]];

		if (!s->ops && !s->pending)
			continue;
		printf("%-*s %10s %10s %10s %10s %10s %8s\n", (int)w,
		       name_of(ids[i], nm, sizeof(nm)),
		       fmt_n(s->ops, cn, sizeof(cn)),
		       st_fmt_ns((double)s->op_ns, t, sizeof(t)),
		       st_fmt_ns(s->ops ? (double)s->op_ns / s->ops : 0, mean,
				 sizeof(mean)),
		       st_fmt_ns((double)s->op_min, mn, sizeof(mn)),
		       st_fmt_ns((double)s->op_max, mx, sizeof(mx)),
		       fmt_n(s->pending, pend, sizeof(pend)));
	}
	if (rp->unmatched)
		printf("(n=%" PRIu64 " completions of requests whose start "
		       "was not traced are left out)\n", rp->unmatched);
}

static void print_sites(struct report *rp)
{
	const char *prog = getenv("SYNCTRACE_ADDR2LINE");
	char nm[32], cn[32], t[32], mean[32], rk[32], loc[1024], line[1200];
	size_t i, n, w = 8;

	if (!rp->ngs)
		return;
	if (!prog || !*prog)
		prog = "addr2line";
	if (st_symtab_resolve(rp->syms, prog) == -ENOENT)
		warning("cannot run '%s': call sites are not symbolised",
			prog);
	qsort(rp->gs, rp->ngs, sizeof(*rp->gs), cmp_gsite);
	n = rp->top > 0 && (size_t)rp->top < rp->ngs ? (size_t)rp->top :
	    rp->ngs;
	for (i = 0; i < n; i++) {
		size_t l = strlen(name_of(rp->gs[i].fn, nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	printf("\nTop %zu of %zu call sites by time in MPI, summed over %d "
	       "ranks:\n\n", n, rp->ngs, rp->nread);
	printf("%3s %-*s %12s %10s %10s %7s\n", "#", (int)w, "function",
	       "calls", "total", "mean/call", "ranks");
	for (i = 0; i < n; i++) {
		const struct gsite *g = &rp->gs[i];
		const struct st_sym *sym = st_symtab_get(rp->syms, g->sym);

		printf("%3zu %-*s %12s %10s %10s %7s\n", i + 1, (int)w,
		       name_of(g->fn, nm, sizeof(nm)),
		       fmt_n(g->calls, cn, sizeof(cn)),
		       st_fmt_ns((double)g->time_ns, t, sizeof(t)),
		       st_fmt_ns(g->calls ? (double)g->time_ns / g->calls : 0,
				 mean, sizeof(mean)),
		       fmt_n((uint64_t)g->nranks, rk, sizeof(rk)));
		if (sym)
			st_sym_format(sym, 1, loc, sizeof(loc));
		else
			snprintf(loc, sizeof(loc), "unknown (no call-site "
				 "record)");
		snprintf(line, sizeof(line), "    at %s", loc);
		put_cut(line, WIDTH);
	}
}

static void print_sizes(struct report *rp)
{
	char cm[32], cn[32], t[32], mean[32], pm[16];
	size_t i;

	if (!rp->nsizes)
		return;
	qsort(rp->sizes, rp->nsizes, sizeof(*rp->sizes), cmp_size);
	printf("\nCalls by communicator size (local group), summed over %d "
	       "ranks:\n\n", rp->nread);
	printf("%10s %14s %12s %10s %10s %6s\n", "size", "communicators",
	       "calls", "total", "mean/call", "%MPI");
	for (i = 0; i < rp->nsizes; i++) {
		const struct size_stat *z = &rp->sizes[i];

		printf("%10" PRIu64 " %14s %12s %10s %10s %6s\n", z->size,
		       fmt_n(z->ncomms, cm, sizeof(cm)),
		       fmt_n(z->calls, cn, sizeof(cn)),
		       st_fmt_ns((double)z->time_ns, t, sizeof(t)),
		       st_fmt_ns(z->calls ? (double)z->time_ns / z->calls : 0,
				 mean, sizeof(mean)),
		       fmt_pct((double)z->time_ns, (double)rp->mpi_ns, pm,
			       sizeof(pm)));
	}
}

/*
 * The second pass: every rank with global time at once, in global time
 * order, each blocking collective's CALL record going to the analysis.
 * Returns 0, or -1 after a warning when a file cannot be opened (the
 * instances it is in could never complete, so nothing is analysed).
 */
static int walk_collectives(struct report *rp)
{
	struct st_merge *m;
	struct st_merged x;
	char err[512];
	int r, rc;

	if (st_merge_new(&m))
		die("out of memory");
	for (r = 0; r < rp->expected; r++) {
		if (!rp->clk[r] || !st_gclock_epochs(rp->clk[r]))
			continue;
		rc = st_merge_add(m, r, rp->path[r], rp->clk[r], err,
				  sizeof(err));
		if (rc == -ENOMEM)
			die("out of memory");
		if (rc) {
			warning("%s: collectives in global time are not "
				"analysed", *err ? err : strerror_neg(rc));
			st_merge_free(m);
			return -1;
		}
	}
	while (st_merge_next(m, &x) > 0) {
		const struct st_gclock *c = rp->clk[x.rank];

		if (x.ev->kind != ST_REC_CALL)
			continue;
		if (st_imb_add(rp->imb, x.rank, x.ev, x.g0, x.g1,
			       st_gclock_err(c, x.ev->t0),
			       st_gclock_err(c, x.ev->t1)))
			die("out of memory");
	}
	st_imb_finish(rp->imb);
	st_merge_free(m);
	return 0;
}

/* Most time in collectives (waiting + after the last arrival) first. */
static int cmp_imb_row(const void *a, const void *b)
{
	const struct st_imb_row *x = a, *y = b;
	double tx = x->s.wait_ns + x->s.after_ns;
	double ty = y->s.wait_ns + y->s.after_ns;
	uint64_t nx = x->s.n + x->s.flagged, ny = y->s.n + y->s.flagged;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (nx != ny)
		return nx < ny ? 1 : -1;
	if (x->fn != y->fn)
		return x->fn - y->fn;
	return (x->sym > y->sym) - (x->sym < y->sym);
}

#define IMB_COLS "%-*s %9s %8s %-5s %10s %10s %10s %10s\n"

static void print_imb_head(const char *lead, int w)
{
	printf(IMB_COLS, w, lead, "instances", "flagged", "", "imbalance",
	       "waiting", "after last", "exit skew");
}

/* The "total" and "mean" lines of 's', the first led by 'lead'. */
static void print_imb_stat(const char *lead, int w,
			   const struct st_imb_stat *s)
{
	char n[32], f[32], a[32], b[32], c[32], d[32];
	double k = (double)s->n;

	printf(IMB_COLS, w, lead, fmt_n(s->n, n, sizeof(n)),
	       fmt_n(s->flagged, f, sizeof(f)), "total",
	       st_fmt_ns(s->imb_ns, a, sizeof(a)),
	       st_fmt_ns(s->wait_ns, b, sizeof(b)),
	       st_fmt_ns(s->after_ns, c, sizeof(c)),
	       st_fmt_ns(s->skew_ns, d, sizeof(d)));
	if (!s->n) {
		printf(IMB_COLS, w, "", "", "", "mean", "-", "-", "-", "-");
		return;
	}
	printf(IMB_COLS, w, "", "", "", "mean",
	       st_fmt_ns(s->imb_ns / k, a, sizeof(a)),
	       st_fmt_ns(s->wait_ns / k, b, sizeof(b)),
	       st_fmt_ns(s->after_ns / k, c, sizeof(c)),
	       st_fmt_ns(s->skew_ns / k, d, sizeof(d)));
}

static void print_left_out(const struct st_imb_totals *t)
{
	const char *label = "left out:";
	struct {
		uint64_t n;
		const char *what;
	} why[] = {
		{ t->calls_inter, "calls on inter-communicators (not "
				  "analysed)" },
		{ t->calls_single, "calls on one-rank communicators" },
		{ t->calls_missing, "calls whose instance lacks a member's "
				    "record (trace missing or cut)" },
		{ t->calls_unsynced, "calls on communicators with a rank "
				     "that has no global time" },
		{ t->incomplete, "instances begun but never complete" },
	};
	size_t i;

	for (i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		if (!why[i].n)
			continue;
		printf("%-14sn=%" PRIu64 " %s\n", label, why[i].n,
		       why[i].what);
		label = "";
	}
}

static void print_collectives(struct report *rp)
{
	const struct st_imb_totals *t;
	const struct st_imb_row *rows;
	struct st_imb_row *v;
	char nm[32], a[32], b[32], loc[1024], lead[64], line[1100];
	const char *method = "?";
	size_t i, n, top;
	int r, w = 8;

	printf("\nCollectives in global time");
	if (!rp->nsynced) {
		printf(": no clock synchronisation in this trace.\n");
		return;
	}
	for (r = 0; r < rp->expected; r++) {
		if (rp->clk[r] && st_gclock_epochs(rp->clk[r])) {
			method = st_sync_method_name(
				st_gclock_method(rp->clk[r]));
			break;
		}
	}
	if (walk_collectives(rp)) {
		printf(": not analysed (a trace file could not be read).\n");
		return;
	}
	t = st_imb_totals(rp->imb);
	printf(": blocking collectives on intra-communicators, matched "
	       "across\nranks by communicator and sequence number; clocks "
	       "synchronised by %s (n=%d of %d ranks).\n"
	       "Much waiting: load imbalance in the application.  Much "
	       "'after last': the network (or algorithm).\n"
	       "  imbalance   last arrival - first arrival, per instance\n"
	       "  waiting     from a rank's arrival to the last arrival (or "
	       "its exit if earlier), over ranks\n"
	       "  after last  from the last arrival to a rank's exit, over "
	       "ranks\n"
	       "  exit skew   last exit - first exit, per instance\n",
	       method, rp->nsynced, rp->nread);
	if (t->nerr)
		printf("%-14smedian %s, max %s per instance (n=%" PRIu64
		       " instances), the sum\n%-14sof two ranks' estimates\n",
		       "clock error:",
		       st_fmt_ns(t->err_median_ns, a, sizeof(a)),
		       st_fmt_ns(t->err_max_ns, b, sizeof(b)), t->nerr, "");
	if (t->all.flagged)
		printf("%-14sn=%" PRIu64 " instance%s shorter than the clock "
		       "error: not in the totals and means\n", "flagged:",
		       t->all.flagged, t->all.flagged == 1 ? "" : "s");
	print_left_out(t);
	rows = st_imb_by_fn(rp->imb, &n);
	if (!n) {
		printf("(no instance was complete on every member rank)\n");
		return;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		die("out of memory");
	memcpy(v, rows, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_imb_row);
	for (i = 0; i < n; i++) {
		int l = (int)strlen(name_of(v[i].fn, nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	putchar('\n');
	print_imb_head("function", w);
	for (i = 0; i < n; i++)
		print_imb_stat(name_of(v[i].fn, nm, sizeof(nm)), w, &v[i].s);
	free(v);

	rows = st_imb_by_site(rp->imb, &n);
	v = malloc(n * sizeof(*v));
	if (!v)
		die("out of memory");
	memcpy(v, rows, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_imb_row);
	top = rp->top > 0 && (size_t)rp->top < n ? (size_t)rp->top : n;
	w = 8;
	for (i = 0; i < top; i++) {
		int l = 4 + (int)strlen(name_of(v[i].fn, nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	printf("\nTop %zu of %zu call sites by waiting + after last (site of "
	       "the lowest member rank):\n\n", top, n);
	print_imb_head("  # function", w);
	for (i = 0; i < top; i++) {
		const struct st_sym *sym = st_symtab_get(rp->syms, v[i].sym);

		snprintf(lead, sizeof(lead), "%3zu %s", i + 1,
			 name_of(v[i].fn, nm, sizeof(nm)));
		print_imb_stat(lead, w, &v[i].s);
		if (sym)
			st_sym_format(sym, 1, loc, sizeof(loc));
		else
			snprintf(loc, sizeof(loc), "unknown (no call-site "
				 "record)");
		snprintf(line, sizeof(line), "    at %s", loc);
		put_cut(line, WIDTH);
	}
	free(v);
}

static void parse_options(struct report *rp, int argc, char **argv,
			  const char **run)
{
	const char *val;
	int i, rc;

	*run = NULL;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(st_report_usage, stdout);
			exit(0);
		} else if ((rc = st_opt_value(argc, argv, &i, "--top",
					       &val))) {
			if (rc < 0)
				usage_die(st_report_usage,
					  "option '--top' needs a number");
			if (st_parse_int(val, 0, 1000000, &rp->top))
				usage_die(st_report_usage,
					  "bad number '%s' for '--top'", val);
		} else if ((rc = st_opt_value(argc, argv, &i, "--matrix-csv",
					       &val))) {
			if (rc < 0)
				usage_die(st_report_usage, "option "
					  "'--matrix-csv' needs a file");
			rp->matrix_csv = val;
		} else if ((rc = st_opt_value(argc, argv, &i, "--matrix-json",
					       &val))) {
			if (rc < 0)
				usage_die(st_report_usage, "option "
					  "'--matrix-json' needs a file");
			rp->matrix_json = val;
		} else if (!strcmp(arg, "--")) {
			if (i + 1 < argc && !*run)
				*run = argv[++i];
			if (i + 1 < argc)
				usage_die(st_report_usage,
					  "too many arguments");
		} else if (arg[0] == '-' && arg[1]) {
			usage_die(st_report_usage, "unknown option '%s'", arg);
		} else if (*run) {
			usage_die(st_report_usage, "too many arguments");
		} else {
			*run = arg;
		}
	}
	if (!*run)
		usage_die(st_report_usage, "no run directory given");
}

int cmd_report(int argc, char **argv)
{
	struct report rp = { .top = 10 };
	struct st_run *run = NULL;
	const char *arg;
	uint16_t *ids;
	struct stat st;
	char err[512];
	size_t i, nids = 0;
	int r, rc;

	parse_options(&rp, argc, argv, &arg);
	if (stat(arg, &st))
		die("cannot open '%s': %s", arg, strerror(errno));
	rp.fn = calloc(NFN, sizeof(*rp.fn));
	rp.rank_ns = calloc(NFN, sizeof(*rp.rank_ns));
	rp.touched_flag = calloc(NFN, 1);
	rp.syms = st_symtab_new();
	rp.imb = st_imb_new();
	if (!rp.fn || !rp.rank_ns || !rp.touched_flag || !rp.syms || !rp.imb)
		die("out of memory");
	st_objmap_init(&rp.objs);
	if (S_ISDIR(st.st_mode)) {
		rc = st_run_open(&run, arg, err, sizeof(err));
		if (rc)
			die("%s", *err ? err : strerror_neg(rc));
		rp.expected = st_run_nranks(run);
		rp.missing = calloc((size_t)rp.expected, sizeof(*rp.missing));
		rp.clk = calloc((size_t)rp.expected, sizeof(*rp.clk));
		rp.path = calloc((size_t)rp.expected, sizeof(*rp.path));
		if (!rp.missing || !rp.clk || !rp.path)
			die("out of memory");
		for (r = 0; r < rp.expected; r++) {
			const char *path = st_run_rank_path(run, r);

			if (access(path, F_OK)) {
				rp.missing[rp.nmissing++] = r;
				continue;
			}
			if (read_rank(&rp, r, path))
				rp.failed = 1;
		}
		if (rp.nmissing) {
			char list[128];

			st_rank_list(rp.missing, (size_t)rp.nmissing, list,
				     sizeof(list));
			warning("no trace file for rank%s %s of '%s'",
				rp.nmissing == 1 ? "" : "s", list, arg);
		}
	} else {
		rp.expected = 1;
		rp.clk = calloc(1, sizeof(*rp.clk));
		rp.path = calloc(1, sizeof(*rp.path));
		if (!rp.clk || !rp.path)
			die("out of memory");
		if (read_rank(&rp, 0, arg))
			rp.failed = 1;
	}
	if (!rp.nread)
		die("no rank of '%s' could be read", arg);
	if (rp.first) {
		rp.mpi_library = st_reader_get(rp.first, "mpi_library");
		rp.clock = st_reader_get(rp.first, "clock");
		rp.clock_res = st_reader_get(rp.first, "clock_res_ns");
		rp.clock_cost = st_reader_get(rp.first, "clock_cost_ns");
		rp.config = st_reader_get(rp.first, "config");
	}

	ids = malloc(NFN * sizeof(*ids));
	if (!ids)
		die("out of memory");
	for (i = 0; i < NFN; i++) {
		if (rp.fn[i].calls || rp.fn[i].starts || rp.fn[i].ops ||
		    rp.fn[i].pending)
			ids[nids++] = (uint16_t)i;
	}
	sort_ids(&rp, ids, nids, cmp_fn_time);

	print_summary(&rp, arg, run);
	print_functions(&rp, ids, nids);
	print_bytes(&rp, ids, nids);
	print_completions(&rp, ids, nids);
	print_sites(&rp);
	print_sizes(&rp);
	print_collectives(&rp);
	if (st_report_views(arg, rp.top, rp.matrix_csv, rp.matrix_json))
		rp.failed = 1;
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the output: %s", strerror(errno));

	free(ids);
	for (r = 0; r < rp.expected; r++) {
		st_gclock_free(rp.clk[r]);
		free(rp.path[r]);
	}
	free(rp.clk);
	free(rp.path);
	st_imb_free(rp.imb);
	for (i = 0; i < rp.nhosts; i++)
		free(rp.hosts[i]);
	free(rp.hosts);
	free(rp.missing);
	free(rp.fn);
	free(rp.rank_ns);
	free(rp.touched);
	free(rp.touched_flag);
	free(rp.rank_marks);
	free(rp.reqs);
	free(rp.free_reqs);
	free(rp.rs);
	free(rp.srec);
	free(rp.gs);
	free(rp.sizes);
	map_free(&rp.req_of);
	map_free(&rp.rs_of);
	map_free(&rp.srec_of);
	map_free(&rp.gs_of);
	map_free(&rp.size_of);
	map_free(&rp.comm_seen);
	st_objmap_release(&rp.objs);
	st_symtab_free(rp.syms);
	if (rp.first)
		st_reader_close(rp.first);
	if (run)
		st_run_close(run);
	return rp.failed ? ST_EXIT_FAILURE : 0;
}
