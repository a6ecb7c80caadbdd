/*
 * tools/bench/bench.h: the modes of synctrace-bench and what they share.
 * synctrace-bench is one MPI program with one mode per measurement, run
 * as "synctrace-bench <mode> [options]" under mpiexec (normally by the
 * synctrace command, which never links MPI itself).  main() dispatches
 * on the mode through a table; each mode initialises MPI itself, takes
 * its own argv (argv[0] is the mode's name) and returns the exit status.
 */
#ifndef ST_TOOLS_BENCH_BENCH_H
#define ST_TOOLS_BENCH_BENCH_H

/* Exit status of a command-line mistake, as the synctrace command's. */
#define ST_BENCH_EXIT_USAGE 129

/* The modes. */
int st_bench_clockcheck(int argc, char **argv);
int st_bench_micro(int argc, char **argv);

/* The help text of each mode, for --help and after a usage error. */
extern const char st_bench_clockcheck_usage[];
extern const char st_bench_micro_usage[];

/*
 * Match argv[*i] against "NAME VALUE" or "NAME=VALUE": 1 with '*val' set
 * (and *i moved past a separate value), 0 when it is another argument,
 * -1 when NAME comes last without its value.
 */
int st_bench_opt_value(int argc, char **argv, int *i, const char *name,
		       const char **val);

/*
 * Print "synctrace-bench: <msg>" on stderr, as one write so that lines
 * of several ranks do not interleave.
 */
__attribute__((format(printf, 1, 2)))
void st_bench_msg(const char *fmt, ...);

#endif
