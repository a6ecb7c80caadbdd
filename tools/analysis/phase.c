/*
 * tools/analysis/phase.c: phases marked by MPI_Pcontrol (phase.h).  A
 * stream's position is two numbers, the MPI_Pcontrol calls it passed
 * and whether the phase it is in is selected, so a tracker of a whole
 * run packs each stream's into one map value.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/phase.h"
#include "writer/event.h"

/* All of 's' as a decimal long in [lo, hi]: 0, or -EINVAL. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int st_phase_parse(const char *s, struct st_phase_sel *sel)
{
	struct st_phase_sel x = { ST_PHASE_ALL, 0 };

	if (!s)
		return -EINVAL;
	if (!strncmp(s, "level=", 6)) {
		if (parse_long(s + 6, INT_MIN, INT_MAX, &x.value))
			return -EINVAL;
		x.mode = ST_PHASE_LEVEL;
	} else {
		if (*s == '-' || parse_long(s, 0, INT_MAX, &x.value))
			return -EINVAL;
		x.mode = ST_PHASE_NTH;
	}
	*sel = x;
	return 0;
}

char *st_phase_name(const struct st_phase_sel *sel, char *buf, size_t len)
{
	switch (sel->mode) {
	case ST_PHASE_NTH:
		if (sel->value)
			snprintf(buf, len, "phase %ld (from MPI_Pcontrol call "
				 "%ld to the next)", sel->value, sel->value);
		else
			snprintf(buf, len, "phase 0 (before the first "
				 "MPI_Pcontrol call)");
		break;
	case ST_PHASE_LEVEL:
		snprintf(buf, len, "the phases opened by MPI_Pcontrol(%ld)",
			 sel->value);
		break;
	default:
		snprintf(buf, len, "the whole run");
	}
	return buf;
}

int st_phase_marker(unsigned fn)
{
	return fn == ST_FN_MPI_PCONTROL;
}

void st_phase_pos_init(const struct st_phase_sel *sel,
		       struct st_phase_pos *pos)
{
	pos->n = 0;
	pos->in = sel->mode == ST_PHASE_ALL ||
		  (sel->mode == ST_PHASE_NTH && sel->value == 0);
}

int st_phase_step(const struct st_phase_sel *sel, struct st_phase_pos *pos,
		  int kind, unsigned fn, int32_t arg)
{
	if (sel->mode == ST_PHASE_ALL)
		return 1;
	if (kind != ST_REC_CALL || !st_phase_marker(fn))
		return pos->in;
	pos->n++;
	pos->in = sel->mode == ST_PHASE_NTH ? pos->n == sel->value :
		  arg == sel->value;
	return 0;
}

int st_phase_track(struct st_phase_tracker *t, int rank,
		   const struct st_event *ev)
{
	struct st_phase_pos pos;
	uint64_t *v;
	int added, in;

	if (t->sel.mode == ST_PHASE_ALL)
		return 1;
	v = st_u64map_put(&t->pos, (uint64_t)(uint32_t)rank << 16 |
			  ev->thread, 0, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		st_phase_pos_init(&t->sel, &pos);
	} else {
		pos.n = (long)(*v >> 1);
		pos.in = (int)(*v & 1);
	}
	in = st_phase_step(&t->sel, &pos, ev->kind, ev->fn, ev->arg);
	if (ev->kind == ST_REC_CALL && st_phase_marker(ev->fn) && pos.in)
		t->opened++;
	*v = (uint64_t)pos.n << 1 | (uint64_t)(pos.in != 0);
	return in;
}

void st_phase_tracker_release(struct st_phase_tracker *t)
{
	st_u64map_release(&t->pos);
	t->opened = 0;
}
