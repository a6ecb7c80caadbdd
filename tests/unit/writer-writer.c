/*
 * tests/unit/writer-writer.c: the file header is laid out as
 * writer/format.h says and refuses keys and values a reader could not
 * parse back; the fd sink writes everything, through partial writes,
 * and a write past the file size limit or to a closed pipe is an error,
 * not SIGXFSZ or SIGPIPE.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include "writer/format.h"
#include "writer/reader.h"
#include "writer/writer.h"
#include "writer-test.h"

static struct membuf mb;
static struct st_sink sink;

static void setup(void)
{
	memset(&mb, 0, sizeof(mb));
	sink = membuf_sink(&mb);
}

static void teardown(void)
{
	free(mb.buf);
}

TestSuite(writer_writer, .init = setup, .fini = teardown);

Test(writer_writer, header_layout_is_as_documented)
{
	static const struct st_kv kv[] = { { "a", "1" }, { "b.c_2", "x y" } };
	static const char text[] = "a=1\nb.c_2=x y\n";
	uint32_t crc;

	cr_assert_eq(st_trace_write_header(&sink, kv, 2), 0);
	cr_assert_eq(mb.nwrites, 1, "header not written in one call");
	cr_assert_eq(mb.len, ST_FILE_HDR_LEN + sizeof(text) - 1);
	cr_expect(!memcmp(mb.buf, "SYNCTRC\0", 8));
	cr_expect_eq(st_get_le32(mb.buf + 8), ST_FORMAT_VERSION);
	cr_expect_eq(st_get_le32(mb.buf + 12), sizeof(text) - 1);
	crc = (uint32_t)crc32(0, mb.buf + 8, 8);
	crc = (uint32_t)crc32(crc, (const Bytef *)text, sizeof(text) - 1);
	cr_expect_eq(st_get_le32(mb.buf + 16), crc);
	cr_expect(!memcmp(mb.buf + 20, text, sizeof(text) - 1));
}

Test(writer_writer, header_refuses_bad_keys_and_values)
{
	static const struct st_kv bad[] = {
		{ "", "v" }, { "Rank", "v" }, { "a=b", "v" }, { "a b", "v" },
		{ "a\n", "v" }, { "k", "two\nlines" }, { NULL, "v" },
		{ "k", NULL }, { "k-1", "v" },
	};
	struct st_kv kv[2] = { { "ok", "fine" } };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		kv[1] = bad[i];
		cr_expect_eq(st_trace_write_header(&sink, kv, 2), -EINVAL,
			     "entry %zu accepted", i);
	}
	cr_expect_eq(mb.nwrites, 0, "a refused header was written");
	kv[1].key = "z.9_";
	kv[1].value = "";
	cr_expect_eq(st_trace_write_header(&sink, kv, 2), 0);
	cr_expect_eq(st_trace_write_header(&sink, NULL, 0), 0);
}

Test(writer_writer, header_larger_than_format_cap_is_refused)
{
	struct st_kv kv = { "big", NULL };
	char *v = malloc(ST_HEADER_MAX_TEXT + 1);

	memset(v, 'x', ST_HEADER_MAX_TEXT);
	v[ST_HEADER_MAX_TEXT] = '\0';
	kv.value = v;
	cr_expect_eq(st_trace_write_header(&sink, &kv, 1), -EINVAL);
	v[ST_HEADER_MAX_TEXT - 100] = '\0';
	cr_expect_eq(st_trace_write_header(&sink, &kv, 1), 0);
	free(v);
}

Test(writer_writer, header_passes_on_sink_error)
{
	static const struct st_kv kv[] = { { "a", "1" } };

	mb.fail = -EIO;
	cr_expect_eq(st_trace_write_header(&sink, kv, 1), -EIO);
}

struct drain {
	int fd;
	size_t got;
	int in_order;
};

static void *drain_pipe(void *arg)
{
	struct drain *d = arg;
	unsigned char buf[1000];
	ssize_t n, i;

	/* Small, slow reads: the writer blocks, and signals interrupt it. */
	d->in_order = 1;
	while ((n = read(d->fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i] != (unsigned char)((d->got + (size_t)i) % 251))
				d->in_order = 0;
		d->got += (size_t)n;
		if (d->got % 64000 < 1000)
			usleep(100);
	}
	return NULL;
}

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

Test(writer_writer, fd_sink_survives_signals_and_partial_writes)
{
	enum { LEN = 8 << 20 };
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct drain d = { 0 };
	sigset_t alrm;
	pthread_t th;
	unsigned char *big = malloc(LEN);
	int fds[2], i, rc;

	for (i = 0; i < LEN; i++)
		big[i] = (unsigned char)(i % 251);
	cr_assert_eq(pipe(fds), 0);
	d.fd = fds[0];
	/* Only this thread takes the signal; no SA_RESTART. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	cr_assert_eq(pthread_create(&th, NULL, drain_pipe, &d), 0);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	sigaction(SIGALRM, &sa, NULL);
	/*
	 * No assertion while the timer runs: Criterion's own I/O does not
	 * retry on EINTR.
	 */
	setitimer(ITIMER_REAL, &it, NULL);
	rc = st_sink_fd_write((void *)(intptr_t)fds[1], big, LEN);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	cr_expect_eq(rc, 0);
	close(fds[1]);
	pthread_join(th, NULL);
	close(fds[0]);
	cr_expect_gt(ticks, 0, "no signal arrived during the write");
	cr_expect_eq(d.got, LEN);
	cr_expect(d.in_order, "bytes out of order");
	free(big);
}

Test(writer_writer, fd_sink_reports_errno)
{
	char c = 0;
	int fds[2];

	cr_expect_eq(st_sink_fd_write((void *)(intptr_t)-1, &c, 1), -EBADF);
	cr_assert_eq(pipe(fds), 0);
	close(fds[0]);
	/* A closed pipe is EPIPE, not death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	cr_expect_eq(st_sink_fd_write((void *)(intptr_t)fds[1], &c, 1),
		     -EPIPE);
	close(fds[1]);
}

Test(writer_writer, fd_sink_past_fsize_limit_is_efbig_not_sigxfsz)
{
	struct rlimit rl = { 4096, 4096 };
	char path[] = "/tmp/st-fsize-XXXXXX", big[8192] = { 0 };
	sigset_t mask, pend, xfsz;
	int fd;

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	unlink(path);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	/* Death by SIGXFSZ fails the test as a crash. */
	cr_expect_eq(st_sink_fd_write((void *)(intptr_t)fd, big, sizeof(big)),
		     -EFBIG);
	cr_expect_eq(lseek(fd, 0, SEEK_END), 4096);
	cr_expect_eq(st_sink_fd_write((void *)(intptr_t)fd, big, 1), -EFBIG);
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	cr_expect(!sigismember(&mask, SIGXFSZ), "SIGXFSZ left blocked");
	sigpending(&pend);
	cr_expect(!sigismember(&pend, SIGXFSZ), "SIGXFSZ left pending");
	/* One of the caller's own, pending before, stays. */
	pthread_sigmask(SIG_BLOCK, &xfsz, NULL);
	raise(SIGXFSZ);
	cr_expect_eq(st_sink_fd_write((void *)(intptr_t)fd, big, 1), -EFBIG);
	sigpending(&pend);
	cr_expect(sigismember(&pend, SIGXFSZ), "the caller's SIGXFSZ taken");
	signal(SIGXFSZ, SIG_IGN);
	close(fd);
}

Test(writer_writer, fd_sink_to_a_closed_pipe_is_epipe_not_sigpipe)
{
	sigset_t mask, pend;
	char c = 0;
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	close(fds[0]);
	/* SIGPIPE left at its default: death fails the test as a crash. */
	signal(SIGPIPE, SIG_DFL);
	cr_expect_eq(st_sink_fd_write((void *)(intptr_t)fds[1], &c, 1),
		     -EPIPE);
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	cr_expect(!sigismember(&mask, SIGPIPE), "SIGPIPE left blocked");
	sigpending(&pend);
	cr_expect(!sigismember(&pend, SIGPIPE), "SIGPIPE left pending");
	close(fds[1]);
}
