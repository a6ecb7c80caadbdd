/*
 * tools/analysis/table-read.c: the samples of a cost table, from one run
 * directory (st_table_read_run, tools/analysis/table.h).
 *
 * Two passes, as in tools/analysis/imbalance.c.  The first reads each rank's file
 * alone (the ranks on as many threads at once as there are cores, what
 * each learnt merged in rank order, so that nothing depends on which
 * finished first): its header (host, MPI library, clock), its sync records (the
 * rank's global clock, tools/analysis/timeline.h), and per communicator its size,
 * whether it is an inter-communicator, this rank's rank in it and the
 * last blocking collective's sequence number; so the second pass opens
 * only instances that can complete.  The second pass walks all ranks at
 * once in global time order (tools/analysis/merge.h):
 *
 *  - A blocking collective instance is the CALL records with one
 *    (communicator, sequence number), one per member; a window's or a
 *    file's collectives (st_fn_group_coll()) are numbered on it as on a
 *    communicator.  Once all are in,
 *    its cost is last exit - last arrival, its waiting the sum over
 *    members of the time from arrival to the last arrival (or to the
 *    member's exit, if earlier), and its size d follows from the summed
 *    bytes by the byte class, and for alltoallv and alltoallw from the
 *    most one member sent or got (st_table_coll_size()).  An
 *    instance complete on a communicator ends every earlier one still
 *    open there, since each member has passed it.
 *
 *  - Point-to-point operations are queued per channel (communicator,
 *    sender, receiver, tag; ranks in the communicator) in each rank's
 *    order, sends and receives apart, and the heads of the two queues
 *    are paired as MPI's non-overtaking rule pairs them.  Nonblocking
 *    sends and receives (a persistent one at each start) take their
 *    place in the queues but give no sample; a receive posted with
 *    MPI_ANY_SOURCE or MPI_ANY_TAG by MPI_Irecv joins its queue only
 *    when its completion names the source, so a wildcard nonblocking
 *    receive among others on the same channel may be paired out of
 *    order (a pair whose receive ends before its send begins is counted
 *    as inconsistent and dropped).
 *    A blocking pair's cost is the receive's exit - the later of the two
 *    entries; its waiting the receiver's wait for a late sender.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/ops.h"
#include "tools/bench/micro-ops.h"
#include "tools/analysis/diag.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/phase.h"
#include "tools/analysis/table-map.h"
#include "tools/analysis/table.h"
#include "tools/analysis/timeline.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"

#define NONE UINT32_MAX

/* What the first pass learns of one communicator. */
struct comm_info {
	uint32_t size;		/* local group */
	int inter;
	int present;		/* ranks with records on it */
	int unsynced;		/* of them, ranks without global time */
	uint64_t min_last;	/* least last blocking seq over 'present' */
	uint64_t open;		/* instances in flight */
	uint64_t evict_from;	/* no instance below is in flight */
};

/* A collective instance in flight. */
struct inst {
	uint64_t comm, seq;
	unsigned fn;
	uint32_t size, seen;
	uint64_t sbytes, rbytes;	/* over the members */
	uint64_t smax, rmax;		/* the most one member sent, got */
	double last_arr, err_last_arr, last_exit, err_last_exit;
	int rank_last_arr, rank_last_exit;
	double (*t)[2];		/* [size]: each member's entry, exit;
				   kept with the slot when it is freed */
	uint32_t t_cap;		/* members 't' has room for */
	uint32_t next_free;
};

/* One side of a point-to-point transfer, queued on its channel. */
struct endpoint {
	double a, e, err_a, err_e;	/* global entry, exit and errors */
	uint64_t bytes;
	uint64_t seq;		/* a bench's measurement number, or 0 */
	unsigned fn;
	int blocking;
	int rank;
	int32_t tag;
	uint64_t req;		/* a nonblocking receive's request, or 0 */
	uint32_t next;
};

/*
 * A bench's burst measurement being collected (by its seq): the
 * sender's first MPI_Isend entry, the messages, and which MPI_Waitall
 * calls have been seen.
 */
struct burst {
	double first_a, err_a, recv_e, err_e, recv_wait;
	double wa, we, err_wa, err_we;	/* xbusy: the later MPI_Waitall
					   entry and exit */
	int nwait;
	uint64_t bytes;
	int k, send_rank, recv_rank, send_done, recv_done, done;
	int32_t tag;		/* ST_MICRO_TAG_BURST, _SBUSY, _RBUSY or
				   _XBUSY */
};

/* The two queues of a channel: indices into 'eps', NONE when empty. */
struct chan {
	uint32_t s_head, s_tail, r_head, r_tail;
};

/* A wildcard MPI_Irecv waiting for its completion to name its source. */
struct wild {
	uint64_t comm;
	int32_t dst;		/* this rank in 'comm' */
	double a, e, err_a, err_e;
	unsigned fn;
	uint32_t next_free;
};

struct reading {
	struct st_table *t;
	struct st_table_meta *m;
	uint32_t run;
	uint64_t first_upto;	/* a bench's first calls: seq 1 to this */
	int nranks;
	struct st_gclock **clk;	/* [nranks], NULL: no file read */

	struct st_tmap comm_of;	/* (comm) -> index in 'comms' */
	struct comm_info *comms;
	size_t ncomms, alloc_comms;
	struct comm_info *comm_last; /* the last one looked up, or NULL */
	uint64_t comm_last_id;
	struct st_tmap rank_in;	/* (comm, rank) -> rank in comm */
	struct st_tmap last_seq; /* this rank: (comm) -> last blocking seq */

	struct st_tmap inst_of;	/* (comm, seq) -> index in 'insts' */
	/* The instance found or made last, while in flight: the next
	   member's record most often comes right after.  One made last
	   goes into 'inst_of' only when another is made while it is still
	   in flight ('inst_unmapped' until then): most complete first. */
	uint64_t inst_last_comm, inst_last_seq;
	uint32_t inst_last;
	int have_inst_last, inst_unmapped;
	struct inst *insts;
	size_t ninsts, alloc_insts;
	uint32_t inst_free;

	struct st_tmap chan_of;	/* (comm, src << 32 | dst, tag) -> chan */
	struct chan *chans;
	size_t nchans, alloc_chans;
	struct endpoint *eps;
	size_t neps, alloc_eps;
	uint32_t ep_free;
	uint64_t pending;	/* endpoints queued */

	int bench;		/* a bench run: its patterns by their tags */
	struct st_tmap burst_of; /* (seq) -> index in 'bursts' */
	struct burst *bursts;
	size_t nbursts, alloc_bursts;

	struct st_tmap wild_of;	/* (rank, req) -> index in 'wilds' */
	struct st_tmap rchan_of; /* (rank, req) of a nonblocking receive
				    that names its source and tag -> its
				    channel's index, until it completes */
	struct wild *wilds;
	size_t nwilds, alloc_wilds;
	uint32_t wild_free;
};

/*
 * A sample of 'cost' ns for row (kind, fn, fn2) at (p, d): one of a
 * bench's first calls ('first') to their own statistic, any other to
 * the row with its waiting, call time and clock error.
 */
static int add_sample(struct reading *rd, int first, int kind, unsigned fn,
		      unsigned fn2, long p, double d, double cost,
		      double wait, double call, double err)
{
	if (first)
		return st_table_add_first(rd->t, kind, fn, fn2, p, d, rd->run,
					  cost);
	return st_table_add(rd->t, kind, fn, fn2, p, d, rd->run, cost, wait,
			    call, err);
}

static int grow(void **v, size_t n, size_t *alloc, size_t size)
{
	size_t a;
	void *p;

	if (n < *alloc)
		return 0;
	a = *alloc ? 2 * *alloc : 64;
	p = realloc(*v, a * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*alloc = a;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static struct comm_info *comm_get(struct reading *rd, uint64_t id,
				  int create)
{
	uint64_t *slot;
	int added;

	if (rd->comm_last && rd->comm_last_id == id)
		return rd->comm_last;
	slot = st_tmap_get(&rd->comm_of, id, 0, 0);
	if (slot) {
		rd->comm_last = &rd->comms[*slot];
		rd->comm_last_id = id;
		return rd->comm_last;
	}
	if (!create)
		return NULL;
	/* 'comms' may move. */
	rd->comm_last = NULL;
	if (grow((void **)&rd->comms, rd->ncomms, &rd->alloc_comms,
		 sizeof(*rd->comms)) ||
	    st_tmap_put(&rd->comm_of, id, 0, 0, rd->ncomms, &slot, &added))
		return NULL;
	memset(&rd->comms[rd->ncomms], 0, sizeof(rd->comms[0]));
	rd->comms[rd->ncomms].min_last = UINT64_MAX;
	return &rd->comms[rd->ncomms++];
}

static const struct st_fn_desc *desc_of(const struct st_event *ev)
{
	return st_fn_desc(ev->fn);
}

/* A blocking collective, over a communicator, window or file. */
static int is_blocking_coll(const struct st_event *ev)
{
	return ev->kind == ST_REC_CALL && ev->comm && ev->seq &&
	       st_fn_group_coll(ev->fn) != ST_GC_NONE;
}

/*
 * A point-to-point call that sends or receives, or the START of a
 * persistent one: its byte class, or 0.  A persistent init moves
 * nothing: each of its starts does.
 */
static int p2p_class(const struct st_event *ev)
{
	const struct st_fn_desc *d = desc_of(ev);

	if ((ev->kind != ST_REC_CALL && ev->kind != ST_REC_START) ||
	    !ev->comm || !d || d->kind != ST_KIND_P2P ||
	    (ev->kind == ST_REC_START) != (d->family == ST_FAM_PERSISTENT))
		return 0;
	switch (d->bytes) {
	case ST_BYTES_SEND:
	case ST_BYTES_RECV:
	case ST_BYTES_SENDRECV:
	case ST_BYTES_SENDRECV_REPLACE:
		return d->bytes;
	}
	return 0;
}

static int note_host(struct st_table_meta *m, const char *host)
{
	size_t i;
	char **h;

	if (!host)
		return 0;
	for (i = 0; i < m->nhosts; i++)
		if (!strcmp(m->hosts[i], host))
			return 0;
	h = realloc(m->hosts, (m->nhosts + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	m->hosts = h;
	if (!(h[m->nhosts] = strdup(host)))
		return -ENOMEM;
	m->nhosts++;
	return 0;
}

/* The header of one rank's file, into the metadata. */
static int note_header(struct reading *rd, struct st_table_run *run,
		       struct st_reader *r)
{
	struct st_table_meta *m = rd->m;
	const char *lib = st_reader_get(r, "mpi_library");
	const char *clock = st_reader_get(r, "clock");
	const char *res = st_reader_get(r, "clock_res_ns");
	const char *v;

	if (note_host(m, st_reader_get(r, "host")))
		return -ENOMEM;
	if (lib && !m->mpi_library) {
		if (!(m->mpi_library = strdup(lib)))
			return -ENOMEM;
	} else if (lib && strcmp(lib, m->mpi_library)) {
		m->mpi_differs = 1;
	}
	if (clock && !m->clock && !(m->clock = strdup(clock)))
		return -ENOMEM;
	if (res) {
		double x = strtod(res, NULL);

		if (x > 0 && !(x <= m->clock_res_ns))
			m->clock_res_ns = x;
	}
	if ((v = st_reader_get(r, "bench")) && !strcmp(v, "1"))
		run->bench = 1;
	if ((v = st_reader_get(r, "first_calls")))
		run->first_calls = strtol(v, NULL, 10);
	if (!run->run_id && (v = st_reader_get(r, "run_id")) &&
	    !(run->run_id = strdup(v)))
		return -ENOMEM;
	return 0;
}

/*
 * The first pass reads the ranks' files on threads of their own (as many
 * at once as there are cores), each into a struct rank_scan, and merges
 * what each learnt into the reading in rank order: the result, the
 * communicators' order and the warnings are those of reading the ranks
 * one after the other.
 */

/* What one rank's file says of one communicator. */
struct rcomm {
	uint64_t id;
	uint64_t last_seq;	/* its last blocking collective's, or 0 */
	int inter;
	uint32_t comm_size;	/* the last COMM record's size, 0: none */
	uint32_t coll_size;	/* the first collective's size, 0: none */
	int has_rank;		/* a COMM record gave this rank's rank */
	uint32_t rank_in;
};

struct rank_scan {
	int rank;
	const char *path;
	struct st_phase_sel sel;
	struct st_reader *r;	/* open, for its header; NULL: not read */
	struct st_gclock *clk;
	int rc;			/* 0, -ENOMEM, or -1: damaged (warned) */
	struct st_tmap seen;	/* (comm) -> index in 'cs' */
	struct rcomm *cs;	/* in the order the file first names them */
	size_t ncs, alloc_cs;
	uint64_t opened;	/* phases opened */
	struct st_msgs warn;	/* its warnings */
	int warn_oom;
};

static _Thread_local struct rank_scan *scanning;

static void keep_warning(const char *msg)
{
	if (st_msgs_add(&scanning->warn, msg))
		scanning->warn_oom = 1;
}

static struct rcomm *rcomm_get(struct rank_scan *x, uint64_t id)
{
	uint64_t *slot;
	int added;

	if (st_tmap_put(&x->seen, id, 0, 0, x->ncs, &slot, &added))
		return NULL;
	if (!added)
		return &x->cs[*slot];
	if (grow((void **)&x->cs, x->ncs, &x->alloc_cs, sizeof(*x->cs))) {
		st_tmap_del(&x->seen, id, 0, 0);
		return NULL;
	}
	memset(&x->cs[x->ncs], 0, sizeof(x->cs[0]));
	x->cs[x->ncs].id = id;
	return &x->cs[x->ncs++];
}

/* First pass over one rank's file: decode it into 'x'.  Warnings go to
 * 'x' (the caller's thread gives them in rank order). */
static void *scan_decode(void *arg)
{
	struct rank_scan *x = arg;
	struct st_phase_tracker trk = { .sel = x->sel };
	struct st_reader *r;
	struct st_event ev;
	struct rcomm *c = NULL;
	uint64_t last_comm = 0;
	char err[512];
	int rc, nbad = 0, rank = x->rank;

	scanning = x;
	st_diag_set_warn(keep_warning);
	rc = st_fn_reader_open(&r, x->path, err, sizeof(err));
	if (rc == -ENOMEM) {
		x->rc = -ENOMEM;
		goto done;
	}
	if (rc) {
		st_warn("%s", *err ? err : strerror(rc < 0 ? -rc : rc));
		x->rc = -1;
		goto done;
	}
	x->r = r;
	if (st_gclock_new(&x->clk, rank)) {
		x->rc = -ENOMEM;
		goto done;
	}
	while ((rc = st_reader_next(r, &ev)) > 0) {
		int in;

		if ((in = st_phase_track(&trk, rank, &ev)) < 0) {
			x->rc = -ENOMEM;
			goto done;
		}
		if (!in && (ev.kind == ST_REC_CALL ||
			    ev.kind == ST_REC_START || ev.kind == ST_REC_DONE))
			continue;

		if (ev.kind == ST_REC_SYNC) {
			int bad = st_gclock_add_event(x->clk, &ev, NULL);

			if (bad == -ENOMEM) {
				x->rc = -ENOMEM;
				goto done;
			}
			if (bad && !nbad++)
				st_warn("'%s': a sync record is not usable "
					"(%s): ignored", x->path,
					bad == -EBADMSG ? "not a valid sync "
					"record" : "out of order");
			continue;
		}
		if (!ev.comm || (ev.kind != ST_REC_CALL &&
				 ev.kind != ST_REC_START &&
				 ev.kind != ST_REC_DONE &&
				 ev.kind != ST_REC_COMM))
			continue;
		/* 'cs' moves only when a communicator is added. */
		if (!c || last_comm != ev.comm) {
			if (!(c = rcomm_get(x, ev.comm))) {
				x->rc = -ENOMEM;
				goto done;
			}
			last_comm = ev.comm;
		}
		if (ev.kind == ST_REC_COMM) {
			if (ev.remote_size)
				c->inter = 1;
			if (ev.comm_size)
				c->comm_size = ev.comm_size;
			c->has_rank = 1;
			c->rank_in = (uint32_t)ev.rank;
		}
		if (is_blocking_coll(&ev)) {
			if (ev.comm_size && !c->coll_size)
				c->coll_size = ev.comm_size;
			if (ev.root == ST_RANK_ROOT ||
			    ev.root == ST_RANK_PROC_NULL)
				c->inter = 1;
			if (ev.seq > c->last_seq)
				c->last_seq = ev.seq;
		}
	}
	if (rc < 0) {
		const char *msg = st_reader_error(r);

		st_warn("%s; the table uses what came before",
			*msg ? msg : strerror(rc < 0 ? -rc : rc));
		x->rc = -1;
	} else if (st_reader_truncated(r)) {
		st_warn("'%s' is truncated (its writer was killed, or its "
			"disk was full?): the table uses what it holds",
			x->path);
	}
done:
	x->opened = trk.opened;
	st_phase_tracker_release(&trk);
	st_diag_set_warn(NULL);
	scanning = NULL;
	return NULL;
}

/*
 * What rank scan 'x' learnt, into the reading, as the rank's own first
 * pass would have put it.  Returns 0 or -ENOMEM.
 */
static int scan_merge(struct reading *rd, struct st_table_run *run,
		      struct rank_scan *x)
{
	const char *w = x->warn.text;
	size_t i;
	int rc, synced;

	if (x->warn_oom)
		return -ENOMEM;
	if (!x->r) {
		/* Not opened: its warning, and no clock. */
		for (i = 0; i < x->warn.n; i++, w += strlen(w) + 1)
			st_warn("%s", w);
		if (x->rc == -ENOMEM)
			return -ENOMEM;
		rd->m->ranks_failed++;
		return 0;
	}
	if (!x->clk)
		return -ENOMEM;
	rd->clk[x->rank] = x->clk;
	x->clk = NULL;
	run->nread++;
	if ((rc = note_header(rd, run, x->r)))
		return rc;
	for (i = 0; i < x->ncs; i++) {
		const struct rcomm *rc_ = &x->cs[i];
		struct comm_info *c = comm_get(rd, rc_->id, 1);
		uint64_t *rs;

		if (!c)
			return -ENOMEM;
		if (rc_->inter)
			c->inter = 1;
		/* A COMM record's size wins; else a collective's, when
		   none was known. */
		if (rc_->comm_size)
			c->size = rc_->comm_size;
		else if (rc_->coll_size && !c->size)
			c->size = rc_->coll_size;
		if (rc_->has_rank) {
			if (st_tmap_put(&rd->rank_in, rc_->id,
					(uint64_t)x->rank, 0, 0, &rs, NULL))
				return -ENOMEM;
			*rs = rc_->rank_in;
		}
	}
	for (i = 0; i < x->warn.n; i++, w += strlen(w) + 1)
		st_warn("%s", w);
	if (x->rc == -ENOMEM)
		return -ENOMEM;
	if (x->rc)
		rd->m->ranks_failed++;
	synced = st_gclock_epochs(rd->clk[x->rank]) > 0;
	if (synced) {
		int method = st_gclock_method(rd->clk[x->rank]);

		run->nsynced++;
		if (rd->m->sync_method < 0)
			rd->m->sync_method = method;
		else if (method != rd->m->sync_method)
			rd->m->sync_differs = 1;
	}
	for (i = 0; i < x->ncs; i++) {
		struct comm_info *c = comm_get(rd, x->cs[i].id, 0);

		if (!c)
			continue;
		c->present++;
		if (!synced)
			c->unsynced++;
		if (x->cs[i].last_seq < c->min_last)
			c->min_last = x->cs[i].last_seq;
	}
	rd->m->phases += x->opened;
	return 0;
}

static void scan_release(struct rank_scan *x)
{
	st_reader_close(x->r);
	st_gclock_free(x->clk);
	st_tmap_release(&x->seen);
	free(x->cs);
	free(x->warn.text);
	memset(x, 0, sizeof(*x));
}

/*
 * The first pass over the ranks 'path[0..n)' of the run (NULL: missing),
 * 'k' at a time on threads of their own (1: on this one).  Returns 0 or
 * -ENOMEM.
 */
static int scan_ranks(struct reading *rd, struct st_table_run *run,
		      const char **path, int n, int k)
{
	struct rank_scan *x = calloc((size_t)k, sizeof(*x));
	pthread_t *th = calloc((size_t)k, sizeof(*th));
	char *started = calloc((size_t)k, 1);
	int lo = 0, i, r, rc = 0;

	if (!x || !th || !started) {
		rc = -ENOMEM;
		goto out;
	}
	while (lo < n && !rc) {
		int m = 0;

		for (r = lo; r < n && m < k; r++) {
			if (!path[r])
				continue;
			x[m].rank = r;
			x[m].path = path[r];
			x[m].sel = rd->m->phase;
			started[m] = k > 1 &&
				     !pthread_create(&th[m], NULL,
						     scan_decode, &x[m]);
			m++;
		}
		lo = r;
		for (i = 0; i < m; i++) {
			if (started[i])
				pthread_join(th[i], NULL);
			else
				scan_decode(&x[i]);
			started[i] = 0;
		}
		for (i = 0; i < m; i++) {
			if (!rc)
				rc = scan_merge(rd, run, &x[i]);
			scan_release(&x[i]);
		}
	}
out:
	free(x);
	free(th);
	free(started);
	return rc;
}

/* --- Collectives ------------------------------------------------------ */

static void inst_drop(struct reading *rd, struct inst *in)
{
	uint32_t i = (uint32_t)(in - rd->insts);

	if (rd->have_inst_last && rd->inst_last == i) {
		rd->have_inst_last = 0;
		if (rd->inst_unmapped) {
			rd->inst_unmapped = 0;
			goto unmapped;
		}
	}
	st_tmap_del(&rd->inst_of, in->comm, in->seq, 0);
unmapped:
	in->next_free = rd->inst_free;
	rd->inst_free = i;
}

static struct inst *inst_new(struct reading *rd, uint64_t comm, uint64_t seq,
			     uint32_t size)
{
	double (*t)[2] = NULL;
	struct inst *in;
	uint32_t i, cap = 0;
	int reused = rd->inst_free != NONE;

	if (reused) {
		i = rd->inst_free;
		rd->inst_free = rd->insts[i].next_free;
	} else {
		if (grow((void **)&rd->insts, rd->ninsts, &rd->alloc_insts,
			 sizeof(*rd->insts)))
			return NULL;
		i = (uint32_t)rd->ninsts++;
	}
	in = &rd->insts[i];
	if (reused) {
		t = in->t;
		cap = in->t_cap;
	}
	memset(in, 0, sizeof(*in));
	in->t = t;
	in->t_cap = cap;
	if (cap < size) {
		free(in->t);
		in->t_cap = 0;
		if ((in->t = malloc(size * sizeof(*in->t))))
			in->t_cap = size;
	}
	if (!in->t) {
		in->next_free = rd->inst_free;
		rd->inst_free = i;
		return NULL;
	}
	in->comm = comm;
	in->seq = seq;
	in->size = size;
	return in;
}

/* The in-flight instance made last, not in 'inst_of' yet, goes in. */
static int inst_map_last(struct reading *rd)
{
	uint64_t *slot;

	if (!rd->have_inst_last || !rd->inst_unmapped)
		return 0;
	if (st_tmap_put(&rd->inst_of, rd->inst_last_comm, rd->inst_last_seq,
			0, rd->inst_last, &slot, NULL))
		return -ENOMEM;
	rd->inst_unmapped = 0;
	return 0;
}

/* The instance (comm, seq) in flight, or NULL. */
static struct inst *inst_find(struct reading *rd, uint64_t comm,
			      uint64_t seq)
{
	uint64_t *slot;

	if (rd->have_inst_last && rd->inst_last_comm == comm &&
	    rd->inst_last_seq == seq)
		return &rd->insts[rd->inst_last];
	slot = st_tmap_get(&rd->inst_of, comm, seq, 0);
	return slot ? &rd->insts[*slot] : NULL;
}

static int inst_complete(struct reading *rd, struct inst *in)
{
	const struct st_fn_desc *desc = st_fn_desc(in->fn);
	double cost = in->last_exit - in->last_arr, wait = 0, call = 0, err;
	double d;
	uint32_t i;

	for (i = 0; i < in->seen; i++) {
		double a = in->t[i][0], e = in->t[i][1];
		double until = e < in->last_arr ? e : in->last_arr;

		if (until > a)
			wait += until - a;
		if (e > a)
			call += e - a;
	}
	/* One rank's entry and exit are on one clock: no sync error. */
	err = in->rank_last_arr == in->rank_last_exit ? 0 :
	      in->err_last_arr + in->err_last_exit;
	if (!desc || st_table_coll_size(desc->bytes, (long)in->size,
					in->sbytes, in->rbytes, in->smax,
					in->rmax, &d))
		return 0;
	return add_sample(rd, in->seq <= rd->first_upto, ST_TABLE_COLL,
			  in->fn, 0, (long)in->size, d, cost, wait, call, err);
}

/* Instance (comm, seq) completed: any open one below never will. */
static void evict_before(struct reading *rd, struct comm_info *c,
			 uint64_t comm, uint64_t seq)
{
	struct inst *in;
	uint64_t s;

	for (s = c->evict_from; c->open && s < seq; s++) {
		if (!(in = inst_find(rd, comm, s)))
			continue;
		c->open--;
		rd->m->incomplete++;
		inst_drop(rd, in);
	}
	if (seq + 1 > c->evict_from)
		c->evict_from = seq + 1;
}

static int on_coll(struct reading *rd, int rank, const struct st_event *ev,
		   double g0, double g1)
{
	const struct st_gclock *clk = rd->clk[rank];
	struct comm_info *c = comm_get(rd, ev->comm, 0);
	double e0, e1;
	struct inst *in;
	int rc;

	if (c && c->inter) {
		rd->m->calls_inter++;
		return 0;
	}
	if (!c || !c->size || c->present < (int)c->size ||
	    ev->seq > c->min_last) {
		rd->m->calls_missing++;
		return 0;
	}
	if (c->unsynced || isnan(g0) || isnan(g1)) {
		rd->m->calls_unsynced++;
		return 0;
	}
	e0 = st_gclock_err(clk, ev->t0);
	e1 = st_gclock_err(clk, ev->t1);
	in = inst_find(rd, ev->comm, ev->seq);
	if (!in) {
		if (inst_map_last(rd) ||
		    !(in = inst_new(rd, ev->comm, ev->seq, c->size)))
			return -ENOMEM;
		rd->inst_last_comm = ev->comm;
		rd->inst_last_seq = ev->seq;
		rd->inst_last = (uint32_t)(in - rd->insts);
		rd->have_inst_last = 1;
		rd->inst_unmapped = 1;
		c->open++;
		in->fn = ev->fn;
		in->last_arr = g0;
		in->err_last_arr = e0;
		in->rank_last_arr = rank;
		in->last_exit = g1;
		in->err_last_exit = e1;
		in->rank_last_exit = rank;
	}
	if (g0 > in->last_arr) {
		in->last_arr = g0;
		in->err_last_arr = e0;
		in->rank_last_arr = rank;
	}
	if (g1 > in->last_exit) {
		in->last_exit = g1;
		in->err_last_exit = e1;
		in->rank_last_exit = rank;
	}
	in->sbytes += ev->sbytes;
	in->rbytes += ev->rbytes;
	if (ev->sbytes > in->smax)
		in->smax = ev->sbytes;
	if (ev->rbytes > in->rmax)
		in->rmax = ev->rbytes;
	in->t[in->seen][0] = g0;
	in->t[in->seen][1] = g1;
	if (++in->seen < in->size)
		return 0;
	rc = inst_complete(rd, in);
	c->open--;
	inst_drop(rd, in);
	evict_before(rd, c, ev->comm, ev->seq);
	return rc;
}

/* --- Point-to-point --------------------------------------------------- */

static uint32_t ep_new(struct reading *rd)
{
	uint32_t i;

	if (rd->ep_free != NONE) {
		i = rd->ep_free;
		rd->ep_free = rd->eps[i].next;
		return i;
	}
	if (grow((void **)&rd->eps, rd->neps, &rd->alloc_eps,
		 sizeof(*rd->eps)))
		return NONE;
	return (uint32_t)rd->neps++;
}

static void ep_free(struct reading *rd, uint32_t i)
{
	rd->eps[i].next = rd->ep_free;
	rd->ep_free = i;
	rd->pending--;
}

static uint32_t pop(struct reading *rd, uint32_t *head, uint32_t *tail)
{
	uint32_t i = *head;

	*head = rd->eps[i].next;
	if (*head == NONE)
		*tail = NONE;
	return i;
}

/*
 * A bench's 'late' pair: the receive was posted long after the send.  A
 * send that ended before the receive began did not wait for it (eager):
 * its own duration; one that did (rendezvous): from the receive's entry
 * to its exit.  The receive: its own duration.
 */
static int late_pair(struct reading *rd, const struct endpoint *s,
		     const struct endpoint *r)
{
	int first = s->seq && s->seq <= rd->first_upto, rc;
	double err = s->rank == r->rank ? 0 : s->err_e + r->err_a;
	int kind = s->e < r->a ? ST_TABLE_SEND_EAGER : ST_TABLE_SEND_RNDV;
	double cost = kind == ST_TABLE_SEND_EAGER ? s->e - s->a : s->e - r->a;

	if (first) {
		rc = st_table_add_first(rd->t, kind, s->fn, 0, 2,
					(double)s->bytes, rd->run, cost);
		return rc ? rc : st_table_add_first(rd->t, ST_TABLE_RECV_LATE,
						    r->fn, 0, 2,
						    (double)r->bytes, rd->run,
						    r->e - r->a);
	}
	rc = st_table_add(rd->t, kind, s->fn, 0, 2, (double)s->bytes,
			  rd->run, cost, 0, s->e - s->a,
			  kind == ST_TABLE_SEND_EAGER ? 0 : err);
	return rc ? rc : st_table_add(rd->t, ST_TABLE_RECV_LATE, r->fn, 0, 2,
				      (double)r->bytes, rd->run, r->e - r->a,
				      0, r->e - r->a, 0);
}

/* Pair send 's' with receive 'r' and add the sample, if both block. */
static int pair(struct reading *rd, const struct endpoint *s,
		const struct endpoint *r)
{
	double later, err, cost, wait;

	/* A copy inside one process: no transfer between two. */
	if (s->rank == r->rank) {
		rd->m->p2p_self++;
		return 0;
	}
	if (!s->blocking || !r->blocking) {
		rd->m->p2p_nonblocking++;
		return 0;
	}
	if (rd->bench && s->tag == ST_MICRO_TAG_LATE)
		return late_pair(rd, s, r);
	if (s->a > r->a) {
		later = s->a;
		err = s->rank == r->rank ? 0 : s->err_a + r->err_e;
	} else {
		/* From the receive's entry to its exit: one clock. */
		later = r->a;
		err = 0;
	}
	cost = r->e - later;
	if (cost < 0 && !(cost >= -err)) {
		rd->m->p2p_inconsistent++;
		return 0;
	}
	wait = (r->e < later ? r->e : later) - r->a;
	return add_sample(rd, s->seq && s->seq <= rd->first_upto,
			  ST_TABLE_P2P, s->fn, r->fn, 2, (double)r->bytes,
			  cost, wait, r->e - r->a, err);
}

/*
 * Queue one side on channel (comm, src, dst, tag) and pair the heads.
 * 'send' says which side; 'ep' is copied.
 */
static int enqueue(struct reading *rd, uint64_t comm, int32_t src,
		   int32_t dst, int32_t tag, int send,
		   const struct endpoint *ep)
{
	uint64_t *slot, *rslot;
	struct chan *ch;
	uint32_t i, si, ri;
	int added, rc;

	if (st_tmap_put(&rd->chan_of, comm,
			(uint64_t)(uint32_t)src << 32 | (uint32_t)dst,
			(uint32_t)tag, rd->nchans, &slot, &added))
		return -ENOMEM;
	if (added) {
		if (grow((void **)&rd->chans, rd->nchans, &rd->alloc_chans,
			 sizeof(*rd->chans)))
			return -ENOMEM;
		rd->chans[rd->nchans].s_head = rd->chans[rd->nchans].s_tail =
			NONE;
		rd->chans[rd->nchans].r_head = rd->chans[rd->nchans].r_tail =
			NONE;
		rd->nchans++;
	}
	ch = &rd->chans[*slot];
	if (!send && !ep->blocking && ep->req &&
	    (rslot = st_tmap_get(&rd->rchan_of, (uint64_t)ep->rank, ep->req,
				 0)))
		*rslot = *slot;
	if ((i = ep_new(rd)) == NONE)
		return -ENOMEM;
	rd->eps[i] = *ep;
	rd->eps[i].next = NONE;
	rd->pending++;
	if (send) {
		if (ch->s_tail != NONE)
			rd->eps[ch->s_tail].next = i;
		else
			ch->s_head = i;
		ch->s_tail = i;
	} else {
		if (ch->r_tail != NONE)
			rd->eps[ch->r_tail].next = i;
		else
			ch->r_head = i;
		ch->r_tail = i;
	}
	if (ch->s_head == NONE || ch->r_head == NONE)
		return 0;
	si = pop(rd, &ch->s_head, &ch->s_tail);
	ri = pop(rd, &ch->r_head, &ch->r_tail);
	rc = pair(rd, &rd->eps[si], &rd->eps[ri]);
	ep_free(rd, si);
	ep_free(rd, ri);
	return rc;
}

static int real_peer(int32_t peer)
{
	return peer >= 0;
}

/* The burst measurement 'seq' of a bench run, created when 'create'. */
static struct burst *burst_get(struct reading *rd, uint64_t seq, int create)
{
	uint64_t *slot = st_tmap_get(&rd->burst_of, seq, 0, 0);
	struct burst *b;

	if (slot || !create)
		return slot ? &rd->bursts[*slot] : NULL;
	if (grow((void **)&rd->bursts, rd->nbursts, &rd->alloc_bursts,
		 sizeof(*rd->bursts)) ||
	    st_tmap_put(&rd->burst_of, seq, 0, 0, rd->nbursts, &slot, NULL))
		return NULL;
	b = &rd->bursts[rd->nbursts++];
	memset(b, 0, sizeof(*b));
	b->first_a = INFINITY;
	b->send_rank = b->recv_rank = -1;
	return b;
}

/*
 * The sample of a bench's busy-side measurement 'b' (sbusy, rbusy: a
 * burst of one whose sender or receiver computes between its I-call and
 * its MPI_Wait), made when both MPI_Wait are in: sbusy from the
 * MPI_Isend's entry to the receiver's MPI_Wait exit, rbusy the
 * receiver's MPI_Wait (one clock).
 */
static int on_busy(struct reading *rd, const struct burst *b, uint64_t seq)
{
	int snd = b->tag == ST_MICRO_TAG_SBUSY;
	int kind = snd ? ST_TABLE_SND_BUSY : ST_TABLE_RCV_BUSY;
	double cost = snd ? b->recv_e - b->first_a : b->recv_wait;
	double err = snd && b->send_rank != b->recv_rank ?
		     b->err_a + b->err_e : 0;

	return add_sample(rd, seq <= rd->first_upto, kind, ST_FN_MPI_ISEND,
			  ST_FN_MPI_IRECV, 2, (double)b->bytes, cost, 0, cost,
			  err);
}

/*
 * The MPI_Waitall of rank 'rank' in a bench's xbusy measurement 'b' (a
 * message each way, both ranks computing before their MPI_Waitall; K
 * each way, xbusyK: b->k counts one rank's MPI_Isend): once both are
 * in, the sample from the later entry to the later exit, an
 * "xchg-busy" one (p = 2) or for K >= 2 an "xchg-burst" one (p = K).
 */
static int on_xbusy(struct reading *rd, struct burst *b, int rank,
		    const struct st_event *ev, double g0, double g1)
{
	const struct st_gclock *clk = rd->clk[rank];
	double cost;

	if (!b->nwait || g0 > b->wa) {
		b->wa = g0;
		b->err_wa = st_gclock_err(clk, ev->t0);
	}
	if (!b->nwait || g1 > b->we) {
		b->we = g1;
		b->err_we = st_gclock_err(clk, ev->t1);
	}
	if (++b->nwait < 2)
		return 0;
	b->done = 1;
	cost = b->we - b->wa;
	return add_sample(rd, ev->seq <= rd->first_upto,
			  b->k > 1 ? ST_TABLE_XCHG_BURST : ST_TABLE_XCHG_BUSY,
			  ST_FN_MPI_ISEND, ST_FN_MPI_IRECV,
			  b->k > 1 ? b->k : 2, (double)b->bytes, cost, 0,
			  cost, b->err_wa + b->err_we);
}

/*
 * A record of a bench's burst: an MPI_Isend or MPI_Irecv with its tag,
 * or an MPI_Waitall of a measurement that has them.  Once both ranks'
 * MPI_Waitall are in, the sample: from the first MPI_Isend's entry to
 * the receiver's MPI_Waitall exit, p = the messages.  The records come
 * in global entry order, so the receiver's MPI_Waitall (its receives
 * are posted first) may come before the sender's first MPI_Isend: when
 * the receiver is early, or its global clock runs behind the sender's
 * (a residual offset of microseconds over TCP).  It is kept all the
 * same; the sample is made by whichever MPI_Waitall comes last.  The
 * slots of finished measurements are not reused (a bench run holds a
 * few thousand), and are freed with the reading.
 */
static int on_burst(struct reading *rd, int rank, const struct st_event *ev,
		    double g0, double g1)
{
	const struct st_gclock *clk = rd->clk[rank];
	struct burst *b;
	double cost;

	if (ev->fn == ST_FN_MPI_WAITALL || ev->fn == ST_FN_MPI_WAIT) {
		b = burst_get(rd, ev->seq, 0);
		if (!b || b->done)
			return 0;
		if (b->tag == ST_MICRO_TAG_XBUSY)
			return on_xbusy(rd, b, rank, ev, g0, g1);
		if (rank == b->recv_rank) {
			b->recv_e = g1;
			b->err_e = st_gclock_err(clk, ev->t1);
			b->recv_wait = g1 - g0;
			b->recv_done = 1;
		} else if (rank == b->send_rank) {
			b->send_done = 1;
		}
		if (!b->recv_done || !b->send_done || b->k <= 0)
			return 0;
		b->done = 1;
		if (b->tag != ST_MICRO_TAG_BURST)
			return on_busy(rd, b, ev->seq);
		cost = b->recv_e - b->first_a;
		return add_sample(rd, ev->seq <= rd->first_upto,
				  ST_TABLE_BURST, ST_FN_MPI_ISEND,
				  ST_FN_MPI_IRECV, b->k, (double)b->bytes, cost,
				  0, cost, b->send_rank == b->recv_rank ? 0 :
				  b->err_a + b->err_e);
	}
	if (!(b = burst_get(rd, ev->seq, 1)))
		return -ENOMEM;
	if (b->done)
		return 0;
	b->tag = ev->tag;
	if (b->tag == ST_MICRO_TAG_XBUSY) {
		/* K: the sends of the first rank seen (every pair of
		   ranks makes the measurement with the same seq). */
		if (ev->fn == ST_FN_MPI_ISEND) {
			if (!b->k)
				b->send_rank = rank;
			b->bytes = ev->sbytes;
			b->k += rank == b->send_rank;
		}
		return 0;
	}
	if (ev->fn == ST_FN_MPI_IRECV) {
		b->recv_rank = rank;
		return 0;
	}
	b->send_rank = rank;
	b->k++;
	b->bytes = ev->sbytes;
	if (g0 < b->first_a) {
		b->first_a = g0;
		b->err_a = st_gclock_err(clk, ev->t0);
	}
	return 0;
}

static int on_p2p(struct reading *rd, int rank, const struct st_event *ev,
		  int cls, double g0, double g1)
{
	const struct st_fn_desc *desc = desc_of(ev);
	const struct st_gclock *clk = rd->clk[rank];
	struct comm_info *c = comm_get(rd, ev->comm, 0);
	struct endpoint ep;
	uint64_t *me_slot, *rslot;
	int32_t me;
	int rc, busy;

	if (ev->rc)
		return 0;
	if (c && c->inter) {
		rd->m->calls_inter++;
		return 0;
	}
	if ((c && c->unsynced) || isnan(g0) || isnan(g1)) {
		rd->m->p2p_unsynced++;
		return 0;
	}
	me_slot = st_tmap_get(&rd->rank_in, ev->comm, (uint64_t)rank, 0);
	if (!me_slot) {
		rd->m->p2p_unmatched++;
		return 0;
	}
	me = (int32_t)(uint32_t)*me_slot;
	memset(&ep, 0, sizeof(ep));
	ep.a = g0;
	ep.e = g1;
	ep.seq = ev->seq;
	ep.err_a = st_gclock_err(clk, ev->t0);
	ep.err_e = st_gclock_err(clk, ev->t1);
	ep.fn = ev->fn;
	ep.blocking = desc->family == ST_FAM_BLOCKING;
	ep.rank = rank;
	ep.tag = ev->tag;
	ep.req = ev->req;

	busy = rd->bench && (ev->tag == ST_MICRO_TAG_SBUSY ||
			     ev->tag == ST_MICRO_TAG_RBUSY ||
			     ev->tag == ST_MICRO_TAG_XBUSY);
	if (rd->bench && (ev->tag == ST_MICRO_TAG_BURST || busy) && ev->seq &&
	    (ev->fn == ST_FN_MPI_ISEND || ev->fn == ST_FN_MPI_IRECV) &&
	    (rc = on_burst(rd, rank, ev, g0, g1)))
		return rc;
	/* The busy patterns' sends leave the call row to the others. */
	if (cls == ST_BYTES_SEND && desc->family == ST_FAM_NONBLOCKING &&
	    real_peer(ev->peer) && ev->peer != me && !busy) {
		/* What starting the send cost: one clock. */
		rc = add_sample(rd, ev->seq && ev->seq <= rd->first_upto,
				ST_TABLE_CALL, ev->fn, 0, 2,
				(double)ev->sbytes, g1 - g0, 0, g1 - g0, 0);
		if (rc)
			return rc;
	}
	if (cls == ST_BYTES_SEND || cls == ST_BYTES_SENDRECV ||
	    cls == ST_BYTES_SENDRECV_REPLACE) {
		if (real_peer(ev->peer)) {
			ep.bytes = ev->sbytes;
			rc = enqueue(rd, ev->comm, me, ev->peer, ev->tag, 1,
				     &ep);
			if (rc)
				return rc;
		}
	}
	if (cls == ST_BYTES_RECV) {
		if (ev->peer == ST_RANK_PROC_NULL)
			return 0;
		if (!ep.blocking &&
		    (ev->peer == ST_RANK_ANY || ev->tag == ST_TAG_ANY)) {
			struct wild *w;
			uint64_t *slot;
			uint32_t wi;

			if (!ev->req)
				return 0;
			if (rd->wild_free != NONE) {
				wi = rd->wild_free;
				rd->wild_free = rd->wilds[wi].next_free;
			} else if (grow((void **)&rd->wilds, rd->nwilds,
					&rd->alloc_wilds,
					sizeof(*rd->wilds))) {
				return -ENOMEM;
			} else {
				wi = (uint32_t)rd->nwilds++;
			}
			if (st_tmap_put(&rd->wild_of, (uint64_t)rank, ev->req,
					0, wi, &slot, NULL))
				return -ENOMEM;
			w = &rd->wilds[wi];
			w->comm = ev->comm;
			w->dst = me;
			w->a = ep.a;
			w->e = ep.e;
			w->err_a = ep.err_a;
			w->err_e = ep.err_e;
			w->fn = ev->fn;
			return 0;
		}
		if (!real_peer(ev->peer) || ev->tag < 0) {
			rd->m->p2p_unmatched++;
			return 0;
		}
		ep.bytes = ev->rbytes;
		if (!ep.blocking && ev->req &&
		    st_tmap_put(&rd->rchan_of, (uint64_t)rank, ev->req, 0,
				0, &rslot, NULL))
			return -ENOMEM;
		return enqueue(rd, ev->comm, ev->peer, me, ev->tag, 0, &ep);
	}
	if (cls == ST_BYTES_SENDRECV || cls == ST_BYTES_SENDRECV_REPLACE) {
		if (ev->peer2 == ST_RANK_PROC_NULL)
			return 0;
		if (!real_peer(ev->peer2) || ev->tag2 < 0) {
			rd->m->p2p_unmatched++;
			return 0;
		}
		ep.bytes = ev->rbytes;
		return enqueue(rd, ev->comm, ev->peer2, me, ev->tag2, 0, &ep);
	}
	return 0;
}

/*
 * Nonblocking receive 'req' of 'rank' cancelled: out of its channel's
 * queue while no send is paired with it, so that the next receive of
 * the channel takes the next send.  Done at its MPI_Cancel, before any
 * receive posted after it, and again at its completion when that says
 * it was cancelled (a trace without MPI_Cancel records).
 */
static void recv_cancelled(struct reading *rd, int rank, uint64_t req)
{
	uint64_t *slot = st_tmap_get(&rd->rchan_of, (uint64_t)rank, req, 0);
	uint32_t i, prev = NONE;
	struct chan *ch;

	if (!slot)
		return;
	ch = &rd->chans[*slot];
	st_tmap_del(&rd->rchan_of, (uint64_t)rank, req, 0);
	for (i = ch->r_head; i != NONE; prev = i, i = rd->eps[i].next)
		if (rd->eps[i].rank == rank && rd->eps[i].req == req)
			break;
	if (i == NONE)
		return;
	if (prev == NONE)
		ch->r_head = rd->eps[i].next;
	else
		rd->eps[prev].next = rd->eps[i].next;
	if (ch->r_tail == i)
		ch->r_tail = prev;
	ep_free(rd, i);
}

/* A completion: a wildcard MPI_Irecv now knows its channel. */
static int on_done(struct reading *rd, int rank, const struct st_event *ev)
{
	struct endpoint ep;
	struct wild *w;
	uint64_t *slot;

	if (!ev->req)
		return 0;
	if (ev->arg & ST_DONE_CANCELLED)
		recv_cancelled(rd, rank, ev->req);
	else
		st_tmap_del(&rd->rchan_of, (uint64_t)rank, ev->req, 0);
	slot = st_tmap_get(&rd->wild_of, (uint64_t)rank, ev->req, 0);
	if (!slot)
		return 0;
	w = &rd->wilds[*slot];
	w->next_free = rd->wild_free;
	rd->wild_free = (uint32_t)*slot;
	st_tmap_del(&rd->wild_of, (uint64_t)rank, ev->req, 0);
	if (!real_peer(ev->peer) || ev->tag < 0)
		return 0;
	memset(&ep, 0, sizeof(ep));
	ep.a = w->a;
	ep.e = w->e;
	ep.err_a = w->err_a;
	ep.err_e = w->err_e;
	ep.fn = w->fn;
	ep.rank = rank;
	ep.bytes = ev->rbytes;
	return enqueue(rd, w->comm, ev->peer, w->dst, ev->tag, 0, &ep);
}

/* --- The run ---------------------------------------------------------- */

static int walk(struct reading *rd, struct st_run *run)
{
	struct st_phase_tracker trk = { .sel = rd->m->phase };
	struct st_merge *mg;
	struct st_merged x;
	char err[512];
	int r, rc = 0, in;

	if (st_merge_new(&mg))
		return -ENOMEM;
	for (r = 0; r < rd->nranks; r++) {
		if (!rd->clk[r] || !st_gclock_epochs(rd->clk[r]))
			continue;
		rc = st_merge_add(mg, r, st_run_rank_path(run, r), rd->clk[r],
				  err, sizeof(err));
		if (rc == -ENOMEM)
			goto out;
		if (rc) {
			/* Its instances can never complete: skip the run. */
			st_warn("%s: run left out of the table",
				*err ? err : strerror(rc < 0 ? -rc : rc));
			rc = 0;
			goto out;
		}
	}
	while (st_merge_next(mg, &x) > 0) {
		int cls;

		if ((in = st_phase_track(&trk, x.rank, x.ev)) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		if (!in)
			continue;
		if (rd->bench && x.ev->kind == ST_REC_CALL &&
		    x.ev->tag == ST_MICRO_TAG_START &&
		    (x.ev->fn == ST_FN_MPI_SEND ||
		     x.ev->fn == ST_FN_MPI_RECV)) {
			/* The library's start: its sends' own times. */
			rc = x.ev->fn == ST_FN_MPI_SEND && !x.ev->rc ?
			     st_table_add_start(rd->t, rd->run, x.rank,
						(double)x.ev->sbytes,
						(double)(x.ev->t1 -
							 x.ev->t0)) : 0;
		} else if (x.ev->kind == ST_REC_DONE) {
			rc = on_done(rd, x.rank, x.ev);
		} else if (x.ev->kind == ST_REC_CALL &&
			   x.ev->fn == ST_FN_MPI_CANCEL && x.ev->req) {
			/* Out of matching before later receives come. */
			recv_cancelled(rd, x.rank, x.ev->req);
		} else if (rd->bench && x.ev->kind == ST_REC_CALL &&
			   (x.ev->fn == ST_FN_MPI_WAITALL ||
			    x.ev->fn == ST_FN_MPI_WAIT) && x.ev->seq) {
			rc = on_burst(rd, x.rank, x.ev, x.g0, x.g1);
		} else if (is_blocking_coll(x.ev)) {
			rc = x.ev->rc ? 0 : on_coll(rd, x.rank, x.ev, x.g0,
						    x.g1);
		} else if ((cls = p2p_class(x.ev))) {
			rc = on_p2p(rd, x.rank, x.ev, cls, x.g0, x.g1);
		}
		if (rc)
			goto out;
	}
	rd->m->incomplete += rd->inst_of.n +
			     (size_t)(rd->have_inst_last && rd->inst_unmapped);
	rd->m->p2p_unmatched += rd->pending + rd->wild_of.n;
out:
	st_merge_free(mg);
	st_phase_tracker_release(&trk);
	return rc;
}

static void reading_release(struct reading *rd)
{
	size_t i;
	int r;

	for (r = 0; rd->clk && r < rd->nranks; r++)
		st_gclock_free(rd->clk[r]);
	free(rd->clk);
	for (i = 0; i < rd->ninsts; i++)
		free(rd->insts[i].t);
	free(rd->insts);
	free(rd->comms);
	free(rd->chans);
	free(rd->eps);
	free(rd->wilds);
	st_tmap_release(&rd->comm_of);
	st_tmap_release(&rd->rank_in);
	st_tmap_release(&rd->last_seq);
	st_tmap_release(&rd->inst_of);
	st_tmap_release(&rd->chan_of);
	st_tmap_release(&rd->wild_of);
	st_tmap_release(&rd->rchan_of);
	st_tmap_release(&rd->burst_of);
	free(rd->bursts);
}

/* The run's own entries of its index file. */
static int note_run(struct st_table_run *tr, struct st_run *run,
		    const char *dir)
{
	const char *v, *ci, *ce, *cf;
	char buf[256];

	tr->dir = strdup(dir);
	tr->nranks = st_run_nranks(run);
	v = st_run_get(run, "complete");
	tr->complete = v && !strcmp(v, "1");
	tr->cmdline = dup_or_null(st_run_get(run, "cmdline"));
	v = st_run_get(run, "start_unix");
	tr->start_unix = v ? strtoll(v, NULL, 10) : -1;
	v = st_run_get(run, "bench");
	tr->bench = v && !strcmp(v, "1");
	tr->run_id = dup_or_null(st_run_get(run, "run_id"));
	ci = st_run_get(run, "sync_check_init_ns");
	ce = st_run_get(run, "sync_check_end_ns");
	cf = st_run_get(run, "sync_check_final_ns");
	if (ci || ce || cf) {
		snprintf(buf, sizeof(buf), "init=%s end=%s final=%s",
			 ci ? ci : "-", ce ? ce : "-", cf ? cf : "-");
		if (!(tr->sync_check = strdup(buf)))
			return -ENOMEM;
	}
	if (!tr->dir || (st_run_get(run, "cmdline") && !tr->cmdline) ||
	    (st_run_get(run, "run_id") && !tr->run_id))
		return -ENOMEM;
	return 0;
}

int st_table_read_run(struct st_table *t, struct st_table_meta *m,
		      const char *dir, uint32_t run_no, char *err,
		      size_t errlen)
{
	struct reading rd;
	struct st_table_run *tr;
	struct st_run *run;
	const char **paths = NULL;
	long ncpu;
	int r, rc, nmissing = 0;

	rc = st_run_open(&run, dir, err, errlen);
	if (rc)
		return rc;
	tr = realloc(m->runs, (m->nruns + 1) * sizeof(*tr));
	if (!tr) {
		st_run_close(run);
		return -ENOMEM;
	}
	m->runs = tr;
	tr = &m->runs[m->nruns++];
	memset(tr, 0, sizeof(*tr));
	if ((rc = note_run(tr, run, dir))) {
		st_run_close(run);
		return rc;
	}

	memset(&rd, 0, sizeof(rd));
	rd.t = t;
	rd.m = m;
	rd.run = run_no;
	rd.nranks = st_run_nranks(run);
	rd.inst_free = rd.ep_free = rd.wild_free = NONE;
	rd.clk = calloc((size_t)rd.nranks, sizeof(*rd.clk));
	if (!rd.clk) {
		rc = -ENOMEM;
		goto out;
	}
	paths = calloc((size_t)rd.nranks, sizeof(*paths));
	if (!paths) {
		rc = -ENOMEM;
		goto out;
	}
	for (r = 0; r < rd.nranks; r++) {
		const char *path = st_run_rank_path(run, r);

		if (!path) {
			rc = -ENOMEM;
			goto out;
		}
		if (access(path, F_OK)) {
			nmissing++;
			continue;
		}
		paths[r] = path;
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	rc = scan_ranks(&rd, tr, paths, rd.nranks,
			ncpu < 2 ? 1 : ncpu > 64 ? 64 : (int)ncpu);
	if (rc)
		goto out;
	if (nmissing)
		st_warn("'%s': %d of %d rank files missing: collectives on "
			"their communicators are left out", dir, nmissing,
			rd.nranks);
	if (!tr->nread) {
		snprintf(err, errlen, "'%s': no rank file could be read", dir);
		rc = -EBADMSG;
		goto out;
	}
	if (!tr->nsynced)
		st_warn("'%s' has no clock synchronisation records: nothing "
			"can be matched across ranks in global time", dir);
	else {
		/* A bench's first calls are not among its measurements. */
		rd.first_upto = tr->bench && tr->first_calls > 0 ?
				(uint64_t)tr->first_calls : 0;
		rd.bench = tr->bench;
		rc = walk(&rd, run);
	}
out:
	free(paths);
	reading_release(&rd);
	st_run_close(run);
	return rc;
}
