#!/bin/sh
# tests/integration/t-nofinalize.sh: an application that calls exit(0)
# (or quick_exit(3), or whose exit handler registered before MPI_Init
# calls _exit(2)) without MPI_Finalize still leaves a readable trace
# holding every collective it made, as counted by the app itself; one whose exit
# handler, registered before MPI_Init, calls MPI_Finalize leaves a
# complete trace with the handler's calls.
. "$(dirname "$0")/lib.sh"

need_app nofinal
n=60
# Hydra kills the whole job as soon as one rank exits without
# MPI_Finalize, which would cut the other ranks' exit short at random;
# -disable-auto-cleanup lets every rank exit on its own.
# (hydra_retry: Hydra sometimes misreports such an exit.)
for how in exit quick _exit; do
	run=$ST_TMP/run-$how
	trace=$ST_TMP/trace-$how
	hydra_retry "$run" "$trace" \
		traced "$trace" "$run" $MPIEXEC -disable-auto-cleanup \
		-n 2 "$ST_APPS/nofinal" $n $how
	expect_rc "$run" 0
	[ "$(grep -c 'errors 0$' "$run.out")" = 2 ] ||
		{ show "$run.out"; fail "$how: not 2 good ranks"; }
	[ -s "$run.err" ] && { show "$run.err"; fail "$how: stderr not empty"; }

	dump_csv "$trace" "$run.csv"
	for r in 0 1; do
		line=$(grep "^nofinal: rank $r " "$run.out")
		set -- $line
		# nofinal: rank R allreduce A bcast B barrier C errors 0
		[ "$4 $5 $6 $8" = "allreduce $n bcast barrier" ] ||
			fail "unexpected line '$line'"
		expect_count "$run.csv" "kind == \"call\" && rank == $r && \
			fn == \"MPI_Allreduce\"" $5
		expect_count "$run.csv" "kind == \"call\" && rank == $r && \
			fn == \"MPI_Bcast\"" $7
		expect_count "$run.csv" "kind == \"call\" && rank == $r && \
			fn == \"MPI_Barrier\"" $9
		expect_count "$run.csv" "kind == \"call\" && rank == $r && \
			fn ~ /^MPI_Init/" 1
		expect_count "$run.csv" "kind == \"call\" && rank == $r && \
			fn == \"MPI_Finalize\"" 0
	done
	note "$how: both ranks: $n allreduce, $((n / 2)) bcast, 3 barrier" \
		"in the trace"
done

# The exit handler registered before MPI_Init (as a library or language
# runtime does) runs after synctrace's own exit work was once done: its
# calls and MPI_Finalize were lost, and the run read as incomplete.
hydra_retry "$ST_TMP/ae" "$ST_TMP/ae-trace" \
	traced "$ST_TMP/ae-trace" "$ST_TMP/ae" $MPIEXEC -n 2 \
	"$ST_APPS/nofinal" $n atexit
expect_rc "$ST_TMP/ae" 0
[ "$(grep -c 'errors 0$' "$ST_TMP/ae.out")" = 4 ] ||
	{ show "$ST_TMP/ae.out"; fail "nofinal atexit: not 4 good lines"; }
[ -s "$ST_TMP/ae.err" ] && { show "$ST_TMP/ae.err"; fail "stderr not empty"; }
"$ST_CLI" report "$ST_TMP/ae-trace" > "$ST_TMP/ae.report" 2>&1 ||
	{ show "$ST_TMP/ae.report"; fail "report failed"; }
grep -q 'run complete' "$ST_TMP/ae.report" ||
	{ show "$ST_TMP/ae.report"; fail "atexit: the run is not complete"; }
dump_csv "$ST_TMP/ae-trace" "$ST_TMP/ae.csv"
for r in 0 1; do
	expect_count "$ST_TMP/ae.csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Allreduce\"" \
		$((n + 1))
	expect_count "$ST_TMP/ae.csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Finalize\"" 1
done
note "atexit: $((n + 1)) allreduce and MPI_Finalize on both ranks, complete"
