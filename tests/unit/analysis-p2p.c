/*
 * tests/unit/analysis-p2p.c: pairing the ends of messages.  The k-th
 * send of a (communicator, source, destination, tag) meets its k-th
 * receive whichever end comes first, with world ranks reported on a
 * communicator whose ranks are not the world's; a nonblocking receive
 * that names its source and tag is numbered when posted (so completions
 * in another order still pair right), a wildcard one at its completion;
 * after the counting sweep, an end whose partner is not in the trace
 * says so; sends on unknown communicators are counted as unmapped; a
 * persistent send or receive is an end at each start, not at its init.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "gen/ops.h"
#include "tests/unit/analysis-fake-scan.h"
#include "tools/analysis/p2p.h"

#define WORLD (1ull << 32)
#define SUB 0x300000007ull

struct got {
	int n;
	struct st_p2p_msg m[16];
};

static int keep(void *ctx, const struct st_p2p_msg *m)
{
	struct got *g = ctx;

	cr_assert_lt(g->n, 16);
	g->m[g->n++] = *m;
	return 0;
}

static void feed(struct st_p2p *p, int rank, struct st_event ev, double g,
		 struct got *got)
{
	cr_assert_eq(st_p2p_add(p, rank, &ev, g, g + 1, keep, got), 0);
}

/*
 * The done record of request 'req' in a call of 'fn' on 'comm' whose
 * status says 'src', 'tag' and 'rbytes' ('arg': ST_DONE_CANCELLED, or 0).
 */
static struct st_event fake_done(unsigned fn, uint64_t comm, int32_t src,
				 int32_t tag, uint64_t req, uint64_t rbytes,
				 int32_t arg)
{
	struct st_event ev = fake_call(fn, comm, src, tag);

	ev.kind = ST_REC_DONE;
	ev.req = req;
	ev.rbytes = rbytes;
	ev.arg = arg;
	return ev;
}

/* Two ends reported, the second the first's partner; none left alone. */
static void expect_one_pair(const struct got *g, struct st_p2p *p)
{
	cr_assert_eq(g->n, 2);
	cr_expect(g->m[1].paired);
	cr_expect_eq(g->m[1].id, g->m[0].id);
	cr_expect_eq(st_p2p_unpaired(p), 0);
}

Test(analysis_p2p, kth_send_meets_kth_receive)
{
	static const int32_t world[2] = { 0, 1 }, sub[2] = { 1, 0 };
	struct st_scan s;
	struct st_p2p *p;
	struct got g = { 0 };
	struct st_event ev;

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 2, world);
	fake_comm(&s, SUB, 2, sub);
	p = st_p2p_new(&s);
	cr_assert_not_null(p);

	/* Two receives come before their sends. */
	ev = fake_call(ST_FN_MPI_RECV, WORLD, 0, 5);
	ev.rbytes = 10;
	feed(p, 1, ev, 100, &g);
	ev.rbytes = 20;
	feed(p, 1, ev, 200, &g);
	ev = fake_call(ST_FN_MPI_SEND, WORLD, 1, 5);
	ev.sbytes = 10;
	feed(p, 0, ev, 50, &g);
	ev.sbytes = 20;
	feed(p, 0, ev, 150, &g);
	cr_assert_eq(g.n, 4);
	cr_expect_not(g.m[0].paired);
	cr_expect(g.m[2].paired);
	cr_expect_eq(g.m[2].id, g.m[0].id);
	cr_expect_eq(g.m[3].id, g.m[1].id);
	cr_expect_neq(g.m[0].id, g.m[1].id);
	cr_expect_eq(g.m[3].other.bytes, 20);
	cr_expect_eq(g.m[3].end.peer, 1);
	cr_expect_eq(g.m[3].other.peer, 0);

	/* On SUB, rank 0 is world 1: world 1 sends to world 0. */
	ev = fake_call(ST_FN_MPI_ISEND, SUB, 1, 9);
	feed(p, 1, ev, 300, &g);
	cr_expect_eq(g.m[4].end.peer, 0);
	/* Two named Irecvs complete in the other order. */
	ev = fake_call(ST_FN_MPI_ISEND, SUB, 1, 9);
	feed(p, 1, ev, 310, &g);
	ev = fake_call(ST_FN_MPI_IRECV, SUB, 0, 9);
	ev.req = 1;
	feed(p, 0, ev, 320, &g);
	ev.req = 2;
	feed(p, 0, ev, 330, &g);
	cr_expect_eq(g.n, 6);	/* posting reports nothing */
	ev = fake_call(ST_FN_MPI_WAITALL, SUB, 0, 9);
	ev.kind = ST_REC_DONE;
	ev.req = 2;
	feed(p, 0, ev, 400, &g);
	ev.req = 1;
	feed(p, 0, ev, 400, &g);
	cr_assert_eq(g.n, 8);
	cr_expect_eq(g.m[6].id, g.m[5].id);	/* req 2: the second send */
	cr_expect_eq(g.m[7].id, g.m[4].id);
	cr_expect(g.m[7].end.recv);

	/* A wildcard receive pairs at its completion. */
	ev = fake_call(ST_FN_MPI_IRECV, WORLD, ST_RANK_ANY, ST_TAG_ANY);
	ev.req = 3;
	feed(p, 1, ev, 500, &g);
	ev = fake_call(ST_FN_MPI_SEND, WORLD, 1, 77);
	feed(p, 0, ev, 510, &g);
	ev = fake_call(ST_FN_MPI_WAIT, WORLD, 0, 77);
	ev.kind = ST_REC_DONE;
	ev.req = 3;
	feed(p, 1, ev, 520, &g);
	cr_assert_eq(g.n, 10);
	cr_expect(g.m[9].paired);
	cr_expect_eq(g.m[9].id, g.m[8].id);

	ev = fake_call(ST_FN_MPI_SEND, 0x999, 1, 0);
	feed(p, 0, ev, 600, &g);
	cr_expect_eq(st_p2p_unmapped(p), 1);
	cr_expect_eq(st_p2p_unpaired(p), 0);
	st_p2p_free(p);
	fake_scan_release(&s);
}

Test(analysis_p2p, counting_sweep_knows_lonely_ends)
{
	static const int32_t world[2] = { 0, 1 };
	struct st_scan s;
	struct st_p2p *p;
	struct got g = { 0 };
	struct st_event snd = fake_call(ST_FN_MPI_SEND, WORLD, 1, 3);
	struct st_event rcv = fake_call(ST_FN_MPI_RECV, WORLD, 0, 3);

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 2, world);
	p = st_p2p_new(&s);
	/* Rank 0 sends twice, rank 1 receives once. */
	cr_assert_eq(st_p2p_count(p, 0, &snd), 0);
	cr_assert_eq(st_p2p_count(p, 0, &snd), 0);
	cr_assert_eq(st_p2p_count(p, 1, &rcv), 0);
	st_p2p_counted(p);
	feed(p, 0, snd, 1, &g);
	feed(p, 0, snd, 2, &g);
	feed(p, 1, rcv, 3, &g);
	cr_assert_eq(g.n, 3);
	cr_expect(g.m[0].both);
	cr_expect_not(g.m[1].both);
	cr_expect(g.m[2].both && g.m[2].paired);
	cr_expect_eq(st_p2p_unpaired(p), 1);
	st_p2p_free(p);
	fake_scan_release(&s);
}

/*
 * A receive cancelled before a message came (its done record says
 * ST_DONE_CANCELLED) is no message's end: the next receive of its key
 * takes the first send, and a cancelled wildcard one pairs nothing.
 */
Test(analysis_p2p, cancelled_receive_is_no_end)
{
	static const int32_t world[2] = { 0, 1 };
	struct st_scan s;
	struct st_p2p *p;
	struct got g = { 0 };
	struct st_event ev;

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 2, world);
	p = st_p2p_new(&s);
	cr_assert_not_null(p);
	ev = fake_call(ST_FN_MPI_IRECV, WORLD, 0, 4);
	ev.req = 1;
	feed(p, 1, ev, 10, &g);
	ev = fake_done(ST_FN_MPI_WAIT, WORLD, 0, 4, 1, 0, ST_DONE_CANCELLED);
	feed(p, 1, ev, 20, &g);
	cr_expect_eq(g.n, 0);
	/* A wildcard one, its status undefined but for the flag. */
	ev = fake_call(ST_FN_MPI_IRECV, WORLD, ST_RANK_ANY, ST_TAG_ANY);
	ev.req = 2;
	feed(p, 1, ev, 25, &g);
	ev = fake_done(ST_FN_MPI_WAIT, WORLD, ST_RANK_ANY, ST_TAG_ANY, 2, 0,
		       ST_DONE_CANCELLED);
	feed(p, 1, ev, 28, &g);
	cr_expect_eq(g.n, 0);
	/* The message goes to the receive posted next. */
	ev = fake_call(ST_FN_MPI_IRECV, WORLD, 0, 4);
	ev.req = 3;
	feed(p, 1, ev, 30, &g);
	ev = fake_call(ST_FN_MPI_SEND, WORLD, 1, 4);
	ev.sbytes = 8;
	feed(p, 0, ev, 40, &g);
	ev = fake_done(ST_FN_MPI_WAIT, WORLD, 0, 4, 3, 8, 0);
	feed(p, 1, ev, 50, &g);
	expect_one_pair(&g, p);
	cr_expect_eq(g.m[1].end.bytes, 8);
	st_p2p_free(p);
	fake_scan_release(&s);
}

/*
 * A receive cancelled after a later receive of its key was posted: the
 * counting sweep saw it cancelled, so the pairing never numbers it, and
 * the later one takes the send (without the sweep it took number 1 and
 * the later one number 2, which no send has: two ends unpaired).
 */
Test(analysis_p2p, cancelled_receive_before_a_later_one)
{
	static const int32_t world[2] = { 0, 1 };
	struct st_event ev[5];
	struct st_scan s;
	struct st_p2p *p;
	struct got g = { 0 };
	int rank[5] = { 1, 1, 0, 1, 1 }, i;

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 2, world);
	p = st_p2p_new(&s);
	cr_assert_not_null(p);
	ev[0] = fake_call(ST_FN_MPI_IRECV, WORLD, 0, 5);
	ev[0].req = 1;
	ev[1] = fake_call(ST_FN_MPI_IRECV, WORLD, 0, 5);
	ev[1].req = 2;
	ev[2] = fake_call(ST_FN_MPI_SEND, WORLD, 1, 5);
	ev[2].sbytes = 8;
	ev[3] = fake_done(ST_FN_MPI_WAIT, WORLD, 0, 5, 2, 8, 0);
	ev[4] = fake_done(ST_FN_MPI_WAIT, WORLD, 0, 5, 1, 0,
			  ST_DONE_CANCELLED);
	for (i = 0; i < 5; i++)
		cr_assert_eq(st_p2p_count(p, rank[i], &ev[i]), 0);
	st_p2p_counted(p);
	for (i = 0; i < 5; i++)
		feed(p, rank[i], ev[i], 10.0 * i, &g);
	expect_one_pair(&g, p);
	cr_expect_eq(g.m[1].end.bytes, 8);
	cr_expect(g.m[1].both);
	st_p2p_free(p);
	fake_scan_release(&s);
}

/*
 * The same order without a counting sweep, the MPI_Cancel record in
 * between (what `synctrace view` sees): the cancelled receive's number
 * goes back at its MPI_Cancel, before the later receive takes one.
 */
Test(analysis_p2p, cancel_record_gives_the_number_back)
{
	static const int32_t world[2] = { 0, 1 };
	struct st_event ev;
	struct st_scan s;
	struct st_p2p *p;
	struct got g = { 0 };

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 2, world);
	p = st_p2p_new(&s);
	cr_assert_not_null(p);
	ev = fake_call(ST_FN_MPI_IRECV, WORLD, 0, 5);
	ev.req = 1;
	feed(p, 1, ev, 0, &g);
	ev = fake_call(ST_FN_MPI_CANCEL, 0, ST_RANK_NONE, 0);
	ev.req = 1;
	feed(p, 1, ev, 5, &g);
	ev = fake_call(ST_FN_MPI_IRECV, WORLD, 0, 5);
	ev.req = 2;
	feed(p, 1, ev, 10, &g);
	ev = fake_call(ST_FN_MPI_SEND, WORLD, 1, 5);
	ev.sbytes = 8;
	feed(p, 0, ev, 20, &g);
	feed(p, 1, fake_done(ST_FN_MPI_WAIT, WORLD, 0, 5, 2, 8, 0), 30, &g);
	feed(p, 1, fake_done(ST_FN_MPI_WAIT, WORLD, 0, 5, 1, 0,
			     ST_DONE_CANCELLED), 40, &g);
	expect_one_pair(&g, p);
	st_p2p_free(p);
	fake_scan_release(&s);
}

/*
 * A persistent request's init moves nothing: each START is a send, or
 * posts a receive, so a persistent send started twice meets two
 * blocking receives, and a wildcard persistent receive started twice two
 * blocking sends; an init never started is no end at all.
 */
Test(analysis_p2p, persistent_ends_at_each_start)
{
	static const int32_t world[2] = { 0, 1 };
	struct st_scan s;
	struct st_p2p *p;
	struct got g = { 0 };
	struct st_event ev;
	int i;

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 2, world);
	p = st_p2p_new(&s);
	cr_assert_not_null(p);

	ev = fake_call(ST_FN_MPI_SEND_INIT, WORLD, 1, 4);
	ev.req = 1;
	feed(p, 0, ev, 10, &g);
	ev.req = 2;			/* never started */
	feed(p, 0, ev, 11, &g);
	ev = fake_call(ST_FN_MPI_RECV_INIT, WORLD, ST_RANK_ANY, 6);
	ev.req = 3;
	feed(p, 1, ev, 12, &g);
	cr_expect_eq(g.n, 0);
	for (i = 0; i < 2; i++) {
		ev = fake_call(ST_FN_MPI_SEND_INIT, WORLD, 1, 4);
		ev.kind = ST_REC_START;
		ev.req = 1;
		ev.inst = (uint32_t)i + 1;
		ev.sbytes = 40;
		feed(p, 0, ev, 100 + 10 * i, &g);
		ev = fake_call(ST_FN_MPI_RECV, WORLD, 0, 4);
		ev.rbytes = 40;
		feed(p, 1, ev, 101 + 10 * i, &g);

		ev = fake_call(ST_FN_MPI_RECV_INIT, WORLD, ST_RANK_ANY, 6);
		ev.kind = ST_REC_START;
		ev.req = 3;
		ev.inst = (uint32_t)i + 1;
		feed(p, 1, ev, 102 + 10 * i, &g);
		ev = fake_call(ST_FN_MPI_SEND, WORLD, 1, 6);
		ev.sbytes = 8;
		feed(p, 0, ev, 103 + 10 * i, &g);
		ev = fake_done(ST_FN_MPI_WAIT, WORLD, 0, 6, 3, 8, 0);
		ev.inst = (uint32_t)i + 1;
		feed(p, 1, ev, 104 + 10 * i, &g);
	}
	cr_assert_eq(g.n, 8);
	for (i = 0; i < 8; i += 2) {
		cr_expect(g.m[i + 1].paired);
		cr_expect_eq(g.m[i + 1].id, g.m[i].id);
	}
	cr_expect_eq(g.m[0].end.bytes, 40);
	cr_expect_eq(g.m[3].end.bytes, 8);
	cr_expect_eq(st_p2p_unpaired(p), 0);
	st_p2p_free(p);
	fake_scan_release(&s);
}
