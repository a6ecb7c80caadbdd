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
 * rank).  On that core their walk also hands the report the records
 * its collective sections need (CALLs of blocking collectives, with
 * their global times), so the run is walked in global time once, not
 * twice, and the imbalance by rank comes from the report's analysis.
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
#include "tools/analysis/profile.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/symbols.h"
#include "tools/analysis/timeline.h"
#include "tools/cli/outfile.h"
#include "tools/cli/report-views.h"
#include "tools/cli/usage.h"
#include "writer/event.h"

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

/*
 * The verdict from 'imb' and its call sites in 'syms': the scan's own,
 * or the report's when the views handed it their walk.
 */
static void print_verdict(const struct st_scan *s, const struct st_imb *imb,
			  struct st_symtab *syms)
{
	struct st_blame b;
	char line[1024];

	st_blame_find_imb(imb, &b);
	print_wrapped("\nImbalance by rank:",
		      st_blame_verdict_syms(syms, &b, line, sizeof(line)));
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

static void print_ranks(const struct st_scan *s, const struct st_imb *imb)
{
	const struct st_imb_blame *bl;
	struct st_imb_blame *all;
	char a[32], b[32], c[32], d[32], pct[16], h[64];
	int nbl, r, n = 0, *order;

	bl = st_imb_blame_all(imb, &nbl);
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
	char err[600];
	struct st_out o;
	int rc;

	if (st_out_open(&o, path, err, sizeof(err)))
		die("%s", err);
	rc = fn(o.f, m);
	if (!rc && fn == st_matrix_write_json && fputc('\n', o.f) == EOF)
		rc = -EIO;
	if (st_out_close(&o, !rc, err, sizeof(err)))
		die("%s", *err ? err : "cannot write the matrices");
}

/*
 * A record of the walk handed over: what the report's collective
 * sections (CALLs of blocking collectives, st_imb_wants()) and the
 * matrices (CALLs and STARTs, st_matrix_add()) read of it, and its
 * global entry time.
 */
struct coll_rec {
	int32_t rank;
	uint8_t kind;
	uint16_t fn;
	uint32_t site;
	int32_t root, peer;
	uint64_t comm, seq, t0, t1, sbytes, rbytes;
	double g0;		/* the exit's is computed by the report */
};

#define BLOCK_RECS 2048		/* records handed over at a time */
#define NBLOCKS 8		/* blocks in flight: 1.25 MiB */

/*
 * The walk's records on their way from the views' thread to the report:
 * blocks filled by the one and emptied by the other, in order.
 */
struct stream {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct coll_rec *blk[NBLOCKS];
	size_t len[NBLOCKS];
	uint64_t head, tail;	/* blocks handed over, blocks taken */
	int done;		/* no more come */
	int gone;		/* the report takes none (more) */
	int walked;		/* the walk began */
	int mx;			/* the matrices are counted as records are
				   taken (by the taker) */
	int taken;		/* the report took the records */
	int rc;			/* it could not start: why */
	char err[512];
};

/*
 * The walk's end of the hand-over, on its thread's stack: what changes
 * with each record stays off the cache lines the taker reads.
 */
struct putter {
	struct stream *st;
	struct coll_rec *cur;	/* blk[head % NBLOCKS], NULL: not chosen */
	size_t fill;		/* records in it */
};

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
	int streams;		/* the walk feeds the report's sections */
	struct stream st;
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

/* Hand block 'st->head' over (when it holds any), wait for room. */
static void stream_push(struct putter *pp)
{
	struct stream *st = pp->st;

	pthread_mutex_lock(&st->mu);
	if (pp->fill && !st->gone) {
		st->len[st->head % NBLOCKS] = pp->fill;
		st->head++;
		pthread_cond_broadcast(&st->cv);
	}
	pp->fill = 0;
	pp->cur = NULL;
	while (!st->gone && st->head - st->tail >= NBLOCKS)
		pthread_cond_wait(&st->cv, &st->mu);
	pthread_mutex_unlock(&st->mu);
}

static int stream_put(struct putter *pp, const struct st_merged *x)
{
	struct stream *st = pp->st;
	struct coll_rec *c;

	if (!pp->cur) {
		/* 'head' changes on this thread only. */
		pp->cur = st->blk[st->head % NBLOCKS];
		if (!pp->cur) {
			pp->cur = malloc(BLOCK_RECS * sizeof(*pp->cur));
			if (!pp->cur)
				return -ENOMEM;
			st->blk[st->head % NBLOCKS] = pp->cur;
		}
	}
	c = &pp->cur[pp->fill];
	c->rank = x->rank;
	c->kind = x->ev->kind;
	c->fn = x->ev->fn;
	c->site = x->ev->site;
	c->root = x->ev->root;
	c->peer = x->ev->peer;
	c->comm = x->ev->comm;
	c->seq = x->ev->seq;
	c->t0 = x->ev->t0;
	c->t1 = x->ev->t1;
	c->sbytes = x->ev->sbytes;
	c->rbytes = x->ev->rbytes;
	c->g0 = x->g0;
	if (++pp->fill == BLOCK_RECS)
		stream_push(pp);
	return 0;
}

/* No more records (again: no harm). */
static void stream_close(struct stream *st)
{
	pthread_mutex_lock(&st->mu);
	st->done = 1;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

/* No more records: 'rc' and 'err' say why none came, if so. */
static void stream_end(struct putter *pp, int rc, const char *err)
{
	struct stream *st = pp->st;

	stream_push(pp);
	pthread_mutex_lock(&st->mu);
	st->rc = rc;
	snprintf(st->err, sizeof(st->err), "%s", err);
	st->done = 1;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

/*
 * st_scan_walk() for the report: the records the report's collective
 * sections need handed over instead of the scan's own analysis of
 * collectives (the report's is the same, its call sites aside); with
 * 'fold', the records the matrices count too, which the taker counts
 * (stream_take()), on the other core.
 */
static int stream_walk(struct st_rviews *v, int fold)
{
	struct st_scan *s = v->s;
	struct putter pp = { &v->st, NULL, 0 };
	struct st_merge *m;
	struct st_merged x;
	char err[512];
	int rc;

	v->st.walked = 1;
	if ((rc = st_scan_merge(s, &m, err, sizeof(err)))) {
		if (rc != -ENOMEM)
			stream_end(&pp, rc, *err ? err : strerror(-rc));
		return rc;
	}
	/* The matrix needs no time; the report computes the exits. */
	st_merge_skip_g1(m);
	v->st.mx = fold;
	while (!rc && st_merge_next(m, &x) > 0) {
		if ((fold ? x.ev->kind == ST_REC_CALL ||
			    x.ev->kind == ST_REC_START :
			    st_imb_wants(s->imb, x.ev)) &&
		    stream_put(&pp, &x))
			rc = -ENOMEM;
	}
	st_merge_free(m);
	stream_end(&pp, 0, "");
	return rc;
}

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
		v->rc_walk = v->streams ? stream_walk(v, fold) :
			     st_scan_walk(v->s, fold ? walk_mx : NULL, &sc);
		if (v->rc_walk == -ENOMEM)
			die("out of memory");
	}
	if (v->streams)
		stream_close(&v->st);
	v->walk_warn = v->warn.n;
	if (fold && v->rc_walk) {
		/* The walk stopped: the sweep counts afresh. */
		st_matrix_release(&v->m);
		if (st_matrix_init(&v->m, v->s->nranks))
			die("out of memory");
		fold = 0;
	}
	/* Counted by the taker of the records, it finishes them. */
	if (!v->rc_mx && !v->st.mx) {
		if (!fold &&
		    st_scan_sweep(v->s, sweep_mx, &sc) == -ENOMEM)
			die("out of memory");
		st_matrix_finish(&v->m, v->s);
	}
out:
	if (v->streams)
		stream_close(&v->st);
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
	     rl.rlim_max >= 2 * (rlim_t)nranks + 64)) {
		pthread_mutex_init(&v->st.mu, NULL);
		pthread_cond_init(&v->st.cv, NULL);
		v->streams = 1;
		v->threaded = !pthread_create(&v->th, NULL, compute, v);
		if (!v->threaded) {
			v->streams = 0;
			pthread_cond_destroy(&v->st.cv);
			pthread_mutex_destroy(&v->st.mu);
		}
	}
	return v;
}

int st_report_views_streams(const struct st_rviews *v)
{
	return v && v->streams;
}

/*
 * Take the records the views' walk hands over: count them into the
 * matrices when the walk folds them in, and into the collective
 * sections of 'p' (NULL: not).  Returns 0, -ENOMEM, the walk's error
 * with a message in 'err', or 1 when there was no walk.
 */
static int stream_take(struct st_rviews *v, struct st_profile *p, char *err,
		       size_t errlen)
{
	struct stream *st = &v->st;
	struct st_matrix *m = &v->m;
	const struct st_imb *wants;
	struct st_scan *s;
	struct st_event ev;
	size_t i, n;
	int rc = 0, mx;

	*err = '\0';
	memset(&ev, 0, sizeof(ev));
	pthread_mutex_lock(&st->mu);
	st->taken = 1;
	while (st->tail == st->head && !st->done)
		pthread_cond_wait(&st->cv, &st->mu);
	pthread_mutex_unlock(&st->mu);
	/*
	 * The views' scan is over: the first pass of the report's analysis
	 * of collectives is the one it made (else the report makes it).
	 */
	if (p && !v->rc_open)
		st_imb_take_scan(st_profile_imb(p), v->s->imb);
	else if (p && st_profile_imb_scan(p))
		return -ENOMEM;
	if (p)
		st_profile_coll_begin(p);
	/* Read once: the records come one by one. */
	s = v->s;
	wants = s ? s->imb : NULL;
	pthread_mutex_lock(&st->mu);
	for (;;) {
		const struct coll_rec *b;

		while (st->tail == st->head && !st->done)
			pthread_cond_wait(&st->cv, &st->mu);
		if (st->tail == st->head)
			break;
		b = st->blk[st->tail % NBLOCKS];
		n = st->len[st->tail % NBLOCKS];
		mx = st->mx;
		pthread_mutex_unlock(&st->mu);
		for (i = 0; !rc && i < n; i++) {
			ev.kind = b[i].kind;
			ev.fn = b[i].fn;
			ev.site = b[i].site;
			ev.root = b[i].root;
			ev.peer = b[i].peer;
			ev.comm = b[i].comm;
			ev.seq = b[i].seq;
			ev.t0 = b[i].t0;
			ev.t1 = b[i].t1;
			ev.sbytes = b[i].sbytes;
			ev.rbytes = b[i].rbytes;
			if (mx && st_matrix_add(m, s, b[i].rank, &ev))
				rc = -ENOMEM;
			else if (p && st_imb_wants(wants, &ev))
				rc = st_profile_coll_add(p, b[i].rank, &ev,
							 b[i].g0);
		}
		pthread_mutex_lock(&st->mu);
		st->tail++;
		pthread_cond_broadcast(&st->cv);
		if (rc)
			break;
	}
	if (!rc && st->rc) {
		rc = st->rc;
		snprintf(err, errlen, "%s", st->err);
	}
	/* No walk (the views could not read the run): the report's own. */
	if (!rc && !st->walked) {
		pthread_mutex_unlock(&st->mu);
		return 1;
	}
	pthread_mutex_unlock(&st->mu);
	if (!rc && p)
		st_profile_coll_end(p);
	return rc;
}

int st_report_views_collectives(struct st_rviews *v, struct st_profile *p,
				char *err, size_t errlen)
{
	if (!v->streams)
		return 1;
	return stream_take(v, p, err, errlen);
}

void st_report_views_join(void *arg)
{
	struct st_rviews *v = arg;

	if (v->threaded == 1) {
		if (v->streams) {
			/* What the report did not take is not waited for. */
			pthread_mutex_lock(&v->st.mu);
			v->st.gone = 1;
			pthread_cond_broadcast(&v->st.cv);
			pthread_mutex_unlock(&v->st.mu);
		}
		pthread_join(v->th, NULL);
		v->threaded = 2;
	}
}

static void free_views(struct st_rviews *v)
{
	size_t i;

	if (v->streams) {
		for (i = 0; i < NBLOCKS; i++)
			free(v->st.blk[i]);
		pthread_cond_destroy(&v->st.cv);
		pthread_mutex_destroy(&v->st.mu);
	}
	free(v);
}

int st_report_views_finish(struct st_rviews *v, long top, const char *csv,
			   const char *json, struct st_profile *p)
{
	struct st_scan *s;
	struct st_matrix *m = &v->m;
	const struct st_imb *imb;
	struct st_symtab *syms;

	if (v->streams && !v->st.taken) {
		/* The report took none: the matrices need them. */
		char err[512];

		if (stream_take(v, NULL, err, sizeof(err)) == -ENOMEM)
			die("out of memory");
	}
	if (v->threaded)
		st_report_views_join(v);
	else
		compute(v);
	if (v->streams && v->st.mx)
		st_matrix_finish(m, v->s);
	st_on_die(NULL, NULL);	/* cmd-report.c's, for 'v' */
	s = v->s;
	if (v->rc_open) {
		int rc = error("%s", *v->err ? v->err :
			       strerror_neg(v->rc_open));

		free_views(v);
		return rc;
	}
	/* The report's analysis of collectives is the scan's, from the
	   walk they shared. */
	imb = v->streams ? st_profile_imb(p) : s->imb;
	syms = v->streams ? st_profile_symtab(p) : s->syms;
	give_warnings(v, 0, v->walk_warn);
	if (s->nsynced) {
		if (!v->rc_walk)
			print_verdict(s, imb, syms);
	} else {
		printf("\nImbalance by rank: no clock synchronisation in this "
		       "trace.\n");
	}
	print_ranks(s, imb);
	if (v->rc_mx) {
		printf("\nWho talks to whom: not counted (more than %d ranks)"
		       "\n", ST_MATRIX_MAX_RANKS);
		if (csv || json)
			warning("no communication matrix for more than %d "
				"ranks", ST_MATRIX_MAX_RANKS);
		give_warnings(v, v->walk_warn, v->warn.n);
		st_scan_free(s);
		free(v->warn.text);
		free_views(v);
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
	free_views(v);
	return 0;
}

