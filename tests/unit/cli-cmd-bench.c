/*
 * tests/unit/cli-cmd-bench.c: 'synctrace bench'.  Options parse into
 * the right settings or a usage error naming the problem; operation
 * names are matched as documented; the mpiexec command line carries
 * exactly the options given, the extra mpiexec arguments before the
 * program; and the command really runs it once per --runs, each run in
 * its own directory with its own seed, stopping at a failed run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/ops.h"
#include "tools/bench/micro-ops.h"
#include "tools/cli/synctrace.h"
#include "tools-test.h"

static struct st_bench_opts o;
static char err[256];

static int parse(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	err[0] = '\0';
	return st_bench_opts_parse(&o, argc, argv, err, sizeof(err));
}

/* The command line of run 'seed' as one string, words separated by ' '. */
static void joined(const char *dir, uint64_t seed, char *buf, size_t len)
{
	char nbuf[32], sbuf[32];
	char **v = st_bench_argv(&o, "/b/synctrace-bench", dir, seed, nbuf,
				 sizeof(nbuf), sbuf, sizeof(sbuf));
	size_t used = 0;
	int i;

	cr_assert(v);
	buf[0] = '\0';
	for (i = 0; v[i]; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? " " : "", v[i]);
	free(v);
}

Test(tools_bench_opts, defaults)
{
	char *argv[] = { "bench", NULL };
	char line[1024];

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect_eq(o.nranks, 2);
	cr_expect_eq(o.runs, 1);
	cr_expect_eq(o.seed, 1);
	cr_expect_null(o.dir);
	cr_expect_null(o.ops);
	cr_expect_null(o.sizes);
	cr_expect_null(o.sync);
	cr_expect_eq(o.quick, 0);
	cr_expect_str_eq(o.mpiexec, "mpiexec.mpich");
	cr_expect_eq(o.nextra, 0);
	joined("/d", 1, line, sizeof(line));
	cr_expect_str_eq(line, "mpiexec.mpich -n 2 /b/synctrace-bench micro "
			 "--dir /d --seed 1", "the program's defaults apply");
}

Test(tools_bench_opts, every_option_reaches_the_program)
{
	char *argv[] = { "bench", "-n", "4", "-o", "out", "--runs=3",
			 "--ops", "MPI_Allreduce,bcast,p2p", "--sizes",
			 "0,8,4K,1M", "--nrep", "100", "--seed=41", "--sync",
			 "barrier", "--window-factor", "2.5", "--quick",
			 "--reuse-buffers", "--cold-coll", "--warm-p2p",
			 "--skew", "0,+1s@+10ppm", "--mpiexec", "/x/mpiexec",
			 "--", "-launcher", "fork", NULL };
	char line[1024];

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect_eq(o.nranks, 4);
	cr_expect_str_eq(o.dir, "out");
	cr_expect_eq(o.runs, 3);
	cr_expect_eq(o.seed, 41);
	cr_expect_str_eq(o.skew, "0,+1s@+10ppm");
	cr_assert_eq(o.nextra, 2);
	joined("/abs/out/run-2", 42, line, sizeof(line));
	cr_expect_str_eq(line, "/x/mpiexec -n 4 -launcher fork "
			 "/b/synctrace-bench micro --dir /abs/out/run-2 "
			 "--ops MPI_Allreduce,bcast,p2p --sizes 0,8,4K,1M "
			 "--nrep 100 --seed 42 --sync barrier "
			 "--window-factor 2.5 --quick --reuse-buffers "
			 "--cold-coll --warm-p2p",
			 "the skew goes by the environment, not argv");
}

Test(tools_bench_opts, min_and_max)
{
	char *argv[] = { "bench", "--min", "1K", "--max=64K", NULL };
	char line[1024];

	cr_assert_eq(parse(argv), 0, "%s", err);
	joined("/d", 7, line, sizeof(line));
	cr_expect_str_eq(line, "mpiexec.mpich -n 2 /b/synctrace-bench micro "
			 "--dir /d --min 1K --max 64K --seed 7");
}

Test(tools_bench_opts, help)
{
	char *argv[] = { "bench", "--help", "--nonsense", NULL };

	cr_assert_eq(parse(argv), 0);
	cr_expect(o.help);
}

Test(tools_bench_opts, usage_errors)
{
	static const struct { char *a, *b; const char *msg; } bad[] = {
		{ "--frob", NULL, "unknown option '--frob'" },
		{ "stray", NULL, "unexpected argument 'stray'" },
		{ "-n", "1", "bad number of ranks '1' for '-n' (2 or more)" },
		{ "-n", NULL, "bad number of ranks '' for '-n'" },
		{ "-o", "", "option '-o' needs a directory" },
		{ "--runs", "0", "bad number of runs '0' for '--runs'" },
		{ "--runs", "1001", "bad number of runs '1001'" },
		{ "--ops", "allreduce,frob", "unknown operation 'frob' for "
					     "'--ops'" },
		{ "--ops", "allreduce,", "unknown operation '' for '--ops'" },
		{ "--ops", "MPI_", "unknown operation 'MPI_'" },
		{ "--sizes", "1,x", "bad size list '1,x' for '--sizes'" },
		{ "--sizes", "2G", "bad size list '2G'" },
		{ "--sizes", "1,,2", "bad size list '1,,2'" },
		{ "--sizes", "8,1K,8", "size given twice in '8'" },
		{ "--min", "0", "bad size '0' for '--min'" },
		{ "--max", "4T", "bad size '4T' for '--max'" },
		{ "--nrep", "0", "bad count '0' for '--nrep'" },
		{ "--seed", "-1", "bad seed '-1' for '--seed'" },
		{ "--seed", "1x", "bad seed '1x'" },
		{ "--sync", "never", "bad mode 'never' for '--sync'" },
		{ "--window-factor", "0.05", "bad factor '0.05'" },
		{ "--window-factor", "x", "bad factor 'x'" },
		{ "--skew", "0,fast", "bad '--skew': SYNCTRACE_CLOCK_SKEW "
				      "entry 1 'fast'" },
		{ "--mpiexec", NULL, "option '--mpiexec' needs a program" },
		{ "--pairs", "allreduce", "bad item 'allreduce' in "
					  "'--pairs'" },
		{ "--pairs", "allreduce:8,coll:8", "bad item 'coll:8'" },
		{ "--pairs", "frob:8", "bad item 'frob:8'" },
		{ "--pairs", "bcast:2G", "bad item 'bcast:2G'" },
		{ "--pairs", "bcast:", "bad item 'bcast:'" },
		{ "--pairs", "bcast:8@", "bad item 'bcast:8@'" },
		{ "--pairs", "bcast:8@2001", "bad item 'bcast:8@2001'" },
		{ "--pairs", "bcast:8@-1", "bad item 'bcast:8@-1'" },
		{ "--pairs", "bcast:8@1x", "bad item 'bcast:8@1x'" },
		{ "--pairs", "pingpong:8@100", "bad item 'pingpong:8@100'" },
		{ "--pairs", "bcast:8/", "bad item 'bcast:8/'" },
		{ "--pairs", "bcast:8/pingpong:8",
		  "bad item 'bcast:8/pingpong:8'" },
		{ "--pairs", "pingpong:8/bcast:8",
		  "bad item 'pingpong:8/bcast:8'" },
		{ "--pairs", "bcast:8@5/frob:8", "bad item 'bcast:8@5/frob:8'" },
		{ "--pairs", "bcast:8/scan:8@5", "bad item 'bcast:8/scan:8@5'" },
		{ "--pairs", "bcast:8/scan:2G", "bad item 'bcast:8/scan:2G'" },
		{ "--like", "", "option '--like' needs a run directory" },
		{ "--warmup", "x", "bad number of launches 'x' for "
				   "'--warmup' (0 to 100)" },
		{ "--warmup", "101", "bad number of launches '101'" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "bench", bad[i].a, bad[i].b, NULL };

		cr_expect_eq(parse(argv), -1, "%s %s accepted", bad[i].a,
			     bad[i].b ? bad[i].b : "");
		cr_expect(strstr(err, bad[i].msg), "'%s' for %s %s", err,
			  bad[i].a, bad[i].b ? bad[i].b : "");
	}
}

/*
 * --repro: 20 launches of 5 measurements after one warm-up launch,
 * ranks bound to cores when each can have one; what is given explicitly
 * stays.
 */
Test(tools_bench_opts, repro_settles_launches_and_binding)
{
	char *argv[] = { "bench", "--repro", NULL };
	char *given[] = { "bench", "--repro", "--runs", "20", "--nrep", "5",
			  "--warmup=0", "--no-bind", NULL };
	char *quick[] = { "bench", "--repro", "--quick", NULL };
	char line[1024];

	cr_assert_eq(parse(argv), 0, "%s", err);
	cr_expect(o.repro && o.warmup == -1 && o.bind == -1);
	st_bench_settle(&o, 2);
	cr_expect_eq(o.runs, 20);
	cr_expect_str_eq(o.nrep, "5");
	cr_expect_eq(o.warmup, 1);
	cr_expect_eq(o.bind, 1);
	joined("/d/run-1", 1, line, sizeof(line));
	cr_expect_str_eq(line, "mpiexec.mpich -n 2 --bind-to core "
			 "/b/synctrace-bench micro --dir /d/run-1 --nrep 5 "
			 "--seed 1 --pair-time 2000");

	cr_assert_eq(parse(given), 0, "%s", err);
	st_bench_settle(&o, 2);
	cr_expect_eq(o.runs, 20);
	cr_expect_str_eq(o.nrep, "5");
	cr_expect_eq(o.warmup, 0);
	cr_expect_eq(o.bind, 0);
	joined("/d", 1, line, sizeof(line));
	cr_expect(!strstr(line, "bind"), "%s", line);

	/* --quick keeps its own 5 measurements, and no --pair-time. */
	cr_assert_eq(parse(quick), 0, "%s", err);
	st_bench_settle(&o, 2);
	cr_expect_null(o.nrep);
	cr_expect_null(o.pair_time);
}

/*
 * --pair-time gives pairs with short windows more measurements, up to 4
 * nrep: the estimate grows with it, and not past 4 times the plain one.
 */
Test(tools_bench_opts, pair_time_raises_the_estimate_within_bounds)
{
	char *plain[] = { "bench", "--sizes", "1,1K", "--ops", "allreduce",
			  "--nrep", "5", NULL };
	char *timed[] = { "bench", "--sizes", "1,1K", "--ops", "allreduce",
			  "--nrep", "5", "--pair-time", "2000", NULL };
	char *bad[] = { "bench", "--pair-time", "-1", NULL };
	double a, b;

	cr_assert_eq(parse(plain), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &a), 2);
	cr_assert_eq(parse(timed), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &b), 2);
	/* Both windows are 100 us: 20 measurements each, not 5. */
	cr_expect_float_eq(b - 0.5, 4 * (a - 0.5), 1e-9, "%g %g", a, b);
	cr_expect_neq(parse(bad), 0);
	cr_expect(strstr(err, "--pair-time"), "%s", err);
}

/* Bound by default only when every rank can have a CPU of its own and
 * the mpiexec arguments do not bind or map ranks themselves. */
Test(tools_bench_opts, binding_by_default_and_its_exceptions)
{
	char *two[] = { "bench", NULL };
	char *four[] = { "bench", "-n", "4", NULL };
	char *forced[] = { "bench", "-n", "4", "--bind", NULL };
	char *user[] = { "bench", "--", "-bind-to", "hwthread", NULL };
	char *map[] = { "bench", "--", "--map-by", "socket", NULL };
	char line[1024];

	cr_assert_eq(parse(two), 0, "%s", err);
	st_bench_settle(&o, 2);
	cr_expect_eq(o.bind, 1);
	cr_expect_eq(o.warmup, 0);
	cr_expect_eq(o.runs, 1);
	cr_assert_eq(parse(four), 0, "%s", err);
	st_bench_settle(&o, 2);
	cr_expect_eq(o.bind, 0, "4 ranks, 2 CPUs: not bound");
	cr_assert_eq(parse(forced), 0, "%s", err);
	st_bench_settle(&o, 2);
	cr_expect_eq(o.bind, 1);
	cr_assert_eq(parse(user), 0, "%s", err);
	st_bench_settle(&o, 2);
	cr_expect_eq(o.bind, 0);
	joined("/d", 1, line, sizeof(line));
	cr_expect_str_eq(line, "mpiexec.mpich -n 2 -bind-to hwthread "
			 "/b/synctrace-bench micro --dir /d --seed 1");
	cr_assert_eq(parse(map), 0, "%s", err);
	st_bench_settle(&o, 2);
	cr_expect_eq(o.bind, 0);
}

/*
 * The estimate counts the pairs of the grid (--quick: 18 sized
 * operations at 3 sizes and the barrier) and grows with the
 * measurements; --pairs counts its items; --like alone is unknown.
 */
Test(tools_bench_opts, estimate_counts_pairs_and_grows_with_nrep)
{
	char *quick[] = { "bench", "--quick", NULL };
	char *more[] = { "bench", "--quick", "--nrep", "50", NULL };
	char *grid[] = { "bench", NULL };
	char *pairs[] = { "bench", "--pairs", "bcast:8,scan:4M", NULL };
	char *cold[] = { "bench", "--pairs", "bcast:8,scan:4M",
			 "--cold-coll", NULL };
	char *like[] = { "bench", "--like", "app", NULL };
	double a, b, c;

	cr_assert_eq(parse(quick), 0, "%s", err);
	cr_expect_eq(st_bench_estimate(&o, &a), 55);
	cr_assert_eq(parse(more), 0, "%s", err);
	cr_expect_eq(st_bench_estimate(&o, &b), 55);
	cr_expect(a > 0.5 && b > 5 * (a - 0.5), "%g %g", a, b);
	cr_assert_eq(parse(grid), 0, "%s", err);
	cr_expect_eq(st_bench_estimate(&o, &c), 18 * 23 + 1);
	/* The default grid: several seconds, not minutes. */
	cr_expect(c > 2 && c < 60, "%g s", c);
	cr_assert_eq(parse(pairs), 0, "%s", err);
	cr_expect_eq(st_bench_estimate(&o, &a), 2);
	/* 4 MiB of scan at 3.4 ns/B, 3 windows of its warm-up and timed
	 * call, 30 times: about 2.6 s; --cold-coll: 3 windows of one,
	 * about 1.3 s. */
	cr_expect(a > 2 && a < 4, "%g s", a);
	cr_assert_eq(parse(cold), 0, "%s", err);
	cr_expect_eq(st_bench_estimate(&o, &b), 2);
	cr_expect(b > 1 && b < 2, "%g s", b);
	cr_assert_eq(parse(like), 0, "%s", err);
	cr_expect_eq(st_bench_estimate(&o, &a), 0);
	cr_expect(isnan(a));
}

/*
 * With --warm-p2p a point-to-point pattern's windows hold its warm-up
 * too, as a collective's do: 4 MiB of ping-pong (0.2 ns/B) in windows of
 * 3 times two round trips, 30 times, about 0.5 s; by default of one,
 * about half; --cold-coll does not touch it.
 */
Test(tools_bench_opts, estimate_counts_a_point_to_point_warm_up)
{
	char *warm[] = { "bench", "--pairs", "pingpong:4M", "--warm-p2p",
			 NULL };
	char *cold[] = { "bench", "--pairs", "pingpong:4M", NULL };
	char *ccoll[] = { "bench", "--pairs", "pingpong:4M", "--warm-p2p",
			  "--cold-coll", NULL };
	double a, b, c;

	cr_assert_eq(parse(warm), 0, "%s", err);
	cr_expect(o.warm_p2p && !o.cold_coll);
	cr_assert_eq(st_bench_estimate(&o, &a), 1);
	cr_assert_eq(parse(cold), 0, "%s", err);
	cr_expect(!o.warm_p2p);
	cr_assert_eq(st_bench_estimate(&o, &b), 1);
	cr_assert_eq(parse(ccoll), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &c), 1);
	cr_expect_float_eq(a - 0.5, 2 * (b - 0.5), 1e-9, "%g %g", a, b);
	cr_expect_float_eq(a, c, 1e-12, "%g %g", a, c);
}

/*
 * A collective's gap (OP:SIZE@US) longer than 25 us widens its windows
 * to twice the gap at least: 30 of 8 B allreduce at @1000 take 60 ms
 * of windows (2 ms each) against 30 x 100 us; @25 or @10 change
 * nothing; --cold-coll (no warm-up, no gap) neither.
 */
/*
 * A collective warmed up by another operation (OP:SIZE/PREV:PSIZE)
 * takes longer by that operation's calls; one warmed up by a sendrecv
 * too; with --cold-coll there is no warm-up to count.
 */
Test(tools_bench_opts, estimate_counts_a_warm_up_of_another_operation)
{
	char *own[] = { "bench", "--pairs", "allreduce:8@25", NULL };
	char *other[] = { "bench", "--pairs", "allreduce:8@25/alltoallv:1M",
			  NULL };
	char *srv[] = { "bench", "--pairs", "allreduce:8/sendrecv:1M",
			NULL };
	char *cold[] = { "bench", "--pairs", "allreduce:8@25/alltoallv:1M",
			 "--cold-coll", NULL };
	double a, b, c;

	cr_assert_eq(parse(own), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &a), 1);
	cr_assert_eq(parse(other), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &b), 1);
	cr_expect_gt(b, a, "%g s against %g", b, a);
	cr_assert_eq(parse(srv), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &c), 1);
	cr_expect_gt(c, a, "%g s against %g", c, a);
	cr_assert_eq(parse(cold), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &c), 1);
	cr_expect_lt(c, b, "%g s against %g", c, b);
}

Test(tools_bench_opts, estimate_counts_a_collectives_gap)
{
	char *plain[] = { "bench", "--pairs", "allreduce:8", NULL };
	char *short_gap[] = { "bench", "--pairs", "allreduce:8@10", NULL };
	char *at25[] = { "bench", "--pairs", "allreduce:8@25", NULL };
	char *gap[] = { "bench", "--pairs", "allreduce:8@1000", NULL };
	char *cold[] = { "bench", "--pairs", "allreduce:8@1000",
			 "--cold-coll", NULL };
	double a, b;

	cr_assert_eq(parse(plain), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &a), 1);
	cr_expect_float_eq(a - 0.5, 1.1 * 30 * 100e-6, 1e-9, "%g", a);
	cr_assert_eq(parse(short_gap), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &b), 1);
	cr_expect_float_eq(a, b, 1e-12, "%g %g", a, b);
	cr_assert_eq(parse(at25), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &b), 1);
	cr_expect_float_eq(a, b, 1e-12, "%g %g", a, b);
	cr_assert_eq(parse(gap), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &b), 1);
	cr_expect(b - 0.5 > 1.1 * 30 * 2e-3 &&
		  b - 0.5 < 1.1 * 30 * 2.1e-3, "%g s", b);
	cr_assert_eq(parse(cold), 0, "%s", err);
	cr_assert_eq(st_bench_estimate(&o, &b), 1);
	cr_expect_float_eq(a, b, 1e-12, "%g %g", a, b);
}

Test(tools_bench_opts, sizes_and_min_max_exclude_each_other)
{
	char *argv[] = { "bench", "--sizes", "8", "--max", "1M", NULL };
	char *argv2[] = { "bench", "--min", "1M", "--max", "1K", NULL };

	cr_expect_eq(parse(argv), -1);
	cr_expect(strstr(err, "'--sizes' and '--min'/'--max' exclude each "
			 "other"), "%s", err);
	cr_expect_eq(parse(argv2), -1);
	cr_expect(strstr(err, "'--min' 1M is above '--max'"), "%s", err);
}

Test(tools_bench_ops, names_groups_and_case)
{
	unsigned m = 0;
	char bad[32];

	cr_assert_eq(st_micro_ops_parse("allreduce", &m, bad, sizeof(bad)),
		     0);
	cr_expect_eq(m, 1u << ST_MICRO_ALLREDUCE);
	cr_assert_eq(st_micro_ops_parse("MPI_Reduce_scatter_block,Bcast,"
					"mpi_bcast", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, (1u << ST_MICRO_REDUCE_SCATTER_BLOCK) |
		     (1u << ST_MICRO_BCAST));
	cr_assert_eq(st_micro_ops_parse("p2p", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, (1u << ST_MICRO_PINGPONG) | (1u << ST_MICRO_SENDRECV));
	cr_assert_eq(st_micro_ops_parse("coll,P2P", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, ST_MICRO_ALL);
	cr_assert_eq(st_micro_ops_parse("all", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, ((1u << ST_MICRO_NOPS) - 1) & ~ST_MICRO_NET);
	cr_assert_eq(st_micro_ops_parse("net", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, ST_MICRO_NET);
	cr_expect_eq(__builtin_popcount(ST_MICRO_NET), 11,
		     "bursts of 1, 2, 4 and 8 messages, late receives, a "
		     "busy sender, receiver, exchange of 1, 2, 4 and 8");
	cr_expect_eq(__builtin_popcount(ST_MICRO_COLL), 17,
		     "16 blocking collectives and Alltoallw");
	cr_expect_eq(st_micro_ops_parse("reduce_scatter_blocks", &m, bad,
					sizeof(bad)), -EINVAL);
	cr_expect_str_eq(bad, "reduce_scatter_blocks");
	cr_expect_str_eq(st_micro_op_name(ST_MICRO_SENDRECV), "sendrecv");
	cr_expect_str_eq(st_micro_op_name(ST_MICRO_NOPS), "?");
}

static char dir[256];

Test(tools_bench_opts, pairs_reach_the_program_and_exclude_the_grid)
{
	char *argv[] = { "bench", "--pairs", "MPI_Allreduce:8,alltoall:128K",
			 NULL };
	char *grid[] = { "bench", "--pairs", "bcast:8", "--sizes", "8",
			 NULL };
	char *like[] = { "bench", "--like", "run", "--ops", "bcast", NULL };
	char *both[] = { "bench", "--like", "run", "--pairs", "bcast:8",
			 NULL };
	char line[1024];

	cr_assert_eq(parse(argv), 0, "%s", err);
	joined("/d", 1, line, sizeof(line));
	cr_expect_str_eq(line, "mpiexec.mpich -n 2 /b/synctrace-bench micro "
			 "--dir /d --pairs MPI_Allreduce:8,alltoall:128K "
			 "--seed 1");
	cr_expect_eq(parse(grid), -1);
	cr_expect(strstr(err, "'--pairs' excludes '--ops', '--sizes'"), "%s",
		  err);
	cr_expect_eq(parse(like), -1);
	cr_expect(strstr(err, "'--like' excludes '--ops'"), "%s", err);
	cr_expect_eq(parse(both), -1);
	cr_expect(strstr(err, "'--pairs' and '--like' exclude each other"),
		  "%s", err);
}

static void setup(void)
{
	scratch_dir(dir, sizeof(dir));
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(tools_cmd_bench, .init = setup, .fini = teardown);

Test(tools_cmd_bench, help_to_stdout)
{
	char *argv[] = { "bench", "-h", NULL };
	struct captured c = run_cmd(dir, cmd_bench, argv);

	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.out, st_bench_usage);
	cr_expect_str_eq(c.err, "");
	captured_free(&c);
}

Test(tools_cmd_bench, usage_error_exits_129)
{
	char *argv[] = { "bench", "--ops", "allreduce,frob", NULL };
	struct captured c = run_cmd(dir, cmd_bench, argv);

	cr_expect_eq(c.status, 129);
	cr_expect(!strncmp(c.err, "synctrace: unknown operation 'frob'", 35),
		  "%s", c.err);
	cr_expect(strstr(c.err, "usage: synctrace bench"));
	cr_expect_str_eq(c.out, "");
	captured_free(&c);
}

/* The bench next to the unit tests, or skip. */
static void need_bench(char *bench, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert(n > 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	cr_assert(slash);
	*slash = '\0';
	snprintf(bench, len, "%s/synctrace-bench", self);
	if (access(bench, X_OK))
		cr_skip_test("no '%s': run make first", bench);
}

/*
 * A stand-in mpiexec that prints its environment and arguments, and
 * marks the directory after --dir complete (creating it, as the bench
 * does for run-K); it exits 'status' on the 'fail_at'-th call.
 */
static void fake_mpiexec(char *path, size_t len, int fail_at)
{
	char text[1024];

	snprintf(path, len, "%s/mpiexec", dir);
	snprintf(text, sizeof(text), "#!/bin/sh\n"
		 "echo \"skew=$SYNCTRACE_CLOCK_SKEW\"\n"
		 "echo \"$*\"\n"
		 "n=$(cat %s/calls 2>/dev/null || echo 0)\n"
		 "n=$((n + 1)); echo $n > %s/calls\n"
		 "[ $n = %d ] && exit 7\n"
		 "while [ $# -gt 0 ]; do [ \"$1\" = --dir ] && d=$2; shift; "
		 "done\n"
		 "mkdir -p \"$d\" && printf 'nranks=2\\ncomplete=1\\n' > "
		 "\"$d/synctrace.run\" && : > \"$d/rank-0.st\"\n", dir, dir,
		 fail_at);
	write_file(path, text);
	cr_assert_eq(chmod(path, 0755), 0);
}

/* As fake_mpiexec(), but the 'fail_at'-th call exits 7 after marking
 * its directory complete, as an MPI_Finalize that fails would. */
static void fake_mpiexec_late(char *path, size_t len, int fail_at)
{
	char text[1024];

	snprintf(path, len, "%s/mpiexec", dir);
	snprintf(text, sizeof(text), "#!/bin/sh\n"
		 "n=$(cat %s/calls 2>/dev/null || echo 0)\n"
		 "n=$((n + 1)); echo $n > %s/calls\n"
		 "while [ $# -gt 0 ]; do [ \"$1\" = --dir ] && d=$2; shift; "
		 "done\n"
		 "mkdir -p \"$d\" && printf 'nranks=2\\ncomplete=1\\n' > "
		 "\"$d/synctrace.run\" && : > \"$d/rank-0.st\"\n"
		 "[ $n = %d ] && exit 7\n"
		 "exit 0\n", dir, dir, fail_at);
	write_file(path, text);
	cr_assert_eq(chmod(path, 0755), 0);
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

Test(tools_cmd_bench, runs_make_their_own_directories_and_seeds)
{
	char bench[PATH_MAX + 32], fake[512], mpiexec[600], out[300];
	char want[4 * PATH_MAX], *real;
	char *argv[] = { "bench", "--runs", "2", "--seed", "5", "-o", out,
			 "--skew", "0,+1s", "--quick", "--no-bind", mpiexec,
			 "--", "-hosts", "a", NULL };
	struct captured c;

	need_bench(bench, sizeof(bench));
	fake_mpiexec(fake, sizeof(fake), 0);
	snprintf(mpiexec, sizeof(mpiexec), "--mpiexec=%s", fake);
	snprintf(out, sizeof(out), "%s/costs", dir);
	c = run_cmd(dir, cmd_bench, argv);
	real = realpath(out, NULL);
	cr_assert(real, "no directory '%s'", out);
	/* The plan first, then the launches. */
	cr_expect(starts_with(c.out, "plan: 2 launches, 55 (operation, size) "
			      "pairs x 5 measurements each; ranks not\n  "
			      "bound to cores\ncost: about "), "%s", c.out);
	cr_assert(strstr(c.out, "\n\nrun 1 of 2"), "%s", c.out);
	snprintf(want, sizeof(want), "run 1 of 2, seed 5\n"
		 "skew=0,+1s\n"
		 "-n 2 -hosts a %s micro --dir %s/run-1 --seed 5 --quick\n"
		 "\nrun 2 of 2, seed 6\n"
		 "skew=0,+1s\n"
		 "-n 2 -hosts a %s micro --dir %s/run-2 --seed 6 --quick\n",
		 bench, real, bench, real);
	cr_expect_str_eq(strstr(c.out, "\n\nrun 1 of 2") + 2, want);
	snprintf(want, sizeof(want), "synctrace: 2 bench runs in %s/run-1 .. "
		 "run-2 (2 ranks, 2 complete)\n", real);
	cr_expect_str_eq(c.err, want);
	cr_expect_eq(c.status, 0);
	free(real);
	captured_free(&c);
}

/*
 * --repro: the warm-up launch first, into warmup-1 with the seed after
 * the runs', then the runs with theirs; ranks bound; what the warm-up
 * took and what the rest will take is said before the runs.
 */
Test(tools_cmd_bench, repro_warms_up_apart_then_runs)
{
	char bench[PATH_MAX + 32], fake[512], mpiexec[600], out[300];
	char want[4 * PATH_MAX], *real;
	char *argv[] = { "bench", "--repro", "--runs", "2", "--seed", "5",
			 "-o", out, "--quick", "--bind", mpiexec, NULL };
	struct captured c;

	need_bench(bench, sizeof(bench));
	fake_mpiexec(fake, sizeof(fake), 0);
	snprintf(mpiexec, sizeof(mpiexec), "--mpiexec=%s", fake);
	snprintf(out, sizeof(out), "%s/costs", dir);
	c = run_cmd(dir, cmd_bench, argv);
	real = realpath(out, NULL);
	cr_assert(real, "no directory '%s'", out);
	cr_expect(starts_with(c.out, "plan: a table meant to be compared: 2 "
			      "launches after 1 warm-up launch\n  (discarded), "
			      "55 (operation, size) pairs x 5 measurements "
			      "each; ranks bound\n  to cores (mpiexec "
			      "--bind-to core)\ncost: about "), "%s", c.out);
	snprintf(want, sizeof(want), "\nwarm-up launch 1 of 1, seed 7 "
		 "(discarded)\nskew=\n"
		 "-n 2 --bind-to core %s micro --dir %s/warmup-1 --seed 7 "
		 "--quick\nwarm-up launch 1 took ", bench, real);
	cr_expect(strstr(c.out, want), "%s\nwant: %s", c.out, want);
	snprintf(want, sizeof(want), "\n\nrun 1 of 2, seed 5\nskew=\n"
		 "-n 2 --bind-to core %s micro --dir %s/run-1 --seed 5 "
		 "--quick\n\nrun 2 of 2, seed 6\nskew=\n"
		 "-n 2 --bind-to core %s micro --dir %s/run-2 --seed 6 "
		 "--quick\n", bench, real, bench, real);
	cr_expect(strstr(c.out, want), "%s\nwant: %s", c.out, want);
	snprintf(want, sizeof(want), "synctrace: 2 bench runs in %s/run-1 .. "
		 "run-2 (2 ranks, 2 complete); warm-up launches in "
		 "warmup-*, not among them\n", real);
	cr_expect_str_eq(c.err, want);
	cr_expect_eq(c.status, 0);
	free(real);
	captured_free(&c);
}

/* Run 'app' in 'dir': 'nranks' ranks, each an Allreduce of 8 B, an
 * MPI_Isend of 512 B and an MPI_Waitall. */
static void traced_app(const char *app, int nranks)
{
	static const unsigned fn[] = { ST_FN_MPI_ALLREDUCE, ST_FN_MPI_ISEND,
				       ST_FN_MPI_WAITALL };
	static const uint64_t sb[] = { 8, 512, 0 };
	struct fake_rank fr;
	struct st_event ev;
	int k, i;

	cr_assert_eq(mkdir(app, 0777), 0);
	fake_index(app, nranks, 1);
	for (k = 0; k < nranks; k++) {
		fake_rank_open(&fr, app, k, "h", "0");
		for (i = 0; i < 3; i++) {
			fake_call(&ev, fn[i], 100 * (uint64_t)i,
				  100 * (uint64_t)i + 50, 1);
			ev.comm = 1ull << 32;
			ev.comm_size = (uint32_t)nranks;
			ev.seq = fn[i] == ST_FN_MPI_ALLREDUCE;
			ev.sbytes = ev.rbytes = sb[i];
			fake_append(&fr, &ev);
		}
		fake_rank_close(&fr);
	}
}

/*
 * A traced 3-rank run in 'app', a fake mpiexec ("--mpiexec=..." in
 * 'mpiexec') and the bench's output directory 'out'; 'bench' the
 * synctrace-bench that 'synctrace bench' runs.
 */
static void like_setup(char *bench, size_t blen, char *mpiexec, size_t mlen,
		       char *out, size_t olen, char *app, size_t alen)
{
	char fake[512];

	need_bench(bench, blen);
	fake_mpiexec(fake, sizeof(fake), 0);
	snprintf(mpiexec, mlen, "--mpiexec=%s", fake);
	snprintf(out, olen, "%s/costs", dir);
	snprintf(app, alen, "%s/app", dir);
	traced_app(app, 3);
}

Test(tools_cmd_bench, like_measures_the_runs_pairs_on_its_ranks)
{
	char bench[PATH_MAX + 32], mpiexec[600], out[300];
	char app[300], want[4 * PATH_MAX], *real;
	char *argv[] = { "bench", "--like", app, "-o", out, "--nrep", "5",
			 mpiexec, NULL };
	struct captured c;

	like_setup(bench, sizeof(bench), mpiexec, sizeof(mpiexec), out,
		   sizeof(out), app, sizeof(app));
	c = run_cmd(dir, cmd_bench, argv);
	real = realpath(out, NULL);
	cr_assert(real, "no directory '%s'", out);
	snprintf(want, sizeof(want), "like %s: 10 (operation, size) pairs "
		 "from 6 of 9 calls:\n  allreduce:8@25,pingpong:512,late:512,"
		 "burst1:512,burst2:512,sendrecv:512,sbusy:512,rbusy:512,"
		 "xbusy:512,xbusy2:512\n"
		 "skew=\n"
		 "-n 3 %s micro --dir %s --pairs allreduce:8@25,pingpong:512,"
		 "late:512,burst1:512,burst2:512,sendrecv:512,sbusy:512,"
		 "rbusy:512,xbusy:512,xbusy2:512 "
		 "--nrep 5 --seed 1 --start\n", app, bench, real);
	cr_expect_str_eq(c.out, want);
	cr_expect_eq(c.status, 0, "%s", c.err);
	free(real);
	captured_free(&c);
}

/* --no-start: the same bench without the library's start. */
Test(tools_cmd_bench, like_without_the_start)
{
	char bench[PATH_MAX + 32], mpiexec[600], out[300], app[300];
	char *argv[] = { "bench", "--like", app, "--no-start", "-o", out,
			 mpiexec, NULL };
	char *alone[] = { "bench", "--no-start", NULL };
	struct captured c;

	like_setup(bench, sizeof(bench), mpiexec, sizeof(mpiexec), out,
		   sizeof(out), app, sizeof(app));
	c = run_cmd(dir, cmd_bench, argv);
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.out, " micro --dir ") && !strstr(c.out, "--start"),
		  "%s", c.out);
	captured_free(&c);
	c = run_cmd(dir, cmd_bench, alone);
	cr_expect_neq(c.status, 0);
	cr_expect(strstr(c.err, "'--no-start' goes with '--like'"), "%s",
		  c.err);
	captured_free(&c);
}

Test(tools_cmd_bench, like_refuses_what_is_not_a_run)
{
	char app[300];
	char *argv[] = { "bench", "--like", app, NULL };
	struct captured c;

	snprintf(app, sizeof(app), "%s/nothing", dir);
	c = run_cmd(dir, cmd_bench, argv);
	cr_expect_neq(c.status, 0);
	cr_expect(strstr(c.err, "synctrace: fatal: --like: "), "%s", c.err);
	cr_expect(strstr(c.err, "not a synctrace run"), "%s", c.err);
	cr_expect_str_eq(c.out, "");
	captured_free(&c);
}

Test(tools_cmd_bench, a_failed_run_stops_the_rest)
{
	char bench[PATH_MAX + 32], fake[512], mpiexec[600], out[300];
	char *argv[] = { "bench", "--runs", "3", "-o", out, mpiexec, NULL };
	struct captured c;

	need_bench(bench, sizeof(bench));
	fake_mpiexec(fake, sizeof(fake), 2);
	snprintf(mpiexec, sizeof(mpiexec), "--mpiexec=%s", fake);
	snprintf(out, sizeof(out), "%s/costs", dir);
	c = run_cmd(dir, cmd_bench, argv);
	cr_expect_eq(c.status, 7, "the failed run's exit status");
	cr_expect(strstr(c.out, "run 2 of 3") && !strstr(c.out, "run 3"),
		  "%s", c.out);
	cr_expect(strstr(c.err, "synctrace: bench run 2 of 3 failed"), "%s",
		  c.err);
	captured_free(&c);
}

/* A launch that fails after its trace is complete is kept, said so,
 * and the others go on. */
Test(tools_cmd_bench, a_run_failing_after_its_trace_is_kept)
{
	char bench[PATH_MAX + 32], fake[512], mpiexec[600], out[300];
	char *argv[] = { "bench", "--runs", "3", "-o", out, mpiexec, NULL };
	struct captured c;

	need_bench(bench, sizeof(bench));
	fake_mpiexec_late(fake, sizeof(fake), 2);
	snprintf(mpiexec, sizeof(mpiexec), "--mpiexec=%s", fake);
	snprintf(out, sizeof(out), "%s/costs", dir);
	c = run_cmd(dir, cmd_bench, argv);
	cr_expect_eq(c.status, 0, "every trace complete");
	cr_expect(strstr(c.out, "run 3 of 3"), "%s", c.out);
	cr_expect(strstr(c.out, "note: mpiexec ended with status 7 after the "
			 "trace was complete; the launch\n  is kept\n"),
		  "%s", c.out);
	cr_expect(strstr(c.err, "(2 ranks, 3 complete)"), "%s", c.err);
	cr_expect(strstr(c.err, "1 launch ended badly after a complete "
			 "trace"), "%s", c.err);
	captured_free(&c);
}

Test(tools_cmd_bench, refuses_a_directory_in_use)
{
	char out[300], file[400];
	char *argv[] = { "bench", "-o", out, "--mpiexec", "/bin/false", NULL };
	char bench[PATH_MAX + 32];
	struct captured c;

	need_bench(bench, sizeof(bench));
	snprintf(out, sizeof(out), "%s/used", dir);
	cr_assert_eq(mkdir(out, 0755), 0);
	snprintf(file, sizeof(file), "%s/x", out);
	write_file(file, "x");
	c = run_cmd(dir, cmd_bench, argv);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "already exists and is not empty"), "%s",
		  c.err);
	captured_free(&c);
}

Test(tools_cmd_bench, missing_mpiexec_exits_127_and_leaves_nothing)
{
	char out[300], bench[PATH_MAX + 32];
	char *argv[] = { "bench", "-o", out, "--mpiexec",
			 "/nonexistent/mpiexec", NULL };
	struct captured c;
	struct stat st;

	need_bench(bench, sizeof(bench));
	snprintf(out, sizeof(out), "%s/costs", dir);
	c = run_cmd(dir, cmd_bench, argv);
	cr_expect_eq(c.status, 127);
	cr_expect(strstr(c.err, "synctrace: error: cannot run "
			 "'/nonexistent/mpiexec': No such file or directory"),
		  "%s", c.err);
	cr_expect(strstr(c.err, "synctrace: no bench trace written\n"), "%s",
		  c.err);
	cr_expect_neq(stat(out, &st), 0, "the empty directory was left");
	captured_free(&c);
}
