/*
 * tools/analysis/matrix.c: the communication matrices (see matrix.h).
 * A call that sends to every other member, or to every higher one, adds
 * its bytes to a per-communicator sum for its sender instead of walking
 * the group, so a call costs O(1) whatever the group size; the sums are
 * spread over the pairs once, in st_matrix_finish().  The last call's
 * communicator, sums and member rank are cached: calls come in runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/fn-names.h"
#include "tools/analysis/matrix.h"
#include "tools/analysis/runscan.h"
#include "writer/event.h"
#include "writer/fn-info.h"

/* Per communicator, per member (communicator rank): sums to spread. */
struct acc {
	size_t comm;		/* index in the scan's comms */
	int first_rank;		/* the lowest rank that added to it... */
	uint64_t first_at;	/* ...and when it first did (m->tick) */
	double *all_b, *up_b;	/* to every other, to every higher */
	uint64_t *all_n, *up_n;
};

int st_matrix_init(struct st_matrix *m, int n)
{
	size_t nn;

	memset(m, 0, sizeof(*m));
	if (n < 1 || n > ST_MATRIX_MAX_RANKS)
		return -E2BIG;
	m->n = n;
	nn = (size_t)n * (size_t)n;
	m->p2p.bytes = calloc(nn, sizeof(double));
	m->coll.bytes = calloc(nn, sizeof(double));
	m->p2p.msgs = calloc(nn, sizeof(uint64_t));
	m->coll.msgs = calloc(nn, sizeof(uint64_t));
	if (!m->p2p.bytes || !m->coll.bytes || !m->p2p.msgs ||
	    !m->coll.msgs) {
		st_matrix_release(m);
		return -ENOMEM;
	}
	return 0;
}

void st_matrix_release(struct st_matrix *m)
{
	size_t i;

	free(m->p2p.bytes);
	free(m->coll.bytes);
	free(m->p2p.msgs);
	free(m->coll.msgs);
	for (i = 0; i < m->nacc; i++) {
		free(m->acc[i].all_b);
		free(m->acc[i].up_b);
		free(m->acc[i].all_n);
		free(m->acc[i].up_n);
	}
	free(m->acc);
	st_u64map_release(&m->acc_of);
	memset(m, 0, sizeof(*m));
}

static void put(struct st_matrix_part *p, int n, int src, int dst,
		double bytes)
{
	if (src < 0 || dst < 0 || src >= n || dst >= n || src == dst)
		return;
	p->bytes[(size_t)src * n + dst] += bytes;
	p->msgs[(size_t)src * n + dst]++;
}

/*
 * The sums of communicator 'c', which world rank 'rank' adds to.  Each
 * remembers the first record that added to it in the order of a
 * rank-by-rank sweep (lowest rank, then the earliest of its records:
 * a rank's records come in file order whether swept or walked in
 * global time), so st_matrix_finish() spreads them in one order however
 * the records came.
 */
static struct acc *acc_get(struct st_matrix *m, const struct st_scan *s,
			   const struct st_scan_comm *c, int rank)
{
	size_t ci = (size_t)(c - s->comms);
	uint64_t *v;
	int added;
	struct acc *a;

	m->tick++;
	if (m->have_last_acc && ci == m->last_ci) {
		a = &m->acc[m->last_acc];
		if (rank < a->first_rank) {
			a->first_rank = rank;
			a->first_at = m->tick;
		}
		return a;
	}
	v = st_u64map_put(&m->acc_of, ci, m->nacc, &added);
	if (!v)
		return NULL;
	if (!added) {
		m->last_ci = ci;
		m->last_acc = *v;
		m->have_last_acc = 1;
		a = &m->acc[*v];
		if (rank < a->first_rank) {
			a->first_rank = rank;
			a->first_at = m->tick;
		}
		return a;
	}
	if (m->nacc == m->alloc_acc) {
		size_t al = m->alloc_acc ? 2 * m->alloc_acc : 16;
		struct acc *n = realloc(m->acc, al * sizeof(*n));

		if (!n)
			return NULL;
		m->acc = n;
		m->alloc_acc = al;
	}
	a = &m->acc[m->nacc];
	a->comm = ci;
	a->first_rank = rank;
	a->first_at = m->tick;
	a->all_b = calloc(c->size, sizeof(double));
	a->up_b = calloc(c->size, sizeof(double));
	a->all_n = calloc(c->size, sizeof(uint64_t));
	a->up_n = calloc(c->size, sizeof(uint64_t));
	if (!a->all_b || !a->up_b || !a->all_n || !a->up_n) {
		free(a->all_b);
		free(a->up_b);
		free(a->all_n);
		free(a->up_n);
		st_u64map_del(&m->acc_of, ci);
		return NULL;
	}
	m->last_ci = ci;
	m->last_acc = m->nacc;
	m->have_last_acc = 1;
	m->nacc++;
	return a;
}

/* Communicator rank of world rank 'rank' in 'c', or -1. */
static int crank_of(const struct st_scan_comm *c, int rank)
{
	uint32_t i;

	for (i = 0; i < c->size; i++)
		if (c->world[i] == rank)
			return (int)i;
	return -1;
}

static int add_coll(struct st_matrix *m, const struct st_scan *s, int rank,
		    const struct st_event *ev, int bytes_class)
{
	const struct st_scan_comm *c;
	int root = -1, me, p;
	struct acc *a;

	if (bytes_class == ST_BYTES_BARRIER)
		return 0;
	if (m->have_last_c && ev->comm == m->last_id) {
		c = m->last_c;
	} else {
		c = st_scan_comm(s, ev->comm);
		m->last_id = ev->comm;
		m->last_c = c;
		m->have_last_c = 1;
		m->have_last_me = 0;
	}
	if (!c || !c->world || bytes_class >= ST_BYTES_NBR_ALLGATHER) {
		m->coll_unattributed += (double)ev->sbytes;
		m->coll_unattributed_calls++;
		return 0;
	}
	p = (int)c->size;
	if (p < 2)
		return 0;
	if (ev->root >= 0 && ev->root < p)
		root = c->world[ev->root];
	switch (bytes_class) {
	case ST_BYTES_BCAST:
	case ST_BYTES_SCATTER:
	case ST_BYTES_SCATTERV:
		if (rank != root)
			put(&m->coll, m->n, root, rank, (double)ev->rbytes);
		return 0;
	case ST_BYTES_GATHER:
	case ST_BYTES_GATHERV:
	case ST_BYTES_REDUCE:
		if (rank != root)
			put(&m->coll, m->n, rank, root, (double)ev->sbytes);
		return 0;
	}
	if (!m->have_last_me || rank != m->last_rank) {
		m->last_rank = rank;
		m->last_me = crank_of(c, rank);
		m->have_last_me = 1;
	}
	me = m->last_me;
	if (me < 0 || !(a = acc_get(m, s, c, rank)))
		return me < 0 ? 0 : -ENOMEM;
	switch (bytes_class) {
	case ST_BYTES_ALLGATHER:
	case ST_BYTES_ALLGATHERV:
	case ST_BYTES_ALLREDUCE:
		a->all_b[me] += (double)ev->sbytes;
		a->all_n[me]++;
		break;
	case ST_BYTES_SCAN:
		a->up_b[me] += (double)ev->sbytes;
		a->up_n[me]++;
		break;
	default:	/* all-to-all and reduce-scatter: even blocks */
		a->all_b[me] += (double)ev->sbytes / p;
		a->all_n[me]++;
		break;
	}
	return 0;
}

int st_matrix_add(struct st_matrix *m, const struct st_scan *scan, int rank,
		  const struct st_event *ev)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	int dst;

	if (!d || (ev->kind != ST_REC_CALL && ev->kind != ST_REC_START))
		return 0;
	if (d->kind == ST_KIND_COLL) {
		/* A persistent init moves nothing: its starts do. */
		if (ev->kind == ST_REC_CALL && d->family == ST_FAM_PERSISTENT)
			return 0;
		return add_coll(m, scan, rank, ev, d->bytes);
	}
	if (d->kind != ST_KIND_P2P ||
	    (d->bytes != ST_BYTES_SEND && d->bytes != ST_BYTES_SENDRECV &&
	     d->bytes != ST_BYTES_SENDRECV_REPLACE) || ev->peer < 0)
		return 0;
	/* Here too a persistent init moves nothing: each start does. */
	if ((ev->kind == ST_REC_START) != (d->family == ST_FAM_PERSISTENT))
		return 0;
	dst = st_scan_world(scan, ev->comm, ev->peer);
	if (dst < 0 || dst >= m->n) {
		m->p2p_unmapped++;
		return 0;
	}
	put(&m->p2p, m->n, rank, dst, (double)ev->sbytes);
	return 0;
}

static int cmp_first(const void *x, const void *y)
{
	const struct acc *a = x, *b = y;

	if (a->first_rank != b->first_rank)
		return a->first_rank < b->first_rank ? -1 : 1;
	return a->first_at < b->first_at ? -1 : a->first_at > b->first_at;
}

void st_matrix_finish(struct st_matrix *m, const struct st_scan *scan)
{
	size_t k;
	uint32_t i, j;

	/* Fractional sums (all-to-all blocks) add up in one order. */
	if (m->nacc > 1)
		qsort(m->acc, m->nacc, sizeof(*m->acc), cmp_first);
	st_u64map_clear(&m->acc_of);
	m->have_last_acc = 0;
	for (k = 0; k < m->nacc; k++) {
		const struct acc *a = &m->acc[k];
		const struct st_scan_comm *c = &scan->comms[a->comm];

		for (i = 0; i < c->size; i++) {
			int src = c->world[i];

			if (src < 0 || src >= m->n)
				continue;
			for (j = 0; j < c->size; j++) {
				int dst = c->world[j];
				size_t at = (size_t)src * m->n + dst;

				if (dst < 0 || dst >= m->n || i == j)
					continue;
				m->coll.bytes[at] += a->all_b[i];
				m->coll.msgs[at] += a->all_n[i];
				if (j > i) {
					m->coll.bytes[at] += a->up_b[i];
					m->coll.msgs[at] += a->up_n[i];
				}
			}
		}
	}
}

void st_matrix_sum(const struct st_matrix_part *p, int n, double *bytes,
		   uint64_t *msgs, uint64_t *pairs)
{
	size_t i, nn = (size_t)n * n;

	*bytes = 0;
	*msgs = 0;
	*pairs = 0;
	for (i = 0; i < nn; i++) {
		*bytes += p->bytes[i];
		*msgs += p->msgs[i];
		if (p->msgs[i])
			(*pairs)++;
	}
}

int st_matrix_write_csv(FILE *f, const struct st_matrix *m)
{
	const struct st_matrix_part *parts[2] = { &m->p2p, &m->coll };
	static const char *const kind[2] = { "p2p", "coll" };
	int k, s, d;

	fputs("kind,src,dst,bytes,messages\n", f);
	for (k = 0; k < 2; k++)
		for (s = 0; s < m->n; s++)
			for (d = 0; d < m->n; d++) {
				size_t at = (size_t)s * m->n + d;

				if (!parts[k]->msgs[at])
					continue;
				fprintf(f, "%s,%d,%d,%.15g,%" PRIu64 "\n",
					kind[k], s, d, parts[k]->bytes[at],
					parts[k]->msgs[at]);
			}
	return ferror(f) ? -EIO : 0;
}

static void json_part(FILE *f, const struct st_matrix_part *p, int n)
{
	int s, d;

	fputs("{\"bytes\":[", f);
	for (s = 0; s < n; s++) {
		fputs(s ? ",[" : "[", f);
		for (d = 0; d < n; d++)
			fprintf(f, "%s%.15g", d ? "," : "",
				p->bytes[(size_t)s * n + d]);
		fputc(']', f);
	}
	fputs("],\"messages\":[", f);
	for (s = 0; s < n; s++) {
		fputs(s ? ",[" : "[", f);
		for (d = 0; d < n; d++)
			fprintf(f, "%s%" PRIu64, d ? "," : "",
				p->msgs[(size_t)s * n + d]);
		fputc(']', f);
	}
	fputs("]}", f);
}

int st_matrix_write_json(FILE *f, const struct st_matrix *m)
{
	fprintf(f, "{\"ranks\":%d,\"p2p\":", m->n);
	json_part(f, &m->p2p, m->n);
	fputs(",\"coll\":", f);
	json_part(f, &m->coll, m->n);
	fprintf(f, ",\"p2p_unmapped\":%" PRIu64 ",\"coll_unattributed_bytes\":"
		"%.15g,\"coll_unattributed_calls\":%" PRIu64 "}", m->p2p_unmapped,
		m->coll_unattributed, m->coll_unattributed_calls);
	return ferror(f) ? -EIO : 0;
}
