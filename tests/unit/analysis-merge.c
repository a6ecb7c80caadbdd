/*
 * tests/unit/analysis-merge.c: walking ranks in global time order.  On a
 * 2-rank run whose clocks are 1 s apart, the merge hands out every
 * record once, each rank's in file order, the collectives in global
 * order with the global times their sync records imply; equal times go
 * to the lower rank first; a damaged file ends its rank's walk and is
 * counted; out of file descriptors, the limit is raised once.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tools/analysis/merge.h"
#include "tools/analysis/timeline.h"
#include "tools-sync-test.h"

static char dir[256];
static char paths[2][300];
static struct st_gclock *clk[2];

__attribute__((noinline)) int merge_marker(int x)
{
	return x * 13 + 1;
}

static void setup(void)
{
	struct fake_obj obj;
	int r;

	scratch_dir(dir, sizeof(dir));
	find_object((const void *)(uintptr_t)merge_marker, &obj);
	synced_run(dir, &obj, (uint64_t)(uintptr_t)merge_marker + 1,
		   (uint64_t)(uintptr_t)merge_marker + 5);
	for (r = 0; r < 2; r++) {
		snprintf(paths[r], sizeof(paths[r]), "%s/rank-%d.st", dir, r);
		cr_assert_eq(st_gclock_new(&clk[r], r), 0);
		cr_assert_eq(st_gclock_load(clk[r], paths[r], NULL), 0);
		cr_assert_eq(st_gclock_epochs(clk[r]), 2);
	}
}

static void teardown(void)
{
	st_gclock_free(clk[0]);
	st_gclock_free(clk[1]);
	remove_tree(dir);
}

TestSuite(tools_merge, .init = setup, .fini = teardown);

static struct st_merge *merge_of(int n)
{
	struct st_merge *m;
	char err[256];
	int r;

	cr_assert_eq(st_merge_new(&m), 0);
	for (r = 0; r < n; r++)
		cr_assert_eq(st_merge_add(m, r, paths[r], clk[r], err,
					  sizeof(err)), 0, "%s", err);
	return m;
}

Test(tools_merge, records_come_in_global_order)
{
	struct st_merge *m = merge_of(2);
	struct st_merged x;
	uint64_t last_t0[2] = { 0, 0 }, seqs = 0;
	double last_coll = -INFINITY;
	int count[2] = { 0, 0 };

	while (st_merge_next(m, &x) > 0) {
		const struct st_event *ev = x.ev;

		cr_assert(x.rank == 0 || x.rank == 1);
		count[x.rank]++;
		if (ev->kind == ST_REC_SITE || ev->kind == ST_REC_OBJECT) {
			cr_expect(isnan(x.g0) && isnan(x.g1));
			continue;
		}
		cr_expect_float_eq(x.g0, st_gclock_global(clk[x.rank],
							  ev->t0), 1e-9);
		cr_expect_float_eq(x.g1, st_gclock_global(clk[x.rank],
							  ev->t1), 1e-9);
		if (ev->kind == ST_REC_CALL && ev->comm == 1) {
			/* Collectives: global order, whatever the clocks. */
			cr_expect_geq(x.g0, last_coll, "seq %lu rank %d",
				      (unsigned long)ev->seq, x.rank);
			last_coll = x.g0;
			seqs = seqs * 10 + ev->seq;
			if (ev->seq == 1 && x.rank == 1)
				cr_expect_float_eq(x.g0, 1e8 + 5000, 1e-6);
		}
		/* File order within a rank: the CALLs of comm 1 ascend. */
		if (ev->kind == ST_REC_CALL && ev->comm == 1) {
			cr_expect_geq(ev->t0, last_t0[x.rank]);
			last_t0[x.rank] = ev->t0;
		}
	}
	cr_expect_eq(count[0], SYNCED_RECORDS_PER_RANK);
	cr_expect_eq(count[1], SYNCED_RECORDS_PER_RANK);
	/* Instance 2: rank 1 came first; instance 3: rank 0 did. */
	cr_expect_eq(seqs, 1122334455ull, "%llu", (unsigned long long)seqs);
	cr_expect_eq(st_merge_failed(m), 0);
	cr_expect_eq(st_merge_next(m, &x), 0, "stays done");
	st_merge_free(m);
}

Test(tools_merge, equal_times_go_to_the_lower_rank)
{
	struct st_merge *m;
	struct st_merged x;
	struct fake_rank fr;
	struct st_event ev;
	char err[256];
	int r, order[4], n = 0;

	/* Two ranks with identical records and identity clocks. */
	for (r = 1; r >= 0; r--) {
		struct blob_spec b = blob_spec(r, 2, 0, 0, 0, 0.0, 0.0);

		fake_rank_open(&fr, dir, r, "n", "0");
		fake_sync_rec(&fr, &b, 100, 200);
		fake_call(&ev, ST_FN_MPI_BARRIER, 1000, 2000, 0);
		fake_append(&fr, &ev);
		fake_rank_close(&fr);
		st_gclock_free(clk[r]);
		cr_assert_eq(st_gclock_new(&clk[r], r), 0);
		cr_assert_eq(st_gclock_load(clk[r], paths[r], NULL), 0);
	}
	cr_assert_eq(st_merge_new(&m), 0);
	cr_assert_eq(st_merge_add(m, 1, paths[1], clk[1], err, sizeof(err)),
		     0);
	cr_assert_eq(st_merge_add(m, 0, paths[0], clk[0], err, sizeof(err)),
		     0);
	while (n < 4 && st_merge_next(m, &x) > 0)
		order[n++] = x.rank;
	cr_expect_eq(n, 4);
	cr_expect(order[0] == 0 && order[1] == 1 && order[2] == 0 &&
		  order[3] == 1, "%d %d %d %d", order[0], order[1], order[2],
		  order[3]);
	st_merge_free(m);
}

Test(tools_merge, damaged_file_ends_its_rank)
{
	struct st_merge *m;
	struct st_merged x;
	char err[256], missing[300];
	int count[2] = { 0, 0 };
	FILE *f;
	long size;

	/* Flip a byte near the end of rank 1's only chunk. */
	f = fopen(paths[1], "r+");
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size - 10, SEEK_SET);
	putc(getc(f) ^ 0x5a, f);
	fclose(f);
	cr_assert_eq(st_merge_new(&m), 0);
	cr_assert_eq(st_merge_add(m, 0, paths[0], clk[0], err, sizeof(err)),
		     0);
	cr_assert_eq(st_merge_add(m, 1, paths[1], clk[1], err, sizeof(err)),
		     0);
	while (st_merge_next(m, &x) > 0)
		count[x.rank]++;
	cr_expect_eq(count[0], SYNCED_RECORDS_PER_RANK);
	cr_expect_eq(count[1], 0, "its chunk fails its checksum");
	cr_expect_eq(st_merge_failed(m), 1);
	st_merge_free(m);

	cr_assert_eq(st_merge_new(&m), 0);
	snprintf(missing, sizeof(missing), "%s/rank-9.st", dir);
	cr_expect_eq(st_merge_add(m, 9, missing, clk[0], err, sizeof(err)),
		     -ENOENT);
	cr_expect(strstr(err, "rank-9.st"), "%s", err);
	st_merge_free(m);
}

/* The lowest free descriptor number. */
static int free_fd(void)
{
	int fd = dup(0);

	cr_assert_geq(fd, 0);
	close(fd);
	return fd;
}

Test(tools_merge, out_of_descriptors_raises_the_limit_once)
{
	struct rlimit rl, low;
	struct st_merge *m;
	struct st_merged x;
	char err[256];
	int n = 0;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	cr_assert_geq(rl.rlim_max, (rlim_t)free_fd() + 8);
	/* Room for one more file: the second rank's open fails at first. */
	low.rlim_cur = (rlim_t)free_fd() + 1;
	low.rlim_max = rl.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	cr_assert_eq(st_merge_new(&m), 0);
	cr_expect_eq(st_merge_add(m, 0, paths[0], clk[0], err, sizeof(err)),
		     0);
	cr_expect_eq(st_merge_add(m, 1, paths[1], clk[1], err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &low), 0);
	cr_expect_eq(low.rlim_cur, rl.rlim_max, "raised to the hard limit");
	while (st_merge_next(m, &x) > 0)
		n++;
	cr_expect_eq(n, 2 * SYNCED_RECORDS_PER_RANK);
	st_merge_free(m);

	/* With the hard limit reached too, the error comes back. */
	low.rlim_cur = low.rlim_max = (rlim_t)free_fd() + 1;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	cr_assert_eq(st_merge_new(&m), 0);
	cr_expect_eq(st_merge_add(m, 0, paths[0], clk[0], err, sizeof(err)),
		     0);
	cr_expect_eq(st_merge_add(m, 1, paths[1], clk[1], err, sizeof(err)),
		     -EMFILE);
	st_merge_free(m);
}
