#!/bin/sh
# tests/integration/t-runs.sh: no run ever damages another.  A job
# script that exports one SYNCTRACE_DIR and runs two mpiexec steps gets
# two complete traces, the first left byte for byte as it was; patterns
# in SYNCTRACE_DIR expand (job id, program, ranks, host), a name ending
# in '/' is a parent, and the default name holds the program's name;
# `synctrace run` over a script of two steps reports both; names taken
# by symbolic links are never followed, and after 100 the library warns
# once and steps aside; the tools refuse a run whose files come from two
# runs, or whose index declares more ranks than its files.
. "$(dirname "$0")/lib.sh"

need_app colls
untraced "$ST_TMP/plain" $MPIEXEC -n 2 "$ST_APPS/colls"
expect_rc "$ST_TMP/plain" 0

# index DIR KEY: the value of KEY in DIR's index (the last one).
index()
{
	sed -n "s/^$2=//p" "$1/synctrace.run" | tail -n 1
}

# complete_run DIR N: DIR is a complete trace of N ranks, rank files
# 0..N-1, every one of this run.
complete_run()
{
	[ "$(index "$1" nranks)" = "$2" ] && [ "$(index "$1" complete)" = 1 ] ||
		{ show "$1/synctrace.run"; fail "'$1' is not a complete run of $2 ranks"; }
	[ "$(ls "$1" | grep -c '^rank-[0-9]*\.st$')" = "$2" ] ||
		{ ls -l "$1"; fail "'$1' does not hold $2 rank files"; }
	"$ST_CLI" report "$1" > "$1.report" 2> "$1.report.err" ||
		{ show "$1.report.err"; fail "'synctrace report $1' failed"; }
	grep -q "n=$2 read, on n=1 host, run complete" "$1.report" ||
		{ show "$1.report"; fail "report of '$1' does not say complete"; }
}

# A job script: SYNCTRACE_DIR exported once, two steps.
job=$ST_TMP/job
mkdir "$job"
cat > "$job/job.sh" <<EOS
export SYNCTRACE_DIR='$job/trace'
export LD_PRELOAD='$ST_PRELOAD'
$MPIEXEC -n 2 '$ST_APPS/colls' > '$job/step1.out' || exit 1
cksum '$job'/trace/* > '$job/after-step1'
$MPIEXEC -n 3 '$ST_APPS/colls' > '$job/step2.out' || exit 2
EOS
sh "$job/job.sh" < /dev/null > "$job/job.out" 2> "$job/job.err" ||
	{ show "$job/job.err"; fail "the job script failed"; }
[ ! -s "$job/job.err" ] || { show "$job/job.err"; fail "the job said something"; }
complete_run "$job/trace" 2
complete_run "$job/trace.1" 3
cksum "$job"/trace/rank-* "$job"/trace/synctrace.run > "$job/after-step2"
cmp -s "$job/after-step1" "$job/after-step2" ||
	{ diff "$job/after-step1" "$job/after-step2";
	  fail "step 2 changed the trace of step 1"; }
id1=$(index "$job/trace" run_id)
id2=$(index "$job/trace.1" run_id)
[ -n "$id1" ] && [ -n "$id2" ] && [ "$id1" != "$id2" ] ||
	fail "run ids '$id1' and '$id2'"
note "job script: step 1 in trace (2 ranks), step 2 in trace.1 (3 ranks)"

# The same job under `synctrace run`: one summary line per step.
cat > "$job/job2.sh" <<EOS
$MPIEXEC -n 2 '$ST_APPS/colls' > /dev/null || exit 1
$MPIEXEC -n 3 '$ST_APPS/colls' > /dev/null || exit 2
EOS
mkdir "$job/cli"
(cd "$job/cli" && cli_run "$job/cli/out" "$job/cli/run" -- sh "$job/job2.sh")
expect_rc "$job/cli/run" 0
[ "$(grep -c '^synctrace: trace in .*(2 ranks, complete)$' "$job/cli/run.cli")" = 1 ] &&
	[ "$(grep -c '^synctrace: trace in .*(3 ranks, complete)$' "$job/cli/run.cli")" = 1 ] ||
	{ show "$job/cli/run.cli"; fail "synctrace run did not report both steps"; }
complete_run "$job/cli/out" 2
complete_run "$job/cli/out.1" 3
note "synctrace run -o out over two steps: $(tr '\n' ';' < "$job/cli/run.cli")"

# Patterns, a parent directory, and the default name.
pat=$ST_TMP/pat
mkdir "$pat" "$pat/parent" "$pat/default"
host=$(hostname | sed 's/\..*//; s/[^A-Za-z0-9._+-]/_/g')
SLURM_JOB_ID=4242 traced "$pat/%j-%x-%n-%h" "$pat/p" $MPIEXEC -n 2 \
	"$ST_APPS/colls"
expect_rc "$pat/p" 0
complete_run "$pat/4242-colls-2-$host" 2
traced "$pat/parent/" "$pat/q" $MPIEXEC -n 2 "$ST_APPS/colls"
expect_rc "$pat/q" 0
p=$(ls "$pat/parent")
case $p in
synctrace-colls-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]-[0-9]*) ;;
*) fail "SYNCTRACE_DIR ending in '/' made '$p'" ;;
esac
complete_run "$pat/parent/$p" 2
(cd "$pat/default" && env -u SYNCTRACE_DIR LD_PRELOAD="$ST_PRELOAD" \
	$MPIEXEC -n 2 "$ST_APPS/colls" > /dev/null 2> "$pat/r.err")
d=$(ls "$pat/default")
case $d in
synctrace-colls-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]-[0-9]*) ;;
*) fail "the default run directory is '$d'" ;;
esac
complete_run "$pat/default/$d" 2
note "patterns: 4242-colls-2-$host, parent/$p, default $d"

# A bad pattern: one warning, tracing off, the application as ever.
traced "$pat/x-%q" "$pat/bad" $MPIEXEC -n 2 "$ST_APPS/colls"
sort "$ST_TMP/plain.out" > "$ST_TMP/plain.sorted"
sort "$pat/bad.out" > "$pat/bad.sorted"
cmp -s "$ST_TMP/plain.sorted" "$pat/bad.sorted" ||
	fail "bad pattern: stdout differs from an untraced run"
expect_rc "$pat/bad" 0
[ "$(wc -l < "$pat/bad.err")" = 1 ] &&
	grep -q "^synctrace\[rank 0\]: SYNCTRACE_DIR='.*x-%q' is not a valid pattern: unknown escape '%q'.*; tracing disabled$" "$pat/bad.err" ||
	{ show "$pat/bad.err"; fail "bad pattern: not one warning line"; }
[ ! -e "$pat/x-%q" ] || fail "bad pattern: made a directory"

# Taken names: a regular file is passed over; 100 symbolic links (to a
# directory someone else would like written) stop the library, which
# says so once and follows none of them.
taken=$ST_TMP/taken
mkdir "$taken" "$taken/victim"
: > "$taken/file"
traced "$taken/file" "$taken/f" $MPIEXEC -n 2 "$ST_APPS/colls"
expect_rc "$taken/f" 0
[ -f "$taken/file" ] && [ ! -s "$taken/file" ] || fail "the file was written"
complete_run "$taken/file.1" 2
ln -s "$taken/victim" "$taken/trace"
i=1
while [ $i -lt 100 ]; do
	ln -s "$taken/victim" "$taken/trace.$i"
	i=$((i + 1))
done
traced "$taken/trace" "$taken/t" $MPIEXEC -n 2 "$ST_APPS/colls"
sort "$taken/t.out" > "$taken/t.sorted"
cmp -s "$ST_TMP/plain.sorted" "$taken/t.sorted" || fail "taken: stdout differs"
expect_rc "$taken/t" 0
[ "$(wc -l < "$taken/t.err")" = 1 ] &&
	grep -q "^synctrace\[rank 0\]: cannot create a run directory: '.*/trace' and '.*/trace.1' to '.*/trace.99' are all taken; tracing disabled$" "$taken/t.err" ||
	{ show "$taken/t.err"; fail "taken: not one warning line"; }
[ -z "$(ls "$taken/victim")" ] || fail "taken: wrote through a symbolic link"
[ ! -e "$taken/trace.100" ] || fail "taken: tried a 101st name"
note "taken: $(cat "$taken/t.err")"

# Files of two runs in one directory, and an index the files deny.
bad=$ST_TMP/bad
mkdir "$bad"
# Rank 1 of another run of as many ranks: only the run id tells.
cp -r "$job/trace" "$bad/mixed"
cp "$pat/4242-colls-2-$host/rank-1.st" "$bad/mixed/rank-1.st"
cp -r "$job/trace" "$bad/beyond"
cp "$job/trace.1/rank-2.st" "$bad/beyond/"
cp -r "$job/trace" "$bad/big"
sed 's/^nranks=2$/nranks=4194304/' "$job/trace/synctrace.run" > "$bad/index"
cat "$bad/index" > "$bad/big/synctrace.run"
"$ST_CLI" table "$job/trace" --json "$bad/self.json" > /dev/null 2>&1 ||
	fail "synctrace table of the good trace failed"
for case in "mixed:files of different runs cannot be read as one run" \
	"beyond:rank-2.st' is beyond the 2 ranks" \
	"big:declares nranks=4194304: the index does not belong"; do
	d=$bad/${case%%:*}
	msg=${case#*:}
	for cmd in dump report table "predict --table $bad/self.json"; do
		set -- $cmd
		c=$1
		shift
		"$ST_CLI" $c "$d" "$@" > "$d.$c.out" 2> "$d.$c.err"
		rc=$?
		[ $rc = 1 ] && grep -q "$msg" "$d.$c.err" ||
			{ show "$d.$c.err";
			  fail "synctrace $c of ${case%%:*}: exit $rc, not refused"; }
	done
	note "${case%%:*}: refused: $(cat "$d.dump.err")"
done
