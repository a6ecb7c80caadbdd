/*
 * writer/encode.h: private; the record encoding of writer/format.h, both
 * ways.  A codec holds the per-chunk prediction state: the context table
 * of (kind, fn) slots, the previous fn and the previous t1.  Writer and
 * reader each keep one and reset it at every chunk, so both sides make
 * the same predictions.
 */
#ifndef ST_WRITER_ENCODE_H
#define ST_WRITER_ENCODE_H

#include <stdint.h>

#include "writer/format.h"

struct st_event;

/* One (kind, fn) context: the prediction of the next record's fields. */
struct st_ctx {
	uint32_t epoch;		/* valid when equal to the codec's epoch */
	uint32_t key;		/* kind << 16 | fn */
	uint64_t v[ST_NFIELDS];
};

struct st_codec {
	uint64_t last_t1;	/* t1 of the previous timed record */
	uint32_t epoch;		/* bumped at each reset, never 0 */
	uint16_t last_fn;	/* fn of the previous record */
	struct st_ctx ctx[ST_CTX_SLOTS];
};

/*
 * Bytes a record may take besides its text: tag, fn, mask, every field,
 * both timestamps and ST_MAX_FRAMES frames, all at their longest.
 */
#define ST_REC_MAX_FIXED 1024

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
 */
int st_enc_record(struct st_codec *c, uint8_t **pp, const uint8_t *limit,
		  const struct st_event *ev);

/*
 * Decode one record from '*pp', reading nothing at or past 'end', into
 * 'ev' (every field but 'thread'; 'ev->text' points into the input) and
 * advance '*pp'.  Returns 0 or -EBADMSG, after which the rest of the
 * chunk cannot be decoded: 'c' must be reset before it is used again.
 */
int st_dec_record(struct st_codec *c, const uint8_t **pp, const uint8_t *end,
		  struct st_event *ev);

#endif
