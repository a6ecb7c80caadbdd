/*
 * tests/fuzz/fuzz-sync.c: a sync blob (the text of a sync record,
 * sync/record.c), parsed and, when it parses, put on a timeline.
 */
#include <stdlib.h>

#include "sync/sync.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_sync_timeline *tl;
	struct st_sync_record rec;

	if (st_sync_record_parse(&rec, data, size))
		return 0;
	if (st_sync_timeline_new(&tl))
		abort();
	if (!st_sync_timeline_add(tl, &rec)) {
		(void)st_sync_timeline_global(tl, 0);
		(void)st_sync_timeline_global(tl, rec.origin_ns);
		(void)st_sync_timeline_global(tl, UINT64_MAX);
		(void)st_sync_timeline_root_origin(tl);
	}
	st_sync_timeline_free(tl);
	st_sync_record_release(&rec);
	return 0;
}
