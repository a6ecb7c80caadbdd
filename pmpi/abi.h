/*
 * pmpi/abi.h: what the interposer knows of the handles of the MPI it is
 * built for, which is all that differs between its builds beside what
 * wrappers.def says.  MPICH's handles (and those of its ABI: Intel MPI,
 * Cray MPICH, MVAPICH) are int, with the kind of object and, for a
 * builtin datatype, its size in the bits; Open MPI's are pointers to
 * objects, the predefined ones globals of libmpi.  pmpi/abi.c tells
 * which MPI the process runs (st_foreign) and finds the predefined
 * objects of Open MPI at load.
 */
#ifndef ST_PMPI_ABI_H
#define ST_PMPI_ABI_H

#include <mpi.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * A handle as an integer, for hashing and for snapshots that are turned
 * back into handles: either kind fits 64 bits (an int is sign-extended,
 * and cast back unchanged).
 */
#define ST_HANDLE_KEY(h) ((uint64_t)(uintptr_t)(h))

/*
 * Look the process's MPI up (at load, and again at MPI_Init, when a
 * library loaded since may have brought one) and set st_foreign when it
 * is not the one this build is for; warns once when it sets it.
 * Also finds what st_type_builtin() needs.  Returns st_foreign.
 */
int st_abi_check(void);
/*
 * Set while the library's constructor runs: only then may st_abi_check()
 * start the program again without the library (before main), when the
 * other MPI comes after this build's in the lookup order.
 */
extern int st_in_constructor;

/*
 * Whether the program's own executable defines MPI_Init or PMPI_Init in
 * its symbol tables, and an MPI library's own initialisation with them
 * (not only a layer of wrappers of its own): MPI linked into it
 * statically, whose calls no preloaded library can interpose.  0 also
 * when it cannot tell (a stripped executable).
 */
int st_exe_has_mpi(void);

#if defined(OPEN_MPI)

#if OMPI_MAJOR_VERSION < 5
/*
 * Open MPI 4 has no Sessions (MPI 4.0): the type names a handle the
 * wrappers' argument struct can hold, which no call of it ever fills
 * ('mpi openmpi' lacks every MPI_Session_* entry in wrappers.def).
 */
typedef struct st_no_session *MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0)
#define ST_HAVE_SESSIONS 0
#else
#define ST_HAVE_SESSIONS 1
#endif

/*
 * libmpi's writable data, where the predefined datatypes live, and the
 * program's, where those it names live (copy relocations: pmpi/abi.c).
 */
extern uintptr_t st_ompi_data_lo, st_ompi_data_hi, st_ompi_exe_lo,
	st_ompi_exe_hi;

/* A datatype handle that PMPI_Type_size_x may be asked about. */
static inline int st_type_valid(MPI_Datatype t)
{
	return t && t != MPI_DATATYPE_NULL;
}

/* A predefined datatype: its size never changes. */
static inline int st_type_builtin(MPI_Datatype t)
{
	uintptr_t a = (uintptr_t)t;

	return (a >= st_ompi_data_lo && a < st_ompi_data_hi) ||
	       (a >= st_ompi_exe_lo && a < st_ompi_exe_hi);
}

/* The size of a valid datatype 't', or 0 when MPI cannot say. */
static inline uint64_t st_type_size_of(MPI_Datatype t)
{
	MPI_Count n = 0;

	if (PMPI_Type_size_x(t, &n) != MPI_SUCCESS || n < 0)
		return 0;
	return (uint64_t)n;
}

/*
 * Open MPI hands out the one request ompi_request_empty for operations
 * that complete at once (to or from MPI_PROC_NULL, say): such handles
 * are not unique.
 */
extern struct ompi_predefined_request_t ompi_request_empty
	__attribute__((visibility("default")));	/* libmpi's */
static inline int st_req_shared(MPI_Request h)
{
	return h == (MPI_Request)&ompi_request_empty;
}

/* Bytes a status says were received; 0 and '*n' set, or -1. */
static inline int st_status_bytes_of(const MPI_Status *st, MPI_Count *n)
{
	return PMPI_Get_elements_x(st, MPI_BYTE, n) == MPI_SUCCESS ? 0 : -1;
}

/* Whether a completed request's status says it was cancelled. */
static inline int st_status_cancelled(const MPI_Status *st)
{
	int flag = 0;

	return PMPI_Test_cancelled(st, &flag) == MPI_SUCCESS && flag;
}

#else /* MPICH and its ABI */

#define ST_HAVE_SESSIONS 1	/* MPICH 4.0 */

/*
 * MPICH handles: bits 30..31 the kind (0 invalid, 1 builtin), bits 26..29
 * the object type (3 for datatypes).  Builtins carry their size in bits
 * 8..15, and never change.
 */
static inline int st_type_valid(MPI_Datatype t)
{
	unsigned h = (unsigned)t;

	/*
	 * Anything but a datatype would make PMPI_Type_size_x call the
	 * (fatal) error handler: it is not ours to ask about.
	 */
	return (h & 0x3c000000u) == 0x0c000000u && (h >> 30) != 0 &&
	       t != MPI_DATATYPE_NULL;
}

static inline int st_type_builtin(MPI_Datatype t)
{
	unsigned h = (unsigned)t;

	return (h & 0x3c000000u) == 0x0c000000u && h >> 30 == 1;
}

static inline uint64_t st_type_size_of(MPI_Datatype t)
{
	MPI_Count n = 0;

	if (st_type_builtin(t))
		return ((unsigned)t >> 8) & 0xff;
	if (PMPI_Type_size_x(t, &n) != MPI_SUCCESS || n < 0)
		return 0;
	return (uint64_t)n;
}

/*
 * MPICH gives every operation that completed at once the same builtin
 * handle (0x6c000001 for a send, for instance).
 */
static inline int st_req_shared(MPI_Request h)
{
	return ((unsigned)h >> 30) == 1;
}

static inline int st_status_bytes_of(const MPI_Status *st, MPI_Count *n)
{
	return PMPI_Get_count_c(st, MPI_BYTE, n) == MPI_SUCCESS ? 0 : -1;
}

/*
 * Whether a completed request's status says it was cancelled: MPICH keeps
 * the flag in bit 0 of count_hi_and_cancelled (its
 * MPIR_STATUS_GET_CANCEL_BIT()), read directly as its count is
 * (pmpi/call.c, status_bytes()).
 */
static inline int st_status_cancelled(const MPI_Status *st)
{
	return st->count_hi_and_cancelled & 1;
}

#endif

#pragma GCC visibility pop

#endif
