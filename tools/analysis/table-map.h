/*
 * tools/analysis/table-map.h: a hash map from keys of three 64-bit words to one
 * 64-bit value, for the cost tables (tools/table*.c): groups by
 * (operation, p, d), collective instances in flight by (communicator,
 * sequence number), point-to-point channels by (communicator, ranks,
 * tag).  Open addressing with linear probing; deletion shifts later
 * entries back, so there are no tombstones and a map whose entries come
 * and go (instances in flight) stays as small as its peak.
 */
#ifndef ST_TOOLS_ANALYSIS_TABLE_MAP_H
#define ST_TOOLS_ANALYSIS_TABLE_MAP_H

#include <stddef.h>
#include <stdint.h>

struct st_tmap_ent {
	uint64_t k[3];
	uint64_t v;
	int used;
};

/* A map; all zero is an empty map. */
struct st_tmap {
	struct st_tmap_ent *e;
	size_t cap, n;		/* cap is 0 or a power of two */
};

/* The value of key (a, b, c), or NULL when absent. */
uint64_t *st_tmap_get(const struct st_tmap *m, uint64_t a, uint64_t b,
		      uint64_t c);

/*
 * Point '*slot' at the value of key (a, b, c), inserting 'v' when it is
 * absent ('*added' says which; it may be NULL).  The slot is valid until
 * the next st_tmap_put() or st_tmap_del().  Returns 0 or -ENOMEM.
 */
int st_tmap_put(struct st_tmap *m, uint64_t a, uint64_t b, uint64_t c,
		uint64_t v, uint64_t **slot, int *added);

/* Remove key (a, b, c); returns 1 if it was there, else 0. */
int st_tmap_del(struct st_tmap *m, uint64_t a, uint64_t b, uint64_t c);

/* Free the entries; the map is empty again. */
void st_tmap_release(struct st_tmap *m);

#endif
