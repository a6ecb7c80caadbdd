#!/bin/sh
# tests/integration/t-crash.sh: a job that dies part-way leaves traces
# that `synctrace dump` reads up to the last whole chunk.  With an 8 KiB
# buffer (two halves of 4 KiB) the N collectives fill several chunks before the end, so each
# rank's trace must hold some of them and never more than N.  Rank 0
# raises SIGKILL, SIGTERM or SIGINT itself and mpiexec kills the others,
# or every rank waits to be SIGKILLed by this script.  The job's exit
# status must be the untraced one, up to the SIGKILL Hydra sends the
# other rank (the library may catch a signal to flush, but must not
# swallow it).
# Its 7 jobs make up to 3000 collectives each with two busy-polling ranks, so
# beside other busy processes every collective waits for a time slice:
# 4 s on an idle machine, 25-51 s beside two CPU hogs, over 120 s at a
# load of 4.6 once.
# time limit: 360
. "$(dirname "$0")/lib.sh"

need_app crash
n=3000
SYNCTRACE_BUFFER=8K
export SYNCTRACE_BUFFER

# check_trace LABEL DIR: the trace in DIR reads and holds 1..n Allreduce
# calls per rank.
check_trace()
{
	"$ST_CLI" dump "$2" > "$ST_TMP/$1.dump" 2> "$ST_TMP/$1.dump.err" ||
		{ show "$ST_TMP/$1.dump.err";
		  fail "$1: 'synctrace dump $2' failed"; }
	[ -s "$ST_TMP/$1.dump" ] || fail "$1: 'synctrace dump' printed nothing"
	dump_csv "$2" "$ST_TMP/$1.csv"
	counts=
	for r in 0 1; do
		c=$(count "$ST_TMP/$1.csv" \
			"kind == \"call\" && rank == $r && fn == \"MPI_Allreduce\"")
		[ "$c" -gt 0 ] && [ "$c" -le $n ] ||
			{ show "$ST_TMP/$1.dump.err";
			  fail "$1: rank $r has $c of $n MPI_Allreduce calls"; }
		counts="$counts $c"
	done
	warn=$(head -n 1 "$ST_TMP/$1.dump.err")
	note "$1: MPI_Allreduce calls in the trace per rank:$counts of $n${warn:+ (dump says: $warn)}"
}

for mode in kill term int; do
	untraced "$ST_TMP/$mode-plain" $MPIEXEC -n 2 "$ST_APPS/crash" $mode $n
	traced "$ST_TMP/$mode" "$ST_TMP/$mode" $MPIEXEC -n 2 \
		"$ST_APPS/crash" $mode $n
	[ "$(grep -c "did $n allreduce.*errors 0" "$ST_TMP/$mode.out")" = 2 ] ||
		{ show "$ST_TMP/$mode.out"; fail "$mode: ranks did not finish"; }
	grep -q survived "$ST_TMP/$mode.out" &&
		fail "$mode: the signal was swallowed; the app went on"
	rc=$(cat "$ST_TMP/$mode.rc") plain=$(cat "$ST_TMP/$mode-plain.rc")
	same_job_status "$rc" "$plain" ||
		fail "$mode: exit status $rc, $plain without synctrace"
	[ "$(cat "$ST_TMP/$mode.rc")" != 0 ] || fail "$mode: job exited 0"
	check_trace $mode "$ST_TMP/$mode"
done

# Killed from outside once every rank says it is waiting.
out=$ST_TMP/external
: > "$out.out"
env LD_PRELOAD="$ST_PRELOAD" SYNCTRACE_DIR="$out" $MPIEXEC -n 2 \
	"$ST_APPS/crash" wait $n < /dev/null > "$out.out" 2> "$out.err" &
job=$!
i=0
while [ "$(grep -c waiting "$out.out")" != 2 ]; do
	i=$((i + 1))
	[ $i -le 300 ] || { kill $job; show "$out.out"; show "$out.err";
			    fail "external: the ranks never got to wait"; }
	sleep 0.1
done
pids=$(sed -n 's/.* waiting pid \([0-9]*\)$/\1/p' "$out.out")
[ "$(echo $pids | wc -w)" = 2 ] || fail "external: no pids in output"
kill -KILL $pids
wait $job
note "external: mpiexec exited with $? after SIGKILL to ranks" $pids
check_trace external "$out"
