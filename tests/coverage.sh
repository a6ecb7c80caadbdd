#!/bin/sh
#
# tests/coverage.sh: the coverage gate.  Every MPI_ function MPICH's mpi.h
# declares must be in wrappers.def, either wrapped (an 'fn' entry, int or
# _c form) or listed as deliberately not traced (an 'untraced' line with
# its reason); the gate fails, naming each, on a function that is
# neither, so a newer MPICH cannot add calls that pass unseen.  It also
# fails if wrappers.def names a function mpi.h does not declare; if a
# collective (MPI 4.0 has 129) or a required entry point is untraced
# rather than wrapped; if fewer functions or collectives are found than
# MPICH 4.0 has (a broken pattern must not pass); and, when MPICH's
# Fortran bindings library is found, if a wrapped function that its
# mpi_f08 bindings call as PMPI_ directly is not flagged f08.
#
# A function is a name that mpi.h declares both as MPI_NAME( and as
# PMPI_NAME( (so a typedef such as QMPI's 'MPI_Aint (QMPI_...)' is not
# taken for one), over the preprocessed header.
#
#   BUILD=build MPICC=mpicc.mpich sh tests/coverage.sh
#
# Exit 0 on success, 1 on failure, 77 (skip) without mpicc.mpich.

LC_ALL=C
export LC_ALL
BUILD=${BUILD:-build}
MPICC=${MPICC:-mpicc.mpich}
DEF=${DEF:-wrappers.def}
GEN=$BUILD/gen-wrappers
MIN_COLL=129
MIN_ALL=620

# The collectives of MPI 4.0, by stem: 17 blocking, their I* forms,
# 5 neighbourhood and their I* forms; any of them with _init and _c.
COLL_RE='^MPI_(I?(allgatherv?|allreduce|alltoall[vw]?|barrier|bcast|exscan'
COLL_RE="$COLL_RE"'|gatherv?|reduce|reduce_scatter(_block)?|scan|scatterv?)'
COLL_RE="$COLL_RE"'|I?neighbor_(allgatherv?|alltoall[vw]?))(_init)?(_c)?$'

# What must be wrapped, not merely listed (the _c forms included where
# mpi.h has them, see OPTIONAL).
REQUIRED='MPI_Init MPI_Init_thread MPI_Finalize
MPI_Wait MPI_Waitall MPI_Waitany MPI_Waitsome MPI_Test MPI_Testall
MPI_Testany MPI_Testsome MPI_Start MPI_Startall MPI_Request_free
MPI_Comm_dup MPI_Comm_dup_with_info MPI_Comm_idup MPI_Comm_idup_with_info
MPI_Comm_split MPI_Comm_split_type MPI_Comm_create MPI_Comm_create_group
MPI_Intercomm_create MPI_Intercomm_merge MPI_Cart_create MPI_Cart_sub
MPI_Graph_create MPI_Dist_graph_create MPI_Dist_graph_create_adjacent
MPI_Comm_free MPI_Send MPI_Recv MPI_Isend MPI_Irecv MPI_Sendrecv MPI_Ssend
MPI_Rsend MPI_Bsend MPI_Issend MPI_Sendrecv_replace MPI_Probe MPI_Iprobe
MPI_Irsend MPI_Ibsend MPI_Send_init MPI_Bsend_init MPI_Ssend_init
MPI_Rsend_init MPI_Recv_init MPI_Mprobe MPI_Improbe MPI_Mrecv MPI_Imrecv
MPI_Win_create MPI_Win_allocate MPI_Win_allocate_shared
MPI_Win_create_dynamic MPI_Win_free MPI_Win_fence MPI_Win_post
MPI_Win_start MPI_Win_complete MPI_Win_wait MPI_Win_test MPI_Win_lock
MPI_Win_unlock MPI_Win_lock_all MPI_Win_unlock_all MPI_Win_flush
MPI_Win_flush_all MPI_Win_flush_local MPI_Win_flush_local_all MPI_Win_sync
MPI_Put MPI_Get MPI_Accumulate MPI_Get_accumulate MPI_Fetch_and_op
MPI_Compare_and_swap MPI_Rput MPI_Rget MPI_Raccumulate MPI_Rget_accumulate
MPI_File_open MPI_File_close MPI_File_delete MPI_File_set_size
MPI_File_preallocate MPI_File_sync MPI_File_set_view MPI_File_read
MPI_File_read_at MPI_File_read_all MPI_File_read_at_all MPI_File_write
MPI_File_write_at MPI_File_write_all MPI_File_write_at_all
MPI_File_read_shared MPI_File_write_shared MPI_File_read_ordered
MPI_File_write_ordered MPI_File_iread MPI_File_iwrite MPI_File_iread_at
MPI_File_iwrite_at MPI_File_iread_shared MPI_File_iwrite_shared
MPI_File_read_all_begin MPI_File_read_all_end MPI_File_write_all_begin
MPI_File_write_all_end MPI_Pcontrol'
# Wrapped when mpi.h has them.
OPTIONAL='MPI_Comm_create_from_group MPI_Intercomm_create_from_groups
MPI_Send_c MPI_Recv_c MPI_Isend_c MPI_Irecv_c MPI_Sendrecv_c MPI_Ssend_c
MPI_Rsend_c MPI_Bsend_c MPI_Issend_c MPI_Sendrecv_replace_c
MPI_Psend_init MPI_Precv_init MPI_Pready MPI_Pready_range MPI_Pready_list
MPI_Parrived MPI_Session_init MPI_Session_finalize MPI_Isendrecv
MPI_Isendrecv_replace MPI_File_iread_all MPI_File_iwrite_all
MPI_File_iread_at_all MPI_File_iwrite_at_all MPI_Comm_spawn
MPI_Comm_spawn_multiple MPI_Comm_accept MPI_Comm_connect MPI_Comm_join
MPI_Comm_disconnect'

if ! command -v "$MPICC" >/dev/null 2>&1; then
	echo "coverage: SKIP: '$MPICC' not found"
	exit 77
fi
if ! [ -x "$GEN" ]; then
	echo "coverage: '$GEN' is missing; run 'make $GEN' first" >&2
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! echo '#include <mpi.h>' | "$MPICC" -E -x c - >"$tmp/mpi.i"; then
	echo "coverage: cannot preprocess mpi.h with '$MPICC'" >&2
	exit 1
fi

# Names followed by '(', wherever the declaration breaks its lines: the
# MPI_ ones (not the tail of PMPI_...) and the PMPI_ ones, without P.
tr '\n' ' ' <"$tmp/mpi.i" >"$tmp/mpi.line"
grep -oE '(^|[^A-Za-z0-9_])MPI_[A-Za-z0-9_]+[[:space:]]*\(' "$tmp/mpi.line" |
	sed -E 's/^[^M]*//; s/[[:space:]]*\($//' | sort -u >"$tmp/mpi.names"
grep -oE '(^|[^A-Za-z0-9_])PMPI_[A-Za-z0-9_]+[[:space:]]*\(' "$tmp/mpi.line" |
	sed -E 's/^[^P]*P//; s/[[:space:]]*\($//' | sort -u >"$tmp/pmpi.names"
comm -12 "$tmp/mpi.names" "$tmp/pmpi.names" >"$tmp/declared"
grep -iE "$COLL_RE" "$tmp/declared" >"$tmp/coll"

if ! "$GEN" --list "$DEF" >"$tmp/wrapped.raw" ||
   ! "$GEN" --list-untraced "$DEF" >"$tmp/untraced.raw" ||
   ! "$GEN" --list-pmpi "$DEF" >"$tmp/pmpi.raw"; then
	echo "coverage: '$GEN' cannot list '$DEF'" >&2
	exit 1
fi
sort -u "$tmp/wrapped.raw" >"$tmp/wrapped"
cut -d' ' -f1 "$tmp/untraced.raw" | sort -u >"$tmp/untraced"
sort -u "$tmp/pmpi.raw" >"$tmp/pmpi"
sort -u "$tmp/wrapped" "$tmp/untraced" >"$tmp/listed"

nall=$(wc -l <"$tmp/declared")
nwrapped=$(comm -12 "$tmp/declared" "$tmp/wrapped" | wc -l)
nuntraced=$(comm -12 "$tmp/declared" "$tmp/untraced" | wc -l)
ncoll=$(wc -l <"$tmp/coll")
ncollw=$(comm -12 "$tmp/coll" "$tmp/wrapped" | wc -l)
echo "coverage: $nall functions in mpi.h: $nwrapped wrapped," \
	"$nuntraced not traced ($ncoll collectives, $ncollw wrapped)"
echo "coverage: not traced, by reason:" $(cut -d' ' -f2 \
	"$tmp/untraced.raw" | sort | uniq -c | awk '{ print $2 "=" $1 }')

status=0
if [ "$nall" -lt "$MIN_ALL" ]; then
	echo "coverage: only $nall functions found in mpi.h, expected at" \
		"least $MIN_ALL: the name pattern is broken" >&2
	status=1
fi
if [ "$ncoll" -lt "$MIN_COLL" ]; then
	echo "coverage: only $ncoll collectives found in mpi.h, expected" \
		"at least $MIN_COLL: the name pattern is broken" >&2
	status=1
fi
for name in $(comm -23 "$tmp/declared" "$tmp/listed"); do
	echo "coverage: '$name' is in mpi.h but neither wrapped nor" \
		"listed as untraced in $DEF" >&2
	status=1
done
for name in $(comm -13 "$tmp/declared" "$tmp/listed"); do
	echo "coverage: '$name' is in $DEF but mpi.h does not declare it" >&2
	status=1
done
for name in $(comm -23 "$tmp/coll" "$tmp/wrapped"); do
	echo "coverage: collective '$name' is not wrapped in $DEF" >&2
	status=1
done
for name in $REQUIRED; do
	if ! grep -qx "$name" "$tmp/wrapped"; then
		echo "coverage: required '$name' is not wrapped in $DEF" >&2
		status=1
	fi
done
for name in $OPTIONAL; do
	if grep -qx "$name" "$tmp/declared" &&
	   ! grep -qx "$name" "$tmp/wrapped"; then
		echo "coverage: '$name' is in mpi.h but not wrapped in $DEF" >&2
		status=1
	fi
done

# The f08 flag: MPICH's Fortran library calls these PMPI_ names directly.
fortlib=
for d in $("$MPICC" -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-L//p') \
	/usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
	for f in "$d"/libmpichfort.so "$d"/libmpifort.so; do
		if [ -z "$fortlib" ] && [ -f "$f" ]; then
			fortlib=$f
		fi
	done
done
if [ -n "$fortlib" ] && nm -D "$fortlib" >"$tmp/fort.nm" 2>/dev/null; then
	awk '$1 == "U" && $2 ~ /^PMPI_/ { sub(/@.*/, "", $2); print $2 }' \
		"$tmp/fort.nm" | sort -u >"$tmp/fort"
	sed 's/^/P/' "$tmp/wrapped" | sort >"$tmp/wrapped.p"
	for name in $(comm -12 "$tmp/fort" "$tmp/wrapped.p" |
		      comm -23 - "$tmp/pmpi"); do
		echo "coverage: '${name#P}' is wrapped, but $fortlib calls" \
			"'$name' directly: flag it f08" >&2
		status=1
	done
else
	echo "coverage: no MPICH Fortran library found; f08 flags not checked"
fi
exit $status
