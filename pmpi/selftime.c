/*
 * pmpi/selftime.c: the counts of the self-time build (pmpi/selftime.h);
 * empty in the library users run.
 */
#ifdef ST_SELFTIME

#include <stdio.h>

#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"
#include "pmpi/selftime.h"

__thread struct st_self st_self;

static uint64_t self_calls[ST_FN_COUNT], self_ticks[ST_FN_COUNT];

static const char *const self_names[ST_FN_COUNT] = {
#define X(id, name, kind, family, bytes, flags) [id] = name,
	ST_FN_LIST(X)
#undef X
};

void st_self_add(int fn, uint64_t ticks)
{
	self_calls[fn]++;
	self_ticks[fn] += ticks;
}

void st_self_report(int rank)
{
	char src[256];
	double res_ns, cost_ns;
	int fn;

	for (fn = 0; fn < ST_FN_COUNT; fn++)
		if (self_calls[fn])
			fprintf(stderr,
				"synctrace-selftime: rank=%d fn=%s calls=%llu "
				"ns_per_call=%.1f\n",
				rank, self_names[fn],
				(unsigned long long)self_calls[fn],
				(double)self_ticks[fn] /
					(double)self_calls[fn] *
					(double)st_clock_map.mult /
					4294967296.0);
	st_clock_describe(src, sizeof(src), &res_ns, &cost_ns);
	fprintf(stderr,
		"synctrace-selftime: rank=%d clock_read_ns=%.1f fence=%d\n",
		rank, cost_ns, st_set.selftime_fence);
}

#endif
