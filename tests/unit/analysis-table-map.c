/*
 * tests/unit/analysis-table-map.c: the three-word hash map of the cost
 * tables.  Keys that differ in any one word are different keys; values
 * survive growth; deleting keys in any order leaves every other key
 * findable (the backward shift keeps probe runs whole), and a map whose
 * keys come and go does not grow past its peak.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "tools/analysis/table-map.h"

Test(tools_table_map, keys_differ_in_each_word)
{
	struct st_tmap m = { 0 };
	uint64_t *v;
	int added;

	cr_assert_eq(st_tmap_put(&m, 1, 2, 3, 10, &v, &added), 0);
	cr_expect(added);
	cr_assert_eq(st_tmap_put(&m, 1, 2, 4, 20, &v, &added), 0);
	cr_assert_eq(st_tmap_put(&m, 1, 5, 3, 30, &v, &added), 0);
	cr_assert_eq(st_tmap_put(&m, 6, 2, 3, 40, &v, &added), 0);
	cr_assert_eq(st_tmap_put(&m, 1, 2, 3, 99, &v, &added), 0);
	cr_expect(!added, "present: not added");
	cr_expect_eq(*v, 10, "present: the old value is kept");
	*v = 11;
	cr_expect_eq(m.n, 4);
	cr_expect_eq(*st_tmap_get(&m, 1, 2, 3), 11);
	cr_expect_eq(*st_tmap_get(&m, 1, 2, 4), 20);
	cr_expect_eq(*st_tmap_get(&m, 1, 5, 3), 30);
	cr_expect_eq(*st_tmap_get(&m, 6, 2, 3), 40);
	cr_expect_null(st_tmap_get(&m, 3, 2, 1));
	st_tmap_release(&m);
	cr_expect_null(st_tmap_get(&m, 1, 2, 3));
}

Test(tools_table_map, deletion_keeps_the_others_findable)
{
	struct st_tmap m = { 0 };
	uint64_t *v, i, k;

	for (i = 0; i < 5000; i++)
		cr_assert_eq(st_tmap_put(&m, i % 7, i, i * 31, i, &v, NULL), 0);
	cr_assert_eq(m.n, 5000);
	/* Delete every third key, in a scrambled order. */
	for (k = 0; k < 5000; k++) {
		i = (k * 2654435761u) % 5000;
		if (i % 3 == 0)
			cr_expect_eq(st_tmap_del(&m, i % 7, i, i * 31), 1);
	}
	cr_expect_eq(st_tmap_del(&m, 0, 0, 0), 0, "already gone");
	for (i = 0; i < 5000; i++) {
		v = st_tmap_get(&m, i % 7, i, i * 31);
		if (i % 3 == 0) {
			cr_expect_null(v, "key %lu deleted", (unsigned long)i);
		} else {
			cr_assert_not_null(v, "key %lu lost", (unsigned long)i);
			cr_expect_eq(*v, i);
		}
	}
	st_tmap_release(&m);
}

Test(tools_table_map, churn_does_not_grow_the_table)
{
	struct st_tmap m = { 0 };
	uint64_t *v, i;
	size_t cap;

	for (i = 0; i < 20; i++)
		cr_assert_eq(st_tmap_put(&m, 1, i, 0, i, &v, NULL), 0);
	cap = m.cap;
	/* Instances in flight: one in, one out, 100000 times. */
	for (i = 20; i < 100020; i++) {
		cr_assert_eq(st_tmap_put(&m, 1, i, 0, i, &v, NULL), 0);
		cr_assert_eq(st_tmap_del(&m, 1, i - 20, 0), 1);
	}
	cr_expect_eq(m.n, 20);
	cr_expect_eq(m.cap, cap);
	for (i = 100000; i < 100020; i++)
		cr_expect_not_null(st_tmap_get(&m, 1, i, 0));
	st_tmap_release(&m);
}
