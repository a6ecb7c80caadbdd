/*
 * tools/analysis/p2p.c: see p2p.h.  A key (communicator, source,
 * destination, tag) gets a small index through two maps; per key, two
 * counters number its sends and receives.  The first end of message k of
 * a key waits in a pool under (key index, k) until the other comes, so
 * memory grows with messages in flight in the merged order (and with
 * ends that never pair), not with the trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/p2p.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/u64map.h"
#include "writer/event.h"
#include "writer/fn-info.h"

/* An end waiting for its other end. */
struct wait_end {
	uint64_t id;
	struct st_p2p_end end;
};

/* A 'posted' value: a receive whose number went back at MPI_Cancel. */
#define CANCEL_OUT UINT64_MAX

struct st_p2p {
	const struct st_scan *scan;
	struct st_u64map pair_of;	/* comm idx << 44 | src << 22 | dst,
					   ranks in the communicator */
	struct st_u64map key_of;	/* pair << 32 | tag -> key index */
	struct st_u64map crank_of;	/* comm idx << 22 | world -> rank in
					   the communicator */
	uint64_t (*count)[4];		/* per key: sends, receives seen;
					   sends, receives counted */
	int counting;			/* in st_p2p_count()'s sweep */
	int counted;			/* st_p2p_counted() was called */
	size_t nkeys, alloc_keys;
	struct st_u64map waiting;	/* key << 40 | k -> index in 'pool' */
	struct wait_end *pool;
	size_t npool, alloc_pool;
	size_t *free_ends;
	size_t nfree, alloc_free;
	struct st_u64map posted;	/* rank << 40 | req -> key << 40 | k,
					   or 0 for a wildcard receive */
	struct st_u64map cancelled;	/* rank << 40 | req of the receives
					   the counting sweep saw cancelled */
	uint64_t next_id, unmapped;
};

struct st_p2p *st_p2p_new(const struct st_scan *scan)
{
	struct st_p2p *m = calloc(1, sizeof(*m));

	if (m)
		m->scan = scan;
	return m;
}

void st_p2p_free(struct st_p2p *m)
{
	if (!m)
		return;
	st_u64map_release(&m->pair_of);
	st_u64map_release(&m->key_of);
	st_u64map_release(&m->waiting);
	st_u64map_release(&m->posted);
	st_u64map_release(&m->cancelled);
	st_u64map_release(&m->crank_of);
	free(m->count);
	free(m->pool);
	free(m->free_ends);
	free(m);
}

uint64_t st_p2p_unpaired(const struct st_p2p *m)
{
	return m->waiting.n;
}

uint64_t st_p2p_unmapped(const struct st_p2p *m)
{
	return m->unmapped;
}

/* Rank of world rank 'world' in communicator 'c' (index 'cidx'), or -1. */
static int crank(struct st_p2p *m, const struct st_scan_comm *c,
		 uint64_t cidx, int world)
{
	uint64_t *v;
	int added;
	uint32_t i;

	v = st_u64map_put(&m->crank_of, cidx << 22 | (uint64_t)world, 0,
			  &added);
	if (!v)
		return -2;
	if (added) {
		*v = UINT64_MAX;
		for (i = 0; c->world && i < c->size; i++)
			if (c->world[i] == world)
				*v = i;
	}
	return *v == UINT64_MAX ? -1 : (int)*v;
}

/*
 * The key index of a message on 'comm' between world rank 'me' and
 * rank 'peer' in the communicator ('recv': me receives) with 'tag', in
 * '*kidx': 0 done, 1 when the communicator or a rank is unknown,
 * -ENOMEM.
 */
static int key_index(struct st_p2p *m, uint64_t comm, int me, int32_t peer,
		     int recv, int32_t tag, size_t *kidx)
{
	const struct st_scan_comm *c = st_scan_comm(m->scan, comm);
	uint64_t cidx, *pair, *key;
	int added, mine, src, dst;

	if (!c || !c->world || peer < 0 || (uint32_t)peer >= c->size ||
	    me < 0 || me >= (1 << 22))
		return 1;
	cidx = (uint64_t)(c - m->scan->comms);
	if (cidx >= (1u << 20))
		return 1;
	mine = crank(m, c, cidx, me);
	if (mine == -2)
		return -ENOMEM;
	if (mine < 0)
		return 1;
	src = recv ? peer : mine;
	dst = recv ? mine : peer;
	pair = st_u64map_put(&m->pair_of, cidx << 44 | (uint64_t)src << 22 |
			     (uint64_t)dst, m->pair_of.n, NULL);
	if (!pair)
		return -ENOMEM;
	key = st_u64map_put(&m->key_of, *pair << 32 | (uint32_t)tag, m->nkeys,
			    &added);
	if (!key)
		return -ENOMEM;
	if (added) {
		if (m->nkeys == m->alloc_keys) {
			size_t a = m->alloc_keys ? 2 * m->alloc_keys : 64;
			void *n = realloc(m->count, a * sizeof(*m->count));

			if (!n)
				return -ENOMEM;
			m->count = n;
			m->alloc_keys = a;
		}
		memset(m->count[m->nkeys], 0, sizeof(m->count[0]));
		m->nkeys++;
	}
	*kidx = (size_t)*key;
	return 0;
}

/* Pair end 'e', message 'k' of key 'kidx', and report it. */
static int pair(struct st_p2p *m, size_t kidx, uint64_t k,
		const struct st_p2p_end *e, st_p2p_fn *fn, void *ctx)
{
	uint64_t mk = (uint64_t)kidx << 40 | (k & ((1ull << 40) - 1));
	struct st_p2p_msg msg;
	uint64_t *v;
	int added;
	size_t i;

	if (m->counting) {
		m->count[kidx][2 + e->recv]++;
		return 0;
	}
	memset(&msg, 0, sizeof(msg));
	msg.end = *e;
	msg.both = !m->counted || (k <= m->count[kidx][2] &&
				   k <= m->count[kidx][3]);
	v = st_u64map_put(&m->waiting, mk, 0, &added);
	if (!v)
		return -ENOMEM;
	if (!added) {
		i = (size_t)*v;
		msg.id = m->pool[i].id;
		msg.paired = 1;
		msg.other = m->pool[i].end;
		st_u64map_del(&m->waiting, mk);
		if (m->nfree == m->alloc_free) {
			size_t a = m->alloc_free ? 2 * m->alloc_free : 64;
			size_t *n = realloc(m->free_ends, a * sizeof(*n));

			if (!n)
				return -ENOMEM;
			m->free_ends = n;
			m->alloc_free = a;
		}
		m->free_ends[m->nfree++] = i;
	} else {
		if (m->nfree) {
			i = m->free_ends[--m->nfree];
		} else {
			if (m->npool == m->alloc_pool) {
				size_t a = m->alloc_pool ?
					   2 * m->alloc_pool : 64;
				struct wait_end *n = realloc(m->pool,
							a * sizeof(*n));

				if (!n) {
					st_u64map_del(&m->waiting, mk);
					return -ENOMEM;
				}
				m->pool = n;
				m->alloc_pool = a;
			}
			i = m->npool++;
		}
		*v = i;
		msg.id = ++m->next_id;
		m->pool[i].id = msg.id;
		m->pool[i].end = *e;
	}
	return fn ? fn(ctx, &msg) : 0;
}

/* An end whose key is known now: number it and pair it. */
static int end_now(struct st_p2p *m, struct st_p2p_end *e, int32_t cpeer,
		   st_p2p_fn *fn, void *ctx)
{
	size_t kidx;
	int rc;

	rc = key_index(m, e->comm, e->rank, cpeer, e->recv, e->tag, &kidx);
	if (rc) {
		if (rc > 0 && !m->counting)
			m->unmapped++;
		return rc < 0 ? rc : 0;
	}
	return pair(m, kidx, ++m->count[kidx][e->recv], e, fn, ctx);
}

static void end_init(struct st_p2p *m, struct st_p2p_end *e, int recv,
		     int rank, const struct st_event *ev, int32_t cpeer,
		     double g0, double g1)
{
	memset(e, 0, sizeof(*e));
	e->recv = recv;
	e->rank = rank;
	e->peer = st_scan_world(m->scan, ev->comm, cpeer);
	e->thread = ev->thread;
	e->g0 = g0;
	e->g1 = g1;
	e->comm = ev->comm;
}

int st_p2p_add(struct st_p2p *m, int rank, const struct st_event *ev,
	       double g0, double g1, st_p2p_fn *fn, void *ctx)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t rk = (uint64_t)(uint32_t)rank << 40 | ev->req, *v;
	struct st_p2p_end e;
	int rc;

	if (ev->kind == ST_REC_DONE) {
		uint64_t posted;

		if ((ev->arg & ST_DONE_CANCELLED) && m->counting && !ev->inst &&
		    !st_u64map_put(&m->cancelled, rk, 1, NULL))
			return -ENOMEM;
		if (!(v = st_u64map_find(&m->posted, rk)))
			return 0;
		posted = *v;
		st_u64map_del(&m->posted, rk);
		if (posted == CANCEL_OUT) {
			/* Its number went back at its MPI_Cancel. */
			if (ev->arg & ST_DONE_CANCELLED)
				return 0;
			/* The cancel failed: a message came, numbered now. */
			end_init(m, &e, 1, rank, ev, ev->peer, g0, g1);
			e.tag = ev->tag;
			e.bytes = ev->rbytes;
			return end_now(m, &e, ev->peer, fn, ctx);
		}
		if (ev->arg & ST_DONE_CANCELLED) {
			/*
			 * No message.  After a counting sweep it was never
			 * numbered (below); without one its number goes
			 * back when no later receive of its key took one
			 * (else those after it pair one off).
			 */
			size_t kidx = (size_t)(posted >> 40);

			if (posted && m->count[kidx][1] ==
					      (posted & ((1ull << 40) - 1)))
				m->count[kidx][1]--;
			return 0;
		}
		end_init(m, &e, 1, rank, ev, ev->peer, g0, g1);
		e.tag = ev->tag;
		e.bytes = ev->rbytes;
		if (!posted)
			return end_now(m, &e, ev->peer, fn, ctx);
		return pair(m, (size_t)(posted >> 40),
			    posted & ((1ull << 40) - 1), &e, fn, ctx);
	}
	/*
	 * MPI_Cancel of a numbered receive that no later receive of its
	 * key followed yet: its number goes back now, before any does.
	 */
	if (ev->kind == ST_REC_CALL && ev->fn == ST_FN_MPI_CANCEL && ev->req &&
	    (v = st_u64map_find(&m->posted, rk)) && *v && *v != CANCEL_OUT &&
	    m->count[*v >> 40][1] == (*v & ((1ull << 40) - 1))) {
		m->count[*v >> 40][1]--;
		*v = CANCEL_OUT;
		return 0;
	}
	if (!d || d->kind != ST_KIND_P2P ||
	    (ev->kind != ST_REC_CALL && ev->kind != ST_REC_START))
		return 0;
	/* A persistent init moves nothing: each of its starts does. */
	if ((ev->kind == ST_REC_START) != (d->family == ST_FAM_PERSISTENT))
		return 0;
	if (d->bytes == ST_BYTES_SEND || d->bytes == ST_BYTES_SENDRECV ||
	    d->bytes == ST_BYTES_SENDRECV_REPLACE) {
		if (ev->peer >= 0) {
			end_init(m, &e, 0, rank, ev, ev->peer, g0, g1);
			e.tag = ev->tag;
			e.bytes = ev->sbytes;
			if ((rc = end_now(m, &e, ev->peer, fn, ctx)))
				return rc;
		}
		if (d->bytes != ST_BYTES_SEND && ev->peer2 >= 0) {
			end_init(m, &e, 1, rank, ev, ev->peer2, g0, g1);
			e.tag = ev->tag2;
			e.bytes = ev->rbytes;
			return end_now(m, &e, ev->peer2, fn, ctx);
		}
		return 0;
	}
	if (d->bytes != ST_BYTES_RECV)
		return 0;
	if (d->family == ST_FAM_BLOCKING) {
		if (ev->peer < 0)
			return 0;
		end_init(m, &e, 1, rank, ev, ev->peer, g0, g1);
		e.tag = ev->tag;
		e.bytes = ev->rbytes;
		return end_now(m, &e, ev->peer, fn, ctx);
	}
	if (!ev->req || ev->peer == ST_RANK_PROC_NULL)
		return 0;
	/* One the counting sweep saw cancelled takes no message. */
	if (m->counted && !m->counting && st_u64map_find(&m->cancelled, rk))
		return 0;
	/* A nonblocking receive: numbered now if it names source and tag. */
	if (ev->peer >= 0 && ev->tag != ST_TAG_ANY) {
		size_t kidx;

		rc = key_index(m, ev->comm, rank, ev->peer, 1, ev->tag, &kidx);
		if (rc < 0)
			return rc;
		if (rc) {
			if (!m->counting)
				m->unmapped++;
			return 0;
		}
		v = st_u64map_put(&m->posted, rk, 0, NULL);
		if (!v)
			return -ENOMEM;
		*v = (uint64_t)kidx << 40 | (++m->count[kidx][1] &
					     ((1ull << 40) - 1));
		return 0;
	}
	return st_u64map_put(&m->posted, rk, 0, NULL) ? 0 : -ENOMEM;
}

int st_p2p_count(struct st_p2p *m, int rank, const struct st_event *ev)
{
	int rc;

	m->counting = 1;
	rc = st_p2p_add(m, rank, ev, 0, 0, NULL, NULL);
	m->counting = 0;
	return rc;
}

void st_p2p_counted(struct st_p2p *m)
{
	size_t i;

	for (i = 0; i < m->nkeys; i++)
		m->count[i][0] = m->count[i][1] = 0;
	st_u64map_clear(&m->posted);
	m->counted = 1;
}
