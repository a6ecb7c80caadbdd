#!/bin/sh
# tests/integration/t-export.sh: `synctrace export` writes what viewers
# read, on global time.  A 2-D Jacobi run (nonblocking halo exchange,
# MPI_Allreduce), the p2p app (every send and receive flavour), the rma
# app (fence, post-start-complete-wait and passive-target epochs) and
# the io app (every MPI-IO access form) are exported as Chrome/Perfetto
# JSON and as OTF2, and views-check.py reads both back against
# `synctrace dump --csv`: the JSON keeps the format's rules (valid, X
# slices, flows that pair up, time stamps in us, non-decreasing per
# track) with one slice per call at its global time, a flow per message
# (a persistent halo exchange's, nm-persist, one per start of a send;
# every nonblocking and persistent form of p2p-more's),
# a flow per collective instance (a window's and a file's too), and one-sided and
# file slices naming their target or file and bytes; the OTF2 archive,
# printed by otf2-print, has per rank as many events of each kind as
# the dump has records (RMA and I/O events included; a persistent send's
# or receive's at each start), and its ENTER time
# stamps are the calls' global entry times.  The OTF2 half is skipped when this build
# has no OTF2 library or otf2-print is missing (the JSON half still runs).
. "$(dirname "$0")/lib.sh"

need_app jacobi
need_app p2p
need_app rma
need_app io
need_app nm-persist
need_app p2p-more
t=$ST_TMP
dir=$ST_TMP
[ -d /dev/shm ] && [ -w /dev/shm ] && dir=/dev/shm
file=$dir/synctrace-t-export-$$.dat
trap 'rm -f "$file"' EXIT
check=$st_top/tests/integration/views-check.py
command -v python3 > /dev/null 2>&1 || skip "no python3"

cli_run "$t/jac" "$t/jac.run" -- $MPIEXEC -n 2 "$ST_APPS/jacobi" 30 1 1
expect_rc "$t/jac.run" 0
cli_run "$t/p2p" "$t/p2p.run" -- $MPIEXEC -n 2 "$ST_APPS/p2p"
expect_rc "$t/p2p.run" 0
cli_run "$t/rma" "$t/rma.run" -- $MPIEXEC -n 2 "$ST_APPS/rma"
expect_rc "$t/rma.run" 0
cli_run "$t/io" "$t/io.run" -- $MPIEXEC -n 2 "$ST_APPS/io" "$file"
expect_rc "$t/io.run" 0
cli_run "$t/pers" "$t/pers.run" -- $MPIEXEC -n 2 "$ST_APPS/nm-persist" \
	5 64 1
expect_rc "$t/pers.run" 0
cli_run "$t/more" "$t/more.run" -- $MPIEXEC -n 2 "$ST_APPS/p2p-more"
expect_rc "$t/more.run" 0

for run in jac p2p rma io pers more; do
	"$ST_CLI" dump --csv "$t/$run" > "$t/$run.csv" 2> "$t/$run.csv.err" ||
		{ show "$t/$run.csv.err"; fail "dump of $run failed"; }
	"$ST_CLI" export -o "$t/$run.json" "$t/$run" 2> "$t/$run.exp.err" ||
		{ show "$t/$run.exp.err"; fail "export of $run failed"; }
	grep -q '^synctrace: exported .*messages paired' "$t/$run.exp.err" ||
		{ show "$t/$run.exp.err"; fail "no summary line"; }
	python3 "$check" chrome "$t/$run.json" "$t/$run.csv" \
		> "$t/$run.check" 2>&1 ||
		{ show "$t/$run.check"; fail "$run: the JSON breaks a rule"; }
	note "$(cat "$t/$run.check")"
done
# The same JSON on stdout.
"$ST_CLI" export -q "$t/jac" > "$t/jac-stdout.json" 2> "$t/stdout.err" ||
	{ show "$t/stdout.err"; fail "export to stdout failed"; }
cmp -s "$t/jac.json" "$t/jac-stdout.json" ||
	fail "export to stdout differs from export to a file"
# Jacobi on 2 ranks: one neighbour each, so one message each way per
# iteration, and one MPI_Allreduce instance per iteration.
grep -q ' 60 message flows, 30 collective flows' "$t/jac.check" ||
	fail "unexpected flows: $(cat "$t/jac.check")"
# nm-persist on 2 ranks: 4 persistent requests a rank, 2 of them sends,
# started in each of 5 steps.
grep -q ' 20 message flows, ' "$t/pers.check" ||
	fail "unexpected flows: $(cat "$t/pers.check")"
# rma: 3 constructors, 4 fences, 3 frees, 2 barriers and an allreduce;
# io: the open, 20 blocking collectives on the file, 4 barriers and an
# allreduce.  Every one-sided call to a rank and every read and write
# names its target or file.
grep -q ' 13 collective flows, .* 19 one-sided and I/O slices' \
	"$t/rma.check" || fail "rma: $(cat "$t/rma.check")"
grep -q ' 26 collective flows, .* 70 one-sided and I/O slices' \
	"$t/io.check" || fail "io: $(cat "$t/io.check")"

# Command-line mistakes and bad input.
"$ST_CLI" export --format xml "$t/jac" > /dev/null 2> "$t/bad.err"
[ $? = 129 ] || fail "an unknown format does not exit 129"
grep -q "unknown format 'xml'" "$t/bad.err" || fail "no message for xml"
"$ST_CLI" export "$t/nothing-here" > /dev/null 2> "$t/none.err"
[ $? = 1 ] || fail "a missing run does not exit 1"
grep -q "^synctrace: fatal: cannot open '$t/nothing-here'" "$t/none.err" ||
	{ show "$t/none.err"; fail "no message for a missing run"; }

if "$ST_CLI" export --format otf2 -o "$t/probe-otf2" "$t/p2p" \
	> /dev/null 2> "$t/probe.err"; then :
elif grep -q 'built without the OTF2 library' "$t/probe.err"; then
	skip "synctrace was built without OTF2 (the JSON checks passed)"
else
	show "$t/probe.err"
	fail "export --format otf2 failed"
fi
command -v otf2-print > /dev/null 2>&1 ||
	skip "no otf2-print (apt-get install otf2-tools)"
for run in jac p2p rma io pers; do
	"$ST_CLI" export --format otf2 -o "$t/$run-otf2" "$t/$run" \
		2> "$t/$run.otf2.err" ||
		{ show "$t/$run.otf2.err"; fail "OTF2 export of $run failed"; }
	otf2-print "$t/$run-otf2/traces.otf2" > "$t/$run.print" \
		2> "$t/$run.print.err" ||
		{ show "$t/$run.print.err"; fail "otf2-print cannot read $run"; }
	# The summary line counts the events the archive holds.
	want=$(awk '$1 == "ENTER" { c++ }
		$1 == "MPI_SEND" || $1 == "MPI_ISEND" { s++ }
		$1 == "MPI_RECV" || $1 == "MPI_IRECV" { r++ }
		$1 == "MPI_COLLECTIVE_END" ||
		$1 == "NON_BLOCKING_COLLECTIVE_COMPLETE" { k++ }
		END { printf "n=%d calls, n=%d send and n=%d receive events, " \
		      "n=%d collective calls", c, s, r, k }' "$t/$run.print")
	grep -q "^synctrace: exported .*/traces.otf2: $want " \
		"$t/$run.otf2.err" ||
		{ show "$t/$run.otf2.err"; fail "$run: summary is not '$want'"; }
	[ ! -s "$t/$run.print.err" ] ||
		{ show "$t/$run.print.err"; fail "otf2-print warns on $run"; }
	otf2-print -A "$t/$run-otf2/traces.otf2" > "$t/$run.anchor" ||
		fail "otf2-print -A failed"
	origin=$(awk '$3 == "SYNCTRACE::ORIGIN_NS" { getline; print $3 }' \
		"$t/$run.anchor")
	[ -n "$origin" ] || fail "no SYNCTRACE::ORIGIN_NS property"
	for p in SYNC_METHOD SYNC_ERR_MAX_NS CLOCK CLOCK_RES_NS; do
		grep -q "SYNCTRACE::$p" "$t/$run.anchor" ||
			fail "no SYNCTRACE::$p property"
	done
	python3 "$check" otf2 "$t/$run.print" "$t/$run.csv" "$origin" \
		> "$t/$run.ocheck" 2>&1 ||
		{ show "$t/$run.ocheck"; fail "$run: OTF2 differs from dump"; }
	note "$(cat "$t/$run.ocheck")"
done
grep -q 'RMA_PUT=5, RMA_RELEASE_LOCK=3, RMA_WIN_CREATE=6' "$t/rma.ocheck" ||
	fail "rma: unexpected OTF2 events: $(cat "$t/rma.ocheck")"
grep -q 'IO_CREATE_HANDLE=2, .*IO_OPERATION_BEGIN=60' "$t/io.ocheck" ||
	fail "io: unexpected OTF2 events: $(cat "$t/io.ocheck")"
grep -q 'MPI_IRECV=20, MPI_IRECV_REQUEST=20, MPI_ISEND=20, MPI_ISEND_COMPLETE=20,' \
	"$t/pers.ocheck" ||
	fail "pers: unexpected OTF2 events: $(cat "$t/pers.ocheck")"
# p2p-more's receives cancelled before a message came are
# MPI_REQUEST_CANCELLED events, one per cancelled done record, not
# MPI_IRECV events of a message.  (Its MPI_Sendrecv from MPI_PROC_NULL
# keeps it out of the loop above: the CSV has no column for a
# Sendrecv's source.)
"$ST_CLI" export -q --format otf2 -o "$t/more-otf2" "$t/more" ||
	fail "OTF2 export of p2p-more failed"
otf2-print "$t/more-otf2/traces.otf2" > "$t/more.print" ||
	fail "otf2-print cannot read p2p-more"
n=$(grep -c '^MPI_REQUEST_CANCELLED ' "$t/more.print")
want=$(awk -F, '$3 == "done" && $23 == 1' "$t/more.csv" | wc -l)
[ "$want" -gt 0 ] && [ "$n" = "$want" ] ||
	fail "p2p-more: $n MPI_REQUEST_CANCELLED events, $want cancelled"
# A second export into the same directory is refused, not merged.
"$ST_CLI" export -q --format otf2 -o "$t/jac-otf2" "$t/jac" \
	2> "$t/again.err" && fail "an export over an archive succeeded"
grep -q 'cannot create the archive' "$t/again.err" ||
	{ show "$t/again.err"; fail "no message for an existing archive"; }
