/*
 * tools/cli/synctrace.c: the synctrace command.  Like git, it dispatches on
 * its first argument to cmd_<name>() (tools/cmd-<name>.c), and answers
 * "synctrace --help", "synctrace help <cmd>" and "synctrace <cmd> --help"
 * with a usage text on stdout, and "synctrace --version" with the
 * version.  A command-line mistake prints what was wrong and the short
 * synopsis to stderr and exits 129, as git does.
 */
#include <stdio.h>
#include <string.h>

#include "gen/version.h"
#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

static const struct command commands[] = {
	{ "run", cmd_run, st_run_usage,
	  "trace an MPI job: synctrace run -- mpiexec.mpich -n 4 ./app" },
	{ "dump", cmd_dump, st_dump_usage,
	  "print the records of a trace, as text or CSV" },
	{ "report", cmd_report, st_report_usage,
	  "summarise a trace: time and bytes per MPI function, call\n"
	  "              sites and communicator sizes" },
	{ "clockcheck", cmd_clockcheck, st_clockcheck_usage,
	  "how far apart the ranks' global clocks drift after sync" },
	{ "table", cmd_table, st_table_usage,
	  "cost table of MPI operations (Howell style) from runs" },
	{ "bench", cmd_bench, st_bench_usage,
	  "measure collectives and point-to-point over message sizes\n"
	  "              into a trace, window-synchronised (for table)" },
	{ "predict", cmd_predict, st_predict_usage,
	  "replay a run on a cost table: predicted time per rank,\n"
	  "              function and call site, critical path" },
	{ "export", cmd_export, st_export_usage,
	  "a run on global time as Perfetto JSON or OTF2 (Vampir)" },
	{ "view", cmd_view, st_view_usage,
	  "a run as one HTML page: timeline, imbalance, who talks\n"
	  "              to whom" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char main_usage_head[] =
"usage: synctrace [--help] [--version] <command> [<args>]\n"
"\n"
"synctrace records every MPI call of a job (LD_PRELOAD) on one global\n"
"clock, reads the traces back, builds cost tables and predicts run times.\n"
"\n"
"commands:\n";

static const char main_usage_tail[] =
"\n"
"See 'synctrace help <command>' or 'synctrace <command> --help'.\n";

static void print_main_usage(FILE *f)
{
	size_t i;

	fputs(main_usage_head, f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "   %-10s %s\n", commands[i].name,
			commands[i].summary);
	fputs(main_usage_tail, f);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/*
 * "synctrace: <problem> '<arg>'" and the synopsis, to stderr; without a
 * problem (no command at all), the whole usage.
 */
static int main_usage_error(const char *problem, const char *arg)
{
	fflush(stdout);
	if (!problem) {
		print_main_usage(stderr);
		return ST_EXIT_USAGE;
	}
	fprintf(stderr, "synctrace: %s '%s'\n", problem, arg);
	st_usage_synopsis(main_usage_head, stderr);
	return ST_EXIT_USAGE;
}

static int finish(int status)
{
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the output");
	return status;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2)
		return main_usage_error(NULL, NULL);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		print_main_usage(stdout);
		return finish(0);
	}
	if (!strcmp(argv[1], "--version")) {
		if (argc > 2)
			return main_usage_error("too many arguments to",
						"--version");
		printf("synctrace version %s\n", ST_VERSION);
		return finish(0);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc > 3)
			return main_usage_error("too many arguments to",
						"help");
		cmd = find_command(argv[2]);
		if (!cmd)
			return main_usage_error("unknown command",
						argv[2]);
		fputs(cmd->usage, stdout);
		return finish(0);
	}
	if (argv[1][0] == '-')
		return main_usage_error("unknown option", argv[1]);
	cmd = find_command(argv[1]);
	if (!cmd)
		return main_usage_error("unknown command", argv[1]);
	return finish(cmd->fn(argc - 1, argv + 1));
}
