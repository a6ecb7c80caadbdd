/*
 * tools/analysis/export-chrome.c: the Chrome/Perfetto trace-event JSON
 * of a run (see export.h), streamed: each record is written as the
 * global-time walk hands it out, so a track's events come in time order
 * (a rank's records keep their file order, each thread's in time order)
 * and nothing but the flows in flight is kept.  Calls are "X" events,
 * so no "B" waits for its "E".  A flow's first event takes a fresh id;
 * ids of messages are odd and those of collective instances even, and
 * each kind has its own category, so the two never meet.  A collective
 * instance (one over a window or a file too) gets a flow only when the
 * first pass saw that every member will come (st_imb_expected()), so
 * every flow that starts also ends.  One-sided calls (category "rma")
 * carry their window, target and displacement, file calls (category
 * "io") their file's path (from the file's COMM record, which comes
 * before them) and offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "sync/sync.h"
#include "tools/analysis/export.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/json-out.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/p2p.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/timeline.h"
#include "tools/analysis/u64map.h"
#include "writer/event.h"
#include "writer/fn-info.h"

struct chrome {
	FILE *f;
	struct st_scan *scan;
	struct st_p2p *p2p;
	struct st_u64map path_of;	/* file id -> index in 'path' */
	char **path;
	size_t npath;
	char *text;			/* MPI_File_delete's path */
	struct st_u64map inst;	/* comm idx << 44 | seq -> id << 24 | seen */
	uint64_t next_coll;
	double origin;
	struct st_export_stats *st;
	int rc;
};

static const char *cat_of(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	switch (d ? d->kind : 0) {
	case ST_KIND_COLL:
		return "collective";
	case ST_KIND_P2P:
		return "p2p";
	case ST_KIND_COMPLETE:
		return "completion";
	case ST_KIND_COMM:
		return "communicator";
	case ST_KIND_WIN:
	case ST_KIND_RMA:
		return "rma";
	case ST_KIND_FILE:
	case ST_KIND_IO:
		return "io";
	default:
		return "mpi";
	}
}

/* Microseconds since the origin, to the nanosecond. */
static void ts(FILE *f, double g, double origin)
{
	fprintf(f, "%.3f", (g - origin) / 1000.0);
}

/* The path of the file 'ev' is on (MPI_File_delete: its own), or NULL. */
static const char *path_of(struct chrome *c, const struct st_event *ev)
{
	uint64_t *v;

	if (ev->kind == ST_REC_CALL && ev->text_len && !ev->comm) {
		free(c->text);
		c->text = strndup(ev->text, ev->text_len);
		return c->text;
	}
	v = ev->comm ? st_u64map_find(&c->path_of, ev->comm) : NULL;
	return v ? c->path[*v] : NULL;
}

/* A file's COMM record: remember its path. */
static int on_file(struct chrome *c, const struct st_event *ev)
{
	char **n;
	int added;
	uint64_t *v;

	if (ev->fn != ST_FN_MPI_FILE_OPEN || !ev->comm || !ev->text_len)
		return 0;
	v = st_u64map_put(&c->path_of, ev->comm, c->npath, &added);
	if (!v)
		return -ENOMEM;
	if (!added)
		return 0;
	n = realloc(c->path, (c->npath + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->path = n;
	if (!(c->path[c->npath] = strndup(ev->text, ev->text_len)))
		return -ENOMEM;
	c->npath++;
	return 0;
}

static void slice(struct chrome *c, int rank, const struct st_event *ev,
		  double g0, double g1)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	int kind = d ? d->kind : 0;
	char nm[32], site[256];
	FILE *f = c->f;

	fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":", rank,
		(unsigned)ev->thread);
	ts(f, g0, c->origin);
	fprintf(f, ",\"dur\":%.3f,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{",
		g1 > g0 ? (g1 - g0) / 1000.0 : 0.0,
		st_fn_name(ev->fn, nm, sizeof(nm)), cat_of(ev->fn));
	fputs("\"site\":\"", f);
	st_json_put_str(f, st_scan_site_label(c->scan,
						 st_scan_site(c->scan, rank,
							      ev->site),
						 site, sizeof(site)));
	fputc('"', f);
	if (ev->comm)
		fprintf(f, ",\"comm\":\"0x%" PRIx64 "\"", ev->comm);
	if (ev->seq)
		fprintf(f, ",\"seq\":%" PRIu64, ev->seq);
	if (kind == ST_KIND_RMA) {
		if (ev->peer >= 0 || ev->peer == ST_RANK_PROC_NULL)
			fprintf(f, ",\"target\":%" PRId32, ev->peer);
		if (d && (d->flags & ST_FNF_OFFSET))
			fprintf(f, ",\"disp\":%" PRId64, ev->offset);
	} else if (kind == ST_KIND_FILE || kind == ST_KIND_IO) {
		const char *path = path_of(c, ev);

		if (path) {
			fputs(",\"file\":\"", f);
			st_json_put_str(f, path);
			fputc('"', f);
		}
		if (d && (d->flags & ST_FNF_OFFSET))
			fprintf(f, ",\"offset\":%" PRId64, ev->offset);
	} else if (ev->peer >= 0) {
		fprintf(f, ",\"peer\":%" PRId32 ",\"tag\":%" PRId32,
			ev->peer, ev->tag);
	}
	if (ev->root >= 0)
		fprintf(f, ",\"root\":%" PRId32, ev->root);
	fprintf(f, ",\"sbytes\":%" PRIu64 ",\"rbytes\":%" PRIu64 "}}",
		ev->sbytes, ev->rbytes);
	c->st->calls++;
}

static void flow(struct chrome *c, const char *ph, const char *cat,
		 uint64_t id, int rank, unsigned thread, double g)
{
	fprintf(c->f, ",\n{\"ph\":\"%s\",\"pid\":%d,\"tid\":%u,\"ts\":", ph,
		rank, thread);
	ts(c->f, g, c->origin);
	fprintf(c->f, ",\"id\":%" PRIu64 ",\"name\":\"%s\",\"cat\":\"%s\"%s}",
		id, !strcmp(cat, "p2p") ? "message" : "instance", cat,
		ph[0] == 's' ? "" : ",\"bp\":\"e\"");
}

static int on_msg(void *ctx, const struct st_p2p_msg *m)
{
	struct chrome *c = ctx;
	const struct st_p2p_end *e = &m->end;

	if (!m->both)
		return 0;
	/* Each end at its own record's entry, inside its slice. */
	flow(c, e->recv ? "f" : "s", "p2p", 2 * m->id + 1, e->rank, e->thread,
	     e->g0);
	if (m->paired)
		c->st->p2p_paired++;
	return 0;
}

static int coll_flow(struct chrome *c, int rank, const struct st_event *ev,
		     double g0)
{
	const struct st_scan_comm *sc = st_scan_comm(c->scan, ev->comm);
	uint64_t key, *v, id, seen;
	int added;

	if (!sc || !st_imb_expected(c->scan->imb, ev) ||
	    ev->seq >= (1ull << 44))
		return 0;
	key = (uint64_t)(sc - c->scan->comms) << 44 | ev->seq;
	v = st_u64map_put(&c->inst, key, 0, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		*v = ++c->next_coll << 24;
		c->st->coll_flows++;
	}
	id = *v >> 24;
	seen = (*v & 0xffffff) + 1;
	*v = id << 24 | seen;
	flow(c, seen == 1 ? "s" : seen < sc->size ? "t" : "f", "coll", 2 * id,
	     rank, ev->thread, g0);
	if (seen >= sc->size)
		st_u64map_del(&c->inst, key);
	return 0;
}

static int on_record(void *ctx, const struct st_merged *x)
{
	struct chrome *c = ctx;
	const struct st_event *ev = x->ev;
	int rc;

	if (ev->kind == ST_REC_COMM)
		return on_file(c, ev);
	/* STARTs: the sends and receives of persistent requests. */
	if (ev->kind != ST_REC_CALL && ev->kind != ST_REC_DONE &&
	    ev->kind != ST_REC_START)
		return 0;
	if (isnan(x->g0) || isnan(x->g1))
		return 0;
	if (ev->kind == ST_REC_CALL) {
		slice(c, x->rank, ev, x->g0, x->g1);
		if ((rc = coll_flow(c, x->rank, ev, x->g0)))
			return rc;
	}
	if ((rc = st_p2p_add(c->p2p, x->rank, ev, x->g0, x->g1, on_msg, c)))
		return rc;
	return ferror(c->f) ? -EIO : 0;
}

static int count_end(void *ctx, int rank, const struct st_event *ev)
{
	return st_p2p_count(ctx, rank, ev);
}

static void metadata(struct chrome *c)
{
	const struct st_scan *s = c->scan;
	FILE *f = c->f;
	const char *sep = "";
	int r;
	uint32_t t;

	for (r = 0; r < s->nranks; r++) {
		const struct st_scan_rank *sr = &s->rank[r];

		if (!sr->read || !st_gclock_epochs(sr->clk)) {
			if (sr->read)
				c->st->ranks_left_out++;
			continue;
		}
		fprintf(f, "%s\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":"
			"\"process_name\",\"args\":{\"name\":\"rank %d", sep, r,
			r);
		if (sr->host) {
			fputs(" (", f);
			st_json_put_str(f, sr->host);
			fputc(')', f);
		}
		fprintf(f, "\"}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":"
			"\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
			r, r);
		for (t = 0; t < sr->nthreads; t++)
			fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,"
				"\"name\":\"thread_name\",\"args\":{\"name\":"
				"\"thread %u\"}}", r, t, t);
		sep = ",";
	}
	if (!*sep)
		fputs("\n{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":"
		      "\"process_name\",\"args\":{\"name\":\"no rank with "
		      "global time\"}}", f);
}

int st_export_chrome(FILE *f, struct st_scan *scan,
		     struct st_export_stats *st)
{
	struct chrome c = { .f = f, .scan = scan, .st = st };
	int rc;

	memset(st, 0, sizeof(*st));
	c.origin = isnan(scan->g_min) ? 0 : floor(scan->g_min);
	st->origin_ns = c.origin;
	c.p2p = st_p2p_new(scan);
	if (!c.p2p)
		return -ENOMEM;
	rc = st_scan_sweep(scan, count_end, c.p2p);
	if (rc) {
		st_p2p_free(c.p2p);
		return rc;
	}
	st_p2p_counted(c.p2p);
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	metadata(&c);
	rc = st_scan_walk(scan, on_record, &c);
	st->p2p_unpaired = st_p2p_unpaired(c.p2p);
	st->p2p_unmapped = st_p2p_unmapped(c.p2p);
	fputs("\n],\"otherData\":{\"producer\":\"synctrace export\","
	      "\"time\":\"global time: ts is microseconds since origin_ns "
	      "nanoseconds after rank 0's clock origin\",\"origin_ns\":", f);
	fprintf(f, "%.0f,\"sync_method\":\"%s\",\"ranks_left_out\":%d}}\n",
		c.origin, scan->sync_method < 0 ? "none" :
		st_sync_method_name(scan->sync_method),
		st->ranks_left_out);
	st_p2p_free(c.p2p);
	st_u64map_release(&c.inst);
	st_u64map_release(&c.path_of);
	while (c.npath)
		free(c.path[--c.npath]);
	free(c.path);
	free(c.text);
	if (rc)
		return rc;
	return ferror(f) ? -EIO : 0;
}
