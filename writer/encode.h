/*
 * writer/encode.h: private; the record encoding of writer/format.h, both
 * ways.  A codec holds the per-chunk prediction state: the context table
 * of (kind, fn, site) slots, the timings of other size classes, the
 * previous record's slot and the previous t1.  Writer and reader each
 * keep one and reset it at every chunk, so both sides make the same
 * predictions.
 */
#ifndef ST_WRITER_ENCODE_H
#define ST_WRITER_ENCODE_H

#include <errno.h>
#include <stdint.h>

#include "writer/event.h"
#include "writer/format.h"
#include "writer/varint.h"
#include "writer/writer.h"

struct st_event;

/* The fn and site bits of a context key (st_ctx_key()). */
#define ST_KEY_FN_SITE 0xffffffff0000ffffull
/*
 * Its fn, site and kind bits: a successor (struct st_ctx's 'next'), the
 * record a loop run's member is (writer/format.h).
 */
#define ST_KEY_NEXT 0xffffffff000fffffull
/* Where a done record's ordinal goes in its key (st_rec_key()). */
#define ST_KEY_ORD_SHIFT 27
#define ST_KEY_ORD (0x1full << ST_KEY_ORD_SHIFT)

/* Slots of the writer's token map (st_enc_repeat()). */
#define ST_TOK_SLOTS 64

/* The highest ordinal of a done record (st_rec_key()). */
#define ST_DONE_ORD_MAX 31

/* st_codec.done_fn when the previous record is untimed, or none, */
#define ST_DONE_NONE UINT32_MAX
/*
 * or when it is a timed record but a done one: a start record after it
 * shares its timestamps from version 11 on (st_share_fn()); before, no
 * record's fn matches it, so it predicts what ST_DONE_NONE does.
 */
#define ST_DONE_TIMED (UINT32_MAX - 1)

/* One (kind, fn, site) context: the prediction of its next record. */
struct st_ctx {
	uint32_t epoch;		/* valid when equal to the codec's epoch */
	uint32_t token;		/* the caller's name for v[], 0 when none;
				   only this epoch's (st_codec_reset()) */
	uint64_t key;		/* st_ctx_key() */
	uint64_t next;		/* kind, fn and site of its successor
				   (key & ST_KEY_NEXT) */
	uint64_t nkey;		/* writer: st_rec_key() of a record after
				   it, 0 when none (ctx_claim()) */
	struct st_ctx *nx;	/* and st_ctx_slot() of that key */
	uint64_t gap, dur;	/* the timing of its size class */
	uint32_t cls;		/* size class of its last record */
	uint64_t lreq;		/* done records: the codec's last_req after
				   its last record */
	uint64_t v[ST_NFIELDS];
};

/* The timing of a context's size class other than its slot's. */
struct st_tcls {
	uint32_t epoch;		/* valid when equal to the codec's epoch */
	uint64_t key;		/* context key | class << 20 */
	uint64_t gap, dur;
};

/* The last sequence number of a call record on one communicator. */
struct st_cseq {
	uint32_t epoch;		/* valid when equal to the codec's epoch */
	uint64_t comm, seq;
};

struct st_codec {
	uint64_t last_t1;	/* t1 of the previous timed record */
	uint64_t last_req;	/* last request of a call record, 0: none */
	uint64_t done_dur;	/* duration of the previous record, */
	uint32_t done_fn;	/* its fn if a timed done one, or none
				   (st_after_timed()) */
	uint32_t epoch;		/* bumped at each reset, never 0 */
	uint16_t last_fn;	/* fn of the previous record */
	uint8_t v6;		/* reader: a trace of version 7 or older,
				   decoded by its rules (st_dec_record()) */
	uint8_t loops;		/* ST_TAG_LOOP starts a loop run: version 9
				   and later (st_codec_init() sets it) */
	uint8_t starts;		/* a start record is predicted to share the
				   previous timed record's timestamps:
				   version 11 on (st_codec_init() sets it) */
	uint32_t run_left;	/* reader: members of the run still to come */
	uint32_t loop_left;	/* reader: those of the loop run */
	struct st_ctx *prev;	/* slot of the previous record, or &start */
	uint8_t *run_n;		/* writer: the open run's count, or NULL */
	uint8_t *run_end;	/* writer: end of the last repeat */
	struct st_ctx *run_x;	/* writer: the last repeat's context, */
	struct st_cseq *run_q;	/* its communicator's slot */
	uint32_t run_token;	/* and its token */
	uint8_t *loop_n;	/* writer: the open loop run's count (its tag
				   or count byte) */
	uint8_t loop_max;	/* the count's value when the run is full */
	uint8_t loop_step;	/* what a member adds to it */
	uint8_t loop_st;	/* ST_LOOP_*, of the record ending at: */
	uint8_t *loop_end;	/* writer: the end of the last record coded
				   through st_enc_head() */
	struct st_ctx start;	/* 'prev' of a chunk's first record */
	struct st_ctx *tok[ST_TOK_SLOTS + 1]; /* writer: st_tok_index() */
	struct st_ctx ctx[ST_CTX_SLOTS];
	struct st_cseq cseq[ST_CSEQ_SLOTS];
	struct st_tcls tcls[ST_TCLS_SLOTS];
};

/*
 * What st_codec.done_fn must be for a timed record of 'kind' and 'fn' to
 * be predicted to share the previous record's t0 and t1 (format.h): the
 * records of a completion call after its first, which follow a done
 * record of that call; and from version 11 on a start record, which
 * follows its MPI_Start(all)'s call record or a start record of that
 * call.
 */
static inline uint32_t st_share_fn(const struct st_codec *c, unsigned kind,
				   unsigned fn)
{
	return kind == ST_REC_START && c->starts ? ST_DONE_TIMED : fn;
}

/* st_codec.done_fn after a timed record of 'kind' and 'fn'. */
static inline uint32_t st_after_timed(unsigned kind, unsigned fn)
{
	return kind == ST_REC_DONE ? fn : ST_DONE_TIMED;
}

/*
 * Bytes a record may take besides its text: tag, fn, mask, every field,
 * both timestamps and ST_MAX_FRAMES frames, all at their longest.
 */
#define ST_REC_MAX_FIXED 1024

/* The key of the context (kind, fn, site). */
static inline uint64_t st_ctx_key(unsigned kind, unsigned fn, uint32_t site)
{
	return (uint64_t)site << 32 | kind << 16 | fn;
}

/*
 * The key of the context of a record of 'kind', 'fn' and 'site' coded
 * next in 'c': st_ctx_key(), but for a done record that follows done
 * records of the same fn and site (a completion call's) with its
 * ordinal among them, up to ST_DONE_ORD_MAX, in bits 27..31, so that
 * the first, second... request a Waitall completes are predicted apart.
 */
static inline uint64_t st_rec_key(const struct st_codec *c, unsigned kind,
				  unsigned fn, uint32_t site)
{
	uint64_t key = st_ctx_key(kind, fn, site), pk = c->prev->key;
	unsigned ord;

	if (kind != ST_REC_DONE || (pk >> 16 & 0xf) != ST_REC_DONE ||
	    (pk & ST_KEY_FN_SITE) != (key & ST_KEY_FN_SITE))
		return key;
	ord = (unsigned)(pk >> ST_KEY_ORD_SHIFT) & ST_DONE_ORD_MAX;
	ord += ord < ST_DONE_ORD_MAX;
	return key | (uint64_t)ord << ST_KEY_ORD_SHIFT;
}

static inline struct st_ctx *st_ctx_slot(struct st_codec *c, uint64_t key)
{
	return &c->ctx[key * 0x9e3779b97f4a7c15u >> (64 - ST_CTX_BITS)];
}

/*
 * The record of context 'key', now in slot 'x', follows the previous
 * record: it is the successor of that one's context, and the next
 * record's fn and site are predicted from 'x'.
 */
static inline void st_ctx_follow(struct st_codec *c, struct st_ctx *x,
				 uint64_t key)
{
	c->prev->next = key & ST_KEY_NEXT;
	c->prev = x;
}

/*
 * The context now holds the record's own fields: advance its counters
 * so that it predicts the next record: 'inst'; 'seq' unless the record
 * is an instance of a persistent request ('inst' not 0), whose 'seq' is
 * its init call's; 'req' in call records (a done record's is predicted
 * by st_pred_req()).
 */
static inline void st_ctx_count(struct st_ctx *x, unsigned kind)
{
	x->v[ST_F_SEQ] += (x->v[ST_F_SEQ] != 0) & (x->v[ST_F_INST] == 0);
	x->v[ST_F_INST] += x->v[ST_F_INST] != 0;
	x->v[ST_F_REQ] += (x->v[ST_F_REQ] != 0) & (kind == ST_REC_CALL);
}

static inline struct st_cseq *st_cseq_slot(struct st_codec *c, uint64_t comm)
{
	uint32_t h = (uint32_t)(comm ^ comm >> 32) * 0x9e3779b1u;

	return &c->cseq[h >> (32 - ST_CSEQ_BITS)];
}

/*
 * The predicted 'seq' of a record of 'kind' on communicator 'comm' whose
 * context predicts 'seq': a call record's on a communicator a call
 * record of the chunk used is that one's + 1 (collectives count per
 * communicator, whatever the function); otherwise the context's.
 */
static inline uint64_t st_pred_seq(struct st_codec *c, unsigned kind,
				   uint64_t seq, uint64_t comm)
{
	struct st_cseq *q;

	if (kind != ST_REC_CALL || !seq)
		return seq;
	q = st_cseq_slot(c, comm);
	return q->epoch == c->epoch && q->comm == comm ? q->seq + 1 : seq;
}

/*
 * The predicted 'req' of a record of 'kind' whose context predicts 'req'
 * and remembers 'lreq' (struct st_ctx): a call record's that makes a
 * request is the last one's + 1 (requests count per rank); a done
 * record's is its context's moved on by the requests made since (a
 * loop that makes k requests and completes them moves each by k, one
 * that restarts persistent requests by 0); otherwise the context's.
 */
static inline uint64_t st_pred_req(const struct st_codec *c, unsigned kind,
				   uint64_t req, uint64_t lreq)
{
	if (kind == ST_REC_CALL)
		return req && c->last_req ? c->last_req + 1 : req;
	if (kind == ST_REC_DONE && req && lreq && c->last_req)
		return req + (c->last_req - lreq);
	return req;
}

/* After a record of 'kind' in context 'x' was coded. */
static inline void st_ctx_lreq(const struct st_codec *c, struct st_ctx *x,
			       unsigned kind)
{
	if (kind == ST_REC_DONE)
		x->lreq = c->last_req;
}

/* A record of 'kind' with 'seq' and 'req' on 'comm' was coded. */
static inline void st_count_call(struct st_codec *c, unsigned kind,
				 uint64_t comm, uint64_t seq, uint64_t req)
{
	struct st_cseq *q;

	if (kind != ST_REC_CALL)
		return;
	if (seq) {
		q = st_cseq_slot(c, comm);
		q->epoch = c->epoch;
		q->comm = comm;
		q->seq = seq;
	}
	if (req)
		c->last_req = req;
}

/*
 * Where the writer's token map keeps the slot a record with 'token' was
 * coded in; token 0, no name, has an entry of its own that is never
 * looked up.  Several tokens share an entry: a lookup checks the slot.
 */
static inline unsigned st_tok_index(uint32_t token)
{
	return token ? token % ST_TOK_SLOTS : ST_TOK_SLOTS;
}

static inline int st_ctx_valid(const struct st_codec *c,
			       const struct st_ctx *x, uint64_t key)
{
	return x->epoch == c->epoch && x->key == key;
}

/* st_codec.loop_st: how the record before stands to loop runs. */
enum {
	ST_LOOP_NONE,		/* not a possible member */
	ST_LOOP_ONE,		/* a possible member, coded with its tag */
	ST_LOOP_TWO,		/* so were it and the one before */
	ST_LOOP_IN		/* a member of the open run, loop_n */
};

/*
 * The most bytes st_enc_head() and the two timestamp residuals after it
 * take: tag, fn and site (1 + 3 + 5) or a loop run's tag and count, and
 * two varints.  Callers check the room first, so that the head can
 * change the codec's loop run state at once: nothing can fail after.
 */
#define ST_HEAD_ROOM 32

/*
 * The head of a record of 'kind', 'fn', 'site' and context 'key' coded
 * at 'p' in 'c', whose every field is as predicted and which has
 * timestamps but no frames or text, with ST_HEAD_ROOM bytes of room;
 * returns where its timestamps go, after which the caller sets
 * c->loop_end to the record's end.  When it is the record the previous
 * one's successor predicts, kind included, it may be a loop run's
 * member (writer/format.h), and the head is: nothing, when it joins the
 * open run (counted at once, before the caller publishes the record, as
 * for runs: format.h); when the two records before could have been
 * members too, a run's tag, which counts up to 7 members (so the run
 * costs what the record's tag would have), or after a full run the tag
 * and count of one of up to ST_RUN_MAX; else the record's own tag, as
 * it would be without loop runs.  Otherwise the tag, with fn and site
 * when the successor does not predict them.
 */
static inline __attribute__((always_inline)) uint8_t *
st_enc_head(struct st_codec *c, uint8_t *p, unsigned kind, unsigned fn,
	    uint32_t site, uint64_t key)
{
	const uint64_t next = c->prev->next;
	unsigned st;
	uint8_t *n;

	if ((key & ST_KEY_NEXT) == next) {
		st = p == c->loop_end ? c->loop_st : ST_LOOP_NONE;
		if (st == ST_LOOP_IN) {
			n = c->loop_n;
			if (__builtin_expect(*n != c->loop_max, 1)) {
				*n = (uint8_t)(*n + c->loop_step);
				return p;
			}
			p[0] = ST_TAG_LOOP_LONG;
			p[1] = 1;
			c->loop_n = p + 1;
			c->loop_max = ST_RUN_MAX;
			c->loop_step = 1;
			return p + 2;
		}
		if (st == ST_LOOP_TWO) {
			*p = ST_TAG_LOOP;
			c->loop_n = p;
			c->loop_max = ST_TAG_LOOP_FULL;
			c->loop_step = ST_TAG_LOOP_STEP;
			c->loop_st = ST_LOOP_IN;
			return p + 1;
		}
		c->loop_st = (uint8_t)(st + 1);
		*p = (uint8_t)(kind - 1);
		return p + 1;
	}
	c->loop_st = ST_LOOP_NONE;
	*p = (uint8_t)(kind - 1);
	if (!((key ^ next) & ST_KEY_FN_SITE))
		return p + 1;
	*p |= ST_TAG_FN;
	p = st_varint_put(p + 1, fn);
	return st_varint_put(p, st_zigzag(site - (c->prev->key >> 32)));
}

/* Set up 'c' for the first chunk. */
void st_codec_init(struct st_codec *c);

/* Forget all prediction state: a new chunk starts. */
void st_codec_reset(struct st_codec *c);

/*
 * Encode 'ev' at '*pp' and advance '*pp'.  The record must end at or
 * before 'limit', and up to ST_REC_MAX_FIXED bytes past 'limit' must be
 * writable (the fixed part is written before it is checked).  Returns 0;
 * -ENOBUFS when the record does not fit, leaving '*pp' and 'c' as they
 * were; or -EINVAL for a record that cannot be encoded (kind out of
 * range, more than ST_MAX_FRAMES frames, text_len without text).
 * 'ev->thread' is not encoded: the chunk says which stream it is.
 * 'token' is stored in the record's context, for st_enc_repeat().  A
 * record that is exactly what the record before predicts may join a
 * loop run (writer/format.h), when ST_HEAD_ROOM bytes are left before
 * 'limit'; nearer, it is coded with its tag.
 */
int st_enc_record(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  const struct st_event *ev, uint32_t token);

/*
 * A repeat: a call record ('kind' ST_REC_CALL) of function 'fn' whose
 * fields are those last encoded with 'token' in its context, but for
 * its timestamps and its sequence number 'seq', which must be the one
 * the context predicts.  Encodes it as st_enc_record() would, in the
 * few instructions the caller saves by not building a struct st_event;
 * but a repeat that follows a repeat of the same fn joins a run
 * (writer/format.h), which drops its tag byte: a loop's repeated
 * collective costs its two timestamp residuals; and one that follows
 * another record joins a loop run as st_enc_record() would make it one
 * (writer/format.h).  The call site is not
 * passed: the context is the one that holds 'token', found through a
 * small map, or else as the one the previous record predicts.  Returns
 * 0; 1 when no context of 'fn' found so holds 'token', when it predicts
 * another 'seq' or counts 'req' or 'inst', or when the record follows a
 * done record of 'fn' (nothing written: encode the full record with
 * st_enc_record()); or -ENOBUFS as st_enc_record(), or, unless it joins
 * or starts a run, when fewer than ST_HEAD_ROOM bytes are left before
 * 'limit'.
 *
 * A token names a set of field values on the caller's side; any
 * st_enc_record() call stores its 'token' (0 for none) in the context,
 * so a caller must never give one token to records whose fields or
 * call sites differ in anything but 'seq' and the timestamps.
 */
int st_enc_repeat(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  unsigned fn, uint32_t token, uint64_t seq, uint64_t t0,
		  uint64_t t1);

/*
 * A record of 'kind', 'fn' and 'site' whose fields are those last
 * encoded with 'token' in its context (st_rec_key()) but for its
 * timestamps and its counters 'seq', 'req' and 'inst', which must be
 * the ones the context predicts: a nonblocking call whose arguments
 * and call site were seen before, the start of a persistent request,
 * a request completing as the one before did.  Encodes it as
 * st_enc_record() would, without a struct st_event.  Returns 0; 1 when
 * the context does not hold 'token' (or 'token' is 0), predicts other
 * counters, or the record has no timestamps (nothing written: encode
 * the full record with st_enc_record(), passing 'token'); or -ENOBUFS
 * when fewer than ST_HEAD_ROOM bytes are left before 'limit'.  Like
 * st_enc_record(), it makes a loop's records loop runs (format.h).
 * Tokens are as for st_enc_repeat().
 */
int st_enc_token(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		 unsigned kind, unsigned fn, uint32_t site, uint32_t token,
		 uint64_t seq, uint64_t req, uint64_t inst, uint64_t t0,
		 uint64_t t1);

/*
 * st_enc_token() of the record 'l', inline for the interposer's hot
 * path (st_stream_like(), writer/stream.h): the context's counters are
 * set to what they predict next straight from the record's, which are
 * those they predicted.  A record whose two residuals are 0 (one that
 * shares the timestamps of the done record before it, of its fn) takes
 * its two zero bytes without computing them.
 */
static inline __attribute__((always_inline)) int
st_enc_like_kind(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		 const struct st_tok_rec *l, unsigned kind)
{
	/* Every field read once: the stores below cannot change them. */
	const unsigned fn = l->fn;
	const uint32_t site = l->site, token = l->token;
	const uint64_t seq = l->seq, req = l->req, inst = l->inst;
	const uint64_t t0 = l->t0, t1 = l->t1;
	struct st_ctx *x, *prev = c->prev;
	uint64_t key, gap, dur, pg, pd;
	uint8_t *p = *pp;
	struct st_cseq *q = NULL;
	int same;

	/*
	 * The record's key and slot, as the previous record's context
	 * last saw them after it: a key is st_rec_key() of the kind, fn
	 * and site and of that context's key, which stays while the slot
	 * holds that context (ctx_claim() forgets nkey).
	 */
	if (__builtin_expect((prev->nkey & ~ST_KEY_ORD) ==
			     st_ctx_key(kind, fn, site), 1)) {
		key = prev->nkey;
		x = prev->nx;
	} else {
		key = st_rec_key(c, kind, fn, site);
		x = st_ctx_slot(c, key);
		prev->nkey = key;
		prev->nx = x;
	}
	/*
	 * The token vouches for every field but the counters, which are
	 * checked against their predictions (those of st_enc_record()).
	 */
	if (!token || x->token != token || x->key != key || !(t0 | t1) ||
	    x->v[ST_F_INST] != inst)
		return 1;
	if (kind == ST_REC_CALL) {
		if (seq) {
			q = st_cseq_slot(c, x->v[ST_F_COMM]);
			if (seq != (q->epoch == c->epoch &&
				    q->comm == x->v[ST_F_COMM] ? q->seq + 1
							       : x->v[ST_F_SEQ]))
				return 1;
		} else if (x->v[ST_F_SEQ]) {
			return 1;
		}
	} else if (seq != x->v[ST_F_SEQ]) {
		return 1;
	}
	if (st_pred_req(c, kind, x->v[ST_F_REQ], x->lreq) != req)
		return 1;
	if (__builtin_expect(limit - p < ST_HEAD_ROOM, 0))
		return -ENOBUFS;
	p = st_enc_head(c, p, kind, fn, site, key);
	same = c->done_fn == st_share_fn(c, kind, fn);
	gap = t0 - c->last_t1;
	dur = t1 - t0;
	if (same && t1 == c->last_t1 && dur == c->done_dur) {
		/*
		 * Both residuals 0, as below: the records of a completion
		 * call after its first, which share its timestamps.
		 */
		p[0] = 0;
		p[1] = 0;
		p += 2;
	} else {
		pg = same ? 0 - c->done_dur : x->gap;
		pd = same ? c->done_dur : x->dur;
		p = st_varint_put(p, st_zigzag(gap - pg));
		p = st_varint_put(p, st_zigzag(dur - pd));
	}
	c->loop_end = p;
	/*
	 * The token map serves st_enc_repeat(), which takes only call
	 * records with a sequence number and without a request: no other
	 * record need be entered.
	 */
	if (kind == ST_REC_CALL && seq && !req)
		c->tok[st_tok_index(token)] = x;
	/*
	 * st_ctx_count(), st_count_call() and st_ctx_lreq(), knowing that
	 * the context's 'inst' is 'inst', and its 'seq' is 'seq' or (a
	 * call record's, predicted by its communicator) 0 when 'seq' is.
	 */
	if (seq)
		x->v[ST_F_SEQ] = seq + (inst == 0);
	if (inst)
		x->v[ST_F_INST] = inst + 1;
	if (kind == ST_REC_CALL) {
		x->v[ST_F_REQ] = req + (req != 0);
		if (q) {
			q->epoch = c->epoch;
			q->comm = x->v[ST_F_COMM];
			q->seq = seq;
		}
		if (req)
			c->last_req = req;
	} else {
		x->v[ST_F_REQ] = req;
		if (kind == ST_REC_DONE)
			x->lreq = c->last_req;
	}
	if (!same) {
		x->gap = gap;
		x->dur = dur;
	}
	c->done_fn = st_after_timed(kind, fn);
	c->done_dur = dur;
	c->last_t1 = t1;
	prev->next = key & ST_KEY_NEXT;
	c->prev = x;
	c->last_fn = (uint16_t)fn;
	*pp = p;
	return 0;
}

/*
 * st_enc_like_kind() of the record's own kind; callers that know it
 * pass it as a constant instead (st_stream_like(), writer/stream.h),
 * so that what depends on it folds away.
 */
static inline int st_enc_like(struct st_codec *c, uint8_t **pp,
			      const uint8_t *limit, const struct st_tok_rec *l)
{
	return st_enc_like_kind(c, pp, limit, l, l->kind);
}

/*
 * Non-zero when a repeat of 'fn' with 'token' at 'p' would join the open
 * run: right after a repeat (p == run_end: nothing was coded since, no
 * chunk began) with this token and fn, whose run has room.
 */
static inline int st_enc_run_open(const struct st_codec *c, const uint8_t *p,
				  unsigned fn, uint32_t token)
{
	return p == c->run_end && token == c->run_token &&
	       fn == c->last_fn && c->run_n && *c->run_n < ST_RUN_MAX;
}

/*
 * The commonest st_enc_repeat(), inline: where st_enc_run_open(), the
 * next member of the run, with c->run_token and c->last_fn, when its
 * residuals take at most two bytes each.  Returns 0 having done just
 * what st_enc_repeat() would have done, or 1 having done nothing, for
 * the caller to call st_enc_repeat().
 *
 * The repeat before left its context run_x and communicator slot run_q
 * as they are, so only what changes from one member to the next is
 * stored: not run_n, run_x, run_q, run_token or last_fn, nor the slot's
 * epoch and comm; nor the context's 'inst' and 'req', which the run's
 * first repeat found to be 0, and which stay 0; nor 'prev' and the
 * context's successor, which are run_x and its own fn and site, nor
 * 'done_fn', ST_DONE_NONE after a run's member; nor the size class, which the
 * fields decide.
 */
static inline int st_enc_run_next(struct st_codec *c, uint8_t **pp,
				  const uint8_t *limit, uint64_t seq,
				  uint64_t t0, uint64_t t1)
{
	uint8_t *p = *pp;
	struct st_ctx *x = c->run_x;
	uint64_t rg, rd;

	/* Room for the longest member first: then nothing can fail. */
	if (seq != c->run_q->seq + 1 || !(t0 | t1) || limit - p < 4)
		return 1;
	rg = st_zigzag(t0 - c->last_t1 - x->gap);
	rd = st_zigzag(t1 - t0 - x->dur);
	if ((rg | rd) >= 0x4000)
		return 1;
	p = st_varint_put14(p, rg);
	p = st_varint_put14(p, rd);
	++*c->run_n;		/* before the caller publishes the record */
	c->run_end = p;
	x->v[ST_F_SEQ] = seq + (seq != 0);	/* and st_ctx_count() */
	c->run_q->seq = seq;
	x->gap = t0 - c->last_t1;
	x->dur = t1 - t0;
	c->last_t1 = t1;
	*pp = p;
	return 0;
}

/*
 * Decode one record from '*pp', reading nothing at or past 'end', into
 * 'ev' (every field but 'thread'; 'ev->text' points into the input) and
 * advance '*pp'.  Returns 0 or -EBADMSG, after which the rest of the
 * chunk cannot be decoded: 'c' must be reset before it is used again.
 */
int st_dec_record(struct st_codec *c, const uint8_t **pp, const uint8_t *end,
		  struct st_event *ev);

#endif
