/*
 * tools/cli/cmd-report.c: 'synctrace report', a profile of a run.  The
 * analysis library reads the run (tools/analysis/profile.h): per MPI
 * function calls, bytes and time; per nonblocking or persistent
 * operation the time from its start to its completion; per call site
 * and per communicator size, calls and time; and, when the trace holds
 * sync records, each blocking collective's instances matched across
 * ranks in global time (tools/analysis/imbalance.h).  This file parses
 * the command line and prints those sections within 100 columns, each
 * number with its unit and its count; then the verdict on imbalance by
 * rank and who talks to whom (report-views.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/analysis/format.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/io.h"
#include "tools/analysis/phase.h"
#include "tools/analysis/profile.h"
#include "tools/analysis/rma.h"
#include "tools/analysis/symbols.h"
#include "tools/cli/outfile.h"
#include "tools/cli/report-views.h"
#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"
#include "writer/event.h"
#include "writer/reader.h"

const char st_report_usage[] =
"usage: synctrace report [--top N] [--phase N|level=L] [--matrix-csv FILE]\n"
"                        [--matrix-json FILE] RUN\n"
"\n"
"Summarise run directory RUN: time and bytes per MPI function, time from\n"
"start to completion of nonblocking and persistent operations, the call\n"
"sites that spent most time in MPI (symbolised with addr2line), and calls\n"
"per communicator size.  Run time is, per rank, from the end of MPI_Init\n"
"(and of synctrace's own work there) to the start of MPI_Finalize (or of\n"
"synctrace's finalize work, which precedes it; or to the last record when\n"
"there is no MPI_Finalize).\n"
"With clock synchronisation records, blocking collectives are matched\n"
"across ranks in global time: arrival imbalance, waiting for the last\n"
"rank, time in the operation after the last arrival and exit skew, per\n"
"function and per call site; the verdict names the rank that arrives\n"
"last at the call site with most waiting, and how much of it it causes.\n"
"Then one-sided communication per window (epochs by kind, bytes by target\n"
"and by function, time in synchronisation and in communication calls) and\n"
"MPI-IO per file (bytes, time, its collective calls in global time), time\n"
"per rank and who sends how many bytes to whom.\n"
"\n"
"    --top N     show the N call sites with most time, the N pairs with\n"
"                most bytes (default 10, 0: all)\n"
"    --phase N   only the N-th phase: from the N-th MPI_Pcontrol call of\n"
"                each rank (and thread) to the next (0: before the first)\n"
"    --phase level=L  only the phases opened by MPI_Pcontrol(L); with\n"
"                --phase, the run time is the time in those phases, and\n"
"                time per rank and the matrices are left out\n"
"    --matrix-csv FILE   write the communication matrices as CSV\n"
"    --matrix-json FILE  write them as JSON\n"
"    -h, --help  show this help\n";


#define WIDTH 100		/* lines are kept within this many columns */

struct report {
	struct st_profile *p;
	const struct st_profile_sum *sum;
	const struct st_profile_fn *fn;	/* [ST_PROFILE_NFN] */
	struct st_symtab *syms;
	long top;			/* --top */
	const char *matrix_csv, *matrix_json;	/* --matrix-csv, -json */
	struct st_phase_sel phase;	/* --phase */
	struct st_rviews *views;	/* without --phase */
};

/* "12.3%" of 'part' in 'whole', or "-" when there is no whole. */
static char *fmt_pct(double part, double whole, char *buf, size_t len)
{
	if (whole <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * part / whole);
	return buf;
}

static char *fmt_n(uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "n=%" PRIu64, n);
	return buf;
}

/* Print 's' cut to 'width' columns, "..." marking a cut. */
static void put_cut(const char *s, size_t width)
{
	size_t len = strlen(s);

	if (len <= width || width < 4)
		printf("%s\n", s);
	else
		printf("%.*s...\n", (int)(width - 3), s);
}

/* Sort keys of a function id: by 'key' descending, then by id. */
static int cmp_desc(uint64_t x, uint64_t y, const void *a, const void *b)
{
	if (x != y)
		return x < y ? 1 : -1;
	return *(const uint16_t *)a - *(const uint16_t *)b;
}

static int cmp_fn_time(const void *a, const void *b, void *ctx)
{
	const struct st_profile_fn *fn = ctx;

	return cmp_desc(fn[*(const uint16_t *)a].time_ns,
			fn[*(const uint16_t *)b].time_ns, a, b);
}

static int cmp_fn_bytes(const void *a, const void *b, void *ctx)
{
	const struct st_profile_fn *fn = ctx;
	const struct st_profile_fn *x = &fn[*(const uint16_t *)a];
	const struct st_profile_fn *y = &fn[*(const uint16_t *)b];

	return cmp_desc(x->sbytes + x->rbytes, y->sbytes + y->rbytes, a, b);
}

static int cmp_fn_optime(const void *a, const void *b, void *ctx)
{
	const struct st_profile_fn *fn = ctx;

	return cmp_desc(fn[*(const uint16_t *)a].op_ns,
			fn[*(const uint16_t *)b].op_ns, a, b);
}

/* Sort the 'n' function ids 'ids' by 'cmp' over the table 'rp->fn'. */
static void sort_ids(struct report *rp, uint16_t *ids, size_t n,
		     int (*cmp)(const void *, const void *, void *))
{
	qsort_r(ids, n, sizeof(*ids), cmp, (void *)rp->fn);
}

/*
 * "label: value" cut to the report's width; tabs in 'value' (header
 * values may hold them) print as spaces, what else a terminal would
 * obey escaped (st_fmt_str()).
 */
static void print_field(const char *label, const char *value)
{
	char line[WIDTH + 8], raw[WIDTH + 8], safe[WIDTH + 8];
	size_t n, i;

	/* Longer than the line: cut anyway ("..." below). */
	n = strlen(value);
	n = n < sizeof(raw) ? n : sizeof(raw);
	for (i = 0; i < n; i++)
		raw[i] = value[i] == '\t' ? ' ' : value[i];
	st_fmt_text(raw, n, safe, sizeof(safe));
	n = (size_t)snprintf(line, sizeof(line), "%-13s%s", label, safe);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	if (n > WIDTH) {
		memcpy(line + WIDTH - 3, "...", 4);
	}
	puts(line);
}

static const char *name_of(unsigned fn, char *buf, size_t len)
{
	return st_fn_name(fn, buf, len);
}

/* Whether the space-separated list 'list' holds the word 'w' ('n' bytes). */
static int has_word(const char *list, const char *w, size_t n)
{
	const char *e;
	size_t m;

	while (*list) {
		e = strchr(list, ' ');
		m = e ? (size_t)(e - list) : strlen(list);
		if (m == n && !strncmp(list, w, n))
			return 1;
		list += m;
		while (*list == ' ')
			list++;
	}
	return 0;
}

/*
 * The words of config 'other' (space-separated "name=value") that
 * config 'first' does not hold, into 'buf' ('len' bytes).
 */
static void config_diff(const char *other, const char *first, char *buf,
			size_t len)
{
	const char *e;
	size_t n, used = 0;

	buf[0] = '\0';
	while (*other) {
		e = strchr(other, ' ');
		n = e ? (size_t)(e - other) : strlen(other);
		if (n && !has_word(first, other, n) && used + n + 2 < len)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%.*s", used ? " " : "",
						 (int)n, other);
		other += n;
		while (*other == ' ')
			other++;
	}
}

static void print_summary(struct report *rp, const char *dir,
			  struct st_run *run)
{
	const char *cmdline = run ? st_run_get(run, "cmdline") : NULL;
	const char *complete = run ? st_run_get(run, "complete") : NULL;
	char a[32], b[32], c[32], d[WIDTH], list[128], line[WIDTH];
	double run_total = (double)rp->sum->run_ns;

	printf("synctrace report: %s\n", dir);
	printf("ranks:       n=%d read", rp->sum->nread);
	if (rp->sum->nmissing) {
		st_rank_list(rp->sum->missing, (size_t)rp->sum->nmissing, list,
			     sizeof(list));
		printf(" of %d (no trace from rank%s %s)", rp->sum->expected,
		       rp->sum->nmissing == 1 ? "" : "s", list);
	}
	if (rp->sum->nhosts)
		printf(", on n=%zu host%s", rp->sum->nhosts,
		       rp->sum->nhosts == 1 ? "" : "s");
	if (run)
		printf(", run %s", complete && !strcmp(complete, "1") ?
		       "complete" : "incomplete (not every rank finished)");
	putchar('\n');
	if (cmdline)
		print_field("command:", cmdline);
	if (rp->sum->cmd_others) {
		snprintf(line, sizeof(line), "n=%d other rank%s ran another "
			 "command, the first: rank %d:", rp->sum->cmd_others,
			 rp->sum->cmd_others == 1 ? "" : "s",
			 rp->sum->cmd_other_rank);
		print_field(cmdline ? "" : "command:", line);
		print_field("", rp->sum->cmd_other);
	}
	if (rp->sum->mpi_library)
		print_field("MPI library:", rp->sum->mpi_library);
	if (rp->sum->clock) {
		print_field("clock:", rp->sum->clock);
		snprintf(line, sizeof(line),
			 "resolution %s ns, read cost %s ns",
			 rp->sum->clock_res ? rp->sum->clock_res : "?",
			 rp->sum->clock_cost ? rp->sum->clock_cost : "?");
		print_field("", line);
	}
	if (rp->sum->config) {
		print_field("config:", rp->sum->config);
		if (rp->sum->config_others) {
			config_diff(rp->sum->config_other, rp->sum->config,
				    d, sizeof(d));
			snprintf(line, sizeof(line), "n=%d other rank%s had "
				 "another, the first: rank %d: %s",
				 rp->sum->config_others,
				 rp->sum->config_others == 1 ? "" : "s",
				 rp->sum->config_other_rank, d);
			print_field("", line);
		}
	}
	if (rp->sum->nocomplete && rp->sum->nocomplete == rp->sum->nread) {
		print_field("", "no completion calls traced: nonblocking "
			    "spans and received bytes unknown");
	} else if (rp->sum->nocomplete) {
		snprintf(line, sizeof(line), "no completion calls traced on "
			 "n=%d of %d ranks (the first: rank %d):",
			 rp->sum->nocomplete, rp->sum->nread,
			 rp->sum->nocomplete_rank);
		print_field("", line);
		print_field("", "their nonblocking spans and received bytes "
			    "unknown");
	}
	if (rp->phase.mode != ST_PHASE_ALL) {
		st_phase_name(&rp->phase, line, sizeof(line));
		printf("phase:       %s\n             n=%" PRIu64 " "
		       "phases over ranks and threads%s; the figures below "
		       "are of them alone\n", line, rp->sum->phases,
		       rp->sum->phases ? "" : " (no rank has one)");
	}
	if (rp->sum->nrun) {
		printf("run time:    mean %s per rank, min %s, max %s (n=%d "
		       "ranks),\n"
		       "             %s\n",
		       st_fmt_ns(run_total / rp->sum->nrun, a, sizeof(a)),
		       st_fmt_ns((double)rp->sum->run_min, b, sizeof(b)),
		       st_fmt_ns((double)rp->sum->run_max, c, sizeof(c)),
		       rp->sum->nrun, rp->phase.mode != ST_PHASE_ALL ?
		       "in the phase: from each marker's exit to the next "
		       "marker's entry" :
		       "from the end of MPI_Init to the start of "
		       "MPI_Finalize");
	} else {
		printf("run time:    unknown (no rank has records)\n");
	}
	printf("MPI time:    %s summed over %d ranks (n=%" PRIu64 " calls), "
	       "%s of run time\n",
	       st_fmt_ns((double)rp->sum->mpi_ns, a, sizeof(a)), rp->sum->nread,
	       rp->sum->mpi_calls,
	       fmt_pct((double)rp->sum->mpi_ns, run_total, b, sizeof(b)));
	if (rp->sum->marks)
		printf("synctrace:   %s of its own work in the run time, "
		       "over %d ranks (n=%" PRIu64 " marks),\n"
		       "             %s of run time\n",
		       st_fmt_ns((double)rp->sum->mark_ns, c, sizeof(c)),
		       rp->sum->nread, rp->sum->marks,
		       fmt_pct((double)rp->sum->mark_ns, run_total, d,
			       sizeof(d)));
	if (rp->sum->inits)
		printf("%s%s per rank at MPI_Init (set-up, clock "
		       "synchronisation), before\n"
		       "             the run: mean over n=%" PRIu64 " ranks\n",
		       rp->sum->marks ? "             and " : "synctrace:   ",
		       st_fmt_ns((double)rp->sum->init_ns /
				 (double)rp->sum->inits, a, sizeof(a)),
		       rp->sum->inits);
}

static void print_functions(struct report *rp, uint16_t *ids, size_t n)
{
	char nm[32], cn[32], t[32], mean[32], mn[32], mx[32], pm[16], pr[16];
	double run_total = (double)rp->sum->run_ns;
	size_t i, w = 8;

	for (i = 0; i < n; i++) {
		size_t l = strlen(name_of(ids[i], nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	printf("\nTime in MPI functions, summed over %d ranks; min/max "
	       "are of the per-rank totals.\n"
	       "%%MPI and %%run leave out MPI_Init and MPI_Finalize, which "
	       "lie outside the run time.\n\n", rp->sum->nread);
	printf("%-*s %9s %10s %10s %10s %10s %6s %6s\n", (int)w, "function",
	       "calls", "total", "mean/call", "min/rank", "max/rank", "%MPI",
	       "%run");
	for (i = 0; i < n; i++) {
		const struct st_profile_fn *s = &rp->fn[ids[i]];
		uint64_t min = s->nranks < rp->sum->nread ? 0 : s->rank_min;
		int out = st_profile_outside_run(ids[i]);

		printf("%-*s %9s %10s %10s %10s %10s %6s %6s\n", (int)w,
		       name_of(ids[i], nm, sizeof(nm)),
		       fmt_n(s->calls, cn, sizeof(cn)),
		       st_fmt_ns((double)s->time_ns, t, sizeof(t)),
		       st_fmt_ns(s->calls ? (double)s->time_ns / s->calls : 0,
				 mean, sizeof(mean)),
		       st_fmt_ns((double)min, mn, sizeof(mn)),
		       st_fmt_ns((double)s->rank_max, mx, sizeof(mx)),
		       out ? "-" : fmt_pct((double)s->time_ns,
					   (double)rp->sum->mpi_ns, pm,
					   sizeof(pm)),
		       out ? "-" : fmt_pct((double)s->time_ns, run_total, pr,
					   sizeof(pr)));
	}
}

static void print_bytes(struct report *rp, uint16_t *ids, size_t n)
{
	char nm[32], cn[32], sb[32], rb[32], ms[32], mr[32];
	size_t i, w = 8, rows = 0;

	for (i = 0; i < n; i++) {
		const struct st_profile_fn *s = &rp->fn[ids[i]];
		size_t l = strlen(name_of(ids[i], nm, sizeof(nm)));

		if (!s->sbytes && !s->rbytes)
			continue;
		rows++;
		if (l > w)
			w = l;
	}
	if (!rows)
		return;
	sort_ids(rp, ids, n, cmp_fn_bytes);
	printf("\nBytes by MPI function, summed over %d ranks; per call of "
	       "the function (persistent:\nper started instance).\n\n",
	       rp->sum->nread);
	printf("%-*s %10s %11s %11s %11s %11s\n", (int)w, "function",
	       "calls", "sent", "received", "sent/call", "recv/call");
	for (i = 0; i < n; i++) {
		const struct st_profile_fn *s = &rp->fn[ids[i]];
		uint64_t per = s->starts ? s->starts : s->calls;

		if (!s->sbytes && !s->rbytes)
			continue;
		printf("%-*s %10s %11s %11s %11s %11s\n", (int)w,
		       name_of(ids[i], nm, sizeof(nm)),
		       fmt_n(per, cn, sizeof(cn)),
		       st_fmt_bytes(s->sbytes, sb, sizeof(sb)),
		       st_fmt_bytes(s->rbytes, rb, sizeof(rb)),
		       st_fmt_bytes(per ? s->sbytes / per : 0, ms, sizeof(ms)),
		       st_fmt_bytes(per ? s->rbytes / per : 0, mr, sizeof(mr)));
	}
}

static void print_completions(struct report *rp, uint16_t *ids, size_t n)
{
	char nm[32], cn[32], t[32], mean[32], mn[32], mx[32], pend[32];
	size_t i, w = 8, rows = 0;
	uint64_t freed = 0, cancelled = 0;

	for (i = 0; i < n; i++) {
		const struct st_profile_fn *s = &rp->fn[ids[i]];
		size_t l = strlen(name_of(ids[i], nm, sizeof(nm)));

		if (!s->ops && !s->pending && !s->freed)
			continue;
		rows++;
		if (l > w)
			w = l;
	}
	if (!rows)
		return;
	sort_ids(rp, ids, n, cmp_fn_optime);
	printf("\nNonblocking and persistent operations: time from the start "
	       "(entry of the I-call or\nof MPI_Start) to the exit of the "
	       "Wait/Test call that completed it, over %d ranks;\n"
	       "pending: started but never seen completed.\n\n",
	       rp->sum->nread);
	printf("%-*s %10s %10s %10s %10s %10s %8s\n", (int)w, "function",
	       "operations", "total", "mean/op", "min/op", "max/op",
	       "pending");
	for (i = 0; i < n; i++) {
		const struct st_profile_fn *s = &rp->fn[ids[i]];

		freed += s->freed;
		cancelled += s->cancelled;
		if (!s->ops && !s->pending && !s->freed)
			continue;
		printf("%-*s %10s %10s %10s %10s %10s %8s\n", (int)w,
		       name_of(ids[i], nm, sizeof(nm)),
		       fmt_n(s->ops, cn, sizeof(cn)),
		       st_fmt_ns((double)s->op_ns, t, sizeof(t)),
		       st_fmt_ns(s->ops ? (double)s->op_ns / s->ops : 0, mean,
				 sizeof(mean)),
		       st_fmt_ns((double)s->op_min, mn, sizeof(mn)),
		       st_fmt_ns((double)s->op_max, mx, sizeof(mx)),
		       fmt_n(s->pending, pend, sizeof(pend)));
	}
	if (freed)
		printf("(n=%" PRIu64 " operations were freed by "
		       "MPI_Request_free while active: their completion is "
		       "not seen, and they are not pending)\n", freed);
	if (cancelled)
		printf("(n=%" PRIu64 " of the operations completed cancelled "
		       "(MPI_Cancel): no data moved, no bytes counted)\n",
		       cancelled);
	if (rp->sum->unmatched)
		printf("(n=%" PRIu64 " completions of requests whose start "
		       "was not traced are left out)\n", rp->sum->unmatched);
}

static void print_sites(struct report *rp)
{
	const char *prog = getenv("SYNCTRACE_ADDR2LINE");
	char nm[32], cn[32], t[32], mean[32], rk[32], loc[1024], line[1200];
	const struct st_profile_site *gs;
	size_t i, n, ngs, w = 8;

	gs = st_profile_sites(rp->p, &ngs);
	if (!ngs)
		return;
	if (!prog || !*prog)
		prog = "addr2line";
	if (st_symtab_resolve(rp->syms, prog) == -ENOENT)
		warning("cannot run '%s': call sites are not symbolised",
			prog);
	n = rp->top > 0 && (size_t)rp->top < ngs ? (size_t)rp->top : ngs;
	for (i = 0; i < n; i++) {
		size_t l = strlen(name_of(gs[i].fn, nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	printf("\nTop %zu of %zu call sites by time in MPI, summed over %d "
	       "ranks:\n\n", n, ngs, rp->sum->nread);
	printf("%3s %-*s %12s %10s %10s %7s\n", "#", (int)w, "function",
	       "calls", "total", "mean/call", "ranks");
	for (i = 0; i < n; i++) {
		const struct st_profile_site *g = &gs[i];
		const struct st_sym *sym = st_symtab_get(rp->syms, g->sym);

		printf("%3zu %-*s %12s %10s %10s %7s\n", i + 1, (int)w,
		       name_of(g->fn, nm, sizeof(nm)),
		       fmt_n(g->calls, cn, sizeof(cn)),
		       st_fmt_ns((double)g->time_ns, t, sizeof(t)),
		       st_fmt_ns(g->calls ? (double)g->time_ns / g->calls : 0,
				 mean, sizeof(mean)),
		       fmt_n((uint64_t)g->nranks, rk, sizeof(rk)));
		if (sym)
			st_sym_format(sym, 1, loc, sizeof(loc));
		else
			snprintf(loc, sizeof(loc), "unknown (no call-site "
				 "record)");
		snprintf(line, sizeof(line), "    at %s", loc);
		put_cut(line, WIDTH);
	}
}

static void print_sizes(struct report *rp)
{
	char cm[32], cn[32], t[32], mean[32], pm[16];
	const struct st_profile_size *sizes;
	size_t i, nsizes;

	sizes = st_profile_sizes(rp->p, &nsizes);
	if (!nsizes)
		return;
	printf("\nCalls by communicator size (local group), summed over %d "
	       "ranks:\n\n", rp->sum->nread);
	printf("%10s %14s %12s %10s %10s %6s\n", "size", "communicators",
	       "calls", "total", "mean/call", "%MPI");
	for (i = 0; i < nsizes; i++) {
		const struct st_profile_size *z = &sizes[i];

		printf("%10" PRIu64 " %14s %12s %10s %10s %6s\n", z->size,
		       fmt_n(z->ncomms, cm, sizeof(cm)),
		       fmt_n(z->calls, cn, sizeof(cn)),
		       st_fmt_ns((double)z->time_ns, t, sizeof(t)),
		       st_fmt_ns(z->calls ? (double)z->time_ns / z->calls : 0,
				 mean, sizeof(mean)),
		       fmt_pct((double)z->time_ns, (double)rp->sum->mpi_ns, pm,
			       sizeof(pm)));
	}
}

/* Most time in collectives (waiting + after the last arrival) first. */
static int cmp_imb_row(const void *a, const void *b)
{
	const struct st_imb_row *x = a, *y = b;
	double tx = x->s.wait_ns + x->s.after_ns;
	double ty = y->s.wait_ns + y->s.after_ns;
	uint64_t nx = x->s.n + x->s.flagged, ny = y->s.n + y->s.flagged;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (nx != ny)
		return nx < ny ? 1 : -1;
	if (x->fn != y->fn)
		return x->fn - y->fn;
	return (x->sym > y->sym) - (x->sym < y->sym);
}

#define IMB_COLS "%-*s %9s %8s %-5s %10s %10s %10s %10s\n"

static void print_imb_head(const char *lead, int w)
{
	printf(IMB_COLS, w, lead, "instances", "flagged", "", "imbalance",
	       "waiting", "after last", "exit skew");
}

/* The "total" and "mean" lines of 's', the first led by 'lead'. */
static void print_imb_stat(const char *lead, int w,
			   const struct st_imb_stat *s)
{
	char n[32], f[32], a[32], b[32], c[32], d[32];
	double k = (double)s->n;

	printf(IMB_COLS, w, lead, fmt_n(s->n, n, sizeof(n)),
	       fmt_n(s->flagged, f, sizeof(f)), "total",
	       st_fmt_ns(s->imb_ns, a, sizeof(a)),
	       st_fmt_ns(s->wait_ns, b, sizeof(b)),
	       st_fmt_ns(s->after_ns, c, sizeof(c)),
	       st_fmt_ns(s->skew_ns, d, sizeof(d)));
	if (!s->n) {
		printf(IMB_COLS, w, "", "", "", "mean", "-", "-", "-", "-");
		return;
	}
	printf(IMB_COLS, w, "", "", "", "mean",
	       st_fmt_ns(s->imb_ns / k, a, sizeof(a)),
	       st_fmt_ns(s->wait_ns / k, b, sizeof(b)),
	       st_fmt_ns(s->after_ns / k, c, sizeof(c)),
	       st_fmt_ns(s->skew_ns / k, d, sizeof(d)));
}

static void print_left_out(const struct st_imb_totals *t)
{
	const char *label = "left out:";
	struct {
		uint64_t n;
		const char *what;
	} why[] = {
		{ t->calls_inter, "calls on inter-communicators (not "
				  "analysed)" },
		{ t->calls_single, "calls on one-rank communicators" },
		{ t->calls_missing, "calls whose instance lacks a member's "
				    "record (trace missing or cut)" },
		{ t->calls_unsynced, "calls on communicators with a rank "
				     "that has no global time" },
		{ t->incomplete, "instances begun but never complete" },
	};
	size_t i;

	for (i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		if (!why[i].n)
			continue;
		printf("%-14sn=%" PRIu64 " %s\n", label, why[i].n,
		       why[i].what);
		label = "";
	}
}

static void print_collectives(struct report *rp)
{
	const struct st_imb_totals *t;
	const struct st_imb_row *rows;
	struct st_imb_row *v;
	char nm[32], a[32], b[32], loc[1024], lead[64], line[1100];
	const char *method = st_profile_sync_method(rp->p);
	struct st_imb *imb = st_profile_imb(rp->p);
	char err[512];
	size_t i, n, top;
	int w = 8, rc;

	printf("\nCollectives in global time");
	if (!rp->sum->nsynced) {
		printf(": no clock synchronisation in this trace.\n");
		return;
	}
	/* From the views' walk of the run, else from a walk of its own. */
	rc = rp->views ? st_report_views_collectives(rp->views, rp->p, err,
						     sizeof(err)) : 1;
	if (rc == 1)
		rc = st_profile_collectives(rp->p, err, sizeof(err));
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc) {
		warning("%s: collectives in global time are not analysed",
			err);
		printf(": not analysed (a trace file could not be read).\n");
		return;
	}
	if (!method)
		method = "?";
	t = st_imb_totals(imb);
	printf(": blocking collectives on intra-communicators and over "
	       "windows\nand files, matched across ranks by communicator "
	       "(window, file) and sequence number;\nclocks "
	       "synchronised by %s (n=%d of %d ranks).\n"
	       "Much waiting: load imbalance in the application.  Much "
	       "'after last': the network (or algorithm).\n"
	       "  imbalance   last arrival - first arrival, per instance\n"
	       "  waiting     from a rank's arrival to the last arrival (or "
	       "its exit if earlier), over ranks\n"
	       "  after last  from the last arrival to a rank's exit, over "
	       "ranks\n"
	       "  exit skew   last exit - first exit, per instance\n",
	       method, rp->sum->nsynced, rp->sum->nread);
	if (t->nerr)
		printf("%-14smedian %s, max %s per instance (n=%" PRIu64
		       " instances), the sum\n%-14sof two ranks' estimates\n",
		       "clock error:",
		       st_fmt_ns(t->err_median_ns, a, sizeof(a)),
		       st_fmt_ns(t->err_max_ns, b, sizeof(b)), t->nerr, "");
	if (t->all.flagged)
		printf("%-14sn=%" PRIu64 " instance%s shorter than the clock "
		       "error: not in the totals and means\n", "flagged:",
		       t->all.flagged, t->all.flagged == 1 ? "" : "s");
	print_left_out(t);
	rows = st_imb_by_fn(imb, &n);
	if (!n) {
		printf("(no instance was complete on every member rank)\n");
		return;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		die("out of memory");
	memcpy(v, rows, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_imb_row);
	for (i = 0; i < n; i++) {
		int l = (int)strlen(name_of(v[i].fn, nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	putchar('\n');
	print_imb_head("function", w);
	for (i = 0; i < n; i++)
		print_imb_stat(name_of(v[i].fn, nm, sizeof(nm)), w, &v[i].s);
	free(v);

	rows = st_imb_by_site(imb, &n);
	v = malloc(n * sizeof(*v));
	if (!v)
		die("out of memory");
	memcpy(v, rows, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_imb_row);
	top = rp->top > 0 && (size_t)rp->top < n ? (size_t)rp->top : n;
	w = 8;
	for (i = 0; i < top; i++) {
		int l = 4 + (int)strlen(name_of(v[i].fn, nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	printf("\nTop %zu of %zu call sites by waiting + after last (site of "
	       "the lowest member rank):\n\n", top, n);
	print_imb_head("  # function", w);
	for (i = 0; i < top; i++) {
		const struct st_sym *sym = st_symtab_get(rp->syms, v[i].sym);

		snprintf(lead, sizeof(lead), "%3zu %s", i + 1,
			 name_of(v[i].fn, nm, sizeof(nm)));
		print_imb_stat(lead, w, &v[i].s);
		if (sym)
			st_sym_format(sym, 1, loc, sizeof(loc));
		else
			snprintf(loc, sizeof(loc), "unknown (no call-site "
				 "record)");
		snprintf(line, sizeof(line), "    at %s", loc);
		put_cut(line, WIDTH);
	}
	free(v);
}

/* "rank 3", "MPI_PROC_NULL". */
static char *target_name(int32_t rank, char *buf, size_t len)
{
	if (rank == ST_RANK_PROC_NULL)
		snprintf(buf, len, "MPI_PROC_NULL");
	else
		snprintf(buf, len, "rank %" PRId32, rank);
	return buf;
}

/* Most bytes first, then the lower rank. */
static int cmp_target(const void *a, const void *b)
{
	const struct st_rma_target *x = a, *y = b;
	uint64_t bx = x->sbytes + x->rbytes, by = y->sbytes + y->rbytes;

	if (bx != by)
		return bx < by ? 1 : -1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* "time 12 us (n=3 calls)". */
static char *fmt_time_calls(uint64_t ns, uint64_t calls, char *buf,
			    size_t len)
{
	char t[32];

	snprintf(buf, len, "%s (n=%" PRIu64 " calls)",
		 st_fmt_ns((double)ns, t, sizeof(t)), calls);
	return buf;
}

/* "n=3 instances in global time: waiting ..., after last ...". */
static void print_instances(const char *label, uint64_t inst,
			    uint64_t flagged, double wait_ns, double after_ns)
{
	char a[32], b[32];

	printf("  %-13sn=%" PRIu64 " instance%s in global time: waiting "
	       "%s, after last %s\n%-15s(summed over ranks; n=%" PRIu64
	       " flagged, shorter than the clock error)\n", label, inst,
	       inst == 1 ? "" : "s", st_fmt_ns(wait_ns, a, sizeof(a)),
	       st_fmt_ns(after_ns, b, sizeof(b)), "", flagged);
}

static int win_used(const struct st_rma_win *x)
{
	return x->sync.calls || x->xfer.calls || x->life.calls || x->inst ||
	       x->inst_flagged;
}

static void print_rma(struct report *rp)
{
	const struct st_rma_win *w;
	struct st_rma_target *tg;
	char nm[48], a[32], b[32], c[64], d[64], e[32], f[64];
	size_t n, i, k, top;

	w = st_rma_windows(st_profile_rma(rp->p), &n);
	if (!w && n)
		die("out of memory");
	/* With --phase, the windows used in it. */
	for (i = k = 0; i < n; i++)
		k += rp->phase.mode == ST_PHASE_ALL || win_used(&w[i]);
	if (!k)
		return;
	printf("\nOne-sided communication (RMA), per window, summed over %d "
	       "ranks; epochs are each\nrank's own, counted where they "
	       "close (fence to fence, start to complete, post to\nwait or "
	       "test, lock to unlock, lock_all to unlock_all).\n",
	       rp->sum->nread);
	for (i = 0; i < n; i++) {
		const struct st_rma_win *x = &w[i];

		if (rp->phase.mode != ST_PHASE_ALL && !win_used(x))
			continue;
		printf("\nwindow 0x%" PRIx64 ": %s on communicator 0x%" PRIx64
		       ", n=%d of %" PRIu32 " ranks\n", x->id,
		       x->ctor ? name_of(x->ctor, nm, sizeof(nm)) : "?",
		       x->comm, x->nranks, x->size);
		printf("  %-13s%s in all, %s to %s per rank\n", "memory",
		       st_fmt_bytes(x->mem, a, sizeof(a)),
		       st_fmt_bytes(x->mem_min, b, sizeof(b)),
		       st_fmt_bytes(x->mem_max, e, sizeof(e)));
		printf("  %-13sfence n=%" PRIu64 ", access (start-complete) "
		       "n=%" PRIu64 ", exposure (post-wait) n=%" PRIu64
		       ",\n%-15slock shared n=%" PRIu64 ", lock exclusive n=%"
		       PRIu64 ", lock_all n=%" PRIu64 "\n", "epochs",
		       x->epochs[ST_RMA_FENCE], x->epochs[ST_RMA_ACCESS],
		       x->epochs[ST_RMA_EXPOSURE],
		       "", x->epochs[ST_RMA_LOCK_SHARED],
		       x->epochs[ST_RMA_LOCK_EXCLUSIVE],
		       x->epochs[ST_RMA_LOCK_ALL]);
		printf("  %-13ssynchronisation %s, communication %s,\n"
		       "%-15smaking and freeing %s\n", "time",
		       fmt_time_calls(x->sync.time_ns, x->sync.calls, c,
				      sizeof(c)),
		       fmt_time_calls(x->xfer.time_ns, x->xfer.calls, d,
				      sizeof(d)), "",
		       fmt_time_calls(x->life.time_ns, x->life.calls, f,
				      sizeof(f)));
		printf("  %-13ssent %s, received %s (by its communication "
		       "calls)\n", "bytes", st_fmt_bytes(x->sbytes, a,
							  sizeof(a)),
		       st_fmt_bytes(x->rbytes, b, sizeof(b)));
		if (x->inst || x->inst_flagged)
			print_instances("collectives", x->inst,
					x->inst_flagged, x->wait_ns,
					x->after_ns);
		if (x->nfn) {
			printf("  %-24s %9s %11s %11s %10s\n", "function",
			       "calls", "sent", "received", "total");
			for (k = 0; k < x->nfn; k++)
				printf("  %-24s %9s %11s %11s %10s\n",
				       name_of(x->fn[k].fn, nm, sizeof(nm)),
				       fmt_n(x->fn[k].calls, c, sizeof(c)),
				       st_fmt_bytes(x->fn[k].sbytes, a,
						    sizeof(a)),
				       st_fmt_bytes(x->fn[k].rbytes, b,
						    sizeof(b)),
				       st_fmt_ns((double)x->fn[k].time_ns, e,
						 sizeof(e)));
		}
		if (!x->ntg)
			continue;
		tg = malloc(x->ntg * sizeof(*tg));
		if (!tg)
			die("out of memory");
		memcpy(tg, x->tg, x->ntg * sizeof(*tg));
		qsort(tg, x->ntg, sizeof(*tg), cmp_target);
		top = rp->top > 0 && (size_t)rp->top < x->ntg ?
		      (size_t)rp->top : x->ntg;
		printf("  by target (top %zu of %zu by bytes; sent: put or "
		       "accumulated into it, received: got\n  from it):\n",
		       top, x->ntg);
		printf("  %-24s %9s %11s %11s\n", "target", "calls", "sent",
		       "received");
		for (k = 0; k < top; k++)
			printf("  %-24s %9s %11s %11s\n",
			       target_name(tg[k].rank, nm, sizeof(nm)),
			       fmt_n(tg[k].calls, c, sizeof(c)),
			       st_fmt_bytes(tg[k].sbytes, a, sizeof(a)),
			       st_fmt_bytes(tg[k].rbytes, b, sizeof(b)));
		free(tg);
	}
}

/* "rdwr|create", the ST_AMODE_* bits of 'amode'. */
static char *amode_name(int32_t amode, char *buf, size_t len)
{
	static const char *const names[] = {
		"rdonly", "wronly", "rdwr", "create", "excl",
		"delete_on_close", "unique_open", "sequential", "append",
	};
	size_t at = 0, i;

	buf[0] = '\0';
	for (i = 0; amode > 0 && i < sizeof(names) / sizeof(names[0]); i++)
		if ((amode & (1 << i)) && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? "|" : "", names[i]);
	if (!at)
		snprintf(buf, len, "?");
	return buf;
}

static void print_io(struct report *rp)
{
	const struct st_io_file *f;
	char nm[48], a[32], b[32], c[64], d[64], e[32], path[WIDTH * 4];
	char line[WIDTH * 5];
	size_t n, i, k;

	f = st_io_files(st_profile_io(rp->p), &n);
	if (!f && n)
		die("out of memory");
	/* With --phase, the files used in it. */
	for (i = k = 0; i < n; i++)
		k += rp->phase.mode == ST_PHASE_ALL || f[i].calls ||
		     f[i].inst || f[i].inst_flagged || f[i].deletes;
	if (!k)
		return;
	printf("\nMPI-IO, per file, summed over %d ranks (a nonblocking "
	       "read's bytes at its completion):\n", rp->sum->nread);
	for (i = 0; i < n; i++) {
		const struct st_io_file *x = &f[i];

		if (rp->phase.mode != ST_PHASE_ALL && !x->calls && !x->inst &&
		    !x->inst_flagged && !x->deletes)
			continue;
		st_fmt_str(x->path, path, sizeof(path));
		snprintf(line, sizeof(line), "file '%s'", path);
		put_cut(line, WIDTH);
		printf("  %-13s0x%" PRIx64 ", opened on communicator 0x%"
		       PRIx64 " by n=%d of %" PRIu32 " ranks\n", "id", x->id,
		       x->comm, x->nranks, x->size);
		printf("  %-13s%s\n", "mode", amode_name(x->amode, nm,
							  sizeof(nm)));
		printf("  %-13swritten %s (n=%" PRIu64 " calls), read %s "
		       "(n=%" PRIu64 " calls)\n", "bytes",
		       st_fmt_bytes(x->wbytes, a, sizeof(a)), x->writes,
		       st_fmt_bytes(x->rbytes, b, sizeof(b)), x->reads);
		printf("  %-13sin its calls %s,\n%-15sof which in its "
		       "collective calls %s\n", "time",
		       fmt_time_calls(x->time_ns, x->calls, c, sizeof(c)), "",
		       fmt_time_calls(x->coll_ns, x->coll_calls, d,
				      sizeof(d)));
		if (x->inst || x->inst_flagged)
			print_instances("collectives", x->inst,
					x->inst_flagged, x->wait_ns,
					x->after_ns);
		if (x->deletes)
			printf("  %-13sn=%" PRIu64 " MPI_File_delete call%s of "
			       "its path\n", "deleted", x->deletes,
			       x->deletes == 1 ? "" : "s");
		if (!x->nfn)
			continue;
		printf("  %-28s %9s %11s %11s %10s\n", "function", "calls",
		       "written", "read", "total");
		for (k = 0; k < x->nfn; k++)
			printf("  %-28s %9s %11s %11s %10s\n",
			       name_of(x->fn[k].fn, nm, sizeof(nm)),
			       fmt_n(x->fn[k].calls, c, sizeof(c)),
			       st_fmt_bytes(x->fn[k].wbytes, a, sizeof(a)),
			       st_fmt_bytes(x->fn[k].rbytes, b, sizeof(b)),
			       st_fmt_ns((double)x->fn[k].time_ns, e,
					 sizeof(e)));
	}
}

static void parse_options(struct report *rp, int argc, char **argv,
			  const char **run)
{
	enum { O_TOP = 256, O_MATRIX_CSV, O_MATRIX_JSON, O_PHASE };
	char err[600];
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "matrix-csv", required_argument, NULL, O_MATRIX_CSV },
		{ "matrix-json", required_argument, NULL, O_MATRIX_JSON },
		{ "phase", required_argument, NULL, O_PHASE },
		{ "top", required_argument, NULL, O_TOP },
		{ NULL, 0, NULL, 0 }
	};
	const char *val;
	int c;

	*run = NULL;
	optind = 0;
	while ((c = st_getopt(argc, argv, ":h", longopts, &val)) != -1) {
		switch (c) {
		case 'h':
			fputs(st_report_usage, stdout);
			exit(0);
		case O_TOP:
			if (!val)
				usage_die(st_report_usage,
					  "option '--top' needs a number");
			if (st_parse_int(val, 0, 1000000, &rp->top))
				usage_die(st_report_usage,
					  "bad number '%s' for '--top'", val);
			break;
		case O_MATRIX_CSV:
			if (!val)
				usage_die(st_report_usage, "option "
					  "'--matrix-csv' needs a file");
			rp->matrix_csv = val;
			break;
		case O_PHASE:
			if (!val || st_phase_parse(val, &rp->phase))
				usage_die(st_report_usage, "bad phase '%s' for "
					  "'--phase' (a number, or level=L)",
					  val ? val : "");
			break;
		case O_MATRIX_JSON:
			if (!val)
				usage_die(st_report_usage, "option "
					  "'--matrix-json' needs a file");
			rp->matrix_json = val;
			break;
		default:
			usage_die(st_report_usage, "%s", val);
		}
	}
	if (optind < argc)
		*run = argv[optind++];
	if (optind < argc)
		usage_die(st_report_usage, "too many arguments");
	if (!*run)
		usage_die(st_report_usage, "no run directory given");
	if (rp->phase.mode != ST_PHASE_ALL &&
	    (rp->matrix_csv || rp->matrix_json))
		usage_die(st_report_usage, "'--phase' and the matrices do not "
			  "go together: the matrices cover the whole run");
	if (st_out_check(rp->matrix_csv, err, sizeof(err)) ||
	    st_out_check(rp->matrix_json, err, sizeof(err)))
		die("%s", err);
}

int cmd_report(int argc, char **argv)
{
	struct report rp = { .top = 10 };
	struct st_rviews *views = NULL;
	struct st_run *run = NULL;
	const char *arg;
	uint16_t *ids;
	struct stat st;
	char err[512];
	size_t i, nids = 0;
	int failed = 0, r, rc;

	parse_options(&rp, argc, argv, &arg);
	if (stat(arg, &st))
		die("cannot open '%s': %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		rc = st_run_open(&run, arg, err, sizeof(err));
		if (rc)
			die("%s", *err ? err : strerror_neg(rc));
	}
	/* The views read the run on their own meanwhile. */
	if (rp.phase.mode == ST_PHASE_ALL) {
		views = st_report_views_start(arg,
					      run ? st_run_nranks(run) : 1);
		st_on_die(st_report_views_join, views);
	}
	if (st_profile_new(&rp.p, run ? st_run_nranks(run) : 1))
		die("out of memory");
	st_profile_set_phase(rp.p, &rp.phase);
	/* The views' scan makes the first pass of the collectives' analysis
	   for the report, on their core. */
	if (st_report_views_streams(views))
		st_profile_imb_scan_later(rp.p);
	rp.sum = st_profile_sum(rp.p);
	rp.fn = st_profile_fns(rp.p);
	rp.syms = st_profile_symtab(rp.p);
	for (r = 0; r < rp.sum->expected; r++) {
		const char *path = run ? st_run_rank_path(run, r) : arg;

		if (run && access(path, F_OK)) {
			st_profile_missing(rp.p, r);
			continue;
		}
		rc = st_profile_read_rank(rp.p, r, path, err, sizeof(err));
		if (rc == -ENOMEM)
			die("out of memory");
		if (rc) {
			error("%s", err);
			failed = 1;
		}
	}
	if (rp.sum->nmissing) {
		char list[128];

		st_rank_list(rp.sum->missing, (size_t)rp.sum->nmissing, list,
			     sizeof(list));
		warning("no trace file for rank%s %s of '%s'",
			rp.sum->nmissing == 1 ? "" : "s", list, arg);
	}
	if (!rp.sum->nread)
		die("no rank of '%s' could be read", arg);
	if (rp.phase.mode != ST_PHASE_ALL && !rp.sum->phases) {
		char what[128];

		warning("no rank of '%s' has %s", arg,
			st_phase_name(&rp.phase, what, sizeof(what)));
	}

	ids = malloc(ST_PROFILE_NFN * sizeof(*ids));
	if (!ids)
		die("out of memory");
	for (i = 0; i < ST_PROFILE_NFN; i++) {
		if (rp.fn[i].calls || rp.fn[i].starts || rp.fn[i].ops ||
		    rp.fn[i].pending)
			ids[nids++] = (uint16_t)i;
	}
	sort_ids(&rp, ids, nids, cmp_fn_time);

	rp.views = views;
	print_summary(&rp, arg, run);
	print_functions(&rp, ids, nids);
	print_bytes(&rp, ids, nids);
	print_completions(&rp, ids, nids);
	print_sites(&rp);
	print_sizes(&rp);
	print_collectives(&rp);
	print_rma(&rp);
	print_io(&rp);
	if (rp.phase.mode != ST_PHASE_ALL)
		printf("\n(Imbalance by rank, time per rank and the "
		       "communication matrices cover the whole\nrun: left "
		       "out with --phase.)\n");
	else if (st_report_views_finish(views, rp.top, rp.matrix_csv,
					rp.matrix_json, rp.p))
		failed = 1;
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the output: %s", strerror(errno));

	free(ids);
	st_profile_free(rp.p);
	if (run)
		st_run_close(run);
	return failed ? ST_EXIT_FAILURE : 0;
}
