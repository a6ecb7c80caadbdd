#!/bin/sh
# tests/fuzz/run.sh: seeds and runs of the libFuzzer targets
# (docs/fuzzing.md).
#
#   run.sh check   replay every seed and the regression corpus
#                  (tests/fuzz/regress/TARGET/), then a fixed number of
#                  mutations per target from a fixed random seed: pass
#                  or fail does not depend on the machine's speed
#   run.sh fuzz    each target for its share of FUZZ_SECONDS, in fork
#                  mode so a crash is counted and fuzzing goes on; the
#                  corpus grows in $FUZZ_BUILD/corpus/TARGET, crashing
#                  inputs land in $FUZZ_BUILD/crashes/TARGET; prints
#                  executions and crashes per target
#
# Seeds are made here, from small traced runs of tests/integration/apps/
# halo.c on 2 ranks and, for fuzz-tools, on 1 (stored and deflated
# chunks, sync records), and of bench-calls' nonblocking loop (Huffman-
# coded chunks) and what the tools make of them, so they follow
# the format of this build.
# Environment: BUILD, FUZZ_BUILD, MPIEXEC, SAN, FUZZ_SECONDS.

BUILD=${BUILD:-build}
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
FUZZ_SECONDS=${FUZZ_SECONDS:-240}
export MPIEXEC_TIMEOUT=60
mode=${1:-check}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
bin=$FUZZ_BUILD/fuzz
targets="rank chunk records sync index json tools"
work=$FUZZ_BUILD/work-$mode
seeds=$work/seeds

die()
{
	echo "check-fuzz: $*" >&2
	exit 1
}

for t in $targets; do
	[ -x "$bin/fuzz-$t" ] || die "no '$bin/fuzz-$t': run make fuzz-build"
done
command -v "$MPIEXEC" >/dev/null 2>&1 || die "no $MPIEXEC: run make deps"

# trace DIR LEVEL [NP [APP ARG...]]: a run of APP (halo) on NP ranks (2)
# traced into DIR at zlib LEVEL, in buffers of TBUF bytes (16K).
trace()
{
	tdir=$1
	tlevel=$2
	tnp=${3:-2}
	if [ $# -gt 3 ]; then
		shift 3
	else
		set -- "$BUILD/apps/halo" 12 64 4
	fi
	preload=$top/$BUILD/libsynctrace.so
	if [ -n "$SAN" ]; then
		preload=$(gcc -print-file-name=libasan.so):$preload
		export ASAN_OPTIONS=detect_leaks=0
	fi
	case $tdir in
	/*) dir=$tdir ;;
	*) dir=$top/$tdir ;;
	esac
	SYNCTRACE_DIR=$dir SYNCTRACE_LEVEL=$tlevel SYNCTRACE_BUFFER=${TBUF:-16K} \
	SYNCTRACE_SYNC_POINTS=4 LD_PRELOAD=$preload \
		$MPIEXEC -n "$tnp" "$@" </dev/null \
		>"$tdir.log" 2>&1 || { cat "$tdir.log" >&2; die "cannot trace $1"; }
	unset ASAN_OPTIONS
}

make_seeds()
{
	rm -rf "$work"
	mkdir -p "$seeds" || die "cannot create '$seeds'"
	for t in $targets; do
		mkdir -p "$seeds/$t"
	done
	mkdir -p "$seeds/records"
	trace "$work/run0" 0
	trace "$work/run6" 6
	# A loop of nonblocking calls: Huffman-coded chunks (writer/huff.h),
	# in buffers where the code's table pays.
	TBUF=64K trace "$work/runh" 1 2 "$BUILD/apps/bench-calls" p2p 8000 1 0
	# A varied loop: mixed records, which the writer mostly codes with
	# the context coding (writer/huff.h) or deflates; split makes every
	# file again in each coding as well.
	TBUF=128K trace "$work/runc" 1 2 "$BUILD/apps/bench-mix" 1000
	for r in 0 6 h c; do
		for f in "$work/run$r"/rank-*.st; do
			n=run$r-$(basename "$f" .st)
			cp "$f" "$seeds/rank/$n"
			cp "$f" "$seeds/tools/$n"
		done
		cp "$work/run$r/synctrace.run" "$seeds/index/run$r"
		"$BUILD/synctrace" table "$work/run$r" --json \
			"$seeds/json/run$r.json" >/dev/null 2>&1 ||
			die "cannot make a table of '$work/run$r'"
	done
	# fuzz-tools reads a file as its run's only file: a one-rank run's
	# is read whole, predict included.
	for r in 0 6; do
		trace "$work/one$r" $r 1
		cp "$work/one$r/rank-0.st" "$seeds/tools/one$r-rank-0"
	done
	"$bin/split" "$seeds" "$work"/run0/rank-*.st "$work"/run6/rank-*.st \
		"$work"/runh/rank-*.st "$work"/runc/rank-*.st ||
		die "cannot split the seed traces"
	for t in $targets; do
		[ -n "$(ls "$seeds/$t")" ] || die "no seed for fuzz-$t"
	done
}

# opts TARGET: libFuzzer options of TARGET.
opts()
{
	case $1 in
	tools) echo "-close_fd_mask=2 -detect_leaks=0 -timeout=60" ;;
	*) echo "-timeout=30" ;;
	esac
}

# env_of TARGET: its environment.
env_of()
{
	case $1 in
	tools) echo "ASAN_OPTIONS=detect_leaks=0" ;;
	*) echo "ASAN_OPTIONS=detect_leaks=1" ;;
	esac
}

# corpora TARGET: its seed and regression directories.
corpora()
{
	echo "$seeds/$1"
	[ -d "tests/fuzz/regress/$1" ] && echo "tests/fuzz/regress/$1"
}

make_seeds
status=0
case $mode in
check)
	for t in $targets; do
		case $t in
		tools) runs=300 ;;
		*) runs=3000 ;;
		esac
		scratch=$work/new-$t
		mkdir -p "$scratch"
		# shellcheck disable=SC2046
		if env $(env_of $t) "$bin/fuzz-$t" $(opts $t) -runs="$runs" -seed=1 \
			-artifact_prefix="$work/crash-$t-" "$scratch" \
			$(corpora $t) >"$work/check-$t.log" 2>&1; then
			echo "check-fuzz: fuzz-$t: seeds and regressions" \
				"replayed, $runs mutations: ok"
		else
			tail -40 "$work/check-$t.log" >&2
			echo "check-fuzz: FAIL: fuzz-$t (log:" \
				"$work/check-$t.log)" >&2
			status=1
		fi
	done
	;;
fuzz)
	n=$(echo $targets | wc -w)
	each=$((FUZZ_SECONDS / n))
	[ "$each" -ge 1 ] || each=1
	for t in $targets; do
		corpus=$FUZZ_BUILD/corpus/$t
		crashes=$FUZZ_BUILD/crashes/$t
		mkdir -p "$corpus" "$crashes"
		# shellcheck disable=SC2046
		env $(env_of $t) "$bin/fuzz-$t" $(opts $t) -fork=1 -ignore_crashes=1 \
			-ignore_timeouts=1 -ignore_ooms=1 \
			-max_total_time="$each" -artifact_prefix="$crashes/" \
			"$corpus" $(corpora $t) >"$work/fuzz-$t.log" 2>&1
		execs=$(grep -o '^#[0-9]*' "$work/fuzz-$t.log" | tail -1 |
			tr -d '#')
		found=$(ls "$crashes" | wc -l)
		echo "fuzz: fuzz-$t: ${each} s, ${execs:-0} executions," \
			"$found crashing inputs in $crashes"
		[ "$found" -eq 0 ] || status=1
	done
	;;
*)
	die "usage: run.sh check|fuzz"
	;;
esac
exit $status
