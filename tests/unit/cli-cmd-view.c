/*
 * tests/unit/cli-cmd-view.c: the 'synctrace view' command's budget of
 * calls drawn one by one.  A synchronised 2-rank run of 1,000 barriers a
 * rank, of distinct durations from 100 to 1,099 ns, drawn with
 * --max-calls 500: the longest are kept, at most 500 and close to it
 * (the threshold falls within 1/16 of an octave: here within 32 ns, 64
 * calls).  A threshold at powers of two, one octave too high, kept 4:
 * MPI_Init and MPI_Finalize.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tools-sync-test.h"
#include "tools-test.h"
#include "tools/cli/synctrace.h"

#define NCALLS 1000

static void cmd_view_marker(void)
{
}

static void barriers_run(const char *dir, const struct fake_obj *obj)
{
	struct fake_rank fr;
	struct st_event ev;
	int r, i;

	fake_index(dir, 2, 1);
	for (r = 0; r < 2; r++) {
		synced_rank_open(&fr, dir, r, obj);
		fake_world(&fr, &ev, r, 2, sync_local(r, 26e6));
		/* Barrier i: from 30 ms + i us, taking 100 + i ns. */
		for (i = 0; i < NCALLS; i++)
			synced_coll(&fr, r, ST_FN_MPI_BARRIER, 1,
				    (uint64_t)i + 1, 0, 3e7 + i * 1e3,
				    3e7 + i * 1e3 + 100 + i);
		fake_call(&ev, ST_FN_MPI_FINALIZE, sync_local(r, 5e7),
			  sync_local(r, 5.1e7), 0);
		fake_append(&fr, &ev);
		fake_rank_close(&fr);
	}
}

Test(tools_cmd_view, max_calls_keeps_the_longest_up_to_the_budget)
{
	char dir[256], run[300], page[320];
	char *argv[] = { "view", "--max-calls", "500", "-o", page, run,
			 NULL };
	struct fake_obj obj;
	struct captured c;
	unsigned long kept = 0, calls = 0;
	const char *p;

	scratch_dir(dir, sizeof(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(page, sizeof(page), "%s/page.html", dir);
	cr_assert_eq(mkdir(run, 0777), 0);
	find_object((const void *)(uintptr_t)cmd_view_marker, &obj);
	barriers_run(run, &obj);
	c = run_cmd(dir, cmd_view, argv);
	cr_assert_eq(c.status, 0, "stderr: %s", c.err);
	p = strstr(c.err, "lanes, n=");
	cr_assert(p && sscanf(p, "lanes, n=%lu of n=%lu calls", &kept,
			      &calls) == 2, "%s", c.err);
	/* Init, the barriers and Finalize, on two ranks. */
	cr_expect_eq(calls, 2 * (NCALLS + 2));
	cr_expect_leq(kept, 500);
	cr_expect_geq(kept, 500 - 64, "kept %lu of the 500 allowed", kept);
	captured_free(&c);
	remove_tree(dir);
}
