/*
 * tests/unit/analysis-fake-scan.h: a run scan made by hand, with only
 * the communicators that matrix and message pairing look at.
 */
#ifndef ST_TESTS_UNIT_ANALYSIS_FAKE_SCAN_H
#define ST_TESTS_UNIT_ANALYSIS_FAKE_SCAN_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/runscan.h"
#include "writer/event.h"

static inline void fake_comm(struct st_scan *s, uint64_t id, uint32_t size,
			     const int32_t *world)
{
	struct st_scan_comm *c;

	s->comms = realloc(s->comms, (s->ncomms + 1) * sizeof(*s->comms));
	cr_assert_not_null(s->comms);
	c = &s->comms[s->ncomms];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->size = size;
	c->world = malloc(size * sizeof(*c->world));
	cr_assert_not_null(c->world);
	memcpy(c->world, world, size * sizeof(*c->world));
	cr_assert_not_null(st_u64map_put(&s->comm_of, id, s->ncomms, NULL));
	s->ncomms++;
}

static inline void fake_scan_release(struct st_scan *s)
{
	size_t i;

	for (i = 0; i < s->ncomms; i++)
		free(s->comms[i].world);
	free(s->comms);
	st_u64map_release(&s->comm_of);
}

static inline struct st_event fake_call(unsigned fn, uint64_t comm,
					int32_t peer, int32_t tag)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_CALL;
	ev.fn = (uint16_t)fn;
	ev.comm = comm;
	ev.peer = peer;
	ev.tag = tag;
	return ev;
}

#endif
