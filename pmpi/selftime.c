/*
 * pmpi/selftime.c: the counts of the self-time build (pmpi/selftime.h);
 * empty in the library users run.
 */
#ifdef ST_SELFTIME

#include <stdio.h>
#include <stdlib.h>

#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"
#include "pmpi/selftime.h"

__thread struct st_self st_self;
int st_self_fence;

static __attribute__((constructor)) void self_init(void)
{
	const char *v = getenv("SYNCTRACE_SELFTIME_FENCE");

	st_self_fence = v && v[0] == '1' && !v[1];
}

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

/* ns of a duration of 'ticks' of st_now(). */
static double self_ns(double ticks)
{
	return ticks * (double)st_clock_map.mult / 4294967296.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void st_self_report(int rank)
{
	uint64_t d[101], a;
	int fn, i;

	for (fn = 0; fn < ST_FN_COUNT; fn++)
		if (self_calls[fn])
			fprintf(stderr,
				"synctrace-selftime: rank=%d fn=%s calls=%llu "
				"ns_per_call=%.1f\n",
				rank, self_names[fn],
				(unsigned long long)self_calls[fn],
				self_ns((double)self_ticks[fn] /
					(double)self_calls[fn]));
	/* Two reads back to back, for the scale of a clock read. */
	for (i = 0; i < 101; i++) {
		a = st_now();
		d[i] = st_now() - a;
	}
	qsort(d, 101, sizeof(d[0]), cmp_u64);
	fprintf(stderr,
		"synctrace-selftime: rank=%d clock_read_ns=%.1f fence=%d\n",
		rank, self_ns((double)d[50]), st_self_fence);
}

#endif
