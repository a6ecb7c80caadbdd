/*
 * tools/analysis/runscan.c: the one read of a run that the views share
 * (see runscan.h).  Run time is measured as 'synctrace report' does: from
 * the end of MPI_Init (or of synctrace's own init work there, which
 * comes after it) to the start of MPI_Finalize (or of synctrace's own
 * finalize work, which precedes it), or to the last record without
 * MPI_Finalize.  A call site is placed at its first frame outside the
 * MPI library (Fortran calls come through libmpifort), as the report
 * places it, so the same line of code is one site on every rank.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/sync.h"
#include "tools/analysis/diag.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/symbols.h"
#include "tools/analysis/timeline.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"

/* A site record of the rank being read. */
struct site_rec {
	uint32_t id, nframes;
	uint64_t frames[ST_MAX_FRAMES];
};

/* What reading one rank needs beyond the scan. */
struct rank_read {
	struct st_objmap objs;
	struct site_rec *sites;
	size_t nsites, alloc;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static struct st_scan_comm *comm_get(struct st_scan *s, uint64_t id,
				     uint32_t size, uint32_t remote)
{
	uint64_t *v;
	int added;
	struct st_scan_comm *c;

	v = st_u64map_put(&s->comm_of, id, s->ncomms, &added);
	if (!v)
		return NULL;
	if (!added)
		return &s->comms[*v];
	if (s->ncomms == s->alloc_comms) {
		size_t a = s->alloc_comms ? 2 * s->alloc_comms : 32;
		struct st_scan_comm *n = realloc(s->comms, a * sizeof(*n));

		if (!n)
			return NULL;
		s->comms = n;
		s->alloc_comms = a;
	}
	c = &s->comms[s->ncomms];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->size = size;
	c->remote_size = remote;
	if (!remote && size) {
		uint32_t i;

		c->world = malloc(size * sizeof(*c->world));
		if (!c->world)
			return NULL;
		for (i = 0; i < size; i++)
			c->world[i] = -1;
	}
	s->ncomms++;
	return c;
}

static int on_comm(struct st_scan *s, int rank, const struct st_event *ev)
{
	struct st_scan_comm *c;

	if (!ev->comm || !ev->comm_size)
		return 0;
	c = comm_get(s, ev->comm, ev->comm_size, ev->remote_size);
	if (!c)
		return -ENOMEM;
	if (c->world && ev->rank >= 0 && (uint32_t)ev->rank < c->size)
		c->world[ev->rank] = rank;
	return 0;
}

static int on_site(struct rank_read *rr, const struct st_event *ev)
{
	struct site_rec *sr;

	if (rr->nsites == rr->alloc) {
		size_t a = rr->alloc ? 2 * rr->alloc : 32;
		struct site_rec *n = realloc(rr->sites, a * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rr->sites = n;
		rr->alloc = a;
	}
	sr = &rr->sites[rr->nsites++];
	sr->id = ev->site;
	sr->nframes = ev->nframes < ST_MAX_FRAMES ? ev->nframes :
		      ST_MAX_FRAMES;
	memcpy(sr->frames, ev->frames, sr->nframes * sizeof(sr->frames[0]));
	return 0;
}

/* Symbolise the sites of rank 'rank' into the scan's table. */
static int end_sites(struct st_scan *s, int rank, struct rank_read *rr)
{
	size_t k;

	for (k = 0; k < rr->nsites; k++) {
		const struct site_rec *sr = &rr->sites[k];
		const struct st_object *o, *first = NULL;
		uint64_t addr, first_addr = 0, *v;
		uint32_t i;
		long sym;

		if (!sr->nframes)
			continue;
		for (i = 0; i < sr->nframes; i++) {
			o = st_objmap_find(&rr->objs, sr->frames[i], &addr);
			if (!o)
				continue;
			if (!first || !st_object_is_mpi(o->path)) {
				first = o;
				first_addr = addr;
			}
			if (!st_object_is_mpi(o->path))
				break;
		}
		sym = first ? st_symtab_add(s->syms, first->path, first_addr) :
		      st_symtab_add(s->syms, "?", sr->frames[0]);
		if (sym < 0)
			return -ENOMEM;
		v = st_u64map_put(&s->site_of,
				  (uint64_t)(uint32_t)rank << 32 | sr->id,
				  0, NULL);
		if (!v || st_imb_site(s->imb, rank, sr->id, sym))
			return -ENOMEM;
		*v = (uint64_t)sym + 1;
	}
	return 0;
}

static void span(struct st_scan_rank *r, double g)
{
	if (isnan(g))
		return;
	if (!(g >= r->g_min))
		r->g_min = g;
	if (!(g <= r->g_max))
		r->g_max = g;
}

static void warn_probs(int rank, const struct st_gclock_problems *p)
{
	if (p->nbad)
		st_warn("rank %d: %s (n=%d sync record%s ignored)", rank,
			p->first, p->nbad, p->nbad == 1 ? "" : "s");
}

static int fn_kind(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	return d ? d->kind : 0;
}

/*
 * Add the sync record 'ev' to 'clk' as st_gclock_load() does, counting
 * the problems in 'p'.  Returns 0 or -ENOMEM.
 */
static int add_sync(struct st_gclock *clk, const struct st_event *ev,
		    struct st_gclock_problems *p)
{
	int bad = st_gclock_add_event(clk, ev, NULL);

	if (bad == -ENOMEM)
		return bad;
	if (bad && !p->nbad++)
		snprintf(p->first, sizeof(p->first),
			 "the sync record at t0=%" PRIu64 " %s", ev->t0,
			 bad == -EBADMSG ? "is not a valid sync record" :
			 "does not follow the earlier ones (rank, origin or "
			 "epoch)");
	return 0;
}

/*
 * Read rank 'rank's file.  Returns 0 or -ENOMEM (damage only warns).
 * With 'spans', the clock is read first (one more read of the file), so
 * that each record's global time is known for the spans; without, it is
 * built as the sync records come and the spans stay NaN.
 */
static int read_rank(struct st_scan *s, int rank, int spans)
{
	struct st_scan_rank *r = &s->rank[rank];
	struct st_gclock_problems probs;
	struct rank_read rr = { 0 };
	struct st_reader *rd;
	struct st_event ev;
	uint64_t t_last = 0, t_fin = 0, t_init_end = 0;
	int have_start = 0, have_end = 0, have_last = 0, have_fin = 0;
	int have_init = 0, rc, ret = 0;
	unsigned nfn = st_fn_count();
	const char *v;
	char err[512];

	if (st_gclock_new(&r->clk, s->nranks > 1 ? rank : -1))
		return -ENOMEM;
	probs.nbad = 0;
	probs.first[0] = '\0';
	if (spans) {
		rc = st_gclock_load(r->clk, r->path, &probs);
		if (rc == -ENOMEM)
			return -ENOMEM;
		warn_probs(rank, &probs);
	}
	rc = st_fn_reader_open(&rd, r->path, err, sizeof(err));
	if (rc) {
		st_warn("%s", *err ? err : strerror(-rc));
		s->failed = 1;
		return rc == -ENOMEM ? rc : 0;
	}
	r->read = 1;
	s->nread++;
	r->host = dup_or_null(st_reader_get(rd, "host"));
	if ((v = st_reader_get(rd, "ncores")))
		r->ncores = strtol(v, NULL, 10);
	if ((v = st_reader_get(rd, "t_init_ns"))) {
		r->t_start = strtoull(v, NULL, 10);
		have_start = 1;
	}
	if (rank == 0 || !s->clock) {
		free(s->clock);
		free(s->mpi_library);
		s->clock = dup_or_null(st_reader_get(rd, "clock"));
		s->mpi_library = dup_or_null(st_reader_get(rd,
							   "mpi_library"));
		v = st_reader_get(rd, "clock_res_ns");
		s->clock_res_ns = v ? strtod(v, NULL) : NAN;
	}
	st_objmap_init(&rr.objs);
	while ((rc = st_reader_next(rd, &ev)) > 0) {
		uint64_t dt = ev.t1 >= ev.t0 ? ev.t1 - ev.t0 : 0;

		r->records++;
		if (ev.kind < sizeof(r->kinds) / sizeof(r->kinds[0]))
			r->kinds[ev.kind]++;
		if (ev.thread + 1u > r->nthreads)
			r->nthreads = ev.thread + 1u;
		if (st_imb_scan(s->imb, &ev))
			goto oom;
		if (!spans && ev.kind == ST_REC_SYNC &&
		    add_sync(r->clk, &ev, &probs))
			goto oom;
		if (ev.kind != ST_REC_SITE && ev.kind != ST_REC_OBJECT) {
			if (spans) {
				span(r, st_gclock_global(r->clk, ev.t0));
				span(r, st_gclock_global(r->clk, ev.t1));
			}
			if (!have_last || ev.t1 > t_last) {
				t_last = ev.t1;
				have_last = 1;
			}
		}
		switch (ev.kind) {
		case ST_REC_CALL:
			r->calls++;
			if (ev.fn < nfn) {
				s->fn[ev.fn].calls++;
				s->fn[ev.fn].time_ns += dt;
			}
			if (fn_kind(ev.fn) == ST_KIND_INIT) {
				r->t_start = ev.t1;
				have_start = 1;
			} else if (fn_kind(ev.fn) == ST_KIND_FINALIZE) {
				if (!have_end) {
					r->t_end = ev.t0;
					have_end = 1;
				}
			} else {
				r->mpi_ns += dt;
				r->mpi_calls++;
			}
			break;
		case ST_REC_COMM:
			if (on_comm(s, rank, &ev))
				goto oom;
			break;
		case ST_REC_SITE:
			if (on_site(&rr, &ev))
				goto oom;
			break;
		case ST_REC_OBJECT:
			if (st_objmap_add(&rr.objs, ev.addr, ev.len, ev.text,
					  ev.text_len))
				goto oom;
			break;
		case ST_REC_MARK:
			if (ev.fn == ST_MARK_FINALIZE && !have_fin) {
				t_fin = ev.t0;
				have_fin = 1;
			}
			if (ev.fn == ST_MARK_INIT && ev.t1 >= ev.t0) {
				t_init_end = ev.t1;
				have_init = 1;
			}
			break;
		}
	}
	/* Where the read of the clock alone would have warned: first. */
	if (!spans)
		warn_probs(rank, &probs);
	if (rc < 0) {
		const char *msg = st_reader_error(rd);

		st_warn("%s", *msg ? msg : "corrupt trace");
		r->damaged = 1;
		s->failed = 1;
	} else if (st_reader_truncated(rd)) {
		st_warn("'%s' is truncated (its writer was killed, or its "
			"disk was full?): using what it holds", r->path);
		r->truncated = 1;
	}
	if (!have_end && have_last) {
		r->t_end = t_last;
		have_end = 1;
	}
	if (have_init && have_start && t_init_end > r->t_start)
		r->t_start = t_init_end;
	if (have_fin && have_end && t_fin < r->t_end)
		r->t_end = t_fin;
	if (have_start && have_end && r->t_end > r->t_start) {
		r->have_run = 1;
		r->run_ns = r->t_end - r->t_start;
		r->g_start = st_gclock_global(r->clk, r->t_start);
		r->g_end = st_gclock_global(r->clk, r->t_end);
	}
	if (st_gclock_epochs(r->clk)) {
		s->nsynced++;
		if (s->sync_method < 0)
			s->sync_method = st_gclock_method(r->clk);
	}
	if (st_imb_scan_end(s->imb, st_gclock_epochs(r->clk) > 0) ||
	    end_sites(s, rank, &rr))
		goto oom;
	goto out;
oom:
	ret = -ENOMEM;
out:
	st_objmap_release(&rr.objs);
	free(rr.sites);
	st_reader_close(rd);
	return ret;
}

static int fail(char *err, size_t errlen, int rc, const char *fmt,
		const char *arg)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, arg);
	return rc;
}

static int scan_open(struct st_scan **out, const char *path,
		     const char *addr2line, char *err, size_t errlen,
		     int spans)
{
	struct st_run *run = NULL;
	struct st_scan *s;
	struct stat st;
	int r, rc;

	*out = NULL;
	if (err && errlen)
		*err = '\0';
	if (stat(path, &st))
		return fail(err, errlen, -errno, "cannot open '%s'", path);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->complete = -1;
	s->start_unix = -1;
	s->sync_method = -1;
	s->clock_res_ns = NAN;
	s->g_min = s->g_max = NAN;
	s->dir = strdup(path);
	s->fn = calloc(st_fn_count() + 1, sizeof(*s->fn));
	s->syms = st_symtab_new();
	s->imb = st_imb_new();
	if (!s->dir || !s->fn || !s->syms || !s->imb)
		goto oom;
	if (S_ISDIR(st.st_mode)) {
		const char *v;

		rc = st_run_open(&run, path, err, errlen);
		if (rc) {
			st_scan_free(s);
			return rc;
		}
		s->nranks = st_run_nranks(run);
		if ((v = st_run_get(run, "cmdline")) &&
		    !(s->cmdline = strdup(v)))
			goto oom;
		if ((v = st_run_get(run, "complete")))
			s->complete = !strcmp(v, "1");
		if ((v = st_run_get(run, "start_unix")))
			s->start_unix = strtoll(v, NULL, 10);
	} else {
		s->nranks = 1;
	}
	s->rank = calloc((size_t)s->nranks, sizeof(*s->rank));
	if (!s->rank)
		goto oom;
	for (r = 0; r < s->nranks; r++) {
		struct st_scan_rank *sr = &s->rank[r];
		const char *p = run ? st_run_rank_path(run, r) : path;

		sr->g_min = sr->g_max = sr->g_start = sr->g_end = NAN;
		if (!p)
			goto oom;
		if (access(p, F_OK)) {
			st_warn("no trace for rank %d: cannot open '%s': %s",
				r, p, strerror(errno));
			continue;
		}
		if (!(sr->path = strdup(p)))
			goto oom;
		if (read_rank(s, r, spans) == -ENOMEM)
			goto oom;
		if (!isnan(sr->g_min) && !(sr->g_min >= s->g_min))
			s->g_min = sr->g_min;
		if (!isnan(sr->g_max) && !(sr->g_max <= s->g_max))
			s->g_max = sr->g_max;
	}
	if (run)
		st_run_close(run);
	if (!s->nread) {
		st_scan_free(s);
		return fail(err, errlen, -ENOENT,
			    "no rank of '%s' could be read", path);
	}
	if (addr2line && st_symtab_resolve(s->syms, addr2line) == -ENOENT)
		st_warn("cannot run '%s': call sites are not symbolised",
			addr2line);
	*out = s;
	return 0;
oom:
	if (run)
		st_run_close(run);
	st_scan_free(s);
	return -ENOMEM;
}

int st_scan_open(struct st_scan **out, const char *path,
		 const char *addr2line, char *err, size_t errlen)
{
	return scan_open(out, path, addr2line, err, errlen, 1);
}

int st_scan_open_nospan(struct st_scan **out, const char *path,
			const char *addr2line, char *err, size_t errlen)
{
	return scan_open(out, path, addr2line, err, errlen, 0);
}

void st_scan_free(struct st_scan *s)
{
	int r;
	size_t i;

	if (!s)
		return;
	for (r = 0; s->rank && r < s->nranks; r++) {
		free(s->rank[r].path);
		free(s->rank[r].host);
		st_gclock_free(s->rank[r].clk);
	}
	for (i = 0; i < s->ncomms; i++)
		free(s->comms[i].world);
	free(s->comms);
	free(s->rank);
	free(s->dir);
	free(s->cmdline);
	free(s->clock);
	free(s->mpi_library);
	free(s->fn);
	st_symtab_free(s->syms);
	st_imb_free(s->imb);
	st_u64map_release(&s->comm_of);
	st_u64map_release(&s->site_of);
	free(s);
}

const struct st_scan_comm *st_scan_comm(const struct st_scan *s,
					uint64_t id)
{
	uint64_t *v = st_u64map_find(&s->comm_of, id);

	return v ? &s->comms[*v] : NULL;
}

int st_scan_world(const struct st_scan *s, uint64_t id, int32_t r)
{
	const struct st_scan_comm *c = st_scan_comm(s, id);

	if (!c || !c->world || r < 0 || (uint32_t)r >= c->size)
		return -1;
	return c->world[r];
}

long st_scan_site(const struct st_scan *s, int rank, uint32_t site)
{
	uint64_t *v;

	if (!site)
		return -1;
	v = st_u64map_find(&s->site_of, (uint64_t)(uint32_t)rank << 32 | site);
	return v ? (long)*v - 1 : -1;
}

char *st_scan_site_label(const struct st_scan *s, long sym, char *buf,
			 size_t len)
{
	return st_sym_site_label(s->syms, sym, buf, len);
}

char *st_sym_site_label(struct st_symtab *syms, long sym, char *buf,
			size_t len)
{
	const struct st_sym *y = sym >= 0 ? st_symtab_get(syms, sym) : NULL;
	const char *slash;

	if (!y) {
		snprintf(buf, len, "?");
	} else if (y->file && y->line) {
		slash = strrchr(y->file, '/');
		snprintf(buf, len, "%s:%u", slash ? slash + 1 : y->file,
			 y->line);
	} else {
		st_sym_format(y, 1, buf, len);
	}
	return buf;
}

int st_scan_merge(const struct st_scan *s, struct st_merge **out, char *err,
		  size_t errlen)
{
	struct st_merge *m;
	int r, rc;

	*err = 0;
	if (st_merge_new(&m))
		return -ENOMEM;
	for (r = 0; r < s->nranks; r++) {
		const struct st_scan_rank *sr = &s->rank[r];

		if (!sr->read || !st_gclock_epochs(sr->clk))
			continue;
		rc = st_merge_add(m, r, sr->path, sr->clk, err, errlen);
		if (rc) {
			if (rc != -ENOMEM)
				st_warn("%s", *err ? err : strerror(-rc));
			st_merge_free(m);
			return rc;
		}
	}
	*out = m;
	return 0;
}

int st_scan_walk(struct st_scan *s, st_scan_walk_fn *fn, void *ctx)
{
	struct st_merge *m;
	struct st_merged x;
	char err[512];
	int rc;

	if ((rc = st_scan_merge(s, &m, err, sizeof(err))))
		return rc;
	while (!rc && st_merge_next(m, &x) > 0) {
		const struct st_gclock *c = s->rank[x.rank].clk;

		if (fn && (rc = fn(ctx, &x)))
			break;
		if (x.ev->kind == ST_REC_CALL &&
		    st_imb_add(s->imb, x.rank, x.ev, x.g0, x.g1,
			       st_gclock_err(c, x.ev->t0),
			       st_gclock_err(c, x.ev->t1)))
			rc = -ENOMEM;
	}
	st_imb_finish(s->imb);
	st_merge_free(m);
	return rc;
}

int st_scan_oversubscribed(const struct st_scan *s, const char **host,
			   long *ncores)
{
	int r, q, worst = 0;

	for (r = 0; r < s->nranks; r++) {
		const struct st_scan_rank *a = &s->rank[r];
		int n = 0;

		if (!a->host || a->ncores <= 0)
			continue;
		for (q = 0; q < s->nranks; q++)
			if (s->rank[q].host &&
			    !strcmp(s->rank[q].host, a->host))
				n++;
		if (n > a->ncores && n > worst) {
			worst = n;
			if (host)
				*host = a->host;
			if (ncores)
				*ncores = a->ncores;
		}
	}
	return worst;
}

int st_scan_sweep(const struct st_scan *s, st_scan_sweep_fn *fn, void *ctx)
{
	struct st_reader *rd;
	struct st_event ev;
	char err[512];
	int r, rc;

	for (r = 0; r < s->nranks; r++) {
		if (!s->rank[r].read)
			continue;
		rc = st_fn_reader_open(&rd, s->rank[r].path, err, sizeof(err));
		if (rc)
			return rc;
		while ((rc = st_reader_next(rd, &ev)) > 0)
			if ((rc = fn(ctx, r, &ev)))
				break;
		st_reader_close(rd);
		if (rc > 0 || rc == -ENOMEM)
			return rc;
	}
	return 0;
}
