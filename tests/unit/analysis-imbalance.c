/*
 * tests/unit/analysis-imbalance.c: matching collective instances across
 * ranks.  Given records with known global times, every instance's
 * imbalance, waiting, time after the last arrival and exit skew are
 * exactly what the definitions say (a root that leaves early waits only
 * until it leaves); instances below the clock error are flagged and kept
 * out of the sums; calls that cannot be analysed are counted by reason;
 * and however long the run, instances in flight stay few: each is freed
 * when complete, and one that can no longer complete is dropped.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/imbalance.h"
#include "writer/event.h"

static struct st_event ev_of(unsigned fn, uint64_t comm, uint32_t size,
			     uint64_t seq, uint32_t site)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)fn;
	ev.comm = comm;
	ev.comm_size = size;
	ev.seq = seq;
	ev.site = site;
	return ev;
}

static struct st_event comm_rec(uint64_t comm, uint32_t size,
				uint32_t remote)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_COMM;
	ev.comm = comm;
	ev.comm_size = size;
	ev.remote_size = remote;
	return ev;
}

/*
 * First pass for 'nranks' ranks that each have a COMM record for 'comm'
 * (size 'size') and blocking calls with seq 1..'last[r]' ('last' NULL:
 * 'nseq' each); 'synced' NULL: all synced.
 */
static void scan_ranks(struct st_imb *a, int nranks, uint64_t comm,
		       uint32_t size, const uint64_t *last, uint64_t nseq,
		       const int *synced)
{
	struct st_event ev;
	uint64_t s;
	int r;

	for (r = 0; r < nranks; r++) {
		ev = comm_rec(comm, size, 0);
		cr_assert_eq(st_imb_scan(a, &ev), 0);
		for (s = 1; s <= (last ? last[r] : nseq); s++) {
			ev = ev_of(ST_FN_MPI_ALLREDUCE, comm, size, s, 1);
			cr_assert_eq(st_imb_scan(a, &ev), 0);
		}
		cr_assert_eq(st_imb_scan_end(a, synced ? synced[r] : 1), 0);
	}
}

static void add(struct st_imb *a, int rank, unsigned fn, uint64_t comm,
		uint32_t size, uint64_t seq, uint32_t site, double g0,
		double g1, double e0, double e1)
{
	struct st_event ev = ev_of(fn, comm, size, seq, site);

	cr_assert_eq(st_imb_add(a, rank, &ev, g0, g1, e0, e1), 0);
}

static const struct st_imb_row *row_of(const struct st_imb_row *rows,
				       size_t n, unsigned fn, long sym)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].fn == fn && rows[i].sym == sym)
			return &rows[i];
	return NULL;
}

Test(tools_imbalance, time_splits_into_waiting_and_after_last)
{
	struct st_imb *a = st_imb_new();
	const struct st_imb_totals *t;
	const struct st_imb_row *rows, *r;
	size_t n;

	cr_assert(a);
	scan_ranks(a, 3, 7, 3, NULL, 2, NULL);
	cr_assert_eq(st_imb_site(a, 0, 1, 42), 0);
	cr_assert_eq(st_imb_site(a, 1, 1, 43), 0);
	/* Arrivals 0, 1000, 4000; exits 5000, 5100, 5300. */
	add(a, 1, ST_FN_MPI_ALLREDUCE, 7, 3, 1, 1, 1000, 5100, 10, 10);
	add(a, 0, ST_FN_MPI_ALLREDUCE, 7, 3, 1, 1, 0, 5000, 0, 0);
	cr_expect_eq(st_imb_open(a), 1);
	add(a, 2, ST_FN_MPI_ALLREDUCE, 7, 3, 1, 1, 4000, 5300, 10, 10);
	cr_expect_eq(st_imb_open(a), 0, "freed when complete");
	/* A broadcast whose root (rank 0) leaves before rank 2 arrives. */
	add(a, 0, ST_FN_MPI_BCAST, 7, 3, 2, 1, 10000, 10100, 0, 0);
	add(a, 1, ST_FN_MPI_BCAST, 7, 3, 2, 1, 10500, 10900, 10, 10);
	add(a, 2, ST_FN_MPI_BCAST, 7, 3, 2, 1, 11000, 11200, 10, 10);
	st_imb_finish(a);

	rows = st_imb_by_fn(a, &n);
	cr_expect_eq(n, 2);
	r = row_of(rows, n, ST_FN_MPI_ALLREDUCE, -1);
	cr_assert(r);
	cr_expect_eq(r->s.n, 1);
	cr_expect_eq(r->s.flagged, 0);
	cr_expect_float_eq(r->s.imb_ns, 4000.0, 1e-9);
	cr_expect_float_eq(r->s.wait_ns, 4000.0 + 3000.0, 1e-9);
	cr_expect_float_eq(r->s.after_ns, 1000.0 + 1100.0 + 1300.0, 1e-9);
	cr_expect_float_eq(r->s.skew_ns, 300.0, 1e-9);
	r = row_of(rows, n, ST_FN_MPI_BCAST, -1);
	cr_assert(r);
	cr_expect_float_eq(r->s.imb_ns, 1000.0, 1e-9);
	/* Ranks 0 and 1 left before rank 2 came: they waited till then. */
	cr_expect_float_eq(r->s.wait_ns, 100.0 + 400.0, 1e-9);
	cr_expect_float_eq(r->s.after_ns, 200.0, 1e-9);
	cr_expect_float_eq(r->s.skew_ns, 11200.0 - 10100.0, 1e-9);

	/* Both go to the call site of the lowest rank, rank 0's. */
	rows = st_imb_by_site(a, &n);
	cr_expect_eq(n, 2);
	cr_expect(row_of(rows, n, ST_FN_MPI_ALLREDUCE, 42));
	cr_expect(row_of(rows, n, ST_FN_MPI_BCAST, 42));

	t = st_imb_totals(a);
	cr_expect_eq(t->all.n, 2);
	cr_expect_eq(t->nerr, 2);
	/* Allreduce: last arrival and exit on rank 2, 10 + 10 ns. */
	cr_expect_float_eq(t->err_max_ns, 20.0, 1e-9);
	cr_expect_float_eq(t->err_median_ns, 20.0, 1e-9);
	cr_expect_eq(t->incomplete + t->calls_inter + t->calls_single +
		     t->calls_missing + t->calls_unsynced, 0);
	cr_expect_eq(t->max_open, 1);
	st_imb_free(a);
}

Test(tools_imbalance, below_the_clock_error_is_flagged)
{
	struct st_imb *a = st_imb_new();
	const struct st_imb_totals *t;
	const struct st_imb_row *rows;
	size_t n;

	cr_assert(a);
	scan_ranks(a, 2, 1, 2, NULL, 4, NULL);
	/* Imbalance 20 ns, error 0 + 30: flagged. */
	add(a, 0, ST_FN_MPI_ALLREDUCE, 1, 2, 1, 1, 0, 5000, 0, 0);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 1, 2, 1, 1, 20, 5000, 30, 30);
	/* Imbalance 5 us but 20 ns from last arrival to last exit. */
	add(a, 0, ST_FN_MPI_ALLREDUCE, 1, 2, 2, 1, 10000, 15020, 0, 0);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 1, 2, 2, 1, 15000, 15010, 30, 30);
	/* An unknown error cannot vouch for anything. */
	add(a, 0, ST_FN_MPI_ALLREDUCE, 1, 2, 3, 1, 20000, 29000, 0, 0);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 1, 2, 3, 1, 25000, 30000, NAN, NAN);
	/* Imbalance 1 us, 1 us to the last exit: a fact. */
	add(a, 0, ST_FN_MPI_ALLREDUCE, 1, 2, 4, 1, 40000, 42000, 0, 0);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 1, 2, 4, 1, 41000, 41500, 30, 30);
	st_imb_finish(a);
	rows = st_imb_by_fn(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(rows[0].s.n, 1);
	cr_expect_eq(rows[0].s.flagged, 3);
	cr_expect_float_eq(rows[0].s.imb_ns, 1000.0, 1e-9);
	cr_expect_float_eq(rows[0].s.wait_ns, 1000.0, 1e-9);
	cr_expect_float_eq(rows[0].s.after_ns, 1000.0 + 500.0, 1e-9);
	cr_expect_float_eq(rows[0].s.skew_ns, 500.0, 1e-9);
	t = st_imb_totals(a);
	cr_expect_eq(t->all.flagged, 3);
	cr_expect_eq(t->nerr, 3, "the unknown error is not in the median");
	cr_expect_float_eq(t->err_max_ns, 30.0, 1e-9);
	st_imb_free(a);
}

Test(tools_imbalance, median_error_within_a_percent)
{
	struct st_imb *a = st_imb_new();
	const struct st_imb_totals *t;
	uint64_t s;

	cr_assert(a);
	scan_ranks(a, 2, 1, 2, NULL, 101, NULL);
	/* Instance s: rank 1's error s ns, imbalance and duration 1 ms. */
	for (s = 1; s <= 101; s++) {
		double g = (double)s * 1e7;

		add(a, 0, ST_FN_MPI_BARRIER, 1, 2, s, 1, g, g + 2e6, 0, 0);
		add(a, 1, ST_FN_MPI_BARRIER, 1, 2, s, 1, g + 1e6, g + 2e6,
		    (double)s, (double)s);
	}
	t = st_imb_totals(a);
	cr_expect_eq(t->nerr, 101);
	cr_expect_float_eq(t->err_max_ns, 101.0, 1e-9);
	cr_expect_float_eq(t->err_median_ns, 51.0, 51.0 * 0.01,
			   "median %g", t->err_median_ns);
	cr_expect_eq(t->all.n, 101);
	st_imb_free(a);
}

Test(tools_imbalance, instances_in_flight_stay_few)
{
	enum { R = 4, S = 50000, LAG = 10 };
	struct st_imb *a = st_imb_new();
	const struct st_imb_totals *t;
	uint64_t s, k;
	int r;

	cr_assert(a);
	scan_ranks(a, R, 1, R, NULL, S, NULL);
	/* Ranks read in turns of LAG records, as a merge of chunks would. */
	for (k = 0; k < S; k += LAG)
		for (r = 0; r < R; r++)
			for (s = k + 1; s <= k + LAG && s <= S; s++)
				add(a, r, ST_FN_MPI_ALLREDUCE, 1, R, s, 1,
				    (double)s * 1e4 + r * 100,
				    (double)s * 1e4 + 5000, 1, 1);
	cr_expect_eq(st_imb_open(a), 0);
	st_imb_finish(a);
	t = st_imb_totals(a);
	cr_expect_eq(t->all.n, S);
	cr_expect_eq(t->incomplete, 0);
	cr_expect_leq(t->max_open, LAG, "%zu in flight", t->max_open);
	/* Per instance: waits 300 + 200 + 100, imbalance 300 ns. */
	cr_expect_float_eq(t->all.wait_ns, 600.0 * S, 1e-3);
	cr_expect_float_eq(t->all.imb_ns, 300.0 * S, 1e-3);
	st_imb_free(a);
}

Test(tools_imbalance, an_instance_that_cannot_complete_is_dropped)
{
	struct st_imb *a = st_imb_new();
	const struct st_imb_totals *t;
	uint64_t s;

	cr_assert(a);
	scan_ranks(a, 2, 1, 2, NULL, 200, NULL);
	/* Rank 1's record of every even instance was lost. */
	for (s = 1; s <= 200; s++) {
		add(a, 0, ST_FN_MPI_BARRIER, 1, 2, s, 1, s * 1e4,
		    s * 1e4 + 500, 0, 0);
		if (s % 2)
			add(a, 1, ST_FN_MPI_BARRIER, 1, 2, s, 1,
			    s * 1e4 + 100, s * 1e4 + 500, 1, 1);
		cr_expect_leq(st_imb_open(a), 1, "at seq %lu",
			      (unsigned long)s);
	}
	st_imb_finish(a);
	t = st_imb_totals(a);
	cr_expect_eq(t->all.n, 100);
	cr_expect_eq(t->incomplete, 100);
	cr_expect_leq(t->max_open, 2);
	st_imb_free(a);
}

Test(tools_imbalance, calls_that_cannot_be_analysed_are_counted)
{
	static const uint64_t last[2] = { 10, 5 };
	static const int synced[3] = { 1, 1, 0 };
	struct st_imb *a = st_imb_new();
	const struct st_imb_totals *t;
	struct st_event ev;
	uint64_t s;
	int r;

	cr_assert(a);
	/* comm 1: rank 1's trace ends after seq 5. */
	scan_ranks(a, 2, 1, 2, last, 0, NULL);
	for (s = 1; s <= 10; s++) {
		add(a, 0, ST_FN_MPI_BARRIER, 1, 2, s, 1, s * 1e4, s * 1e4 + 900,
		    0, 0);
		if (s <= 5)
			add(a, 1, ST_FN_MPI_BARRIER, 1, 2, s, 1,
			    s * 1e4 + 100, s * 1e4 + 900, 1, 1);
	}
	cr_expect_eq(st_imb_open(a), 0, "seq 6..10 never opened");
	/* comm 2: size 3, two ranks traced.  comm 3: rank 2 unsynced. */
	scan_ranks(a, 2, 2, 3, NULL, 1, NULL);
	scan_ranks(a, 3, 3, 3, NULL, 1, synced);
	/* comm 4: an inter-communicator; comm 5: a one-rank one. */
	for (r = 0; r < 2; r++) {
		ev = comm_rec(4, 1, 1);
		cr_assert_eq(st_imb_scan(a, &ev), 0);
		ev = comm_rec(5, 1, 0);
		cr_assert_eq(st_imb_scan(a, &ev), 0);
		cr_assert_eq(st_imb_scan_end(a, 1), 0);
	}
	for (r = 0; r < 2; r++) {
		add(a, r, ST_FN_MPI_BARRIER, 2, 3, 1, 1, 1e6, 1e6 + 10, 0, 0);
		add(a, r, ST_FN_MPI_BARRIER, 3, 3, 1, 1, 1e6, 1e6 + 10, 0, 0);
		add(a, r, ST_FN_MPI_BCAST, 4, 1, 1, 1, 1e6, 1e6 + 10, 0, 0);
		add(a, r, ST_FN_MPI_BARRIER, 5, 1, 1, 1, 1e6, 1e6 + 10, 0, 0);
	}
	/* Not blocking collectives: ignored. */
	add(a, 0, ST_FN_MPI_IALLREDUCE, 1, 2, 11, 1, 1e6, 1e6, 0, 0);
	add(a, 0, ST_FN_MPI_SEND, 1, 2, 0, 1, 1e6, 1e6, 0, 0);
	cr_expect_eq(st_imb_open(a), 0);
	st_imb_finish(a);
	t = st_imb_totals(a);
	cr_expect_eq(t->all.n, 5);
	cr_expect_eq(t->calls_missing, 5 + 2);
	cr_expect_eq(t->calls_unsynced, 2);
	cr_expect_eq(t->calls_inter, 2);
	cr_expect_eq(t->calls_single, 2);
	cr_expect_eq(t->incomplete, 0);
	st_imb_free(a);
}

/* The hook's view of the last instance, for the tests below. */
struct seen_done {
	int calls, last_rank, flagged;
	double last_arr;
	uint64_t cookies[4];
};

static void on_done(void *ctx, const struct st_imb_done *d)
{
	struct seen_done *s = ctx;
	uint32_t i;

	s->calls++;
	s->last_rank = d->last_rank;
	s->flagged = d->flagged;
	s->last_arr = d->last_arr;
	for (i = 0; i < d->n && i < 4; i++)
		s->cookies[d->rank[i]] = d->cookie[i];
}

Test(analysis_imbalance, blame_goes_to_the_last_arrival)
{
	struct st_imb *a = st_imb_new();
	const struct st_imb_blame *b;
	const struct st_imb_row *rows;
	size_t n;
	int nb;

	cr_assert_not_null(a);
	scan_ranks(a, 3, 7, 3, NULL, 3, NULL);
	/* seq 1: rank 2 last (waits 30 + 20); seq 2: rank 2 last (10 + 5);
	   seq 3: rank 0 last (waits 8 + 8). */
	add(a, 0, ST_FN_MPI_ALLREDUCE, 7, 3, 1, 1, 0, 40, 1, 1);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 7, 3, 1, 1, 10, 40, 1, 1);
	add(a, 2, ST_FN_MPI_ALLREDUCE, 7, 3, 1, 1, 30, 40, 1, 1);
	add(a, 0, ST_FN_MPI_ALLREDUCE, 7, 3, 2, 1, 100, 120, 1, 1);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 7, 3, 2, 1, 105, 120, 1, 1);
	add(a, 2, ST_FN_MPI_ALLREDUCE, 7, 3, 2, 1, 110, 120, 1, 1);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 7, 3, 3, 1, 200, 220, 1, 1);
	add(a, 2, ST_FN_MPI_ALLREDUCE, 7, 3, 3, 1, 200, 220, 1, 1);
	add(a, 0, ST_FN_MPI_ALLREDUCE, 7, 3, 3, 1, 208, 220, 1, 1);
	st_imb_finish(a);
	rows = st_imb_by_fn(a, &n);
	cr_assert_eq(n, 1);
	cr_assert_geq(rows[0].nblame, 3);
	cr_expect_eq(rows[0].blame[2].last, 2);
	cr_expect_float_eq(rows[0].blame[2].caused_ns, 50 + 15, 1e-9);
	cr_expect_eq(rows[0].blame[0].last, 1);
	cr_expect_float_eq(rows[0].blame[0].caused_ns, 16, 1e-9);
	cr_expect_eq(rows[0].blame[1].last, 0);
	rows = st_imb_by_site(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(rows[0].blame[2].last, 2);
	b = st_imb_blame_all(a, &nb);
	cr_assert_geq(nb, 3);
	cr_expect_float_eq(b[0].caused_ns + b[1].caused_ns + b[2].caused_ns,
			   rows[0].s.wait_ns, 1e-9);
	st_imb_free(a);
}

Test(analysis_imbalance, flagged_instances_blame_nobody)
{
	struct st_imb *a = st_imb_new();
	const struct st_imb_row *rows;
	size_t n;

	scan_ranks(a, 2, 7, 2, NULL, 1, NULL);
	/* Arrivals 5 ns apart with a clock error of 10 ns each. */
	add(a, 0, ST_FN_MPI_ALLREDUCE, 7, 2, 1, 1, 0, 100, 10, 10);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 7, 2, 1, 1, 5, 100, 10, 10);
	rows = st_imb_by_fn(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(rows[0].s.flagged, 1);
	cr_expect(rows[0].nblame == 0 || (rows[0].blame[1].last == 0 &&
					  rows[0].blame[0].last == 0));
	st_imb_free(a);
}

Test(analysis_imbalance, hook_sees_members_with_their_cookies)
{
	struct st_imb *a = st_imb_new();
	struct seen_done s = { 0 };
	struct st_event ev;

	scan_ranks(a, 2, 7, 2, NULL, 1, NULL);
	st_imb_set_hook(a, on_done, &s);
	ev = ev_of(ST_FN_MPI_ALLREDUCE, 7, 2, 1, 1);
	cr_expect(st_imb_expected(a, &ev));
	st_imb_set_cookie(a, 41);
	add(a, 1, ST_FN_MPI_ALLREDUCE, 7, 2, 1, 1, 0, 50, 1, 1);
	cr_expect_eq(s.calls, 0);
	st_imb_set_cookie(a, 42);
	add(a, 0, ST_FN_MPI_ALLREDUCE, 7, 2, 1, 1, 30, 50, 1, 1);
	cr_expect_eq(s.calls, 1);
	cr_expect_eq(s.last_rank, 0);
	cr_expect_float_eq(s.last_arr, 30, 1e-9);
	cr_expect_eq(s.cookies[1], 41);
	cr_expect_eq(s.cookies[0], 42);
	/* seq 2 was never scanned: no instance will complete. */
	ev = ev_of(ST_FN_MPI_ALLREDUCE, 7, 2, 2, 1);
	cr_expect_not(st_imb_expected(a, &ev));
	ev = ev_of(ST_FN_MPI_IALLREDUCE, 7, 2, 1, 1);
	cr_expect_not(st_imb_expected(a, &ev));
	st_imb_free(a);
}
