/*
 * tools/analysis/fit.h: cost formulas for MPI operations, fitted to measured
 * durations in the style of Howell's microbenchmark tables,
 *
 *	T(p, d) = a + b f(p) + c g(p) d
 *
 * with p the number of processes, d the message size in bytes, T in
 * nanoseconds, and f, g chosen from the catalogue {absent, 1, log2 p, p,
 * p log2 p, p^2} (f = 1 would duplicate a, so f is never 1).  The input
 * is one summary per group of samples, a (p, d) pair: its median and the
 * median's standard error (st_summary.se_median, tools/analysis/stats.h).
 *
 * How a fit is made (st_fit_run):
 *  - Weighted least squares, weights 1 / sigma^2; when no group has a
 *    sigma, ordinary least squares and no goodness of fit (Q "n/a":
 *    a Q of 1 for an unweighted fit would claim what was never tested).
 *  - Every candidate (f, g) that the data can identify is fitted and
 *    scored by its leave-one-group-out cross-validation error: the mean
 *    squared prediction error of each group from a fit to the others,
 *    in units of that group's sigma (in ns^2 for an unweighted fit).
 *    A model needs at least one group more than it has coefficients.
 *  - Choosing among them:
 *    1. A model is no candidate when one with more terms fits the
 *       groups significantly and substantially better.  Significantly:
 *       the extra terms lower the misfit by more than noise would at
 *       level ST_FIT_MISFIT_ALPHA (weighted: the drop in chi-square,
 *       the sigmas being the noise; unweighted: the F-test, the larger
 *       model's residual variance being the noise).  Substantially:
 *       the misfit per degree of freedom (chi2 / dof) is at least
 *       ST_FIT_MISFIT_RATIO times the larger model's (or times 1, the
 *       sigmas' level, if that is more).  With few groups, or with
 *       sigmas far below the misfit of every formula (real data: cache
 *       effects, protocol switches), the cross-validation error is
 *       dominated by one group and cannot tell a constant from a
 *       formula that follows the medians; this rule can.
 *    2. Of the rest, the chosen model is the one with the fewest terms
 *       whose cross-validation error is within one standard error of
 *       the lowest (the "one-SE rule"; for a weighted fit the standard
 *       error is taken as at least sqrt(2 / n), that of n chi-square(1)
 *       terms of a right model, so a handful of groups cannot buy a
 *       term) and at most ST_FIT_CV_RATIO times the lowest (for a
 *       weighted fit, times 1 if that is more: errors at the sigmas'
 *       level are alike), so that one dominant group's standard error
 *       cannot admit a model many times worse; an allowance for
 *       rounding keeps exact data from a needless term.  Ties go to
 *       the lower error, then to the earlier catalogue entry.  The
 *       runners-up are reported too.
 *    With a right model and few groups, rule 1 adds a needless term
 *    about ST_FIT_MISFIT_ALPHA of the time (that is its level).
 *  - With one process count the p-dependence cannot be identified: only
 *    f = absent and g in {absent, 1} are tried, and the result says
 *    ST_FIT_P_NOT_IDENTIFIED; likewise one size (ST_FIT_D_NOT_IDENTIFIED,
 *    no d term).  With two process counts any f fits them equally well
 *    (ST_FIT_P_SHAPE_AMBIGUOUS; the catalogue order then picks log2 p).
 *  - A protocol switch: the groups are split once in d, between two
 *    consecutive distinct sizes, each piece choosing its own model as
 *    above (each piece needs ST_FIT_PIECE_MIN_D distinct sizes).  The
 *    splits are ranked by generalised cross-validation (from running
 *    sums, so all of them cost little) and the best three scored
 *    exactly.  The best split is kept only if it lowers the
 *    cross-validation error of the best one-piece model by at least
 *    ST_FIT_SPLIT_GAIN (a fraction) and by at least ST_FIT_SPLIT_NSE
 *    standard errors of the paired per-group differences (and by more
 *    than rounding); otherwise the fit is one piece.
 *  - Per piece: coefficients with confidence intervals, coefficient +-
 *    t(dof, (1 + level) / 2) se, se from the covariance (X'WX)^-1
 *    scaled by max(1, chi2/dof) for a weighted fit (so error bars that
 *    were too small widen the intervals, never narrow them) or by
 *    chi2/dof for an unweighted one; chi-square, degrees of freedom,
 *    Q = P(chi-square(dof) >= chi2), adjusted R^2 (of the medians,
 *    unweighted, see st_fit_piece.r2_adj), the ranges of p and d, the
 *    numbers of groups and samples.
 *
 * Functions return 0 or a negative errno and never print: -EINVAL for
 * bad input (no groups, a NaN or infinite value, p < 1, d < 0, n < 1,
 * sigma < 0, bad options), -EDOM when too few groups are left for any
 * model, -ENOMEM.
 */
#ifndef ST_TOOLS_ANALYSIS_FIT_H
#define ST_TOOLS_ANALYSIS_FIT_H

#include <stddef.h>

/* The catalogue of functions of p, in order of growth. */
enum st_fit_fn {
	ST_FIT_NONE = 0,	/* the term is absent */
	ST_FIT_ONE,		/* 1 (for g only) */
	ST_FIT_LOG2P,		/* log2 p */
	ST_FIT_P,		/* p */
	ST_FIT_PLOG2P,		/* p log2 p */
	ST_FIT_P2,		/* p^2 */
	ST_FIT_NFN
};

/* Value of catalogue function 'fn' at 'p' (0 for ST_FIT_NONE). */
double st_fit_fn_value(int fn, double p);

/*
 * Name of 'fn' as it appears in formulas: "1", "log2(p)", "p",
 * "p*log2(p)", "p^2"; "" for ST_FIT_NONE, NULL when not a catalogue
 * entry.
 */
const char *st_fit_fn_name(int fn);

/* One group of samples: an operation at one process count and size. */
struct st_fit_group {
	long p;			/* number of processes, >= 1 */
	double d;		/* message size in bytes, >= 0 */
	double y;		/* representative duration (median), ns */
	double sigma;		/* standard error of y, ns; 0: unknown */
	long n;			/* samples behind y, >= 1 */
};

/* Options of st_fit_run(); st_fit_options_init() sets the defaults. */
struct st_fit_options {
	double level;		/* coefficient interval level, 0.95 */
	double sigma_min;	/* known sigmas are raised to this, 1 ns
				   (the trace's time resolution) */
	int max_pieces;		/* 1: no split in d; 2 (default) */
};

void st_fit_options_init(struct st_fit_options *opt);

#define ST_FIT_PIECE_MIN_D 3	/* distinct sizes in each piece of a split */
#define ST_FIT_SPLIT_GAIN 0.2	/* a split must cut the cv error by 20% */
#define ST_FIT_SPLIT_NSE 2.0	/* ... and by 2 standard errors */
#define ST_FIT_CV_RATIO 1.5	/* a simpler model's cv is at most 1.5
				   times the lowest */
#define ST_FIT_MISFIT_ALPHA 0.05 /* level of "fits significantly better" */
#define ST_FIT_MISFIT_RATIO 1.5	/* "substantially": chi2/dof 1.5 times */
#define ST_FIT_MAX_PIECES 2
#define ST_FIT_MAX_ALT 4	/* runners-up reported per piece */

/* Flags of a piece and of a fit. */
#define ST_FIT_P_NOT_IDENTIFIED 0x1	/* one process count */
#define ST_FIT_D_NOT_IDENTIFIED 0x2	/* one size */
#define ST_FIT_P_SHAPE_AMBIGUOUS 0x4	/* two process counts */

/* A runner-up model of a piece. */
struct st_fit_alt {
	int f, g;		/* enum st_fit_fn */
	int nterms;
	double cv;		/* its cross-validation error */
};

/*
 * The formula fitted to one range of sizes.  Coefficients are indexed
 * 0 = a (ns), 1 = b (ns per unit of f(p)), 2 = c (ns per byte per unit
 * of g(p)); an absent term (f or g == ST_FIT_NONE) has coef, se, ci_lo
 * and ci_hi 0 and zero rows and columns in 'cov'.
 */
struct st_fit_piece {
	int f, g;		/* enum st_fit_fn; the model */
	int nterms;		/* coefficients fitted, 1 to 3 */
	double coef[3];
	double se[3];		/* standard errors (scaled, see above) */
	double ci_lo[3], ci_hi[3]; /* at level 'level' */
	double cov[3][3];	/* covariance of coef, same scaling */
	double level;
	int weighted;		/* 0: ordinary least squares */
	double chi2;		/* sum of squared (weighted) residuals */
	int dof;		/* n_groups - nterms, >= 1 */
	int has_q;		/* 0: Q is "n/a" (unweighted fit) */
	double q;		/* Q when has_q, else 0 */
	/*
	 * Adjusted R^2 of the group medians, unweighted even for a
	 * weighted fit: 1 - (RSS / dof) / (TSS / (n - 1)), RSS the sum of
	 * squared differences (ns^2) between the medians and the formula,
	 * TSS that between the medians and the constant fitted the same
	 * way (their weighted mean; the plain mean when unweighted).  So
	 * a constant scores 0 however the medians rise, a formula that
	 * follows them close to 1, and a weighted fit that misses the
	 * large medians can score below 0.  0 when the medians are equal.
	 */
	double r2_adj;
	double cv, cv_se;	/* cross-validation error, its std error;
				   -1 when undefined (st_fit_one only) */
	unsigned flags;		/* ST_FIT_*_NOT_IDENTIFIED, ..._AMBIGUOUS */
	long p_min, p_max;
	double d_min, d_max;
	size_t n_groups;
	long n_samples;		/* sum of the groups' n */
	int nalt;		/* runners-up, best cv first */
	struct st_fit_alt alt[ST_FIT_MAX_ALT];
};

/* The whole fit of one operation. */
struct st_fit_result {
	int npieces;		/* 1, or 2 with a split in d */
	/*
	 * With 2 pieces: piece 0 holds sizes <= d_below, piece 1 sizes
	 * >= d_split, two consecutive sizes of the data; the switch lies
	 * between them.  0 with 1 piece.
	 */
	double d_below, d_split;
	double cv_single;	/* cv of the best one-piece model */
	double cv;		/* cv of the chosen model(s), all groups */
	unsigned flags;		/* union of the pieces' flags */
	int weighted;
	size_t n_groups;	/* groups given */
	size_t n_groups_used;	/* fitted */
	size_t n_groups_nosigma; /* left out: no sigma while others have */
	long n_samples;		/* samples of the groups used */
	struct st_fit_piece piece[ST_FIT_MAX_PIECES];
};

/*
 * Fit the 'ngroups' groups 'g' (any order; duplicates allowed) as
 * described at the top of this file, into '*out'.  'opt' may be NULL
 * for the defaults.  When some groups have a sigma and others not, the
 * ones without are left out (counted in n_groups_nosigma).
 */
int st_fit_run(const struct st_fit_group *g, size_t ngroups,
	       const struct st_fit_options *opt, struct st_fit_result *out);

/*
 * Fit the given model 'f', 'g' (f != ST_FIT_ONE) to all of the groups,
 * as one piece, with no selection: for comparing a chosen model with
 * another.  -EDOM when the groups cannot determine the model (too few,
 * or the terms are collinear on them).
 */
int st_fit_one(const struct st_fit_group *g, size_t ngroups, int f,
	       int gfn, const struct st_fit_options *opt,
	       struct st_fit_piece *out);

/*
 * Predicted duration at 'p', 'd' (ns) and its standard error from the
 * coefficient covariance (may be NULL), using the piece whose range of
 * sizes holds 'd' (with a split, sizes below d_split go to piece 0).
 */
int st_fit_eval(const struct st_fit_result *fit, long p, double d,
		double *t_ns, double *se_ns);

/* Formatting flags. */
#define ST_FIT_FMT_CI 0x1	/* each coefficient as "(x +- half) unit" */

/*
 * Write the formula of 'pc' into 'buf' ('len' bytes, NUL-terminated,
 * truncated if short) as text with units, three significant digits,
 * e.g. "1.23 us + 450 ns*log2(p) + 0.8 ns/B*d".  Times are in ns, us,
 * ms or s so that the number is below 1000; per-byte costs in ps/B
 * (below 0.1 ns/B), ns/B (below 10 ns/B), else us/KiB or ms/KiB (1 KiB =
 * 1024 B).  Returns the length of the full text (as snprintf), or
 * -EINVAL.
 */
int st_fit_piece_format(const struct st_fit_piece *pc, unsigned flags,
			char *buf, size_t len);

/*
 * The same for a whole fit: one piece as above; two as
 * "d <= 32 KiB: <formula>; d >= 64 KiB: <formula>".
 */
int st_fit_format(const struct st_fit_result *fit, unsigned flags,
		  char *buf, size_t len);

/*
 * Q of 'pc' as text: "n/a" for an unweighted fit, "<0.001" below 0.001,
 * else two significant digits ("0.35").  Returns as snprintf.
 */
int st_fit_format_q(const struct st_fit_piece *pc, char *buf, size_t len);

#endif
