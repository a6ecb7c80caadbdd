/*
 * tests/fuzz/fuzz-chunk.c: a sequence of chunks behind a valid file
 * header of this version: the chunk framing (lengths, methods, inflate,
 * sequence numbers, truncation) and the records behind it.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "writer/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char text[] = "rank=0\nsize=1\n";
	size_t hlen = ST_FILE_HDR_LEN + sizeof(text) - 1;
	uint8_t *buf = malloc(hlen + size);

	if (!buf)
		return 0;
	memcpy(buf, ST_FILE_MAGIC, ST_FILE_MAGIC_LEN);
	st_put_le32(buf + 8, ST_FORMAT_VERSION);
	st_put_le32(buf + 12, sizeof(text) - 1);
	memcpy(buf + ST_FILE_HDR_LEN, text, sizeof(text) - 1);
	memcpy(buf + hlen, data, size);
	fuzz_fix_checksums(buf, hlen + size);
	fuzz_read_rank(buf, hlen + size);
	free(buf);
	return 0;
}
