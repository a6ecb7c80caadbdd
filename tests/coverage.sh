#!/bin/sh
#
# tests/coverage.sh: the coverage gate.  Lists every collective MPICH's
# mpi.h declares (by name, over the preprocessed header) and fails,
# naming each, if wrappers.def does not wrap it; also fails if fewer than
# the 129 collectives of MPI 4.0 are found (a broken pattern must not
# pass), if a required non-collective entry point is missing, or if
# wrappers.def wraps a name mpi.h does not declare.  The generator's
# --list mode gives what is wrapped, both int and _c forms.
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

# The collectives of MPI 4.0, by stem: 17 blocking, their I* forms,
# 5 neighbourhood and their I* forms; any of them with _init and _c.
COLL_RE='^MPI_(I?(allgatherv?|allreduce|alltoall[vw]?|barrier|bcast|exscan'
COLL_RE="$COLL_RE"'|gatherv?|reduce|reduce_scatter(_block)?|scan|scatterv?)'
COLL_RE="$COLL_RE"'|I?neighbor_(allgatherv?|alltoall[vw]?))(_init)?(_c)?$'

# What else must be wrapped (the _c forms of point-to-point included).
REQUIRED='MPI_Init MPI_Init_thread MPI_Finalize
MPI_Wait MPI_Waitall MPI_Waitany MPI_Waitsome MPI_Test MPI_Testall
MPI_Testany MPI_Testsome MPI_Start MPI_Startall MPI_Request_free
MPI_Comm_dup MPI_Comm_dup_with_info MPI_Comm_idup MPI_Comm_idup_with_info
MPI_Comm_split MPI_Comm_split_type MPI_Comm_create MPI_Comm_create_group
MPI_Intercomm_create MPI_Intercomm_merge MPI_Cart_create MPI_Cart_sub
MPI_Graph_create MPI_Dist_graph_create MPI_Dist_graph_create_adjacent
MPI_Comm_free MPI_Send MPI_Recv MPI_Isend MPI_Irecv MPI_Sendrecv MPI_Ssend
MPI_Rsend MPI_Bsend MPI_Issend MPI_Sendrecv_replace MPI_Probe MPI_Iprobe'
# Wrapped when mpi.h has them.
OPTIONAL='MPI_Comm_create_from_group MPI_Intercomm_create_from_groups
MPI_Send_c MPI_Recv_c MPI_Isend_c MPI_Irecv_c MPI_Sendrecv_c MPI_Ssend_c
MPI_Rsend_c MPI_Bsend_c MPI_Issend_c MPI_Sendrecv_replace_c'

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

# Every MPI_ function the header declares: an MPI_ name (not the tail of
# PMPI_...) followed by '(', wherever the declaration breaks its lines.
tr '\n' ' ' <"$tmp/mpi.i" |
	grep -oE '(^|[^A-Za-z0-9_])MPI_[A-Za-z0-9_]+[[:space:]]*\(' |
	sed -E 's/^[^M]*//; s/[[:space:]]*\($//' | sort -u >"$tmp/declared"
grep -iE "$COLL_RE" "$tmp/declared" >"$tmp/coll"

if ! "$GEN" --list "$DEF" >"$tmp/wrapped.raw"; then
	echo "coverage: '$GEN --list $DEF' failed" >&2
	exit 1
fi
sort -u "$tmp/wrapped.raw" >"$tmp/wrapped"

ncoll=$(wc -l <"$tmp/coll")
nwrapped=$(comm -12 "$tmp/coll" "$tmp/wrapped" | wc -l)
echo "coverage: $ncoll collectives in mpi.h, $nwrapped wrapped"

status=0
if [ "$ncoll" -lt "$MIN_COLL" ]; then
	echo "coverage: only $ncoll collectives found in mpi.h, expected" \
		"at least $MIN_COLL: the name pattern is broken" >&2
	status=1
fi
for name in $(comm -23 "$tmp/coll" "$tmp/wrapped"); do
	echo "coverage: collective '$name' is not in $DEF" >&2
	status=1
done
for name in $REQUIRED; do
	if ! grep -qx "$name" "$tmp/wrapped"; then
		echo "coverage: required '$name' is not in $DEF" >&2
		status=1
	fi
done
for name in $OPTIONAL; do
	if grep -qx "$name" "$tmp/declared" &&
	   ! grep -qx "$name" "$tmp/wrapped"; then
		echo "coverage: '$name' is in mpi.h but not in $DEF" >&2
		status=1
	fi
done
for name in $(comm -13 "$tmp/declared" "$tmp/wrapped"); do
	echo "coverage: '$name' is wrapped but mpi.h does not declare it" >&2
	status=1
done
exit $status
