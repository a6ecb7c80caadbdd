#!/bin/sh
# tests/integration/t-fault.sh: a rank that dies of SIGSEGV, SIGBUS,
# SIGFPE, SIGABRT or SIGILL, of SIGXCPU (which batch systems send at a
# soft limit) or SIGPIPE, or ends the job with MPI_Abort,
# keeps every record it had buffered: rank 0 of `fault MODE N` makes N
# MPI_Allreduce calls, far fewer than a buffer holds (so none was
# written before), then dies, and `synctrace dump` must show all N of
# them (and the MPI_Abort call).
# The signal must go on as without synctrace: to the application's own
# handler if it has one ("handler": it prints and exits 9), else to the
# default action; the job's exit status must be the untraced one (up to
# the SIGKILL Hydra sends the other rank: same_job_status).  A program
# whose own handler recovers from its faults and goes on (apps/refault.c)
# must go on as without synctrace, which stops tracing at the first
# fault and says so, once a rank.
. "$(dirname "$0")/lib.sh"

need_app fault
n=1000
# A sanitizer runtime would take these signals itself, in the traced run
# only (the untraced one does not preload it).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0
export ASAN_OPTIONS

for mode in segv bus fpe abort ill xcpu pipe mpiabort handler; do
	out=$ST_TMP/$mode
	hydra_retry "$out-plain" - untraced "$out-plain" $MPIEXEC -n 2 \
		"$ST_APPS/fault" $mode $n
	hydra_retry "$out" "$out" traced "$out" "$out" $MPIEXEC -n 2 \
		"$ST_APPS/fault" $mode $n
	for o in "$out-plain" "$out"; do
		[ "$(grep -c "did $n allreduce" "$o.out")" = 2 ] ||
			{ show "$o.out"; show "$o.err";
			  fail "$mode: ranks did not finish their calls"; }
		! grep -q survived "$o.out" ||
			fail "$mode: rank 0 did not die ($o.out)"
	done
	[ "$(cat "$out-plain.rc")" != 0 ] || fail "$mode: the job exited 0"
	same_job_status "$(cat "$out.rc")" "$(cat "$out-plain.rc")" ||
		{ show "$out.out"; show "$out.err";
		  fail "$mode: exit status $(cat "$out.rc"), $(cat \
			"$out-plain.rc") without synctrace"; }
	if [ $mode = handler ]; then
		grep -q 'handler ran' "$out.out" ||
			fail "handler: the application's handler did not run"
	fi
	dump_csv "$out" "$out.csv"
	expect_count "$out.csv" \
		"kind == \"call\" && rank == 0 && fn == \"MPI_Allreduce\"" $n
	if [ $mode = mpiabort ]; then
		expect_count "$out.csv" \
			"kind == \"call\" && rank == 0 && fn == \"MPI_Abort\"" 1
	fi
	note "$mode: exit status $(cat "$out.rc") as without synctrace;" \
		"rank 0's trace holds all $n calls"
done

need_app refault
n=100
k=5
for mode in jump repair; do
	out=$ST_TMP/re-$mode
	untraced "$out-plain" $MPIEXEC -n 2 "$ST_APPS/refault" $mode $n $k
	traced "$out" "$out" $MPIEXEC -n 2 "$ST_APPS/refault" $mode $n $k
	sort "$out-plain.out" > "$out-plain.sorted"
	sort "$out.out" > "$out.sorted"
	cmp -s "$out-plain.sorted" "$out.sorted" ||
		{ diff "$out-plain.sorted" "$out.sorted"; show "$out.err";
		  fail "refault $mode: stdout differs from an untraced run"; }
	expect_rc "$out" 0
	[ "$(grep -c "faults $k errors 0" "$out.out")" = 2 ] ||
		{ show "$out.out"; fail "refault $mode: wrong results"; }
	for r in 0 1; do
		[ "$(grep -c "^synctrace\[rank $r\]: tracing stopped at signal 11" \
			"$out.err")" = 1 ] ||
			{ show "$out.err"; fail "refault $mode: rank $r did" \
				"not say once that tracing stopped"; }
	done
	[ "$(grep -vc '^synctrace\[rank' "$out.err")" = 0 ] ||
		{ show "$out.err"; fail "refault $mode: other stderr lines"; }
	# Traced up to the first fault: the first n + 1 calls.
	dump_csv "$out" "$out.csv"
	for r in 0 1; do
		expect_count "$out.csv" "kind == \"call\" && rank == $r && \
			fn == \"MPI_Allreduce\"" $((n + 1))
	done
	note "refault $mode: went on as without synctrace; traced up to" \
		"the first fault, and said so"
done
