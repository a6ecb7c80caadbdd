#!/bin/sh
# tests/integration/t-yield.sh: with SYNCTRACE_YIELD=1 (or `synctrace run
# --yield`) blocking calls wait by polling and yielding the CPU; on 4
# ranks sharing fewer cores, results must be those of an untraced run,
# the trace must say yield=1 in its header and hold every call.  Also
# runs t-p2p.sh on 4 ranks in yield mode: statuses, peers and bytes of
# blocking receives must survive the switch to their nonblocking twins.
. "$(dirname "$0")/lib.sh"

need_app threads
need_app p2p

# header_yield DIR: the value of 'yield' in `synctrace dump --header`.
header_yield()
{
	"$ST_CLI" dump --header "$1" > "$ST_TMP/header" 2>&1 ||
		{ show "$ST_TMP/header"; fail "'synctrace dump --header $1' failed"; }
	sed -n 's/.*\<yield[ \t]*[=:][ \t]*\([0-9]*\).*/\1/p' "$ST_TMP/header" |
		sort -u | tr '\n' ' '
}

nt=2
iters=40
untraced "$ST_TMP/plain" $MPIEXEC -n 4 "$ST_APPS/threads" $nt $iters
expect_rc "$ST_TMP/plain" 0

# Without yield mode the header must not say yield=1: the check below
# means something.
traced "$ST_TMP/noyield" "$ST_TMP/noyield" $MPIEXEC -n 4 \
	"$ST_APPS/threads" $nt $iters
same_output "$ST_TMP/plain" "$ST_TMP/noyield" sort
y=$(header_yield "$ST_TMP/noyield")
case $y in
"" | "0 ") ;;
*) show "$ST_TMP/header"; fail "yield '$y' without yield mode" ;;
esac

cli_run "$ST_TMP/yield" "$ST_TMP/yield" --yield -- $MPIEXEC -n 4 \
	"$ST_APPS/threads" $nt $iters
same_output "$ST_TMP/plain" "$ST_TMP/yield" sort
y=$(header_yield "$ST_TMP/yield")
[ "$y" = "1 " ] || { show "$ST_TMP/header"; fail "yield '$y' with --yield"; }
dump_csv "$ST_TMP/yield" "$ST_TMP/csv"
for r in 0 1 2 3; do
	# Each thread's calls, plus the final MPI_Allreduce on the world.
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Allreduce\"" \
		$((nt * iters + 1))
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Bcast\"" \
		$((nt * iters))
	expect_count "$ST_TMP/csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Barrier\"" \
		$((nt * iters))
done
note "threads on 4 ranks with --yield: same output, header yield=1, all calls"

ST_TEST_NAME=t-yield-p2p ST_P2P_NP=4 SYNCTRACE_YIELD=1 \
	sh "$(dirname "$0")/t-p2p.sh" || exit
y=$(header_yield "$st_build/integration/t-yield-p2p/trace")
[ "$y" = "1 " ] ||
	{ show "$ST_TMP/header"; fail "yield '$y' with SYNCTRACE_YIELD=1"; }
