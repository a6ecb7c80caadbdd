/*
 * tools/bench/main.c: synctrace-bench, the MPI program behind the
 * measuring subcommands of synctrace.  It dispatches on its first
 * argument through the table below, as the synctrace command does; a new
 * mode is one row here and one file.  Help and usage errors are handled
 * before any mode starts MPI, so "synctrace-bench --help" works without
 * mpiexec.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tools/bench/bench.h"

struct mode {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

static const struct mode modes[] = {
	{ "clockcheck", st_bench_clockcheck, st_bench_clockcheck_usage,
	  "residual offset of the global clock after synchronisation,\n"
	  "              per method, at chosen times" },
	{ "micro", st_bench_micro, st_bench_micro_usage,
	  "collectives and point-to-point over message sizes, window-\n"
	  "              synchronised on the global clock, into a trace" },
};

#define NMODES (sizeof(modes) / sizeof(modes[0]))

static void print_usage(FILE *f)
{
	size_t i;

	fputs("usage: mpiexec.mpich -n N synctrace-bench <mode> [options]\n"
	      "\n"
	      "The MPI program behind 'synctrace <mode>'; run it through "
	      "synctrace.\n"
	      "\n"
	      "modes:\n", f);
	for (i = 0; i < NMODES; i++)
		fprintf(f, "   %-10s %s\n", modes[i].name, modes[i].summary);
	fputs("\nSee 'synctrace-bench <mode> --help'.\n", f);
}

int st_bench_opt_value(int argc, char **argv, int *i, const char *name,
		       const char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
		return 1;
	}
	if (argv[*i][n])
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

void st_bench_msg(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "synctrace-bench: %s\n", msg);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		print_usage(stderr);
		return ST_BENCH_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return 0;
	}
	for (i = 0; i < NMODES; i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		if (argc > 2 && (!strcmp(argv[2], "--help") ||
				 !strcmp(argv[2], "-h"))) {
			fputs(modes[i].usage, stdout);
			return 0;
		}
		return modes[i].fn(argc - 1, argv + 1);
	}
	st_bench_msg("unknown mode '%s'", argv[1]);
	print_usage(stderr);
	return ST_BENCH_EXIT_USAGE;
}
