#!/bin/sh
# tests/integration/run.sh: run every tests/integration/t-*.sh in name
# order, each under a time limit, and report PASS, FAIL (with the test's
# output) or SKIP (exit status 77) for each, then one summary line
# "N passed, N failed, N skipped".  Exits non-zero if any test failed or
# was skipped: on Debian 12 after `make deps` every prerequisite is
# there, so a skip means a test did not run.  A test named in
# TEST_ALLOW_SKIP (space-separated names, e.g. "t-table-html") may skip
# (README.md, "Set up", says when that is reasonable).
#
# Environment: BUILD, SAN, MPIEXEC are passed on to the tests (see
# lib.sh); TEST_TIMEOUT is the limit per test in seconds (default 120).
# A test whose work grows with the machine's load more than the others'
# (callgrind, thousands of collectives of busy-polling ranks) says so in a line "# time limit: N" (seconds), which
# raises the limit for it alone.

limit=${TEST_TIMEOUT:-120}
dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$dir/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
export BUILD="$build" SAN MPIEXEC OMPIEXEC

logs=$build/integration
mkdir -p "$logs" || exit 1
pass=0 failed=0 skipped=0 allowed=0
all_start=$(date +%s)
for t in "$dir"/t-*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	log=$logs/$name.log
	lim=$(sed -n 's/^# time limit: \([0-9][0-9]*\)$/\1/p' "$t")
	[ -n "$lim" ] && [ "$lim" -gt "$limit" ] || lim=$limit
	start=$(date +%s)
	(cd "$top" && timeout -k 10 "$lim" sh "$t") < /dev/null > "$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0)
		pass=$((pass + 1))
		printf 'PASS  %s (%d s)\n' "$name" "$secs"
		;;
	77)
		skipped=$((skipped + 1))
		case " $TEST_ALLOW_SKIP " in
		*" $name "*)
			allowed=$((allowed + 1))
			ok="allowed by TEST_ALLOW_SKIP" ;;
		*)
			ok="a failure: not in TEST_ALLOW_SKIP" ;;
		esac
		printf 'SKIP  %s: %s (%s)\n' "$name" \
			"$(grep '^SKIP' "$log" | tail -n 1)" "$ok"
		;;
	*)
		failed=$((failed + 1))
		why="exit status $rc"
		[ $rc = 124 ] || [ $rc = 137 ] && why="timed out after $lim s"
		printf 'FAIL  %s (%s, %d s); its output:\n' "$name" "$why" \
			"$secs"
		sed 's/^/    /' "$log"
		;;
	esac
done
echo "$pass passed, $failed failed, $skipped skipped" \
	"($allowed allowed by TEST_ALLOW_SKIP) in $(($(date +%s) - all_start)) s"
[ $failed = 0 ] && [ $skipped = $allowed ]
