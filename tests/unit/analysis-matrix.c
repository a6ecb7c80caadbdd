/*
 * tests/unit/analysis-matrix.c: who sends how much to whom.  Sends count
 * at the sender (a persistent one at each start, its init never), to
 * the destination's world rank, also on a
 * communicator whose ranks differ from the world's; collectives move
 * what matrix.h says between which pairs (one-to-all from the receivers'
 * side, all-to-one from the senders', all-to-all spread at the end, scan
 * to higher ranks only); barriers move nothing; neighbourhood calls and
 * sends on unknown communicators are counted apart; the CSV lists every
 * pair with traffic.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tests/unit/analysis-fake-scan.h"
#include "tools/analysis/matrix.h"

#define WORLD (1ull << 32)
#define SUB 0x300000007ull

static double B(const struct st_matrix_part *p, int n, int s, int d)
{
	return p->bytes[s * n + d];
}

static uint64_t M(const struct st_matrix_part *p, int n, int s, int d)
{
	return p->msgs[s * n + d];
}

static void coll(struct st_matrix *m, struct st_scan *s, unsigned fn,
		 int rank, int32_t root, uint64_t sb, uint64_t rb)
{
	struct st_event ev = fake_call(fn, WORLD, ST_RANK_NONE, 0);

	ev.root = root;
	ev.sbytes = sb;
	ev.rbytes = rb;
	cr_assert_eq(st_matrix_add(m, s, rank, &ev), 0);
}

Test(analysis_matrix, pairs_and_patterns)
{
	static const int32_t world[3] = { 0, 1, 2 }, sub[2] = { 2, 0 };
	struct st_scan s;
	struct st_matrix m;
	struct st_event ev;
	int r, i, j;

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 3, world);
	fake_comm(&s, SUB, 2, sub);
	cr_assert_eq(st_matrix_init(&m, 3), 0);

	ev = fake_call(ST_FN_MPI_SEND, WORLD, 2, 0);
	ev.sbytes = 100;
	cr_assert_eq(st_matrix_add(&m, &s, 1, &ev), 0);
	ev = fake_call(ST_FN_MPI_ISEND, SUB, 0, 0);	/* world 0 -> world 2 */
	ev.sbytes = 50;
	cr_assert_eq(st_matrix_add(&m, &s, 0, &ev), 0);
	ev = fake_call(ST_FN_MPI_SEND, 0x999, 0, 0);
	cr_assert_eq(st_matrix_add(&m, &s, 0, &ev), 0);
	ev = fake_call(ST_FN_MPI_RECV, WORLD, 1, 0);	/* receives: nothing */
	ev.rbytes = 100;
	cr_assert_eq(st_matrix_add(&m, &s, 2, &ev), 0);
	/* A persistent send's init sends nothing; each start does. */
	ev = fake_call(ST_FN_MPI_SEND_INIT, WORLD, 0, 0);
	ev.sbytes = 7;
	cr_assert_eq(st_matrix_add(&m, &s, 2, &ev), 0);
	ev.kind = ST_REC_START;
	for (i = 0; i < 3; i++)
		cr_assert_eq(st_matrix_add(&m, &s, 2, &ev), 0);

	for (r = 0; r < 3; r++) {
		coll(&m, &s, ST_FN_MPI_BCAST, r, 0, r ? 0 : 8, r ? 8 : 0);
		coll(&m, &s, ST_FN_MPI_ALLREDUCE, r, ST_RANK_NONE, 16, 16);
		coll(&m, &s, ST_FN_MPI_ALLTOALL, r, ST_RANK_NONE, 30, 30);
		coll(&m, &s, ST_FN_MPI_SCAN, r, ST_RANK_NONE, 4, 4);
		coll(&m, &s, ST_FN_MPI_GATHER, r, 1, 5, r == 1 ? 15 : 0);
		coll(&m, &s, ST_FN_MPI_BARRIER, r, ST_RANK_NONE, 0, 0);
		coll(&m, &s, ST_FN_MPI_NEIGHBOR_ALLTOALL, r, ST_RANK_NONE, 6,
		     6);
		/* A persistent init moves nothing; its start does. */
		coll(&m, &s, ST_FN_MPI_ALLREDUCE_INIT, r, ST_RANK_NONE, 2, 2);
		ev = fake_call(ST_FN_MPI_ALLREDUCE_INIT, WORLD, ST_RANK_NONE,
			       0);
		ev.kind = ST_REC_START;
		ev.sbytes = 1;
		cr_assert_eq(st_matrix_add(&m, &s, r, &ev), 0);
	}
	st_matrix_finish(&m, &s);

	cr_expect_eq(B(&m.p2p, 3, 1, 2), 100);
	cr_expect_eq(B(&m.p2p, 3, 0, 2), 50);
	cr_expect_eq(M(&m.p2p, 3, 0, 2), 1);
	cr_expect_eq(B(&m.p2p, 3, 2, 1), 0);
	cr_expect_eq(B(&m.p2p, 3, 2, 0), 21);
	cr_expect_eq(M(&m.p2p, 3, 2, 0), 3);
	cr_expect_eq(m.p2p_unmapped, 1);
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			double want = 0;
			uint64_t n = 0;

			if (i == j) {
				cr_expect_eq(M(&m.coll, 3, i, j), 0);
				continue;
			}
			want += 16 + 10 + 1;	/* allreduce, alltoall, start */
			n += 3;
			if (i == 0) {		/* bcast root */
				want += 8;
				n++;
			}
			if (j > i) {		/* scan */
				want += 4;
				n++;
			}
			if (j == 1) {		/* gather to 1 */
				want += 5;
				n++;
			}
			cr_expect_float_eq(B(&m.coll, 3, i, j), want, 1e-9,
					   "coll %d -> %d: %g, want %g", i, j,
					   B(&m.coll, 3, i, j), want);
			cr_expect_eq(M(&m.coll, 3, i, j), n, "coll %d -> %d",
				     i, j);
		}
	cr_expect_eq(m.coll_unattributed_calls, 3);
	cr_expect_float_eq(m.coll_unattributed, 18, 1e-9);
	st_matrix_release(&m);
	fake_scan_release(&s);
}

Test(analysis_matrix, csv_lists_every_pair_with_traffic)
{
	static const int32_t world[2] = { 0, 1 };
	struct st_scan s;
	struct st_matrix m;
	struct st_event ev;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&s, 0, sizeof(s));
	fake_comm(&s, WORLD, 2, world);
	cr_assert_eq(st_matrix_init(&m, 2), 0);
	ev = fake_call(ST_FN_MPI_SEND, WORLD, 1, 0);
	ev.sbytes = 12;
	cr_assert_eq(st_matrix_add(&m, &s, 0, &ev), 0);
	cr_assert_eq(st_matrix_add(&m, &s, 0, &ev), 0);
	st_matrix_finish(&m, &s);
	f = open_memstream(&buf, &len);
	cr_assert_eq(st_matrix_write_csv(f, &m), 0);
	fclose(f);
	cr_expect_str_eq(buf, "kind,src,dst,bytes,messages\np2p,0,1,24,2\n");
	free(buf);
	st_matrix_release(&m);
	cr_expect_eq(st_matrix_init(&m, ST_MATRIX_MAX_RANKS + 1), -E2BIG);
	fake_scan_release(&s);
}

/*
 * The matrices are the same whether a rank's records come rank by rank
 * (st_scan_sweep()) or interleaved with the other ranks' as a walk in
 * global time gives them: all-to-all blocks are fractions, and their
 * sums over communicators are added in the sweep's order either way
 * (these three sums give another last bit in another order).
 */
Test(analysis_matrix, same_sums_in_sweep_and_walk_order)
{
	static const int32_t w1[3] = { 0, 1, 2 }, w2[3] = { 2, 0, 1 },
			     w3[3] = { 1, 2, 0 };
	static const uint64_t comm[3] = { WORLD, 0x500000001ull,
					  0x500000002ull };
	static const uint64_t sb[3] = { 800876, 66173, 3250131697415228ull };
	struct st_matrix sweep, walk;
	struct st_scan s;
	struct st_event ev;
	double want;
	int k;

	memset(&s, 0, sizeof(s));
	fake_comm(&s, comm[0], 3, w1);
	fake_comm(&s, comm[1], 3, w2);
	fake_comm(&s, comm[2], 3, w3);
	cr_assert_eq(st_matrix_init(&sweep, 3), 0);
	cr_assert_eq(st_matrix_init(&walk, 3), 0);
	/* Sweep: rank 0's records (comms 0, 1, 2), then rank 1's (2, 1, 0). */
	for (k = 0; k < 3; k++) {
		ev = fake_call(ST_FN_MPI_ALLTOALL, comm[k], ST_RANK_NONE, 0);
		ev.sbytes = ev.rbytes = sb[k];
		cr_assert_eq(st_matrix_add(&sweep, &s, 0, &ev), 0);
	}
	for (k = 2; k >= 0; k--) {
		ev = fake_call(ST_FN_MPI_ALLTOALL, comm[k], ST_RANK_NONE, 0);
		ev.sbytes = ev.rbytes = sb[k];
		cr_assert_eq(st_matrix_add(&sweep, &s, 1, &ev), 0);
	}
	/* Walk: rank 1 was earlier in global time; each rank in order. */
	for (k = 2; k >= 0; k--) {
		ev = fake_call(ST_FN_MPI_ALLTOALL, comm[k], ST_RANK_NONE, 0);
		ev.sbytes = ev.rbytes = sb[k];
		cr_assert_eq(st_matrix_add(&walk, &s, 1, &ev), 0);
	}
	for (k = 0; k < 3; k++) {
		ev = fake_call(ST_FN_MPI_ALLTOALL, comm[k], ST_RANK_NONE, 0);
		ev.sbytes = ev.rbytes = sb[k];
		cr_assert_eq(st_matrix_add(&walk, &s, 0, &ev), 0);
	}
	st_matrix_finish(&sweep, &s);
	st_matrix_finish(&walk, &s);
	want = (((double)sb[0] / 3 + (double)sb[1] / 3) + (double)sb[2] / 3);
	cr_expect(B(&sweep.coll, 3, 0, 1) == want, "%.17g, want %.17g",
		  B(&sweep.coll, 3, 0, 1), want);
	cr_expect(!memcmp(sweep.coll.bytes, walk.coll.bytes,
			  9 * sizeof(double)), "0 -> 1: %.17g vs %.17g",
		  B(&sweep.coll, 3, 0, 1), B(&walk.coll, 3, 0, 1));
	cr_expect(!memcmp(sweep.coll.msgs, walk.coll.msgs,
			  9 * sizeof(uint64_t)));
	st_matrix_release(&sweep);
	st_matrix_release(&walk);
	fake_scan_release(&s);
}
