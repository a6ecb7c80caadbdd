/*
 * tests/unit/analysis-profile.c: the profile behind 'synctrace report',
 * read without the command: on the 2-rank run of fake_run(), the totals
 * per function, the run time, the call sites and the communicator sizes
 * are what the records imply; a missing file is an error that reads no
 * rank; warnings go to the diag receiver, not to stderr.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "gen/ops.h"
#include "tools/analysis/diag.h"
#include "tools/analysis/profile.h"
#include "tools-test.h"

static char dir[256];
static char run[300];
static int nwarn;

__attribute__((noinline)) int profile_marker(int x)
{
	return x * 7 + 1;
}

static void count_warning(const char *msg)
{
	(void)msg;
	nwarn++;
}

static void setup(void)
{
	struct fake_obj obj;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)profile_marker, &obj);
	fake_run(run, &obj, (uint64_t)(uintptr_t)profile_marker + 1, NULL);
	nwarn = 0;
	st_diag_set_warn(count_warning);
}

static void teardown(void)
{
	st_diag_set_warn(NULL);
	remove_tree(dir);
}

TestSuite(analysis_profile, .init = setup, .fini = teardown);

static struct st_profile *read_run(void)
{
	struct st_profile *p;
	char path[400], err[256];
	int r;

	cr_assert_eq(st_profile_new(&p, 2), 0);
	for (r = 0; r < 2; r++) {
		snprintf(path, sizeof(path), "%s/rank-%d.st", run, r);
		cr_assert_eq(st_profile_read_rank(p, r, path, err,
						  sizeof(err)), 0, "%s", err);
	}
	return p;
}

Test(analysis_profile, totals_per_function_and_run)
{
	struct st_profile *p = read_run();
	const struct st_profile_sum *s = st_profile_sum(p);
	const struct st_profile_fn *fn = st_profile_fns(p);
	const struct st_profile_fn *ar = &fn[ST_FN_MPI_ALLREDUCE];
	const struct st_profile_fn *irecv = &fn[ST_FN_MPI_IRECV];

	cr_expect_eq(s->nread, 2);
	cr_expect_eq(s->nhosts, 2);
	cr_expect_eq(s->nmissing, 0);
	/* 3 x 100 ns on rank 0, 3 x 200 ns on rank 1. */
	cr_expect_eq(ar->calls, 6);
	cr_expect_eq(ar->time_ns, 900);
	cr_expect_eq(ar->rank_min, 300);
	cr_expect_eq(ar->rank_max, 600);
	cr_expect_eq(ar->nranks, 2);
	/* A receive's bytes come with its completion. */
	cr_expect_eq(irecv->rbytes, 4096);
	cr_expect_eq(irecv->ops, 2);
	cr_expect_eq(fn[ST_FN_MPI_ALLREDUCE_INIT].starts, 2);
	cr_expect_eq(s->mpi_calls, 18, "MPI_Init, MPI_Finalize left out");
	cr_expect_eq(s->mpi_ns, 5900);
	/* From synctrace's init (2000) to its finalize work (19000). */
	cr_expect_eq(s->nrun, 2);
	cr_expect_eq(s->run_min, 17000);
	cr_expect_eq(s->run_max, 17000);
	cr_expect_eq(s->marks, 2);
	cr_expect(st_profile_outside_run(ST_FN_MPI_INIT));
	cr_expect(!st_profile_outside_run(ST_FN_MPI_ALLREDUCE));
	/* fake_run()'s sync records hold text: one warning per rank. */
	cr_expect_eq(nwarn, 2);
	cr_expect_null(st_profile_sync_method(p));
	st_profile_free(p);
}

Test(analysis_profile, sites_and_sizes_are_sorted)
{
	struct st_profile *p = read_run();
	const struct st_profile_site *g;
	const struct st_profile_size *z;
	size_t n, i;

	g = st_profile_sites(p, &n);
	cr_assert_gt(n, 1);
	for (i = 1; i < n; i++)
		cr_expect_geq(g[i - 1].time_ns, g[i].time_ns);
	for (i = 0; i < n; i++)
		cr_expect_eq(g[i].nranks, 2, "merged across ranks");
	z = st_profile_sizes(p, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(z[0].size, 2);
	cr_expect_eq(z[0].ncomms, 1);
	st_profile_free(p);
}

Test(analysis_profile, unreadable_file_is_an_error)
{
	struct st_profile *p;
	char err[256];

	cr_expect_eq(st_profile_new(&p, 0), -EINVAL);
	cr_assert_eq(st_profile_new(&p, 2), 0);
	cr_expect_eq(st_profile_missing(p, 1), 0);
	cr_expect_eq(st_profile_read_rank(p, 0, "/nonexistent/rank-0.st",
					  err, sizeof(err)), -ENOENT);
	cr_expect(strstr(err, "No such file"), "%s", err);
	cr_expect_eq(st_profile_read_rank(p, 2, run, err, sizeof(err)),
		     -EINVAL, "rank out of range");
	cr_expect_eq(st_profile_sum(p)->nread, 0);
	cr_expect_eq(st_profile_sum(p)->nmissing, 1);
	cr_expect_eq(st_profile_sum(p)->missing[0], 1);
	st_profile_free(p);
}
