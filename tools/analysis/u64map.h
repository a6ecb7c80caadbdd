/*
 * tools/analysis/u64map.h: a map from 64-bit keys to 64-bit values, open
 * addressing with linear probing and no tombstones (a removal shifts the
 * later entries of its cluster back), for the tables the analysis keeps
 * per communicator, request or message.  A caller-owned value type:
 * zero-initialised it is an empty map.
 */
#ifndef ST_TOOLS_ANALYSIS_U64MAP_H
#define ST_TOOLS_ANALYSIS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct st_u64map {
	uint64_t *key, *val;
	unsigned char *used;
	size_t cap, n;		/* cap is 0 or a power of two */
};

/* The value of 'key', or NULL; valid until the next insertion. */
uint64_t *st_u64map_find(const struct st_u64map *m, uint64_t key);

/*
 * The value of 'key', inserted as 'val' when absent ('*added', if not
 * NULL, says which); valid until the next insertion.  NULL when out of
 * memory.
 */
uint64_t *st_u64map_put(struct st_u64map *m, uint64_t key, uint64_t val,
			int *added);

/* Remove 'key' if present. */
void st_u64map_del(struct st_u64map *m, uint64_t key);

/* Remove every entry, keeping the memory. */
void st_u64map_clear(struct st_u64map *m);

/* Free the memory; 'm' is then an empty map again. */
void st_u64map_release(struct st_u64map *m);

#endif
