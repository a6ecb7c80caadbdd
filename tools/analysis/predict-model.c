/*
 * tools/analysis/predict-model.c: the table-JSON cost model (rules in
 * tools/analysis/predict-model.h).  The JSON, parsed by jansson, is read
 * once into flat rows (the pieces of each formula, or its group
 * medians); which row serves a function id is found on first use and
 * cached, so a lookup during the replay is an array index and a few
 * multiplications.
 */
#include <ctype.h>
#include <jansson.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fit.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/predict-model.h"
#include "tools/analysis/replay.h"
#include "tools/bench/micro-ops.h"
#include "tools/analysis/stats.h"
#include "writer/fn-info.h"

#define UNRESOLVED (-2)
#define NONE (-1)

struct piece {
	int fn[3];		/* enum st_fit_fn of a, b, c: 1, f, g */
	double coef[3];
};

struct group {
	long p;
	double d, median;
	double ci_lo, ci_hi;	/* the median's CI, NaN when not given */
	double n_in;		/* samples before the fences */
	double first;		/* its first instance's cost, NaN: none */
	/* Its launches' medians and their runs ("run_medians_ns",
	   "run_ids"), or none. */
	double *run_med;
	double *run_id;
	size_t nrun;
};

/* Row kinds (the table's "kind", tools/analysis/table.h). */
enum { K_OTHER = -1, K_COLL, K_P2P, K_CALL, K_BURST, K_SEND_EAGER,
       K_SEND_RNDV, K_RECV_LATE, K_SND_BUSY, K_RCV_BUSY, K_XCHG_BUSY,
       K_XCHG_BURST };

struct row {
	char *name;
	long last_p;		/* the last lookup, cached */
	double last_d, last_t;
	int p2p;		/* kind "p2p": a blocking transfer */
	int kind;		/* K_* */
	unsigned fn, fn2;	/* p2p: send and receive functions */
	int npieces;
	struct piece pc[2];
	double d_below, d_split;
	struct group *g;
	size_t ng;
	double f_lo, f_hi;	/* cost bounds over the cost, see bounds() */
	double f_state[2];	/* the launches' states, see find_states() */
	struct st_pmodel_use use;
};

/*
 * The network model's rows, found on first use: the bursts, the late
 * receives' three, the send starts; and from the late sends' groups,
 * the largest size that was eager and the smallest that was not.
 */
struct net {
	int resolved;
	struct row *burst, *eager, *rndv, *late;
	struct row *sbusy, *rbusy;	/* a busy sender, a busy receiver */
	struct row *xbusy;		/* an exchange, both ranks busy */
	struct row *xburst;	/* K each way, both ranks busy */
	long xkmax;		/* most messages each way in its groups */
	struct row *sendrecv;	/* MPI_Sendrecv: both directions at once */
	long kmax;		/* most messages in a burst group */
	int has_k1;		/* bursts of one message measured */
	double eager_max, rndv_min;
	double need_d;		/* st_pmodel_progress()'s last size (-1: none) */
	int need;		/* and its answer */
	int sfree;		/* and whether the sender-busy row found
				   the sender free there (sender_free) */
};

/* A start row of the table: the k-th message's excess at 'bytes'. */
struct start_row {
	double bytes;
	size_t msgs;
	double *profile;	/* 'msgs' values, ns, >= 0 */
	/* Under a bound: the least and the most series' summed excess
	   over the profile's sum (start_range()). */
	double f_lo, f_hi;
};

struct st_pmodel {
	struct row *rows;
	size_t nrows;
	struct start_row *start;
	size_t nstart;
	int no_start;
	int formula_only, mean, bench, bound;
	int state;		/* st_pmodel_state(): 0, 1 or 2 */
	struct st_pmodel_states states;
	int no_net, send_fallback;
	struct net net;
	double ci_level;
	char *mpi, *hosts, *date;
	long p_min, p_max;
	int *coll_row, *p2p_row;	/* [ST_FN_COUNT] */
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int fit_fn_of(const char *name)
{
	int fn;

	for (fn = ST_FIT_ONE; fn < ST_FIT_NFN; fn++)
		if (!strcmp(st_fit_fn_name(fn), name))
			return fn;
	return -1;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/* The number, or string, 'v' is if it is one, else 'def'. */
static double jnum(const json_t *v, double def)
{
	return json_is_number(v) ? json_number_value(v) : def;
}

static const char *jstr(const json_t *v, const char *def)
{
	return json_is_string(v) ? json_string_value(v) : def;
}

static int read_piece(const json_t *j, struct piece *pc,
		      const char *name, const char *op, char *err,
		      size_t errlen)
{
	const json_t *terms = json_object_get(j, "terms");
	size_t i;

	memset(pc, 0, sizeof(*pc));
	if (!terms || !json_is_array(terms))
		return bad(err, errlen, "'%s': operation %s: a piece has no "
			   "terms", name, op);
	for (i = 0; i < json_array_size(terms); i++) {
		const json_t *t = json_array_get(terms, i);
		const char *tn = jstr(json_object_get(t, "name"), "");
		const char *fn = jstr(json_object_get(t, "fn"), "");
		double coef = jnum(json_object_get(t, "coef"), NAN);
		int k = !strcmp(tn, "a") ? 0 : !strcmp(tn, "b") ? 1 :
			!strcmp(tn, "c") ? 2 : -1;
		int f = fit_fn_of(fn);

		if (k < 0 || f < 0 || !isfinite(coef))
			return bad(err, errlen, "'%s': operation %s: bad term "
				   "'%s' (function '%s')", name, op, tn, fn);
		pc->fn[k] = f;
		pc->coef[k] = coef;
	}
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);
}

/*
 * The row's mean cost over its medians, from its totals: 'call_ns' (time
 * in the call over every sample and rank, outliers included) less
 * 'wait_ns' (waiting for the last arrival) is the time after the last
 * arrival, summed over one rank per point-to-point sample and p ranks
 * per collective sample; the replay gives each rank the cost there.
 * 1 when the totals are missing.
 */
static void mean_factor(struct row *rw, double call_ns, double wait_ns)
{
	double ranks = 0, samples = 0, med = 0, after = call_ns - wait_ns;
	size_t i;

	rw->use.mean_factor = 1;
	for (i = 0; i < rw->ng; i++) {
		const struct group *g = &rw->g[i];
		double k = rw->kind != K_COLL ? 1 : (double)g->p;

		ranks += g->n_in * k;
		samples += g->n_in;
		med += g->n_in * g->median;
	}
	if (!(ranks > 0) || !(med > 0) || !(after > 0) || !isfinite(after))
		return;
	rw->use.mean_factor = (after / ranks) / (med / samples);
}

/*
 * The row's bounds as factors on its cost: the median over its groups of
 * each group's CI ends over its median; 1 when no group gives them.
 */
static int bounds(struct row *rw)
{
	double *lo, *hi;
	size_t i, n = 0;

	rw->f_lo = rw->f_hi = 1;
	if (!rw->ng)
		return 0;
	lo = malloc(2 * rw->ng * sizeof(*lo));
	if (!lo)
		return -ENOMEM;
	hi = lo + rw->ng;
	for (i = 0; i < rw->ng; i++) {
		const struct group *g = &rw->g[i];

		if (!(g->median > 0) || !(g->ci_lo <= g->median) ||
		    !(g->ci_hi >= g->median) || !isfinite(g->ci_lo) ||
		    !isfinite(g->ci_hi))
			continue;
		lo[n] = g->ci_lo / g->median;
		hi[n++] = g->ci_hi / g->median;
	}
	if (n && !st_stats_sort(lo, n) && !st_stats_sort(hi, n)) {
		st_stats_median(lo, n, &rw->f_lo);
		st_stats_median(hi, n, &rw->f_hi);
		if (rw->f_lo < 0)
			rw->f_lo = 0;
	}
	free(lo);
	return 0;
}

/*
 * A group's launches: "run_medians_ns" (finite, > 0) and "run_ids" of
 * as many, distinct; none when either is not so (a table without ids:
 * a group that lost a launch to the fences would pair the wrong ones).
 * 0 or -ENOMEM.
 */
static int read_launches(const json_t *j, struct group *g)
{
	const json_t *med = json_object_get(j, "run_medians_ns");
	const json_t *ids = json_object_get(j, "run_ids");
	size_t i, k, n = json_is_array(med) ? json_array_size(med) : 0;

	if (!n || !json_is_array(ids) || json_array_size(ids) != n)
		return 0;
	g->run_med = malloc(2 * n * sizeof(double));
	if (!g->run_med)
		return -ENOMEM;
	g->run_id = g->run_med + n;
	for (i = 0; i < n; i++) {
		g->run_med[i] = jnum(json_array_get(med, i), NAN);
		g->run_id[i] = jnum(json_array_get(ids, i), NAN);
		for (k = 0; k < i && g->run_id[k] != g->run_id[i]; k++)
			;
		if (!(g->run_med[i] > 0) || !isfinite(g->run_med[i]) ||
		    !isfinite(g->run_id[i]) || k < i) {
			free(g->run_med);
			g->run_med = g->run_id = NULL;
			return 0;
		}
	}
	g->nrun = n;
	return 0;
}

/* Row 'rw''s group whose launches disagree most: rw->use.spread... */
static void launch_spread(struct row *rw)
{
	size_t i, k;

	for (i = 0; i < rw->ng; i++) {
		const struct group *g = &rw->g[i];
		double lo = INFINITY, hi = 0;

		if (g->nrun < 2)
			continue;
		for (k = 0; k < g->nrun; k++) {
			if (g->run_med[k] < lo)
				lo = g->run_med[k];
			if (g->run_med[k] > hi)
				hi = g->run_med[k];
		}
		if (hi - lo >= ST_PMODEL_SPREAD_FLOOR_NS &&
		    hi / lo > rw->use.spread) {
			rw->use.spread = hi / lo;
			rw->use.spread_p = g->p;
			rw->use.spread_d = g->d;
			rw->use.spread_lo = lo;
			rw->use.spread_hi = hi;
			rw->use.spread_n = g->nrun;
		}
	}
}

static int read_row(const json_t *j, struct row *rw,
		    const char *name, char *err, size_t errlen)
{
	const char *op = jstr(json_object_get(j, "op"), NULL);
	const char *kind = jstr(json_object_get(j, "kind"), "");
	const char *fn = jstr(json_object_get(j, "fn"), "");
	const char *fn2 = jstr(json_object_get(j, "recv_fn"), NULL);
	const json_t *model = json_object_get(j, "model");
	const json_t *groups = json_object_get(j, "groups");
	size_t i;
	int rc;

	if (!op)
		return bad(err, errlen, "'%s': an operation has no name",
			   name);
	rw->name = strdup(op);
	if (!rw->name)
		return -ENOMEM;
	rw->p2p = !strcmp(kind, "p2p");
	rw->kind = !strcmp(kind, "collective") ? K_COLL :
		   rw->p2p ? K_P2P : !strcmp(kind, "call") ? K_CALL :
		   !strcmp(kind, "burst") ? K_BURST :
		   !strcmp(kind, "send-eager") ? K_SEND_EAGER :
		   !strcmp(kind, "send-rendezvous") ? K_SEND_RNDV :
		   !strcmp(kind, "recv-late") ? K_RECV_LATE :
		   !strcmp(kind, "snd-busy") ? K_SND_BUSY :
		   !strcmp(kind, "rcv-busy") ? K_RCV_BUSY :
		   !strcmp(kind, "xchg-busy") ? K_XCHG_BUSY :
		   !strcmp(kind, "xchg-burst") ? K_XCHG_BURST : K_OTHER;
	rw->fn = st_fn_lookup(fn);
	rw->fn2 = fn2 ? st_fn_lookup(fn2) : 0;
	rw->use.op = rw->name;
	rw->use.p_min = (long)jnum(json_object_get(j, "p_min"), 0);
	rw->use.p_max = (long)jnum(json_object_get(j, "p_max"), 0);
	rw->use.d_min = jnum(json_object_get(j, "d_min_bytes"), NAN);
	rw->use.d_max = jnum(json_object_get(j, "d_max_bytes"), NAN);
	if (model && json_is_object(model)) {
		const json_t *pcs = json_object_get(model, "piece");

		if (!pcs || !json_is_array(pcs) || json_array_size(pcs) < 1 ||
		    json_array_size(pcs) > 2)
			return bad(err, errlen, "'%s': operation %s: its model "
				   "has no pieces", name, op);
		rw->npieces = (int)json_array_size(pcs);
		rw->d_below = jnum(json_object_get(model, "d_below_bytes"),
					  NAN);
		rw->d_split = jnum(json_object_get(model, "d_split_bytes"),
					  NAN);
		for (i = 0; i < json_array_size(pcs); i++)
			if ((rc = read_piece(json_array_get(pcs, i),
					     &rw->pc[i], name, op, err,
					     errlen)))
				return rc;
		if (rw->npieces == 2 && !(rw->d_below < rw->d_split))
			return bad(err, errlen, "'%s': operation %s: bad split "
				   "in d", name, op);
		rw->use.has_formula = 1;
	}
	if (groups && json_is_array(groups) && json_array_size(groups)) {
		rw->g = calloc(json_array_size(groups), sizeof(*rw->g));
		if (!rw->g)
			return -ENOMEM;
		for (i = 0; i < json_array_size(groups); i++) {
			const json_t *g = json_array_get(groups, i);
			const json_t *fj = json_object_get(g, "first_ns");
			double med = jnum(json_object_get(g, "median_ns"),
						 NAN);
			double first = NAN;

			if (fj && !json_is_null(fj)) {
				first = jnum(fj, NAN);
				if (!isfinite(first) || first < 0)
					return bad(err, errlen, "'%s': "
						   "operation %s: bad "
						   "\"first_ns\" in group %zu "
						   "(not a number >= 0)",
						   name, op, i + 1);
			}
			if (!isfinite(med))
				continue;
			if ((rc = read_launches(g, &rw->g[rw->ng])))
				return rc;
			if (isfinite(first))
				rw->use.has_first = 1;
			rw->g[rw->ng].first = first;
			rw->g[rw->ng].p = (long)jnum(
				json_object_get(g, "p"), 0);
			rw->g[rw->ng].d = jnum(
				json_object_get(g, "d_bytes"), 0);
			rw->g[rw->ng].n_in = jnum(
				json_object_get(g, "n_in"), 0);
			rw->g[rw->ng].ci_lo = jnum(
				json_object_get(g, "ci_lo_ns"), NAN);
			rw->g[rw->ng].ci_hi = jnum(
				json_object_get(g, "ci_hi_ns"), NAN);
			rw->g[rw->ng++].median = med;
		}
	}
	if (!rw->npieces && !rw->ng)
		return bad(err, errlen, "'%s': operation %s has neither a "
			   "formula nor a group median", name, op);
	launch_spread(rw);
	if (rw->ng)
		qsort(rw->g, rw->ng, sizeof(*rw->g), cmp_group);
	if (bounds(rw))
		return -ENOMEM;
	mean_factor(rw, jnum(json_object_get(j, "call_ns"), NAN),
		    jnum(json_object_get(j, "wait_ns"), NAN));
	rw->use.p_lo = -1;
	rw->last_p = -1;
	return 0;
}

/*
 * The range of start row 'x' as factors on its profile: its least and
 * most series' summed excess ("excess_min_ns", "excess_max_ns") over
 * what the profile charges a whole channel (the sum of its per-message
 * medians, which need not be the median series' sum), with the least
 * at most 1 and the most at least 1.  1 and 1 where the row gives no
 * range (absent or null: not finite when written) or the profile
 * charges nothing.  -1 if one is there but not a number, or the least
 * is above the most.
 */
static int start_range(struct start_row *sr, const json_t *x)
{
	const json_t *jl = json_object_get(x, "excess_min_ns");
	const json_t *jh = json_object_get(x, "excess_max_ns");
	double lo, hi, sum = 0;
	size_t k;

	sr->f_lo = sr->f_hi = 1;
	if ((jl && !json_is_null(jl) && !json_is_number(jl)) ||
	    (jh && !json_is_null(jh) && !json_is_number(jh)))
		return -1;
	if (!json_is_number(jl) || !json_is_number(jh))
		return 0;
	lo = json_number_value(jl);
	hi = json_number_value(jh);
	if (!(lo <= hi))
		return -1;
	for (k = 0; k < sr->msgs; k++)
		sum += sr->profile[k];
	if (!(sum > 0))
		return 0;
	sr->f_lo = lo > 0 ? fmin(lo / sum, 1) : 0;
	sr->f_hi = fmax(hi / sum, 1);
	return 0;
}


/* A launch's index in 'ids' (of 'n'), or -1. */
static int launch_at(const int *ids, size_t n, double id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return (int)i;
	return -1;
}

/*
 * The median over group 'g''s launches in 'want' (a launch's index in
 * st->id; -1: those of state 'state', 0 or 1) of their medians, over
 * the group's median, into '*out'; 'buf' holds g->nrun.  0, or -1 when
 * none is there.
 */
static int launch_ratio(const struct st_pmodel_states *st,
			const struct group *g, int want, int state,
			double *buf, double *out)
{
	size_t q, c = 0;
	int at;

	for (q = 0; q < g->nrun; q++) {
		at = launch_at(st->id, st->nlaunch, g->run_id[q]);
		if (at >= 0 && (want >= 0 ? at == want :
				((size_t)at >= st->split) == state))
			buf[c++] = g->run_med[q];
	}
	if (!c || st_stats_sort(buf, c) || st_stats_median(buf, c, out))
		return -1;
	*out /= g->median;
	return 0;
}

/*
 * The median of launch_ratio() over the groups of 'rows' (of 'nrows')
 * that have two launches or more, into '*out' (unchanged when none
 * does); 'buf' holds every such group and then the most launches of one.
 */
static void rows_ratio(const struct st_pmodel_states *st,
		       const struct row *rows, size_t nrows, int want,
		       int state, double *buf, size_t ngroups, double *out)
{
	size_t i, k, n = 0;

	for (i = 0; i < nrows; i++)
		for (k = 0; k < rows[i].ng; k++) {
			const struct group *g = &rows[i].g[k];

			if (g->nrun >= 2 && g->median > 0 &&
			    !launch_ratio(st, g, want, state, buf + ngroups,
					  &buf[n]))
				n++;
		}
	if (n && !st_stats_sort(buf, n))
		st_stats_median(buf, n, out);
}

struct launch {
	int id;
	double f;
};

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	return (x->f > y->f) - (x->f < y->f);
}

/*
 * The launches' two states (struct st_pmodel_states), and each row's
 * factors under them (f_state).  0 or -ENOMEM.
 */
static int find_states(struct st_pmodel *m)
{
	struct st_pmodel_states *st = &m->states;
	struct launch l[ST_PMODEL_MAX_LAUNCHES];
	size_t ngroups = 0, most = 0, i, k, q;
	double *buf, best = 0;
	int s;

	st->n = 0;
	st->nlaunch = 0;
	for (i = 0; i < m->nrows; i++)
		m->rows[i].f_state[0] = m->rows[i].f_state[1] = 1;
	/* The launches: the ids of the groups of two launches or more. */
	for (i = 0; i < m->nrows; i++)
		for (k = 0; k < m->rows[i].ng; k++) {
			const struct group *g = &m->rows[i].g[k];

			if (g->nrun < 2)
				continue;
			ngroups++;
			if (g->nrun > most)
				most = g->nrun;
			for (q = 0; q < g->nrun; q++) {
				double id = g->run_id[q];

				if (launch_at(st->id, st->nlaunch, id) >= 0)
					continue;
				/* Not an index of the runs: one state. */
				if (st->nlaunch == ST_PMODEL_MAX_LAUNCHES ||
				    !(id >= 0 && id < 1e6) || id != floor(id))
					return 0;
				st->id[st->nlaunch++] = (int)id;
			}
		}
	if (st->nlaunch < 2)
		return 0;
	if (!(buf = malloc((ngroups + most) * sizeof(*buf))))
		return -ENOMEM;
	/* Each launch's factor, cheapest first. */
	for (i = 0; i < st->nlaunch; i++) {
		l[i].id = st->id[i];
		l[i].f = NAN;
		rows_ratio(st, m->rows, m->nrows, (int)i, 0, buf, ngroups,
			   &l[i].f);
		if (!(l[i].f > 0)) {
			free(buf);
			return 0;
		}
	}
	qsort(l, st->nlaunch, sizeof(*l), cmp_launch);
	for (i = 0; i < st->nlaunch; i++) {
		st->id[i] = l[i].id;
		st->f[i] = l[i].f;
	}
	/* Split at the largest step, if large enough. */
	for (i = 1; i < st->nlaunch; i++)
		if (st->f[i] / st->f[i - 1] > best) {
			best = st->f[i] / st->f[i - 1];
			st->split = i;
		}
	if (best < ST_PMODEL_STATE_STEP) {
		free(buf);
		return 0;
	}
	st_stats_median(st->f, st->split, &st->factor[0]);
	st_stats_median(st->f + st->split, st->nlaunch - st->split,
			&st->factor[1]);
	/* Each row's factor under each state. */
	for (i = 0; i < m->nrows; i++)
		for (s = 0; s < 2; s++)
			rows_ratio(st, &m->rows[i], 1, -1, s, buf, ngroups,
				   &m->rows[i].f_state[s]);
	free(buf);
	/* A table whose runs list is shorter than its ids say: the ids. */
	for (i = 0; i < st->nlaunch; i++)
		if ((size_t)st->id[i] + 1 > st->nruns)
			st->nruns = (size_t)st->id[i] + 1;
	st->n = 2;
	return 0;
}

const struct st_pmodel_states *st_pmodel_states(const struct st_pmodel *m)
{
	return &m->states;
}

/*
 * The table's start rows ("start", absent in tables without them):
 * each "bytes" a number >= 0 and "profile_ns" an array of numbers >= 0,
 * by size ascending.
 */
static int read_start(struct st_pmodel *m, const json_t *a,
		      const char *name, char *err, size_t errlen)
{
	size_t i, k;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "'%s': \"start\" is not an array",
			   name);
	if (!json_array_size(a))
		return 0;
	if (!(m->start = calloc(json_array_size(a), sizeof(*m->start))))
		return -ENOMEM;
	for (i = 0; i < json_array_size(a); i++) {
		const json_t *x = json_array_get(a, i);
		const json_t *pr = json_object_get(x, "profile_ns");
		struct start_row *sr = &m->start[m->nstart];

		sr->bytes = jnum(json_object_get(x, "bytes"), -1);
		if (!(sr->bytes >= 0) || !isfinite(sr->bytes) ||
		    !json_is_array(pr) ||
		    (m->nstart && sr->bytes <= sr[-1].bytes))
			return bad(err, errlen, "'%s': start row %zu: no "
				   "\"bytes\" above the row before, or no "
				   "\"profile_ns\" array", name, i);
		sr->msgs = json_array_size(pr);
		if (sr->msgs && !(sr->profile = malloc(sr->msgs *
						       sizeof(double))))
			return -ENOMEM;
		m->nstart++;
		for (k = 0; k < sr->msgs; k++) {
			double v = jnum(json_array_get(pr, k), -1);

			if (!(v >= 0) || !isfinite(v))
				return bad(err, errlen, "'%s': start row %zu: "
					   "\"profile_ns\" value %zu is not "
					   "a finite number >= 0", name, i, k);
			sr->profile[k] = v;
		}
		if (start_range(sr, x))
			return bad(err, errlen, "'%s': start row %zu: "
				   "\"excess_min_ns\" or \"excess_max_ns\" "
				   "not a number, or the least above the "
				   "most", name, i);
	}
	return 0;
}

int st_pmodel_parse(struct st_pmodel **out, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	const json_t *meta, *ops, *v;
	struct st_pmodel *m;
	json_error_t je;
	json_t *j;
	size_t i, n = 0;
	double version;
	int rc;

	*out = NULL;
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!j && json_error_code(&je) == json_error_out_of_memory)
		return -ENOMEM;
	if (!j)
		return bad(err, errlen, "'%s': not JSON: line %d column %d: "
			   "%s", name, je.line, je.column, je.text);
	if (strcmp(jstr(json_object_get(j, "format"), ""),
		   "synctrace-table")) {
		json_decref(j);
		return bad(err, errlen, "'%s': not a synctrace cost table (no "
			   "\"format\": \"synctrace-table\")", name);
	}
	version = jnum(json_object_get(j, "version"), -1);
	if (version != 1) {
		json_decref(j);
		return bad(err, errlen, "'%s': cost table version %g, this "
			   "synctrace reads version 1", name, version);
	}
	ops = json_object_get(j, "operations");
	if (!ops || !json_is_array(ops)) {
		json_decref(j);
		return bad(err, errlen, "'%s': no \"operations\" array",
			   name);
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->rows = calloc(json_array_size(ops) + 1,
				     sizeof(*m->rows))) ||
	    !(m->coll_row = malloc(ST_FN_COUNT * sizeof(int))) ||
	    !(m->p2p_row = malloc(ST_FN_COUNT * sizeof(int)))) {
		json_decref(j);
		st_pmodel_free(m);
		return -ENOMEM;
	}
	for (i = 0; i < ST_FN_COUNT; i++)
		m->coll_row[i] = m->p2p_row[i] = UNRESOLVED;
	for (i = 0; i < json_array_size(ops); i++) {
		m->nrows++;
		rc = read_row(json_array_get(ops, i), &m->rows[i], name, err,
			      errlen);
		if (rc) {
			if (rc == -ENOMEM && err && errlen)
				snprintf(err, errlen, "out of memory");
			json_decref(j);
			st_pmodel_free(m);
			return rc;
		}
	}
	if ((rc = read_start(m, json_object_get(j, "start"), name, err,
			     errlen))) {
		if (rc == -ENOMEM && err && errlen)
			snprintf(err, errlen, "out of memory");
		json_decref(j);
		st_pmodel_free(m);
		return rc;
	}
	meta = json_object_get(j, "metadata");
	m->mpi = dup_or_null(jstr(json_object_get(meta, "mpi_library"),
					 NULL));
	m->date = dup_or_null(jstr(json_object_get(meta, "date"), NULL));
	m->ci_level = jnum(json_object_get(meta, "ci_level"), NAN);
	m->p_min = m->p_max = -1;
	v = json_object_get(meta, "process_counts");
	for (i = 0; v && json_is_array(v) && i < json_array_size(v); i++) {
		long p = (long)jnum(json_array_get(v, i), -1);

		if (p < 1)
			continue;
		if (m->p_min < 0 || p < m->p_min)
			m->p_min = p;
		if (p > m->p_max)
			m->p_max = p;
	}
	v = json_object_get(meta, "runs");
	for (i = 0; v && json_is_array(v) && i < json_array_size(v); i++) {
		const json_t *b = json_object_get(json_array_get(v, i),
						  "bench");

		if (json_is_true(b))
			m->bench = 1;
	}
	v = json_object_get(meta, "hosts");
	for (i = 0; v && json_is_array(v) && i < json_array_size(v); i++)
		n += strlen(jstr(json_array_get(v, i), "")) + 2;
	if (n && (m->hosts = malloc(n + 1))) {
		size_t at = 0;

		m->hosts[0] = '\0';
		for (i = 0; i < json_array_size(v); i++)
			at += (size_t)snprintf(m->hosts + at, n + 1 - at,
					       "%s%s", i ? ", " : "",
					       jstr(json_array_get(v, i), ""));
	}
	v = json_object_get(meta, "runs");
	m->states.nruns = v && json_is_array(v) ? json_array_size(v) : 0;
	json_decref(j);
	if ((rc = find_states(m))) {
		st_pmodel_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int st_pmodel_load(struct st_pmodel **out, const char *path, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, alloc = 0, got;
	int rc, e;

	*out = NULL;
	if (!f) {
		e = errno;
		if (err && errlen)
			snprintf(err, errlen, "cannot open '%s': %s", path,
				 strerror(e));
		return -e;
	}
	for (;;) {
		if (len + 65536 > alloc) {
			char *p = realloc(buf, alloc = len + 2 * 65536);

			if (!p) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = p;
		}
		got = fread(buf + len, 1, alloc - len, f);
		len += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		e = errno ? errno : EIO;
		free(buf);
		fclose(f);
		if (err && errlen)
			snprintf(err, errlen, "cannot read '%s': %s", path,
				 strerror(e));
		return -e;
	}
	fclose(f);
	rc = st_pmodel_parse(out, buf, len, path, err, errlen);
	free(buf);
	return rc;
}

void st_pmodel_free(struct st_pmodel *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; m->rows && i < m->nrows; i++) {
		size_t k;

		for (k = 0; k < m->rows[i].ng; k++)
			free(m->rows[i].g[k].run_med);
		free(m->rows[i].name);
		free(m->rows[i].g);
	}
	free(m->rows);
	for (i = 0; m->start && i < m->nstart; i++)
		free(m->start[i].profile);
	free(m->start);
	free(m->coll_row);
	free(m->p2p_row);
	free(m->mpi);
	free(m->hosts);
	free(m->date);
	free(m);
}

/* The blocking int form of collective 'fn', or 0 when it is that. */
static unsigned base_coll(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);
	char buf[64];
	size_t n;

	if (!d)
		return 0;
	snprintf(buf, sizeof(buf), "%s", d->name);
	n = strlen(buf);
	if (n > 2 && !strcmp(buf + n - 2, "_c"))
		buf[n -= 2] = '\0';
	if (n > 5 && !strcmp(buf + n - 5, "_init"))
		buf[n -= 5] = '\0';
	if (d->family == ST_FAM_NONBLOCKING && !strncmp(buf, "MPI_I", 5) &&
	    buf[5]) {
		memmove(buf + 4, buf + 5, n - 4);
		buf[4] = (char)toupper((unsigned char)buf[4]);
	}
	return st_fn_lookup(buf) == fn ? 0 : st_fn_lookup(buf);
}

static int find_coll(const struct st_pmodel *m, unsigned fn)
{
	unsigned base = base_coll(fn);
	size_t i;

	for (i = 0; i < m->nrows; i++)
		if (m->rows[i].kind == K_COLL && m->rows[i].fn == fn)
			return (int)i;
	for (i = 0; base && i < m->nrows; i++)
		if (m->rows[i].kind == K_COLL && m->rows[i].fn == base)
			return (int)i;
	return NONE;
}

static int find_pair(const struct st_pmodel *m, unsigned fn, unsigned fn2)
{
	size_t i;

	for (i = 0; i < m->nrows; i++)
		if (m->rows[i].kind == K_P2P && (!fn || m->rows[i].fn == fn) &&
		    (!fn2 || m->rows[i].fn2 == fn2))
			return (int)i;
	return NONE;
}

/* The blocking send that nonblocking or large-count send 'fn' is. */
static unsigned base_send(unsigned fn)
{
	switch (fn) {
	case ST_FN_MPI_SSEND_C: case ST_FN_MPI_ISSEND:
	case ST_FN_MPI_ISSEND_C:
		return ST_FN_MPI_SSEND;
	case ST_FN_MPI_RSEND_C:
		return ST_FN_MPI_RSEND;
	case ST_FN_MPI_BSEND_C:
		return ST_FN_MPI_BSEND;
	case ST_FN_MPI_SSEND: case ST_FN_MPI_RSEND: case ST_FN_MPI_BSEND:
		return fn;
	default:
		return ST_FN_MPI_SEND;
	}
}

static int find_p2p(const struct st_pmodel *m, unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);
	int i = NONE;

	if (!d)
		return NONE;
	switch (d->bytes) {
	case ST_BYTES_SEND:
		if ((i = find_pair(m, base_send(fn), ST_FN_MPI_RECV)) < 0 &&
		    (i = find_pair(m, base_send(fn), 0)) < 0 &&
		    (i = find_pair(m, ST_FN_MPI_SEND, ST_FN_MPI_RECV)) < 0)
			i = find_pair(m, ST_FN_MPI_SEND, 0);
		return i;
	case ST_BYTES_RECV:
		if ((i = find_pair(m, ST_FN_MPI_SEND, ST_FN_MPI_RECV)) < 0)
			i = find_pair(m, 0, ST_FN_MPI_RECV);
		return i;
	case ST_BYTES_SENDRECV:
	case ST_BYTES_SENDRECV_REPLACE:
		if ((i = find_pair(m, ST_FN_MPI_SENDRECV, 0)) < 0)
			i = find_pair(m, ST_FN_MPI_SEND, ST_FN_MPI_RECV);
		return i;
	}
	return NONE;
}

/* How far size 'd' is from group 'g''s size: in log2 d + 1. */
static double size_dist(const struct group *g, double d)
{
	return fabs(log2((d + 1) / (g->d + 1)));
}

/* How far group 'g' is from (p, d): in log2 d + 1 and log2 p. */
static double group_dist(const struct group *g, long p, double d)
{
	return size_dist(g, d) +
	       fabs(log2((double)p / (double)(g->p > 0 ? g->p : 1)));
}

static double piece_eval(const struct piece *pc, double p, double d)
{
	return pc->coef[0] +
	       pc->coef[1] * st_fit_fn_value(pc->fn[1], p) +
	       pc->coef[2] * st_fit_fn_value(pc->fn[2], p) * d;
}

/*
 * The measured cost at (p, d) when the row has groups at 'p' on both
 * sides of 'd': linear between the two nearest (the model's own form
 * within a piece).  Returns 1 and sets '*t', else 0.
 */
static int interpolate(const struct row *rw, long p, double d, double *t)
{
	const struct group *lo = NULL, *hi = NULL;
	size_t i;

	for (i = 0; i < rw->ng; i++) {
		const struct group *g = &rw->g[i];

		if (g->p != p)
			continue;
		if (g->d <= d)
			lo = g;
		if (g->d >= d && !hi)
			hi = g;
	}
	if (!lo || !hi)
		return 0;
	if (hi->d <= lo->d)
		*t = lo->median;
	else
		*t = lo->median + (hi->median - lo->median) *
		     (d - lo->d) / (hi->d - lo->d);
	return 1;
}

/* Count a lookup of row 'rw' at (p, d). */
static void count_use(struct row *rw, long p, double d)
{
	struct st_pmodel_use *u = &rw->use;

	u->lookups++;
	if ((rw->kind == K_COLL || rw->kind == K_BURST) &&
	    (p < u->p_min || p > u->p_max))
		u->p_out++;
	if (d < u->d_min * (1 - 1e-9) || d > u->d_max * (1 + 1e-9))
		u->d_out++;
	if (u->p_lo < 0 || p < u->p_lo)
		u->p_lo = p;
	if (p > u->p_hi)
		u->p_hi = p;
	if (u->lookups == 1 || d < u->d_lo)
		u->d_lo = d;
	if (d > u->d_hi)
		u->d_hi = d;
}

/*
 * The row's cost at (p, d) at its centre (the median, or the mean under
 * --statistic=mean), whatever the bound, 0 when none: nothing counted
 * or cached.
 */
static double row_centre(const struct st_pmodel *m, const struct row *rw,
			 long p, double d)
{
	double t, best = INFINITY;
	size_t i;

	if (!m->formula_only && interpolate(rw, p, d, &t)) {
		/* Measured there: the data, not the fit. */
	} else if (rw->npieces == 1) {
		t = piece_eval(&rw->pc[0], (double)p, d);
	} else if (rw->npieces == 2) {
		/* The switch lies between d_below and d_split. */
		int k = d <= rw->d_below ? 0 : d >= rw->d_split ? 1 :
			d * d < rw->d_below * rw->d_split ? 0 : 1;

		t = piece_eval(&rw->pc[k], (double)p, d);
	} else {
		/* No formula: the median of the nearest group. */
		t = rw->g[0].median;
		for (i = 0; i < rw->ng; i++) {
			double dist = group_dist(&rw->g[i], p, d);

			if (dist < best) {
				best = dist;
				t = rw->g[i].median;
			}
		}
	}
	if (m->mean)
		t *= rw->use.mean_factor;
	return t > 0 && isfinite(t) ? t : 0;
}

/* The row's cost at (p, d), counting the lookup (not under a bound). */
static double row_eval(const struct st_pmodel *m, struct row *rw, long p,
		       double d)
{
	double t;

	if (!m->bound && !m->state)
		count_use(rw, p, d);
	if (p == rw->last_p && d == rw->last_d)
		return rw->last_t;
	t = row_centre(m, rw, p, d);
	if (m->bound)
		t *= m->bound < 0 ? rw->f_lo : rw->f_hi;
	if (m->state)
		t *= rw->f_state[m->state - 1];
	rw->last_p = p;
	rw->last_d = d;
	rw->last_t = t;
	return t;
}

void st_pmodel_formula_only(struct st_pmodel *m, int on)
{
	size_t i;

	m->formula_only = on;
	for (i = 0; i < m->nrows; i++)
		m->rows[i].last_p = -1;
}

void st_pmodel_bound(struct st_pmodel *m, int side)
{
	size_t i;

	m->bound = side < 0 ? -1 : side > 0;
	for (i = 0; i < m->nrows; i++)
		m->rows[i].last_p = -1;
}

void st_pmodel_state(struct st_pmodel *m, int state)
{
	size_t i;

	m->state = m->states.n == 2 && (state == 1 || state == 2) ? state : 0;
	for (i = 0; i < m->nrows; i++)
		m->rows[i].last_p = -1;
}

void st_pmodel_mean(struct st_pmodel *m, int on)
{
	size_t i;

	m->mean = on;
	for (i = 0; i < m->nrows; i++)
		m->rows[i].last_p = -1;
}

/* The row of collective 'fn', or NULL. */
static struct row *coll_row(struct st_pmodel *m, unsigned fn)
{
	if (fn >= ST_FN_COUNT)
		return NULL;
	if (m->coll_row[fn] == UNRESOLVED)
		m->coll_row[fn] = find_coll(m, fn);
	return m->coll_row[fn] < 0 ? NULL : &m->rows[m->coll_row[fn]];
}

double st_pmodel_coll(struct st_pmodel *m, unsigned fn, long p, double d)
{
	struct row *rw = coll_row(m, fn);

	return rw ? row_eval(m, rw, p, d) : -1;
}

/*
 * Asked once per first instance, so a scan of the row's groups; the
 * nearest is found as row_eval() finds a median without a formula.
 */
double st_pmodel_coll_first(struct st_pmodel *m, unsigned fn, long p,
			    double d)
{
	struct row *rw = coll_row(m, fn);
	const struct group *near = NULL;
	double best = INFINITY, x;
	size_t i;

	if (!rw)
		return -1;
	if (!rw->use.has_first || m->mean)
		return 0;
	for (i = 0; i < rw->ng; i++) {
		double dist;

		if (isnan(rw->g[i].first))
			continue;
		dist = group_dist(&rw->g[i], p, d);
		if (!near || dist < best) {
			best = dist;
			near = &rw->g[i];
		}
	}
	x = near ? near->first - near->median : 0;
	if (!(x > 0) || !isfinite(x))
		return 0;
	if (!m->bound && !m->state) {
		rw->use.first_calls++;
		rw->use.first_ns += x;
	}
	return x;
}

size_t st_pmodel_first_rows(const struct st_pmodel *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->nrows; i++)
		n += m->rows[i].use.has_first != 0;
	return n;
}

/* The row of point-to-point function 'fn', or NULL. */
static struct row *p2p_row(struct st_pmodel *m, unsigned fn)
{
	if (fn >= ST_FN_COUNT)
		return NULL;
	if (m->p2p_row[fn] == UNRESOLVED)
		m->p2p_row[fn] = find_p2p(m, fn);
	return m->p2p_row[fn] < 0 ? NULL : &m->rows[m->p2p_row[fn]];
}

double st_pmodel_p2p(struct st_pmodel *m, unsigned fn, double bytes)
{
	struct row *rw = p2p_row(m, fn);

	return rw ? row_eval(m, rw, 2, bytes) : -1;
}

/* The row of 'kind' and function 'fn' (any when 0), or NULL. */
static struct row *kind_row(struct st_pmodel *m, int kind, unsigned fn)
{
	size_t i;

	for (i = 0; i < m->nrows; i++)
		if (m->rows[i].kind == kind && (!fn || m->rows[i].fn == fn))
			return &m->rows[i];
	return NULL;
}

/* The samples of row 'rw''s groups at size 'd' (any p), 0 when none. */
static double samples_at(const struct row *rw, double d)
{
	double n = 0;
	size_t i;

	for (i = 0; rw && i < rw->ng; i++)
		if (rw->g[i].d == d)
			n += rw->g[i].n_in;
	return n;
}

/* Find the network model's rows and the eager limit, once. */
static void net_resolve(struct st_pmodel *m)
{
	struct net *n = &m->net;
	size_t i;
	int k;

	if (n->resolved)
		return;
	n->resolved = 1;
	n->need_d = -1;
	n->burst = kind_row(m, K_BURST, 0);
	n->eager = kind_row(m, K_SEND_EAGER, 0);
	n->rndv = kind_row(m, K_SEND_RNDV, 0);
	n->late = kind_row(m, K_RECV_LATE, 0);
	n->sbusy = kind_row(m, K_SND_BUSY, 0);
	n->rbusy = kind_row(m, K_RCV_BUSY, 0);
	n->xbusy = kind_row(m, K_XCHG_BUSY, 0);
	n->xburst = kind_row(m, K_XCHG_BURST, 0);
	for (i = 0; n->xburst && i < n->xburst->ng; i++)
		if (n->xburst->g[i].p > n->xkmax)
			n->xkmax = n->xburst->g[i].p;
	k = find_pair(m, ST_FN_MPI_SENDRECV, 0);
	n->sendrecv = k < 0 ? NULL : &m->rows[k];
	n->eager_max = -1;
	n->rndv_min = INFINITY;
	for (i = 0; n->burst && i < n->burst->ng; i++) {
		if (n->burst->g[i].p > n->kmax)
			n->kmax = n->burst->g[i].p;
		n->has_k1 |= n->burst->g[i].p == 1;
	}
	/*
	 * A size is eager when more of its late sends did not wait than
	 * did: a sender descheduled past the receive's post looks as if
	 * it had waited.
	 */
	for (i = 0; n->eager && i < n->eager->ng; i++) {
		const struct group *g = &n->eager->g[i];

		if (g->d > n->eager_max &&
		    g->n_in >= samples_at(n->rndv, g->d))
			n->eager_max = g->d;
	}
	for (i = 0; n->rndv && i < n->rndv->ng; i++) {
		const struct group *g = &n->rndv->g[i];

		if (g->d < n->rndv_min && g->n_in > samples_at(n->eager, g->d))
			n->rndv_min = g->d;
	}
}

int st_pmodel_rendezvous(struct st_pmodel *m, double bytes)
{
	struct net *n = &m->net;

	net_resolve(m);
	if (!n->rndv || !isfinite(n->rndv_min))
		return 0;
	if (n->eager_max >= n->rndv_min)
		/* A size in both: each size as its majority says. */
		return bytes >= n->rndv_min && bytes > n->eager_max;
	if (n->eager_max < 0 || n->eager_max >= n->rndv_min)
		return bytes >= n->rndv_min;
	/* Between the two sizes measured: the geometric middle. */
	return bytes * bytes > n->eager_max * n->rndv_min;
}

/* The group of 'rw' nearest 'd' in log size (any p), NULL when none. */
static const struct group *nearest_d(const struct row *rw, double d)
{
	const struct group *best = NULL;
	double bd = INFINITY, x;
	size_t i;

	for (i = 0; rw && i < rw->ng; i++) {
		x = size_dist(&rw->g[i], d);
		if (x < bd) {
			bd = x;
			best = &rw->g[i];
		}
	}
	return best;
}

int st_pmodel_progress(struct st_pmodel *m, double bytes)
{
	struct net *n = &m->net;
	const struct group *g, *b;
	int need = 0;
	size_t i;

	net_resolve(m);
	if (m->no_net)
		return 0;
	/*
	 * Asked for every message: the last size's answer kept (it reads
	 * group medians only, whatever the bound, statistic or formula).
	 */
	if (bytes == n->need_d)
		return n->need;
	/* A sender computing C = ST_MICRO_LATE_NS(d): the receive took
	 * more than C / 2 (it took about C and more, or the transfer). */
	g = nearest_d(n->sbusy, bytes);
	if (g && g->median > ST_MICRO_LATE_NS(g->d) / 2)
		need |= 1;
	n->sfree = g && !(need & 1);
	/* A receiver computing: its Wait took more than half of the
	 * burst of one at that size. */
	g = nearest_d(n->rbusy, bytes);
	for (i = 0, b = NULL; g && n->burst && i < n->burst->ng; i++)
		if (n->burst->g[i].p == 1 && n->burst->g[i].d == g->d)
			b = &n->burst->g[i];
	if (g && b && g->median > b->median / 2)
		need |= 2;
	n->need_d = bytes;
	n->need = need;
	return need;
}

/* row_eval(), or row_centre() when 'centre'. */
static double row_at(const struct st_pmodel *m, struct row *rw, long p,
		     double d, int centre)
{
	return centre ? row_centre(m, rw, p, d) : row_eval(m, rw, p, d);
}

/* st_pmodel_gap(), at the rows' centres when 'centre'. */
static double gap_at(struct st_pmodel *m, unsigned fn, double bytes,
		     int centre)
{
	struct net *n = &m->net;
	struct row *x = p2p_row(m, fn);
	double one, k;

	net_resolve(m);
	if (!n->burst || n->kmax < 2)
		return 0;
	if (n->has_k1)
		one = row_at(m, n->burst, 1, bytes, centre);
	else if (x)
		one = row_at(m, x, 2, bytes, centre);
	else
		return 0;
	k = row_at(m, n->burst, n->kmax, bytes, centre);
	return k > one ? (k - one) / (double)(n->kmax - 1) : 0;
}

double st_pmodel_gap(struct st_pmodel *m, unsigned fn, double bytes)
{
	return gap_at(m, fn, bytes, 0);
}

/* st_pmodel_xchg_gap(), at the rows' centres when 'centre'. */
static double xchg_gap_at(struct st_pmodel *m, double bytes, int centre)
{
	struct net *n = &m->net;
	double one, k;

	net_resolve(m);
	if (!n->xbusy || !n->xburst || n->xkmax < 2)
		return 0;
	one = row_at(m, n->xbusy, 2, bytes, centre);
	k = row_at(m, n->xburst, n->xkmax, bytes, centre);
	return k > one ? (k - one) / (double)(n->xkmax - 1) : 0;
}

double st_pmodel_xchg_gap(struct st_pmodel *m, double bytes)
{
	return xchg_gap_at(m, bytes, 0);
}

/*
 * The share is a ratio of costs, not a cost: a bound replay takes it
 * at the rows' centres, as the prediction does, and moves only the
 * costs to their bounds.  Taken from rows at their low or high ends,
 * each by its own factor, it could come out larger at the low end and
 * make the "every cost low" replay longer than the prediction.
 */
/* The group of 'rw' at 2 processes nearest 'bytes' in log size, or NULL. */
static const struct group *group_near(const struct row *rw, double bytes)
{
	const struct group *best = NULL;
	double db = INFINITY, d;
	size_t i;

	for (i = 0; i < rw->ng; i++) {
		if (rw->g[i].p != 2 || !(rw->g[i].d > 0) || !(bytes > 0))
			continue;
		d = fabs(log(rw->g[i].d / bytes));
		if (d < db) {
			db = d;
			best = &rw->g[i];
		}
	}
	return best;
}

int st_pmodel_paired_dearer(const double *a, const double *a_id, size_t na,
			    const double *b, const double *b_id, size_t nb,
			    double level)
{
	double mean, sd, t, r[256];
	size_t i, j, n = 0;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb && n < 256; j++)
			if (a_id[i] == b_id[j]) {
				r[n++] = log(a[i] / b[j]);
				break;
			}
	if (n < 2 || st_stats_mean_sd(r, n, &mean, &sd))
		return -1;
	if (!(level > 0 && level < 1))
		level = 0.95;
	if (st_stats_t_quantile((1 + level) / 2, (double)(n - 1), &t))
		return -1;
	return mean - t * sd / sqrt((double)n) > 0;
}

/* 't' clamped to 0..1 (NaN: 0). */
static double within_0_1(double t)
{
	return t > 1 ? 1 : t > 0 ? t : 0;
}

double st_pmodel_share(struct st_pmodel *m, unsigned fn, double bytes)
{
	struct row *x = p2p_row(m, fn);
	struct net *n = &m->net;
	const struct group *gs, *gc;
	double t, c, g, sr, xs;
	int centre = m->bound != 0 || m->state, dearer;

	net_resolve(m);
	if (!x)
		return 0;
	/*
	 * Rendezvous messages, K each way started together (the table's
	 * exchange bursts): a pair of transfers every S = (XB(K) - X) /
	 * (K - 1).  The replay's ports (share_ports(), replay-p2p.c) space
	 * such pairs 2 g / (2 - share) apart, each direction held up by the
	 * share of what the other has queued, so the share is 2 (1 - g /
	 * S): 0 at S = g (the directions apart), 1 at 2 g (one port).  One
	 * message each way (MPI_Sendrecv) overstates it where only the
	 * receiver moves the data (shared memory, 64 KiB: 0.43 against
	 * 0.22), and below the rendezvous the bursts' data moved before
	 * the MPI_Waitall their span starts at.
	 */
	if (st_pmodel_rendezvous(m, bytes) &&
	    (xs = xchg_gap_at(m, bytes, centre)) > 0) {
		g = gap_at(m, fn, bytes, centre);
		return g > 0 ? within_0_1(2 * (1 - g / xs)) : 0;
	}
	if (!n->sendrecv || !interpolate(n->sendrecv, 2, bytes, &t))
		return 0;
	g = gap_at(m, fn, bytes, centre);
	if (!(g > 0))
		return 0;
	sr = row_at(m, n->sendrecv, 2, bytes, centre);
	c = row_at(m, x, 2, bytes, centre);
	/*
	 * Not measurably slower than one message alone: nothing shared.
	 * Launch by launch where both groups at the size have two or more
	 * launches in common (the launch-to-launch spread, which a pooled
	 * table's intervals hold, moves both together); else the rows'
	 * intervals.
	 */
	gs = group_near(n->sendrecv, bytes);
	gc = group_near(x, bytes);
	dearer = gs && gc && gs->d == gc->d ?
		 st_pmodel_paired_dearer(gs->run_med, gs->run_id, gs->nrun,
					 gc->run_med, gc->run_id, gc->nrun,
					 m->ci_level) : -1;
	if (dearer == 0 ||
	    (dearer < 0 && sr * n->sendrecv->f_lo <= c * x->f_hi))
		return 0;
	return within_0_1((sr - c) / g);
}

int st_pmodel_msg(struct st_pmodel *m, unsigned fn, double bytes,
		  struct st_replay_msg *nm)
{
	struct row *x = p2p_row(m, fn);
	struct net *n = &m->net;
	double c;
	int sync;

	if (!x || m->no_net)
		return -1;
	net_resolve(m);
	c = row_eval(m, x, 2, bytes);
	nm->xfer_ns = c;
	nm->rendezvous = st_pmodel_rendezvous(m, bytes);
	/*
	 * Only the send row of the protocol the replay uses (a synchronous
	 * send waits for its receive at any size) is asked, so that its
	 * lookups, and what predict says of sizes outside its range, are
	 * the costs the prediction takes; the other field is never read.
	 */
	sync = nm->rendezvous || st_replay_sync_send(fn);
	nm->send_ns = !sync && n->eager ? row_eval(m, n->eager, 2, bytes) : c;
	nm->late_ns = n->late ? row_eval(m, n->late, 2, bytes) : c;
	nm->rndv_send_ns = sync && n->rndv ? row_eval(m, n->rndv, 2, bytes) :
			   c;
	nm->gap_ns = st_pmodel_gap(m, fn, bytes);
	nm->share = st_pmodel_share(m, fn, bytes);
	/* Between nonblocking calls: the burst of one message. */
	nm->xfer_nb_ns = n->burst && n->has_k1 ?
			 row_eval(m, n->burst, 1, bytes) : 0;
	nm->need = st_pmodel_progress(m, bytes);
	nm->sender_free = n->sfree;	/* st_pmodel_progress()'s, at 'bytes' */
	/* Both directions at once, started together in MPI_Waitall. */
	nm->xchg_ns = nm->need == 3 && n->xbusy ?
		      row_eval(m, n->xbusy, 2, bytes) : 0;
	nm->xchg_gap_ns = nm->xchg_ns > 0 ? st_pmodel_xchg_gap(m, bytes) : 0;
	/*
	 * One each way where only the receiver moves the data (shared
	 * memory): the exchange row, which a share fitted to K each way
	 * overstates (share_ports(), replay-p2p.c).
	 */
	nm->xone_ns = nm->rendezvous && nm->sender_free && nm->need != 3 &&
		      n->xbusy ? row_eval(m, n->xbusy, 2, bytes) : 0;
	/*
	 * An eager message that came while its receiver computed: what
	 * the busy receiver's MPI_Wait took, whatever 'need' says (at
	 * small sizes its flag flips with the noise; the row is the cost
	 * of that Wait either way).
	 */
	nm->rbusy_ns = !nm->rendezvous && n->rbusy ?
		       row_eval(m, n->rbusy, 2, bytes) : 0;
	if (!(nm->rbusy_ns > 0) || !isfinite(nm->rbusy_ns))
		nm->rbusy_ns = 0;
	return 0;
}

void st_pmodel_network(struct st_pmodel *m, int on)
{
	m->no_net = !on;
}

/*
 * ", transfers need the sender / receiver inside MPI: 1024 B -, 16384 B
 * s+r..." for each size of the busy rows.
 */
static void progress_describe(struct st_pmodel *m, char *buf, size_t len)
{
	const struct row *rw = m->net.sbusy ? m->net.sbusy : m->net.rbusy;
	size_t k, i, j;
	int need;

	k = (size_t)snprintf(buf, len, ", a transfer moves only with "
			     "(s)ender / (r)eceiver inside MPI:");
	for (i = 0; i < rw->ng && k < len; i++) {
		for (j = 0; j < i && rw->g[j].d != rw->g[i].d; j++)
			;
		if (j < i)
			continue;
		need = st_pmodel_progress(m, rw->g[i].d);
		k += (size_t)snprintf(buf + k, len - k, " %.0f B %s%s%s",
				      rw->g[i].d, need & 1 ? "s" : "",
				      need == 3 ? "+" : "",
				      need & 2 ? "r" : need ? "" : "-");
	}
}

void st_pmodel_net_describe(struct st_pmodel *m, char *buf, size_t len)
{
	struct net *n = &m->net;
	size_t k = 0;

	net_resolve(m);
	if (m->no_net || (!n->burst && !n->eager && !n->rndv && !n->late)) {
		snprintf(buf, len, "every message eager, at the point-to-point "
			 "row's cost alone%s", m->no_net ? " (--network=off)" :
			 " (the table has no network rows)");
		return;
	}
	k += (size_t)snprintf(buf, len, "messages share their ranks' ports "
			      "(%s)", n->burst && n->kmax >= 2 ?
			      "gap from bursts" : "no bursts: no gap");
	if (k < len)
		k += (size_t)snprintf(buf + k, len - k, ", %s",
				      !n->rndv ? "all eager (no late send "
				      "waited)" : "rendezvous from");
	if (n->rndv && k < len)
		k += (size_t)snprintf(buf + k, len - k, " %.0f B (eager up to "
				      "%.0f B)", n->rndv_min, n->eager_max > 0 ?
				      n->eager_max : 0);
	if (k < len)
		k += (size_t)snprintf(buf + k, len - k, ", %s", n->sendrecv ?
				      "the two directions' sharing from "
				      "MPI_Sendrecv" : "directions apart (no "
				      "MPI_Sendrecv row)");
	if (n->rndv && n->xbusy && n->xburst && n->xkmax >= 2 && k < len)
		k += (size_t)snprintf(buf + k, len - k, ", above the eager "
				      "limit from %ld each way at once",
				      n->xkmax);
	if ((n->sbusy || n->rbusy) && k < len)
		progress_describe(m, buf + k, len - k);
}

void st_pmodel_send_start_fallback(struct st_pmodel *m, int on)
{
	m->send_fallback = on;
}

double st_pmodel_p2p_inject(struct st_pmodel *m, unsigned fn, double bytes)
{
	struct row *rw = kind_row(m, K_CALL, fn);

	if (!rw)
		rw = kind_row(m, K_CALL, ST_FN_MPI_ISEND);
	if (rw)
		return row_eval(m, rw, 2, bytes);
	if (!m->send_fallback || !(rw = p2p_row(m, fn)))
		return -1;
	return row_eval(m, rw, 2, rw->use.d_min > 0 ? rw->use.d_min : 0);
}

int st_pmodel_start_row(struct st_pmodel *m, double bytes)
{
	double best = INFINITY, dist;
	size_t i;
	int r = -1;

	if (m->no_start || !(bytes > 0))
		return -1;
	for (i = 0; i < m->nstart; i++) {
		if (!(m->start[i].bytes > 0))
			continue;
		dist = fabs(log2(bytes / m->start[i].bytes));
		if (dist <= 1 && dist < best) {
			best = dist;
			r = (int)i;
		}
	}
	return r;
}

double st_pmodel_start_ns(const struct st_pmodel *m, int row, uint32_t k)
{
	const struct start_row *sr;

	if (row < 0 || (size_t)row >= m->nstart ||
	    k >= m->start[row].msgs)
		return 0;
	sr = &m->start[row];
	/* A bound replay: the least or the most series' start; a state's:
	   scaled as that state's launches scaled the table. */
	return sr->profile[k] * (m->bound < 0 ? sr->f_lo :
				 m->bound > 0 ? sr->f_hi : 1) *
	       (m->state ? m->states.factor[m->state - 1] : 1);
}

void st_pmodel_no_start(struct st_pmodel *m, int off)
{
	m->no_start = off;
}

size_t st_pmodel_start_rows(const struct st_pmodel *m)
{
	return m->nstart;
}

static int model_start_row(void *ctx, double bytes)
{
	return st_pmodel_start_row(ctx, bytes);
}

static double model_start_ns(void *ctx, int row, uint32_t k)
{
	return st_pmodel_start_ns(ctx, row, k);
}

static double model_coll(void *ctx, unsigned fn, long p, double d)
{
	return st_pmodel_coll(ctx, fn, p, d);
}

static double model_coll_first(void *ctx, unsigned fn, long p, double d)
{
	return st_pmodel_coll_first(ctx, fn, p, d);
}

static int model_p2p(void *ctx, unsigned fn, double bytes, double *local,
		     double *xfer)
{
	double c = st_pmodel_p2p(ctx, fn, bytes);

	if (c < 0)
		return -1;
	*local = c;
	*xfer = 0;
	return 0;
}

static int model_inject(void *ctx, unsigned fn, double bytes, double *ns)
{
	*ns = st_pmodel_p2p_inject(ctx, fn, bytes);
	return *ns < 0 ? -1 : 0;
}

static int model_msg(void *ctx, unsigned fn, double bytes,
		     struct st_replay_msg *nm)
{
	return st_pmodel_msg(ctx, fn, bytes, nm);
}

void st_pmodel_replay_model(struct st_pmodel *m, struct st_replay_model *rm)
{
	rm->ctx = m;
	rm->coll = model_coll;
	rm->coll_first = model_coll_first;
	rm->p2p = model_p2p;
	rm->inject = model_inject;
	rm->msg = model_msg;
	rm->start_row = model_start_row;
	rm->start_ns = model_start_ns;
}

const char *st_pmodel_mpi_library(const struct st_pmodel *m)
{
	return m->mpi;
}

const char *st_pmodel_hosts(const struct st_pmodel *m)
{
	return m->hosts;
}

const char *st_pmodel_date(const struct st_pmodel *m)
{
	return m->date;
}

double st_pmodel_ci_level(const struct st_pmodel *m)
{
	return m->ci_level;
}

int st_pmodel_from_bench(const struct st_pmodel *m)
{
	return m->bench;
}

long st_pmodel_p_min(const struct st_pmodel *m)
{
	return m->p_min;
}

long st_pmodel_p_max(const struct st_pmodel *m)
{
	return m->p_max;
}

size_t st_pmodel_nrows(const struct st_pmodel *m)
{
	return m->nrows;
}

const struct st_pmodel_use *st_pmodel_use(const struct st_pmodel *m,
					  size_t i)
{
	return i < m->nrows ? &m->rows[i].use : NULL;
}
