/*
 * tools/analysis/u64map.c: see u64map.h.  The hash mixes every bit of the
 * key (the murmur3 finaliser), since keys are often ids with their
 * information in the high bits (communicator ids) or packed fields.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/u64map.h"

static size_t home(const struct st_u64map *m, uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k & (m->cap - 1);
}

/* Index of 'key', or of the free slot where it would go. */
static size_t slot(const struct st_u64map *m, uint64_t key)
{
	size_t i;

	for (i = home(m, key); m->used[i] && m->key[i] != key;
	     i = (i + 1) & (m->cap - 1))
		;
	return i;
}

uint64_t *st_u64map_find(const struct st_u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = slot(m, key);
	return m->used[i] ? &m->val[i] : NULL;
}

static int grow(struct st_u64map *m)
{
	struct st_u64map g = { 0 };
	size_t i, j;

	g.cap = m->cap ? 2 * m->cap : 64;
	g.key = malloc(g.cap * sizeof(*g.key));
	g.val = malloc(g.cap * sizeof(*g.val));
	g.used = calloc(g.cap, 1);
	if (!g.key || !g.val || !g.used) {
		free(g.key);
		free(g.val);
		free(g.used);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		j = slot(&g, m->key[i]);
		g.used[j] = 1;
		g.key[j] = m->key[i];
		g.val[j] = m->val[i];
	}
	g.n = m->n;
	free(m->key);
	free(m->val);
	free(m->used);
	*m = g;
	return 0;
}

uint64_t *st_u64map_put(struct st_u64map *m, uint64_t key, uint64_t val,
			int *added)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap && grow(m))
		return NULL;
	i = slot(m, key);
	if (added)
		*added = !m->used[i];
	if (!m->used[i]) {
		m->used[i] = 1;
		m->key[i] = key;
		m->val[i] = val;
		m->n++;
	}
	return &m->val[i];
}

void st_u64map_del(struct st_u64map *m, uint64_t key)
{
	size_t i, j, h;

	if (!m->cap)
		return;
	i = slot(m, key);
	if (!m->used[i])
		return;
	m->used[i] = 0;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->used[j];
	     j = (j + 1) & (m->cap - 1)) {
		h = home(m, m->key[j]);
		/* Move j into the hole unless its home lies in (i, j]. */
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && h <= i && h > j)) {
			m->used[i] = 1;
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			m->used[j] = 0;
			i = j;
		}
	}
}

void st_u64map_clear(struct st_u64map *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->n = 0;
}

void st_u64map_release(struct st_u64map *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	memset(m, 0, sizeof(*m));
}
