/*
 * tests/fuzz/fuzz.c: helpers of the fuzz targets: checksum repair, one
 * rank file read to its end with every sync record parsed, and scratch
 * files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gen/ops.h"
#include "sync/sync.h"
#include "tests/fuzz/fuzz.h"
#include "writer/event.h"
#include "writer/format.h"
#include "writer/reader.h"

void fuzz_fix_checksums(uint8_t *buf, size_t len)
{
	uint32_t version, n, crc, plen;
	size_t off, hlen;

	if (len < ST_FILE_HDR_LEN)
		return;
	version = st_get_le32(buf + 8);
	n = st_get_le32(buf + 12);
	if (n > len - ST_FILE_HDR_LEN)
		return;
	crc = (uint32_t)crc32(0, buf + 8, 8);
	crc = (uint32_t)crc32(crc, buf + ST_FILE_HDR_LEN, n);
	st_put_le32(buf + 16, crc);
	hlen = version == 4 ? ST_CHUNK_HDR_LEN_V4 : ST_CHUNK_HDR_LEN;
	for (off = ST_FILE_HDR_LEN + (size_t)n; len - off >= hlen;
	     off += hlen + plen) {
		plen = st_get_le32(buf + off + 12);
		if (plen > len - off - hlen)
			return;
		st_put_le32(buf + off + hlen - 8,
			    (uint32_t)crc32(0, buf + off + hlen, plen));
		st_put_le32(buf + off + hlen - 4,
			    (uint32_t)crc32(0, buf + off, (uInt)hlen - 4));
	}
}

static void parse_sync(const struct st_event *ev,
		       struct st_sync_timeline *tl)
{
	struct st_sync_record rec;

	if (st_sync_record_parse(&rec, ev->text, ev->text_len))
		return;
	if (!st_sync_timeline_add(tl, &rec))
		(void)st_sync_timeline_global(tl, ev->t0);
	st_sync_record_release(&rec);
}

void fuzz_read_rank(const uint8_t *buf, size_t len)
{
	struct st_sync_timeline *tl = NULL;
	struct st_reader *r;
	struct st_event ev;
	const struct st_kv *kv;
	char err[512];
	size_t n;

	if (st_reader_open_mem(&r, buf, len, "fuzz", err, sizeof(err)))
		return;
	st_reader_set_fn_count(r, ST_FN_COUNT);
	kv = st_reader_header(r, &n);
	(void)kv;
	(void)st_reader_get(r, "rank");
	if (st_sync_timeline_new(&tl))
		abort();
	while (st_reader_next(r, &ev) == 1) {
		if (ev.kind == ST_REC_SYNC)
			parse_sync(&ev, tl);
		if (ev.kind < 1 || ev.kind > ST_REC_MAX ||
		    (ev.kind == ST_REC_SITE && ev.nframes > ST_MAX_FRAMES) ||
		    (ev.kind == ST_REC_CALL && ev.fn >= ST_FN_COUNT))
			abort();	/* the reader let through the impossible */
	}
	(void)st_reader_truncated(r);
	st_sync_timeline_free(tl);
	st_reader_close(r);
}

const char *fuzz_dir(void)
{
	static char dir[256];
	const char *tmp = getenv("TMPDIR");

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/st-fuzz-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	return dir;
}

void fuzz_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f))
		abort();
}
