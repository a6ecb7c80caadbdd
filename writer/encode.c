/*
 * writer/encode.c: records to bytes and back (writer/format.h).  Each
 * record is compared with the prediction of its (kind, fn, site)
 * context, and only what differs is written, as small zigzag deltas;
 * fn and site are predicted from the order calls came in before, and
 * timestamps are a gap from the previous record and a duration, each
 * against the last of its context and size class.  A repeated
 * collective thus costs three or five bytes before zlib, whose job is
 * then easy, and in a loop, where each record is the one the record
 * before predicts, runs take the tags away: two bytes a record.  The
 * encoder runs on the interposer's hot path: no
 * allocation, no system call, one bounds check per record (the caller
 * leaves slack past the limit), and nothing committed until the record
 * is known to fit.
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
#define RAW_S64(x) ((uint64_t)(x))

#define FITS_U64(v) 1
#define FITS_U32(v) ((v) <= UINT32_MAX)
#define FITS_U16(v) ((v) <= UINT16_MAX)
#define FITS_S32(v) ((uint64_t)((v) + 0x80000000u) <= UINT32_MAX)
#define FITS_S64(v) 1

#define CAST_U64(v) ((uint64_t)(v))
#define CAST_U32(v) ((uint32_t)(v))
#define CAST_U16(v) ((uint16_t)(v))
#define CAST_S32(v) ((int32_t)(int64_t)(v))
#define CAST_S64(v) ((int64_t)(v))

/*
 * The most a record writes besides its text: tag, fn, site, mask, every
 * field, the timestamps, nframes and the frames, and text_len, each
 * varint at its longest (st_varint_put() touches at least two bytes).
 */
_Static_assert(1 + 3 + 10 + 3 + ST_NFIELDS * 10 + 2 * 10 + 2 +
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

/* The size class of a record that sends 's' and receives 'r' bytes. */
static inline unsigned size_class(uint64_t s, uint64_t r)
{
	return s | r ? 64 - (unsigned)__builtin_clzll(s | r) : 0;
}

static inline uint64_t tcls_key(uint64_t key, unsigned cls)
{
	return key | (uint64_t)cls << 20;
}

static inline struct st_tcls *tcls_slot(struct st_codec *c, uint64_t tkey)
{
	return &c->tcls[tkey * 0x9e3779b97f4a7c15u >> (64 - ST_TCLS_BITS)];
}

/*
 * The timing ('*gap', '*dur') slot 'x' takes for a record of context
 * 'key' and size class 'cls' ('valid': 'x' holds 'key'): its own when
 * it has that class, else the table's for it, else its own, or none.
 */
static inline void class_timing(struct st_codec *c, const struct st_ctx *x,
				int valid, uint64_t key, unsigned cls,
				uint64_t *gap, uint64_t *dur)
{
	const struct st_tcls *t;

	if (!valid || x->cls != cls) {
		t = tcls_slot(c, tcls_key(key, cls));
		if (t->epoch == c->epoch && t->key == tcls_key(key, cls)) {
			*gap = t->gap;
			*dur = t->dur;
			return;
		}
	}
	*gap = valid ? x->gap : 0;
	*dur = valid ? x->dur : 0;
}

/*
 * Slot 'x' (which held its key before the record when 'valid') takes
 * class 'cls' and the timing class_timing() gave; the timing of its old
 * class goes to the table.
 */
static inline void class_set(struct st_codec *c, struct st_ctx *x,
			     int valid, unsigned cls, uint64_t gap,
			     uint64_t dur)
{
	struct st_tcls *t;

	if (valid && x->cls == cls)
		return;
	if (valid) {
		t = tcls_slot(c, tcls_key(x->key, x->cls));
		t->epoch = c->epoch;
		t->key = tcls_key(x->key, x->cls);
		t->gap = x->gap;
		t->dur = x->dur;
	}
	x->cls = cls;
	x->gap = gap;
	x->dur = dur;
}

/* Fill slot 'x' for context 'key': it predicts "does not apply". */
static void ctx_claim(struct st_codec *c, struct st_ctx *x, uint64_t key)
{
	x->epoch = c->epoch;
	x->key = key;
	x->next = key & ST_KEY_NEXT;
	x->nkey = 0;
	x->gap = x->dur = 0;
	x->lreq = 0;
	memcpy(x->v, ctx_empty, sizeof(x->v));
}

/* After a timed record of 'kind', 'fn' and duration 'dur'. */
static inline void timed(struct st_codec *c, unsigned kind, unsigned fn,
			 uint64_t dur, uint64_t t1)
{
	c->done_fn = st_after_timed(kind, fn);
	c->done_dur = dur;
	c->last_t1 = t1;
}

void st_codec_init(struct st_codec *c)
{
	memset(c, 0, sizeof(*c));
	c->epoch = 1;
	c->prev = &c->start;
	c->done_fn = ST_DONE_NONE;
	c->loops = 1;
	c->starts = 1;
}

void st_codec_reset(struct st_codec *c)
{
	unsigned i;

	c->last_t1 = 0;
	c->last_req = 0;
	c->done_fn = ST_DONE_NONE;
	c->last_fn = 0;
	c->run_left = 0;
	c->loop_left = 0;
	c->run_n = c->run_end = NULL;
	c->loop_n = c->loop_end = NULL;
	c->loop_st = ST_LOOP_NONE;
	c->prev = &c->start;
	c->start.key = c->start.next = 0;
	/*
	 * Slots of older epochs read as empty, so a reset costs nothing
	 * but forgetting the tokens: a slot holds a token only when the
	 * record it names was coded in this epoch (st_enc_like_kind()
	 * relies on that).  Only when the counter wraps must stale slots
	 * really go.
	 */
	for (i = 0; i < ST_CTX_SLOTS; i++)
		c->ctx[i].token = 0;
	if (!++c->epoch) {
		memset(c->ctx, 0, sizeof(c->ctx));
		memset(c->cseq, 0, sizeof(c->cseq));
		memset(c->tcls, 0, sizeof(c->tcls));
		c->epoch = 1;
	}
}

/*
 * Any record, of context 'key' in slot 'x', which holds it when 'valid':
 * the fields that differ from the prediction are written.  Kept out of
 * line so that the hot case in st_enc_record() stays small.
 */
__attribute__((noinline))
static int enc_full(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		    const struct st_event *ev, uint32_t token,
		    struct st_ctx *x, uint64_t key, int valid)
{
	uint64_t raw[ST_NFIELDS];
	const uint64_t *pred = valid ? x->v : ctx_empty;
	uint8_t *p = *pp;
	uint64_t pr, pq, prq, cg, cd, gap = 0, dur = 0;
	int same = 0;
	unsigned tag, cls, i;
	uint32_t mask = 0, m;

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
	prq = st_pred_req(c, ev->kind, pred[ST_F_REQ], valid ? x->lreq : 0);
	mask &= ~(1u << ST_F_RBYTES | 1u << ST_F_SEQ | 1u << ST_F_REQ);
	mask |= (uint32_t)(raw[ST_F_RBYTES] != pr) << ST_F_RBYTES |
		(uint32_t)(raw[ST_F_SEQ] != pq) << ST_F_SEQ |
		(uint32_t)(raw[ST_F_REQ] != prq) << ST_F_REQ;
	cls = size_class(raw[ST_F_SBYTES], raw[ST_F_RBYTES]);
	class_timing(c, x, valid, key, cls, &cg, &cd);

	tag = ev->kind - 1;
	p++;
	/*
	 * Spelled out: ST_TAG_RUN and the loop run tags, those records'
	 * tags otherwise, are taken.
	 */
	if ((key & ST_KEY_FN_SITE) != (c->prev->next & ST_KEY_FN_SITE) ||
	    (ev->kind == ST_REC_CALL && !mask && !(ev->t0 | ev->t1) &&
	     !ev->nframes && !ev->text_len) ||
	    (ev->kind == ST_REC_START && !(ev->t0 | ev->t1))) {
		tag |= ST_TAG_FN;
		p = st_varint_put(p, ev->fn);
		p = st_varint_put(p, st_zigzag(ev->site -
					       (c->prev->key >> 32)));
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
		/* A completion call's records share its timestamps. */
		same = c->done_fn == st_share_fn(c, ev->kind, ev->fn);
		gap = ev->t0 - c->last_t1;
		dur = ev->t1 - ev->t0;
		p = st_varint_put(p, st_zigzag(gap - (same ? 0 - c->done_dur
							   : cg)));
		p = st_varint_put(p, st_zigzag(dur - (same ? c->done_dur
							   : cd)));
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
	if (!valid)
		ctx_claim(c, x, key);
	class_set(c, x, valid, cls, cg, cd);
	for (m = mask; m; m &= m - 1) {
		i = (unsigned)__builtin_ctz(m);
		x->v[i] = raw[i];
	}
	/* The predicted ones when not in 'mask'. */
	x->v[ST_F_RBYTES] = raw[ST_F_RBYTES];
	x->v[ST_F_SEQ] = raw[ST_F_SEQ];
	x->v[ST_F_REQ] = raw[ST_F_REQ];
	x->token = token;
	c->tok[st_tok_index(token)] = x;
	st_ctx_count(x, ev->kind);
	st_count_call(c, ev->kind, raw[ST_F_COMM], raw[ST_F_SEQ],
		      raw[ST_F_REQ]);
	st_ctx_lreq(c, x, ev->kind);
	if (tag & ST_TAG_NOTIME) {
		c->done_fn = ST_DONE_NONE;
	} else {
		if (!same) {
			x->gap = gap;
			x->dur = dur;
		}
		timed(c, ev->kind, ev->fn, dur, ev->t1);
	}
	st_ctx_follow(c, x, key);
	c->last_fn = ev->fn;
	*pp = p;
	return 0;
}

/*
 * The hot case: the context predicts every field and the record has
 * timestamps but no frames or text, so it is the tag, maybe fn and
 * site, and the two timestamps, and only the context's counters move.
 * Its fields, sizes included, are the context's: so is its size class.
 */
int st_enc_record(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  const struct st_event *ev, uint32_t token)
{
	uint64_t key = st_rec_key(c, ev->kind, ev->fn, ev->site);
	struct st_ctx *x = st_ctx_slot(c, key);
	uint64_t diff = 0, pq, prq, gap, dur, pg, pd;
	uint8_t *p = *pp;
	int same;

	/* A slot valid for 'key' implies a valid kind: it was encoded. */
	if (unlikely(!st_ctx_valid(c, x, key)))
		return enc_full(c, pp, limit, ev, token, x, key, 0);
	/* With every field as in the context, so is the communicator. */
	pq = st_pred_seq(c, ev->kind, x->v[ST_F_SEQ], x->v[ST_F_COMM]);
	prq = st_pred_req(c, ev->kind, x->v[ST_F_REQ], x->lreq);
#define X(bit, name, type)						\
	diff |= RAW_##type(ev->name) ^ (bit == ST_F_SEQ ? pq :		\
					bit == ST_F_REQ ? prq : x->v[bit]);
	ST_FIELD_LIST(X)
#undef X
	/* So is one without the room st_enc_head() wants. */
	if (unlikely(diff | ev->nframes | ev->text_len || !(ev->t0 | ev->t1) ||
		     limit - p < ST_HEAD_ROOM))
		return enc_full(c, pp, limit, ev, token, x, key, 1);

	p = st_enc_head(c, p, ev->kind, ev->fn, ev->site, key);
	same = c->done_fn == st_share_fn(c, ev->kind, ev->fn);
	gap = ev->t0 - c->last_t1;
	dur = ev->t1 - ev->t0;
	pg = same ? 0 - c->done_dur : x->gap;
	pd = same ? c->done_dur : x->dur;
	p = st_varint_put(p, st_zigzag(gap - pg));
	p = st_varint_put(p, st_zigzag(dur - pd));
	c->loop_end = p;
	x->token = token;
	c->tok[st_tok_index(token)] = x;
	x->v[ST_F_SEQ] = ev->seq;
	x->v[ST_F_REQ] = ev->req;
	st_ctx_count(x, ev->kind);
	st_count_call(c, ev->kind, ev->comm, ev->seq, ev->req);
	st_ctx_lreq(c, x, ev->kind);
	if (!same) {
		x->gap = gap;
		x->dur = dur;
	}
	timed(c, ev->kind, ev->fn, dur, ev->t1);
	st_ctx_follow(c, x, key);
	c->last_fn = ev->fn;
	*pp = p;
	return 0;
}

int st_enc_repeat(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  unsigned fn, uint32_t token, uint64_t seq, uint64_t t0,
		  uint64_t t1)
{
	uint8_t *p = *pp, *n = NULL;
	struct st_ctx *x;
	struct st_cseq *q;
	int head = 0;

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
		 * The slot the token's record was coded in, if it still
		 * holds the token: then it holds that record's fields, call
		 * site included.  The map forgets (tokens share its
		 * entries), but in a loop the slot is the one the previous
		 * record predicts.  'req' and 'inst' are counted from one
		 * record to the next, which a repeat's fields, those of the
		 * token's record, are not.  A slot holds a token only for a
		 * record of this chunk (st_codec_reset() clears them), so no
		 * epoch is checked.
		 */
		x = c->tok[st_tok_index(token)];
		if (!x || x->token != token)
			x = st_ctx_slot(c, (c->prev->next & ST_KEY_FN_SITE) |
					       ST_REC_CALL << 16);
		if (x->token != token || !token ||
		    (x->key & 0xfffff) != (ST_REC_CALL << 16 | fn) ||
		    st_pred_seq(c, ST_REC_CALL, x->v[ST_F_SEQ],
				x->v[ST_F_COMM]) != seq ||
		    !seq || x->v[ST_F_REQ] || x->v[ST_F_INST] ||
		    !(t0 | t1) || c->done_fn == fn)
			return 1;
		q = st_cseq_slot(c, x->v[ST_F_COMM]);
		if (unlikely(limit - p < ST_HEAD_ROOM))
			return -ENOBUFS;
		p = st_enc_head(c, p, ST_REC_CALL, fn, (uint32_t)(x->key >> 32),
				x->key);
		head = 1;
	}
	p = st_varint_put(p, st_zigzag(t0 - c->last_t1 - x->gap));
	p = st_varint_put(p, st_zigzag(t1 - t0 - x->dur));
	if (unlikely(p > limit))
		return -ENOBUFS;
	/* Before the caller publishes the record (see format.h). */
	if (n)
		++*n;
	if (head)
		c->loop_end = p;
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
	/*
	 * As st_dec_record() decodes it: a timed call record, or a run's
	 * member, after which nothing shares timestamps (format.h).
	 */
	if (n) {
		c->done_fn = ST_DONE_NONE;
	} else {
		c->done_fn = st_after_timed(ST_REC_CALL, fn);
		c->done_dur = t1 - t0;
	}
	c->last_t1 = t1;
	st_ctx_follow(c, x, x->key);
	c->last_fn = (uint16_t)fn;
	*pp = p;
	return 0;
}

int st_enc_token(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		 unsigned kind, unsigned fn, uint32_t site, uint32_t token,
		 uint64_t seq, uint64_t req, uint64_t inst, uint64_t t0,
		 uint64_t t1)
{
	struct st_tok_rec l = {
		.kind = kind, .fn = fn, .site = site, .token = token,
		.seq = seq, .req = req, .inst = inst, .t0 = t0, .t1 = t1,
	};

	return st_enc_like(c, pp, limit, &l);
}

/* st_ctx_count() as versions 4 to 7 had it. */
static void v6_count(struct st_ctx *x, unsigned kind)
{
	x->v[ST_F_SEQ] += x->v[ST_F_SEQ] != 0;
	x->v[ST_F_INST] += x->v[ST_F_INST] != 0;
	x->v[ST_F_REQ] += (x->v[ST_F_REQ] != 0) & (kind != ST_REC_START);
}

int st_dec_record(struct st_codec *c, const uint8_t **pp, const uint8_t *end,
		  struct st_event *ev)
{
	uint64_t v, gap, dur, s0, r0, q0, rq0, key, site, cg, cd;
	const uint8_t *p = *pp;
	struct st_ctx *x;
	unsigned kind, tag, fn, cls, i;
	int run = 0, loop = 0, valid, same;
	uint32_t m;

	if (c->run_left) {
		/* A run's member: as if tagged a call record of this fn. */
		c->run_left--;
		tag = ST_REC_CALL - 1;
		run = 1;
	} else if (c->loop_left) {
		c->loop_left--;
		loop = 1;
	} else {
		if (p >= end)
			return -EBADMSG;
		tag = *p++;
		if (tag == ST_TAG_RUN) {
			if (p >= end || !*p)
				return -EBADMSG;
			c->run_left = *p++ - 1u;
			tag = ST_REC_CALL - 1;
			run = 1;
		} else if ((tag & ST_TAG_LOOP_MASK) == ST_TAG_LOOP &&
			   c->loops) {
			if (tag != ST_TAG_LOOP_LONG) {
				c->loop_left = tag / ST_TAG_LOOP_STEP;
			} else {
				if (p >= end || !*p)
					return -EBADMSG;
				c->loop_left = *p++ - 1u;
			}
			loop = 1;
		}
	}
	if (loop) {
		/*
		 * A loop run's member: tagged as the kind the previous
		 * record's successor has, with its fn and site (below).
		 */
		kind = (unsigned)(c->prev->next >> 16 & 0xf);
		if (kind - 1u >= ST_REC_MAX)
			return -EBADMSG;
		tag = kind - 1;
	}
	kind = (tag & ST_TAG_KIND) + 1;
	if (run) {
		/* The previous record's context, whatever it predicts. */
		fn = c->last_fn;
		site = c->prev->key >> 32;
	} else if (tag & ST_TAG_FN) {
		if (st_varint_get(&p, end, &v) || v > UINT16_MAX)
			return -EBADMSG;
		fn = (unsigned)v;
		if (st_varint_get(&p, end, &v))
			return -EBADMSG;
		site = (c->prev->key >> 32) + st_unzigzag(v);
		if (site > UINT32_MAX)
			return -EBADMSG;
	} else {
		fn = (unsigned)(c->prev->next & 0xffff);
		site = c->prev->next >> 32;
	}
	/*
	 * Decode in place into the context: on error the chunk is given up
	 * anyway, so a half-updated context does no harm.
	 */
	key = c->v6 ? st_ctx_key(kind, fn, (uint32_t)site)
		    : st_rec_key(c, kind, fn, (uint32_t)site);
	x = st_ctx_slot(c, key);
	valid = st_ctx_valid(c, x, key);
	if (!valid)
		ctx_claim(c, x, key);
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
	x->v[ST_F_REQ] += c->v6 ? st_pred_req(c, kind == ST_REC_CALL ? kind : 0,
					      rq0, 0)
				: st_pred_req(c, kind, rq0, x->lreq);
#define X(bit, name, type)				\
	if (!FITS_##type(x->v[bit]))			\
		return -EBADMSG;			\
	ev->name = CAST_##type(x->v[bit]);
	ST_FIELD_LIST(X)
#undef X
	ev->site = (uint32_t)site;
	cls = size_class(x->v[ST_F_SBYTES], x->v[ST_F_RBYTES]);
	class_timing(c, x, valid, key, cls, &cg, &cd);
	class_set(c, x, valid, cls, cg, cd);
	if (tag & ST_TAG_NOTIME) {
		ev->t0 = ev->t1 = 0;
		c->done_fn = ST_DONE_NONE;
	} else {
		if (st_varint_get(&p, end, &gap) ||
		    st_varint_get(&p, end, &dur))
			return -EBADMSG;
		same = c->done_fn == st_share_fn(c, kind, fn);
		gap = st_unzigzag(gap) + (same ? 0 - c->done_dur : x->gap);
		dur = st_unzigzag(dur) + (same ? c->done_dur : x->dur);
		if (!same) {
			x->gap = gap;
			x->dur = dur;
		}
		ev->t0 = c->last_t1 + gap;
		ev->t1 = ev->t0 + dur;
		timed(c, kind, fn, dur, ev->t1);
		if (run)
			c->done_fn = ST_DONE_NONE;
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

	if (c->v6)
		v6_count(x, kind);
	else
		st_ctx_count(x, kind);
	st_count_call(c, kind, ev->comm, ev->seq, ev->req);
	st_ctx_lreq(c, x, kind);
	st_ctx_follow(c, x, key);
	c->last_fn = (uint16_t)fn;
	*pp = p;
	return 0;
}
