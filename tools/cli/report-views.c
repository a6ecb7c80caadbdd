/*
 * tools/cli/report-views.c: the sections of 'synctrace report' that pin
 * imbalance on ranks and say who talks to whom: the verdict (which rank
 * arrives last at the collective call site with most waiting, and how
 * much of the waiting it causes), a warning when ranks outnumbered a
 * host's cores, time per rank, and the communication matrices (text,
 * and on request CSV and JSON files).  They come from the analysis the
 * views share (tools/analysis/runscan.h, blame.h, matrix.h), which reads
 * the run on its own, on a second core while the report reads it for
 * its other sections (the matrices come from the walk in global time
 * when every rank has global time, else from one more read rank by
 * rank).
 * TODO: fold this read into the report's own once cmd-report.c is split
 * into sections; it waits so as not to collide with that split.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tools/analysis/blame.h"
#include "tools/analysis/diag.h"
#include "tools/analysis/format.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/matrix.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/timeline.h"
#include "tools/cli/report-views.h"
#include "tools/cli/usage.h"

#define MAX_RANK_ROWS 64	/* more ranks: the top by waiting caused */
#define WIDTH 100		/* lines are kept within this many columns */

struct sweep_ctx {
	struct st_matrix *m;
	const struct st_scan *s;
};

static int sweep_mx(void *ctx, int rank, const struct st_event *ev)
{
	struct sweep_ctx *c = ctx;

	return st_matrix_add(c->m, c->s, rank, ev);
}

static int walk_mx(void *ctx, const struct st_merged *x)
{
	struct sweep_ctx *c = ctx;

	return st_matrix_add(c->m, c->s, x->rank, x->ev);
}

/*
 * Whether the walk in global time sees every record the sweep would:
 * every rank read has global time.  The matrix sums whole bytes, so the
 * order it gets them in changes nothing.
 */
static int walk_sees_all(const struct st_scan *s)
{
	int r;

	for (r = 0; r < s->nranks; r++)
		if (s->rank[r].read && !st_gclock_epochs(s->rank[r].clk))
			return 0;
	return 1;
}

/* 'lead' then 'text', wrapped at the report's 100 columns. */
static void print_wrapped(const char *lead, const char *text)
{
	size_t col = strlen(lead), n;

	fputs(lead, stdout);
	while (*text) {
		n = strcspn(text, " ");
		if (col > 4 && col + 1 + n > WIDTH) {
			fputs("\n   ", stdout);
			col = 3;
		}
		printf(" %.*s", (int)n, text);
		col += 1 + n;
		text += n;
		text += strspn(text, " ");
	}
	putchar('\n');
}

static void print_verdict(const struct st_scan *s)
{
	struct st_blame b;
	char line[1024];

	st_blame_find(s, &b);
	print_wrapped("\nImbalance by rank:",
		      st_blame_verdict(s, &b, line, sizeof(line)));
	if (st_blame_oversubscribed(s, line, sizeof(line)))
		print_wrapped("note:", line);
}

/* The report warned already of what a second read finds. */
static void no_warning(const char *msg)
{
	(void)msg;
}

static int cmp_caused(const void *a, const void *b, void *ctx)
{
	const struct st_imb_blame *bl = ctx;
	int x = *(const int *)a, y = *(const int *)b;

	if (bl[x].caused_ns != bl[y].caused_ns)
		return bl[x].caused_ns < bl[y].caused_ns ? 1 : -1;
	return x - y;
}

static void print_ranks(const struct st_scan *s)
{
	const struct st_imb_blame *bl;
	struct st_imb_blame *all;
	char a[32], b[32], c[32], d[32], pct[16], h[64];
	int nbl, r, n = 0, *order;

	bl = st_imb_blame_all(s->imb, &nbl);
	all = calloc((size_t)s->nranks, sizeof(*all));
	order = malloc((size_t)s->nranks * sizeof(*order));
	if (!all || !order)
		die("out of memory");
	for (r = 0; r < s->nranks; r++) {
		if (r < nbl)
			all[r] = bl[r];
		if (s->rank[r].read)
			order[n++] = r;
	}
	if (n > MAX_RANK_ROWS)
		qsort_r(order, (size_t)n, sizeof(*order), cmp_caused, all);
	printf("\nRanks%s: run time from the end of MPI_Init to the start of "
	       "MPI_Finalize and MPI time\nin between (each rank's clock); "
	       "last arrivals and the waiting they caused the others,\nover "
	       "blocking collective instances longer than the clock error."
	       "\n\n", n > MAX_RANK_ROWS ? " (the 64 that caused most "
	       "waiting)" : "");
	printf("%6s %-16s %10s %10s %6s %12s %14s\n", "rank", "host",
	       "run time", "MPI time", "MPI %", "arrived last",
	       "waiting caused");
	for (r = 0; r < n && r < MAX_RANK_ROWS; r++) {
		const struct st_scan_rank *x = &s->rank[order[r]];

		if (x->have_run)
			snprintf(pct, sizeof(pct), "%.1f%%", 100.0 *
				 (double)x->mpi_ns / (double)x->run_ns);
		else
			snprintf(pct, sizeof(pct), "-");
		snprintf(c, sizeof(c), "n=%" PRIu64, all[order[r]].last);
		printf("%6d %-16.16s %10s %10s %6s %12s %14s\n", order[r],
		       x->host ? st_fmt_str(x->host, h, sizeof(h)) : "?",
		       x->have_run ? st_fmt_ns((double)x->run_ns, a,
					       sizeof(a)) : "-",
		       st_fmt_ns((double)x->mpi_ns, b, sizeof(b)), pct, c,
		       st_fmt_ns(all[order[r]].caused_ns, d, sizeof(d)));
	}
	free(order);
	free(all);
}

/* The 'top' pairs of 'p' by bytes. */
static void print_pairs(const struct st_matrix_part *p, int n, long top,
			const char *what)
{
	double bytes, best_b;
	uint64_t msgs, pairs, k;
	size_t nn = (size_t)n * n, i, best;
	unsigned char *done;
	char a[32];

	st_matrix_sum(p, n, &bytes, &msgs, &pairs);
	printf("  %s: %s in n=%" PRIu64 " %s between n=%" PRIu64 " pairs%s\n",
	       what, st_fmt_bytes((uint64_t)bytes, a, sizeof(a)), msgs,
	       !strcmp(what, "point-to-point") ? "messages" : "transfers",
	       pairs, pairs ? "; most bytes:" : "");
	done = calloc(nn ? nn : 1, 1);
	if (!done)
		die("out of memory");
	for (k = 0; k < pairs && (top <= 0 || k < (uint64_t)top); k++) {
		best = nn;
		best_b = -1;
		for (i = 0; i < nn; i++)
			if (!done[i] && p->msgs[i] && p->bytes[i] > best_b) {
				best = i;
				best_b = p->bytes[i];
			}
		if (best == nn)
			break;
		done[best] = 1;
		printf("    %6zu -> %-6zu %12s  n=%" PRIu64 "\n", best / n,
		       best % n, st_fmt_bytes((uint64_t)p->bytes[best], a,
					      sizeof(a)), p->msgs[best]);
	}
	free(done);
}

static void write_file(const char *path, const struct st_matrix *m,
		       int (*fn)(FILE *, const struct st_matrix *))
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		die("cannot create '%s': %s", path, strerror(errno));
	rc = fn(f, m);
	if (fn == st_matrix_write_json)
		fputc('\n', f);
	if (fclose(f) || rc)
		die("cannot write '%s'", path);
}

/*
 * What the views found, computed on a thread of their own while the
 * report reads the run for its own sections; the warnings of their walk
 * and sweep are kept to be given where the report would have given
 * them.
 */
struct st_rviews {
	const char *run;
	pthread_t th;
	int threaded;		/* 1: on its thread; 2: which ended */
	struct st_scan *s;
	int rc_open;		/* st_scan_open_nospan()'s */
	char err[512];
	int rc_walk;		/* st_scan_walk()'s, when synced */
	int rc_mx;		/* st_matrix_init()'s */
	struct st_matrix m;
	struct st_msgs warn;	/* the warnings */
	size_t walk_warn;	/* of them, the walk's */
};

static _Thread_local struct st_rviews *collecting;

/* A warning of the walk or the sweep, kept for later. */
static void keep_warning(const char *msg)
{
	if (st_msgs_add(&collecting->warn, msg))
		die("out of memory");
}

/* Give kept warnings 'from' to 'to' (indices), as st_warn() would. */
static void give_warnings(const struct st_rviews *v, size_t from, size_t to)
{
	const char *w = v->warn.text;
	size_t i;

	for (i = 0; i < to; i++, w += strlen(w) + 1)
		if (i >= from)
			st_warn("%s", w);
}

static void *compute(void *arg)
{
	struct st_rviews *v = arg;
	const char *prog = getenv("SYNCTRACE_ADDR2LINE");
	struct sweep_ctx sc;
	int fold;

	collecting = v;
	st_diag_set_warn(no_warning);
	/* The views need no global span: one read of each file. */
	v->rc_open = st_scan_open_nospan(&v->s, v->run,
					 prog && *prog ? prog : "addr2line",
					 v->err, sizeof(v->err));
	st_diag_set_warn(keep_warning);
	if (v->rc_open == -ENOMEM)
		die("out of memory");
	if (v->rc_open)
		goto out;
	v->rc_mx = st_matrix_init(&v->m, v->s->nranks);
	if (v->rc_mx == -ENOMEM)
		die("out of memory");
	sc.m = &v->m;
	sc.s = v->s;
	/* The matrix from the walk when it sees every record: one read
	   fewer. */
	fold = !v->rc_mx && v->s->nsynced && walk_sees_all(v->s);
	if (v->s->nsynced) {
		v->rc_walk = st_scan_walk(v->s, fold ? walk_mx : NULL, &sc);
		if (v->rc_walk == -ENOMEM)
			die("out of memory");
	}
	v->walk_warn = v->warn.n;
	if (fold && v->rc_walk) {
		/* The walk stopped: the sweep counts afresh. */
		st_matrix_release(&v->m);
		if (st_matrix_init(&v->m, v->s->nranks))
			die("out of memory");
		fold = 0;
	}
	if (!v->rc_mx) {
		if (!fold &&
		    st_scan_sweep(v->s, sweep_mx, &sc) == -ENOMEM)
			die("out of memory");
		st_matrix_finish(&v->m, v->s);
	}
out:
	st_diag_set_warn(NULL);
	collecting = NULL;
	return NULL;
}

struct st_rviews *st_report_views_start(const char *run, int nranks)
{
	struct st_rviews *v = calloc(1, sizeof(*v));
	struct rlimit rl;

	if (!v)
		die("out of memory");
	v->run = run;
	/* The report's walk and the views' hold every rank file open at
	   once: both must fit under the limit they may raise to. */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2 &&
	    !getrlimit(RLIMIT_NOFILE, &rl) &&
	    (rl.rlim_max == RLIM_INFINITY ||
	     rl.rlim_max >= 2 * (rlim_t)nranks + 64))
		v->threaded = !pthread_create(&v->th, NULL, compute, v);
	return v;
}

void st_report_views_join(void *arg)
{
	struct st_rviews *v = arg;

	if (v->threaded == 1) {
		pthread_join(v->th, NULL);
		v->threaded = 2;
	}
}

int st_report_views_finish(struct st_rviews *v, long top, const char *csv,
			   const char *json)
{
	struct st_scan *s;
	struct st_matrix *m = &v->m;

	if (v->threaded)
		st_report_views_join(v);
	else
		compute(v);
	st_on_die(NULL, NULL);	/* cmd-report.c's, for 'v' */
	s = v->s;
	if (v->rc_open) {
		int rc = error("%s", *v->err ? v->err :
			       strerror_neg(v->rc_open));

		free(v);
		return rc;
	}
	give_warnings(v, 0, v->walk_warn);
	if (s->nsynced) {
		if (!v->rc_walk)
			print_verdict(s);
	} else {
		printf("\nImbalance by rank: no clock synchronisation in this "
		       "trace.\n");
	}
	print_ranks(s);
	if (v->rc_mx) {
		printf("\nWho talks to whom: not counted (more than %d ranks)"
		       "\n", ST_MATRIX_MAX_RANKS);
		if (csv || json)
			warning("no communication matrix for more than %d "
				"ranks", ST_MATRIX_MAX_RANKS);
		give_warnings(v, v->walk_warn, v->warn.n);
		st_scan_free(s);
		free(v->warn.text);
		free(v);
		return 0;
	}
	give_warnings(v, v->walk_warn, v->warn.n);
	printf("\nWho talks to whom: bytes from sender to receiver (world "
	       "ranks); point-to-point counted\nat the sender, collectives "
	       "as each operation's definition moves data (not the MPI\n"
	       "library's own messages).\n");
	print_pairs(&m->p2p, m->n, top, "point-to-point");
	print_pairs(&m->coll, m->n, top, "collectives");
	if (m->p2p_unmapped)
		printf("  (n=%" PRIu64 " sends on communicators whose members "
		       "are unknown are left out)\n", m->p2p_unmapped);
	if (m->coll_unattributed_calls)
		printf("  (n=%" PRIu64 " collective calls not attributed to "
		       "pairs: neighbourhood collectives, inter-communicators)"
		       "\n", m->coll_unattributed_calls);
	if (csv)
		write_file(csv, m, st_matrix_write_csv);
	if (json)
		write_file(json, m, st_matrix_write_json);
	st_matrix_release(m);
	st_scan_free(s);
	free(v->warn.text);
	free(v);
	return 0;
}

