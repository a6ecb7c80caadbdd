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
 * call in the trace, so it waits until that call is written.
 *
 * One-sided calls, as Score-P writes them: an RmaWin per window (on the
 * communicator it was made on), RmaWinCreate and RmaWinDestroy inside
 * an RmaCollectiveBegin/End pair in its constructor and MPI_Win_free
 * (the constructor's Leave waits for the window's COMM record, which
 * follows its CALL record), fences as RmaCollectiveBegin/End, RmaPut,
 * RmaGet and RmaAtomic with their target and bytes, completed by
 * RmaOpCompleteBlocking at the window's next synchronisation on that
 * thread or, for the R* forms, RmaOpCompleteNonBlocking at their Wait,
 * locks as RmaAcquireLock/RmaReleaseLock.  MPI-IO: the paradigm
 * "MPI-IO", an IoRegularFile per path and an IoHandle per open file;
 * IoCreateHandle and IoDestroyHandle in MPI_File_open and
 * MPI_File_close, IoOperationBegin/Complete around each read and write
 * (flagged collective or nonblocking, Issued at the I-call and Complete
 * at its Wait, a split collective's at its _end), IoSeek, a flush for
 * MPI_File_sync, IoDeleteFile.  Time
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
#include "tools/analysis/fn-names.h"
#include "tools/analysis/grow.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/timeline.h"
#include "tools/analysis/u64map.h"

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

#include "gen/ops.h"
#include "sync/sync.h"
#include "writer/event.h"
#include "writer/fn-info.h"

#define LOC(rank, thread) ((uint64_t)(rank) << 16 | (thread))

/* A completion waiting for its Wait/Test call on one location. */
struct pend {
	uint64_t loc, t0;
	uint64_t req, bytes;
	uint64_t match;		/* one-sided or I/O: its matching id */
	uint16_t init_fn;	/* the call that made the request */
	int32_t peer, tag, root;
	uint64_t comm, sbytes;
	int cancelled;		/* the done record says so */
};

struct strtab {
	char **v;
	size_t n, alloc;
	struct st_u64map of;	/* FNV-1a hash -> index */
};

/* A window (RmaWin) or an open file (IoHandle), by ref. */
struct objdef {
	uint64_t id;		/* its id in the trace */
	uint64_t parent;	/* the communicator it was made on */
	uint32_t name;		/* string ref */
	uint32_t path;		/* file: its IoRegularFile */
	uint16_t ctor;		/* window: its constructor */
};

/* A blocking one-sided operation waiting for its synchronisation. */
struct rma_pend {
	uint64_t loc, match;
	uint32_t win;
};

/* A split collective file operation between its _begin and _end. */
struct split {
	uint64_t loc, match, bytes;
	uint32_t handle;
};

/* A constructor's Leave, waiting for the COMM record of what it made. */
struct ctor {
	uint64_t loc, t1;
	uint16_t fn;
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
	struct st_u64map win_of;	/* window id -> RmaWin ref */
	struct objdef *win;
	size_t nwin, awin;
	struct st_u64map file_of;	/* file id -> IoHandle ref */
	struct objdef *file;
	size_t nfile, afile;
	struct st_u64map path_of;	/* fnv(path) -> IoRegularFile ref */
	uint32_t *path;			/* [ref]: its name */
	size_t npath, apath;
	uint64_t next_match;		/* matching ids, from 1 */
	struct st_u64map match_of;	/* rank << 40 | req -> matching id */
	struct rma_pend *rp;
	size_t nrp, arp;
	struct split *sp;
	size_t nsp, asp;
	struct ctor *ct;
	size_t nct, act;
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
	if (d->kind == ST_KIND_RMA) {
		uint64_t *v = st_u64map_find(&o->win_of, p->comm);

		if (v)
			check(o, OTF2_EvtWriter_RmaOpCompleteNonBlocking(w,
				NULL, t, (OTF2_RmaWinRef)*v, p->match));
	} else if (d->kind == ST_KIND_IO) {
		uint64_t *v = st_u64map_find(&o->file_of, p->comm);

		if (v)
			check(o, OTF2_EvtWriter_IoOperationComplete(w, NULL, t,
				(OTF2_IoHandleRef)*v, p->bytes + p->sbytes,
				p->match));
	} else if (d->kind == ST_KIND_COLL) {
		o->st->colls++;
		check(o, OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, t,
			coll_op(p->init_fn), cr,
			p->root >= 0 ? (uint32_t)p->root :
			OTF2_UNDEFINED_UINT32, p->sbytes, p->bytes, p->req));
	} else if (p->cancelled) {
		/* Nothing received or sent: the cancel succeeded. */
		check(o, OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t,
							    p->req));
	} else if (d->bytes == ST_BYTES_RECV) {
		o->st->recvs++;
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

/* --- One-sided and MPI-IO -------------------------------------------- */

static uint32_t named(struct otf2 *o, const char *fmt, uint64_t id)
{
	char nm[64];
	uint32_t r;

	snprintf(nm, sizeof(nm), fmt, id);
	r = str_ref(&o->str, nm);
	if (r == UINT32_MAX)
		o->rc = -ENOMEM;
	return r;
}

/* The RmaWin ref of window 'id', made when new; UINT32_MAX: no memory. */
static uint32_t win_ref(struct otf2 *o, uint64_t id)
{
	uint64_t *v = st_u64map_find(&o->win_of, id);

	if (v)
		return (uint32_t)*v;
	if (ST_GROW(o->win, o->nwin, o->awin) ||
	    !st_u64map_put(&o->win_of, id, o->nwin, NULL)) {
		o->rc = -ENOMEM;
		return UINT32_MAX;
	}
	o->win[o->nwin] = (struct objdef){ .id = id };
	o->win[o->nwin].name = named(o, "window 0x%" PRIx64, id);
	return (uint32_t)o->nwin++;
}

/* The IoRegularFile ref of the 'len' bytes of 'path'. */
static uint32_t path_ref(struct otf2 *o, const char *path, size_t len)
{
	char buf[4096];
	uint64_t *v;
	uint32_t name;

	snprintf(buf, sizeof(buf), "%.*s", (int)len, path);
	if ((v = st_u64map_find(&o->path_of, fnv(buf))))
		return (uint32_t)*v;
	name = str_ref(&o->str, buf);
	if (name == UINT32_MAX || ST_GROW(o->path, o->npath, o->apath) ||
	    !st_u64map_put(&o->path_of, fnv(buf), o->npath, NULL)) {
		o->rc = -ENOMEM;
		return UINT32_MAX;
	}
	o->path[o->npath] = name;
	return (uint32_t)o->npath++;
}

/*
 * The IoHandle ref of file 'id', made when new, named by 'path' ('len'
 * bytes; NULL: "file 0x..." when its COMM record was not seen).
 */
static uint32_t file_ref(struct otf2 *o, uint64_t id, const char *path,
			 size_t len)
{
	uint64_t *v = st_u64map_find(&o->file_of, id);
	char nm[64];
	uint32_t pr;

	if (v)
		return (uint32_t)*v;
	if (!path) {
		snprintf(nm, sizeof(nm), "file 0x%" PRIx64, id);
		path = nm;
		len = strlen(nm);
	}
	pr = path_ref(o, path, len);
	if (pr == UINT32_MAX || ST_GROW(o->file, o->nfile, o->afile) ||
	    !st_u64map_put(&o->file_of, id, o->nfile, NULL)) {
		o->rc = -ENOMEM;
		return UINT32_MAX;
	}
	o->file[o->nfile] = (struct objdef){ .id = id, .path = pr,
					     .name = o->path[pr] };
	return (uint32_t)o->nfile++;
}

/* Request 'req' of 'rank' (function 'fn') completes with 'match'. */
static void note_req(struct otf2 *o, int rank, const struct st_event *ev,
		     uint64_t match)
{
	uint64_t key = (uint64_t)rank << 40 | ev->req;

	if (!ev->req)
		return;
	if (!st_u64map_put(&o->reqs, key, (uint64_t)ev->fn << 1 | 1, NULL) ||
	    !st_u64map_put(&o->match_of, key, match, NULL))
		o->rc = -ENOMEM;
	else
		*st_u64map_find(&o->match_of, key) = match;
}

/* The blocking operations on 'win' pending on 'loc' complete at 't'. */
static void rma_sync(struct otf2 *o, OTF2_EvtWriter *w, uint64_t loc,
		     uint32_t win, uint64_t t)
{
	size_t i, j = 0;

	for (i = 0; i < o->nrp; i++) {
		if (o->rp[i].loc == loc && o->rp[i].win == win)
			check(o, OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL,
				t, win, o->rp[i].match));
		else
			o->rp[j++] = o->rp[i];
	}
	o->nrp = j;
}

#define SYNC_LEVEL (OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY)

static int allocates(unsigned ctor)
{
	return ctor == ST_FN_MPI_WIN_ALLOCATE ||
	       ctor == ST_FN_MPI_WIN_ALLOCATE_C ||
	       ctor == ST_FN_MPI_WIN_ALLOCATE_SHARED ||
	       ctor == ST_FN_MPI_WIN_ALLOCATE_SHARED_C;
}

/* A one-sided call's events, inside its region. */
static void rma_call(struct otf2 *o, OTF2_EvtWriter *w, int rank,
		     const struct st_event *ev, uint64_t t0, uint64_t t1)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t loc = LOC(rank, ev->thread), match;
	uint32_t win = win_ref(o, ev->comm);
	OTF2_RmaAtomicType at = OTF2_RMA_ATOMIC_TYPE_ACCUMULATE;

	if (win == UINT32_MAX)
		return;
	switch (ev->fn) {
	case ST_FN_MPI_WIN_FREE:
		check(o, OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t0));
		rma_sync(o, w, loc, win, t1);
		check(o, OTF2_EvtWriter_RmaWinDestroy(w, NULL, t1, win));
		check(o, OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t1,
			allocates(o->win[win].ctor) ?
			OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE :
			OTF2_COLLECTIVE_OP_DESTROY_HANDLE, SYNC_LEVEL, win,
			OTF2_UNDEFINED_UINT32, 0, 0));
		return;
	case ST_FN_MPI_WIN_FENCE:
		check(o, OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t0));
		rma_sync(o, w, loc, win, t1);
		check(o, OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t1,
			OTF2_COLLECTIVE_OP_BARRIER, SYNC_LEVEL, win,
			OTF2_UNDEFINED_UINT32, 0, 0));
		return;
	case ST_FN_MPI_WIN_LOCK:
		if (ev->peer >= 0)
			check(o, OTF2_EvtWriter_RmaAcquireLock(w, NULL, t1, win,
				(uint32_t)ev->peer, 0,
				ev->arg & ST_LOCK_SHARED ? OTF2_LOCK_SHARED :
				OTF2_LOCK_EXCLUSIVE));
		return;
	case ST_FN_MPI_WIN_LOCK_ALL:
		check(o, OTF2_EvtWriter_RmaAcquireLock(w, NULL, t1, win,
			OTF2_UNDEFINED_UINT32, 0, OTF2_LOCK_SHARED));
		return;
	case ST_FN_MPI_WIN_UNLOCK:
		rma_sync(o, w, loc, win, t1);
		if (ev->peer >= 0)
			check(o, OTF2_EvtWriter_RmaReleaseLock(w, NULL, t1, win,
				(uint32_t)ev->peer, 0));
		return;
	case ST_FN_MPI_WIN_UNLOCK_ALL:
		rma_sync(o, w, loc, win, t1);
		check(o, OTF2_EvtWriter_RmaReleaseLock(w, NULL, t1, win,
			OTF2_UNDEFINED_UINT32, 0));
		return;
	case ST_FN_MPI_WIN_COMPLETE:
	case ST_FN_MPI_WIN_FLUSH:
	case ST_FN_MPI_WIN_FLUSH_ALL:
	case ST_FN_MPI_WIN_FLUSH_LOCAL:
	case ST_FN_MPI_WIN_FLUSH_LOCAL_ALL:
		rma_sync(o, w, loc, win, t1);
		return;
	}
	/* Communication to a rank (MPI_PROC_NULL moves nothing). */
	if ((d->family != ST_FAM_EPOCH && d->family != ST_FAM_NONBLOCKING) ||
	    ev->peer < 0)
		return;
	match = ++o->next_match;
	switch (d->bytes) {
	case ST_BYTES_PUT:
		check(o, OTF2_EvtWriter_RmaPut(w, NULL, t0, win,
			(uint32_t)ev->peer, ev->sbytes, match));
		break;
	case ST_BYTES_GET:
		check(o, OTF2_EvtWriter_RmaGet(w, NULL, t0, win,
			(uint32_t)ev->peer, ev->rbytes, match));
		break;
	case ST_BYTES_CAS:
		at = OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP;
		/* fall through */
	default:
		if (d->bytes == ST_BYTES_GET_ACC ||
		    d->bytes == ST_BYTES_FETCH_OP)
			at = OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
		check(o, OTF2_EvtWriter_RmaAtomic(w, NULL, t0, win,
			(uint32_t)ev->peer, at, ev->sbytes, ev->rbytes,
			match));
	}
	if (d->family == ST_FAM_NONBLOCKING) {
		note_req(o, rank, ev, match);
		return;
	}
	if (ST_GROW(o->rp, o->nrp, o->arp)) {
		o->rc = -ENOMEM;
		return;
	}
	o->rp[o->nrp++] = (struct rma_pend){ loc, match, win };
}

static OTF2_IoSeekOption whence_of(int32_t arg)
{
	return arg == ST_SEEK_CUR ? OTF2_IO_SEEK_FROM_CURRENT :
	       arg == ST_SEEK_END ? OTF2_IO_SEEK_FROM_END :
	       OTF2_IO_SEEK_FROM_START;
}

/* A file call's events, inside its region. */
static void io_call(struct otf2 *o, OTF2_EvtWriter *w, int rank,
		    const struct st_event *ev, uint64_t t0, uint64_t t1)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t loc = LOC(rank, ev->thread), match, bytes;
	OTF2_IoOperationFlag fl = OTF2_IO_OPERATION_FLAG_NONE;
	OTF2_IoOperationMode mode;
	uint32_t h;
	size_t i;

	if (ev->fn == ST_FN_MPI_FILE_DELETE) {
		if (ev->text_len &&
		    (h = path_ref(o, ev->text, ev->text_len)) != UINT32_MAX)
			check(o, OTF2_EvtWriter_IoDeleteFile(w, NULL, t1, 0, h));
		return;
	}
	if (!ev->comm || (h = file_ref(o, ev->comm, NULL, 0)) == UINT32_MAX)
		return;
	if (ev->seq || (d->flags & ST_FNF_COLLECTIVE))
		fl |= OTF2_IO_OPERATION_FLAG_COLLECTIVE;
	switch (ev->fn) {
	case ST_FN_MPI_FILE_CLOSE:
		check(o, OTF2_EvtWriter_IoDestroyHandle(w, NULL, t1, h));
		return;
	case ST_FN_MPI_FILE_SEEK:
	case ST_FN_MPI_FILE_SEEK_SHARED:
		check(o, OTF2_EvtWriter_IoSeek(w, NULL, t1, h, ev->offset,
			whence_of(ev->arg), OTF2_UNDEFINED_UINT64));
		return;
	case ST_FN_MPI_FILE_SYNC:
		match = ++o->next_match;
		check(o, OTF2_EvtWriter_IoOperationBegin(w, NULL, t0, h,
			OTF2_IO_OPERATION_MODE_FLUSH, fl, 0, match));
		check(o, OTF2_EvtWriter_IoOperationComplete(w, NULL, t1, h, 0,
			match));
		return;
	}
	if (d->bytes != ST_BYTES_READ && d->bytes != ST_BYTES_WRITE)
		return;
	mode = d->bytes == ST_BYTES_READ ? OTF2_IO_OPERATION_MODE_READ :
	       OTF2_IO_OPERATION_MODE_WRITE;
	bytes = ev->sbytes + ev->rbytes;
	if (d->family == ST_FAM_LOCAL) {
		/* A split collective's _end: its _begin's operation. */
		for (i = 0; i < o->nsp; i++)
			if (o->sp[i].loc == loc && o->sp[i].handle == h)
				break;
		if (i == o->nsp)
			return;
		check(o, OTF2_EvtWriter_IoOperationComplete(w, NULL, t1, h,
			o->sp[i].bytes + bytes, o->sp[i].match));
		o->sp[i] = o->sp[--o->nsp];
		return;
	}
	match = ++o->next_match;
	if (d->family == ST_FAM_BLOCKING) {
		check(o, OTF2_EvtWriter_IoOperationBegin(w, NULL, t0, h, mode,
			fl, bytes, match));
		check(o, OTF2_EvtWriter_IoOperationComplete(w, NULL, t1, h,
			bytes, match));
		return;
	}
	/* Nonblocking, or a split's _begin: a read learns its size later. */
	check(o, OTF2_EvtWriter_IoOperationBegin(w, NULL, t0, h, mode,
		fl | OTF2_IO_OPERATION_FLAG_NON_BLOCKING,
		mode == OTF2_IO_OPERATION_MODE_WRITE ? ev->sbytes :
		OTF2_UNDEFINED_UINT64, match));
	check(o, OTF2_EvtWriter_IoOperationIssued(w, NULL, t1, h, match));
	if (d->family == ST_FAM_NONBLOCKING) {
		note_req(o, rank, ev, match);
		return;
	}
	if (ST_GROW(o->sp, o->nsp, o->asp)) {
		o->rc = -ENOMEM;
		return;
	}
	o->sp[o->nsp++] = (struct split){ loc, match, ev->sbytes, h };
}

/* Write the Leave of 'loc''s constructor that still waits for it. */
static void flush_ctor(struct otf2 *o, uint64_t loc)
{
	OTF2_EvtWriter *w;
	size_t i;

	for (i = 0; i < o->nct; i++) {
		if (o->ct[i].loc != loc)
			continue;
		w = OTF2_Archive_GetEvtWriter(o->ar, loc);
		if (w)
			check(o, OTF2_EvtWriter_Leave(w, NULL, o->ct[i].t1,
						      o->ct[i].fn - 1u));
		o->ct[i] = o->ct[--o->nct];
		return;
	}
}

/*
 * A window's or open file's COMM record: what its constructor made.
 * The constructor's events end here, and then its region.
 */
static void on_made(struct otf2 *o, int rank, const struct st_event *ev)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t loc = LOC(rank, ev->thread);
	OTF2_EvtWriter *w;
	uint32_t ref;
	size_t i;

	if (!d || !ev->comm)
		return;
	if (d->kind == ST_KIND_WIN) {
		if ((ref = win_ref(o, ev->comm)) == UINT32_MAX)
			return;
		o->win[ref].parent = ev->parent;
		o->win[ref].ctor = ev->fn;
	} else if (ev->fn == ST_FN_MPI_FILE_OPEN) {
		ref = file_ref(o, ev->comm, ev->text, ev->text_len);
		if (ref == UINT32_MAX)
			return;
		o->file[ref].parent = ev->parent;
	} else {
		return;
	}
	for (i = 0; i < o->nct; i++)
		if (o->ct[i].loc == loc && o->ct[i].fn == ev->fn)
			break;
	if (i == o->nct || !(w = OTF2_Archive_GetEvtWriter(o->ar, loc)))
		return;
	if (d->kind == ST_KIND_WIN) {
		check(o, OTF2_EvtWriter_RmaWinCreate(w, NULL, o->ct[i].t1,
						     ref));
		check(o, OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, o->ct[i].t1,
			allocates(ev->fn) ?
			OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE :
			OTF2_COLLECTIVE_OP_CREATE_HANDLE, SYNC_LEVEL, ref,
			OTF2_UNDEFINED_UINT32, 0, 0));
	} else {
		check(o, OTF2_EvtWriter_IoCreateHandle(w, NULL, o->ct[i].t1,
			ref, ev->arg & ST_AMODE_RDONLY ?
			OTF2_IO_ACCESS_MODE_READ_ONLY :
			ev->arg & ST_AMODE_WRONLY ?
			OTF2_IO_ACCESS_MODE_WRITE_ONLY :
			OTF2_IO_ACCESS_MODE_READ_WRITE,
			(ev->arg & ST_AMODE_CREATE ?
			 OTF2_IO_CREATION_FLAG_CREATE : 0) |
			(ev->arg & ST_AMODE_EXCL ?
			 OTF2_IO_CREATION_FLAG_EXCLUSIVE : 0),
			(ev->arg & ST_AMODE_APPEND ? OTF2_IO_STATUS_FLAG_APPEND :
			 0) | (ev->arg & ST_AMODE_DELETE_ON_CLOSE ?
			       OTF2_IO_STATUS_FLAG_DELETE_ON_CLOSE : 0)));
	}
	flush_ctor(o, loc);
}

/*
 * The events of one-sided or file call 'ev' inside its region; 1 when
 * its Leave must wait for the COMM record of what it made.
 */
static int osio_call(struct otf2 *o, OTF2_EvtWriter *w, int rank,
		     const struct st_event *ev, uint64_t t0, uint64_t t1)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);

	if (!d)
		return 0;
	if ((d->kind == ST_KIND_WIN && ev->fn != ST_FN_MPI_WIN_FREE) ||
	    ev->fn == ST_FN_MPI_FILE_OPEN) {
		if (ev->rc || ST_GROW(o->ct, o->nct, o->act))
			return 0;
		if (d->kind == ST_KIND_WIN)
			check(o, OTF2_EvtWriter_RmaCollectiveBegin(w, NULL,
								   t0));
		o->ct[o->nct++] = (struct ctor){ LOC(rank, ev->thread), t1,
						 ev->fn };
		return 1;
	}
	if (d->kind == ST_KIND_WIN || d->kind == ST_KIND_RMA) {
		if (ev->comm)
			rma_call(o, w, rank, ev, t0, t1);
	} else if (d->kind == ST_KIND_FILE || d->kind == ST_KIND_IO) {
		io_call(o, w, rank, ev, t0, t1);
	}
	return 0;
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
	flush_ctor(o, loc);
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
			o->st->colls++;
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

		/* A persistent init sends nothing: its starts do. */
		if (send && ev->peer >= 0 &&
		    d->family != ST_FAM_PERSISTENT) {
			if (d->family == ST_FAM_NONBLOCKING)
				check(o, OTF2_EvtWriter_MpiIsend(w, NULL, t0,
					(uint32_t)ev->peer, cr,
					(uint32_t)ev->tag, ev->sbytes,
					ev->req));
			else
				check(o, OTF2_EvtWriter_MpiSend(w, NULL, t0,
					(uint32_t)ev->peer, cr,
					(uint32_t)ev->tag, ev->sbytes));
			o->st->sends++;
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
		    d->family == ST_FAM_BLOCKING && ev->peer >= 0) {
			o->st->recvs++;
			check(o, OTF2_EvtWriter_MpiRecv(w, NULL, t1,
				(uint32_t)ev->peer, cr, (uint32_t)ev->tag,
				ev->rbytes));
		}
		if (d->bytes != ST_BYTES_SEND && d->bytes != ST_BYTES_RECV &&
		    ev->peer2 >= 0) {
			o->st->recvs++;
			check(o, OTF2_EvtWriter_MpiRecv(w, NULL, t1,
				(uint32_t)ev->peer2, cr, (uint32_t)ev->tag2,
				ev->rbytes));
		}
	}
	/* This call's own completions (their records came just before). */
	flush_pend(o, w, loc, t1, ev->t0, 1, 0);
	if (osio_call(o, w, rank, ev, t0, t1))
		return;
	check(o, OTF2_EvtWriter_Leave(w, NULL, t1, ev->fn - 1u));
}

/*
 * The START of a persistent point-to-point instance, on 'w' at 't': an
 * MpiIsend or MpiIrecvRequest, as its I-call's would be (none for
 * MPI_PROC_NULL or a partitioned request).  Returns 1 when written.
 */
static int p2p_start(struct otf2 *o, OTF2_EvtWriter *w,
		     const struct st_event *ev, const struct st_fn_desc *d,
		     uint64_t t)
{
	if (d->bytes == ST_BYTES_SEND && ev->peer >= 0) {
		o->st->sends++;
		check(o, OTF2_EvtWriter_MpiIsend(w, NULL, t,
			(uint32_t)ev->peer, comm_ref(o, ev->comm),
			(uint32_t)ev->tag, ev->sbytes, ev->req));
		return 1;
	}
	if (d->bytes == ST_BYTES_RECV && ev->peer != ST_RANK_PROC_NULL) {
		check(o, OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, ev->req));
		return 1;
	}
	return 0;
}

/* A START (persistent operation's instance) or DONE record. */
static void on_request(struct otf2 *o, int rank, const struct st_event *ev,
		       double g1)
{
	uint64_t key = (uint64_t)rank << 40 | ev->req, *v, init;
	struct pend *p;

	flush_ctor(o, LOC(rank, ev->thread));
	if (ev->kind == ST_REC_START) {
		OTF2_EvtWriter *w = writer(o, LOC(rank, ev->thread));
		const struct st_fn_desc *d = st_fn_desc(ev->fn);
		unsigned written = 1;

		if (!w || !d || comm_ref(o, ev->comm) == OTF2_UNDEFINED_COMM)
			return;
		/*
		 * MPI_Start's call record comes first and is written
		 * whole: the request goes at its exit.
		 */
		if (d->kind == ST_KIND_P2P)
			written = (unsigned)p2p_start(o, w, ev, d,
						      tick(o, g1));
		else
			check(o, OTF2_EvtWriter_NonBlockingCollectiveRequest(
				w, NULL, tick(o, g1), ev->req));
		if (!st_u64map_put(&o->reqs, key,
				   (uint64_t)ev->fn << 1 | written, NULL))
			o->rc = -ENOMEM;
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
	v = st_u64map_find(&o->match_of, key);
	p->match = v ? *v : 0;
	if (v)
		st_u64map_del(&o->match_of, key);
	p->init_fn = (uint16_t)(init >> 1);
	p->peer = ev->peer;
	p->tag = ev->tag;
	p->root = ev->root;
	p->comm = ev->comm;
	p->bytes = ev->rbytes;
	p->sbytes = ev->sbytes;
	p->cancelled = ev->arg == 1;
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
	else if (x->ev->kind == ST_REC_COMM)
		on_made(o, x->rank, x->ev);
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

static OTF2_RegionRole region_role(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	switch (d ? d->kind : 0) {
	case ST_KIND_COLL:
		return coll_role(fn);
	case ST_KIND_P2P:
		return OTF2_REGION_ROLE_POINT2POINT;
	case ST_KIND_WIN:
	case ST_KIND_RMA:
		return OTF2_REGION_ROLE_RMA;
	case ST_KIND_FILE:
		return OTF2_REGION_ROLE_FILE_IO_METADATA;
	case ST_KIND_IO:
		return d->bytes == ST_BYTES_READ || d->bytes == ST_BYTES_WRITE ?
		       OTF2_REGION_ROLE_FILE_IO :
		       OTF2_REGION_ROLE_FILE_IO_METADATA;
	}
	return OTF2_REGION_ROLE_FUNCTION;
}

/*
 * The Comm of a window or file: the communicator it was made on, else
 * its own group's, else none.
 */
static OTF2_CommRef scope_of(struct otf2 *o, const struct objdef *x)
{
	OTF2_CommRef c = x->parent ? comm_ref(o, x->parent) :
			 OTF2_UNDEFINED_COMM;

	return c != OTF2_UNDEFINED_COMM ? c : comm_ref(o, x->id);
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
	str_ref(&o->str, "MPI-IO");
	str_ref(&o->str, "MPI I/O");
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
		uint32_t n = str_ref(&o->str, st_fn_name(fn, nm, sizeof(nm)));

		check(o, OTF2_GlobalDefWriter_WriteRegion(g, fn - 1, n, n,
			str_ref(&o->str, "MPI"), region_role(fn),
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
	/* Windows and files, on the communicator they were made on. */
	for (i = 0; i < o->nwin; i++)
		check(o, OTF2_GlobalDefWriter_WriteRmaWin(g, (uint32_t)i,
			o->win[i].name, scope_of(o, &o->win[i]),
			OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS));
	if (!o->npath)
		return;
	check(o, OTF2_GlobalDefWriter_WriteIoParadigm(g, 0,
		str_ref(&o->str, "MPI-IO"), str_ref(&o->str, "MPI I/O"),
		OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_NONE, 0,
		NULL, NULL, NULL));
	for (i = 0; i < o->npath; i++)
		check(o, OTF2_GlobalDefWriter_WriteIoRegularFile(g,
			(uint32_t)i, o->path[i], 0));
	for (i = 0; i < o->nfile; i++)
		check(o, OTF2_GlobalDefWriter_WriteIoHandle(g, (uint32_t)i,
			o->file[i].name, o->file[i].path, 0,
			OTF2_IO_HANDLE_FLAG_NONE, scope_of(o, &o->file[i]),
			OTF2_UNDEFINED_IO_HANDLE));
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
	/* Leaves of constructors whose COMM record never came. */
	while (o.nct)
		flush_ctor(&o, o.ct[0].loc);
	/* One-sided operations never synchronised: at the end. */
	for (i = 0; i < o.nrp; i++) {
		OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(o.ar,
							       o.rp[i].loc);

		if (w)
			check(&o, OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL,
				o.max_ts, o.rp[i].win, o.rp[i].match));
	}
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
	st_u64map_release(&o.win_of);
	st_u64map_release(&o.file_of);
	st_u64map_release(&o.path_of);
	st_u64map_release(&o.match_of);
	free(o.win);
	free(o.file);
	free(o.path);
	free(o.rp);
	free(o.sp);
	free(o.ct);
	free(o.pend);
	free(o.cref);
	return otf2_fail(&o, err, errlen);
}

#endif
