/*
 * writer/writer.h: public; writes one rank's trace file.  A file is a
 * header (format version and key=value pairs) followed by self-delimiting
 * zlib chunks.  Records are appended to a stream, one per thread, which
 * encodes them into a fixed buffer; when the buffer is full the caller
 * flushes it as one chunk, or seals it and fills a second buffer while
 * another thread compresses and writes the first.  Memory is bounded by
 * the two buffers and one compression buffer.
 */
#ifndef ST_WRITER_WRITER_H
#define ST_WRITER_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct st_event;

/*
 * Where bytes go.  'write' writes all 'len' bytes of 'buf' and returns 0
 * or a negative errno.  Several streams share one sink and each chunk is
 * one call, so a sink must keep a call's bytes together (an O_APPEND file
 * descriptor does).
 */
struct st_sink {
	void *ctx;
	int (*write)(void *ctx, const void *buf, size_t len);
};

/* A sink 'write' for a file descriptor stored in 'ctx' as (intptr_t)fd. */
int st_sink_fd_write(void *ctx, const void *buf, size_t len);

/* One header entry. */
struct st_kv {
	const char *key;	/* [a-z0-9_.]+ */
	const char *value;	/* any bytes but '\n' and NUL */
};

/*
 * Write the file header: magic, format version, then the 'n' entries of
 * 'kv'.  Returns 0, -EINVAL for a bad key or value (or entries longer
 * than 1 MiB in all), -ENOMEM, or the sink's error.
 */
int st_trace_write_header(const struct st_sink *sink, const struct st_kv *kv,
			  size_t n);

struct st_stream;

/*
 * Create a stream that encodes records into buffers of 'buf_bytes'
 * (at least ST_STREAM_MIN_BUF; two of them, and a deflate output buffer
 * of about the same size) and writes chunks tagged 'index' at
 * compression 'level' (zlib 0..9) to 'sink', which must outlive it.
 * All memory is allocated here.  Returns 0, -EINVAL or -ENOMEM.
 */
int st_stream_new(struct st_stream **out, const struct st_sink *sink,
		  uint16_t index, size_t buf_bytes, int level);

#define ST_STREAM_MIN_BUF 4096

/* The least memory for a stream's two buffers: SYNCTRACE_BUFFER's minimum. */
#define ST_STREAM_MIN_PAIR (2 * ST_STREAM_MIN_BUF)

/*
 * Encode 'ev' into the buffer.  Returns 0, or -ENOBUFS when it does not
 * fit, in which case nothing was written: call st_stream_flush() and
 * append again.  Does no allocation and no system call.  -EINVAL for a
 * record that cannot be encoded (unknown kind, text longer than the
 * buffer).  The stream copies 'frames' and 'text'.  'ev->thread' is not
 * stored: the reader sets it to the stream's 'index'.
 */
int st_stream_append(struct st_stream *s, const struct st_event *ev);

/*
 * The same, naming the record's fields (all but 'seq' and the timestamps)
 * 'token' for st_stream_append_repeat(); 0 names nothing.  The caller
 * must never give one token to records whose other fields differ.
 */
int st_stream_append_token(struct st_stream *s, const struct st_event *ev,
			   uint32_t token);

/*
 * Append a call record of function 'fn' equal to the last one appended
 * for 'fn' with 'token', but for sequence number 'seq' and timestamps
 * 't0', 't1', when the encoder predicts exactly that: the interposer's
 * hot path, which then needs no struct st_event.  Returns 0; 1 when it
 * is not such a repeat (nothing written: append the whole record);
 * -ENOBUFS when the buffer is full, as st_stream_append().
 */
int st_stream_append_repeat(struct st_stream *s, unsigned fn, uint32_t token,
			    uint64_t seq, uint64_t t0, uint64_t t1);

/*
 * A record 'l' (writer/encode.h) of 'kind', 'fn' and 'site', whose
 * fields are those last appended with 'token' in its context but for
 * its counters 'seq', 'req', 'inst' and its timestamps, to be appended
 * when the encoder predicts those counters (st_enc_token()): a
 * nonblocking call, a start or a completion seen before.  The
 * interposer appends it inline (st_stream_like(), writer/stream.h).
 */
struct st_tok_rec {
	uint32_t kind, fn, site, token;
	uint64_t seq, req, inst, t0, t1;
};

/*
 * Compress the buffered records into one chunk and write it to the sink,
 * after the sealed buffer if any (written here unless another thread is
 * at it, which is then waited for); a no-op when both are empty.  The
 * encoder's delta state restarts, so every chunk decodes on its own.
 * Returns 0 or a negative errno; on error the records concerned are
 * dropped and the stream stays usable.  Only the appending thread.
 */
int st_stream_flush(struct st_stream *s);

/* Bytes now buffered (encoded, not yet compressed). */
size_t st_stream_buffered(const struct st_stream *s);

/*
 * Hand the buffered records over to st_stream_write_sealed() and go on
 * in the other buffer, in O(1) and without a system call.  Returns 1
 * when sealed, 0 when there was nothing to seal, -EBUSY when the other
 * buffer is still sealed or being written (nothing changed).  Only the
 * thread that appends may call it.
 */
int st_stream_seal(struct st_stream *s);

/* Non-zero while a sealed buffer waits or is being written. */
int st_stream_sealed(const struct st_stream *s);

/*
 * Compress and write the sealed buffer, if there is one and no other
 * thread has claimed it; any thread may call it, concurrently with the
 * appending thread.  Returns 1 when it wrote a chunk, 0 when there was
 * nothing to do, or a negative errno (the sealed records are dropped
 * and the buffer is free again).
 */
int st_stream_write_sealed(struct st_stream *s);

/*
 * Write the buffered records as uncompressed chunks using only write(2)
 * on 'fd', for a fatal-signal handler: the sealed buffer first if no
 * thread has claimed it (if one has, up to a second is given it to
 * finish), then the filling one.  Async-signal-safe, allocates nothing,
 * keeps errno.  The records are dropped either way.  Returns 0 or a
 * negative errno.
 */
int st_stream_flush_raw(struct st_stream *s, int fd);

/* Free 's' without flushing. */
void st_stream_free(struct st_stream *s);

#endif
