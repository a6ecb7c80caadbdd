#!/bin/sh
# tests/integration/t-settings.sh: bad settings are said, and switch
# tracing off.  A bad value of a SYNCTRACE_ variable (or a misspelt
# variable) gives one warning line from rank 0 and no trace, and the
# application runs as untraced; `synctrace run` says why it has no
# trace, and refuses a bad option before it starts the job.  A good
# setting that leaves the completion calls untraced is silent.  A
# SYNCTRACE_NOTIFY that is no regular file (a FIFO nobody reads) is
# passed over, never waited on.
. "$(dirname "$0")/lib.sh"

need_app p2p
untraced "$ST_TMP/plain" $MPIEXEC -n 2 "$ST_APPS/p2p"
expect_rc "$ST_TMP/plain" 0
sort "$ST_TMP/plain.out" > "$ST_TMP/plain.sorted"

# same_as_plain OUT: OUT's stdout (sorted) and exit status are the
# untraced run's.
same_as_plain()
{
	sort "$1.out" > "$1.sorted"
	cmp -s "$ST_TMP/plain.sorted" "$1.sorted" ||
		{ diff "$ST_TMP/plain.sorted" "$1.sorted";
		  fail "stdout of '$1' differs from an untraced run"; }
	expect_rc "$1" 0
}

i=0
for setting in SYNCTRACE_CLOCK_SKEW=garbage SYNCTRACE_CLOCK_SKEW=1e999s \
	SYNCTRACE_CLOCK_SKEW=0,+1s@1e999ppm SYNCTRACE_FAMILIES=MPI_Allreduce \
	SYNCTRACE_BUFFER=2G SYNCTRACE_DEPTH=-1 SYNCTRACE_SYNC=ntp \
	SYNCTRACE_FLUSH_MS=1e3 SYNCTRACE_BUFER=64K; do
	i=$((i + 1))
	var=${setting%%=*}
	out=$ST_TMP/$i
	env "$setting" LD_PRELOAD="$ST_PRELOAD" SYNCTRACE_DIR="$out" \
		$MPIEXEC -n 2 "$ST_APPS/p2p" < /dev/null > "$out.out" \
		2> "$out.err"
	echo $? > "$out.rc"
	same_as_plain "$out"
	[ "$(wc -l < "$out.err")" = 1 ] &&
		grep -q "^synctrace\[rank 0\]: $var.*; tracing disabled$" \
			"$out.err" ||
		{ show "$out.err"; fail "$setting: not one warning line"; }
	[ ! -e "$out" ] || fail "$setting: a trace was made"
	note "$setting: $(cat "$out.err")"
done

# Through `synctrace run`: it says why there is no trace.
out=$ST_TMP/cli-skew
SYNCTRACE_CLOCK_SKEW=garbage
export SYNCTRACE_CLOCK_SKEW
cli_run "$out" "$out" -- $MPIEXEC -n 2 "$ST_APPS/p2p"
unset SYNCTRACE_CLOCK_SKEW
same_as_plain "$out"
[ "$(cat "$out.cli")" = "synctrace: no trace written: tracing was switched off: SYNCTRACE_CLOCK_SKEW='garbage' is not a list of OFFSET[@DRIFT] per rank such as 0,+0.5s@-20ppm (units s, ms, us, ns; |offset| up to 1e18 ns, |drift| up to 1e5 ppm)" ] ||
	{ show "$out.cli"; fail "synctrace run did not say why"; }
[ ! -e "$out" ] || fail "synctrace run left its empty directory"
note "run: $(cat "$out.cli")"

# A bad option starts nothing.
for opt in "--families MPI_Allreduce" "--buffer 2G" "-o x-%q"; do
	out=$ST_TMP/cli-opt
	"$ST_CLI" run $opt -- $MPIEXEC -n 2 "$ST_APPS/p2p" < /dev/null \
		> "$out.out" 2> "$out.err"
	echo $? > "$out.rc"
	expect_rc "$out" 129
	[ ! -s "$out.out" ] || fail "run $opt: the job ran"
	grep -q '^synctrace: ' "$out.err" || fail "run $opt: no message"
	note "run $opt: $(head -n 1 "$out.err")"
done

# A good setting that leaves the completion calls untraced: requests
# cannot be tied to completions, so none is tracked (20,000 sends that
# completed at once once filled the interposer's ring, and each rank
# warned that their completions were lost); the report says what is
# unknown.
need_app nullsends
out=$ST_TMP/nocomplete
env SYNCTRACE_FAMILIES=all,-complete LD_PRELOAD="$ST_PRELOAD" \
	SYNCTRACE_DIR="$out" $MPIEXEC -n 2 "$ST_APPS/nullsends" 20000 \
	< /dev/null > "$out.out" 2> "$out.err"
echo $? > "$out.rc"
expect_rc "$out" 0
grep -q 'nullsends: all ranks ok' "$out.out" ||
	{ show "$out.out"; fail "families without complete: wrong results"; }
[ ! -s "$out.err" ] || { show "$out.err"; fail "families without complete: stderr"; }
dump_csv "$out" "$out.csv"
expect_count "$out.csv" 'kind == "call" && fn == "MPI_Isend"' 40002
expect_count "$out.csv" 'kind == "done" || fn == "MPI_Waitall"' 0
"$ST_CLI" report "$out" > "$out.report" 2>&1 ||
	{ show "$out.report"; fail "report of a run without completion calls"; }
grep -q '^ *no completion calls traced: nonblocking spans and received bytes unknown$' \
	"$out.report" || { show "$out.report"; fail "report did not say completions are untraced"; }
grep -q 'pending' "$out.report" &&
	{ show "$out.report"; fail "report counted pending operations"; }
note "SYNCTRACE_FAMILIES=all,-complete: 20,000 nonblocking iterations, silent, no request tracked"

# SYNCTRACE_NOTIFY naming a FIFO that nobody reads: opening it to write
# once blocked rank 0 in MPI_Init for good.  The run is traced as usual.
fifo=$ST_TMP/notify.fifo
rm -f "$fifo"
mkfifo "$fifo" || fail "cannot make a FIFO"
out=$ST_TMP/fifo
env MPIEXEC_TIMEOUT=30 SYNCTRACE_NOTIFY="$fifo" LD_PRELOAD="$ST_PRELOAD" \
	SYNCTRACE_DIR="$out" $MPIEXEC -n 2 "$ST_APPS/p2p" < /dev/null \
	> "$out.out" 2> "$out.err"
echo $? > "$out.rc"
same_as_plain "$out"
[ ! -s "$out.err" ] || { show "$out.err"; fail "notify FIFO: stderr"; }
"$ST_CLI" report "$out" > "$out.report" 2>&1 &&
	grep -q 'run complete' "$out.report" ||
	{ show "$out.report"; fail "notify FIFO: the run is not complete"; }
note "SYNCTRACE_NOTIFY on a FIFO: passed over, the run traced"

# Ranks with different environments, as an MPMD job's -env gives them.
# A rank that stepped aside at MPI_Init (SYNCTRACE_DISABLE=1, a bad
# value) once held the others in it for good, as did SYNCTRACE_SYNC*
# settings that differ (the ranks waited for each other's clock
# messages); and a rank on the TSC took its node leader's clock map
# where the leader read CLOCK_MONOTONIC_RAW (SYNCTRACE_CLOCK=raw),
# which held nothing: its times were off by hours.  Now no rank traces
# when one must not, rank 0 saying why, and the synchronisation
# settings and a shared clock are rank 0's.  MPIEXEC_TIMEOUT ends a
# job that hangs.
# mpmd OUT RANK VAR=VALUE: p2p on 2 ranks, VAR=VALUE for rank RANK only.
mpmd()
{
	st_v=${3%%=*}
	st_x=${3#*=}
	if [ "$2" = 0 ]; then
		set -- "$1" -n 1 -env "$st_v" "$st_x" "$ST_APPS/p2p" : \
			-n 1 "$ST_APPS/p2p"
	else
		set -- "$1" -n 1 "$ST_APPS/p2p" : \
			-n 1 -env "$st_v" "$st_x" "$ST_APPS/p2p"
	fi
	st_o=$1
	shift
	env MPIEXEC_TIMEOUT=120 LD_PRELOAD="$ST_PRELOAD" SYNCTRACE_DIR="$st_o" \
		$MPIEXEC "$@" < /dev/null > "$st_o.out" 2> "$st_o.err"
	echo $? > "$st_o.rc"
	same_as_plain "$st_o"
}

for case in "1 SYNCTRACE_DEPTH=99 SYNCTRACE_DEPTH='99' .*(in the environment of rank 1)" \
	"0 SYNCTRACE_DEPTH=99 SYNCTRACE_DEPTH='99' [^(]*" \
	"0 SYNCTRACE_DISABLE=1 SYNCTRACE_DISABLE=1 is set for some ranks only, so no rank is traced" \
	"1 SYNCTRACE_DISABLE=1 SYNCTRACE_DISABLE=1 is set for some ranks only, so no rank is traced"; do
	set -- $case
	what="$2 for rank $1 only"
	out=$ST_TMP/mpmd-$1-${2%%=*}
	mpmd "$out" "$1" "$2"
	shift 2
	[ "$(wc -l < "$out.err")" = 1 ] &&
		grep -q "^synctrace\[rank 0\]: $*; tracing disabled$" "$out.err" ||
		{ show "$out.err"; fail "$what: not one warning line"; }
	[ ! -e "$out" ] || fail "$what: a trace was made"
	note "$what: $(cat "$out.err")"
done

for case in "1 SYNCTRACE_SYNC=skampi" "0 SYNCTRACE_SYNC=off" \
	"1 SYNCTRACE_SYNC_NODE=0" "0 SYNCTRACE_SYNC_CHECK=8" \
	"1 SYNCTRACE_SYNC_POINTS=4" "0 SYNCTRACE_CLOCK=raw"; do
	set -- $case
	what="$2 for rank $1 only"
	out=$ST_TMP/mpmd-$1-${2%%=*}
	mpmd "$out" "$1" "$2"
	case $2 in
	SYNCTRACE_SYNC*)
		[ "$(cat "$out.err")" = "synctrace[rank 1]: its SYNCTRACE_SYNC* settings differ from rank 0's; it takes rank 0's" ] ||
			{ show "$out.err"; fail "$what: not one note from rank 1"; } ;;
	*)
		[ ! -s "$out.err" ] || { show "$out.err"; fail "$what: stderr"; } ;;
	esac
	"$ST_CLI" report "$out" > "$out.report" 2>&1 &&
		grep -q 'n=2 read, on n=1 host, run complete' "$out.report" ||
		{ show "$out.report"; fail "$what: the run is not complete"; }
	# Both ranks enter MPI_Finalize within minutes on the global clock.
	dump_csv "$out" "$out.csv"
	st_awk "$out.csv" 'kind == "call" && fn == "MPI_Finalize" { g[rank] = g0_ns }
		END { d = g[0] - g[1]; if (d < 0) d = -d; exit !(1 in g && d < 600e9) }' ||
		{ grep MPI_Finalize "$out.csv"; fail "$what: global times ranks apart"; }
	note "$what: traced, complete, the ranks on one global clock"
done

# SYNCTRACE_FAMILIES for some ranks only: a traced window's id is
# agreed by a collective of synctrace's on its communicator, which a
# rank that did not trace rma never joined, so the application's next
# allreduce met synctrace's ("Message truncated") and the job aborted.
# Every rank now takes rank 0's families, the others saying so.
# The app's expectations go to a file per rank (ST_EXPECT): on the
# shared stdout the two ranks' lines interleave, even within a line.
need_app rma
untraced "$ST_TMP/rma-plain" env ST_EXPECT="$ST_TMP/rma-plain.x" \
	$MPIEXEC -n 2 "$ST_APPS/rma"
expect_rc "$ST_TMP/rma-plain" 0
out=$ST_TMP/mpmd-rma
env MPIEXEC_TIMEOUT=120 LD_PRELOAD="$ST_PRELOAD" SYNCTRACE_DIR="$out" \
	ST_EXPECT="$out.x" $MPIEXEC -n 1 "$ST_APPS/rma" : -n 1 -env \
	SYNCTRACE_FAMILIES all,-rma "$ST_APPS/rma" < /dev/null > "$out.out" \
	2> "$out.err"
echo $? > "$out.rc"
expect_rc "$out" 0
sort "$ST_TMP/rma-plain.out" > "$ST_TMP/rma-plain.sorted"
sort "$out.out" | cmp -s "$ST_TMP/rma-plain.sorted" - ||
	{ show "$out.out"; fail "families for rank 1 only: stdout differs from an untraced run"; }
[ "$(cat "$out.err")" = "synctrace[rank 1]: its SYNCTRACE_FAMILIES differ from rank 0's; it takes rank 0's" ] ||
	{ show "$out.err"; fail "families for rank 1 only: not one note from rank 1"; }
dump_csv "$out" "$out.csv"
check_expects "$out.x" "$out.csv"
expect_count "$out.csv" 'kind == "call" && rank == 1 && fn == "MPI_Win_create"' 1
note "SYNCTRACE_FAMILIES=all,-rma for rank 1 only: rank 0's taken, the windows traced"

# What holds for some ranks only: the report showed rank 0's command
# and config as the run's.  It now says which ranks differ and how.
out=$ST_TMP/mpmd-report
env MPIEXEC_TIMEOUT=120 LD_PRELOAD="$ST_PRELOAD" SYNCTRACE_DIR="$out" \
	$MPIEXEC -n 1 "$ST_APPS/p2p" : -n 1 -env SYNCTRACE_DEPTH 2 \
	"$ST_APPS/p2p" rank-1 < /dev/null > "$out.out" 2> "$out.err"
echo $? > "$out.rc"
same_as_plain "$out"
"$ST_CLI" report "$out" > "$out.report" 2>&1 ||
	{ show "$out.report"; fail "report of an MPMD run"; }
# The report cuts a line at 100 columns, the last three "...".
cmd="             $ST_APPS/p2p rank-1"
[ ${#cmd} -le 100 ] || cmd="$(printf '%.97s' "$cmd")..."
grep -qxF "$cmd" "$out.report" ||
	{ show "$out.report"; fail "MPMD report: no line '$cmd'"; }
for line in "n=1 other rank ran another command, the first: rank 1:" \
	"n=1 other rank had another, the first: rank 1: depth=2"; do
	grep -qxF "             $line" "$out.report" ||
		{ show "$out.report"; fail "MPMD report: no line '$line'"; }
done
note "report of an MPMD run: the other rank's command and config"
