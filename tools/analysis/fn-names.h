/*
 * tools/analysis/fn-names.h: what a function id in a trace means, for the tools:
 * its MPI name, kind, family and byte class, from the ST_FN_LIST table
 * of gen/ops.h, and the names of ST_REC_MARK records.
 */
#ifndef ST_TOOLS_ANALYSIS_FN_NAMES_H
#define ST_TOOLS_ANALYSIS_FN_NAMES_H

#include <stddef.h>

/* One entry of ST_FN_LIST. */
struct st_fn_desc {
	const char *name;	/* "MPI_Allreduce" */
	int kind;		/* enum st_fn_kind */
	int family;		/* enum st_fn_family */
	int bytes;		/* enum st_bytes_class */
	unsigned flags;		/* ST_FNF_* */
};

/* Number of function ids, ST_FN_COUNT (ids run from 1 to this - 1). */
unsigned st_fn_count(void);

/* Entry of function id 'fn', or NULL when 'fn' is not a known id. */
const struct st_fn_desc *st_fn_desc(unsigned fn);

/*
 * rel[fn] = 1 for every function id of kind 'k1' or 'k2' (enum
 * st_fn_kind), 0 for the others: 'rel' has st_fn_count() entries.
 */
void st_fn_kinds(unsigned char *rel, int k1, int k2);

/*
 * Name of function id 'fn'; for an unknown id, "fn#<id>" written to
 * 'buf' (at least 16 bytes), which is returned.
 */
const char *st_fn_name(unsigned fn, char *buf, size_t len);

/*
 * What a blocking call that a whole group makes together is: a group
 * collective's CALL records carry the group's id in 'comm' and a
 * sequence number counted on it in 'seq', equal on every member, so one
 * instance matches across rank files (docs/recorded.md).
 */
enum st_group_coll {
	ST_GC_NONE = 0,
	ST_GC_COLL,	/* a blocking collective of MPI's collective chapter */
	ST_GC_WIN,	/* a window's: constructor (numbered on its
			   communicator), MPI_Win_fence, MPI_Win_free */
	ST_GC_FILE	/* a file's: MPI_File_open (numbered on its
			   communicator), MPI_File_close, and the blocking
			   collective file calls: every _all and _ordered,
			   set_view, set_size, preallocate, sync,
			   set_atomicity, seek_shared, and the _begin of a
			   split collective (where ROMIO does the work) */
};

/*
 * Which group collective function 'fn' is (enum st_group_coll), or
 * ST_GC_NONE: a nonblocking or persistent collective, a communicator
 * constructor, any other call.  Collectives over a window or a file
 * match, wait for their last member and cost what the table says as
 * the collective chapter's do.
 */
int st_fn_group_coll(unsigned fn);

/* Id of the function called 'name' (exact case), or 0 when none. */
unsigned st_fn_lookup(const char *name);

/* Name of mark 'mark' ("flush"...), or "mark#<id>" in 'buf' as above. */
const char *st_mark_name(unsigned mark, char *buf, size_t len);

/* Hash of the function table this program was built with. */
const char *st_fn_table_hash(void);

/*
 * Non-zero when a trace whose "fn_table" header value is 'trace_hash'
 * was written with another function table, so its ids may name other
 * functions.  A trace without the key (NULL) is taken to match.
 */
int st_fn_table_differs(const char *trace_hash);

struct st_reader;

/*
 * Open rank file 'path' as st_reader_open() does, for the tools: a
 * record whose function id is beyond this build's table is corrupt
 * (st_reader_set_fn_count()), never an index into a table.
 */
int st_fn_reader_open(struct st_reader **out, const char *path, char *err,
		      size_t errlen);

#endif
