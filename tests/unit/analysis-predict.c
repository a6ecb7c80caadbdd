/*
 * tests/unit/analysis-predict.c: 'synctrace predict' end to end on runs
 * written through the real writer, with small hand-written cost tables
 * whose answers can be worked out by hand; the table model's lookups
 * (formula pieces, blocking forms of nonblocking functions, the
 * point-to-point rows, range counts, first-call costs); and where a
 * table that is not JSON (jansson reads it) goes wrong.
 */
#include "tests/unit/tools-test.h"

#include <jansson.h>
#include <math.h>

#include "tools/analysis/predict-model.h"
#include "tools/analysis/replay.h"
#include "tools/cli/synctrace.h"

#define WORLD 0x100000000ULL

/*
 * A table: Allreduce a + b log2(p) + c d in two pieces; Gather 100 + d
 * with group medians that disagree, and totals that make its mean time
 * after the last arrival 1712 ns per rank (171200 ns over 100 rank
 * samples) against a mean median of 856 ns (34240 over 40 samples);
 * Barrier as one group's median (95 % CI 630..840); Send->Recv 1000 +
 * 0.5 d; Sendrecv 3000.
 */
static const char table_json[] =
"{\"format\": \"synctrace-table\", \"version\": 1,\n"
" \"metadata\": {\"mpi_library\": \"MPICH Version: 4.0.2\",\n"
"   \"hosts\": [\"nodeA\", \"nodeB\"], \"process_counts\": [2, 4],\n"
"   \"date\": \"2026-01-01 00:00:00 UTC\", \"ci_level\": 0.95},\n"
" \"operations\": [\n"
"  {\"op\": \"MPI_Allreduce\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Allreduce\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 4, \"d_min_bytes\": 8, \"d_max_bytes\": 65536,\n"
"   \"model\": {\"pieces\": 2, \"d_below_bytes\": 1024,\n"
"    \"d_split_bytes\": 4096, \"piece\": [\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 1000},\n"
"                {\"name\": \"b\", \"fn\": \"log2(p)\", \"coef\": 500},\n"
"                {\"name\": \"c\", \"fn\": \"1\", \"coef\": 2}]},\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 9000},\n"
"                {\"name\": \"c\", \"fn\": \"p\", \"coef\": 0.5}]}]},\n"
"   \"groups\": []},\n"
"  {\"op\": \"MPI_Gather\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Gather\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 4, \"d_min_bytes\": 8, \"d_max_bytes\": 1024,\n"
"   \"model\": {\"pieces\": 1, \"piece\": [\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 100},\n"
"                {\"name\": \"c\", \"fn\": \"1\", \"coef\": 1}]}]},\n"
"   \"call_ns\": 200000, \"wait_ns\": 28800,\n"
"   \"groups\": [{\"p\": 4, \"d_bytes\": 8, \"median_ns\": 900,\n"
"     \"n_in\": 10},\n"
"     {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 1524, \"n_in\": 10},\n"
"     {\"p\": 2, \"d_bytes\": 8, \"median_ns\": 500, \"n_in\": 20}]},\n"
"  {\"op\": \"MPI_Barrier\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Barrier\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 0, \"d_max_bytes\": 0,\n"
"   \"model\": null, \"no_model\": \"one group\",\n"
"   \"groups\": [{\"p\": 2, \"d_bytes\": 0, \"median_ns\": 700,\n"
"     \"ci_lo_ns\": 630, \"ci_hi_ns\": 840}]},\n"
"  {\"op\": \"MPI_Send->MPI_Recv\", \"kind\": \"p2p\",\n"
"   \"fn\": \"MPI_Send\", \"recv_fn\": \"MPI_Recv\", \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 1, \"d_max_bytes\": 4096,\n"
"   \"model\": {\"pieces\": 1, \"piece\": [\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 1000},\n"
"                {\"name\": \"c\", \"fn\": \"1\", \"coef\": 0.5}]}]}},\n"
"  {\"op\": \"MPI_Sendrecv\", \"kind\": \"p2p\",\n"
"   \"fn\": \"MPI_Sendrecv\", \"recv_fn\": \"MPI_Sendrecv\",\n"
"   \"p_min\": 2, \"p_max\": 2, \"d_min_bytes\": 8, \"d_max_bytes\": 8,\n"
"   \"model\": null, \"groups\": [{\"p\": 2, \"d_bytes\": 8,\n"
"   \"median_ns\": 3000}]}\n"
" ]}\n";

static struct st_pmodel *load(const char *text)
{
	struct st_pmodel *m;
	char err[256];

	cr_assert_eq(st_pmodel_parse(&m, text, strlen(text), "t.json", err,
				     sizeof(err)), 0, "%s", err);
	return m;
}

Test(tools_predict, json_mistakes_are_placed)
{
	static const char *const bad[] = {
		"", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "01", "{\"a\": .5}",
		"{\"a\": inf}", "{\"a\": \"\\x\"}", "{\"a\": 1} 2",
		"{\"a\": \"\\ud800\"}", "{\"a\": 1, \"a\": 2}",
	};
	struct st_pmodel *m;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(st_pmodel_parse(&m, bad[i], strlen(bad[i]),
					     "x.json", err, sizeof(err)),
			     -EBADMSG, "accepted '%s'", bad[i]);
		cr_expect(strstr(err, "'x.json': not JSON: line"), "%s", err);
		cr_expect_null(m);
	}
	cr_expect_eq(st_pmodel_parse(&m, "{\"a\": [1,\n  x]}", 14, "x.json",
				     err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "line 2 column 3"), "%s", err);
}

/* The cost the model gives (evaluated once: it counts lookups). */
static double cost(struct st_pmodel *m, unsigned fn, long p, double d)
{
	return st_pmodel_coll(m, fn, p, d);
}

Test(tools_predict, model_evaluates_formula_pieces)
{
	struct st_pmodel *m = load(table_json);
	const struct st_pmodel_use *u;
	double v;

	/* Piece 0 up to 1 KiB: 1000 + 500 log2 p + 2 d. */
	v = cost(m, ST_FN_MPI_ALLREDUCE, 4, 8);
	cr_expect_float_eq(v, 1000 + 500 * 2 + 16, 1e-9);
	/* Piece 1 from 4 KiB: 9000 + 0.5 p d. */
	v = cost(m, ST_FN_MPI_ALLREDUCE, 2, 8192);
	cr_expect_float_eq(v, 9000 + 8192, 1e-9);
	/* Between the two: the nearer in log d. */
	v = cost(m, ST_FN_MPI_ALLREDUCE, 2, 1500);
	cr_expect_float_eq(v, 1000 + 500 + 3000, 1e-9);
	v = cost(m, ST_FN_MPI_ALLREDUCE, 2, 3500);
	cr_expect_float_eq(v, 9000 + 3500, 1e-9);
	/* Nonblocking, persistent, large-count: the blocking form. */
	v = cost(m, ST_FN_MPI_IALLREDUCE, 2, 8);
	cr_expect_float_eq(v, 1000 + 500 + 16, 1e-9);
	v = cost(m, ST_FN_MPI_ALLREDUCE_INIT, 2, 8);
	cr_expect_float_eq(v, 1000 + 500 + 16, 1e-9);
	v = cost(m, ST_FN_MPI_ALLREDUCE_C, 2, 8);
	cr_expect_float_eq(v, 1000 + 500 + 16, 1e-9);
	v = cost(m, ST_FN_MPI_IBARRIER, 2, 0);
	cr_expect_float_eq(v, 700, 1e-9);
	cr_expect_lt(cost(m, ST_FN_MPI_BCAST, 2, 8), 0);
	cr_expect_lt(cost(m, ST_FN_MPI_IBCAST, 2, 8), 0);
	/* Uses: 7 Allreduce lookups, all inside the fitted ranges. */
	u = st_pmodel_use(m, 0);
	cr_expect_str_eq(u->op, "MPI_Allreduce");
	cr_expect_eq(u->lookups, 7);
	cr_expect_eq(u->p_out, 0);
	cr_expect_eq(u->d_out, 0);
	cost(m, ST_FN_MPI_ALLREDUCE, 8, 1e6);
	cr_expect_eq(u->p_out, 1);
	cr_expect_eq(u->d_out, 1);
	cr_expect_eq(u->p_hi, 8);
	st_pmodel_free(m);
}

Test(tools_predict, model_prefers_measured_groups_inside_their_range)
{
	struct st_pmodel *m = load(table_json);
	double v;

	v = cost(m, ST_FN_MPI_GATHER, 2, 8);
	cr_expect_float_eq(v, 500, 1e-9);
	/* Linear between the two groups at p = 2. */
	v = cost(m, ST_FN_MPI_GATHER, 2, 516);
	cr_expect_float_eq(v, 500 + 1024 * 508.0 / 1016, 1e-9);
	v = cost(m, ST_FN_MPI_GATHER, 4, 8);
	cr_expect_float_eq(v, 900, 1e-9);
	/* No group beyond d, or none at p: the formula. */
	v = cost(m, ST_FN_MPI_GATHER, 2, 2048);
	cr_expect_float_eq(v, 2148, 1e-9);
	v = cost(m, ST_FN_MPI_GATHER, 4, 100);
	cr_expect_float_eq(v, 200, 1e-9);
	v = cost(m, ST_FN_MPI_GATHER, 3, 8);
	cr_expect_float_eq(v, 108, 1e-9);
	st_pmodel_formula_only(m, 1);
	v = cost(m, ST_FN_MPI_GATHER, 2, 8);
	cr_expect_float_eq(v, 108, 1e-9);
	cr_expect_eq(st_pmodel_use(m, 1)->lookups, 7);
	st_pmodel_free(m);
}

Test(tools_predict, model_scales_to_the_mean)
{
	struct st_pmodel *m = load(table_json);
	double v;

	cr_expect_float_eq(st_pmodel_use(m, 1)->mean_factor, 2.0, 1e-12);
	/* Rows without totals are not scaled. */
	cr_expect_float_eq(st_pmodel_use(m, 0)->mean_factor, 1.0, 1e-12);
	v = cost(m, ST_FN_MPI_GATHER, 2, 8);
	cr_expect_float_eq(v, 500, 1e-9);
	st_pmodel_mean(m, 1);
	v = cost(m, ST_FN_MPI_GATHER, 2, 8);
	cr_expect_float_eq(v, 1000, 1e-9);
	v = cost(m, ST_FN_MPI_GATHER, 3, 8);
	cr_expect_float_eq(v, 216, 1e-9);
	v = cost(m, ST_FN_MPI_ALLREDUCE, 2, 8);
	cr_expect_float_eq(v, 1516, 1e-9);
	st_pmodel_free(m);
}

Test(tools_predict, model_bounds_costs_by_the_tables_intervals)
{
	struct st_pmodel *m = load(table_json);
	size_t i;
	double v;

	v = cost(m, ST_FN_MPI_BARRIER, 2, 0);
	cr_expect_float_eq(v, 700, 1e-9);
	st_pmodel_bound(m, -1);
	v = cost(m, ST_FN_MPI_BARRIER, 2, 0);
	cr_expect_float_eq(v, 630, 1e-9);
	/* A row without intervals stays as it is. */
	v = cost(m, ST_FN_MPI_GATHER, 2, 8);
	cr_expect_float_eq(v, 500, 1e-9);
	st_pmodel_bound(m, 1);
	v = cost(m, ST_FN_MPI_BARRIER, 2, 0);
	cr_expect_float_eq(v, 840, 1e-9);
	st_pmodel_mean(m, 1);
	v = cost(m, ST_FN_MPI_GATHER, 2, 8);
	cr_expect_float_eq(v, 1000, 1e-9);
	st_pmodel_bound(m, 0);
	v = cost(m, ST_FN_MPI_BARRIER, 2, 0);
	cr_expect_float_eq(v, 700, 1e-9);
	/* Lookups under a bound are not counted again. */
	for (i = 0; i < st_pmodel_nrows(m); i++)
		if (!strcmp(st_pmodel_use(m, i)->op, "MPI_Barrier"))
			cr_expect_eq(st_pmodel_use(m, i)->lookups, 2);
	cr_expect_float_eq(st_pmodel_ci_level(m), 0.95, 1e-12);
	st_pmodel_free(m);
}

Test(tools_predict, model_point_to_point_rows)
{
	struct st_pmodel *m = load(table_json);
	struct st_replay_model rm;
	double local = -1, xfer = -1, v;

	v = st_pmodel_p2p(m, ST_FN_MPI_SEND, 100);
	cr_expect_float_eq(v, 1050, 1e-9);
	v = st_pmodel_p2p(m, ST_FN_MPI_ISEND, 100);
	cr_expect_float_eq(v, 1050, 1e-9);
	v = st_pmodel_p2p(m, ST_FN_MPI_ISSEND, 100);
	cr_expect_float_eq(v, 1050, 1e-9);
	v = st_pmodel_p2p(m, ST_FN_MPI_IRECV, 100);
	cr_expect_float_eq(v, 1050, 1e-9);
	v = st_pmodel_p2p(m, ST_FN_MPI_SENDRECV, 8);
	cr_expect_float_eq(v, 3000, 1e-9);
	/* The table's cost runs from the later entry: no transfer time. */
	st_pmodel_replay_model(m, &rm);
	cr_expect_eq(rm.p2p(rm.ctx, ST_FN_MPI_RECV, 2000, &local, &xfer), 0);
	cr_expect_float_eq(local, 2000, 1e-9);
	cr_expect_float_eq(xfer, 0, 1e-12);
	v = rm.coll(rm.ctx, ST_FN_MPI_BARRIER, 2, 0);
	cr_expect_float_eq(v, 700, 1e-9);
	cr_expect_str_eq(st_pmodel_hosts(m), "nodeA, nodeB");
	cr_expect_str_eq(st_pmodel_mpi_library(m), "MPICH Version: 4.0.2");
	cr_expect_eq(st_pmodel_p_min(m), 2);
	cr_expect_eq(st_pmodel_p_max(m), 4);
	st_pmodel_free(m);
}

Test(tools_predict, model_charges_a_send_start_its_smallest_message)
{
	struct st_pmodel *m = load(table_json);
	struct st_replay_model rm;
	double ns = -1;

	/* No call row: nothing, unless the fallback is asked for. */
	cr_expect_lt(st_pmodel_p2p_inject(m, ST_FN_MPI_ISEND, 64), 0);
	st_pmodel_send_start_fallback(m, 1);
	/* Send->Recv's smallest measured size is 1 B: 1000 + 0.5. */
	cr_expect_float_eq(st_pmodel_p2p_inject(m, ST_FN_MPI_ISEND, 64),
			   1000.5, 1e-9);
	/* Sendrecv measured 8 B only: that group's median. */
	cr_expect_float_eq(st_pmodel_p2p_inject(m, ST_FN_MPI_SENDRECV, 64),
			   3000, 1e-9);
	st_pmodel_replay_model(m, &rm);
	cr_assert(rm.inject);
	cr_expect_eq(rm.inject(rm.ctx, ST_FN_MPI_ISSEND, 64, &ns), 0);
	cr_expect_float_eq(ns, 1000.5, 1e-9);
	cr_expect_lt(rm.inject(rm.ctx, ST_FN_MPI_ALLREDUCE, 64, &ns), 0);
	st_pmodel_free(m);
}

/*
 * A table with the network model's rows: Send->Recv 1000 + 0.5 d;
 * bursts of 1 and of 4 messages, measured at 1 KiB and 64 KiB (4 at
 * once: 3 gaps more than one); sends to a late receiver that did not
 * wait up to 16 KiB, that waited from 64 KiB (and one of ten at 1 KiB,
 * its sender descheduled); late receives; the cost of starting an
 * MPI_Isend.
 */
static const char net_json[] =
"{\"format\": \"synctrace-table\", \"version\": 1,\n"
" \"metadata\": {\"process_counts\": [2]},\n"
" \"operations\": [\n"
"  {\"op\": \"MPI_Send->MPI_Recv\", \"kind\": \"p2p\",\n"
"   \"fn\": \"MPI_Send\", \"recv_fn\": \"MPI_Recv\", \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 1, \"d_max_bytes\": 65536,\n"
"   \"model\": {\"pieces\": 1, \"piece\": [\n"
"     {\"terms\": [{\"name\": \"a\", \"fn\": \"1\", \"coef\": 1000},\n"
"                {\"name\": \"c\", \"fn\": \"1\", \"coef\": 0.5}]}]}},\n"
"  {\"op\": \"MPI_Isend->MPI_Irecv (burst)\", \"kind\": \"burst\",\n"
"   \"fn\": \"MPI_Isend\", \"recv_fn\": \"MPI_Irecv\", \"p_min\": 1,\n"
"   \"p_max\": 4, \"d_min_bytes\": 1024, \"d_max_bytes\": 65536,\n"
"   \"model\": null, \"groups\": [\n"
"    {\"p\": 1, \"d_bytes\": 1024, \"median_ns\": 1500},\n"
"    {\"p\": 1, \"d_bytes\": 65536, \"median_ns\": 33000},\n"
"    {\"p\": 4, \"d_bytes\": 1024, \"median_ns\": 2100},\n"
"    {\"p\": 4, \"d_bytes\": 65536, \"median_ns\": 123000}]},\n"
"  {\"op\": \"MPI_Send (receiver late, eager)\", \"kind\": "
"\"send-eager\",\n"
"   \"fn\": \"MPI_Send\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 1024, \"d_max_bytes\": 16384,\n"
"   \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 300, \"n_in\": 9},\n"
"    {\"p\": 2, \"d_bytes\": 16384, \"median_ns\": 4000, \"n_in\": 10}]},\n"
"  {\"op\": \"MPI_Send (receiver late, rendezvous)\", \"kind\": "
"\"send-rendezvous\",\n"
"   \"fn\": \"MPI_Send\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 65536, \"d_max_bytes\": 65536,\n"
"   \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 99000, \"n_in\": 1},\n"
"    {\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 30000, \"n_in\": 10}]},\n"
"  {\"op\": \"MPI_Recv (posted late)\", \"kind\": \"recv-late\",\n"
"   \"fn\": \"MPI_Recv\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 1024, \"d_max_bytes\": 65536,\n"
"   \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 200},\n"
"    {\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 31000}]},\n"
"  {\"op\": \"MPI_Isend (call)\", \"kind\": \"call\",\n"
"   \"fn\": \"MPI_Isend\", \"recv_fn\": null, \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 1024, \"d_max_bytes\": 65536,\n"
"   \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 400},\n"
"    {\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 8000}]},\n"
"  {\"op\": \"MPI_Sendrecv\", \"kind\": \"p2p\",\n"
"   \"fn\": \"MPI_Sendrecv\", \"recv_fn\": \"MPI_Sendrecv\", \"p_min\": 2,\n"
"   \"p_max\": 2, \"d_min_bytes\": 1024, \"d_max_bytes\": 65536,\n"
"   \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 2000},\n"
"    {\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 48768}]}\n"
" ]}\n";

Test(tools_predict, model_network_rows)
{
	struct st_pmodel *m = load(net_json);
	struct st_replay_model rm;
	struct st_replay_msg nm;
	double ns;

	/* The gap: (B(4) - B(1)) / 3, at the sizes and between them. */
	cr_expect_float_eq(st_pmodel_gap(m, ST_FN_MPI_ISEND, 1024), 200,
			   1e-9);
	cr_expect_float_eq(st_pmodel_gap(m, ST_FN_MPI_ISEND, 65536), 30000,
			   1e-9);
	/* The eager limit: between 16 KiB and 64 KiB, at 32 KiB. */
	cr_expect_eq(st_pmodel_rendezvous(m, 1024), 0, "a minority");
	cr_expect_eq(st_pmodel_rendezvous(m, 16384), 0);
	cr_expect_eq(st_pmodel_rendezvous(m, 32768), 0);
	cr_expect_eq(st_pmodel_rendezvous(m, 32769), 1);
	cr_expect_eq(st_pmodel_rendezvous(m, 1 << 20), 1);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 1024, &nm), 0);
	cr_expect_float_eq(nm.xfer_ns, 1000 + 512, 1e-9);
	cr_expect_float_eq(nm.send_ns, 300, 1e-9);
	cr_expect_float_eq(nm.late_ns, 200, 1e-9);
	cr_expect_float_eq(nm.gap_ns, 200, 1e-9);
	cr_expect_eq(nm.rendezvous, 0);
	/* Between nonblocking calls: the burst of one, B(1). */
	cr_expect_float_eq(nm.xfer_nb_ns, 1500, 1e-9);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SEND, 65536, &nm), 0);
	cr_expect_float_eq(nm.xfer_nb_ns, 33000, 1e-9);
	cr_expect_eq(nm.rendezvous, 1);
	cr_expect_float_eq(nm.rndv_send_ns, 30000, 1e-9);
	cr_expect_float_eq(nm.late_ns, 31000, 1e-9);
	/*
	 * Both ways at once: (S - C) / g, S = 48768 the Sendrecv, C = 1000
	 * + 65536 / 2 = 33768, g = 30000: half the other direction's gap.
	 */
	cr_expect_float_eq(nm.share, 0.5, 1e-9);
	cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 65536), 0.5,
			   1e-9);
	/* Within 0..1; 0 where the Sendrecv was not measured around d. */
	cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 1024), 1, 1e-9);
	cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 1 << 20), 0,
			   1e-9);
	/* An eager message shares as much (1 at 1 KiB). */
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 1024, &nm), 0);
	cr_expect_float_eq(nm.share, 1, 1e-9);
	/* Starting a send: the call row at its size. */
	cr_expect_float_eq(st_pmodel_p2p_inject(m, ST_FN_MPI_ISEND, 1024),
			   400, 1e-9);
	st_pmodel_replay_model(m, &rm);
	cr_assert(rm.msg && rm.inject);
	cr_expect_eq(rm.inject(rm.ctx, ST_FN_MPI_ISSEND, 65536, &ns), 0);
	cr_expect_float_eq(ns, 8000, 1e-9);
	/* Off: no network model. */
	st_pmodel_network(m, 0);
	cr_expect_lt(st_pmodel_msg(m, ST_FN_MPI_SEND, 64, &nm), 0);
	st_pmodel_free(m);
}

/*
 * net_json with the Sendrecv's group at 64 KiB (median 48768 ns) given
 * the 95 % interval 'lo' to 'hi' ns.
 */
static struct st_pmodel *load_sendrecv_ci(int lo, int hi)
{
	static const char from[] = "\"median_ns\": 48768}";
	char text[sizeof(net_json) + 64];
	const char *at = strstr(net_json, from);
	size_t k;

	cr_assert(at);
	k = (size_t)(at - net_json);
	memcpy(text, net_json, k);
	snprintf(text + k, sizeof(text) - k, "\"median_ns\": 48768, "
		 "\"ci_lo_ns\": %d, \"ci_hi_ns\": %d}%s", lo, hi,
		 at + strlen(from));
	return load(text);
}

Test(tools_predict, model_shares_nothing_within_the_noise)
{
	/*
	 * The same table, but the Sendrecv's 95 % interval at 64 KiB runs
	 * from 30000 to 50000: its low end is below the ping-pong's 33768,
	 * so the 15000 more are not measured: nothing shared.
	 */
	struct st_pmodel *m = load_sendrecv_ci(30000, 50000);

	cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 65536), 0,
			   1e-9);
	st_pmodel_free(m);
}

Test(tools_predict, model_bounds_keep_the_share_at_the_centre)
{
	/*
	 * The Sendrecv's interval at 64 KiB 46000 to 49000: a bound replay
	 * costs it 46000 or 49000, but its share of the other direction
	 * stays the centre's (48768 - 33768) / 30000 = 0.5, not (46000 -
	 * 33768) / 30000 = 0.41 at the low end: with the costs lower, a
	 * smaller share would not make the low bound shorter, and a larger
	 * one could make it longer than the prediction.
	 */
	struct st_pmodel *m = load_sendrecv_ci(46000, 49000);
	struct st_replay_msg nm;
	int side;

	cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 65536), 0.5,
			   1e-9);
	for (side = -1; side <= 1; side += 2) {
		st_pmodel_bound(m, side);
		cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SEND, 65536, &nm), 0);
		cr_expect_float_eq(nm.share, 0.5, 1e-9, "bound %d: %g", side,
				   nm.share);
	}
	st_pmodel_free(m);
}

/*
 * net_json with the busy-side rows: at 1 KiB a busy sender delays
 * nothing (1600 ns, against C / 2 = (100000 + 2 x 1024) / 2) and a busy
 * receiver's Wait takes 600 (less than half the burst of one, 1500); at
 * 64 KiB the sender's compute C = 231072 and 30000 more, and the
 * receiver's Wait 32000 (the burst of one 33000); the exchange, both
 * busy, 40000 at 64 KiB.  'rcv_busy_64k' the receiver's at 64 KiB.
 */
static struct st_pmodel *load_busy(int snd_busy_64k, int rcv_busy_64k)
{
	static const char tail[] = "]}\n ]}\n";
	char text[sizeof(net_json) + 2048];
	size_t k = strlen(net_json) - strlen(tail);

	cr_assert(!strcmp(net_json + k, tail));
	memcpy(text, net_json, k);
	snprintf(text + k, sizeof(text) - k, "]},\n"
"  {\"op\": \"MPI_Isend->MPI_Irecv (sender busy)\", \"kind\": "
"\"snd-busy\", \"fn\": \"MPI_Isend\", \"recv_fn\": \"MPI_Irecv\",\n"
"   \"p_min\": 2, \"p_max\": 2, \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 1600},\n"
"    {\"p\": 2, \"d_bytes\": 65536, \"median_ns\": %d}]},\n"
"  {\"op\": \"MPI_Isend->MPI_Irecv (receiver busy)\", \"kind\": "
"\"rcv-busy\", \"fn\": \"MPI_Isend\", \"recv_fn\": \"MPI_Irecv\",\n"
"   \"p_min\": 2, \"p_max\": 2, \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 600},\n"
"    {\"p\": 2, \"d_bytes\": 65536, \"median_ns\": %d}]},\n"
"  {\"op\": \"MPI_Isend->MPI_Irecv (exchange, both busy)\", \"kind\": "
"\"xchg-busy\", \"fn\": \"MPI_Isend\", \"recv_fn\": \"MPI_Irecv\",\n"
"   \"p_min\": 2, \"p_max\": 2, \"model\": null, \"groups\": [\n"
"    {\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 40000}]}\n ]}\n",
		 snd_busy_64k, rcv_busy_64k);
	return load(text);
}

Test(tools_predict, model_progress_from_the_busy_rows)
{
	struct st_pmodel *m = load_busy(231072 + 30000, 32000);
	struct st_replay_msg nm;
	char buf[512];

	/* Over TCP: from 64 KiB, nothing moves outside MPI. */
	cr_expect_eq(st_pmodel_progress(m, 1024), 0);
	cr_expect_eq(st_pmodel_progress(m, 65536), 3);
	cr_expect_eq(st_pmodel_progress(m, 1 << 20), 3, "the nearest size");
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SEND, 65536, &nm), 0);
	cr_expect_eq(nm.need, 3);
	cr_expect_eq(nm.sender_free, 0, "a busy sender held its receive");
	cr_expect_float_eq(nm.xchg_ns, 40000, 1e-9);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 1024, &nm), 0);
	cr_expect_eq(nm.need, 0);
	cr_expect_neq(nm.sender_free, 0, "measured: 1600 against C / 2");
	cr_expect_float_eq(nm.xchg_ns, 0, 1e-9);
	st_pmodel_net_describe(m, buf, sizeof(buf));
	cr_expect(strstr(buf, "1024 B - 65536 B s+r"), "%s", buf);
	st_pmodel_free(m);
	/*
	 * As in shared memory: a busy sender (9000 at 64 KiB, against C / 2
	 * = 115536) delays nothing, the receiver does the work: no exchange
	 * cost, which is for transfers that need both sides.
	 */
	m = load_busy(9000, 32000);
	cr_expect_eq(st_pmodel_progress(m, 65536), 2);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SEND, 65536, &nm), 0);
	cr_expect_eq(nm.need, 2);
	cr_expect_neq(nm.sender_free, 0, "the receiver alone moves it");
	cr_expect_float_eq(nm.xchg_ns, 0, 1e-9);
	st_pmodel_free(m);
	/* A busy receiver whose Wait is quick: the sender alone. */
	m = load_busy(231072 + 30000, 9000);
	cr_expect_eq(st_pmodel_progress(m, 65536), 1);
	st_pmodel_free(m);
}

Test(tools_predict, model_rbusy_for_eager_messages_the_receiver_takes_in)
{
	struct st_pmodel *m = load_busy(9000, 32000);
	struct st_replay_msg nm;

	/* At 1 KiB (eager): the busy receiver's Wait there, 600. */
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 1024, &nm), 0);
	cr_expect_eq(nm.rendezvous, 0);
	cr_expect_float_eq(nm.rbusy_ns, 600, 1e-6, "%g", nm.rbusy_ns);
	/*
	 * 16 KiB is eager too (rendezvous above 32 KiB): between the Waits
	 * measured at 1 and 64 KiB.
	 */
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 16384, &nm), 0);
	cr_expect_eq(nm.rendezvous, 0);
	cr_expect_gt(nm.rbusy_ns, 600);
	cr_expect_leq(nm.rbusy_ns, 32000);
	/* A rendezvous message waits for its receiver already: none. */
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 65536, &nm), 0);
	cr_expect_eq(nm.rendezvous, 1);
	cr_expect_float_eq(nm.rbusy_ns, 0, 1e-9);
	st_pmodel_free(m);
	/* Without the busy rows: none. */
	m = load(net_json);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 1024, &nm), 0);
	cr_expect_float_eq(nm.rbusy_ns, 0, 1e-9);
	st_pmodel_free(m);
}

Test(tools_predict, model_without_network_rows_costs_as_before)
{
	struct st_pmodel *m = load(table_json);
	struct st_replay_msg nm;

	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SEND, 100, &nm), 0);
	cr_expect_float_eq(nm.xfer_ns, 1050, 1e-9);
	cr_expect_float_eq(nm.send_ns, 1050, 1e-9);
	cr_expect_float_eq(nm.late_ns, 1050, 1e-9);
	cr_expect_float_eq(nm.rndv_send_ns, 1050, 1e-9);
	cr_expect_float_eq(nm.gap_ns, 0, 1e-9);
	cr_expect_float_eq(nm.xfer_nb_ns, 0, 1e-9);	/* xfer_ns */
	cr_expect_eq(nm.rendezvous, 0);
	cr_expect_eq(nm.need, 0, "progress as before");
	cr_expect_float_eq(nm.xchg_ns, 0, 1e-9);
	cr_expect_float_eq(nm.rbusy_ns, 0, 1e-9);
	/* A collective row is no point-to-point row. */
	cr_expect_lt(st_pmodel_msg(m, ST_FN_MPI_ALLREDUCE, 100, &nm), 0);
	st_pmodel_free(m);
}

Test(tools_predict, model_knows_a_bench_table)
{
	static const char bench[] =
		"{\"format\": \"synctrace-table\", \"version\": 1, "
		"\"metadata\": {\"runs\": [{\"bench\": false}, "
		"{\"bench\": true}]}, \"operations\": []}";
	struct st_pmodel *m = load(table_json);

	cr_expect_eq(st_pmodel_from_bench(m), 0);
	st_pmodel_free(m);
	m = load(bench);
	cr_expect_eq(st_pmodel_from_bench(m), 1);
	cr_expect_eq(st_pmodel_nrows(m), 0);
	st_pmodel_free(m);
}

Test(tools_predict, model_refuses_what_is_not_a_table)
{
	static const char v2[] = "{\"format\": \"synctrace-table\", "
				 "\"version\": 2}";
	struct st_pmodel *m;
	char err[256];

	cr_expect_eq(st_pmodel_parse(&m, "{\"a\": 1}", 8, "x.json", err,
				     sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "'x.json': not a synctrace cost table"), "%s",
		  err);
	cr_expect_eq(st_pmodel_parse(&m, "{", 1, "x.json", err, sizeof(err)),
		     -EBADMSG);
	cr_expect(strstr(err, "not JSON"), "%s", err);
	cr_expect_eq(st_pmodel_parse(&m, v2, strlen(v2), "x.json", err,
				     sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "version 2"), "%s", err);
	cr_expect_eq(st_pmodel_load(&m, "/nonexistent/t.json", err,
				    sizeof(err)), -ENOENT);
}

/*
 * First calls: Alltoall's groups at p = 2 give first calls 10 us (8 B)
 * and 196 us (128 KiB) above their medians, its 1 KiB group says null
 * and its p = 4 group nothing; its totals make its mean factor 2.
 * Allreduce's first call is below its median; Bcast gives none.
 */
static const char first_json[] =
"{\"format\": \"synctrace-table\", \"version\": 1,\n"
" \"metadata\": {\"runs\": [{\"bench\": true}]},\n"
" \"operations\": [\n"
"  {\"op\": \"MPI_Alltoall\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Alltoall\", \"p_min\": 2, \"p_max\": 4,\n"
"   \"d_min_bytes\": 8, \"d_max_bytes\": 131072, \"model\": null,\n"
"   \"call_ns\": 1075000, \"wait_ns\": 0,\n"
"   \"groups\": [{\"p\": 2, \"d_bytes\": 8, \"median_ns\": 600,\n"
"     \"n_in\": 10, \"first_ns\": 10600, \"first_runs\": 3},\n"
"     {\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 2000, \"n_in\": 10,\n"
"      \"first_ns\": null},\n"
"     {\"p\": 2, \"d_bytes\": 131072, \"median_ns\": 18000,\n"
"      \"n_in\": 10, \"first_ns\": 214000, \"first_runs\": 1},\n"
"     {\"p\": 4, \"d_bytes\": 8, \"median_ns\": 900, \"n_in\": 10}]},\n"
"  {\"op\": \"MPI_Allreduce\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Allreduce\", \"p_min\": 2, \"p_max\": 2,\n"
"   \"d_min_bytes\": 8, \"d_max_bytes\": 8, \"model\": null,\n"
"   \"groups\": [{\"p\": 2, \"d_bytes\": 8, \"median_ns\": 700,\n"
"     \"first_ns\": 650, \"first_runs\": 3}]},\n"
"  {\"op\": \"MPI_Bcast\", \"kind\": \"collective\",\n"
"   \"fn\": \"MPI_Bcast\", \"p_min\": 2, \"p_max\": 2,\n"
"   \"d_min_bytes\": 8, \"d_max_bytes\": 8, \"model\": null,\n"
"   \"groups\": [{\"p\": 2, \"d_bytes\": 8, \"median_ns\": 500}]}\n"
" ]}\n";

/* The row of 'm' called 'op'. */
static const struct st_pmodel_use *use_of(const struct st_pmodel *m,
					  const char *op)
{
	size_t i;

	for (i = 0; i < st_pmodel_nrows(m); i++)
		if (!strcmp(st_pmodel_use(m, i)->op, op))
			return st_pmodel_use(m, i);
	cr_assert_fail("no row %s", op);
	return NULL;
}

/*
 * A message asks only the send row of its protocol (a synchronous send:
 * the rendezvous row at any size), so that the row's lookups, and what
 * predict says of sizes outside its range, are the costs it takes.
 */
Test(tools_predict, model_asks_only_the_protocols_send_row)
{
	struct st_pmodel *m = load(net_json);
	const struct st_pmodel_use *eager, *rndv;
	struct st_replay_msg nm;

	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_ISEND, 1024, &nm), 0);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SEND, 16384, &nm), 0);
	cr_expect_float_eq(nm.send_ns, 4000, 1e-9);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SEND, 65536, &nm), 0);
	cr_expect_float_eq(nm.rndv_send_ns, 30000, 1e-9);
	cr_assert_eq(st_pmodel_msg(m, ST_FN_MPI_SSEND, 1024, &nm), 0);
	eager = use_of(m, "MPI_Send (receiver late, eager)");
	rndv = use_of(m, "MPI_Send (receiver late, rendezvous)");
	cr_expect_eq(eager->lookups, 2);
	cr_expect_eq(eager->d_out, 0);
	cr_expect_eq(rndv->lookups, 2);
	cr_expect_eq(rndv->d_out, 1, "the Ssend's 1 KiB is outside");
	st_pmodel_free(m);
}

Test(tools_predict, model_first_call_excess_at_a_group)
{
	struct st_pmodel *m = load(first_json);
	const struct st_pmodel_use *u = use_of(m, "MPI_Alltoall");
	struct st_replay_model rm;
	double v;

	cr_expect_eq(st_pmodel_first_rows(m), 2);
	cr_expect(u->has_first);
	cr_expect_not(use_of(m, "MPI_Bcast")->has_first);
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 8);
	cr_expect_float_eq(v, 10000, 1e-9);
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 131072);
	cr_expect_float_eq(v, 196000, 1e-9);
	/* The steady state is the median, as before. */
	v = cost(m, ST_FN_MPI_ALLTOALL, 2, 8);
	cr_expect_float_eq(v, 600, 1e-9);
	/* Through the replay model, too. */
	st_pmodel_replay_model(m, &rm);
	cr_assert(rm.coll_first);
	v = rm.coll_first(rm.ctx, ST_FN_MPI_ALLTOALL, 2, 8);
	cr_expect_float_eq(v, 10000, 1e-9);
	cr_expect_eq(u->first_calls, 3);
	cr_expect_float_eq(u->first_ns, 216000, 1e-9);
	cr_expect_eq(u->lookups, 1);
	st_pmodel_free(m);
}

Test(tools_predict, model_first_call_excess_of_the_nearest_group)
{
	struct st_pmodel *m = load(first_json);
	double v;

	/* Near 128 KiB in log d. */
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 100000);
	cr_expect_float_eq(v, 196000, 1e-9);
	/* 2 KiB: 8 B is 7.8 octaves off, 128 KiB 6.0 (1 KiB says null). */
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 2000);
	cr_expect_float_eq(v, 196000, 1e-9);
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 1024);
	cr_expect_float_eq(v, 10000, 1e-9);
	/* p = 4 gives none: p = 2's, one octave off in p. */
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 4, 8);
	cr_expect_float_eq(v, 10000, 1e-9);
	/* A nonblocking form on the blocking form's row. */
	v = st_pmodel_coll_first(m, ST_FN_MPI_IALLTOALL, 2, 8);
	cr_expect_float_eq(v, 10000, 1e-9);
	cr_expect_eq(use_of(m, "MPI_Alltoall")->first_calls, 5);
	st_pmodel_free(m);
}

Test(tools_predict, model_first_call_excess_is_zero_without_one)
{
	struct st_pmodel *m = load(first_json);
	struct st_pmodel *plain = load(table_json);
	double v;

	v = st_pmodel_coll_first(m, ST_FN_MPI_BCAST, 2, 8);
	cr_expect_float_eq(v, 0, 1e-12);
	/* A first call below the median costs nothing more. */
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLREDUCE, 2, 8);
	cr_expect_float_eq(v, 0, 1e-12);
	cr_expect_eq(use_of(m, "MPI_Allreduce")->first_calls, 0);
	cr_expect_eq(use_of(m, "MPI_Bcast")->first_calls, 0);
	v = st_pmodel_coll_first(plain, ST_FN_MPI_ALLREDUCE, 2, 8);
	cr_expect_float_eq(v, 0, 1e-12);
	v = st_pmodel_coll_first(plain, ST_FN_MPI_GATHER, 2, 8);
	cr_expect_float_eq(v, 0, 1e-12);
	cr_expect_eq(st_pmodel_first_rows(plain), 0);
	st_pmodel_free(plain);
	st_pmodel_free(m);
}

Test(tools_predict, model_first_call_excess_is_zero_in_mean_mode)
{
	struct st_pmodel *m = load(first_json);
	const struct st_pmodel_use *u = use_of(m, "MPI_Alltoall");
	double v;

	cr_expect_float_eq(u->mean_factor, 2.0, 1e-12);
	st_pmodel_mean(m, 1);
	v = cost(m, ST_FN_MPI_ALLTOALL, 2, 8);
	cr_expect_float_eq(v, 1200, 1e-9);
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 8);
	cr_expect_float_eq(v, 0, 1e-12);
	st_pmodel_mean(m, 0);
	/* Under a bound: unscaled and not counted. */
	st_pmodel_bound(m, 1);
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 8);
	cr_expect_float_eq(v, 10000, 1e-9);
	st_pmodel_bound(m, 0);
	cr_expect_eq(u->first_calls, 0);
	cr_expect_float_eq(u->first_ns, 0, 1e-12);
	st_pmodel_free(m);
}

Test(tools_predict, model_first_call_of_an_unknown_function)
{
	struct st_pmodel *m = load(first_json);

	cr_expect_lt(st_pmodel_coll_first(m, ST_FN_MPI_SCATTER, 2, 8), 0);
	cr_expect_lt(st_pmodel_coll_first(m, ST_FN_MPI_IGATHER, 2, 8), 0);
	cr_expect_lt(st_pmodel_coll_first(m, ST_FN_COUNT, 2, 8), 0);
	st_pmodel_free(m);
}

/* 'text' with its first 'what' replaced by 'with' (malloc'd). */
static char *replaced(const char *text, const char *what, const char *with)
{
	const char *at = strstr(text, what);
	size_t n = strlen(text) - strlen(what) + strlen(with) + 1;
	char *t = malloc(n);

	cr_assert(at && t);
	snprintf(t, n, "%.*s%s%s", (int)(at - text), text, with,
		 at + strlen(what));
	return t;
}

Test(tools_predict, model_refuses_a_bad_first_call_cost)
{
	static const char *const bad[] = { "-1", "\"fast\"", "true",
					   "[1]" };
	struct st_pmodel *m;
	char err[256], *t;
	double v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = replaced(first_json, "10600", bad[i]);
		m = NULL;
		cr_expect_eq(st_pmodel_parse(&m, t, strlen(t), "f.json", err,
					     sizeof(err)), -EBADMSG,
			     "accepted first_ns %s", bad[i]);
		cr_expect_null(m);
		cr_expect(strstr(err, "'f.json': operation MPI_Alltoall: "
				 "bad \"first_ns\" in group 1"), "%s", err);
		free(t);
	}
	/* A number past a double is no JSON number to jansson. */
	t = replaced(first_json, "10600", "1e999");
	cr_expect_eq(st_pmodel_parse(&m, t, strlen(t), "f.json", err,
				     sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "'f.json': not JSON: line"), "%s", err);
	free(t);
	/* 0 is a first call that cost nothing: fine. */
	t = replaced(first_json, "10600", "0");
	cr_expect_eq(st_pmodel_parse(&m, t, strlen(t), "f.json", err,
				     sizeof(err)), 0, "%s", err);
	v = st_pmodel_coll_first(m, ST_FN_MPI_ALLTOALL, 2, 8);
	cr_expect_float_eq(v, 0, 1e-12);
	st_pmodel_free(m);
	free(t);
}

/*
 * A 2-rank run: rank r computes 1000 * (r + 1) ns, Allreduce (8 B);
 * rank 0 sends 100 B to rank 1 (tag 4), which receives it after 200 ns;
 * both compute 300 ns more and finalize.  Measured durations are 5 us
 * per call, and rank 1's index says complete unless 'incomplete'.
 */
static void write_run(const char *dir, int incomplete, int nranks_files)
{
	struct fake_rank fr;
	struct st_event ev;
	int r;

	fake_index(dir, 2, !incomplete);
	for (r = 0; r < nranks_files; r++) {
		uint64_t t = 1000000 * (uint64_t)(r + 1);

		fake_rank_open(&fr, dir, r, "vm", "0");
		st_event_clear(&ev);
		ev.kind = ST_REC_COMM;
		ev.comm = WORLD;
		ev.comm_size = 2;
		ev.rank = r;
		ev.t0 = ev.t1 = t - 10;
		fake_append(&fr, &ev);
		fake_call(&ev, ST_FN_MPI_INIT, t - 500, t, 1);
		fake_append(&fr, &ev);
		t += 1000 * (uint64_t)(r + 1);
		fake_call(&ev, ST_FN_MPI_ALLREDUCE, t, t + 5000, 2);
		ev.comm = WORLD;
		ev.comm_size = 2;
		ev.seq = 1;
		ev.sbytes = ev.rbytes = 8;
		fake_append(&fr, &ev);
		t += 5000;
		if (r == 0) {
			fake_call(&ev, ST_FN_MPI_SEND, t, t + 5000, 3);
			ev.sbytes = 100;
		} else {
			t += 200;
			fake_call(&ev, ST_FN_MPI_RECV, t, t + 5000, 4);
			ev.rbytes = 100;
		}
		ev.comm = WORLD;
		ev.comm_size = 2;
		ev.peer = 1 - r;
		ev.tag = 4;
		fake_append(&fr, &ev);
		t += 5000 + 300;
		fake_call(&ev, ST_FN_MPI_FINALIZE, t, t + 100, 1);
		fake_append(&fr, &ev);
		fake_rank_close(&fr);
	}
}

static void write_table(const char *path, const char *text)
{
	write_file(path, text);
}

static struct captured predict(const char *dir, const char *extra1,
			       const char *extra2, const char *extra3)
{
	char run[600], table[600];
	char *argv[] = { "predict", run, "--table", table, (char *)extra1,
			 (char *)extra2, (char *)extra3, NULL };

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(table, sizeof(table), "%s/t.json", dir);
	return run_cmd(dir, cmd_predict, argv);
}

/* The JSON 'text' predict wrote, parsed, or the test stops. */
static json_t *parsed(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	cr_assert(j, "not JSON (%s): %s", je.text, text);
	return j;
}

/* The number 'key' (of object 'obj', if not NULL) in JSON 'text'. */
static double json_at(const char *text, const char *obj, const char *key)
{
	json_t *j = parsed(text), *v;
	double x;

	v = json_object_get(obj ? json_object_get(j, obj) : j, key);
	x = json_is_number(v) ? json_number_value(v) : NAN;
	json_decref(j);
	return x;
}

Test(tools_predict, command_predicts_a_run)
{
	char dir[64], run[128], table[128];
	struct captured c;
	json_t *j, *iv;
	double w;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	write_run(run, 0, 2);
	snprintf(table, sizeof(table), "%s/t.json", dir);
	write_table(table, table_json);

	c = predict(dir, "--json", NULL, NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	/*
	 * Allreduce: last arrival 2000, + 1000 + 500 + 16 = 3516.  Rank 0
	 * sends at 3516 (busy 1050: eager); rank 1 enters its receive at
	 * 3716 and copies 1050 after max(3716, 3516): 4766.  Then 300.
	 */
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_ns"), 5066,
			   1e-6, "%s", c.out);
	cr_expect_float_eq(json_at(c.out, "predicted", "rank"), 1, 1e-9);
	/* No row it used gives intervals: the bounds are the prediction. */
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_lo_ns"),
			   5066, 1e-6, "%s", c.out);
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_hi_ns"),
			   5066, 1e-6, "%s", c.out);
	cr_expect_float_eq(json_at(c.out, "critical_path", "compute_ns"),
			   2000 + 200 + 300, 1e-6);
	cr_expect_float_eq(json_at(c.out, "critical_path", "comm_ns"),
			   1516 + 1050, 1e-6);
	cr_expect_eq(json_at(c.out, NULL, "nranks"), 2);
	/*
	 * The interval: the bounds widened by 0.18 of the path's 2566 of
	 * communication and 0.12 of its 2500 of compute, in quadrature.
	 */
	j = parsed(c.out);
	iv = json_object_get(json_object_get(j, "predicted"), "interval");
	w = sqrt(461.88 * 461.88 + 300.0 * 300.0);
	cr_expect_float_eq(json_number_value(json_object_get(iv, "lo_ns")),
			   5066 - w, 1e-6);
	cr_expect_float_eq(json_number_value(json_object_get(iv, "hi_ns")),
			   5066 + w, 1e-6);
	json_decref(j);
	captured_free(&c);

	/* Measured 12500: outside, unless the model's error is 3 x comm. */
	c = predict(dir, "--json", "--validate", NULL);
	j = parsed(c.out);
	cr_expect(json_is_false(json_object_get(json_object_get(j,
		  "validation"), "inside_interval")), "%s", c.out);
	json_decref(j);
	captured_free(&c);
	c = predict(dir, "--json", "--validate", "--model-error=3,0");
	cr_assert_eq(c.status, 0, "%s", c.err);
	j = parsed(c.out);
	cr_expect(json_is_true(json_object_get(json_object_get(j,
		  "validation"), "inside_interval")), "%s", c.out);
	json_decref(j);
	captured_free(&c);

	c = predict(dir, "--validate", NULL, NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.out, "Predicted run time"), "%s", c.out);
	/* Measured (rank 1): 2000 + 5000 + 200 + 5000 + 300 = 12500. */
	cr_expect(strstr(c.out, "measured 12.5 us"), "%s", c.out);
	cr_expect(strstr(c.out, "error -59.5%"), "%s", c.out);
	cr_expect_eq(count_lines_with(c.out, "MPI_Allreduce ", " table "), 1,
		     "%s", c.out);
	cr_expect_eq(count_lines_with(c.out, "MPI_Recv ", " table "), 1, "%s",
		  c.out);
	cr_expect_str_eq(c.err, "");
	captured_free(&c);

	/* The median: the same here (the table has no totals). */
	c = predict(dir, "--json", "--statistic=median", NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_ns"), 5066,
			   1e-6, "%s", c.out);
	captured_free(&c);

	/* Compute at half the speed: 2 x 2500 more. */
	c = predict(dir, "--json", "--compute-scale", "2");
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_ns"),
			   5066 + 2500, 1e-6, "%s", c.out);
	captured_free(&c);
	remove_tree(dir);
}

/* Key 'key' of the "table_use" row of 'op' in predict's JSON 'text'. */
static double json_use(const char *text, const char *op, const char *key)
{
	json_t *j = parsed(text), *u, *x;
	const char *name;
	double v = NAN;
	size_t i;

	u = json_object_get(j, "table_use");
	cr_assert(json_is_array(u));
	json_array_foreach(u, i, x) {
		name = json_string_value(json_object_get(x, "op"));
		if (name && !strcmp(name, op) &&
		    json_is_number(json_object_get(x, key)))
			v = json_number_value(json_object_get(x, key));
	}
	json_decref(j);
	return v;
}

/* The top-level boolean 'key' of JSON 'text': 0, 1, or -1 if none. */
static int json_bool(const char *text, const char *key)
{
	json_t *j = parsed(text), *b;
	int v = -1;

	b = json_object_get(j, key);
	if (json_is_boolean(b))
		v = json_is_true(b);
	json_decref(j);
	return v;
}

/* Text output with its wrapped header lines joined again (in place). */
/* The continuation lines of the wrapped header fit in 100 columns. */
static void expect_wrapped_fit(const char *text)
{
	const char *line, *nl;

	for (line = text; (nl = strchr(line, '\n')); line = nl + 1)
		if (!strncmp(line, "              ", 14) ||
		    !strncmp(line, "first calls:", 12))
			cr_expect_leq(nl - line, 100, "too long: %.*s",
				      (int)(nl - line), line);
}

static char *unwrap(char *text)
{
	static const char cont[] = "\n              ";
	char *at;

	while ((at = strstr(text, cont))) {
		*at = ' ';
		memmove(at + 1, at + sizeof(cont) - 1,
			strlen(at + sizeof(cont) - 1) + 1);
	}
	return text;
}

Test(tools_predict, command_charges_first_calls)
{
	char dir[64], run[128], table[128], *t;
	struct captured c;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	write_run(run, 0, 2);
	/*
	 * Allreduce measured at p = 2, 8 B: its formula's 1516 ns, and a
	 * first call of 11516 ns (10 us more).
	 */
	t = replaced(table_json, "\"groups\": []", "\"groups\": [{\"p\": 2, "
		     "\"d_bytes\": 8, \"median_ns\": 1516, \"first_ns\": "
		     "11516, \"first_runs\": 3}]");
	snprintf(table, sizeof(table), "%s/t.json", dir);
	write_table(table, t);
	free(t);

	/* The run's one Allreduce is its first: 5066 (as above) + 10000. */
	c = predict(dir, "--json", "--statistic=median", NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_ns"), 15066,
			   1e-6, "%s", c.out);
	/* The bounds charge it too, unscaled. */
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_lo_ns"),
			   15066, 1e-6, "%s", c.out);
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_hi_ns"),
			   15066, 1e-6, "%s", c.out);
	cr_expect_float_eq(json_at(c.out, "critical_path", "comm_ns"),
			   11516 + 1050, 1e-6);
	cr_expect_eq(json_bool(c.out, "first_calls"), 1, "%s", c.out);
	/* Counted once, not again by the bound passes. */
	cr_expect_float_eq(json_use(c.out, "MPI_Allreduce", "first_calls"), 1,
			   1e-12, "%s", c.out);
	cr_expect_float_eq(json_use(c.out, "MPI_Allreduce", "first_ns"),
			   10000, 1e-6, "%s", c.out);
	/* Rows the run did not use are not listed. */
	cr_expect(isnan(json_use(c.out, "MPI_Gather", "first_calls")));
	cr_expect_float_eq(json_use(c.out, "MPI_Send->MPI_Recv",
				    "first_calls"), 0, 1e-12, "%s", c.out);
	captured_free(&c);

	/* --no-first: exactly the excess less. */
	c = predict(dir, "--json", "--statistic=median", "--no-first");
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_ns"), 5066,
			   1e-6, "%s", c.out);
	cr_expect_eq(json_bool(c.out, "first_calls"), 0, "%s", c.out);
	cr_expect_float_eq(json_use(c.out, "MPI_Allreduce", "first_calls"), 0,
			   1e-12, "%s", c.out);
	captured_free(&c);

	c = predict(dir, "--statistic=median", NULL, NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	expect_wrapped_fit(c.out);
	unwrap(c.out);
	cr_expect(strstr(c.out, "\nfirst calls:  charged from 1 table row (the "
			 "first instance of each operation, p and size adds "
			 "its first call's cost over the median): "
			 "MPI_Allreduce: 1 instance, +10.0 us in all\n"),
		  "%s", c.out);
	captured_free(&c);

	c = predict(dir, "--statistic=median", "--no-first", NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.out, "\nfirst calls:  not charged (--no-first)\n"),
		  "%s", c.out);
	captured_free(&c);

	/* An application-trace table: the mean, which holds them. */
	c = predict(dir, "--json", NULL, NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_ns"), 5066,
			   1e-6, "%s", c.out);
	cr_expect_eq(json_bool(c.out, "first_calls"), 0, "%s", c.out);
	captured_free(&c);
	c = predict(dir, NULL, NULL, NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	unwrap(c.out);
	cr_expect(strstr(c.out, "\nfirst calls:  not charged: each row's mean "
			 "holds them (1 table row gives them)\n"), "%s",
		  c.out);
	captured_free(&c);

	/* A table without first calls says so. */
	write_table(table, table_json);
	c = predict(dir, "--statistic=median", NULL, NULL);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.out, "\nfirst calls:  not charged (the table gives "
			 "no first-call costs)\n"), "%s", c.out);
	captured_free(&c);
	remove_tree(dir);
}

Test(tools_predict, command_refuses_a_table_without_an_operation)
{
	char dir[64], run[128], table[128], *t, *cut;
	struct captured c;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	write_run(run, 0, 2);
	/* The table without its point-to-point rows. */
	t = strdup(table_json);
	cut = strstr(t, ",\n  {\"op\": \"MPI_Send->MPI_Recv\"");
	cr_assert(cut);
	snprintf(cut, strlen(cut) + 1, "]}\n");
	snprintf(table, sizeof(table), "%s/t.json", dir);
	write_table(table, t);
	free(t);

	c = predict(dir, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "has no cost for MPI_Send (n=1 calls), "
			 "MPI_Recv (n=1 calls)"), "%s", c.err);
	cr_expect(strstr(c.err, "--missing=measured"), "%s", c.err);
	cr_expect_str_eq(c.out, "");
	captured_free(&c);

	c = predict(dir, "--missing=measured", "--json", NULL);
	cr_expect_eq(c.status, 0, "%s", c.err);
	/* The send keeps its 5 us; the message is there at its exit. */
	cr_expect_float_eq(json_at(c.out, "predicted", "run_time_ns"),
			   3516 + 5000 + 300, 1e-6, "%s", c.out);
	captured_free(&c);
	remove_tree(dir);
}

Test(tools_predict, command_warns_outside_the_fitted_range)
{
	char dir[64], run[128], table[128], *t, *at;
	struct captured c;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	write_run(run, 0, 2);
	/* Allreduce fitted on p = 4 only, from 16 B: both outside. */
	t = strdup(table_json);
	at = strstr(t, "\"p_min\": 2,\n   \"p_max\": 4, \"d_min_bytes\": 8");
	cr_assert(at);
	memcpy(at, "\"p_min\": 4,\n   \"p_max\": 4, \"d_min_bytes\": 9", 43);
	snprintf(table, sizeof(table), "%s/t.json", dir);
	write_table(table, t);
	free(t);
	c = predict(dir, NULL, NULL, NULL);
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.err, "warning: MPI_Allreduce: n=1 of n=1 costs "
			 "asked at p = 2..2, outside the table's p = 4..4"),
		  "%s", c.err);
	cr_expect(strstr(c.err, "warning: MPI_Allreduce: n=1 of n=1 costs "
			 "asked at d = 8 B..8 B, outside"), "%s", c.err);
	captured_free(&c);
	remove_tree(dir);
}

Test(tools_predict, command_refuses_incomplete_runs)
{
	char dir[64], run[128], table[128];
	struct captured c;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	snprintf(table, sizeof(table), "%s/t.json", dir);
	write_table(table, table_json);

	write_run(run, 0, 1);
	c = predict(dir, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "no trace file for rank 1 of 2"), "%s",
		  c.err);
	captured_free(&c);

	write_run(run, 1, 2);
	c = predict(dir, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "the run is incomplete"), "%s", c.err);
	captured_free(&c);
	remove_tree(dir);
}

Test(tools_predict, command_usage_errors)
{
	char dir[64];
	struct captured c;
	char *no_table[] = { "predict", "somewhere", NULL };
	char *bad_scale[] = { "predict", "x", "--table", "t",
			      "--compute-scale", "-1", NULL };
	char *bad_missing[] = { "predict", "x", "--table", "t",
				"--missing=maybe", NULL };
	char *bad_send[] = { "predict", "x", "--table", "t",
			     "--send-start=later", NULL };
	char *bad_net[] = { "predict", "x", "--table", "t",
			    "--network=maybe", NULL };
	char *bad_err[][6] = {
		{ "predict", "x", "--table", "t", "--model-error=0.1", NULL },
		{ "predict", "x", "--table", "t", "--model-error=-1,0", NULL },
		{ "predict", "x", "--table", "t", "--model-error=0.1,x", NULL },
		{ "predict", "x", "--table", "t", "--model-error=nan,0", NULL },
	};
	char *help[] = { "predict", "--help", NULL };
	size_t i;

	scratch_dir(dir, sizeof(dir));
	c = run_cmd(dir, cmd_predict, bad_net);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "--network=model or --network=off"), "%s",
		  c.err);
	captured_free(&c);
	for (i = 0; i < sizeof(bad_err) / sizeof(bad_err[0]); i++) {
		c = run_cmd(dir, cmd_predict, bad_err[i]);
		cr_expect_eq(c.status, 129, "%s", bad_err[i][4]);
		cr_expect(strstr(c.err, "bad '--model-error"), "%s", c.err);
		captured_free(&c);
	}
	c = run_cmd(dir, cmd_predict, no_table);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "no cost table given"), "%s", c.err);
	captured_free(&c);
	c = run_cmd(dir, cmd_predict, bad_scale);
	cr_expect_eq(c.status, 129);
	captured_free(&c);
	c = run_cmd(dir, cmd_predict, bad_missing);
	cr_expect_eq(c.status, 129);
	captured_free(&c);
	c = run_cmd(dir, cmd_predict, bad_send);
	cr_expect_eq(c.status, 129);
	cr_expect(strstr(c.err, "--send-start=auto, measured or table"),
		  "%s", c.err);
	captured_free(&c);
	c = run_cmd(dir, cmd_predict, help);
	cr_expect_eq(c.status, 0);
	cr_expect(strstr(c.out, "usage: synctrace predict"));
	captured_free(&c);
	remove_tree(dir);
}

Test(tools_predict, model_start_rows)
{
	static const char t[] =
		"{\"format\": \"synctrace-table\", \"version\": 1, "
		"\"operations\": [], \"start\": ["
		"{\"bytes\": 2048, \"profile_ns\": [5000, 300, 0], "
		"\"excess_ns\": 5000, \"excess_min_ns\": 2650, "
		"\"excess_max_ns\": 10600}, "
		"{\"bytes\": 65536, \"profile_ns\": [90000], "
		"\"excess_min_ns\": null, \"excess_max_ns\": 100000}, "
		"{\"bytes\": 1048576, \"profile_ns\": [1000], "
		"\"excess_min_ns\": 3000, \"excess_max_ns\": 4000}]}";
	static const char *const bad[] = {
		"\"start\": 3",
		"\"start\": [{\"bytes\": -1, \"profile_ns\": []}]",
		"\"start\": [{\"bytes\": 8}]",
		"\"start\": [{\"bytes\": 8, \"profile_ns\": [1, -2]}]",
		"\"start\": [{\"bytes\": 8, \"profile_ns\": [\"1\"]}]",
		"\"start\": [{\"bytes\": 8, \"profile_ns\": []}, "
		"{\"bytes\": 8, \"profile_ns\": []}]",
		"\"start\": [{\"bytes\": 8, \"profile_ns\": [], "
		"\"excess_min_ns\": 9, \"excess_max_ns\": 6}]",
		"\"start\": [{\"bytes\": 8, \"profile_ns\": [], "
		"\"excess_ns\": 5, \"excess_min_ns\": 1, "
		"\"excess_max_ns\": \"9\"}]",
	};
	/*
	 * What each message costs, from the profile; past a row's messages
	 * or rows, 0.  Under the bounds a whole channel is charged the
	 * least and the most series' start (2650 and 10600 against the
	 * profile's 5300, not the median series' 5000); a row without a
	 * range (null: not finite) keeps its own; a range the profile lies
	 * outside of is clamped so that the low bound charges no more than
	 * the profile.  The last, the bounds left: as before.
	 */
	static const struct start_want {
		int side, row;
		uint32_t k;
		double ns;
	} want[] = {
		{ 0, 0, 0, 5000 }, { 0, 0, 1, 300 }, { 0, 0, 2, 0 },
		{ 0, 0, 3, 0 }, { 0, 3, 0, 0 }, { 0, 1, 0, 90000 },
		{ -1, 0, 0, 2500 }, { -1, 0, 1, 150 }, { -1, 1, 0, 90000 },
		{ -1, 2, 0, 1000 },
		{ 1, 0, 0, 10000 }, { 1, 0, 1, 600 }, { 1, 2, 0, 4000 },
		{ 0, 0, 0, 5000 },
	};
	struct st_pmodel *m = load(t);
	char text[512], err[256];
	size_t i;

	cr_expect_eq(st_pmodel_start_rows(m), 3);
	/* The nearest row within a factor of 2 of the size. */
	cr_expect_eq(st_pmodel_start_row(m, 2048), 0);
	cr_expect_eq(st_pmodel_start_row(m, 1024), 0);
	cr_expect_eq(st_pmodel_start_row(m, 4096), 0);
	cr_expect_eq(st_pmodel_start_row(m, 1023), -1);
	cr_expect_eq(st_pmodel_start_row(m, 40000), 1);
	cr_expect_eq(st_pmodel_start_row(m, 8), -1);
	cr_expect_eq(st_pmodel_start_row(m, 0), -1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct start_want *w = &want[i];
		double x;

		st_pmodel_bound(m, w->side);
		x = st_pmodel_start_ns(m, w->row, w->k);
		cr_expect_float_eq(x, w->ns, 1e-9, "bound %d, row %d, message "
				   "%u: %.17g", w->side, w->row, w->k, x);
	}
	st_pmodel_no_start(m, 1);
	cr_expect_eq(st_pmodel_start_row(m, 2048), -1);
	st_pmodel_free(m);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "{\"format\": \"synctrace-table\", "
			 "\"version\": 1, \"operations\": [], %s}", bad[i]);
		cr_expect_eq(st_pmodel_parse(&m, text, strlen(text), "s.json",
					     err, sizeof(err)), -EBADMSG,
			     "accepted %s", bad[i]);
		cr_expect(strstr(err, "'s.json'") && strstr(err, "start"),
			  "%s", err);
		cr_expect_null(m);
	}
}

/*
 * net_json with a ping-pong group at 64 KiB (33768 ns, 95 % interval
 * 20000 to 50000) and the Sendrecv's there (48768, 30000 to 60000):
 * their intervals overlap.  Each group's launches: 'pp' and 'sr'
 * ("run_medians_ns" then "run_ids" as JSON array items).
 */
static struct st_pmodel *load_launches(const char *pp, const char *pp_ids,
				       const char *sr, const char *sr_ids)
{
	static const char a[] = "\"coef\": 0.5}]}]}},\n";
	static const char b[] = "\"median_ns\": 48768}";
	char text[sizeof(net_json) + 1024];
	const char *at = strstr(net_json, a), *bt = strstr(net_json, b);
	size_t k;

	cr_assert(at && bt && at < bt);
	k = (size_t)(at - net_json);
	memcpy(text, net_json, k);
	k += (size_t)snprintf(text + k, sizeof(text) - k, "\"coef\": 0.5}]}]}, "
			      "\"groups\": [{\"p\": 2, \"d_bytes\": 65536, "
			      "\"median_ns\": 33768, \"ci_lo_ns\": 20000, "
			      "\"ci_hi_ns\": 50000, \"run_medians_ns\": [%s], "
			      "\"run_ids\": [%s]}]},\n", pp, pp_ids);
	memcpy(text + k, at + strlen(a), (size_t)(bt - at) - strlen(a));
	k += (size_t)(bt - at) - strlen(a);
	snprintf(text + k, sizeof(text) - k, "\"median_ns\": 48768, "
		 "\"ci_lo_ns\": 30000, \"ci_hi_ns\": 60000, "
		 "\"run_medians_ns\": [%s], \"run_ids\": [%s]}%s", sr, sr_ids,
		 bt + strlen(b));
	return load(text);
}

Test(tools_predict, model_shares_what_each_launch_shows)
{
	static const struct {
		const char *pp, *pp_ids, *sr, *sr_ids;
		double share;
	} c[] = {
		/* Dearer in every launch: half the gap, (48768 - 33768) /
		   30000, though the pooled intervals overlap. */
		{ "30000, 34000, 38000", "0, 1, 2",
		  "45000, 49000, 53000", "0, 1, 2", 0.5 },
		/* Paired by launch, not by place. */
		{ "30000, 34000, 60000", "0, 1, 2",
		  "80000, 45000, 49000", "2, 0, 1", 0.5 },
		/* The same medians paired by place are not dearer. */
		{ "30000, 34000, 60000", "0, 1, 2",
		  "80000, 45000, 49000", "0, 1, 2", 0 },
		/* Launch by launch no clearer than the noise. */
		{ "30000, 34000, 38000", "0, 1, 2",
		  "29000, 49000, 60000", "0, 1, 2", 0 },
		/* No launch in common: the intervals, which overlap. */
		{ "30000, 34000, 38000", "0, 1, 2",
		  "45000, 49000, 53000", "3, 4, 5", 0 },
		/* One in common: the same. */
		{ "30000, 34000", "0, 1", "45000, 49000", "1, 2", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct st_pmodel *m = load_launches(c[i].pp, c[i].pp_ids,
						    c[i].sr, c[i].sr_ids);

		cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 65536),
				   c[i].share, 1e-9, "case %zu", i);
		st_pmodel_free(m);
	}
}

Test(tools_predict, a_row_says_how_far_its_launches_disagree)
{
	struct st_pmodel *m = load_launches("30000, 34000, 60000", "0, 1, 2",
					    "49000", "0");
	const struct st_pmodel_use *u = use_of(m, "MPI_Send->MPI_Recv");

	/* The largest launch median over the smallest, and where. */
	cr_expect_float_eq(u->spread, 2.0, 1e-12);
	cr_expect_float_eq(u->spread_lo, 30000, 1e-9);
	cr_expect_float_eq(u->spread_hi, 60000, 1e-9);
	cr_expect_eq(u->spread_n, 3);
	cr_expect_eq(u->spread_p, 2);
	cr_expect_float_eq(u->spread_d, 65536, 1e-9);
	/* One launch: nothing to compare. */
	cr_expect_float_eq(use_of(m, "MPI_Sendrecv")->spread, 0, 1e-12);
	st_pmodel_free(m);
	/* Three times apart, but by less than a microsecond: not said. */
	m = load_launches("300, 340, 900", "0, 1, 2", "49000", "0");
	cr_expect_float_eq(use_of(m, "MPI_Send->MPI_Recv")->spread, 0, 1e-12);
	st_pmodel_free(m);
}

/*
 * Launches 1 and 2 measured every row at about 0.6 of the pooled
 * medians, 3 and 4 at about 1.3: two states, split between them; each
 * row's cost in a state is its groups' median of that state's launches.
 * Launches within 1.13 of each other are one state.
 */
Test(tools_predict, launches_in_two_states)
{
	struct st_pmodel *m = load_launches("20000, 22000, 44000, 46000",
					    "0, 1, 2, 3",
					    "30000, 32000, 64000, 66000",
					    "0, 1, 2, 3");
	const struct st_pmodel_states *st;
	double base, cheap, dear;

	cr_assert(m);
	st = st_pmodel_states(m);
	cr_assert_eq(st->n, 2);
	cr_expect_eq(st->nlaunch, 4);
	cr_expect_eq(st->split, 2);
	cr_expect(st->id[0] == 0 && st->id[1] == 1 && st->id[2] == 2 &&
		  st->id[3] == 3);
	/* Each launch's factor: the median of its two rows' ratios. */
	cr_expect_float_eq(st->f[0], (20000 / 33768.0 + 30000 / 48768.0) / 2,
			   1e-12);
	cr_expect_float_eq(st->factor[0], (st->f[0] + st->f[1]) / 2, 1e-12);
	cr_expect_float_eq(st->factor[1], (st->f[2] + st->f[3]) / 2, 1e-12);
	base = st_pmodel_p2p(m, ST_FN_MPI_SEND, 65536);
	st_pmodel_state(m, 1);
	cheap = st_pmodel_p2p(m, ST_FN_MPI_SEND, 65536);
	st_pmodel_state(m, 2);
	dear = st_pmodel_p2p(m, ST_FN_MPI_SEND, 65536);
	st_pmodel_state(m, 0);
	cr_assert(base > 0);
	cr_expect_float_eq(cheap / base, 21000 / 33768.0, 1e-9);
	cr_expect_float_eq(dear / base, 45000 / 33768.0, 1e-9);
	cr_expect_float_eq(st_pmodel_p2p(m, ST_FN_MPI_SEND, 65536), base,
			   1e-9);
	st_pmodel_free(m);

	/* Ids that are no index of the table's runs: one state. */
	{
		static const char *bad[] = { "0, 1, 1e12, 3", "0, 1, -1, 3",
					     "0, 1, 1.5, 3" };
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
			m = load_launches("20000, 22000, 44000, 46000",
					  bad[i], "30000, 32000, 64000, 66000",
					  bad[i]);
			cr_assert(m);
			cr_expect_eq(st_pmodel_states(m)->n, 0, "ids %s",
				     bad[i]);
			st_pmodel_free(m);
		}
	}

	m = load_launches("30000, 34000, 38000", "0, 1, 2",
			  "45000, 49000, 53000", "0, 1, 2");
	cr_assert(m);
	cr_expect_eq(st_pmodel_states(m)->n, 0);
	base = st_pmodel_p2p(m, ST_FN_MPI_SEND, 65536);
	st_pmodel_state(m, 2);
	cr_expect_float_eq(st_pmodel_p2p(m, ST_FN_MPI_SEND, 65536), base,
			   1e-9, "one state: nothing to scale");
	st_pmodel_free(m);
}

Test(tools_predict, paired_launches)
{
	static const double a[] = { 120, 125, 130 }, b[] = { 100, 100, 100 };
	static const double id[] = { 0, 1, 2 }, other[] = { 5, 6, 7 };

	cr_expect_eq(st_pmodel_paired_dearer(a, id, 3, b, id, 3, 0.95), 1);
	cr_expect_eq(st_pmodel_paired_dearer(b, id, 3, a, id, 3, 0.95), 0);
	cr_expect_eq(st_pmodel_paired_dearer(a, id, 3, b, other, 3, 0.95),
		     -1);
	cr_expect_eq(st_pmodel_paired_dearer(a, id, 1, b, id, 1, 0.95), -1);
	/* Equal: not dearer. */
	cr_expect_eq(st_pmodel_paired_dearer(a, id, 2, a, id, 2, 0.95), 0);
	/* An odd level is taken as 0.95. */
	cr_expect_eq(st_pmodel_paired_dearer(a, id, 3, b, id, 3, NAN), 1);
}

Test(tools_predict, model_shares_what_k_each_way_shows_above_the_eager_limit)
{
	static const char x[] =
		",\n  {\"op\": \"MPI_Isend->MPI_Irecv (exchange, both busy)\", "
		"\"kind\": \"xchg-busy\", \"fn\": \"MPI_Isend\", "
		"\"recv_fn\": \"MPI_Irecv\", \"model\": null, \"groups\": ["
		"{\"p\": 2, \"d_bytes\": 1024, \"median_ns\": 1000}, "
		"{\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 40000, "
		"\"ci_lo_ns\": 30000, \"ci_hi_ns\": 60000}]}, "
		"{\"op\": \"MPI_Isend->MPI_Irecv (exchange burst, both busy)\", "
		"\"kind\": \"xchg-burst\", \"fn\": \"MPI_Isend\", "
		"\"recv_fn\": \"MPI_Irecv\", \"model\": null, \"groups\": ["
		"{\"p\": 4, \"d_bytes\": 1024, \"median_ns\": 1100}, "
		"{\"p\": 4, \"d_bytes\": 65536, \"median_ns\": 139000, "
		"\"ci_lo_ns\": 120000, \"ci_hi_ns\": 150000}]}\n"
		" ]}\n";
	char text[sizeof(net_json) + sizeof(x)];
	const char *end = strstr(net_json, "\n ]}\n");
	struct st_pmodel *m;
	int side;

	cr_assert(end);
	memcpy(text, net_json, (size_t)(end - net_json));
	memcpy(text + (end - net_json), x, sizeof(x));
	m = load(text);
	/*
	 * 64 KiB is rendezvous: four each way a pair every (139000 -
	 * 40000) / 3 = 33000 against a gap of 30000, which the replay's
	 * ports give at a share of 2 (1 - 30000 / 33000) = 0.1818, where
	 * one each way (the Sendrecv) said half.  At 1 KiB (eager) the
	 * bursts' data moved before their MPI_Waitall: the Sendrecv's
	 * share, 1.  A bound takes it at the rows' centres.
	 */
	for (side = -1; side <= 1; side++) {
		st_pmodel_bound(m, side);
		cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 65536),
				   2 * (1 - 30000.0 / 33000), 1e-9, "bound %d",
				   side);
		cr_expect_float_eq(st_pmodel_share(m, ST_FN_MPI_SEND, 1024), 1,
				   1e-9, "bound %d", side);
	}
	st_pmodel_free(m);
}

Test(tools_predict, model_exchange_burst_spacing)
{
	static const char t[] =
		"{\"format\": \"synctrace-table\", \"version\": 1, "
		"\"operations\": ["
		"{\"op\": \"MPI_Isend->MPI_Irecv (exchange, both busy)\", "
		"\"kind\": \"xchg-busy\", \"fn\": \"MPI_Isend\", "
		"\"recv_fn\": \"MPI_Irecv\", \"model\": null, \"groups\": ["
		"{\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 100000}]}, "
		"{\"op\": \"MPI_Isend->MPI_Irecv (exchange burst, both busy)\", "
		"\"kind\": \"xchg-burst\", \"fn\": \"MPI_Isend\", "
		"\"recv_fn\": \"MPI_Irecv\", \"model\": null, \"groups\": ["
		"{\"p\": 2, \"d_bytes\": 65536, \"median_ns\": 160000}, "
		"{\"p\": 4, \"d_bytes\": 65536, \"median_ns\": %d}]}]}";
	char text[2048];
	struct st_pmodel *m;

	/* (XB(4) - X) / 3, from the largest K. */
	snprintf(text, sizeof(text), t, 280000);
	m = load(text);
	cr_expect_float_eq(st_pmodel_xchg_gap(m, 65536), 60000, 1e-9);
	st_pmodel_free(m);
	/* Four each way no dearer than one: no spacing. */
	snprintf(text, sizeof(text), t, 90000);
	m = load(text);
	cr_expect_float_eq(st_pmodel_xchg_gap(m, 65536), 0, 1e-9);
	st_pmodel_free(m);
	/* Without the exchange-burst row: none either. */
	m = load(table_json);
	cr_expect_float_eq(st_pmodel_xchg_gap(m, 65536), 0, 1e-9);
	st_pmodel_free(m);
}
