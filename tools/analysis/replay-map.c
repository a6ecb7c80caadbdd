/*
 * tools/analysis/replay-map.c: the replay's hash map, from keys of three
 * 64-bit words to pool indices (instances, message queues, requests,
 * communicators, sites).  Open addressing with linear probing; deletion
 * shifts later entries back, so there are no tombstones and a map whose
 * entries come and go stays as small as its peak.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/replay-internal.h"

static size_t h_slot(const struct hmap *m, uint64_t a, uint64_t b,
		     uint64_t c)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL;

	h ^= (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;
	h ^= (c + 0x165667b19e3779f9ULL) * 0xff51afd7ed558ccdULL;
	h ^= h >> 29;
	return (size_t)h & (m->cap - 1);
}

uint32_t *st_rp_map_get(const struct hmap *m, uint64_t a, uint64_t b,
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
int st_rp_map_put(struct hmap *m, uint64_t a, uint64_t b, uint64_t c,
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

void st_rp_map_del(struct hmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	uint32_t *v = st_rp_map_get(m, a, b, c);
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

void st_rp_map_free(struct hmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

