/*
 * writer/stream.c: one thread's stream of records.  Records are encoded
 * into one of two buffers allocated once.  When it is full the owner
 * either flushes it on the spot (st_stream_flush: deflate, write) or
 * seals it (st_stream_seal) and goes on filling the other buffer while
 * some other thread deflates and writes the sealed one
 * (st_stream_write_sealed); so compression can leave the application's
 * critical path, with memory still bounded by two buffers and one
 * deflate output buffer.
 *
 * A buffer is FREE, FILLING (the owner's), SEALED (waiting to be
 * written), or BUSY (being written by whoever claimed it).  Claims are
 * compare-and-swaps, so the owner, a writer thread and a fatal-signal
 * handler (st_stream_flush_raw) never write the same records twice, and
 * a stream's chunks reach the sink in the order they were filled: the
 * owner writes its filling buffer only once the sealed one is gone.
 * Every buffer has room for a chunk header in front, so a stored chunk
 * is written straight from it.  Each chunk written takes the stream's
 * next sequence number (format.h), whichever thread writes it: chunks
 * are written one at a time and in order, so the numbers in the file
 * count up one by one.  A chunk that could not be written takes none:
 * its records are lost, as the writer was told, and what is in the file
 * still reads as one whole stream.
 *
 * A buffer that holds mostly repeats (st_stream_append_repeat) is coded
 * with less effort: what remains of a repeat is its two timestamp
 * residuals (in a run, format.h), noise that string matching cannot
 * shorten.  At level 1, the default, such a buffer is stored as it is:
 * Huffman coding would take a quarter off its 2.2 bytes a record, at a
 * cost per record that ranks that keep every core busy pay in full.  At
 * levels 2 to 5 it is Huffman-coded (writer/huff.h, a chunk method of
 * its own: zlib's Huffman coding alone, Z_HUFFMAN_ONLY, took four times
 * as long for the same bytes).
 * Members of loop runs (a loop's mixed records, format.h) do not count
 * as repeats here: stored, an application's loops would take more bytes
 * than deflated before loop runs were made (a halo exchange's 2.8 bytes
 * a record, 4.0 stored).
 * Any other buffer is coded with the coding (Huffman, context, or
 * zlib's with a strategy) that a probe of its last bytes, now and then,
 * found shortest (pick_strategy()); but at level 1 a coder dearer than
 * Huffman coding only while it keeps within a share of the time the
 * records take to come (affordable()): a rank that makes calls faster
 * than zlib can afford has its chunks context or Huffman coded.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "writer/encode.h"
#include "writer/event.h"
#include "writer/format.h"
#include "writer/huff.h"
#include "writer/stream.h"
#include "writer/writer.h"

/* The calling thread's CPU time in ns (0 when the clock fails). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int st_stream_new(struct st_stream **out, const struct st_sink *sink,
		  uint16_t index, size_t buf_bytes, int level)
{
	struct st_stream *s;
	int i;

	*out = NULL;
	if (!sink || !sink->write || buf_bytes < ST_STREAM_MIN_BUF ||
	    buf_bytes > ST_CHUNK_MAX_RAW || level < 0 || level > 9)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sink = sink;
	s->index = index;
	s->level = level;
	s->strategy = Z_DEFAULT_STRATEGY;
	s->pick = Z_DEFAULT_STRATEGY;
	s->cap = buf_bytes;
	s->cpu_ns = thread_cpu_ns;
	s->bound = compressBound((uLong)buf_bytes);
	for (i = 0; i < 2; i++)
		s->buf[i].raw = malloc(ST_CHUNK_HDR_LEN + buf_bytes +
				       ST_REC_MAX_FIXED);
	s->out = malloc(ST_CHUNK_HDR_LEN + s->bound);
	if (!s->buf[0].raw || !s->buf[1].raw || !s->out ||
	    deflateInit(&s->z, level) != Z_OK) {
		free(s->buf[0].raw);
		free(s->buf[1].raw);
		free(s->out);
		free(s);
		return -ENOMEM;
	}
	s->cur = 0;
	atomic_init(&s->buf[0].state, BUF_FILLING);
	atomic_init(&s->buf[1].state, BUF_FREE);
	s->pos = s->buf[0].raw + ST_CHUNK_HDR_LEN;
	s->limit = s->pos + buf_bytes;
	st_codec_init(&s->codec);
	*out = s;
	return 0;
}

static int appended(struct st_stream *s, uint8_t *p)
{
	/* A signal handler flushing this stream sees whole records only. */
	atomic_signal_fence(memory_order_release);
	s->nrec++;
	s->pos = p;
	return 0;
}

int st_stream_append_token(struct st_stream *s, const struct st_event *ev,
			   uint32_t token)
{
	uint8_t *p = s->pos;
	int rc;

	/*
	 * A stream's first record starts its first chunk's span (its first
	 * timed one: the t0 of an untimed record is 0).
	 */
	if (__builtin_expect(!s->chunk_t0, 0))
		s->chunk_t0 = ev->t0;
	rc = st_enc_record(&s->codec, &p, s->limit, ev, token);
	if (rc) {
		/* Never fits, even alone: flushing would not help. */
		if (rc == -ENOBUFS && !s->nrec)
			rc = -EINVAL;
		return rc;
	}
	return appended(s, p);
}

int st_stream_append(struct st_stream *s, const struct st_event *ev)
{
	return st_stream_append_token(s, ev, 0);
}

/* Any repeat: see st_stream_append_repeat(). */
static __attribute__((noinline)) int append_repeat(struct st_stream *s,
						   unsigned fn, uint32_t token,
						   uint64_t seq, uint64_t t0,
						   uint64_t t1)
{
	uint8_t *p = s->pos;
	int rc;

	rc = st_enc_repeat(&s->codec, &p, s->limit, fn, token, seq, t0, t1);
	if (rc)
		return rc;
	s->nrep++;
	return appended(s, p);
}

/*
 * append_repeat() of a repeat that joins the open run, whose fn and
 * token are therefore the codec's: the caller need not keep them.
 */
static __attribute__((noinline)) int append_run_repeat(struct st_stream *s,
						       uint64_t seq,
						       uint64_t t0,
						       uint64_t t1)
{
	return append_repeat(s, s->codec.last_fn, s->codec.run_token, seq, t0,
			     t1);
}

/*
 * The next member of a run takes no call and no register that must be
 * saved; anything else goes to append_repeat().
 */
int st_stream_append_repeat(struct st_stream *s, unsigned fn, uint32_t token,
			    uint64_t seq, uint64_t t0, uint64_t t1)
{
	uint8_t *p = s->pos;

	if (!st_enc_run_open(&s->codec, p, fn, token))
		return append_repeat(s, fn, token, seq, t0, t1);
	if (__builtin_expect(st_enc_run_next(&s->codec, &p, s->limit, seq, t0,
					     t1), 0))
		return append_run_repeat(s, seq, t0, t1);
	s->nrep++;
	return appended(s, p);
}

size_t st_stream_buffered(const struct st_stream *s)
{
	return (size_t)(s->pos - (s->buf[s->cur].raw + ST_CHUNK_HDR_LEN));
}

/* Fill the chunk header at 'hdr' for 'len' payload bytes after it. */
static void chunk_header(const struct st_stream *s, uint8_t *hdr, int method,
			 size_t raw_len, size_t len, uint32_t nrec,
			 uint32_t seq)
{
	memcpy(hdr, ST_CHUNK_MAGIC, ST_CHUNK_MAGIC_LEN);
	st_put_le16(hdr + 4, s->index);
	hdr[6] = (uint8_t)method;
	hdr[7] = 0;
	st_put_le32(hdr + 8, (uint32_t)raw_len);
	st_put_le32(hdr + 12, (uint32_t)len);
	st_put_le32(hdr + 16, nrec);
	st_put_le32(hdr + 20, seq);
	st_put_le32(hdr + 24, (uint32_t)crc32(0, hdr + ST_CHUNK_HDR_LEN,
					      (uInt)len));
	st_put_le32(hdr + 28, (uint32_t)crc32(0, hdr, 28));
}

/* The context coding (huff.h), as a strategy beside zlib's. */
#define ST_STRATEGY_CTX (-1)

/* struct st_stream.cost_ps: the coders that must keep to their share. */
enum { COST_CTX, COST_ZLIB };

/*
 * A coder that started at CPU time 't' has coded 'len' bytes: what a
 * byte cost it, for over_budget(); not from a few bytes.
 */
static void note_cost(struct st_stream *s, int which, uint64_t t, size_t len)
{
	uint64_t dt = s->cpu_ns() - t, ps;

	if (len < 4096 || !t || dt >= UINT64_MAX / 1000)
		return;
	/* At most 1 us a byte: len * cost_ps cannot overflow. */
	ps = dt * 1000 / len;
	s->cost_ps[which] = ps < 1000000 ? ps : 1000000;
}

/*
 * Deflate 'len' bytes of records at 'raw' into s->out with 'strategy';
 * '*clen' the payload's length.  Returns 0 or -EIO.
 */
static int deflate_chunk(struct st_stream *s, uint8_t *raw, size_t len,
			 int strategy, size_t *clen)
{
	uint64_t t = s->cpu_ns();

	if (deflateReset(&s->z) != Z_OK)
		return -EIO;
	if (strategy != s->strategy) {
		if (deflateParams(&s->z, s->level, strategy) != Z_OK)
			return -EIO;
		s->strategy = strategy;
	}
	s->z.next_in = raw + ST_CHUNK_HDR_LEN;
	s->z.avail_in = (uInt)len;
	s->z.next_out = s->out + ST_CHUNK_HDR_LEN;
	s->z.avail_out = (uInt)s->bound;
	if (deflate(&s->z, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	*clen = s->bound - s->z.avail_out;
	note_cost(s, COST_ZLIB, t, len);
	return 0;
}

/*
 * At level 1, the coders' share of the time: a chunk is deflated only
 * when zlib's CPU time for it, at what a byte cost zlib last on this
 * stream, is at most 1/50 of 'span', the ns its records took to come,
 * and context coded only when that coding's is at most 1/25; else it
 * takes the next cheaper coding: context coding (when the probe found
 * it shorter than Huffman coding) then Huffman coding, some 1.2 ns a
 * byte.  On the records of a CG-shaped loop of 470,000 records a
 * second, 3.9 bytes a record, deflate takes 12 ns a byte and the
 * context coding 3.2 for fewer bytes (docs/hotpath.md); on ranks that
 * keep every core busy the writer's time is the application's.  So a
 * rank whose chunks deflate at 12 ns a byte, 3 to 6 bytes a record,
 * keeps deflate up to some 300,000 to 600,000 records a second, and the
 * context coding (up to 3.2 ns a byte) up to 2 to 4 million.  Before a
 * coder ran once its cost is unknown, and so is the span of a chunk
 * without timestamps: neither is held against it.  Levels 2 to 9 ask
 * for the shortest chunks and have no such limit.
 */
static const uint64_t coder_share[] = { [COST_CTX] = 25, [COST_ZLIB] = 50 };

static int over_budget(const struct st_stream *s, int which, size_t len,
		       uint64_t span)
{
	if (s->level != 1 || !s->cost_ps[which] || !span)
		return 0;
	return (uint64_t)len * s->cost_ps[which] / 1000 >
	       span / coder_share[which];
}

/* 'strategy', or the cheaper one its share of the time leaves. */
static int affordable(const struct st_stream *s, int strategy, size_t len,
		      uint64_t span)
{
	if (strategy != Z_HUFFMAN_ONLY && strategy != ST_STRATEGY_CTX &&
	    over_budget(s, COST_ZLIB, len, span))
		strategy = s->ctx_better ? ST_STRATEGY_CTX : Z_HUFFMAN_ONLY;
	if (strategy == ST_STRATEGY_CTX &&
	    over_budget(s, COST_CTX, len, span))
		strategy = Z_HUFFMAN_ONLY;
	return strategy;
}

/* The ns the filling buffer's records took, 0 when unknown. */
static uint64_t chunk_span(const struct st_stream *s)
{
	uint64_t t1 = s->codec.last_t1;

	return s->chunk_t0 && t1 > s->chunk_t0 ? t1 - s->chunk_t0 : 0;
}

/*
 * The strategy for a chunk that is not mostly repeats (see the top of
 * the file): every ST_PROBE_EVERY such chunks, the first included, its
 * last ST_PROBE_BYTES are coded with each of Huffman coding alone
 * (huff.h, Z_HUFFMAN_ONLY here), the context coding (huff.h,
 * ST_STRATEGY_CTX), deflate's run-length matching and its full string
 * matching (unless zlib is over its share of the time, affordable()),
 * into s->out or only counted, and the shortest result names the
 * strategy of this chunk and the next ones (the first listed on a tie:
 * the cheaper; the two Huffman codings also when at most 1/31 longer
 * than zlib; the context coding against Huffman coding only when 1/8
 * shorter).  A loop of nonblocking calls leaves records whose bytes
 * are mostly timestamp residuals, where string matching finds little
 * and Huffman coding alone is as short and four times faster than
 * deflate's (docs/hotpath.md); an application's mixed records, whose
 * bytes depend on the bytes before them, are context coded, or
 * deflated where zlib finds more.  The probe costs some 2 % of the
 * deflating.  A
 * chunk between probes whose last bytes are not like the last probe's
 * (Huffman coding takes them to a ratio more than 1/8 away) is probed
 * at once: a run's first mixed chunk (start-up, then its loop) does not
 * fix the strategy of the 15 chunks after it.  The last bytes, not the
 * first: a chunk where a loop begins is coded as fits the loop, which
 * the next chunks will hold, not at deflate's full cost.
 */
#define ST_PROBE_EVERY 16
#define ST_PROBE_BYTES 65536
#define ST_CTX_MIN_LEN 32768

/*
 * Huffman coding's bytes out per byte in, times 2^16, on the first 'n'
 * bytes of the records at 'raw'; 2^16 when it would not shorten them.
 */
static uint64_t huff_ratio(const uint8_t *raw, size_t n)
{
	size_t clen = st_huff_size(raw + ST_CHUNK_HDR_LEN, n);

	return clen < n ? ((uint64_t)clen << 16) / n : 1u << 16;
}

static int pick_strategy(struct st_stream *s, uint8_t *raw, size_t len,
			 uint64_t span)
{
	static const int order[] = { Z_HUFFMAN_ONLY, ST_STRATEGY_CTX, Z_RLE,
				     Z_DEFAULT_STRATEGY };
	size_t huff = SIZE_MAX;
	size_t n = len < ST_PROBE_BYTES ? len : ST_PROBE_BYTES;
	size_t best = SIZE_MAX, clen;
	uint64_t r;
	unsigned i;

	/* The last bytes: what the next chunks are likeliest to be like. */
	raw += len - n;
	r = huff_ratio(raw, n);
	if (s->probe_in) {
		uint64_t d = r > s->huff_ratio ? r - s->huff_ratio
					       : s->huff_ratio - r;

		s->probe_in--;
		/*
		 * Unless the chunk's last bytes are no longer like those
		 * of the last probe: Huffman coding takes them (counting
		 * them is some 1 % of deflating the chunk) to a ratio more
		 * than 1/8 away from the probe's.
		 */
		if (d <= s->huff_ratio / 8)
			return 0;
	}
	s->probe_in = ST_PROBE_EVERY - 1;
	s->huff_ratio = r;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == Z_HUFFMAN_ONLY) {
			/*
			 * As long as the chunk would be (huff.h), counted
			 * 1/32 shorter than it is: it takes a quarter of
			 * the time of deflate's string or run matching.
			 */
			if (r >= 1u << 16)
				continue;
			clen = (size_t)((r * n) >> 16);
			huff = clen;
			clen -= clen / 32;
		} else if (order[i] == ST_STRATEGY_CTX) {
			/*
			 * Against Huffman coding, whose time it takes two
			 * to three times, only when 1/8 shorter; against
			 * zlib as Huffman coding is.
			 */
			clen = st_huff_ctx_size(raw + ST_CHUNK_HDR_LEN, n);
			s->ctx_better = clen < n && clen + clen / 7 < huff;
			if (!s->ctx_better)
				continue;
			clen -= clen / 32;
		} else if (over_budget(s, COST_ZLIB, len, span)) {
			/* zlib will not be used: not worth probing. */
			continue;
		} else if (deflate_chunk(s, raw, n, order[i], &clen)) {
			return -EIO;
		}
		if (clen < best) {
			best = clen;
			s->pick = order[i];
		}
	}
	return 0;
}

/*
 * Compress 'len' bytes of records (the 'nrec' in 'raw', 'nrep' of them
 * repeats) and write them as the next chunk.
 */
static int write_chunk(struct st_stream *s, uint8_t *raw, size_t len,
		       uint32_t nrec, uint32_t nrep, uint64_t span)
{
	int runs = nrep && nrep >= nrec / 4 * 3;
	size_t clen = len;
	uint8_t *chunk = raw;
	int rc, strategy, method = ST_CHUNK_STORED;

	/* Mostly runs at level 1: stored (see above). */
	if (s->level >= 1 && !(s->level == 1 && runs)) {
		if (runs && s->level <= 5) {
			strategy = Z_HUFFMAN_ONLY;
		} else {
			if (pick_strategy(s, raw, len, span))
				return -EIO;
			strategy = affordable(s, s->pick, len, span);
			/*
			 * Its tables take 2 KiB: not for a short chunk
			 * (the probe judged 64 KiB).
			 */
			if (strategy == ST_STRATEGY_CTX &&
			    len < ST_CTX_MIN_LEN)
				strategy = Z_HUFFMAN_ONLY;
		}
		if (strategy == ST_STRATEGY_CTX) {
			uint64_t t = s->cpu_ns();

			clen = st_huff_ctx_encode(raw + ST_CHUNK_HDR_LEN, len,
						  s->out + ST_CHUNK_HDR_LEN,
						  len - 1);
			note_cost(s, COST_CTX, t, len);
			method = ST_CHUNK_HUFF_CTX;
		} else if (strategy == Z_HUFFMAN_ONLY) {
			/* 0 when it would not be shorter than stored. */
			clen = st_huff_encode(raw + ST_CHUNK_HDR_LEN, len,
					      s->out + ST_CHUNK_HDR_LEN,
					      len - 1);
			method = ST_CHUNK_HUFF;
		} else {
			if (deflate_chunk(s, raw, len, strategy, &clen))
				return -EIO;
			method = ST_CHUNK_DEFLATE;
		}
		if (clen && clen < len)
			chunk = s->out;
	}
	if (chunk == raw) {
		/* Stored, or incompressible. */
		clen = len;
		method = ST_CHUNK_STORED;
	}
	chunk_header(s, chunk, method, len, clen, nrec, s->seq);
	rc = s->sink->write(s->sink->ctx, chunk, ST_CHUNK_HDR_LEN + clen);
	if (!rc)
		s->seq++;
	return rc;
}

/* Empty the filling buffer; a new chunk starts. */
static void reset(struct st_stream *s)
{
	s->pos = s->buf[s->cur].raw + ST_CHUNK_HDR_LEN;
	s->nrec = 0;
	s->nrep = 0;
	/* After a chunk without timestamps, the one before's end. */
	if (s->codec.last_t1)
		s->chunk_t0 = s->codec.last_t1;
	st_codec_reset(&s->codec);
}

int st_stream_write_sealed(struct st_stream *s)
{
	struct st_buf *b;
	int i, want, rc;

	for (i = 0; i < 2; i++) {
		b = &s->buf[i];
		want = BUF_SEALED;
		if (atomic_compare_exchange_strong(&b->state, &want, BUF_BUSY))
			break;
	}
	if (i == 2)
		return 0;
	rc = write_chunk(s, b->raw, b->len, b->nrec, b->nrep, b->span);
	atomic_store_explicit(&b->state, BUF_FREE, memory_order_release);
	return rc ? rc : 1;
}

int st_stream_sealed(const struct st_stream *s)
{
	int o = atomic_load_explicit(&s->buf[!s->cur].state,
				     memory_order_acquire);

	return o == BUF_SEALED || o == BUF_BUSY;
}

int st_stream_seal(struct st_stream *s)
{
	struct st_buf *b = &s->buf[s->cur], *o = &s->buf[!s->cur];

	if (!s->nrec)
		return 0;
	if (atomic_load_explicit(&o->state, memory_order_acquire) != BUF_FREE)
		return -EBUSY;
	b->len = st_stream_buffered(s);
	b->nrec = s->nrec;
	b->nrep = s->nrep;
	b->span = chunk_span(s);
	atomic_store_explicit(&o->state, BUF_FILLING, memory_order_relaxed);
	s->cur = !s->cur;
	reset(s);
	s->limit = s->pos + s->cap;
	/* Last: from here on a writer may claim it. */
	atomic_store_explicit(&b->state, BUF_SEALED, memory_order_release);
	return 1;
}

int st_stream_flush(struct st_stream *s)
{
	struct st_buf *b = &s->buf[s->cur];
	size_t len = st_stream_buffered(s);
	int rc = 0, r;

	/* The older records first: the sealed buffer, whoever writes it. */
	while (st_stream_sealed(s)) {
		r = st_stream_write_sealed(s);
		if (r < 0 && !rc)
			rc = r;
		if (!r)
			sched_yield();	/* another thread is writing it */
	}
	if (len) {
		r = write_chunk(s, b->raw, len, s->nrec, s->nrep,
				chunk_span(s));
		if (r && !rc)
			rc = r;
	}
	reset(s);
	return rc;
}

/* Write 'len' bytes of 'nrec' records at 'raw' as the next, stored, chunk. */
static int write_raw(struct st_stream *s, int fd, uint8_t *raw, size_t len,
		     uint32_t nrec)
{
	int rc;

	chunk_header(s, raw, ST_CHUNK_STORED, len, len, nrec, s->seq);
	rc = st_sink_fd_write((void *)(intptr_t)fd, raw,
			      ST_CHUNK_HDR_LEN + len);
	if (!rc)
		s->seq++;
	return rc;
}

int st_stream_flush_raw(struct st_stream *s, int fd)
{
	struct st_buf *o = &s->buf[!s->cur];
	struct timespec pause = { 0, 1000000 };
	size_t len = st_stream_buffered(s);
	int saved = errno, rc = 0, want = BUF_SEALED, i;

	/*
	 * The sealed buffer first.  Claimed by nobody: write it stored.
	 * Being written by another thread (which a signal handler does not
	 * interrupt: the writer thread blocks signals): give it a second,
	 * so that the chunks stay in order.
	 */
	if (atomic_compare_exchange_strong(&o->state, &want, BUF_BUSY)) {
		rc = write_raw(s, fd, o->raw, o->len, o->nrec);
		atomic_store(&o->state, BUF_FREE);
	}
	for (i = 0; i < 1000 && atomic_load(&o->state) == BUF_BUSY; i++)
		nanosleep(&pause, NULL);
	if (len) {
		int r = write_raw(s, fd, s->buf[s->cur].raw, len, s->nrec);

		if (!rc)
			rc = r;
	}
	reset(s);
	errno = saved;
	return rc;
}

void st_stream_free(struct st_stream *s)
{
	if (!s)
		return;
	deflateEnd(&s->z);
	free(s->buf[0].raw);
	free(s->buf[1].raw);
	free(s->out);
	free(s);
}
