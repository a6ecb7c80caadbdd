/*
 * tools/cli/usage.c: die(), error(), warning() and usage_die() for the
 * synctrace command.  Everything goes to stderr, each message on one
 * line prefixed "synctrace: ", so it stands out from the output of an
 * MPI job that 'synctrace run' shares a terminal with; stdout is left
 * to the command's real output.  The small option-parsing helpers of
 * tools/cli/synctrace.h live here too: the command line is the other half
 * of "usage".
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	/*
	 * Format into one buffer and write it with one call, so lines from
	 * several processes sharing stderr do not interleave mid-line.
	 */
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	fprintf(stderr, "synctrace: %s%s\n", prefix, msg);
}

static void (*die_hook)(void *);
static void *die_arg;
static pthread_t die_thread;

void st_on_die(void (*hook)(void *), void *arg)
{
	die_hook = hook;
	die_arg = arg;
	die_thread = pthread_self();
}

void die(const char *fmt, ...)
{
	void (*hook)(void *) = die_hook;
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
	va_end(ap);
	if (hook && pthread_equal(pthread_self(), die_thread)) {
		die_hook = NULL;
		hook(die_arg);
	}
	exit(ST_EXIT_FAILURE);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void st_usage_synopsis(const char *usage, FILE *f)
{
	const char *p = usage, *nl, *cmd = NULL;
	size_t len = 0;

	/* The "usage:" and "or:" lines: up to the first blank line. */
	while (*p && *p != '\n') {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (strncmp(p, "   eg:", 6))
			fprintf(f, "%.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
	/* "usage: synctrace NAME ...": where the rest is. */
	if (!strncmp(usage, "usage: synctrace ", 17) && usage[17] != '[') {
		cmd = usage + 17;
		len = strcspn(cmd, " \n");
	}
	if (cmd)
		fprintf(f, "Run 'synctrace %.*s --help' for its options.\n",
			(int)len, cmd);
	else
		fputs("Run 'synctrace --help' for the commands.\n", f);
}

void usage_die(const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vreport("", fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
	st_usage_synopsis(usage, stderr);
	exit(ST_EXIT_USAGE);
}

void st_bug_fl(const char *file, int line, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "BUG: %s:%d: %s\n", file, line, msg);
	abort();
}

const char *strerror_neg(int err)
{
	return strerror(err < 0 ? -err : err);
}

/*
 * What was wrong with option 'text' (as typed: "--frob", "--s=1") that
 * getopt_long() returned '?' for: unknown, ambiguous, or given a value
 * it does not take.  Short options are named by 'opt'.
 */
static const char *bad_option(const char *text, int opt,
			      const struct option *longopts)
{
	static char msg[512];
	const struct option *o, *match = NULL;
	size_t n, len, nmatch = 0;
	int first = 1;

	if (strncmp(text, "--", 2) || !text[2]) {
		snprintf(msg, sizeof(msg), "unknown option '-%c'", opt);
		return msg;
	}
	n = strcspn(text + 2, "=");
	for (o = longopts; o->name; o++) {
		if (strncmp(o->name, text + 2, n))
			continue;
		if (strlen(o->name) == n) {
			match = o;
			nmatch = 1;
			break;
		}
		match = o;
		nmatch++;
	}
	if (!nmatch) {
		snprintf(msg, sizeof(msg), "unknown option '%.*s'",
			 (int)n + 2, text);
	} else if (nmatch == 1) {
		snprintf(msg, sizeof(msg), "option '--%s' takes no value",
			 match->name);
	} else {
		len = (size_t)snprintf(msg, sizeof(msg), "ambiguous option "
				       "'%.*s' (could be", (int)n + 2, text);
		for (o = longopts; o->name && len < sizeof(msg); o++) {
			if (strncmp(o->name, text + 2, n))
				continue;
			len += (size_t)snprintf(msg + len, sizeof(msg) - len,
						"%s --%s", o == match ? " or" :
						first ? "" : ",", o->name);
			first = 0;
		}
		if (len < sizeof(msg))
			snprintf(msg + len, sizeof(msg) - len, ")");
	}
	return msg;
}

int st_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, const char **arg)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	*arg = optarg;
	if (c == ':') {
		*arg = NULL;
		return optopt;
	}
	if (c == '?')
		*arg = bad_option(argv[optind - 1], optopt, longopts);
	return c;
}

int st_parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || *s == ' ' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int st_size_parse(const char *s, uint64_t *bytes)
{
	static const struct { const char *suffix; unsigned shift; } units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
	};
	uint64_t v = 0;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(p, units[i].suffix))
			continue;
		if (!v || v > (UINT64_C(1) << 63) >> units[i].shift)
			return -EINVAL;
		*bytes = v << units[i].shift;
		return 0;
	}
	return -EINVAL;
}
