/*
 * sync/record.c: sync records (the blob described in sync/sync.h) and the
 * offline timeline built from them.  A record is written for every epoch
 * and normally carries only that epoch's samples, so a long run's records
 * grow linearly, not quadratically; the reader trusts nothing: sizes must
 * add up exactly and a CRC-32 covers every byte.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sync/internal.h"

static const char magic[4] = { 'S', 'T', 'S', 'Y' };

/* CRC-32 as zlib computes it (reflected, polynomial 0xedb88320). */
static uint32_t crc32_le(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return c ^ 0xffffffffu;
}

static uint8_t *put(uint8_t *p, uint64_t v, int nbytes)
{
	int i;

	for (i = 0; i < nbytes; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static uint64_t get(const uint8_t *p, int nbytes)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < nbytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint8_t *put_sample(uint8_t *p, const struct st_sync_sample *x)
{
	p = put(p, st_x_dbits(x->t_ns), 8);
	p = put(p, st_x_dbits(x->offset_ns), 8);
	p = put(p, st_x_dbits(x->rtt_ns), 8);
	return put(p, x->epoch, 4);
}

static void get_sample(const uint8_t *p, struct st_sync_sample *x)
{
	x->t_ns = st_x_bitsd(get(p, 8));
	x->offset_ns = st_x_bitsd(get(p + 8, 8));
	x->rtt_ns = st_x_bitsd(get(p + 16, 8));
	x->epoch = (uint32_t)get(p + 24, 4);
}

int st_sync_encode(const struct st_sync *s, unsigned flags, void *buf,
		   size_t *len)
{
	const struct st_sync_estimate *e = &s->est;
	size_t e0, r0, ne, nr, need, i;
	uint8_t *p = buf, *start = buf;
	int parent = -1;

	if (!len || (flags & ~ST_SYNC_REC_ALL))
		return -EINVAL;
	e0 = flags & ST_SYNC_REC_ALL ? 0 : s->edge_mark;
	r0 = flags & ST_SYNC_REC_ALL ? 0 : s->root_mark;
	ne = s->edge.n - e0;
	nr = s->root.n - r0;
	if (ne > UINT32_MAX || nr > UINT32_MAX || s->edge.n > UINT32_MAX ||
	    s->root.n > UINT32_MAX)
		return -EINVAL;
	need = ST_SYNC_RECORD_HEADER + (ne + nr) * ST_SYNC_SAMPLE_BYTES + 4;
	if (*len < need || !buf) {
		*len = need;
		return -ENOSPC;
	}
	*len = need;
	if (s->member)
		flags |= ST_SYNC_REC_MEMBER;
	if (!s->member && s->vparent >= 0 &&
	    st_sync_uses_tree(s->params.method))
		parent = s->vmap[s->vparent];

	memcpy(p, magic, 4);
	p = put(p + 4, ST_SYNC_RECORD_VERSION, 2);
	p = put(p, (uint64_t)s->params.method, 1);
	p = put(p, flags, 1);
	p = put(p, (uint32_t)s->rank, 4);
	p = put(p, (uint32_t)s->size, 4);
	p = put(p, (uint32_t)(s->leader ? s->leader[s->rank] : s->rank), 4);
	p = put(p, (uint32_t)parent, 4);
	p = put(p, (uint32_t)e->epoch, 4);
	p = put(p, ne, 4);
	p = put(p, nr, 4);
	p = put(p, e0, 4);
	p = put(p, r0, 4);
	p = put(p, 0, 4);
	p = put(p, s->origin_ns, 8);
	p = put(p, s->root_origin_ns, 8);
	p = put(p, e->duration_ns, 8);
	p = put(p, st_x_dbits(e->model.slope), 8);
	p = put(p, st_x_dbits(e->model.intercept), 8);
	p = put(p, st_x_dbits(e->anchor_ns), 8);
	p = put(p, st_x_dbits(e->err_ns), 8);
	p = put(p, st_x_dbits(e->slope_err), 8);
	p = put(p, st_x_dbits(e->span_ns), 8);
	p = put(p, st_x_dbits(e->rtt_ns), 8);
	for (i = e0; i < s->edge.n; i++)
		p = put_sample(p, &s->edge.v[i]);
	for (i = r0; i < s->root.n; i++)
		p = put_sample(p, &s->root.v[i]);
	put(p, crc32_le(start, (size_t)(p - start)), 4);
	return 0;
}

void st_sync_record_release(struct st_sync_record *rec)
{
	free(rec->edge);
	free(rec->root);
	memset(rec, 0, sizeof(*rec));
}

int st_sync_record_parse(struct st_sync_record *rec, const void *buf,
			 size_t len)
{
	const uint8_t *p = buf;
	uint64_t ne, nr;
	size_t i;

	memset(rec, 0, sizeof(*rec));
	if (!buf || len < ST_SYNC_RECORD_HEADER + 4 || memcmp(p, magic, 4) ||
	    get(p + 4, 2) != ST_SYNC_RECORD_VERSION)
		return -EBADMSG;
	ne = get(p + 28, 4);
	nr = get(p + 32, 4);
	if ((ne + nr) * ST_SYNC_SAMPLE_BYTES !=
	    (uint64_t)(len - ST_SYNC_RECORD_HEADER - 4) ||
	    get(p + len - 4, 4) != crc32_le(p, len - 4))
		return -EBADMSG;
	rec->method = (int)get(p + 6, 1);
	rec->flags = (unsigned)get(p + 7, 1);
	rec->rank = (int32_t)get(p + 8, 4);
	rec->size = (int32_t)get(p + 12, 4);
	rec->leader = (int32_t)get(p + 16, 4);
	rec->parent = (int32_t)get(p + 20, 4);
	rec->epoch = (uint32_t)get(p + 24, 4);
	rec->first_edge = (uint32_t)get(p + 36, 4);
	rec->first_root = (uint32_t)get(p + 40, 4);
	if (rec->method >= ST_SYNC_NMETHODS ||
	    (rec->flags & ~(ST_SYNC_REC_MEMBER | ST_SYNC_REC_ALL)) ||
	    rec->size < 1 || rec->rank < 0 || rec->rank >= rec->size ||
	    rec->leader < 0 || rec->leader >= rec->size ||
	    rec->parent < -1 || rec->parent >= rec->size ||
	    get(p + 44, 4) || rec->epoch > INT32_MAX) {
		memset(rec, 0, sizeof(*rec));
		return -EBADMSG;
	}
	rec->origin_ns = get(p + 48, 8);
	rec->root_origin_ns = get(p + 56, 8);
	rec->est.duration_ns = get(p + 64, 8);
	rec->est.model.slope = st_x_bitsd(get(p + 72, 8));
	rec->est.model.intercept = st_x_bitsd(get(p + 80, 8));
	rec->est.anchor_ns = st_x_bitsd(get(p + 88, 8));
	rec->est.err_ns = st_x_bitsd(get(p + 96, 8));
	rec->est.slope_err = st_x_bitsd(get(p + 104, 8));
	rec->est.span_ns = st_x_bitsd(get(p + 112, 8));
	rec->est.rtt_ns = st_x_bitsd(get(p + 120, 8));
	rec->est.epoch = (int)rec->epoch;
	if ((ne && !(rec->edge = malloc(ne * sizeof(*rec->edge)))) ||
	    (nr && !(rec->root = malloc(nr * sizeof(*rec->root))))) {
		st_sync_record_release(rec);
		return -ENOMEM;
	}
	rec->n_edge = ne;
	rec->n_root = nr;
	p += ST_SYNC_RECORD_HEADER;
	for (i = 0; i < ne; i++, p += ST_SYNC_SAMPLE_BYTES)
		get_sample(p, &rec->edge[i]);
	for (i = 0; i < nr; i++, p += ST_SYNC_SAMPLE_BYTES)
		get_sample(p, &rec->root[i]);
	return 0;
}

struct knot {
	double t_ns;		/* anchor, local time */
	struct st_clock_model m;
};

struct st_sync_timeline {
	int rank;
	uint64_t origin_ns, root_origin_ns;
	uint32_t epoch;
	struct knot *k;
	size_t n, alloc;
};

int st_sync_timeline_new(struct st_sync_timeline **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void st_sync_timeline_free(struct st_sync_timeline *tl)
{
	if (!tl)
		return;
	free(tl->k);
	free(tl);
}

int st_sync_timeline_add(struct st_sync_timeline *tl,
			 const struct st_sync_record *rec)
{
	struct knot *k;

	if (!tl || !rec || !isfinite(rec->est.anchor_ns) ||
	    !isfinite(rec->est.model.slope) ||
	    !isfinite(rec->est.model.intercept))
		return -EINVAL;
	if (tl->n && (rec->rank != tl->rank ||
		      rec->origin_ns != tl->origin_ns ||
		      rec->root_origin_ns != tl->root_origin_ns ||
		      rec->epoch <= tl->epoch ||
		      rec->est.anchor_ns < tl->k[tl->n - 1].t_ns))
		return -EINVAL;
	if (tl->n == tl->alloc) {
		size_t alloc = tl->alloc ? 2 * tl->alloc : 16;

		if (!(k = realloc(tl->k, alloc * sizeof(*k))))
			return -ENOMEM;
		tl->k = k;
		tl->alloc = alloc;
	}
	tl->rank = rec->rank;
	tl->origin_ns = rec->origin_ns;
	tl->root_origin_ns = rec->root_origin_ns;
	tl->epoch = rec->epoch;
	k = &tl->k[tl->n++];
	k->t_ns = rec->est.anchor_ns;
	k->m = rec->est.model;
	return 0;
}

static double offset_at(const struct knot *k, double t)
{
	return k->m.slope * t + k->m.intercept;
}

double st_sync_timeline_global(const struct st_sync_timeline *tl,
			       uint64_t raw_ns)
{
	const struct knot *a, *b;
	size_t lo, hi;
	double t, d;

	if (!tl->n)
		return (double)raw_ns;
	t = (double)(int64_t)(raw_ns - tl->origin_ns);
	if (t <= tl->k[0].t_ns)
		return st_clock_model_apply(tl->k[0].m, t);
	if (t >= tl->k[tl->n - 1].t_ns)
		return st_clock_model_apply(tl->k[tl->n - 1].m, t);
	/* The last knot at or before t: k[lo].t <= t < k[hi].t. */
	lo = 0;
	hi = tl->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->k[mid].t_ns <= t)
			lo = mid;
		else
			hi = mid;
	}
	a = &tl->k[lo];
	b = &tl->k[hi];
	d = offset_at(a, a->t_ns);
	if (b->t_ns > a->t_ns)
		d += (offset_at(b, b->t_ns) - d) * (t - a->t_ns) /
		     (b->t_ns - a->t_ns);
	return t - d;
}

uint64_t st_sync_timeline_root_origin(const struct st_sync_timeline *tl)
{
	return tl->root_origin_ns;
}
