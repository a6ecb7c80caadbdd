/*
 * tests/fuzz/fuzz-rank.c: a whole rank file, header and chunks, read
 * to its end as the tools read it (checksums repaired first).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	fuzz_fix_checksums(buf, size);
	fuzz_read_rank(buf, size);
	free(buf);
	return 0;
}
