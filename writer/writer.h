/*
 * writer/writer.h: public; writes one rank's trace file.  A file is a
 * header (format version and key=value pairs) followed by self-delimiting
 * zlib chunks.  Records are appended to a stream, one per thread, which
 * encodes them into a fixed buffer; when the buffer is full the caller
 * flushes it as one chunk.  Memory is bounded by the buffer size.
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
 * Create a stream that encodes records into a buffer of 'buf_bytes'
 * (at least ST_STREAM_MIN_BUF) and writes chunks tagged 'index' at
 * compression 'level' (zlib 0..9) to 'sink', which must outlive it.
 * All memory is allocated here.  Returns 0, -EINVAL or -ENOMEM.
 */
int st_stream_new(struct st_stream **out, const struct st_sink *sink,
		  uint16_t index, size_t buf_bytes, int level);

#define ST_STREAM_MIN_BUF 4096

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
 * Compress the buffered records into one chunk and write it to the sink;
 * a no-op when the buffer is empty.  The encoder's delta state restarts,
 * so every chunk decodes on its own.  Returns 0 or a negative errno; on
 * error the buffered records are dropped and the stream stays usable.
 */
int st_stream_flush(struct st_stream *s);

/* Bytes now buffered (encoded, not yet compressed). */
size_t st_stream_buffered(const struct st_stream *s);

/*
 * Write the buffered records as an uncompressed chunk using only write(2)
 * on 'fd', for a fatal-signal handler: async-signal-safe, allocates
 * nothing, keeps errno.  The records are dropped either way.  Returns 0
 * or a negative errno.
 */
int st_stream_flush_raw(struct st_stream *s, int fd);

/* Free 's' without flushing. */
void st_stream_free(struct st_stream *s);

#endif
