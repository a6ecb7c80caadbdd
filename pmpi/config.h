/*
 * pmpi/config.h: the interposer's settings, read from the SYNCTRACE_*
 * environment variables at MPI_Init (pmpi/config.c).  Free of mpi.h, so
 * the unit tests check every variable's parsing without MPI.
 */
#ifndef ST_PMPI_CONFIG_H
#define ST_PMPI_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Settings from the environment, fixed at MPI_Init. */
struct st_settings {
	char dir[PATH_MAX];	/* SYNCTRACE_DIR pattern, "" for the default */
	char notify[PATH_MAX];	/* SYNCTRACE_NOTIFY: `synctrace run`'s file */
	size_t buffer;		/* SYNCTRACE_BUFFER: bytes per thread stream */
	int async;		/* SYNCTRACE_ASYNC: compress on a writer thread */
	int depth;		/* SYNCTRACE_DEPTH: call-site frames, 0 = off */
	int level;		/* SYNCTRACE_LEVEL: zlib level */
	int yield;		/* SYNCTRACE_YIELD */
	int verbose;		/* SYNCTRACE_VERBOSE */
	unsigned families;	/* SYNCTRACE_FAMILIES: ST_FAMILY_* bits */
	uint64_t flush_ms;	/* SYNCTRACE_FLUSH_MS: 0 = only when full */
	int disable;		/* SYNCTRACE_DISABLE */
	int clock_raw;		/* SYNCTRACE_CLOCK=raw */
	int sync_method;	/* SYNCTRACE_SYNC: enum st_sync_method, -1 off */
	uint64_t sync_interval_ms; /* SYNCTRACE_SYNC_INTERVAL: refresh period */
	int sync_node;		/* SYNCTRACE_SYNC_NODE: leaders per node */
	int sync_points;	/* SYNCTRACE_SYNC_POINTS, 0 = default */
	int sync_exchanges;	/* SYNCTRACE_SYNC_EXCHANGES, 0 = default */
	int sync_pingpongs;	/* SYNCTRACE_SYNC_PINGPONGS, 0 = default */
	long sync_span_ms;	/* SYNCTRACE_SYNC_SPAN_MS, -1 = default */
	int sync_check;		/* SYNCTRACE_SYNC_CHECK: ping-pongs, 0 = off */
	char skew[256];		/* SYNCTRACE_CLOCK_SKEW, "" = none */
	int selftime_fence;	/* SYNCTRACE_SELFTIME_FENCE: read by the
				   self-time build only (pmpi/selftime.h) */
};

/* Bits of 'families'. */
#define ST_FAMILY_BLOCKING 0x01		/* blocking collectives */
#define ST_FAMILY_NONBLOCKING 0x02	/* I* collectives */
#define ST_FAMILY_PERSISTENT 0x04	/* *_init collectives */
#define ST_FAMILY_NEIGHBOR 0x08		/* neighbourhood collectives */
#define ST_FAMILY_P2P 0x10		/* point-to-point */
#define ST_FAMILY_COMPLETE 0x20		/* Wait, Test, Start, Request_free */
#define ST_FAMILY_COMM 0x40		/* communicator constructors */
#define ST_FAMILY_RMA 0x80		/* windows and one-sided calls */
#define ST_FAMILY_IO 0x100		/* MPI-IO */
#define ST_FAMILY_ALL 0x1ff

extern struct st_settings st_set;

/*
 * The defaults, then the SYNCTRACE_* variables, into '*set'.  Every
 * variable is checked, and so is every name: a SYNCTRACE_ variable
 * that no part of synctrace reads (a misspelling) is an error too.
 * Returns 0, or -EINVAL with a message in 'err' naming the variable and
 * its bad value (made printable), such as "SYNCTRACE_CLOCK_SKEW='x' is
 * not OFFSET[@DRIFT]...".
 */
int st_config_load(struct st_settings *set, char *err, size_t errlen);

/* "buffer=1048576 depth=8 ..." for the trace header. */
void st_config_describe(const struct st_settings *set, char *buf, size_t len);

#pragma GCC visibility pop

#endif
