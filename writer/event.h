/*
 * writer/event.h: public; one trace record, as the interposer appends it
 * and as the reader returns it.  Records carry small integers (function
 * id, communicator id, ranks), never MPI handles: pmpi/ translates.
 */
#ifndef ST_WRITER_EVENT_H
#define ST_WRITER_EVENT_H

#include <stdint.h>

/* Kinds of record in a rank's stream. */
enum st_rec_kind {
	/*
	 * An intercepted MPI call: 'fn', 't0' (local entry) and 't1' (local
	 * exit) taken right around the PMPI call, 'site', 'rc', and the
	 * fields that apply to 'fn' (communicator, bytes, root, peer...).
	 * For a nonblocking or persistent-init call 'req' names the request.
	 * A one-sided call carries its window's id in 'comm' (sequence
	 * numbers in 'seq' for a fence or Win_free), the target in 'peer',
	 * the target displacement in 'offset', asserts and lock type in
	 * 'arg' (ST_ASSERT_*, ST_LOCK_*), and for Win_post and Win_start
	 * the group's ranks in the window in 'text' ("0 2-5", ending in
	 * " ..." past 64 KiB).  A file call
	 * carries its file's id in 'comm' ('seq' for collective ones), the
	 * offset in 'offset', a seek's whence in 'arg' (ST_SEEK_*);
	 * MPI_File_delete its path in 'text'.  A Pready* or Parrived: the
	 * request in 'req', the first partition in 'arg', a partition's
	 * bytes in 'tsize'.  MPI_Pcontrol: the level in 'arg'.
	 */
	ST_REC_CALL = 1,
	/*
	 * One instance of a persistent operation started by MPI_Start or
	 * MPI_Startall: 'fn' is the *_init function, 'comm' and 'seq' those
	 * of the init call, 'inst' counts starts of that request from 1,
	 * bytes as for the init, 'req' the request, 't0'/'t1' those of the
	 * start call.
	 */
	ST_REC_START = 2,
	/*
	 * Request 'req' completed inside the completion call 'fn' (MPI_Wait,
	 * MPI_Testall...) that ran from 't0' to 't1'.  For receives, 'peer',
	 * 'tag' and 'rbytes' come from the status.
	 */
	ST_REC_DONE = 3,
	/*
	 * Communicator 'comm' now exists on this rank: 'comm_size' (local
	 * group), 'rank' (this rank in it), 'remote_size' (0 unless an
	 * inter-communicator), 'parent' (communicator it was made from, 0
	 * when none), 'fn' the constructor, 't0'/'t1' of that call.  Also a
	 * window or an open file, which a group of ranks shares as it does
	 * a communicator ('fn' says which: a window constructor or
	 * MPI_File_open): its id, equal on every member, in 'comm', the
	 * communicator it was made on in 'parent'; a window's size in bytes
	 * on this rank in 'len' and displacement unit in 'tsize'; a file's
	 * path in 'text' and access mode in 'arg' (ST_AMODE_*).
	 */
	ST_REC_COMM = 4,
	/*
	 * Call site 'site' first seen: 'nframes' return addresses in
	 * 'frames', innermost first (frames[0] is the caller of MPI).
	 */
	ST_REC_SITE = 5,
	/*
	 * A loaded object (executable or shared library): 'addr' its load
	 * base, 'len' the size of its mapping, 'text' its path; enough to
	 * turn a frame into function and file:line offline.
	 */
	ST_REC_OBJECT = 6,
	/*
	 * Clock synchronisation: 'text' holds the sync record (format owned
	 * by sync/), 't0'/'t1' the time the synchronisation took.
	 */
	ST_REC_SYNC = 7,
	/*
	 * synctrace's own work on this rank ('fn' = ST_MARK_*), for example
	 * a buffer flush from 't0' to 't1', so analysis can leave it out.
	 */
	ST_REC_MARK = 8,
	ST_REC_MAX = 8
};

/* 'fn' values of ST_REC_MARK records. */
enum st_mark {
	ST_MARK_FLUSH = 1,	/* compress and write a chunk */
	ST_MARK_FINALIZE = 2,	/* synctrace's own finalize work */
	ST_MARK_COMM_REGISTER = 3, /* agreeing on a communicator id */
	ST_MARK_INIT = 4	/* synctrace's own MPI_Init work, after PMPI_Init */
};

/* Special values of 'root' and 'peer'. */
#define ST_RANK_NONE (-1)	/* field does not apply */
#define ST_RANK_ROOT (-2)	/* MPI_ROOT: the root side of an inter-comm */
#define ST_RANK_PROC_NULL (-3)	/* MPI_PROC_NULL */
#define ST_RANK_ANY (-4)	/* MPI_ANY_SOURCE not yet resolved */
#define ST_TAG_ANY (-1)		/* MPI_ANY_TAG not yet resolved */

/* Upper bound of 'nframes'. */
#define ST_MAX_FRAMES 64

/*
 * One record.  Fields that do not apply to a kind are zero (or
 * ST_RANK_NONE for 'root' and 'peer').  Timestamps are local integer
 * nanoseconds since an arbitrary per-rank origin given in the header.
 */
struct st_event {
	uint8_t kind;		/* enum st_rec_kind */
	uint16_t fn;		/* function id, gen/ops.h; or enum st_mark */
	uint16_t thread;	/* stream (thread) index within the rank */
	uint32_t site;		/* call-site id, 0 when unknown */
	int32_t rc;		/* MPI return code of the call */
	uint64_t t0, t1;	/* local entry and exit, ns */

	uint64_t comm;		/* communicator id, equal on every member */
	uint32_t comm_size;	/* size of its (local) group */
	uint64_t seq;		/* collective sequence number on 'comm', from 1 */
	uint32_t inst;		/* ST_REC_START: instance of a persistent request */
	int32_t root;		/* root rank in 'comm', or ST_RANK_* */
	int32_t peer;		/* point-to-point partner in 'comm', or ST_RANK_* */
	int32_t tag;		/* point-to-point tag */
	int32_t peer2;		/* Sendrecv*: the source, or ST_RANK_* */
	int32_t tag2;		/* Sendrecv*: the receive tag */
	uint64_t sbytes;	/* bytes this rank sends */
	uint64_t rbytes;	/* bytes this rank receives */
	uint32_t tsize;		/* size of one element of the main datatype */
	uint16_t op;		/* reduction op, enum st_reduce_op; 0 when n/a */
	uint64_t req;		/* request id (per rank, from 1), 0 when none */
	int32_t arg;		/* a scalar argument, see ST_REC_CALL, 0 when none */
	int64_t offset;		/* target displacement or file offset */

	/* ST_REC_COMM */
	int32_t rank;		/* this rank in 'comm' */
	uint32_t remote_size;	/* remote group size of an inter-comm, else 0 */
	uint64_t parent;	/* communicator it was made from */

	/* ST_REC_SITE */
	uint32_t nframes;
	uint64_t frames[ST_MAX_FRAMES];

	/* ST_REC_OBJECT, ST_REC_SYNC */
	uint64_t addr, len;
	uint32_t text_len;
	const char *text;	/* not NUL-terminated; owner: see writer.h, reader.h */
};

/* 'arg' of a one-sided synchronisation: its assert and lock type. */
#define ST_ASSERT_NOCHECK 0x01
#define ST_ASSERT_NOSTORE 0x02
#define ST_ASSERT_NOPUT 0x04
#define ST_ASSERT_NOPRECEDE 0x08
#define ST_ASSERT_NOSUCCEED 0x10
#define ST_ASSERT_OTHER 0x80	/* bits MPI does not define */
#define ST_LOCK_SHARED 0x100
#define ST_LOCK_EXCLUSIVE 0x200

/*
 * 'arg' of an ST_REC_DONE record: the receive was cancelled (its status
 * said so, MPI_Test_cancelled), so no message came: 'peer' and 'tag' are
 * those it was posted with, 'rbytes' 0.  (Sends are not checked: MPI 4.0
 * deprecates cancelling them, and their status is seldom asked for.)
 */
#define ST_DONE_CANCELLED 0x01

/* 'arg' of an open file's ST_REC_COMM record: its access mode. */
#define ST_AMODE_RDONLY 0x01
#define ST_AMODE_WRONLY 0x02
#define ST_AMODE_RDWR 0x04
#define ST_AMODE_CREATE 0x08
#define ST_AMODE_EXCL 0x10
#define ST_AMODE_DELETE_ON_CLOSE 0x20
#define ST_AMODE_UNIQUE_OPEN 0x40
#define ST_AMODE_SEQUENTIAL 0x80
#define ST_AMODE_APPEND 0x100

/* 'arg' of MPI_File_seek and MPI_File_seek_shared: whence. */
#define ST_SEEK_SET 1
#define ST_SEEK_CUR 2
#define ST_SEEK_END 3

/* Reduction operations, as recorded in 'op'. */
enum st_reduce_op {
	ST_OP_NONE = 0, ST_OP_MAX, ST_OP_MIN, ST_OP_SUM, ST_OP_PROD,
	ST_OP_LAND, ST_OP_BAND, ST_OP_LOR, ST_OP_BOR, ST_OP_LXOR, ST_OP_BXOR,
	ST_OP_MINLOC, ST_OP_MAXLOC, ST_OP_REPLACE, ST_OP_NO_OP,
	ST_OP_USER		/* a user-defined operation */
};

/* Name of 'op' ("sum", "user"...), "?" when out of range. */
const char *st_reduce_op_name(unsigned op);

/* Name of record kind 'kind' ("call", "start"...), "?" when out of range. */
const char *st_rec_kind_name(unsigned kind);

/*
 * Set every field of 'ev' to its "does not apply" value; 'frames' beyond
 * 'nframes' (here 0) is left as it was, being never read.
 */
void st_event_clear(struct st_event *ev);

#endif
