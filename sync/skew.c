/*
 * sync/skew.c: parsing SYNCTRACE_CLOCK_SKEW (syntax in sync/skew.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/skew.h"

static int parse_entry(const char *s, size_t n, struct st_skew *out)
{
	char buf[64], *end;
	double v, d = 0;
	const char *at;
	double scale;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtod(buf, &end);
	if (end == buf)
		return -1;
	if (!strncmp(end, "ns", 2))
		scale = 1, end += 2;
	else if (!strncmp(end, "us", 2))
		scale = 1e3, end += 2;
	else if (!strncmp(end, "ms", 2))
		scale = 1e6, end += 2;
	else if (*end == 's')
		scale = 1e9, end += 1;
	else if (v == 0 && (*end == '\0' || *end == '@'))
		scale = 0;
	else
		return -1;
	at = end;
	if (*at == '@') {
		char *e2;

		d = strtod(at + 1, &e2);
		if (e2 == at + 1 || strcmp(e2, "ppm"))
			return -1;
	} else if (*at) {
		return -1;
	}
	v *= scale;
	if (!isfinite(v) || !isfinite(d) || fabs(v) > 1e18 || fabs(d) > 1e5)
		return -1;
	out->offset_ns = (int64_t)llround(v);
	out->drift_ppm = d;
	return 0;
}

int st_skew_parse(const char *spec, int rank, struct st_skew *out, char *err,
		  size_t errlen)
{
	const char *p = spec;
	struct st_skew k;
	int i = 0;

	out->offset_ns = 0;
	out->drift_ppm = 0;
	for (;;) {
		size_t n = strcspn(p, ",");

		if (parse_entry(p, n, &k)) {
			snprintf(err, errlen,
				 "SYNCTRACE_CLOCK_SKEW entry %d '%.*s' is not "
				 "OFFSET[@DRIFT] such as +0.5s@-20ppm",
				 i, (int)(n > 40 ? 40 : n), p);
			return -EINVAL;
		}
		if (i == rank)
			*out = k;
		i++;
		if (!p[n])
			break;
		p += n + 1;
	}
	return 0;
}
