/*
 * tools/analysis/io.h: MPI-IO per file, for 'synctrace report'.  An
 * open file is known by the COMM record MPI_File_open left on every
 * member (its id, equal on all of them, its path and access mode, the
 * communicator it was opened on); every call on it carries the id.
 * Each rank's records are read in file order, one rank after another:
 * per file, bytes read and written (a nonblocking read's at its DONE
 * record, a split collective's at its _begin for a write, its _end for a
 * read: docs/recorded.md), calls and time by function, and how much of
 * it went to the file's collective calls.  With synchronised clocks,
 * each instance of a file's collectives (MPI_File_open, MPI_File_close,
 * the _all, _ordered, set_view... calls) matched across ranks
 * (tools/analysis/imbalance.h) adds its waiting for the last member and
 * its time after the last arrival (st_io_instance()), as 'report' shows
 * for the collective chapter's.  MPI_File_delete calls go to the files
 * of that path.
 */
#ifndef ST_TOOLS_ANALYSIS_IO_H
#define ST_TOOLS_ANALYSIS_IO_H

#include <stddef.h>
#include <stdint.h>

struct st_event;
struct st_imb_done;
struct st_io;

/* One function's calls on a file, over ranks. */
struct st_io_call {
	uint16_t fn;
	uint64_t calls;
	uint64_t rbytes, wbytes;	/* bytes read, written */
	uint64_t time_ns;
};

struct st_io_file {
	uint64_t id;
	uint64_t comm;		/* the communicator it was opened on */
	char *path;		/* as the COMM record gives it; "" when none */
	int32_t amode;		/* ST_AMODE_* bits of the first rank seen */
	uint32_t size;		/* its group */
	int nranks;		/* ranks with its COMM record */
	uint64_t rbytes, wbytes;	/* over ranks */
	uint64_t reads, writes;	/* calls that read, that wrote */
	uint64_t calls, time_ns;	/* every call on it, open included */
	uint64_t coll_calls, coll_ns;	/* of them, its collectives' */
	uint64_t deletes;	/* MPI_File_delete calls of its path */
	/* In global time, from st_io_instance(). */
	uint64_t inst, inst_flagged;
	double wait_ns, after_ns;
	/* By function id, valid after st_io_files(). */
	struct st_io_call *fn;
	size_t nfn;
};

/* A new, empty analysis; NULL when out of memory. */
struct st_io *st_io_new(void);
void st_io_free(struct st_io *a);

/*
 * One record 'ev' of rank 'rank', in file order; 'in' is zero when it
 * lies outside the part of the run looked at (tools/analysis/phase.h):
 * it then counts nothing (a file's COMM record still makes it known).
 * Returns 0 or -ENOMEM.
 */
int st_io_add(struct st_io *a, int rank, const struct st_event *ev, int in);

/* The rank's records are over. */
void st_io_end_rank(struct st_io *a);

/* A collective instance matched in global time: if a file's, count it. */
void st_io_instance(struct st_io *a, const struct st_imb_done *d);

/*
 * The files in order of their ids, '*n' their number (NULL with 0 when
 * none, or out of memory).  Call it after every record and instance
 * was added; valid until the next call or st_io_free().
 */
const struct st_io_file *st_io_files(struct st_io *a, size_t *n);

#endif
