/*
 * tools/analysis/export.h: a run on global time in the formats other
 * viewers read.  Both exporters walk the run once in global time order
 * (st_scan_walk()) and write as they go, so memory stays bounded by the
 * messages and collective instances in flight, not by the trace.  Only
 * ranks with global time are exported; the others are counted.
 */
#ifndef ST_TOOLS_ANALYSIS_EXPORT_H
#define ST_TOOLS_ANALYSIS_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct st_scan;

/* What an export wrote and left out. */
struct st_export_stats {
	uint64_t calls;		/* call slices (Chrome) or regions (OTF2) */
	uint64_t p2p_paired;	/* messages whose two ends were seen */
	uint64_t p2p_unpaired;	/* message ends without their other end */
	uint64_t p2p_unmapped;	/* ends on communicators not mapped */
	uint64_t coll_flows;	/* collective instances drawn as flows */
	/* OTF2 pairs nothing itself (its readers match the events): */
	uint64_t sends;		/* send events written, MpiSend and MpiIsend */
	uint64_t recvs;		/* receive events, MpiRecv and MpiIrecv */
	uint64_t colls;		/* collective calls' end events */
	int ranks_left_out;	/* ranks without global time */
	double origin_ns;	/* global time of time stamp 0 */
};

/*
 * Write the Chrome/Perfetto trace-event JSON of 'scan' (which must not
 * have been walked) to 'f': one process per rank and one thread per
 * thread of it, an "X" slice per MPI call (time stamps and durations in
 * microseconds since 'origin_ns'), flows ("s"/"f", category "p2p") from
 * each send to its receive, and a flow ("s", "t", "f", category "coll")
 * through the members of each blocking collective instance in order of
 * arrival.  Returns 0, -EIO when writing failed, -ENOMEM, or the walk's
 * negative errno.
 */
int st_export_chrome(FILE *f, struct st_scan *scan,
		     struct st_export_stats *st);

/*
 * Write an OTF2 archive named 'name' ("traces": traces.otf2 and a
 * directory traces/) in directory 'dir' (which must not hold one):
 * one location group per rank, one location per thread, a region per
 * MPI function, Enter/Leave per call with its call site as attribute,
 * MPI point-to-point and collective events with their communicators,
 * time stamps in nanoseconds of global time since 'origin_ns'.
 * Returns 0, -ENOSYS when synctrace was built without the OTF2 library,
 * -EIO with a message in 'err' when OTF2 failed, -ENOMEM, or the walk's
 * negative errno.
 */
int st_export_otf2(const char *dir, const char *name, struct st_scan *scan,
		   struct st_export_stats *st, char *err, size_t errlen);

/* Non-zero when st_export_otf2() is available in this build. */
int st_export_otf2_available(void);

#endif
