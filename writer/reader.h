/*
 * writer/reader.h: public; reads trace files and run directories for
 * every tool.  A reader never trusts its input: a truncated, corrupted or
 * foreign file gives -EBADMSG and a message naming the file and the byte
 * offset, never a crash.  A file whose writer was killed yields every
 * whole chunk and then reports itself truncated.
 */
#ifndef ST_WRITER_READER_H
#define ST_WRITER_READER_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_kv;
struct st_reader;

/*
 * Open the trace file 'path' and read its header.  Returns 0, or a
 * negative errno with *out NULL and, if 'err' is not NULL, a message in
 * 'err' (at most 'errlen' bytes) such as "'x/rank-0.st': not a synctrace
 * trace (bad magic at offset 0)".
 */
int st_reader_open(struct st_reader **out, const char *path, char *err,
		   size_t errlen);

/* The same over 'len' bytes at 'buf' (not copied), called 'name'. */
int st_reader_open_mem(struct st_reader **out, const void *buf, size_t len,
		       const char *name, char *err, size_t errlen);

/* Format version of the file. */
unsigned st_reader_version(const struct st_reader *r);

/* Header entries, in file order; '*n' gets their number. */
const struct st_kv *st_reader_header(const struct st_reader *r, size_t *n);

/* Value of header entry 'key', or NULL. */
const char *st_reader_get(const struct st_reader *r, const char *key);

/*
 * Decode the next record into 'ev'.  Returns 1 for a record, 0 at the
 * end of the file, or -EBADMSG with st_reader_error() saying what and
 * where.  'ev->frames' and 'ev->text' stay valid until the next call.
 * Records come in file order: chunk by chunk, so streams of different
 * threads interleave by chunk.
 */
int st_reader_next(struct st_reader *r, struct st_event *ev);

/*
 * Take function ids 'n' and above as corrupt from now on: a call,
 * start, done or comm record whose 'fn' is not below 'n' gives -EBADMSG
 * ("unknown function id 65535 in record 3 of 40 in chunk at offset
 * 1234").  The reader does not know the function table (gen/ops.h);
 * the tools do and say so here, so no id reaches them that would index
 * past their tables.  0, the default, takes any id.
 */
void st_reader_set_fn_count(struct st_reader *r, unsigned n);

/* Non-zero when the file ended inside a chunk (its writer was killed). */
int st_reader_truncated(const struct st_reader *r);

/* Byte offset in the file of the chunk being decoded. */
uint64_t st_reader_offset(const struct st_reader *r);

/* The last error message, "" when none. */
const char *st_reader_error(const struct st_reader *r);

void st_reader_close(struct st_reader *r);

/*
 * A run directory: the per-rank files 'rank-N.st' and the index file
 * 'synctrace.run' (key=value lines written by rank 0: nranks, cmdline,
 * start time; 'complete=1' once every rank has finished).
 */
struct st_run;

/* Name of the index file and of rank 'rank's file, as written by pmpi/. */
#define ST_RUN_INDEX "synctrace.run"
#define ST_RUN_RANK_FMT "rank-%d.st"

/*
 * Open run directory 'dir'.  Returns 0 or a negative errno with a message
 * in 'err' ("'dir': not a synctrace run (no synctrace.run)"): -ENOENT
 * without an index, -EBADMSG for a malformed index or one without a
 * valid 'nranks' (1..2^22).  A later line overrides an earlier one with
 * the same key.  The rank files present are checked against the index
 * (writer/run.c): -EBADMSG also when there is none, when one is beyond
 * 'nranks', or when one's header gives another run_id, rank or size
 * (files of two runs, an edited index); a file whose header cannot be
 * read is left to whoever reads it.  Missing rank files are allowed.
 */
int st_run_open(struct st_run **out, const char *dir, char *err,
		size_t errlen);

/* Number of ranks the index declares. */
int st_run_nranks(const struct st_run *run);

/* Value of index entry 'key', or NULL. */
const char *st_run_get(const struct st_run *run, const char *key);

/*
 * Path of rank 'rank's trace file (it may be missing on disk), valid
 * until st_run_close(); NULL when 'rank' is out of range or memory ran
 * out.  Not thread-safe: the path is made on first use.
 */
const char *st_run_rank_path(const struct st_run *run, int rank);

void st_run_close(struct st_run *run);

#endif
