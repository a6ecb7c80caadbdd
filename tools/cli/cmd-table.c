/*
 * tools/cli/cmd-table.c: 'synctrace table', cost tables of MPI operations
 * from one or more run directories (application traces and synctrace
 * bench runs alike).  Each run is read into one table (tools/analysis/table.h:
 * samples matched across ranks in global time by tools/analysis/table-read.c),
 * which is then summarised and fitted, and written as text on stdout
 * and, if asked, as CSV, JSON and an HTML page with SVG plots.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli/synctrace.h"
#include "tools/cli/outfile.h"
#include "tools/analysis/compare.h"
#include "tools/analysis/table.h"
#include "tools/cli/usage.h"
#include "writer/reader.h"

const char st_table_usage[] =
"usage: synctrace table [options] RUN [RUN...]\n"
"   or: synctrace table --compare [options] A B\n"
"\n"
"A cost table of the MPI operations in the run directories RUN (traces\n"
"of applications or of synctrace bench, at any process counts), in the\n"
"spirit of Howell's microbenchmark tables.  Every blocking collective\n"
"instance on an intra-communicator (also over a window or a file:\n"
"MPI_Win_fence, MPI_File_write_all...) is one sample: its time from the last\n"
"rank's arrival to the last rank's exit, in global time; the time ranks\n"
"waited for the last one is reported apart.  Every blocking send matched\n"
"with a blocking receive (by communicator, sender, receiver and tag, in\n"
"order; MPI_Sendrecv included) is one sample: from the later of the two\n"
"entries to the receive's exit.  Samples are grouped by operation,\n"
"process count p and size d (bytes per rank, see 'd' in the output);\n"
"each group gives its median after Tukey's fences with a confidence\n"
"interval, and each operation a formula T = a + b f(p) + c g(p) d fitted\n"
"to its group medians, with the coefficients' confidence intervals, Q\n"
"and adjusted R^2.  The text table goes to stdout.  A RUN without an\n"
"index that holds run-1, run-2... (synctrace bench --runs) stands for\n"
"those runs.\n"
"\n"
"With --compare, say per operation, p and d whether table B costs what\n"
"table A costs, beyond the differences between launches: A and B are\n"
"each a run directory (a 'synctrace bench --runs' or '--repro'\n"
"directory stands for its runs) or a table's JSON ('--json'); the\n"
"launches' medians of each group are compared (Wilcoxon rank-sum,\n"
"Benjamini-Hochberg over the groups), with the difference B/A - 1 and\n"
"its confidence interval; '--json FILE' writes the comparison as JSON\n"
"(see docs/compare.md).\n"
"\n"

"    --csv FILE       also write the formulas as CSV to FILE and the\n"
"                     group medians to FILE-groups.csv (FILE.csv:\n"
"                     FILE-groups.csv; FILE '-': both to stdout, a\n"
"                     blank line between them)\n"
"    --json FILE      also write everything as JSON (for synctrace\n"
"                     predict): metadata, models, group medians\n"
"    --html FILE      also write a static HTML page with one SVG plot\n"
"                     per operation\n"
"                     (FILE '-' writes to stdout instead of the text)\n"
"    --tukey K        Tukey's fences constant (default 1.5; 0 keeps\n"
"                     every sample)\n"
"    --level L        confidence level of the intervals (default 0.95)\n"
"    --bins N         bin sizes N per octave (default 0: one group per\n"
"                     exact size)\n"
"    --no-split       fit one formula over all sizes (no protocol\n"
"                     switch)\n"
"    --phase N        only the samples in the N-th phase of each rank and\n"
"                     thread: from its N-th MPI_Pcontrol call to the next\n"
"                     (0: before the first); --phase level=L: only those\n"
"                     in the phases opened by MPI_Pcontrol(L)\n"
"    --resolve PCT    the difference the table should resolve, in %\n"
"                     (default 5%): groups whose launches disagree too\n"
"                     much to show it in a comparison are marked ?;\n"
"                     with --compare, groups whose difference lies\n"
"                     within +-PCT with confidence are \"the same\"\n"
"    --compare        compare two tables, A and B (see above); --level\n"
"                     is then that of the intervals, and 1 - L the\n"
"                     false discovery rate of the differences called\n"
"    -h, --help       show this help\n";

struct table_opts {
	const char *csv, *json, *html;
	int compare;
	struct st_table_options o;
	struct st_phase_sel phase;
	const char **runs;
	int nruns;
};

static double parse_double(const char *opt, const char *val, double min,
			   double max, int open_max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno || end == val || *end || !(v >= min) ||
	    (open_max ? !(v < max) : !(v <= max)))
		usage_die(st_table_usage, "bad value '%s' for '%s'", val,
			  opt);
	return v;
}

/* A percentage, "5" or "5%", above 0 and below 100, as a fraction. */
static double parse_percent(const char *opt, const char *val)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (end != val && *end == '%')
		end++;
	if (errno || end == val || *end || !(v > 0 && v < 100))
		usage_die(st_table_usage, "bad percentage '%s' for '%s' (above "
			  "0, below 100, e.g. 5%%)", val, opt);
	return v / 100;
}

static void parse_options(struct table_opts *to, int argc, char **argv)
{
	enum { O_CSV = 256, O_JSON, O_HTML, O_TUKEY, O_LEVEL, O_BINS,
	       O_NO_SPLIT, O_PHASE, O_RESOLVE, O_COMPARE };
	static const struct option longopts[] = {
		{ "bins", required_argument, NULL, O_BINS },
		{ "compare", no_argument, NULL, O_COMPARE },
		{ "csv", required_argument, NULL, O_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ "html", required_argument, NULL, O_HTML },
		{ "json", required_argument, NULL, O_JSON },
		{ "level", required_argument, NULL, O_LEVEL },
		{ "no-split", no_argument, NULL, O_NO_SPLIT },
		{ "phase", required_argument, NULL, O_PHASE },
		{ "resolve", required_argument, NULL, O_RESOLVE },
		{ "tukey", required_argument, NULL, O_TUKEY },
		{ NULL, 0, NULL, 0 }
	};
	const char *val;
	int c;
	long n;

	memset(to, 0, sizeof(*to));
	st_table_options_init(&to->o);
	to->runs = calloc((size_t)argc, sizeof(*to->runs));
	if (!to->runs)
		die("out of memory");
	optind = 0;
	while ((c = st_getopt(argc, argv, ":h", longopts, &val)) != -1) {
		switch (c) {
		case 'h':
			fputs(st_table_usage, stdout);
			exit(0);
		case O_NO_SPLIT:
			to->o.max_pieces = 1;
			break;
		case O_PHASE:
			if (!val || st_phase_parse(val, &to->phase))
				usage_die(st_table_usage, "bad phase '%s' for "
					  "'--phase' (a number, or level=L)",
					  val ? val : "");
			break;
		case O_COMPARE:
			to->compare = 1;
			break;
		case O_RESOLVE:
			if (!val)
				usage_die(st_table_usage,
					  "option '--resolve' needs a "
					  "percentage");
			to->o.resolve = parse_percent("--resolve", val);
			break;
		case O_CSV:
			if (!val)
				usage_die(st_table_usage,
					  "option '--csv' needs a file");
			to->csv = val;
			break;
		case O_JSON:
			if (!val)
				usage_die(st_table_usage,
					  "option '--json' needs a file");
			to->json = val;
			break;
		case O_HTML:
			if (!val)
				usage_die(st_table_usage,
					  "option '--html' needs a file");
			to->html = val;
			break;
		case O_TUKEY:
			if (!val)
				usage_die(st_table_usage,
					  "option '--tukey' needs a number");
			to->o.tukey_k = parse_double("--tukey", val, 0, 100,
						     0);
			break;
		case O_LEVEL:
			if (!val)
				usage_die(st_table_usage,
					  "option '--level' needs a number");
			to->o.ci_level = parse_double("--level", val, 0.5, 1,
						      1);
			break;
		case O_BINS:
			if (!val)
				usage_die(st_table_usage,
					  "option '--bins' needs a number");
			if (st_parse_int(val, 0, 64, &n))
				usage_die(st_table_usage, "bad number '%s' "
					  "for '--bins' (0 to 64)", val);
			to->o.bins_per_octave = (int)n;
			break;
		default:
			usage_die(st_table_usage, "%s", val);
		}
	}
	while (optind < argc)
		to->runs[to->nruns++] = argv[optind++];
	if (to->compare) {
		if (to->csv || to->html)
			usage_die(st_table_usage, "'--compare' writes text or "
				  "'--json'; '--csv' and '--html' are for "
				  "tables");
		if (to->nruns != 2)
			usage_die(st_table_usage, "'--compare' needs two "
				  "tables, A and B (%d given)", to->nruns);
		if (!(to->o.ci_level >= 0.5))
			usage_die(st_table_usage, "'--compare' needs '--level' "
				  "0.5 or more");
	}
	if (!to->nruns)
		usage_die(st_table_usage, "no run directory given");
	if ((to->csv && !strcmp(to->csv, "-") &&
	     ((to->json && !strcmp(to->json, "-")) ||
	      (to->html && !strcmp(to->html, "-")))) ||
	    (to->json && to->html && !strcmp(to->json, "-") &&
	     !strcmp(to->html, "-")))
		usage_die(st_table_usage, "only one output can go to stdout "
			  "('-')");
}

static int cmp_run_no(const void *a, const void *b)
{
	long x = strtol(*(char *const *)a + 4, NULL, 10);
	long y = strtol(*(char *const *)b + 4, NULL, 10);

	return (x > y) - (x < y);
}

/*
 * The runs of directory 'dir' as 'synctrace bench --runs' writes them:
 * its subdirectories run-1, run-2... that hold an index, in number
 * order, as malloc()ed paths in '*out'.  Returns their number (0 when
 * 'dir' is no such directory).
 */
static size_t bench_runs(const char *dir, char ***out)
{
	struct dirent *de;
	char **v = NULL, **names = NULL;
	size_t n = 0, i;
	DIR *d = opendir(dir);

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *path;
		size_t len;

		if (strncmp(de->d_name, "run-", 4) ||
		    strspn(de->d_name + 4, "0123456789") !=
		    strlen(de->d_name + 4) || !de->d_name[4])
			continue;
		len = strlen(dir) + strlen(de->d_name) + 32;
		if (!(path = malloc(len)))
			die("out of memory");
		snprintf(path, len, "%s/%s/" ST_RUN_INDEX, dir, de->d_name);
		if (access(path, F_OK)) {
			free(path);
			continue;
		}
		free(path);
		names = realloc(names, (n + 1) * sizeof(*names));
		if (!names || !(names[n] = strdup(de->d_name)))
			die("out of memory");
		n++;
	}
	closedir(d);
	if (!n)
		return 0;
	qsort(names, n, sizeof(*names), cmp_run_no);
	v = calloc(n, sizeof(*v));
	if (!v)
		die("out of memory");
	for (i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;

		if (!(v[i] = malloc(len)))
			die("out of memory");
		snprintf(v[i], len, "%s/%s", dir, names[i]);
		free(names[i]);
	}
	free(names);
	*out = v;
	return n;
}

/* FILE-groups.csv for FILE.csv, else FILE-groups.csv; malloc()ed. */
static char *groups_path(const char *csv)
{
	size_t len = strlen(csv);
	char *p = malloc(len + 16);

	if (!p)
		die("out of memory");
	if (len > 4 && !strcmp(csv + len - 4, ".csv"))
		len -= 4;
	snprintf(p, len + 16, "%.*s-groups.csv", (int)len, csv);
	return p;
}

/* Open 'path' for writing, or die saying why (outfile.h). */
static void open_out(struct st_out *o, const char *path)
{
	char err[600];

	if (st_out_open(o, path, err, sizeof(err)))
		die("%s", err);
}

/* Refuse, before the runs are read, an output that is a trace. */
static void check_outputs(const struct table_opts *to)
{
	const char *path[] = { to->csv, to->json, to->html };
	char err[600], *gp = to->csv ? groups_path(to->csv) : NULL;
	size_t i;

	for (i = 0; i < 3; i++)
		if (st_out_check(path[i], err, sizeof(err)))
			die("%s", err);
	if (gp && strcmp(to->csv, "-") && st_out_check(gp, err, sizeof(err)))
		die("'--csv %s' writes its groups to '%s', which holds a "
		    "synctrace trace: not overwritten (choose another --csv)",
		    to->csv, gp);
	free(gp);
}

/* Finish 'o', whose writer returned 'rc', or die saying why. */
static void close_out(struct st_out *o, int rc)
{
	char err[600];

	if (st_out_close(o, !rc, err, sizeof(err)))
		die("%s", *err ? err : rc == -ENOMEM ? "out of memory" :
		    "cannot write the output");
}

/* Read run 'dir' as run 'run_no'; 0, or -1 after an error message. */
static int read_one(struct st_table *t, struct st_table_meta *m,
		    const char *dir, uint32_t run_no)
{
	char err[512] = "";
	int rc;

	rc = st_table_read_run(t, m, dir, run_no, err, sizeof(err));
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc)
		return error("%s", *err ? err : strerror_neg(rc));
	return 0;
}

/*
 * Read the run directories 'runs' (n of them; a 'synctrace bench --runs'
 * directory stands for its runs) into a new, finished table '*out'
 * described by 'm', of the samples in 'phase'.  Returns 1 when some run
 * could not be read (after an error message), 0 otherwise; dies when
 * none could.
 */
static int read_table(const char *const *runs, int n,
		      const struct st_table_options *o,
		      const struct st_phase_sel *phase, struct st_table **out,
		      struct st_table_meta *m)
{
	struct st_table *t;
	uint32_t run_no = 0;
	int i, rc, failed = 0, nread = 0;

	if ((rc = st_table_new(&t, o)))
		die("cannot make a table: %s", strerror_neg(rc));
	st_table_meta_init(m);
	m->phase = *phase;
	for (i = 0; i < n; i++) {
		char idx[PATH_MAX + 32], **sub;
		struct stat st;
		size_t k, nsub;

		if (stat(runs[i], &st)) {
			error("cannot open '%s': %s", runs[i],
			      strerror(errno));
			failed = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			error("'%s' is not a run directory", runs[i]);
			failed = 1;
			continue;
		}
		/* The parent of 'synctrace bench --runs N': each run-K. */
		snprintf(idx, sizeof(idx), "%s/" ST_RUN_INDEX, runs[i]);
		nsub = access(idx, F_OK) ? bench_runs(runs[i], &sub) : 0;
		if (nsub) {
			for (k = 0; k < nsub; k++) {
				if (read_one(t, m, sub[k], run_no++))
					failed = 1;
				else
					nread++;
				free(sub[k]);
			}
			free(sub);
			continue;
		}
		if (read_one(t, m, runs[i], run_no++))
			failed = 1;
		else
			nread++;
	}
	if (!nread)
		die("no run could be read%s%s", n == 1 ? " in " : "",
		    n == 1 ? runs[0] : "");
	if (m->phase.mode != ST_PHASE_ALL && !m->phases) {
		char what[128];

		warning("no rank of the runs has %s",
			st_phase_name(&m->phase, what, sizeof(what)));
	}
	if (st_table_finish(t))
		die("out of memory");
	*out = t;
	return failed;
}

/* One side of --compare: a table's JSON, or run directories. */
static int read_side(const struct table_opts *to, const char *path,
		     struct st_cmp_table *side)
{
	struct st_table_meta m;
	struct st_table *t;
	struct stat st;
	char err[1024];
	int rc, failed;

	if (!stat(path, &st) && S_ISREG(st.st_mode)) {
		rc = st_cmp_table_load(side, path, err, sizeof(err));
		if (rc == -ENOMEM)
			die("out of memory");
		if (rc)
			die("%s", err);
		return 0;
	}
	failed = read_table(&path, 1, &to->o, &to->phase, &t, &m);
	if (st_cmp_table_from(side, t, &m, path))
		die("out of memory");
	st_table_free(t);
	st_table_meta_release(&m);
	return failed;
}

/* 'synctrace table --compare A B'. */
static int compare(const struct table_opts *to)
{
	struct st_cmp_table side[2];
	struct st_cmp_result r;
	int k, rc, failed = 0;

	for (k = 0; k < 2; k++)
		failed |= read_side(to, to->runs[k], &side[k]);
	rc = st_compare(side[0].groups, side[0].ngroups, side[1].groups,
			side[1].ngroups, to->o.ci_level, to->o.resolve, &r);
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc)
		die("cannot compare the tables: %s (an operation, p and d "
		    "twice in one table?)", strerror_neg(rc));
	if (!to->json || strcmp(to->json, "-")) {
		rc = st_cmp_write_text(stdout, &side[0], &side[1], &r);
		if (rc || fflush(stdout))
			die("cannot write the output: %s", strerror(EIO));
	}
	if (to->json) {
		struct st_out o;

		open_out(&o, to->json);
		rc = st_cmp_write_json(o.f, &side[0], &side[1], &r);
		close_out(&o, rc);
	}
	st_cmp_result_release(&r);
	st_cmp_table_release(&side[0]);
	st_cmp_table_release(&side[1]);
	return failed ? ST_EXIT_FAILURE : 0;
}

int cmd_table(int argc, char **argv)
{
	struct table_opts to;
	struct st_table_meta m;
	struct st_table *t;
	int rc, failed, to_stdout;

	parse_options(&to, argc, argv);
	check_outputs(&to);
	if (to.compare) {
		rc = compare(&to);
		free(to.runs);
		return rc;
	}
	to_stdout = (to.csv && !strcmp(to.csv, "-")) ||
		    (to.json && !strcmp(to.json, "-")) ||
		    (to.html && !strcmp(to.html, "-"));
	failed = read_table(to.runs, to.nruns, &to.o, &to.phase, &t, &m);

	if (!to_stdout) {
		rc = st_table_write_text(stdout, t, &m);
		if (rc || fflush(stdout))
			die("cannot write the output: %s", strerror(EIO));
	}
	if (to.csv && !strcmp(to.csv, "-")) {
		/* Both tables, a blank line between them. */
		rc = st_table_write_csv(stdout, NULL, t, &m);
		putchar('\n');
		rc = rc ? rc : st_table_write_csv(NULL, stdout, t, &m);
		if (rc || fflush(stdout))
			die("cannot write the output: %s", strerror(EIO));
	} else if (to.csv) {
		char *gp = groups_path(to.csv);
		struct st_out o;

		open_out(&o, to.csv);
		rc = st_table_write_csv(o.f, NULL, t, &m);
		close_out(&o, rc);
		open_out(&o, gp);
		rc = st_table_write_csv(NULL, o.f, t, &m);
		close_out(&o, rc);
		free(gp);
	}
	if (to.json) {
		struct st_out o;

		open_out(&o, to.json);
		rc = st_table_write_json(o.f, t, &m);
		close_out(&o, rc);
	}
	if (to.html) {
		struct st_out o;

		open_out(&o, to.html);
		rc = st_table_write_html(o.f, t, &m);
		close_out(&o, rc);
	}
	st_table_free(t);
	st_table_meta_release(&m);
	free(to.runs);
	return failed ? ST_EXIT_FAILURE : 0;
}
