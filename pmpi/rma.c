/*
 * pmpi/rma.c: one-sided calls.  A window is made by a collective over a
 * communicator, recorded there like any collective, and registered with
 * an id agreed over that communicator (pmpi/obj.c); its own records
 * carry that id in 'comm'.  What the tools need to rebuild epochs is
 * recorded with every call: the target, the assert and lock type, the
 * group of a post or start as ranks of the window ("0 2-5"), and for
 * each Put, Get or accumulate the origin's bytes and the target
 * displacement.  Fences and Win_free are collectives over the window
 * and numbered on it, so that one fence matches across ranks as a
 * collective does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"
#include "writer/writer.h"

/* The longest group text a post or start records (see group_text()). */
#define GROUP_TEXT_MAX 65536

void st_win_free_pre(struct st_call *c, const MPI_Win *win)
{
	c->oldwin = win ? *win : MPI_WIN_NULL;
}

/* ST_ASSERT_* and ST_LOCK_* of an assert and a lock type. */
static int32_t map_sync(int assert, int locktype)
{
	static const struct {
		int mpi;
		int32_t st;
	} bits[] = {
		{ MPI_MODE_NOCHECK, ST_ASSERT_NOCHECK },
		{ MPI_MODE_NOSTORE, ST_ASSERT_NOSTORE },
		{ MPI_MODE_NOPUT, ST_ASSERT_NOPUT },
		{ MPI_MODE_NOPRECEDE, ST_ASSERT_NOPRECEDE },
		{ MPI_MODE_NOSUCCEED, ST_ASSERT_NOSUCCEED },
	};
	int32_t v = 0;
	size_t i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (assert & bits[i].mpi) {
			v |= bits[i].st;
			assert &= ~bits[i].mpi;
		}
	if (assert)
		v |= ST_ASSERT_OTHER;
	if (locktype == MPI_LOCK_SHARED)
		v |= ST_LOCK_SHARED;
	else if (locktype == MPI_LOCK_EXCLUSIVE)
		v |= ST_LOCK_EXCLUSIVE;
	return v;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The ranks in window 'win' of the processes of 'g', ascending, as
 * "0 2-5" in a buffer to free (NULL when MPI or memory fails).  A list
 * longer than GROUP_TEXT_MAX ends in "...".
 */
static char *group_text(MPI_Win win, MPI_Group g, uint32_t *len)
{
	MPI_Group wg = MPI_GROUP_NULL;
	int n = 0, i, j, *in = NULL, *out;
	char *buf = NULL;
	size_t at = 0;

	if (PMPI_Win_get_group(win, &wg) != MPI_SUCCESS ||
	    PMPI_Group_size(g, &n) != MPI_SUCCESS || n < 0)
		goto out;
	in = malloc(2 * (size_t)(n ? n : 1) * sizeof(*in));
	buf = malloc(GROUP_TEXT_MAX + 32);
	if (!in || !buf)
		goto fail;
	out = in + n;
	for (i = 0; i < n; i++)
		in[i] = i;
	if (n && PMPI_Group_translate_ranks(g, n, in, wg, out) != MPI_SUCCESS)
		goto fail;
	qsort(out, (size_t)n, sizeof(*out), cmp_int);
	buf[0] = '\0';
	for (i = 0; i < n; i = j + 1) {
		for (j = i; j + 1 < n && out[j + 1] == out[j] + 1; j++)
			;
		if (at > GROUP_TEXT_MAX) {
			at += (size_t)snprintf(buf + at, 32, " ...");
			break;
		}
		if (j > i)
			at += (size_t)snprintf(buf + at, 32, "%s%d-%d",
					       at ? " " : "", out[i], out[j]);
		else
			at += (size_t)snprintf(buf + at, 32, "%s%d",
					       at ? " " : "", out[i]);
	}
	*len = (uint32_t)at;
	goto out;
fail:
	free(buf);
	buf = NULL;
out:
	free(in);
	if (wg != MPI_GROUP_NULL)
		PMPI_Group_free(&wg);
	return buf;
}

/* Size in bytes and displacement unit of window 'win' into 'ev'. */
static void win_facts(MPI_Win win, struct st_event *ev)
{
	MPI_Aint *size = NULL;
	int *unit = NULL, flag = 0;

	if (PMPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag) ==
	    MPI_SUCCESS && flag && size && *size > 0)
		ev->len = (uint64_t)*size;
	flag = 0;
	if (PMPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag) ==
	    MPI_SUCCESS && flag && unit && *unit > 0)
		ev->tsize = (uint32_t)*unit;
}

void st_leave_win(struct st_call *c, const struct st_fn_info *fi,
		  struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	struct st_comm_entry *e;
	struct st_event w;
	struct st_obj *o;
	uint64_t seq = 0;

	(void)fi;
	/* MPI_Win_free: a collective on the window. */
	if (a->winp) {
		o = st_obj_find((uintptr_t)c->oldwin);
		if (o)
			seq = st_obj_count(o);
		if (ev) {
			if (o) {
				ev->comm = o->id;
				ev->comm_size = (uint32_t)o->size;
				ev->seq = seq;
			}
			st_emit(ev);
		}
		if (rc == MPI_SUCCESS)
			st_obj_forget((uintptr_t)c->oldwin);
		return;
	}
	/* A constructor: a collective on its communicator. */
	e = rc == MPI_SUCCESS ? st_comm_get(a->comm, 1) : st_comm_find(a->comm);
	if (e)
		seq = st_comm_count(e);
	if (ev) {
		if (e) {
			ev->comm = e->id;
			ev->comm_size = (uint32_t)e->size;
			ev->seq = seq;
		}
		st_emit(ev);
	}
	if (e)
		st_world_seq(e, seq);
	if (rc != MPI_SUCCESS || !a->newwin || *a->newwin == MPI_WIN_NULL)
		return;
	st_event_clear(&w);
	o = st_obj_register((uintptr_t)*a->newwin, a->comm, &w);
	if (!o || !ev)
		return;
	w.fn = ev->fn;
	w.t0 = ev->t0;
	w.t1 = ev->t1;
	win_facts(*a->newwin, &w);
	st_emit(&w);
}

/*
 * The repeat cache of one-sided calls (struct st_rfast, pmpi/hot.h): per
 * thread, a call site's last call, the arguments that decide its record
 * (struct st_rkey), and the record's fields under a token the encoder
 * also keeps.  The wrappers of the functions that may take it, those
 * without a request (the R* forms), a group (Win_post, Win_start) or a
 * flag (Win_test), look their key up before the call (st_rma_find(),
 * pmpi/hooks.h), and st_leave_rma_key() (pmpi/call.c) appends a hit's
 * record as st_leave_key() does a collective's.  Only calls whose record
 * follows from those arguments are entered: on a known window, with
 * builtin datatypes; collective ones (Win_fence) count their sequence
 * number on the window as the general path does.  An entry holds while
 * st_obj_gen has not changed (no window or file made or freed since).
 */
void st_rma_emit(const struct st_rfast *f, uint64_t seq, uint64_t t0,
		 uint64_t t1)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)f->fn;
	ev.t0 = t0;
	ev.t1 = t1;
	ev.site = f->site;
	ev.comm = f->o->id;
	ev.comm_size = (uint32_t)f->o->size;
	ev.seq = seq;
	ev.arg = f->arg;
	ev.peer = f->peer;
	ev.offset = f->offset;
	ev.op = f->op;
	ev.tsize = f->tsize;
	ev.sbytes = f->sbytes;
	ev.rbytes = f->rbytes;
	st_emit_token(&ev, f->token);
}

/*
 * The record 'ev' of call 'c' on window 'o' that succeeded: remember it
 * for the next call from its site if it may repeat; its token, or 0.
 */
static uint32_t rma_fill(const struct st_call *c, const struct st_fn_info *fi,
			 struct st_obj *o, const struct st_event *ev)
{
	const struct st_args *a = &c->a;
	struct st_rfast *f;

	if (!o || a->request || a->group || a->flag ||
	    st_from_fortran(c->ra) ||
	    (a->type && !st_type_builtin(a->type)) ||
	    (a->stype && !st_type_builtin(a->stype)) ||
	    (a->rtype && !st_type_builtin(a->rtype)) ||
	    fi->family == ST_FAM_NONBLOCKING)
		return 0;
	if (!st_tls.rfast)
		st_tls_adopt();
	if (!st_tls.rfast) {
		st_tls.rfast = calloc(1u << ST_RFAST_BITS,
				      sizeof(*st_tls.rfast));
		if (!st_tls.rfast)
			return 0;
	}
	f = st_rfast_slot(st_tls.rfast, c->ra);
	*f = (struct st_rfast){
		.ra = c->ra, .fn = c->fn,
		.gen = atomic_load_explicit(&st_obj_gen, memory_order_relaxed),
		.token = st_new_token(), .site = ev->site,
		.coll = (fi->flags & ST_FNF_COLLECTIVE) != 0, .o = o,
		.k = {
			.sbuf = a->sbuf, .rbuf = a->rbuf,
			.scount = a->scount, .rcount = a->rcount,
			.count = a->count, .stype = a->stype,
			.rtype = a->rtype, .type = a->type, .op = a->op,
			.offset = a->offset, .peer = a->peer,
			.assert = a->assert, .locktype = a->locktype,
			.large = a->large, .win = a->win,
		},
		.arg = ev->arg, .peer = ev->peer, .offset = ev->offset,
		.op = ev->op, .tsize = ev->tsize, .sbytes = ev->sbytes,
		.rbytes = ev->rbytes,
	};
	return f->token;
}

void st_leave_rma(struct st_call *c, const struct st_fn_info *fi,
		  struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	int target = (fi->flags & ST_FNF_TARGET) != 0;
	MPI_Datatype t;
	struct st_obj *o;
	char *text = NULL;
	uint64_t seq = 0;

	o = st_obj_find((uintptr_t)a->win);
	/* A Win_test that found the epoch open is polling, not a record. */
	if (a->flag && !*a->flag && rc == MPI_SUCCESS) {
		if (ev)
			st_site_get(c->ra);
		return;
	}
	if (o && (fi->flags & ST_FNF_COLLECTIVE))
		seq = st_obj_count(o);
	if (!ev)
		return;
	if (o) {
		ev->comm = o->id;
		ev->comm_size = (uint32_t)o->size;
		ev->seq = seq;
	}
	ev->arg = map_sync(a->assert, a->locktype);
	if (target)
		ev->peer = st_map_rank(a->peer);
	ev->offset = a->offset;
	if (a->op)
		ev->op = st_map_op(a->op);
	t = a->type ? a->type : a->stype ? a->stype : a->rtype;
	if (t && !(target && a->peer == MPI_PROC_NULL))
		ev->tsize = (uint32_t)st_type_size(t);
	if (rc == MPI_SUCCESS && fi->bytes != ST_BYTES_NONE) {
		st_count_bytes(c, fi, ev, -1);
		/* MPI_NO_OP reads no origin; MPI_PROC_NULL moves nothing. */
		if (a->op == MPI_NO_OP)
			ev->sbytes = 0;
		if (target && a->peer == MPI_PROC_NULL)
			ev->sbytes = ev->rbytes = 0;
	}
	if (rc == MPI_SUCCESS && a->request &&
	    fi->family == ST_FAM_NONBLOCKING)
		st_req_track(c, fi, ev, 0);
	if (rc == MPI_SUCCESS && a->group && a->group != MPI_GROUP_NULL &&
	    (text = group_text(a->win, a->group, &ev->text_len)))
		ev->text = text;
	st_emit_token(ev, rc == MPI_SUCCESS ? rma_fill(c, fi, o, ev) : 0);
	free(text);
	ev->text = NULL;
	ev->text_len = 0;
}
