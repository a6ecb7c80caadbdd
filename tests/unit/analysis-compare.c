/*
 * tests/unit/analysis-compare.c: comparing two cost tables through
 * their per-launch medians, on synthetic tables: equal tables show no
 * difference, a table shifted by a known factor shows it with the right
 * sign and size, groups are matched by (operation, p, d), the
 * adjustment over groups keeps chance differences out, too few
 * launches say so, and bad input is refused; a table's JSON reads back
 * as the table, a comparison's JSON holds what the text says, and a
 * table without launch medians is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/compare.h"
#include "tools/analysis/table.h"

#define NG 40		/* groups of a synthetic table */
#define NR 10		/* launches of each */

/* A synthetic table: NG groups, NR launches, each launch median drawn
 * around its group's cost with a relative spread 'sd'. */
struct syn {
	struct st_cmp_group g[NG];
	double v[NG][NR];
};

static double unif(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) /
	       9007199254740992.0;
}

static double rnorm(uint64_t *s)
{
	double u1 = unif(s), u2 = unif(s);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static const char *const names[] = { "MPI_Allreduce", "MPI_Bcast",
				     "MPI_Alltoall", "MPI_Sendrecv" };

/* Group i: operation i % 4 at size 8 << (i / 4), cost 1 us + d ns. */
static void make(struct syn *t, uint64_t seed, double sd, double factor,
		 size_t nruns)
{
	uint64_t s = seed;
	size_t i, k;

	for (i = 0; i < NG; i++) {
		double d = (double)(8u << (i / 4)), base = 1000 + d;

		t->g[i].op = names[i % 4];
		t->g[i].p = 2;
		t->g[i].d = d;
		t->g[i].run_ns = t->v[i];
		t->g[i].nruns = nruns;
		for (k = 0; k < nruns; k++)
			t->v[i][k] = base * factor * exp(sd * rnorm(&s));
	}
}

Test(tools_compare, equal_tables_no_difference)
{
	static struct syn a, b;
	struct st_cmp_result r;
	size_t i;

	/* The very same launches: nothing differs, every shift is 0. */
	make(&a, 1, 0.02, 1.0, NR);
	cr_assert_eq(st_compare(a.g, NG, a.g, NG, 0.95, 0.05, &r), 0);
	cr_expect_eq(r.nrows, NG);
	cr_expect_eq(r.n_differs, 0);
	cr_expect_eq(r.n_same, NG);
	cr_expect_eq(r.n_only_a + r.n_only_b, 0);
	for (i = 0; i < r.nrows; i++) {
		cr_expect_eq(r.rows[i].diff, 0.0);
		cr_expect(r.rows[i].lo < 0 && r.rows[i].hi > 0);
		cr_expect_eq(r.rows[i].verdict, ST_CMP_SAME);
		cr_expect_eq(r.rows[i].ia, i);
		cr_expect_eq(r.rows[i].ib, i);
	}
	cr_expect_eq(r.median_abs_diff, 0.0);
	st_cmp_result_release(&r);

	/* Independent draws of the same tables, 2 % launch spread: none
	 * of 40 groups is called different (the adjustment), all are
	 * the same within 5 %. */
	make(&b, 2, 0.02, 1.0, NR);
	cr_assert_eq(st_compare(a.g, NG, b.g, NG, 0.95, 0.05, &r), 0);
	cr_expect_eq(r.n_differs, 0);
	cr_expect(r.n_same >= NG - 2, "%zu of %d the same", r.n_same, NG);
	cr_expect(r.median_abs_diff < 0.02, "median |diff| %g",
		  r.median_abs_diff);
	cr_expect(!r.one_way);
	st_cmp_result_release(&r);
}

/*
 * Half the groups 10 % slower, half 10 % faster: many differ, but not
 * one way, so no whole-machine note; all slower is one way.
 */
Test(tools_compare, one_way_only_when_nearly_all_agree)
{
	static struct syn a, b;
	struct st_cmp_result r;
	size_t i, k;

	make(&a, 5, 0.02, 1.0, NR);
	make(&b, 6, 0.02, 1.0, NR);
	for (i = 0; i < NG; i++)
		for (k = 0; k < NR; k++)
			b.v[i][k] *= i % 2 ? 1.10 : 1 / 1.10;
	cr_assert_eq(st_compare(a.g, NG, b.g, NG, 0.95, 0.05, &r), 0);
	cr_expect(r.n_differs >= NG - 2, "%zu differ", r.n_differs);
	cr_expect(!r.one_way, "median %g", r.median_diff);
	st_cmp_result_release(&r);
}

Test(tools_compare, shifted_table_found_with_sign_and_size)
{
	static struct syn a, b;
	struct st_cmp_result r;
	size_t i;

	make(&a, 3, 0.02, 1.0, NR);
	make(&b, 4, 0.02, 1.10, NR);	/* B 10 % slower */
	cr_assert_eq(st_compare(a.g, NG, b.g, NG, 0.95, 0.05, &r), 0);
	cr_expect_eq(r.n_differs, NG);
	cr_expect_eq(r.n_slower, NG);
	cr_expect_eq(r.n_faster, 0);
	for (i = 0; i < r.nrows; i++) {
		const struct st_cmp_row *w = &r.rows[i];

		cr_expect_eq(w->verdict, ST_CMP_DIFFERS);
		cr_expect(w->diff > 0.06 && w->diff < 0.14, "diff %g",
			  w->diff);
		cr_expect(w->lo > 0 && w->lo < w->diff && w->hi > w->diff,
			  "[%g, %g]", w->lo, w->hi);
		cr_expect(w->q <= 0.05 && w->p <= w->q);
		cr_expect(w->b_ns > w->a_ns);
	}
	cr_expect(fabs(r.median_abs_diff - 0.10) < 0.02, "median %g",
		  r.median_abs_diff);
	/* Every group one way: said, as a whole machine would be. */
	cr_expect(fabs(r.median_diff - 0.10) < 0.02, "median %g",
		  r.median_diff);
	cr_expect(r.one_way);
	st_cmp_result_release(&r);

	/* The other way round: faster, the difference negative, about
	 * 1/1.1 - 1 = -9.1 %. */
	cr_assert_eq(st_compare(b.g, NG, a.g, NG, 0.95, 0.05, &r), 0);
	cr_expect_eq(r.n_faster, NG);
	for (i = 0; i < r.nrows; i++)
		cr_expect(r.rows[i].diff < -0.05 && r.rows[i].hi < 0);
	st_cmp_result_release(&r);
}

/*
 * A 1 % shift under 10 % launch spread is not resolved: no group
 * differs, and none is "the same" within 5 % either: its interval is
 * far wider than that.
 */
Test(tools_compare, wide_spread_unresolved)
{
	static struct syn a, b;
	struct st_cmp_result r;

	make(&a, 5, 0.10, 1.0, NR);
	make(&b, 6, 0.10, 1.01, NR);
	cr_assert_eq(st_compare(a.g, NG, b.g, NG, 0.95, 0.05, &r), 0);
	cr_expect(r.n_differs <= 1);
	cr_expect(r.n_unresolved >= NG - 2, "%zu unresolved",
		  r.n_unresolved);
	st_cmp_result_release(&r);
}

/*
 * Groups are matched by name, p and d; unmatched ones are listed; one
 * launch a side gives a row without a test.
 */
Test(tools_compare, matching_and_too_few)
{
	static const double one[] = { 1000 }, two[] = { 1000, 1010 };
	struct st_cmp_group a[] = {
		{ "MPI_Bcast", 2, 8, two, 2 },
		{ "MPI_Bcast", 4, 8, two, 2 },
		{ "MPI_Allreduce", 2, 8, one, 1 },
		{ "MPI_Gather", 2, 8, two, 2 },
	};
	struct st_cmp_group b[] = {
		{ "MPI_Allreduce", 2, 8 * (1 + 1e-9), two, 2 },
		{ "MPI_Bcast", 2, 8, two, 2 },
		{ "MPI_Bcast", 2, 16, two, 2 },
	};
	struct st_cmp_result r;

	cr_assert_eq(st_compare(a, 4, b, 3, 0.95, 0.05, &r), 0);
	cr_assert_eq(r.nrows, 2);
	/* In a[]'s order. */
	cr_expect(r.rows[0].ia == 0 && r.rows[0].ib == 1);
	cr_expect(r.rows[1].ia == 2 && r.rows[1].ib == 0);
	cr_expect_eq(r.rows[1].verdict, ST_CMP_TOO_FEW);
	cr_expect(isnan(r.rows[1].p) && isnan(r.rows[1].diff));
	cr_expect_float_eq(r.rows[1].a_ns, 1000, 1e-9);
	/* 2 against 2 never shows a difference: unresolved. */
	cr_expect_eq(r.rows[0].verdict, ST_CMP_UNRESOLVED);
	cr_expect_eq(r.n_too_few, 1);
	cr_expect_eq(r.n_unresolved, 1);
	cr_assert_eq(r.n_only_a, 2);
	cr_expect(r.only_a[0] == 1 && r.only_a[1] == 3, "%zu %zu",
		  r.only_a[0], r.only_a[1]);
	cr_assert_eq(r.n_only_b, 1);
	cr_expect_eq(r.only_b[0], 2);
	cr_expect_str_eq(st_cmp_verdict_name(ST_CMP_TOO_FEW),
			 "too few launches");
	st_cmp_result_release(&r);
}

Test(tools_compare, bad_input)
{
	static const double v[] = { 1000, NAN };
	struct st_cmp_group a[] = {
		{ "MPI_Bcast", 2, 8, v, 1 },
		{ "MPI_Bcast", 2, 8, v, 1 },
	};
	struct st_cmp_group b[] = { { "MPI_Bcast", 2, 8, v, 2 } };
	struct st_cmp_group c[] = { { NULL, 2, 8, v, 1 } };
	struct st_cmp_result r;

	/* Twice in one table, a NaN median, no name, bad levels. */
	cr_expect_eq(st_compare(a, 2, a, 1, 0.95, 0.05, &r), -EINVAL);
	cr_expect_eq(st_compare(a, 1, b, 1, 0.95, 0.05, &r), -EINVAL);
	cr_expect_eq(st_compare(c, 1, a, 1, 0.95, 0.05, &r), -EINVAL);
	cr_expect_eq(st_compare(a, 1, a, 1, 1.0, 0.05, &r), -EINVAL);
	cr_expect_eq(st_compare(a, 1, a, 1, 0.95, 0, &r), -EINVAL);
	/* Empty tables compare to nothing. */
	cr_assert_eq(st_compare(NULL, 0, NULL, 0, 0.95, 0.05, &r), 0);
	cr_expect_eq(r.nrows, 0);
	cr_expect(isnan(r.median_abs_diff));
	st_cmp_result_release(&r);
}

/* The JSON of table 't' into '*out', NUL-terminated; free() it. */
static void table_json(const struct st_table *t,
		       const struct st_table_meta *m, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);

	cr_assert(f);
	cr_assert_eq(st_table_write_json(f, t, m), 0);
	cr_assert_eq(fclose(f), 0);
}

/*
 * A table's JSON holds each group's per-run medians, and reads back
 * into the same side as the table itself gives; a comparison written
 * as JSON parses and holds the counts and one object per group; a
 * table without per-run medians, or not a table, is refused.
 */
Test(tools_compare, json_round_trip)
{
	struct st_cmp_table from_t, from_j;
	struct st_cmp_result r;
	struct st_table_meta m;
	struct st_table *t;
	json_error_t je;
	json_t *doc, *g;
	char *text = NULL, *out = NULL, err[256];
	size_t len = 0, i, k;
	uint32_t run;
	FILE *f;
	int j;

	st_table_meta_init(&m);
	cr_assert_eq(st_table_new(&t, NULL), 0);
	for (run = 0; run < 5; run++)
		for (j = 0; j < 7; j++) {
			cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
				ST_FN_MPI_BCAST, 0, 2, 8, run,
				1000 + 10 * run + j, 0, 0, 0), 0);
			cr_assert_eq(st_table_add(t, ST_TABLE_P2P,
				ST_FN_MPI_SEND, ST_FN_MPI_RECV, 2, 64, run,
				500 + run + j, 0, 0, 0), 0);
		}
	cr_assert_eq(st_table_finish(t), 0);
	cr_assert_eq(st_cmp_table_from(&from_t, t, &m, "dir"), 0);
	table_json(t, &m, &text);
	cr_expect(strstr(text, "\"run_medians_ns\": [1003, 1013, 1023, "
			 "1033, 1043]"), "%s", text);
	cr_expect(strstr(text, "\"run_ids\": [0, 1, 2, 3, 4]"), "%s", text);
	cr_assert_eq(st_cmp_table_parse(&from_j, text, strlen(text),
					"t.json", err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(from_j.ngroups, 2);
	cr_assert_eq(from_t.ngroups, 2);
	for (i = 0; i < 2; i++) {
		cr_expect_str_eq(from_j.groups[i].op, from_t.groups[i].op);
		cr_expect_eq(from_j.groups[i].p, from_t.groups[i].p);
		cr_expect_eq(from_j.groups[i].d, from_t.groups[i].d);
		cr_assert_eq(from_j.groups[i].nruns, 5);
		for (k = 0; k < 5; k++)
			cr_expect_float_eq(from_j.groups[i].run_ns[k],
					   from_t.groups[i].run_ns[k], 1e-6);
	}
	cr_expect_str_eq(from_j.name, "t.json");

	cr_assert_eq(st_compare(from_t.groups, 2, from_j.groups, 2, 0.95,
				0.05, &r), 0);
	f = open_memstream(&out, &len);
	cr_assert(f);
	cr_assert_eq(st_cmp_write_json(f, &from_t, &from_j, &r), 0);
	cr_assert_eq(fclose(f), 0);
	doc = json_loads(out, 0, &je);
	cr_assert(doc, "%s: %s", je.text, out);
	cr_expect_str_eq(json_string_value(json_object_get(doc, "format")),
			 "synctrace-compare");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(doc,
		"summary"), "same")), 2, "%s", out);
	g = json_array_get(json_object_get(doc, "groups"), 0);
	cr_assert(g);
	cr_expect_str_eq(json_string_value(json_object_get(g, "verdict")),
			 "same");
	cr_expect(json_is_null(json_object_get(g, "direction")));
	cr_expect_eq(json_integer_value(json_object_get(g, "a_runs")), 5);
	cr_expect(json_is_number(json_object_get(g, "diff_lo")));
	json_decref(doc);
	free(out);
	st_cmp_result_release(&r);
	st_cmp_table_release(&from_j);

	/* An older table: no run_medians_ns (renamed run_medians_xx). */
	for (out = text; (out = strstr(out, "run_medians_ns")); out += 14)
		out[12] = out[13] = 'x';
	cr_expect_eq(st_cmp_table_parse(&from_j, text, strlen(text), "old",
					err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "'old': groups without run_medians_ns"), "%s",
		  err);
	cr_expect_eq(st_cmp_table_parse(&from_j, "{\"format\": 1}", 13, "x",
					err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "not a synctrace cost table"), "%s", err);
	cr_expect_eq(st_cmp_table_parse(&from_j, "{", 1, "y", err,
					sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "'y': not JSON"), "%s", err);
	free(text);
	st_cmp_table_release(&from_t);
	st_table_free(t);
	st_table_meta_release(&m);
}
