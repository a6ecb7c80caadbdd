#!/bin/sh
#
# tests/check-exports.sh: libsynctrace.so must export exactly the MPI_
# names the generator wraps (both forms) plus the PMPI_ names of the
# entries flagged f08, and nothing else: everything else is built with
# -fvisibility=hidden, so a stray symbol would be a bug that could
# shadow the application's own.  Names each extra and missing symbol.
# The same for libsynctrace-openmpi.so, when built, against the names
# of 'mpi openmpi' (LIB and MPI name another pair).
#
#   BUILD=build sh tests/check-exports.sh
#
# Exit 0 on success, 1 on failure.

LC_ALL=C
export LC_ALL
BUILD=${BUILD:-build}
DEF=${DEF:-wrappers.def}
LIB=${LIB:-$BUILD/libsynctrace.so}
MPI=${MPI:-mpich}
GEN=$BUILD/gen-wrappers
NM=${NM:-nm}

for f in "$LIB" "$GEN"; do
	if ! [ -f "$f" ]; then
		echo "check-exports: '$f' is missing" >&2
		exit 1
	fi
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! "$NM" -D --defined-only "$LIB" >"$tmp/nm"; then
	echo "check-exports: '$NM -D $LIB' failed" >&2
	exit 1
fi
# "ADDRESS TYPE NAME[@VERSION]"
awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | sort -u \
	>"$tmp/exported"

if ! "$GEN" --mpi="$MPI" --list "$DEF" >"$tmp/mpi" ||
   ! "$GEN" --mpi="$MPI" --list-pmpi "$DEF" >"$tmp/pmpi"; then
	echo "check-exports: '$GEN' cannot list '$DEF'" >&2
	exit 1
fi
sort -u "$tmp/mpi" "$tmp/pmpi" >"$tmp/expected"

status=0
for name in $(comm -23 "$tmp/exported" "$tmp/expected"); do
	echo "check-exports: '$name' is exported but not a wrapper" >&2
	status=1
done
for name in $(comm -13 "$tmp/exported" "$tmp/expected"); do
	echo "check-exports: wrapper '$name' is not exported" >&2
	status=1
done
if [ $status = 0 ]; then
	echo "check-exports: $(basename "$LIB"): $(wc -l <"$tmp/expected")" \
		"symbols, all wrappers ($(wc -l <"$tmp/pmpi") PMPI_)"
fi
[ $status = 0 ] && [ "$MPI" = mpich ] &&
	[ -f "$BUILD/libsynctrace-openmpi.so" ] &&
	{ LIB=$BUILD/libsynctrace-openmpi.so MPI=openmpi sh "$0" || status=1; }
exit $status
