#!/bin/sh
# tests/integration/t-selftime.sh: the self-time build of the library
# (pmpi/selftime.h, `make bench`'s figure 1d) counts every traced call
# once, by function, and only traced calls; it traces as the library
# does; the library users run prints nothing of it.  bench-calls' p2p
# loop at 2 ranks makes W + B * N each of MPI_Irecv, MPI_Isend and
# MPI_Waitall per rank: each rank must report exactly that many calls of
# each with a positive time, and its trace must hold that many records
# of each.  With point-to-point calls untraced (SYNCTRACE_FAMILIES=
# all,-p2p) MPI_Irecv and MPI_Isend pass straight through and must not
# be counted, while MPI_Waitall still is (that run with
# SYNCTRACE_SELFTIME_FENCE=1, which the build must take, not refuse as
# an unknown variable).  No timing is asserted.
. "$(dirname "$0")/lib.sh"

need_app bench-calls
slib=$st_build/selftime/libsynctrace.so
[ -f "$slib" ] || fail "no '$slib': run make check-integration"
# traced() preloads $ST_PRELOAD: the library, after the sanitizer
# runtime in a sanitizer build.  The self-time build takes its place.
lib_preload=$ST_PRELOAD
ST_PRELOAD=${ST_PRELOAD%"$ST_LIB"}$slib

n=300
blocks=2
warm=40
calls=$((warm + blocks * n))

# fig OUT RANK FN: the "calls ns" rank RANK reported for FN in OUT.err.
fig()
{
	sed -n "s/^synctrace-selftime: rank=$2 fn=$3 calls=\([0-9]*\) ns_per_call=\([0-9.]*\)$/\1 \2/p" \
		"$1.err"
}

t=$ST_TMP/all
traced "$t" "$t" $MPIEXEC -n 2 "$ST_APPS/bench-calls" p2p $n $blocks $warm
expect_rc "$t" 0
grep -q '^op=p2p ' "$t.out" || { show "$t.out"; fail "bench-calls did not run"; }
dump_csv "$t" "$t.csv"
for r in 0 1; do
	grep -q "^synctrace-selftime: rank=$r clock_read_ns=[0-9.]* fence=0$" \
		"$t.err" ||
		{ show "$t.err"; fail "rank $r printed no clock read figure"; }
	for fn in MPI_Irecv MPI_Isend MPI_Waitall; do
		set -- $(fig "$t" $r $fn)
		[ "$1" = $calls ] ||
			{ show "$t.err"; fail "rank $r: $fn calls '$1', expected $calls"; }
		awk -v x="$2" 'BEGIN { exit !(x > 0) }' ||
			fail "rank $r: $fn took '$2' ns a call inside the interposer"
		expect_count "$t.csv" "rank == $r && kind == \"call\" && fn == \"$fn\"" \
			$calls
	done
	# Every Irecv's and Isend's request has its done record.
	expect_count "$t.csv" "rank == $r && kind == \"done\"" $((2 * calls))
done
note "each rank counted $calls calls of each function, all traced"

t=$ST_TMP/nop2p
SYNCTRACE_FAMILIES=all,-p2p SYNCTRACE_SELFTIME_FENCE=1 traced "$t" "$t" \
	$MPIEXEC -n 2 "$ST_APPS/bench-calls" p2p $n $blocks $warm
expect_rc "$t" 0
for r in 0 1; do
	for fn in MPI_Irecv MPI_Isend; do
		[ -z "$(fig "$t" $r $fn)" ] ||
			{ show "$t.err"; fail "rank $r counted untraced $fn calls"; }
	done
	set -- $(fig "$t" $r MPI_Waitall)
	[ "$1" = $calls ] ||
		{ show "$t.err"; fail "rank $r: MPI_Waitall calls '$1' with p2p off, expected $calls"; }
	grep -q "^synctrace-selftime: rank=$r clock_read_ns=[0-9.]* fence=1$" \
		"$t.err" || { show "$t.err"; fail "rank $r: no fence=1"; }
done
note "untraced calls are not counted; SYNCTRACE_SELFTIME_FENCE=1 is taken"

t=$ST_TMP/plain-lib
ST_PRELOAD=$lib_preload
traced "$t" "$t" $MPIEXEC -n 2 "$ST_APPS/bench-calls" p2p $n $blocks $warm
expect_rc "$t" 0
! grep -q 'synctrace-selftime' "$t.err" ||
	fail "the library users run printed self-time figures"
note "the library itself prints none"
