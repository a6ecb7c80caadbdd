/*
 * tests/unit/sync-skew.c: the SYNCTRACE_CLOCK_SKEW syntax and the
 * distorted clock.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "sync/skew.h"

Test(sync_skew, picks_the_rank_entry_with_units)
{
	struct st_skew k;
	char err[128];

	cr_assert_eq(st_skew_parse("0,+0.5s@+100ppm,-3ms@-40ppm,7us", 1, &k,
				   err, sizeof(err)), 0);
	cr_expect_eq(k.offset_ns, 500000000);
	cr_expect_float_eq(k.drift_ppm, 100.0, 1e-12);
	cr_assert_eq(st_skew_parse("0,+0.5s@+100ppm,-3ms@-40ppm,7us", 2, &k,
				   err, sizeof(err)), 0);
	cr_expect_eq(k.offset_ns, -3000000);
	cr_expect_float_eq(k.drift_ppm, -40.0, 1e-12);
	cr_assert_eq(st_skew_parse("0,+0.5s@+100ppm,-3ms@-40ppm,7us", 3, &k,
				   err, sizeof(err)), 0);
	cr_expect_eq(k.offset_ns, 7000);
	cr_expect_float_eq(k.drift_ppm, 0.0, 1e-12);
	cr_assert_eq(st_skew_parse("0,1ns", 0, &k, err, sizeof(err)), 0);
	cr_expect_eq(k.offset_ns, 0);
}

Test(sync_skew, ranks_beyond_the_list_are_not_distorted)
{
	struct st_skew k = { 5, 5 };
	char err[128];

	cr_assert_eq(st_skew_parse("1s@10ppm", 4, &k, err, sizeof(err)), 0);
	cr_expect_eq(k.offset_ns, 0);
	cr_expect_float_eq(k.drift_ppm, 0.0, 1e-12);
}

Test(sync_skew, rejects_bad_entries_naming_them)
{
	static const char *bad[] = { "", "1", "1x", "1s@", "1s@5", "1s@5ppmx",
				     "0,,1s", "abc", "1s@5ppm@3ppm" };
	struct st_skew k;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = '\0';
		cr_expect_eq(st_skew_parse(bad[i], 0, &k, err, sizeof(err)),
			     -EINVAL, "'%s' accepted", bad[i]);
		cr_expect(strstr(err, "SYNCTRACE_CLOCK_SKEW") != NULL);
	}
}

Test(sync_skew, apply_adds_offset_and_drift_since_base)
{
	struct st_skew k = { -1000000000, 100.0 };
	uint64_t base = 5000000000ull;

	cr_expect_eq(st_skew_apply(&k, base, base), base - 1000000000ull);
	/* 10 s after base, +100 ppm adds 1 ms. */
	cr_expect_eq(st_skew_apply(&k, base, base + 10000000000ull),
		     base + 10000000000ull - 1000000000ull + 1000000ull);
	/* Before base the drift counts backwards. */
	cr_expect_eq(st_skew_apply(&k, base, base - 1000000000ull),
		     base - 1000000000ull - 1000000000ull - 100000ull);
}
