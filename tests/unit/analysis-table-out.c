/*
 * tests/unit/analysis-table-out.c: a cost table written as text, CSV, JSON
 * and HTML.  The JSON parses back (a small strict parser here checks the
 * grammar of RFC 8259) and holds the metadata and models a prediction
 * needs, with Q null, never 1, for a fit without per-point errors; every
 * CSV row has as many fields as its header; the HTML page has exactly
 * one SVG plot per operation; the text says "p not identified" where one
 * process count was seen, states units and counts, and keeps to 100
 * columns in its tables.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/table.h"

/* --- A strict JSON checker ------------------------------------------- */

struct jp {
	const char *s;
	int depth;
};

static void ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' ||
	       *p->s == '\r')
		p->s++;
}

static int value(struct jp *p);

static int string(struct jp *p)
{
	if (*p->s != '"')
		return 0;
	for (p->s++; *p->s != '"'; p->s++) {
		if ((unsigned char)*p->s < 0x20)
			return 0;
		if (*p->s == '\\') {
			p->s++;
			if (*p->s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p->s[i]))
						return 0;
				p->s += 4;
			} else if (!strchr("\"\\/bfnrt", *p->s) || !*p->s) {
				return 0;
			}
		}
	}
	p->s++;
	return 1;
}

static int number(struct jp *p)
{
	const char *s = p->s;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else
		return 0;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	p->s = s;
	return 1;
}

static int members(struct jp *p, char close, int object)
{
	ws(p);
	if (*p->s == close) {
		p->s++;
		return 1;
	}
	for (;;) {
		ws(p);
		if (object) {
			if (!string(p))
				return 0;
			ws(p);
			if (*p->s++ != ':')
				return 0;
		}
		if (!value(p))
			return 0;
		ws(p);
		if (*p->s == close) {
			p->s++;
			return 1;
		}
		if (*p->s++ != ',')
			return 0;
	}
}

static int value(struct jp *p)
{
	int ok;

	ws(p);
	if (++p->depth > 64)
		return 0;
	if (*p->s == '{') {
		p->s++;
		ok = members(p, '}', 1);
	} else if (*p->s == '[') {
		p->s++;
		ok = members(p, ']', 0);
	} else if (*p->s == '"') {
		ok = string(p);
	} else if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4)) {
		p->s += 4;
		ok = 1;
	} else if (!strncmp(p->s, "false", 5)) {
		p->s += 5;
		ok = 1;
	} else {
		ok = number(p);
	}
	p->depth--;
	return ok;
}

/* Whether 's' is one JSON value and nothing else. */
static int json_valid(const char *s)
{
	struct jp p = { s, 0 };

	if (!value(&p))
		return 0;
	ws(&p);
	return !*p.s;
}

Test(tools_table_out, the_json_checker_rejects_broken_json)
{
	cr_expect(json_valid("{\"a\": [1, -2.5e3, true, null, \"x\\n\"]}"));
	cr_expect(!json_valid("{\"a\": nan}"));
	cr_expect(!json_valid("{\"a\": 1,}"));
	cr_expect(!json_valid("{\"a\": \"tab\there\"}"));
	cr_expect(!json_valid("[1] 2"));
}

/* --- A table to write ------------------------------------------------- */

static void fill(struct st_table *t)
{
	static const double ds[] = { 8, 64, 512, 4096 };
	size_t i;
	int p, k;

	/* Allreduce at p = 2 and 4: 500 ns + 100 ns log2 p + 0.2 ns/B d. */
	for (p = 2; p <= 4; p += 2)
		for (i = 0; i < 4; i++)
			for (k = -4; k <= 4; k++)
				cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
					ST_FN_MPI_ALLREDUCE, 0, p, ds[i], 0,
					500 + 100 * log2(p) + 0.2 * ds[i] + k,
					50, 900, 0), 0);
	/* Barrier: one group at p = 2. */
	for (k = 0; k < 10; k++)
		cr_assert_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER,
					  0, 2, 0, 0, 800 + k, 5, 1700, 0), 0);
	/* Send->Recv: 3 sizes, 2 samples each: no CI, an unweighted fit. */
	for (i = 0; i < 3; i++)
		for (k = 0; k < 2; k++)
			cr_assert_eq(st_table_add(t, ST_TABLE_P2P,
				ST_FN_MPI_SEND, ST_FN_MPI_RECV, 2, ds[i], 0,
				300 + ds[i] + k, 0, 400, 0), 0);
	cr_assert_eq(st_table_finish(t), 0);
}

static void fill_meta(struct st_table_meta *m)
{
	st_table_meta_init(m);
	m->runs = calloc(1, sizeof(*m->runs));
	cr_assert(m->runs);
	m->nruns = 1;
	m->runs[0].dir = strdup("run \"one\"");
	m->runs[0].nranks = 4;
	m->runs[0].nread = 4;
	m->runs[0].nsynced = 4;
	m->runs[0].complete = 1;
	m->runs[0].cmdline = strdup("./app\tx");
	m->runs[0].start_unix = 1700000000;
	m->hosts = calloc(1, sizeof(*m->hosts));
	m->hosts[0] = strdup("nodeA");
	m->nhosts = 1;
	m->mpi_library = strdup("MPICH Version:\t4.0.2");
	m->clock = strdup("tsc (2.3 GHz)");
	m->clock_res_ns = 0.5;
	m->sync_method = 0;
	m->p2p_nonblocking = 3;
}

/* What 'write' wrote, NUL-terminated; free() it. */
static char *written(int (*write)(FILE *, const struct st_table *,
				  const struct st_table_meta *),
		     const struct st_table *t, const struct st_table_meta *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	cr_assert_eq(write(f, t, m), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static struct st_table *table;
static struct st_table_meta meta;

static void setup(void)
{
	cr_assert_eq(st_table_new(&table, NULL), 0);
	fill(table);
	fill_meta(&meta);
}

static void teardown(void)
{
	st_table_free(table);
	st_table_meta_release(&meta);
}

TestSuite(tools_table_out, .init = setup, .fini = teardown);

Test(tools_table_out, json_parses_and_holds_models_and_metadata)
{
	char *s = written(st_table_write_json, table, &meta);
	const char *p2p;

	cr_assert(json_valid(s), "invalid JSON:\n%s", s);
	cr_expect_eq(count(s, "\"op\": "), 3);
	cr_expect(strstr(s, "\"mpi_library\": \"MPICH Version:\\t4.0.2\""));
	cr_expect(strstr(s, "\"hosts\": [\"nodeA\"]"));
	cr_expect(strstr(s, "\"clock\": \"tsc (2.3 GHz)\""));
	cr_expect(strstr(s, "\"sync_method\": \"hca\""));
	cr_expect(strstr(s, "\"process_counts\": [2, 4]"));
	cr_expect(strstr(s, "\"size_range_bytes\": [0, 4096]"));
	cr_expect(strstr(s, "\"dir\": \"run \\\"one\\\"\""));
	cr_expect(strstr(s, "\"date\": \"2023-11-14 22:13:20 UTC\""));
	cr_expect(strstr(s, "\"p2p_nonblocking\": 3"));
	/* Allreduce has a p term; the point-to-point fit has no Q. */
	cr_expect(strstr(s, "\"fn\": \"log2(p)\""));
	p2p = strstr(s, "\"op\": \"MPI_Send->MPI_Recv\"");
	cr_assert(p2p);
	cr_expect(strstr(p2p, "\"q\": null"), "no per-point errors: no Q");
	cr_expect(strstr(p2p, "\"q_text\": \"n/a\""));
	cr_expect(!strstr(p2p, "\"q\": 1"), "never a made-up Q of 1");
	cr_expect(strstr(s, "\"model\": null"));
	cr_expect(strstr(s, "\"no_model\": \"one group\""));
	cr_expect_eq(count(s, "\"median_ns\": "), 8 + 1 + 3);
	/* Each group's first sample is its run's first call. */
	cr_expect_eq(count(s, "\"first_runs\": 1"), 8 + 1 + 3);
	cr_expect(strstr(s, "\"first_call\": \"a group's first_ns"));
	free(s);
}

/* Fields of one CSV line (RFC 4180 quotes). */
static int csv_fields(const char *line, size_t len)
{
	int n = 1, quoted = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (line[i] == '"')
			quoted = !quoted;
		else if (line[i] == ',' && !quoted)
			n++;
	}
	return n;
}

static void expect_rectangular(const char *s, int rows)
{
	const char *nl;
	int want = -1, n = 0;

	for (; *s; s = nl + 1) {
		int k;

		nl = strchr(s, '\n');
		cr_assert(nl, "last line not terminated");
		k = csv_fields(s, (size_t)(nl - s));
		if (want < 0)
			want = k;
		cr_expect_eq(k, want, "line %d has %d fields, header %d", n,
			     k, want);
		n++;
	}
	cr_expect_eq(n, rows + 1);
}

Test(tools_table_out, csv_rows_match_their_headers)
{
	char *ops = NULL, *groups = NULL;
	size_t lo = 0, lg = 0;
	FILE *fo = open_memstream(&ops, &lo), *fg = open_memstream(&groups,
								   &lg);

	cr_assert_eq(st_table_write_csv(fo, fg, table, &meta), 0);
	fclose(fo);
	fclose(fg);
	/* One row per operation (each fit here has one piece). */
	expect_rectangular(ops, 3);
	expect_rectangular(groups, 12);
	cr_expect(strstr(ops, "\nMPI_Barrier,collective,0,0,"));
	cr_expect(strstr(ops, ",n/a,"), "Q n/a for the unweighted fit");
	cr_expect(strstr(groups, "\nMPI_Allreduce,collective,4,4096,9,9,0,"));
	free(ops);
	free(groups);
}

Test(tools_table_out, html_has_one_plot_per_operation)
{
	char *s = written(st_table_write_html, table, &meta);

	cr_expect_eq(count(s, "<svg"), 3);
	cr_expect_eq(count(s, "</svg>"), 3);
	cr_expect(strstr(s, "<!DOCTYPE html>") == s);
	cr_expect(strstr(s, "</html>\n"));
	cr_expect(!strstr(s, "<script"), "no script");
	/* Axes with units, a legend per process count, the fit drawn. */
	cr_expect(strstr(s, "1 us</text>"));
	cr_expect(strstr(s, "4 KiB</text>"));
	cr_expect(strstr(s, "0 B</text>"));
	cr_expect(strstr(s, "p=4: median, 95% CI"));
	cr_expect(strstr(s, "p=4: fitted formula"));
	cr_expect(strstr(s, "<polyline"));
	cr_expect(strstr(s, "no CI (n &lt; 6)"), "hollow points explained");
	cr_expect(strstr(s, "run &quot;one&quot;"), "text is escaped");
	free(s);
}

Test(tools_table_out, text_states_units_counts_and_identifiability)
{
	char *s = written(st_table_write_text, table, &meta);
	const char *line, *nl;

	cr_expect(strstr(s, "MPI_Allreduce "));
	cr_expect(strstr(s, "log2(p)"), "%s", s);
	cr_expect(strstr(s, "MPI_Barrier        810 ns") ||
		  strstr(s, "MPI_Barrier        804 ns"), "%s", s);
	cr_expect(strstr(s, "one group: its median, no fit"));
	cr_expect(strstr(s, "point-to-point: no p term"));
	cr_expect(strstr(s, "MPI_Send->MPI_Recv"));
	cr_expect(strstr(s, "n=72"), "Allreduce's sample count");
	cr_expect(strstr(s, "dropped by the fences"));
	cr_expect(strstr(s, "n=3 point-to-point transfers with a nonblocking"
			    " side"));
	cr_expect(strstr(s, "MPICH Version: 4.0.2"), "tab flattened");
	cr_expect(strstr(s, "\nFirst calls: the cost of each group's first"));
	for (line = s; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		cr_assert(nl);
		cr_expect_leq(nl - line, 100, "line too long: %.*s",
			      (int)(nl - line), line);
	}
	free(s);
}

Test(tools_table_out, one_process_count_is_not_identified)
{
	struct st_table *t;
	char *s;
	int i, k;

	cr_assert_eq(st_table_new(&t, NULL), 0);
	for (i = 1; i <= 4; i++)
		for (k = 0; k < 8; k++)
			cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
				ST_FN_MPI_BCAST, 0, 2, 100.0 * i, 0,
				1000 + 2 * 100.0 * i + k, 0, 0, 0), 0);
	cr_assert_eq(st_table_finish(t), 0);
	s = written(st_table_write_text, t, &meta);
	cr_expect(strstr(s, "p not identified (only p=2)"), "%s", s);
	cr_expect(!strstr(s, "log2(p)"), "no invented p term");
	free(s);
	s = written(st_table_write_json, t, &meta);
	cr_expect(json_valid(s));
	cr_expect(strstr(s, "\"p_identified\": false"));
	free(s);
	st_table_free(t);
}

/*
 * The colour of "p=N" in every legend of 's' into 'out' (at most 'max');
 * returns how many legends name p=N.
 */
static int legend_colours(const char *s, int p, char (*out)[8], int max)
{
	char want[32];
	const char *at = s;
	int n = 0;

	snprintf(want, sizeof(want), ">p=%d: median", p);
	while ((at = strstr(at, want)) && n < max) {
		const char *fill = at;

		while (fill > s && strncmp(fill, "fill=\"#", 7))
			fill--;
		memcpy(out[n], fill + 6, 7);
		out[n++][7] = '\0';
		at += strlen(want);
	}
	return n;
}

Test(tools_table_out, html_gives_a_process_count_one_colour)
{
	static const double ds[] = { 8, 64, 512 };
	struct st_table *t;
	char c2[4][8], c4[4][8];
	char *s;
	size_t i;
	int p, k, n2, n4;

	/* Allreduce at p = 2 and 4, Bcast at p = 4 only. */
	cr_assert_eq(st_table_new(&t, NULL), 0);
	for (p = 2; p <= 4; p += 2)
		for (i = 0; i < 3; i++)
			for (k = 0; k < 8; k++) {
				cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
					ST_FN_MPI_ALLREDUCE, 0, p, ds[i], 0,
					500 + p + ds[i] + k, 10, 900, 0), 0);
				if (p == 4)
					cr_assert_eq(st_table_add(t,
						ST_TABLE_COLL, ST_FN_MPI_BCAST,
						0, p, ds[i], 0, 400 + ds[i] + k,
						10, 900, 0), 0);
			}
	cr_assert_eq(st_table_finish(t), 0);
	s = written(st_table_write_html, t, &meta);
	n2 = legend_colours(s, 2, c2, 4);
	n4 = legend_colours(s, 4, c4, 4);
	cr_assert_eq(n2, 1);
	cr_assert_eq(n4, 2);
	cr_expect_str_eq(c4[0], c4[1], "p=4 is %s in one plot, %s in another",
			 c4[0], c4[1]);
	cr_expect_str_neq(c2[0], c4[0]);
	free(s);
	st_table_free(t);
}

/*
 * A table of 6 launches: the text gives each group's launch-to-launch
 * sd, marks the group whose launches disagree too much to resolve 5 %
 * with '?', explains the mark, and sums up in "Launches:"; the groups'
 * CSV ends with the sd and the resolvable difference.  With 3 launches
 * it says they are too few for any comparison.
 */
Test(tools_table_out, launches_agree_or_are_marked)
{
	struct st_table *t;
	struct st_table_meta m;
	char *s, *groups = NULL;
	size_t lg = 0;
	FILE *fg;
	uint32_t run;
	int k;

	fill_meta(&m);
	cr_assert_eq(st_table_new(&t, NULL), 0);
	for (run = 0; run < 6; run++)
		for (k = 0; k < 9; k++) {
			/* Bcast: launches within 0.5 %; Scan: 20 % apart. */
			cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
				ST_FN_MPI_BCAST, 0, 2, 8, run,
				1000 + run + k, 0, 0, 0), 0);
			cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
				ST_FN_MPI_SCAN, 0, 2, 8, run,
				(2000 + k) * (run % 2 ? 1.2 : 1), 0, 0, 0), 0);
		}
	cr_assert_eq(st_table_finish(t), 0);
	s = written(st_table_write_text, t, &m);
	cr_expect(strstr(s, "sd: launch-to-launch spread"), "%s", s);
	cr_expect(strstr(s, "with 2 or more runs, widened to hold their "
			 "spread"), "%s", s);
	cr_expect_eq(count(s, "%?\n"), 1, "only Scan is marked:\n%s", s);
	cr_expect(strstr(s, "\n?: the launches disagree too much to resolve "
			 "a difference of 5% between two\n"), "%s", s);
	cr_expect(strstr(s, "\nLaunches:  up to 6 runs (launches) per group; "
			 "over the 2 groups with 2 or more,"), "%s", s);
	cr_expect(strstr(s, "cannot resolve 5% (marked ?)"), "%s", s);
	free(s);
	fg = open_memstream(&groups, &lg);
	cr_assert_eq(st_table_write_csv(NULL, fg, t, &m), 0);
	fclose(fg);
	expect_rectangular(groups, 2);
	cr_expect(strstr(groups, ",run_sd_pct,resolvable_pct,ci_launches\n"),
		  "%s", groups);
	/* Six launches each: both groups' intervals hold their spread. */
	cr_expect_eq(count(groups, ",1\n"), 2, "%s", groups);
	free(groups);
	st_table_free(t);

	cr_assert_eq(st_table_new(&t, NULL), 0);
	for (run = 0; run < 3; run++)
		for (k = 0; k < 9; k++)
			cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
				ST_FN_MPI_BCAST, 0, 2, 8, run, 1000 + k, 0, 0,
				0), 0);
	cr_assert_eq(st_table_finish(t), 0);
	s = written(st_table_write_text, t, &m);
	cr_expect(strstr(s, "needs 4 runs a side)"), "%s", s);
	free(s);
	fg = open_memstream(&groups, &lg);
	cr_assert_eq(st_table_write_csv(NULL, fg, t, &m), 0);
	fclose(fg);
	cr_expect_eq(count(groups, ",1\n"), 1, "%s", groups);
	free(groups);
	st_table_free(t);

	/* One launch: the interval cannot know the launches' spread. */
	cr_assert_eq(st_table_new(&t, NULL), 0);
	for (k = 0; k < 9; k++)
		cr_assert_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BCAST,
					  0, 2, 8, 0, 1000 + k, 0, 0, 0), 0);
	cr_assert_eq(st_table_finish(t), 0);
	fg = open_memstream(&groups, &lg);
	cr_assert_eq(st_table_write_csv(NULL, fg, t, &m), 0);
	fclose(fg);
	cr_expect_eq(count(groups, ",0\n"), 1, "%s", groups);
	cr_expect_eq(count(groups, ",1\n"), 0, "%s", groups);
	free(groups);
	st_table_free(t);
	st_table_meta_release(&m);
}

/*
 * A group past options.exact_max samples says its figures come from the
 * summary: '~' and a note in the text, "summary_resolution" in its JSON
 * group, a summary_resolution CSV column; a table without one says
 * none of it.
 */
Test(tools_table_out, summarised_groups_are_marked_only_then)
{
	struct st_table_options o;
	int cap;

	for (cap = 0; cap < 2; cap++) {
		struct st_table *t;
		char *s, *groups = NULL;
		size_t lg = 0;
		FILE *fg;
		int k;

		st_table_options_init(&o);
		if (cap)
			o.exact_max = 100;
		cr_assert_eq(st_table_new(&t, &o), 0);
		for (k = 0; k < 300; k++) {
			cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
				ST_FN_MPI_BCAST, 0, 2, 64, 0,
				1000 + (k * 37) % 101, 0, 0, 1), 0);
			/* A small group stays exact in either table. */
			if (k < 50)
				cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
					ST_FN_MPI_BCAST, 0, 2, 128, 0,
					2000 + k, 0, 0, 1), 0);
		}
		cr_assert_eq(st_table_finish(t), 0);
		s = written(st_table_write_text, t, &meta);
		cr_expect_eq(strstr(s, "\n~: more than 100 samples") != NULL,
			     cap, "%s", s);
		cr_expect_eq(count(s, "~\n"), cap, "%s", s);
		free(s);
		s = written(st_table_write_json, t, &meta);
		cr_expect(json_valid(s));
		cr_expect_eq(count(s, "\"summary_resolution\": 0.0009765625"),
			     cap, "%s", s);
		free(s);
		fg = open_memstream(&groups, &lg);
		cr_assert_eq(st_table_write_csv(NULL, fg, t, &meta), 0);
		cr_assert_eq(fclose(fg), 0);
		cr_expect_eq(count(groups, ",summary_resolution\n"), cap);
		cr_expect_eq(count(groups, ",0.0009765625\n"), cap, "%s",
			     groups);
		free(groups);
		st_table_free(t);
	}
}
