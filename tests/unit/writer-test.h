/*
 * tests/unit/writer-test.h: helpers shared by the writer/ unit tests: a
 * memory sink that remembers where each chunk ends, a seeded generator,
 * records of every kind with edge values, and a field-by-field check.
 */
#ifndef ST_TESTS_WRITER_TEST_H
#define ST_TESTS_WRITER_TEST_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "writer/event.h"
#include "writer/writer.h"

#define MEMBUF_MAX_WRITES 4096

/* A sink into memory; 'ends[i]' is the offset after write call i. */
struct membuf {
	uint8_t *buf;
	size_t len, cap;
	size_t nwrites;
	size_t ends[MEMBUF_MAX_WRITES];
	int fail;		/* return this from write when non-zero */
};

static inline int membuf_write(void *ctx, const void *buf, size_t len)
{
	struct membuf *m = ctx;

	if (m->fail)
		return m->fail;
	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->buf = realloc(m->buf, m->cap);
		cr_assert(m->buf);
	}
	memcpy(m->buf + m->len, buf, len);
	m->len += len;
	cr_assert(m->nwrites < MEMBUF_MAX_WRITES);
	m->ends[m->nwrites++] = m->len;
	return 0;
}

static inline struct st_sink membuf_sink(struct membuf *m)
{
	struct st_sink s = { .ctx = m, .write = membuf_write };

	return s;
}

/* splitmix64: same seed, same sequence. */
static inline uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rng_edge(uint64_t *state)
{
	static const uint64_t edges[] = {
		0, 1, 2, 127, 128, 255, 256, 16383, 16384, 0x7fffffff,
		0x80000000, 0xffffffff, 0x100000000ull, 1ull << 63,
		(1ull << 63) - 1, UINT64_MAX, UINT64_MAX - 1,
	};
	uint64_t r = rng_next(state);

	if (r & 1)
		return edges[(r >> 1) % (sizeof(edges) / sizeof(edges[0]))];
	return rng_next(state) >> (r >> 1) % 64;
}

static inline int32_t rng_rank(uint64_t *state)
{
	static const int32_t edges[] = {
		ST_RANK_NONE, ST_RANK_ROOT, ST_RANK_PROC_NULL, ST_RANK_ANY,
		0, 1, 2, INT32_MAX, INT32_MIN,
	};
	uint64_t r = rng_next(state);

	if (r & 1)
		return edges[(r >> 1) % (sizeof(edges) / sizeof(edges[0]))];
	return (int32_t)(uint32_t)rng_edge(state);
}

/*
 * A record of 'kind' whose every field has a random edge value; text
 * (if any) points into 'textbuf', which has room for 'textmax' bytes.
 */
static inline void make_event(struct st_event *ev, unsigned kind,
			      uint64_t *state, char *textbuf, size_t textmax)
{
	uint32_t i;

	st_event_clear(ev);
	ev->kind = (uint8_t)kind;
	ev->fn = (uint16_t)rng_edge(state);
	ev->site = (uint32_t)rng_edge(state);
	ev->rc = (int32_t)(uint32_t)rng_edge(state);
	ev->t0 = rng_edge(state);
	ev->t1 = rng_next(state) & 1 ? ev->t0 + rng_edge(state) % 100000
				     : rng_edge(state);
	ev->comm = rng_edge(state);
	ev->comm_size = (uint32_t)rng_edge(state);
	ev->seq = rng_edge(state);
	ev->inst = (uint32_t)rng_edge(state);
	ev->root = rng_rank(state);
	ev->peer = rng_rank(state);
	ev->tag = (int32_t)(uint32_t)rng_edge(state);
	ev->peer2 = rng_rank(state);
	ev->tag2 = (int32_t)(uint32_t)rng_edge(state);
	ev->sbytes = rng_edge(state);
	ev->rbytes = rng_edge(state);
	ev->tsize = (uint32_t)rng_edge(state);
	ev->op = (uint16_t)rng_edge(state);
	ev->req = rng_edge(state);
	ev->rank = rng_rank(state);
	ev->remote_size = (uint32_t)rng_edge(state);
	ev->parent = rng_edge(state);
	ev->addr = rng_edge(state);
	ev->len = rng_edge(state);
	ev->arg = (int32_t)(uint32_t)rng_edge(state);
	ev->offset = (int64_t)rng_edge(state);
	if (kind == ST_REC_SITE || rng_next(state) % 8 == 0) {
		ev->nframes = (uint32_t)(rng_next(state) % ST_MAX_FRAMES) + 1;
		for (i = 0; i < ev->nframes; i++)
			ev->frames[i] = rng_edge(state);
	}
	if (textmax && (kind == ST_REC_OBJECT || kind == ST_REC_SYNC ||
			rng_next(state) % 8 == 0)) {
		ev->text_len = (uint32_t)(rng_next(state) % textmax) + 1;
		for (i = 0; i < ev->text_len; i++)
			textbuf[i] = (char)rng_next(state);
		ev->text = textbuf;
	}
}

/* Check every field of 'got' against 'want', which is record 'idx'. */
#define EXPECT_FIELD(f)							\
	cr_assert_eq(got->f, want->f,					\
		     "record %d: " #f " is %llu, want %llu", idx,	\
		     (unsigned long long)got->f,			\
		     (unsigned long long)want->f)

static inline void expect_event_eq(const struct st_event *got,
				   const struct st_event *want, int idx)
{
	uint32_t i;

	EXPECT_FIELD(kind);
	EXPECT_FIELD(fn);
	EXPECT_FIELD(thread);
	EXPECT_FIELD(site);
	EXPECT_FIELD(rc);
	EXPECT_FIELD(t0);
	EXPECT_FIELD(t1);
	EXPECT_FIELD(comm);
	EXPECT_FIELD(comm_size);
	EXPECT_FIELD(seq);
	EXPECT_FIELD(inst);
	EXPECT_FIELD(root);
	EXPECT_FIELD(peer);
	EXPECT_FIELD(tag);
	EXPECT_FIELD(peer2);
	EXPECT_FIELD(tag2);
	EXPECT_FIELD(sbytes);
	EXPECT_FIELD(rbytes);
	EXPECT_FIELD(tsize);
	EXPECT_FIELD(op);
	EXPECT_FIELD(req);
	EXPECT_FIELD(rank);
	EXPECT_FIELD(remote_size);
	EXPECT_FIELD(parent);
	EXPECT_FIELD(nframes);
	for (i = 0; i < want->nframes; i++)
		cr_assert_eq(got->frames[i], want->frames[i],
			     "record %d: frames[%u] differs", idx, i);
	EXPECT_FIELD(addr);
	EXPECT_FIELD(len);
	EXPECT_FIELD(arg);
	EXPECT_FIELD(offset);
	EXPECT_FIELD(text_len);
	if (want->text_len)
		cr_assert(!memcmp(got->text, want->text, want->text_len),
			  "record %d: text differs", idx);
}

/* A repeated 8-byte MPI_Allreduce, as the interposer records it. */
static inline void make_allreduce(struct st_event *ev)
{
	st_event_clear(ev);
	ev->kind = ST_REC_CALL;
	ev->fn = 17;
	ev->site = 3;
	ev->comm = 1;
	ev->comm_size = 2;
	ev->sbytes = 8;
	ev->rbytes = 8;
	ev->tsize = 8;
	ev->op = ST_OP_SUM;
}

#endif
