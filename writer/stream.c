/*
 * writer/stream.c: one thread's stream of records.  Records are encoded
 * into a buffer allocated once; a flush deflates the buffer into an
 * output buffer also allocated once (compressBound of the whole buffer,
 * with room for the chunk header in front) and hands header and payload
 * to the sink in one call.  The record buffer too has room for a chunk
 * header in front, so a stored chunk is written straight from it, which
 * is what the signal-safe st_stream_flush_raw() does.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "writer/encode.h"
#include "writer/event.h"
#include "writer/format.h"
#include "writer/writer.h"

struct st_stream {
	uint8_t *pos;		/* end of the buffered records */
	uint8_t *limit;		/* end of the record buffer proper */
	uint8_t *raw;		/* chunk header room, records, slack */
	uint8_t *out;		/* chunk header room, deflated payload */
	size_t bound;		/* compressBound() of the record buffer */
	uint32_t nrec;		/* records buffered */
	uint16_t index;
	const struct st_sink *sink;
	z_stream z;
	struct st_codec codec;
};

int st_stream_new(struct st_stream **out, const struct st_sink *sink,
		  uint16_t index, size_t buf_bytes, int level)
{
	struct st_stream *s;

	*out = NULL;
	if (!sink || !sink->write || buf_bytes < ST_STREAM_MIN_BUF ||
	    buf_bytes > ST_CHUNK_MAX_RAW || level < 0 || level > 9)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sink = sink;
	s->index = index;
	s->bound = compressBound((uLong)buf_bytes);
	s->raw = malloc(ST_CHUNK_HDR_LEN + buf_bytes + ST_REC_MAX_FIXED);
	s->out = malloc(ST_CHUNK_HDR_LEN + s->bound);
	if (!s->raw || !s->out ||
	    deflateInit(&s->z, level) != Z_OK) {
		free(s->raw);
		free(s->out);
		free(s);
		return -ENOMEM;
	}
	s->pos = s->raw + ST_CHUNK_HDR_LEN;
	s->limit = s->pos + buf_bytes;
	st_codec_init(&s->codec);
	*out = s;
	return 0;
}

int st_stream_append(struct st_stream *s, const struct st_event *ev)
{
	uint8_t *p = s->pos;
	int rc;

	rc = st_enc_record(&s->codec, &p, s->limit, ev);
	if (rc) {
		/* Never fits, even alone: flushing would not help. */
		if (rc == -ENOBUFS && !s->nrec)
			rc = -EINVAL;
		return rc;
	}
	/* A signal handler flushing this stream sees whole records only. */
	atomic_signal_fence(memory_order_release);
	s->nrec++;
	s->pos = p;
	return 0;
}

size_t st_stream_buffered(const struct st_stream *s)
{
	return (size_t)(s->pos - (s->raw + ST_CHUNK_HDR_LEN));
}

/* Fill the chunk header at 'hdr' for 'len' payload bytes after it. */
static void chunk_header(const struct st_stream *s, uint8_t *hdr, int method,
			 size_t raw_len, size_t len)
{
	memcpy(hdr, ST_CHUNK_MAGIC, ST_CHUNK_MAGIC_LEN);
	st_put_le16(hdr + 4, s->index);
	hdr[6] = (uint8_t)method;
	hdr[7] = 0;
	st_put_le32(hdr + 8, (uint32_t)raw_len);
	st_put_le32(hdr + 12, (uint32_t)len);
	st_put_le32(hdr + 16, s->nrec);
	st_put_le32(hdr + 20, (uint32_t)crc32(0, hdr + ST_CHUNK_HDR_LEN,
					      (uInt)len));
	st_put_le32(hdr + 24, (uint32_t)crc32(0, hdr, 24));
}

static void reset(struct st_stream *s)
{
	s->pos = s->raw + ST_CHUNK_HDR_LEN;
	s->nrec = 0;
	st_codec_reset(&s->codec);
}

int st_stream_flush(struct st_stream *s)
{
	size_t len = st_stream_buffered(s), clen;
	uint8_t *chunk;
	int rc;

	if (!len)
		return 0;
	if (deflateReset(&s->z) != Z_OK) {
		reset(s);
		return -EIO;
	}
	s->z.next_in = s->raw + ST_CHUNK_HDR_LEN;
	s->z.avail_in = (uInt)len;
	s->z.next_out = s->out + ST_CHUNK_HDR_LEN;
	s->z.avail_out = (uInt)s->bound;
	if (deflate(&s->z, Z_FINISH) != Z_STREAM_END) {
		reset(s);
		return -EIO;
	}
	clen = s->bound - s->z.avail_out;
	if (clen < len) {
		chunk = s->out;
		chunk_header(s, chunk, ST_CHUNK_DEFLATE, len, clen);
	} else {
		/* Incompressible: store it instead. */
		chunk = s->raw;
		clen = len;
		chunk_header(s, chunk, ST_CHUNK_STORED, len, len);
	}
	rc = s->sink->write(s->sink->ctx, chunk, ST_CHUNK_HDR_LEN + clen);
	reset(s);
	return rc;
}

int st_stream_flush_raw(struct st_stream *s, int fd)
{
	size_t len = st_stream_buffered(s);
	int saved = errno, rc;

	if (!len)
		return 0;
	chunk_header(s, s->raw, ST_CHUNK_STORED, len, len);
	rc = st_sink_fd_write((void *)(intptr_t)fd, s->raw,
			      ST_CHUNK_HDR_LEN + len);
	reset(s);
	errno = saved;
	return rc;
}

void st_stream_free(struct st_stream *s)
{
	if (!s)
		return;
	deflateEnd(&s->z);
	free(s->raw);
	free(s->out);
	free(s);
}
