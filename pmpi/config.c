/*
 * pmpi/config.c: the SYNCTRACE_* environment variables.  A bad value is an
 * error with a message naming the variable, never a silent default: the
 * caller warns and leaves the application alone.  Every value is parsed
 * whole here, at MPI_Init, even those used later (the run directory
 * pattern, the clock skew list), and so is every name: a misspelt
 * variable would otherwise be a setting silently not made.  Free of
 * mpi.h (pmpi/config.h), so tests/unit/pmpi-config.c checks it all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/config.h"
#include "sync/skew.h"
#include "sync/sync.h"
#include "writer/event.h"
#include "writer/run.h"
#include "writer/writer.h"

extern char **environ;

#define DEFAULTS                                                          \
	{                                                                 \
		.buffer = 1 << 20,                                        \
		.async = 1,                                               \
		.depth = 8,                                               \
		.level = 1,                                               \
		.families = ST_FAMILY_ALL,                                \
		.flush_ms = 5000,                                         \
		.sync_method = ST_SYNC_HCA,                               \
		.sync_interval_ms = 10000,                                \
		.sync_node = 1,                                           \
		.sync_span_ms = -1,                                       \
	}

struct st_settings st_set = DEFAULTS;
static const struct st_settings defaults = DEFAULTS;

/*
 * Every SYNCTRACE_ variable some part of synctrace reads: the library's
 * (this file), `synctrace run`'s channel to it (SYNCTRACE_NOTIFY) and
 * the command's own (SYNCTRACE_ADDR2LINE).  A new variable goes here.
 */
static const char *const known[] = {
	"SYNCTRACE_DIR", "SYNCTRACE_NOTIFY", "SYNCTRACE_BUFFER",
	"SYNCTRACE_ASYNC", "SYNCTRACE_DEPTH", "SYNCTRACE_LEVEL",
	"SYNCTRACE_YIELD", "SYNCTRACE_VERBOSE", "SYNCTRACE_DISABLE",
	"SYNCTRACE_FLUSH_MS", "SYNCTRACE_FAMILIES", "SYNCTRACE_SYNC",
	"SYNCTRACE_SYNC_INTERVAL", "SYNCTRACE_SYNC_NODE",
	"SYNCTRACE_SYNC_POINTS", "SYNCTRACE_SYNC_EXCHANGES",
	"SYNCTRACE_SYNC_PINGPONGS", "SYNCTRACE_SYNC_SPAN_MS",
	"SYNCTRACE_SYNC_CHECK", "SYNCTRACE_CLOCK_SKEW", "SYNCTRACE_CLOCK",
	"SYNCTRACE_ADDR2LINE", "SYNCTRACE_SELFTIME_FENCE",
};

/*
 * Names that module systems give a package's installation (Spack's and
 * Lmod's <NAME>_ROOT, <NAME>_HOME...): set by loading synctrace's module,
 * not meant for the library, and no misspelling of its variables.
 */
static const char *const ignored[] = {
	"SYNCTRACE_ROOT", "SYNCTRACE_HOME", "SYNCTRACE_PREFIX",
	"SYNCTRACE_VERSION",
};

/* 'e' ("NAME=value") names one of 'list''s 'n' variables. */
static int named(const char *e, const char *const *list, size_t n)
{
	size_t i, len = strcspn(e, "=");

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(list[i], e, len))
			return 1;
	return 0;
}

/*
 * "VAR='value' is WHY" in 'err', the value made printable (a control
 * character shows as '?') and cut after 64 characters.
 */
static int bad(char *err, size_t errlen, const char *var, const char *val,
	       const char *why)
{
	char shown[80];
	size_t i;

	for (i = 0; val[i] && i < 64; i++)
		shown[i] = val[i] >= 0x20 && val[i] < 0x7f ? val[i] : '?';
	shown[i] = '\0';
	snprintf(err, errlen, "%s='%s%s' is %s", var, shown,
		 val[i] ? "..." : "", why);
	return -EINVAL;
}

/*
 * Parse a whole non-negative number with an optional binary suffix:
 * K, M or G, each optionally followed by "i" and/or "B" (KiB, KB), or
 * a bare "B".
 */
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
	if (mul > 1 && *end == 'i')
		end++;
	if (*end == 'B')
		end++;
	if (*end || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

/* Variable 'var', if set, as a whole decimal number from 'lo' to 'hi'. */
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
	if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+') || *end ||
	    errno || v < lo || v > hi) {
		snprintf(msg, sizeof(msg), "not a whole number from %ld to %ld",
			 lo, hi);
		return bad(err, errlen, var, s, msg);
	}
	*out = v;
	return 0;
}

/* get_int() into an int. */
static int get_int_field(const char *var, long lo, long hi, int *field,
			 char *err, size_t errlen)
{
	long v = *field;
	int rc = get_int(var, lo, hi, &v, err, errlen);

	*field = (int)v;
	return rc;
}

/* get_int() of milliseconds into a uint64_t. */
static int get_ms_field(const char *var, long hi, uint64_t *field, char *err,
			size_t errlen)
{
	long v = (long)*field;
	int rc = get_int(var, 0, hi, &v, err, errlen);

	*field = (uint64_t)v;
	return rc;
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
		if (p[n] == ',' && !p[n + 1])
			return -1;	/* a trailing comma */
		p += n + (p[n] == ',');
		first = 0;
	}
	*out = bits;
	return first ? -1 : 0;
}

/* A SYNCTRACE_ variable that nothing reads: its name, or NULL. */
static const char *unknown_variable(char *name, size_t len)
{
	char **e;
	size_t n;

	for (e = environ; e && *e; e++) {
		if (strncmp(*e, "SYNCTRACE_", 10) ||
		    named(*e, known, sizeof(known) / sizeof(*known)) ||
		    named(*e, ignored, sizeof(ignored) / sizeof(*ignored)))
			continue;
		n = strcspn(*e, "=");
		snprintf(name, len, "%.*s", (int)(n < 64 ? n : 64), *e);
		return name;
	}
	return NULL;
}

/* The variables of strings and lists. */
static int load_text(struct st_settings *set, char *err, size_t errlen)
{
	const char *s;
	struct st_skew k;
	char why[192], perr[128];

	if ((s = getenv("SYNCTRACE_DIR")) && *s) {
		if (strlen(s) >= sizeof(set->dir) - 64)
			return bad(err, errlen, "SYNCTRACE_DIR", s, "too long");
		if (st_run_name_check(s, perr, sizeof(perr))) {
			snprintf(why, sizeof(why), "not a valid pattern: %s",
				 perr);
			return bad(err, errlen, "SYNCTRACE_DIR", s, why);
		}
		memcpy(set->dir, s, strlen(s) + 1);
	}
	if ((s = getenv("SYNCTRACE_FAMILIES")) &&
	    parse_families(s, &set->families))
		return bad(err, errlen, "SYNCTRACE_FAMILIES", s,
			   "not a list of all, coll, blocking, nonblocking, "
			   "persistent, neighbor, p2p, complete, comm, rma, "
			   "io (prefix - to remove)");
	if ((s = getenv("SYNCTRACE_SYNC"))) {
		if (!strcmp(s, "off"))
			set->sync_method = -1;
		else if ((set->sync_method = st_sync_method_parse(s)) < 0)
			return bad(err, errlen, "SYNCTRACE_SYNC", s,
				   "not one of hca, hca2, skampi, skampi-tree, "
				   "jk, off");
	}
	if ((s = getenv("SYNCTRACE_CLOCK_SKEW")) && *s) {
		/* The whole list, though each rank uses one entry. */
		if (strlen(s) >= sizeof(set->skew) ||
		    st_skew_parse(s, 0, &k, why, sizeof(why)))
			return bad(err, errlen, "SYNCTRACE_CLOCK_SKEW", s,
				   "not a list of OFFSET[@DRIFT] per rank "
				   "such as 0,+0.5s@-20ppm (units s, ms, us, "
				   "ns; |offset| up to 1e18 ns, |drift| up to "
				   "1e5 ppm)");
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

int st_config_load(struct st_settings *set, char *err, size_t errlen)
{
	const char *s;
	char name[80];
	uint64_t size;
	int rc;

	*set = defaults;
	/* First, so that `synctrace run` hears of any other bad value. */
	if ((s = getenv("SYNCTRACE_NOTIFY")) && *s) {
		if (s[0] != '/' || strlen(s) >= sizeof(set->notify))
			return bad(err, errlen, "SYNCTRACE_NOTIFY", s,
				   "not an absolute path");
		memcpy(set->notify, s, strlen(s) + 1);
	}
	if ((s = getenv("SYNCTRACE_BUFFER"))) {
		if (parse_size(s, &size) || size < ST_STREAM_MIN_PAIR ||
		    size > (1ull << 30))
			return bad(err, errlen, "SYNCTRACE_BUFFER", s,
				   "not a size from 8K to 1G");
		set->buffer = size;
	}
	if ((rc = get_int_field("SYNCTRACE_DEPTH", 0, ST_MAX_FRAMES,
				&set->depth, err, errlen)) ||
	    (rc = get_int_field("SYNCTRACE_LEVEL", 0, 9, &set->level, err,
				errlen)) ||
	    (rc = get_int_field("SYNCTRACE_ASYNC", 0, 1, &set->async, err,
				errlen)) ||
	    (rc = get_int_field("SYNCTRACE_YIELD", 0, 1, &set->yield, err,
				errlen)) ||
	    (rc = get_int_field("SYNCTRACE_SELFTIME_FENCE", 0, 1,
				&set->selftime_fence, err, errlen)) ||
	    (rc = get_int_field("SYNCTRACE_VERBOSE", 0, 2, &set->verbose, err,
				errlen)) ||
	    (rc = get_int_field("SYNCTRACE_DISABLE", 0, 1, &set->disable, err,
				errlen)) ||
	    (rc = get_ms_field("SYNCTRACE_FLUSH_MS", 86400000, &set->flush_ms,
			       err, errlen)) ||
	    (rc = get_ms_field("SYNCTRACE_SYNC_INTERVAL", 86400000,
			       &set->sync_interval_ms, err, errlen)) ||
	    (rc = get_int_field("SYNCTRACE_SYNC_NODE", 0, 1, &set->sync_node,
				err, errlen)) ||
	    (rc = get_int_field("SYNCTRACE_SYNC_POINTS", 0, 100000,
				&set->sync_points, err, errlen)) ||
	    (rc = get_int_field("SYNCTRACE_SYNC_EXCHANGES", 0, 100000,
				&set->sync_exchanges, err, errlen)) ||
	    (rc = get_int_field("SYNCTRACE_SYNC_PINGPONGS", 0, 100000,
				&set->sync_pingpongs, err, errlen)) ||
	    (rc = get_int("SYNCTRACE_SYNC_SPAN_MS", -1, 3600000,
			  &set->sync_span_ms, err, errlen)) ||
	    (rc = get_int_field("SYNCTRACE_SYNC_CHECK", 0, 100000,
				&set->sync_check, err, errlen)) ||
	    (rc = load_text(set, err, errlen)))
		return rc;
	if (unknown_variable(name, sizeof(name))) {
		snprintf(err, errlen, "%s is not a synctrace variable (see "
			 "\"Environment variables\" in README.md)", name);
		return -EINVAL;
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
