/*
 * tools/cli/cmd-view.c: 'synctrace view', a run as one HTML page that
 * opens from a file with no network: the timeline on global time, the
 * imbalance verdict, the key tables and the communication heat maps
 * (tools/analysis/view-html.c does the work).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/runscan.h"
#include "tools/analysis/view.h"
#include "tools/cli/outfile.h"
#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"

const char st_view_usage[] =
"usage: synctrace view [-o FILE] [--max-calls N] [--top N] RUN\n"
"\n"
"Write run directory RUN (or one rank-N.st file) as one self-contained\n"
"HTML page: a zoomable timeline on global time (a lane per rank and\n"
"thread, calls coloured by function, waiting in collectives apart,\n"
"messages as lines), the imbalance verdict, time per function and per\n"
"rank, imbalance per call site, and heat maps of who sends how much to\n"
"whom.  Only ranks with clock synchronisation records get a lane.\n"
"\n"
"    -o, --output FILE  the page (default: RUN.html; '-': stdout)\n"
"    --max-calls N      draw at most N calls one by one (default 400000);\n"
"                       beyond, the shortest are only in the overview\n"
"    --top N            rows of the call-site table (default 20)\n"
"    -q, --quiet        no summary line on stderr\n"
"    -h, --help         show this help\n";

static long number(const char *opt, const char *val, long min, long max)
{
	long v;

	if (st_parse_int(val, min, max, &v))
		usage_die(st_view_usage, "bad number '%s' for '%s'", val, opt);
	return v;
}

int cmd_view(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "max-calls", required_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = getenv("SYNCTRACE_ADDR2LINE"), *out = NULL, *run;
	const char *val;
	struct st_view_opts vo = { 0 };
	struct st_view_stats st;
	struct st_scan *scan;
	char err[512], *path = NULL;
	int c, rc, quiet = 0;
	struct st_out o;

	optind = 0;
	while ((c = st_getopt(argc, argv, ":o:qh", opts, &val)) != -1) {
		switch (c) {
		case 'o':
			if (!val || !*val)
				usage_die(st_view_usage, "option '--output' "
					  "needs a file");
			out = val;
			break;
		case 'm':
			if (!val)
				usage_die(st_view_usage, "option '--max-calls' "
					  "needs a number");
			vo.max_calls = (size_t)number("--max-calls", val, 1,
						      100000000);
			break;
		case 't':
			if (!val)
				usage_die(st_view_usage, "option '--top' needs "
					  "a number");
			vo.top = (int)number("--top", val, 1, 100000);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(st_view_usage, stdout);
			return 0;
		default:
			usage_die(st_view_usage, "%s", val);
		}
	}
	if (optind >= argc)
		usage_die(st_view_usage, "no run directory given");
	if (optind + 1 < argc)
		usage_die(st_view_usage, "too many arguments");
	run = argv[optind];
	if (st_out_check(out, err, sizeof(err)))
		die("%s", err);
	rc = st_scan_open(&scan, run, prog && *prog ? prog : "addr2line", err,
			  sizeof(err));
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc)
		die("%s", *err ? err : strerror_neg(rc));
	if (!scan->nsynced)
		die("no rank of '%s' has global time (no clock "
		    "synchronisation records): no timeline to draw", run);
	if (!out) {
		size_t len = strlen(run);

		while (len > 1 && run[len - 1] == '/')
			len--;
		path = malloc(len + 6);
		if (!path)
			die("out of memory");
		snprintf(path, len + 6, "%.*s.html", (int)len, run);
		out = path;
	}
	if (st_out_open(&o, out, err, sizeof(err)))
		die("%s", err);
	rc = st_view_write(o.f, scan, &vo, &st);
	if (st_out_close(&o, !rc, err, sizeof(err)) && !rc)
		die("%s", err);
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc)
		die("cannot write '%s': %s", out, strerror_neg(rc));
	if (scan->nsynced < scan->nread)
		warning("n=%d rank%s without global time have no lane",
			scan->nread - scan->nsynced,
			scan->nread - scan->nsynced == 1 ? "" : "s");
	if (!quiet)
		fprintf(stderr, "synctrace: view in %s: n=%d lanes, n=%" PRIu64
			" of n=%" PRIu64 " calls drawn one by one, n=%" PRIu64
			" of n=%" PRIu64 " messages as lines\n", out, st.lanes,
			st.kept, st.calls, st.kept_messages, st.messages);
	free(path);
	st_scan_free(scan);
	return 0;
}
