/*
 * tests/unit/analysis-u64map.c: the map from 64-bit keys to values.  It
 * agrees with a plain array through inserts, lookups and removals in a
 * seeded random order, including removals that must shift a cluster
 * back (keys whose homes collide), and clear and release leave an empty
 * map that works again.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "tools/analysis/u64map.h"

#define N 5000

Test(analysis_u64map, agrees_with_an_array)
{
	static uint64_t val[N];
	static unsigned char in[N];
	struct st_u64map m = { 0 };
	unsigned seed = 12345;
	int i, added;

	for (i = 0; i < 40 * N; i++) {
		unsigned k = (unsigned)rand_r(&seed) % N;
		/* Keys differ only in high bits, as communicator ids do. */
		uint64_t key = (uint64_t)(k + 1) << 40;
		uint64_t *v;

		switch (rand_r(&seed) % 3) {
		case 0:
			v = st_u64map_put(&m, key, 7 * k, &added);
			cr_assert_not_null(v);
			cr_assert_eq(added, !in[k]);
			if (!in[k])
				val[k] = 7 * k;
			in[k] = 1;
			cr_assert_eq(*v, val[k]);
			*v = val[k] = (uint64_t)i;
			break;
		case 1:
			v = st_u64map_find(&m, key);
			cr_assert_eq(v != NULL, in[k]);
			if (v)
				cr_assert_eq(*v, val[k]);
			break;
		default:
			st_u64map_del(&m, key);
			in[k] = 0;
			break;
		}
	}
	for (i = 0; i < N; i++) {
		uint64_t *v = st_u64map_find(&m, (uint64_t)(i + 1) << 40);

		cr_assert_eq(v != NULL, in[i]);
		if (v)
			cr_assert_eq(*v, val[i]);
	}
	st_u64map_clear(&m);
	cr_expect_eq(m.n, 0);
	cr_expect_null(st_u64map_find(&m, 1ull << 40));
	cr_assert_not_null(st_u64map_put(&m, 3, 4, NULL));
	cr_expect_eq(*st_u64map_find(&m, 3), 4);
	st_u64map_release(&m);
	cr_expect_null(st_u64map_find(&m, 3));
	st_u64map_del(&m, 3);
}
