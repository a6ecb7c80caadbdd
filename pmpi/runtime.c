/*
 * pmpi/runtime.c: the interposer's life cycle.  MPI_Init has rank 0 claim
 * a new run directory, named from SYNCTRACE_DIR (docs/runs.md), and give
 * the run an id that every rank's file header carries; then this rank's
 * trace file and header, the communicator table and the private
 * communicator; records go to one stream per thread (pmpi/call.c makes
 * them).  A full buffer is sealed and handed to a writer thread that
 * compresses and writes it while the application fills the other
 * (SYNCTRACE_ASYNC=1, the default), or compressed on the spot.
 * MPI_Finalize flushes and lets the ranks agree that the trace set is
 * complete; exit flushes every stream no thread is appending to; fatal
 * signals and MPI_Abort write what is buffered with write(2) only and
 * then go on as they would have; a child forked by the application
 * leaves the trace to its parent.  Any trouble of synctrace's own warns
 * once and switches tracing off: the application's calls, results,
 * return codes and exit status are never touched.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gen/ops.h"
#include "gen/version.h"
#include "pmpi/abi.h"
#include "pmpi/hooks.h"
#include "pmpi/idle.h"
#include "pmpi/internal.h"
#include "pmpi/selftime.h"
#include "writer/reader.h"
#include "writer/run.h"
#include "writer/writer.h"

struct st_config st_cfg;
atomic_int st_on;
atomic_int st_live;
int st_rank = -1, st_size;
MPI_Comm st_comm = MPI_COMM_NULL;
int st_mt;

static char config_err[256];
static int config_bad;
static atomic_int warned;
/*
 * Atomic: a thread that writes a chunk may open the file again
 * (own_fd_checked()) while another reads the number.
 */
static atomic_int trace_fd = -1;
static atomic_int index_fd = -1;	/* rank 0: the run index */
static char trace_path[PATH_MAX + 32];
static char run_dir[PATH_MAX];
static char run_id[ST_RUN_ID_MAX];
static int trace_sink_write(void *ctx, const void *buf, size_t len);
static struct st_sink sink = { NULL, trace_sink_write };

/*
 * The application owns the process's descriptors: it may close ours (a
 * loop over every descriptor, a double close) and get the number back
 * from its next open().  Ours are moved above FD_FLOOR, where programs
 * rarely reach, and each is checked to be still our file (device and
 * inode) before it is written or closed, so the trace never goes into
 * the application's file, nor is the application's file closed.  A
 * trace file whose descriptor went is opened again by name.
 */
#define FD_FLOOR 700
static pthread_mutex_t reopen_mu = PTHREAD_MUTEX_INITIALIZER;

struct own_fd {
	atomic_int *fd;		/* trace_fd or index_fd */
	dev_t dev;
	ino_t ino;
	const char *what;	/* "trace file", "run index" */
	int warned;
};
static struct own_fd trace_own = { &trace_fd, 0, 0, "trace file", 0 };
static struct own_fd index_own = { &index_fd, 0, 0, "run index", 0 };

/* Whether 'fd' is still the file 'dev', 'ino'.  Async-signal-safe. */
static int fd_is(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && st.st_dev == dev &&
	       st.st_ino == ino;
}

/* 'fd' moved to FD_FLOOR or above when it can be; its number now. */
static int fd_high(int fd)
{
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, FD_FLOOR);

	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* Note the identity of our file 'fd' in 'o'. */
static void fd_note(int fd, struct own_fd *o)
{
	struct stat st;

	if (fd >= 0 && !fstat(fd, &st)) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
}

/*
 * 'path' opened again for appending when it is still file 'o', else -1.
 * Async-signal-safe (flush_fatal()).
 */
static int own_reopen(const struct own_fd *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && !fd_is(fd, o->dev, o->ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The descriptor of file 'o' ('path'), opened again by name when the
 * application closed ours; -1 when there is none or that fails (the
 * file was removed or replaced).
 */
static int own_fd_checked(struct own_fd *o, const char *path)
{
	int fd = *o->fd;

	/* None yet, or closed by synctrace: nothing to open again. */
	if (fd < 0 || fd_is(fd, o->dev, o->ino))
		return fd;
	pthread_mutex_lock(&reopen_mu);
	fd = *o->fd;
	if (fd >= 0 && !fd_is(fd, o->dev, o->ino)) {
		/* Not ours any more: the number is left alone. */
		fd = own_reopen(o, path);
		if (fd >= 0)
			fd = fd_high(fd);
		if (!o->warned) {
			o->warned = 1;
			st_log_print("the application closed the %s's "
				     "descriptor %d; %s", o->what, *o->fd,
				     fd >= 0 ? "opened again" :
				     "cannot open it again");
		}
		*o->fd = fd;
	}
	pthread_mutex_unlock(&reopen_mu);
	return fd;
}

static int trace_sink_write(void *ctx, const void *buf, size_t len)
{
	int fd = own_fd_checked(&trace_own, trace_path);

	(void)ctx;
	return fd < 0 ? -EBADF : st_sink_fd_write((void *)(intptr_t)fd, buf,
						  len);
}
static int finalized;
static pid_t trace_pid;		/* the process that owns the trace */
/* The signal whose handler stopped tracing, for say_stopped(). */
static volatile sig_atomic_t fatal_sig;
static int membarrier_ok;	/* registered: membarrier(2) usable */
uint64_t st_flush_interval_ns;

/*
 * The writer thread: woken when a buffer is sealed, it writes every
 * stream's sealed buffer, then tells waiters (wdone).  It makes no MPI
 * call and blocks every signal, so handlers run on application threads.
 */
static struct {
	pthread_t thread;
	int up;			/* running: seal instead of flushing */
	int pending, stop;	/* under 'mu' */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
} wr = { .mu = PTHREAD_MUTEX_INITIALIZER,
	 .work = PTHREAD_COND_INITIALIZER,
	 .done = PTHREAD_COND_INITIALIZER };

/* Thread streams, kept in a global list for flushes at exit and signals. */
#define MAX_STREAMS 1024
static struct st_slot streams[MAX_STREAMS];
static atomic_int nstreams;

_Thread_local struct st_tls st_tls ST_TLS_MODEL = { .slot = -1 };

/*
 * Our messages go to descriptor 2 only while it is the file it was at
 * MPI_Init (stderr_note()): a program that closed it, as a loop over
 * every descriptor does, gets the number back from its next open(), and
 * must not find our lines in that file of its own.  (One that moves its
 * stderr to a log of its own, after MPI_Init, does not get them
 * either.)  write(2), not stdio: the program may have closed 'stderr'.
 */
static struct {
	int noted;		/* 0: not yet, 1: dev and ino, 2: was closed */
	dev_t dev;
	ino_t ino;
} err_fd;

static void stderr_note(void)
{
	struct stat st;

	if (fstat(2, &st)) {
		err_fd.noted = 2;
		return;
	}
	err_fd.dev = st.st_dev;
	err_fd.ino = st.st_ino;
	err_fd.noted = 1;
}

/* Write the line 'buf' ('n' bytes, its newline included) to stderr. */
static void say(const char *buf, int n)
{
	if (n <= 0 || err_fd.noted == 2 ||
	    (err_fd.noted == 1 && !fd_is(2, err_fd.dev, err_fd.ino)))
		return;
	/* Whole, and a reader gone is EPIPE, never death by SIGPIPE. */
	st_sink_fd_write((void *)(intptr_t)2, buf, (size_t)n);
}

/* 'buf' of 'len' bytes, 'n' of them used: a line, cut if need be. */
static int line_end(char *buf, size_t len, int n)
{
	if (n < 0)
		return 0;
	if ((size_t)n > len - 2)
		n = (int)len - 2;
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

void st_log_print(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, m;

	n = snprintf(buf, sizeof(buf), "synctrace[rank %d]: ", st_rank);
	va_start(ap, fmt);
	m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	say(buf, line_end(buf, sizeof(buf), m < 0 ? n : n + m));
}

void st_disable(const char *fmt, ...)
{
	char buf[512], line[600];
	va_list ap;
	int n;

	atomic_store(&st_on, 0);
	if (atomic_exchange(&warned, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (st_rank >= 0)
		n = snprintf(line, sizeof(line), "synctrace[rank %d]: %s; "
			     "tracing disabled", st_rank, buf);
	else
		n = snprintf(line, sizeof(line), "synctrace: %s; tracing "
			     "disabled", buf);
	say(line, line_end(line, sizeof(line), n));
}

/* Streams and records. */

/*
 * The streams of threads that exited, for new threads to go on with:
 * a program that starts threads again and again (a pool made anew for
 * each phase) would otherwise run out of MAX_STREAMS, with a buffer
 * for each thread it ever made.  A thread's stream goes back when the
 * thread exits (the key's destructor), with the time it did.  While
 * fewer than FRESH_STREAMS exist a new thread gets one of its own, so
 * that the threads of most programs keep an id each in the trace; past
 * that it takes one given back before its first call began, so that
 * the stream stays one timeline: the calls of its owners one after the
 * other, never overlapping.  A stream whose busy flag stayed set (a
 * thread cancelled inside a write) is not given back.
 */
#define FRESH_STREAMS 64
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;
static int spare[MAX_STREAMS], nspare;
static uint64_t spare_ns[MAX_STREAMS];	/* by stream: when given back */
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static int slot_key_ok;

/*
 * The per-thread caches and arrays of threads that exited, for the
 * next new thread to take as its own at its first need of one
 * (st_tls_adopt()): never freed, since a request an exited thread made
 * may still name an entry of its repeat cache (its token check tells
 * an entry that was reused).
 */
struct tls_bufs {
	struct st_fast *fast;
	struct st_rfast *rfast;
	struct st_csite *csite;
	uint64_t *snap;
	int snapcap;
	MPI_Status *stbuf;
	int stcap;
};
static struct tls_bufs spare_bufs[MAX_STREAMS];
static int nspare_bufs;

void st_tls_adopt(void)
{
	struct tls_bufs *b;

	if (st_tls.fast || st_tls.rfast || st_tls.csite || st_tls.snap ||
	    st_tls.stbuf)
		return;
	pthread_mutex_lock(&spare_mu);
	if (nspare_bufs) {
		b = &spare_bufs[--nspare_bufs];
		st_tls.fast = b->fast;
		st_tls.rfast = b->rfast;
		st_tls.csite = b->csite;
		st_tls.snap = b->snap;
		st_tls.snapcap = b->snapcap;
		st_tls.stbuf = b->stbuf;
		st_tls.stcap = b->stcap;
	}
	pthread_mutex_unlock(&spare_mu);
}

static void slot_exit(void *v)
{
	int i = (int)(intptr_t)v - 1;

	pthread_mutex_lock(&spare_mu);
	if (!atomic_load(&streams[i].busy)) {
		spare_ns[i] = st_clock_ns(st_now());
		spare[nspare++] = i;
	}
	if ((st_tls.fast || st_tls.rfast || st_tls.csite || st_tls.snap ||
	     st_tls.stbuf) && nspare_bufs < MAX_STREAMS)
		spare_bufs[nspare_bufs++] = (struct tls_bufs){
			st_tls.fast, st_tls.rfast, st_tls.csite, st_tls.snap,
			st_tls.snapcap, st_tls.stbuf, st_tls.stcap };
	pthread_mutex_unlock(&spare_mu);
	st_tls.fast = NULL;
	st_tls.rfast = NULL;
	st_tls.csite = NULL;
	st_tls.snap = NULL;
	st_tls.snapcap = 0;
	st_tls.stbuf = NULL;
	st_tls.stcap = 0;
	st_tls.slot = -1;
	st_tls.stream = NULL;
	st_tls.busy = NULL;
}

static void slot_key_init(void)
{
	slot_key_ok = !pthread_key_create(&slot_key, slot_exit);
}

/* Stream 'i' is now this thread's. */
static void slot_take(int i)
{
	st_tls.slot = i;
	st_tls.stream = streams[i].s;
	st_tls.busy = &streams[i].busy;
	/* (The main thread's destructor does not run at exit().) */
	if (slot_key_ok)
		pthread_setspecific(slot_key, (void *)(intptr_t)(i + 1));
}

/*
 * A stream given back before 't0' (ns), this thread's first call's
 * entry, taken off the spares; -1 when none.
 */
static int spare_before(uint64_t t0)
{
	int k, i = -1;

	pthread_mutex_lock(&spare_mu);
	for (k = nspare; k-- > 0;)
		if (spare_ns[spare[k]] < t0) {
			i = spare[k];
			spare[k] = spare[--nspare];
			break;
		}
	pthread_mutex_unlock(&spare_mu);
	return i;
}

/* This thread's stream, for its first record, of entry 't0' (ns). */
static __attribute__((cold, noinline)) int stream_open(uint64_t t0)
{
	struct st_stream *s;
	int i, rc;

	pthread_once(&slot_once, slot_key_init);
	i = atomic_load(&nstreams) >= FRESH_STREAMS ? spare_before(t0) : -1;
	if (i >= 0) {
		slot_take(i);
		return 0;
	}
	i = atomic_fetch_add(&nstreams, 1);
	if (i >= MAX_STREAMS) {
		st_disable("more than %d threads made MPI calls", MAX_STREAMS);
		return -1;
	}
	/* Two halves: one fills while the other is written. */
	rc = st_stream_new(&s, &sink, (uint16_t)i, st_set.buffer / 2,
			   st_set.level);
	if (rc) {
		st_disable("cannot allocate a %zu-byte trace buffer: %s",
			   st_set.buffer, strerror(-rc));
		return -1;
	}
	streams[i].s = s;
	slot_take(i);
	return 0;
}

static void writer_kick(void)
{
	pthread_mutex_lock(&wr.mu);
	wr.pending = 1;
	pthread_cond_signal(&wr.work);
	pthread_mutex_unlock(&wr.mu);
}

static void *writer_main(void *arg)
{
	int i, n, rc;

	(void)arg;
	pthread_mutex_lock(&wr.mu);
	for (;;) {
		while (!wr.pending && !wr.stop)
			pthread_cond_wait(&wr.work, &wr.mu);
		if (!wr.pending)
			break;
		wr.pending = 0;
		pthread_mutex_unlock(&wr.mu);
		n = atomic_load(&nstreams);
		for (i = 0; i < n && i < MAX_STREAMS; i++) {
			if (!streams[i].s)
				continue;
			rc = st_stream_write_sealed(streams[i].s);
			if (rc < 0)
				st_disable("cannot write '%s': %s", trace_path,
					   strerror(-rc));
		}
		pthread_mutex_lock(&wr.mu);
		pthread_cond_broadcast(&wr.done);
	}
	pthread_mutex_unlock(&wr.mu);
	return NULL;
}

/* Start the writer thread, with every signal blocked; 0 or -1. */
static int writer_start(void)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&wr.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -1;
	wr.up = 1;
	return 0;
}

/* Stop it once every stream has been flushed. */
static void writer_stop(void)
{
	if (!wr.up)
		return;
	pthread_mutex_lock(&wr.mu);
	wr.stop = 1;
	pthread_cond_signal(&wr.work);
	pthread_mutex_unlock(&wr.mu);
	pthread_join(wr.thread, NULL);
	wr.up = 0;
}

/*
 * Hand stream 'i''s buffer to the writer thread.  When 'full', room must
 * be made: if the writer has not finished the previous buffer yet, this
 * thread writes it itself or waits for it.  Returns 0, or -1 when a
 * periodic seal found the writer busy (try again later).
 */
static int seal(int i, int full)
{
	struct st_stream *s = streams[i].s;
	int rc = st_stream_seal(s);

	if (rc == -EBUSY && !full)
		return -1;
	if (rc == -EBUSY) {
		rc = st_stream_write_sealed(s);
		if (rc < 0) {
			st_disable("cannot write '%s': %s", trace_path,
				   strerror(-rc));
			return 0;
		}
		if (!rc) {
			pthread_mutex_lock(&wr.mu);
			while (st_stream_sealed(s))
				pthread_cond_wait(&wr.done, &wr.mu);
			pthread_mutex_unlock(&wr.mu);
		}
		rc = st_stream_seal(s);
	}
	if (rc > 0)
		writer_kick();
	return 0;
}

/*
 * Make room in, or periodically write out, stream 'i': seal it for the
 * writer thread, or compress it here.  The time this thread spent is
 * recorded as a flush mark, which analyses leave out of compute.
 */
__attribute__((cold, noinline)) void st_flush_slot(int i, int full)
{
	struct st_event ev;
	uint64_t t0, t1;
	int rc = 0;

	t0 = st_now();
	if (wr.up) {
		if (seal(i, full)) {
			/* The writer is still at the last one: soon again. */
			st_tls.next_flush_ns = st_flush_next(st_clock_ns(t0),
							     1000000);
			return;
		}
	} else {
		rc = st_stream_flush(streams[i].s);
	}
	t1 = st_now();
	if (rc) {
		st_disable("cannot write '%s': %s", trace_path, strerror(-rc));
		return;
	}
	st_event_clear(&ev);
	ev.kind = ST_REC_MARK;
	ev.fn = ST_MARK_FLUSH;
	ev.t0 = st_clock_ns(t0);
	ev.t1 = st_clock_ns(t1);
	st_stream_append(streams[i].s, &ev);
	st_tls.next_flush_ns = st_flush_next(ev.t1, st_flush_interval_ns);
}

void st_emit_token(struct st_event *ev, uint32_t token)
{
	int i, rc;

	if (!atomic_load_explicit(&st_on, memory_order_relaxed))
		return;
	if (st_tls.slot < 0 && stream_open(ev->t0))
		return;
	i = st_tls.slot;
	if (!st_busy_enter(&streams[i].busy))
		return;
	rc = st_stream_append_token(streams[i].s, ev, token);
	if (__builtin_expect(rc == -ENOBUFS, 0)) {
		st_flush_slot(i, 1);
		rc = st_stream_append_token(streams[i].s, ev, token);
	}
	atomic_store_explicit(&streams[i].busy, 0, memory_order_release);
	if (__builtin_expect(rc != 0, 0))
		st_disable("BUG: cannot encode a %s record: %s",
			   st_rec_kind_name(ev->kind), strerror(-rc));
}

void st_emit(struct st_event *ev)
{
	st_emit_token(ev, 0);
}

/* Flush every stream; returns 0 or -1 if any failed. */
static int flush_all(void)
{
	int i, n = atomic_load(&nstreams);
	int bad = 0;

	if (n > MAX_STREAMS)
		n = MAX_STREAMS;
	for (i = 0; i < n; i++) {
		int rc;

		if (!streams[i].s)
			continue;
		rc = st_stream_flush(streams[i].s);
		if (rc) {
			st_disable("cannot write '%s': %s", trace_path,
				   strerror(-rc));
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/*
 * 'buf' (of '*cap' elements of 'size' bytes) with room for 'n', at
 * least 64: 'buf' itself or where it moved; NULL when out of memory
 * ('buf' stays as it was).
 */
static void *tls_buf(void *buf, int *cap, int n, size_t size)
{
	int want = n < 64 ? 64 : n;

	if (n <= *cap)
		return buf;
	if (!(buf = realloc(buf, (size_t)want * size)))
		return NULL;
	*cap = want;
	return buf;
}

uint64_t *st_snap_buf(int n)
{
	uint64_t *p;

	if (!st_tls.snap)
		st_tls_adopt();
	p = tls_buf(st_tls.snap, &st_tls.snapcap, n, sizeof(*p));

	return p ? (st_tls.snap = p) : NULL;
}

MPI_Status *st_status_buf(int n)
{
	MPI_Status *p;

	if (!st_tls.stbuf)
		st_tls_adopt();
	p = tls_buf(st_tls.stbuf, &st_tls.stcap, n, sizeof(*p));

	return p ? (st_tls.stbuf = p) : NULL;
}

/* MPI_Init: the run directory, the trace file and its header. */

static void fn_table_init(void)
{
	int i;

	for (i = 1; i < ST_FN_COUNT; i++) {
		const struct st_fn_info *fi = &st_fn_info[i];
		unsigned need = 0;

		switch (fi->kind) {
		case ST_KIND_COLL:
			if (fi->bytes >= ST_BYTES_NBR_ALLGATHER &&
			    fi->bytes <= ST_BYTES_NBR_ALLTOALLW)
				need = ST_FAMILY_NEIGHBOR;
			else if (fi->family == ST_FAM_NONBLOCKING)
				need = ST_FAMILY_NONBLOCKING;
			else if (fi->family == ST_FAM_PERSISTENT)
				need = ST_FAMILY_PERSISTENT;
			else
				need = ST_FAMILY_BLOCKING;
			break;
		case ST_KIND_P2P:
			need = ST_FAMILY_P2P;
			break;
		case ST_KIND_COMPLETE:
			need = ST_FAMILY_COMPLETE;
			break;
		case ST_KIND_COMM:
			need = ST_FAMILY_COMM;
			break;
		case ST_KIND_PART:
			need = ST_FAMILY_P2P;
			break;
		case ST_KIND_WIN:
		case ST_KIND_RMA:
			need = ST_FAMILY_RMA;
			break;
		case ST_KIND_FILE:
		case ST_KIND_IO:
			need = ST_FAMILY_IO;
			break;
		}
		if (!need || (st_set.families & need))
			st_fn_on[i] = 1;
		else
			st_fn_on[i] = fi->kind == ST_KIND_COMM ? ST_FN_KEEP : 0;
	}
}

int st_run_index_append(const char *text)
{
	char path[PATH_MAX + 32];
	int fd;

	/* Only the index this run created: never another run's. */
	if (st_rank != 0 || index_fd < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", run_dir, ST_RUN_INDEX);
	if ((fd = own_fd_checked(&index_own, path)) < 0)
		return -EBADF;
	/* As the trace: whole, and never death by SIGXFSZ. */
	return st_sink_fd_write((void *)(intptr_t)fd, text, strlen(text));
}

/*
 * Tell `synctrace run` (SYNCTRACE_NOTIFY, a file it made and reads when
 * the job is over) about this run: "run\tDIR" or "off\tWHY", one line,
 * from rank 0.  Nothing when the file is not there (another node).
 */
static void notify(const char *what, const char *text)
{
	char line[PATH_MAX + 512];
	struct stat st;
	int fd, n;

	if (st_rank != 0 || !st_set.notify[0] || strchr(text, '\n'))
		return;
	n = snprintf(line, sizeof(line), "%s\t%s\n", what, text);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	/*
	 * Never blocking (a FIFO nobody reads held rank 0 in MPI_Init for
	 * good), and only into a regular file, as `synctrace run` makes.
	 */
	fd = open(st_set.notify, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC |
		  O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	if (st_sink_fd_write((void *)(intptr_t)fd, line, (size_t)n))
		st_log(1, "cannot write '%s'", st_set.notify);
	close(fd);
}

static void cmdline(char *buf, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n, i;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	buf[n] = '\0';
}

/* The first word of the command line, for %x. */
static void exe_name(char *buf, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

/* What rank 0 tells the others about the run directory. */
struct dir_msg {
	int err;		/* 0, or tracing is off ('why' says why) */
	char path[PATH_MAX];
	char id[ST_RUN_ID_MAX];
	char why[PATH_MAX + 128];
};

/*
 * Rank 0: expand the SYNCTRACE_DIR pattern (docs/runs.md), claim a new
 * directory by that name or the next free one, give the run its id and
 * write the start of the index.
 */
static void claim_run_dir(struct dir_msg *m)
{
	struct st_run_facts f;
	char pattern[PATH_MAX + 32], name[PATH_MAX], base[PATH_MAX];
	char exe[PATH_MAX], host[256] = "", cmd[2048], text[4096];
	const char *given = st_set.dir;
	size_t len = strlen(given);
	int rc, adopt, fd;

	/* A name ending in '/' is a parent for a default-named run. */
	adopt = len && given[len - 1] != '/';
	snprintf(pattern, sizeof(pattern), "%s%s", given,
		 adopt ? "" : ST_RUN_DEFAULT_NAME);
	exe_name(exe, sizeof(exe));
	gethostname(host, sizeof(host) - 1);
	st_run_facts_env(&f);
	f.exe = exe;
	f.host = host;
	f.t = time(NULL);
	f.pid = (long)getpid();
	f.nranks = st_size;
	rc = st_run_name_expand(pattern, &f, name, sizeof(name));
	if (!rc && name[0] != '/') {
		/* All ranks must agree: rank 0's directory, absolute. */
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)))
			rc = -errno;
		else if ((size_t)snprintf(base, sizeof(base), "%s/%s", cwd,
					  name) >= sizeof(base))
			rc = -ENAMETOOLONG;
	} else if (!rc) {
		memcpy(base, name, sizeof(base));
	}
	if (rc) {
		m->err = -rc;
		snprintf(m->why, sizeof(m->why), "cannot make a run directory "
			 "name of '%s': %s", pattern, strerror(-rc));
		return;
	}
	rc = st_run_dir_claim(base, adopt, m->path, sizeof(m->path), &fd);
	if (!rc) {
		index_fd = fd_high(fd);
		fd_note(index_fd, &index_own);
	}
	if (rc == -EEXIST) {
		m->err = EEXIST;
		snprintf(m->why, sizeof(m->why), "cannot create a run "
			 "directory: '%s' and '%s.1' to '%s.%d' are all taken",
			 base, base, base, ST_RUN_MAX_NAMES - 1);
		return;
	}
	if (rc) {
		m->err = -rc;
		snprintf(m->why, sizeof(m->why), "cannot create '%s': %s",
			 m->path, strerror(-rc));
		return;
	}
	st_run_id_make(m->id, sizeof(m->id), host, f.t, f.pid);
	cmdline(cmd, sizeof(cmd));
	snprintf(text, sizeof(text),
		 "run_id=%s\nnranks=%d\ncmdline=%s\nstart_unix=%lld\n",
		 m->id, st_size, cmd, (long long)f.t);
	rc = st_run_index_append(text);
	if (rc) {
		m->err = -rc;
		snprintf(m->why, sizeof(m->why), "cannot write '%s/%s': %s",
			 m->path, ST_RUN_INDEX, strerror(-rc));
	}
}

/*
 * Rank 0 makes the run directory and tells the others its path and the
 * run's id, or why it could not.  Returns 0 when every rank may go on.
 */
static int make_run_dir(void)
{
	static struct dir_msg msg;

	memset(&msg, 0, sizeof(msg));
	if (st_rank == 0)
		claim_run_dir(&msg);
	PMPI_Bcast(&msg, (int)sizeof(msg), MPI_BYTE, 0, st_comm);
	if (msg.err) {
		if (st_rank == 0) {
			st_disable("%s", msg.why);
			notify("off", msg.why);
		}
		atomic_store(&st_on, 0);
		return -1;
	}
	memcpy(run_dir, msg.path, sizeof(run_dir));
	memcpy(run_id, msg.id, sizeof(run_id));
	notify("run", run_dir);
	return 0;
}

static int open_trace(int thread_level)
{
	char host[256] = "", cfg[512], clk[256], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	char rank_s[16], size_s[16], pid_s[16], res_s[32], cost_s[32];
	char start_s[32], level_s[16], cmd[2048];
	char yield_s[4], ncores_s[16];
	struct st_kv kv[20];
	double res, cost;
	int n = 0, len = 0, rc;

	if (make_run_dir())
		return -1;
	snprintf(trace_path, sizeof(trace_path), "%s/" ST_RUN_RANK_FMT,
		 run_dir, st_rank);
	trace_fd = st_run_rank_create(run_dir, st_rank);
	if (trace_fd < 0) {
		st_disable("cannot create '%s': %s", trace_path,
			   strerror(-trace_fd));
		trace_fd = -1;
		return -1;
	}
	trace_fd = fd_high(trace_fd);
	fd_note(trace_fd, &trace_own);
	gethostname(host, sizeof(host) - 1);
	st_config_describe(&st_set, cfg, sizeof(cfg));
	st_clock_describe(clk, sizeof(clk), &res, &cost);
	lib[0] = '\0';
	PMPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = '\0';
	cmdline(cmd, sizeof(cmd));
	snprintf(rank_s, sizeof(rank_s), "%d", st_rank);
	snprintf(size_s, sizeof(size_s), "%d", st_size);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(res_s, sizeof(res_s), "%.3f", res);
	snprintf(cost_s, sizeof(cost_s), "%.1f", cost);
	snprintf(start_s, sizeof(start_s), "%lld", (long long)time(NULL));
	snprintf(level_s, sizeof(level_s), "%d", thread_level);
	snprintf(yield_s, sizeof(yield_s), "%d", st_set.yield);
	/* So a report can tell when ranks outnumber the host's cores. */
	snprintf(ncores_s, sizeof(ncores_s), "%ld",
		 sysconf(_SC_NPROCESSORS_ONLN));
	kv[n++] = (struct st_kv){ "run_id", run_id };
	kv[n++] = (struct st_kv){ "rank", rank_s };
	kv[n++] = (struct st_kv){ "size", size_s };
	kv[n++] = (struct st_kv){ "host", host };
	kv[n++] = (struct st_kv){ "pid", pid_s };
	kv[n++] = (struct st_kv){ "clock", clk };
	kv[n++] = (struct st_kv){ "clock_res_ns", res_s };
	kv[n++] = (struct st_kv){ "clock_cost_ns", cost_s };
	kv[n++] = (struct st_kv){ "mpi_library", lib };
	kv[n++] = (struct st_kv){ "cmdline", cmd };
	kv[n++] = (struct st_kv){ "config", cfg };
	kv[n++] = (struct st_kv){ "yield", yield_s };
	kv[n++] = (struct st_kv){ "thread_level", level_s };
	kv[n++] = (struct st_kv){ "fn_table", ST_FN_TABLE_HASH };
	kv[n++] = (struct st_kv){ "synctrace_version", ST_VERSION };
	kv[n++] = (struct st_kv){ "t_start_unix", start_s };
	kv[n++] = (struct st_kv){ "ncores", ncores_s };
	rc = st_trace_write_header(&sink, kv, (size_t)n);
	if (rc) {
		st_disable("cannot write '%s': %s", trace_path, strerror(-rc));
		return -1;
	}
	return 0;
}

/*
 * Exit without MPI_Finalize: other threads may still be making MPI
 * calls, so their streams are written only when idle.  The argument,
 * with T a thread that appends and E this one:
 *
 *   T: busy = 1; compiler barrier; if (st_on) { append; busy = 0 (rel) }
 *      else busy = 0                                 (st_busy_enter())
 *   E: st_on = 0; membarrier(); wait for busy == 0 (acq); write
 *
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes every thread of
 * the process run a full memory barrier at some point P of its program
 * before it returns (a thread not running has one at its context
 * switch).  If T's store of busy = 1 comes before P, it is visible to
 * E's reads after the call, so E waits for the release that ends the
 * append, which makes T's records visible to E (acquire).  If it comes
 * after P, T's load of st_on that follows it (in program order, which
 * the compiler barrier keeps) comes after P too and reads 0: T leaves
 * the stream alone.  Either way E never writes a stream T is changing,
 * and T's hot path pays only a compiler barrier and one more load of
 * st_on, no fence.  Without membarrier (a kernel before 4.14, or a
 * seccomp filter that forbids it) E sleeps 0.1 ms instead: a T between
 * its two steps is either descheduled, which is a barrier, or running,
 * and its store leaves the store buffer in far less; likely, not
 * guaranteed by the memory model.  A stream whose append outlasts
 * ST_IDLE_WAIT_NS (all streams together) is not written: its thread
 * may be changing it until the process ends.
 */
static void stop_appends(void)
{
	struct timespec pause = { 0, 100000 };

	atomic_store(&st_on, 0);
	if (!membarrier_ok ||
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
		nanosleep(&pause, NULL);
}

static int flush_exit(struct st_stream *s, void *ctx)
{
	int rc = st_stream_flush(s);

	(void)ctx;
	if (rc)
		st_disable("cannot write '%s': %s", trace_path, strerror(-rc));
	return rc;
}

/*
 * A fatal signal's handler stopped tracing (see on_signal()) and the
 * program went on (its own handler took the signal): say so once, from
 * MPI_Finalize or exit, since the handler itself cannot.
 */
static void say_stopped(void)
{
	static int said;
	int sig = fatal_sig;

	if (!sig || said || getpid() != trace_pid)
		return;
	said = 1;
	st_log_print("tracing stopped at signal %d (%s), which the program's "
		     "own handler took and went on from; the trace ends there",
		     sig, strsignal(sig));
}

/*
 * Write every idle stream at exit; 'last': the process ends here, else
 * tracing goes on after, for exit handlers still to come.  Exit runs
 * atexit() handlers in reverse order of registration, then the
 * libraries' destructors (ours before those of the libraries we use).
 * So this runs twice: from an atexit() handler registered at MPI_Init,
 * before the handlers the application registered earlier (one may end
 * the process with _exit()), and, last, from a destructor, after them
 * all (one may make MPI calls or call MPI_Finalize, which then finds
 * tracing on and the run is complete).  quick_exit() runs neither: for
 * it, the last one is an at_quick_exit() handler registered at MPI_Init.
 */
static void exit_flush(int last)
{
	static int busy_said;
	int n, skipped, first;

	if (!finalized)
		say_stopped();
	if (finalized || !atomic_load(&st_on) || getpid() != trace_pid)
		return;
	stop_appends();
	n = atomic_load(&nstreams);
	if (n > MAX_STREAMS)
		n = MAX_STREAMS;
	skipped = st_slots_flush_idle(streams, n, st_tls.slot, ST_IDLE_WAIT_NS,
				      flush_exit, NULL, &first);
	if (skipped && !busy_said++)
		st_log_print("%d thread stream%s still busy at exit (the "
			     "first: stream %d), not written; %s last records "
			     "may be missing", skipped, skipped == 1 ? "" : "s",
			     first, skipped == 1 ? "its" : "their");
	/*
	 * A stream written is empty again, one skipped was not touched;
	 * not after an error, nor after a fatal signal's handler wrote the
	 * streams meanwhile.
	 */
	if (!last && !atomic_load(&warned) && !fatal_sig)
		atomic_store(&st_on, 1);
}

static void on_exit_early(void)
{
	exit_flush(0);
}

__attribute__((destructor)) static void on_exit_last(void)
{
	exit_flush(1);
}

/*
 * Fatal signals.  A rank that dies of a signal or ends in MPI_Abort
 * still writes what its streams hold: as stored chunks, with write(2)
 * only (st_stream_flush_raw: no allocation, lock or stdio, so safe in a
 * handler), waiting a bounded time for a stream that another thread is
 * appending to, and skipping the stream whose append the signal
 * interrupted (its records are half made).  Then the signal goes on as
 * it would have without synctrace: to the handler the application had
 * installed, or, where it had none, the default action, so the process
 * dies of the same signal with the same exit status and core dump.
 *
 * The fault signals are taken wherever the application does not ignore
 * them, and chained to its handler; the termination signals only where
 * it left their default action, since a program that handles SIGTERM
 * usually means to finish and call MPI_Finalize, whose flush is better.
 * A handler that returns (after a fault it repaired) finds tracing off:
 * streams written from a handler cannot go on safely.
 */
static const int fault_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL };
/*
 * Besides the usual ones: SIGXCPU and SIGUSR1, which batch systems send
 * at a soft CPU or run time limit (LSF's CPULIMIT, SGE's s_cpu and
 * s_rt, Slurm's --signal), SIGUSR2, SIGALRM, and SIGXFSZ and SIGPIPE,
 * which the program's own writes raise: each ends the process by
 * default.
 */
static const int term_sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU,
				 SIGUSR1, SIGUSR2, SIGALRM, SIGXFSZ, SIGPIPE };
#define NFAULT (int)(sizeof(fault_sigs) / sizeof(*fault_sigs))
#define NTERM (int)(sizeof(term_sigs) / sizeof(*term_sigs))
#define NSIGS (NFAULT + NTERM)
static struct {
	int sig;
	int ours;		/* our handler is installed */
	struct sigaction old;	/* what the application had */
} caught[NSIGS];
static atomic_int fatal_flushed;

/* flush_fatal()'s writing of one stream, to descriptor 'ctx'. */
static int flush_raw(struct st_stream *s, void *ctx)
{
	return st_stream_flush_raw(s, (int)(intptr_t)ctx);
}

/*
 * Write every stream that can be written; once.  Async-signal-safe.
 * Another thread's stream that is being appended to is waited for, as
 * at exit but longer (ST_FATAL_WAIT_NS: an append may be writing a
 * chunk); this thread's, when busy, was interrupted and is left.
 */
static void flush_fatal(void)
{
	int first, n = atomic_load(&nstreams), fd = atomic_load(&trace_fd);

	if (fd < 0 || finalized || getpid() != trace_pid ||
	    atomic_exchange(&fatal_flushed, 1))
		return;
	/*
	 * Closed by the application: the file again by name, without
	 * own_fd_checked()'s lock and message (open() and fstat() are
	 * async-signal-safe); left open, as the process is ending.
	 */
	if (!fd_is(fd, trace_own.dev, trace_own.ino) &&
	    (fd = own_reopen(&trace_own, trace_path)) < 0)
		return;
	stop_appends();
	if (n > MAX_STREAMS)
		n = MAX_STREAMS;
	st_slots_flush_idle(streams, n, st_tls.slot, ST_FATAL_WAIT_NS,
			    flush_raw, (void *)(intptr_t)fd, &first);
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	struct sigaction dfl, *old = &dfl;
	int i, saved = errno;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < NSIGS; i++)
		if (caught[i].sig == sig)
			old = &caught[i].old;
	if (!fatal_sig && atomic_load(&st_on) && getpid() == trace_pid)
		fatal_sig = sig;
	flush_fatal();
	if (!(old->sa_flags & SA_SIGINFO) &&
	    (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN)) {
		/*
		 * The default action: put it back and raise the signal
		 * again.  It is blocked here, so it comes when this
		 * handler returns (and a fault's instruction would fault
		 * again anyway).
		 */
		sigaction(sig, old, NULL);
		raise(sig);
		errno = saved;
		return;
	}
	/*
	 * The application's handler, as the kernel would have called it:
	 * with its mask, and without 'sig' blocked if it asked for that
	 * (SA_NODEFER; a handler that leaves by longjmp() must find the
	 * signal unblocked at its next fault, or that fault kills).
	 */
	if (old->sa_flags & SA_RESETHAND)
		sigaction(sig, &dfl, NULL);
	pthread_sigmask(SIG_BLOCK, &old->sa_mask, NULL);
	if (old->sa_flags & SA_NODEFER) {
		sigset_t self;

		sigemptyset(&self);
		sigaddset(&self, sig);
		pthread_sigmask(SIG_UNBLOCK, &self, NULL);
	}
	errno = saved;
	if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, info, uc);
	else
		old->sa_handler(sig);
}

/* Take signal 'sig' into slot 'k'; 'term': only from its default. */
static void catch_signal(int k, int sig, int term)
{
	struct sigaction sa, old;

	caught[k].sig = sig;
	if (sigaction(sig, NULL, &old))
		return;
	if (!(old.sa_flags & SA_SIGINFO) &&
	    (old.sa_handler == SIG_IGN ||
	     (term && old.sa_handler != SIG_DFL)))
		return;
	if (term && (old.sa_flags & SA_SIGINFO))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (old.sa_flags & SA_RESTART);
	sigemptyset(&sa.sa_mask);
	caught[k].old = old;
	if (!sigaction(sig, &sa, NULL))
		caught[k].ours = 1;
}

static void catch_signals(void)
{
	int i;

	for (i = 0; i < NFAULT; i++)
		catch_signal(i, fault_sigs[i], 0);
	for (i = 0; i < NTERM; i++)
		catch_signal(NFAULT + i, term_sigs[i], 1);
}

/* At MPI_Finalize: give back what the application had, unless it took it. */
static void release_signals(void)
{
	struct sigaction now;
	int i;

	for (i = 0; i < NSIGS; i++) {
		if (!caught[i].ours || sigaction(caught[i].sig, NULL, &now))
			continue;
		if ((now.sa_flags & SA_SIGINFO) &&
		    now.sa_sigaction == on_signal)
			sigaction(caught[i].sig, &caught[i].old, NULL);
		caught[i].ours = 0;
	}
}

/*
 * MPI_Abort: record the call and write what is buffered, then let it
 * go on to PMPI_Abort, which ends the process.
 */
static void abort_pre(struct st_call *c)
{
	struct st_event ev;

	if (atomic_load(&st_on)) {
		st_event_clear(&ev);
		ev.kind = ST_REC_CALL;
		ev.fn = (uint16_t)c->fn;
		ev.t0 = ev.t1 = st_clock_ns(st_now());
		ev.site = st_site_get(c->ra);
		st_emit(&ev);
	}
	flush_fatal();
}

/* One of our MPI_Init, MPI_Init_thread or MPI_Session_init ran. */
static int init_seen;

/*
 * At exit, a process in which none of our initialisations ran though
 * MPI was initialised (the program reached the MPI library's own
 * symbols: dlopen() and dlsym() on it, as some language bindings do) or
 * its executable has an MPI of its own (linked statically): nothing of
 * it was traced.  Said once, by rank 0 where the launcher tells the
 * rank, so that it is not invisible.  Our destructor runs before the MPI
 * library's, which we depend on.
 */
__attribute__((destructor)) static void init_unseen(void)
{
	static const char *const rank_vars[] = {
		"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID",
		NULL
	};
	const char *r = NULL, *msg;
	int in = 0, fin = 0, i;

	if (init_seen || PMPI_Initialized(&in) != MPI_SUCCESS ||
	    PMPI_Finalized(&fin) != MPI_SUCCESS)
		return;
	for (i = 0; rank_vars[i] && !r; i++)
		r = getenv(rank_vars[i]);
	if (r && strcmp(r, "0"))
		return;
	if (in || fin)
		msg = "synctrace: this program initialised MPI without "
		      "calling the MPI_Init that synctrace interposes (it "
		      "found the MPI library's own, through dlsym?): nothing "
		      "of it was traced\n";
	else if (st_exe_has_mpi())
		msg = "synctrace: this program has MPI linked into it "
		      "statically (its executable defines MPI_Init), which "
		      "no preloaded library can interpose: nothing of it was "
		      "traced; link it with the shared MPI library (mpicc's "
		      "default) to trace it\n";
	else
		return;
	say(msg, (int)strlen(msg));
}

/*
 * Whether the job is traced, decided alike on every rank.  Ranks may
 * have different environments (an MPMD job: `mpiexec -n 1 ./a : -n 1
 * -env SYNCTRACE_DISABLE 1 ./b`), and a rank that stepped aside here
 * while the others went on to PMPI_Comm_dup would hold them there for
 * good.  So one reduction over the job, the first call after PMPI_Init
 * (no call of the application's can be pending on the communicator):
 * when any rank has SYNCTRACE_DISABLE=1 no rank traces, and rank 0
 * says so if not every rank has it; else when any rank has a bad
 * setting no rank traces, and rank 0 says the lowest such rank's
 * message.  Returns 0 when the job is traced.
 */
static int agree_on(void)
{
	char why[sizeof(config_err) + 64];
	int mine[3], all[3], bad;

	mine[0] = st_set.disable;
	mine[1] = !st_set.disable;
	mine[2] = !st_set.disable && config_bad ? st_size - st_rank : 0;
	if (PMPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, st_world) !=
	    MPI_SUCCESS)
		return -1;
	if (all[0]) {
		if (all[1] && st_rank == 0) {
			snprintf(why, sizeof(why), "SYNCTRACE_DISABLE=1 is "
				 "set for some ranks only, so no rank is "
				 "traced");
			st_disable("%s", why);
			notify("off", why);
		}
		return -1;
	}
	if (!all[2])
		return 0;
	bad = st_size - all[2];
	PMPI_Bcast(config_err, (int)sizeof(config_err), MPI_CHAR, bad,
		   st_world);
	if (st_rank == 0) {
		if (bad)
			snprintf(why, sizeof(why), "%s (in the environment "
				 "of rank %d)", config_err, bad);
		else
			snprintf(why, sizeof(why), "%s", config_err);
		st_disable("%s", why);
		notify("off", why);
	}
	return -1;
}

/*
 * Rank 0's settings that make ranks exchange messages, for every rank:
 * which calls are traced (a traced window's or file's id is agreed with
 * a collective of synctrace's on its communicator, which an untraced
 * rank never joins), and the clock synchronisation (its messages, how
 * many and between whom).  Ranks with different SYNCTRACE_FAMILIES or
 * SYNCTRACE_SYNC* variables (an MPMD job's -env) would wait for
 * messages that never come, or take synctrace's for the application's.
 * A rank whose own differ says so.
 */
static void agree_settings(void)
{
	long long mine[9] = {
		st_set.sync_method, st_set.sync_node, st_set.sync_points,
		st_set.sync_exchanges, st_set.sync_pingpongs,
		st_set.sync_span_ms, st_set.sync_check,
		(long long)st_set.sync_interval_ms, st_set.families
	};
	long long r0[9];
	int fam, sync;

	memcpy(r0, mine, sizeof(r0));
	if (PMPI_Bcast(r0, 9, MPI_LONG_LONG, 0, st_comm) != MPI_SUCCESS ||
	    !memcmp(r0, mine, sizeof(r0)))
		return;
	sync = memcmp(r0, mine, 8 * sizeof(r0[0])) != 0;
	fam = r0[8] != mine[8];
	st_set.sync_method = (int)r0[0];
	st_set.sync_node = (int)r0[1];
	st_set.sync_points = (int)r0[2];
	st_set.sync_exchanges = (int)r0[3];
	st_set.sync_pingpongs = (int)r0[4];
	st_set.sync_span_ms = (long)r0[5];
	st_set.sync_check = (int)r0[6];
	st_set.sync_interval_ms = (uint64_t)r0[7];
	st_set.families = (unsigned)r0[8];
	st_log_print("its %s%s%s differ from rank 0's; it takes rank 0's",
		     fam ? "SYNCTRACE_FAMILIES" : "",
		     fam && sync ? " and " : "",
		     sync ? "SYNCTRACE_SYNC* settings" : "");
}

void st_init_pre(struct st_call *c, int fn, void *ra)
{
	init_seen = 1;
	stderr_note();
	if (st_session_pre(c, fn, ra))
		return;
	c->fn = fn;
	c->ra = ra;
	st_tls.guard = 1;
	if (st_abi_check())
		return;		/* another MPI's process: touch nothing */
	if (st_config_load(&st_set, config_err, sizeof(config_err)))
		config_bad = 1;
	st_clock_begin();
}

void st_init_post(struct st_call *c, int rc)
{
	struct st_event ev;
	int level = MPI_THREAD_SINGLE;

	if (st_foreign) {
		st_tls.guard = 0;
		return;
	}
	if (st_session_post(c, rc))
		return;
	if (rc != MPI_SUCCESS) {
		st_tls.guard = 0;
		return;
	}
	PMPI_Comm_rank(st_world, &st_rank);
	PMPI_Comm_size(st_world, &st_size);
	if (agree_on()) {
		st_tls.guard = 0;
		return;
	}
	st_clock_end();
	/*
	 * The level MPI gives, which may be above the one asked for: Open
	 * MPI's OMPI_MPI_THREAD_LEVEL and MPICH's
	 * MPIR_CVAR_DEFAULT_THREAD_LEVEL raise even MPI_Init's, and a
	 * program may then learn it from MPI_Query_thread and make calls
	 * from several threads.
	 */
	if (PMPI_Query_thread(&level) != MPI_SUCCESS)
		level = c->a.provided ? *c->a.provided : MPI_THREAD_SINGLE;
	st_mt = level == MPI_THREAD_MULTIPLE;
	st_cfg.yield = st_set.yield;
	st_flush_interval_ns = st_set.flush_ms * 1000000u;
	if (PMPI_Comm_dup(st_world, &st_comm) != MPI_SUCCESS) {
		st_comm = MPI_COMM_NULL;
		st_disable("cannot duplicate MPI_COMM_WORLD");
		st_tls.guard = 0;
		return;
	}
	agree_settings();
	st_req_init(st_mt, !!(st_set.families & ST_FAMILY_COMPLETE));
	fn_table_init();
	/*
	 * From here on this rank keeps communicator ids and sequence numbers
	 * in step with the others (st_live), even if it cannot write: other
	 * ranks' id agreements must not wait for it.
	 */
	atomic_store(&st_live, 1);
	if (open_trace(level) == 0) {
		trace_pid = getpid();
		if (st_set.async)
			writer_start();
		atomic_store(&st_on, 1);
	}
	st_comm_init();
	st_objects_emit();
	st_sync_start();
	/* What synctrace did since PMPI_Init returned, for analyses. */
	st_event_clear(&ev);
	ev.kind = ST_REC_MARK;
	ev.fn = ST_MARK_INIT;
	ev.t0 = st_clock_ns(c->t1);
	ev.t1 = st_clock_ns(st_now());
	st_emit(&ev);
	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)c->fn;
	ev.t0 = st_clock_ns(c->t0);
	ev.t1 = st_clock_ns(c->t1);
	ev.site = st_site_get(c->ra);
	st_emit(&ev);
	if (atomic_load(&st_on)) {
		membarrier_ok = !syscall(SYS_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
		atexit(on_exit_early);
		at_quick_exit(on_exit_last);
		catch_signals();
	}
	st_tls.guard = 0;
}

void st_finalize_pre(struct st_call *c, int fn, void *ra)
{
	struct st_event ev;
	uint64_t t0 = st_now();
	int ok, all = 0;
	char text[64];

	/* MPI_Abort writes the buffers however tracing was started. */
	if (fn == ST_FN_MPI_ABORT) {
		c->plain = 0;
		c->fn = fn;
		c->ra = ra;
		st_tls.guard = 1;
		abort_pre(c);
		return;
	}
	if (st_session_pre(c, fn, ra))
		return;
	c->fn = fn;
	c->ra = ra;
	st_tls.guard = 1;
	if (st_comm == MPI_COMM_NULL)
		return;
	say_stopped();
	ST_SELF_REPORT(st_rank);
	st_sync_finish();
	ok = atomic_load(&st_on) && flush_all() == 0;
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, st_comm);
	if (st_rank == 0 && index_fd >= 0) {
		snprintf(text, sizeof(text), "complete=%d\n", all);
		st_run_index_append(text);
		if (fd_is(index_fd, index_own.dev, index_own.ino))
			close(index_fd);
		index_fd = -1;
	}
	PMPI_Comm_free(&st_comm);
	st_comm = MPI_COMM_NULL;
	atomic_store(&st_live, 0);
	if (atomic_load(&st_on)) {
		st_event_clear(&ev);
		ev.kind = ST_REC_MARK;
		ev.fn = ST_MARK_FINALIZE;
		ev.t0 = st_clock_ns(t0);
		ev.t1 = st_clock_ns(st_now());
		st_emit(&ev);
		/*
		 * On disk before PMPI_Finalize: a finalize that hangs and is
		 * killed (seen with UCX's TCP transport) still leaves where
		 * the run ended.
		 */
		flush_all();
	}
	st_session_end();
}

void st_finalize_post(struct st_call *c, int rc)
{
	struct st_event ev;

	if (c->fn == ST_FN_MPI_ABORT) {
		/* PMPI_Abort returned, which it should not: nothing to do. */
		st_tls.guard = 0;
		return;
	}
	if (st_session_post(c, rc))
		return;
	if (atomic_load(&st_on)) {
		st_event_clear(&ev);
		ev.kind = ST_REC_CALL;
		ev.fn = (uint16_t)c->fn;
		ev.rc = rc;
		ev.t0 = st_clock_ns(c->t0);
		ev.t1 = st_clock_ns(c->t1);
		ev.site = st_site_get(c->ra);
		st_emit(&ev);
		flush_all();
		atomic_store(&st_on, 0);
	}
	writer_stop();
	release_signals();
	finalized = 1;
	if (fd_is(trace_fd, trace_own.dev, trace_own.ino)) {
		struct stat st;

		/* Written to the end, but into a file no name reaches. */
		if (!fstat(trace_fd, &st) && st.st_nlink == 0)
			st_log_print("'%s' was removed during the run: this "
				     "rank's trace is lost", trace_path);
		close(trace_fd);
	}
	trace_fd = -1;
	st_tls.guard = 0;
}

void *st_dlsym_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static __attribute__((constructor)) void st_load(void)
{
	st_site_init();
	st_gen_resolve();
	st_in_constructor = 1;
	st_abi_check();
	st_in_constructor = 0;
}
