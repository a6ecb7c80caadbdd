/*
 * tests/unit/writer-reader.c: the reader never trusts its input.  A file
 * cut at any byte gives every whole chunk and then says it is truncated;
 * a bit flipped anywhere gives -EBADMSG naming the file and offset (or,
 * in the file header, a clear error); foreign files, unknown versions
 * and chunks with impossible lengths are refused; nothing crashes or
 * reads out of bounds (run under ASan too).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "writer/encode.h"
#include "writer/event.h"
#include "writer/format.h"
#include "writer/huff.h"
#include "writer/reader.h"
#include "writer/stream.h"
#include "writer/writer.h"
#include "writer-test.h"

static const struct st_kv hdr[] = {
	{ "rank", "3" },
	{ "host", "node-1.example" },
	{ "clock.origin_ns", "123456789" },
	{ "rank", "4" },
};

enum { NREC = 12, NCHUNK = 3 };

static struct membuf mb;
static struct st_sink sink;
static struct st_event evs[NREC];
static char texts[NREC][40];
/* Records in the file before the end of chunk c (index 1..NCHUNK). */
static int upto[NCHUNK + 1];

static void setup(void)
{
	memset(&mb, 0, sizeof(mb));
	sink = membuf_sink(&mb);
}

static void teardown(void)
{
	free(mb.buf);
}

TestSuite(writer_reader, .init = setup, .fini = teardown);

/*
 * A small file: the header and three chunks from two streams, records
 * of every kind, the last chunk stored; with 'before_11', its records
 * coded by the rules of versions 4 to 10 (a start record's timestamps
 * predicted from its context, not as sharing the previous record's).
 */
static void make_file(int before_11)
{
	struct st_stream *a, *b;
	uint64_t seed = 17;
	int i;

	cr_assert_eq(st_trace_write_header(&sink, hdr, 4), 0);
	cr_assert_eq(st_stream_new(&a, &sink, 0, ST_STREAM_MIN_BUF, 6), 0);
	cr_assert_eq(st_stream_new(&b, &sink, 1, ST_STREAM_MIN_BUF, 6), 0);
	a->codec.starts = b->codec.starts = !before_11;
	for (i = 0; i < NREC; i++) {
		make_event(&evs[i], ST_REC_CALL + i % ST_REC_MAX, &seed,
			   texts[i], sizeof(texts[i]));
		evs[i].thread = i >= 4 && i < 8;
		cr_assert_eq(st_stream_append(evs[i].thread ? b : a, &evs[i]),
			     0);
		if (i == 3)
			cr_assert_eq(st_stream_flush(a), 0);
		if (i == 7)
			cr_assert_eq(st_stream_flush(b), 0);
	}
	/* Stored, as a signal handler would write it. */
	{
		int fds[2];
		uint8_t tmp[8192];
		ssize_t n;

		cr_assert_eq(pipe(fds), 0);
		cr_assert_eq(st_stream_flush_raw(a, fds[1]), 0);
		n = read(fds[0], tmp, sizeof(tmp));
		cr_assert_gt(n, 0);
		cr_assert_eq(membuf_write(&mb, tmp, (size_t)n), 0);
		close(fds[0]);
		close(fds[1]);
	}
	st_stream_free(a);
	st_stream_free(b);
	cr_assert_eq(mb.nwrites, 1 + NCHUNK);
	upto[0] = 0;
	upto[1] = 4;
	upto[2] = 8;
	upto[3] = NREC;
}

static void make_small_file(void)
{
	make_file(0);
}

/* A copy of the first 'len' bytes, exactly 'len' long for ASan. */
static uint8_t *copy_prefix(size_t len)
{
	uint8_t *c = malloc(len ? len : 1);

	cr_assert(c);
	memcpy(c, mb.buf, len);
	return c;
}

/* Chunk (1..NCHUNK) that byte 'off' belongs to, 0 for the header. */
static int chunk_of(size_t off)
{
	int c;

	for (c = 0; c <= NCHUNK; c++)
		if (off < mb.ends[c])
			return c;
	return -1;
}

Test(writer_reader, reads_header_entries)
{
	struct st_reader *r;
	const struct st_kv *kv;
	char err[256];
	size_t n;

	make_small_file();
	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "t", err,
					sizeof(err)), 0, "%s", err);
	cr_expect_eq(st_reader_version(r), ST_FORMAT_VERSION);
	kv = st_reader_header(r, &n);
	cr_assert_eq(n, 4);
	cr_expect_str_eq(kv[1].key, "host");
	cr_expect_str_eq(kv[1].value, "node-1.example");
	cr_expect_str_eq(kv[2].key, "clock.origin_ns");
	cr_expect_str_eq(st_reader_get(r, "clock.origin_ns"), "123456789");
	cr_expect_str_eq(st_reader_get(r, "rank"), "4", "last entry wins");
	cr_expect_null(st_reader_get(r, "nope"));
	cr_expect_eq(st_reader_offset(r), mb.ends[0]);
	cr_expect_str_eq(st_reader_error(r), "");
	st_reader_close(r);
}

Test(writer_reader, records_come_back_with_stream_index)
{
	struct st_reader *r;
	struct st_event ev;
	char err[256];
	int i;

	make_small_file();
	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "t", err,
					sizeof(err)), 0, "%s", err);
	for (i = 0; i < NREC; i++) {
		cr_assert_eq(st_reader_next(r, &ev), 1, "%s",
			     st_reader_error(r));
		expect_event_eq(&ev, &evs[i], i);
		cr_expect_eq(st_reader_offset(r),
			     mb.ends[(i >= 4) + (i >= 8)]);
	}
	cr_expect_eq(st_reader_next(r, &ev), 0);
	cr_expect_eq(st_reader_next(r, &ev), 0, "end is not sticky");
	cr_expect_not(st_reader_truncated(r));
	st_reader_close(r);
}

Test(writer_reader, file_cut_at_every_byte_gives_whole_chunks)
{
	struct st_reader *r;
	struct st_event ev;
	char err[256];
	size_t cut;
	int i, c, want, rc;

	make_small_file();
	for (cut = 0; cut <= mb.len; cut++) {
		uint8_t *buf = copy_prefix(cut);

		err[0] = '\0';
		rc = st_reader_open_mem(&r, buf, cut, "cut", err, sizeof(err));
		if (cut < mb.ends[0]) {
			cr_assert_eq(rc, -EBADMSG, "cut %zu: header", cut);
			cr_assert_null(r);
			cr_assert(strstr(err, "'cut': "), "cut %zu: '%s'", cut,
				  err);
			free(buf);
			continue;
		}
		cr_assert_eq(rc, 0, "cut %zu: %s", cut, err);
		/* Every chunk that ends by the cut, nothing else. */
		want = 0;
		for (c = 1; c <= NCHUNK; c++)
			if (mb.ends[c] <= cut)
				want = upto[c];
		for (i = 0; (rc = st_reader_next(r, &ev)) == 1; i++) {
			cr_assert_lt(i, want, "cut %zu: bogus record", cut);
			expect_event_eq(&ev, &evs[i], i);
		}
		cr_assert_eq(rc, 0, "cut %zu: %s", cut, st_reader_error(r));
		cr_assert_eq(i, want, "cut %zu: %d records, want %d", cut, i,
			     want);
		for (c = 0; c <= NCHUNK && mb.ends[c] != cut; c++)
			;
		cr_assert_eq(!!st_reader_truncated(r), c > NCHUNK,
			     "cut %zu: truncated flag", cut);
		st_reader_close(r);
		free(buf);
	}
}

/* Read a damaged copy; check it fails cleanly where 'off' says. */
static void expect_damage_caught(uint8_t *buf, size_t off, const char *what)
{
	struct st_reader *r;
	struct st_event ev;
	char err[256] = "";
	int c = chunk_of(off), i, rc;
	char at[64];

	rc = st_reader_open_mem(&r, buf, mb.len, "flip", err, sizeof(err));
	if (c == 0) {
		cr_assert_eq(rc, -EBADMSG, "%s at %zu: header accepted", what,
			     off);
		cr_assert(strstr(err, "'flip': "), "%s", err);
		if (off < ST_FILE_MAGIC_LEN)
			cr_assert(strstr(err, "not a synctrace trace"), "%s",
				  err);
		else if (off < 12)
			/* 5 -> 4 is a version this reader reads */
			cr_assert(strstr(err, "unsupported trace format "
					 "version") ||
				  strstr(err, "header checksum mismatch"),
				  "%s", err);
		else
			cr_assert(strstr(err, "header"), "%s", err);
		return;
	}
	cr_assert_eq(rc, 0, "%s at %zu: %s", what, off, err);
	/* Chunks before the damaged one are intact. */
	for (i = 0; (rc = st_reader_next(r, &ev)) == 1; i++) {
		cr_assert_lt(i, upto[c - 1], "%s at %zu: bogus record", what,
			     off);
		expect_event_eq(&ev, &evs[i], i);
	}
	cr_assert_eq(rc, -EBADMSG, "%s at %zu: got %d", what, off, rc);
	cr_assert_eq(i, upto[c - 1]);
	cr_assert_eq(st_reader_offset(r), mb.ends[c - 1]);
	snprintf(at, sizeof(at), "offset %zu", mb.ends[c - 1]);
	cr_assert(strstr(st_reader_error(r), "'flip': ") &&
		  strstr(st_reader_error(r), at), "%s at %zu: '%s'", what,
		  off, st_reader_error(r));
	cr_assert_eq(st_reader_next(r, &ev), -EBADMSG, "error not sticky");
	st_reader_close(r);
}

Test(writer_reader, bit_flip_anywhere_is_caught)
{
	size_t off;
	int bit;

	make_small_file();
	for (off = 0; off < mb.len; off++)
		for (bit = 0; bit < 8; bit++) {
			uint8_t *buf = copy_prefix(mb.len);

			buf[off] ^= (uint8_t)(1 << bit);
			expect_damage_caught(buf, off, "bit flip");
			free(buf);
		}
}

Test(writer_reader, random_byte_bursts_are_caught)
{
	uint64_t seed = 4242;
	size_t off;
	int round, n, j;

	make_small_file();
	for (round = 0; round < 3000; round++) {
		uint8_t *buf = copy_prefix(mb.len);

		/* Up to 8 bytes changed, all within one chunk or header. */
		off = rng_next(&seed) % mb.len;
		n = 1 + (int)(rng_next(&seed) % 8);
		for (j = 0; j < n && off + (size_t)j < mb.ends[chunk_of(off)];
		     j++)
			buf[off + (size_t)j] ^= (uint8_t)(1 + rng_next(&seed) %
							  255);
		expect_damage_caught(buf, off, "burst");
		free(buf);
	}
}

static int open_text(const char *text, size_t len, char *err, size_t errlen)
{
	struct st_reader *r = (struct st_reader *)&r;
	uint8_t *buf = malloc(len ? len : 1);
	int rc;

	memcpy(buf, text, len);
	rc = st_reader_open_mem(&r, buf, len, "x/rank-0.st", err, errlen);
	if (rc)
		cr_expect_null(r);
	st_reader_close(r);
	free(buf);
	return rc;
}

Test(writer_reader, foreign_file_is_named_as_such)
{
	char err[256];

	cr_expect_eq(open_text("#!/bin/sh\necho hello world\n", 26, err,
			       sizeof(err)), -EBADMSG);
	cr_expect_str_eq(err, "'x/rank-0.st': not a synctrace trace "
			 "(bad magic at offset 0)");
	cr_expect_eq(open_text("\x1f\x8b", 2, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "not a synctrace trace"), "%s", err);
	cr_expect_eq(open_text("", 0, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "empty file"), "%s", err);
	/* A prefix of the magic is a cut header, not a foreign file. */
	cr_expect_eq(open_text("SYNC", 4, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "truncated file header"), "%s", err);
}

Test(writer_reader, unknown_version_is_named)
{
	char err[256], want[256];
	uint8_t *buf;
	int rc;

	cr_assert_eq(st_trace_write_header(&sink, hdr, 1), 0);
	buf = copy_prefix(mb.len);
	st_put_le32(buf + 8, 1);
	rc = open_text((char *)buf, mb.len, err, sizeof(err));
	cr_expect_eq(rc, -EBADMSG);
	snprintf(want, sizeof(want), "'x/rank-0.st': unsupported trace format "
		 "version 1 at offset 8 (this synctrace reads versions %d to "
		 "%d)", ST_FORMAT_VERSION_MIN, ST_FORMAT_VERSION);
	cr_expect_str_eq(err, want);
	free(buf);
}

/*
 * Append a chunk numbered 'seq' with correct checksums around whatever
 * it says.
 */
static void put_chunk_seq(uint16_t stream, unsigned method, uint32_t raw_len,
			  const void *payload, uint32_t len, uint32_t count,
			  uint32_t seq)
{
	uint8_t h[ST_CHUNK_HDR_LEN];

	memcpy(h, ST_CHUNK_MAGIC, 4);
	st_put_le16(h + 4, stream);
	h[6] = (uint8_t)method;
	h[7] = 0;
	st_put_le32(h + 8, raw_len);
	st_put_le32(h + 12, len);
	st_put_le32(h + 16, count);
	st_put_le32(h + 20, seq);
	st_put_le32(h + 24, (uint32_t)crc32(0, payload, len));
	st_put_le32(h + 28, (uint32_t)crc32(0, h, 28));
	membuf_write(&mb, h, sizeof(h));
	membuf_write(&mb, payload, len);
}

/* The same for a stream's first chunk. */
static void put_chunk(uint16_t stream, unsigned method, uint32_t raw_len,
		      const void *payload, uint32_t len, uint32_t count)
{
	put_chunk_seq(stream, method, raw_len, payload, len, count, 0);
}

/* Open the membuf, read to the end; return the last rc. */
static int read_all(int *nrec, char *err, size_t errlen)
{
	struct st_reader *r;
	struct st_event ev;
	int rc;

	rc = st_reader_open_mem(&r, mb.buf, mb.len, "c", err, errlen);
	cr_assert_eq(rc, 0, "%s", err);
	*nrec = 0;
	while ((rc = st_reader_next(r, &ev)) == 1)
		(*nrec)++;
	snprintf(err, errlen, "%s", st_reader_error(r));
	st_reader_close(r);
	return rc;
}

Test(writer_reader, checksummed_nonsense_is_refused)
{
	/*
	 * A CALL record of fn 0 and site 0, as a chunk's first record is
	 * predicted to be: tag, gap 2, duration 67 (two bytes).
	 */
	static const uint8_t rec[] = { 0x00, 0x04, 0x86, 0x01 };
	uint8_t two[8], z[64];
	uLongf zlen = sizeof(z);
	char err[256];
	size_t base;
	int n;

	cr_assert_eq(st_trace_write_header(&sink, hdr, 1), 0);
	base = mb.len;
	put_chunk(0, ST_CHUNK_STORED, sizeof(rec), rec, sizeof(rec), 1);
	cr_assert_eq(read_all(&n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n, 1, "the well-formed chunk is not read");

	/* A raw length over the cap: refused before any allocation. */
	mb.len = base;
	put_chunk(0, ST_CHUNK_DEFLATE, ST_CHUNK_MAX_RAW + 1, rec, 4, 1);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "impossible chunk lengths"), "%s", err);

	/* Stored length differs from raw length. */
	mb.len = base;
	put_chunk(0, ST_CHUNK_STORED, 3, rec, 4, 1);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);

	/* More records than bytes. */
	mb.len = base;
	put_chunk(0, ST_CHUNK_STORED, 4, rec, 4, 5);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);

	/* Fewer records than the count says. */
	mb.len = base;
	put_chunk(0, ST_CHUNK_STORED, 4, rec, 4, 2);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "corrupt record 2 of 2"), "%s", err);

	/* Bytes after the last record. */
	memcpy(two, rec, 4);
	memcpy(two + 4, rec, 4);
	mb.len = base;
	put_chunk(0, ST_CHUNK_STORED, 8, two, 8, 1);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "stray bytes"), "%s", err);

	/* Unknown method. */
	mb.len = base;
	put_chunk(0, 7, 4, rec, 4, 1);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "unknown chunk method"), "%s", err);

	/* A deflated payload shorter than its raw length claims. */
	cr_assert_eq(compress(z, &zlen, rec, sizeof(rec)), Z_OK);
	mb.len = base;
	put_chunk(0, ST_CHUNK_DEFLATE, 8, z, (uint32_t)zlen, 2);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "does not inflate"), "%s", err);

	/* Not zlib at all. */
	mb.len = base;
	put_chunk(0, ST_CHUNK_DEFLATE, 8, two, 8, 2);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
}

/* Make the file header in the membuf say 'version', checksum and all. */
static void set_file_version(uint32_t version)
{
	uint32_t tlen = st_get_le32(mb.buf + 12), crc;

	st_put_le32(mb.buf + 8, version);
	crc = (uint32_t)crc32(0, mb.buf + 8, 8);
	crc = (uint32_t)crc32(crc, mb.buf + ST_FILE_HDR_LEN, (uInt)tlen);
	st_put_le32(mb.buf + 16, crc);
}

/*
 * A chunk of 'method', whose payload 'h' ('hlen' bytes) codes one record,
 * reads as its record in a file of 'version', is an unknown method in
 * one of the version before, and one whose payload does not decode to
 * its raw length, or is longer than any coding of its raw length
 * ('big', 'blen' bytes for a raw length of 1), is refused.
 */
static void coded_chunks_read(int method, const uint8_t *h, size_t hlen,
			      const uint8_t *big, size_t blen,
			      uint32_t version)
{
	static const uint8_t rec[] = { 0x00, 0x04, 0x86, 0x01 };
	char err[256], unknown[64];
	size_t base;
	int n;

	cr_assert_gt(hlen, 0);
	cr_assert_eq(st_trace_write_header(&sink, hdr, 1), 0);
	base = mb.len;
	put_chunk(0, method, sizeof(rec), h, (uint32_t)hlen, 1);
	cr_assert_eq(read_all(&n, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(n, 1);

	/* Its raw length one more than it decodes to. */
	mb.len = base;
	put_chunk(0, method, sizeof(rec) + 1, h, (uint32_t)hlen, 1);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "does not decode"), "%s", err);

	/* Longer than any coding of its raw length. */
	mb.len = base;
	put_chunk(0, method, 1, big, (uint32_t)blen, 1);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	cr_expect(strstr(err, "impossible chunk lengths"), "%s", err);

	mb.len = base;
	put_chunk(0, method, sizeof(rec), h, (uint32_t)hlen, 1);
	set_file_version(version - 1);
	cr_expect_eq(read_all(&n, err, sizeof(err)), -EBADMSG);
	snprintf(unknown, sizeof(unknown), "unknown chunk method %d", method);
	cr_expect(strstr(err, unknown), "%s", err);
	set_file_version(version);
	cr_expect_eq(read_all(&n, err, sizeof(err)), 0, "%s", err);
}

/* Huffman-coded chunks (writer/huff.h), from version 10 on. */
Test(writer_reader, huffman_chunks_read_from_version_10_on)
{
	static const uint8_t rec[] = { 0x00, 0x04, 0x86, 0x01 };
	static uint8_t h[ST_HUFF_BOUND(sizeof(rec))], big[ST_HUFF_BOUND(1) + 1];

	coded_chunks_read(ST_CHUNK_HUFF, h,
			  st_huff_encode(rec, sizeof(rec), h, sizeof(h)), big,
			  sizeof(big), 10);
}

/* Context-coded chunks (writer/huff.h), from version 12 on. */
Test(writer_reader, context_coded_chunks_read_from_version_12_on)
{
	static const uint8_t rec[] = { 0x00, 0x04, 0x86, 0x01 };
	static uint8_t h[ST_HUFF_CTX_BOUND(sizeof(rec))],
		big[ST_HUFF_CTX_BOUND(1) + 1];

	coded_chunks_read(ST_CHUNK_HUFF_CTX, h,
			  st_huff_ctx_encode(rec, sizeof(rec), h, sizeof(h)),
			  big, sizeof(big), 12);
}

Test(writer_reader, short_tail_is_truncation_only_if_it_looks_like_one)
{
	struct st_reader *r;
	struct st_event ev;
	char err[256];
	size_t whole;
	int n = 0, rc;

	make_small_file();
	whole = mb.len;
	/* The start of a chunk header: a cut chunk. */
	membuf_write(&mb, "STC", 3);
	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "t", err,
					sizeof(err)), 0, "%s", err);
	while ((rc = st_reader_next(r, &ev)) == 1)
		n++;
	cr_expect_eq(rc, 0);
	cr_expect_eq(n, NREC);
	cr_expect(st_reader_truncated(r));
	st_reader_close(r);

	/* Anything else: corrupt. */
	mb.len = whole;
	membuf_write(&mb, "junk", 4);
	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "t", err,
					sizeof(err)), 0, "%s", err);
	n = 0;
	while ((rc = st_reader_next(r, &ev)) == 1)
		n++;
	cr_expect_eq(rc, -EBADMSG);
	cr_expect_eq(n, NREC);
	cr_expect(strstr(st_reader_error(r), "bad chunk magic"), "%s",
		  st_reader_error(r));
	cr_expect_not(st_reader_truncated(r));
	st_reader_close(r);
}

static void put_file_header(const char *text)
{
	uint8_t h[ST_FILE_HDR_LEN];
	size_t len = strlen(text);
	uint32_t crc;

	memcpy(h, ST_FILE_MAGIC, ST_FILE_MAGIC_LEN);
	st_put_le32(h + 8, ST_FORMAT_VERSION);
	st_put_le32(h + 12, (uint32_t)len);
	crc = (uint32_t)crc32(0, h + 8, 8);
	crc = (uint32_t)crc32(crc, (const uint8_t *)text, (uInt)len);
	st_put_le32(h + 16, crc);
	membuf_write(&mb, h, sizeof(h));
	membuf_write(&mb, text, len);
}

Test(writer_reader, checksummed_bad_header_text_is_refused)
{
	static const char *bad[] = {
		"novalue\n", "Upper=1\n", "=empty\n", "a=1\nb=2",
		"a b=1\n", "ok=1\n\n",
	};
	struct st_reader *r;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mb.len = 0;
		put_file_header(bad[i]);
		cr_expect_eq(st_reader_open_mem(&r, mb.buf, mb.len, "h", err,
						sizeof(err)), -EBADMSG,
			     "accepted %s", bad[i]);
		cr_expect(strstr(err, "'h': "), "%s", err);
	}
	mb.len = 0;
	put_file_header("");
	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "h", err,
					sizeof(err)), 0, "%s", err);
	st_reader_close(r);
	mb.len = 0;
	put_file_header("a=x=y\n");
	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "h", err,
					sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(st_reader_get(r, "a"), "x=y");
	st_reader_close(r);
}

Test(writer_reader, file_reader_reads_what_memory_reader_reads)
{
	char dir[] = "/tmp/st-reader-XXXXXX", path[64];
	struct st_reader *r;
	struct st_event ev;
	char err[256];
	int fd, i, rc;

	make_small_file();
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rank-0.st", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(st_sink_fd_write((void *)(intptr_t)fd, mb.buf, mb.len),
		     0);
	/* Cut inside the last chunk, as a killed writer leaves it. */
	cr_assert_eq(ftruncate(fd, (off_t)mb.ends[NCHUNK] - 3), 0);
	close(fd);

	cr_assert_eq(st_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(st_reader_get(r, "host"), "node-1.example");
	for (i = 0; (rc = st_reader_next(r, &ev)) == 1; i++)
		expect_event_eq(&ev, &evs[i], i);
	cr_expect_eq(rc, 0, "%s", st_reader_error(r));
	cr_expect_eq(i, upto[NCHUNK - 1]);
	cr_expect(st_reader_truncated(r));
	cr_expect_eq(st_reader_offset(r), mb.ends[NCHUNK - 1]);
	st_reader_close(r);
	unlink(path);
	rmdir(dir);
}

Test(writer_reader, open_names_missing_file_and_directory)
{
	struct st_reader *r;
	char err[256];

	cr_expect_eq(st_reader_open(&r, "/nonexistent/rank-0.st", err,
				    sizeof(err)), -ENOENT);
	cr_expect_null(r);
	cr_expect(strstr(err, "'/nonexistent/rank-0.st': ") &&
		  strstr(err, "No such file"), "%s", err);
	cr_expect_eq(st_reader_open(&r, "/tmp", err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "not a regular file"), "%s", err);
	/* A NULL or zero-length message buffer is fine. */
	cr_expect_eq(st_reader_open(&r, "/nonexistent", NULL, 0), -ENOENT);
}

/*
 * Chunk order.  A file of two streams, chunks a0 b0 a1 a2 b1 a3 (stream
 * a = 0, b = 1), two records each, rearranged: every chunk deleted,
 * every two chunks swapped, every chunk repeated at every place after
 * it.  A rearrangement that keeps each stream's chunks a prefix of
 * theirs in order (a stream's last chunks deleted, as when its writer
 * was killed, or chunks of different streams swapped, which interleave
 * in any order anyway) reads whole; every other is caught.
 */
enum { ORDER_N = 6 };
static const int order_stream[ORDER_N] = { 0, 1, 0, 0, 1, 0 };

static void make_order_file(void)
{
	struct st_stream *s[2];
	struct st_event ev;
	uint64_t seed = 99;
	char text[40];
	int i, j;

	cr_assert_eq(st_trace_write_header(&sink, hdr, 4), 0);
	cr_assert_eq(st_stream_new(&s[0], &sink, 0, ST_STREAM_MIN_BUF, 6), 0);
	cr_assert_eq(st_stream_new(&s[1], &sink, 1, ST_STREAM_MIN_BUF, 6), 0);
	for (i = 0; i < ORDER_N; i++) {
		for (j = 0; j < 2; j++) {
			make_event(&ev, ST_REC_CALL, &seed, text,
				   sizeof(text));
			cr_assert_eq(st_stream_append(s[order_stream[i]], &ev),
				     0);
		}
		cr_assert_eq(st_stream_flush(s[order_stream[i]]), 0);
	}
	st_stream_free(s[0]);
	st_stream_free(s[1]);
	cr_assert_eq(mb.nwrites, 1 + ORDER_N);
}

/* Read the chunks 'pick[0..n-1]' of the order file; 1 if caught. */
static int order_caught(const int *pick, int n, int *nrec, char *err,
			size_t errlen)
{
	struct st_reader *r;
	struct st_event ev;
	uint8_t *buf = malloc(mb.len * 2);
	size_t len = mb.ends[0];
	int i, rc;

	cr_assert(buf);
	memcpy(buf, mb.buf, mb.ends[0]);
	for (i = 0; i < n; i++) {
		size_t from = mb.ends[pick[i]], to = mb.ends[pick[i] + 1];

		memcpy(buf + len, mb.buf + from, to - from);
		len += to - from;
	}
	cr_assert_eq(st_reader_open_mem(&r, buf, len, "o", err, errlen), 0);
	*nrec = 0;
	while ((rc = st_reader_next(r, &ev)) == 1)
		(*nrec)++;
	snprintf(err, errlen, "%s", st_reader_error(r));
	cr_assert(rc == 0 || rc == -EBADMSG);
	cr_assert(!rc || strstr(err, "out of order"), "%s", err);
	st_reader_close(r);
	free(buf);
	return rc != 0;
}

/* Each stream's chunks, in 'pick', are its first ones in order. */
static int order_is_prefix(const int *pick, int n)
{
	int next[2] = { 0, 0 }, i, k, c;

	for (i = 0; i < n; i++) {
		/* pick[i] is chunk c of its stream */
		for (c = 0, k = 0; k < pick[i]; k++)
			c += order_stream[k] == order_stream[pick[i]];
		if (c != next[order_stream[pick[i]]]++)
			return 0;
	}
	return 1;
}

static void expect_order(const int *pick, int n, int *caught, int *cases)
{
	char err[256];
	int nrec, got = order_caught(pick, n, &nrec, err, sizeof(err));

	if (order_is_prefix(pick, n)) {
		cr_expect_not(got, "whole streams refused: %s", err);
		cr_expect_eq(nrec, 2 * n);
		return;
	}
	cr_expect(got, "chunks rearranged unnoticed (%d records)", nrec);
	*caught += got;
	(*cases)++;
}

Test(writer_reader, chunks_deleted_swapped_or_repeated_are_caught)
{
	int pick[ORDER_N + 1], i, j, k, n, caught = 0, cases = 0;

	make_order_file();
	for (i = 0; i < ORDER_N; i++)
		pick[i] = i;
	expect_order(pick, ORDER_N, &caught, &cases);
	/* Deleted. */
	for (i = 0; i < ORDER_N; i++) {
		for (j = 0, n = 0; j < ORDER_N; j++)
			if (j != i)
				pick[n++] = j;
		expect_order(pick, n, &caught, &cases);
	}
	/* Swapped. */
	for (i = 0; i < ORDER_N; i++)
		for (j = i + 1; j < ORDER_N; j++) {
			for (k = 0; k < ORDER_N; k++)
				pick[k] = k == i ? j : k == j ? i : k;
			expect_order(pick, ORDER_N, &caught, &cases);
		}
	/* Chunk i repeated after chunk j. */
	for (i = 0; i < ORDER_N; i++)
		for (j = i; j < ORDER_N; j++) {
			for (k = 0, n = 0; k < ORDER_N; k++) {
				pick[n++] = k;
				if (k == j)
					pick[n++] = i;
			}
			expect_order(pick, n, &caught, &cases);
		}
	cr_expect_eq(caught, cases);
	/*
	 * 4 deletions (not a stream's last chunk), 11 swaps (7 within a
	 * stream, 4 that move a chunk past one of its own stream) and 21
	 * repeats.
	 */
	cr_expect_eq(cases, 36);
}

Test(writer_reader, chunk_order_error_names_the_chunks)
{
	static const int gap[] = { 0, 1, 5 }, again[] = { 0, 2, 2 };
	char err[256];
	int nrec;

	make_order_file();
	cr_expect(order_caught(gap, 3, &nrec, err, sizeof(err)));
	cr_expect_eq(nrec, 4);
	cr_expect(strstr(err, "is chunk 3 of stream 0: chunks 1 to 2 are "
			 "missing or out of order"), "%s", err);
	cr_expect(order_caught(again, 3, &nrec, err, sizeof(err)));
	cr_expect_eq(nrec, 4);
	cr_expect(strstr(err, "is chunk 1 of stream 0 again or out of "
			 "order (chunk 2 was next)"), "%s", err);
}

/*
 * Version 4 files, whose chunk headers had no sequence number, still
 * read: the small file, its records coded by the rules of versions 4 to
 * 10, rewritten as version 4 gives every record (its start record
 * follows a call record with other timestamps).
 */
Test(writer_reader, version_4_files_still_read)
{
	struct st_reader *r;
	struct st_event ev;
	uint8_t *v4, *h;
	size_t len, c, hlen;
	uint32_t crc;
	char err[256];
	int i, rc;

	make_file(1);
	v4 = malloc(mb.len);
	cr_assert(v4);
	memcpy(v4, mb.buf, mb.ends[0]);
	st_put_le32(v4 + 8, 4);
	hlen = mb.ends[0] - ST_FILE_HDR_LEN;
	crc = (uint32_t)crc32(0, v4 + 8, 8);
	crc = (uint32_t)crc32(crc, v4 + ST_FILE_HDR_LEN, (uInt)hlen);
	st_put_le32(v4 + 16, crc);
	len = mb.ends[0];
	for (c = 1; c <= NCHUNK; c++) {
		h = mb.buf + mb.ends[c - 1];
		memcpy(v4 + len, h, 20);
		memcpy(v4 + len + 20, h + 24, 4);	/* payload CRC */
		st_put_le32(v4 + len + 24, (uint32_t)crc32(0, v4 + len, 24));
		memcpy(v4 + len + 28, h + ST_CHUNK_HDR_LEN,
		       mb.ends[c] - mb.ends[c - 1] - ST_CHUNK_HDR_LEN);
		len += mb.ends[c] - mb.ends[c - 1] - 4;
	}
	cr_assert_eq(st_reader_open_mem(&r, v4, len, "v4", err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(st_reader_version(r), 4);
	for (i = 0; (rc = st_reader_next(r, &ev)) == 1; i++)
		expect_event_eq(&ev, &evs[i], i);
	cr_expect_eq(rc, 0, "%s", st_reader_error(r));
	cr_expect_eq(i, NREC);
	st_reader_close(r);
	free(v4);
}

/* With the tools' function count, an id beyond it is corrupt data. */
Test(writer_reader, function_id_beyond_the_table_is_corrupt)
{
	struct st_stream *s;
	struct st_reader *r;
	struct st_event ev[3], got;
	char err[256];
	int i, n, rc;

	cr_assert_eq(st_trace_write_header(&sink, hdr, 1), 0);
	cr_assert_eq(st_stream_new(&s, &sink, 0, ST_STREAM_MIN_BUF, 6), 0);
	for (i = 0; i < 3; i++) {
		make_allreduce(&ev[i]);
		ev[i].fn = i == 2 ? 65535 : 3;
		ev[i].seq = (uint64_t)i + 1;
		cr_assert_eq(st_stream_append(s, &ev[i]), 0);
	}
	cr_assert_eq(st_stream_flush(s), 0);
	st_stream_free(s);

	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "f", err,
					sizeof(err)), 0);
	for (n = 0; (rc = st_reader_next(r, &got)) == 1; n++)
		;
	cr_expect_eq(rc, 0, "without a count any id reads");
	cr_expect_eq(n, 3);
	st_reader_close(r);

	cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "f", err,
					sizeof(err)), 0);
	st_reader_set_fn_count(r, 100);
	for (n = 0; (rc = st_reader_next(r, &got)) == 1; n++)
		;
	cr_expect_eq(rc, -EBADMSG);
	cr_expect_eq(n, 2);
	cr_expect(strstr(st_reader_error(r), "unknown function id 65535 in "
			 "record 3 of 3 in chunk at offset"), "%s",
		  st_reader_error(r));
	st_reader_close(r);
}

/*
 * Files of versions 4 to 8 read as before: there, a tag whose low five
 * bits are those of a loop run's (format 9) is a start record without
 * timestamps, its fn and site those its predecessor predicts.  The
 * same chunk in a version 9 file is a loop run whose member's
 * timestamps are missing: corrupt.
 */
Test(writer_reader, version_8_files_read_loop_tags_as_before)
{
	/* Start record, untimed, fn 5 and site 0 spelled out; again. */
	static const uint8_t recs[] = {
		(ST_REC_START - 1) | ST_TAG_NOTIME | ST_TAG_FN, 5, 0,
		ST_TAG_LOOP,
	};
	struct st_reader *r;
	struct st_event ev;
	uint8_t h[ST_FILE_HDR_LEN];
	char err[256];
	unsigned version;
	int i, rc;

	for (version = 8; version <= 9; version++) {
		mb.len = 0;
		memcpy(h, ST_FILE_MAGIC, ST_FILE_MAGIC_LEN);
		st_put_le32(h + 8, version);
		st_put_le32(h + 12, 0);
		st_put_le32(h + 16, (uint32_t)crc32(0, h + 8, 8));
		membuf_write(&mb, h, sizeof(h));
		put_chunk(0, ST_CHUNK_STORED, sizeof(recs), recs, sizeof(recs),
			  2);
		cr_assert_eq(st_reader_open_mem(&r, mb.buf, mb.len, "v", err,
						sizeof(err)), 0, "%s", err);
		for (i = 0; (rc = st_reader_next(r, &ev)) == 1; i++) {
			cr_expect_eq(ev.kind, ST_REC_START);
			cr_expect_eq(ev.fn, 5);
			cr_expect_eq(ev.site, 0);
			cr_expect_eq(ev.t0 | ev.t1, 0);
		}
		if (version == 8) {
			cr_expect_eq(rc, 0, "%s", st_reader_error(r));
			cr_expect_eq(i, 2);
		} else {
			cr_expect_eq(rc, -EBADMSG);
			cr_expect_eq(i, 1);
			cr_expect(strstr(st_reader_error(r),
					 "corrupt record 2 of 2"), "%s",
				  st_reader_error(r));
		}
		st_reader_close(r);
	}
}
