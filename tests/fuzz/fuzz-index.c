/*
 * tests/fuzz/fuzz-index.c: a run index (synctrace.run) in a directory
 * of its own, opened as every command opens a run.
 */
#include <stdio.h>

#include "tests/fuzz/fuzz.h"
#include "writer/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_run *run;
	char path[512], err[512];
	int n;

	/*
	 * An empty rank 0 file: a run needs one to open (writer/run.c),
	 * and an unreadable one is left to its reader.
	 */
	snprintf(path, sizeof(path), "%s/rank-0.st", fuzz_dir());
	fuzz_write(path, data, 0);
	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), ST_RUN_INDEX);
	fuzz_write(path, data, size);
	if (st_run_open(&run, fuzz_dir(), err, sizeof(err)))
		return 0;
	n = st_run_nranks(run);
	(void)st_run_get(run, "cmdline");
	(void)st_run_get(run, "complete");
	(void)st_run_rank_path(run, 0);
	(void)st_run_rank_path(run, n - 1);
	(void)st_run_rank_path(run, n);
	st_run_close(run);
	return 0;
}
