/*
 * tests/fuzz/fuzz-records.c: a record stream, the decoder alone: the
 * input's first two bytes are the record count (little-endian), the
 * rest the encoded records of one stored chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "writer/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char text[] = "rank=0\n";
	size_t hlen = ST_FILE_HDR_LEN + sizeof(text) - 1, raw, len;
	uint32_t count;
	uint8_t *buf, *c;

	if (size < 3)
		return 0;
	raw = size - 2;
	count = st_get_le16(data);
	count = count ? count : 1;
	count = count > raw ? (uint32_t)raw : count;
	len = hlen + ST_CHUNK_HDR_LEN + raw;
	buf = malloc(len);
	if (!buf)
		return 0;
	memcpy(buf, ST_FILE_MAGIC, ST_FILE_MAGIC_LEN);
	st_put_le32(buf + 8, ST_FORMAT_VERSION);
	st_put_le32(buf + 12, sizeof(text) - 1);
	memcpy(buf + ST_FILE_HDR_LEN, text, sizeof(text) - 1);
	c = buf + hlen;
	memcpy(c, ST_CHUNK_MAGIC, ST_CHUNK_MAGIC_LEN);
	st_put_le16(c + 4, 0);
	c[6] = ST_CHUNK_STORED;
	c[7] = 0;
	st_put_le32(c + 8, (uint32_t)raw);
	st_put_le32(c + 12, (uint32_t)raw);
	st_put_le32(c + 16, count);
	st_put_le32(c + 20, 0);
	memcpy(c + ST_CHUNK_HDR_LEN, data + 2, raw);
	fuzz_fix_checksums(buf, len);
	fuzz_read_rank(buf, len);
	free(buf);
	return 0;
}
