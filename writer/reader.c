/*
 * writer/reader.c: reading one rank's trace file (writer/format.h).  The
 * input is untrusted: every length is checked against the format's caps
 * and against the bytes that are really there before anything is
 * allocated or read, and each chunk's checksums are verified before any
 * of its records is decoded.  Each stream's chunks must come with the
 * sequence numbers 0, 1, 2...: one deleted, repeated or moved breaks the
 * count.  A file is read chunk by chunk with pread(),
 * so memory is bounded by the largest chunk, not by the file; a file
 * given in memory is decoded in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "writer/encode.h"
#include "writer/event.h"
#include "writer/format.h"
#include "writer/huff.h"
#include "writer/reader.h"
#include "writer/writer.h"

/* A short read: the file shrank under us, which reads as truncation. */
#define SHORT_READ 1

struct st_reader {
	char *name;
	int fd;			/* -1 when reading from 'mem' */
	const uint8_t *mem;
	uint64_t size;		/* bytes in the file */
	unsigned version;
	char *text;		/* header text, split into 'kv' */
	struct st_kv *kv;
	size_t nkv;

	uint64_t off;		/* offset of the chunk being decoded */
	uint64_t next_off;	/* offset of the next chunk */
	const uint8_t *p, *end;	/* records not yet decoded */
	uint32_t left;		/* records left in the chunk */
	uint32_t count;		/* records in the chunk */
	uint16_t stream;	/* the chunk's stream index */
	int state;		/* 0, 1 at the end, or a sticky error */
	int truncated;
	size_t hdr_len;		/* of a chunk header in this version */
	uint32_t fn_count;	/* function ids are below this; 0: any */

	/* the sequence number of stream i's next chunk; [nseq], 0 beyond */
	uint32_t *next_seq;
	size_t nseq;

	uint8_t *cbuf;		/* deflated payload read from 'fd' */
	size_t cbuf_cap;
	uint8_t *rbuf;		/* records */
	size_t rbuf_cap;
	int z_ready;
	z_stream z;

	char err[512];
	struct st_codec codec;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct st_reader *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "'%s': ", r->name);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	r->state = rc;
	return rc;
}

/* Make '*buf' hold at least 'need' bytes; its contents are not kept. */
static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;

	if (need <= *cap)
		return 0;
	p = malloc(need);
	if (!p)
		return -ENOMEM;
	free(*buf);
	*buf = p;
	*cap = need;
	return 0;
}

/*
 * Point '*out' at 'len' bytes of the file at 'off', which the caller has
 * checked lie within the file: in place for a file in memory, else read
 * into 'dst'.  Returns 0, SHORT_READ or a negative errno.
 */
static int src_get(struct st_reader *r, uint64_t off, size_t len,
		   uint8_t *dst, const uint8_t **out)
{
	size_t done = 0;
	ssize_t n;

	if (!r->mem) {
		while (done < len) {
			n = pread(r->fd, dst + done, len - done,
				  (off_t)(off + done));
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (!n)
				return SHORT_READ;
			done += (size_t)n;
		}
		*out = dst;
	} else {
		*out = r->mem + off;
	}
	return 0;
}

static int read_error(struct st_reader *r, int rc, uint64_t off)
{
	return fail(r, rc, "cannot read at offset %llu: %s",
		    (unsigned long long)off, strerror(-rc));
}

static int parse_header_text(struct st_reader *r, const uint8_t *text,
			     size_t len)
{
	size_t i, n = 0, klen;
	char *line, *nl, *eq;

	r->text = malloc(len + 1);
	if (!r->text)
		return fail(r, -ENOMEM, "out of memory");
	memcpy(r->text, text, len);
	r->text[len] = '\0';
	for (i = 0; i < len; i++)
		n += r->text[i] == '\n';
	r->kv = calloc(n ? n : 1, sizeof(*r->kv));
	if (!r->kv)
		return fail(r, -ENOMEM, "out of memory");
	if (len && r->text[len - 1] != '\n')
		return fail(r, -EBADMSG,
			    "header text does not end with a newline "
			    "at offset %llu",
			    (unsigned long long)(ST_FILE_HDR_LEN + len - 1));
	for (line = r->text; line < r->text + len; line = nl + 1) {
		/* The text ends with a newline, so every line has one. */
		nl = memchr(line, '\n', (size_t)(r->text + len - line));
		eq = memchr(line, '=', (size_t)(nl - line));
		klen = eq ? (size_t)(eq - line) : 0;
		if (!eq || !st_header_key_ok(line, klen) ||
		    memchr(eq, '\0', (size_t)(nl - eq)))
			return fail(r, -EBADMSG,
				    "bad header entry at offset %llu",
				    (unsigned long long)(ST_FILE_HDR_LEN +
							 (line - r->text)));
		*eq = '\0';
		*nl = '\0';
		r->kv[r->nkv].key = line;
		r->kv[r->nkv].value = eq + 1;
		r->nkv++;
	}
	return 0;
}

static int read_header(struct st_reader *r)
{
	uint8_t fixed[ST_FILE_HDR_LEN];
	const uint8_t *h, *text;
	size_t have = r->size < ST_FILE_HDR_LEN ? (size_t)r->size
						: ST_FILE_HDR_LEN;
	uint32_t len, crc;
	int rc;

	if (!r->size)
		return fail(r, -EBADMSG,
			    "not a synctrace trace (empty file)");
	rc = src_get(r, 0, have, fixed, &h);
	if (rc == SHORT_READ)
		return fail(r, -EBADMSG, "truncated file header");
	if (rc)
		return read_error(r, rc, 0);
	if (memcmp(h, ST_FILE_MAGIC,
		   have < ST_FILE_MAGIC_LEN ? have : ST_FILE_MAGIC_LEN))
		return fail(r, -EBADMSG,
			    "not a synctrace trace (bad magic at offset 0)");
	if (have < 12)
		return fail(r, -EBADMSG,
			    "truncated file header (%zu bytes)", have);
	r->version = st_get_le32(h + 8);
	if (r->version < ST_FORMAT_VERSION_MIN ||
	    r->version > ST_FORMAT_VERSION)
		return fail(r, -EBADMSG,
			    "unsupported trace format version %u at offset 8 "
			    "(this synctrace reads versions %u to %u)",
			    r->version, ST_FORMAT_VERSION_MIN,
			    ST_FORMAT_VERSION);
	r->hdr_len = r->version >= 5 ? ST_CHUNK_HDR_LEN : ST_CHUNK_HDR_LEN_V4;
	r->codec.v6 = r->version < 8;
	r->codec.loops = r->version >= 9;
	r->codec.starts = r->version >= 11;
	if (have < ST_FILE_HDR_LEN)
		return fail(r, -EBADMSG,
			    "truncated file header (%zu bytes)", have);
	len = st_get_le32(h + 12);
	if (len > ST_HEADER_MAX_TEXT)
		return fail(r, -EBADMSG,
			    "bad header length %u at offset 12", len);
	if (len > r->size - ST_FILE_HDR_LEN)
		return fail(r, -EBADMSG,
			    "truncated file header (%llu of %u text bytes)",
			    (unsigned long long)(r->size - ST_FILE_HDR_LEN),
			    len);
	crc = (uint32_t)crc32(0, h + 8, 8);
	if (grow(&r->rbuf, &r->rbuf_cap, len ? len : 1))
		return fail(r, -ENOMEM, "out of memory");
	rc = src_get(r, ST_FILE_HDR_LEN, len, r->rbuf, &text);
	if (rc == SHORT_READ)
		return fail(r, -EBADMSG, "truncated file header");
	if (rc)
		return read_error(r, rc, ST_FILE_HDR_LEN);
	crc = (uint32_t)crc32(crc, text, len);
	if (crc != st_get_le32(h + 16))
		return fail(r, -EBADMSG,
			    "header checksum mismatch at offset 16");
	rc = parse_header_text(r, text, len);
	if (rc)
		return rc;
	r->off = r->next_off = ST_FILE_HDR_LEN + (uint64_t)len;
	return 0;
}

static int new_reader(struct st_reader **out, const char *name)
{
	struct st_reader *r = calloc(1, sizeof(*r));

	*out = r;
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->name = strdup(name);
	if (!r->name)
		return -ENOMEM;
	st_codec_init(&r->codec);
	return 0;
}

/* Finish an open: on failure copy the message out and free 'r'. */
static int open_done(struct st_reader **out, struct st_reader *r, int rc,
		     const char *name, char *err, size_t errlen)
{
	if (!rc) {
		*out = r;
		return 0;
	}
	if (err && errlen) {
		if (r && r->err[0])
			snprintf(err, errlen, "%s", r->err);
		else
			snprintf(err, errlen, "'%s': %s", name,
				 strerror(-rc));
	}
	st_reader_close(r);
	*out = NULL;
	return rc;
}

int st_reader_open(struct st_reader **out, const char *path, char *err,
		   size_t errlen)
{
	struct st_reader *r;
	struct stat st;
	int rc;

	rc = new_reader(&r, path);
	if (rc)
		return open_done(out, r, rc, path, err, errlen);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		rc = fail(r, -errno, "cannot open: %s", strerror(errno));
	else if (fstat(r->fd, &st))
		rc = fail(r, -errno, "cannot stat: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = fail(r, -EINVAL, "not a regular file");
	else {
		r->size = (uint64_t)st.st_size;
		rc = read_header(r);
	}
	return open_done(out, r, rc, path, err, errlen);
}

int st_reader_open_mem(struct st_reader **out, const void *buf, size_t len,
		       const char *name, char *err, size_t errlen)
{
	static const uint8_t empty[1];
	struct st_reader *r;
	int rc;

	if (!name)
		name = "(memory)";
	rc = new_reader(&r, name);
	if (!rc) {
		r->mem = buf ? buf : empty;
		r->size = buf ? len : 0;
		rc = read_header(r);
	}
	return open_done(out, r, rc, name, err, errlen);
}

unsigned st_reader_version(const struct st_reader *r)
{
	return r->version;
}

const struct st_kv *st_reader_header(const struct st_reader *r, size_t *n)
{
	*n = r->nkv;
	return r->kv;
}

const char *st_reader_get(const struct st_reader *r, const char *key)
{
	size_t i;

	/* The last entry of a key wins. */
	for (i = r->nkv; i--;)
		if (!strcmp(r->kv[i].key, key))
			return r->kv[i].value;
	return NULL;
}

static int inflate_chunk(struct st_reader *r, const uint8_t *in, size_t len,
			 size_t raw_len)
{
	int zrc;

	if (!r->z_ready) {
		if (inflateInit(&r->z) != Z_OK)
			return fail(r, -ENOMEM, "out of memory");
		r->z_ready = 1;
	} else if (inflateReset(&r->z) != Z_OK) {
		return fail(r, -EIO, "cannot reset zlib");
	}
	r->z.next_in = (Bytef *)in;
	r->z.avail_in = (uInt)len;
	r->z.next_out = r->rbuf;
	r->z.avail_out = (uInt)raw_len;
	zrc = inflate(&r->z, Z_FINISH);
	if (zrc == Z_MEM_ERROR)
		return fail(r, -ENOMEM, "out of memory");
	if (zrc != Z_STREAM_END || r->z.avail_in || r->z.avail_out)
		return fail(r, -EBADMSG,
			    "chunk at offset %llu does not inflate to its "
			    "length", (unsigned long long)r->off);
	return 0;
}

/*
 * Check that the chunk at r->off, of stream 'stream', is numbered 'seq':
 * the number after that of its stream's previous chunk.
 */
static int check_seq(struct st_reader *r, uint16_t stream, uint32_t seq)
{
	uint32_t *p, want;
	size_t n;

	if (stream >= r->nseq) {
		n = (size_t)stream + 1;
		n = n < 16 ? 16 : n > 65536 / 2 ? 65536 : 2 * n;
		p = realloc(r->next_seq, n * sizeof(*p));
		if (!p)
			return fail(r, -ENOMEM, "out of memory");
		memset(p + r->nseq, 0, (n - r->nseq) * sizeof(*p));
		r->next_seq = p;
		r->nseq = n;
	}
	want = r->next_seq[stream];
	if (seq == want) {
		r->next_seq[stream] = seq + 1;
		return 0;
	}
	if (seq < want)
		return fail(r, -EBADMSG,
			    "chunk at offset %llu is chunk %u of stream %u "
			    "again or out of order (chunk %u was next)",
			    (unsigned long long)r->off, seq, stream, want);
	if (seq - want == 1)
		return fail(r, -EBADMSG,
			    "chunk at offset %llu is chunk %u of stream %u: "
			    "chunk %u is missing or out of order",
			    (unsigned long long)r->off, seq, stream, want);
	return fail(r, -EBADMSG,
		    "chunk at offset %llu is chunk %u of stream %u: "
		    "chunks %u to %u are missing or out of order",
		    (unsigned long long)r->off, seq, stream, want, seq - 1);
}

/*
 * Load the chunk at r->next_off.  Returns 1, 0 at the end of the file
 * (r->truncated set if it ends inside a chunk) or a negative errno.
 */
static int load_chunk(struct st_reader *r)
{
	uint8_t hbuf[ST_CHUNK_HDR_LEN];
	const uint8_t *h, *payload;
	uint64_t off = r->next_off, avail = r->size - off;
	size_t hlen = r->hdr_len, crc_at = hlen - 8;
	uint32_t raw_len, len, count;
	unsigned method;
	int rc;

	if (!avail)
		return 0;
	r->off = off;
	if (avail < hlen) {
		rc = src_get(r, off, (size_t)avail, hbuf, &h);
		if (rc < 0)
			return read_error(r, rc, off);
		if (!rc && memcmp(h, ST_CHUNK_MAGIC,
				  avail < ST_CHUNK_MAGIC_LEN ?
				  (size_t)avail : ST_CHUNK_MAGIC_LEN))
			return fail(r, -EBADMSG,
				    "bad chunk magic at offset %llu",
				    (unsigned long long)off);
		r->truncated = 1;
		return 0;
	}
	rc = src_get(r, off, hlen, hbuf, &h);
	if (rc == SHORT_READ) {
		r->truncated = 1;
		return 0;
	}
	if (rc)
		return read_error(r, rc, off);
	if (memcmp(h, ST_CHUNK_MAGIC, ST_CHUNK_MAGIC_LEN))
		return fail(r, -EBADMSG, "bad chunk magic at offset %llu",
			    (unsigned long long)off);
	if ((uint32_t)crc32(0, h, (uInt)crc_at + 4) !=
	    st_get_le32(h + crc_at + 4))
		return fail(r, -EBADMSG,
			    "chunk header checksum mismatch at offset %llu",
			    (unsigned long long)off);
	method = h[6];
	raw_len = st_get_le32(h + 8);
	len = st_get_le32(h + 12);
	count = st_get_le32(h + 16);
	if ((method != ST_CHUNK_STORED && method != ST_CHUNK_DEFLATE &&
	     (method != ST_CHUNK_HUFF || r->version < 10) &&
	     (method != ST_CHUNK_HUFF_CTX || r->version < 12)) ||
	    h[7])
		return fail(r, -EBADMSG,
			    "unknown chunk method %u at offset %llu", method,
			    (unsigned long long)off);
	if (!raw_len || raw_len > ST_CHUNK_MAX_RAW || !count ||
	    count > raw_len || !len ||
	    (method == ST_CHUNK_STORED && len != raw_len) ||
	    (method == ST_CHUNK_DEFLATE && len > compressBound(raw_len)) ||
	    (method == ST_CHUNK_HUFF && len > ST_HUFF_BOUND(raw_len)) ||
	    (method == ST_CHUNK_HUFF_CTX &&
	     len > ST_HUFF_CTX_BOUND(raw_len)))
		return fail(r, -EBADMSG,
			    "impossible chunk lengths at offset %llu "
			    "(raw %u, stored %u, %u records)",
			    (unsigned long long)off, raw_len, len, count);
	if (len > avail - hlen) {
		r->truncated = 1;
		return 0;
	}

	if (method == ST_CHUNK_STORED)
		rc = grow(&r->rbuf, &r->rbuf_cap, raw_len);
	else
		rc = grow(&r->rbuf, &r->rbuf_cap, raw_len) ||
		     (!r->mem && grow(&r->cbuf, &r->cbuf_cap, len));
	if (rc)
		return fail(r, -ENOMEM, "out of memory");
	rc = src_get(r, off + hlen, len,
		     method == ST_CHUNK_STORED ? r->rbuf : r->cbuf, &payload);
	if (rc == SHORT_READ) {
		r->truncated = 1;
		return 0;
	}
	if (rc)
		return read_error(r, rc, off + hlen);
	if ((uint32_t)crc32(0, payload, len) != st_get_le32(h + crc_at))
		return fail(r, -EBADMSG,
			    "chunk payload checksum mismatch at offset %llu",
			    (unsigned long long)off);
	if (method == ST_CHUNK_DEFLATE) {
		rc = inflate_chunk(r, payload, len, raw_len);
		if (rc)
			return rc;
		payload = r->rbuf;
	} else if (method == ST_CHUNK_HUFF || method == ST_CHUNK_HUFF_CTX) {
		rc = method == ST_CHUNK_HUFF
			     ? st_huff_decode(payload, len, r->rbuf, raw_len)
			     : st_huff_ctx_decode(payload, len, r->rbuf,
						  raw_len);
		if (rc == -ENOMEM)
			return fail(r, -ENOMEM, "out of memory");
		if (rc)
			return fail(r, -EBADMSG,
				    "chunk at offset %llu does not decode to "
				    "its length", (unsigned long long)off);
		payload = r->rbuf;
	}
	r->stream = st_get_le16(h + 4);
	if (r->version >= 5 &&
	    (rc = check_seq(r, r->stream, st_get_le32(h + 20))))
		return rc;
	r->p = payload;
	r->end = payload + raw_len;
	r->left = r->count = count;
	r->next_off = off + hlen + len;
	st_codec_reset(&r->codec);
	return 1;
}

int st_reader_next(struct st_reader *r, struct st_event *ev)
{
	int rc;

	if (r->state)
		return r->state < 0 ? r->state : 0;
	if (!r->left) {
		rc = load_chunk(r);
		if (rc <= 0) {
			if (!rc)
				r->state = 1;
			return rc;
		}
	}
	if (st_dec_record(&r->codec, &r->p, r->end, ev))
		return fail(r, -EBADMSG,
			    "corrupt record %u of %u in chunk at offset %llu",
			    r->count - r->left + 1, r->count,
			    (unsigned long long)r->off);
	ev->thread = r->stream;
	if (r->fn_count && ev->fn >= r->fn_count &&
	    (ev->kind == ST_REC_CALL || ev->kind == ST_REC_START ||
	     ev->kind == ST_REC_DONE || ev->kind == ST_REC_COMM))
		return fail(r, -EBADMSG,
			    "unknown function id %u in record %u of %u in "
			    "chunk at offset %llu", ev->fn,
			    r->count - r->left + 1, r->count,
			    (unsigned long long)r->off);
	if (!--r->left && r->p != r->end)
		return fail(r, -EBADMSG,
			    "%zu stray bytes after record %u in chunk at "
			    "offset %llu", (size_t)(r->end - r->p), r->count,
			    (unsigned long long)r->off);
	return 1;
}

void st_reader_set_fn_count(struct st_reader *r, unsigned n)
{
	r->fn_count = n > 65536 ? 0 : n;
}

int st_reader_truncated(const struct st_reader *r)
{
	return r->truncated;
}

uint64_t st_reader_offset(const struct st_reader *r)
{
	return r->off;
}

const char *st_reader_error(const struct st_reader *r)
{
	return r->err;
}

void st_reader_close(struct st_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->z_ready)
		inflateEnd(&r->z);
	free(r->name);
	free(r->text);
	free(r->kv);
	free(r->cbuf);
	free(r->rbuf);
	free(r->next_seq);
	free(r);
}
