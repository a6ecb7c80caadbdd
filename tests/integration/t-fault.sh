#!/bin/sh
# tests/integration/t-fault.sh: a rank that dies of SIGSEGV, SIGBUS,
# SIGFPE or SIGABRT, or ends the job with MPI_Abort, keeps every record
# it had buffered: rank 0 of `fault MODE N` makes N MPI_Allreduce calls,
# far fewer than a buffer holds (so none was written before), then dies,
# and `synctrace dump` must show all N of them (and the MPI_Abort call).
# The signal must go on as without synctrace: to the application's own
# handler if it has one ("handler": it prints and exits 9), else to the
# default action; the job's exit status must be the untraced one (up to
# the SIGKILL Hydra sends the other rank: same_job_status).
. "$(dirname "$0")/lib.sh"

need_app fault
n=1000
# A sanitizer runtime would take these signals itself, in the traced run
# only (the untraced one does not preload it).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0
export ASAN_OPTIONS

for mode in segv bus fpe abort mpiabort handler; do
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
