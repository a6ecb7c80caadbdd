/*
 * tools/analysis/phase.h: phases marked by MPI_Pcontrol, as mpiP users
 * mark them, so that 'report', 'table' and 'predict' can look at one
 * part of a run (--phase).  Each thread of each rank is a stream of
 * records in file order; its MPI_Pcontrol(level) calls cut it into
 * phases numbered from 1 (the k-th MPI_Pcontrol call opens phase k, at
 * its exit; the next call, or MPI_Finalize, or the stream's end, closes
 * it), phase 0 being what comes before the first call.  An
 * MPI_Pcontrol call itself belongs to no phase.  A selection takes the
 * k-th phase of every stream ("--phase 2"), or every phase opened with
 * one level ("--phase level=1").
 */
#ifndef ST_TOOLS_ANALYSIS_PHASE_H
#define ST_TOOLS_ANALYSIS_PHASE_H

#include <stddef.h>
#include <stdint.h>

#include "tools/analysis/u64map.h"

struct st_event;

/* What a selection takes. */
enum st_phase_mode {
	ST_PHASE_ALL = 0,	/* everything: no selection */
	ST_PHASE_NTH,		/* the 'value'-th phase (0: before the first
				   MPI_Pcontrol) */
	ST_PHASE_LEVEL		/* every phase opened by MPI_Pcontrol(value) */
};

struct st_phase_sel {
	int mode;		/* enum st_phase_mode */
	long value;
};

/*
 * Parse "N" (a phase number, 0 to 2^31-1) or "level=L" (any int) into
 * '*sel'.  Returns 0 or -EINVAL.
 */
int st_phase_parse(const char *s, struct st_phase_sel *sel);

/* "phase 2", "the phases of level 1", "the whole run"; returns 'buf'. */
char *st_phase_name(const struct st_phase_sel *sel, char *buf, size_t len);

/* Where one stream is. */
struct st_phase_pos {
	long n;			/* MPI_Pcontrol calls seen: the phase */
	int in;			/* the current phase is selected */
};

/* A stream at its start (phase 0). */
void st_phase_pos_init(const struct st_phase_sel *sel,
		       struct st_phase_pos *pos);

/*
 * Step stream 'pos' over one record of kind 'kind' (enum st_rec_kind),
 * function 'fn' and argument 'arg' (a CALL of MPI_Pcontrol carries the
 * level there).  Returns 1 when the record lies in a selected phase,
 * else 0; an MPI_Pcontrol call returns 0 (with ST_PHASE_ALL, 1) and
 * moves 'pos' to the phase it opens.  Records of other kinds than CALL,
 * START and DONE are in no phase of their own: the result is where the
 * stream is.
 */
int st_phase_step(const struct st_phase_sel *sel, struct st_phase_pos *pos,
		  int kind, unsigned fn, int32_t arg);

/* Non-zero when 'fn' is MPI_Pcontrol. */
int st_phase_marker(unsigned fn);

/*
 * The streams of a whole run, for walks that interleave ranks and
 * threads (st_merge_next()): a zero-initialised tracker with 'sel' set
 * is ready.
 */
struct st_phase_tracker {
	struct st_phase_sel sel;
	struct st_u64map pos;	/* rank << 16 | thread -> n << 1 | in */
	uint64_t opened;	/* selected phases opened, over streams */
};

/*
 * Step rank 'rank''s stream of thread ev->thread over 'ev' (in that
 * stream's file order).  Returns 1 (in a selected phase), 0, or -ENOMEM.
 */
int st_phase_track(struct st_phase_tracker *t, int rank,
		   const struct st_event *ev);

void st_phase_tracker_release(struct st_phase_tracker *t);

#endif
