#!/bin/sh
#
# tests/conformance.sh: run MPICH's own test suites (the directories of
# test/mpi in the Debian mpich source package named by CONFORMANCE_DIRS,
# by default coll, pt2pt, part, rma, io, init and spawn) twice, first as
# is, then with libsynctrace.so preloaded, and fail if the preload
# breaks a test that passes without it or leaves a trace `synctrace
# dump` cannot read.  The source is fetched with `apt-get source` and
# the tests are built once into $BUILD/conformance/, so a re-run only
# runs them (and builds a directory not built before).
#
# Every test runs with at most 2 ranks.  One listed for more ranks runs
# with 2 when it passes that way without the preload; otherwise it is
# counted as skipped.  A test passes as under MPICH's runtests: exit
# status 0, a " No Errors" line, and no other output.
#
# Environment: BUILD (default build), MPIEXEC (default mpiexec.mpich),
# CONFORMANCE_DIRS (directories of test/mpi, default "coll pt2pt part
# rma io init spawn"), CONFORMANCE_TIMEOUT (seconds per test, default
# 60), CONFORMANCE_ONLY (a grep -E pattern: run only the tests whose
# name, DIR/NAME, matches).
# Exit status: 0 all good, 1 a failure, 77 a prerequisite is missing.

BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
MPICC=${MPICC:-mpicc.mpich}
TLIMIT=${CONFORMANCE_TIMEOUT:-60}
DIRS=${CONFORMANCE_DIRS:-coll pt2pt part rma io init spawn}
MAXNP=2

top=$(pwd)
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
lib=$build/libsynctrace.so
cli=$build/synctrace
cache=$build/conformance
runs=$cache/run

say()
{
	printf 'conformance: %s\n' "$*"
}

skip_all()
{
	say "skipped: $*" >&2
	exit 77
}

die()
{
	say "error: $*" >&2
	exit 1
}

# Turn the machine's Debian "deb" entries into "deb-src" ones, in a file
# of our own, so that `apt-get source` works.
enable_deb_src()
{
	f=/etc/apt/sources.list.d/synctrace-deb-src.sources
	[ "$(id -u)" = 0 ] || skip_all "no deb-src entry for mpich and not root"
	say "adding deb-src entries in $f"
	{
		for s in /etc/apt/sources.list.d/*.sources; do
			[ -f "$s" ] || continue
			awk 'BEGIN { RS = ""; ORS = "\n\n" }
				/(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ &&
				/URIs:[^\n]*debian/ {
					sub(/Types:[^\n]*/, "Types: deb-src")
					print
				}' "$s"
		done
		for s in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$s" ] || continue
			sed -n 's/^[ \t]*deb[ \t]\(.*debian.*\)$/# deb-src \1/p' \
				"$s"
		done
	} > "$f.tmp"
	# One-line entries cannot go into a deb822 file: put them in a .list.
	grep '^# deb-src ' "$f.tmp" | sed 's/^# //' > "${f%.sources}.list"
	grep -v '^# deb-src ' "$f.tmp" > "$f"
	rm -f "$f.tmp"
	[ -s "${f%.sources}.list" ] || rm -f "${f%.sources}.list"
	[ -s "$f" ] || rm -f "$f"
	apt-get update -qq >&2 || die "apt-get update failed"
}

# Fetch and configure test/mpi once, and build each directory of DIRS
# not built yet; 'mpi' is test/mpi.
prepare()
{
	if [ -f "$cache/configured" ] &&
	   [ -d "$(cat "$cache/configured")" ]; then
		mpi=$(cat "$cache/configured")
		build_dirs
		return
	fi
	command -v "$MPICC" >/dev/null || skip_all "no $MPICC"
	command -v apt-get >/dev/null || skip_all "no apt-get"
	if ! command -v dpkg-source >/dev/null; then
		[ "$(id -u)" = 0 ] || skip_all "no dpkg-source (dpkg-dev)"
		apt-get install -y -qq --no-install-recommends dpkg-dev \
			xz-utils >&2 || die "cannot install dpkg-dev"
	fi
	rm -rf "$cache"
	mkdir -p "$cache" || die "cannot create '$cache'"
	if ! apt-cache showsrc mpich 2>/dev/null | grep -q '^Package:'; then
		enable_deb_src
	fi
	say "fetching the mpich source package"
	(cd "$cache" && apt-get source -qq mpich) > "$cache/fetch.log" 2>&1 ||
		{ cat "$cache/fetch.log" >&2; die "apt-get source mpich failed"; }
	src=$(ls -d "$cache"/mpich-*/ 2>/dev/null | head -n 1)
	src=${src%/}
	[ -d "$src/test/mpi/coll" ] || die "no test/mpi/coll in '$src'"
	say "configuring $src/test/mpi (log: $cache/configure.log)"
	(cd "$src/test/mpi" &&
	 ./configure MPICC="$MPICC" MPIEXEC="$MPIEXEC" --with-mpi=/usr \
		--disable-fortran --disable-cxx --disable-dtpools) \
		> "$cache/configure.log" 2>&1 ||
		{ tail -n 20 "$cache/configure.log" >&2;
		  die "configure failed"; }
	mpi=$src/test/mpi
	echo "$mpi" > "$cache/configured"
	build_dirs
}

# Build each directory of DIRS that has not been built yet.
build_dirs()
{
	for d in $DIRS; do
		[ ! -f "$cache/built.$d" ] || continue
		[ -d "$mpi/$d" ] || die "no test/mpi/$d in '$mpi'"
		say "building test/mpi/$d (log: $cache/make.$d.log)"
		make -C "$mpi/$d" -j"$(nproc 2>/dev/null || echo 2)" \
			> "$cache/make.$d.log" 2>&1 ||
			{ tail -n 20 "$cache/make.$d.log" >&2;
			  die "make in test/mpi/$d failed"; }
		: > "$cache/built.$d"
	done
}

# Run test $name (args "$targs", env "$tenv") with $np ranks, output in
# $1; extra environment follows.  Sets 'status' to pass, fail or timeout
# and 'why' to a short reason.
run_one()
{
	out=$1
	shift
	(cd "$mpi/$tdir" &&
	 env MPIEXEC_TIMEOUT="$tl" $tenv "$@" \
		timeout -k 5 $((tl + 15)) \
		$MPIEXEC -n "$np" ./"$name" $targs) < /dev/null > "$out" 2>&1
	rc=$?
	noerr=$(grep -c '^[ \t]*No [Ee]rrors[ \t]*$' "$out")
	other=$(grep -v -e '^[ \t]*No [Ee]rrors[ \t]*$' \
		-e '^[ \t]*Test Passed[ \t]*$' -e 'FORTRAN STOP' "$out" |
		grep -c .)
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		status=fail why="timeout after ${tl}s"
	elif [ $rc != 0 ]; then
		status=fail why="exit status $rc"
	elif [ "$noerr" = 0 ]; then
		status=fail why="no ' No Errors' line"
	elif [ "$other" != 0 ]; then
		status=fail why="unexpected output"
	else
		status=pass why=
	fi
}

show_output()
{
	sed -n '1,15s/^/	| /p' "$1"
	n=$(wc -l < "$1")
	[ "$n" -le 15 ] || printf '\t| ... (%d lines, see %s)\n' "$n" "$1"
}

[ -f "$lib" ] || die "no '$lib': run make first"
[ -x "$cli" ] || die "no '$cli': run make first"
command -v "$MPIEXEC" >/dev/null || skip_all "no $MPIEXEC"
command -v timeout >/dev/null || skip_all "no timeout(1)"

# A sanitizer build of the library needs its runtime loaded first.
preload=$lib
if ldd "$lib" 2>/dev/null | grep -q 'libasan'; then
	preload="$(gcc -print-file-name=libasan.so):$lib"
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi

start=$(date +%s)
prepare
built=$(date +%s)
[ $((built - start)) -le 1 ] || say "prepared in $((built - start)) s"

rm -rf "$runs"
mkdir -p "$runs/base" "$runs/lib" "$runs/trace" || die "cannot create '$runs'"

# The test list, one "dir name np key=value..." per line, duplicates
# removed once the rank count is capped.  A testlist line may name a
# subdirectory instead of a test: those are left out.
for d in $DIRS; do
	grep -v -e '^[ \t]*#' -e '^[ \t]*$' "$mpi/$d/testlist" |
		while read -r name rest; do
			[ -d "$mpi/$d/$name" ] || echo "$d $name $rest"
		done
done > "$runs/list.all"

b_pass=0 b_fail=0 skipped=0
l_pass=0 l_fail=0 regress=0 badtrace=0
seen=" "
report=$runs/report
: > "$report"
id=0
while read -r tdir name lnp rest; do
	[ -n "$name" ] || continue
	if [ -n "$CONFORMANCE_ONLY" ] &&
	   ! echo "$tdir/$name" | grep -qE "$CONFORMANCE_ONLY"; then
		continue
	fi
	lnp=${lnp:-1}
	np=$lnp
	[ "$np" -le $MAXNP ] || np=$MAXNP
	targs='' tenv='' tl=$TLIMIT xfail=''
	for kv in $rest; do
		case $kv in
		arg=*) targs="$targs ${kv#arg=}" ;;
		env=*) tenv="$tenv ${kv#env=}" ;;
		timeLimit=*) [ "${kv#timeLimit=}" -le "$TLIMIT" ] ||
				tl=${kv#timeLimit=} ;;
		xfail=*) xfail=${kv#xfail=} ;;
		esac
	done
	key="$tdir/$name/$np/$(echo $targs $tenv | tr ' ' '_')"
	case $seen in
	*" $key "*) continue ;;
	esac
	seen="$seen$key "
	id=$((id + 1))
	label="$tdir/$name -n $np$targs"
	[ "$np" = "$lnp" ] || label="$label (listed for $lnp)"

	if [ -n "$xfail" ]; then
		skipped=$((skipped + 1))
		printf '%-5s %-5s %s: expected to fail (%s)\n' skip skip \
			"$label" "$xfail" >> "$report"
		continue
	fi

	run_one "$runs/base/$id.out"
	bstat=$status bwhy=$why
	if [ $bstat = fail ] && [ "$lnp" -gt $MAXNP ]; then
		skipped=$((skipped + 1))
		printf '%-5s %-5s %s: needs %s ranks (%s with %s)\n' \
			skip skip "$label" "$lnp" "$bwhy" "$np" >> "$report"
		continue
	fi
	if [ $bstat = pass ]; then
		b_pass=$((b_pass + 1))
	else
		b_fail=$((b_fail + 1))
	fi

	dir=$runs/trace/$id
	run_one "$runs/lib/$id.out" LD_PRELOAD="$preload" SYNCTRACE_DIR="$dir"
	lstat=$status lwhy=$why
	tr_ok=1 twhy=
	if [ ! -f "$dir/synctrace.run" ]; then
		tr_ok=0 twhy="no trace in '$dir'"
	elif ! "$cli" dump "$dir" < /dev/null > /dev/null \
		2> "$runs/trace/$id.err"; then
		tr_ok=0 twhy="'synctrace dump $dir' failed: $(head -n 1 \
			"$runs/trace/$id.err")"
	fi
	if [ $lstat = pass ] && [ $tr_ok = 1 ]; then
		l_pass=$((l_pass + 1))
	else
		l_fail=$((l_fail + 1))
	fi
	note=
	if [ $bstat = pass ] && [ $lstat = fail ]; then
		regress=$((regress + 1))
		note="REGRESSION: $lwhy"
	elif [ $bstat = fail ]; then
		note="fails without synctrace too: $bwhy"
	fi
	if [ $tr_ok = 0 ]; then
		badtrace=$((badtrace + 1))
		note="${note:+$note; }BAD TRACE: $twhy"
	fi
	printf '%-5s %-5s %s%s\n' $bstat $lstat "$label" "${note:+: $note}" \
		>> "$report"
	if [ $bstat = pass ] && [ $lstat = fail ]; then
		echo "	with synctrace:" >> "$report"
		show_output "$runs/lib/$id.out" >> "$report"
	fi
done < "$runs/list.all"

end=$(date +%s)
echo "base  with  test (per-test outputs in $runs)"
cat "$report"
say "$id distinct runs of the $(wc -l < "$runs/list.all") tests listed"
for d in $DIRS; do
	awk -v d="$d/" '
		$1 !~ /^(pass|fail|skip)$/ || index($3, d) != 1 { next }
		$1 == "skip" { s++; next }
		{ b[$1]++; l[$2]++ }
		END {
			printf "%-6s without: %d passed, %d failed; with: %d " \
			       "passed, %d failed; %d skipped\n", d, b["pass"],
			       b["fail"], l["pass"], l["fail"], s
		}' "$report"
done
echo "baseline: $b_pass passed, $b_fail failed, $skipped skipped"
echo "conformance: $l_pass passed, $l_fail failed, $skipped skipped"
say "$regress regressions, $badtrace unreadable or missing traces;" \
	"tests ran in $((end - built)) s"
[ $regress = 0 ] && [ $badtrace = 0 ] && [ $((b_pass + l_pass)) -gt 0 ]
