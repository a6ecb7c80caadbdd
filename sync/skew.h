/*
 * sync/skew.h: public; the clock-skew test hook.  On one machine every
 * rank reads the same clock, so the true offset between ranks is zero;
 * to test synchronisation, SYNCTRACE_CLOCK_SKEW distorts each rank's
 * clock by a known offset and drift rate, which synchronisation must then
 * recover.  Syntax: a comma-separated list, entry i for rank i, each
 * OFFSET[@DRIFT] with OFFSET a signed number and a unit (s, ms, us or ns)
 * and DRIFT a signed number followed by "ppm":
 *
 *	SYNCTRACE_CLOCK_SKEW=0,+0.5s@+100ppm,-1s@-40ppm
 *
 * Ranks beyond the list are not distorted.
 */
#ifndef ST_SYNC_SKEW_H
#define ST_SYNC_SKEW_H

#include <stddef.h>
#include <stdint.h>

/* One rank's distortion. */
struct st_skew {
	int64_t offset_ns;
	double drift_ppm;
};

/*
 * Parse 'spec' and store rank 'rank's entry in '*out' ({0, 0} when the
 * list is shorter).  Returns 0, or -EINVAL with a message in 'err' (at
 * most 'errlen' bytes) naming the bad entry.
 */
int st_skew_parse(const char *spec, int rank, struct st_skew *out, char *err,
		  size_t errlen);

/*
 * The distorted clock: 'ns' plus the offset plus the drift accumulated
 * since 'base_ns' (the clock value at which the distortion starts).
 */
static inline uint64_t st_skew_apply(const struct st_skew *k, uint64_t base_ns,
				     uint64_t ns)
{
	double since = (double)(int64_t)(ns - base_ns);

	return ns + (uint64_t)(k->offset_ns +
			       (int64_t)(since * k->drift_ppm * 1e-6));
}

#endif
