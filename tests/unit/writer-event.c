/*
 * tests/unit/writer-event.c: names of kinds and ops, and the cleared
 * record.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "writer/event.h"

Test(writer_event, kind_names_cover_every_kind)
{
	unsigned k;

	cr_expect_str_eq(st_rec_kind_name(ST_REC_CALL), "call");
	cr_expect_str_eq(st_rec_kind_name(ST_REC_START), "start");
	cr_expect_str_eq(st_rec_kind_name(ST_REC_MARK), "mark");
	for (k = 1; k <= ST_REC_MAX; k++)
		cr_expect_str_neq(st_rec_kind_name(k), "?", "kind %u", k);
	cr_expect_str_eq(st_rec_kind_name(0), "?");
	cr_expect_str_eq(st_rec_kind_name(ST_REC_MAX + 1), "?");
	cr_expect_str_eq(st_rec_kind_name(~0u), "?");
}

Test(writer_event, op_names_cover_every_op)
{
	unsigned op;

	cr_expect_str_eq(st_reduce_op_name(ST_OP_NONE), "none");
	cr_expect_str_eq(st_reduce_op_name(ST_OP_SUM), "sum");
	cr_expect_str_eq(st_reduce_op_name(ST_OP_MAXLOC), "maxloc");
	cr_expect_str_eq(st_reduce_op_name(ST_OP_USER), "user");
	for (op = ST_OP_NONE; op <= ST_OP_USER; op++)
		cr_expect_str_neq(st_reduce_op_name(op), "?", "op %u", op);
	cr_expect_str_eq(st_reduce_op_name(ST_OP_USER + 1), "?");
	cr_expect_str_eq(st_reduce_op_name(~0u), "?");
}

Test(writer_event, clear_sets_does_not_apply_values)
{
	struct st_event ev;

	memset(&ev, 0xa5, sizeof(ev));
	st_event_clear(&ev);
	cr_expect_eq(ev.kind, 0);
	cr_expect_eq(ev.t0, 0);
	cr_expect_eq(ev.comm, 0);
	cr_expect_eq(ev.root, ST_RANK_NONE);
	cr_expect_eq(ev.peer, ST_RANK_NONE);
	cr_expect_eq(ev.peer2, ST_RANK_NONE);
	cr_expect_eq(ev.tag2, 0);
	cr_expect_eq(ev.nframes, 0);
	cr_expect_eq(ev.addr, 0);
	cr_expect_eq(ev.len, 0);
	cr_expect_eq(ev.text_len, 0);
	cr_expect_null(ev.text);
}
