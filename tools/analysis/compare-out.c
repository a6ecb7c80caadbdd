/*
 * tools/analysis/compare-out.c: the two sides of a comparison taken
 * from cost tables, and the comparison written as text (see
 * tools/analysis/compare.h).  A side keeps copies of its groups' names
 * and per-launch medians, so that the table it came from can go.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/analysis/compare.h"
#include "tools/analysis/format.h"
#include "tools/analysis/table.h"

#define OP_LEN 96		/* as st_table_op.name */
#define WIDTH 100

static char *dup_or_null(const char *s, int *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	*fail |= !d;
	return d;
}

int st_cmp_table_from(struct st_cmp_table *out, const struct st_table *t,
		      const struct st_table_meta *m, const char *name)
{
	size_t i, ng = st_table_ngroups(t), nv = 0, k;
	long long first = -1;
	int fail = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < ng; i++)
		nv += st_table_group(t, i)->nruns;
	out->groups = calloc(ng + 1, sizeof(*out->groups));
	out->ops = malloc((ng + 1) * OP_LEN);
	out->run_ns = malloc((nv + 1) * sizeof(*out->run_ns));
	out->name = dup_or_null(name, &fail);
	out->mpi_library = dup_or_null(m->mpi_library, &fail);
	if (fail || !out->groups || !out->ops || !out->run_ns) {
		st_cmp_table_release(out);
		return -ENOMEM;
	}
	for (i = 0; i < m->nruns; i++)
		if (m->runs[i].start_unix >= 0 &&
		    (first < 0 || m->runs[i].start_unix < first))
			first = m->runs[i].start_unix;
	if (first >= 0) {
		time_t tt = (time_t)first;
		struct tm tm;
		char buf[64];

		if (gmtime_r(&tt, &tm) &&
		    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", &tm))
			out->date = dup_or_null(buf, &fail);
	}
	out->nruns = m->nruns;
	nv = 0;
	for (i = 0; i < ng; i++) {
		const struct st_table_group *g = st_table_group(t, i);
		struct st_cmp_group *c = &out->groups[i];
		char *op = out->ops + i * OP_LEN;

		snprintf(op, OP_LEN, "%s", st_table_op(t, g->op)->name);
		c->op = op;
		c->p = g->p;
		c->d = g->d;
		c->run_ns = out->run_ns + nv;
		c->nruns = g->nruns;
		for (k = 0; k < g->nruns; k++)
			out->run_ns[nv++] = g->run_med[k];
	}
	out->ngroups = ng;
	if (fail) {
		st_cmp_table_release(out);
		return -ENOMEM;
	}
	return 0;
}

void st_cmp_table_release(struct st_cmp_table *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->mpi_library);
	free(t->date);
	free(t->groups);
	free(t->ops);
	free(t->run_ns);
	memset(t, 0, sizeof(*t));
}

/* 'text' wrapped at WIDTH, the first line after 'label' (11 columns). */
static void wrapped(FILE *f, const char *label, const char *text)
{
	const char *s = text;
	size_t avail = WIDTH - 11;
	int first = 1;

	while (*s) {
		size_t n = strlen(s), cut = n;

		if (n > avail) {
			for (cut = avail; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				cut = avail;
		}
		fprintf(f, "%-11s%.*s\n", first ? label : "", (int)cut, s);
		first = 0;
		s += cut;
		while (*s == ' ')
			s++;
	}
}

static char *fmt_size(double d, char *buf, size_t len)
{
	if (d == floor(d) && d >= 0 && d < 1e18)
		return st_fmt_bytes((uint64_t)d, buf, len);
	snprintf(buf, len, "%.1f B", d);
	return buf;
}

/* "+2.1%", "-" for NaN; no "-0.0%" for what rounds to 0. */
static char *fmt_rel(double v, char *buf, size_t len)
{
	double pct = round(1000 * v) / 10;

	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", pct == 0 ? 0.0 : pct);
	return buf;
}

static char *fmt_q(double q, char *buf, size_t len)
{
	if (isnan(q))
		snprintf(buf, len, "-");
	else if (q < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", q);
	return buf;
}

static const char *verdict_text(const struct st_cmp_row *w)
{
	if (w->verdict == ST_CMP_DIFFERS)
		return w->diff > 0 ? "B slower" : "B faster";
	if (w->verdict == ST_CMP_TOO_FEW)
		return "too few";
	return st_cmp_verdict_name(w->verdict);
}

/* Text from a trace: tabs and newlines as spaces, the rest escaped. */
static char *flat(const char *s, char *buf, size_t len)
{
	char raw[512];
	size_t i, n;

	snprintf(raw, sizeof(raw), "%s", s);
	n = strlen(raw);
	for (i = 0; i < n; i++)
		if (raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r')
			raw[i] = ' ';
	return st_fmt_text(raw, n, buf, len);
}

static void describe(FILE *f, const char *label,
		     const struct st_cmp_table *t)
{
	char buf[1024], name[512], lib[256];

	snprintf(buf, sizeof(buf), "%s: %zu run%s, %s, %s",
		 flat(t->name ? t->name : "?", name, sizeof(name)),
		 t->nruns, t->nruns == 1 ? "" : "s",
		 flat(t->mpi_library ? t->mpi_library : "MPI library unknown",
		      lib, sizeof(lib)),
		 t->date ? t->date : "date unknown");
	wrapped(f, label, buf);
}

/* Up to 'max' of the groups 'idx' of 't', "MPI_Scan p=2 8 B, ...". */
static void list_groups(FILE *f, const char *label,
			const struct st_cmp_table *t, const size_t *idx,
			size_t n)
{
	char buf[2048], d[32];
	size_t i, len = 0;

	if (!n)
		return;
	len = (size_t)snprintf(buf, sizeof(buf), "%zu group%s:", n,
			       n == 1 ? "" : "s");
	for (i = 0; i < n && i < 12 && len < sizeof(buf); i++) {
		const struct st_cmp_group *g = &t->groups[idx[i]];

		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s %s p=%ld %s", i ? "," : "", g->op,
					g->p, fmt_size(g->d, d, sizeof(d)));
	}
	if (i < n && len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, " and %zu more", n - i);
	wrapped(f, label, buf);
}

int st_cmp_write_text(FILE *f, const struct st_cmp_table *a,
		      const struct st_cmp_table *b,
		      const struct st_cmp_result *r)
{
	char buf[2048], ma[32], mb[32], d[32], df[32], lo[32], hi[32], q[32];
	char ci[80], md[32];
	size_t i;
	int w = 8;

	fprintf(f, "synctrace table --compare: does B cost what A costs?\n\n");
	describe(f, "A:", a);
	describe(f, "B:", b);
	snprintf(buf, sizeof(buf), "per group (operation, p, d), the "
		 "per-launch medians of A against B's: the launch is the "
		 "unit of replication (the samples of one launch do not "
		 "show how the next one differs). Wilcoxon rank-sum test on "
		 "their logarithms; B/A - 1 is the Hodges-Lehmann estimate "
		 "(the median of the ratios of B's launches to A's, less 1) "
		 "with its %g%% interval (Moses); q is the p-value adjusted "
		 "over the %zu groups compared (Benjamini-Hochberg, so that "
		 "about %g%% of the differences called are chance at most). "
		 "B slower or faster: q <= %g; same: not so, and the "
		 "interval lies within +-%g%%; unresolved: neither (more "
		 "launches, or less spread, would tell); too few: under 2 "
		 "launches on a side", 100 * r->level, r->nrows,
		 100 * (1 - r->level), 1 - r->level, 100 * r->resolve);
	wrapped(f, "test:", buf);
	fprintf(f, "\n");
	for (i = 0; i < r->nrows; i++)
		if ((int)strlen(a->groups[r->rows[i].ia].op) > w)
			w = (int)strlen(a->groups[r->rows[i].ia].op);
	if (r->nrows)
		fprintf(f, "%-*s %3s %8s %8s %8s %7s  %-16s %6s  %s\n", w,
			"function", "p", "d", "A median", "B median",
			"B/A - 1", "CI", "q", "verdict");
	for (i = 0; i < r->nrows; i++) {
		const struct st_cmp_row *row = &r->rows[i];
		const struct st_cmp_group *g = &a->groups[row->ia];

		if (isnan(row->lo))
			snprintf(ci, sizeof(ci), "-");
		else
			snprintf(ci, sizeof(ci), "[%s, %s]",
				 fmt_rel(row->lo, lo, sizeof(lo)),
				 fmt_rel(row->hi, hi, sizeof(hi)));
		fprintf(f, "%-*s %3ld %8s %8s %8s %7s  %-16s %6s  %s\n", w,
			g->op, g->p, fmt_size(g->d, d, sizeof(d)),
			isnan(row->a_ns) ? "-" :
			st_fmt_ns(row->a_ns, ma, sizeof(ma)),
			isnan(row->b_ns) ? "-" :
			st_fmt_ns(row->b_ns, mb, sizeof(mb)),
			fmt_rel(row->diff, df, sizeof(df)), ci,
			fmt_q(row->q, q, sizeof(q)), verdict_text(row));
	}
	fprintf(f, "\n");
	if (r->n_diff)
		snprintf(md, sizeof(md), "%.1f%%", 100 * r->median_abs_diff);
	else
		snprintf(md, sizeof(md), "-");
	snprintf(buf, sizeof(buf), "%zu group%s in both tables: B slower "
		 "in %zu, B faster in %zu, the same within +-%g%% in %zu, "
		 "unresolved in %zu, too few launches in %zu; median |B/A - "
		 "1| over %zu group%s: %s", r->nrows,
		 r->nrows == 1 ? "" : "s", r->n_slower, r->n_faster,
		 100 * r->resolve, r->n_same, r->n_unresolved, r->n_too_few,
		 r->n_diff, r->n_diff == 1 ? "" : "s", md);
	wrapped(f, "compared:", buf);
	if (r->one_way) {
		snprintf(buf, sizeof(buf), "B is %s in %zu of the %zu groups "
			 "that differ, by a median of %s over all groups: a "
			 "whole machine running %s in one table's session "
			 "(other jobs, frequency, temperature) looks like "
			 "this as much as a %s MPI or network; make both "
			 "tables again, one after the other, to tell "
			 "(docs/compare.md)",
			 r->median_diff > 0 ? "slower" : "faster",
			 r->median_diff > 0 ? r->n_slower : r->n_faster,
			 r->n_differs, fmt_rel(r->median_diff, md, sizeof(md)),
			 r->median_diff > 0 ? "slower" : "faster",
			 r->median_diff > 0 ? "slower" : "faster");
		wrapped(f, "note:", buf);
	}
	list_groups(f, "only in A:", a, r->only_a, r->n_only_a);
	list_groups(f, "only in B:", b, r->only_b, r->n_only_b);
	if (a->mpi_library && b->mpi_library &&
	    strcmp(a->mpi_library, b->mpi_library))
		wrapped(f, "note:", "the tables name different MPI "
			"libraries");
	return ferror(f) ? -EIO : 0;
}
