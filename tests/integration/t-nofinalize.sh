#!/bin/sh
# tests/integration/t-nofinalize.sh: an application that calls exit(0)
# without MPI_Finalize still leaves a readable trace holding every
# collective it made, as counted by the app itself.
. "$(dirname "$0")/lib.sh"

need_app nofinal
n=60
# Hydra kills the whole job as soon as one rank exits without
# MPI_Finalize, which would cut the other ranks' exit short at random;
# -disable-auto-cleanup lets every rank exit on its own.
# (hydra_retry: Hydra sometimes misreports such an exit.)
hydra_retry "$ST_TMP/run" "$ST_TMP/trace" \
	traced "$ST_TMP/trace" "$ST_TMP/run" $MPIEXEC -disable-auto-cleanup \
	-n 2 "$ST_APPS/nofinal" $n
expect_rc "$ST_TMP/run" 0
[ "$(grep -c 'errors 0$' "$ST_TMP/run.out")" = 2 ] ||
	{ show "$ST_TMP/run.out"; fail "nofinal did not report 2 good ranks"; }
[ -s "$ST_TMP/run.err" ] && { show "$ST_TMP/run.err"; fail "stderr not empty"; }

dump_csv "$ST_TMP/trace" "$ST_TMP/csv"
for r in 0 1; do
	line=$(grep "^nofinal: rank $r " "$ST_TMP/run.out")
	set -- $line
	# nofinal: rank R allreduce A bcast B barrier C errors 0
	[ "$4 $5 $6 $8" = "allreduce $n bcast barrier" ] ||
		fail "unexpected line '$line'"
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Allreduce\"" $5
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Bcast\"" $7
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Barrier\"" $9
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn ~ /^MPI_Init/" 1
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Finalize\"" 0
done
note "both ranks: $n allreduce, $((n / 2)) bcast, 3 barrier in the trace"
