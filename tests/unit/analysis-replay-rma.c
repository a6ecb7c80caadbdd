/*
 * tests/unit/analysis-replay-rma.c: one-sided and I/O calls in the
 * replay, on hand-built two-rank traces whose every predicted time can
 * be worked out by hand (the cost model is a constant per collective).
 * A fence, a window's constructor and free, a file's collectives wait
 * for their last member; MPI_Win_start waits for the matching post and
 * MPI_Win_wait for the matching completes; a passive-target lock keeps
 * nobody but its caller; the Wait of an MPI_Rput keeps its measured
 * time; a start no post matches does not hang the replay; and with a
 * phase selected, only what lies in it is reported.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/replay.h"
#include "writer/event.h"

#define WORLD 0x100000000ULL
#define WIN 0x100000002ULL
#define FILE_ID 0x100000003ULL

/* A rank's records, on its local clock 't' (origins differ). */
struct script {
	struct st_event ev[64];
	size_t n, next;
	uint64_t t, origin;
	double goff;		/* global time of local 'origin' */
	int rank;
};

static struct st_event *s_add(struct script *s)
{
	cr_assert_lt(s->n, 64);
	st_event_clear(&s->ev[s->n]);
	return &s->ev[s->n++];
}

/* MPI_Init, MPI_COMM_WORLD and the window and file of both ranks. */
static void s_init(struct script *s, int rank, uint64_t origin)
{
	struct st_event *e;
	int i;

	memset(s, 0, sizeof(*s));
	s->rank = rank;
	s->origin = origin;
	for (i = 0; i < 3; i++) {
		e = s_add(s);
		e->kind = ST_REC_COMM;
		e->fn = i == 0 ? ST_FN_MPI_INIT : i == 1 ?
			ST_FN_MPI_WIN_CREATE : ST_FN_MPI_FILE_OPEN;
		e->comm = i == 0 ? WORLD : i == 1 ? WIN : FILE_ID;
		e->parent = i ? WORLD : 0;
		e->comm_size = 2;
		e->rank = rank;
		e->t0 = e->t1 = origin + 500;
	}
	e = s_add(s);
	e->kind = ST_REC_CALL;
	e->fn = ST_FN_MPI_INIT;
	e->t0 = origin;
	e->t1 = origin + 1000;
	s->t = origin + 1000;
}

static struct st_event *s_call(struct script *s, unsigned fn, uint64_t dur,
			       uint64_t comm)
{
	struct st_event *e = s_add(s);

	e->kind = ST_REC_CALL;
	e->fn = (uint16_t)fn;
	e->t0 = s->t;
	e->t1 = s->t + dur;
	e->comm = comm;
	e->comm_size = comm ? 2 : 0;
	e->site = 1;
	s->t += dur;
	return e;
}

static struct st_event *s_group(struct script *s, unsigned fn, uint64_t dur,
				const char *group)
{
	struct st_event *e = s_call(s, fn, dur, WIN);

	e->text = group;
	e->text_len = (uint32_t)strlen(group);
	return e;
}

static void s_finalize(struct script *s)
{
	s_call(s, ST_FN_MPI_FINALIZE, 1000, 0);
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

/* Global time: a rank's origin is global 'goff'. */
static double s_global(void *ctx, uint64_t t_ns)
{
	const struct script *s = ctx;

	return (double)t_ns - (double)s->origin + s->goff;
}

static double c_coll(void *ctx, unsigned fn, long p, double d)
{
	(void)ctx;
	(void)fn;
	(void)p;
	(void)d;
	return 50;
}

static struct st_replay *run(struct script *s, int global, const char *phase)
{
	struct st_replay_model m = { NULL, c_coll, NULL, NULL, NULL, NULL, 0,
				     NULL, NULL };
	struct st_replay_opts o;
	struct st_replay *rp;
	char err[256];
	int r;

	st_replay_opts_init(&o);
	if (phase)
		cr_assert_eq(st_phase_parse(phase, &o.phase), 0);
	cr_assert_eq(st_replay_new(&rp, 2, &m, &o), 0);
	for (r = 0; r < 2; r++) {
		struct st_replay_source src = { &s[r], s_next,
						global ? s_global : NULL,
						NULL };

		s[r].next = 0;
		cr_assert_eq(st_replay_set_source(rp, r, &src), 0);
	}
	cr_assert_eq(st_replay_run(rp, err, sizeof(err)), 0, "%s", err);
	return rp;
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

#define PRED(rp, r) (st_replay_rank((rp), (r))->pred_ns)
#define WAIT(rp, r) (st_replay_rank((rp), (r))->wait_ns)

Test(analysis_replay_rma, fence_free_and_file_collectives_wait_for_all)
{
	struct script s[2];
	struct st_replay *rp;
	const struct st_replay_fn *f;
	struct st_event *e;
	int r;

	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, r ? 7000000 : 0);
		s[r].t += r ? 400 : 100;
		e = s_call(&s[r], ST_FN_MPI_WIN_FENCE, 999, WIN);
		e->seq = 1;
		s[r].t += r ? 10 : 300;
		e = s_call(&s[r], ST_FN_MPI_FILE_WRITE_ALL, 999, FILE_ID);
		e->seq = 1;
		e->sbytes = 64;
		e = s_call(&s[r], ST_FN_MPI_WIN_FREE, 999, WIN);
		e->seq = 2;
		s_finalize(&s[r]);
	}
	rp = run(s, 0, NULL);
	/* Fence at 400 + 50; write_all at 450 + 300 + 50; free + 50. */
	cr_expect_float_eq(PRED(rp, 0), 850, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 850, 1e-9);
	cr_expect_float_eq(WAIT(rp, 0), 300, 1e-9);
	cr_expect_float_eq(WAIT(rp, 1), 290, 1e-9);
	f = fn_of(rp, ST_FN_MPI_WIN_FENCE);
	cr_assert(f);
	cr_expect_eq(f->n_model, 2);
	cr_expect_str_eq(st_replay_waits_for(ST_FN_MPI_WIN_FENCE), "members");
	cr_expect_str_eq(st_replay_waits_for(ST_FN_MPI_FILE_WRITE_ALL),
			 "members");
	st_replay_free(rp);
}

/*
 * Rank 0 (target) computes 1000, posts to {1} (10), waits (5); rank 1
 * (origin) computes 100, starts {0} (3), puts (20), computes 50,
 * completes (7).
 */
static void pscw(struct script *s, const char *post_group)
{
	struct st_event *e;

	s_init(&s[0], 0, 0);
	s[0].t += 1000;
	s_group(&s[0], ST_FN_MPI_WIN_POST, 10, post_group);
	s_call(&s[0], ST_FN_MPI_WIN_WAIT, 5, WIN);
	s_finalize(&s[0]);
	s_init(&s[1], 1, 5000000);
	s[1].t += 100;
	s_group(&s[1], ST_FN_MPI_WIN_START, 3, "0");
	e = s_call(&s[1], ST_FN_MPI_PUT, 20, WIN);
	e->peer = 0;
	e->sbytes = 80;
	s[1].t += 50;
	s_call(&s[1], ST_FN_MPI_WIN_COMPLETE, 7, WIN);
	s_finalize(&s[1]);
}

Test(analysis_replay_rma, start_waits_for_post_and_wait_for_complete)
{
	struct script s[2];
	struct st_replay *rp;
	const struct st_replay_fn *f;

	pscw(s, "1");
	rp = run(s, 0, NULL);
	/*
	 * Rank 1: start from 100 to the post's exit 1010 (no global time:
	 * no work of its own after it), put to 1030, compute to 1080,
	 * complete to 1087.  Rank 0: wait from 1010 to 1087.
	 */
	cr_expect_float_eq(PRED(rp, 1), 1087, 1e-9);
	cr_expect_float_eq(PRED(rp, 0), 1087, 1e-9);
	f = fn_of(rp, ST_FN_MPI_WIN_START);
	cr_assert(f);
	cr_expect_float_eq(f->pred_ns, 910, 1e-9);
	cr_expect_float_eq(f->wait_ns, 910, 1e-9);
	cr_expect_eq(f->n_traced, 1);
	f = fn_of(rp, ST_FN_MPI_WIN_WAIT);
	cr_assert(f);
	cr_expect_float_eq(f->wait_ns, 77, 1e-9);
	f = fn_of(rp, ST_FN_MPI_PUT);
	cr_assert(f);
	cr_expect_float_eq(f->pred_ns, 20, 1e-9);
	cr_expect_eq(f->n_traced, 1);
	cr_expect_str_eq(st_replay_waits_for(ST_FN_MPI_WIN_START), "post");
	cr_expect_str_eq(st_replay_waits_for(ST_FN_MPI_WIN_WAIT),
			 "completes");
	cr_expect_str_eq(st_replay_waits_for(ST_FN_MPI_PUT), "-");
	cr_expect_eq(st_replay_stats(rp)->released, 0);
	st_replay_free(rp);

	/*
	 * With global time each keeps its measured work after what it
	 * waited for: with rank 1 2000 later in global time, its start
	 * ran from 3100 to 3103, all after the post's exit at 2010, so 3
	 * more.
	 */
	s[1].goff = 2000;
	rp = run(s, 1, NULL);
	f = fn_of(rp, ST_FN_MPI_WIN_START);
	cr_expect_float_eq(f->pred_ns, 913, 1e-9);
	st_replay_free(rp);
}

Test(analysis_replay_rma, a_post_to_others_does_not_release_a_start)
{
	struct script s[2];
	struct st_replay *rp;

	/* Rank 0 posts to nobody: rank 1's start is released at last. */
	pscw(s, "");
	rp = run(s, 0, NULL);
	cr_expect_eq(st_replay_stats(rp)->released, 1);
	cr_expect_float_eq(fn_of(rp, ST_FN_MPI_WIN_START)->pred_ns, 0, 1e-9);
	st_replay_free(rp);
	/* A cut group (" ...") makes no dependency at all. */
	pscw(s, "1 ...");
	rp = run(s, 0, NULL);
	cr_expect_eq(st_replay_stats(rp)->released, 1);
	st_replay_free(rp);
}

Test(analysis_replay_rma, passive_target_keeps_nobody_but_its_caller)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;

	/* Rank 1 locks rank 0 and puts; rank 0 computes then fences. */
	s_init(&s[0], 0, 0);
	s[0].t += 100;
	e = s_call(&s[0], ST_FN_MPI_BARRIER, 10, WORLD);
	e->seq = 1;
	s_finalize(&s[0]);
	s_init(&s[1], 1, 3000000);
	e = s_call(&s[1], ST_FN_MPI_WIN_LOCK, 500, WIN);
	e->peer = 0;
	e->arg = ST_LOCK_EXCLUSIVE;
	e = s_call(&s[1], ST_FN_MPI_RPUT, 7, WIN);
	e->peer = 0;
	e->req = 1;
	e->sbytes = 8;
	e = s_add(&s[1]);
	e->kind = ST_REC_DONE;
	e->fn = ST_FN_MPI_WAIT;
	e->req = 1;
	e->comm = WIN;
	e->t0 = s[1].t;
	e->t1 = s[1].t + 40;
	s_call(&s[1], ST_FN_MPI_WAIT, 40, 0);
	e = s_call(&s[1], ST_FN_MPI_WIN_UNLOCK, 30, WIN);
	e->peer = 0;
	e = s_call(&s[1], ST_FN_MPI_BARRIER, 10, WORLD);
	e->seq = 1;
	s_finalize(&s[1]);
	rp = run(s, 0, NULL);
	/* Rank 1 takes 500 + 7 + 40 + 30, then the barrier: 577 + 50. */
	cr_expect_float_eq(PRED(rp, 1), 627, 1e-9);
	cr_expect_float_eq(PRED(rp, 0), 627, 1e-9);
	/* Rank 0 waited in the barrier only, from 100. */
	cr_expect_float_eq(WAIT(rp, 0), 477, 1e-9);
	cr_expect_float_eq(fn_of(rp, ST_FN_MPI_WAIT)->pred_ns, 40, 1e-9);
	cr_expect_eq(fn_of(rp, ST_FN_MPI_WAIT)->n_traced, 1);
	cr_expect_eq(fn_of(rp, ST_FN_MPI_WIN_LOCK)->n_traced, 1);
	st_replay_free(rp);
}

Test(analysis_replay_rma, a_phase_reports_only_itself)
{
	struct script s[2];
	struct st_replay *rp;
	struct st_event *e;
	int r;

	/*
	 * Both ranks: compute 100, Pcontrol(1) (5), compute 200 + 100 r,
	 * fence, Pcontrol(2) (5), compute 1000, fence, finalize.
	 */
	for (r = 0; r < 2; r++) {
		s_init(&s[r], r, r ? 9000000 : 0);
		s[r].t += 100;
		e = s_call(&s[r], ST_FN_MPI_PCONTROL, 5, 0);
		e->arg = 1;
		s[r].t += 200 + 100 * (uint64_t)r;
		e = s_call(&s[r], ST_FN_MPI_WIN_FENCE, 80, WIN);
		e->seq = 1;
		e = s_call(&s[r], ST_FN_MPI_PCONTROL, 5, 0);
		e->arg = 2;
		s[r].t += 1000;
		e = s_call(&s[r], ST_FN_MPI_WIN_FENCE, 80, WIN);
		e->seq = 2;
		s_finalize(&s[r]);
	}
	rp = run(s, 0, "1");
	/* Phase 1: from 105 to the fence's end at 405 + 50 = 455. */
	cr_expect_float_eq(PRED(rp, 0), 350, 1e-9);
	cr_expect_float_eq(PRED(rp, 1), 350, 1e-9);
	cr_expect_float_eq(st_replay_rank(rp, 0)->compute_ns, 200, 1e-9);
	cr_expect_float_eq(WAIT(rp, 0), 100, 1e-9);
	/* Measured: from the marker's exit to the next one's entry. */
	cr_expect_float_eq(st_replay_rank(rp, 0)->meas_ns, 280, 1e-9);
	cr_expect_eq(fn_of(rp, ST_FN_MPI_WIN_FENCE)->calls, 2);
	cr_expect_null(fn_of(rp, ST_FN_MPI_PCONTROL));
	st_replay_free(rp);
	rp = run(s, 0, "level=2");
	/* Phase 2: 1000 of compute and the second fence. */
	cr_expect_float_eq(PRED(rp, 0), 1050, 1e-9);
	cr_expect_float_eq(WAIT(rp, 0), 0, 1e-9);
	cr_expect_eq(fn_of(rp, ST_FN_MPI_WIN_FENCE)->calls, 2);
	st_replay_free(rp);
	rp = run(s, 0, "7");
	cr_expect_float_eq(PRED(rp, 0), 0, 1e-9);
	cr_expect_null(fn_of(rp, ST_FN_MPI_WIN_FENCE));
	st_replay_free(rp);
}
