/*
 * tools/analysis/table-out.c: a finished cost table as text, CSV and JSON (see
 * tools/analysis/table.h).  Every number printed carries its unit, its count and
 * its uncertainty: a formula's coefficients with their confidence
 * intervals, a median with its interval and n, Q only for a weighted
 * fit ("n/a" otherwise, never a made-up 1).  The text keeps Howell's
 * three columns first (function, time formula, Q) and adds the rest
 * after them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gen/version.h"
#include "sync/sync.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/format.h"
#include "tools/analysis/json-out.h"
#include "tools/analysis/table.h"
#include "writer/fn-info.h"

#define WIDTH 100

static const char cost_text[] =
	"a collective's cost is its time from the last rank's arrival to "
	"the last rank's exit, in global time; a point-to-point transfer's "
	"from the later of the send's and the receive's entry to the "
	"receive's exit";

/* "2026-03-05 13:04:09 UTC", or "unknown". */
static char *fmt_date(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t < 0 || !gmtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "unknown");
	return buf;
}

/*
 * Text from a trace, 's', into 'buf': tabs and newlines as spaces, what
 * else a terminal would obey escaped (st_fmt_text()).
 */
static char *flat(const char *s, char *buf, size_t len)
{
	char raw[1024];
	size_t i, n;

	snprintf(raw, sizeof(raw), "%s", s ? s : "unknown");
	n = strlen(raw);
	for (i = 0; i < n; i++)
		if (raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r')
			raw[i] = ' ';
	return st_fmt_text(raw, n, buf, len);
}

static char *fmt_size(double d, char *buf, size_t len)
{
	if (d == floor(d) && d < 1e18)
		return st_fmt_bytes((uint64_t)d, buf, len);
	if (d < 1024)
		snprintf(buf, len, "%.1f B", d);
	else
		st_fmt_bytes((uint64_t)llround(d), buf, len);
	return buf;
}

/* Print 'label' in a 11-column margin and 'text' wrapped at WIDTH. */
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

static void print_provenance(FILE *f, const struct st_table *t,
			     const struct st_table_meta *m)
{
	const struct st_table_options *o = st_table_opts(t);
	char buf[2048], a[32], b[32], date[64], lib[256], cmd[256], id[64];
	char fences[64], res[32];
	double emed, emax;
	size_t i, len = 0;

	fprintf(f, "synctrace table: cost of MPI operations\n\n");
	wrapped(f, "made by:", "synctrace version " ST_VERSION);
	for (i = 0; i < m->nruns; i++) {
		const struct st_table_run *r = &m->runs[i];

		snprintf(buf, sizeof(buf), "%s: %d ranks%s%s, %s%s%s%s, %s",
			 r->dir, r->nranks,
			 r->nread < r->nranks ? " (some files missing)" : "",
			 r->complete ? "" : " (incomplete)",
			 fmt_date(r->start_unix, date, sizeof(date)),
			 r->bench ? ", synctrace bench" : "",
			 r->run_id ? " run_id=" : "",
			 r->run_id ? flat(r->run_id, id, sizeof(id)) : "",
			 flat(r->cmdline, cmd, sizeof(cmd)));
		wrapped(f, i ? "" : (m->nruns > 1 ? "runs:" : "run:"), buf);
	}
	snprintf(buf, sizeof(buf), "%s%s", flat(m->mpi_library, lib,
						 sizeof(lib)),
		 m->mpi_differs ? " (WARNING: the runs or ranks name "
				  "different MPI libraries)" : "");
	wrapped(f, "MPI:", buf);
	buf[0] = '\0';
	for (i = 0; i < m->nhosts && len < sizeof(buf) / 2; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? ", " : "",
					flat(m->hosts[i], lib, sizeof(lib)));
	if (i < m->nhosts)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, ", ...");
	snprintf(buf + len, sizeof(buf) - len, "%s (n=%zu)",
		 len ? "" : "unknown", m->nhosts);
	wrapped(f, "hosts:", buf);
	if (m->phase.mode != ST_PHASE_ALL) {
		len = strlen(st_phase_name(&m->phase, buf, sizeof(buf)));
		snprintf(buf + len, sizeof(buf) - len, ", n=%" PRIu64 " over "
			 "runs, ranks and threads: only the samples in them",
			 m->phases);
		wrapped(f, "phase:", buf);
	}
	st_table_clock_err(t, &emed, &emax);
	snprintf(buf, sizeof(buf), "%s; resolution %s; synchronised by %s%s; "
		 "clock error of a cost (the two ranks' estimates added): "
		 "median %s, max %s",
		 flat(m->clock, lib, sizeof(lib)),
		 isnan(m->clock_res_ns) ? "unknown" :
		 (snprintf(res, sizeof(res), "%.3g ns", m->clock_res_ns),
		  res),
		 m->sync_method < 0 ? "nothing" :
		 st_sync_method_name(m->sync_method),
		 m->sync_differs ? " (and other methods)" : "",
		 isnan(emed) ? "unknown" : st_fmt_ns(emed, a, sizeof(a)),
		 isnan(emax) ? "unknown" : st_fmt_ns(emax, b, sizeof(b)));
	wrapped(f, "clock:", buf);
	for (i = 0; i < m->nruns; i++) {
		if (!m->runs[i].sync_check)
			continue;
		snprintf(buf, sizeof(buf), "%s: largest offset between "
			 "global clocks, ns: %s", m->runs[i].dir,
			 flat(m->runs[i].sync_check, lib, sizeof(lib)));
		wrapped(f, "checked:", buf);
	}
	wrapped(f, "cost:", cost_text);
	if (o->tukey_k > 0)
		snprintf(fences, sizeof(fences), "after Tukey's fences (k=%g)",
			 o->tukey_k);
	else
		snprintf(fences, sizeof(fences), "of all samples (no fences)");
	snprintf(buf, sizeof(buf), "samples grouped by (operation, p "
		 "processes, d bytes)%s; each group's median %s with its "
		 "%g%% confidence interval from order statistics (none for "
		 "n < 6 at 95%%), in a group of 2 or more runs widened to "
		 "hold the launch-to-launch spread (union with mean +- "
		 "t(runs-1) sd/sqrt(runs) of the logs of its per-run "
		 "medians); formulas fitted to the group medians by "
		 "weighted least squares (weights 1/se^2 of the medians), "
		 "terms chosen by cross-validation and a misfit test; "
		 "adj R^2 of the medians, unweighted; coefficients +- their "
		 "%g%% CI half-width",
		 o->bins_per_octave ? " with sizes binned" : "", fences,
		 100 * o->ci_level, 100 * o->ci_level);
	wrapped(f, "method:", buf);
	if (o->bins_per_octave) {
		snprintf(buf, sizeof(buf), "%d bins per octave; a group's d "
			 "is the mean size of its samples",
			 o->bins_per_octave);
		wrapped(f, "bins:", buf);
	}
}

/* 'r2' without a negative zero: -0.00001 prints as 0.000. */
static double r2_show(double r2)
{
	return r2 < 0 && r2 > -0.00005 ? 0 : r2;
}

/* The notes of an operation's fit, for the table's last column. */
static char *fit_notes(const struct st_table_op *op, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, \
					 __VA_ARGS__))
	if (op->kind == ST_TABLE_BURST)
		ADD("burst: p is the messages at once");
	else if (op->kind != ST_TABLE_COLL)
		ADD("point-to-point: no p term");
	else if (op->fit_rc == 0 && (op->fit.flags & ST_FIT_P_NOT_IDENTIFIED))
		ADD("p not identified (only p=%ld)", op->p_min);
	else if (op->fit_rc == 0 &&
		 (op->fit.flags & ST_FIT_P_SHAPE_AMBIGUOUS))
		ADD("f(p) ambiguous (2 values of p)");
	if (op->fit_rc == 0 && (op->fit.flags & ST_FIT_D_NOT_IDENTIFIED) &&
	    op->d_max > 0)
		ADD("%sd not identified", n ? "; " : "");
	if (op->fit_rc == 0 && op->fit.n_groups_nosigma)
		ADD("%s%zu group%s without CI not fitted", n ? "; " : "",
		    op->fit.n_groups_nosigma,
		    op->fit.n_groups_nosigma == 1 ? "" : "s");
	if (op->fit_rc == 0 && !op->fit.weighted)
		ADD("%sunweighted (no CI: n < 6 per group)", n ? "; " : "");
#undef ADD
	return buf;
}

/*
 * One row of the formula table: 'notes' after "n=..." ('n'); when the
 * row would pass WIDTH, the notes go on the next line under the formula.
 */
static void formula_row(FILE *f, int w, const char *lead, const char *form,
			const char *q, const char *r2, const char *n,
			const char *notes)
{
	char line[1024];

	if (strlen(form) > 46) {
		fprintf(f, "%-*s %s\n", w, lead, form);
		lead = form = "";
	}
	snprintf(line, sizeof(line), "%-*s %-46s %-7s %-7s %s%s%s", w, lead,
		 form, q, r2, n, *notes ? "; " : "", notes);
	if (strlen(line) <= WIDTH) {
		fprintf(f, "%s\n", line);
		return;
	}
	fprintf(f, "%-*s %-46s %-7s %-7s %s\n", w, lead, form, q, r2, n);
	fprintf(f, "%-*s %s\n", w, "", notes);
}

static void print_formulas(FILE *f, const struct st_table *t)
{
	char form[512], q[16], r2[16], n[32], lo[32], hi[32];
	char m[32], more[256];
	size_t i, nops = st_table_nops(t);
	int k, w = 18;

	fprintf(f, "\nCost formulas: T(p, d) is the median cost of one "
		"operation, d in bytes (B), p processes.\n\n");
	for (i = 0; i < nops; i++)
		if ((int)strlen(st_table_op(t, i)->name) > w)
			w = (int)strlen(st_table_op(t, i)->name);
	fprintf(f, "%-*s %-46s %-7s %-7s %s\n", w, "function", "time formula",
		"Q", "adj R^2", "samples, notes");
	for (i = 0; i < nops; i++) {
		const struct st_table_op *op = st_table_op(t, i);

		if (op->fit_rc) {
			const struct st_table_group *g =
				st_table_group(t, op->groups[0]);

			if (g->s.ci_ok)
				snprintf(form, sizeof(form), "%s [%s, %s]",
					 st_fmt_ns(g->s.median, m, sizeof(m)),
					 st_fmt_ns(g->s.ci_lo, lo,
						   sizeof(lo)),
					 st_fmt_ns(g->s.ci_hi, hi,
						   sizeof(hi)));
			else
				snprintf(form, sizeof(form), "%s (no CI)",
					 st_fmt_ns(g->s.median, m,
						   sizeof(m)));
			snprintf(n, sizeof(n), "n=%zu", op->n_kept);
			formula_row(f, w, op->name, form, "n/a", "-", n,
				    op->ngroups == 1 ? "one group: its median, "
				    "no fit" : "too few groups: no fit");
			continue;
		}
		for (k = 0; k < op->fit.npieces; k++) {
			const struct st_fit_piece *pc = &op->fit.piece[k];
			char lead[96], sz[32];

			size_t len = 0;

			if (op->fit.npieces > 1)
				len = (size_t)snprintf(form, sizeof(form),
					"d %s %s: ", k ? ">=" : "<=",
					fmt_size(k ? op->fit.d_split :
						 op->fit.d_below, sz,
						 sizeof(sz)));
			st_fit_piece_format(pc, 0, form + len,
					    sizeof(form) - len);
			st_fit_format_q(pc, q, sizeof(q));
			snprintf(r2, sizeof(r2), "%.3f", r2_show(pc->r2_adj));
			snprintf(lead, sizeof(lead), "%s", k ? "" : op->name);
			snprintf(n, sizeof(n), "n=%ld", pc->n_samples);
			if (k == op->fit.npieces - 1)
				fit_notes(op, more, sizeof(more));
			else
				more[0] = '\0';
			formula_row(f, w, lead, form, q, r2, n, more);
		}
	}
}

static void print_details(FILE *f, const struct st_table *t)
{
	char form[512], buf[1024], a[32], b[32];
	size_t i, len, nops = st_table_nops(t);
	int k;

	fprintf(f, "\nCoefficients with their %g%% confidence intervals, "
		"ranges and counts:\n",
		100 * st_table_opts(t)->ci_level);
	for (i = 0; i < nops; i++) {
		const struct st_table_op *op = st_table_op(t, i);
		const char *rule = op->kind == ST_TABLE_P2P ?
			"the bytes received" : op->kind != ST_TABLE_COLL ?
			"the bytes of a message" :
			st_table_size_rule(op->bytes_class);

		fprintf(f, "\n%s\n", op->name);
		for (k = 0; !op->fit_rc && k < op->fit.npieces; k++) {
			const struct st_fit_piece *pc = &op->fit.piece[k];
			char q[16];

			st_fit_piece_format(pc, ST_FIT_FMT_CI, form,
					    sizeof(form));
			st_fit_format_q(pc, q + 2, sizeof(q) - 2);
			/* "Q = 0.35", "Q = n/a", "Q < 0.001" */
			q[0] = q[2] == '<' ? '<' : '=';
			q[1] = ' ';
			if (q[2] == '<')
				memmove(q + 2, q + 3, strlen(q + 3) + 1);
			snprintf(buf, sizeof(buf), "T = %s", form);
			wrapped(f, op->fit.npieces > 1 ? (k ? "  piece 2:" :
							  "  piece 1:") :
				"  formula:", buf);
			len = (size_t)snprintf(buf, sizeof(buf), "p = %ld",
					       pc->p_min);
			if (pc->p_max > pc->p_min)
				len += (size_t)snprintf(buf + len,
					sizeof(buf) - len, "..%ld", pc->p_max);
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				", d = %s", fmt_size(pc->d_min, a, sizeof(a)));
			if (pc->d_max > pc->d_min)
				len += (size_t)snprintf(buf + len,
					sizeof(buf) - len, "..%s",
					fmt_size(pc->d_max, b, sizeof(b)));
			snprintf(buf + len, sizeof(buf) - len, "; %zu groups, "
				 "n=%ld samples; chi^2 = %.3g with %d dof, "
				 "Q %s; adjusted R^2 = %.4f; %s", pc->n_groups,
				 pc->n_samples, pc->chi2, pc->dof, q,
				 r2_show(pc->r2_adj), pc->weighted ?
				 "weighted" : "unweighted (no group had a CI)");
			wrapped(f, "", buf);
		}
		if (op->fit_rc) {
			snprintf(buf, sizeof(buf), "no formula: %zu group%s "
				 "(a fit needs one group more than its "
				 "coefficients); see the group medians below",
				 op->ngroups, op->ngroups == 1 ? "" : "s");
			wrapped(f, "  formula:", buf);
		}
		if (op->fit_rc == 0 && op->fit.npieces > 1) {
			snprintf(buf, sizeof(buf), "piece 1 up to d = %s, "
				 "piece 2 from d = %s: the formula changes "
				 "between them (a protocol switch)",
				 fmt_size(op->fit.d_below, a, sizeof(a)),
				 fmt_size(op->fit.d_split, b, sizeof(b)));
			wrapped(f, "  split:", buf);
		}
		len = (size_t)snprintf(buf, sizeof(buf), "%s; p = %ld",
				       rule ? rule : "?", op->p_min);
		if (op->p_max > op->p_min)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"..%ld (%d values)", op->p_max,
						op->nps);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					", d = %s",
					fmt_size(op->d_min, a, sizeof(a)));
		if (op->d_max > op->d_min)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"..%s",
						fmt_size(op->d_max, b,
							 sizeof(b)));
		snprintf(buf + len, sizeof(buf) - len, " in %zu group%s; "
			 "n=%" PRIu64 " samples, %zu dropped by the fences",
			 op->ngroups, op->ngroups == 1 ? "" : "s",
			 op->samples, op->n_dropped);
		wrapped(f, "  d:", buf);
	}
}

static void print_waiting(FILE *f, const struct st_table *t)
{
	char a[32], b[32], c[32], n[32];
	size_t i, nops = st_table_nops(t);

	fprintf(f, "\nWaiting for late ranks, not in the costs above.  "
		"Collectives: from each rank's arrival\nto the last arrival "
		"(or its exit if earlier), summed over ranks.  "
		"Point-to-point: the receiver's\nwait for a late sender.  "
		"Share: of the time in the call (of the receive, for "
		"point-to-point).\n\n");
	fprintf(f, "%-30s %12s %12s %14s %10s\n", "function", "operations",
		"waiting", "per operation", "share");
	for (i = 0; i < nops; i++) {
		const struct st_table_op *op = st_table_op(t, i);

		snprintf(n, sizeof(n), "n=%" PRIu64, op->samples);
		if (op->call_ns > 0)
			snprintf(c, sizeof(c), "%.1f%%",
				 100 * op->wait_ns / op->call_ns);
		else
			snprintf(c, sizeof(c), "-");
		fprintf(f, "%-30s %12s %12s %14s %10s\n", op->name, n,
			st_fmt_ns(op->wait_ns, a, sizeof(a)),
			st_fmt_ns(op->samples ? op->wait_ns /
				  (double)op->samples : 0, b, sizeof(b)), c);
	}
}

/* A relative difference as "2.3%", "inf" or "-". */
static char *fmt_pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%.1f%%", 100 * v);
	return buf;
}

static void print_groups(FILE *f, const struct st_table *t)
{
	const struct st_table_options *o = st_table_opts(t);
	char d[32], med[32], lo[32], hi[32], ci[80], sd[32], n[32], dr[32];
	size_t i, ng = st_table_ngroups(t);
	int below = 0, wide = 0, summ = 0, w = 8;

	fprintf(f, "\nGroup medians: cost of one operation, median of the "
		"samples kept by the fences, its %g%%\nconfidence interval "
		"(n/a for n < 6; with 2 or more runs, widened to hold "
		"their spread);\nruns: runs with samples in the group; "
		"sd: launch-to-launch spread, the standard deviation\nof "
		"the per-run medians (of their logarithms).\n\n",
		100 * o->ci_level);
	for (i = 0; i < st_table_nops(t); i++)
		if ((int)strlen(st_table_op(t, i)->name) > w)
			w = (int)strlen(st_table_op(t, i)->name);
	fprintf(f, "%-*s %4s %9s %7s %7s %9s  %-22s %4s %6s\n", w,
		"function", "p", "d", "n", "dropped", "median", "CI", "runs",
		"sd");
	for (i = 0; i < ng; i++) {
		const struct st_table_group *g = st_table_group(t, i);
		const struct st_table_op *op = st_table_op(t, g->op);
		int flag = isfinite(g->err_median_ns) &&
			   g->s.median < g->err_median_ns;
		int spread = g->resolvable > o->resolve;

		below |= flag;
		wide |= spread;
		summ |= g->resolution > 0;
		if (g->s.ci_ok)
			snprintf(ci, sizeof(ci), "[%s, %s]",
				 st_fmt_ns(g->s.ci_lo, lo, sizeof(lo)),
				 st_fmt_ns(g->s.ci_hi, hi, sizeof(hi)));
		else
			snprintf(ci, sizeof(ci), "n/a");
		fmt_pct(g->run_sd, sd, sizeof(sd));
		snprintf(n, sizeof(n), "n=%zu", g->s.n);
		snprintf(dr, sizeof(dr), "%zu", g->s.n_dropped);
		fprintf(f, "%-*s %4ld %9s %7s %7s %9s%c %-22s %4zu %6s%s%s\n",
			w, op->name, g->p, fmt_size(g->d, d, sizeof(d)), n, dr,
			st_fmt_ns(g->s.median, med, sizeof(med)),
			flag ? '!' : ' ', ci, g->nruns, sd, spread ? "?" : "",
			g->resolution > 0 ? "~" : "");
	}
	if (below)
		fprintf(f, "\n!: the median is below the median clock error "
			"of the group's samples: its order of\nevents is not "
			"resolved by the synchronised clocks.\n");
	if (wide)
		fprintf(f, "\n?: the launches disagree too much to resolve a "
			"difference of %g%% between two\ntables like this one "
			"(see Launches).\n", 100 * o->resolve);
	if (summ)
		fprintf(f, "\n~: more than %zu samples: the group's figures "
			"come from a summary of its costs\nin log-spaced "
			"buckets (exact minimum and maximum); medians, "
			"quartiles and CI\nbounds are within %.3g%% "
			"(relative) of the exact ones.\n", o->exact_max,
			100 * ST_TABLE_SUMMARY_RES / 2);
}

/*
 * How well the runs agree: the launch is the unit of replication, so
 * what a comparison of two tables can resolve depends on the spread of
 * the per-run medians and on the number of runs.
 */
static void print_launches(FILE *f, const struct st_table *t)
{
	const struct st_table_options *o = st_table_opts(t);
	struct st_table_launches l;
	char buf[1024], a[32], b[32];

	if (st_table_launches(t, &l) || l.max_runs < 2)
		return;
	if (isinf(l.median_resolvable)) {
		size_t need = 2;

		while (st_stats_ranksum_min_p(need, need) > 1 - o->ci_level)
			need++;
		snprintf(buf, sizeof(buf), "up to %zu runs (launches) per "
			 "group; over the %zu groups with 2 or more, the "
			 "launch-to-launch sd has median %s; most groups have "
			 "too few runs to show any difference between two "
			 "tables at level %g%% ('synctrace table --compare' "
			 "needs %zu runs a side)", l.max_runs, l.n_groups,
			 fmt_pct(l.median_run_sd, a, sizeof(a)),
			 100 * o->ci_level, need);
	} else {
		snprintf(buf, sizeof(buf), "up to %zu runs (launches) per "
			 "group; over the %zu groups with 2 or more, the "
			 "launch-to-launch sd has median %s, and two tables "
			 "like this one resolve a difference of %s (median "
			 "over groups; found with probability 0.8 at level "
			 "%g%%, 'synctrace table --compare'); %zu group%s "
			 "cannot resolve %g%% (marked ?)", l.max_runs,
			 l.n_groups, fmt_pct(l.median_run_sd, a, sizeof(a)),
			 fmt_pct(l.median_resolvable, b, sizeof(b)),
			 100 * o->ci_level, l.n_unresolved,
			 l.n_unresolved == 1 ? "" : "s", 100 * o->resolve);
	}
	fprintf(f, "\n");
	wrapped(f, "Launches:", buf);
}

/* Each group's first calls: the first instance of it in each run. */
static void print_first(FILE *f, const struct st_table *t)
{
	char d[32], fm[32], lo[32], hi[32], med[32], range[80], n[32];
	size_t i, ng = st_table_ngroups(t), any = 0;
	int w = 8;

	for (i = 0; i < ng; i++)
		any += st_table_group(t, i)->first_n > 0;
	if (!any)
		return;
	for (i = 0; i < st_table_nops(t); i++)
		if ((int)strlen(st_table_op(t, i)->name) > w)
			w = (int)strlen(st_table_op(t, i)->name);
	fprintf(f, "\nFirst calls: the cost of each group's first instance "
		"in a run (the process's first\ncall of that operation and "
		"size), median over the runs, their range, and how many\n"
		"times the group median it is.  A bench run's first calls are "
		"its pilot's, not\namong its samples; an application's are "
		"among them too.\n\n");
	fprintf(f, "%-*s %4s %9s %7s %9s  %-22s %8s\n", w, "function", "p",
		"d", "runs", "first", "range", "x median");
	for (i = 0; i < ng; i++) {
		const struct st_table_group *g = st_table_group(t, i);

		if (!g->first_n)
			continue;
		snprintf(range, sizeof(range), "[%s, %s]",
			 st_fmt_ns(g->first_min_ns, lo, sizeof(lo)),
			 st_fmt_ns(g->first_max_ns, hi, sizeof(hi)));
		snprintf(n, sizeof(n), "n=%zu", g->first_n);
		if (g->s.median > 0)
			snprintf(med, sizeof(med), "%.1f",
				 g->first_ns / g->s.median);
		else
			snprintf(med, sizeof(med), "-");
		fprintf(f, "%-*s %4ld %9s %7s %9s  %-22s %8s\n", w,
			st_table_op(t, g->op)->name, g->p,
			fmt_size(g->d, d, sizeof(d)), n,
			st_fmt_ns(g->first_ns, fm, sizeof(fm)), range, med);
	}
}

static void print_starts(FILE *f, const struct st_table *t)
{
	char d[32], ex[32], lo[32], hi[32], sd[32], n[32], range[80];
	size_t i, nr = st_table_nstarts(t);

	if (!nr)
		return;
	fprintf(f, "\nThe MPI library's start (bench --start): in a fresh "
		"process, each size's first\n%d ping-pongs in a row; a "
		"send's excess is its time less the median send\nof its "
		"series' later half (the steady state).  Per size: the "
		"series (launch,\nrank), the steady send, the excess summed "
		"over a series (median over the series,\nrange), and the "
		"sends up to the last whose median excess is over twice the\n"
		"steady state + 1 us.\n\n", ST_TABLE_START_MSGS);
	fprintf(f, "%9s %7s %9s %10s  %-22s %s\n", "d", "series", "steady",
		"excess", "range", "slow sends");
	for (i = 0; i < nr; i++) {
		const struct st_table_start *r = st_table_start(t, i);

		snprintf(n, sizeof(n), "n=%zu", r->series);
		snprintf(range, sizeof(range), "[%s, %s]",
			 st_fmt_ns(r->excess_min_ns, lo, sizeof(lo)),
			 st_fmt_ns(r->excess_max_ns, hi, sizeof(hi)));
		fprintf(f, "%9s %7s %9s %10s  %-22s %zu of %zu\n",
			fmt_size(r->bytes, d, sizeof(d)), n,
			st_fmt_ns(r->steady_ns, sd, sizeof(sd)),
			st_fmt_ns(r->excess_ns, ex, sizeof(ex)), range,
			r->slow, r->msgs);
	}
}

static void print_left_out(FILE *f, const struct st_table_meta *m)
{
	struct {
		uint64_t n;
		const char *what;
	} why[] = {
		{ m->calls_inter, "calls on inter-communicators" },
		{ m->calls_missing, "collective calls whose instance lacks a "
				    "member's record (trace missing or cut)" },
		{ m->calls_unsynced, "collective calls on communicators with "
				     "a rank without global time" },
		{ m->incomplete, "collective instances begun but never "
				 "complete" },
		{ m->p2p_nonblocking, "point-to-point transfers with a "
				      "nonblocking side (not timed)" },
		{ m->p2p_unmatched, "sends or receives never matched" },
		{ m->p2p_inconsistent, "transfers whose receive ended before "
				       "the send began (dropped)" },
		{ m->p2p_self, "messages of a rank to itself (no transfer "
			       "between two processes)" },
		{ m->p2p_unsynced, "point-to-point calls without global "
				   "time" },
		{ m->ranks_failed, "rank files unreadable or damaged (read "
				   "up to the damage)" },
	};
	char buf[256];
	size_t i;
	int any = 0;

	for (i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		if (!why[i].n)
			continue;
		if (!any++)
			fprintf(f, "\n");
		snprintf(buf, sizeof(buf), "n=%" PRIu64 " %s", why[i].n,
			 why[i].what);
		wrapped(f, any == 1 ? "left out:" : "", buf);
	}
}

int st_table_write_text(FILE *f, const struct st_table *t,
			const struct st_table_meta *m)
{
	print_provenance(f, t, m);
	if (!st_table_nops(t)) {
		fprintf(f, "\nNo blocking collective or point-to-point "
			"transfer could be timed in global time.\n");
		print_left_out(f, m);
		return ferror(f) ? -EIO : 0;
	}
	print_formulas(f, t);
	print_details(f, t);
	print_waiting(f, t);
	print_groups(f, t);
	print_launches(f, t);
	print_first(f, t);
	print_starts(f, t);
	print_left_out(f, m);
	return ferror(f) ? -EIO : 0;
}

/* --- CSV -------------------------------------------------------------- */

static void csv_str(FILE *f, const char *s)
{
	st_csv_field(f, s ? s : "", s ? strlen(s) : 0);
}

/* A number, or nothing for NaN. */
static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.10g", v);
	else
		fputc(',', f);
}

static const char *kind_name(int kind)
{
	return st_table_kind_name(kind);
}

static void csv_coef(FILE *f, const struct st_fit_piece *pc, int j)
{
	int present = j == 0 || (j == 1 ? pc->f : pc->g) != ST_FIT_NONE;

	if (!present) {
		fputs(",,,", f);
		return;
	}
	csv_num(f, pc->coef[j]);
	csv_num(f, pc->ci_lo[j]);
	csv_num(f, pc->ci_hi[j]);
}

static void csv_ops(FILE *f, const struct st_table *t)
{
	size_t i, nops = st_table_nops(t);
	char form[512], notes[256];
	int k;

	fputs("function,kind,piece,pieces,d_from_bytes,d_to_bytes,formula,"
	      "a_ns,a_ci_lo_ns,a_ci_hi_ns,f_p,b_ns,b_ci_lo_ns,b_ci_hi_ns,"
	      "g_p,c_ns_per_byte,c_ci_lo_ns_per_byte,c_ci_hi_ns_per_byte,"
	      "ci_level,weighted,q,chi2,dof,r2_adj,p_min,p_max,d_min_bytes,"
	      "d_max_bytes,groups,samples,dropped,notes,operations,"
	      "wait_ns,call_ns\n", f);
	for (i = 0; i < nops; i++) {
		const struct st_table_op *op = st_table_op(t, i);
		int npieces = op->fit_rc ? 1 : op->fit.npieces;

		fit_notes(op, notes, sizeof(notes));
		for (k = 0; k < npieces; k++) {
			const struct st_fit_piece *pc = &op->fit.piece[k];

			csv_str(f, op->name);
			fprintf(f, ",%s,%d,%d", kind_name(op->kind), k,
				op->fit_rc ? 0 : npieces);
			if (op->fit_rc) {
				/* Fields 5 to 18 empty, Q n/a. */
				fputs(",,,,,,,,,,,,,,", f);
				fprintf(f, ",%g,,n/a,,,",
					st_table_opts(t)->ci_level);
				fprintf(f, ",%ld,%ld", op->p_min, op->p_max);
				csv_num(f, op->d_min);
				csv_num(f, op->d_max);
				fprintf(f, ",%zu,%zu,%zu,", op->ngroups,
					op->n_kept, op->n_dropped);
				csv_str(f, op->ngroups == 1 ? "one group: "
					"no fit" : "too few groups: no fit");
			} else {
				csv_num(f, k ? op->fit.d_split : 0);
				if (npieces > 1 && !k)
					csv_num(f, op->fit.d_below);
				else
					fputc(',', f);
				fputc(',', f);
				st_fit_piece_format(pc, 0, form, sizeof(form));
				csv_str(f, form);
				csv_coef(f, pc, 0);
				fputc(',', f);
				csv_str(f, st_fit_fn_name(pc->f));
				csv_coef(f, pc, 1);
				fputc(',', f);
				csv_str(f, st_fit_fn_name(pc->g));
				csv_coef(f, pc, 2);
				fprintf(f, ",%g,%d", pc->level, pc->weighted);
				if (pc->has_q)
					csv_num(f, pc->q);
				else
					fputs(",n/a", f);
				csv_num(f, pc->chi2);
				fprintf(f, ",%d", pc->dof);
				csv_num(f, pc->r2_adj);
				fprintf(f, ",%ld,%ld", pc->p_min, pc->p_max);
				csv_num(f, pc->d_min);
				csv_num(f, pc->d_max);
				fprintf(f, ",%zu,%ld,%zu,", pc->n_groups,
					pc->n_samples, op->n_dropped);
				csv_str(f, notes);
			}
			fprintf(f, ",%" PRIu64, op->samples);
			csv_num(f, op->wait_ns);
			csv_num(f, op->call_ns);
			fputc('\n', f);
		}
	}
}

static void csv_groups(FILE *f, const struct st_table *t)
{
	size_t i, ng = st_table_ngroups(t);
	int summ = 0;

	for (i = 0; i < ng; i++)
		summ |= st_table_group(t, i)->resolution > 0;

	fputs("function,kind,p,d_bytes,n_in,n,dropped,median_ns,ci_lo_ns,"
	      "ci_hi_ns,ci_level,se_median_ns,q1_ns,q3_ns,min_ns,max_ns,"
	      "mean_ns,fence_lo_ns,fence_hi_ns,wait_ns,runs,"
	      "run_median_min_ns,run_median_max_ns,run_spread_pct,"
	      "clock_err_median_ns,below_clock_err,first_ns,first_min_ns,"
	      "first_max_ns,first_runs,run_sd_pct,resolvable_pct,ci_launches", f);
	/* Only when a group is summarised, so tables without one are as
	   they always were. */
	fputs(summ ? ",summary_resolution\n" : "\n", f);
	for (i = 0; i < ng; i++) {
		const struct st_table_group *g = st_table_group(t, i);
		const struct st_table_op *op = st_table_op(t, g->op);

		csv_str(f, op->name);
		fprintf(f, ",%s,%ld", kind_name(op->kind), g->p);
		csv_num(f, g->d);
		fprintf(f, ",%zu,%zu,%zu", g->n_in, g->s.n, g->s.n_dropped);
		csv_num(f, g->s.median);
		csv_num(f, g->s.ci_ok ? g->s.ci_lo : NAN);
		csv_num(f, g->s.ci_ok ? g->s.ci_hi : NAN);
		csv_num(f, g->s.ci_level);
		csv_num(f, g->s.ci_ok ? g->s.se_median : NAN);
		csv_num(f, g->s.q1);
		csv_num(f, g->s.q3);
		csv_num(f, g->s.min);
		csv_num(f, g->s.max);
		csv_num(f, g->s.mean);
		csv_num(f, g->s.fence_lo);
		csv_num(f, g->s.fence_hi);
		csv_num(f, g->wait_ns);
		fprintf(f, ",%zu", g->nruns);
		csv_num(f, g->run_med_min);
		csv_num(f, g->run_med_max);
		csv_num(f, 100 * g->run_spread);
		csv_num(f, g->err_median_ns);
		fprintf(f, ",%zu", g->n_below_err);
		csv_num(f, g->first_ns);
		csv_num(f, g->first_min_ns);
		csv_num(f, g->first_max_ns);
		fprintf(f, ",%zu", g->first_n);
		csv_num(f, 100 * g->run_sd);
		if (isinf(g->resolvable))
			fputs(",inf", f);
		else
			csv_num(f, 100 * g->resolvable);
		fprintf(f, ",%d", g->ci_launches);
		if (summ)
			csv_num(f, g->resolution);
		fputc('\n', f);
	}
}

int st_table_write_csv(FILE *ops, FILE *groups, const struct st_table *t,
		       const struct st_table_meta *m)
{
	(void)m;
	if (ops)
		csv_ops(ops, t);
	if (groups)
		csv_groups(groups, t);
	return (ops && ferror(ops)) || (groups && ferror(groups)) ? -EIO : 0;
}

/* --- JSON ------------------------------------------------------------- */

/*
 * The document is built with jansson and written by st_json_write()
 * (json-out.h).  Each builder ORs the results of its st_jset() and
 * st_jadd() calls: non-zero means memory ran out.
 */

static json_t *jbool(int b)
{
	return json_boolean(b);
}

static json_t *jint(long long v)
{
	return json_integer((json_int_t)v);
}

/* How well the launches agree (st_table_launches()). */
static int json_launches(json_t *meta, const struct st_table *t)
{
	const struct st_table_options *o = st_table_opts(t);
	struct st_table_launches l;
	json_t *x;
	int rc;

	rc = st_table_launches(t, &l);
	if (rc)
		return rc;
	rc = st_jset(meta, "launches", x = json_object());
	if (!x)
		return rc;
	rc |= st_jset(x, "what", st_jstr("the launch (run) is the unit of "
		"replication: a group's run_medians_ns are its per-run "
		"medians, run_sd the standard deviation of their logarithms, "
		"resolvable the smallest relative difference between two "
		"tables like this one that 'synctrace table --compare' finds "
		"with probability 0.8 at level ci_level (null: fewer than 2 "
		"runs, or too few to show any difference)"));
	rc |= st_jset(x, "groups", jint((long long)l.n_groups));
	rc |= st_jset(x, "max_runs", jint((long long)l.max_runs));
	rc |= st_jset(x, "median_run_sd", st_jnum(l.median_run_sd));
	rc |= st_jset(x, "median_resolvable", st_jnum(l.median_resolvable));
	rc |= st_jset(x, "resolve", st_jnum(o->resolve));
	rc |= st_jset(x, "groups_unresolved", jint((long long)
						     l.n_unresolved));
	return rc;
}

static int json_meta(json_t *doc, const struct st_table *t,
		     const struct st_table_meta *m)
{
	const struct st_table_options *o = st_table_opts(t);
	double emed, emax, dmin = NAN, dmax = NAN;
	long long first = -1;
	size_t i, j, ng = st_table_ngroups(t), np = 0;
	json_t *meta = json_object(), *a, *x;
	long ps[64];
	char date[64], phase[128];
	int rc;

	rc = st_jset(doc, "metadata", meta);
	if (rc)
		return rc;
	for (i = 0; i < m->nruns; i++)
		if (m->runs[i].start_unix >= 0 &&
		    (first < 0 || m->runs[i].start_unix < first))
			first = m->runs[i].start_unix;
	rc |= st_jset(meta, "synctrace_version", st_jstr(ST_VERSION));
	rc |= st_jset(meta, "mpi_library", st_jstr(m->mpi_library));
	rc |= st_jset(meta, "mpi_library_differs", jbool(m->mpi_differs));
	rc |= st_jset(meta, "hosts", a = json_array());
	for (i = 0; a && i < m->nhosts; i++)
		rc |= st_jadd(a, st_jstr(m->hosts[i]));
	if (m->phase.mode != ST_PHASE_ALL)
		rc |= st_jset(meta, "phase", st_jstr(st_phase_name(&m->phase,
			phase, sizeof(phase))));
	rc |= st_jset(meta, "clock", st_jstr(m->clock));
	rc |= st_jset(meta, "clock_res_ns", st_jnum(m->clock_res_ns));
	rc |= st_jset(meta, "sync_method", st_jstr(m->sync_method < 0 ? NULL :
				st_sync_method_name(m->sync_method)));
	rc |= st_jset(meta, "sync_methods_differ", jbool(m->sync_differs));
	st_table_clock_err(t, &emed, &emax);
	rc |= st_jset(meta, "clock_error_ns", x = json_object());
	if (x) {
		rc |= st_jset(x, "median", st_jnum(emed));
		rc |= st_jset(x, "max", st_jnum(emax));
		rc |= st_jset(x, "samples", jint((long long)
						 st_table_nsamples(t)));
		rc |= st_jset(x, "what", st_jstr("estimated error of a cost "
			"from the two ranks' sync records, added"));
	}
	rc |= st_jset(meta, "date_unix", first >= 0 ? jint(first) :
		      json_null());
	rc |= st_jset(meta, "date", st_jstr(first >= 0 ?
			fmt_date(first, date, sizeof(date)) : NULL));
	for (i = 0; i < ng; i++) {
		const struct st_table_group *g = st_table_group(t, i);

		for (j = 0; j < np && ps[j] != g->p; j++)
			;
		if (j == np && np < sizeof(ps) / sizeof(ps[0]))
			ps[np++] = g->p;
		if (!(g->d >= dmin))
			dmin = g->d;
		if (!(g->d <= dmax))
			dmax = g->d;
	}
	for (i = 1; i < np; i++)
		for (j = i; j > 0 && ps[j - 1] > ps[j]; j--) {
			long y = ps[j];

			ps[j] = ps[j - 1];
			ps[j - 1] = y;
		}
	rc |= st_jset(meta, "process_counts", a = json_array());
	for (i = 0; a && i < np; i++)
		rc |= st_jadd(a, jint(ps[i]));
	rc |= st_jset(meta, "size_range_bytes", a = json_array());
	if (a) {
		rc |= st_jadd(a, st_jnum(dmin));
		rc |= st_jadd(a, st_jnum(dmax));
	}
	rc |= st_jset(meta, "cost", st_jstr(cost_text));
	rc |= st_jset(meta, "first_call", st_jstr("a group's first_ns: the "
		"median over runs of the cost of its first instance in each "
		"run (the process's first call of that operation and size); "
		"a bench run's first calls are its pilot's, not among its "
		"samples"));
	rc |= st_jset(meta, "statistic", st_jstr("median"));
	rc |= st_jset(meta, "ci_level", st_jnum(o->ci_level));
	rc |= st_jset(meta, "ci_method", st_jstr("order statistics (exact "
		"binomial for n <= 1000); a group of 2 or more runs "
		"(ci_launches true): the union of that interval and exp(mean "
		"+- t(runs - 1, (1 + ci_level) / 2) sd / sqrt(runs)) of the "
		"logarithms of its per-run medians, which holds the "
		"launch-to-launch spread"));
	rc |= st_jset(meta, "tukey_k", st_jnum(o->tukey_k));
	rc |= st_jset(meta, "bins_per_octave", jint(o->bins_per_octave));
	rc |= st_jset(meta, "time_unit", st_jstr("ns"));
	rc |= st_jset(meta, "size_unit", st_jstr("B"));
	rc |= st_jset(meta, "model", st_jstr("T(p, d) = a + b*f(p) + "
		"c*g(p)*d, T in ns, d in bytes, log2 base 2"));
	rc |= json_launches(meta, t);
	rc |= st_jset(meta, "runs", a = json_array());
	for (i = 0; a && i < m->nruns; i++) {
		const struct st_table_run *r = &m->runs[i];

		rc |= st_jadd(a, x = json_object());
		if (!x)
			break;
		rc |= st_jset(x, "dir", st_jstr(r->dir));
		rc |= st_jset(x, "nranks", jint(r->nranks));
		rc |= st_jset(x, "ranks_read", jint(r->nread));
		rc |= st_jset(x, "ranks_synced", jint(r->nsynced));
		rc |= st_jset(x, "complete", jbool(r->complete));
		rc |= st_jset(x, "bench", jbool(r->bench));
		rc |= st_jset(x, "run_id", st_jstr(r->run_id));
		rc |= st_jset(x, "start_unix", r->start_unix >= 0 ?
			      jint(r->start_unix) : json_null());
		rc |= st_jset(x, "cmdline", st_jstr(r->cmdline));
		rc |= st_jset(x, "sync_check", st_jstr(r->sync_check));
	}
	rc |= st_jset(meta, "left_out", x = json_object());
	if (x) {
		rc |= st_jset(x, "calls_inter",
			      jint((long long)m->calls_inter));
		rc |= st_jset(x, "calls_missing",
			      jint((long long)m->calls_missing));
		rc |= st_jset(x, "calls_unsynced",
			      jint((long long)m->calls_unsynced));
		rc |= st_jset(x, "incomplete", jint((long long)m->incomplete));
		rc |= st_jset(x, "p2p_nonblocking",
			      jint((long long)m->p2p_nonblocking));
		rc |= st_jset(x, "p2p_unmatched",
			      jint((long long)m->p2p_unmatched));
		rc |= st_jset(x, "p2p_inconsistent",
			      jint((long long)m->p2p_inconsistent));
		rc |= st_jset(x, "p2p_self", jint((long long)m->p2p_self));
		rc |= st_jset(x, "p2p_unsynced",
			      jint((long long)m->p2p_unsynced));
		rc |= st_jset(x, "ranks_failed",
			      jint((long long)m->ranks_failed));
	}
	return rc;
}

static json_t *json_piece(const struct st_fit_piece *pc, double from,
			  double to)
{
	static const char *const names[3] = { "a", "b", "c" };
	static const char *const units[3] = { "ns", "ns", "ns/B" };
	json_t *x = json_object(), *a, *b, *y;
	char form[512], q[16];
	int j, k, rc = 0;

	if (!x)
		return NULL;
	st_fit_piece_format(pc, 0, form, sizeof(form));
	rc |= st_jset(x, "d_from_bytes", st_jnum(from));
	rc |= st_jset(x, "d_to_bytes", st_jnum(to));
	rc |= st_jset(x, "formula", st_jstr(form));
	rc |= st_jset(x, "terms", a = json_array());
	for (j = 0; a && j < 3; j++) {
		int fn = j == 0 ? ST_FIT_ONE : j == 1 ? pc->f : pc->g;

		if (fn == ST_FIT_NONE)
			continue;
		rc |= st_jadd(a, y = json_object());
		if (!y)
			break;
		rc |= st_jset(y, "name", st_jstr(names[j]));
		rc |= st_jset(y, "fn", st_jstr(st_fit_fn_name(fn)));
		rc |= st_jset(y, "times_d", jbool(j == 2));
		rc |= st_jset(y, "unit", st_jstr(units[j]));
		rc |= st_jset(y, "coef", st_jnum(pc->coef[j]));
		rc |= st_jset(y, "se", st_jnum(pc->se[j]));
		rc |= st_jset(y, "ci_lo", st_jnum(pc->ci_lo[j]));
		rc |= st_jset(y, "ci_hi", st_jnum(pc->ci_hi[j]));
	}
	rc |= st_jset(x, "cov", a = json_array());
	for (j = 0; a && j < 3; j++) {
		rc |= st_jadd(a, b = json_array());
		for (k = 0; b && k < 3; k++)
			rc |= st_jadd(b, st_jnum(pc->cov[j][k]));
	}
	rc |= st_jset(x, "level", st_jnum(pc->level));
	rc |= st_jset(x, "weighted", jbool(pc->weighted));
	rc |= st_jset(x, "chi2", st_jnum(pc->chi2));
	rc |= st_jset(x, "dof", jint(pc->dof));
	rc |= st_jset(x, "q", pc->has_q ? st_jnum(pc->q) : json_null());
	st_fit_format_q(pc, q, sizeof(q));
	rc |= st_jset(x, "q_text", st_jstr(q));
	rc |= st_jset(x, "r2_adj", st_jnum(pc->r2_adj));
	rc |= st_jset(x, "p_min", jint(pc->p_min));
	rc |= st_jset(x, "p_max", jint(pc->p_max));
	rc |= st_jset(x, "d_min_bytes", st_jnum(pc->d_min));
	rc |= st_jset(x, "d_max_bytes", st_jnum(pc->d_max));
	rc |= st_jset(x, "groups", jint((long long)pc->n_groups));
	rc |= st_jset(x, "samples", jint(pc->n_samples));
	rc |= st_jset(x, "p_identified",
		      jbool(!(pc->flags & ST_FIT_P_NOT_IDENTIFIED)));
	rc |= st_jset(x, "d_identified",
		      jbool(!(pc->flags & ST_FIT_D_NOT_IDENTIFIED)));
	rc |= st_jset(x, "runners_up", a = json_array());
	for (j = 0; a && j < pc->nalt; j++) {
		rc |= st_jadd(a, y = json_object());
		if (!y)
			break;
		rc |= st_jset(y, "f", st_jstr(st_fit_fn_name(pc->alt[j].f)));
		rc |= st_jset(y, "g", st_jstr(st_fit_fn_name(pc->alt[j].g)));
		rc |= st_jset(y, "terms", jint(pc->alt[j].nterms));
		rc |= st_jset(y, "cv", st_jnum(pc->alt[j].cv));
	}
	if (rc) {
		json_decref(x);
		return NULL;
	}
	return x;
}

static json_t *json_group(const struct st_table_group *g)
{
	json_t *x = json_object(), *a;
	size_t i;
	int rc = 0;

	if (!x)
		return NULL;
	rc |= st_jset(x, "p", jint(g->p));
	rc |= st_jset(x, "d_bytes", st_jnum(g->d));
	rc |= st_jset(x, "n_in", jint((long long)g->n_in));
	if (g->resolution > 0)
		rc |= st_jset(x, "summary_resolution",
			      st_jnum(g->resolution));
	rc |= st_jset(x, "n", jint((long long)g->s.n));
	rc |= st_jset(x, "dropped", jint((long long)g->s.n_dropped));
	rc |= st_jset(x, "median_ns", st_jnum(g->s.median));
	rc |= st_jset(x, "ci_lo_ns", st_jnum(g->s.ci_ok ? g->s.ci_lo : NAN));
	rc |= st_jset(x, "ci_hi_ns", st_jnum(g->s.ci_ok ? g->s.ci_hi : NAN));
	rc |= st_jset(x, "se_median_ns",
		      st_jnum(g->s.ci_ok ? g->s.se_median : NAN));
	rc |= st_jset(x, "q1_ns", st_jnum(g->s.q1));
	rc |= st_jset(x, "q3_ns", st_jnum(g->s.q3));
	rc |= st_jset(x, "min_ns", st_jnum(g->s.min));
	rc |= st_jset(x, "max_ns", st_jnum(g->s.max));
	rc |= st_jset(x, "wait_ns", st_jnum(g->wait_ns));
	rc |= st_jset(x, "runs", jint((long long)g->nruns));
	rc |= st_jset(x, "ci_launches", jbool(g->ci_launches));
	rc |= st_jset(x, "run_spread", st_jnum(g->run_spread));
	rc |= st_jset(x, "run_medians_ns", a = json_array());
	for (i = 0; a && i < g->nruns; i++)
		rc |= st_jadd(a, st_jnum(g->run_med[i]));
	rc |= st_jset(x, "run_ids", a = json_array());
	for (i = 0; a && i < g->nruns; i++)
		rc |= st_jadd(a, jint(g->run_no[i]));
	rc |= st_jset(x, "run_sd", st_jnum(g->run_sd));
	rc |= st_jset(x, "resolvable", st_jnum(g->resolvable));
	rc |= st_jset(x, "clock_err_median_ns", st_jnum(g->err_median_ns));
	rc |= st_jset(x, "below_clock_err", jint((long long)g->n_below_err));
	if (g->first_n) {
		rc |= st_jset(x, "first_ns", st_jnum(g->first_ns));
		rc |= st_jset(x, "first_min_ns", st_jnum(g->first_min_ns));
		rc |= st_jset(x, "first_max_ns", st_jnum(g->first_max_ns));
		rc |= st_jset(x, "first_runs", jint((long long)g->first_n));
	}
	if (rc) {
		json_decref(x);
		return NULL;
	}
	return x;
}

static json_t *json_op(const struct st_table *t, const struct st_table_op *op)
{
	char b1[32], b2[32], notes[256];
	const char *rule = op->kind == ST_TABLE_P2P ? "the bytes received" :
			   op->kind != ST_TABLE_COLL ?
			   "the bytes of a message" :
			   st_table_size_rule(op->bytes_class);
	json_t *x = json_object(), *mo, *a;
	size_t i;
	int k, rc = 0;

	if (!x)
		return NULL;
	rc |= st_jset(x, "op", st_jstr(op->name));
	rc |= st_jset(x, "kind", st_jstr(kind_name(op->kind)));
	rc |= st_jset(x, "fn", st_jstr(st_fn_name(op->fn, b1, sizeof(b1))));
	rc |= st_jset(x, "recv_fn", st_jstr(op->fn2 ?
				st_fn_name(op->fn2, b2, sizeof(b2)) : NULL));
	rc |= st_jset(x, "d_rule", st_jstr(rule));
	rc |= st_jset(x, "operations", jint((long long)op->samples));
	rc |= st_jset(x, "dropped", jint((long long)op->n_dropped));
	rc |= st_jset(x, "kept", jint((long long)op->n_kept));
	rc |= st_jset(x, "wait_ns", st_jnum(op->wait_ns));
	rc |= st_jset(x, "call_ns", st_jnum(op->call_ns));
	rc |= st_jset(x, "p_min", jint(op->p_min));
	rc |= st_jset(x, "p_max", jint(op->p_max));
	rc |= st_jset(x, "d_min_bytes", st_jnum(op->d_min));
	rc |= st_jset(x, "d_max_bytes", st_jnum(op->d_max));
	rc |= st_jset(x, "notes", st_jstr(fit_notes(op, notes, sizeof(notes))));
	if (op->fit_rc) {
		rc |= st_jset(x, "model", json_null());
		rc |= st_jset(x, "no_model", st_jstr(op->ngroups == 1 ?
					"one group" : "too few groups"));
	} else {
		rc |= st_jset(x, "model", mo = json_object());
		if (mo) {
			rc |= st_jset(mo, "pieces", jint(op->fit.npieces));
			rc |= st_jset(mo, "d_below_bytes",
				      st_jnum(op->fit.npieces > 1 ?
					      op->fit.d_below : NAN));
			rc |= st_jset(mo, "d_split_bytes",
				      st_jnum(op->fit.npieces > 1 ?
					      op->fit.d_split : NAN));
			rc |= st_jset(mo, "weighted", jbool(op->fit.weighted));
			rc |= st_jset(mo, "groups",
				      jint((long long)op->fit.n_groups));
			rc |= st_jset(mo, "groups_used",
				      jint((long long)op->fit.n_groups_used));
			rc |= st_jset(mo, "groups_without_sigma",
				      jint((long long)
					   op->fit.n_groups_nosigma));
			rc |= st_jset(mo, "samples", jint(op->fit.n_samples));
			rc |= st_jset(mo, "piece", a = json_array());
			for (k = 0; a && k < op->fit.npieces; k++)
				rc |= st_jadd(a, json_piece(&op->fit.piece[k],
					k ? op->fit.d_split : 0,
					k || op->fit.npieces == 1 ? NAN :
					op->fit.d_below));
		}
	}
	rc |= st_jset(x, "groups", a = json_array());
	for (i = 0; a && i < op->ngroups; i++)
		rc |= st_jadd(a, json_group(st_table_group(t, op->groups[i])));
	if (rc) {
		json_decref(x);
		return NULL;
	}
	return x;
}

/* The start rows: "start": [{bytes, series, ..., profile_ns: [...]}]. */
static json_t *json_starts(const struct st_table *t)
{
	json_t *a = json_array(), *x, *pr;
	size_t i, k, nr = st_table_nstarts(t);
	int rc = !a;

	for (i = 0; a && i < nr; i++) {
		const struct st_table_start *r = st_table_start(t, i);

		rc |= st_jadd(a, x = json_object());
		if (!x)
			break;
		rc |= st_jset(x, "bytes", st_jnum(r->bytes));
		rc |= st_jset(x, "series", jint((long long)r->series));
		rc |= st_jset(x, "messages", jint((long long)r->msgs));
		rc |= st_jset(x, "steady_ns", st_jnum(r->steady_ns));
		rc |= st_jset(x, "excess_ns", st_jnum(r->excess_ns));
		rc |= st_jset(x, "excess_min_ns", st_jnum(r->excess_min_ns));
		rc |= st_jset(x, "excess_max_ns", st_jnum(r->excess_max_ns));
		rc |= st_jset(x, "slow", jint((long long)r->slow));
		rc |= st_jset(x, "profile_ns", pr = json_array());
		for (k = 0; pr && k < r->msgs; k++)
			rc |= st_jadd(pr, st_jnum(r->profile_ns[k]));
	}
	if (rc) {
		json_decref(a);
		return NULL;
	}
	return a;
}

int st_table_write_json(FILE *f, const struct st_table *t,
			const struct st_table_meta *m)
{
	size_t i, nops = st_table_nops(t);
	json_t *doc = json_object(), *ops;
	int rc = 0;

	if (!doc)
		return -ENOMEM;
	rc |= st_jset(doc, "format", st_jstr("synctrace-table"));
	rc |= st_jset(doc, "version", jint(1));
	rc |= json_meta(doc, t, m);
	rc |= st_jset(doc, "operations", ops = json_array());
	for (i = 0; ops && i < nops; i++)
		rc |= st_jadd(ops, json_op(t, st_table_op(t, i)));
	if (st_table_nstarts(t))
		rc |= st_jset(doc, "start", json_starts(t));
	rc = rc ? -ENOMEM : st_json_write(f, doc);
	json_decref(doc);
	return rc;
}
