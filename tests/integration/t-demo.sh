#!/bin/sh
# tests/integration/t-demo.sh: `make demo` (tools/scripts/demo.sh) keeps
# its trace in a named directory, which the next demo replaces saying
# so, and refuses a directory it did not make; every command it suggests
# at the end ("  $ ..." lines) runs on that trace with status 0 (bench
# with --sync barrier, so that load cannot stretch it past a time limit).  The
# trace carries synctrace's version in every rank's header, and the
# tables made from it in their text and JSON.
. "$(dirname "$0")/lib.sh"

need_app halo
[ -x "$st_build/synctrace-bench" ] || fail "no synctrace-bench: run make"
# A sanitizer build's library needs its runtime first (see cli_run).
[ -n "$SAN" ] && export LD_PRELOAD="$st_asan"

demo()
{
	(cd "$ST_TMP" && BUILD=$st_build DEMO_DIR=demo MPIEXEC=$MPIEXEC \
		sh "$st_top/tools/scripts/demo.sh") < /dev/null \
		> "$ST_TMP/$1.out" 2> "$ST_TMP/$1.err"
}

demo first || { cat "$ST_TMP/first.err"; fail "make demo failed"; }
[ -f "$ST_TMP/demo/rank-0.st" ] && [ -f "$ST_TMP/demo/rank-1.st" ] ||
	fail "the demo's trace is not in demo/"
grep -q "^The trace stays in 'demo'" "$ST_TMP/first.out" ||
	fail "the demo does not say where its trace is"
demo second || { cat "$ST_TMP/second.err"; fail "second demo failed"; }
grep -q "^synctrace demo: replacing 'demo'" "$ST_TMP/second.out" ||
	fail "the second demo does not say it replaces the first's trace"
note "the trace stays in demo/; the next demo replaces it, saying so"

mkdir "$ST_TMP/other" && : > "$ST_TMP/other/mine"
(cd "$ST_TMP" && BUILD=$st_build DEMO_DIR=other \
	sh "$st_top/tools/scripts/demo.sh") < /dev/null \
	> "$ST_TMP/other.out" 2> "$ST_TMP/other.err" &&
	fail "the demo replaced a directory it did not make"
[ -f "$ST_TMP/other/mine" ] || fail "the demo removed another directory"
grep -q "is not a demo's trace" "$ST_TMP/other.err" ||
	fail "no reason given for refusing 'other'"
note "a directory the demo did not make is refused and kept"

# Every suggested command, as printed, from where the demo ran.
sed -n 's/^  \$ //p' "$ST_TMP/second.out" > "$ST_TMP/next"
[ "$(wc -l < "$ST_TMP/next")" -ge 5 ] || fail "too few suggestions"
i=0
while read -r cmd; do
	i=$((i + 1))
	# Window timing discards what a busy machine disturbs and so takes
	# as long as the load makes it; barriers take a bounded time, and
	# the command line and what follows it are what is tested here.
	case $cmd in
	*" bench "*) cmd="$cmd --sync barrier" ;;
	esac
	(cd "$ST_TMP" && eval "$cmd") < /dev/null > "$ST_TMP/next-$i.out" \
		2> "$ST_TMP/next-$i.err" ||
		{ cat "$ST_TMP/next-$i.err"; fail "suggested '$cmd' failed"; }
done < "$ST_TMP/next"
note "all $i suggested commands run"

# The version, from the trace header to the tables.
v=$("$ST_CLI" --version | sed -n 's/^synctrace version //p')
[ -n "$v" ] || fail "synctrace --version says nothing"
n=$("$ST_CLI" dump --header "$ST_TMP/demo" | grep -c "^synctrace_version=$v\$")
[ "$n" = 2 ] || fail "not both rank headers carry synctrace_version=$v"
"$ST_CLI" table --json "$ST_TMP/t.json" "$ST_TMP/demo" > "$ST_TMP/t.txt" ||
	fail "synctrace table failed"
grep -q "^made by: *synctrace version $v\$" "$ST_TMP/t.txt" ||
	fail "the text table does not name synctrace $v"
grep -q "\"synctrace_version\": \"$v\"" "$ST_TMP/t.json" ||
	fail "the JSON table does not name synctrace $v"
note "version $v in the headers and in the tables"
