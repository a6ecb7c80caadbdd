/*
 * writer/encode.c: records to bytes and back (writer/format.h).  Each
 * record is compared with the prediction of its (kind, fn) context, and
 * only what differs is written, as small zigzag deltas; timestamps are a
 * gap from the previous record and a duration.  A repeated collective
 * thus costs three or five bytes before zlib, whose job is then easy.
 * The encoder runs on the interposer's hot path: no allocation, no
 * system call, one bounds check per record (the caller leaves slack past
 * the limit), and nothing committed until the record is known to fit.
 */
#include <errno.h>
#include <string.h>

#include "writer/encode.h"
#include "writer/event.h"
#include "writer/varint.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define RAW_U64(x) ((uint64_t)(x))
#define RAW_U32(x) ((uint64_t)(x))
#define RAW_U16(x) ((uint64_t)(x))
#define RAW_S32(x) ((uint64_t)(int64_t)(x))

#define FITS_U64(v) 1
#define FITS_U32(v) ((v) <= UINT32_MAX)
#define FITS_U16(v) ((v) <= UINT16_MAX)
#define FITS_S32(v) ((uint64_t)((v) + 0x80000000u) <= UINT32_MAX)

#define CAST_U64(v) ((uint64_t)(v))
#define CAST_U32(v) ((uint32_t)(v))
#define CAST_U16(v) ((uint16_t)(v))
#define CAST_S32(v) ((int32_t)(int64_t)(v))

/*
 * The most a record writes besides its text: tag, fn, mask, every field,
 * the timestamps, nframes and the frames, and text_len, each varint at
 * its longest (st_varint_put() touches at least two bytes).
 */
_Static_assert(1 + 3 + 3 + ST_NFIELDS * 10 + 2 * 10 + 2 +
	       ST_MAX_FRAMES * 10 + 5 <= ST_REC_MAX_FIXED,
	       "ST_REC_MAX_FIXED too small");

/* What an empty slot predicts: the values of st_event_clear(). */
static const uint64_t ctx_empty[ST_NFIELDS] = {
	[ST_F_PEER] = RAW_S32(ST_RANK_NONE),
	[ST_F_ROOT] = RAW_S32(ST_RANK_NONE),
	[ST_F_PEER2] = RAW_S32(ST_RANK_NONE),
};

/*
 * The prediction of 'rbytes' once 'sbytes' is known: the context's ratio
 * of received to sent bytes, when it is a whole number (1 for an
 * Allreduce, p for an Allgather, 0 for a Reduce's non-root), applied to
 * the record's sbytes; otherwise the context's rbytes.
 */
static inline uint64_t pred_rbytes(uint64_t s0, uint64_t r0, uint64_t s)
{
	return s0 && r0 % s0 == 0 ? r0 / s0 * s : r0;
}

void st_codec_init(struct st_codec *c)
{
	memset(c, 0, sizeof(*c));
	c->epoch = 1;
}

void st_codec_reset(struct st_codec *c)
{
	c->last_t1 = 0;
	c->last_req = 0;
	c->last_fn = 0;
	c->run_left = 0;
	c->run_n = c->run_end = NULL;
	/*
	 * Slots of older epochs read as empty, so a reset costs nothing;
	 * only when the counter wraps must stale slots really go.
	 */
	if (!++c->epoch) {
		memset(c->ctx, 0, sizeof(c->ctx));
		memset(c->cseq, 0, sizeof(c->cseq));
		c->epoch = 1;
	}
}

/*
 * Any record: the fields that differ from the prediction are written.
 * Kept out of line so that the hot case in st_enc_record() stays small.
 */
__attribute__((noinline))
static int enc_full(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		    const struct st_event *ev, uint32_t token)
{
	uint64_t raw[ST_NFIELDS];
	uint32_t key = (uint32_t)ev->kind << 16 | ev->fn, mask = 0, m;
	struct st_ctx *x = st_ctx_slot(c, key);
	int valid = st_ctx_valid(c, x, key);
	const uint64_t *pred = valid ? x->v : ctx_empty;
	uint8_t *p = *pp;
	uint64_t pr, pq, prq;
	unsigned tag, i;

	if (ev->kind - 1u >= ST_REC_MAX || ev->nframes > ST_MAX_FRAMES ||
	    (ev->text_len && !ev->text))
		return -EINVAL;
#define X(bit, name, type)					\
	raw[bit] = RAW_##type(ev->name);			\
	mask |= (uint32_t)(raw[bit] != pred[bit]) << bit;
	ST_FIELD_LIST(X)
#undef X
	/* Predictions that depend on other fields or on the chunk so far. */
	pr = pred_rbytes(pred[ST_F_SBYTES], pred[ST_F_RBYTES],
			 raw[ST_F_SBYTES]);
	pq = st_pred_seq(c, ev->kind, pred[ST_F_SEQ], raw[ST_F_COMM]);
	prq = st_pred_req(c, ev->kind, pred[ST_F_REQ]);
	mask &= ~(1u << ST_F_RBYTES | 1u << ST_F_SEQ | 1u << ST_F_REQ);
	mask |= (uint32_t)(raw[ST_F_RBYTES] != pr) << ST_F_RBYTES |
		(uint32_t)(raw[ST_F_SEQ] != pq) << ST_F_SEQ |
		(uint32_t)(raw[ST_F_REQ] != prq) << ST_F_REQ;

	tag = ev->kind - 1;
	p++;
	/* Spelled out: ST_TAG_RUN, that record's tag otherwise, is taken. */
	if (ev->fn != c->last_fn ||
	    (ev->kind == ST_REC_CALL && !mask && !(ev->t0 | ev->t1) &&
	     !ev->nframes && !ev->text_len)) {
		tag |= ST_TAG_FN;
		p = st_varint_put(p, ev->fn);
	}
	if (mask) {
		tag |= ST_TAG_DIFF;
		p = st_varint_put(p, mask);
		for (m = mask; m; m &= m - 1) {
			i = (unsigned)__builtin_ctz(m);
			p = st_varint_put(p, st_zigzag(raw[i] -
				(i == ST_F_RBYTES ? pr : i == ST_F_SEQ ? pq :
				 i == ST_F_REQ ? prq : pred[i])));
		}
	}
	if (ev->t0 | ev->t1) {
		p = st_varint_put(p, st_zigzag(ev->t0 - c->last_t1 -
					       (valid ? x->gap : 0)));
		p = st_varint_put(p, st_zigzag(ev->t1 - ev->t0 -
					       (valid ? x->dur : 0)));
	} else {
		tag |= ST_TAG_NOTIME;
	}
	if (ev->nframes) {
		tag |= ST_TAG_FRAMES;
		p = st_varint_put(p, ev->nframes);
		p = st_varint_put(p, ev->frames[0]);
		for (i = 1; i < ev->nframes; i++)
			p = st_varint_put(p, st_zigzag(ev->frames[i] -
						       ev->frames[i - 1]));
	}
	if (ev->text_len) {
		tag |= ST_TAG_TEXT;
		p = st_varint_put(p, ev->text_len);
		if (p > limit || ev->text_len > (size_t)(limit - p))
			return -ENOBUFS;
		memcpy(p, ev->text, ev->text_len);
		p += ev->text_len;
	}
	if (p > limit)
		return -ENOBUFS;
	**pp = (uint8_t)tag;

	/* It fits: now the context may change. */
	if (!valid) {
		x->epoch = c->epoch;
		x->key = key;
		x->gap = x->dur = 0;
		memcpy(x->v, ctx_empty, sizeof(x->v));
	}
	for (m = mask; m; m &= m - 1) {
		i = (unsigned)__builtin_ctz(m);
		x->v[i] = raw[i];
	}
	/* The predicted ones when not in 'mask'. */
	x->v[ST_F_RBYTES] = raw[ST_F_RBYTES];
	x->v[ST_F_SEQ] = raw[ST_F_SEQ];
	x->v[ST_F_REQ] = raw[ST_F_REQ];
	x->token = token;
	st_ctx_count(x, ev->kind);
	st_count_call(c, ev->kind, raw[ST_F_COMM], raw[ST_F_SEQ],
		      raw[ST_F_REQ]);
	c->last_fn = ev->fn;
	if (!(tag & ST_TAG_NOTIME)) {
		x->gap = ev->t0 - c->last_t1;
		x->dur = ev->t1 - ev->t0;
		c->last_t1 = ev->t1;
	}
	*pp = p;
	return 0;
}

/*
 * The hot case: the context predicts every field and the record has
 * timestamps but no frames or text, so it is the tag, maybe fn, and the
 * two timestamps, and only the context's counters move.
 */
int st_enc_record(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  const struct st_event *ev, uint32_t token)
{
	uint32_t key = (uint32_t)ev->kind << 16 | ev->fn;
	struct st_ctx *x = st_ctx_slot(c, key);
	uint64_t diff = 0, pq, prq;
	uint8_t *p = *pp;

	/* A slot valid for 'key' implies a valid kind: it was encoded. */
	if (unlikely(!st_ctx_valid(c, x, key)))
		return enc_full(c, pp, limit, ev, token);
	/* With every field as in the context, so is the communicator. */
	pq = st_pred_seq(c, ev->kind, x->v[ST_F_SEQ], x->v[ST_F_COMM]);
	prq = st_pred_req(c, ev->kind, x->v[ST_F_REQ]);
#define X(bit, name, type)						\
	diff |= RAW_##type(ev->name) ^ (bit == ST_F_SEQ ? pq :		\
					bit == ST_F_REQ ? prq : x->v[bit]);
	ST_FIELD_LIST(X)
#undef X
	if (unlikely(diff | ev->nframes | ev->text_len || !(ev->t0 | ev->t1)))
		return enc_full(c, pp, limit, ev, token);

	*p = (uint8_t)(ev->kind - 1);
	if (ev->fn != c->last_fn) {
		*p |= ST_TAG_FN;
		p = st_varint_put(p + 1, ev->fn);
	} else {
		p++;
	}
	p = st_varint_put(p, st_zigzag(ev->t0 - c->last_t1 - x->gap));
	p = st_varint_put(p, st_zigzag(ev->t1 - ev->t0 - x->dur));
	if (unlikely(p > limit))
		return -ENOBUFS;
	x->token = token;
	x->v[ST_F_SEQ] = ev->seq;
	x->v[ST_F_REQ] = ev->req;
	st_ctx_count(x, ev->kind);
	st_count_call(c, ev->kind, ev->comm, ev->seq, ev->req);
	x->gap = ev->t0 - c->last_t1;
	x->dur = ev->t1 - ev->t0;
	c->last_fn = ev->fn;
	c->last_t1 = ev->t1;
	*pp = p;
	return 0;
}

int st_enc_repeat(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  unsigned fn, uint32_t token, uint64_t seq, uint64_t t0,
		  uint64_t t1)
{
	uint32_t key = (uint32_t)ST_REC_CALL << 16 | fn;
	uint8_t *p = *pp, *n = NULL;
	struct st_ctx *x;
	struct st_cseq *q;

	if (p == c->run_end && token == c->run_token && fn == c->last_fn) {
		/*
		 * Right after a repeat with this token: nothing was coded
		 * since, so its context and communicator slot still hold
		 * what it left there, and all but 'seq' is as predicted.
		 */
		x = c->run_x;
		q = c->run_q;
		if (seq != q->seq + 1 || !(t0 | t1))
			return 1;
		if (c->run_n && *c->run_n < ST_RUN_MAX) {
			n = c->run_n;		/* joins the open run */
		} else {
			p[0] = ST_TAG_RUN;	/* starts a run */
			p[1] = 0;
			n = p + 1;
			p += 2;
		}
	} else {
		/*
		 * 'req' and 'inst' are counted from one record to the next,
		 * which a repeat's fields, those of the token's record,
		 * are not.
		 */
		x = st_ctx_slot(c, key);
		if (!st_ctx_valid(c, x, key) || x->token != token || !token ||
		    st_pred_seq(c, ST_REC_CALL, x->v[ST_F_SEQ],
				x->v[ST_F_COMM]) != seq ||
		    !seq || x->v[ST_F_REQ] || x->v[ST_F_INST] || !(t0 | t1))
			return 1;
		q = st_cseq_slot(c, x->v[ST_F_COMM]);
		if (fn != c->last_fn) {
			*p = (uint8_t)(ST_REC_CALL - 1) | ST_TAG_FN;
			p = st_varint_put(p + 1, fn);
		} else {
			*p++ = (uint8_t)(ST_REC_CALL - 1);
		}
	}
	p = st_varint_put(p, st_zigzag(t0 - c->last_t1 - x->gap));
	p = st_varint_put(p, st_zigzag(t1 - t0 - x->dur));
	if (unlikely(p > limit))
		return -ENOBUFS;
	/* Before the caller publishes the record (see format.h). */
	if (n)
		++*n;
	c->run_n = n;
	c->run_end = p;
	c->run_x = x;
	c->run_q = q;
	c->run_token = token;
	x->v[ST_F_SEQ] = seq;
	st_ctx_count(x, ST_REC_CALL);
	/* st_count_call(), for a record without a request. */
	q->epoch = c->epoch;
	q->comm = x->v[ST_F_COMM];
	q->seq = seq;
	x->gap = t0 - c->last_t1;
	x->dur = t1 - t0;
	c->last_fn = (uint16_t)fn;
	c->last_t1 = t1;
	*pp = p;
	return 0;
}

int st_dec_record(struct st_codec *c, const uint8_t **pp, const uint8_t *end,
		  struct st_event *ev)
{
	uint64_t v, gap, dur, s0, r0, q0, rq0;
	const uint8_t *p = *pp;
	struct st_ctx *x;
	unsigned kind, tag, fn = c->last_fn, i;
	uint32_t key, m;

	if (c->run_left) {
		/* A run's member: as if tagged a call record of this fn. */
		c->run_left--;
		tag = ST_REC_CALL - 1;
	} else {
		if (p >= end)
			return -EBADMSG;
		tag = *p++;
		if (tag == ST_TAG_RUN) {
			if (p >= end || !*p)
				return -EBADMSG;
			c->run_left = *p++ - 1u;
			tag = ST_REC_CALL - 1;
		}
	}
	kind = (tag & ST_TAG_KIND) + 1;
	if (tag & ST_TAG_FN) {
		if (st_varint_get(&p, end, &v) || v > UINT16_MAX)
			return -EBADMSG;
		fn = (unsigned)v;
	}
	/*
	 * Decode in place into the context: on error the chunk is given up
	 * anyway, so a half-updated context does no harm.
	 */
	key = (uint32_t)kind << 16 | fn;
	x = st_ctx_slot(c, key);
	if (!st_ctx_valid(c, x, key)) {
		x->epoch = c->epoch;
		x->key = key;
		x->gap = x->dur = 0;
		memcpy(x->v, ctx_empty, sizeof(x->v));
	}
	/*
	 * rbytes, seq and req are predicted from other fields (decoded
	 * first) or the chunk so far: their deltas are added to 0, their
	 * predictions after the others'.
	 */
	s0 = x->v[ST_F_SBYTES];
	r0 = x->v[ST_F_RBYTES];
	q0 = x->v[ST_F_SEQ];
	rq0 = x->v[ST_F_REQ];
	x->v[ST_F_RBYTES] = x->v[ST_F_SEQ] = x->v[ST_F_REQ] = 0;
	if (tag & ST_TAG_DIFF) {
		if (st_varint_get(&p, end, &v) || !v || v >> ST_NFIELDS)
			return -EBADMSG;
		for (m = (uint32_t)v; m; m &= m - 1) {
			i = (unsigned)__builtin_ctz(m);
			if (st_varint_get(&p, end, &v))
				return -EBADMSG;
			x->v[i] += st_unzigzag(v);
		}
	}
	x->v[ST_F_RBYTES] += pred_rbytes(s0, r0, x->v[ST_F_SBYTES]);
	x->v[ST_F_SEQ] += st_pred_seq(c, kind, q0, x->v[ST_F_COMM]);
	x->v[ST_F_REQ] += st_pred_req(c, kind, rq0);
#define X(bit, name, type)				\
	if (!FITS_##type(x->v[bit]))			\
		return -EBADMSG;			\
	ev->name = CAST_##type(x->v[bit]);
	ST_FIELD_LIST(X)
#undef X
	if (tag & ST_TAG_NOTIME) {
		ev->t0 = ev->t1 = 0;
	} else {
		if (st_varint_get(&p, end, &gap) ||
		    st_varint_get(&p, end, &dur))
			return -EBADMSG;
		x->gap += st_unzigzag(gap);
		x->dur += st_unzigzag(dur);
		ev->t0 = c->last_t1 + x->gap;
		ev->t1 = ev->t0 + x->dur;
	}
	ev->nframes = 0;
	if (tag & ST_TAG_FRAMES) {
		if (st_varint_get(&p, end, &v) || !v || v > ST_MAX_FRAMES ||
		    st_varint_get(&p, end, &ev->frames[0]))
			return -EBADMSG;
		ev->nframes = (uint32_t)v;
		for (i = 1; i < ev->nframes; i++) {
			if (st_varint_get(&p, end, &v))
				return -EBADMSG;
			ev->frames[i] = ev->frames[i - 1] + st_unzigzag(v);
		}
	}
	memset(ev->frames + ev->nframes, 0,
	       (ST_MAX_FRAMES - ev->nframes) * sizeof(ev->frames[0]));
	ev->text = NULL;
	ev->text_len = 0;
	if (tag & ST_TAG_TEXT) {
		if (st_varint_get(&p, end, &v) || !v ||
		    v > (uint64_t)(end - p))
			return -EBADMSG;
		ev->text = (const char *)p;
		ev->text_len = (uint32_t)v;
		p += v;
	}
	ev->kind = (uint8_t)kind;
	ev->fn = (uint16_t)fn;

	st_ctx_count(x, kind);
	st_count_call(c, kind, ev->comm, ev->seq, ev->req);
	c->last_fn = (uint16_t)fn;
	if (!(tag & ST_TAG_NOTIME))
		c->last_t1 = ev->t1;
	*pp = p;
	return 0;
}
