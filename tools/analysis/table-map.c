/*
 * tools/analysis/table-map.c: the three-word hash map of tools/analysis/table-map.h.  The
 * table stays at most half full; a deleted entry's hole is closed by
 * moving back each later entry of the same probe run whose home is not
 * between the hole and its slot (Knuth's algorithm R).
 */
#include <errno.h>
#include <stdlib.h>

#include "tools/analysis/table-map.h"

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

static size_t home(const struct st_tmap *m, const uint64_t *k)
{
	uint64_t h = mix64(k[0]);

	h = mix64(h ^ k[1] * 0x9e3779b97f4a7c15ULL);
	h = mix64(h ^ k[2] * 0xbf58476d1ce4e5b9ULL);
	return (size_t)h & (m->cap - 1);
}

static int same(const struct st_tmap_ent *e, uint64_t a, uint64_t b,
		uint64_t c)
{
	return e->k[0] == a && e->k[1] == b && e->k[2] == c;
}

uint64_t *st_tmap_get(const struct st_tmap *m, uint64_t a, uint64_t b,
		      uint64_t c)
{
	uint64_t k[3] = { a, b, c };
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = home(m, k); m->e[i].used; i = (i + 1) & (m->cap - 1))
		if (same(&m->e[i], a, b, c))
			return &m->e[i].v;
	return NULL;
}

static int grow(struct st_tmap *m)
{
	struct st_tmap g;
	size_t i, j;

	g.cap = m->cap ? 2 * m->cap : 64;
	g.n = m->n;
	g.e = calloc(g.cap, sizeof(*g.e));
	if (!g.e)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (!m->e[i].used)
			continue;
		for (j = home(&g, m->e[i].k); g.e[j].used;
		     j = (j + 1) & (g.cap - 1))
			;
		g.e[j] = m->e[i];
	}
	free(m->e);
	*m = g;
	return 0;
}

int st_tmap_put(struct st_tmap *m, uint64_t a, uint64_t b, uint64_t c,
		uint64_t v, uint64_t **slot, int *added)
{
	uint64_t k[3] = { a, b, c };
	size_t i;

	if (2 * (m->n + 1) > m->cap && grow(m))
		return -ENOMEM;
	for (i = home(m, k); m->e[i].used; i = (i + 1) & (m->cap - 1)) {
		if (same(&m->e[i], a, b, c)) {
			*slot = &m->e[i].v;
			if (added)
				*added = 0;
			return 0;
		}
	}
	m->e[i].used = 1;
	m->e[i].k[0] = a;
	m->e[i].k[1] = b;
	m->e[i].k[2] = c;
	m->e[i].v = v;
	m->n++;
	*slot = &m->e[i].v;
	if (added)
		*added = 1;
	return 0;
}

int st_tmap_del(struct st_tmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t k[3] = { a, b, c };
	size_t i, j, h, mask = m->cap - 1;

	if (!m->cap)
		return 0;
	for (i = home(m, k); m->e[i].used; i = (i + 1) & mask)
		if (same(&m->e[i], a, b, c))
			break;
	if (!m->e[i].used)
		return 0;
	m->e[i].used = 0;
	m->n--;
	for (j = (i + 1) & mask; m->e[j].used; j = (j + 1) & mask) {
		h = home(m, m->e[j].k);
		/* Leave j where it is if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		m->e[i] = m->e[j];
		m->e[j].used = 0;
		i = j;
	}
	return 1;
}

void st_tmap_release(struct st_tmap *m)
{
	free(m->e);
	m->e = NULL;
	m->cap = m->n = 0;
}
