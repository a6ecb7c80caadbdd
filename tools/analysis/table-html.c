/*
 * tools/analysis/table-html.c: a finished cost table as one static HTML page
 * (st_table_write_html, tools/analysis/table.h): provenance, the formulas, and
 * per operation one SVG plot drawn here, with no script and no library,
 * so the page opens from a file anywhere.
 *
 * A plot shows the group medians against d on log-log axes (log2 for
 * bytes, log10 for time), one colour per process count (the same in
 * every plot of the page: the page numbers its process counts once, in
 * increasing order, tools/analysis/colours.h), each median
 * with its confidence interval as an error bar (a hollow point has no
 * interval: n < 6), and the fitted formula as a line per process count,
 * drawn only over the sizes measured (and once per piece when the fit
 * splits in d).  Size 0 (a barrier's) has no place on a log axis: it
 * gets its own slot left of the axis, marked "0 B".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sync/sync.h"
#include "tools/analysis/colours.h"
#include "tools/analysis/format.h"
#include "tools/analysis/table.h"

#define SVG_W 760
#define SVG_H 420
#define PL 90			/* plot area: left, right, top, bottom */
#define PR 530
#define PT 36
#define PB 350
#define ZERO_X (PL + 22)	/* the slot of d = 0 */
#define NCURVE 96		/* points per fitted curve */

#define NPAL ST_NCOLOURS

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\t':
			fputc(' ', f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* The axes of one plot. */
struct axes {
	int has_zero, has_pos;	/* sizes 0, sizes > 0 */
	double lx0, lx1;	/* log2 d range */
	double ly0, ly1;	/* log10 ns range */
	double x_log_left;	/* pixel where the log axis starts */
};

static double px_x(const struct axes *a, double d)
{
	if (d <= 0 || !a->has_pos)
		return a->has_pos ? ZERO_X : (PL + PR) / 2.0;
	return a->x_log_left + (log2(d) - a->lx0) / (a->lx1 - a->lx0) *
			       (PR - a->x_log_left);
}

static double px_y(const struct axes *a, double ns)
{
	double l = ns > 0 ? log10(ns) : a->ly0;

	if (l < a->ly0)
		l = a->ly0;
	if (l > a->ly1)
		l = a->ly1;
	return PB - (l - a->ly0) / (a->ly1 - a->ly0) * (PB - PT);
}

static void y_extent(double v, double *lo, double *hi)
{
	if (!(v > 0) || !isfinite(v))
		return;
	if (!(v >= *lo))
		*lo = v;
	if (!(v <= *hi))
		*hi = v;
}

/* Fitted value at (p, d), NaN when there is none. */
static double fit_at(const struct st_table_op *op, long p, double d)
{
	double t;

	if (op->fit_rc || st_fit_eval(&op->fit, p, d, &t, NULL))
		return NAN;
	return t;
}

/* The d range [lo, hi] of piece k of a fit over the sizes [dmin, dmax]. */
static void piece_range(const struct st_table_op *op, int k, double *lo,
			double *hi)
{
	*lo = op->d_min;
	*hi = op->d_max;
	if (op->fit_rc || op->fit.npieces < 2)
		return;
	if (k == 0)
		*hi = op->fit.d_below;
	else
		*lo = op->fit.d_split;
}

static void make_axes(const struct st_table *t, const struct st_table_op *op,
		      struct axes *a)
{
	double ylo = NAN, yhi = NAN, dpos = NAN;
	size_t i;
	int k, j;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < op->ngroups; i++) {
		const struct st_table_group *g =
			st_table_group(t, op->groups[i]);

		if (g->d > 0) {
			a->has_pos = 1;
			if (!(g->d >= dpos))
				dpos = g->d;
		} else {
			a->has_zero = 1;
		}
		y_extent(g->s.median, &ylo, &yhi);
		if (g->s.ci_ok) {
			y_extent(g->s.ci_lo, &ylo, &yhi);
			y_extent(g->s.ci_hi, &ylo, &yhi);
		}
		for (k = 0; !op->fit_rc && k < op->fit.npieces; k++) {
			double lo, hi;

			piece_range(op, k, &lo, &hi);
			for (j = 0; j <= 4; j++) {
				double d = lo + (hi - lo) * j / 4.0;

				y_extent(fit_at(op, g->p, d), &ylo, &yhi);
			}
		}
	}
	if (isnan(ylo)) {
		ylo = 1;
		yhi = 1000;
	}
	a->ly0 = floor(log10(ylo));
	a->ly1 = ceil(log10(yhi));
	if (a->ly1 <= a->ly0)
		a->ly1 = a->ly0 + 1;
	if (a->has_pos) {
		a->lx0 = floor(log2(dpos));
		a->lx1 = ceil(log2(op->d_max));
		if (a->lx1 <= a->lx0) {
			a->lx0 -= 1;
			a->lx1 += 1;
		}
	}
	a->x_log_left = a->has_zero ? ZERO_X + 40 : PL;
}

/* "1 ns", "10 us", "1 s" for 10^k ns. */
static void decade_label(int k, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	int u = k < 0 ? 0 : k / 3;

	if (u > 3)
		u = 3;
	snprintf(buf, len, "%g %s", pow(10, k - 3 * u), unit[u]);
}

/* "1 B", "512 B", "4 KiB", "1 MiB" for 2^k bytes. */
static void octave_label(int k, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = k < 0 ? 0 : k / 10;

	if (u > 4)
		u = 4;
	snprintf(buf, len, "%g %s", pow(2, k - 10 * u), unit[u]);
}

static void draw_axes(FILE *f, const struct st_table_op *op,
		      const struct axes *a)
{
	char lab[32];
	int k, step;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#444\"/>\n", PL, PT, PR - PL,
		PB - PT);
	for (k = (int)a->ly0; k <= (int)a->ly1; k++) {
		double y = px_y(a, pow(10, k));

		decade_label(k, lab, sizeof(lab));
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/>\n<text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\" font-size=\"11\">%s</text>\n",
			PL, y, PR, y, PL - 6, y + 4, lab);
	}
	if (a->has_pos) {
		int span = (int)(a->lx1 - a->lx0);

		step = span <= 8 ? 1 : (span + 7) / 8;
		/* Ticks at multiples of the step: 1 KiB, 4 KiB, 16 KiB... */
		for (k = (int)ceil(a->lx0 / step) * step; k <= (int)a->lx1;
		     k += step) {
			double x = px_x(a, pow(2, k));

			octave_label(k, lab, sizeof(lab));
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				"y2=\"%d\" stroke=\"#ddd\"/>\n<text x=\"%.1f\" "
				"y=\"%d\" text-anchor=\"middle\" "
				"font-size=\"11\">%s</text>\n", x, PT, x, PB,
				x, PB + 16, lab);
		}
	}
	if (a->has_zero) {
		double x = px_x(a, 0);

		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"11\">0 B</text>\n", x, PB + 16);
		if (a->has_pos)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				"y2=\"%d\" stroke=\"#444\" "
				"stroke-dasharray=\"3,3\"/>\n",
				a->x_log_left - 20, PT, a->x_log_left - 20,
				PB);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"font-size=\"12\">d: %s%s</text>\n", (PL + PR) / 2, PB + 36,
		op->kind != ST_TABLE_COLL ? "bytes received" :
		"bytes per rank (see the d rule)",
		a->has_pos ? ", log2 scale" : "");
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"font-size=\"12\" transform=\"rotate(-90 %d %d)\">cost of one "
		"operation, log scale</text>\n", 22, (PT + PB) / 2, 22,
		(PT + PB) / 2);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\" "
		"font-weight=\"bold\">", PL, PT - 14);
	esc(f, op->name);
	fputs("</text>\n", f);
}

/* The smallest size > 0 among the groups in [lo, hi], NaN if none. */
static double min_pos_d(const struct st_table *t, const struct st_table_op *op,
			double lo, double hi)
{
	double m = NAN;
	size_t i;

	for (i = 0; i < op->ngroups; i++) {
		double d = st_table_group(t, op->groups[i])->d;

		if (d > 0 && d >= lo && d <= hi && !(d >= m))
			m = d;
	}
	return m;
}

/* The fitted curve of process count 'p', each piece over its sizes. */
static void draw_fit(FILE *f, const struct st_table *t,
		     const struct st_table_op *op, const struct axes *a,
		     long p, const char *colour)
{
	int k, j, n;

	if (op->fit_rc)
		return;
	for (k = 0; k < op->fit.npieces; k++) {
		double lo, hi, v, x;

		piece_range(op, k, &lo, &hi);
		if (lo <= 0 && (v = fit_at(op, p, 0)) > 0) {
			x = px_x(a, 0);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
				"stroke-dasharray=\"6,3\"/>\n", x - 12,
				px_y(a, v), x + 12, px_y(a, v), colour);
		}
		lo = min_pos_d(t, op, lo, hi);
		if (!(lo < hi))
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\" stroke-dasharray=\"6,3\" "
			"points=\"", colour);
		for (j = 0, n = 0; j < NCURVE; j++) {
			double d = exp2(log2(lo) + (log2(hi) - log2(lo)) * j /
					(NCURVE - 1));

			v = fit_at(op, p, d);
			if (!(v > 0))
				continue;
			fprintf(f, "%s%.1f,%.1f", n++ ? " " : "",
				px_x(a, d), px_y(a, v));
		}
		fputs("\"/>\n", f);
	}
}

/*
 * The colour of process count 'p' on this page: its place among every
 * process count of every operation, in increasing order.
 */
static const char *p_colour(const struct st_table *t, long p)
{
	size_t i, j, k, below = 0, nseen = 0;
	long seen[NPAL * 16];

	for (i = 0; i < st_table_nops(t); i++) {
		const struct st_table_op *op = st_table_op(t, i);

		for (j = 0; j < op->ngroups; j++) {
			long q = st_table_group(t, op->groups[j])->p;

			if (q >= p)
				continue;
			for (k = 0; k < nseen && seen[k] != q; k++)
				;
			if (k == nseen && nseen < sizeof(seen) / sizeof(seen[0])) {
				seen[nseen++] = q;
				below++;
			}
		}
	}
	return st_colour(below);
}

static void draw_plot(FILE *f, const struct st_table *t,
		      const struct st_table_op *op)
{
	long ps[NPAL * 4];
	size_t i, j, np = 0;
	int any_hollow = 0, ly;
	struct axes a;

	make_axes(t, op, &a);
	for (i = 0; i < op->ngroups; i++) {
		long p = st_table_group(t, op->groups[i])->p;

		for (j = 0; j < np && ps[j] != p; j++)
			;
		if (j == np && np < sizeof(ps) / sizeof(ps[0]))
			ps[np++] = p;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"class=\"plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
		"%d\" font-family=\"sans-serif\">\n<title>", SVG_W, SVG_H,
		SVG_W, SVG_H);
	esc(f, op->name);
	fputs(": medians with confidence intervals, and the fit</title>\n",
	      f);
	draw_axes(f, op, &a);
	for (j = 0; j < np; j++) {
		const char *c = p_colour(t, ps[j]);

		draw_fit(f, t, op, &a, ps[j], c);
		for (i = 0; i < op->ngroups; i++) {
			const struct st_table_group *g =
				st_table_group(t, op->groups[i]);
			double x = px_x(&a, g->d);

			if (g->p != ps[j])
				continue;
			if (g->s.ci_ok) {
				double y0 = px_y(&a, g->s.ci_lo);
				double y1 = px_y(&a, g->s.ci_hi);

				fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f "
					"%.1fh8M%.1f %.1fh8\" stroke=\"%s\" "
					"stroke-width=\"1.5\"/>\n", x, y0, y1,
					x - 4, y0, x - 4, y1, c);
			} else {
				any_hollow = 1;
			}
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"%s\" stroke=\"%s\"/>\n", x,
				px_y(&a, g->s.median),
				g->s.ci_ok ? c : "white", c);
		}
	}
	/* Legend, right of the plot. */
	ly = PT + 6;
	for (j = 0; j < np; j++) {
		const char *c = p_colour(t, ps[j]);

		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\" font-size=\"11\">p=%ld: "
			"median, %g%% CI</text>\n", PR + 20, ly, c, PR + 32,
			ly + 4, ps[j], 100 * st_table_opts(t)->ci_level);
		ly += 16;
		if (!op->fit_rc) {
			fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
				"y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" "
				"stroke-dasharray=\"6,3\"/><text x=\"%d\" "
				"y=\"%d\" font-size=\"11\">p=%ld: fitted "
				"formula</text>\n", PR + 12, ly, PR + 28, ly,
				c, PR + 32, ly + 4, ps[j]);
			ly += 16;
		}
	}
	if (any_hollow) {
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" "
			"fill=\"white\" stroke=\"#444\"/><text x=\"%d\" "
			"y=\"%d\" font-size=\"11\">no CI (n &lt; 6)</text>\n",
			PR + 20, ly, PR + 32, ly + 4);
		ly += 16;
	}
	if (op->fit_rc)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">no fit: "
			"%s</text>\n", PR + 12, ly + 4,
			op->ngroups == 1 ? "one group" : "too few groups");
	fputs("</svg>\n", f);
}

static void html_head(FILE *f, const struct st_table *t,
		      const struct st_table_meta *m)
{
	double emed, emax;
	char a[32], b[32], date[64];
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
	      "charset=\"utf-8\">\n<title>synctrace table: cost of MPI "
	      "operations</title>\n<style>\nbody { font-family: sans-serif; "
	      "max-width: 1100px; margin: 1em auto; }\ntable { "
	      "border-collapse: collapse; }\ntd, th { border: 1px solid "
	      "#ccc; padding: 2px 6px; text-align: left; font-size: 13px; "
	      "}\ncode { font-size: 13px; }\n</style>\n</head>\n<body>\n"
	      "<h1>Cost of MPI operations</h1>\n<table>\n", f);
	for (i = 0; i < m->nruns; i++) {
		const struct st_table_run *r = &m->runs[i];
		time_t tt = (time_t)r->start_unix;
		struct tm tm;

		if (r->start_unix < 0 || !gmtime_r(&tt, &tm) ||
		    !strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC",
			      &tm))
			snprintf(date, sizeof(date), "unknown");
		fputs("<tr><th>run</th><td>", f);
		esc(f, r->dir);
		fprintf(f, ": %d ranks%s, %s%s: <code>", r->nranks,
			r->complete ? "" : " (incomplete)", date,
			r->bench ? ", synctrace bench" : "");
		esc(f, r->cmdline ? r->cmdline : "unknown");
		fputs("</code></td></tr>\n", f);
	}
	fputs("<tr><th>MPI</th><td>", f);
	esc(f, m->mpi_library ? m->mpi_library : "unknown");
	if (m->mpi_differs)
		fputs(" (the runs or ranks name different MPI libraries)", f);
	fputs("</td></tr>\n<tr><th>hosts</th><td>", f);
	for (i = 0; i < m->nhosts; i++) {
		fputs(i ? ", " : "", f);
		esc(f, m->hosts[i]);
	}
	fprintf(f, " (n=%zu)</td></tr>\n<tr><th>clock</th><td>", m->nhosts);
	esc(f, m->clock ? m->clock : "unknown");
	st_table_clock_err(t, &emed, &emax);
	fprintf(f, "; synchronised by %s; clock error of a cost: median %s, "
		"max %s (n=%" PRIu64 " samples)</td></tr>\n",
		m->sync_method < 0 ? "nothing" :
		st_sync_method_name(m->sync_method),
		isnan(emed) ? "unknown" : st_fmt_ns(emed, a, sizeof(a)),
		isnan(emax) ? "unknown" : st_fmt_ns(emax, b, sizeof(b)),
		st_table_nsamples(t));
	fprintf(f, "<tr><th>method</th><td>A collective's cost: from the "
		"last rank's arrival to the last rank's exit, in global "
		"time; a point-to-point transfer's: from the later of the "
		"send's and the receive's entry to the receive's exit.  "
		"Points: group medians after Tukey's fences (k=%g) with "
		"their %g%% confidence intervals from order statistics "
		"(with 2 or more runs widened to hold the launches' "
		"spread, see the group table).  "
		"Lines: T(p, d) = a + b f(p) + c g(p) d fitted to the medians "
		"by weighted least squares.</td></tr>\n</table>\n",
		st_table_opts(t)->tukey_k, 100 * st_table_opts(t)->ci_level);
}

static void html_formulas(FILE *f, const struct st_table *t)
{
	char form[512], q[16];
	size_t i;
	int k;

	fputs("<h2>Formulas</h2>\n<table>\n<tr><th>function</th><th>time "
	      "formula (coefficient +- CI half-width)</th><th>Q</th>"
	      "<th>adj R^2</th><th>p</th><th>samples</th></tr>\n", f);
	for (i = 0; i < st_table_nops(t); i++) {
		const struct st_table_op *op = st_table_op(t, i);

		if (op->fit_rc) {
			const struct st_table_group *g =
				st_table_group(t, op->groups[0]);
			char a[32];

			fputs("<tr><td>", f);
			esc(f, op->name);
			fprintf(f, "</td><td>median %s (no fit: %s)</td><td>"
				"n/a</td><td>-</td><td>%ld</td><td>n=%zu"
				"</td></tr>\n",
				st_fmt_ns(g->s.median, a, sizeof(a)),
				op->ngroups == 1 ? "one group" :
				"too few groups", op->p_min, op->n_kept);
			continue;
		}
		for (k = 0; k < op->fit.npieces; k++) {
			const struct st_fit_piece *pc = &op->fit.piece[k];

			st_fit_piece_format(pc, ST_FIT_FMT_CI, form,
					    sizeof(form));
			st_fit_format_q(pc, q, sizeof(q));
			fputs("<tr><td>", f);
			esc(f, k ? "" : op->name);
			fputs("</td><td>", f);
			if (op->fit.npieces > 1)
				fputs(k ? "d &gt;= split: " : "d &lt;= split: ",
				      f);
			esc(f, form);
			fprintf(f, "</td><td>%s</td><td>%.3f</td><td>%ld..%ld"
				"%s</td><td>n=%ld</td></tr>\n", q, pc->r2_adj,
				pc->p_min, pc->p_max,
				op->kind != ST_TABLE_COLL ? "" :
				pc->flags & ST_FIT_P_NOT_IDENTIFIED ?
				" (p not identified)" : "", pc->n_samples);
		}
	}
	fputs("</table>\n", f);
}

static void html_groups(FILE *f, const struct st_table *t,
			const struct st_table_op *op)
{
	char d[32], m[32], lo[32], hi[32];
	size_t i;

	fprintf(f, "<details><summary>group medians (%zu)</summary>\n"
		"<table>\n<tr><th>p</th><th>d</th><th>n</th><th>dropped</th>"
		"<th>median</th><th>%g%% CI</th><th>runs</th><th>spread of "
		"run medians</th></tr>\n", op->ngroups,
		100 * st_table_opts(t)->ci_level);
	for (i = 0; i < op->ngroups; i++) {
		const struct st_table_group *g =
			st_table_group(t, op->groups[i]);

		if (g->d == floor(g->d))
			st_fmt_bytes((uint64_t)g->d, d, sizeof(d));
		else
			snprintf(d, sizeof(d), "%.1f B", g->d);
		fprintf(f, "<tr><td>%ld</td><td>%s</td><td>%zu</td><td>%zu"
			"</td><td>%s</td>", g->p, d, g->s.n, g->s.n_dropped,
			st_fmt_ns(g->s.median, m, sizeof(m)));
		if (g->s.ci_ok)
			fprintf(f, "<td>[%s, %s]</td>",
				st_fmt_ns(g->s.ci_lo, lo, sizeof(lo)),
				st_fmt_ns(g->s.ci_hi, hi, sizeof(hi)));
		else
			fputs("<td>n/a</td>", f);
		fprintf(f, "<td>%zu</td>", g->nruns);
		if (isnan(g->run_spread))
			fputs("<td>-</td></tr>\n", f);
		else
			fprintf(f, "<td>%.1f%%</td></tr>\n",
				100 * g->run_spread);
	}
	fputs("</table>\n</details>\n", f);
}

int st_table_write_html(FILE *f, const struct st_table *t,
			const struct st_table_meta *m)
{
	size_t i;

	html_head(f, t, m);
	html_formulas(f, t);
	for (i = 0; i < st_table_nops(t); i++) {
		const struct st_table_op *op = st_table_op(t, i);
		const char *rule = op->kind != ST_TABLE_COLL ?
			"the bytes received" :
			st_table_size_rule(op->bytes_class);

		fputs("<h2>", f);
		esc(f, op->name);
		fputs("</h2>\n<p>d: ", f);
		esc(f, rule ? rule : "?");
		fprintf(f, " (S, R: bytes sent, received, summed over the "
			"members); n=%" PRIu64 " operations, %zu dropped by "
			"the fences.</p>\n", op->samples, op->n_dropped);
		draw_plot(f, t, op);
		html_groups(f, t, op);
	}
	if (!st_table_nops(t))
		fputs("<p>No blocking collective or point-to-point transfer "
		      "could be timed in global time.</p>\n", f);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}
