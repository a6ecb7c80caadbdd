/*
 * tools/analysis/timeline.c: one rank's global clock, from its sync records.
 * sync/ does the mapping itself (st_sync_timeline: the offset is
 * interpolated between the epochs' anchors); this file adds what the
 * tools need around it: reading a file's sync records, refusing records
 * of another rank, and the error of a global time, taken from the epoch
 * whose anchor is nearest in local time, since an estimate is best near
 * where it was measured.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/timeline.h"
#include "writer/event.h"
#include "writer/reader.h"

/*
 * What the error estimate needs of one epoch, and its knot of the
 * timeline: its offset at its own anchor, computed as sync/record.c's
 * offset_at() computes it.
 */
struct epoch {
	struct st_sync_estimate est;
	double d_ns;		/* slope * anchor + intercept */
};

struct st_gclock {
	int rank;			/* -1 until the first epoch */
	int method;
	uint64_t origin_ns;
	struct st_sync_timeline *tl;
	struct epoch *e;		/* anchors increase */
	size_t n, alloc;
};

int st_gclock_new(struct st_gclock **out, int rank)
{
	struct st_gclock *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	if (st_sync_timeline_new(&c->tl)) {
		free(c);
		return -ENOMEM;
	}
	c->rank = rank;
	c->method = -1;
	*out = c;
	return 0;
}

void st_gclock_free(struct st_gclock *c)
{
	if (!c)
		return;
	st_sync_timeline_free(c->tl);
	free(c->e);
	free(c);
}

int st_gclock_add(struct st_gclock *c, const struct st_sync_record *rec)
{
	int rc;

	if (c->rank >= 0 && rec->rank != c->rank)
		return -EINVAL;
	if (c->n == c->alloc) {
		size_t alloc = c->alloc ? 2 * c->alloc : 8;
		struct epoch *e = realloc(c->e, alloc * sizeof(*e));

		if (!e)
			return -ENOMEM;
		c->e = e;
		c->alloc = alloc;
	}
	/* The timeline checks order, origin and finiteness. */
	rc = st_sync_timeline_add(c->tl, rec);
	if (rc)
		return rc;
	c->rank = rec->rank;
	c->method = rec->method;
	c->origin_ns = rec->origin_ns;
	c->e[c->n].est = rec->est;
	c->e[c->n].d_ns = rec->est.model.slope * rec->est.anchor_ns +
			  rec->est.model.intercept;
	c->n++;
	return 0;
}

int st_gclock_add_event(struct st_gclock *c, const struct st_event *ev,
			struct st_sync_record *rec)
{
	struct st_sync_record mine;
	struct st_sync_record *r = rec ? rec : &mine;
	int rc;

	if (ev->kind != ST_REC_SYNC) {
		memset(r, 0, sizeof(*r));
		return -EINVAL;
	}
	rc = st_sync_record_parse(r, ev->text, ev->text_len);
	if (rc)
		return rc;
	rc = st_gclock_add(c, r);
	if (!rec)
		st_sync_record_release(&mine);
	return rc;
}

int st_gclock_load(struct st_gclock *c, const char *path,
		   struct st_gclock_problems *p)
{
	struct st_reader *r;
	struct st_event ev;
	int rc;

	if (p) {
		p->nbad = 0;
		p->first[0] = '\0';
	}
	rc = st_fn_reader_open(&r, path, NULL, 0);
	if (rc)
		return rc;
	while ((rc = st_reader_next(r, &ev)) > 0) {
		int bad;

		if (ev.kind != ST_REC_SYNC)
			continue;
		bad = st_gclock_add_event(c, &ev, NULL);
		if (bad == -ENOMEM) {
			rc = bad;
			break;
		}
		if (bad && p && !p->nbad++)
			snprintf(p->first, sizeof(p->first),
				 "the sync record at t0=%" PRIu64 " %s", ev.t0,
				 bad == -EBADMSG ? "is not a valid sync record"
				 : "does not follow the earlier ones (rank, "
				   "origin or epoch)");
	}
	st_reader_close(r);
	return rc < 0 ? rc : 0;
}

size_t st_gclock_epochs(const struct st_gclock *c)
{
	return c->n;
}

int st_gclock_method(const struct st_gclock *c)
{
	return c->method;
}

/*
 * st_sync_timeline_global() of the timeline the epochs were added to,
 * the same operations in the same order (so the same result to the
 * bit, tests/unit/analysis-timeline.c checks it), with each knot's
 * offset at its anchor computed once, when it was added, and no call
 * into sync/: the walks of report and table take two per record.
 */
double st_gclock_global(const struct st_gclock *c, uint64_t t_ns)
{
	const struct epoch *a, *b;
	size_t lo, hi;
	double t, d;

	if (!c->n)
		return NAN;
	t = (double)(int64_t)(t_ns - c->origin_ns);
	a = &c->e[0];
	if (t <= a->est.anchor_ns)
		return t - (a->est.model.slope * t + a->est.model.intercept);
	b = &c->e[c->n - 1];
	if (t >= b->est.anchor_ns)
		return t - (b->est.model.slope * t + b->est.model.intercept);
	/* The last anchor at or before t: e[lo] <= t < e[hi]. */
	lo = 0;
	hi = c->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->e[mid].est.anchor_ns <= t)
			lo = mid;
		else
			hi = mid;
	}
	a = &c->e[lo];
	b = &c->e[hi];
	d = a->d_ns;
	if (b->est.anchor_ns > a->est.anchor_ns)
		d += (b->d_ns - d) * (t - a->est.anchor_ns) /
		     (b->est.anchor_ns - a->est.anchor_ns);
	return t - d;
}

double st_gclock_err(const struct st_gclock *c, uint64_t t_ns)
{
	const struct st_sync_estimate *e;
	size_t lo = 0, hi, mid;
	double t, err;

	if (!c->n)
		return NAN;
	if (c->rank == 0)
		return 0.0;
	t = (double)(int64_t)(t_ns - c->origin_ns);
	/* The first anchor at or after t, or the one before if nearer. */
	hi = c->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->e[mid].est.anchor_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->n)
		lo = c->n - 1;
	else if (lo > 0 && t - c->e[lo - 1].est.anchor_ns <
			   c->e[lo].est.anchor_ns - t)
		lo--;
	e = &c->e[lo].est;
	err = st_sync_estimate_err_at(e, t);
	return isnan(err) ? e->err_ns : err;
}

char *st_sync_rec_brief(const struct st_sync_record *rec, char *buf,
			size_t len)
{
	double err = rec->rank == 0 ? 0.0 : rec->est.err_ns;

	if (isfinite(err))
		snprintf(buf, len, "%s epoch %" PRIu32 " err %.0fns",
			 st_sync_method_name(rec->method), rec->epoch, err);
	else
		snprintf(buf, len, "%s epoch %" PRIu32 " err unknown",
			 st_sync_method_name(rec->method), rec->epoch);
	return buf;
}
