#!/bin/sh
#
# tests/coverage-openmpi.sh: the Open MPI build wraps everything the
# MPICH build wraps that Open MPI has.  For every int-form name the
# MPICH build wraps, when Open MPI's mpi.h declares it, or mpi-ext.h
# declares its MPIX_ spelling, the Open MPI build must wrap it (under
# that name); the rest must be in the 'lacks' list of 'mpi openmpi'.
# So an entry added to wrappers.def is traced under Open MPI too, or
# said not to exist there.  Names each function at fault.
#
#   BUILD=build OMPICC=mpicc.openmpi sh tests/coverage-openmpi.sh
#
# Exit 0 on success, 1 on failure, 77 (skip) without mpicc.openmpi.

LC_ALL=C
export LC_ALL
BUILD=${BUILD:-build}
OMPICC=${OMPICC:-mpicc.openmpi}
DEF=${DEF:-wrappers.def}
GEN=$BUILD/gen-wrappers

if ! command -v "$OMPICC" >/dev/null 2>&1; then
	echo "coverage-openmpi: SKIP: '$OMPICC' not found"
	exit 77
fi
[ -x "$GEN" ] || { echo "coverage-openmpi: no '$GEN'" >&2; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

printf '#include <mpi.h>\n#include <mpi-ext.h>\n' |
	"$OMPICC" -E -x c - > "$tmp/mpi.i" ||
	{ echo "coverage-openmpi: cannot preprocess mpi.h" >&2; exit 1; }
tr '\n' ' ' < "$tmp/mpi.i" |
	grep -oE '(^|[^A-Za-z0-9_])MPIX?_[A-Za-z0-9_]+[[:space:]]*\(' |
	sed -E 's/^[^M]*//; s/[[:space:]]*\($//' | sort -u > "$tmp/declared"
"$GEN" --mpi=mpich --list "$DEF" | grep -v '_c$' | sort -u > "$tmp/mpich" &&
	"$GEN" --mpi=openmpi --list "$DEF" | sort -u > "$tmp/openmpi" ||
	{ echo "coverage-openmpi: '$GEN' cannot list '$DEF'" >&2; exit 1; }

status=0 n=0 lacking=0
for name in $(cat "$tmp/mpich"); do
	x=MPIX_${name#MPI_}
	if grep -qx "$name" "$tmp/declared"; then
		want=$name
	elif grep -qx "$x" "$tmp/declared"; then
		want=$x
	else
		lacking=$((lacking + 1))
		if grep -qx "$name" "$tmp/openmpi"; then
			echo "coverage-openmpi: '$name' is wrapped but Open MPI" \
				"does not declare it" >&2
			status=1
		fi
		continue
	fi
	n=$((n + 1))
	grep -qx "$want" "$tmp/openmpi" || {
		echo "coverage-openmpi: Open MPI has '$want' but the Open MPI" \
			"build does not wrap it (lacks or as in $DEF?)" >&2
		status=1
	}
done
[ $status = 0 ] &&
	echo "coverage-openmpi: $n of the MPICH build's functions are" \
		"Open MPI's too, all wrapped; $lacking it lacks"
exit $status
