/*
 * tools/analysis/compare.h: whether two cost tables differ, per
 * operation, process count and size, beyond what separate launches of
 * the same benchmark differ by.
 *
 * The launch (one mpiexec) is the unit of replication: Hunold and
 * Carpen-Amarie ("MPI Benchmarking Revisited", Sec. 5) find that
 * launches differ significantly from each other by 3 to 5 %, so the
 * thousands of samples of one launch say nothing about the next one,
 * and a test on samples pooled over launches finds "differences" that
 * are only launches.  A group of table A is compared with the group of
 * table B at the same (operation, p, d) through its per-launch medians:
 * the Wilcoxon-Mann-Whitney rank-sum test on their logarithms (their
 * recommended test, no assumption on the distribution), the
 * Hodges-Lehmann estimate of the shift as a relative difference
 * B / A - 1 with Moses's confidence interval, and over all groups the
 * Benjamini-Hochberg adjustment, so that comparing many groups at
 * level 1 - alpha does not call alpha of the groups of two equal
 * tables different by chance.
 *
 * Functions return 0 or a negative errno and never print.
 */
#ifndef ST_TOOLS_ANALYSIS_COMPARE_H
#define ST_TOOLS_ANALYSIS_COMPARE_H

#include <stddef.h>
#include <stdio.h>

/* One group of one table: an operation at one (p, d). */
struct st_cmp_group {
	const char *op;		/* operation name, "MPI_Allreduce" */
	long p;
	double d;		/* bytes */
	const double *run_ns;	/* [nruns] its per-launch medians, ns */
	size_t nruns;
};

/* What a comparison says of one group. */
enum st_cmp_verdict {
	ST_CMP_SAME = 1,	/* no significant difference, and the
				   interval lies within +-resolve */
	ST_CMP_DIFFERS,		/* significant: q <= 1 - level */
	ST_CMP_UNRESOLVED,	/* not significant, but the interval
				   reaches beyond +-resolve: these
				   launches cannot tell */
	ST_CMP_TOO_FEW		/* fewer than 2 launches on a side */
};

/* One group present in both tables. */
struct st_cmp_row {
	size_t ia, ib;		/* its index in a[] and in b[] */
	double a_ns, b_ns;	/* median of each side's launch medians */
	/*
	 * B / A - 1: exp of the Hodges-Lehmann shift of the logarithms
	 * (the median of all ratios b_j / a_i, less 1), with its
	 * confidence interval at the level; NaN when unavailable (too few
	 * launches).
	 */
	double diff, lo, hi;
	double p;		/* two-sided rank-sum p-value; NaN: none */
	double q;		/* Benjamini-Hochberg adjusted p */
	int verdict;		/* enum st_cmp_verdict */
};

struct st_cmp_result {
	double level;		/* of the intervals; alpha = 1 - level */
	double resolve;		/* the difference that matters, relative */
	struct st_cmp_row *rows;	/* in a[]'s order */
	size_t nrows;
	size_t *only_a, n_only_a;	/* indices of groups in one table,
					   by (op, p, d) */
	size_t *only_b, n_only_b;
	size_t n_same, n_differs, n_unresolved, n_too_few;
	size_t n_slower, n_faster;	/* of n_differs: B above, below A */
	/*
	 * Median over the rows with a difference of |diff|, and how many
	 * rows that is; NaN when none.
	 */
	double median_abs_diff;
	size_t n_diff;
	/*
	 * The median of diff over the same rows (signed; NaN when none),
	 * and 'one_way' set when at least 10 groups differ, at least 90 %
	 * of them in the direction of that median, and it is at least
	 * half the 'resolve' difference: the signature of the whole
	 * machine having run slower or faster in one table's session
	 * (other jobs, frequency) as much as of a slower MPI or network.
	 */
	double median_diff;
	int one_way;
};

/*
 * Compare table 'a' (na groups) with table 'b' (nb groups): groups are
 * matched by operation name, p and d (equal within 1e-6 relative),
 * each (op, p, d) at most once per table.  Per-launch medians below
 * 1 ns count as 1 ns (the logarithm).  'level' (0.5 to 1, e.g. 0.95)
 * is the level of the intervals and 1 - level the false discovery
 * rate of the verdicts; 'resolve' (> 0, e.g. 0.05) the relative
 * difference that matters, for ST_CMP_SAME.  Fills 'r' (release with
 * st_cmp_result_release()).  Returns 0; -EINVAL for bad arguments, a
 * group without a name or with a per-launch median not finite, or an
 * (op, p, d) twice in one table; -ENOMEM.
 */
int st_compare(const struct st_cmp_group *a, size_t na,
	       const struct st_cmp_group *b, size_t nb, double level,
	       double resolve, struct st_cmp_result *r);

void st_cmp_result_release(struct st_cmp_result *r);

/* "same", "differs", "unresolved", "too few launches". */
const char *st_cmp_verdict_name(int verdict);

struct st_table;
struct st_table_meta;

/*
 * One side of a comparison: a table's groups with their per-launch
 * medians, and where it came from.  Everything belongs to it.
 */
struct st_cmp_table {
	char *name;		/* the file or directory given */
	char *mpi_library;	/* NULL when unknown */
	char *date;		/* of its first run, "2026-11-21 07:01 UTC" */
	size_t nruns;		/* runs the table was made of */
	struct st_cmp_group *groups;
	size_t ngroups;
	char *ops;		/* storage of the groups' names... */
	double *run_ns;		/* ...and launch medians */
};

/*
 * Take the groups of the finished table 't' (described by 'm') into
 * 'out', named 'name'.  Returns 0 or -ENOMEM.
 */
int st_cmp_table_from(struct st_cmp_table *out, const struct st_table *t,
		      const struct st_table_meta *m, const char *name);

void st_cmp_table_release(struct st_cmp_table *t);

/*
 * One side read from the JSON of a cost table ('synctrace table
 * --json'), the 'len' bytes of 'text' (tools/analysis/compare-json.c);
 * 'name' names it in messages and in the output.  Returns 0; -EBADMSG
 * with a message in 'err' for what is not a synctrace table of version
 * 1, or a table without per-run medians (written by an older synctrace:
 * it must be made again); -ENOMEM.
 */
int st_cmp_table_parse(struct st_cmp_table *out, const char *text,
		       size_t len, const char *name, char *err,
		       size_t errlen);

/* st_cmp_table_parse() of the file 'path'; also -errno when it cannot
 * be read (a message in 'err'). */
int st_cmp_table_load(struct st_cmp_table *out, const char *path, char *err,
		      size_t errlen);

/*
 * The comparison as JSON ("format": "synctrace-compare", version 1):
 * both sides, the level, alpha and resolve, the method in words, the
 * counts, one object per group in both tables (op, p, d_bytes, a_runs,
 * b_runs, a_ns, b_ns, diff, diff_lo, diff_hi, p_value, q_value,
 * verdict, direction), and the groups in one table only.  Returns 0,
 * -ENOMEM or -EIO.
 */
int st_cmp_write_json(FILE *f, const struct st_cmp_table *a,
		      const struct st_cmp_table *b,
		      const struct st_cmp_result *r);

/*
 * The comparison 'r' of 'a' with 'b' as text, at most 100 columns: the
 * two tables, the method, one row per group in both (operation, p, d,
 * the two medians of launch medians, B/A - 1 with its interval, q, the
 * verdict), then the counts and the groups in one table only.  Returns
 * 0 or -EIO.
 */
int st_cmp_write_text(FILE *f, const struct st_cmp_table *a,
		      const struct st_cmp_table *b,
		      const struct st_cmp_result *r);

#endif
