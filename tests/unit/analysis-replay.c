/*
 * tests/unit/analysis-replay.c: the replay engine on hand-built traces with
 * known answers.  Each rank's records are written out as a script on its
 * own local clock (origins differ, as on real ranks) and fed to the
 * engine from memory; the cost model is a few constants, so every
 * predicted time below can be worked out by hand.  The last tests replay
 * a large synthetic trace written through the real writer and read back
 * through the real reader, and print how many records per second the
 * replay takes (tests/validate/run.sh checks that figure; this test
 * asserts only what holds at any speed).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen/ops.h"
#include "tools/analysis/replay.h"
#include "writer/event.h"
#include "writer/reader.h"
#include "writer/writer.h"

#define WORLD 0x100000000ULL
#define DUP 0x100000005ULL

/* A rank's records, written on its local clock 't'. */
struct script {
	struct st_event *ev;
	size_t n, alloc, next;
	uint64_t t;
	int rank, size;
	uint64_t origin;
};

static struct st_event *s_add(struct script *s)
{
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 64;
		s->ev = realloc(s->ev, s->alloc * sizeof(*s->ev));
		cr_assert(s->ev);
	}
	st_event_clear(&s->ev[s->n]);
	return &s->ev[s->n++];
}

/* MPI_Init (its exit at local 'origin' + 1000), and MPI_COMM_WORLD. */
static void s_init(struct script *s, int rank, int size, uint64_t origin)
{
	struct st_event *e;

	memset(s, 0, sizeof(*s));
	s->rank = rank;
	s->size = size;
	s->origin = origin;
	e = s_add(s);
	e->kind = ST_REC_COMM;
	e->comm = WORLD;
	e->comm_size = (uint32_t)size;
	e->rank = rank;
	e->t0 = e->t1 = origin + 500;
	e = s_add(s);
	e->kind = ST_REC_CALL;
	e->fn = ST_FN_MPI_INIT;
	e->t0 = origin;
	e->t1 = origin + 1000;
	s->t = origin + 1000;
}

static void s_compute(struct script *s, uint64_t ns)
{
	s->t += ns;
}

/* A CALL of 'fn' taking 'dur' ns at the current time; fill the rest. */
static struct st_event *s_call(struct script *s, unsigned fn, uint64_t dur)
{
	struct st_event *e = s_add(s);

	e->kind = ST_REC_CALL;
	e->fn = (uint16_t)fn;
	e->t0 = s->t;
	e->t1 = s->t + dur;
	e->site = 1;
	s->t += dur;
	return e;
}

static struct st_event *s_coll(struct script *s, unsigned fn, uint64_t seq,
			       uint64_t dur)
{
	struct st_event *e = s_call(s, fn, dur);

	e->comm = WORLD;
	e->comm_size = (uint32_t)s->size;
	e->seq = seq;
	e->sbytes = e->rbytes = 8;
	return e;
}

static struct st_event *s_p2p(struct script *s, unsigned fn, int peer,
			      int tag, uint64_t bytes, uint64_t dur)
{
	struct st_event *e = s_call(s, fn, dur);

	e->comm = WORLD;
	e->comm_size = (uint32_t)s->size;
	e->peer = peer;
	e->tag = tag;
	if (fn == ST_FN_MPI_RECV || fn == ST_FN_MPI_IRECV)
		e->rbytes = bytes;
	else
		e->sbytes = bytes;
	return e;
}

/* DONE records of a Wait call at the current time, then the call. */
static void s_wait(struct script *s, unsigned fn, const uint64_t *reqs,
		   size_t n, uint64_t dur)
{
	struct st_event *e;
	size_t i;

	for (i = 0; i < n; i++) {
		e = s_add(s);
		e->kind = ST_REC_DONE;
		e->fn = (uint16_t)fn;
		e->req = reqs[i];
		e->t0 = s->t;
		e->t1 = s->t + dur;
	}
	s_call(s, fn, dur);
}

static void s_finalize(struct script *s)
{
	s_call(s, ST_FN_MPI_FINALIZE, 1000);
}

static int s_next(void *ctx, struct st_event *ev, char *err, size_t errlen)
{
	struct script *s = ctx;

	(void)err;
	(void)errlen;
	if (s->next == s->n)
		return 0;
	*ev = s->ev[s->next++];
	return 1;
}

/* Global time: every rank's origin is global 0. */
static double s_global(void *ctx, uint64_t t_ns)
{
	const struct script *s = ctx;

	return (double)t_ns - (double)s->origin;
}

/* The test cost model: constants. */
struct consts {
	double coll;		/* every collective */
	double local, xfer;	/* point-to-point */
	double per_byte;	/* added to 'local' per byte */
	unsigned missing;	/* a function it does not know */
	int no_p2p;
	double inject;		/* starting a nonblocking send; 0: none */
	int net;		/* the network model: 'nm' */
	struct st_replay_msg nm;
	double rndv_from;	/* messages this large wait; 0: none */
	double sr_local, sr_xfer;	/* MPI_Sendrecv's own, when > 0 */
};

static double c_coll(void *ctx, unsigned fn, long p, double d)
{
	const struct consts *c = ctx;

	(void)p;
	(void)d;
	return fn == c->missing ? -1 : c->coll;
}

static int c_p2p(void *ctx, unsigned fn, double bytes, double *local,
		 double *xfer)
{
	const struct consts *c = ctx;

	if (c->no_p2p || fn == c->missing)
		return -1;
	*local = c->local + c->per_byte * bytes;
	*xfer = c->xfer;
	if (fn == ST_FN_MPI_SENDRECV && c->sr_xfer > 0) {
		*local = c->sr_local;
		*xfer = c->sr_xfer;
	}
	return 0;
}

static int c_inject(void *ctx, unsigned fn, double bytes, double *ns)
{
	const struct consts *c = ctx;

	(void)bytes;
	if (!(c->inject > 0) || fn == c->missing)
		return -1;
	*ns = c->inject;
	return 0;
}

static int c_msg(void *ctx, unsigned fn, double bytes,
		 struct st_replay_msg *m)
{
	const struct consts *c = ctx;

	if (!c->net || fn == c->missing)
		return -1;
	*m = c->nm;
	m->rendezvous = c->rndv_from > 0 && bytes >= c->rndv_from;
	return 0;
}

static struct consts model_c = { .coll = 50, .local = 5, .xfer = 100 };

/* Replay 'n' scripts on model 'm', with global time if 'global'. */
static int replay_m(struct script *s, int n, const struct st_replay_model *m,
		    double scale, int global, struct st_replay **out,
		    char *err, size_t errlen)
{
	struct st_replay_opts o;
	int r;

	st_replay_opts_init(&o);
	o.compute_scale = scale;
	cr_assert_eq(st_replay_new(out, n, m, &o), 0);
	for (r = 0; r < n; r++) {
		struct st_replay_source src = { &s[r], s_next,
						global ? s_global : NULL,
						NULL };

		s[r].next = 0;
		cr_assert_eq(st_replay_set_source(*out, r, &src), 0);
	}
	return st_replay_run(*out, err, errlen);
}

/* Replay 'n' scripts on constants 'c', with global time if 'global'. */
static int replay_g(struct script *s, int n, const struct consts *c,
		    double scale, int global, struct st_replay **out,
		    char *err, size_t errlen)
{
	struct st_replay_model m = { (void *)c, c_coll, c_p2p, c_inject,
				     NULL, c_msg, 0, NULL, NULL };

	return replay_m(s, n, &m, scale, global, out, err, errlen);
}

/* Replay 'n' scripts; returns st_replay_run()'s result. */
static int replay(struct script *s, int n, const struct consts *c,
		  double scale, struct st_replay **out, char *err,
		  size_t errlen)
{
	return replay_g(s, n, c, scale, 0, out, err, errlen);
}

static const struct st_replay_fn *fn_of(const struct st_replay *rp,
					unsigned fn)
{
	const struct st_replay_fn *f;
	size_t n, i;

	f = st_replay_fns(rp, &n);
	for (i = 0; i < n; i++)
		if (f[i].fn == fn)
			return &f[i];
	return NULL;
}

static void free_scripts(struct script *s, int n)
{
	int r;

	for (r = 0; r < n; r++)
		free(s[r].ev);
}

#define PRED(rp, r) (st_replay_rank((rp), (r))->pred_ns)

Test(tools_replay, collective_waits_for_last_arrival)
{
	struct script s[2];
	struct st_replay *rp;
	const struct st_replay_stats *st;
	const struct st_replay_fn *f;
	char err[256];

	/* Local clocks 1 s apart: only differences on one rank count. */
	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], 100);
	s_coll(&s[0], ST_FN_MPI_ALLREDUCE, 1, 999);
	s_compute(&s[0], 10);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 1000000000);
	s_compute(&s[1], 500);
	s_coll(&s[1], ST_FN_MPI_ALLREDUCE, 1, 999);
	s_compute(&s[1], 10);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Both leave at the last arrival (500) + cost (50), then 10. */
	cr_expect_float_eq(PRED(rp, 0), 560, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 560, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 0)->wait_ns, 400, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 1)->wait_ns, 0, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 0)->compute_ns, 110, 1e-9);
	f = fn_of(rp, ST_FN_MPI_ALLREDUCE);
	cr_assert(f);
	cr_expect_eq(f->calls, 2);
	cr_expect_float_eq(f->pred_ns, 450 + 50, 1e-9);
	cr_expect_float_eq(f->meas_ns, 2 * 999, 1e-9);
	cr_expect_eq(f->n_model, 2);
	/* The measured run: 100 + 999 + 10, 500 + 999 + 10. */
	cr_expect_float_eq(st_replay_rank(rp, 0)->meas_ns, 1109, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 1)->meas_ns, 1509, 1e-9);
	st = st_replay_stats(rp);
	cr_expect_float_eq(st->end_ns, 560, 1e-9);
	/* The path runs through rank 1's compute, then the cost. */
	cr_expect_float_eq(st->path.compute_ns, 510, 1e-9);
	cr_expect_float_eq(st->path.comm_ns, 50, 1e-9);
	cr_expect_eq(st->path.hops, st->end_rank == 0 ? 1 : 0);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, receive_waits_for_its_send)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	s_init(&s[0], 0, 2, 7);
	s_compute(&s[0], 1000);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 7, 8, 77);
	s_compute(&s[0], 10);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 123456);
	s_compute(&s[1], 10);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 7, 8, 777);
	s_compute(&s[1], 10);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Sender: eager, done at 1000 + 5.  Receiver: 1000 + 100 + 5. */
	cr_expect_float_eq(PRED(rp, 0), 1015, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 1115, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 1)->wait_ns, 1105 - 10 - 5,
			   1e-9);
	cr_expect_float_eq(st_replay_stats(rp)->path.comm_ns, 105, 1e-9);
	cr_expect_float_eq(st_replay_stats(rp)->path.compute_ns, 1010, 1e-9);
	cr_expect_eq(st_replay_stats(rp)->end_rank, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, messages_match_in_order_by_tag)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	/* Tag 2 is sent first but received second. */
	s_init(&s[0], 0, 2, 0);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 2, 8, 1);
	s_compute(&s[0], 1000);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 1, 8, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 1, 8, 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 2, 8, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Tag 1 leaves at 1005: arrives 1105, done 1110; tag 2 is there. */
	cr_expect_float_eq(PRED(rp, 1), 1115, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, synchronous_send_waits_for_the_receive)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_p2p(&s[0], ST_FN_MPI_SSEND, 1, 0, 8, 3);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], 1000);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 8, 3);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_float_eq(PRED(rp, 0), 1100, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 1105, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/* Rank 1 posts an Irecv, computes 'work', then waits for it. */
static double overlap(uint64_t work, double *wait)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 1;
	char err[256];
	double t;

	s_init(&s[0], 0, 2, 0);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 4, 64, 9);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], 10);
	e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 4, 0, 20);
	e->req = req;
	s_compute(&s[1], work);
	s_wait(&s[1], ST_FN_MPI_WAITALL, &req, 1, 333);
	s_compute(&s[1], 10);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	t = PRED(rp, 1);
	*wait = fn_of(rp, ST_FN_MPI_WAITALL)->wait_ns;
	st_replay_free(rp);
	free_scripts(s, 2);
	return t;
}

Test(tools_replay, nonblocking_receive_overlaps_compute)
{
	double wait;

	/* The message is there at 100 + 5, long before the Wait. */
	cr_expect_float_eq(overlap(2000, &wait), 10 + 20 + 2000 + 10, 1e-9);
	cr_expect_float_eq(wait, 0, 1e-9);
	/* A short compute: the Wait waits until 105. */
	cr_expect_float_eq(overlap(50, &wait), 105 + 10, 1e-9);
	cr_expect_float_eq(wait, 105 - 80, 1e-9);
}

Test(tools_replay, nonblocking_receive_costs_the_message_it_gets)
{
	struct consts c = model_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 2;
	char err[256];

	/* An Irecv's record has no size: the send's 300 B count. */
	c.per_byte = 1;
	s_init(&s[0], 0, 2, 0);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 0, 300, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 0, 0);
	e->req = req;
	s_compute(&s[1], 10);
	s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_float_eq(PRED(rp, 0), 305, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 100 + 305, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, wildcard_receive_matches_at_completion)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 9;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], 500);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 3, 8, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	e = s_p2p(&s[1], ST_FN_MPI_IRECV, ST_RANK_ANY, ST_TAG_ANY, 0, 0);
	e->req = req;
	/* The DONE record says where it came from. */
	e = s_add(&s[1]);
	e->kind = ST_REC_DONE;
	e->fn = ST_FN_MPI_WAIT;
	e->req = req;
	e->peer = 0;
	e->tag = 3;
	e->rbytes = 8;
	e->t0 = s[1].t;
	e->t1 = s[1].t + 1;
	s_call(&s[1], ST_FN_MPI_WAIT, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_float_eq(PRED(rp, 1), 500 + 100 + 5, 1e-9);
	cr_expect_eq(st_replay_stats(rp)->released, 0);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, probe_waits_for_the_envelope)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], 500);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 1, 8, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_p2p(&s[1], ST_FN_MPI_PROBE, 0, 1, 0, 1);
	s_compute(&s[1], 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 1, 8, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Probe done at 600; the receive then copies: 601 + 5. */
	cr_expect_float_eq(PRED(rp, 1), 606, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, compute_is_scaled)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], 1000 * (uint64_t)(r + 1));
		s_coll(&s[r], ST_FN_MPI_BARRIER, 1, 5);
		s_compute(&s[r], 300);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 0.5, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* (2000 + 300) / 2 + 50 */
	cr_expect_float_eq(PRED(rp, 0), 1200, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 1)->compute_ns, 1150, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 1)->meas_compute_ns, 2300,
			   1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, synctrace_work_is_left_out)
{
	struct script s[1];
	struct st_replay *rp;
	struct st_event *e;
	char err[256];

	s_init(&s[0], 0, 1, 0);
	/* The init sync ends at 3000, after MPI_Init's t1 (1000). */
	e = s_add(&s[0]);
	*e = s[0].ev[1];
	st_event_clear(&s[0].ev[1]);
	s[0].ev[1].kind = ST_REC_SYNC;
	s[0].ev[1].t0 = 2000;
	s[0].ev[1].t1 = 3000;
	s[0].t = 3000;
	s_compute(&s[0], 1000);
	s_coll(&s[0], ST_FN_MPI_BARRIER, 1, 5)->comm_size = 1;
	/* A flush and an overlapping sync inside the next gap. */
	e = s_add(&s[0]);
	e->kind = ST_REC_MARK;
	e->fn = ST_MARK_FLUSH;
	e->t0 = s[0].t + 100;
	e->t1 = s[0].t + 400;
	e = s_add(&s[0]);
	e->kind = ST_REC_SYNC;
	e->t0 = s[0].t + 300;
	e->t1 = s[0].t + 500;
	s_compute(&s[0], 1000);
	s_finalize(&s[0]);
	cr_assert_eq(replay(s, 1, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* 1000 + 50 + (1000 - 400) */
	cr_expect_float_eq(PRED(rp, 0), 1650, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 0)->overhead_ns, 400, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 0)->meas_ns, 2005, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 1);
}

Test(tools_replay, bcast_root_leaves_early)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], r ? 1000 : 0);
		s_coll(&s[r], ST_FN_MPI_BCAST, 1, 1)->root = 0;
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_float_eq(PRED(rp, 0), 50, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 1050, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
	/* A non-root that comes first waits for the root. */
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], r ? 0 : 300);
		s_coll(&s[r], ST_FN_MPI_BCAST, 1, 1)->root = 0;
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_float_eq(PRED(rp, 0), 350, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 350, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, gather_nonroot_leaves_after_its_send)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], r ? 0 : 100);
		s_coll(&s[r], ST_FN_MPI_GATHER, 1, 1)->root = 0;
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Non-root: 0 + the send's local cost; root: 100 + 50. */
	cr_expect_float_eq(PRED(rp, 1), 5, 1e-9);
	cr_expect_float_eq(PRED(rp, 0), 150, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
	/* The root first: it waits for the late non-root. */
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], r ? 300 : 0);
		s_coll(&s[r], ST_FN_MPI_REDUCE, 1, 1)->root = 0;
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_float_eq(PRED(rp, 0), 350, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 305, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, scan_waits_for_lower_ranks_only)
{
	static const uint64_t arrive[3] = { 0, 100, 1000 };
	struct script s[3];
	struct st_replay *rp;
	char err[256];
	int r;

	for (r = 0; r < 3; r++) {
		s_init(&s[r], r, 3, 0);
		s_compute(&s[r], arrive[r]);
		s_coll(&s[r], ST_FN_MPI_SCAN, 1, 1);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 3, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_float_eq(PRED(rp, 0), 50, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 150, 1e-9);
	cr_expect_float_eq(PRED(rp, 2), 1050, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 3);
}

/*
 * A model with first calls: the constants, and the first instance of a
 * (fn, p, d) costs 'at8' more at 8 B, 'other' more at other sizes.  It
 * keeps what it was asked.
 */
struct firsts {
	struct consts c;	/* first: the ctx is also a struct consts */
	double at8, other;
	int asked;
	unsigned fn[8];
	long p[8];
	double d[8];
};

static double c_coll_first(void *ctx, unsigned fn, long p, double d)
{
	struct firsts *f = ctx;

	if (f->asked < 8) {
		f->fn[f->asked] = fn;
		f->p[f->asked] = p;
		f->d[f->asked] = d;
	}
	f->asked++;
	return d == 8 ? f->at8 : f->other;
}

/*
 * Two ranks: rank 0 computes 100 ns, rank 1 none; three Allreduces (8 B,
 * 8 B, 64 B), 10 ns of compute after each.
 */
static void three_allreduces(struct script *s)
{
	struct st_event *e;
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, r ? 1000000 : 0);
		s_compute(&s[r], r ? 0 : 100);
		s_coll(&s[r], ST_FN_MPI_ALLREDUCE, 1, 999);
		s_compute(&s[r], 10);
		s_coll(&s[r], ST_FN_MPI_ALLREDUCE, 2, 999);
		s_compute(&s[r], 10);
		e = s_coll(&s[r], ST_FN_MPI_ALLREDUCE, 3, 999);
		e->sbytes = e->rbytes = 64;
		s_compute(&s[r], 10);
		s_finalize(&s[r]);
	}
}

Test(tools_replay, first_call_is_charged_once_per_key)
{
	struct firsts f = { .c = { .coll = 50, .local = 5, .xfer = 100 },
			    .at8 = 1000, .other = 3000 };
	struct st_replay_model m = { &f, c_coll, c_p2p, NULL, c_coll_first,
				     NULL, 0, NULL, NULL };
	const struct st_replay_fn *fn;
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	three_allreduces(s);
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0, "%s",
		     err);
	/*
	 * 100 + (50 + 1000) + 10 + 50 + 10 + (50 + 3000) + 10: the second
	 * 8 B instance is not a first one.
	 */
	cr_expect_float_eq(PRED(rp, 0), 4280, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 4280, 1e-9);
	cr_assert_eq(f.asked, 2);
	cr_expect_eq(f.fn[0], ST_FN_MPI_ALLREDUCE);
	cr_expect_eq(f.p[0], 2);
	cr_expect_float_eq(f.d[0], 8, 1e-12);
	cr_expect_eq(f.fn[1], ST_FN_MPI_ALLREDUCE);
	cr_expect_float_eq(f.d[1], 64, 1e-12);
	/* In the calls: 1050 + 1150, 2 x 50, 2 x 3050. */
	fn = fn_of(rp, ST_FN_MPI_ALLREDUCE);
	cr_assert(fn);
	cr_expect_float_eq(fn->pred_ns, 8400, 1e-9);
	cr_expect_eq(fn->n_model, 6);
	cr_expect_float_eq(st_replay_stats(rp)->path.comm_ns, 4150, 1e-9);
	st_replay_free(rp);

	/* A new replay charges its first calls again. */
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_float_eq(PRED(rp, 0), 4280, 1e-9);
	cr_expect_eq(f.asked, 4);
	st_replay_free(rp);

	/* Without coll_first: the steady state, 100 + 3 x 60. */
	m.coll_first = NULL;
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_float_eq(PRED(rp, 0), 280, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 280, 1e-9);
	cr_expect_eq(f.asked, 4);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/*
 * An MPI_Alltoallv whose two members send 12 KiB and 96 KiB blocks is
 * costed at its busiest member's block, 96 KiB (st_table_coll_size(),
 * as the table sizes its instances), not at the mean block, 54 KiB; an
 * even one at its block.
 */
Test(tools_replay, uneven_alltoallv_costed_at_its_busiest_member)
{
	struct firsts f = { .c = { .coll = 50, .local = 5, .xfer = 100 },
			    .at8 = 0, .other = 0 };
	struct st_replay_model m = { &f, c_coll, c_p2p, NULL, c_coll_first,
				     NULL, 0, NULL, NULL };
	static const uint64_t sent[2][2] = { { 24, 192 }, { 64, 64 } };
	struct st_event *e;
	struct script s[2];
	struct st_replay *rp;
	char err[256];
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		e = s_coll(&s[r], ST_FN_MPI_ALLTOALLV, 1, 999);
		e->sbytes = sent[0][r] * 1024;
		e->rbytes = 108 * 1024;
		e = s_coll(&s[r], ST_FN_MPI_ALLTOALLV, 2, 999);
		e->sbytes = e->rbytes = sent[1][r] * 1024;
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(f.asked, 2);
	cr_expect_eq(f.fn[0], ST_FN_MPI_ALLTOALLV);
	cr_expect_float_eq(f.d[0], 96.0 * 1024, 1e-9, "d %g", f.d[0]);
	cr_expect_float_eq(f.d[1], 32.0 * 1024, 1e-9, "d %g", f.d[1]);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/* c_coll(), counted, with 'd' in the answer (its key is seen). */
static int colls_asked;

static double c_coll_counted(void *ctx, unsigned fn, long p, double d)
{
	colls_asked++;
	return c_coll(ctx, fn, p, d) + d / 8;
}

/*
 * A source of records in the replay's own form (st_replay_rec_make()),
 * as predict's tee gives them: each record made into a slot, the
 * events it declines whole.
 */
struct rsrc {
	struct script *s;
	uint64_t slot[16];
};

static int s_next_x(void *ctx, struct st_event *ev, char *err,
		    size_t errlen)
{
	return s_next(((struct rsrc *)ctx)->s, ev, err, errlen);
}

static int s_next_rec(void *ctx, const void **rec, struct st_event *ev,
		      char *err, size_t errlen)
{
	struct rsrc *x = ctx;
	int rc = s_next_x(x, ev, err, errlen);

	cr_assert_eq(st_replay_rec_size(), sizeof(x->slot));
	if (rc <= 0)
		return rc;
	if (st_replay_rec_make(x->slot, ev)) {
		/* The event is gone: only the slot holds the record. */
		memset(ev, 0xa5, sizeof(*ev));
		*rec = x->slot;
		return 1;
	}
	return 2;
}

Test(tools_replay, records_in_the_replays_form_replay_as_events)
{
	struct firsts f = { .c = { .coll = 50, .local = 5, .xfer = 100 },
			    .at8 = 1000, .other = 3000 };
	struct st_replay_model m = { &f, c_coll_counted, c_p2p, NULL,
				     c_coll_first, NULL, 0, NULL, NULL };
	struct script s[2];
	struct rsrc x[2];
	struct st_replay *rp;
	struct st_replay_opts o;
	char err[256];
	double want[2], path;
	uint64_t recs;
	int r, pure;

	three_allreduces(s);
	colls_asked = 0;
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0, "%s",
		     err);
	/* 100 + (51 + 1000) + 10 + 51 + 10 + (58 + 3000) + 10. */
	want[0] = PRED(rp, 0);
	want[1] = PRED(rp, 1);
	cr_expect_float_eq(want[0], 4290, 1e-9);
	path = st_replay_stats(rp)->path.comm_ns;
	recs = st_replay_stats(rp)->records;
	/* Every member asks until the cost is known: 3 instances. */
	cr_assert_eq(colls_asked, 3);
	st_replay_free(rp);
	/*
	 * From slots: the same; with a pure model, its answer kept for
	 * the second 8 B instance (asked twice, not three times), its
	 * first-call excess not charged again.
	 */
	for (pure = 0; pure < 2; pure++) {
		m.coll_pure = pure;
		colls_asked = 0;
		f.asked = 0;
		st_replay_opts_init(&o);
		cr_assert_eq(st_replay_new(&rp, 2, &m, &o), 0);
		for (r = 0; r < 2; r++) {
			struct st_replay_source src = { &x[r], s_next_x,
							NULL, s_next_rec };

			x[r].s = &s[r];
			s[r].next = 0;
			cr_assert_eq(st_replay_set_source(rp, r, &src), 0);
		}
		cr_assert_eq(st_replay_run(rp, err, sizeof(err)), 0, "%s",
			     err);
		cr_expect_float_eq(PRED(rp, 0), want[0], 1e-9);
		cr_expect_float_eq(PRED(rp, 1), want[1], 1e-9);
		cr_expect_float_eq(st_replay_stats(rp)->path.comm_ns, path,
				   1e-9);
		cr_expect_eq(st_replay_stats(rp)->records, recs);
		cr_assert_eq(colls_asked, pure ? 2 : 3);
		cr_assert_eq(f.asked, 2);
		st_replay_free(rp);
	}
	free_scripts(s, 2);
}

Test(tools_replay, first_call_is_not_charged_to_measured_costs)
{
	struct firsts f = { .c = { .coll = 50, .local = 5, .xfer = 100,
				   .missing = ST_FN_MPI_ALLREDUCE },
			    .at8 = 1000, .other = 3000 };
	struct st_replay_model m = { &f, c_coll, c_p2p, NULL, c_coll_first,
				     NULL, 0, NULL, NULL };
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	three_allreduces(s);
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0, "%s",
		     err);
	/* The measured 999 per instance, nothing more. */
	cr_expect_float_eq(PRED(rp, 0), 100 + 3 * (999 + 10), 1e-9);
	cr_expect_eq(f.asked, 0);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, first_call_excess_reaches_every_member)
{
	struct firsts f = { .c = { .coll = 50, .local = 5, .xfer = 100 },
			    .at8 = 1000, .other = 3000 };
	struct st_replay_model m = { &f, c_coll, c_p2p, NULL, c_coll_first,
				     NULL, 0, NULL, NULL };
	struct script s[2];
	struct st_replay *rp;
	char err[256];
	int r;

	/* The root leaves before the late non-root arrives: both pay. */
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], r ? 1000 : 0);
		s_coll(&s[r], ST_FN_MPI_BCAST, 1, 1)->root = 0;
		s_coll(&s[r], ST_FN_MPI_BCAST, 2, 1)->root = 0;
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0, "%s",
		     err);
	/* Root: 1050, then 1100; rank 1: 1000 + 1050, then 2100. */
	cr_expect_float_eq(PRED(rp, 0), 1100, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 2100, 1e-9);
	cr_expect_eq(f.asked, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, persistent_collective_starts_at_mpi_start)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 3;
	char err[256];
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		e = s_coll(&s[r], ST_FN_MPI_ALLREDUCE_INIT, 1, 10);
		e->req = req;
		s_compute(&s[r], r ? 390 : 90);
		s_call(&s[r], ST_FN_MPI_START, 10);
		e = s_add(&s[r]);
		e->kind = ST_REC_START;
		e->fn = ST_FN_MPI_ALLREDUCE_INIT;
		e->req = req;
		e->comm = WORLD;
		e->comm_size = 2;
		e->seq = 2;
		e->inst = 1;
		e->t0 = s[r].t - 10;
		e->t1 = s[r].t;
		s_compute(&s[r], 90);
		s_wait(&s[r], ST_FN_MPI_WAIT, &req, 1, 1000);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Starts at 100 and 400: done at 450, which rank 0's Wait (200)
	 * waits for; rank 1's Wait (500) does not wait. */
	cr_expect_float_eq(PRED(rp, 0), 450, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 500, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/* MPI_Start of persistent request 'req' (its init had 'seq'): instance
 * 'inst', at the current time. */
static void s_start(struct script *s, unsigned fn, uint64_t req,
		    uint64_t seq, uint32_t inst, int root)
{
	struct st_event *e;

	s_call(s, ST_FN_MPI_START, 0);
	e = s_add(s);
	e->kind = ST_REC_START;
	e->fn = (uint16_t)fn;
	e->req = req;
	e->comm = WORLD;
	e->comm_size = (uint32_t)s->size;
	e->seq = seq;
	e->inst = inst;
	e->root = root;
	e->t0 = e->t1 = s->t;
}

Test(tools_replay, persistent_instances_are_told_apart)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 5;
	char err[256];
	int r;

	/* The root starts both instances before rank 1 starts either. */
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		e = s_coll(&s[r], ST_FN_MPI_BCAST_INIT, 1, 0);
		e->req = req;
		e->root = 0;
		s_compute(&s[r], r ? 1000 : 0);
		s_start(&s[r], ST_FN_MPI_BCAST_INIT, req, 1, 1, 0);
		s_wait(&s[r], ST_FN_MPI_WAIT, &req, 1, 0);
		s_compute(&s[r], r ? 1000 : 50);
		s_start(&s[r], ST_FN_MPI_BCAST_INIT, req, 1, 2, 0);
		s_wait(&s[r], ST_FN_MPI_WAIT, &req, 1, 0);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Root: 0 + 50, then 100 + 50; rank 1: 1000 + 50, 2050 + 50. */
	cr_expect_float_eq(PRED(rp, 0), 150, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 2100, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, threads_of_a_rank_replay_apart)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	const struct st_replay_fn *f;
	char err[256];

	/* Rank 0: the main thread computes to 4000; thread 1's Allreduce
	 * on a duplicate (its records last in the file) enters at 1000. */
	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], 4000);
	s_finalize(&s[0]);
	e = s_add(&s[0]);
	e->kind = ST_REC_COMM;
	e->thread = 1;
	e->comm = DUP;
	e->comm_size = 2;
	e->rank = 0;
	e->t0 = e->t1 = 1500;
	e = s_add(&s[0]);
	e->kind = ST_REC_CALL;
	e->thread = 1;
	e->fn = ST_FN_MPI_ALLREDUCE;
	e->comm = DUP;
	e->comm_size = 2;
	e->seq = 1;
	e->t0 = 2000;
	e->t1 = 2100;
	s_init(&s[1], 1, 2, 0);
	e = s_add(&s[1]);
	e->kind = ST_REC_COMM;
	e->comm = DUP;
	e->comm_size = 2;
	e->rank = 1;
	s_compute(&s[1], 3000);
	e = s_coll(&s[1], ST_FN_MPI_ALLREDUCE, 1, 100);
	e->comm = DUP;
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_float_eq(PRED(rp, 0), 4000, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 3050, 1e-9);
	f = fn_of(rp, ST_FN_MPI_ALLREDUCE);
	cr_assert(f);
	cr_expect_float_eq(f->pred_ns, (3050 - 1000) + 50, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, missing_cost_falls_back_to_measured)
{
	struct consts c = model_c;
	struct script s[2];
	struct st_replay *rp;
	const struct st_replay_fn *f;
	char err[256];
	int r;

	c.missing = ST_FN_MPI_BCAST;
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_coll(&s[r], ST_FN_MPI_BARRIER, 1, 5);
		s_coll(&s[r], ST_FN_MPI_BCAST, 2, r ? 70 : 90)->root = 0;
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	f = fn_of(rp, ST_FN_MPI_BCAST);
	cr_assert(f);
	cr_expect_eq(f->n_missing, 2);
	cr_expect_eq(f->n_model, 0);
	cr_expect_eq(fn_of(rp, ST_FN_MPI_BARRIER)->n_model, 2);
	/* The root leaves at once with its own measured 90 (the only
	 * duration known then); the non-root no earlier. */
	cr_expect_float_eq(PRED(rp, 0), 50 + 90, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 50 + 90, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, nonblocking_without_p2p_model_is_flagged)
{
	struct consts c = model_c;
	struct st_replay *rp;
	const struct st_replay_fn *f;
	char err[256];
	struct script s[2];
	struct st_event *e;
	uint64_t req = 1;

	c.no_p2p = 1;
	s_init(&s[0], 0, 2, 0);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, 8, 40);
	e->req = req;
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 5);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 8, 10);
	e->req = req;
	s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 5);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	f = fn_of(rp, ST_FN_MPI_ISEND);
	cr_assert(f);
	cr_expect_eq(f->n_op_missing, 1);
	cr_expect_eq(fn_of(rp, ST_FN_MPI_IRECV)->n_op_missing, 1);
	/* The message arrives when the Isend (40 ns) returned. */
	cr_expect_float_eq(PRED(rp, 1), 40, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/*
 * Rank 0 computes 'late', then Isends (40 ns) and Waits; rank 1 Irecvs
 * (10 ns), computes 100 and Waits 'wait_ns' (blocking: one MPI_Recv of
 * 'wait_ns' instead), on local clocks with different origins.  No p2p
 * model: the replay falls back on measured times.  Rank 1's predicted
 * run time, and its Wait's (Recv's) predicted waiting into '*wait'.
 */
static double measured_tail(uint64_t late, uint64_t wait_ns, int blocking,
			    int global, double *wait)
{
	struct consts c = model_c;
	struct st_replay *rp;
	struct script s[2];
	struct st_event *e;
	uint64_t req = 4;
	char err[256];
	double pred;
	unsigned fn = blocking ? ST_FN_MPI_RECV : ST_FN_MPI_WAIT;

	c.no_p2p = 1;
	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], late);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, 8, 40);
	e->req = req;
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 5);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 7000);
	if (!blocking) {
		e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 8, 10);
		e->req = req;
		s_compute(&s[1], 100);
		s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, wait_ns);
	} else {
		s_compute(&s[1], 110);
		s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 8, wait_ns);
	}
	s_finalize(&s[1]);
	cr_assert_eq(replay_g(s, 2, &c, 1, global, &rp, err, sizeof(err)),
		     0, "%s", err);
	pred = PRED(rp, 1);
	cr_assert(fn_of(rp, fn));
	*wait = fn_of(rp, fn)->wait_ns;
	st_replay_free(rp);
	free_scripts(s, 2);
	return pred;
}

Test(tools_replay, missing_receive_keeps_its_measured_work)
{
	double wait;

	/*
	 * The message was there (global 1040) before the Wait began (1110):
	 * all of its 70 ns were its own work.  Without global time the
	 * replay cannot tell, and charges nothing.
	 */
	cr_expect_float_eq(measured_tail(0, 70, 0, 1, &wait), 110 + 70,
			   1e-9);
	cr_expect_float_eq(wait, 0, 1e-9);
	cr_expect_float_eq(measured_tail(0, 70, 0, 0, &wait), 110, 1e-9);
	/*
	 * It came at 1240 into a Wait of 1110..1270: 130 ns waiting, then
	 * 30 of work, which is what the replay reproduces, blocking or not.
	 */
	cr_expect_float_eq(measured_tail(200, 160, 0, 1, &wait), 270, 1e-9);
	cr_expect_float_eq(wait, 130, 1e-9);
	cr_expect_float_eq(measured_tail(200, 160, 1, 1, &wait), 270, 1e-9);
	cr_expect_float_eq(wait, 130, 1e-9);
	cr_expect_float_eq(measured_tail(200, 160, 0, 0, &wait), 240, 1e-9);
	/* A sender later than the receiver measured: the tail is 0. */
	cr_expect_float_eq(measured_tail(300, 160, 0, 1, &wait), 340, 1e-9);
}

/* Rank 0: Isend (measured 'isend_ns'), compute 10, Wait; 1: Recv. */
static void isend_then_wait(const struct consts *c, uint64_t isend_ns,
			    double *pred0, double *pred1, double *isend_pred,
			    uint64_t *isend_model)
{
	struct script s[2];
	struct st_replay *rp;
	const struct st_replay_fn *f;
	struct st_event *e;
	uint64_t req = 3;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, 8, isend_ns);
	e->req = req;
	s_compute(&s[0], 10);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 8, 500);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*pred0 = PRED(rp, 0);
	*pred1 = PRED(rp, 1);
	f = fn_of(rp, ST_FN_MPI_ISEND);
	cr_assert(f);
	*isend_pred = f->pred_ns;
	*isend_model = f->n_model;
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, send_start_costs_the_models_injection)
{
	struct consts c = model_c;
	double p0, p1, isend;
	uint64_t n_model;

	/* No injection cost: the Isend takes its measured 40 ns. */
	isend_then_wait(&c, 40, &p0, &p1, &isend, &n_model);
	cr_expect_float_eq(isend, 40, 1e-9);
	cr_expect_eq(n_model, 0);
	cr_expect_float_eq(p0, 40 + 10, 1e-9);
	/* With one, the sender is busy 30 ns whatever it measured... */
	c.inject = 30;
	isend_then_wait(&c, 40, &p0, &p1, &isend, &n_model);
	cr_expect_float_eq(isend, 30, 1e-9);
	cr_expect_eq(n_model, 1);
	cr_expect_float_eq(p0, 30 + 10, 1e-9);
	isend_then_wait(&c, 1, &p0, &p1, &isend, &n_model);
	cr_expect_float_eq(p0, 30 + 10, 1e-9);
	/* ...and the message still leaves at the Isend's entry. */
	cr_expect_float_eq(p1, 100 + 5, 1e-9);
	/* A function the model lacks: measured again. */
	c.missing = ST_FN_MPI_ISEND;
	isend_then_wait(&c, 40, &p0, &p1, &isend, &n_model);
	cr_expect_float_eq(isend, 40, 1e-9);
}

/*
 * The network model (struct st_replay_msg): a send costs 10 of its own
 * once its turn comes, a transfer 100, each message holds the ports 50,
 * a late receive takes 20, a rendezvous send 30 after a late receive;
 * starting a send costs 5.  Messages of 1000 B and more wait for their
 * receive.
 */
static const struct consts net_c = {
	.coll = 50, .local = 5, .xfer = 100, .inject = 5, .net = 1,
	.nm = { .send_ns = 10, .xfer_ns = 100, .gap_ns = 50, .late_ns = 20,
		.rndv_send_ns = 30 },
	.rndv_from = 1000,
};

/*
 * Rank 0 starts 'k' messages of 'bytes' to rank 1 at once and waits
 * for them; rank 1 posts its 'k' receives first and waits.
 */
static void burst(const struct consts *c, int k, uint64_t bytes,
		  double *p0, double *p1)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[8];
	char err[256];
	int i;

	s_init(&s[0], 0, 2, 0);
	s_init(&s[1], 1, 2, 0);
	for (i = 0; i < k; i++) {
		req[i] = (uint64_t)i + 1;
		e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, bytes, 1);
		e->req = req[i];
		e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 0, 1);
		e->req = req[i];
	}
	s_wait(&s[0], ST_FN_MPI_WAITALL, req, (size_t)k, 1);
	s_wait(&s[1], ST_FN_MPI_WAITALL, req, (size_t)k, 1);
	s_finalize(&s[0]);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, messages_in_flight_share_the_ports)
{
	struct consts c = net_c;
	double p0, p1;

	/*
	 * The sends start at 0, 5, 10, 15 (5 each); their turns at the
	 * port come every 50: 0, 50, 100, 150.  The last send is done at
	 * 160, the last receive at 150 + 100.
	 */
	burst(&c, 4, 64, &p0, &p1);
	cr_expect_float_eq(p0, 160, 1e-9);
	cr_expect_float_eq(p1, 250, 1e-9);
	/* One message: what a lone transfer takes. */
	burst(&c, 1, 64, &p0, &p1);
	cr_expect_float_eq(p0, 10, 1e-9);
	cr_expect_float_eq(p1, 100, 1e-9);
	/* No gap: the four overlap, as the replay had them without it. */
	c.nm.gap_ns = 0;
	burst(&c, 4, 64, &p0, &p1);
	cr_expect_float_eq(p0, 15 + 10, 1e-9);
	cr_expect_float_eq(p1, 15 + 100, 1e-9);
}

/*
 * Rank 0 sends one message of 'bytes' to rank 1, by MPI_Isend and
 * MPI_Wait when 'nbs', else MPI_Send; rank 1 receives it by MPI_Irecv
 * and MPI_Wait when 'nbr', else MPI_Recv.  Rank 1's run time.
 */
static double one_message(const struct consts *c, int nbs, int nbr,
			  uint64_t bytes)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 1;
	char err[256];
	double end;

	s_init(&s[0], 0, 2, 0);
	s_init(&s[1], 1, 2, 0);
	if (nbr) {
		e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 0, 1);
		e->req = req;
		s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 1);
	} else {
		s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, bytes, 1);
	}
	if (nbs) {
		e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, bytes, 1);
		e->req = req;
		s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	} else {
		s_p2p(&s[0], ST_FN_MPI_SEND, 1, 0, bytes, 1);
	}
	s_finalize(&s[0]);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	end = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
	return end;
}

Test(tools_replay, nonblocking_messages_take_the_bursts_transfer)
{
	struct consts c = net_c;
	double p0, p1, rv, rv_nb;

	/*
	 * The burst of one message (xfer_nb_ns, 60) is the transfer
	 * between an MPI_Isend and an MPI_Irecv completed by a Wait: the
	 * replay gives the burst pattern its own cost, B(1) + (K - 1) gap.
	 */
	c.nm.xfer_nb_ns = 60;
	burst(&c, 1, 64, &p0, &p1);
	cr_expect_float_eq(p1, 60, 1e-9);
	burst(&c, 4, 64, &p0, &p1);
	cr_expect_float_eq(p1, 150 + 60, 1e-9);
	/* A blocking side keeps the ping-pong's 100. */
	cr_expect_float_eq(one_message(&c, 0, 0, 64), 100, 1e-9);
	cr_expect_float_eq(one_message(&c, 1, 0, 64), 100, 1e-9);
	cr_expect_float_eq(one_message(&c, 0, 1, 64), 100, 1e-9);
	cr_expect_float_eq(one_message(&c, 1, 1, 64), 60, 1e-9);
	/* A rendezvous transfer whose receive came first: the same. */
	rv_nb = one_message(&c, 1, 1, 2000);
	c.nm.xfer_nb_ns = 0;	/* none: the ping-pong's, as before */
	rv = one_message(&c, 1, 1, 2000);
	cr_expect_float_eq(rv - rv_nb, 100 - 60, 1e-9);
	burst(&c, 1, 64, &p0, &p1);
	cr_expect_float_eq(p1, 100, 1e-9);
}

/*
 * Both ranks post 'k' receives from each other, start 'k' sends of
 * 'bytes' to each other and wait for all; the later rank's run time.
 */
static double exchange(const struct consts *c, int k, uint64_t bytes)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[16];
	char err[256];
	double end;
	int i, r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		for (i = 0; i < k; i++) {
			req[i] = (uint64_t)i + 1;
			e = s_p2p(&s[r], ST_FN_MPI_IRECV, 1 - r, i, 0, 1);
			e->req = req[i];
		}
		for (i = 0; i < k; i++) {
			req[k + i] = (uint64_t)(k + i) + 1;
			e = s_p2p(&s[r], ST_FN_MPI_ISEND, 1 - r, i, bytes, 1);
			e->req = req[k + i];
		}
		s_wait(&s[r], ST_FN_MPI_WAITALL, req, 2 * (size_t)k, 1);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	end = PRED(rp, 0) > PRED(rp, 1) ? PRED(rp, 0) : PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
	return end;
}

Test(tools_replay, rendezvous_both_ways_share_the_ports_as_measured)
{
	struct consts c = net_c;
	double apart, shared, half, eager, eager1;

	/*
	 * Two rendezvous messages each way; the receives are posted at 0
	 * and 1, the sends start at 2 and 7 (5 each), the Waitall at 12.
	 * The first transfers go at 2 and 7 (when the receiving rank next
	 * enters MPI).  Directions apart (share 0): each rank's second
	 * transfer takes its out-port a gap (50) after its first, 52 and
	 * 57, and is received 100 later: 157.
	 */
	c.nm.share = 0;
	apart = exchange(&c, 2, 2000);
	cr_expect_float_eq(apart, 157, 1e-9);
	/*
	 * One port per rank (share 1): the four transfers take turns,
	 * at 2, 52, 102 and 152; the last is received at 252.
	 */
	c.nm.share = 1;
	shared = exchange(&c, 2, 2000);
	cr_expect_float_eq(shared, 252, 1e-9);
	c.nm.share = 0.5;
	half = exchange(&c, 2, 2000);
	cr_expect(half > apart && half < shared, "half %.1f", half);
	/*
	 * Eager messages too (in shared memory a 512 B MPI_Sendrecv costs
	 * a gap more than a ping-pong): apart, each rank's second message
	 * leaves its out-port at 52 and is received at 152; with one port
	 * per rank the four take turns, as above: 252.
	 */
	c.nm.share = 0;
	eager = exchange(&c, 2, 64);
	c.nm.share = 1;
	eager1 = exchange(&c, 2, 64);
	cr_expect_float_eq(eager, 152, 1e-9);
	cr_expect_float_eq(eager1, 252, 1e-9);
}

Test(tools_replay, one_message_each_way_costs_the_share_of_a_gap)
{
	struct consts c = net_c;
	double apart, half, k4[3];
	int i;

	/*
	 * The share is measured as one message each way against one alone
	 * (MPI_Sendrecv against the ping-pong: share x gap more), so an
	 * eager pair sent together ends share x gap (0.5 x 50) after the
	 * pair apart (37.5 when a transfer also held the other direction's
	 * ports).
	 */
	c.nm.share = 0;
	apart = exchange(&c, 1, 64);
	c.nm.share = 0.5;
	half = exchange(&c, 1, 64);
	cr_expect_float_eq(half - apart, 25, 1e-9, "%.2f", half - apart);
	/*
	 * Rendezvous, the second transfer starts 5 after the first (when
	 * its receiver next enters MPI): share x what is left of the
	 * first's gap, 0.5 x 45 (32.5 with the holds).
	 */
	c.nm.share = 0;
	apart = exchange(&c, 1, 2000);
	c.nm.share = 0.5;
	half = exchange(&c, 1, 2000);
	cr_expect_float_eq(half - apart, 22.5, 1e-9, "%.2f", half - apart);
	/*
	 * Four rendezvous messages each way: the transfers the other way
	 * are held up by the share of what is queued, at most share x the
	 * four gaps in all, not made to wait for the last of the first
	 * direction's four (82.5 more at share 0.25 with the holds).
	 */
	for (i = 0; i < 3; i++) {
		c.nm.share = i * 0.25;
		k4[i] = exchange(&c, 4, 2000);
	}
	cr_expect(k4[1] > k4[0] && k4[2] > k4[1], "%.2f %.2f %.2f", k4[0],
		  k4[1], k4[2]);
	cr_expect(k4[1] - k4[0] <= 0.25 * 4 * 50 &&
		  k4[2] - k4[0] <= 0.5 * 4 * 50, "%.2f %.2f %.2f", k4[0],
		  k4[1], k4[2]);
}

Test(tools_replay, one_each_way_costs_the_exchange_row_where_given)
{
	struct consts c = net_c;
	double apart, shared, row, k4, k4row;

	/*
	 * Where the model has the cost of one exchange (xone_ns, from the
	 * table's exchange row), a lone exchange ends that cost after the
	 * later transfer's turn, whatever the share: the later of the two
	 * (its turn 5 after the first's, its own cost the ping-pong's 100)
	 * ends 7 after it would alone, for a row of 107, where the share
	 * alone would add 0.5 x 45.
	 */
	c.nm.share = 0;
	apart = exchange(&c, 1, 2000);
	c.nm.share = 0.5;
	shared = exchange(&c, 1, 2000);
	c.nm.xone_ns = 107;
	row = exchange(&c, 1, 2000);
	cr_expect_float_eq(shared - apart, 22.5, 1e-9, "%.2f", shared - apart);
	cr_expect_float_eq(row - apart, 7, 1e-9, "%.2f", row - apart);
	/*
	 * K each way: the other direction holds more than one transfer
	 * when the first of this one's takes its turn, so the share
	 * spaces the pairs as before; the row only touches the pairs whose
	 * other direction is down to its last.
	 */
	c.nm.xone_ns = 0;
	k4 = exchange(&c, 4, 2000);
	c.nm.xone_ns = 107;
	k4row = exchange(&c, 4, 2000);
	cr_expect(k4row > apart && k4row <= k4, "%.2f %.2f", k4row, k4);
}

Test(tools_replay, k_each_way_spaced_as_the_share_of_the_model_says)
{
	struct consts c = net_c;
	double spacing[] = { 50, 55, 60, 75, 90, 100 }, s, e4, e8;
	size_t i;

	/*
	 * predict sets the share of a rendezvous exchange from the pairs'
	 * spacing S that K messages each way measured, as 2 (1 - g / S)
	 * (tools/analysis/predict-model.c): the replay must then space K
	 * pairs each way S apart, the four more of 8 against 4 each way
	 * within 2 % (and 1 ns a pair for the two more MPI_Isend calls).
	 * (A share of S / g - 1 spaced them 5 to 11 % too close.)
	 */
	for (i = 0; i < sizeof(spacing) / sizeof(spacing[0]); i++) {
		s = spacing[i];
		c.nm.share = 2 * (1 - c.nm.gap_ns / s);
		e4 = exchange(&c, 4, 2000);
		e8 = exchange(&c, 8, 2000);
		cr_expect(fabs((e8 - e4) / 4 - 1 - s) <= 0.02 * s,
			  "spacing %.0f: %.2f a pair", s, (e8 - e4) / 4);
	}
}

Test(tools_replay, messages_to_one_rank_share_its_in_port)
{
	struct script s[3];
	struct st_replay *rp;
	char err[256];
	int r;

	/* Ranks 0 and 2 send to 1 at once: 1 takes them one by one. */
	for (r = 0; r < 3; r++)
		s_init(&s[r], r, 3, 0);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 0, 64, 1);
	s_p2p(&s[2], ST_FN_MPI_SEND, 1, 0, 64, 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 64, 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 2, 0, 64, 1);
	for (r = 0; r < 3; r++)
		s_finalize(&s[r]);
	cr_assert_eq(replay(s, 3, &net_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Each sender has its own out-port: both done at 10. */
	cr_expect_float_eq(PRED(rp, 0), 10, 1e-9);
	cr_expect_float_eq(PRED(rp, 2), 10, 1e-9);
	/* The second message gets the in-port at 50: there at 150. */
	cr_expect_float_eq(PRED(rp, 1), 150, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 3);
}

/*
 * Rank 0 sends 'bytes' after 'w0' of compute, rank 1 receives after
 * 'w1'; the two predicted run times.
 */
static void late_pair(const struct consts *c, unsigned fn, uint64_t bytes,
		      uint64_t w0, uint64_t w1, double *p0, double *p1)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], w0);
	s_p2p(&s[0], fn, 1, 0, bytes, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], w1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, bytes, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, rendezvous_send_waits_for_its_receive)
{
	double p0, p1;

	/* Eager: the send is done at 10; the late receive at 5000 + 20. */
	late_pair(&net_c, ST_FN_MPI_SEND, 64, 0, 5000, &p0, &p1);
	cr_expect_float_eq(p0, 10, 1e-9);
	cr_expect_float_eq(p1, 5020, 1e-9);
	/* Rendezvous: nothing moves before 5000; send 30, receive 20 on. */
	late_pair(&net_c, ST_FN_MPI_SEND, 4096, 0, 5000, &p0, &p1);
	cr_expect_float_eq(p0, 5030, 1e-9);
	cr_expect_float_eq(p1, 5020, 1e-9);
	/* The receive first: the transfer's 100 from the send's entry. */
	late_pair(&net_c, ST_FN_MPI_SEND, 4096, 5000, 0, &p0, &p1);
	cr_expect_float_eq(p0, 5100, 1e-9);
	cr_expect_float_eq(p1, 5100, 1e-9);
	/* A synchronous send is a rendezvous at any size. */
	late_pair(&net_c, ST_FN_MPI_SSEND, 64, 0, 5000, &p0, &p1);
	cr_expect_float_eq(p0, 5030, 1e-9);
}

/*
 * Rank 0 computes 'w0' and sends 'bytes' to rank 1, which computes 'w1'
 * and receives them: by MPI_Send and MPI_Recv, or (sr) by MPI_Sendrecv
 * with the other half MPI_PROC_NULL, as the ends of a non-periodic
 * shift have it.
 */
static void shift_end(const struct consts *c, int sr, uint64_t bytes,
		      uint64_t w0, uint64_t w1, double *p0, double *p1)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], w0);
	e = s_p2p(&s[0], sr ? ST_FN_MPI_SENDRECV : ST_FN_MPI_SEND, 1, 0,
		  bytes, 1);
	if (sr) {
		e->peer2 = ST_RANK_PROC_NULL;
		e->tag2 = 0;
	}
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], w1);
	e = s_p2p(&s[1], sr ? ST_FN_MPI_SENDRECV : ST_FN_MPI_RECV,
		  sr ? ST_RANK_PROC_NULL : 0, 0, bytes, 1);
	if (sr) {
		e->sbytes = 0;
		e->rbytes = bytes;
		e->peer2 = 0;
		e->tag2 = 0;
	}
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, half_null_sendrecv_moves_one_message)
{
	struct consts c = model_c, n = net_c;
	double a0, a1, b0, b1;

	/*
	 * MPI_Sendrecv's row (local 7, transfer 300) is two messages
	 * crossing; with one half MPI_PROC_NULL a single one moves, costed
	 * as MPI_Send and MPI_Recv: sent at 5, received at 100 + 5.
	 */
	c.sr_local = 7;
	c.sr_xfer = 300;
	shift_end(&c, 1, 8, 0, 0, &a0, &a1);
	shift_end(&c, 0, 8, 0, 0, &b0, &b1);
	cr_expect_float_eq(a0, 5, 1e-9);
	cr_expect_float_eq(a1, 105, 1e-9);
	cr_expect_float_eq(a0, b0, 1e-9);
	cr_expect_float_eq(a1, b1, 1e-9);
	/* The receive late: it takes the message on its post + 5. */
	shift_end(&c, 1, 8, 0, 1000, &a0, &a1);
	cr_expect_float_eq(a1, 1005, 1e-9);
	/* Under the network model, eager and rendezvous, as the pair. */
	n.sr_local = 7;
	n.sr_xfer = 300;
	shift_end(&n, 1, 64, 0, 0, &a0, &a1);
	shift_end(&n, 0, 64, 0, 0, &b0, &b1);
	cr_expect_float_eq(a0, 10, 1e-9);
	cr_expect_float_eq(a1, 100, 1e-9);
	cr_expect_float_eq(a1, b1, 1e-9);
	shift_end(&n, 1, 4096, 0, 5000, &a0, &a1);
	shift_end(&n, 0, 4096, 0, 5000, &b0, &b1);
	cr_expect_float_eq(a0, 5030, 1e-9);
	cr_expect_float_eq(a0, b0, 1e-9);
	cr_expect_float_eq(a1, b1, 1e-9);
	/* A model without MPI_Send's cost keeps MPI_Sendrecv's row. */
	c.missing = ST_FN_MPI_SEND;
	shift_end(&c, 1, 8, 0, 0, &a0, &a1);
	cr_expect_float_eq(a0, 7, 1e-9);
}

/* Both ranks start a transfer of 'bytes', compute 3000, then wait. */
static void overlapped(const struct consts *c, uint64_t bytes,
		       uint64_t work, double *p0, double *p1)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 7;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, bytes, 1);
	e->req = req;
	s_compute(&s[0], work);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 0, 1);
	e->req = req;
	s_compute(&s[1], work);
	s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, nonblocking_transfers_overlap_compute)
{
	double p0, p1;

	/* Eager or rendezvous, the 100 of the transfer hide in 3000. */
	overlapped(&net_c, 64, 3000, &p0, &p1);
	cr_expect_float_eq(p0, 5 + 3000, 1e-9);
	cr_expect_float_eq(p1, 1 + 3000, 1e-9);
	overlapped(&net_c, 4096, 3000, &p0, &p1);
	cr_expect_float_eq(p0, 5 + 3000, 1e-9);
	cr_expect_float_eq(p1, 1 + 3000, 1e-9);
	/* Little compute: the waits wait for it (both posted at 0). */
	overlapped(&net_c, 4096, 10, &p0, &p1);
	cr_expect_float_eq(p0, 100, 1e-9);
	cr_expect_float_eq(p1, 100, 1e-9);
}

/*
 * Rank 0 starts a send of 'bytes' at 0 and computes 3000 before its
 * Wait; rank 1 posts the receive at 10 and computes 3000 before its,
 * or ('blocking') receives it by MPI_Recv at 10.
 */
static void send_first(const struct consts *c, uint64_t bytes, int blocking,
		       double *p0, double *p1)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 9;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, bytes, 1);
	e->req = req;
	s_compute(&s[0], 3000);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], 10);
	if (blocking) {
		s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 0, 1);
	} else {
		e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 0, 1);
		e->req = req;
		s_compute(&s[1], 3000);
		s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 1);
	}
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/*
 * Rank 0 computes 'late0' and sends rank 1 64 B by MPI_Send (eager
 * under net_c); rank 1 computes 'late1', finds the message by MPI_Probe
 * and receives it by an MPI_Recv that took 3 in the trace.  Returns the
 * predicted time of rank 1's MPI_Probe into '*probe', of its MPI_Recv
 * into '*recv'.
 */
static void probe_then_recv(uint64_t late0, uint64_t late1, double *probe,
			    double *recv)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], late0);
	s_p2p(&s[0], ST_FN_MPI_SEND, 1, 1, 64, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], late1);
	s_p2p(&s[1], ST_FN_MPI_PROBE, 0, 1, 0, 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 1, 64, 3);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &net_c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*probe = fn_of(rp, ST_FN_MPI_PROBE)->pred_ns;
	*recv = fn_of(rp, ST_FN_MPI_RECV)->pred_ns;
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, a_probe_takes_in_the_eager_message_it_finds)
{
	double probe, recv;

	/*
	 * The message is in by 100 (its transfer); a probe at 1000 takes
	 * it in, the late-receive cost (20), and the receive only copies
	 * it, as long as it took in the trace (3).
	 */
	probe_then_recv(0, 1000, &probe, &recv);
	cr_expect_float_eq(probe, 20, 1e-9, "%g", probe);
	cr_expect_float_eq(recv, 3, 1e-9, "%g", recv);
	/*
	 * A probe posted at 10 returns when the data are in, at 100 (not
	 * with the envelope, 20 before); the receive copies from there.
	 */
	probe_then_recv(0, 10, &probe, &recv);
	cr_expect_float_eq(probe, 90, 1e-9, "%g", probe);
	cr_expect_float_eq(recv, 3, 1e-9, "%g", recv);
	/*
	 * The probe there first (at 10), the message sent at 500: the send
	 * wakes it, and it returns when the data are in, at 600.
	 */
	probe_then_recv(500, 10, &probe, &recv);
	cr_expect_float_eq(probe, 590, 1e-9, "%g", probe);
	cr_expect_float_eq(recv, 3, 1e-9, "%g", recv);
}

/*
 * Ranks 0 and 2 each send rank 1 64 B at 0 by MPI_Send; rank 1 computes
 * 10 and takes rank 0's message, then rank 2's, each by an MPI_Probe
 * and an MPI_Recv that took 3 in the trace ('probe'), or by an MPI_Recv
 * alone.  Returns rank 1's predicted run time.
 */
static double two_senders(int probe, double *probes)
{
	struct script s[3];
	struct st_replay *rp;
	char err[256];
	double p1;
	int r;

	for (r = 0; r < 3; r += 2) {
		s_init(&s[r], r, 3, 0);
		s_p2p(&s[r], ST_FN_MPI_SEND, 1, r, 64, 1);
		s_finalize(&s[r]);
	}
	s_init(&s[1], 1, 3, 0);
	s_compute(&s[1], 10);
	for (r = 0; r < 3; r += 2) {
		if (probe)
			s_p2p(&s[1], ST_FN_MPI_PROBE, r, r, 0, 1);
		s_p2p(&s[1], ST_FN_MPI_RECV, r, r, 64, 3);
	}
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 3, &net_c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	p1 = PRED(rp, 1);
	*probes = probe ? fn_of(rp, ST_FN_MPI_PROBE)->pred_ns : 0;
	st_replay_free(rp);
	free_scripts(s, 3);
	return p1;
}

Test(tools_replay, a_probed_message_takes_its_turn_at_the_port)
{
	double p, probes;

	/*
	 * Received: rank 0's message is in at 100 and holds rank 1's port
	 * until 50; rank 2's takes its turn there and is in at 150.
	 */
	p = two_senders(0, &probes);
	cr_expect_float_eq(p, 150, 1e-9, "%g", p);
	/*
	 * Probed, the same: the first probe returns at 100 (90), its
	 * receive copies until 103, the second probe waits for rank 2's
	 * message until 150 (47; not 20, the late-receive cost, as if it
	 * had had the port to itself) and its receive copies until 153.
	 */
	p = two_senders(1, &probes);
	cr_expect_float_eq(probes, 90 + 47, 1e-9, "%g", probes);
	cr_expect_float_eq(p, 153, 1e-9, "%g", p);
}

/*
 * Rank 0 makes two persistent sends of 64 B to rank 1 (tags 0 and 1),
 * starts both by one MPI_Startall that took 'dur' in the trace and
 * waits for them; rank 1 receives both.  Model 'c'.  Returns the
 * MPI_Startall's predicted time, the arrival of the second message at
 * rank 1 (its run time) into '*p1'.
 */
static double startall_two(const struct consts *c, uint64_t dur, double *p1)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[2] = { 1, 2 };
	char err[256];
	double p;
	int i;

	s_init(&s[0], 0, 2, 0);
	for (i = 0; i < 2; i++) {
		e = s_p2p(&s[0], ST_FN_MPI_SEND_INIT, 1, i, 64, 0);
		e->req = req[i];
	}
	s_call(&s[0], ST_FN_MPI_STARTALL, dur);
	for (i = 0; i < 2; i++) {
		e = s_add(&s[0]);
		e->kind = ST_REC_START;
		e->fn = ST_FN_MPI_SEND_INIT;
		e->req = req[i];
		e->comm = WORLD;
		e->comm_size = 2;
		e->t0 = s[0].t - dur;
		e->t1 = s[0].t;
	}
	s_wait(&s[0], ST_FN_MPI_WAITALL, req, 2, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	for (i = 0; i < 2; i++)
		s_p2p(&s[1], ST_FN_MPI_RECV, 0, i, 64, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	p = fn_of(rp, ST_FN_MPI_STARTALL)->pred_ns;
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
	return p;
}

Test(tools_replay, a_persistent_send_costs_its_start_what_an_isend_costs)
{
	struct consts c = net_c;
	double p, p1;

	/*
	 * Under the network model each send costs its start what an
	 * MPI_Isend of its size costs (5), not the traced 1 of the whole
	 * call; the second message takes its turn at the ports at 50 and
	 * is in at 150.
	 */
	p = startall_two(&net_c, 1, &p1);
	cr_expect_float_eq(p, 10, 1e-9, "%g", p);
	cr_expect_float_eq(p1, 150, 1e-9, "%g", p1);
	/*
	 * An MPI_Isend costing 80: the second send leaves after the first
	 * one's 80, in at 180.
	 */
	c.inject = 80;
	p = startall_two(&c, 1, &p1);
	cr_expect_float_eq(p, 160, 1e-9, "%g", p);
	cr_expect_float_eq(p1, 180, 1e-9, "%g", p1);
	/* Without the model, the call keeps its traced time. */
	p = startall_two(&model_c, 1, &p1);
	cr_expect_float_eq(p, 1, 1e-9, "%g", p);
}

Test(tools_replay, rendezvous_waits_for_both_sides_in_mpi)
{
	double p0, p1;

	/*
	 * The receive comes at 10 while the sender computes: nothing moves
	 * until the sender's Wait at 5 + 3000; then 20 for the (late)
	 * receive, 30 for the send.
	 */
	send_first(&net_c, 4096, 0, &p0, &p1);
	cr_expect_float_eq(p0, 3005 + 30, 1e-9);
	cr_expect_float_eq(p1, 3005 + 20, 1e-9);
	/* Eager, the message went at once and was there long before. */
	send_first(&net_c, 64, 0, &p0, &p1);
	cr_expect_float_eq(p0, 5 + 3000, 1e-9);
	cr_expect_float_eq(p1, 11 + 3000, 1e-9);
}

/*
 * The exchange of nm-overlap: each rank posts MPI_Irecv at 0 (1 ns),
 * computes 'late1' (rank 1; rank 0 none), starts MPI_Isend of 'bytes'
 * to the other (5 under net_c), computes 3000 and waits for both
 * (MPI_Waitall).  Model net_c with 'need' and 'xchg'.
 */
static void xchg_pair(int need, double xchg, uint64_t bytes, uint64_t late1,
		     double *p0, double *p1)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[2] = { 1, 2 };
	char err[256];
	int r;

	c.nm.need = need;
	c.nm.xchg_ns = xchg;
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		e = s_p2p(&s[r], ST_FN_MPI_IRECV, 1 - r, 0, 0, 1);
		e->req = req[0];
		s_compute(&s[r], r ? late1 : 0);
		e = s_p2p(&s[r], ST_FN_MPI_ISEND, 1 - r, 0, bytes, 1);
		e->req = req[1];
		s_compute(&s[r], 3000);
		s_wait(&s[r], ST_FN_MPI_WAITALL, req, 2, 1);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/*
 * Rank 0 starts a send of 4096 B at 0 (5), computes 1000, posts an
 * MPI_Irecv from rank 1 at 1005, computes 2000 and waits for both at
 * 3006; rank 1 posts its receive at 10 and waits at once (from 11),
 * then sends rank 0 64 B.  Model net_c with 'need'.
 */
static void icall_between(int need, double *p0, double *p1)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[2] = { 1, 2 };
	char err[256];

	c.nm.need = need;
	s_init(&s[0], 0, 2, 0);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, 4096, 1);
	e->req = req[0];
	s_compute(&s[0], 1000);
	e = s_p2p(&s[0], ST_FN_MPI_IRECV, 1, 3, 0, 1);
	e->req = req[1];
	s_compute(&s[0], 2000);
	s_wait(&s[0], ST_FN_MPI_WAITALL, req, 2, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], 10);
	e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, 0, 0, 1);
	e->req = req[0];
	s_wait(&s[1], ST_FN_MPI_WAIT, req, 1, 1);
	s_p2p(&s[1], ST_FN_MPI_SEND, 0, 3, 64, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, an_icall_does_not_release_what_needs_both_sides)
{
	double p0, p1;

	/*
	 * As before: rank 0's MPI_Irecv at 1005 lets the transfer go; the
	 * receive completes 20 later (it came first... late: 1025), the
	 * send 30; rank 1's 64 B go at 1025 + 10 and arrive 100 later.
	 */
	icall_between(0, &p0, &p1);
	cr_expect_float_eq(p1, 1025 + 10, 1e-9, "%g", p1);
	/*
	 * Needing both sides: only rank 0's MPI_Waitall at 3006 does; the
	 * receive is done at 3026, the 64 B go at 3026 + 10, arrive at
	 * 3126.
	 */
	icall_between(3, &p0, &p1);
	cr_expect_float_eq(p1, 3026 + 10, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 3126, 1e-9, "%g", p0);
}

/*
 * send_first() of 4096 B (rendezvous under net_c), the table having
 * measured ('sender_free') that a busy sender holds up no receive.
 * Returns rank 1's end.
 */
static double sender_computes(int sender_free, int blocking)
{
	struct consts c = net_c;
	double p0, p1;

	c.nm.sender_free = sender_free;
	send_first(&c, 4096, blocking, &p0, &p1);
	return p1;
}

Test(tools_replay, a_sender_the_table_finds_free_does_not_hold_its_receive)
{
	double p1;

	/*
	 * Without the finding, the rendezvous waits for the sender's Wait
	 * at 3005, and the receive ends the late-receive cost (20) after.
	 */
	p1 = sender_computes(0, 1);
	cr_expect_float_eq(p1, 3005 + 20, 1e-9, "%g", p1);
	/*
	 * With it, a receiver blocked in MPI_Recv from 10 takes the data
	 * while the sender computes (a receive probed for a message sent
	 * before): 20 after its post.
	 */
	p1 = sender_computes(1, 1);
	cr_expect_float_eq(p1, 10 + 20, 1e-9, "%g", p1);
	/*
	 * A nonblocking receive moves nothing until its rank is blocked in
	 * a call, though it was posted last: its MPI_Wait at 3011.
	 */
	p1 = sender_computes(1, 0);
	cr_expect_float_eq(p1, 3011 + 20, 1e-9, "%g", p1);
}

/*
 * Rank 0 starts a send of 4096 B (rendezvous) to rank 1 at 0, receives
 * 64 B from rank 1 by MPI_Recv, computes 3000 and waits for its send;
 * rank 1 computes 'late1', sends the 64 B by MPI_Send, then receives the
 * 4096 B by MPI_Recv ('exchange': rank 1 sends 4096 B too, by MPI_Isend
 * before its MPI_Send of 64 B, and waits for it last).  Model net_c
 * with 'need', a late-receive cost of 1000 and an exchange cost of
 * 'xchg' (0: none measured).
 */
static void other_call(int need, uint64_t late1, int exchange, double xchg,
		       double *p0, double *p1)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 9;
	char err[256];

	c.nm.need = need;
	c.nm.late_ns = 1000;
	c.nm.xchg_ns = xchg;
	s_init(&s[0], 0, 2, 0);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, 4096, 1);
	e->req = req;
	s_p2p(&s[0], ST_FN_MPI_RECV, 1, 3, 64, 1);
	if (exchange)
		s_p2p(&s[0], ST_FN_MPI_RECV, 1, 0, 4096, 1);
	s_compute(&s[0], 3000);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], late1);
	if (exchange) {
		e = s_p2p(&s[1], ST_FN_MPI_ISEND, 0, 0, 4096, 1);
		e->req = req;
	}
	s_p2p(&s[1], ST_FN_MPI_SEND, 0, 3, 64, 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 4096, 1);
	if (exchange)
		s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, a_transfer_needing_both_sides_moves_only_while_they_are_in)
{
	double p0, p1;

	/*
	 * Rank 0 is back in MPI in its MPI_Recv of the 64 B, from 5 to
	 * 1005 (they arrive at 120 and take the late-receive cost, 1000, to
	 * take in); rank 1's receive of the 4096 B, posted at 20, needs 1000
	 * with both sides inside.  Without the rule the transfer goes on
	 * through rank 0's compute: rank 1 is done at 1020.
	 */
	other_call(0, 10, 0, 0, &p0, &p1);
	cr_expect_float_eq(p1, 20 + 1000, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 1005 + 3000, 1e-9, "%g", p0);
	/*
	 * With it, the transfer moves from 20 to 1005 (985), waits for rank
	 * 0's MPI_Wait at 4005 and needs the 15 it has left there: rank 1
	 * is done at 4020; rank 0's send completes at once in its Wait.
	 */
	other_call(3, 10, 0, 0, &p0, &p1);
	cr_expect_float_eq(p1, 4005 + 15, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 4005, 1e-9, "%g", p0);
	/*
	 * Each way: rank 0's 4096 B have moved 980 by 1005, when rank 0
	 * enters its MPI_Recv of rank 1's 4096 B, which rank 1's MPI_Recv
	 * (waiting for rank 0's) holds: each call waits for what the other
	 * holds, so both go on.  Rank 0's message needs its last 20 (rank
	 * 1's receive done at 1025, then its MPI_Wait for its own send, the
	 * send of a late receive: 30 after 1005); rank 1's, posted first,
	 * takes the late-receive cost from 1005: rank 0's receive is done
	 * at 2005, and rank 0 at 2005 + 3000.
	 */
	other_call(3, 10, 1, 0, &p0, &p1);
	cr_expect_float_eq(p1, 1005 + 30, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 2005 + 3000, 1e-9, "%g", p0);
	/*
	 * Where the table measured the exchange (both ways at once), the
	 * pair still goes as above: rank 0's message moved alone before.
	 */
	other_call(3, 10, 1, 1200, &p0, &p1);
	cr_expect_float_eq(p1, 1005 + 30, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 2005 + 3000, 1e-9, "%g", p0);
}

/*
 * other_call()'s exchange, rank 0 receiving rank 1's 4096 B by an
 * MPI_Irecv posted right after its MPI_Isend and an MPI_Wait where it
 * had the MPI_Recv; and rank 2 sends rank 0 64 B at 2000, which rank 0
 * receives by an MPI_Irecv posted first and an MPI_Wait last.  Model
 * net_c with 'need' 3 and a late-receive cost of 1000.  Returns rank
 * 0's predicted run time.
 */
static double held_by_wait(void)
{
	struct consts c = net_c;
	struct script s[3];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 9, rreq = 8, req2 = 7;
	char err[256];
	double p0;

	c.nm.need = 3;
	c.nm.late_ns = 1000;
	s_init(&s[0], 0, 3, 0);
	e = s_p2p(&s[0], ST_FN_MPI_IRECV, 2, 5, 0, 0);
	e->req = req2;
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, 4096, 1);
	e->req = req;
	e = s_p2p(&s[0], ST_FN_MPI_IRECV, 1, 0, 0, 1);
	e->req = rreq;
	s_p2p(&s[0], ST_FN_MPI_RECV, 1, 3, 64, 1);
	s_wait(&s[0], ST_FN_MPI_WAIT, &rreq, 1, 1);
	s_compute(&s[0], 3000);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req2, 1, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 3, 0);
	s_compute(&s[1], 10);
	e = s_p2p(&s[1], ST_FN_MPI_ISEND, 0, 0, 4096, 1);
	e->req = req;
	s_p2p(&s[1], ST_FN_MPI_SEND, 0, 3, 64, 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 4096, 1);
	s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[1]);
	s_init(&s[2], 2, 3, 0);
	s_compute(&s[2], 2000);
	s_p2p(&s[2], ST_FN_MPI_SEND, 0, 5, 64, 1);
	s_finalize(&s[2]);
	cr_assert_eq(replay(s, 3, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	p0 = PRED(rp, 0);
	st_replay_free(rp);
	free_scripts(s, 3);
	return p0;
}

Test(tools_replay, a_wait_that_holds_one_transfer_and_waits_for_the_other)
{
	double p = held_by_wait();

	/*
	 * Rank 1's 4096 B move while its MPI_Send of 64 B lasts, then
	 * while its MPI_Recv of rank 0's 4096 B does, from 25; rank 0's move
	 * while its MPI_Recv of the 64 B lasts (to 1006, its late-receive
	 * cost), then are held by its MPI_Wait for rank 1's.  That Wait
	 * waits for what rank 1's MPI_Recv holds, which waits for what the
	 * Wait holds: both go on at 1006.  Rank 1's message was in at 155
	 * (its turn at rank 0's port after the 64 B, less the 10 it moved
	 * before): the Wait returns at once and rank 0 is done at 1006 +
	 * 3000.  Not seen as a pair (a Wait on requests is not a blocking
	 * receive), nothing moved until rank 2's message took rank 0's port
	 * at 2000; rank 1's was in at 2140 and rank 0 done at 5140.
	 */
	cr_expect_float_eq(p, 1006 + 3000, 1e-9, "%g", p);
}

/*
 * Each rank starts a send of 4096 B to the other at 0, receives the
 * other's by MPI_Recv from 5 and waits for its send.  Model net_c with
 * 'need' 3, a late-receive cost of 1000 and an exchange cost of 'xchg'
 * (0: none measured).  Returns rank 0's predicted run time.
 */
static double held_pair(double xchg)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 9;
	char err[256];
	double p0;
	int r;

	c.nm.need = 3;
	c.nm.late_ns = 1000;
	c.nm.xchg_ns = xchg;
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		e = s_p2p(&s[r], ST_FN_MPI_ISEND, 1 - r, 0, 4096, 1);
		e->req = req;
		s_p2p(&s[r], ST_FN_MPI_RECV, 1 - r, 0, 4096, 1);
		s_wait(&s[r], ST_FN_MPI_WAIT, &req, 1, 1);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	p0 = PRED(rp, 0);
	st_replay_free(rp);
	free_scripts(s, 2);
	return p0;
}

Test(tools_replay, two_calls_holding_each_others_transfer_exchange)
{
	double p;

	/*
	 * Each MPI_Recv holds its rank's send (the call does not wait for
	 * it) and waits for the other's: both go on from 5, each a late
	 * receive (1000) on its own ports; the MPI_Wait finds the send done.
	 */
	p = held_pair(0);
	cr_expect_float_eq(p, 5 + 1000, 1e-9, "%g", p);
	/* With the exchange measured, the pair takes that together. */
	p = held_pair(1200);
	cr_expect_float_eq(p, 5 + 1200, 1e-9, "%g", p);
}

/*
 * Rank 0 computes 'late0', starts a send of 4096 B (rendezvous) to rank
 * 1, enters MPI_Barrier, computes 3000 and waits for its send; rank 1
 * computes 10, posts MPI_Irecv of it, enters the barrier, computes 3000
 * and waits for its receive.  Model net_c, the table having found the
 * sender free ('sender_free': the receiver copies), with a late-receive
 * cost of 1000.  Returns the barrier's predicted waiting into '*wait'.
 */
static void copy_in_barrier(int sender_free, uint64_t late0, double *p0,
			    double *p1, double *wait)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 9;
	char err[256];
	int r;

	c.nm.sender_free = sender_free;
	c.nm.late_ns = 1000;
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], r ? 10 : late0);
		e = s_p2p(&s[r], r ? ST_FN_MPI_IRECV : ST_FN_MPI_ISEND, 1 - r,
			  0, r ? 0 : 4096, 1);
		e->req = req;
		s_coll(&s[r], ST_FN_MPI_BARRIER, 1, 5);
		s_compute(&s[r], 3000);
		s_wait(&s[r], ST_FN_MPI_WAIT, &req, 1, 1);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	*wait = fn_of(rp, ST_FN_MPI_BARRIER)->wait_ns;
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, a_receiver_that_copies_does_so_in_the_call_that_lets_it)
{
	double p0, p1, wait;

	/*
	 * Without the finding the transfer starts as the receive is posted
	 * at 10 (the sender is in its barrier) and is done at 1010, during
	 * rank 1's compute: rank 1 leaves the barrier at 61 (the last
	 * arrival, 11, and its cost, 50) and is done at 3061.
	 */
	copy_in_barrier(0, 0, &p0, &p1, &wait);
	cr_expect_float_eq(p1, 3061, 1e-9, "%g", p1);
	/*
	 * With it, the transfer waits for rank 1 to be blocked in a call,
	 * its barrier at 11, and the copy is its work there: the barrier
	 * lasts until 1011, rank 1 is done at 4011.  Rank 0 is not held up.
	 * Neither waited in the barrier: rank 0 came first by 10 and left
	 * at 61.
	 */
	copy_in_barrier(1, 0, &p0, &p1, &wait);
	cr_expect_float_eq(p1, 1011 + 3000, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 3061, 1e-9, "%g", p0);
	/*
	 * Rank 0 posts its send at 500: rank 1, in its barrier since 11,
	 * waits there for it until 500, then copies the message until 1500
	 * (the barrier's own 50, after rank 0's arrival at 505, inside the
	 * copy): 489 of its 1489 in the barrier were waiting, and rank 0
	 * waited none.
	 */
	copy_in_barrier(1, 500, &p0, &p1, &wait);
	cr_expect_float_eq(p1, 1500 + 3000, 1e-9, "%g", p1);
	cr_expect_float_eq(wait, 489, 1e-9, "%g", wait);
}

/*
 * Rank 0 computes 'late0', starts two messages of 'bytes' to rank 1
 * (tags 0 and 1) and waits for both; rank 1 posts both receives at 10
 * and 11, computes 3000 and completes them from 3012 by one MPI_Waitall
 * or ('two') an MPI_Wait each.  Model net_c with 'rbusy'.
 */
static double busy_receiver(double rbusy, uint64_t late0, uint64_t bytes,
			    int two)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[2] = { 1, 2 };
	char err[256];
	double p1;
	int i;

	c.nm.rbusy_ns = rbusy;
	s_init(&s[0], 0, 2, 0);
	s_compute(&s[0], late0);
	for (i = 0; i < 2; i++) {
		e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, i, bytes, 1);
		e->req = req[i];
	}
	s_wait(&s[0], ST_FN_MPI_WAITALL, req, 2, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_compute(&s[1], 10);
	for (i = 0; i < 2; i++) {
		e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, i, 0, 1);
		e->req = req[i];
	}
	s_compute(&s[1], 3000);
	if (two) {
		s_wait(&s[1], ST_FN_MPI_WAIT, &req[0], 1, 1);
		s_wait(&s[1], ST_FN_MPI_WAIT, &req[1], 1, 1);
	} else {
		s_wait(&s[1], ST_FN_MPI_WAITALL, req, 2, 1);
	}
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
	return p1;
}

Test(tools_replay, a_busy_receiver_takes_in_its_messages_in_its_wait)
{
	double p;

	/*
	 * The 64 B messages leave at 0 and 50 and are there at 100 and 150,
	 * while rank 1 computes: as before its MPI_Waitall at 3012 finds
	 * them done.
	 */
	p = busy_receiver(0, 0, 64, 0);
	cr_expect_float_eq(p, 3012, 1e-9, "%g", p);
	/* Taken in inside MPI: 40 from the entry, once for both. */
	p = busy_receiver(40, 0, 64, 0);
	cr_expect_float_eq(p, 3012 + 40, 1e-9, "%g", p);
	/*
	 * An MPI_Wait each (the second right after the first): the first
	 * takes 40; the second message came before the first Wait, which
	 * took it in too.
	 */
	p = busy_receiver(0, 0, 64, 1);
	cr_expect_float_eq(p, 3012, 1e-9, "%g", p);
	p = busy_receiver(40, 0, 64, 1);
	cr_expect_float_eq(p, 3012 + 40, 1e-9, "%g", p);
	/*
	 * Sent at 3000, they arrive at 3100 and 3150, while rank 1 is in
	 * its MPI_Waitall: nothing more.
	 */
	p = busy_receiver(40, 3000, 64, 0);
	cr_expect_float_eq(p, 3150, 1e-9, "%g", p);
	cr_expect_float_eq(busy_receiver(0, 3000, 64, 0), p, 1e-9);
	/* Rendezvous messages wait for their receiver as they did. */
	p = busy_receiver(0, 0, 4096, 0);
	cr_expect_float_eq(busy_receiver(40, 0, 4096, 0), p, 1e-9, "%g", p);
}

/*
 * Rank 0 posts an MPI_Irecv of a 4096 B (rendezvous) message from rank
 * 1 at 0 and blocks from 1 in an MPI_Recv of 64 B from rank 2, which
 * sends them at 'late2' (there at late2 + 100: its Recv ends then);
 * it computes 2000 and waits for the Irecv.  Rank 1 computes 1000 and
 * sends the 4096 B by MPI_Isend at 1000, then waits.  Model net_c.
 */
static void blocked_then_resolved(uint64_t late2, double *p0, double *p1)
{
	struct script s[3];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req = 7;
	char err[256];

	s_init(&s[0], 0, 3, 0);
	e = s_p2p(&s[0], ST_FN_MPI_IRECV, 1, 0, 0, 1);
	e->req = req;
	s_p2p(&s[0], ST_FN_MPI_RECV, 2, 5, 0, 1);
	s_compute(&s[0], 2000);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 3, 0);
	s_compute(&s[1], 1000);
	e = s_p2p(&s[1], ST_FN_MPI_ISEND, 0, 0, 4096, 1);
	e->req = req;
	s_wait(&s[1], ST_FN_MPI_WAIT, &req, 1, 1);
	s_finalize(&s[1]);
	s_init(&s[2], 2, 3, 0);
	s_compute(&s[2], late2);
	s_p2p(&s[2], ST_FN_MPI_SEND, 0, 5, 64, 1);
	s_finalize(&s[2]);
	cr_assert_eq(replay(s, 3, &net_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 3);
}

Test(tools_replay, a_rank_in_a_blocking_call_is_inside_mpi_in_replay_order)
{
	double p0, p1;

	/*
	 * Rank 2 sends at 1100: rank 0's MPI_Recv lasts from 1 to 1200,
	 * and rank 1's MPI_Isend at 1000 finds it blocked there (in MPI):
	 * the transfer goes at 1000, the receive (posted first) done 100
	 * later, the send 30 later than the receive's 20 before... at
	 * 1000 + 100 - (20 - 30 < 0: 0) = 1100 for both; rank 0 waits at
	 * 1200 + 2000 and finds it done.
	 */
	blocked_then_resolved(1100, &p0, &p1);
	cr_expect_float_eq(p1, 1100, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 3200, 1e-9, "%g", p0);
	/*
	 * Rank 2 sends at 950: the MPI_Recv lasts from 1 to 1050, which
	 * holds 1000 as well; only the replay has resolved it (at rank 2's
	 * send, 950) before it reaches rank 1's MPI_Isend at 1000.  The
	 * same: the transfer goes at 1000.
	 */
	blocked_then_resolved(950, &p0, &p1);
	cr_expect_float_eq(p1, 1100, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 3050, 1e-9, "%g", p0);
}

/*
 * Rank 0 posts an MPI_Irecv of 4096 B (rendezvous) from rank 1 at 0,
 * starts an MPI_Isend of 64 B to rank 2 at 1 (5 under net_c), computes
 * 2000 and waits for both from 2006; rank 1 computes 1000, sends the
 * 4096 B by MPI_Isend and waits; rank 2 receives the 64 B.
 */
Test(tools_replay, a_call_earlier_in_time_does_not_release_a_later_transfer)
{
	struct script s[3];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[2] = { 1, 2 };
	char err[256];

	s_init(&s[0], 0, 3, 0);
	e = s_p2p(&s[0], ST_FN_MPI_IRECV, 1, 0, 0, 1);
	e->req = req[0];
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 2, 0, 64, 1);
	e->req = req[1];
	s_compute(&s[0], 2000);
	s_wait(&s[0], ST_FN_MPI_WAITALL, req, 2, 1);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 3, 0);
	s_compute(&s[1], 1000);
	e = s_p2p(&s[1], ST_FN_MPI_ISEND, 0, 0, 4096, 1);
	e->req = req[0];
	s_wait(&s[1], ST_FN_MPI_WAIT, req, 1, 1);
	s_finalize(&s[1]);
	s_init(&s[2], 2, 3, 0);
	s_p2p(&s[2], ST_FN_MPI_RECV, 0, 0, 0, 1);
	s_finalize(&s[2]);
	cr_assert_eq(replay(s, 3, &net_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/*
	 * At 1000 rank 0 computes (its MPI_Isend ended at 6): the transfer
	 * waits for its MPI_Waitall at 2006 and is done 100 later, the
	 * send with it.  (Replayed before rank 0's MPI_Isend at 1, the
	 * send at 1000 was released by it: done at 1100.)
	 */
	cr_expect_float_eq(PRED(rp, 1), 2106, 1e-9, "%g", PRED(rp, 1));
	cr_expect_float_eq(PRED(rp, 0), 2106, 1e-9, "%g", PRED(rp, 0));
	st_replay_free(rp);
	free_scripts(s, 3);
}

/*
 * Rank 0 starts 'k' messages of 64 B (eager) to rank 1 by MPI_Isend at
 * 0 (5 each under net_c), computes 1000 and waits for them; rank 1
 * posts its receives and waits at once.  Model net_c with 'need'.
 */
static void busy_sender(int need, int k, double *p0, double *p1)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[4];
	char err[256];
	int i;

	c.nm.need = need;
	s_init(&s[0], 0, 2, 0);
	s_init(&s[1], 1, 2, 0);
	for (i = 0; i < k; i++) {
		req[i] = (uint64_t)i + 1;
		e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, i, 64, 1);
		e->req = req[i];
		e = s_p2p(&s[1], ST_FN_MPI_IRECV, 0, i, 0, 1);
		e->req = req[i];
	}
	s_compute(&s[0], 1000);
	s_wait(&s[0], ST_FN_MPI_WAITALL, req, (size_t)k, 1);
	s_wait(&s[1], ST_FN_MPI_WAITALL, req, (size_t)k, 1);
	s_finalize(&s[0]);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	*p0 = PRED(rp, 0);
	*p1 = PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, an_eager_message_that_needs_its_sender_leaves_in_mpi)
{
	double p0, p1, q0, q1;

	/*
	 * As before: the message goes at 0, is there at 100; the send is
	 * done at 10, rank 0's MPI_Waitall (at 1005) at once.
	 */
	busy_sender(0, 1, &p0, &p1);
	cr_expect_float_eq(p1, 100, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 1005, 1e-9, "%g", p0);
	/* The receiver alone needed, and in MPI: the same. */
	busy_sender(2, 1, &q0, &q1);
	cr_expect_float_eq(q0, p0, 1e-9, "%g", q0);
	cr_expect_float_eq(q1, p1, 1e-9, "%g", q1);
	/*
	 * The sender needed: the message leaves at rank 0's MPI_Waitall,
	 * 1005, and is there 100 later; the send is done 10 after 1005.
	 */
	busy_sender(1, 1, &p0, &p1);
	cr_expect_float_eq(p1, 1105, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 1015, 1e-9, "%g", p0);
	busy_sender(3, 1, &q0, &q1);
	cr_expect_float_eq(q0, p0, 1e-9, "%g", q0);
	cr_expect_float_eq(q1, p1, 1e-9, "%g", q1);
	/*
	 * Two (the Isends at 0 and 5): both leave from rank 0's
	 * MPI_Waitall at 1010 in the order they were started, taking turns
	 * at the port (gap 50): the second is there at 1010 + 50 + 100,
	 * done at 1010 + 50 + 10.
	 */
	busy_sender(1, 2, &p0, &p1);
	cr_expect_float_eq(p1, 1160, 1e-9, "%g", p1);
	cr_expect_float_eq(p0, 1070, 1e-9, "%g", p0);
}

Test(tools_replay, transfers_that_need_both_sides_wait_for_a_blocking_call)
{
	struct consts c = net_c;
	double p0, p1, q0, q1;

	/*
	 * Rank 0's Isend at 1, rank 1's at 101 (computing 100 first); the
	 * Waitalls at 3006 and 3106.  As before (no 'need'): 0 -> 1 goes
	 * at rank 1's next call, its Isend at 101, done at 201; 1 -> 0 at
	 * rank 0's next, its Waitall at 3006, done 100 later.  (Until the
	 * replay started calls in time order, rank 1's Isend at 101 was
	 * replayed before rank 0's at 1, which then released 1 -> 0 at 101,
	 * and 0 -> 1 waited for rank 1's Waitall: 3206 both.)
	 */
	xchg_pair(0, 0, 4096, 100, &p0, &p1);
	cr_expect_float_eq(p0, 3106, 1e-9, "%g", p0);
	cr_expect_float_eq(p1, 3106, 1e-9, "%g", p1);
	/* A side alone (the receiver, as in shared memory): the same. */
	xchg_pair(2, 0, 4096, 100, &q0, &q1);
	cr_expect_float_eq(q0, p0, 1e-9, "%g", q0);
	cr_expect_float_eq(q1, p1, 1e-9, "%g", q1);
	xchg_pair(1, 0, 4096, 100, &q0, &q1);
	cr_expect_float_eq(q0, p0, 1e-9, "%g", q0);
	cr_expect_float_eq(q1, p1, 1e-9, "%g", q1);
	/*
	 * Both sides inside MPI: no I-call releases either transfer; both
	 * start at rank 1's Waitall, 3106, and without an exchange cost
	 * each takes its transfer, 100 (share 0: the other direction's
	 * ports are apart).
	 */
	xchg_pair(3, 0, 4096, 100, &p0, &p1);
	cr_expect_float_eq(p0, 3206, 1e-9, "%g", p0);
	cr_expect_float_eq(p1, 3206, 1e-9, "%g", p1);
	/* With one, started together: both done the exchange's 170 on. */
	xchg_pair(3, 170, 4096, 100, &p0, &p1);
	cr_expect_float_eq(p0, 3106 + 170, 1e-9, "%g", p0);
	cr_expect_float_eq(p1, 3106 + 170, 1e-9, "%g", p1);
	/*
	 * Eager messages that need their sender leave at its next call
	 * that moves messages, its MPI_Waitall: rank 0's at 3006 (there at
	 * 3106), rank 1's at 3106 (there at 3206, the send done 10 later).
	 * No exchange cost: that is for rendezvous transfers.
	 */
	xchg_pair(0, 0, 64, 100, &p0, &p1);
	cr_expect_lt(p0, 3006 + 100);
	xchg_pair(3, 170, 64, 100, &q0, &q1);
	cr_expect_float_eq(q0, 3206, 1e-9, "%g", q0);
	cr_expect_float_eq(q1, 3116, 1e-9, "%g", q1);
	/*
	 * send_first: the receive posted last by MPI_Irecv at 10 no longer
	 * counts as inside MPI; the transfer waits for both Waits, the
	 * receiver's at 11 + 3000 (before: the sender's at 3005), then 20
	 * for the late receive, 30 for the send.
	 */
	c.nm.need = 3;
	send_first(&c, 4096, 0, &p0, &p1);
	cr_expect_float_eq(p0, 3011 + 30, 1e-9, "%g", p0);
	cr_expect_float_eq(p1, 3011 + 20, 1e-9, "%g", p1);
}

/*
 * A network model whose every cost is the transfer's C and without a
 * gap is the replay without one, where a send is busy C and a receive
 * done C after the later of its post and the send: a table without the
 * model's rows predicts what it did before.
 */
Test(tools_replay, network_model_of_one_cost_is_the_plain_replay)
{
	struct consts plain = { .coll = 50, .local = 100, .xfer = 0 };
	struct consts net = plain;
	double a0, a1, b0, b1;
	uint64_t w[][2] = { { 0, 5000 }, { 5000, 0 }, { 30, 40 } };
	size_t i;

	net.net = 1;
	net.nm = (struct st_replay_msg){ .send_ns = 100, .xfer_ns = 100,
					 .late_ns = 100,
					 .rndv_send_ns = 100 };
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		late_pair(&plain, ST_FN_MPI_SEND, 64, w[i][0], w[i][1], &a0,
			  &a1);
		late_pair(&net, ST_FN_MPI_SEND, 64, w[i][0], w[i][1], &b0,
			  &b1);
		cr_expect_float_eq(a0, b0, 1e-9, "case %zu", i);
		cr_expect_float_eq(a1, b1, 1e-9, "case %zu", i);
		overlapped(&plain, 64, w[i][0], &a0, &a1);
		overlapped(&net, 64, w[i][0], &b0, &b1);
		cr_expect_float_eq(a0, b0, 1e-9, "case %zu", i);
		cr_expect_float_eq(a1, b1, 1e-9, "case %zu", i);
	}
	burst(&plain, 4, 64, &a0, &a1);
	burst(&net, 4, 64, &b0, &b1);
	cr_expect_float_eq(a0, b0, 1e-9);
	cr_expect_float_eq(a1, b1, 1e-9);
}

Test(tools_replay, rank_that_ends_early_is_an_error)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_coll(&s[r], ST_FN_MPI_BARRIER, 1, 5);
		if (!r)
			s_finalize(&s[r]);
	}
	cr_expect_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)),
		     -EBADMSG);
	cr_expect(strstr(err, "rank 1's trace ends before MPI_Finalize"),
		  "%s", err);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/*
 * A finalize that hung and was killed: rank 1's records end with
 * synctrace's finalize mark, flushed before PMPI_Finalize, and no
 * MPI_Finalize record.  The run ended at the mark's entry.
 */
Test(tools_replay, finalize_that_never_returned_ends_at_its_mark)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	char err[256];
	uint64_t mark = 0;
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], 4000);
		s_coll(&s[r], ST_FN_MPI_BARRIER, 1, 5);
		s_compute(&s[r], 3000);
		if (!r) {
			s_finalize(&s[r]);
			continue;
		}
		e = s_add(&s[r]);
		e->kind = ST_REC_MARK;
		e->fn = ST_MARK_FINALIZE;
		e->t0 = mark = s[r].t;
		e->t1 = s[r].t + 700;
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect(st_replay_rank(rp, 1)->finished);
	cr_expect_float_eq(st_replay_rank(rp, 1)->meas_ns,
			   (double)(mark - 1000), 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 1)->meas_ns,
			   st_replay_rank(rp, 0)->meas_ns, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, missing_rank_stream_is_an_error)
{
	struct st_replay_model m = { &model_c, c_coll, c_p2p, NULL,
				     NULL, NULL, 0, NULL, NULL };
	struct st_replay_source src;
	struct st_replay *rp;
	struct script s[1];
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_finalize(&s[0]);
	cr_assert_eq(st_replay_new(&rp, 2, &m, NULL), 0);
	src = (struct st_replay_source){ &s[0], s_next, NULL, NULL };
	st_replay_set_source(rp, 0, &src);
	cr_expect_eq(st_replay_run(rp, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "rank 1's trace has no MPI_Init"), "%s", err);
	st_replay_free(rp);
	free_scripts(s, 1);
}

Test(tools_replay, collective_short_of_members_is_an_error)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];
	int r;

	/* Rank 1 never calls it: no run could have. */
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		if (!r)
			s_coll(&s[r], ST_FN_MPI_ALLREDUCE, 1, 5);
		s_finalize(&s[r]);
	}
	cr_expect_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)),
		     -EBADMSG);
	cr_expect(strstr(err, "rank 0 waits in MPI_Allreduce"), "%s", err);
	cr_expect(strstr(err, "only 1 of its 2 members"), "%s", err);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, unmatched_receive_does_not_hang)
{
	struct script s[2];
	struct st_replay *rp;
	char err[256];

	s_init(&s[0], 0, 2, 0);
	s_p2p(&s[0], ST_FN_MPI_RECV, 1, 9, 8, 5);
	s_compute(&s[0], 10);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 2, 0);
	s_p2p(&s[1], ST_FN_MPI_SEND, 0, 8, 8, 5);
	s_finalize(&s[1]);
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(st_replay_stats(rp)->released, 1);
	cr_expect_eq(st_replay_stats(rp)->unmatched_sends, 1);
	/* Released at its post: no message, so nothing to copy. */
	cr_expect_float_eq(PRED(rp, 0), 10, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, bad_arguments)
{
	struct st_replay_model m = { &model_c, c_coll, c_p2p, NULL,
				     NULL, NULL, 0, NULL, NULL };
	struct st_replay_opts o;
	struct st_replay *rp;

	cr_expect_eq(st_replay_new(&rp, 0, &m, NULL), -EINVAL);
	st_replay_opts_init(&o);
	o.compute_scale = -1;
	cr_expect_eq(st_replay_new(&rp, 2, &m, &o), -EINVAL);
	o.compute_scale = NAN;
	cr_expect_eq(st_replay_new(&rp, 2, &m, &o), -EINVAL);
}

/* A large trace through the real writer and reader. */

struct file_src {
	struct st_reader *r;
};

static int file_next(void *ctx, struct st_event *ev, char *err, size_t len)
{
	struct file_src *f = ctx;
	int rc = st_reader_next(f->r, ev);

	if (rc < 0)
		snprintf(err, len, "%s", st_reader_error(f->r));
	return rc;
}

struct writer {
	int fd;
	struct st_sink sink;
	struct st_stream *s;
};

static void w_append(struct writer *w, const struct st_event *ev)
{
	int rc = st_stream_append(w->s, ev);

	if (rc == -ENOBUFS) {
		cr_assert_eq(st_stream_flush(w->s), 0);
		rc = st_stream_append(w->s, ev);
	}
	cr_assert_eq(rc, 0);
}

/*
 * Rank 'rank' of 'nranks' in a ring: per step, compute, Irecv from the
 * left, Isend to the right, Waitall, and every 4th step an Allreduce.
 * About 6 records per step.
 */
static void write_ring(const char *path, int rank, int nranks, long steps)
{
	static const struct st_kv kv[] = { { "format", "1" } };
	struct writer w;
	struct st_event ev;
	uint64_t t = 1000000, seq = 0, req = 0;
	long i;

	w.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0666);
	cr_assert(w.fd >= 0);
	w.sink.ctx = (void *)(intptr_t)w.fd;
	w.sink.write = st_sink_fd_write;
	cr_assert_eq(st_trace_write_header(&w.sink, kv, 1), 0);
	cr_assert_eq(st_stream_new(&w.s, &w.sink, 0, 1 << 20, 1), 0);
	st_event_clear(&ev);
	ev.kind = ST_REC_COMM;
	ev.comm = WORLD;
	ev.comm_size = (uint32_t)nranks;
	ev.rank = rank;
	w_append(&w, &ev);
	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = ST_FN_MPI_INIT;
	ev.t0 = t - 1000;
	ev.t1 = t;
	w_append(&w, &ev);
	for (i = 0; i < steps; i++) {
		uint64_t r1 = ++req, r2 = ++req;

		t += 5000 + (uint64_t)((i * 7 + rank * 13) % 11) * 100;
		st_event_clear(&ev);
		ev.kind = ST_REC_CALL;
		ev.fn = ST_FN_MPI_IRECV;
		ev.comm = WORLD;
		ev.comm_size = (uint32_t)nranks;
		ev.peer = (rank + nranks - 1) % nranks;
		ev.tag = 1;
		ev.req = r1;
		ev.site = 1;
		ev.t0 = t;
		ev.t1 = t += 100;
		w_append(&w, &ev);
		ev.fn = ST_FN_MPI_ISEND;
		ev.peer = (rank + 1) % nranks;
		ev.sbytes = 4096;
		ev.req = r2;
		ev.site = 2;
		ev.t0 = t;
		ev.t1 = t += 300;
		w_append(&w, &ev);
		st_event_clear(&ev);
		ev.kind = ST_REC_DONE;
		ev.fn = ST_FN_MPI_WAITALL;
		ev.req = r1;
		ev.peer = (rank + nranks - 1) % nranks;
		ev.tag = 1;
		ev.rbytes = 4096;
		ev.t0 = t;
		ev.t1 = t + 2000;
		w_append(&w, &ev);
		ev.req = r2;
		w_append(&w, &ev);
		st_event_clear(&ev);
		ev.kind = ST_REC_CALL;
		ev.fn = ST_FN_MPI_WAITALL;
		ev.site = 3;
		ev.t0 = t;
		ev.t1 = t += 2000;
		w_append(&w, &ev);
		if (i % 4 == 3) {
			st_event_clear(&ev);
			ev.kind = ST_REC_CALL;
			ev.fn = ST_FN_MPI_ALLREDUCE;
			ev.comm = WORLD;
			ev.comm_size = (uint32_t)nranks;
			ev.seq = ++seq;
			ev.sbytes = ev.rbytes = 8;
			ev.site = 4;
			t += 200;
			ev.t0 = t;
			ev.t1 = t += 3000;
			w_append(&w, &ev);
		}
	}
	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = ST_FN_MPI_FINALIZE;
	ev.t0 = t + 1000;
	ev.t1 = t + 2000;
	w_append(&w, &ev);
	cr_assert_eq(st_stream_flush(w.s), 0);
	st_stream_free(w.s);
	cr_assert_eq(close(w.fd), 0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

Test(tools_replay, large_trace_throughput_and_bounded_state,
     .timeout = 300)
{
	enum { NR = 8 };
	const long steps = 25000;
	/* First calls on: the path every collective takes with a table. */
	struct firsts f = { .c = { .coll = 50, .local = 5, .xfer = 100 },
			    .at8 = 1000 };
	struct st_replay_model m = { &f, c_coll, c_p2p, NULL, c_coll_first,
				     NULL, 0, NULL, NULL };
	struct file_src fs[NR];
	struct st_replay *rp;
	const struct st_replay_stats *st;
	char dir[64], path[128], err[256];
	double t0, dt, decode;
	struct st_event ev;
	uint64_t n = 0;
	int r;

	snprintf(dir, sizeof(dir), "/tmp/st-replay-bench-XXXXXX");
	cr_assert(mkdtemp(dir));
	for (r = 0; r < NR; r++) {
		snprintf(path, sizeof(path), "%s/rank-%d.st", dir, r);
		write_ring(path, r, NR, steps);
	}
	/* Decoding alone, for comparison. */
	t0 = now_s();
	for (r = 0; r < NR; r++) {
		snprintf(path, sizeof(path), "%s/rank-%d.st", dir, r);
		cr_assert_eq(st_reader_open(&fs[r].r, path, err, sizeof(err)),
			     0, "%s", err);
		while (st_reader_next(fs[r].r, &ev) > 0)
			n++;
		st_reader_close(fs[r].r);
	}
	decode = now_s() - t0;

	cr_assert_eq(st_replay_new(&rp, NR, &m, NULL), 0);
	for (r = 0; r < NR; r++) {
		struct st_replay_source src = { &fs[r], file_next, NULL,
						NULL };

		snprintf(path, sizeof(path), "%s/rank-%d.st", dir, r);
		cr_assert_eq(st_reader_open(&fs[r].r, path, err, sizeof(err)),
			     0, "%s", err);
		st_replay_set_source(rp, r, &src);
	}
	t0 = now_s();
	cr_assert_eq(st_replay_run(rp, err, sizeof(err)), 0, "%s", err);
	dt = now_s() - t0;
	st = st_replay_stats(rp);
	cr_expect_eq(st->records, n);
	/* One Allreduce key, asked once over steps / 4 instances. */
	cr_expect_eq(f.asked, 1);
	cr_expect_eq(st->unmatched_sends, 0);
	cr_expect_eq(st->released, 0);
	/* A ring step has 2 messages and 2 requests per rank in flight. */
	cr_expect_lt(st->max_inflight, 8 * NR, "max in flight %zu",
		     st->max_inflight);
	fprintf(stderr, "replay benchmark: %d ranks, %llu records: replay "
		"%.3f s = %.2f M records/s (reading alone %.3f s = %.2f M "
		"records/s), at most %zu operations in flight\n", NR,
		(unsigned long long)n, dt, n / dt / 1e6, decode,
		n / decode / 1e6, st->max_inflight);
	/*
	 * No bound on the rate here: it depends on the machine and its
	 * load.  'make validate' reads the line above and checks it.
	 */
	for (r = 0; r < NR; r++) {
		st_reader_close(fs[r].r);
		snprintf(path, sizeof(path), "%s/rank-%d.st", dir, r);
		unlink(path);
	}
	rmdir(dir);
	st_replay_free(rp);
}

/*
 * Each rank's first ST_REPLAY_EARLY_CALLS calls of a function are
 * counted apart, with their measured time: 100 Barriers, the first 64
 * measured 50 ns dearer, on two ranks.
 */
Test(tools_replay, early_calls_are_counted_apart)
{
	struct script s[2];
	struct st_replay *rp;
	const struct st_replay_fn *f;
	char err[256];
	int r, i;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		for (i = 0; i < 100; i++) {
			s_compute(&s[r], 100);
			s_coll(&s[r], ST_FN_MPI_BARRIER, (uint64_t)i + 1,
			       i < ST_REPLAY_EARLY_CALLS ? 60 : 10);
		}
		s_p2p(&s[r], ST_FN_MPI_SEND, 1 - r, 0, 8, 7);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	f = fn_of(rp, ST_FN_MPI_BARRIER);
	cr_assert(f);
	cr_expect_eq(f->calls, 200);
	cr_expect_eq(f->early_calls, 2 * ST_REPLAY_EARLY_CALLS);
	cr_expect_float_eq(f->early_meas_ns, 2 * ST_REPLAY_EARLY_CALLS * 60.0,
			   1e-9);
	cr_expect_float_eq(f->meas_ns, 2 * (ST_REPLAY_EARLY_CALLS * 60.0 +
					    (100 - ST_REPLAY_EARLY_CALLS) * 10),
			   1e-9);
	/* Fewer calls than that: all early. */
	f = fn_of(rp, ST_FN_MPI_SEND);
	cr_assert(f);
	cr_expect_eq(f->early_calls, 2);
	cr_expect_float_eq(f->early_meas_ns, 14, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/*
 * An init call after the run started (MPI_Session_init after MPI_Init)
 * starts no operation: the call before it is counted once.
 */
Test(tools_replay, init_call_after_the_start_counts_nothing_twice)
{
	struct script s[2];
	struct st_replay *rp;
	const struct st_replay_fn *f;
	char err[256];
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		s_compute(&s[r], 100);
		s_coll(&s[r], ST_FN_MPI_BARRIER, 1, 10);
		s_call(&s[r], ST_FN_MPI_SESSION_INIT, 20);
		s_compute(&s[r], 100);
		s_coll(&s[r], ST_FN_MPI_BARRIER, 2, 10);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &model_c, 1, &rp, err, sizeof(err)), 0,
		     "%s", err);
	f = fn_of(rp, ST_FN_MPI_BARRIER);
	cr_assert(f);
	cr_expect_eq(f->calls, 4);
	cr_expect_float_eq(f->meas_ns, 40, 1e-9);
	cr_expect_eq(st_replay_stats(rp)->calls, 4);
	st_replay_free(rp);
	free_scripts(s, 2);
}

/*
 * The library's start: a row for messages of 4 to 16 B whose first two
 * messages on a channel cost 1000 and 300 ns more.
 */
struct start_consts {
	struct consts c;	/* first: the other callbacks' context */
	double prof[2];
	unsigned asked;
};

static int c_start_row(void *ctx, double bytes)
{
	(void)ctx;
	return bytes >= 4 && bytes <= 16 ? 0 : -1;
}

static double c_start_ns(void *ctx, int row, uint32_t k)
{
	struct start_consts *sc = ctx;

	sc->asked++;
	return row == 0 && k < 2 ? sc->prof[k] : 0;
}

/*
 * Rank 0 sends 8 B to ranks 1, 2, 1, 2, 1 (blocking, or 'isend' then a
 * wait each), then 1 MiB to rank 1; ranks 1 and 2 receive them.  Rank
 * 0's predicted time and its sends' predicted time into 'p0' and
 * 'send'.
 */
static void start_sends(struct start_consts *sc, int on, int isend,
			double *p0, double *send, uint64_t *charged,
			double *p12)
{
	struct st_replay_model m = { sc, c_coll, c_p2p, c_inject, NULL, c_msg,
				     0, on ? c_start_row : NULL,
				     on ? c_start_ns : NULL };
	static const int to[] = { 1, 2, 1, 2, 1, 1 };
	struct script s[3];
	struct st_replay *rp;
	const struct st_replay_fn *f;
	struct st_event *e;
	char err[256];
	uint64_t req;
	int r, i;

	for (r = 0; r < 3; r++)
		s_init(&s[r], r, 3, 0);
	for (i = 0; i < 6; i++) {
		uint64_t bytes = i == 5 ? 1u << 20 : 8;

		req = (uint64_t)i + 1;
		s_compute(&s[0], 10);
		e = s_p2p(&s[0], isend ? ST_FN_MPI_ISEND : ST_FN_MPI_SEND,
			  to[i], 0, bytes, 50);
		if (isend) {
			e->req = req;
			s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
		}
		s_p2p(&s[to[i]], ST_FN_MPI_RECV, 0, 0, bytes, 50);
	}
	for (r = 0; r < 3; r++)
		s_finalize(&s[r]);
	cr_assert_eq(replay_m(s, 3, &m, 1, 0, &rp, err, sizeof(err)), 0,
		     "%s", err);
	*p0 = PRED(rp, 0);
	f = fn_of(rp, isend ? ST_FN_MPI_ISEND : ST_FN_MPI_SEND);
	cr_assert(f);
	*send = f->pred_ns;
	*p12 = PRED(rp, 1) + PRED(rp, 2);
	*charged = st_replay_stats(rp)->start_msgs;
	cr_expect_float_eq(st_replay_stats(rp)->start_ns,
			   *charged ? 2600 : 0, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 3);
}

Test(tools_replay, library_start_charges_each_channels_first_messages)
{
	struct start_consts sc = { .c = model_c, .prof = { 1000, 300 } };
	double p0, p0_off, send, send_off, r_on, r_off;
	uint64_t n;

	/*
	 * Channels 0->1 and 0->2 each pay 1000 + 300 for their first two
	 * 8 B messages; the third to rank 1 and the 1 MiB one (no row)
	 * nothing: 2600 more on the sender, all of it in MPI_Send.
	 */
	start_sends(&sc, 0, 0, &p0_off, &send_off, &n, &r_off);
	cr_expect_eq(sc.asked, 0);
	start_sends(&sc, 1, 0, &p0, &send, &n, &r_on);
	cr_expect_eq(sc.asked, 5, "asked %u times", sc.asked);
	cr_expect_eq(n, 4, "charged %llu", (unsigned long long)n);
	cr_expect_float_eq(send - send_off, 2600, 1e-9, "%g", send - send_off);
	cr_expect_float_eq(p0 - p0_off, 2600, 1e-9, "%g", p0 - p0_off);
	/*
	 * The messages arrive that much later: each receiver's last one
	 * comes after all four charged sends, 2600 later for both.
	 */
	cr_expect_float_eq(r_on - r_off, 2 * 2600, 1e-9, "%g", r_on - r_off);
	/* Nonblocking: the I-call's model cost (30) holds it. */
	sc.c.inject = 30;
	sc.asked = 0;
	start_sends(&sc, 0, 1, &p0_off, &send_off, &n, &r_off);
	start_sends(&sc, 1, 1, &p0, &send, &n, &r_on);
	cr_expect_eq(sc.asked, 5);
	cr_expect_eq(n, 4);
	cr_expect_float_eq(send - send_off, 2600, 1e-9, "%g", send - send_off);
	cr_expect_float_eq(send_off, 6 * 30, 1e-9);
	cr_expect_float_eq(r_on - r_off, 2 * 2600, 1e-9, "%g", r_on - r_off);
	/* Under the network model too. */
	sc.c = net_c;
	start_sends(&sc, 0, 1, &p0_off, &send_off, &n, &r_off);
	start_sends(&sc, 1, 1, &p0, &send, &n, &r_on);
	cr_expect_eq(n, 4);
	cr_expect_float_eq(send - send_off, 2600, 1e-9, "%g", send - send_off);
	cr_expect_gt(r_on, r_off + 1300, "%g %g", r_on, r_off);
	sc.c = model_c;
	/* A send the model lacks keeps its measured time, start and all. */
	sc.c.inject = 0;
	sc.c.missing = ST_FN_MPI_SEND;
	start_sends(&sc, 0, 0, &p0_off, &send_off, &n, &r_off);
	start_sends(&sc, 1, 0, &p0, &send, &n, &r_on);
	cr_expect_float_eq(send, send_off, 1e-9);
	cr_expect_float_eq(send_off, 6 * 50, 1e-9);
	cr_expect_eq(n, 0, "a measured cost is not charged again");
}

/*
 * Three rendezvous messages of 2000 B each way, both ranks computing
 * 3000 between their I-calls and the MPI_Waitall that starts them all
 * (need 3, xchg_ns 500, share 0): the larger predicted run time.
 */
static double xchg_three(double xchg_gap)
{
	struct consts c = net_c;
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	uint64_t req[6];
	char err[256];
	double end;
	int i, r;

	c.nm.need = 3;
	c.nm.xchg_ns = 500;
	c.nm.xchg_gap_ns = xchg_gap;
	c.nm.share = 0;
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		for (i = 0; i < 6; i++) {
			req[i] = (uint64_t)i + 1;
			e = s_p2p(&s[r], i < 3 ? ST_FN_MPI_IRECV :
				  ST_FN_MPI_ISEND, 1 - r, i % 3,
				  i < 3 ? 0 : 2000, 1);
			e->req = req[i];
		}
		s_compute(&s[r], 3000);
		s_wait(&s[r], ST_FN_MPI_WAITALL, req, 6, 1);
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay(s, 2, &c, 1, &rp, err, sizeof(err)), 0, "%s",
		     err);
	end = PRED(rp, 0) > PRED(rp, 1) ? PRED(rp, 0) : PRED(rp, 1);
	st_replay_free(rp);
	free_scripts(s, 2);
	return end;
}

Test(tools_replay, exchange_pairs_follow_the_measured_spacing)
{
	double gap, spaced, none;

	/*
	 * The pairs released together go one after another: without a
	 * measured spacing a gap (50) apart, with one 200 apart, so the
	 * third ends 2 x 150 later.
	 */
	gap = xchg_three(0);
	spaced = xchg_three(200);
	cr_expect_float_eq(spaced - gap, 2 * (200 - 50), 1e-9, "%g %g",
			   gap, spaced);
	none = xchg_three(-1);
	cr_expect_float_eq(none, gap, 1e-9);
}

/* A row for messages of 1000 B and more (rendezvous under net_c). */
static int c_start_row_large(void *ctx, double bytes)
{
	(void)ctx;
	return bytes >= 1000 ? 0 : -1;
}

/*
 * Rank 0 starts a send of 2000 B to rank 1 by MPI_Isend, computes 10
 * and waits; rank 1 receives it by MPI_Recv.  Under net_c with the
 * start ('on'), its send's predicted time into '*send', rank 1's end
 * into '*p1'.
 */
static void start_rendezvous(int on, double *send, double *p1)
{
	struct start_consts sc = { .c = net_c, .prof = { 1000, 300 } };
	struct st_replay_model m = { &sc, c_coll, c_p2p, c_inject, NULL, c_msg,
				     0, on ? c_start_row_large : NULL,
				     on ? c_start_ns : NULL };
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	char err[256];
	uint64_t req = 1;

	sc.c.inject = 30;
	s_init(&s[0], 0, 2, 0);
	s_init(&s[1], 1, 2, 0);
	e = s_p2p(&s[0], ST_FN_MPI_ISEND, 1, 0, 2000, 50);
	e->req = req;
	s_compute(&s[0], 10);
	s_wait(&s[0], ST_FN_MPI_WAIT, &req, 1, 1);
	s_p2p(&s[1], ST_FN_MPI_RECV, 0, 0, 2000, 50);
	s_finalize(&s[0]);
	s_finalize(&s[1]);
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0,
		     "%s", err);
	*send = fn_of(rp, ST_FN_MPI_ISEND)->pred_ns;
	*p1 = PRED(rp, 1);
	cr_expect_float_eq(st_replay_stats(rp)->start_ns, on ? 1000 : 0,
			   1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}

Test(tools_replay, a_rendezvous_isends_start_delays_its_message_not_its_call)
{
	double send, send_off, p1, p1_off;

	/*
	 * The I-call hands over the request to send and returns: its cost
	 * stays the call's 30; the first message's 1000 comes with the
	 * transfer, which the receive waits for.
	 */
	start_rendezvous(0, &send_off, &p1_off);
	start_rendezvous(1, &send, &p1);
	cr_expect_float_eq(send, send_off, 1e-9, "%g %g", send, send_off);
	cr_expect_float_eq(send_off, 30, 1e-9, "%g", send_off);
	cr_expect_float_eq(p1 - p1_off, 1000, 1e-9, "%g %g", p1, p1_off);
}

/* MPI_Sendrecv's send is a channel's message as any send's. */
Test(tools_replay, library_start_charges_sendrecv)
{
	struct start_consts sc = { .c = model_c, .prof = { 1000, 300 } };
	struct st_replay_model m = { &sc, c_coll, c_p2p, c_inject, NULL, NULL,
				     0, c_start_row, c_start_ns };
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	char err[256];
	int r, i;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, 2, 0);
		for (i = 0; i < 3; i++) {
			e = s_p2p(&s[r], ST_FN_MPI_SENDRECV, 1 - r, 0, 8, 50);
			e->rbytes = 8;
			e->peer2 = 1 - r;
			e->tag2 = 0;
		}
		s_finalize(&s[r]);
	}
	cr_assert_eq(replay_m(s, 2, &m, 1, 0, &rp, err, sizeof(err)), 0,
		     "%s", err);
	/* Channels 0->1 and 1->0, the first two each. */
	cr_expect_eq(st_replay_stats(rp)->start_msgs, 4);
	cr_expect_float_eq(st_replay_stats(rp)->start_ns, 2600, 1e-9);
	st_replay_free(rp);
	free_scripts(s, 2);
}
