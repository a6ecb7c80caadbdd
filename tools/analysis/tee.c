/*
 * tools/analysis/tee.c: every rank's records decoded once for several
 * readers (see tee.h).  Per rank: a list of chunks in stream order, each
 * with the number of readers still to read it ('refs'); a reader holds
 * the chunk it reads ('cur') and reads inside it without the lock.  A
 * chunk whose refs reach 0 leaves the list once it is the oldest, for
 * the rank's pool.  With 'conv', a chunk holds the records it took in
 * the caller's form ('slots', read in place: the only lines another
 * core wrote that a reader loads per record), the others whole.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/analysis/tee.h"
#include "writer/event.h"

/*
 * A record is its event up to its frames, then the fields after them;
 * its frames and text go in its chunk's bytes.  The tail must be those
 * fields alone.
 */
#define HEAD offsetof(struct st_event, frames)
_Static_assert(offsetof(struct st_event, addr) ==
	       HEAD + sizeof(((struct st_event *)0)->frames),
	       "st_event: addr follows frames");
_Static_assert(offsetof(struct st_event, len) ==
	       offsetof(struct st_event, addr) + sizeof(uint64_t),
	       "st_event: len follows addr");
_Static_assert(offsetof(struct st_event, text_len) ==
	       offsetof(struct st_event, len) + sizeof(uint64_t),
	       "st_event: text_len follows len");
_Static_assert(offsetof(struct st_event, text) + sizeof(const char *) ==
	       sizeof(struct st_event), "st_event: text is its last field");

struct trec {
	unsigned char head[HEAD];
	uint64_t addr, len;
	uint32_t text_len;
	uint8_t has_text;
	size_t off;			/* frames, then text, in 'bytes' */
};

struct chunk {
	struct chunk *next;
	uint64_t idx;			/* in the rank's stream of chunks */
	size_t n;			/* records */
	size_t nfull;			/* of them kept whole, in 'recs' */
	int refs;			/* readers still to read it */
	int end, end_rc;		/* the stream ends after it */
	char *end_msg;			/* end_rc < 0: its message */
	struct trec *recs;		/* [csize], those kept whole */
	uint32_t *fidx;			/* [csize]: the places of those
					   kept whole among the records */
	unsigned char *slots;		/* with conv: [csize] of rec_size,
					   the others' */
	unsigned char *bytes;
	size_t nbytes, abytes;
};

/*
 * Reader 'c' of rank 'r', guarded by the rank's lock but for 'pos' and
 * 'nread'; a cache line of its own (readers on other cores write theirs
 * at every record).
 */
struct cons {
	_Alignas(64)
	struct chunk *cur;		/* NULL before its first chunk */
	size_t pos;			/* next record in 'cur' */
	size_t fpos;			/* next of its records kept whole */
	size_t fnext;			/* its place in 'cur' (SIZE_MAX:
					   none): the reader needs no line
					   of the chunk but the record's */
	uint64_t nread;			/* records it got */
	int gone;			/* let go, or closed: holds no refs
					   but its 'cur' */
	int closed;
	void *own;			/* its own stream, once let go */
};

struct trank {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *h;
	struct chunk *head, *tail, *pool;
	uint64_t nprod;			/* chunks made */
	size_t nlive;			/* chunks with refs > 0 */
	int producing, nattached;
	struct st_event ev;		/* the producer's */
	char msg[1024];
};

struct st_tee {
	int nranks, nreaders;
	struct st_tee_stream s;
	size_t csize, maxlive;
	long wait_ms;
	struct trank *ranks;
	struct cons *cons;		/* [reader * nranks + rank] */
	atomic_uint_fast64_t let_go;	/* readers let go, any thread */
};

int st_tee_new(struct st_tee **out, int nranks, int nreaders,
	       const struct st_tee_stream *s, void *const *h, size_t budget,
	       long wait_ms)
{
	struct st_tee *t;
	pthread_condattr_t ca;
	size_t per;
	int r;

	*out = NULL;
	if (nranks < 1 || nreaders < 1 || nreaders > 64 || !s || !s->next ||
	    !s->open || !s->close || !h || budget / 4 < (size_t)nranks ||
	    wait_ms < 0 || (s->conv && (!s->rec_size || s->rec_size % 8)))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->nranks = nranks;
	t->nreaders = nreaders;
	t->s = *s;
	t->wait_ms = wait_ms;
	per = budget / (size_t)nranks;
	t->csize = per / 16 > 1024 ? 1024 : per / 16 ? per / 16 : 1;
	t->maxlive = per / t->csize;
	t->ranks = calloc((size_t)nranks, sizeof(*t->ranks));
	t->cons = aligned_alloc(_Alignof(struct cons), (size_t)nranks *
			       (size_t)nreaders * sizeof(*t->cons));
	if (t->cons)
		memset(t->cons, 0, (size_t)nranks * (size_t)nreaders *
		       sizeof(*t->cons));
	if (!t->ranks || !t->cons || pthread_condattr_init(&ca)) {
		free(t->ranks);
		free(t->cons);
		free(t);
		return -ENOMEM;
	}
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (r = 0; r < nranks; r++) {
		pthread_mutex_init(&t->ranks[r].mu, NULL);
		pthread_cond_init(&t->ranks[r].cv, &ca);
		t->ranks[r].h = h[r];
		t->ranks[r].nattached = nreaders;
	}
	pthread_condattr_destroy(&ca);
	*out = t;
	return 0;
}

static void chunk_free(struct chunk *k)
{
	free(k->end_msg);
	free(k->recs);
	free(k->slots);
	free(k->fidx);
	free(k->bytes);
	free(k);
}

/* One reader less for chunk 'k'; the oldest unread chunks go. */
static void unref(struct trank *tr, struct chunk *k)
{
	if (--k->refs > 0)
		return;
	tr->nlive--;
	while (tr->head && tr->head->refs <= 0) {
		k = tr->head;
		tr->head = k->next;
		if (!tr->head)
			tr->tail = NULL;
		k->next = tr->pool;
		tr->pool = k;
	}
	pthread_cond_broadcast(&tr->cv);
}

/* Reader 'cs' of 'tr' will read no chunk after its current one. */
static void detach(struct trank *tr, struct cons *cs)
{
	struct chunk *k, *next;

	if (cs->gone)
		return;
	cs->gone = 1;
	tr->nattached--;
	for (k = cs->cur ? cs->cur->next : tr->head; k; k = next) {
		next = k->next;
		unref(tr, k);
	}
}

/* Copy 'ev' into chunk 'k' as its next record.  0 or -ENOMEM. */
static int put(struct chunk *k, const struct st_event *ev)
{
	struct trec *x = &k->recs[k->nfull];
	size_t nf = ev->nframes < ST_MAX_FRAMES ? ev->nframes : ST_MAX_FRAMES;
	size_t need = nf * sizeof(uint64_t) + ev->text_len;

	if (need && k->nbytes + need > k->abytes) {
		size_t a = k->abytes ? k->abytes : 4096;
		unsigned char *b;

		while (a < k->nbytes + need)
			a *= 2;
		b = realloc(k->bytes, a);
		if (!b)
			return -ENOMEM;
		k->bytes = b;
		k->abytes = a;
	}
	memcpy(x->head, ev, HEAD);
	x->addr = ev->addr;
	x->len = ev->len;
	x->text_len = ev->text_len;
	x->has_text = ev->text != NULL;
	x->off = k->nbytes;
	k->fidx[k->nfull] = (uint32_t)k->n;
	if (nf)
		memcpy(k->bytes + k->nbytes, ev->frames, nf * sizeof(uint64_t));
	if (ev->text_len)
		memcpy(k->bytes + k->nbytes + nf * sizeof(uint64_t), ev->text,
		       ev->text_len);
	k->nbytes += need;
	k->nfull++;
	k->n++;
	return 0;
}

/* Decode rank 'tr''s next records into 'k' (outside the lock). */
static void fill(struct st_tee *t, struct trank *tr, struct chunk *k)
{
	int rc = 1;

	k->n = 0;
	k->nfull = 0;
	k->nbytes = 0;
	k->end = 0;
	k->end_rc = 0;
	free(k->end_msg);
	k->end_msg = NULL;
	while (k->n < t->csize) {
		tr->msg[0] = '\0';
		rc = t->s.next(tr->h, &tr->ev, tr->msg, sizeof(tr->msg));
		if (rc <= 0)
			break;
		if (t->s.conv && t->s.conv(t->s.ctx, k->slots + k->n *
					   t->s.rec_size, &tr->ev)) {
			k->n++;
			continue;
		}
		if (put(k, &tr->ev)) {
			rc = -ENOMEM;
			snprintf(tr->msg, sizeof(tr->msg), "out of memory");
			break;
		}
	}
	if (rc <= 0) {
		k->end = 1;
		k->end_rc = rc;
		if (rc < 0)
			k->end_msg = strdup(tr->msg);
	}
}

/* A chunk for 'tr': from its pool, or new.  NULL when out of memory. */
static struct chunk *chunk_get(struct st_tee *t, struct trank *tr)
{
	struct chunk *k = tr->pool;

	if (k) {
		tr->pool = k->next;
		k->next = NULL;
		return k;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->recs = malloc(t->csize * sizeof(*k->recs));
	k->fidx = malloc(t->csize * sizeof(*k->fidx));
	if (t->s.conv) {
		/* Records of 64 or 128 bytes on their own cache lines. */
		k->slots = aligned_alloc(64, (t->csize * t->s.rec_size + 63) /
					 64 * 64);
	}
	if (!k->recs || !k->fidx || (t->s.conv && !k->slots)) {
		chunk_free(k);
		return NULL;
	}
	return k;
}

/* The reader of 'tr' other than 'self' furthest behind, still attached. */
static struct cons *slowest(struct st_tee *t, int rank, struct cons *self)
{
	struct cons *best = NULL;
	int c;

	for (c = 0; c < t->nreaders; c++) {
		struct cons *cs = &t->cons[(size_t)c * t->nranks + rank];

		if (cs == self || cs->gone)
			continue;
		if (!best || !cs->cur ||
		    (best->cur && cs->cur->idx < best->cur->idx))
			best = cs;
	}
	return best;
}

static void deadline(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Reader 'cs' let go: its own stream, past what it read. */
static int go_own(struct st_tee *t, int rank, struct cons *cs,
		  struct st_event *ev, char *err, size_t errlen)
{
	uint64_t i;
	int rc;

	cs->own = t->s.open(t->s.ctx, rank, err, errlen);
	if (!cs->own)
		return -EIO;
	for (i = 0; i < cs->nread; i++) {
		rc = t->s.next(cs->own, ev, err, errlen);
		if (rc < 0)
			return rc;
		if (!rc) {
			snprintf(err, errlen, "rank %d's trace changed while "
				 "it was read", rank);
			return -EIO;
		}
	}
	return 0;
}

/*
 * Move reader 'cs' of rank 'rank' to its next chunk: 1, or the stream's
 * end (0 or its error), or 2 when it was let go (its own stream open).
 * Once a chunk: out of st_tee_next()'s way.
 */
__attribute__((noinline))
static int advance(struct st_tee *t, int rank, struct cons *cs,
		   struct st_event *ev, char *err, size_t errlen)
{
	struct trank *tr = &t->ranks[rank];
	struct chunk *k;
	struct cons *lag;
	struct timespec ts;
	uint64_t want;
	int rc, waiting = 0;

	pthread_mutex_lock(&tr->mu);
	for (;;) {
		if (cs->cur && cs->cur->end) {
			rc = cs->cur->end_rc;
			if (rc < 0 && err && errlen)
				snprintf(err, errlen, "%s", cs->cur->end_msg ?
					 cs->cur->end_msg : "out of memory");
			pthread_mutex_unlock(&tr->mu);
			return rc;
		}
		if (cs->gone) {
			if (cs->cur)
				unref(tr, cs->cur);
			cs->cur = NULL;
			pthread_mutex_unlock(&tr->mu);
			rc = go_own(t, rank, cs, ev, err, errlen);
			return rc ? rc : 2;
		}
		want = cs->cur ? cs->cur->idx + 1 : 0;
		if (want < tr->nprod) {
			k = cs->cur ? cs->cur->next : tr->head;
			if (cs->cur)
				unref(tr, cs->cur);
			cs->cur = k;
			cs->pos = 0;
			cs->fpos = 0;
			cs->fnext = k->nfull ? k->fidx[0] : SIZE_MAX;
			pthread_mutex_unlock(&tr->mu);
			return 1;
		}
		if (tr->producing) {
			pthread_cond_wait(&tr->cv, &tr->mu);
			continue;
		}
		if (tr->nlive >= t->maxlive) {
			/* Wait for the slowest reader, for so long. */
			if (!waiting) {
				deadline(&ts, t->wait_ms);
				waiting = 1;
			}
			rc = pthread_cond_timedwait(&tr->cv, &tr->mu, &ts);
			if (rc != ETIMEDOUT || tr->nlive < t->maxlive ||
			    want < tr->nprod || tr->producing)
				continue;
			lag = slowest(t, rank, cs);
			if (lag) {
				detach(tr, lag);
				atomic_fetch_add_explicit(&t->let_go, 1,
							  memory_order_relaxed);
			}
			waiting = 0;
			/* Alone: nothing to wait for. */
			if (tr->nlive < t->maxlive || tr->nattached > 1)
				continue;
		}
		k = chunk_get(t, tr);
		if (!k) {
			pthread_mutex_unlock(&tr->mu);
			if (err && errlen)
				snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		tr->producing = 1;
		pthread_mutex_unlock(&tr->mu);
		fill(t, tr, k);
		pthread_mutex_lock(&tr->mu);
		tr->producing = 0;
		k->idx = tr->nprod++;
		k->refs = tr->nattached;
		k->next = NULL;
		tr->nlive++;
		if (tr->tail)
			tr->tail->next = k;
		else
			tr->head = k;
		tr->tail = k;
		pthread_cond_broadcast(&tr->cv);
	}
}

/*
 * Reader 'cs''s next record of rank 'rank': as st_tee_get().  Inlined
 * in both callers: the hot path.
 */
static inline int get(struct st_tee *t, struct cons *cs, int rank,
		      const void **rec, struct st_event *ev, char *err,
		      size_t errlen)
{
	const struct chunk *k;
	const struct trec *x;
	const unsigned char *b;
	size_t nf, pos;
	int rc;

	if (cs->closed)
		return 0;
	while (!cs->own && (!cs->cur || cs->pos == cs->cur->n)) {
		rc = advance(t, rank, cs, ev, err, errlen);
		if (rc != 1 && rc != 2)
			return rc;
	}
	if (cs->own) {
		rc = t->s.next(cs->own, ev, err, errlen);
		if (rc > 0) {
			cs->nread++;
			rc = 2;
		}
		return rc;
	}
	k = cs->cur;
	pos = cs->pos++;
	cs->nread++;
	if (pos != cs->fnext) {
		const unsigned char *p = k->slots + pos * t->s.rec_size;

		/* Written on another core, most likely: ask for the next. */
		if (pos + 4 < k->n) {
			__builtin_prefetch(p + 4 * t->s.rec_size);
			__builtin_prefetch(p + 4 * t->s.rec_size + 64);
		}
		*rec = p;
		return 1;
	}
	x = &k->recs[cs->fpos++];
	cs->fnext = cs->fpos < k->nfull ? k->fidx[cs->fpos] : SIZE_MAX;
	if (cs->fpos + 3 < k->nfull) {
		__builtin_prefetch((const char *)(x + 4));
		__builtin_prefetch((const char *)(x + 4) + 64);
		__builtin_prefetch((const char *)(x + 4) + 128);
	}
	/* A record without frames or text may sit in a block of no bytes. */
	b = k->bytes ? k->bytes + x->off : NULL;
	memcpy(ev, x->head, HEAD);
	nf = ev->nframes < ST_MAX_FRAMES ? ev->nframes : ST_MAX_FRAMES;
	if (nf)
		memcpy(ev->frames, b, nf * sizeof(uint64_t));
	ev->addr = x->addr;
	ev->len = x->len;
	ev->text_len = x->text_len;
	ev->text = x->has_text ? (const char *)b + nf * sizeof(uint64_t) :
		   NULL;
	return 2;
}

int st_tee_next(struct st_tee *t, int reader, int rank, struct st_event *ev,
		char *err, size_t errlen)
{
	const void *rec;
	int rc = get(t, &t->cons[(size_t)reader * t->nranks + rank], rank,
		     &rec, ev, err, errlen);

	if (rc == 1) {
		if (err && errlen)
			snprintf(err, errlen, "st_tee_next() on a record in "
				 "the caller's form");
		return -EINVAL;
	}
	return rc == 2 ? 1 : rc;
}

int st_tee_get(struct st_tee *t, int reader, int rank, const void **rec,
	       struct st_event *ev, char *err, size_t errlen)
{
	return get(t, &t->cons[(size_t)reader * t->nranks + rank], rank, rec,
		   ev, err, errlen);
}

void st_tee_close(struct st_tee *t, int reader)
{
	int r;

	if (reader < 0 || reader >= t->nreaders)
		return;
	for (r = 0; r < t->nranks; r++) {
		struct trank *tr = &t->ranks[r];
		struct cons *cs = &t->cons[(size_t)reader * t->nranks + r];

		pthread_mutex_lock(&tr->mu);
		if (!cs->closed) {
			detach(tr, cs);
			if (cs->cur)
				unref(tr, cs->cur);
			cs->cur = NULL;
			cs->closed = 1;
		}
		pthread_mutex_unlock(&tr->mu);
		if (cs->own) {
			t->s.close(t->s.ctx, cs->own);
			cs->own = NULL;
		}
	}
}

uint64_t st_tee_let_go(const struct st_tee *t)
{
	return atomic_load_explicit(&t->let_go, memory_order_relaxed);
}

void st_tee_free(struct st_tee *t)
{
	struct chunk *k, *next;
	int c, r;

	if (!t)
		return;
	for (c = 0; c < t->nreaders; c++)
		st_tee_close(t, c);
	for (r = 0; r < t->nranks; r++) {
		struct trank *tr = &t->ranks[r];

		for (k = tr->head; k; k = next) {
			next = k->next;
			chunk_free(k);
		}
		for (k = tr->pool; k; k = next) {
			next = k->next;
			chunk_free(k);
		}
		pthread_mutex_destroy(&tr->mu);
		pthread_cond_destroy(&tr->cv);
	}
	free(t->ranks);
	free(t->cons);
	free(t);
}
