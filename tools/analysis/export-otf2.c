/*
 * tools/analysis/export-otf2.c: a run as an OTF2 archive (see export.h),
 * written through the OTF2 library when the build found it
 * (ST_HAVE_OTF2, set by the Makefile from pkg-config), else a stub that
 * says it is missing.  The interposer never links OTF2: only the command
 * does.
 *
 * Layout, as Score-P writes MPI traces: a system tree node per host, a
 * location group (process) per rank, a location per thread of it (id
 * rank << 16 | thread); a group "MPI locations" of every rank's thread 0
 * by world rank, a group per communicator holding its members' world
 * ranks in communicator rank order, and a Comm per communicator.  Each
 * MPI function is a region; each call is Enter, its MPI events, Leave,
 * with the call site ("jacobi.c:88") as the string attribute
 * "callsite" of the Enter.  Sends are written at entry, receives and
 * completions at exit; a completion's record comes before its Wait's
 * call in the trace, so it waits until that call is written.  Time
 * stamps are nanoseconds of global time after 'origin_ns', rounded; the
 * archive's properties SYNCTRACE::* say so, and name the clock, its
 * resolution, the synchronisation method and the largest estimated
 * error of global time, since an OTF2 timer resolution of 1 GHz says
 * nothing about how exact the times are.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/analysis/export.h"

#ifndef ST_HAVE_OTF2

int st_export_otf2_available(void)
{
	return 0;
}

int st_export_otf2(const char *dir, const char *name, struct st_scan *scan,
		   struct st_export_stats *st, char *err, size_t errlen)
{
	(void)dir;
	(void)name;
	(void)scan;
	(void)st;
	if (err && errlen)
		snprintf(err, errlen, "this synctrace was built without the "
			 "OTF2 library");
	return -ENOSYS;
}

#else

#include <otf2/otf2.h>

#include "sync/sync.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/timeline.h"
#include "tools/analysis/u64map.h"
#include "writer/event.h"
#include "writer/fn-info.h"

#define LOC(rank, thread) ((uint64_t)(rank) << 16 | (thread))

/* A completion waiting for its Wait/Test call on one location. */
struct pend {
	uint64_t loc, t0;
	uint64_t req, bytes;
	uint16_t init_fn;	/* the call that made the request */
	int32_t peer, tag, root;
	uint64_t comm, sbytes;
};

struct strtab {
	char **v;
	size_t n, alloc;
	struct st_u64map of;	/* FNV-1a hash -> index */
};

struct otf2 {
	OTF2_Archive *ar;
	OTF2_AttributeList *attrs;
	struct st_scan *scan;
	struct st_export_stats *st;
	double origin;
	uint64_t max_ts;
	struct strtab str;
	uint32_t s_callsite;		/* string of the attribute's name */
	struct st_u64map locs;		/* location -> 1 */
	struct st_u64map reqs;		/* rank << 40 | req -> fn << 1 |
					   written */
	struct pend *pend;
	size_t npend, alloc_pend;
	uint32_t *cref;			/* per scan comm: Comm ref, or
					   OTF2_UNDEFINED_COMM */
	OTF2_ErrorCode oe;
	int rc;
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The string ref of 's'; UINT32_MAX when out of memory. */
static uint32_t str_ref(struct strtab *t, const char *s)
{
	uint64_t *v;
	int added;

	v = st_u64map_put(&t->of, fnv(s), t->n, &added);
	if (!v)
		return UINT32_MAX;
	if (!added)
		return (uint32_t)*v;
	if (t->n == t->alloc) {
		size_t a = t->alloc ? 2 * t->alloc : 64;
		char **n = realloc(t->v, a * sizeof(*n));

		if (!n)
			return UINT32_MAX;
		t->v = n;
		t->alloc = a;
	}
	if (!(t->v[t->n] = strdup(s)))
		return UINT32_MAX;
	return (uint32_t)t->n++;
}

static uint64_t tick(struct otf2 *o, double g)
{
	double t = g - o->origin;
	uint64_t v = t > 0 ? (uint64_t)llround(t) : 0;

	if (v > o->max_ts)
		o->max_ts = v;
	return v;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft,
				OTF2_LocationRef loc, void *c, bool final)
{
	(void)u;
	(void)ft;
	(void)loc;
	(void)c;
	(void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft,
				 OTF2_LocationRef loc)
{
	(void)u;
	(void)ft;
	(void)loc;
	return 0;
}

static const OTF2_FlushCallbacks flush_cb = { pre_flush, post_flush };

static OTF2_CollectiveOp coll_op(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);
	const char *n = d ? d->name : "";

	switch (d ? d->bytes : 0) {
	case ST_BYTES_BARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
	case ST_BYTES_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
	case ST_BYTES_GATHER: return OTF2_COLLECTIVE_OP_GATHER;
	case ST_BYTES_GATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
	case ST_BYTES_SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
	case ST_BYTES_SCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
	case ST_BYTES_ALLGATHER:
	case ST_BYTES_NBR_ALLGATHER:
		return OTF2_COLLECTIVE_OP_ALLGATHER;
	case ST_BYTES_ALLGATHERV:
	case ST_BYTES_NBR_ALLGATHERV:
		return OTF2_COLLECTIVE_OP_ALLGATHERV;
	case ST_BYTES_ALLTOALL:
	case ST_BYTES_NBR_ALLTOALL:
		return OTF2_COLLECTIVE_OP_ALLTOALL;
	case ST_BYTES_ALLTOALLV:
	case ST_BYTES_NBR_ALLTOALLV:
		return OTF2_COLLECTIVE_OP_ALLTOALLV;
	case ST_BYTES_ALLTOALLW:
	case ST_BYTES_NBR_ALLTOALLW:
		return OTF2_COLLECTIVE_OP_ALLTOALLW;
	case ST_BYTES_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
	case ST_BYTES_ALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
	case ST_BYTES_REDUCE_SCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
	case ST_BYTES_REDUCE_SCATTER_BLOCK:
		return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
	case ST_BYTES_SCAN:
		return strstr(n, "Exscan") ? OTF2_COLLECTIVE_OP_EXSCAN :
		       OTF2_COLLECTIVE_OP_SCAN;
	}
	return OTF2_COLLECTIVE_OP_BARRIER;
}

/* The Comm ref of communicator 'id', OTF2_UNDEFINED_COMM when unmapped. */
static OTF2_CommRef comm_ref(struct otf2 *o, uint64_t id)
{
	const struct st_scan_comm *c = st_scan_comm(o->scan, id);

	if (!c || !c->world)
		return OTF2_UNDEFINED_COMM;
	return o->cref[c - o->scan->comms];
}

static uint32_t root_of(const struct st_event *ev)
{
	return ev->root >= 0 ? (uint32_t)ev->root : OTF2_UNDEFINED_UINT32;
}

static OTF2_EvtWriter *writer(struct otf2 *o, uint64_t loc)
{
	if (!st_u64map_put(&o->locs, loc, 1, NULL)) {
		o->rc = -ENOMEM;
		return NULL;
	}
	return OTF2_Archive_GetEvtWriter(o->ar, loc);
}

static int check(struct otf2 *o, OTF2_ErrorCode e)
{
	if (e != OTF2_SUCCESS && o->oe == OTF2_SUCCESS)
		o->oe = e;
	return e != OTF2_SUCCESS;
}

/* Write the completion 'p' at time 't'. */
static void complete(struct otf2 *o, OTF2_EvtWriter *w, const struct pend *p,
		     uint64_t t)
{
	const struct st_fn_desc *d = st_fn_desc(p->init_fn);
	OTF2_CommRef cr = comm_ref(o, p->comm);

	if (!d)
		return;
	if (d->kind == ST_KIND_COLL) {
		check(o, OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, t,
			coll_op(p->init_fn), cr,
			p->root >= 0 ? (uint32_t)p->root :
			OTF2_UNDEFINED_UINT32, p->sbytes, p->bytes, p->req));
	} else if (d->bytes == ST_BYTES_RECV) {
		check(o, OTF2_EvtWriter_MpiIrecv(w, NULL, t, (uint32_t)p->peer,
						 cr, (uint32_t)p->tag,
						 p->bytes, p->req));
	} else {
		check(o, OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, p->req));
	}
}

/*
 * Write the completions pending on 'loc' at 't': those of the call whose
 * local entry is 't0_local' ('mine'), or all the others (stale ones,
 * whose Wait/Test never came out; with 'all', every one).
 */
static void flush_pend(struct otf2 *o, OTF2_EvtWriter *w, uint64_t loc,
		       uint64_t t, uint64_t t0_local, int mine, int all)
{
	size_t i, j = 0;

	for (i = 0; i < o->npend; i++) {
		struct pend *p = &o->pend[i];

		if (p->loc != loc ||
		    (!all && (p->t0 == t0_local) != (mine != 0))) {
			o->pend[j++] = *p;
			continue;
		}
		complete(o, w, p, t);
	}
	o->npend = j;
}

static void on_call(struct otf2 *o, int rank, const struct st_event *ev,
		    double g0, double g1)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t loc = LOC(rank, ev->thread), t0 = tick(o, g0), t1;
	OTF2_CommRef cr = comm_ref(o, ev->comm);
	OTF2_EvtWriter *w = writer(o, loc);
	char site[256];
	uint32_t s;

	if (!w) {
		o->oe = o->oe ? o->oe : OTF2_ERROR_MEM_ALLOC_FAILED;
		return;
	}
	t1 = tick(o, g1 > g0 ? g1 : g0);
	/* Completions of an earlier call that never came out. */
	flush_pend(o, w, loc, t0, ev->t0, 0, 0);
	s = str_ref(&o->str, st_scan_site_label(o->scan,
			st_scan_site(o->scan, rank, ev->site), site,
			sizeof(site)));
	if (s == UINT32_MAX) {
		o->rc = -ENOMEM;
		return;
	}
	OTF2_AttributeList_AddStringRef(o->attrs, 0, s);
	check(o, OTF2_EvtWriter_Enter(w, o->attrs, t0, ev->fn - 1u));
	OTF2_AttributeList_RemoveAllAttributes(o->attrs);
	o->st->calls++;
	if (d && d->kind == ST_KIND_COLL && cr != OTF2_UNDEFINED_COMM) {
		if (d->family == ST_FAM_BLOCKING) {
			check(o, OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t0));
			check(o, OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t1,
				coll_op(ev->fn), cr, root_of(ev), ev->sbytes,
				ev->rbytes));
		} else if (d->family == ST_FAM_NONBLOCKING && ev->req) {
			check(o, OTF2_EvtWriter_NonBlockingCollectiveRequest(w,
				NULL, t0, ev->req));
			if (!st_u64map_put(&o->reqs,
					   (uint64_t)rank << 40 | ev->req,
					   (uint64_t)ev->fn << 1 | 1, NULL))
				o->rc = -ENOMEM;
		}
	} else if (d && d->kind == ST_KIND_P2P &&
		   cr != OTF2_UNDEFINED_COMM) {
		int send = d->bytes == ST_BYTES_SEND ||
			   d->bytes == ST_BYTES_SENDRECV ||
			   d->bytes == ST_BYTES_SENDRECV_REPLACE;
		int written = 0;

		if (send && ev->peer >= 0) {
			if (d->family == ST_FAM_NONBLOCKING)
				check(o, OTF2_EvtWriter_MpiIsend(w, NULL, t0,
					(uint32_t)ev->peer, cr,
					(uint32_t)ev->tag, ev->sbytes,
					ev->req));
			else
				check(o, OTF2_EvtWriter_MpiSend(w, NULL, t0,
					(uint32_t)ev->peer, cr,
					(uint32_t)ev->tag, ev->sbytes));
			written = 1;
		}
		if (d->bytes == ST_BYTES_RECV &&
		    d->family == ST_FAM_NONBLOCKING &&
		    ev->peer != ST_RANK_PROC_NULL) {
			check(o, OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t0,
								ev->req));
			written = 1;
		}
		if (d->family == ST_FAM_NONBLOCKING && ev->req &&
		    !st_u64map_put(&o->reqs, (uint64_t)rank << 40 | ev->req,
				   (uint64_t)ev->fn << 1 | (unsigned)written,
				   NULL))
			o->rc = -ENOMEM;
		if (d->bytes == ST_BYTES_RECV &&
		    d->family == ST_FAM_BLOCKING && ev->peer >= 0)
			check(o, OTF2_EvtWriter_MpiRecv(w, NULL, t1,
				(uint32_t)ev->peer, cr, (uint32_t)ev->tag,
				ev->rbytes));
		if (d->bytes != ST_BYTES_SEND && d->bytes != ST_BYTES_RECV &&
		    ev->peer2 >= 0)
			check(o, OTF2_EvtWriter_MpiRecv(w, NULL, t1,
				(uint32_t)ev->peer2, cr, (uint32_t)ev->tag2,
				ev->rbytes));
	}
	/* This call's own completions (their records came just before). */
	flush_pend(o, w, loc, t1, ev->t0, 1, 0);
	check(o, OTF2_EvtWriter_Leave(w, NULL, t1, ev->fn - 1u));
}

/* A START (persistent collective instance) or DONE record. */
static void on_request(struct otf2 *o, int rank, const struct st_event *ev,
		       double g1)
{
	uint64_t key = (uint64_t)rank << 40 | ev->req, *v, init;
	struct pend *p;

	if (ev->kind == ST_REC_START) {
		OTF2_EvtWriter *w = writer(o, LOC(rank, ev->thread));

		if (!w || comm_ref(o, ev->comm) == OTF2_UNDEFINED_COMM)
			return;
		/*
		 * MPI_Start's call record comes first and is written
		 * whole: the request goes at its exit.
		 */
		if (!st_u64map_put(&o->reqs, key, (uint64_t)ev->fn << 1 | 1,
				   NULL)) {
			o->rc = -ENOMEM;
			return;
		}
		check(o, OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL,
			tick(o, g1), ev->req));
		return;
	}
	if (!(v = st_u64map_find(&o->reqs, key)))
		return;
	init = *v;
	if (st_fn_desc(init >> 1) &&
	    st_fn_desc(init >> 1)->family != ST_FAM_PERSISTENT)
		st_u64map_del(&o->reqs, key);
	if (!(init & 1))
		return;
	if (o->npend == o->alloc_pend) {
		size_t a = o->alloc_pend ? 2 * o->alloc_pend : 16;
		struct pend *n = realloc(o->pend, a * sizeof(*n));

		if (!n) {
			o->rc = -ENOMEM;
			return;
		}
		o->pend = n;
		o->alloc_pend = a;
	}
	p = &o->pend[o->npend++];
	p->loc = LOC(rank, ev->thread);
	p->t0 = ev->t0;
	p->req = ev->req;
	p->init_fn = (uint16_t)(init >> 1);
	p->peer = ev->peer;
	p->tag = ev->tag;
	p->root = ev->root;
	p->comm = ev->comm;
	p->bytes = ev->rbytes;
	p->sbytes = ev->sbytes;
}

static int on_record(void *ctx, const struct st_merged *x)
{
	struct otf2 *o = ctx;

	if (isnan(x->g0) || isnan(x->g1))
		return 0;
	if (x->ev->kind == ST_REC_CALL)
		on_call(o, x->rank, x->ev, x->g0, x->g1);
	else if (x->ev->kind == ST_REC_START || x->ev->kind == ST_REC_DONE)
		on_request(o, x->rank, x->ev, x->g1);
	if (o->rc)
		return o->rc;
	return o->oe != OTF2_SUCCESS ? -EIO : 0;
}

static OTF2_RegionRole coll_role(unsigned fn)
{
	switch (coll_op(fn)) {
	case OTF2_COLLECTIVE_OP_BARRIER: return OTF2_REGION_ROLE_BARRIER;
	case OTF2_COLLECTIVE_OP_BCAST:
	case OTF2_COLLECTIVE_OP_SCATTER:
	case OTF2_COLLECTIVE_OP_SCATTERV:
		return OTF2_REGION_ROLE_COLL_ONE2ALL;
	case OTF2_COLLECTIVE_OP_GATHER:
	case OTF2_COLLECTIVE_OP_GATHERV:
	case OTF2_COLLECTIVE_OP_REDUCE:
		return OTF2_REGION_ROLE_COLL_ALL2ONE;
	case OTF2_COLLECTIVE_OP_SCAN:
	case OTF2_COLLECTIVE_OP_EXSCAN:
		return OTF2_REGION_ROLE_COLL_OTHER;
	default:
		return OTF2_REGION_ROLE_COLL_ALL2ALL;
	}
}

/* The largest estimated error of global time at any rank's run edges. */
static double max_err(const struct st_scan *s)
{
	double m = NAN, e;
	int r;

	for (r = 0; r < s->nranks; r++) {
		const struct st_scan_rank *sr = &s->rank[r];

		if (!sr->read || !st_gclock_epochs(sr->clk))
			continue;
		e = st_gclock_err(sr->clk, sr->t_start);
		if (!(e <= m))
			m = e;
		e = st_gclock_err(sr->clk, sr->t_end);
		if (!(e <= m))
			m = e;
	}
	return m;
}

static void properties(struct otf2 *o)
{
	char buf[128];
	double e = max_err(o->scan);

	snprintf(buf, sizeof(buf), "%.0f", o->origin);
	OTF2_Archive_SetProperty(o->ar, "SYNCTRACE::ORIGIN_NS", buf, true);
	OTF2_Archive_SetProperty(o->ar, "SYNCTRACE::TIME", "global time: "
				 "time stamp + ORIGIN_NS = nanoseconds since "
				 "rank 0's clock origin, rounded", true);
	OTF2_Archive_SetProperty(o->ar, "SYNCTRACE::SYNC_METHOD",
				 o->scan->sync_method < 0 ? "none" :
				 st_sync_method_name(o->scan->sync_method),
				 true);
	if (isnan(e))
		snprintf(buf, sizeof(buf), "unknown");
	else
		snprintf(buf, sizeof(buf), "%.1f", e);
	OTF2_Archive_SetProperty(o->ar, "SYNCTRACE::SYNC_ERR_MAX_NS", buf,
				 true);
	OTF2_Archive_SetProperty(o->ar, "SYNCTRACE::CLOCK",
				 o->scan->clock ? o->scan->clock : "unknown",
				 true);
	if (isnan(o->scan->clock_res_ns))
		snprintf(buf, sizeof(buf), "unknown");
	else
		snprintf(buf, sizeof(buf), "%.3f", o->scan->clock_res_ns);
	OTF2_Archive_SetProperty(o->ar, "SYNCTRACE::CLOCK_RES_NS", buf, true);
}

/* Every definition, once the events have named what they use. */
static void definitions(struct otf2 *o)
{
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(o->ar);
	struct st_scan *s = o->scan;
	uint64_t *members, nev;
	uint32_t sys_root;
	unsigned fn, nfn = st_fn_count();
	char nm[64];
	size_t i;
	int r;

	if (!g) {
		o->oe = OTF2_ERROR_INVALID;
		return;
	}
	members = calloc((size_t)s->nranks + 1, sizeof(*members));
	if (!members) {
		o->rc = -ENOMEM;
		return;
	}
	check(o, OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ULL,
		0, o->max_ts + 1, OTF2_UNDEFINED_TIMESTAMP));
	/* Every string first: definitions may only name written ones. */
	sys_root = str_ref(&o->str, "machine");
	str_ref(&o->str, "node");
	str_ref(&o->str, "MPI locations");
	str_ref(&o->str, "MPI");
	str_ref(&o->str, "callsite");
	for (fn = 1; fn < nfn; fn++)
		str_ref(&o->str, st_fn_name(fn, nm, sizeof(nm)));
	for (r = 0; r < s->nranks; r++) {
		snprintf(nm, sizeof(nm), "rank %d", r);
		str_ref(&o->str, nm);
		str_ref(&o->str, s->rank[r].host ? s->rank[r].host : "?");
	}
	for (i = 0; i < o->locs.cap; i++) {
		if (!o->locs.used[i])
			continue;
		snprintf(nm, sizeof(nm), "thread %u",
			 (unsigned)(o->locs.key[i] & 0xffff));
		str_ref(&o->str, nm);
	}
	for (i = 0; i < s->ncomms; i++) {
		snprintf(nm, sizeof(nm), s->comms[i].id == 1ull << 32 ?
			 "MPI_COMM_WORLD" : "comm 0x%" PRIx64, s->comms[i].id);
		str_ref(&o->str, nm);
	}
	for (i = 0; i < o->str.n; i++)
		check(o, OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i,
							  o->str.v[i]));
	check(o, OTF2_GlobalDefWriter_WriteAttribute(g, 0,
		str_ref(&o->str, "callsite"), o->s_callsite, OTF2_TYPE_STRING));
	check(o, OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, sys_root,
		str_ref(&o->str, "machine"), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	/* One node per host, numbered from 1, by first rank on it. */
	for (r = 0; r < s->nranks; r++) {
		const char *h = s->rank[r].host ? s->rank[r].host : "?";
		int q;

		for (q = 0; q < r; q++)
			if (!strcmp(s->rank[q].host ? s->rank[q].host : "?", h))
				break;
		if (q == r)
			check(o, OTF2_GlobalDefWriter_WriteSystemTreeNode(g,
				(uint32_t)r + 1, str_ref(&o->str, h),
				str_ref(&o->str, "node"), 0));
		members[r] = (uint64_t)q + 1;	/* node of rank r */
	}
	for (r = 0; r < s->nranks; r++) {
		snprintf(nm, sizeof(nm), "rank %d", r);
		check(o, OTF2_GlobalDefWriter_WriteLocationGroup(g,
			(uint32_t)r, str_ref(&o->str, nm),
			OTF2_LOCATION_GROUP_TYPE_PROCESS,
			(uint32_t)members[r], OTF2_UNDEFINED_LOCATION_GROUP));
	}
	for (i = 0; i < o->locs.cap; i++) {
		uint64_t loc;
		OTF2_EvtWriter *w;

		if (!o->locs.used[i])
			continue;
		loc = o->locs.key[i];
		w = OTF2_Archive_GetEvtWriter(o->ar, loc);
		nev = 0;
		if (w)
			OTF2_EvtWriter_GetNumberOfEvents(w, &nev);
		snprintf(nm, sizeof(nm), "thread %u",
			 (unsigned)(loc & 0xffff));
		check(o, OTF2_GlobalDefWriter_WriteLocation(g, loc,
			str_ref(&o->str, nm), OTF2_LOCATION_TYPE_CPU_THREAD,
			nev, (uint32_t)(loc >> 16)));
	}
	for (fn = 1; fn < nfn; fn++) {
		const struct st_fn_desc *d = st_fn_desc(fn);
		uint32_t n = str_ref(&o->str, st_fn_name(fn, nm, sizeof(nm)));

		check(o, OTF2_GlobalDefWriter_WriteRegion(g, fn - 1, n, n,
			str_ref(&o->str, "MPI"),
			d && d->kind == ST_KIND_COLL ? coll_role(fn) :
			d && d->kind == ST_KIND_P2P ?
			OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION,
			OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
			OTF2_UNDEFINED_STRING, 0, 0));
	}
	/* Group 0: the MPI ranks' locations, by world rank. */
	for (r = 0; r < s->nranks; r++)
		members[r] = LOC(r, 0);
	check(o, OTF2_GlobalDefWriter_WriteGroup(g, 0,
		str_ref(&o->str, "MPI locations"),
		OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
		OTF2_GROUP_FLAG_NONE, (uint32_t)s->nranks, members));
	for (i = 0; i < s->ncomms; i++) {
		const struct st_scan_comm *c = &s->comms[i];
		uint32_t gid = o->cref[i] + 1, j;

		if (o->cref[i] == OTF2_UNDEFINED_COMM)
			continue;
		for (j = 0; j < c->size; j++)
			members[j] = c->world[j] < 0 ? 0 :
				     (uint64_t)c->world[j];
		snprintf(nm, sizeof(nm), c->id == 1ull << 32 ?
			 "MPI_COMM_WORLD" : "comm 0x%" PRIx64, c->id);
		check(o, OTF2_GlobalDefWriter_WriteGroup(g, gid,
			str_ref(&o->str, nm), OTF2_GROUP_TYPE_COMM_GROUP,
			OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, c->size,
			members));
		check(o, OTF2_GlobalDefWriter_WriteComm(g, o->cref[i],
			str_ref(&o->str, nm), gid, OTF2_UNDEFINED_COMM,
			OTF2_COMM_FLAG_NONE));
	}
	free(members);
}

static int otf2_fail(struct otf2 *o, char *err, size_t errlen)
{
	if (o->rc)
		return o->rc;
	if (o->oe != OTF2_SUCCESS) {
		if (err && errlen)
			snprintf(err, errlen, "OTF2: %s: %s",
				 OTF2_Error_GetName(o->oe),
				 OTF2_Error_GetDescription(o->oe));
		return -EIO;
	}
	return 0;
}

int st_export_otf2_available(void)
{
	return 1;
}

int st_export_otf2(const char *dir, const char *name, struct st_scan *scan,
		   struct st_export_stats *st, char *err, size_t errlen)
{
	char path[4096];
	struct otf2 o;
	uint32_t k;
	size_t i;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(st, 0, sizeof(*st));
	if (err && errlen)
		*err = '\0';
	o.scan = scan;
	o.st = st;
	o.origin = isnan(scan->g_min) ? 0 : floor(scan->g_min);
	st->origin_ns = o.origin;
	for (i = 0; i < (size_t)scan->nranks; i++)
		if (scan->rank[i].read && !st_gclock_epochs(scan->rank[i].clk))
			st->ranks_left_out++;
	snprintf(path, sizeof(path), "%s/%s.otf2", dir, name);
	if (!access(path, F_OK)) {
		snprintf(err, errlen, "cannot create the archive '%s': it "
			 "exists already (export into a new directory)", path);
		return -EEXIST;
	}
	o.ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1 << 20,
				 4 << 20, OTF2_SUBSTRATE_POSIX,
				 OTF2_COMPRESSION_NONE);
	if (!o.ar) {
		snprintf(err, errlen, "OTF2 cannot create the archive '%s/%s' "
			 "(does it exist already?)", dir, name);
		return -EIO;
	}
	/* Comm refs run from 0 without holes: intra-communicators only. */
	o.cref = malloc((scan->ncomms + 1) * sizeof(*o.cref));
	if (!o.cref) {
		OTF2_Archive_Close(o.ar);
		return -ENOMEM;
	}
	for (i = 0, k = 0; i < scan->ncomms; i++)
		o.cref[i] = scan->comms[i].world ? k++ : OTF2_UNDEFINED_COMM;
	o.attrs = OTF2_AttributeList_New();
	o.s_callsite = str_ref(&o.str, "call site of the MPI call: "
			       "file:line, function, or object+offset");
	if (!o.attrs || o.s_callsite == UINT32_MAX) {
		OTF2_Archive_Close(o.ar);
		return -ENOMEM;
	}
	check(&o, OTF2_Archive_SetFlushCallbacks(o.ar, &flush_cb, NULL));
	check(&o, OTF2_Archive_SetSerialCollectiveCallbacks(o.ar));
	check(&o, OTF2_Archive_SetCreator(o.ar, "synctrace export"));
	check(&o, OTF2_Archive_SetDescription(o.ar, scan->cmdline ?
					      scan->cmdline : scan->dir));
	check(&o, OTF2_Archive_OpenEvtFiles(o.ar));
	/* Every rank's first thread exists: the MPI group names them. */
	for (i = 0; i < (size_t)scan->nranks; i++)
		if (!writer(&o, LOC(i, 0)))
			o.oe = o.oe ? o.oe : OTF2_ERROR_MEM_ALLOC_FAILED;
	rc = o.oe == OTF2_SUCCESS ? st_scan_walk(scan, on_record, &o) : 0;
	if (rc && !o.rc && rc != -EIO)
		o.rc = rc;
	/* Completions whose Wait never came: at their own time. */
	while (o.npend) {
		struct pend p = o.pend[0];
		OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(o.ar, p.loc);

		if (!w)
			break;
		flush_pend(&o, w, p.loc, o.max_ts, 0, 0, 1);
	}
	if (!o.rc) {
		properties(&o);
		definitions(&o);
	}
	for (i = 0; i < o.locs.cap; i++) {
		OTF2_EvtWriter *w;

		if (!o.locs.used[i])
			continue;
		w = OTF2_Archive_GetEvtWriter(o.ar, o.locs.key[i]);
		if (w)
			check(&o, OTF2_Archive_CloseEvtWriter(o.ar, w));
	}
	check(&o, OTF2_Archive_CloseEvtFiles(o.ar));
	/* Empty local definitions: every location still needs its file. */
	check(&o, OTF2_Archive_OpenDefFiles(o.ar));
	for (i = 0; i < o.locs.cap; i++) {
		OTF2_DefWriter *dw;

		if (!o.locs.used[i])
			continue;
		dw = OTF2_Archive_GetDefWriter(o.ar, o.locs.key[i]);
		if (dw)
			check(&o, OTF2_Archive_CloseDefWriter(o.ar, dw));
	}
	check(&o, OTF2_Archive_CloseDefFiles(o.ar));
	check(&o, OTF2_Archive_Close(o.ar));
	OTF2_AttributeList_Delete(o.attrs);
	for (i = 0; i < o.str.n; i++)
		free(o.str.v[i]);
	free(o.str.v);
	st_u64map_release(&o.str.of);
	st_u64map_release(&o.locs);
	st_u64map_release(&o.reqs);
	free(o.pend);
	free(o.cref);
	return otf2_fail(&o, err, errlen);
}

#endif
