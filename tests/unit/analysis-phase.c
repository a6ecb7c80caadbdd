/*
 * tests/unit/analysis-phase.c: MPI_Pcontrol phases.  Selections parse
 * from "N" and "level=L" and refuse anything else; a stream's records
 * fall in the phase the last MPI_Pcontrol opened, the marker itself in
 * none; the tracker keeps each (rank, thread) stream apart.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/phase.h"
#include "writer/event.h"

Test(analysis_phase, parse_numbers_and_levels)
{
	struct st_phase_sel s;
	char buf[128];

	cr_assert_eq(st_phase_parse("2", &s), 0);
	cr_expect_eq(s.mode, ST_PHASE_NTH);
	cr_expect_eq(s.value, 2);
	cr_assert_eq(st_phase_parse("0", &s), 0);
	cr_expect_eq(s.value, 0);
	cr_assert_eq(st_phase_parse("level=-3", &s), 0);
	cr_expect_eq(s.mode, ST_PHASE_LEVEL);
	cr_expect_eq(s.value, -3);
	cr_expect(strstr(st_phase_name(&s, buf, sizeof(buf)),
			 "MPI_Pcontrol(-3)"));
	cr_expect_eq(st_phase_parse("-1", &s), -EINVAL);
	cr_expect_eq(st_phase_parse("", &s), -EINVAL);
	cr_expect_eq(st_phase_parse("2x", &s), -EINVAL);
	cr_expect_eq(st_phase_parse("level=", &s), -EINVAL);
	cr_expect_eq(st_phase_parse("level=1.5", &s), -EINVAL);
	cr_expect_eq(st_phase_parse("99999999999999999999", &s), -EINVAL);
	cr_expect_eq(st_phase_parse(NULL, &s), -EINVAL);
	s.mode = ST_PHASE_ALL;
	cr_expect_str_eq(st_phase_name(&s, buf, sizeof(buf)), "the whole run");
}

/* Step a stream over: call, Pcontrol(1), call, Pcontrol(2), call,
 * Pcontrol(1), call; '*in' gets each record's result. */
static void walk(const char *sel_text, int in[7])
{
	static const unsigned fn[7] = {
		ST_FN_MPI_BARRIER, ST_FN_MPI_PCONTROL, ST_FN_MPI_BARRIER,
		ST_FN_MPI_PCONTROL, ST_FN_MPI_BARRIER, ST_FN_MPI_PCONTROL,
		ST_FN_MPI_BARRIER
	};
	static const int32_t arg[7] = { 0, 1, 0, 2, 0, 1, 0 };
	struct st_phase_sel sel = { ST_PHASE_ALL, 0 };
	struct st_phase_pos pos;
	int i;

	if (sel_text)
		cr_assert_eq(st_phase_parse(sel_text, &sel), 0);
	st_phase_pos_init(&sel, &pos);
	for (i = 0; i < 7; i++)
		in[i] = st_phase_step(&sel, &pos, ST_REC_CALL, fn[i], arg[i]);
}

Test(analysis_phase, records_fall_in_the_phase_their_marker_opened)
{
	int in[7], i;
	static const int all[7] = { 1, 1, 1, 1, 1, 1, 1 };
	static const int p0[7] = { 1, 0, 0, 0, 0, 0, 0 };
	static const int p2[7] = { 0, 0, 0, 0, 1, 0, 0 };
	static const int lv1[7] = { 0, 0, 1, 0, 0, 0, 1 };
	static const int p9[7] = { 0 };

	walk(NULL, in);
	for (i = 0; i < 7; i++)
		cr_expect_eq(in[i], all[i], "all, record %d", i);
	walk("0", in);
	for (i = 0; i < 7; i++)
		cr_expect_eq(in[i], p0[i], "phase 0, record %d", i);
	walk("2", in);
	for (i = 0; i < 7; i++)
		cr_expect_eq(in[i], p2[i], "phase 2, record %d", i);
	walk("level=1", in);
	for (i = 0; i < 7; i++)
		cr_expect_eq(in[i], lv1[i], "level 1, record %d", i);
	walk("9", in);
	for (i = 0; i < 7; i++)
		cr_expect_eq(in[i], p9[i], "phase 9, record %d", i);
}

Test(analysis_phase, tracker_keeps_streams_apart)
{
	struct st_phase_tracker t = { .sel = { ST_PHASE_NTH, 1 } };
	struct st_event mark, call;

	st_event_clear(&mark);
	mark.kind = ST_REC_CALL;
	mark.fn = ST_FN_MPI_PCONTROL;
	mark.arg = 5;
	st_event_clear(&call);
	call.kind = ST_REC_CALL;
	call.fn = ST_FN_MPI_ALLREDUCE;

	cr_expect_eq(st_phase_track(&t, 0, &call), 0);
	cr_expect_eq(st_phase_track(&t, 0, &mark), 0);
	cr_expect_eq(st_phase_track(&t, 0, &call), 1);
	/* Rank 1 and rank 0's thread 1 have not passed a marker. */
	cr_expect_eq(st_phase_track(&t, 1, &call), 0);
	call.thread = 1;
	cr_expect_eq(st_phase_track(&t, 0, &call), 0);
	call.thread = 0;
	cr_expect_eq(st_phase_track(&t, 0, &mark), 0);
	cr_expect_eq(st_phase_track(&t, 0, &call), 0);
	cr_expect_eq(t.opened, 1);
	/* A DONE record is where its stream is. */
	cr_expect_eq(st_phase_track(&t, 1, &mark), 0);
	call.kind = ST_REC_DONE;
	cr_expect_eq(st_phase_track(&t, 1, &call), 1);
	st_phase_tracker_release(&t);
}
