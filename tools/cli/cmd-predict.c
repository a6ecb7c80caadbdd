/*
 * tools/cli/cmd-predict.c: 'synctrace predict', reverse profiling (Howell):
 * replay a traced run on a cost table and say how long it would take.
 * The run's ranks are read as they are replayed (tools/analysis/replay.h), each
 * MPI call re-timed by the table (tools/analysis/predict-model.h) and each compute
 * segment kept, or scaled by --compute-scale; the output is the predicted
 * run time per rank, per MPI function and per call site, and the split of
 * the critical path into compute and communication.  Two more replays,
 * with the costs at the ends of the table's confidence intervals, bound
 * the prediction.  The first instance of each collective at a process
 * count and size is charged what the table says a first call costs
 * beyond its median (--no-first: not).  --validate sets the run's own
 * measured times beside the prediction.  A run that is not
 * whole (a rank file missing, a rank killed) is refused: a replay needs
 * every rank's part of every collective and message.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gen/ops.h"
#include "gen/version.h"
#include "tools/analysis/format.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/json-out.h"
#include "tools/analysis/phase.h"
#include "tools/analysis/predict-model.h"
#include "tools/analysis/replay.h"
#include "tools/analysis/symbols.h"
#include "tools/cli/synctrace.h"
#include "tools/analysis/table.h"
#include "tools/analysis/tee.h"
#include "tools/analysis/timeline.h"
#include "tools/cli/usage.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"

/* ST_REPLAY_EARLY_CALLS as text, for the output's. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define EARLY STR(ST_REPLAY_EARLY_CALLS)

const char st_predict_usage[] =
"usage: synctrace predict RUN --table TABLE.json [options]\n"
"\n"
"Predict how long the traced run RUN takes where the cost table\n"
"TABLE.json ('synctrace table --json') was measured: every rank's\n"
"records are replayed in order, compute between MPI calls kept as\n"
"measured (synctrace's own work left out), every MPI call re-timed from\n"
"the table while honouring what each rank waits for: a collective ends\n"
"its cost after its last member arrives (roots of Bcast and Scatter\n"
"leave early, non-roots of Gather and Reduce after their send), a\n"
"receive no earlier than its send's entry plus the transfer cost, a\n"
"nonblocking operation at its Wait or Test but no earlier than its\n"
"modelled end.  Prints the predicted run time (MPI_Init exit to\n"
"MPI_Finalize entry) per rank, per MPI function and per call site, and\n"
"how the critical path splits into compute and communication.  Two more\n"
"replays, with every cost at the low and the high end of its table\n"
"row's confidence interval, bound the predicted run time; where the\n"
"table's launches ran in two states (its costs moved between them), two\n"
"more give the run time as each state measured the costs.  The first\n"
"instance of each collective at a process count and size also costs what\n"
"the table measured a first call to take beyond its median (set-up in\n"
"the MPI library), when the table says.\n"
"\n"
"    --table FILE          the cost table (required)\n"
"    --compute-scale X     multiply compute between MPI calls by X\n"
"                          (default 1; 0.5: a CPU twice as fast)\n"
"    --formula             cost every call by the table's formulas; by\n"
"                          default, where the table measured the function\n"
"                          at that process count on both sides of the\n"
"                          size, its group medians (interpolated) are used\n"
"                          and the formulas only beyond them\n"
"    --statistic=S         'median': the table's typical costs as they\n"
"                          are; 'mean': each table row's costs scaled to\n"
"                          its mean (a run time is a sum of costs, the\n"
"                          slow ones included); 'auto' (default): mean\n"
"                          for a table of application traces, median for\n"
"                          one from synctrace bench (whose outliers are\n"
"                          the benchmark's own, dropped by its fences)\n"
"    --missing=MODE        an MPI function the table lacks: 'error'\n"
"                          (default) refuses, 'measured' replays it with\n"
"                          the run's own measured times\n"
"    --no-first            charge no first-call costs: every instance\n"
"                          costs the table's steady state (with\n"
"                          --statistic=mean none is charged anyway: each\n"
"                          row's mean holds its first calls)\n"
"    --no-start            charge no start costs: a channel's first\n"
"                          messages of a size cost the steady state too\n"
"                          (a table from 'synctrace bench --like' gives\n"
"                          what a fresh process's first ones cost more)\n"
"    --send-start=MODE     what starting a nonblocking send (MPI_Isend...)\n"
"                          costs: 'auto' (default), the table's cost of\n"
"                          the call at that size when it has one (its\n"
"                          \"call\" row), else the duration in the trace;\n"
"                          'measured', always the duration in the trace;\n"
"                          'table', the call row, else the table's\n"
"                          per-message cost (its point-to-point row at the\n"
"                          smallest size; TCP: 4 us, shared memory 0.4 us)\n"
"    --network=MODE        'model' (default): messages share their ranks'\n"
"                          ports (the gap the table's bursts measured),\n"
"                          large ones wait for their receive (where its\n"
"                          late sends waited), a send costs what its late\n"
"                          sends cost; 'off': every message costs the\n"
"                          point-to-point row alone, eager, as if it had\n"
"                          the network to itself\n"
"    --model-error=C,X     the model's own error, as fractions of the\n"
"                          communication (C) and the compute (X) on the\n"
"                          critical path, that widens the interval around\n"
"                          the prediction beyond the table's bounds\n"
"                          (default 0.18,0.12: see docs/prediction.md)\n"
"    --phase N             report only the N-th phase of each rank and\n"
"                          thread: from its N-th MPI_Pcontrol call to the\n"
"                          next (0: before the first); --phase level=L:\n"
"                          the phases opened by MPI_Pcontrol(L).  The whole\n"
"                          run is replayed; run time, per-rank, function\n"
"                          and call-site figures are those of the phase\n"
"    --validate            set the run's measured times (per rank, per\n"
"                          function, per call site) beside the\n"
"                          prediction, with the relative errors, and\n"
"                          per function the share of its measured time\n"
"                          in each rank's first " EARLY " calls of it\n"
"    --json                write JSON on stdout instead of text\n"
"    --top N               call sites to show (default 10, 0: all)\n"
"    -h, --help            show this help\n";

#define WIDTH 100
#define MAX_RANK_ROWS 32
/*
 * The model's own error, as a fraction of the communication and of the
 * compute on the critical path (--model-error): calibrated on the
 * tuning apps of tools/scripts/predict-validate.py on a quiet machine,
 * the largest over its targets: C 0.18 (TCP), X 0.12 (shared memory,
 * yielding) (docs/prediction.md).
 */
#define DEFAULT_ERR_COMM 0.18
#define DEFAULT_ERR_COMP 0.12

struct popts {
	const char *run, *table;
	double scale;
	int json, validate, missing_measured, formula;
	int send_start;		/* 0 auto, 1 table, 2 measured */
	int no_net;
	double err_comm, err_comp;	/* --model-error */
	int no_first;
	int no_start;		/* --no-start */
	struct st_phase_sel phase;	/* --phase */
	int statistic;		/* 0 auto, 1 median, 2 mean */
	int median;		/* what auto chose */
	long top;
};

/*
 * The tee (tools/analysis/tee.h) of the three replays: up to this many
 * ranks, records in its chunks, and how long a replay waits for one
 * far behind before that one reads alone.
 */
#define TEE_MAX_RANKS 1024
#define TEE_BUDGET ((size_t)1 << 15)
#define TEE_WAIT_MS 500

/* One rank's file, read as the replay asks. */
struct rsrc {
	struct st_reader *r;
	const char *path;
	int rank;
	struct st_gclock *clk;	/* the sync epochs read so far */
};

/* Call sites: per rank, site id -> symbol table index. */
struct sites {
	int nranks;
	struct st_objmap *objs;		/* [nranks] */
	long **sym;			/* [nranks][site id] */
	size_t *nsym;			/* [nranks] */
	struct st_symtab *tab;
	int oom;
};

/* A call site over all ranks: one place in the code and one function. */
struct gsite {
	long sym;
	uint16_t fn;
	uint64_t calls;
	double pred_ns, meas_ns;
	int nranks, last_rank;
};

static void parse_options(struct popts *o, int argc, char **argv)
{
	enum { O_TABLE = 256, O_SCALE, O_MISSING, O_STATISTIC, O_TOP,
	       O_VALIDATE, O_JSON, O_FORMULA, O_NO_FIRST, O_NO_START, O_SEND_START,
	       O_NETWORK, O_MODEL_ERROR, O_PHASE };
	static const struct option longopts[] = {
		{ "compute-scale", required_argument, NULL, O_SCALE },
		{ "formula", no_argument, NULL, O_FORMULA },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, O_JSON },
		{ "missing", required_argument, NULL, O_MISSING },
		{ "model-error", required_argument, NULL, O_MODEL_ERROR },
		{ "network", required_argument, NULL, O_NETWORK },
		{ "no-first", no_argument, NULL, O_NO_FIRST },
		{ "no-start", no_argument, NULL, O_NO_START },
		{ "phase", required_argument, NULL, O_PHASE },
		{ "send-start", required_argument, NULL, O_SEND_START },
		{ "statistic", required_argument, NULL, O_STATISTIC },
		{ "table", required_argument, NULL, O_TABLE },
		{ "top", required_argument, NULL, O_TOP },
		{ "validate", no_argument, NULL, O_VALIDATE },
		{ NULL, 0, NULL, 0 }
	};
	const char *val;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->scale = 1;
	o->err_comm = DEFAULT_ERR_COMM;
	o->err_comp = DEFAULT_ERR_COMP;
	o->top = 10;
	optind = 0;
	while ((c = st_getopt(argc, argv, ":h", longopts, &val)) != -1) {
		switch (c) {
		case 'h':
			fputs(st_predict_usage, stdout);
			exit(0);
		case O_TABLE:
			if (!val)
				usage_die(st_predict_usage, "option '--table' "
					  "needs a file");
			o->table = val;
			break;
		case O_SCALE:
			if (!val)
				usage_die(st_predict_usage, "option "
					  "'--compute-scale' needs a number");
			errno = 0;
			o->scale = strtod(val, &end);
			if (errno || end == val || *end ||
			    !isfinite(o->scale) || o->scale < 0)
				usage_die(st_predict_usage, "bad value '%s' "
					  "for '--compute-scale'", val);
			break;
		case O_MISSING:
			if (!val)
				usage_die(st_predict_usage, "option "
					  "'--missing' needs a mode");
			if (!strcmp(val, "measured"))
				o->missing_measured = 1;
			else if (!strcmp(val, "error"))
				o->missing_measured = 0;
			else
				usage_die(st_predict_usage, "bad value '%s' "
					  "for '--missing' (error or measured)",
					  val);
			break;
		case O_STATISTIC:
			if (!val)
				usage_die(st_predict_usage, "option "
					  "'--statistic' needs a value");
			if (!strcmp(val, "auto"))
				o->statistic = 0;
			else if (!strcmp(val, "median"))
				o->statistic = 1;
			else if (!strcmp(val, "mean"))
				o->statistic = 2;
			else
				usage_die(st_predict_usage, "bad value '%s' "
					  "for '--statistic' (auto, mean or "
					  "median)", val);
			break;
		case O_TOP:
			if (!val || st_parse_int(val, 0, 1000000, &o->top))
				usage_die(st_predict_usage, "bad number '%s' "
					  "for '--top'", val ? val : "");
			break;
		case O_VALIDATE:
			o->validate = 1;
			break;
		case O_JSON:
			o->json = 1;
			break;
		case O_FORMULA:
			o->formula = 1;
			break;
		case O_NO_FIRST:
			o->no_first = 1;
			break;
		case O_NO_START:
			o->no_start = 1;
			break;
		case O_PHASE:
			if (!val || st_phase_parse(val, &o->phase))
				usage_die(st_predict_usage, "bad phase '%s' "
					  "for '--phase' (a number, or "
					  "level=L)", val ? val : "");
			break;
		case O_SEND_START:
			if (val && !strcmp(val, "auto"))
				o->send_start = 0;
			else if (val && !strcmp(val, "measured"))
				o->send_start = 2;
			else if (val && !strcmp(val, "table"))
				o->send_start = 1;
			else
				usage_die(st_predict_usage, "bad '--send-start"
					  "%s%s': say --send-start=auto, "
					  "measured or table", val ? "=" : "",
					  val ? val : "");
			break;
		case O_MODEL_ERROR: {
			char *end2;

			o->err_comm = val ? strtod(val, &end) : NAN;
			if (!val || *end != ',' ||
			    !((o->err_comp = strtod(end + 1, &end2)) >= 0) ||
			    *end2 || !(o->err_comm >= 0) ||
			    !isfinite(o->err_comm) || !isfinite(o->err_comp))
				usage_die(st_predict_usage, "bad '--model-error"
					  "%s%s': say two fractions >= 0, as "
					  "--model-error=0.1,0.03",
					  val ? "=" : "", val ? val : "");
			break;
		}
		case O_NETWORK:
			if (val && !strcmp(val, "model"))
				o->no_net = 0;
			else if (val && !strcmp(val, "off"))
				o->no_net = 1;
			else
				usage_die(st_predict_usage, "bad '--network"
					  "%s%s': say --network=model or "
					  "--network=off", val ? "=" : "",
					  val ? val : "");
			break;
		default:
			usage_die(st_predict_usage, "%s", val);
		}
	}
	if (optind < argc)
		o->run = argv[optind++];
	if (optind < argc)
		usage_die(st_predict_usage, "too many arguments");
	if (!o->run)
		usage_die(st_predict_usage, "no run directory given");
	if (!o->table)
		usage_die(st_predict_usage, "no cost table given (--table)");
}

/* Open rank 'r''s file of 'run' (of 'nranks') as replay source 's'. */
static void open_source(struct rsrc *s, struct st_run *run, int r, int nranks)
{
	char err[1024] = "";
	int rc;

	s->path = st_run_rank_path(run, r);
	s->rank = r;
	if (st_gclock_new(&s->clk, r))
		die("out of memory");
	rc = st_fn_reader_open(&s->r, s->path, err, sizeof(err));
	if (rc == -EMFILE || rc == -ENFILE)
		die("cannot open '%s': too many open files (raise 'ulimit -n' "
		    "above %d)", s->path, nranks + 16);
	if (rc)
		die("%s", *err ? err : strerror_neg(rc));
}

static void close_source(struct rsrc *s)
{
	st_reader_close(s->r);
	st_gclock_free(s->clk);
}

/* The next record of 's', its errors said in 'err'. */
static int src_read(void *ctx, struct st_event *ev, char *err, size_t errlen)
{
	struct rsrc *s = ctx;
	int rc = st_reader_next(s->r, ev);

	if (rc < 0) {
		const char *msg = st_reader_error(s->r);

		if (*msg)
			snprintf(err, errlen, "%s", msg);
		else
			snprintf(err, errlen, "'%s' is corrupt at offset %"
				 PRIu64, s->path, st_reader_offset(s->r));
		return rc;
	}
	if (!rc && st_reader_truncated(s->r)) {
		snprintf(err, errlen, "'%s' is truncated after offset %" PRIu64
			 " (rank %d was killed?): cannot replay a rank that "
			 "did not finish", s->path, st_reader_offset(s->r),
			 s->rank);
		return -EBADMSG;
	}
	return rc;
}

/* A record that does not fit leaves the epochs as they were. */
static int src_clock(struct st_gclock *clk, int rc, const struct st_event *ev,
		     char *err, size_t errlen)
{
	if (rc > 0 && ev->kind == ST_REC_SYNC &&
	    st_gclock_add_event(clk, ev, NULL) == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return rc;
}

static int src_next(void *ctx, struct st_event *ev, char *err, size_t errlen)
{
	struct rsrc *s = ctx;

	return src_clock(s->clk, src_read(s, ev, err, errlen), ev, err, errlen);
}

/*
 * The tee's streams: rank files (struct rsrc without its clock), opened
 * again for a replay the tee let go.
 */
struct tee_ctx {
	struct st_run *run;
};

static void *tee_open(void *ctx, int rank, char *err, size_t errlen)
{
	struct tee_ctx *tc = ctx;
	struct rsrc *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->path = st_run_rank_path(tc->run, rank);
	s->rank = rank;
	rc = st_fn_reader_open(&s->r, s->path, err, errlen);
	if (rc) {
		if (!*err)
			snprintf(err, errlen, "cannot open '%s': %s", s->path,
				 strerror_neg(rc));
		free(s);
		return NULL;
	}
	return s;
}

static void tee_close(void *ctx, void *h)
{
	struct rsrc *s = h;

	(void)ctx;
	st_reader_close(s->r);
	free(s);
}

/*
 * Records go in the tee in the replays' own form, made once; a clock
 * record whole (each replay's source keeps its own clock).
 */
static int tee_conv(void *ctx, void *slot, const struct st_event *ev)
{
	(void)ctx;
	return ev->kind != ST_REC_SYNC && st_replay_rec_make(slot, ev);
}

/* Replay 'reader''s source of rank 'rank' through the tee. */
struct tsrc {
	struct st_tee *tee;
	int reader, rank;
	struct st_gclock *clk;
};

static int tsrc_next_rec(void *ctx, const void **rec, struct st_event *ev,
			 char *err, size_t errlen)
{
	struct tsrc *s = ctx;
	int rc = st_tee_get(s->tee, s->reader, s->rank, rec, ev, err, errlen);

	if (rc == 2)
		rc = src_clock(s->clk, 1, ev, err, errlen) < 0 ? -ENOMEM : 2;
	return rc;
}

static double tsrc_global(void *ctx, uint64_t t_ns)
{
	const struct tsrc *s = ctx;

	return st_gclock_global(s->clk, t_ns);
}

/* Reader 'reader''s sources of every rank into replay 'rp'. */
static struct tsrc *tsrc_set(struct st_tee *tee, int nranks, int reader,
			     struct st_replay *rp)
{
	struct tsrc *v = calloc((size_t)nranks, sizeof(*v));
	int r;

	if (!v)
		die("out of memory");
	for (r = 0; r < nranks; r++) {
		struct st_replay_source src = { &v[r], NULL, tsrc_global,
						tsrc_next_rec };

		v[r].tee = tee;
		v[r].reader = reader;
		v[r].rank = r;
		if (st_gclock_new(&v[r].clk, r))
			die("out of memory");
		st_replay_set_source(rp, r, &src);
	}
	return v;
}

static void tsrc_free(struct tsrc *v, int n)
{
	int r;

	for (r = 0; v && r < n; r++)
		st_gclock_free(v[r].clk);
	free(v);
}

/* Global time of the rank's local 't_ns' by the epochs read so far. */
static double src_global(void *ctx, uint64_t t_ns)
{
	const struct rsrc *s = ctx;

	return st_gclock_global(s->clk, t_ns);
}

/* Where site record 'ev' of 'rank' is: its first frame outside MPI. */
static void aux_record(void *ctx, int rank, const struct st_event *ev)
{
	struct sites *st = ctx;
	struct st_objmap *om = &st->objs[rank];
	const struct st_object *o, *first = NULL;
	uint64_t addr, first_addr = 0;
	uint32_t i;
	long sym;

	if (ev->kind == ST_REC_OBJECT) {
		if (st_objmap_add(om, ev->addr, ev->len, ev->text,
				  ev->text_len))
			st->oom = 1;
		return;
	}
	if (ev->kind != ST_REC_SITE || !ev->nframes)
		return;
	for (i = 0; i < ev->nframes && i < ST_MAX_FRAMES; i++) {
		o = st_objmap_find(om, ev->frames[i], &addr);
		if (!o)
			continue;
		if (!first) {
			first = o;
			first_addr = addr;
		}
		if (!st_object_is_mpi(o->path)) {
			first = o;
			first_addr = addr;
			break;
		}
	}
	sym = first ? st_symtab_add(st->tab, first->path, first_addr) :
	      st_symtab_add(st->tab, "?", ev->frames[0]);
	if (sym < 0) {
		st->oom = 1;
		return;
	}
	if (ev->site >= st->nsym[rank]) {
		size_t a = ev->site + 16, k;
		long *v = realloc(st->sym[rank], a * sizeof(*v));

		if (!v) {
			st->oom = 1;
			return;
		}
		for (k = st->nsym[rank]; k < a; k++)
			v[k] = -1;
		st->sym[rank] = v;
		st->nsym[rank] = a;
	}
	st->sym[rank][ev->site] = sym;
}

static long site_sym(const struct sites *st, int rank, uint32_t site)
{
	if (rank < 0 || rank >= st->nranks || site >= st->nsym[rank])
		return -1;
	return st->sym[rank][site];
}

static int cmp_gsite_key(const void *a, const void *b)
{
	const struct gsite *x = a, *y = b;

	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	if (x->fn != y->fn)
		return x->fn - y->fn;
	return x->last_rank - y->last_rank;
}

static int cmp_gsite_pred(const void *a, const void *b)
{
	const struct gsite *x = a, *y = b;

	if (x->pred_ns != y->pred_ns)
		return x->pred_ns < y->pred_ns ? 1 : -1;
	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	return x->fn - y->fn;
}

/* The replay's sites merged across ranks by place; sorted by time. */
static struct gsite *merge_sites(const struct st_replay *rp,
				 const struct sites *st, size_t *n)
{
	const struct st_replay_site *s = st_replay_sites(rp, n);
	struct gsite *g = malloc((*n ? *n : 1) * sizeof(*g));
	size_t i, k = 0;

	if (!g)
		die("out of memory");
	for (i = 0; i < *n; i++)
		g[i] = (struct gsite){ site_sym(st, s[i].rank, s[i].site),
				       s[i].fn, s[i].calls, s[i].pred_ns,
				       s[i].meas_ns, 1, s[i].rank };
	qsort(g, *n, sizeof(*g), cmp_gsite_key);
	for (i = 0; i < *n; i++) {
		if (k && g[k - 1].sym == g[i].sym && g[k - 1].fn == g[i].fn) {
			g[k - 1].calls += g[i].calls;
			g[k - 1].pred_ns += g[i].pred_ns;
			g[k - 1].meas_ns += g[i].meas_ns;
			if (g[k - 1].last_rank != g[i].last_rank) {
				g[k - 1].nranks++;
				g[k - 1].last_rank = g[i].last_rank;
			}
			continue;
		}
		g[k++] = g[i];
	}
	*n = k;
	qsort(g, k, sizeof(*g), cmp_gsite_pred);
	return g;
}

/* "+3.2%" of 'pred' against 'meas'; "-" when there is nothing measured. */
static char *fmt_err(double pred, double meas, char *buf, size_t len)
{
	if (!(meas > 0))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", 100 * (pred - meas) / meas);
	return buf;
}

static char *fmt_pct(double part, double whole, char *buf, size_t len)
{
	if (!(whole > 0))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100 * part / whole);
	return buf;
}

/* The measured run time of a rank, synctrace's own work left out. */
static double meas_of(const struct st_replay_rank *x)
{
	double m = x->meas_ns - x->overhead_ns;

	return m > 0 ? m : 0;
}

static const char *src_label(const struct st_replay_fn *f)
{
	if (f->n_op_missing)
		return "measured";
	if (f->n_missing && (f->n_model || f->n_local || f->n_traced))
		return "mixed";
	if (f->n_missing)
		return "measured";
	if (f->n_traced && f->n_model)
		return "mixed";
	if (f->n_traced)
		return "traced";
	if (f->n_model)
		return "table";
	return "local";
}

static int is_comm_fn(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	return d && (d->kind == ST_KIND_COLL || d->kind == ST_KIND_P2P);
}

/* Everything the output needs. */
struct result {
	const struct popts *o;
	struct st_run *run;
	int nranks;
	struct st_replay *rp;
	struct st_pmodel *pm;
	struct sites *st;
	const char *cmdline, *trace_mpi;
	double replay_s;
	int first;			/* first-call costs charged */
	double lo_ns, hi_ns;		/* run time with the table's bounds */
	double state_ns[2];		/* and in its launches' two states
					   (NaN: the table has one) */
	double iv_lo, iv_hi;		/* ...widened by the model's error */
	double *fn_lo, *fn_hi;		/* [ST_FN_COUNT], per function */
	double mean_ns, min_ns;
	double meas_max, meas_mean;
	struct st_tee *tee;		/* the ranks decoded once for the
					   three replays, or NULL */
	pthread_t main_th;		/* the prediction's replay's */
};

/* "table row's 95 % CI" or, with no level given, without it. */
static const char *ci_name(const struct result *res, char *buf, size_t len)
{
	double lv = st_pmodel_ci_level(res->pm);

	if (isfinite(lv))
		snprintf(buf, len, "table row's %g %% CI", 100 * lv);
	else
		snprintf(buf, len, "table row's CI");
	return buf;
}

/* Whether the measured run time lies in the interval. */
static int inside(const struct result *res)
{
	return res->meas_max >= res->iv_lo && res->meas_max <= res->iv_hi;
}

/*
 * The interval: the table's bounds widened by the model's own error,
 * err_comm of the critical path's communication and err_comp of its
 * compute, added in quadrature (the two are independent: the one is the
 * network model's, the other how the target's compute differs from the
 * trace's).
 */
static void interval(struct result *res)
{
	const struct st_replay_stats *s = st_replay_stats(res->rp);
	double c = res->o->err_comm * s->path.comm_ns;
	double x = res->o->err_comp * s->path.compute_ns;
	double w = sqrt(c * c + x * x);
	double lo = res->lo_ns < s->end_ns ? res->lo_ns : s->end_ns;
	double hi = res->hi_ns > s->end_ns ? res->hi_ns : s->end_ns;
	int k;

	/* The target may run in either of its launches' states. */
	for (k = 0; k < 2; k++) {
		if (res->state_ns[k] < lo)
			lo = res->state_ns[k];
		if (res->state_ns[k] > hi)
			hi = res->state_ns[k];
	}

	res->iv_lo = lo - w > 0 ? lo - w : 0;
	res->iv_hi = hi + w;
}

static void summary_numbers(struct result *res)
{
	int r, n = 0;

	res->mean_ns = 0;
	res->min_ns = INFINITY;
	res->meas_max = res->meas_mean = 0;
	for (r = 0; r < res->nranks; r++) {
		const struct st_replay_rank *x = st_replay_rank(res->rp, r);

		if (!x->finished)
			continue;
		n++;
		res->mean_ns += x->pred_ns;
		if (x->pred_ns < res->min_ns)
			res->min_ns = x->pred_ns;
		res->meas_mean += meas_of(x);
		if (meas_of(x) > res->meas_max)
			res->meas_max = meas_of(x);
	}
	if (n) {
		res->mean_ns /= n;
		res->meas_mean /= n;
	} else {
		res->min_ns = 0;
	}
}

/*
 * 'p' cut at spaces into lines: the first of at most 'w' columns, not
 * cut in its first 'label' ones, the later ones of at most 'rest' after
 * an indent of 'indent' spaces.
 */
static void print_cut(const char *p, size_t w, size_t label, int indent,
		      size_t rest)
{
	while (strlen(p) > w) {
		const char *cut = p + w;

		while (cut > p + label && *cut != ' ')
			cut--;
		if (cut == p + label)
			cut = p + w;
		printf("%.*s\n%*s", (int)(cut - p), p, indent, "");
		p = cut + (*cut == ' ');
		w = rest;
		label = 0;
	}
	printf("%s\n", p);
}

/* 'line', wrapped at WIDTH, its continuations under its 14-column label. */
static void print_wrapped(const char *line)
{
	print_cut(line, WIDTH, 14, 14, WIDTH - 14);
}

#define STATES_SAY 0.02

/* 'text' in lines of at most 78 columns, each indented by two spaces. */
static void print_indented(const char *text)
{
	printf("  ");
	print_cut(text, 76, 0, 2, 76);
}

/*
 * The launches of state 'k' in 'ids', 1-based, in the order of the
 * table's runs; returns how many.
 */
static int state_ids(const struct st_pmodel_states *st, int k, int *ids)
{
	size_t i, lo = k ? st->split : 0, hi = k ? st->nlaunch : st->split;
	int n = 0, a, b;

	for (i = lo; i < hi; i++)
		ids[n++] = st->id[i] + 1;
	for (a = 1; a < n; a++)
		for (b = a; b > 0 && ids[b] < ids[b - 1]; b--) {
			int t = ids[b];

			ids[b] = ids[b - 1];
			ids[b - 1] = t;
		}
	return n;
}

/* "1, 5" for the launches of state 'k' into 'buf'. */
static const char *state_launches(const struct st_pmodel_states *st, int k,
				  char *buf, size_t len)
{
	int ids[ST_PMODEL_MAX_LAUNCHES], n = state_ids(st, k, ids), a;
	size_t at = 0;

	buf[0] = '\0';
	for (a = 0; a < n && at < len; a++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d",
				       a ? ", " : "", ids[a]);
	return buf;
}

/* The run time in each of the table's launch states, if it has two. */
static void print_states(const struct result *res)
{
	const struct st_pmodel_states *st = st_pmodel_states(res->pm);
	char line[WIDTH * 4 + 2 * 256], l0[256], l1[256], a[32], b[32];

	/* Said where the states' run times differ by 2 % or more. */
	if (st->n != 2 || !isfinite(res->state_ns[0]) ||
	    !isfinite(res->state_ns[1]) ||
	    !(st_replay_stats(res->rp)->end_ns > 0) ||
	    fabs(res->state_ns[1] - res->state_ns[0]) <
	    STATES_SAY * st_replay_stats(res->rp)->end_ns)
		return;
	snprintf(line, sizeof(line), "the table's launches ran in two states "
		 "(the target's costs moved between them): costs as launch%s "
		 "%s of %zu measured them (x%.2f the pooled medians) give %s, "
		 "as launch%s %s measured them (x%.2f) %s; the interval "
		 "holds both",
		 st->split > 1 ? "es" : "",
		 state_launches(st, 0, l0, sizeof(l0)), st->nruns,
		 st->factor[0], st_fmt_ns(res->state_ns[0], a, sizeof(a)),
		 st->nlaunch - st->split > 1 ? "es" : "",
		 state_launches(st, 1, l1, sizeof(l1)), st->factor[1],
		 st_fmt_ns(res->state_ns[1], b, sizeof(b)));
	print_indented(line);
}

/* The rows used, and how the mean statistic scaled them. */
static void print_factors(const struct result *res)
{
	char line[WIDTH * 4];
	size_t i, n = 0;
	int k = 0;

	n = (size_t)snprintf(line, sizeof(line), "%-14s", "costs:");
	n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s",
			      res->o->median ? "the table's medians" :
			      "the table's, scaled to each row's mean",
			      res->o->statistic ? "" : res->o->median ?
			      " (a synctrace bench table)" :
			      " (a table of application traces)");
	for (i = 0; i < st_pmodel_nrows(res->pm); i++) {
		const struct st_pmodel_use *u = st_pmodel_use(res->pm, i);

		if (!u->lookups || res->o->median || n > sizeof(line) - 80)
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s x%.2f",
				      k++ ? ", " : ": ", u->op,
				      u->mean_factor);
	}
	print_wrapped(line);
}

/* Whether first calls were charged, and what each row charged. */
static void print_first(const struct result *res)
{
	char line[WIDTH * 8], a[32];
	size_t i, n, rows = st_pmodel_first_rows(res->pm);
	int k = 0;

	n = (size_t)snprintf(line, sizeof(line), "%-14s", "first calls:");
	if (res->o->no_first)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "not "
				      "charged (--no-first)");
	else if (!rows)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "not "
				      "charged (the table gives no first-call "
				      "costs)");
	else if (!res->first)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "not "
				      "charged: each row's mean holds them "
				      "(%zu table row%s give%s them)", rows,
				      rows == 1 ? "" : "s",
				      rows == 1 ? "s" : "");
	else
		n += (size_t)snprintf(line + n, sizeof(line) - n, "charged "
				      "from %zu table row%s (the first "
				      "instance of each operation, p and size "
				      "adds its first call's cost over the "
				      "median)", rows, rows == 1 ? "" : "s");
	for (i = 0; res->first && i < st_pmodel_nrows(res->pm); i++) {
		const struct st_pmodel_use *u = st_pmodel_use(res->pm, i);

		if (!u->first_calls || n > sizeof(line) - 120)
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s: "
				      "%" PRIu64 " instance%s, +%s in all",
				      k ? ";" : ":", u->op, u->first_calls,
				      u->first_calls == 1 ? "" : "s",
				      st_fmt_ns(u->first_ns, a, sizeof(a)));
		k++;
	}
	if (res->first && !k)
		snprintf(line + n, sizeof(line) - n, "; none in this run");
	print_wrapped(line);
}

/* Whether the library's start was charged, and how much. */
static void print_start(const struct result *res)
{
	char line[WIDTH * 4], a[32];
	size_t rows = st_pmodel_start_rows(res->pm), n;
	uint64_t msgs = st_replay_stats(res->rp)->start_msgs;
	double ns = st_replay_stats(res->rp)->start_ns;

	n = (size_t)snprintf(line, sizeof(line), "%-14s", "start:");
	if (res->o->no_start)
		snprintf(line + n, sizeof(line) - n, "not charged "
			 "(--no-start)");
	else if (!rows)
		snprintf(line + n, sizeof(line) - n, "not charged (the table "
			 "has no start rows: 'synctrace bench --like' "
			 "measures them)");
	else
		snprintf(line + n, sizeof(line) - n, "charged from %zu table "
			 "row%s (each channel's first messages of a size cost "
			 "what a fresh process's cost more): %" PRIu64
			 " message%s, +%s in all", rows, rows == 1 ? "" : "s",
			 msgs, msgs == 1 ? "" : "s",
			 st_fmt_ns(ns, a, sizeof(a)));
	print_wrapped(line);
}

/* 's' with control characters (header values hold tabs) as spaces. */
static const char *flat(const char *s, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", s ? s : "unknown");
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = ' ';
	return buf;
}

static void print_text(struct result *res)
{
	char f1[256], f2[256], f3[256];
	const struct popts *o = res->o;
	const struct st_replay_stats *s = st_replay_stats(res->rp);
	const struct st_replay_rank *last = st_replay_rank(res->rp,
							   s->end_rank);
	const struct st_replay_fn *fns;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], nm[48];
	char loc[1024], line[1200];
	double path = s->path.compute_ns + s->path.comm_ns;
	struct gsite *gs;
	size_t i, n, ngs, top;
	int r, w;

	printf("synctrace predict: %s\n", o->run);
	printf("%-14s%d ranks, %s; MPI: %s\n", "run:", res->nranks,
	       flat(res->cmdline, f1, sizeof(f1)),
	       flat(res->trace_mpi, f2, sizeof(f2)));
	if (st_pmodel_p_min(res->pm) < 0)
		snprintf(a, sizeof(a), "p unknown");
	else
		snprintf(a, sizeof(a), "p = %ld..%ld",
			 st_pmodel_p_min(res->pm), st_pmodel_p_max(res->pm));
	printf("%-14s%s; MPI: %s; hosts: %s; %s\n", "table:", o->table,
	       flat(st_pmodel_mpi_library(res->pm), f3, sizeof(f3)),
	       flat(st_pmodel_hosts(res->pm), f1, sizeof(f1)), a);
	printf("%-14scompute as measured x %g (synctrace's own work left "
	       "out); MPI calls from\n%-14sthe table (%s);\n"
	       "%-14s%" PRIu64 " records replayed in %s (%.2f M records/s)\n",
	       "replay:", o->scale, "", o->formula ? "its formulas" :
	       "group medians where measured, else formulas", "",
	       s->records, st_fmt_ns(res->replay_s * 1e9, a, sizeof(a)),
	       res->replay_s > 0 ? s->records / res->replay_s / 1e6 : 0.0);
	st_pmodel_net_describe(res->pm, loc, sizeof(loc));
	snprintf(line, sizeof(line), "%-14s%s", "network:", loc);
	print_wrapped(line);
	print_factors(res);
	print_first(res);
	print_start(res);
	if (o->phase.mode != ST_PHASE_ALL) {
		snprintf(line, sizeof(line), "%-14s%s; the whole run is "
			 "replayed, and every figure below but the critical "
			 "path (the whole run's) is of the phase, from each "
			 "marker's exit to the next marker's entry", "phase:",
			 st_phase_name(&o->phase, f1, sizeof(f1)));
		print_wrapped(line);
	}
	printf("\nPredicted %s: %s on rank %d\n  (mean over ranks %s, min "
	       "%s)\n", o->phase.mode != ST_PHASE_ALL ?
	       "time in the phase" :
	       "run time (MPI_Init exit to MPI_Finalize entry)",
	       st_fmt_ns(s->end_ns, a, sizeof(a)), s->end_rank,
	       st_fmt_ns(res->mean_ns, b, sizeof(b)),
	       st_fmt_ns(res->min_ns, c, sizeof(c)));
	printf("  %s to %s (%s to %s) with every cost at the low or the "
	       "high\n  end of its %s\n", st_fmt_ns(res->lo_ns, a, sizeof(a)),
	       st_fmt_ns(res->hi_ns, b, sizeof(b)),
	       fmt_err(res->lo_ns, s->end_ns, c, sizeof(c)),
	       fmt_err(res->hi_ns, s->end_ns, d, sizeof(d)),
	       ci_name(res, line, sizeof(line)));
	printf("  interval %s to %s: those bounds widened by the model's "
	       "own error\n  (%g of the critical path's communication, %g "
	       "of its compute)\n", st_fmt_ns(res->iv_lo, a, sizeof(a)),
	       st_fmt_ns(res->iv_hi, b, sizeof(b)), o->err_comm,
	       o->err_comp);
	print_states(res);
	if (o->validate)
		printf("  measured %s (max over ranks, synctrace's own work "
		       "left out): error %s,\n  %s the interval\n",
		       st_fmt_ns(res->meas_max, a, sizeof(a)),
		       fmt_err(s->end_ns, res->meas_max, b, sizeof(b)),
		       inside(res) ? "inside" : "outside");
	printf("\nCritical path (the chain of dependencies ending at rank "
	       "%d's end; %" PRIu64 " moves\nbetween ranks; a path never "
	       "waits, it follows whatever came last):\n", s->end_rank,
	       s->path.hops);
	printf("  compute        %10s %7s\n  communication  %10s %7s\n",
	       st_fmt_ns(s->path.compute_ns, a, sizeof(a)),
	       fmt_pct(s->path.compute_ns, path, b, sizeof(b)),
	       st_fmt_ns(s->path.comm_ns, c, sizeof(c)),
	       fmt_pct(s->path.comm_ns, path, d, sizeof(d)));
	if (last)
		printf("Rank %d, the last to finish: compute %s, in MPI %s, of "
		       "which waiting for other\nranks %s\n", s->end_rank,
		       fmt_pct(last->compute_ns, last->pred_ns, a, sizeof(a)),
		       fmt_pct(last->mpi_ns, last->pred_ns, b, sizeof(b)),
		       fmt_pct(last->wait_ns, last->pred_ns, c, sizeof(c)));

	printf("\nPer rank%s:\n\n", res->nranks > MAX_RANK_ROWS ?
	       " (the first 32)" : "");
	printf("%5s %10s %10s %10s %10s", "rank", "predicted", "compute",
	       "in MPI", "waiting");
	if (o->validate)
		printf(" %10s %8s", "measured", "error");
	putchar('\n');
	for (r = 0; r < res->nranks && r < MAX_RANK_ROWS; r++) {
		const struct st_replay_rank *x = st_replay_rank(res->rp, r);

		printf("%5d %10s %10s %10s %10s", r,
		       st_fmt_ns(x->pred_ns, a, sizeof(a)),
		       st_fmt_ns(x->compute_ns, b, sizeof(b)),
		       st_fmt_ns(x->mpi_ns, c, sizeof(c)),
		       st_fmt_ns(x->wait_ns, d, sizeof(d)));
		if (o->validate)
			printf(" %10s %8s", st_fmt_ns(meas_of(x), e,
						      sizeof(e)),
			       fmt_err(x->pred_ns, meas_of(x), f, sizeof(f)));
		putchar('\n');
	}

	fns = st_replay_fns(res->rp, &n);
	if (!fns && n)
		die("out of memory");
	w = 8;
	for (i = 0; i < n; i++) {
		int l = (int)strlen(st_fn_name(fns[i].fn, nm, sizeof(nm)));

		if (l > w)
			w = l;
	}
	printf("\nPer MPI function, summed over ranks; cost from: table, "
	       "measured (the table lacks it),\nlocal (a call that only "
	       "starts or frees something: its measured time), traced (a\n"
	       "one-sided or I/O call no table costs: its measured time, "
	       "after what it waits for);\nwaits for: what the replay "
	       "makes it wait for (members: a collective's last member,\n"
	       "over a window or a file too; post: the targets' "
	       "MPI_Win_post; completes: the origins'\nMPI_Win_complete; "
	       "message, requests, root, lower ranks; -: nothing)%s:\n\n",
	       o->validate ? ";\nfirst " EARLY ": the share of the "
	       "measured time in each rank's first " EARLY " calls of "
	       "the\nfunction, then the share of the calls they are (an MPI "
	       "library's start can make\nthem dearer than the table's "
	       "steady state)" : "");
	printf("%-*s %10s %10s %10s %10s %-8s %-9s", w, "function", "calls",
	       "predicted", "mean/call", "waiting", "cost", "waits for");
	if (o->validate)
		printf(" %10s %8s %9s", "measured", "error",
		       "first " EARLY);
	putchar('\n');
	for (i = 0; i < n; i++) {
		const struct st_replay_fn *x = &fns[i];

		snprintf(g, sizeof(g), "n=%" PRIu64, x->calls);
		printf("%-*s %10s %10s %10s %10s %-8s %-9s", w,
		       st_fn_name(x->fn, nm, sizeof(nm)), g,
		       st_fmt_ns(x->pred_ns, a, sizeof(a)),
		       st_fmt_ns(x->pred_ns / (double)x->calls, b, sizeof(b)),
		       st_fmt_ns(x->wait_ns, c, sizeof(c)), src_label(x),
		       st_replay_waits_for(x->fn));
		if (o->validate) {
			printf(" %10s %8s", st_fmt_ns(x->meas_ns, d,
						      sizeof(d)),
			       fmt_err(x->pred_ns, x->meas_ns, e, sizeof(e)));
			if (x->meas_ns > 0 && x->calls)
				snprintf(g, sizeof(g), "%.0f%%/%.0f%%",
					 100 * x->early_meas_ns / x->meas_ns,
					 100 * (double)x->early_calls /
						 (double)x->calls);
			else
				snprintf(g, sizeof(g), "-");
			printf(" %9s", g);
		}
		putchar('\n');
	}

	gs = merge_sites(res->rp, res->st, &ngs);
	if (!ngs) {
		free(gs);
		return;
	}
	{
		const char *prog = getenv("SYNCTRACE_ADDR2LINE");

		if (!prog || !*prog)
			prog = "addr2line";
		if (st_symtab_resolve(res->st->tab, prog) == -ENOENT)
			warning("cannot run '%s': call sites are not "
				"symbolised", prog);
	}
	top = o->top > 0 && (size_t)o->top < ngs ? (size_t)o->top : ngs;
	printf("\nTop %zu of %zu call sites by predicted time, summed over "
	       "ranks:\n\n", top, ngs);
	printf("%3s %-*s %10s %10s %6s", "#", w, "function", "calls",
	       "predicted", "ranks");
	if (o->validate)
		printf(" %10s %8s", "measured", "error");
	putchar('\n');
	for (i = 0; i < top; i++) {
		const struct st_sym *sym = st_symtab_get(res->st->tab,
							 gs[i].sym);

		snprintf(g, sizeof(g), "n=%" PRIu64, gs[i].calls);
		printf("%3zu %-*s %10s %10s %6d", i + 1, w,
		       st_fn_name(gs[i].fn, nm, sizeof(nm)), g,
		       st_fmt_ns(gs[i].pred_ns, a, sizeof(a)), gs[i].nranks);
		if (o->validate)
			printf(" %10s %8s", st_fmt_ns(gs[i].meas_ns, b,
						      sizeof(b)),
			       fmt_err(gs[i].pred_ns, gs[i].meas_ns, c,
				       sizeof(c)));
		putchar('\n');
		if (sym)
			st_sym_format(sym, 1, loc, sizeof(loc));
		else
			snprintf(loc, sizeof(loc), "unknown (no call-site "
				 "record)");
		snprintf(line, sizeof(line), "    at %s", loc);
		if (strlen(line) > WIDTH)
			memcpy(line + WIDTH - 3, "...", 4);
		puts(line);
	}
	free(gs);
}

static json_t *jint(long long v)
{
	return json_integer((json_int_t)v);
}

/* (predicted - measured) / measured, null without a measurement. */
static json_t *jerr(double pred, double meas)
{
	return st_jnum(meas > 0 ? (pred - meas) / meas : NAN);
}

/* An object of its members, or NULL when memory ran out ('*rc' says). */
static json_t *jobj(int *rc)
{
	json_t *x = json_object();

	if (!x)
		*rc = -ENOMEM;
	return x;
}

/*
 * "states" in 'x': per state of the table's launches (none when it has
 * one), its launches (1-based, as the text), factor and run time.
 */
static int json_states(const struct result *res, json_t *x)
{
	const struct st_pmodel_states *st = st_pmodel_states(res->pm);
	int ids[ST_PMODEL_MAX_LAUNCHES], rc = 0, k, i, n;
	json_t *a, *y, *l;

	rc |= st_jset(x, "states", a = json_array());
	if (!a || st->n != 2 || !isfinite(res->state_ns[0]))
		return rc;
	for (k = 0; k < 2; k++) {
		rc |= st_jadd(a, y = jobj(&rc));
		if (!y)
			break;
		rc |= st_jset(y, "launches", l = json_array());
		n = state_ids(st, k, ids);
		for (i = 0; l && i < n; i++)
			rc |= st_jadd(l, jint(ids[i]));
		rc |= st_jset(y, "factor", st_jnum(st->factor[k]));
		rc |= st_jset(y, "run_time_ns", st_jnum(res->state_ns[k]));
	}
	return rc;
}

static void print_json(struct result *res)
{
	const struct popts *o = res->o;
	const struct st_replay_stats *s = st_replay_stats(res->rp);
	const struct st_replay_fn *fns;
	char nm[48], loc[1024];
	struct gsite *gs;
	size_t i, n, ngs, top;
	json_t *doc, *x, *a, *y;
	int r, rc = 0;

	doc = jobj(&rc);
	if (!doc)
		die("out of memory");
	rc |= st_jset(doc, "format", st_jstr("synctrace-predict"));
	rc |= st_jset(doc, "version", jint(1));
	rc |= st_jset(doc, "synctrace_version", st_jstr(ST_VERSION));
	rc |= st_jset(doc, "run", st_jstr(o->run));
	rc |= st_jset(doc, "table", st_jstr(o->table));
	rc |= st_jset(doc, "table_mpi_library",
		      st_jstr(st_pmodel_mpi_library(res->pm)));
	rc |= st_jset(doc, "trace_mpi_library", st_jstr(res->trace_mpi));
	rc |= st_jset(doc, "nranks", jint(res->nranks));
	rc |= st_jset(doc, "compute_scale", st_jnum(o->scale));
	rc |= st_jset(doc, "statistic", st_jstr(o->median ? "median" :
						"mean"));
	rc |= st_jset(doc, "first_calls", json_boolean(res->first));
	rc |= st_jset(doc, "start", json_boolean(!o->no_start &&
					     st_pmodel_start_rows(res->pm)));
	rc |= st_jset(doc, "start_messages",
		      jint((long long)st_replay_stats(res->rp)->start_msgs));
	rc |= st_jset(doc, "start_ns",
		      st_jnum(st_replay_stats(res->rp)->start_ns));
	rc |= st_jset(doc, "costs", st_jstr(o->formula ? "formulas" :
					    "groups and formulas"));
	rc |= st_jset(doc, "missing", st_jstr(o->missing_measured ?
					      "measured" : "error"));
	if (o->phase.mode != ST_PHASE_ALL) {
		char ph[128];

		rc |= st_jset(doc, "phase", st_jstr(st_phase_name(&o->phase,
						ph, sizeof(ph))));
	}
	rc |= st_jset(doc, "records", jint((long long)s->records));
	rc |= st_jset(doc, "replay_s", st_jnum(res->replay_s));
	rc |= st_jset(doc, "predicted", x = jobj(&rc));
	if (x) {
		rc |= st_jset(x, "run_time_ns", st_jnum(s->end_ns));
		rc |= st_jset(x, "rank", jint(s->end_rank));
		rc |= st_jset(x, "mean_ns", st_jnum(res->mean_ns));
		rc |= st_jset(x, "min_ns", st_jnum(res->min_ns));
		rc |= st_jset(x, "run_time_lo_ns", st_jnum(res->lo_ns));
		rc |= st_jset(x, "run_time_hi_ns", st_jnum(res->hi_ns));
		rc |= st_jset(x, "ci_level",
			      st_jnum(st_pmodel_ci_level(res->pm)));
		rc |= st_jset(x, "bounds", st_jstr("run_time_lo_ns (hi): "
			"every cost at the low (high) end of its table row's "
			"confidence interval"));
		rc |= json_states(res, x);
		rc |= st_jset(x, "interval", y = jobj(&rc));
		if (y) {
			rc |= st_jset(y, "lo_ns", st_jnum(res->iv_lo));
			rc |= st_jset(y, "hi_ns", st_jnum(res->iv_hi));
			rc |= st_jset(y, "model_error_comm",
				      st_jnum(o->err_comm));
			rc |= st_jset(y, "model_error_compute",
				      st_jnum(o->err_comp));
			rc |= st_jset(y, "what", st_jstr("the bounds "
				"(and the states' run times, where the table "
				"has two), widened by the model's own error: "
				"model_error_comm of the critical path's "
				"communication and model_error_compute of "
				"its compute, added in quadrature"));
		}
	}
	rc |= st_jset(doc, "critical_path", x = jobj(&rc));
	if (x) {
		rc |= st_jset(x, "compute_ns", st_jnum(s->path.compute_ns));
		rc |= st_jset(x, "comm_ns", st_jnum(s->path.comm_ns));
		rc |= st_jset(x, "hops", jint((long long)s->path.hops));
		rc |= st_jset(x, "end_rank", jint(s->end_rank));
	}
	rc |= st_jset(doc, "replay", x = jobj(&rc));
	if (x) {
		rc |= st_jset(x, "unmatched_sends",
			      jint((long long)s->unmatched_sends));
		rc |= st_jset(x, "released_receives",
			      jint((long long)s->released));
		rc |= st_jset(x, "unknown_requests",
			      jint((long long)s->unknown_reqs));
		rc |= st_jset(x, "max_in_flight",
			      jint((long long)s->max_inflight));
	}
	if (o->validate) {
		rc |= st_jset(doc, "validation", x = jobj(&rc));
		if (x) {
			rc |= st_jset(x, "measured_run_time_ns",
				      st_jnum(res->meas_max));
			rc |= st_jset(x, "error",
				      jerr(s->end_ns, res->meas_max));
			rc |= st_jset(x, "measured_mean_ns",
				      st_jnum(res->meas_mean));
			rc |= st_jset(x, "inside_interval",
				      json_boolean(inside(res)));
			rc |= st_jset(x, "what", st_jstr("measured: MPI_Init "
				"exit to MPI_Finalize entry, synctrace's own "
				"work left out; error: (predicted - measured) "
				"/ measured"));
		}
	}
	rc |= st_jset(doc, "ranks", a = json_array());
	for (r = 0; a && r < res->nranks; r++) {
		const struct st_replay_rank *z = st_replay_rank(res->rp, r);

		rc |= st_jadd(a, y = jobj(&rc));
		if (!y)
			break;
		rc |= st_jset(y, "rank", jint(r));
		rc |= st_jset(y, "predicted_ns", st_jnum(z->pred_ns));
		rc |= st_jset(y, "compute_ns", st_jnum(z->compute_ns));
		rc |= st_jset(y, "mpi_ns", st_jnum(z->mpi_ns));
		rc |= st_jset(y, "wait_ns", st_jnum(z->wait_ns));
		rc |= st_jset(y, "measured_ns", st_jnum(meas_of(z)));
		rc |= st_jset(y, "overhead_ns", st_jnum(z->overhead_ns));
		if (o->validate)
			rc |= st_jset(y, "error",
				      jerr(z->pred_ns, meas_of(z)));
	}
	fns = st_replay_fns(res->rp, &n);
	if (!fns && n)
		die("out of memory");
	rc |= st_jset(doc, "functions", a = json_array());
	for (i = 0; a && i < n; i++) {
		const struct st_replay_fn *z = &fns[i];

		rc |= st_jadd(a, y = jobj(&rc));
		if (!y)
			break;
		rc |= st_jset(y, "fn", st_jstr(st_fn_name(z->fn, nm,
							  sizeof(nm))));
		rc |= st_jset(y, "calls", jint((long long)z->calls));
		rc |= st_jset(y, "predicted_ns", st_jnum(z->pred_ns));
		rc |= st_jset(y, "wait_ns", st_jnum(z->wait_ns));
		rc |= st_jset(y, "measured_ns", st_jnum(z->meas_ns));
		rc |= st_jset(y, "from_table", jint((long long)z->n_model));
		rc |= st_jset(y, "from_measured",
			      jint((long long)z->n_missing));
		rc |= st_jset(y, "local", jint((long long)z->n_local));
		rc |= st_jset(y, "traced", jint((long long)z->n_traced));
		rc |= st_jset(y, "cost", st_jstr(src_label(z)));
		rc |= st_jset(y, "waits_for",
			      st_jstr(st_replay_waits_for(z->fn)));
		rc |= st_jset(y, "operations_from_measured",
			      jint((long long)z->n_op_missing));
		if (z->fn < ST_FN_COUNT) {
			rc |= st_jset(y, "predicted_lo_ns",
				      st_jnum(res->fn_lo[z->fn]));
			rc |= st_jset(y, "predicted_hi_ns",
				      st_jnum(res->fn_hi[z->fn]));
		}
		rc |= st_jset(y, "early_calls",
			      jint((long long)z->early_calls));
		rc |= st_jset(y, "early_measured_ns",
			      st_jnum(z->early_meas_ns));
		if (o->validate)
			rc |= st_jset(y, "error", jerr(z->pred_ns, z->meas_ns));
	}
	rc |= st_jset(doc, "table_use", a = json_array());
	for (i = 0; a && i < st_pmodel_nrows(res->pm); i++) {
		const struct st_pmodel_use *u = st_pmodel_use(res->pm, i);

		if (!u->lookups)
			continue;
		rc |= st_jadd(a, y = jobj(&rc));
		if (!y)
			break;
		rc |= st_jset(y, "op", st_jstr(u->op));
		rc |= st_jset(y, "lookups", jint((long long)u->lookups));
		rc |= st_jset(y, "p_outside", jint((long long)u->p_out));
		rc |= st_jset(y, "d_outside", jint((long long)u->d_out));
		rc |= st_jset(y, "mean_factor", st_jnum(u->mean_factor));
		rc |= st_jset(y, "first_calls",
			      jint((long long)u->first_calls));
		rc |= st_jset(y, "first_ns", st_jnum(u->first_ns));
	}
	gs = merge_sites(res->rp, res->st, &ngs);
	if (ngs) {
		const char *prog = getenv("SYNCTRACE_ADDR2LINE");

		st_symtab_resolve(res->st->tab, prog && *prog ? prog :
				  "addr2line");
	}
	top = o->top > 0 && (size_t)o->top < ngs ? (size_t)o->top : ngs;
	rc |= st_jset(doc, "sites", a = json_array());
	for (i = 0; a && i < top; i++) {
		const struct st_sym *sym = st_symtab_get(res->st->tab,
							 gs[i].sym);

		rc |= st_jadd(a, y = jobj(&rc));
		if (!y)
			break;
		rc |= st_jset(y, "fn", st_jstr(st_fn_name(gs[i].fn, nm,
							  sizeof(nm))));
		rc |= st_jset(y, "at", st_jstr(sym ? st_sym_format(sym, 1, loc,
							sizeof(loc)) : NULL));
		rc |= st_jset(y, "calls", jint((long long)gs[i].calls));
		rc |= st_jset(y, "ranks", jint(gs[i].nranks));
		rc |= st_jset(y, "predicted_ns", st_jnum(gs[i].pred_ns));
		rc |= st_jset(y, "measured_ns", st_jnum(gs[i].meas_ns));
	}
	free(gs);
	if (rc)
		die("out of memory");
	rc = st_json_write(stdout, doc);
	json_decref(doc);
	if (rc == -ENOMEM)
		die("out of memory");
}

/*
 * The run must be whole: the index says complete=1 and every rank file
 * is there.  Dies naming what is missing.
 */
static void check_run(struct st_run *run, const char *dir, int nranks)
{
	const char *complete = st_run_get(run, "complete");
	int *missing = malloc((size_t)nranks * sizeof(*missing));
	char list[256];
	int r, n = 0;

	if (!missing)
		die("out of memory");
	for (r = 0; r < nranks; r++) {
		const char *path = st_run_rank_path(run, r);

		if (!path)
			die("out of memory");
		if (access(path, R_OK))
			missing[n++] = r;
	}
	if (n) {
		st_rank_list(missing, (size_t)n, list, sizeof(list));
		die("cannot predict '%s': no trace file for rank%s %s of %d "
		    "(a replay needs every rank)", dir, n == 1 ? "" : "s",
		    list, nranks);
	}
	free(missing);
	if (!complete || strcmp(complete, "1"))
		die("cannot predict '%s': the run is incomplete (its index "
		    "has no complete=1: a rank was killed or did not "
		    "finish)", dir);
}

/* Refuse a replay whose table lacked MPI functions, naming them. */
static void check_missing(const struct st_replay *rp, const char *table)
{
	const struct st_replay_fn *fns;
	char list[2048], nm[48];
	size_t i, n, len = 0, k = 0;

	fns = st_replay_fns(rp, &n);
	if (!fns && n)
		die("out of memory");
	list[0] = '\0';
	for (i = 0; i < n; i++) {
		uint64_t m = fns[i].n_missing + fns[i].n_op_missing;

		if (!m || !is_comm_fn(fns[i].fn))
			continue;
		if (len < sizeof(list) - 64)
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%s (n=%" PRIu64 " calls)",
						k ? ", " : "",
						st_fn_name(fns[i].fn, nm,
							   sizeof(nm)), m);
		k++;
	}
	if (k)
		die("table '%s' has no cost for %s; '--missing=measured' "
		    "replays %s with the run's measured times", table, list,
		    k == 1 ? "it" : "them");
}

/* Warn, per table row, about costs asked outside its fitted ranges. */
static void check_ranges(const struct st_pmodel *pm, const char *table,
			 int nranks)
{
	char a[32], b[32], c[32], d[32];
	size_t i;

	if (st_pmodel_p_max(pm) > 0 &&
	    (nranks < st_pmodel_p_min(pm) || nranks > st_pmodel_p_max(pm)))
		warning("the run has %d ranks but table '%s' was measured "
			"on %ld..%ld processes: its formulas are "
			"extrapolated", nranks, table, st_pmodel_p_min(pm),
			st_pmodel_p_max(pm));
	for (i = 0; i < st_pmodel_nrows(pm); i++) {
		const struct st_pmodel_use *u = st_pmodel_use(pm, i);

		if (u->p_out)
			warning("%s: n=%" PRIu64 " of n=%" PRIu64 " costs "
				"asked at p = %ld..%ld, outside the table's "
				"p = %ld..%ld: extrapolated", u->op, u->p_out,
				u->lookups, u->p_lo, u->p_hi, u->p_min,
				u->p_max);
		if (u->d_out)
			warning("%s: n=%" PRIu64 " of n=%" PRIu64 " costs "
				"asked at d = %s..%s, outside the table's "
				"d = %s..%s: extrapolated", u->op, u->d_out,
				u->lookups, st_fmt_bytes((uint64_t)u->d_lo, a,
							 sizeof(a)),
				st_fmt_bytes((uint64_t)u->d_hi, b, sizeof(b)),
				st_fmt_bytes((uint64_t)u->d_min, c, sizeof(c)),
				st_fmt_bytes((uint64_t)u->d_max, d,
					     sizeof(d)));
	}
}

/*
 * Say when the table's launches disagree on a row the run used: the
 * largest over the smallest launch median of any of its groups, at
 * least LAUNCH_SPREAD.  The target's costs moved while the bench
 * measured them (over TCP on a virtual machine, 76 against 168 us for
 * the same 256 KiB ping-pong minutes apart): the interval, which holds
 * the launches, says more than the point.
 */
#define LAUNCH_SPREAD 1.5

static void check_launches(const struct st_pmodel *pm, const char *table)
{
	const struct st_pmodel_use *w = NULL;
	char a[32], b[32], c[32];
	size_t i, n = 0;

	for (i = 0; i < st_pmodel_nrows(pm); i++) {
		const struct st_pmodel_use *u = st_pmodel_use(pm, i);

		if (!u->lookups || !(u->spread >= LAUNCH_SPREAD))
			continue;
		n++;
		if (!w || u->spread > w->spread)
			w = u;
	}
	if (!w)
		return;
	warning("table '%s': its launches disagree on %zu row%s the run "
		"uses, most on %s at p = %ld, d = %s: %s to %s (x%.1f, the "
		"medians of %zu launches); the target's costs moved while "
		"they were measured, so the run may take anywhere in the "
		"interval", table, n, n == 1 ? "" : "s", w->op, w->spread_p,
		st_fmt_bytes((uint64_t)w->spread_d, a, sizeof(a)),
		st_fmt_ns(w->spread_lo, b, sizeof(b)),
		st_fmt_ns(w->spread_hi, c, sizeof(c)), w->spread,
		w->spread_n);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The settings of the options on table 'pm' and the replay's model of it
 * in '*rm' ('first': first-call costs charged).  Every replay of one
 * prediction makes its model so, on the same table.
 */
static void configure(struct st_pmodel *pm, const struct popts *o, int first,
		      struct st_replay_model *rm)
{
	st_pmodel_mean(pm, !o->median);
	memset(rm, 0, sizeof(*rm));
	st_pmodel_replay_model(pm, rm);
	st_pmodel_network(pm, !o->no_net);
	st_pmodel_send_start_fallback(pm, o->send_start == 1);
	if (o->send_start == 2)
		rm->inject = NULL;
	if (!first)
		rm->coll_first = NULL;
	st_pmodel_no_start(pm, o->no_start);
}

/*
 * A replay with every cost at the low ('side' < 0) or high end of the
 * table's confidence intervals: the run time into 'end', each
 * function's predicted time into 'fn_ns'.  The replay is monotone in
 * every cost, so the two bound the prediction.  With 'pm' its own copy
 * of the table (a replay changes its table's lookup caches), the two
 * run on threads of their own while the main replay runs.
 */
struct bound {
	struct result *res;
	const struct st_replay_opts *ro;
	int side;
	int state;		/* st_pmodel_state(): 0, or a state's 1, 2 */
	struct st_pmodel *pm;
	struct st_replay_model model;
	double end;
	double *fn_ns;
	int rc;
	char err[1024];
	pthread_t th;
	int threaded;		/* 1: on its thread; 2: which ended */
	int reader;		/* its reader of res->tee (0: none) */
};

static void *bound_pass(void *arg)
{
	struct bound *b = arg;
	struct result *res = b->res;
	const struct st_replay_fn *f;
	struct st_replay *rp;
	struct rsrc *srcs = NULL;
	struct tsrc *ts = NULL;
	struct st_replay_opts ro = *b->ro;
	size_t n, i;
	int r;

	ro.no_sites = 1;	/* only the run time and the functions' */
	/* A bound's table counts nothing: its answers can be kept. */
	b->model.coll_pure = 1;
	if (st_replay_new(&rp, res->nranks, &b->model, &ro))
		die("out of memory");
	st_pmodel_bound(b->pm, b->side);
	st_pmodel_state(b->pm, b->state);
	if (b->reader) {
		ts = tsrc_set(res->tee, res->nranks, b->reader, rp);
	} else {
		srcs = calloc((size_t)res->nranks, sizeof(*srcs));
		if (!srcs)
			die("out of memory");
		for (r = 0; r < res->nranks; r++) {
			struct st_replay_source src = { &srcs[r], src_next,
							src_global, NULL };

			open_source(&srcs[r], res->run, r, res->nranks);
			st_replay_set_source(rp, r, &src);
		}
	}
	b->rc = st_replay_run(rp, b->err, sizeof(b->err));
	if (b->reader)
		st_tee_close(res->tee, b->reader);
	if (b->rc == -ENOMEM)
		die("out of memory");
	if (!b->rc) {
		b->end = st_replay_stats(rp)->end_ns;
		f = st_replay_fns(rp, &n);
		for (i = 0; i < n; i++)
			if (f[i].fn < ST_FN_COUNT)
				b->fn_ns[f[i].fn] = f[i].pred_ns;
	}
	for (r = 0; srcs && r < res->nranks; r++)
		close_source(&srcs[r]);
	free(srcs);
	tsrc_free(ts, res->nranks);
	st_replay_free(rp);
	st_pmodel_bound(b->pm, 0);
	st_pmodel_state(b->pm, 0);
	return NULL;
}

/*
 * Start the two bound replays on threads of their own, each with its own
 * copy of the table, when the machine has a core to spare and the open
 * files allow three replays' at once; else they run after the main one
 * (bound_finish()).
 */
static void bound_start(struct bound *b, struct result *res,
			const struct popts *o,
			const struct st_replay_opts *ro, int par)
{
	char err[1024];
	int i, rc;

	for (i = 0; i < 2; i++) {
		b[i].res = res;
		b[i].ro = ro;
		b[i].side = i ? 1 : -1;
		b[i].fn_ns = i ? res->fn_hi : res->fn_lo;
		if (!par)
			continue;
		rc = st_pmodel_load(&b[i].pm, o->table, err, sizeof(err));
		if (rc == -ENOMEM)
			die("out of memory");
		if (rc) {
			/* The file changed under us: after the main one. */
			b[i].pm = NULL;
			continue;
		}
		st_pmodel_formula_only(b[i].pm, o->formula);
		configure(b[i].pm, o, res->first, &b[i].model);
		b[i].reader = res->tee ? i + 1 : 0;
		b[i].threaded = !pthread_create(&b[i].th, NULL, bound_pass,
						&b[i]);
		if (!b[i].threaded) {
			st_pmodel_free(b[i].pm);
			b[i].pm = NULL;
			b[i].reader = 0;
		}
	}
	/* The tee's readers of the bounds that run later, by themselves. */
	for (i = 0; res->tee && i < 2; i++)
		if (!b[i].threaded)
			st_tee_close(res->tee, i + 1);
}

/*
 * Whether the bound replays run beside the main one: a core to spare,
 * and open files for three replays' (the tee's own, and those of
 * replays it lets go).
 */
static int bound_par(const struct result *res)
{
	struct rlimit rl;

	return sysconf(_SC_NPROCESSORS_ONLN) >= 2 &&
	       !getrlimit(RLIMIT_NOFILE, &rl) &&
	       (rl.rlim_cur == RLIM_INFINITY ||
		rl.rlim_cur >= 3 * (rlim_t)res->nranks + 64);
}

/*
 * Wait for the bound replays' threads: before the main thread may die,
 * which a test harness may turn into a jump back (tests/fuzz), with the
 * threads still reading this call's memory.
 */
static void bound_join(struct bound *b)
{
	int i;

	for (i = 0; i < 2; i++)
		if (b[i].threaded == 1) {
			pthread_join(b[i].th, NULL);
			st_pmodel_free(b[i].pm);
			b[i].pm = NULL;
			b[i].threaded = 2;
		}
}

/* die()'s hook while the bound replays may run. */
static void bound_join_hook(void *arg)
{
	struct bound *b = arg;

	/*
	 * The main replay reads no more: the bounds need not wait for it
	 * (only its own thread may say so).
	 */
	if (b[0].res && b[0].res->tee &&
	    pthread_equal(pthread_self(), b[0].res->main_th))
		st_tee_close(b[0].res->tee, 0);
	bound_join(b);
}

/* The bound replays' results, in order: low, then high ('model' the
 * main replay's, on 'res->pm', for those that did not run yet). */
static void bound_finish(struct bound *b, struct result *res,
			 const struct st_replay_model *model)
{
	int i;

	bound_join(b);
	for (i = 0; i < 2; i++) {
		if (!b[i].threaded) {
			b[i].pm = res->pm;
			b[i].model = *model;
			bound_pass(&b[i]);
		}
		b[i].pm = NULL;
	}
	for (i = 0; i < 2; i++)
		if (b[i].rc)
			die("cannot predict '%s' with the table's bounds: %s",
			    res->o->run, b[i].err);
	res->lo_ns = b[0].end;
	res->hi_ns = b[1].end;
}

/*
 * Where the table's launches ran in two states (st_pmodel_states()),
 * the run time in each: two more replays after the others, every cost
 * as that state's launches measured it ('model' the main replay's).
 * The same replay as a bound's, reading the traces again.
 */
static void states_pass(struct result *res, const struct st_replay_opts *ro,
			const struct st_replay_model *model)
{
	double *fn_ns;
	int k;

	res->state_ns[0] = res->state_ns[1] = NAN;
	if (st_pmodel_states(res->pm)->n != 2)
		return;
	fn_ns = calloc(ST_FN_COUNT, sizeof(*fn_ns));
	if (!fn_ns)
		die("out of memory");
	for (k = 0; k < 2; k++) {
		struct bound b;

		memset(&b, 0, sizeof(b));
		b.res = res;
		b.ro = ro;
		b.state = k + 1;
		b.pm = res->pm;
		b.model = *model;
		b.fn_ns = fn_ns;
		bound_pass(&b);
		if (b.rc)
			die("cannot predict '%s' in the table's launch states: "
			    "%s", res->o->run, b.err);
		res->state_ns[k] = b.end;
	}
	free(fn_ns);
}

int cmd_predict(int argc, char **argv)
{
	struct st_replay_model model;
	struct st_replay_opts ropts;
	struct result res = { 0 };
	struct bound bounds[2];
	struct sites st = { 0 };
	struct rsrc *srcs;
	struct tsrc *ts = NULL;
	struct tee_ctx tc;
	struct popts o;
	struct stat sb;
	char err[1024];
	double t0;
	int r, rc, par;

	parse_options(&o, argc, argv);
	res.o = &o;
	res.main_th = pthread_self();
	if (stat(o.run, &sb))
		die("cannot open '%s': %s", o.run, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		die("'%s' is not a run directory (predict needs every rank's "
		    "file)", o.run);
	rc = st_run_open(&res.run, o.run, err, sizeof(err));
	if (rc)
		die("%s", *err ? err : strerror_neg(rc));
	res.nranks = st_run_nranks(res.run);
	res.cmdline = st_run_get(res.run, "cmdline");
	check_run(res.run, o.run, res.nranks);

	rc = st_pmodel_load(&res.pm, o.table, err, sizeof(err));
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc)
		die("%s", err);
	st_pmodel_formula_only(res.pm, o.formula);
	o.median = o.statistic == 1 ||
		   (!o.statistic && st_pmodel_from_bench(res.pm));
	/* Under the mean every first-call excess would be 0. */
	res.first = !o.no_first && o.median && st_pmodel_first_rows(res.pm);
	configure(res.pm, &o, res.first, &model);
	st_replay_opts_init(&ropts);
	ropts.compute_scale = o.scale;
	ropts.phase = o.phase;
	if (st_replay_new(&res.rp, res.nranks, &model, &ropts))
		die("out of memory");

	st.nranks = res.nranks;
	st.objs = calloc((size_t)res.nranks, sizeof(*st.objs));
	st.sym = calloc((size_t)res.nranks, sizeof(*st.sym));
	st.nsym = calloc((size_t)res.nranks, sizeof(*st.nsym));
	st.tab = st_symtab_new();
	srcs = calloc((size_t)res.nranks, sizeof(*srcs));
	if (!st.objs || !st.sym || !st.nsym || !st.tab || !srcs)
		die("out of memory");
	res.st = &st;
	for (r = 0; r < res.nranks; r++) {
		const char *fnt;

		st_objmap_init(&st.objs[r]);
		open_source(&srcs[r], res.run, r, res.nranks);
		fnt = st_reader_get(srcs[r].r, "fn_table");
		if (!r && st_fn_table_differs(fnt))
			die("'%s' was written with another function table "
			    "(fn_table %s, this synctrace has %s): cannot "
			    "replay it", srcs[r].path, fnt,
			    st_fn_table_hash());
		if (!r)
			res.trace_mpi = st_reader_get(srcs[r].r,
						      "mpi_library");
	}
	/*
	 * With the bounds on threads, the three replays read the ranks
	 * through a tee: each record decoded once.
	 */
	par = bound_par(&res);
	if (par && res.nranks <= TEE_MAX_RANKS) {
		struct st_tee_stream ss = { &tc, src_read, tee_open,
					    tee_close, 0, tee_conv };
		void **h = malloc((size_t)res.nranks * sizeof(*h));

		tc.run = res.run;
		ss.rec_size = st_replay_rec_size();
		if (!h)
			die("out of memory");
		for (r = 0; r < res.nranks; r++)
			h[r] = &srcs[r];
		if (st_tee_new(&res.tee, res.nranks, 3, &ss, h, TEE_BUDGET,
			       TEE_WAIT_MS))
			die("out of memory");
		free(h);
		ts = tsrc_set(res.tee, res.nranks, 0, res.rp);
	} else {
		for (r = 0; r < res.nranks; r++) {
			struct st_replay_source src = { &srcs[r], src_next,
							src_global, NULL };

			st_replay_set_source(res.rp, r, &src);
		}
	}
	if (res.trace_mpi && st_pmodel_mpi_library(res.pm) &&
	    strcmp(res.trace_mpi, st_pmodel_mpi_library(res.pm)))
		warning("table '%s' was measured with another MPI library "
			"('%s') than the run uses ('%s'): its costs may not "
			"apply", o.table, st_pmodel_mpi_library(res.pm),
			res.trace_mpi);
	st_replay_set_aux(res.rp, aux_record, &st);
	res.fn_lo = calloc(ST_FN_COUNT, sizeof(*res.fn_lo));
	res.fn_hi = calloc(ST_FN_COUNT, sizeof(*res.fn_hi));
	if (!res.fn_lo || !res.fn_hi)
		die("out of memory");
	memset(bounds, 0, sizeof(bounds));
	st_on_die(bound_join_hook, bounds);
	bound_start(bounds, &res, &o, &ropts, par);

	t0 = now_s();
	rc = st_replay_run(res.rp, err, sizeof(err));
	res.replay_s = now_s() - t0;
	if (rc == -ENOMEM || st.oom)
		die("out of memory");
	if (rc)
		die("cannot predict '%s': %s", o.run, err);
	if (!o.missing_measured)
		check_missing(res.rp, o.table);
	check_ranges(res.pm, o.table, res.nranks);
	check_launches(res.pm, o.table);
	bound_finish(bounds, &res, &model);
	st_on_die(NULL, NULL);
	states_pass(&res, &ropts, &model);
	st_tee_free(res.tee);
	res.tee = NULL;
	tsrc_free(ts, res.nranks);
	{
		const struct st_replay_stats *s = st_replay_stats(res.rp);

		if (s->released)
			warning("n=%" PRIu64 " receives matched no send in the "
				"traces: replayed as if their message was "
				"there at once", s->released);
		if (s->unknown_reqs)
			warning("n=%" PRIu64 " completions of requests whose "
				"start is not in the traces: not waited for",
				s->unknown_reqs);
	}
	summary_numbers(&res);
	interval(&res);
	if (o.json)
		print_json(&res);
	else
		print_text(&res);

	for (r = 0; r < res.nranks; r++) {
		close_source(&srcs[r]);
		st_objmap_release(&st.objs[r]);
		free(st.sym[r]);
	}
	free(srcs);
	free(res.fn_lo);
	free(res.fn_hi);
	free(st.objs);
	free(st.sym);
	free(st.nsym);
	st_symtab_free(st.tab);
	st_replay_free(res.rp);
	st_pmodel_free(res.pm);
	st_run_close(res.run);
	return 0;
}
