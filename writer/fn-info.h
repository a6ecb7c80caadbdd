/*
 * writer/fn-info.h: public; the vocabulary that says what a function id
 * means.  wrappers.def names these values, tools/gen writes
 * them into the ST_FN_LIST table of gen/ops.h, and the interposer and
 * the tools read them from there.  Values are stored in traces only
 * through the function id, so reordering them does not change a trace.
 */
#ifndef ST_WRITER_FN_INFO_H
#define ST_WRITER_FN_INFO_H

/* What kind of call a function is. */
enum st_fn_kind {
	ST_KIND_COLL = 1,	/* a collective operation (the 129) */
	ST_KIND_P2P,		/* point-to-point send, receive or probe */
	ST_KIND_COMPLETE,	/* Wait*, Test*, Start, Startall, Request_free */
	ST_KIND_COMM,		/* communicator constructor or Comm_free */
	ST_KIND_INIT,		/* MPI_Init, MPI_Init_thread, MPI_Session_init */
	ST_KIND_FINALIZE,	/* MPI_Finalize, MPI_Session_finalize */
	ST_KIND_WIN,		/* window constructor or MPI_Win_free */
	ST_KIND_RMA,		/* one-sided communication or synchronisation */
	ST_KIND_FILE,		/* MPI_File_open, MPI_File_close, MPI_File_delete */
	ST_KIND_IO,		/* any other call on an open file */
	ST_KIND_PART,		/* Pready*, Parrived: partitions of a request */
	ST_KIND_PHASE,		/* MPI_Pcontrol: a phase marker */
	ST_KIND_MAX = ST_KIND_PHASE
};

/* How a call's operation completes. */
enum st_fn_family {
	ST_FAM_BLOCKING = 1,	/* done when the call returns */
	ST_FAM_NONBLOCKING,	/* I*: done at the Wait/Test that completes 'req' */
	ST_FAM_PERSISTENT,	/* *_init: each Start is an instance, done at Wait/Test */
	ST_FAM_LOCAL,		/* no operation of its own (Wait, Comm_free...) */
	ST_FAM_SPLIT,		/* *_begin: done at the matching *_end call */
	ST_FAM_EPOCH		/* Put, Get...: done at the window's next
				   synchronisation (fence, complete, unlock,
				   flush...) */
};

/*
 * How the bytes this rank sends and receives are counted (pmpi/bytes.c
 * has the formulas and README.md the table).
 */
enum st_bytes_class {
	ST_BYTES_NONE = 0,
	ST_BYTES_BARRIER,
	ST_BYTES_BCAST,
	ST_BYTES_GATHER,
	ST_BYTES_GATHERV,
	ST_BYTES_SCATTER,
	ST_BYTES_SCATTERV,
	ST_BYTES_ALLGATHER,
	ST_BYTES_ALLGATHERV,
	ST_BYTES_ALLTOALL,
	ST_BYTES_ALLTOALLV,
	ST_BYTES_ALLTOALLW,
	ST_BYTES_REDUCE,
	ST_BYTES_ALLREDUCE,
	ST_BYTES_REDUCE_SCATTER,
	ST_BYTES_REDUCE_SCATTER_BLOCK,
	ST_BYTES_SCAN,		/* MPI_Scan and MPI_Exscan */
	ST_BYTES_NBR_ALLGATHER,
	ST_BYTES_NBR_ALLGATHERV,
	ST_BYTES_NBR_ALLTOALL,
	ST_BYTES_NBR_ALLTOALLV,
	ST_BYTES_NBR_ALLTOALLW,
	ST_BYTES_SEND,		/* count * size(type) sent to 'peer' */
	ST_BYTES_RECV,		/* bytes the status says arrived */
	ST_BYTES_SENDRECV,	/* a send and a receive */
	ST_BYTES_SENDRECV_REPLACE,
	ST_BYTES_PUT,		/* origin count * size sent to the target */
	ST_BYTES_GET,		/* origin count * size received from it */
	ST_BYTES_ACC,		/* Accumulate: as Put */
	ST_BYTES_GET_ACC,	/* Get_accumulate: origin sent, result received */
	ST_BYTES_FETCH_OP,	/* Fetch_and_op: one element each way */
	ST_BYTES_CAS,		/* Compare_and_swap: two elements out, one back */
	ST_BYTES_READ,		/* bytes the status says were read */
	ST_BYTES_WRITE,		/* count * size written */
	ST_BYTES_PSEND,		/* partitions * count * size, the whole buffer */
	ST_BYTES_PRECV,
	ST_BYTES_PREADY,	/* the partitions made ready (pmpi/part.c) */
	ST_BYTES_PARRIVED,	/* the partition that arrived (pmpi/part.c) */
	ST_BYTES_CLASS_MAX
};

/* Flags of a function in ST_FN_LIST. */
#define ST_FNF_LARGE 0x1	/* the large-count _c form */
#define ST_FNF_F08 0x2		/* mpi_f08 calls its PMPI_ name directly */
#define ST_FNF_ROOTED 0x4	/* has a root argument */
#define ST_FNF_REPEAT 0x8	/* scalar arguments: the wrapper tries the
				   interposer's repeat path */
#define ST_FNF_SESSION 0x10	/* init or finalize of an MPI session */
#define ST_FNF_COLLECTIVE 0x20	/* collective over its window or file:
				   numbered on it as on a communicator */
#define ST_FNF_OUTSIDE 0x40	/* its new inter-communicator may reach
				   processes outside the job */
#define ST_FNF_NOSTATUS 0x80	/* MPI completes it without a status */
#define ST_FNF_TARGET 0x100	/* a one-sided call with a target rank */
#define ST_FNF_OFFSET 0x200	/* has a file offset, size or target
				   displacement ('offset' in its record) */
#define ST_FNF_SUBGROUP 0x400	/* a constructor collective over a group
				   of its comm only: not numbered on comm */

#endif
