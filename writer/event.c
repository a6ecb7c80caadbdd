/*
 * writer/event.c: names of record kinds and reduction ops, for tools and
 * messages, and the "does not apply" state of a record.
 */
#include <stddef.h>
#include <string.h>

#include "writer/event.h"

const char *st_reduce_op_name(unsigned op)
{
	static const char *const names[] = {
		[ST_OP_NONE] = "none",
		[ST_OP_MAX] = "max",
		[ST_OP_MIN] = "min",
		[ST_OP_SUM] = "sum",
		[ST_OP_PROD] = "prod",
		[ST_OP_LAND] = "land",
		[ST_OP_BAND] = "band",
		[ST_OP_LOR] = "lor",
		[ST_OP_BOR] = "bor",
		[ST_OP_LXOR] = "lxor",
		[ST_OP_BXOR] = "bxor",
		[ST_OP_MINLOC] = "minloc",
		[ST_OP_MAXLOC] = "maxloc",
		[ST_OP_REPLACE] = "replace",
		[ST_OP_NO_OP] = "no_op",
		[ST_OP_USER] = "user",
	};

	if (op >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[op];
}

const char *st_rec_kind_name(unsigned kind)
{
	static const char *const names[] = {
		[ST_REC_CALL] = "call",
		[ST_REC_START] = "start",
		[ST_REC_DONE] = "done",
		[ST_REC_COMM] = "comm",
		[ST_REC_SITE] = "site",
		[ST_REC_OBJECT] = "object",
		[ST_REC_SYNC] = "sync",
		[ST_REC_MARK] = "mark",
	};

	if (kind >= sizeof(names) / sizeof(names[0]) || !names[kind])
		return "?";
	return names[kind];
}

void st_event_clear(struct st_event *ev)
{
	/* 'frames' is read only up to 'nframes': leave it (512 bytes) alone. */
	memset(ev, 0, offsetof(struct st_event, frames));
	ev->root = ST_RANK_NONE;
	ev->peer = ST_RANK_NONE;
	ev->peer2 = ST_RANK_NONE;
	ev->addr = 0;
	ev->len = 0;
	ev->text_len = 0;
	ev->text = NULL;
}
