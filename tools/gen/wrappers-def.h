/*
 * tools/gen/wrappers-def.h: reads wrappers.def, the one place that says what
 * synctrace wraps and what each parameter means (the syntax is described
 * at the top of wrappers.def).  st_def_parse() turns the text into a list
 * of entries and checks each against the rules a wrapper depends on, so
 * tools/gen only has to transcribe.  Linked into the unit tests,
 * which feed it strings; it never prints or exits.
 */
#ifndef ST_TOOLS_GEN_WRAPPERS_DEF_H
#define ST_TOOLS_GEN_WRAPPERS_DEF_H

#include <stddef.h>

/*
 * Parameter roles: the field names of 'struct st_args' in pmpi/hooks.h.
 * A parameter without a role ('-' in wrappers.def) is ST_ROLE_NONE.
 */
enum st_def_role {
	ST_ROLE_NONE = 0,
	ST_ROLE_SBUF,
	ST_ROLE_RBUF,
	ST_ROLE_BUF,
	ST_ROLE_SCOUNT,
	ST_ROLE_RCOUNT,
	ST_ROLE_COUNT,
	ST_ROLE_STYPE,
	ST_ROLE_RTYPE,
	ST_ROLE_TYPE,
	ST_ROLE_SCOUNTS,
	ST_ROLE_RCOUNTS,
	ST_ROLE_STYPES,
	ST_ROLE_RTYPES,
	ST_ROLE_ROOT,
	ST_ROLE_OP,
	ST_ROLE_COMM,
	ST_ROLE_NEWCOMM,
	ST_ROLE_COMMP,
	ST_ROLE_PEER,
	ST_ROLE_TAG,
	ST_ROLE_PEER2,
	ST_ROLE_TAG2,
	ST_ROLE_REQUEST,
	ST_ROLE_REQUESTS,
	ST_ROLE_NREQ,
	ST_ROLE_INDEX,
	ST_ROLE_INDICES,
	ST_ROLE_OUTCOUNT,
	ST_ROLE_FLAG,
	ST_ROLE_STATUS,
	ST_ROLE_STATUSES,
	ST_ROLE_PROVIDED,
	ST_ROLE_WIN,
	ST_ROLE_NEWWIN,
	ST_ROLE_WINP,
	ST_ROLE_FILE,
	ST_ROLE_NEWFILE,
	ST_ROLE_FILEP,
	ST_ROLE_PATH,
	ST_ROLE_OFFSET,
	ST_ROLE_ASSERT,
	ST_ROLE_LOCKTYPE,
	ST_ROLE_AMODE,
	ST_ROLE_WHENCE,
	ST_ROLE_LEVEL,
	ST_ROLE_GROUP,
	ST_ROLE_PARTITION,
	ST_ROLE_PARTITION2,
	ST_ROLE_PARTITIONS,
	ST_ROLE_PARTLIST,
	ST_ROLE_REQ,
	ST_ROLE_MESSAGE,
	ST_ROLE_SESSION,
	ST_ROLE_MAX		/* number of roles, ST_ROLE_NONE included */
};

/*
 * The type notation that differs between the int form and the _c form
 * of one entry (MPICH's POLY* idea): POLYCOUNT is int, or MPI_Count in
 * the _c form; POLYDISP is int, or MPI_Aint in the _c form.
 */
enum st_def_poly {
	ST_POLY_NONE = 0,
	ST_POLY_COUNT,
	ST_POLY_DISP
};

/* Flags of an entry (not the ST_FNF_* of a function id). */
#define ST_DEF_LARGE 0x1	/* the entry also yields the _c form */
#define ST_DEF_F08 0x2		/* mpi_f08 calls its PMPI_ name directly */
#define ST_DEF_ROOTED 0x4	/* has a root argument */
#define ST_DEF_SNAP 0x8		/* calls st_complete_pre() before the call */
#define ST_DEF_SESSION 0x10	/* init or finalize of an MPI session */
#define ST_DEF_COLLECTIVE 0x20	/* collective over its window or file */
#define ST_DEF_OUTSIDE 0x40	/* its new communicator may reach outside */
#define ST_DEF_NOSTATUS 0x80	/* MPI completes it without a status */
#define ST_DEF_TARGET 0x100	/* a one-sided call with a target rank */
#define ST_DEF_OFFSET 0x200	/* has an offset role */
#define ST_DEF_SUBGROUP 0x400	/* collective over a group of its comm only */
#define ST_DEF_NEWEST 0x800	/* its one request: the newest of a handle */

/* One parameter of an entry. */
struct st_def_param {
	char *name;		/* "sendcounts" */
	int role;		/* enum st_def_role */
	int poly;		/* enum st_def_poly */
	int varargs;		/* the "..." of a variadic function (name
				   and both decls "..."): declared, never
				   passed on */
	/*
	 * The C declaration in the int form [0] and in the _c form [1],
	 * e.g. "const int sendcounts[]" and "const MPI_Count sendcounts[]";
	 * the same text twice when 'poly' is ST_POLY_NONE.
	 */
	char *decl[2];
};

/* One entry: an MPI function, and its _c form when ST_DEF_LARGE. */
struct st_def_fn {
	char *name;		/* "MPI_Allreduce" */
	char *name_c;		/* "MPI_Allreduce_c", or NULL without _c form */
	int line;		/* line of its 'fn' header in the text */
	int kind;		/* enum st_fn_kind (writer/fn-info.h) */
	int family;		/* enum st_fn_family */
	int bytes;		/* enum st_bytes_class */
	unsigned flags;		/* ST_DEF_* */
	/*
	 * The nonblocking twin of a blocking call ("MPI_Iallreduce"; its _c
	 * form is the twin of the _c form), or NULL.  'twin_f08' is set
	 * when the twin is itself an entry flagged f08, so it is reached
	 * through ST_REAL().
	 */
	char *twin;
	int twin_f08;
	struct st_def_param *params;
	size_t nparams;
};

/* A list of words of an 'mpi' block. */
struct st_def_words {
	char **v;
	size_t n;
};

/*
 * One MPI that synctrace is built for: an 'mpi' block of wrappers.def
 * (the syntax is described there).  What one MPI lacks or spells
 * otherwise is said here; function ids and gen/ops.h are the same for
 * every MPI, so that one set of tools reads the traces of all.
 */
struct st_def_mpi {
	char *name;		/* "openmpi" */
	int line;		/* line of its 'mpi' header */
	int pmpi_all;		/* 'pmpi all': define PMPI_X of every entry */
	int no_large;		/* 'large none': no _c forms */
	char *marker;		/* 'marker SYMBOL', or NULL */
	struct st_def_words fortran;	/* 'fortran LIB...' */
	struct st_def_words headers;	/* 'header FILE...' */
	struct st_def_words lacks;	/* 'lacks NAME...' */
	struct st_def_words renames;	/* 'as NAME REAL': pairs */
};

/*
 * A function listed as deliberately not traced ('untraced REASON
 * NAME...'), with its reason, a word of a fixed vocabulary
 * (st_def_reason_ok()).
 */
struct st_def_untraced {
	char *name;		/* "MPI_Comm_rank" */
	char *reason;		/* "query" */
	int line;
};

/* A parsed wrappers.def; entries, untraced names and MPIs in file order. */
struct st_def {
	struct st_def_fn *fns;
	size_t nfns;
	struct st_def_untraced *untraced;
	size_t nuntraced;
	struct st_def_mpi *mpis;
	size_t nmpis;
};

/* Where and why parsing failed. */
struct st_def_error {
	int line;		/* 1-based line, 0 when not about a line */
	char msg[256];		/* "unknown role 'sbuff'" */
};

/*
 * Parse the NUL-terminated text 'text' into 'def' (which the caller
 * releases with st_def_release() after success).  Returns 0; -EINVAL
 * for a malformed or inconsistent entry, with 'err' saying where and
 * why; -ENOMEM.  On failure 'def' is left empty.
 */
int st_def_parse(struct st_def *def, const char *text,
		 struct st_def_error *err);

/* Free what st_def_parse() allocated and empty 'def'. */
void st_def_release(struct st_def *def);

/*
 * Index in 'fn->params' of the parameter with role 'role', or -1.
 * Every role but ST_ROLE_NONE occurs at most once in an entry.
 */
int st_def_find_role(const struct st_def_fn *fn, int role);

/* Entry called 'name' (int form only), or NULL. */
const struct st_def_fn *st_def_find(const struct st_def *def,
				    const char *name);

/* The 'mpi' block called 'name', or NULL. */
const struct st_def_mpi *st_def_find_mpi(const struct st_def *def,
					 const char *name);

/*
 * Whether 'mpi' has entry 'fn' (is not in its 'lacks' list).  A NULL
 * 'mpi' (a file without 'mpi' blocks) has every entry.
 */
int st_def_mpi_has(const struct st_def_mpi *mpi, const struct st_def_fn *fn);

/*
 * The C name under which 'mpi' has the int form of 'fn': the REAL of
 * an 'as' line ("MPIX_Barrier_init"), else the entry's own name.
 */
const char *st_def_mpi_name(const struct st_def_mpi *mpi,
			    const struct st_def_fn *fn);

/* Non-zero when 'word' is a reason an 'untraced' line may give. */
int st_def_reason_ok(const char *word);

/* Name of role 'role' as wrappers.def spells it ("sbuf", "-"). */
const char *st_def_role_name(int role);

/*
 * Enum constant of a kind, family or bytes class, as gen/ops.h spells
 * it ("ST_KIND_COLL", "ST_FAM_BLOCKING", "ST_BYTES_ALLREDUCE"); NULL for
 * an unknown value.
 */
const char *st_def_kind_enum(int kind);
const char *st_def_family_enum(int family);
const char *st_def_bytes_enum(int bytes);

#endif
