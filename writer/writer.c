/*
 * writer/writer.c: the file header of a trace, and the file-descriptor
 * sink.  The header is built in memory and written with one sink call,
 * so a reader sees all of it or a cut prefix, never a mix.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "writer/format.h"
#include "writer/writer.h"

/*
 * A write past RLIMIT_FSIZE raises SIGXFSZ in the writing thread, and
 * one to a pipe nobody reads (stderr, for the library's messages)
 * SIGPIPE; the default action of either kills the process: the
 * application would die of our write.  So both are blocked for the
 * writes, and one that they raised is taken off again (when it was not
 * pending before, so that one of the application's own stays).
 * sigtimedwait() is a plain system call here, as async-signal-safe as
 * the rest (flush_fatal() writes from a signal handler).
 */
int st_sink_fd_write(void *ctx, const void *buf, size_t len)
{
	static const struct timespec now = { 0, 0 };
	int fd = (int)(intptr_t)ctx, rc = 0, had_xfsz, had_pipe;
	sigset_t ours, one, old, pend;
	const char *p = buf;
	ssize_t n;

	sigemptyset(&ours);
	sigaddset(&ours, SIGXFSZ);
	sigaddset(&ours, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &ours, &old);
	sigemptyset(&pend);
	sigpending(&pend);
	had_xfsz = sigismember(&pend, SIGXFSZ);
	had_pipe = sigismember(&pend, SIGPIPE);
	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (!n) {
			rc = -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	sigemptyset(&one);
	if (rc == -EFBIG && !had_xfsz)
		sigaddset(&one, SIGXFSZ);
	if (rc == -EPIPE && !had_pipe)
		sigaddset(&one, SIGPIPE);
	if (rc == -EFBIG || rc == -EPIPE)
		sigtimedwait(&one, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static int value_ok(const char *v)
{
	return !strchr(v, '\n');
}

int st_trace_write_header(const struct st_sink *sink, const struct st_kv *kv,
			  size_t n)
{
	size_t i, text_len = 0, klen, vlen;
	uint8_t *buf, *p;
	uint32_t crc;
	int rc;

	for (i = 0; i < n; i++) {
		if (!kv[i].key || !kv[i].value)
			return -EINVAL;
		klen = strlen(kv[i].key);
		vlen = strlen(kv[i].value);
		if (!st_header_key_ok(kv[i].key, klen) ||
		    !value_ok(kv[i].value))
			return -EINVAL;
		text_len += klen + vlen + 2;
		if (text_len > ST_HEADER_MAX_TEXT)
			return -EINVAL;
	}
	buf = malloc(ST_FILE_HDR_LEN + text_len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, ST_FILE_MAGIC, ST_FILE_MAGIC_LEN);
	st_put_le32(buf + 8, ST_FORMAT_VERSION);
	st_put_le32(buf + 12, (uint32_t)text_len);
	p = buf + ST_FILE_HDR_LEN;
	for (i = 0; i < n; i++) {
		klen = strlen(kv[i].key);
		vlen = strlen(kv[i].value);
		memcpy(p, kv[i].key, klen);
		p += klen;
		*p++ = '=';
		memcpy(p, kv[i].value, vlen);
		p += vlen;
		*p++ = '\n';
	}
	crc = (uint32_t)crc32(0, buf + 8, 8);
	crc = (uint32_t)crc32(crc, buf + ST_FILE_HDR_LEN, (uInt)text_len);
	st_put_le32(buf + 16, crc);
	rc = sink->write(sink->ctx, buf, ST_FILE_HDR_LEN + text_len);
	free(buf);
	return rc;
}
