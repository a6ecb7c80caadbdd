#!/bin/sh
# tests/integration/t-dlsym.sh: a program that reaches the MPI library's
# own MPI_Init through dlsym() (apps/dlmpi.c) cannot be traced; the
# library must say so, once for the job (rank 0), and otherwise change
# nothing: the same output and exit status as untraced.  A program that
# goes through the interposer gets no such line (t-silent checks that
# the library says nothing then).
. "$(dirname "$0")/lib.sh"

need_app dlmpi
untraced "$ST_TMP/plain" $MPIEXEC -n 2 "$ST_APPS/dlmpi"
expect_rc "$ST_TMP/plain" 0
traced "$ST_TMP/trace" "$ST_TMP/run" $MPIEXEC -n 2 "$ST_APPS/dlmpi"
expect_rc "$ST_TMP/run" 0
sort "$ST_TMP/plain.out" > "$ST_TMP/plain.sorted"
sort "$ST_TMP/run.out" > "$ST_TMP/run.sorted"
cmp -s "$ST_TMP/plain.sorted" "$ST_TMP/run.sorted" ||
	{ diff "$ST_TMP/plain.sorted" "$ST_TMP/run.sorted";
	  fail "stdout differs from an untraced run"; }
grep -v '^synctrace: ' "$ST_TMP/run.err" > "$ST_TMP/run.rest"
cmp -s "$ST_TMP/plain.err" "$ST_TMP/run.rest" ||
	{ diff "$ST_TMP/plain.err" "$ST_TMP/run.rest";
	  fail "stderr differs from an untraced run but for synctrace's line"; }
n=$(grep -c "^synctrace: this program initialised MPI without calling the MPI_Init that synctrace interposes" \
	"$ST_TMP/run.err")
[ "$n" = 1 ] || { show "$ST_TMP/run.err"; fail "said $n times, not once"; }
[ ! -e "$ST_TMP/trace" ] || fail "a trace directory was made"
note "MPI reached through dlsym: said once, nothing else changed"

# MPI linked into the program (apps/staticmpi.c, MPICH's libmpich.a):
# the same, with the reason.
need_app staticmpi
untraced "$ST_TMP/splain" $MPIEXEC -n 2 "$ST_APPS/staticmpi"
expect_rc "$ST_TMP/splain" 0
[ "$(grep -c 'staticmpi: rank [01] of 2 ok' "$ST_TMP/splain.out")" = 2 ] ||
	{ show "$ST_TMP/splain.out"; fail "the static program does not run"; }
traced "$ST_TMP/strace" "$ST_TMP/srun" $MPIEXEC -n 2 "$ST_APPS/staticmpi"
expect_rc "$ST_TMP/srun" 0
sort "$ST_TMP/splain.out" > "$ST_TMP/splain.sorted"
sort "$ST_TMP/srun.out" > "$ST_TMP/srun.sorted"
cmp -s "$ST_TMP/splain.sorted" "$ST_TMP/srun.sorted" ||
	{ diff "$ST_TMP/splain.sorted" "$ST_TMP/srun.sorted";
	  fail "static: stdout differs from an untraced run"; }
grep -v '^synctrace: ' "$ST_TMP/srun.err" > "$ST_TMP/srun.rest"
cmp -s "$ST_TMP/splain.err" "$ST_TMP/srun.rest" ||
	{ diff "$ST_TMP/splain.err" "$ST_TMP/srun.rest";
	  fail "static: stderr differs but for synctrace's line"; }
n=$(grep -c "^synctrace: this program has MPI linked into it statically" \
	"$ST_TMP/srun.err")
[ "$n" = 1 ] || { show "$ST_TMP/srun.err"; fail "static: said $n times"; }
[ ! -e "$ST_TMP/strace" ] || fail "static: a trace directory was made"
note "MPI linked statically: said once, nothing else changed"
