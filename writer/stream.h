/*
 * writer/stream.h: private; a stream's state (writer/stream.c), here so
 * that the interposer's hot path can append a record like an earlier
 * one (st_stream_like()) inline, its fields in registers, without a
 * call or a struct st_tok_rec in memory.
 */
#ifndef ST_WRITER_STREAM_H
#define ST_WRITER_STREAM_H

#include <stdatomic.h>
#include <stdint.h>
#include <zlib.h>

#include "writer/encode.h"
#include "writer/writer.h"

enum { BUF_FREE, BUF_FILLING, BUF_SEALED, BUF_BUSY };

struct st_buf {
	uint8_t *raw;		/* chunk header room, records, slack */
	size_t len;		/* SEALED: bytes of records */
	uint32_t nrec;		/* SEALED: records */
	uint32_t nrep;		/* SEALED: of which repeats */
	uint64_t span;		/* SEALED: ns its records took (chunk_span()) */
	atomic_int state;
};

struct st_stream {
	uint8_t *pos;		/* end of the filling buffer's records */
	uint8_t *limit;		/* end of the filling buffer proper */
	uint32_t nrec;		/* records in the filling buffer */
	uint32_t nrep;		/* of which repeats (st_stream_append_repeat;
				   loop run members do not count) */
	int cur;		/* index of the filling buffer */
	int level;		/* zlib level */
	uint64_t chunk_t0;	/* the last timestamp before the filling
				   buffer's records (in the first chunk, its
				   first record's t0), 0: unknown; beside
				   pos, which the appends touch too */
	int strategy;		/* zlib strategy the stream is set to */
	int pick;		/* strategy for chunks of other records */
	uint32_t probe_in;	/* such chunks until the next probe */
	uint64_t huff_ratio;	/* Huffman coding's bytes out per byte in
				   at the last probe, times 2^16 */
	int ctx_better;		/* the last probe found the context coding
				   shorter than Huffman coding */
	uint64_t cost_ps[2];	/* CPU time per byte, in ps, of the context
				   coding [0] and zlib [1] when they last
				   took 4 KiB or more; 0: not yet */
	uint64_t (*cpu_ns)(void); /* the writing thread's CPU time, ns (a
				   field so that tests can make zlib slow) */
	uint16_t index;
	uint32_t seq;		/* sequence number of the next chunk written */
	size_t cap;		/* record bytes per buffer */
	struct st_buf buf[2];
	uint8_t *out;		/* chunk header room, deflated payload */
	size_t bound;		/* compressBound() of a buffer */
	const struct st_sink *sink;
	z_stream z;
	struct st_codec codec;
};

/*
 * Append the record 'l' (struct st_tok_rec, writer/writer.h), whose kind
 * is 'kind', a constant where the caller knows it, so that what depends
 * on it folds away (st_enc_like_kind()).  Returns 0; 1 when it is not
 * such a record (nothing written: append the whole record, with its
 * token); -ENOBUFS as st_stream_append().
 */
static inline __attribute__((always_inline)) int
st_stream_like(struct st_stream *s, const struct st_tok_rec *l, unsigned kind)
{
	uint8_t *p = s->pos;
	int rc;

	rc = st_enc_like_kind(&s->codec, &p, s->limit, l, kind);
	if (rc)
		return rc;
	/* A signal handler flushing this stream sees whole records only. */
	atomic_signal_fence(memory_order_release);
	s->nrec++;
	s->pos = p;
	return 0;
}

#endif
