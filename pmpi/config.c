/*
 * pmpi/config.c: the SYNCTRACE_* environment variables.  A bad value is an
 * error with a message naming the variable, never a silent default: the
 * caller warns and leaves the application alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/internal.h"
#include "sync/sync.h"
#include "writer/writer.h"

struct st_settings st_set = {
	.buffer = 1 << 20,
	.async = 1,
	.depth = 8,
	.level = 1,
	.families = ST_FAMILY_ALL,
	.flush_ms = 5000,
	.sync_method = ST_SYNC_HCA,
	.sync_interval_ms = 10000,
	.sync_node = 1,
	.sync_span_ms = -1,
};

static int bad(char *err, size_t errlen, const char *var, const char *val,
	       const char *why)
{
	snprintf(err, errlen, "%s='%s' is %s", var, val, why);
	return -EINVAL;
}

/* Parse a whole non-negative number with an optional K, M or G suffix. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int get_int(const char *var, long lo, long hi, long *out, char *err,
		   size_t errlen)
{
	const char *s = getenv(var);
	char msg[64];
	char *end;
	long v;

	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi) {
		snprintf(msg, sizeof(msg), "not a whole number from %ld to %ld",
			 lo, hi);
		return bad(err, errlen, var, s, msg);
	}
	*out = v;
	return 0;
}

static const struct {
	const char *name;
	unsigned bits;
} family_names[] = {
	{ "all", ST_FAMILY_ALL },
	{ "coll", ST_FAMILY_BLOCKING | ST_FAMILY_NONBLOCKING |
		  ST_FAMILY_PERSISTENT | ST_FAMILY_NEIGHBOR },
	{ "blocking", ST_FAMILY_BLOCKING },
	{ "nonblocking", ST_FAMILY_NONBLOCKING },
	{ "persistent", ST_FAMILY_PERSISTENT },
	{ "neighbor", ST_FAMILY_NEIGHBOR },
	{ "p2p", ST_FAMILY_P2P },
	{ "complete", ST_FAMILY_COMPLETE },
	{ "comm", ST_FAMILY_COMM },
	{ "rma", ST_FAMILY_RMA },
	{ "io", ST_FAMILY_IO },
};

/* "coll,p2p" or "all,-p2p": tokens add, a leading '-' removes. */
static int parse_families(const char *s, unsigned *out)
{
	unsigned bits = 0;
	const char *p = s;
	int first = 1;

	while (*p) {
		size_t n = strcspn(p, ",");
		int minus = *p == '-';
		size_t i;

		if (minus && first)
			bits = ST_FAMILY_ALL;
		for (i = 0; i < sizeof(family_names) / sizeof(*family_names);
		     i++)
			if (strlen(family_names[i].name) == n - minus &&
			    !strncmp(family_names[i].name, p + minus, n - minus))
				break;
		if (i == sizeof(family_names) / sizeof(*family_names))
			return -1;
		if (minus)
			bits &= ~family_names[i].bits;
		else
			bits |= family_names[i].bits;
		p += n + (p[n] == ',');
		first = 0;
	}
	*out = bits;
	return first ? -1 : 0;
}

int st_config_load(struct st_settings *set, char *err, size_t errlen)
{
	const char *s;
	uint64_t size;
	long v;
	int rc;

	if ((s = getenv("SYNCTRACE_DIR")) && *s) {
		if (strlen(s) >= sizeof(set->dir) - 32)
			return bad(err, errlen, "SYNCTRACE_DIR", s, "too long");
		memcpy(set->dir, s, strlen(s) + 1);
	}
	if ((s = getenv("SYNCTRACE_BUFFER"))) {
		if (parse_size(s, &size) || size < ST_STREAM_MIN_PAIR ||
		    size > (1ull << 30))
			return bad(err, errlen, "SYNCTRACE_BUFFER", s,
				   "not a size from 8K to 1G");
		set->buffer = size;
	}
	v = set->depth;
	if ((rc = get_int("SYNCTRACE_DEPTH", 0, ST_MAX_FRAMES, &v, err, errlen)))
		return rc;
	set->depth = (int)v;
	v = set->level;
	if ((rc = get_int("SYNCTRACE_LEVEL", 0, 9, &v, err, errlen)))
		return rc;
	set->level = (int)v;
	v = set->async;
	if ((rc = get_int("SYNCTRACE_ASYNC", 0, 1, &v, err, errlen)))
		return rc;
	set->async = (int)v;
	v = set->yield;
	if ((rc = get_int("SYNCTRACE_YIELD", 0, 1, &v, err, errlen)))
		return rc;
	set->yield = (int)v;
	v = set->verbose;
	if ((rc = get_int("SYNCTRACE_VERBOSE", 0, 2, &v, err, errlen)))
		return rc;
	set->verbose = (int)v;
	v = set->disable;
	if ((rc = get_int("SYNCTRACE_DISABLE", 0, 1, &v, err, errlen)))
		return rc;
	set->disable = (int)v;
	v = (long)set->flush_ms;
	if ((rc = get_int("SYNCTRACE_FLUSH_MS", 0, 86400000, &v, err,
			  errlen)))
		return rc;
	set->flush_ms = (uint64_t)v;
	if ((s = getenv("SYNCTRACE_FAMILIES")) &&
	    parse_families(s, &set->families))
		return bad(err, errlen, "SYNCTRACE_FAMILIES", s,
			   "not a list of all, coll, blocking, nonblocking, "
			   "persistent, neighbor, p2p, complete, comm "
			   "(prefix - to remove)");
	if ((s = getenv("SYNCTRACE_SYNC"))) {
		if (!strcmp(s, "off"))
			set->sync_method = -1;
		else if ((set->sync_method = st_sync_method_parse(s)) < 0)
			return bad(err, errlen, "SYNCTRACE_SYNC", s,
				   "not one of hca, hca2, skampi, skampi-tree, "
				   "jk, off");
	}
	v = (long)set->sync_interval_ms;
	if ((rc = get_int("SYNCTRACE_SYNC_INTERVAL", 0, 86400000, &v, err,
			  errlen)))
		return rc;
	set->sync_interval_ms = (uint64_t)v;
	v = set->sync_node;
	if ((rc = get_int("SYNCTRACE_SYNC_NODE", 0, 1, &v, err, errlen)))
		return rc;
	set->sync_node = (int)v;
	v = set->sync_points;
	if ((rc = get_int("SYNCTRACE_SYNC_POINTS", 0, 100000, &v, err, errlen)))
		return rc;
	set->sync_points = (int)v;
	v = set->sync_exchanges;
	if ((rc = get_int("SYNCTRACE_SYNC_EXCHANGES", 0, 100000, &v, err,
			  errlen)))
		return rc;
	set->sync_exchanges = (int)v;
	v = set->sync_pingpongs;
	if ((rc = get_int("SYNCTRACE_SYNC_PINGPONGS", 0, 100000, &v, err,
			  errlen)))
		return rc;
	set->sync_pingpongs = (int)v;
	v = set->sync_span_ms;
	if ((rc = get_int("SYNCTRACE_SYNC_SPAN_MS", -1, 3600000, &v, err,
			  errlen)))
		return rc;
	set->sync_span_ms = v;
	v = set->sync_check;
	if ((rc = get_int("SYNCTRACE_SYNC_CHECK", 0, 100000, &v, err, errlen)))
		return rc;
	set->sync_check = (int)v;
	if ((s = getenv("SYNCTRACE_CLOCK_SKEW")) && *s) {
		if (strlen(s) >= sizeof(set->skew))
			return bad(err, errlen, "SYNCTRACE_CLOCK_SKEW", s,
				   "too long");
		memcpy(set->skew, s, strlen(s) + 1);
	}
	if ((s = getenv("SYNCTRACE_CLOCK"))) {
		if (!strcmp(s, "raw"))
			set->clock_raw = 1;
		else if (!strcmp(s, "tsc") || !strcmp(s, "auto"))
			set->clock_raw = 0;
		else
			return bad(err, errlen, "SYNCTRACE_CLOCK", s,
				   "not one of auto, tsc, raw");
	}
	return 0;
}

void st_config_describe(const struct st_settings *set, char *buf, size_t len)
{
	snprintf(buf, len,
		 "buffer=%zu async=%d depth=%d level=%d yield=%d families=0x%x "
		 "flush_ms=%llu clock=%s sync=%s sync_interval_ms=%llu "
		 "sync_node=%d%s%s",
		 set->buffer, set->async, set->depth, set->level, set->yield, set->families,
		 (unsigned long long)set->flush_ms,
		 set->clock_raw ? "raw" : "auto",
		 set->sync_method < 0 ? "off"
				      : st_sync_method_name(set->sync_method),
		 (unsigned long long)set->sync_interval_ms, set->sync_node,
		 set->skew[0] ? " clock_skew=" : "", set->skew);
}
