/*
 * writer/encode.h: private; the record encoding of writer/format.h, both
 * ways.  A codec holds the per-chunk prediction state: the context table
 * of (kind, fn) slots, the previous fn and the previous t1.  Writer and
 * reader each keep one and reset it at every chunk, so both sides make
 * the same predictions.
 */
#ifndef ST_WRITER_ENCODE_H
#define ST_WRITER_ENCODE_H

#include <errno.h>
#include <stdint.h>

#include "writer/event.h"
#include "writer/format.h"
#include "writer/varint.h"

struct st_event;

/* One (kind, fn) context: the prediction of the next record's fields. */
struct st_ctx {
	uint32_t epoch;		/* valid when equal to the codec's epoch */
	uint32_t key;		/* kind << 16 | fn */
	uint32_t token;		/* the caller's name for v[], 0 when none */
	uint64_t gap, dur;	/* timestamps of its last timed record */
	uint64_t v[ST_NFIELDS];
};

/* The last sequence number of a call record on one communicator. */
struct st_cseq {
	uint32_t epoch;		/* valid when equal to the codec's epoch */
	uint64_t comm, seq;
};

struct st_codec {
	uint64_t last_t1;	/* t1 of the previous timed record */
	uint64_t last_req;	/* last request of a call record, 0: none */
	uint32_t epoch;		/* bumped at each reset, never 0 */
	uint16_t last_fn;	/* fn of the previous record */
	uint32_t run_left;	/* reader: members of the run still to come */
	uint8_t *run_n;		/* writer: the open run's count, or NULL */
	uint8_t *run_end;	/* writer: end of the last repeat */
	struct st_ctx *run_x;	/* writer: the last repeat's context, */
	struct st_cseq *run_q;	/* its communicator's slot */
	uint32_t run_token;	/* and its token */
	struct st_ctx ctx[ST_CTX_SLOTS];
	struct st_cseq cseq[ST_CSEQ_SLOTS];
};

/*
 * Bytes a record may take besides its text: tag, fn, mask, every field,
 * both timestamps and ST_MAX_FRAMES frames, all at their longest.
 */
#define ST_REC_MAX_FIXED 1024

static inline struct st_ctx *st_ctx_slot(struct st_codec *c, uint32_t key)
{
	return &c->ctx[(uint32_t)(key * 0x9e3779b1u) >> (32 - ST_CTX_BITS)];
}

/*
 * The context now holds the record's own fields: advance its counters
 * so that it predicts the next record.
 */
static inline void st_ctx_count(struct st_ctx *x, unsigned kind)
{
	x->v[ST_F_SEQ] += x->v[ST_F_SEQ] != 0;
	x->v[ST_F_INST] += x->v[ST_F_INST] != 0;
	x->v[ST_F_REQ] += (x->v[ST_F_REQ] != 0) & (kind != ST_REC_START);
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
 * The predicted 'req' of a record of 'kind' whose context predicts 'req':
 * a call record's that makes a request is the last one's + 1 (requests
 * count per rank); otherwise the context's.
 */
static inline uint64_t st_pred_req(const struct st_codec *c, unsigned kind,
				   uint64_t req)
{
	return kind == ST_REC_CALL && req && c->last_req ? c->last_req + 1
							 : req;
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

static inline int st_ctx_valid(const struct st_codec *c,
			    const struct st_ctx *x, uint32_t key)
{
	return x->epoch == c->epoch && x->key == key;
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
 * 'token' is stored in the record's context, for st_enc_repeat().
 */
int st_enc_record(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  const struct st_event *ev, uint32_t token);

/*
 * A repeat: a call record ('kind' ST_REC_CALL) of function 'fn' whose
 * fields are those last encoded for (ST_REC_CALL, fn) with 'token', but
 * for its timestamps and its sequence number 'seq', which must be the
 * one the context predicts.  Encodes it as st_enc_record() would, in
 * the few instructions the caller saves by not building a struct
 * st_event; but a repeat that follows a repeat of the same fn joins a
 * run (writer/format.h), which drops its tag byte: a loop's repeated
 * collective costs its two timestamp residuals.  Returns 0; 1 when the
 * context does not hold 'token', predicts another 'seq', or counts
 * 'req' or 'inst' (nothing written: encode the full record with
 * st_enc_record()); or -ENOBUFS as st_enc_record().
 *
 * A token names a set of field values on the caller's side; any
 * st_enc_record() call stores its 'token' (0 for none) in the context,
 * so a caller must never give one token to records whose fields differ
 * in anything but 'seq' and the timestamps.
 */
int st_enc_repeat(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  unsigned fn, uint32_t token, uint64_t seq, uint64_t t0,
		  uint64_t t1);

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
 * first repeat found to be 0, and which stay 0.
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
