#!/bin/sh
# tools/bench/icount.sh: instructions the interposer adds per loop
# iteration, counted by callgrind, so the figure does not depend on the
# machine's load (wall-clock figures are `make bench`'s).
#
#   sh tools/bench/icount.sh [-v] OP[,OP...] [N1 N2]
#
# OP is a bench-calls op (tests/integration/apps/bench-calls.c), run on
# one rank without mpiexec (MPICH's singleton start), so the "self-"
# ops, whose communication is with this rank itself, are the ones to
# use.  Each op is run four times under callgrind: without and with the
# library, for N1 and for N2 iterations (default 5000 and 25000, one
# block, no warm-up), counting only the calling thread's instructions
# inside bench-calls' run_calls(), the timed loop.  Those of the run
# with N1 iterations are taken from those of the run with N2, which
# leaves the steady state alone (first calls from a call site, which
# unwind the stack, cancel out); that divided by N2 - N1 is the cost of
# an iteration, and the difference between the two libraries' figures
# is what the interposer adds.  Compression, on the writer thread
# (SYNCTRACE_ASYNC=1, the default) or at MPI_Finalize, is not counted:
# it is outside the loop, or on another core.
#
# Prints per op: instructions per iteration without and with the
# library and the difference; with -v, also the added instructions per
# iteration of every function that adds at least 0.5, grouped by the
# source file they come from, so that wrapper (build/gen/wrappers.c),
# leave (pmpi/), append (pmpi/runtime.c, writer/) and MPI (libmpich)
# can be told apart.
#
# Environment: BUILD (default build), ICOUNT_MPI (mpich, the default, or
# openmpi: the Open MPI build of the library and of bench-calls),
# SYNCTRACE_* (passed to the traced runs, e.g. SYNCTRACE_DEPTH=0), TMPDIR.

verbose=0
if [ "$1" = -v ]; then
	verbose=1
	shift
fi
[ $# = 1 ] || [ $# = 3 ] || {
	echo "usage: icount.sh [-v] OP[,OP...] [N1 N2]" >&2
	exit 2
}
ops=$1
n1=${2:-5000}
n2=${3:-25000}
[ "$n2" -gt "$n1" ] 2> /dev/null || {
	echo "icount: N2 must be greater than N1" >&2
	exit 2
}
top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
BUILD=${BUILD:-build}
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
case ${ICOUNT_MPI:-mpich} in
mpich)
	LIB=$build/libsynctrace.so
	APP=$build/apps/bench-calls ;;
openmpi)
	LIB=$build/libsynctrace-openmpi.so
	APP=$build/openmpi/apps/bench-calls ;;
*)
	echo "icount: ICOUNT_MPI is mpich or openmpi" >&2
	exit 2 ;;
esac
command -v valgrind > /dev/null || { echo "icount: no valgrind" >&2; exit 1; }
[ -f "$LIB" ] && [ -x "$APP" ] || {
	echo "icount: build '$LIB' and '$APP' first" >&2
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-icount.XXXXXX") || exit 1
[ -n "$ICOUNT_KEEP" ] || trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT PIPE TERM

# prof NAME N [traced]: one callgrind run of $op, N iterations; leaves
# per-thread profiles NAME-01 (the calling thread), NAME-02...
prof()
{
	p_name=$1
	p_n=$2
	if [ "$3" = traced ]; then
		set -- env LD_PRELOAD="$LIB" SYNCTRACE_DIR="$tmp/$p_name.d"
	else
		set -- env
	fi
	"$@" valgrind --tool=callgrind --separate-threads=yes \
		--collect-atstart=no --toggle-collect=run_calls \
		--callgrind-out-file="$tmp/$p_name" "$APP" "$op" "$p_n" 1 0 \
		> "$tmp/$p_name.out" 2> "$tmp/$p_name.err" || {
		sed 's/^/    /' "$tmp/$p_name.err" >&2
		echo "icount: '$op' failed under valgrind" >&2
		exit 1
	}
	rm -rf "$tmp/$p_name.d"
}

# total FILE: the instructions in callgrind profile FILE (0 if none).
total()
{
	[ -f "$1" ] || { echo 0; return; }
	sed -n 's/^summary: //p' "$1"
}

# funcs NAME: "instructions function" lines of NAME's calling thread.
funcs()
{
	callgrind_annotate --auto=no --threshold=100 "$tmp/$1-01" 2> /dev/null |
		sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%)  \(.*\)$/\1 \2/p' |
		tr -d , | sed 's| \[.*/\([^/]*\)\]$| [\1]|; s|'"$top"'/||g' |
		grep -v 'PROGRAM TOTALS'
}

printf '%-18s %10s %10s %10s\n' op untraced traced added
for op in $(echo "$ops" | tr , ' '); do
	prof u1 $n1
	prof u2 $n2
	prof t1 $n1 traced
	prof t2 $n2 traced
	set -- $(total "$tmp/u1-01") $(total "$tmp/u2-01") \
		$(total "$tmp/t1-01") $(total "$tmp/t2-01")
	awk -v u1=$1 -v u2=$2 -v t1=$3 -v t2=$4 -v n=$((n2 - n1)) \
		-v op="$op" 'BEGIN {
		u = (u2 - u1) / n
		t = (t2 - t1) / n
		printf "%-18s %10.1f %10.1f %+10.1f\n", op, u, t, t - u
	}'
	[ $verbose = 1 ] || continue
	for r in u1 u2 t1 t2; do
		funcs $r > "$tmp/$r.f"
	done
	# Per function: (t2 - t1) - (u2 - u1), per iteration.
	awk -v n=$((n2 - n1)) '
		{ v = $1; $1 = ""; f = substr($0, 2) }
		FILENAME ~ /u1.f$/ { d[f] += v }
		FILENAME ~ /u2.f$/ { d[f] -= v }
		FILENAME ~ /t1.f$/ { d[f] -= v }
		FILENAME ~ /t2.f$/ { d[f] += v }
		END {
			for (f in d) {
				x = d[f] / n
				if (x >= 0.5 || x <= -0.5)
					printf "%10.1f  %s\n", x, f
			}
		}' "$tmp/u1.f" "$tmp/u2.f" "$tmp/t1.f" "$tmp/t2.f" |
		sort -t: -k1,1 -s | sort -k2,2 -s |
		awk '{
			split($2, p, ":")
			if (p[1] != last) {
				if (NR > 1)
					printf "    %-40s %8.1f\n", "(" last ")", sum
				sum = 0
				last = p[1]
			}
			sum += $1
			print "  " $0
		} END { printf "    %-40s %8.1f\n", "(" last ")", sum }'
done
