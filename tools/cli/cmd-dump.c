/*
 * tools/cli/cmd-dump.c: 'synctrace dump', every record of a run as text or
 * CSV, rank by rank in file order; or the header entries (--header), the
 * call-site table with symbolised frames (--sites), or every rank's
 * clock synchronisation epochs (--sync).  Each record shows its local
 * times and, when the rank's trace holds sync records, its global times:
 * a first pass over a rank's file collects its sync records (a few per
 * run), since a record's global time depends on the epochs on both sides
 * of it.  A corrupt file still shows every record before the damage,
 * then fails the command; a truncated one (its writer was killed) only
 * warns.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/sync.h"
#include "tools/analysis/format.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/symbols.h"
#include "tools/cli/synctrace.h"
#include "tools/analysis/timeline.h"
#include "tools/cli/usage.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"
#include "writer/writer.h"

const char st_dump_usage[] =
"usage: synctrace dump [--csv] [--rank N] RUN\n"
"   or: synctrace dump --header [--rank N] RUN\n"
"   or: synctrace dump --sites [--rank N] RUN\n"
"   or: synctrace dump --sync [--csv] [--rank N] RUN\n"
"\n"
"Print the records of run directory RUN (or of one rank-N.st file),\n"
"rank by rank, each rank's records in file order.  t0 and dur are the\n"
"rank's local clock in ns; g0 is global time (ns since rank 0's origin)\n"
"when the trace holds clock synchronisation records, else '-'.\n"
"\n"
"    --csv       one comma-separated line per record after a header line:\n"
"                rank,thread,kind,fn,t0_ns,t1_ns,comm,comm_size,seq,inst,\n"
"                root,peer,tag,sbytes,rbytes,tsize,op,req,site,rc,g0_ns,\n"
"                g1_ns,arg,offset,len,text (empty when a field does not\n"
"                apply or is unknown; 'fn' holds an object's path, a sync\n"
"                record's summary; 'text' a file's path, the group of a\n"
"                post or start; a done record's arg is 1 when the\n"
"                request was cancelled, else 0)\n"
"    --rank N    only rank N\n"
"    --header    print each rank's header entries instead of its records\n"
"    --sites     print each rank's call sites, frames symbolised with\n"
"                addr2line (innermost first)\n"
"    --sync      print each rank's clock synchronisation epochs\n"
"    -h, --help  show this help\n";

/* One call site of one rank, kept for --sites. */
struct site {
	int rank;
	int slot;		/* index of the rank's objects in d->objs */
	uint32_t id;
	uint32_t nframes;
	uint64_t *frames;
	long *sym;		/* symtab index per frame, -1 when no object */
};

struct dump {
	int csv, header, sites, sync;
	long rank;		/* -1: every rank */
	int failed;		/* a file could not be read whole */
	int table_warned;

	/* --sites */
	struct st_objmap *objs;	/* per rank, indexed like 'ranks' below */
	int nranks;
	struct site *site;
	size_t nsites, alloc_sites;
};

/* Text of 'ev' for display, escaped (st_fmt_text()), cut to 'len'. */
static char *printable(const struct st_event *ev, char *buf, size_t len)
{
	return st_fmt_text(ev->text, ev->text_len, buf, len);
}

static const char *rank_str(int32_t r, char *buf, size_t len)
{
	switch (r) {
	case ST_RANK_NONE:
		return "-";
	case ST_RANK_ROOT:
		return "root";
	case ST_RANK_PROC_NULL:
		return "null";
	case ST_RANK_ANY:
		return "any";
	}
	snprintf(buf, len, "%" PRId32, r);
	return buf;
}

static const char *tag_str(int32_t tag, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId32, tag);
	return buf;
}

static int is_op_kind(unsigned kind)
{
	return kind == ST_REC_CALL || kind == ST_REC_START ||
	       kind == ST_REC_DONE;
}

/* The kind of function of a call, start, done or comm record, or 0. */
static int fn_kind(const struct st_event *ev)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);

	if (ev->kind != ST_REC_COMM && !is_op_kind(ev->kind))
		return 0;
	return d ? d->kind : 0;
}

/* Whether 'arg' applies to 'ev': see writer/event.h. */
static int arg_applies(const struct st_event *ev)
{
	int k = fn_kind(ev);

	if (ev->kind == ST_REC_COMM)
		return k == ST_KIND_FILE;
	if (ev->kind == ST_REC_DONE)
		return 1;	/* ST_DONE_CANCELLED */
	return k == ST_KIND_RMA || k == ST_KIND_FILE || k == ST_KIND_IO ||
	       k == ST_KIND_PART || k == ST_KIND_PHASE || k == ST_KIND_WIN;
}

static int offset_applies(const struct st_event *ev)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);

	if (!is_op_kind(ev->kind) || !d)
		return 0;
	return (d->flags & ST_FNF_OFFSET) != 0;
}

/* Whether 'tag' applies: a point-to-point peer's, not a target's. */
static int tag_applies(const struct st_event *ev)
{
	return ev->peer != ST_RANK_NONE && fn_kind(ev) != ST_KIND_RMA;
}

/* Names of the bits set in 'v' ("noprecede|nosucceed"), "-" for none. */
static const char *bit_names(int32_t v, const char *const *names, int n,
			     char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if ((v & (1 << i)) && names[i] && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? "|" : "", names[i]);
	if (!at)
		snprintf(buf, len, "-");
	return buf;
}

/* " assert=... lock=..." and the like: what 'arg' says, for the text. */
static void print_arg(const struct st_event *ev)
{
	static const char *const asserts[] = {
		"nocheck", "nostore", "noput", "noprecede", "nosucceed",
		NULL, NULL, "other",
	};
	static const char *const amodes[] = {
		"rdonly", "wronly", "rdwr", "create", "excl",
		"delete_on_close", "unique_open", "sequential", "append",
	};
	static const char *const whence[] = { "?", "set", "cur", "end" };
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	char buf[128];

	if (!d || !arg_applies(ev))
		return;
	if (ev->kind == ST_REC_DONE) {
		if (ev->arg & ST_DONE_CANCELLED)
			printf(" cancelled");
		return;
	}
	switch (d->kind) {
	case ST_KIND_RMA:
		if (ev->arg & 0xff)
			printf(" assert=%s", bit_names(ev->arg & 0xff, asserts,
						       8, buf, sizeof(buf)));
		if (ev->arg & ST_LOCK_SHARED)
			printf(" lock=shared");
		if (ev->arg & ST_LOCK_EXCLUSIVE)
			printf(" lock=exclusive");
		break;
	case ST_KIND_FILE:
		if (ev->arg)
			printf(" amode=%s", bit_names(ev->arg, amodes, 9, buf,
						      sizeof(buf)));
		break;
	case ST_KIND_IO:
		if (ev->arg > 0 && ev->arg <= ST_SEEK_END)
			printf(" whence=%s", whence[ev->arg]);
		break;
	case ST_KIND_PART:
		printf(" partition=%" PRId32, ev->arg);
		break;
	case ST_KIND_PHASE:
		printf(" level=%" PRId32, ev->arg);
		break;
	}
}

static const char *fn_or_mark(const struct st_event *ev, char *buf,
			      size_t len)
{
	if (ev->kind == ST_REC_MARK)
		return st_mark_name(ev->fn, buf, len);
	if (!ev->fn)
		return "-";
	return st_fn_name(ev->fn, buf, len);
}

static void print_text_header(void)
{
	printf("%4s %3s %-6s %-22s %-11s %5s %4s %-9s %13s %15s %17s %10s "
	       "%4s\n", "rank", "thr", "kind", "function", "comm", "seq",
	       "root", "peer:tag", "bytes s/r", "t0_ns", "g0_ns", "dur_ns",
	       "site");
}

/* Records whose t0 and t1 are times. */
static int is_timed(unsigned kind)
{
	return kind != ST_REC_SITE && kind != ST_REC_OBJECT;
}

/* The decoded fields of a sync record, after the columns. */
static void print_sync_fields(const struct st_event *ev)
{
	struct st_sync_record rec;
	const struct st_sync_estimate *e = &rec.est;

	if (st_sync_record_parse(&rec, ev->text, ev->text_len)) {
		printf(" invalid sync record (%" PRIu32 " bytes)",
		       ev->text_len);
		return;
	}
	printf(" method=%s epoch=%" PRIu32 " slope=%.6g intercept_ns=%.1f "
	       "err_ns=%.1f slope_err=%.3g rtt_ns=%.0f samples=%zu",
	       st_sync_method_name(rec.method), rec.epoch, e->model.slope,
	       e->model.intercept, e->err_ns, e->slope_err, e->rtt_ns,
	       rec.n_edge + rec.n_root);
	if (rec.flags & ST_SYNC_REC_MEMBER)
		printf(" leader=%d", rec.leader);
	st_sync_record_release(&rec);
}

/* Frames of a site record as "obj+0xoff", objects known so far. */
static void print_frames(const struct st_event *ev,
			 const struct st_objmap *objs)
{
	uint32_t i;

	for (i = 0; i < ev->nframes && i < ST_MAX_FRAMES; i++) {
		const struct st_object *o;
		uint64_t addr;

		o = st_objmap_find(objs, ev->frames[i], &addr);
		if (o) {
			const char *slash = strrchr(o->path, '/');
			char name[256];

			printf(" %s+0x%" PRIx64,
			       st_fmt_str(slash ? slash + 1 : o->path, name,
					  sizeof(name)), addr);
		} else {
			printf(" 0x%" PRIx64, ev->frames[i]);
		}
	}
}

static void print_text(int rank, const struct st_event *ev,
		       const struct st_objmap *objs,
		       const struct st_gclock *clk)
{
	char fnbuf[32], comm[24] = "-", seq[24] = "-", root[16], pt[32] = "-";
	char bytes[48] = "-", t0[24] = "-", dur[24] = "-", site[16] = "-";
	char g0[32] = "-";
	char pbuf[16], tbuf[16], text[4096];
	int op = is_op_kind(ev->kind);

	if (ev->comm || ev->kind == ST_REC_COMM)
		snprintf(comm, sizeof(comm), "0x%" PRIx64, ev->comm);
	if (ev->seq)
		snprintf(seq, sizeof(seq), "%" PRIu64, ev->seq);
	if (tag_applies(ev))
		snprintf(pt, sizeof(pt), "%s:%s",
			 rank_str(ev->peer, pbuf, sizeof(pbuf)),
			 ev->tag == ST_TAG_ANY ? "any" : tag_str(ev->tag, tbuf,
							      sizeof(tbuf)));
	else if (ev->peer != ST_RANK_NONE)
		snprintf(pt, sizeof(pt), "%s",
			 rank_str(ev->peer, pbuf, sizeof(pbuf)));
	if (op)
		snprintf(bytes, sizeof(bytes), "%" PRIu64 "/%" PRIu64,
			 ev->sbytes, ev->rbytes);
	if (is_timed(ev->kind)) {
		double g = clk ? st_gclock_global(clk, ev->t0) : NAN;

		snprintf(t0, sizeof(t0), "%" PRIu64, ev->t0);
		snprintf(dur, sizeof(dur), "%" PRId64,
			 (int64_t)(ev->t1 - ev->t0));
		if (!isnan(g))
			snprintf(g0, sizeof(g0), "%.1f", g);
	}
	if (ev->site)
		snprintf(site, sizeof(site), "%" PRIu32, ev->site);
	printf("%4d %3u %-6s %-22s %-11s %5s %4s %-9s %13s %15s %17s %10s %4s",
	       rank, (unsigned)ev->thread, st_rec_kind_name(ev->kind),
	       ev->kind == ST_REC_OBJECT || ev->kind == ST_REC_SITE ||
	       ev->kind == ST_REC_SYNC ? "-" :
	       fn_or_mark(ev, fnbuf, sizeof(fnbuf)),
	       comm, seq, rank_str(ev->root, root, sizeof(root)), pt, bytes,
	       t0, g0, dur, site);
	switch (ev->kind) {
	case ST_REC_CALL:
	case ST_REC_START:
	case ST_REC_DONE:
		if (ev->op)
			printf(" op=%s", st_reduce_op_name(ev->op));
		if (ev->inst)
			printf(" inst=%" PRIu32, ev->inst);
		if (ev->req)
			printf(" req=%" PRIu64, ev->req);
		/* A Sendrecv's receive side: its source and tag. */
		if (ev->peer2 != ST_RANK_NONE)
			printf(" from=%s:%s",
			       rank_str(ev->peer2, pbuf, sizeof(pbuf)),
			       ev->tag2 == ST_TAG_ANY ? "any" :
			       tag_str(ev->tag2, tbuf, sizeof(tbuf)));
		if (offset_applies(ev))
			printf(" offset=%" PRId64, ev->offset);
		print_arg(ev);
		if (ev->text_len)
			printf(" text=%s", printable(ev, text, sizeof(text)));
		if (ev->rc)
			printf(" rc=%" PRId32, ev->rc);
		break;
	case ST_REC_COMM:
		printf(" size=%" PRIu32 " rank=%" PRId32, ev->comm_size,
		       ev->rank);
		if (ev->remote_size)
			printf(" remote_size=%" PRIu32, ev->remote_size);
		printf(" parent=0x%" PRIx64, ev->parent);
		if (fn_kind(ev) == ST_KIND_WIN)
			printf(" window len=%" PRIu64 " disp_unit=%" PRIu32,
			       ev->len, ev->tsize);
		if (fn_kind(ev) == ST_KIND_FILE)
			printf(" file");
		print_arg(ev);
		if (ev->text_len)
			printf(" text=%s", printable(ev, text, sizeof(text)));
		if (ev->rc)
			printf(" rc=%" PRId32, ev->rc);
		break;
	case ST_REC_SITE:
		printf(" frames:");
		print_frames(ev, objs);
		break;
	case ST_REC_OBJECT:
		printf(" base=0x%" PRIx64 " len=0x%" PRIx64 " %s", ev->addr,
		       ev->len, printable(ev, text, sizeof(text)));
		break;
	case ST_REC_SYNC:
		print_sync_fields(ev);
		break;
	}
	putchar('\n');
}

static void print_csv_header(void)
{
	puts("rank,thread,kind,fn,t0_ns,t1_ns,comm,comm_size,seq,inst,root,"
	     "peer,tag,sbytes,rbytes,tsize,op,req,site,rc,g0_ns,g1_ns,arg,"
	     "offset,len,text");
}

/* ",<v>" for an unsigned field, ',' alone when it does not apply. */
static void csv_u64(int applies, uint64_t v)
{
	if (applies)
		printf(",%" PRIu64, v);
	else
		putchar(',');
}

static void csv_i64(int applies, int64_t v)
{
	if (applies)
		printf(",%" PRId64, v);
	else
		putchar(',');
}

/* ",<global time of t_ns>" with one decimal, ',' alone when unknown. */
static void csv_global(const struct st_gclock *clk, int applies,
		       uint64_t t_ns)
{
	double g = clk && applies ? st_gclock_global(clk, t_ns) : NAN;

	if (isnan(g))
		putchar(',');
	else
		printf(",%.1f", g);
}

/* The 'fn' field of a sync record: its summary, not the binary blob. */
static void csv_sync_fn(const struct st_event *ev)
{
	struct st_sync_record rec;
	char buf[96];

	if (st_sync_record_parse(&rec, ev->text, ev->text_len)) {
		fputs("invalid sync record", stdout);
		return;
	}
	st_sync_rec_brief(&rec, buf, sizeof(buf));
	st_csv_field(stdout, buf, strlen(buf));
	st_sync_record_release(&rec);
}

static void print_csv(int rank, const struct st_event *ev,
		      const struct st_gclock *clk)
{
	int op = is_op_kind(ev->kind), timed;
	char fnbuf[32];

	timed = op || ev->kind == ST_REC_COMM || ev->kind == ST_REC_SYNC ||
		ev->kind == ST_REC_MARK;
	printf("%d,%u,%s,", rank, (unsigned)ev->thread,
	       st_rec_kind_name(ev->kind));
	if (ev->kind == ST_REC_OBJECT) {
		st_csv_field(stdout, ev->text, ev->text_len);
	} else if (ev->kind == ST_REC_SYNC) {
		csv_sync_fn(ev);
	} else if (op || ev->kind == ST_REC_COMM || ev->kind == ST_REC_MARK) {
		const char *name = fn_or_mark(ev, fnbuf, sizeof(fnbuf));

		if (ev->fn)
			st_csv_field(stdout, name, strlen(name));
	}
	csv_u64(timed, ev->t0);
	csv_u64(timed, ev->t1);
	if (ev->comm && (op || ev->kind == ST_REC_COMM))
		printf(",0x%" PRIx64, ev->comm);
	else
		putchar(',');
	csv_u64((op || ev->kind == ST_REC_COMM) && ev->comm, ev->comm_size);
	csv_u64(op && ev->seq, ev->seq);
	csv_u64(op && ev->inst, ev->inst);
	csv_i64(op && ev->root != ST_RANK_NONE, ev->root);
	csv_i64(op && ev->peer != ST_RANK_NONE, ev->peer);
	csv_i64(op && tag_applies(ev), ev->tag);
	csv_u64(op, ev->sbytes);
	csv_u64(op, ev->rbytes);
	csv_u64((op || fn_kind(ev) == ST_KIND_WIN) && ev->tsize, ev->tsize);
	if (op && ev->op)
		printf(",%s", st_reduce_op_name(ev->op));
	else
		putchar(',');
	csv_u64(op && ev->req, ev->req);
	csv_u64(ev->site && (op || ev->kind == ST_REC_SITE), ev->site);
	csv_i64(op || ev->kind == ST_REC_COMM, ev->rc);
	csv_global(clk, timed, ev->t0);
	csv_global(clk, timed, ev->t1);
	csv_i64(arg_applies(ev), ev->arg);
	csv_i64(offset_applies(ev), ev->offset);
	csv_u64(ev->kind == ST_REC_COMM && fn_kind(ev) == ST_KIND_WIN,
		ev->len);
	putchar(',');
	if ((op || ev->kind == ST_REC_COMM) && ev->text_len)
		st_csv_field(stdout, ev->text, ev->text_len);
	putchar('\n');
}

static void print_header(int rank, const char *path, struct st_reader *r)
{
	const struct st_kv *kv;
	char value[4096];
	size_t n, i;

	kv = st_reader_header(r, &n);
	printf("# rank %d: %s (format version %u)\n", rank, path,
	       st_reader_version(r));
	for (i = 0; i < n; i++)
		printf("%s=%s\n", kv[i].key,
		       st_fmt_str(kv[i].value, value, sizeof(value)));
}

static int add_site(struct dump *d, int rank, int slot,
		    const struct st_event *ev)
{
	struct site *s;
	uint32_t n = ev->nframes < ST_MAX_FRAMES ? ev->nframes : ST_MAX_FRAMES;

	if (d->nsites == d->alloc_sites) {
		size_t alloc = d->alloc_sites ? 2 * d->alloc_sites : 64;
		struct site *v = realloc(d->site, alloc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->site = v;
		d->alloc_sites = alloc;
	}
	s = &d->site[d->nsites];
	s->rank = rank;
	s->slot = slot;
	s->id = ev->site;
	s->nframes = n;
	s->frames = malloc((n ? n : 1) * sizeof(*s->frames));
	s->sym = malloc((n ? n : 1) * sizeof(*s->sym));
	if (!s->frames || !s->sym) {
		free(s->frames);
		free(s->sym);
		return -ENOMEM;
	}
	memcpy(s->frames, ev->frames, n * sizeof(*s->frames));
	d->nsites++;
	return 0;
}

static void print_sync_table_header(int csv)
{
	if (csv)
		puts("rank,epoch,method,t0_ns,dur_ns,slope_ppm,intercept_ns,"
		     "err_ns,slope_err_ppm,rtt_ns,samples");
	else
		printf("%4s %5s %-11s %15s %10s %11s %15s %9s %9s %9s %7s\n",
		       "rank", "epoch", "method", "t0_ns", "dur_ns",
		       "slope_ppm", "intercept_ns", "err_ns", "serr_ppm",
		       "rtt_ns", "samples");
}

/* "%.<prec>f" of 'v', or "-" (text) / "" (CSV) when it is not finite. */
static const char *num(double v, int prec, int csv, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "%s", csv ? "" : "-");
	else
		snprintf(buf, len, "%.*f", prec, v);
	return buf;
}

/*
 * One row of the --sync table for the sync record 'ev' of 'rank'.
 * Returns 0, or -1 when the record is not a valid sync record.
 */
static int print_sync_row(int rank, const struct st_event *ev, int csv)
{
	char a[32], b[32], c[32], e[32], f[32];
	struct st_sync_record rec;
	const struct st_sync_estimate *x = &rec.est;
	const char *fmt = csv ?
		"%d,%" PRIu32 ",%s,%" PRIu64 ",%" PRId64
		",%s,%s,%s,%s,%s,%zu\n" :
		"%4d %5" PRIu32 " %-11s %15" PRIu64 " %10" PRId64
		" %11s %15s %9s %9s %9s %7zu\n";

	if (st_sync_record_parse(&rec, ev->text, ev->text_len))
		return -1;
	printf(fmt, rank, rec.epoch, st_sync_method_name(rec.method), ev->t0,
	       (int64_t)(ev->t1 - ev->t0),
	       num(x->model.slope * 1e6, 4, csv, a, sizeof(a)),
	       num(x->model.intercept, 1, csv, b, sizeof(b)),
	       num(x->err_ns, 1, csv, c, sizeof(c)),
	       num(x->slope_err * 1e6, 4, csv, e, sizeof(e)),
	       num(x->rtt_ns, 0, csv, f, sizeof(f)), rec.n_edge + rec.n_root);
	st_sync_record_release(&rec);
	return 0;
}

/*
 * Dump the trace file 'path' of rank 'rank' ('slot' indexes d->objs).
 * Returns 0, or -1 after reporting a file that could not be read whole.
 */
static int dump_file(struct dump *d, int rank, int slot, const char *path)
{
	struct st_objmap objs, *om = d->sites ? &d->objs[slot] : &objs;
	struct st_gclock *clk = NULL;
	struct st_gclock_problems probs;
	struct st_reader *r;
	struct st_event ev;
	char err[512];
	int rc, ret = 0, nsync = 0, nbad = 0;

	rc = st_fn_reader_open(&r, path, err, sizeof(err));
	if (rc)
		return error("%s", *err ? err : strerror_neg(rc));
	if (st_fn_table_differs(st_reader_get(r, "fn_table")) &&
	    !d->table_warned++)
		warning("'%s' was written with another function table "
			"(fn_table %s, this synctrace has %s): function "
			"names may be wrong", path,
			st_reader_get(r, "fn_table"), st_fn_table_hash());
	if (d->header) {
		print_header(rank, path, r);
		st_reader_close(r);
		return 0;
	}
	if (!d->sites && !d->sync) {
		/* Global time needs the rank's sync records first. */
		if (st_gclock_new(&clk, rank) ||
		    st_gclock_load(clk, path, &probs) == -ENOMEM)
			die("out of memory");
		if (probs.nbad)
			warning("rank %d: %s (n=%d sync record%s ignored)",
				rank, probs.first, probs.nbad,
				probs.nbad == 1 ? "" : "s");
	}
	if (!d->sites)
		st_objmap_init(&objs);
	while ((rc = st_reader_next(r, &ev)) > 0) {
		if (ev.kind == ST_REC_OBJECT &&
		    st_objmap_add(om, ev.addr, ev.len, ev.text, ev.text_len))
			die("out of memory");
		if (d->sync) {
			if (ev.kind != ST_REC_SYNC)
				continue;
			nsync++;
			if (print_sync_row(rank, &ev, d->csv) && !nbad++)
				warning("rank %d: the sync record at t0=%"
					PRIu64 " is not a valid sync record",
					rank, ev.t0);
		} else if (d->sites) {
			if (ev.kind == ST_REC_SITE &&
			    add_site(d, rank, slot, &ev))
				die("out of memory");
		} else if (d->csv) {
			print_csv(rank, &ev, clk);
		} else {
			print_text(rank, &ev, om, clk);
		}
	}
	if (d->sync && nsync == nbad && !d->csv)
		printf("%4d %5s (no sync record: this rank has no global "
		       "time)\n", rank, "-");
	if (rc < 0) {
		const char *msg = st_reader_error(r);

		if (*msg)
			ret = error("%s", msg);
		else
			ret = error("'%s' is corrupt at offset %" PRIu64 ": %s",
				    path, st_reader_offset(r),
				    strerror_neg(rc));
	} else if (st_reader_truncated(r)) {
		warning("'%s' is truncated after offset %" PRIu64
			" (its writer was killed, or its disk was full?): "
			"shown up to there", path, st_reader_offset(r));
	}
	if (!d->sites)
		st_objmap_release(&objs);
	st_gclock_free(clk);
	st_reader_close(r);
	return ret;
}

static void print_sites(struct dump *d)
{
	struct st_symtab *t = st_symtab_new();
	const char *prog = getenv("SYNCTRACE_ADDR2LINE");
	char buf[1024];
	size_t i;
	uint32_t f;

	if (!t)
		die("out of memory");
	for (i = 0; i < d->nsites; i++) {
		struct site *s = &d->site[i];

		for (f = 0; f < s->nframes; f++) {
			const struct st_object *o;
			uint64_t addr;

			s->sym[f] = -1;
			o = st_objmap_find(&d->objs[s->slot], s->frames[f],
					   &addr);
			if (o)
				s->sym[f] = st_symtab_add(t, o->path, addr);
			if (o && s->sym[f] < 0)
				die("out of memory");
		}
	}
	if (st_symtab_resolve(t, prog && *prog ? prog : "addr2line") == -ENOENT)
		warning("cannot run '%s': frames are not symbolised",
			prog && *prog ? prog : "addr2line");
	for (i = 0; i < d->nsites; i++) {
		struct site *s = &d->site[i];

		printf("rank %d site %" PRIu32 " (%" PRIu32 " frame%s):\n",
		       s->rank, s->id, s->nframes, s->nframes == 1 ? "" : "s");
		for (f = 0; f < s->nframes; f++) {
			const struct st_sym *sym = st_symtab_get(t, s->sym[f]);

			if (!sym)
				printf("  #%-2" PRIu32 " 0x%" PRIx64 "\n", f,
				       s->frames[f]);
			else
				printf("  #%-2" PRIu32 " %s\n", f,
				       st_sym_format(sym, 0, buf, sizeof(buf)));
		}
	}
	st_symtab_free(t);
}

static void parse_options(struct dump *d, int argc, char **argv,
			  const char **run)
{
	enum { O_CSV = 256, O_HEADER, O_SITES, O_SYNC, O_RANK };
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, O_CSV },
		{ "header", no_argument, NULL, O_HEADER },
		{ "help", no_argument, NULL, 'h' },
		{ "rank", required_argument, NULL, O_RANK },
		{ "sites", no_argument, NULL, O_SITES },
		{ "sync", no_argument, NULL, O_SYNC },
		{ NULL, 0, NULL, 0 }
	};
	const char *val;
	long v;
	int c;

	*run = NULL;
	optind = 0;
	while ((c = st_getopt(argc, argv, ":h", longopts, &val)) != -1) {
		switch (c) {
		case 'h':
			fputs(st_dump_usage, stdout);
			exit(0);
		case O_CSV:
			d->csv = 1;
			break;
		case O_HEADER:
			d->header = 1;
			break;
		case O_SITES:
			d->sites = 1;
			break;
		case O_SYNC:
			d->sync = 1;
			break;
		case O_RANK:
			if (!val)
				usage_die(st_dump_usage,
					  "option '--rank' needs a value");
			if (st_parse_int(val, 0, INT32_MAX, &v))
				usage_die(st_dump_usage,
					  "bad rank '%s' for '--rank'", val);
			d->rank = v;
			break;
		default:
			usage_die(st_dump_usage, "%s", val);
		}
	}
	if (optind < argc)
		*run = argv[optind++];
	if (optind < argc)
		usage_die(st_dump_usage, "too many arguments");
	if (!*run)
		usage_die(st_dump_usage, "no run directory given");
	if (d->header + d->sites + d->sync > 1 ||
	    (d->csv && (d->header || d->sites)))
		usage_die(st_dump_usage, "options '--header', '--sites' and "
			  "'--sync' exclude each other, and '--csv' goes "
			  "only with '--sync'");
}

int cmd_dump(int argc, char **argv)
{
	struct dump d = { .rank = -1 };
	struct st_run *run = NULL;
	const char *arg, *complete;
	struct stat st;
	char err[512];
	int r, slot = 0, nread = 0, rc;
	size_t i;

	parse_options(&d, argc, argv, &arg);
	if (stat(arg, &st))
		die("cannot open '%s': %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		rc = st_run_open(&run, arg, err, sizeof(err));
		if (rc)
			die("%s", *err ? err : strerror_neg(rc));
		d.nranks = st_run_nranks(run);
		if (d.rank >= d.nranks)
			die("no rank %ld in '%s': it has %d rank%s", d.rank,
			    arg, d.nranks, d.nranks == 1 ? "" : "s");
		complete = st_run_get(run, "complete");
		if (!complete || strcmp(complete, "1"))
			warning("run '%s' is incomplete: not every rank "
				"finished its trace", arg);
	} else {
		d.nranks = 1;
	}
	if (d.sites) {
		d.objs = calloc((size_t)d.nranks, sizeof(*d.objs));
		if (!d.objs)
			die("out of memory");
	}
	if (d.sync)
		print_sync_table_header(d.csv);
	else if (d.csv)
		print_csv_header();
	else if (!d.header && !d.sites)
		print_text_header();
	if (!run) {
		/* One file: its rank comes from its header. */
		struct st_reader *rd;
		const char *v;
		long rk = 0;

		rc = st_fn_reader_open(&rd, arg, err, sizeof(err));
		if (rc)
			die("%s", *err ? err : strerror_neg(rc));
		v = st_reader_get(rd, "rank");
		if (v && st_parse_int(v, 0, INT32_MAX, &rk))
			rk = 0;
		st_reader_close(rd);
		if (d.rank >= 0 && d.rank != rk)
			die("no rank %ld in '%s': it holds rank %ld", d.rank,
			    arg, rk);
		nread++;
		if (dump_file(&d, (int)rk, 0, arg))
			d.failed = 1;
	}
	for (r = 0; run && r < d.nranks; r++) {
		const char *path = st_run_rank_path(run, r);

		if (d.rank >= 0 && r != d.rank)
			continue;
		if (access(path, F_OK)) {
			warning("no trace for rank %d: cannot open '%s': %s",
				r, path, strerror(errno));
			if (d.rank >= 0)
				d.failed = 1;
			continue;
		}
		nread++;
		if (dump_file(&d, r, slot++, path))
			d.failed = 1;
	}
	if (d.sites)
		print_sites(&d);
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the output: %s", strerror(errno));
	for (i = 0; i < d.nsites; i++) {
		free(d.site[i].frames);
		free(d.site[i].sym);
	}
	free(d.site);
	for (r = 0; d.objs && r < d.nranks; r++)
		st_objmap_release(&d.objs[r]);
	free(d.objs);
	if (run)
		st_run_close(run);
	if (!nread && !d.failed)
		die("no rank of '%s' has a trace file", arg);
	return d.failed ? ST_EXIT_FAILURE : 0;
}
