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
 * Name of function id 'fn'; for an unknown id, "fn#<id>" written to
 * 'buf' (at least 16 bytes), which is returned.
 */
const char *st_fn_name(unsigned fn, char *buf, size_t len);

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
