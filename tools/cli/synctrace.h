/*
 * tools/cli/synctrace.h: the subcommands of the synctrace command and the
 * helpers they share, like git's builtin.h.  Each cmd_<name>() takes
 * its own argv (argv[0] is the subcommand name) and returns the exit
 * status; it may die() on a fatal problem.  The pure helpers are here
 * so the unit tests can reach them.
 */
#ifndef ST_TOOLS_CLI_SYNCTRACE_H
#define ST_TOOLS_CLI_SYNCTRACE_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

int cmd_run(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_clockcheck(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* Help texts, printed by --help (stdout) and after a usage error (stderr). */
extern const char st_run_usage[];
extern const char st_dump_usage[];
extern const char st_report_usage[];
extern const char st_clockcheck_usage[];
extern const char st_table_usage[];
extern const char st_bench_usage[];
extern const char st_predict_usage[];
extern const char st_export_usage[];
extern const char st_view_usage[];

/*
 * Option parsing: getopt_long(3), so options may come in any order
 * among the operands (unless 'shortopts' starts with "+": then they stop
 * at the first operand), long options take "--opt=value" or "--opt
 * value", and a long option may be shortened to any unique prefix.
 * 'shortopts' must start with ":" (after any "+").  Set optind to 0
 * before the first call on a new argv.
 *
 * st_getopt() returns the next option's code (its 'val'), with '*arg'
 * its value, or NULL when a value it requires is missing (the caller
 * says what it needed); '?' for an unknown or ambiguous option, or one
 * given a value it does not take, with '*arg' the message ("unknown
 * option '--frob'"); -1 after the last option, argv[optind] being the
 * first operand.
 */
int st_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, const char **arg);

/*
 * Parse all of 's' as a decimal integer in [min, max].  Returns 0, or
 * -EINVAL (not a number, trailing characters, out of range).
 */
int st_parse_int(const char *s, long min, long max, long *out);

/*
 * Parse a size in bytes: digits with an optional suffix K, M, G (or KB,
 * KiB...; all binary, case-insensitive).  Returns 0, or -EINVAL for
 * anything else, zero, or more than 2^63 bytes.
 */
int st_size_parse(const char *s, uint64_t *bytes);

/* cmd-run.c: the parsed command line of 'synctrace run'. */
struct st_run_opts {
	const char *dir;	/* -o DIR, or NULL for a new directory */
	const char *lib;	/* --lib PATH, or NULL to search */
	int mpi;		/* --mpi NAME: ST_MPI_*, 0 to tell from the job */
	uint64_t buffer;	/* --buffer, bytes; 0 when not given */
	long depth;		/* --depth, -1 when not given */
	int yield, verbose, quiet;
	const char *families;	/* --families LIST, or NULL */
	int help;		/* -h/--help was given */
	char **cmd;		/* the command to run, NULL-terminated */
};

/*
 * Parse the options of 'synctrace run' in 'argv' (argv[0] is "run").
 * The command starts after "--" or at the first argument that is not an
 * option.  Returns 0, or -1 with a message in 'err' (a usage error:
 * unknown option, bad value, no command).
 */
int st_run_opts_parse(struct st_run_opts *o, int argc, char **argv,
		      char *err, size_t errlen);

/*
 * The LD_PRELOAD value that adds 'lib' to 'old' (NULL or "" when unset):
 * 'lib' goes first, except after any sanitizer runtimes (libasan...)
 * in 'old', which must stay first.  Returns a malloc()ed string or NULL.
 */
char *st_preload_join(const char *lib, const char *old);

/*
 * Non-zero when 's' is a list 'synctrace run --families' takes, as
 * SYNCTRACE_FAMILIES does: comma-separated family names, each with an
 * optional leading '-'.
 */
int st_run_families_ok(const char *s);

/*
 * cmd-clockcheck.c: the parsed command line of 'synctrace clockcheck'.
 * Each value is checked but kept as given, to be passed on to
 * synctrace-bench; NULL means the option was not given (the program's
 * default applies).
 */
struct st_clockcheck_opts {
	long nranks;		/* -n, default 2 */
	const char *times;	/* --times LIST */
	const char *methods;	/* --methods LIST */
	const char *refresh;	/* --refresh SECONDS */
	const char *refresh_methods;	/* --refresh-methods LIST */
	const char *skew;	/* --skew SPEC */
	const char *params;	/* --params LIST */
	const char *csv;	/* --csv FILE */
	const char *mpiexec;	/* --mpiexec PROG, default "mpiexec.mpich" */
	int node;		/* --node */
	int help;		/* -h/--help was given */
	char **extra;		/* 'nextra' mpiexec arguments after "--" */
	int nextra;
};

/*
 * Parse the options of 'synctrace clockcheck' in 'argv' (argv[0] is
 * "clockcheck"); everything after "--" goes to 'extra'.  Returns 0, or -1
 * with a message in 'err' (a usage error: unknown option, bad value,
 * stray argument).
 */
int st_clockcheck_opts_parse(struct st_clockcheck_opts *o, int argc,
			     char **argv, char *err, size_t errlen);

/*
 * The command that runs the check: "MPIEXEC -n N EXTRA... 'bench'
 * clockcheck OPTIONS...", with "--csv 'csv'" unless 'csv' is NULL.  The
 * number of ranks is written into 'nbuf' ('nlen' bytes).  Returns a
 * malloc()ed NULL-terminated array (free() it, not its strings, which
 * belong to 'o', 'bench', 'csv' and 'nbuf'), or NULL when out of memory.
 */
char **st_clockcheck_argv(const struct st_clockcheck_opts *o,
			  const char *bench, const char *csv, char *nbuf,
			  size_t nlen);

/*
 * cmd-bench.c: the parsed command line of 'synctrace bench'.  Values are
 * checked but kept as given, to be passed on to synctrace-bench; NULL
 * means the option was not given (the program's default applies).
 */
struct st_bench_opts {
	long nranks;		/* -n, default 2 */
	const char *dir;	/* -o DIR, or NULL for a new directory */
	long runs;		/* --runs, default 1 */
	const char *ops;	/* --ops LIST */
	const char *sizes;	/* --sizes LIST */
	const char *min, *max;	/* --min SIZE, --max SIZE */
	const char *pairs;	/* --pairs LIST, or what --like made */
	const char *like;	/* --like RUN */
	int nranks_set;		/* -n was given */
	const char *nrep;	/* --nrep N */
	uint64_t seed;		/* --seed, default 1; run k has seed + k - 1 */
	const char *sync;	/* --sync window|barrier */
	const char *window_factor;	/* --window-factor X */
	const char *pair_time;	/* --pair-time US (--repro: 2000) */
	const char *skew;	/* --skew SPEC */
	const char *mpiexec;	/* --mpiexec PROG, default "mpiexec.mpich" */
	int quick;		/* --quick */
	int reuse;		/* --reuse-buffers */
	int cold_coll;		/* --cold-coll */
	int warm_p2p;		/* --warm-p2p */
	int no_start;		/* --no-start (with --like) */
	int repro;		/* --repro: a table meant to be compared */
	int runs_set;		/* --runs was given */
	long warmup;		/* --warmup N launches, discarded; -1:
				   unset (--repro: 1, else 0) */
	int bind;		/* --bind 1, --no-bind 0, -1: unset (bound
				   when every rank can have a CPU here) */
	int help;		/* -h/--help was given */
	char **extra;		/* 'nextra' mpiexec arguments after "--" */
	int nextra;
};

/*
 * Parse the options of 'synctrace bench' in 'argv' (argv[0] is "bench");
 * everything after "--" goes to 'extra'.  Returns 0, or -1 with a message
 * in 'err' (a usage error: unknown option or operation, bad value, stray
 * argument).
 */
int st_bench_opts_parse(struct st_bench_opts *o, int argc, char **argv,
			char *err, size_t errlen);

/*
 * The command of one run: "MPIEXEC -n N EXTRA... 'bench' micro --dir
 * 'dir' OPTIONS... --seed 'seed'".  The number of ranks is written into
 * 'nbuf' and the seed into 'sbuf'.  Returns a malloc()ed NULL-terminated
 * array (free() it, not its strings, which belong to 'o', 'bench', 'dir',
 * 'nbuf' and 'sbuf'), or NULL when out of memory.
 */
char **st_bench_argv(const struct st_bench_opts *o, const char *bench,
		     const char *dir, uint64_t seed, char *nbuf, size_t nlen,
		     char *sbuf, size_t slen);

/*
 * Settle what --repro and the defaults leave open in 'o', for a host
 * with 'ncpus' online CPUs: --repro's launches (20), measurements per
 * launch (5, unless --nrep or --quick) and warm-up launch (1); whether
 * ranks are bound to cores ('o->bind' 0 or 1: by default when there is
 * a CPU for every rank).  Call once, after st_bench_opts_parse().
 */
void st_bench_settle(struct st_bench_opts *o, long ncpus);

/*
 * The (operation, size) pairs one launch of 'o' measures, and a rough
 * estimate of its time in seconds on an idle machine with a CPU per
 * rank: per pair, its measurements' windows (3 times a model of the
 * operation's time, at least 100 us; the model is MPICH's shared-memory
 * costs on the 2-CPU machine synctrace is developed on), plus 0.5 s to
 * start the job, synchronise the clocks and run the pilot.  Returns the
 * number of pairs (0 with --like, whose pairs are known later).
 */
long st_bench_estimate(const struct st_bench_opts *o, double *secs);

#endif
