/*
 * tools/cli/cmd-export.c: 'synctrace export', a run on global time in the
 * formats other viewers open: Chrome/Perfetto trace-event JSON (to a file
 * or stdout, streamed) or an OTF2 archive (Vampir, otf2-print, Score-P's
 * tools).  The work is in tools/analysis/export-*.c; this file parses
 * the command line and says what was written and left out.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/export.h"
#include "tools/analysis/runscan.h"
#include "tools/cli/outfile.h"
#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"

const char st_export_usage[] =
"usage: synctrace export [--format chrome|otf2] [-o OUT] RUN\n"
"\n"
"Write run directory RUN (or one rank-N.st file) on global time for other\n"
"viewers.  Only ranks with clock synchronisation records have global\n"
"time; the others are left out, with a warning.\n"
"\n"
"    --format chrome  Chrome/Perfetto trace-event JSON (the default): a\n"
"                     process per rank, a thread per thread, a slice per\n"
"                     MPI call, flows from each send to its receive and\n"
"                     through each blocking collective's members; open it\n"
"                     in ui.perfetto.dev or chrome://tracing\n"
"    --format otf2    an OTF2 archive OUT/traces.otf2 (Vampir, otf2-print):\n"
"                     a location per rank and thread, MPI regions with\n"
"                     call sites, point-to-point and collective events\n"
"    -o, --output OUT the JSON file (default: stdout), or the directory\n"
"                     of the OTF2 archive (default: RUN-otf2; it must not\n"
"                     hold an archive yet)\n"
"    -q, --quiet      no summary line on stderr\n"
"    -h, --help       show this help\n";

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "chrome", *out = NULL, *run, *val;
	const char *prog = getenv("SYNCTRACE_ADDR2LINE");
	struct st_export_stats st;
	struct st_scan *scan;
	char err[512], *dir = NULL;
	int c, rc, quiet = 0;
	struct st_out o;

	optind = 0;
	while ((c = st_getopt(argc, argv, ":o:qh", opts, &val)) != -1) {
		switch (c) {
		case 'f':
			if (!val)
				usage_die(st_export_usage, "option '--format' "
					  "needs a value (chrome or otf2)");
			format = val;
			if (strcmp(format, "chrome") && strcmp(format, "otf2"))
				usage_die(st_export_usage, "unknown format '%s' "
					  "(chrome or otf2)", format);
			break;
		case 'o':
			if (!val || !*val)
				usage_die(st_export_usage, "option '--output' "
					  "needs a file or directory");
			out = val;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(st_export_usage, stdout);
			return 0;
		default:
			usage_die(st_export_usage, "%s", val);
		}
	}
	if (optind >= argc)
		usage_die(st_export_usage, "no run directory given");
	if (optind + 1 < argc)
		usage_die(st_export_usage, "too many arguments");
	run = argv[optind];
	if (!strcmp(format, "otf2") && !st_export_otf2_available())
		die("this synctrace was built without the OTF2 library: "
		    "install libotf2-trace-dev (pkg-config otf2) and rebuild");

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
		    "synchronisation records): nothing to export", run);

	if (!strcmp(format, "chrome")) {
		if (st_out_open(&o, out ? out : "-", err, sizeof(err)))
			die("%s", err);
		rc = st_export_chrome(o.f, scan, &st);
		if (st_out_close(&o, !rc, err, sizeof(err)) && !rc)
			die("%s", err);
	} else {
		if (!out) {
			size_t len = strlen(run);

			while (len > 1 && run[len - 1] == '/')
				len--;
			dir = malloc(len + 6);
			if (!dir)
				die("out of memory");
			snprintf(dir, len + 6, "%.*s-otf2", (int)len, run);
			out = dir;
		}
		rc = st_export_otf2(out, "traces", scan, &st, err,
				    sizeof(err));
		if (rc && *err)
			die("%s", err);
	}
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc)
		die("cannot write '%s': %s", out ? out : "stdout",
		    strerror_neg(rc));
	if (st.ranks_left_out)
		warning("n=%d rank%s without global time left out",
			st.ranks_left_out, st.ranks_left_out == 1 ? "" : "s");
	if (quiet)
		;
	else if (strcmp(format, "otf2"))
		fprintf(stderr, "synctrace: exported %s: n=%" PRIu64 " calls, "
			"n=%" PRIu64 " messages paired (n=%" PRIu64 " ends "
			"unpaired, n=%" PRIu64 " on unmapped communicators), "
			"n=%" PRIu64 " collective instances; time 0 is global "
			"time %.0f ns\n", out ? out : "stdout", st.calls,
			st.p2p_paired, st.p2p_unpaired, st.p2p_unmapped,
			st.coll_flows, st.origin_ns);
	else
		fprintf(stderr, "synctrace: exported %s/traces.otf2: n=%" PRIu64
			" calls, n=%" PRIu64 " send and n=%" PRIu64 " receive "
			"events, n=%" PRIu64 " collective calls (an OTF2 "
			"reader pairs them); time 0 is global time %.0f ns\n",
			out, st.calls, st.sends, st.recvs, st.colls,
			st.origin_ns);
	free(dir);
	st_scan_free(scan);
	return 0;
}
