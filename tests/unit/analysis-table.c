/*
 * tests/unit/analysis-table.c: the samples, groups and fits of a cost
 * table.  The size d of each collective class, computed from the bytes
 * that pmpi/bytes.c itself would record on every rank, is the natural
 * per-rank size (the count times the type size); samples land in one
 * group per (operation, p, d); Tukey's fences drop exactly the values
 * outside them and the count is kept; per-run medians give the spread
 * between runs; exact linear data is fitted back; one process count
 * says so, and a single group gets no fit.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "pmpi/bytes.h"
#include "tools/analysis/stats.h"
#include "tools/analysis/table.h"
#include "writer/event.h"
#include "writer/fn-info.h"

static uint64_t type_size(void *ctx, const void *types, size_t i)
{
	(void)types;
	(void)i;
	return *(const uint64_t *)ctx;
}

/*
 * The bytes every rank of a 'p'-rank intra-communicator records for a
 * collective of class 'cls' with 'count' elements of 'tsize' bytes per
 * block (root 0), summed over the ranks, as the interposer counts them.
 */
static void summed_bytes(int cls, int p, int64_t count, uint64_t tsize,
			 uint64_t *s_sum, uint64_t *r_sum)
{
	int64_t counts[64];
	int type = 1, r, i;

	cr_assert_leq(p, 64);
	for (i = 0; i < p; i++)
		counts[i] = count;
	*s_sum = *r_sum = 0;
	for (r = 0; r < p; r++) {
		struct st_xfer_comm c = { .size = p, .rank = r };
		struct st_xfer x;
		uint64_t s, rb;

		memset(&x, 0, sizeof(x));
		x.cls = cls;
		x.root = 0;
		x.scount = x.rcount = count;
		x.scounts = x.rcounts = counts;
		x.counts_64 = 1;
		x.stype = x.rtype = &type;
		x.ctx = &tsize;
		x.type_size = type_size;
		cr_assert_eq(st_bytes(&x, &c, &s, &rb), 0, "class %d", cls);
		*s_sum += s;
		*r_sum += rb;
	}
}

Test(tools_table, size_of_each_class_is_the_per_rank_block)
{
	static const int classes[] = {
		ST_BYTES_BCAST, ST_BYTES_REDUCE, ST_BYTES_ALLREDUCE,
		ST_BYTES_SCAN, ST_BYTES_GATHER, ST_BYTES_GATHERV,
		ST_BYTES_ALLGATHER, ST_BYTES_ALLGATHERV, ST_BYTES_SCATTER,
		ST_BYTES_SCATTERV, ST_BYTES_ALLTOALL, ST_BYTES_ALLTOALLV,
		ST_BYTES_REDUCE_SCATTER, ST_BYTES_REDUCE_SCATTER_BLOCK,
	};
	static const int ps[] = { 1, 2, 3, 5, 8 };
	size_t i, j;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
			uint64_t s, r;
			double d;

			summed_bytes(classes[i], ps[j], 12, 8, &s, &r);
			cr_assert_eq(st_table_coll_size(classes[i], ps[j], s,
							r, 0, 0, &d), 0);
			cr_expect_float_eq(d, 96.0, 1e-9,
					   "class %d p=%d: d=%g, want 96",
					   classes[i], ps[j], d);
			cr_expect_not_null(st_table_size_rule(classes[i]));
		}
	}
}

/*
 * An all-to-all with uneven blocks is sized by its busiest member: two
 * ranks, rank 0 sending 12 KiB to each rank (24 KiB in all) and rank 1
 * 96 KiB (192 KiB): rank 0 gets 108 KiB, rank 1 108 KiB; the busiest
 * member moves 192 KiB, so d is 96 KiB, where the mean block is 54 KiB.
 * Equal blocks give the mean block; other classes keep their rule.
 */
Test(tools_table, uneven_alltoallv_is_sized_by_its_busiest_member)
{
	const uint64_t k = 1024, s = 216 * k, r = 216 * k;
	double d = -1;

	cr_assert_eq(st_table_coll_size(ST_BYTES_ALLTOALLV, 2, s, r, 0, 0, &d),
		     0);
	cr_expect_float_eq(d, 54.0 * 1024, 1e-9, "mean block %g", d);
	cr_assert_eq(st_table_coll_size(ST_BYTES_ALLTOALLV, 2, s, r,
					192 * k, 108 * k, &d), 0);
	cr_expect_float_eq(d, 96.0 * 1024, 1e-9, "busiest %g", d);
	cr_assert_eq(st_table_coll_size(ST_BYTES_ALLTOALLW, 2, s, r,
					24 * k, 160 * k, &d), 0);
	cr_expect_float_eq(d, 80.0 * 1024, 1e-9, "busiest receiver %g", d);
	/* Equal blocks of 32 KiB on 4 ranks: 128 KiB each way a rank. */
	cr_assert_eq(st_table_coll_size(ST_BYTES_ALLTOALLV, 4, 512 * k,
					512 * k, 128 * k, 128 * k, &d), 0);
	cr_expect_float_eq(d, 32.0 * 1024, 1e-9, "equal blocks %g", d);
	/* A gatherv keeps the mean block; no maxima, the mean too. */
	cr_assert_eq(st_table_coll_size(ST_BYTES_GATHERV, 2, 300, 300,
					200, 300, &d), 0);
	cr_expect_float_eq(d, 150.0, 1e-9, "gatherv %g", d);
	cr_assert_eq(st_table_coll_size(ST_BYTES_ALLTOALLV, 2, s, r, 0, 0,
					&d), 0);
	cr_expect_float_eq(d, 54.0 * 1024, 1e-9, "no maxima %g", d);
	cr_expect_eq(st_table_coll_size(ST_BYTES_ALLTOALLV, 0, s, r, 1, 1,
					&d), -EINVAL);
}

Test(tools_table, size_rules_cover_barrier_and_refuse_others)
{
	double d = -1;

	cr_expect_eq(st_table_coll_size(ST_BYTES_BARRIER, 4, 0, 0, 0, 0, &d),
		     0);
	cr_expect_eq(d, 0);
	cr_expect_eq(st_table_coll_size(ST_BYTES_SEND, 2, 8, 0, 0, 0, &d),
		     -EINVAL);
	cr_expect_eq(st_table_coll_size(ST_BYTES_ALLREDUCE, 0, 8, 8, 0, 0, &d),
		     -EINVAL);
	cr_expect_null(st_table_size_rule(ST_BYTES_RECV));
	cr_expect_eq(st_table_coll_size(ST_BYTES_PUT, 2, 8, 0, 0, 0, &d),
		     -EINVAL);
	/* Window and file collectives: no data, or one rank's part. */
	cr_expect_eq(st_table_coll_size(ST_BYTES_NONE, 3, 0, 0, 0, 0, &d), 0);
	cr_expect_eq(d, 0);
	cr_expect_eq(st_table_coll_size(ST_BYTES_WRITE, 4, 400, 0, 0, 0, &d),
		     0);
	cr_expect_float_eq(d, 100.0, 1e-12);
	cr_expect_eq(st_table_coll_size(ST_BYTES_READ, 4, 0, 200, 0, 0, &d), 0);
	cr_expect_float_eq(d, 50.0, 1e-12);
	cr_expect_not_null(st_table_size_rule(ST_BYTES_NONE));
	cr_expect_not_null(st_table_size_rule(ST_BYTES_WRITE));
	/* The mean block of a vector variant. */
	cr_assert_eq(st_table_coll_size(ST_BYTES_ALLGATHERV, 3, 30, 90, 0, 0,
					&d),
		     0);
	cr_expect_float_eq(d, 10.0, 1e-12);
}

static struct st_table *table_with(double tukey, int bins)
{
	struct st_table_options o;
	struct st_table *t;

	st_table_options_init(&o);
	o.tukey_k = tukey;
	o.bins_per_octave = bins;
	cr_assert_eq(st_table_new(&t, &o), 0);
	return t;
}

static void add(struct st_table *t, unsigned fn, long p, double d,
		uint32_t run, double cost)
{
	cr_assert_eq(st_table_add(t, ST_TABLE_COLL, fn, 0, p, d, run, cost,
				  10, 100, 0), 0);
}

static void add_first(struct st_table *t, unsigned fn, long p, double d,
		      uint32_t run, double cost)
{
	cr_assert_eq(st_table_add_first(t, ST_TABLE_COLL, fn, 0, p, d, run,
					cost), 0);
}

/* The group of 'fn' at (p, d), or NULL. */
static const struct st_table_group *find(const struct st_table *t,
					 const char *name, long p, double d)
{
	size_t i;

	for (i = 0; i < st_table_ngroups(t); i++) {
		const struct st_table_group *g = st_table_group(t, i);

		if (!strcmp(st_table_op(t, g->op)->name, name) &&
		    g->p == p && g->d == d)
			return g;
	}
	return NULL;
}

Test(tools_table, samples_group_by_operation_p_and_d)
{
	struct st_table *t = table_with(1.5, 0);
	const struct st_table_group *g;
	const struct st_table_op *op;
	int i;

	for (i = 0; i < 10; i++) {
		add(t, ST_FN_MPI_BCAST, 2, 8, 0, 100 + i);
		add(t, ST_FN_MPI_BCAST, 2, 64, 0, 200 + i);
		add(t, ST_FN_MPI_BCAST, 4, 8, 0, 300 + i);
		add(t, ST_FN_MPI_ALLREDUCE, 2, 8, 0, 400 + i);
	}
	cr_assert_eq(st_table_add(t, ST_TABLE_P2P, ST_FN_MPI_SEND,
				  ST_FN_MPI_RECV, 2, 8, 0, 50, 0, 60, 0), 0);
	cr_assert_eq(st_table_add(t, ST_TABLE_P2P, ST_FN_MPI_SENDRECV,
				  ST_FN_MPI_SENDRECV, 2, 8, 0, 50, 0, 60, 0),
		     0);
	cr_assert_eq(st_table_finish(t), 0);
	cr_assert_eq(st_table_nops(t), 4);
	cr_assert_eq(st_table_ngroups(t), 6);
	/* Collectives by name, then point-to-point by name. */
	cr_expect_str_eq(st_table_op(t, 0)->name, "MPI_Allreduce");
	cr_expect_str_eq(st_table_op(t, 1)->name, "MPI_Bcast");
	cr_expect_str_eq(st_table_op(t, 2)->name, "MPI_Send->MPI_Recv");
	cr_expect_str_eq(st_table_op(t, 3)->name, "MPI_Sendrecv");
	cr_expect_eq(st_table_op(t, 2)->kind, ST_TABLE_P2P);
	op = st_table_op(t, 1);
	cr_assert_eq(op->ngroups, 3);
	cr_expect_eq(op->samples, 30);
	cr_expect_eq(op->p_min, 2);
	cr_expect_eq(op->p_max, 4);
	cr_expect_eq(op->nps, 2);
	cr_expect_float_eq(op->wait_ns, 300.0, 1e-9);
	/* Groups by p, then d. */
	cr_expect_eq(st_table_group(t, op->groups[0])->p, 2);
	cr_expect_eq(st_table_group(t, op->groups[0])->d, 8);
	cr_expect_eq(st_table_group(t, op->groups[1])->d, 64);
	cr_expect_eq(st_table_group(t, op->groups[2])->p, 4);
	g = find(t, "MPI_Bcast", 2, 64);
	cr_assert_not_null(g);
	cr_expect_eq(g->n_in, 10);
	cr_expect_float_eq(g->s.median, 204.5, 1e-9);
	cr_expect(g->s.ci_ok);
	cr_expect_leq(g->s.ci_lo, 204.5);
	cr_expect_geq(g->s.ci_hi, 204.5);
	cr_expect_eq(st_table_nsamples(t), 42);
	st_table_free(t);
}

Test(tools_table, tukey_fences_drop_and_count_outliers)
{
	struct st_table *t = table_with(1.5, 0), *all = table_with(0, 0);
	const struct st_table_group *g;
	int i;

	/* 20 values 100..119 and two far out: 5 and 1000. */
	for (i = 0; i < 20; i++) {
		add(t, ST_FN_MPI_BARRIER, 2, 0, 0, 100 + i);
		add(all, ST_FN_MPI_BARRIER, 2, 0, 0, 100 + i);
	}
	add(t, ST_FN_MPI_BARRIER, 2, 0, 0, 1000);
	add(t, ST_FN_MPI_BARRIER, 2, 0, 0, 5);
	add(all, ST_FN_MPI_BARRIER, 2, 0, 0, 1000);
	add(all, ST_FN_MPI_BARRIER, 2, 0, 0, 5);
	cr_assert_eq(st_table_finish(t), 0);
	cr_assert_eq(st_table_finish(all), 0);

	g = find(t, "MPI_Barrier", 2, 0);
	cr_assert_not_null(g);
	cr_expect_eq(g->n_in, 22);
	cr_expect_eq(g->s.n_dropped, 2);
	cr_expect_eq(g->s.n, 20);
	cr_expect_float_eq(g->s.median, 109.5, 1e-9);
	cr_expect_eq(st_table_op(t, 0)->n_dropped, 2);
	cr_expect_eq(st_table_op(t, 0)->n_kept, 20);

	g = find(all, "MPI_Barrier", 2, 0);
	cr_assert_not_null(g);
	cr_expect_eq(g->s.n_dropped, 0, "tukey 0 keeps every sample");
	cr_expect_eq(g->s.n, 22);
	st_table_free(t);
	st_table_free(all);
}

Test(tools_table, per_run_medians_give_the_spread)
{
	struct st_table *t = table_with(1.5, 0);
	const struct st_table_group *g;
	int i;

	/* Run 0 around 100, run 1 around 110, run 2 around 104. */
	for (i = 0; i < 9; i++) {
		add(t, ST_FN_MPI_ALLREDUCE, 2, 8, 0, 96 + i);
		add(t, ST_FN_MPI_ALLREDUCE, 2, 8, 1, 106 + i);
		add(t, ST_FN_MPI_ALLREDUCE, 2, 8, 2, 100 + i);
	}
	add(t, ST_FN_MPI_ALLREDUCE, 2, 16, 0, 50);
	cr_assert_eq(st_table_finish(t), 0);
	g = find(t, "MPI_Allreduce", 2, 8);
	cr_assert_not_null(g);
	cr_expect_eq(g->nruns, 3);
	cr_expect_float_eq(g->run_med_min, 100.0, 1e-9);
	cr_expect_float_eq(g->run_med_max, 110.0, 1e-9);
	cr_expect_float_eq(g->run_spread, 0.1, 1e-12);
	g = find(t, "MPI_Allreduce", 2, 16);
	cr_assert_not_null(g);
	cr_expect_eq(g->nruns, 1);
	cr_expect(isnan(g->run_spread), "one run: no spread");
	cr_expect(!g->s.ci_ok, "one sample: no CI");
	st_table_free(t);
}

/*
 * The launch as the unit: per-run medians kept in run order, the
 * standard deviation of their logarithms, and the difference a
 * comparison of two such tables would resolve; groups of one run have
 * none, and the summary over groups counts those beyond 'resolve'.
 */
Test(tools_table, launch_spread_and_resolvable_difference)
{
	struct st_table_options o;
	struct st_table_launches l;
	const struct st_table_group *g;
	struct st_table *t;
	double logs[6] = { 0 }, mean = 0, sd = 0;
	uint32_t run;
	int i;

	st_table_options_init(&o);
	cr_expect_float_eq(o.resolve, 0.05, 1e-15);
	o.resolve = 0.03;
	cr_assert_eq(st_table_new(&t, &o), 0);
	/* 8 B: 6 launches within 1 % of each other (medians 1000..1010,
	 * added out of run order); 1 KiB: 6 launches 10 % apart; 64 KiB:
	 * one launch. */
	for (run = 6; run-- > 0;) {
		for (i = 0; i < 5; i++) {
			add(t, ST_FN_MPI_BCAST, 2, 8, run, 998 + 2 * run + i);
			add(t, ST_FN_MPI_BCAST, 2, 1024, run,
			    (2000 + i) * (1 + 0.1 * (run % 2)));
		}
		logs[run] = log(1000 + 2 * run);
	}
	add(t, ST_FN_MPI_BCAST, 2, 65536, 0, 5000);
	cr_assert_eq(st_table_finish(t), 0);

	g = find(t, "MPI_Bcast", 2, 8);
	cr_assert_not_null(g);
	cr_assert_eq(g->nruns, 6);
	for (i = 0; i < 6; i++) {
		cr_expect_eq(g->run_no[i], (uint32_t)i);
		cr_expect_float_eq(g->run_med[i], 1000 + 2 * i, 1e-9);
		mean += logs[i] / 6;
	}
	for (i = 0; i < 6; i++)
		sd += (logs[i] - mean) * (logs[i] - mean) / 5;
	sd = sqrt(sd);
	cr_expect_float_eq(g->run_sd, sd, 1e-12);
	cr_expect(g->resolvable > 0 && g->resolvable < 0.03, "%g",
		  g->resolvable);
	g = find(t, "MPI_Bcast", 2, 1024);
	cr_assert_not_null(g);
	cr_expect(g->run_sd > 0.04, "%g", g->run_sd);
	cr_expect(g->resolvable > 0.03, "%g", g->resolvable);
	g = find(t, "MPI_Bcast", 2, 65536);
	cr_assert_not_null(g);
	cr_expect(g->nruns == 1 && isnan(g->run_sd) && isnan(g->resolvable));

	cr_assert_eq(st_table_launches(t, &l), 0);
	cr_expect_eq(l.n_groups, 2);
	cr_expect_eq(l.max_runs, 6);
	cr_expect_eq(l.n_unresolved, 1);
	cr_expect(l.median_run_sd > sd);
	st_table_free(t);
}

static double uniform01(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(*seed >> 11) + 0.5) / 9007199254740992.0;
}

/*
 * Tables pooled from 5 launches whose level moves from launch to launch
 * (a log-normal factor of sd 0.1, as the bench's small collectives do
 * on shared memory), 30 samples each uniform within +-5 %: the group's
 * 95 % interval holds the launches' centre (1000 ns) in about 95 % of
 * 400 such tables; the order statistics of the 150 pooled samples
 * alone (what a table gave before) hold it in under half.  One launch
 * keeps the order statistics' interval.
 */
Test(tools_table, pooled_launches_widen_the_interval_to_their_spread)
{
	enum { TABLES = 400, K = 5, N = 30 };
	uint64_t seed = 2026;
	int held = 0, held_pooled = 0, tb, run, i;

	for (tb = 0; tb < TABLES; tb++) {
		struct st_table *t = table_with(1.5, 0);
		const struct st_table_group *g;
		struct st_summary s;
		double x[K * N];

		for (run = 0; run < K; run++) {
			double u = uniform01(&seed), v = uniform01(&seed);
			double f = exp(0.1 * sqrt(-2 * log(u)) *
				       cos(6.283185307179586 * v));

			for (i = 0; i < N; i++) {
				x[run * N + i] = f * (950 + 100 *
						      uniform01(&seed));
				add(t, ST_FN_MPI_ALLREDUCE, 2, 8,
				    (uint32_t)run, x[run * N + i]);
			}
			if (tb == 0 && run == 0) {
				/* One launch: the order statistics'. */
				struct st_table *t1 = table_with(1.5, 0);

				for (i = 0; i < N; i++)
					add(t1, ST_FN_MPI_ALLREDUCE, 2, 8, 3,
					    x[i]);
				cr_assert_eq(st_table_finish(t1), 0);
				g = find(t1, "MPI_Allreduce", 2, 8);
				cr_assert_eq(st_summary_compute(&s, x, N, 1.5,
								0.95), 0);
				cr_expect(!g->ci_launches);
				cr_expect_eq(g->s.ci_lo, s.ci_lo);
				cr_expect_eq(g->s.ci_hi, s.ci_hi);
				st_table_free(t1);
			}
		}
		cr_assert_eq(st_table_finish(t), 0);
		g = find(t, "MPI_Allreduce", 2, 8);
		cr_assert_not_null(g);
		cr_assert(g->ci_launches && g->s.ci_ok);
		cr_assert(g->s.ci_lo <= g->s.median &&
			  g->s.median <= g->s.ci_hi);
		held += g->s.ci_lo <= 1000 && 1000 <= g->s.ci_hi;
		cr_assert_eq(st_summary_compute(&s, x, K * N, 1.5, 0.95), 0);
		cr_expect(g->s.ci_lo <= s.ci_lo && g->s.ci_hi >= s.ci_hi,
			  "never narrower than the pooled samples'");
		held_pooled += s.ci_lo <= 1000 && 1000 <= s.ci_hi;
		st_table_free(t);
	}
	cr_expect(held >= 0.91 * TABLES && held <= 0.99 * TABLES,
		  "held %d of %d", held, TABLES);
	cr_expect(held_pooled < 0.5 * TABLES, "pooled held %d of %d",
		  held_pooled, TABLES);
}

Test(tools_table, first_instance_of_each_run_is_the_first_call)
{
	struct st_table *t = table_with(0, 0);
	const struct st_table_group *g;
	int run, i;

	/*
	 * Application runs: each run's first sample of a group is its first
	 * call and stays a sample.  Firsts 500, 300, 400: median 400.
	 */
	for (run = 0; run < 3; run++) {
		add(t, ST_FN_MPI_ALLREDUCE, 2, 8, (uint32_t)run,
		    500 - 200 * (run == 1) - 100 * (run == 2));
		for (i = 0; i < 4; i++)
			add(t, ST_FN_MPI_ALLREDUCE, 2, 8, (uint32_t)run, 10);
	}
	/* A bench run: its first calls are apart, not samples. */
	add_first(t, ST_FN_MPI_ALLREDUCE, 2, 8, 3, 900);
	add_first(t, ST_FN_MPI_ALLREDUCE, 2, 8, 3, 5000);
	add(t, ST_FN_MPI_ALLREDUCE, 2, 8, 3, 10);
	add_first(t, ST_FN_MPI_ALLREDUCE, 2, 16, 3, 700);
	add(t, ST_FN_MPI_ALLREDUCE, 2, 16, 3, 20);
	/* A first call whose group has no sample is dropped. */
	add_first(t, ST_FN_MPI_BCAST, 2, 8, 3, 800);
	cr_expect_eq(st_table_add_first(t, ST_TABLE_COLL, ST_FN_MPI_BCAST, 0,
					0, 8, 3, 800), -EINVAL);
	cr_assert_eq(st_table_finish(t), 0);
	cr_expect_eq(st_table_nsamples(t), 15 + 2);

	g = find(t, "MPI_Allreduce", 2, 8);
	cr_assert_not_null(g);
	cr_expect_eq(g->n_in, 16, "the three application firsts and 13");
	cr_expect_eq(g->first_n, 4);
	cr_expect_float_eq(g->first_ns, 450.0, 1e-9,
			   "of 300 400 500 900, not the second first 5000");
	cr_expect_float_eq(g->first_min_ns, 300.0, 1e-9);
	cr_expect_float_eq(g->first_max_ns, 900.0, 1e-9);
	g = find(t, "MPI_Allreduce", 2, 16);
	cr_assert_not_null(g);
	cr_expect_eq(g->n_in, 1);
	cr_expect_eq(g->first_n, 1);
	cr_expect_float_eq(g->first_ns, 700.0, 1e-9);
	cr_expect_null(find(t, "MPI_Bcast", 2, 8));
	st_table_free(t);
}

Test(tools_table, a_first_call_before_the_samples_is_the_runs_first)
{
	struct st_table *t = table_with(0, 0);
	const struct st_table_group *g;

	add_first(t, ST_FN_MPI_ALLREDUCE, 2, 8, 0, 900);
	add(t, ST_FN_MPI_ALLREDUCE, 2, 8, 0, 10);
	add(t, ST_FN_MPI_ALLREDUCE, 2, 8, 0, 12);
	cr_assert_eq(st_table_finish(t), 0);
	g = find(t, "MPI_Allreduce", 2, 8);
	cr_assert_not_null(g);
	cr_expect_eq(g->n_in, 2, "the samples after it are samples only");
	cr_expect_eq(g->first_n, 1);
	cr_expect_float_eq(g->first_ns, 900.0, 1e-9);
	st_table_free(t);
}

Test(tools_table, bins_merge_nearby_sizes)
{
	struct st_table *t = table_with(0, 1);
	const struct st_table_op *op;
	const struct st_table_group *g;

	add(t, ST_FN_MPI_GATHERV, 2, 1000, 0, 10);
	add(t, ST_FN_MPI_GATHERV, 2, 1100, 0, 12);
	add(t, ST_FN_MPI_GATHERV, 2, 4000, 0, 30);
	add(t, ST_FN_MPI_GATHERV, 2, 0, 0, 5);
	cr_assert_eq(st_table_finish(t), 0);
	op = st_table_op(t, 0);
	cr_assert_eq(op->ngroups, 3);
	g = st_table_group(t, op->groups[1]);
	cr_expect_eq(g->n_in, 2);
	cr_expect_float_eq(g->d, 1050.0, 1e-9, "d is the bin's mean size");
	cr_expect_eq(st_table_group(t, op->groups[0])->d, 0);
	st_table_free(t);
}

Test(tools_table, linear_data_is_fitted_back)
{
	struct st_table *t = table_with(1.5, 0);
	const struct st_table_op *op;
	static const double ds[] = { 8, 64, 512, 4096, 32768 };
	size_t i;
	int k;

	/* T = 1000 ns + 0.5 ns/B * d, with +-1 ns around each median. */
	for (i = 0; i < 5; i++)
		for (k = -5; k <= 5; k++)
			add(t, ST_FN_MPI_ALLREDUCE, 2, ds[i], 0,
			    1000 + 0.5 * ds[i] + k);
	cr_assert_eq(st_table_finish(t), 0);
	op = st_table_op(t, 0);
	cr_assert_eq(op->fit_rc, 0);
	cr_assert_eq(op->fit.npieces, 1);
	cr_expect(op->fit.flags & ST_FIT_P_NOT_IDENTIFIED,
		  "one p: p not identified");
	cr_expect_eq(op->fit.piece[0].f, ST_FIT_NONE);
	cr_expect_eq(op->fit.piece[0].g, ST_FIT_ONE);
	cr_expect_float_eq(op->fit.piece[0].coef[0], 1000.0, 2.0);
	cr_expect_float_eq(op->fit.piece[0].coef[2], 0.5, 1e-3);
	cr_expect(op->fit.weighted);
	cr_expect(op->fit.piece[0].has_q);
	cr_expect_eq(op->n_kept, 55);
	st_table_free(t);
}

Test(tools_table, one_group_has_no_fit_and_small_groups_no_q)
{
	struct st_table *t = table_with(1.5, 0);
	const struct st_table_op *op;
	int i;

	add(t, ST_FN_MPI_BARRIER, 2, 0, 0, 800);
	add(t, ST_FN_MPI_BARRIER, 2, 0, 0, 810);
	/* Three sizes with 3 samples each: no CI, so no sigma and no Q. */
	for (i = 0; i < 3; i++) {
		add(t, ST_FN_MPI_BCAST, 2, 8, 0, 100 + i);
		add(t, ST_FN_MPI_BCAST, 2, 80, 0, 200 + i);
		add(t, ST_FN_MPI_BCAST, 2, 800, 0, 1100 + i);
	}
	cr_assert_eq(st_table_finish(t), 0);
	op = st_table_op(t, 0);
	cr_expect_str_eq(op->name, "MPI_Barrier");
	cr_expect_eq(op->fit_rc, -EDOM);
	op = st_table_op(t, 1);
	cr_assert_eq(op->fit_rc, 0);
	cr_expect(!op->fit.weighted);
	cr_expect(!op->fit.piece[0].has_q, "no per-point errors: Q is n/a");
	st_table_free(t);
}

Test(tools_table, clock_error_and_samples_below_it)
{
	struct st_table *t = table_with(0, 0);
	const struct st_table_group *g;
	double med, max;

	cr_assert_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER, 0, 2,
				  0, 0, 20, 0, 20, 30), 0);
	cr_assert_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER, 0, 2,
				  0, 0, 50, 0, 50, 30), 0);
	cr_assert_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER, 0, 2,
				  0, 0, 60, 0, 60, NAN), 0);
	cr_assert_eq(st_table_finish(t), 0);
	g = st_table_group(t, 0);
	cr_expect_eq(g->n_below_err, 1);
	cr_expect_float_eq(g->err_median_ns, 30.0, 1e-9);
	st_table_clock_err(t, &med, &max);
	cr_expect_float_eq(med, 30.0, 1e-9);
	cr_expect_float_eq(max, 30.0, 1e-9);
	st_table_free(t);
}

Test(tools_table, bad_samples_are_refused)
{
	struct st_table *t = table_with(1.5, 0);
	struct st_table_options o;

	cr_expect_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER, 0, 0,
				  0, 0, 1, 0, 0, 0), -EINVAL);
	cr_expect_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER, 0, 2,
				  -1, 0, 1, 0, 0, 0), -EINVAL);
	cr_expect_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER, 0, 2,
				  0, 0, NAN, 0, 0, 0), -EINVAL);
	cr_expect_eq(st_table_add(t, ST_TABLE_COLL, 0, 0, 2, 0, 0, 1, 0, 0,
				  0), -EINVAL);
	cr_expect_eq(st_table_finish(t), 0);
	cr_expect_eq(st_table_nops(t), 0);
	cr_expect_eq(st_table_add(t, ST_TABLE_COLL, ST_FN_MPI_BARRIER, 0, 2,
				  0, 0, 1, 0, 0, 0), -EINVAL,
		     "no sample after finish");
	st_table_free(t);
	st_table_options_init(&o);
	o.ci_level = 1.5;
	cr_expect_eq(st_table_new(&t, &o), -EINVAL);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the finite values of 'v' [n] as the table defines it
 * (st_stats_median of them sorted), NaN when none; 'v' is reordered. */
static double ref_median(double *v, size_t n)
{
	size_t i, k = 0;
	double m;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_dbl);
	cr_assert_eq(st_stats_median(v, k, &m), 0);
	return m;
}

/*
 * What st_table_finish() finds without copying or qsort() (an in-place
 * sort, radix selection of clock errors, per-run medians in two passes)
 * is what the plain way finds: sort copies, take medians.  Synthetic
 * groups with ties, outliers, unknown and negative errors, one run or
 * several in any order, sizes from 1 to 20000 samples; every figure
 * must be equal, not close.
 */
/* Whether 'got' is within relative 'rel' of 'want'. */
static int near_rel(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want) + 1e-9;
}

/*
 * The launches' interval of the median from 'k' >= 2 per-run medians:
 * exp(mean +- t(k - 1) sd / sqrt(k)) of their logarithms.
 */
static void launch_interval(const double *med, size_t k, double level,
			    double *lo, double *hi)
{
	double mean = 0, ss = 0, q;
	size_t i;

	for (i = 0; i < k; i++)
		mean += log(med[i]) / (double)k;
	for (i = 0; i < k; i++)
		ss += (log(med[i]) - mean) * (log(med[i]) - mean);
	cr_assert_eq(st_stats_t_quantile(0.5 * (1 + level), (double)(k - 1),
					 &q), 0);
	*lo = exp(mean - q * sqrt(ss / (double)(k - 1) / (double)k));
	*hi = exp(mean + q * sqrt(ss / (double)(k - 1) / (double)k));
}

Test(tools_table, finish_matches_a_sorting_reference)
{
	static const size_t sizes[] = { 1, 2, 3, 17, 18, 1000, 20001 };
	static const int nruns[] = { 1, 1, 2, 3, 5, 1, 4 };
	size_t ng = sizeof(sizes) / sizeof(sizes[0]), gi, i, total = 0;
	double *xs[7], *es[7], *all_e, m, maxe, ref_max = NAN;
	uint32_t *rs[7];
	struct st_table *t;
	uint64_t seed = 12345;

	cr_assert_eq(st_table_new(&t, NULL), 0);
	for (gi = 0; gi < ng; gi++) {
		xs[gi] = malloc(sizes[gi] * sizeof(double));
		es[gi] = malloc(sizes[gi] * sizeof(double));
		rs[gi] = malloc(sizes[gi] * sizeof(uint32_t));
		for (i = 0; i < sizes[gi]; i++) {
			double x, e;
			uint32_t run;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			/* Coarse costs make ties; one in 50 is an outlier. */
			x = 1000 + (double)((seed >> 33) % 200) +
			    ((seed >> 20) % 50 ? 0 : 1e5);
			e = (seed >> 40) % 7 ? (double)((seed >> 45) % 90) -
			    3.0 : NAN;
			run = (uint32_t)((seed >> 13) % (uint64_t)nruns[gi]) *
			      3 + 1;
			if (gi == 5)
				run = 7;
			cr_assert_eq(st_table_add(t, ST_TABLE_COLL,
						  ST_FN_MPI_ALLREDUCE, 0,
						  2, (double)(8 << gi), run,
						  x, 0, 0, e), 0);
			xs[gi][i] = x;
			es[gi][i] = isfinite(e) ? (double)(float)e : NAN;
			rs[gi][i] = run;
		}
		total += sizes[gi];
	}
	cr_assert_eq(st_table_finish(t), 0);
	cr_assert_eq(st_table_ngroups(t), ng);
	all_e = malloc(total * sizeof(double));
	total = 0;
	for (gi = 0; gi < ng; gi++) {
		const struct st_table_group *g = st_table_group(t, gi);
		struct st_summary s;
		double *x = malloc(sizes[gi] * sizeof(double)), rmed[20];
		size_t below = 0, first, nk, k;

		cr_assert_eq(g->n_in, sizes[gi]);
		cr_assert_eq(g->d, (double)(8 << gi));
		for (i = 0; i < sizes[gi]; i++) {
			if (isfinite(es[gi][i]) && xs[gi][i] < es[gi][i])
				below++;
			all_e[total++] = es[gi][i];
		}
		cr_expect_eq(g->n_below_err, below, "group %zu", gi);
		memcpy(x, xs[gi], sizes[gi] * sizeof(double));
		qsort(x, sizes[gi], sizeof(double), cmp_dbl);
		for (i = 0; i < sizes[gi]; i++)
			cr_assert_eq(g->x[i], x[i], "group %zu sample %zu", gi,
				     i);
		cr_assert_eq(st_summary_compute(&s, x, sizes[gi], 1.5, 0.95),
			     0);
		cr_expect_eq(g->s.median, s.median);
		cr_expect_eq(g->s.n_dropped, s.n_dropped);
		m = ref_median(es[gi], sizes[gi]);
		cr_expect(g->err_median_ns == m ||
			  (isnan(m) && isnan(g->err_median_ns)),
			  "group %zu: error median %g, want %g", gi,
			  g->err_median_ns, m);

		/* Per-run medians of the samples within the fences. */
		for (first = 0; x[first] < s.fence_lo; first++)
			;
		nk = s.n;
		k = 0;
		for (uint32_t run = 0; run < 20; run++) {
			double *v = malloc(sizes[gi] * sizeof(double));
			size_t nv = 0;

			for (i = 0; i < sizes[gi]; i++)
				if (rs[gi][i] == run &&
				    xs[gi][i] >= x[first] &&
				    xs[gi][i] <= x[first + nk - 1])
					v[nv++] = xs[gi][i];
			if (nv) {
				cr_assert_lt(k, g->nruns, "group %zu", gi);
				cr_expect_eq(g->run_no[k], run);
				cr_expect_eq(g->run_med[k], ref_median(v, nv),
					     "group %zu run %u", gi, run);
				rmed[k] = ref_median(v, nv);
				k++;
			}
			free(v);
		}
		cr_expect_eq(g->nruns, k, "group %zu", gi);
		/* The interval: the order statistics', widened by the
		   launches' when there are 2 or more. */
		if (k >= 2 && s.ci_ok) {
			double llo, lhi;

			launch_interval(rmed, k, 0.95, &llo, &lhi);
			cr_expect(g->ci_launches, "group %zu", gi);
			cr_expect(near_rel(g->s.ci_lo, fmin(s.ci_lo, llo),
					   1e-12), "group %zu: %.6f %.6f %.6f",
				  gi, g->s.ci_lo, s.ci_lo, llo);
			cr_expect(near_rel(g->s.ci_hi, fmax(s.ci_hi, lhi),
					   1e-12), "group %zu", gi);
			cr_expect(g->s.se_median >= s.se_median);
		} else {
			cr_expect(!g->ci_launches, "group %zu", gi);
			cr_expect_eq(g->s.ci_lo, s.ci_lo, "group %zu", gi);
			cr_expect_eq(g->s.ci_hi, s.ci_hi, "group %zu", gi);
			cr_expect_eq(g->s.se_median, s.se_median);
		}
		free(x);
	}
	st_table_clock_err(t, &m, &maxe);
	for (i = 0; i < total; i++)
		if (isfinite(all_e[i]) && !(all_e[i] <= ref_max))
			ref_max = all_e[i];
	cr_expect_eq(maxe, ref_max);
	cr_expect_eq(m, ref_median(all_e, total));
	for (gi = 0; gi < ng; gi++) {
		free(xs[gi]);
		free(es[gi]);
		free(rs[gi]);
	}
	free(all_e);
	st_table_free(t);
}

/*
 * A group past options.exact_max samples keeps a summary of relative
 * resolution ST_TABLE_SUMMARY_RES instead of its samples: its median,
 * quartiles, CI bounds, fences, per-run medians and median clock error
 * are those of the exact table within that resolution, its extremes
 * exact; a group under the cap in the same table is exactly as without
 * a cap and says so (resolution 0).  Uniform, log-normal, Pareto (heavy
 * tail, alpha 1.2) and coarse integer costs with ties, from two runs.
 * The tolerance is half a bucket: a summary reading its buckets one off
 * would fail.
 */
Test(tools_table, summary_past_the_cap_matches_exact_within_resolution)
{
	enum { N = 60000, NSMALL = 500, NDIST = 4 };
	struct st_table_options o;
	struct st_table *te, *ts;
	uint64_t seed = 777;
	double res = ST_TABLE_SUMMARY_RES;
	size_t gi, i;
	int dist;

	st_table_options_init(&o);
	cr_assert_eq(o.exact_max, (size_t)1 << 20);
	cr_assert_eq(st_table_new(&te, &o), 0);
	o.exact_max = 4096;
	cr_assert_eq(st_table_new(&ts, &o), 0);
	for (dist = 0; dist < NDIST; dist++)
		for (i = 0; i < N; i++) {
			double u, v, x, e;
			uint32_t run;

			seed = seed * 6364136223846793005ULL +
			       1442695040888963407ULL;
			u = ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
			seed = seed * 6364136223846793005ULL +
			       1442695040888963407ULL;
			v = ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
			run = (uint32_t)((seed >> 40) % 2) * 5 + 2;
			switch (dist) {
			case 0:
				x = 1000 + 500 * u;
				break;
			case 1:	/* log-normal, Box-Muller */
				x = 2000 * exp(0.5 * sqrt(-2 * log(u)) *
					       cos(6.283185307179586 * v));
				break;
			case 2:	/* Pareto, heavy tail */
				x = 800 * pow(u, -1 / 1.2);
				break;
			default: /* whole ns with many ties */
				x = 3000 + floor(40 * u);
				break;
			}
			/* A run-dependent shift, so per-run medians differ. */
			x *= run == 2 ? 1.0 : 1.03;
			e = 5 + 90 * v;
			cr_assert_eq(st_table_add(te, ST_TABLE_COLL,
						  ST_FN_MPI_ALLREDUCE, 0, 2,
						  (double)(8 << dist), run, x,
						  0, 0, e), 0);
			cr_assert_eq(st_table_add(ts, ST_TABLE_COLL,
						  ST_FN_MPI_ALLREDUCE, 0, 2,
						  (double)(8 << dist), run, x,
						  0, 0, e), 0);
		}
	/* A small group stays exact. */
	for (i = 0; i < NSMALL; i++) {
		double x = 100 + (double)((i * 7919) % 301);

		cr_assert_eq(st_table_add(te, ST_TABLE_COLL, ST_FN_MPI_BCAST,
					  0, 2, 64, 2, x, 0, 0, 1), 0);
		cr_assert_eq(st_table_add(ts, ST_TABLE_COLL, ST_FN_MPI_BCAST,
					  0, 2, 64, 2, x, 0, 0, 1), 0);
	}
	cr_assert_eq(st_table_finish(te), 0);
	cr_assert_eq(st_table_finish(ts), 0);
	cr_assert_eq(st_table_ngroups(ts), NDIST + 1);
	for (gi = 0; gi < NDIST + 1; gi++) {
		const struct st_table_group *a = st_table_group(te, gi);
		const struct st_table_group *b = st_table_group(ts, gi);
		int big = a->n_in == N;

		cr_assert_eq(a->n_in, b->n_in);
		cr_expect_eq(a->resolution, 0);
		cr_expect_eq(b->resolution, big ? res : 0, "group %zu", gi);
		cr_expect_eq(b->x == NULL, big);
		if (!big) {
			/* Under the cap: the very same figures. */
			cr_expect_eq(b->s.median, a->s.median);
			cr_expect_eq(b->s.ci_lo, a->s.ci_lo);
			cr_expect_eq(b->s.ci_hi, a->s.ci_hi);
			cr_expect_eq(b->s.mean, a->s.mean);
			cr_expect_eq(b->err_median_ns, a->err_median_ns);
			continue;
		}
		cr_expect_eq(b->s.min, a->s.min, "group %zu", gi);
		cr_expect(near_rel(b->s.median, a->s.median, res / 2),
			  "group %zu: median %.3f, exact %.3f", gi,
			  b->s.median, a->s.median);
		cr_expect(near_rel(b->s.q1, a->s.q1, res / 2),
			  "group %zu: q1 %.3f, exact %.3f", gi, b->s.q1,
			  a->s.q1);
		cr_expect(near_rel(b->s.q3, a->s.q3, res / 2),
			  "group %zu: q3 %.3f, exact %.3f", gi, b->s.q3,
			  a->s.q3);
		/* Two runs: the interval is the launches' (t(1) = 12.7
		   times their spread), which magnifies the per-run
		   medians' error of half a bucket each up to (1 + t) / 2
		   buckets. */
		cr_expect(a->ci_launches && b->ci_launches, "group %zu", gi);
		cr_expect(near_rel(b->s.ci_lo, a->s.ci_lo, 7 * res),
			  "group %zu: ci_lo %.3f, exact %.3f", gi,
			  b->s.ci_lo, a->s.ci_lo);
		cr_expect(near_rel(b->s.ci_hi, a->s.ci_hi, 7 * res),
			  "group %zu: ci_hi %.3f, exact %.3f", gi,
			  b->s.ci_hi, a->s.ci_hi);
		cr_expect(near_rel(b->s.fence_hi, a->s.fence_hi, res),
			  "group %zu: fence %.3f, exact %.3f", gi,
			  b->s.fence_hi, a->s.fence_hi);
		/* Samples within a bucket of a fence may fall either way. */
		cr_expect(b->s.n_dropped <= a->s.n_dropped + N / 500 &&
			  a->s.n_dropped <= b->s.n_dropped + N / 500,
			  "group %zu: dropped %zu, exact %zu", gi,
			  b->s.n_dropped, a->s.n_dropped);
		cr_expect(near_rel(b->s.mean, a->s.mean, res),
			  "group %zu: mean %.3f, exact %.3f", gi, b->s.mean,
			  a->s.mean);
		cr_assert_eq(b->nruns, 2, "group %zu nruns %zu", gi, b->nruns);
		cr_assert_eq(a->nruns, 2);
		for (i = 0; i < 2; i++) {
			cr_expect_eq(b->run_no[i], a->run_no[i]);
			cr_expect(near_rel(b->run_med[i], a->run_med[i], res / 2),
				  "group %zu run %zu: %.3f, exact %.3f", gi,
				  i, b->run_med[i], a->run_med[i]);
		}
		cr_expect(near_rel(b->err_median_ns, a->err_median_ns,
				   res / 2),
			  "group %zu: error median %.4f, exact %.4f", gi,
			  b->err_median_ns, a->err_median_ns);
	}
	{
		double ma, xa, mb, xb;

		st_table_clock_err(te, &ma, &xa);
		st_table_clock_err(ts, &mb, &xb);
		cr_expect_eq(xb, xa);
		cr_expect(near_rel(mb, ma, res / 2), "%.4f vs %.4f", mb, ma);
	}
	st_table_free(te);
	st_table_free(ts);
}

/*
 * The library's start: series by (launch, rank, size) in the order
 * their sends came, interleaved; each series' later half is its steady
 * state, the excess per send the median over the series.
 */
Test(tools_table, start_rows_from_the_series_of_each_size)
{
	struct st_table *t = table_with(0, 0);
	const struct st_table_start *r;
	uint32_t run;
	int rank, k;

	for (k = 0; k < ST_TABLE_START_MSGS; k++) {
		for (run = 0; run < 2; run++) {
			for (rank = 0; rank < 2; rank++) {
				/* Steady 500 (run 1: 600); the first 10
				   sends 10 us more, the 11th of rank 1
				   4 us more. */
				double x = 500 + 100 * run +
					   (k < 10 ? 10000 : 0) +
					   (k == 10 && rank ? 4000 : 0);

				cr_assert_eq(st_table_add_start(t, run, rank,
								2048, x), 0);
			}
		}
		/* 1 KiB: one series, too short to count. */
		if (k < ST_TABLE_START_MIN - 1)
			cr_assert_eq(st_table_add_start(t, 0, 0, 1024, 9e3),
				     0);
	}
	cr_expect_eq(st_table_add_start(t, 0, 0, -1, 5), -EINVAL);
	cr_expect_eq(st_table_add_start(t, 0, 0, 8, NAN), -EINVAL);
	cr_assert_eq(st_table_finish(t), 0);
	cr_expect_eq(st_table_add_start(t, 0, 0, 2048, 5), -EINVAL);
	cr_assert_eq(st_table_nstarts(t), 1, "the short 1 KiB series left out");
	r = st_table_start(t, 0);
	cr_assert_not_null(r);
	cr_expect_float_eq(r->bytes, 2048, 1e-9);
	cr_expect_eq(r->series, 4);
	cr_expect_eq(r->msgs, ST_TABLE_START_MSGS);
	cr_expect_float_eq(r->steady_ns, 550, 1e-9, "%g", r->steady_ns);
	/* Series' excesses: 100000, and 104000 for rank 1's. */
	cr_expect_float_eq(r->excess_min_ns, 100000, 1e-9);
	cr_expect_float_eq(r->excess_max_ns, 104000, 1e-9);
	cr_expect_float_eq(r->excess_ns, 102000, 1e-9);
	for (k = 0; k < 10; k++)
		cr_expect_float_eq(r->profile_ns[k], 10000, 1e-9);
	/* The 11th: median of 0, 0, 4000, 4000. */
	cr_expect_float_eq(r->profile_ns[10], 2000, 1e-9);
	cr_expect_float_eq(r->profile_ns[11], 0, 1e-9);
	cr_expect_float_eq(r->profile_sum_ns, 102000, 1e-9);
	/* Over 2 x 550 + 1000: the first 10, not the 11th's 2000. */
	cr_expect_eq(r->slow, 10);
	cr_expect_null(st_table_start(t, 1));
	st_table_free(t);
}
