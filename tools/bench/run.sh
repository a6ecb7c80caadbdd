#!/bin/sh
# tools/bench/run.sh: `make bench`; measures what the interposer costs and
# prints one table per figure.  A time figure is a median over runs with
# its spread (95 % confidence interval of the median from order
# statistics, and min..max) and n; the added time per call is the median
# of paired differences against runs without the library made in the
# same round, the variants of a round in a rotating order so that drift
# hits them alike.
#
#   1. ns per intercepted call.  1a: 2 ranks (both cores busy, so the
#      writer thread competes with them), MPI_Barrier, 8-byte
#      MPI_Allreduce and MPI_Barrier on MPI_COMM_SELF (no communication,
#      so nearly all of it is interposer work); 1b: 1 rank (a free core
#      for the writer thread), MPI_Allreduce and MPI_Barrier on
#      MPI_COMM_SELF.  Without the library, with it, and with it and
#      SYNCTRACE_ASYNC=0 (compression on the calling thread),
#      SYNCTRACE_LEVEL=0 (no compression: the hot path alone) and, in
#      1a, SYNCTRACE_DEPTH=0 (call sites off);
#      1c: 2 ranks, the other loops of issue 15 (bench-calls.c): 8-byte
#      MPI_Bcast, MPI_Allreduce from 64 call sites in turn, Irecv+Isend+
#      Waitall, Iallreduce+Wait, Irecv+Isend+Test until each completes,
#      persistent point-to-point Start+Start+Waitall and a persistent
#      Allreduce's Start+Wait, one-sided MPI_Put+MPI_Win_flush in a
#      passive-target epoch, without and with the library, with it and
#      SYNCTRACE_LEVEL=0 (chunks stored uncompressed: where the ranks
#      fill every core, the writer's zlib work is on their critical path,
#      and this run tells it from the interposer's own) and with it and
#      SYNCTRACE_DEPTH=0; loops of several calls are also given per
#      call, the target being 50 ns per call.  BENCH_FIGURES=1c runs
#      these loops but the 64 call sites, with the Barrier and Allreduce
#      of 1a, without and with the library and with LEVEL=0
#      (BENCH_MPI=openmpi's default);
#      1d: 2 ranks, the loops of 1c (and the collectives of 1a) with the
#      self-time build of the library ($BUILD/selftime/libsynctrace.so,
#      pmpi/selftime.h): the time each call spent inside the interposer,
#      its MPI function's own time left out, per function and per loop,
#      against the same 50 ns; it tells the interposer's work from the
#      ranks' coupling, which 1c's differences include (MPICH only);
#   2. trace bytes per record: rank files over decoded records, for the
#      allreduce loop (zlib levels 1 and 9) and a varied workload;
#   3. peak resident memory (VmHWM) per rank after 10 M cheap calls per
#      rank, without the library and with three SYNCTRACE_BUFFER sizes,
#      and 1 M calls at the default size: bounded by the buffer, not by
#      the number of events; plus the steady-state cost per call;
#   4. the slowdown of a conjugate-gradient-shaped application
#      (tests/integration/apps/cg.c: halo exchange, two Allreduce dot
#      products and a few us of compute per iteration), paired rounds
#      without and with the library (and with it storing chunks
#      uncompressed, SYNCTRACE_LEVEL=0: zlib's share), target 1 %;
#   5. the tools at scale: records per second end to end and peak
#      resident memory (/usr/bin/time's maximum RSS) of `synctrace
#      report`, `table` and `predict` on a generated run of
#      BENCH_TOOLS_RECORDS records (tools/bench/gen-trace.c: 2 ranks of
#      8-byte MPI_Allreduce, written through the real writer), target
#      10 M records/s; BENCH_TOOLS_RUNS runs each, median and min..max.
#
# Instruction counts, which do not depend on the machine's load, are
# tools/bench/icount.sh's.
#
# Targets are reported as PASS or MISS, never asserted: the script exits
# 0 when everything ran, 1 when something failed to run.  The CPU time
# other processes take is measured before and during each figure (and
# each round of figure 1); a warning says when it may have disturbed the
# figures.
#
# Environment: BUILD (default build), BENCH_MPI (mpich, the default, or
# openmpi: libsynctrace-openmpi.so and the apps of BUILD/openmpi/, run by
# OMPIEXEC, default mpiexec.openmpi), MPIEXEC (default mpiexec.mpich);
# BENCH_RUNS (runs per variant in figure 1, default 25), BENCH_CALLS
# (calls per timed block, 100000), BENCH_BLOCKS (blocks per run, 5),
# BENCH_TRACE_RUNS (runs per row in figure 2, 3), BENCH_MIX_ITERS (10000),
# BENCH_MEM_EVENTS (calls per rank in figure 3, 10000000),
# BENCH_TOOLS_RECORDS and BENCH_TOOLS_RUNS (figure 5: records of the
# generated run, 100000000, and runs per tool, 3), BENCH_LOOP_CALLS
# (iterations per block in figures 1c and 1d, 20000), BENCH_SELF_RUNS
# (runs per loop in figure 1d, 9), BENCH_CG_RUNS (rounds of
# figure 4, 11), BENCH_CG_N and BENCH_CG_ITERS (its unknowns per rank and
# iterations, 4096 and 20000), BENCH_FIGURES (which figures to run,
# "1 2 3 4 5"; "1c 2" with BENCH_MPI=openmpi), BENCH_LOOPS (the loops
# of figures 1c and 1d, separated by commas or spaces, default all of
# theirs: barrier allreduce bcast sites p2p iallreduce test start pcoll
# put; figure 1c run inside figure 1 leaves barrier and allreduce to 1a,
# 1d has no sites), TMPDIR.

BUILD=${BUILD:-build}
BENCH_MPI=${BENCH_MPI:-mpich}
case $BENCH_MPI in
mpich) MPIEXEC=${MPIEXEC:-mpiexec.mpich} ;;
openmpi)
	MPIEXEC=${OMPIEXEC:-mpiexec.openmpi}
	BENCH_FIGURES=${BENCH_FIGURES:-1c 2}
	# Open MPI refuses root unless told.
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	;;
*) echo "bench: BENCH_MPI='$BENCH_MPI': mpich or openmpi" >&2; exit 1 ;;
esac
# The loops of figures 1c and 1d (BENCH_LOOPS, commas or spaces
# between the names): loops OPS, the comma-separated OPS less those not
# in BENCH_LOOPS.
BENCH_LOOPS=$(echo "${BENCH_LOOPS:-}" | tr -s ' ,' ',,' | sed 's/^,//; s/,$//')
for op in $(echo "$BENCH_LOOPS" | tr , ' '); do
	case $op in
	barrier|allreduce|bcast|sites|p2p|iallreduce|test|start|pcoll|put) ;;
	*) echo "bench: BENCH_LOOPS: no loop '$op' (barrier allreduce" \
		"bcast sites p2p iallreduce test start pcoll put)" >&2
	   exit 1 ;;
	esac
done
loops()
{
	[ -n "${BENCH_LOOPS:-}" ] || { echo "$1"; return; }
	for op in $(echo "$1" | tr , ' '); do
		case ",$BENCH_LOOPS," in
		*",$op,"*) printf '%s\n' "$op" ;;
		esac
	done | paste -s -d,
}
R=${BENCH_RUNS:-25}
N=${BENCH_CALLS:-100000}
B=${BENCH_BLOCKS:-5}
TRACE_RUNS=${BENCH_TRACE_RUNS:-3}
MIX_ITERS=${BENCH_MIX_ITERS:-10000}
MEM_EVENTS=${BENCH_MEM_EVENTS:-10000000}
FIGURES=${BENCH_FIGURES:-1 2 3 4 5}
TOOLS_RECORDS=${BENCH_TOOLS_RECORDS:-100000000}
TOOLS_RUNS=${BENCH_TOOLS_RUNS:-3}
N_LOOPS=${BENCH_LOOP_CALLS:-20000}
R_SELF=${BENCH_SELF_RUNS:-9}
R_CG=${BENCH_CG_RUNS:-11}
CG_N=${BENCH_CG_N:-4096}
CG_ITERS=${BENCH_CG_ITERS:-20000}
W=$((N / 10))
TRACE_CALLS=100000
TRACE_BLOCKS=3
NP=2
# The trace format chunk_records() reads (writer/format.h).
FORMAT_VERSION=$(sed -n 's/^#define ST_FORMAT_VERSION \([0-9]*\)$/\1/p' \
	"$(dirname "$0")/../../writer/format.h")
# Hydra kills a run that takes longer than this many seconds.
export MPIEXEC_TIMEOUT=300

die()
{
	echo "bench: $*" >&2
	exit 1
}

warn()
{
	echo "WARNING: $*"
}

for f in $FIGURES; do
	case $f in
	1|1c|1d|2|3|4|5) ;;
	*) die "BENCH_FIGURES='$FIGURES': the figures are 1 to 5 (1c: the loops of figure 1 alone; 1d: their time inside the interposer)" ;;
	esac
done
for v in $R $N $B $TRACE_RUNS $MIX_ITERS $MEM_EVENTS $N_LOOPS $R_SELF $R_CG $CG_N \
	$CG_ITERS $TOOLS_RECORDS $TOOLS_RUNS; do
	case $v in
	''|*[!0-9]*|0) die "BENCH_* values must be positive integers" ;;
	esac
done
[ $((MEM_EVENTS % 10)) = 0 ] ||
	die "BENCH_MEM_EVENTS must be a multiple of 10"

top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$top" || exit 1
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
LIB=$build/libsynctrace.so
SLIB=$build/selftime/libsynctrace.so
CLI=$build/synctrace
apps=apps
if [ $BENCH_MPI = openmpi ]; then
	LIB=$build/libsynctrace-openmpi.so
	apps=openmpi/apps
fi
CALLS_APP=$build/$apps/bench-calls
MIX_APP=$build/$apps/bench-mix
CG_APP=$build/$apps/cg

command -v "$MPIEXEC" > /dev/null 2>&1 || die "no '$MPIEXEC' in PATH"
[ -f "$LIB" ] || die "no '$LIB': run make first"

# The benchmark programs are integration apps, which `make bench` does not
# build: build any that is missing or older than its source.
for app in bench-calls bench-mix cg; do
	src=tests/integration/apps/$app.c
	[ -x "$build/$apps/$app" ] &&
		[ -z "$(find "$src" -newer "$build/$apps/$app")" ] && continue
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} \
		--no-print-directory BUILD="$BUILD" "$BUILD/$apps/$app" >&2 ||
		die "cannot build '$build/$apps/$app'"
done

# Nothing in the caller's environment may change what is measured.
for v in $(env | sed -n 's/^\(SYNCTRACE_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done
unset LD_PRELOAD

tmp=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-bench.XXXXXX") ||
	die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT PIPE TERM

# --- running the programs --------------------------------------------------

# run NAME [VAR=VALUE...] CMD...: run CMD with the given environment,
# stdout to $tmp/NAME.out, stderr to $tmp/NAME.err; dies if it fails.
run()
{
	name=$1
	shift
	if ! env "$@" < /dev/null > "$tmp/$name.out" 2> "$tmp/$name.err"
	then
		sed 's/^/    /' "$tmp/$name.err" >&2
		die "'$*' failed (its stderr is above)"
	fi
}

# untraced NAME CMD...: CMD without the interposer.
untraced()
{
	run "$@"
}

# traced NAME DIR [VAR=VALUE...] CMD...: CMD with the interposer
# preloaded and its trace in DIR, which must not exist yet.
traced()
{
	name=$1
	dir=$2
	shift 2
	run "$name" LD_PRELOAD="$LIB" SYNCTRACE_DIR="$dir" "$@"
	[ -f "$dir/rank-0.st" ] ||
		die "'$name' left no rank files in '$dir'"
}

# field NAME OP KEY: value of KEY on the "op=OP ..." line of NAME.out.
field()
{
	sed -n "s/^op=$2 .* $3=\\([0-9.]*\\).*/\\1/p" "$tmp/$1.out"
}

# vmhwm NAME: the VmHWM (KiB) each rank of NAME printed, "r0 r1 ...".
vmhwm()
{
	sed -n 's/^rank=\([0-9]*\) vmhwm_kib=\(-\{0,1\}[0-9]*\)$/\1 \2/p' \
		"$tmp/$1.out" | sort -n | cut -d' ' -f2 | paste -s -d' '
}

# trace_bytes DIR: total size of DIR's rank files.
trace_bytes()
{
	cat "$1"/rank-*.st | wc -c
}

# chunk_records FILE: number of records in trace FILE, summed from its
# chunk headers (writer/format.h, version 5: the length of the header text
# at offset 12, then 32-byte chunk headers with the payload length at 12
# and the record count at 16); empty if FILE is not of this version.
# Reads the headers only, so it costs nothing even for 10 M records.
chunk_records()
{
	f=$1
	size=$(wc -c < "$f")
	set -- $(od -An -v -tu4 -j 8 -N 8 "$f")
	[ "$1" = "$FORMAT_VERSION" ] || return 0
	off=$((20 + $2))
	recs=0
	while [ $off -lt "$size" ]; do
		set -- $(od -An -v -tu4 -j $off -N 32 "$f")
		[ $# = 8 ] || break
		off=$((off + 32 + $4))
		recs=$((recs + $5))
	done
	echo $recs
}

# dump_records DIR: the records `synctrace dump --csv` decodes from DIR
# (all kinds, all ranks), the CSV left in $tmp/dump.csv; empty if the
# dump fails.  A quoted field may hold any bytes, newlines too (the text
# of sync records), so a record ends at a newline after an even number
# of quotes, not at every newline.
dump_records()
{
	"$CLI" dump --csv "$1" > "$tmp/dump.csv" 2> "$tmp/dump.err" ||
		return 0
	tr -cd '"\n' < "$tmp/dump.csv" |
		awk '{ q += length($0) } q % 2 == 0 { n++ } END { print n - 1 }'
}

# --- statistics ------------------------------------------------------------

# stats: read numbers, one a line; print "n median lo hi min max" where
# [lo, hi] is the 95 % confidence interval of the median from order
# statistics: the narrowest [x(j), x(n+1-j)] with
# 1 - 2 P(Bin(n, 1/2) <= j - 1) >= 0.95, "n/a n/a" below n = 6.
stats()
{
	sort -g | awk '
		{ x[++n] = $1 }
		END {
			if (!n) {
				print "0 0 n/a n/a 0 0"
				exit
			}
			h = int((n + 1) / 2)
			med = n % 2 ? x[h] : (x[h] + x[h + 1]) / 2
			c = 1
			cum = 0
			j = 0
			for (k = 0; k <= n; k++) {
				if (k)
					c = c * (n - k + 1) / k
				cum += c / 2 ^ n
				if (1 - 2 * cum < 0.95)
					break
				j = k + 1
			}
			lo = j ? sprintf("%.6g", x[j]) : "n/a"
			hi = j ? sprintf("%.6g", x[n + 1 - j]) : "n/a"
			printf "%d %.6g %s %s %.6g %.6g\n", n, med, lo, hi, \
				x[1], x[n]
		}'
}

# --- machine load ----------------------------------------------------------

ncpu=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)
tck=$(getconf CLK_TCK 2> /dev/null || echo 100)

# "busy all": the machine's busy jiffies and all its jiffies so far.
cpu_jiffies()
{
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, \
		$2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# CPU seconds used by this script's finished children (MPI ranks are
# reaped by their launcher, which this script reaps).  `times` must run
# in this shell, not in a command substitution's subshell.
child_cpu()
{
	times > "$tmp/times"
	awk 'NR == 2 {
		t = 0
		for (i = 1; i <= 2; i++) {
			split($i, p, "m")
			sub("s", "", p[2])
			t += p[1] * 60 + p[2]
		}
		print t
	}' "$tmp/times"
}

now()
{
	date +%s.%N
}

loadavg()
{
	cut -d' ' -f1-3 /proc/loadavg
}

# snap VAR: store in VAR what other_since needs: the machine's busy
# jiffies, the time, and the CPU seconds of this script's children.
snap()
{
	sn_var=$1
	child_cpu > "$tmp/cpu"
	set -- $(cpu_jiffies)
	eval "$sn_var=\"$1 $(now) $(cat "$tmp/cpu")\""
}

# other_since SNAP: set $other to "cpu wall percent": the CPU seconds
# other processes used since SNAP was taken, the seconds since then, and
# the first as a percentage of one core.  Not in a command substitution:
# `times` in a subshell would miss this shell's children.
other_since()
{
	child_cpu > "$tmp/cpu"
	set -- $1 $(cpu_jiffies)
	other=$(awk -v b0="$1" -v w0="$2" -v o0="$3" -v b1="$4" \
		-v w1="$(now)" -v o1="$(cat "$tmp/cpu")" -v t="$tck" 'BEGIN {
			o = (b1 - b0) / t - (o1 - o0)
			if (o < 0)
				o = 0
			printf "%.1f %.1f %.0f", o, w1 - w0, 100 * o / (w1 - w0)
		}')
}

# phase_end NAME: what other processes took since phase_snap, and a
# warning if that was more than 10 % of a core.
phase_end()
{
	ph_name=$1
	other_since "$phase_snap"
	set -- $other
	echo "  machine: other processes used $1 CPU-s during these $2 s" \
		"($3 % of one core); load average $(loadavg)"
	[ "$3" -le 10 ] ||
		warn "other processes ran during $ph_name;" \
			"figures may be disturbed, rerun on a quiet machine"
	all_other=$(awk -v a="${all_other:-0}" -v b="$1" \
		'BEGIN { print a + b }')
}

# rotated K WORDS...: WORDS, one a line, rotated left by K (mod their
# number): the order of a round's variants.
rotated()
{
	rt_k=$1
	shift
	echo "$@" "$@" | tr ' ' '\n' | tail -n +$((rt_k % $# + 1)) |
		head -n $#
}

# --- figure 1: time per call -----------------------------------------------

f1_label()
{
	case $1 in
	none) echo "no preload" ;;
	full) echo "synctrace" ;;
	nosite) echo "synctrace, DEPTH=0" ;;
	inline) echo "synctrace, ASYNC=0" ;;
	stored) echo "synctrace, LEVEL=0" ;;
	esac
}

f1_opname()
{
	case $1 in
	barrier) echo "MPI_Barrier" ;;
	allreduce) echo "MPI_Allreduce 8 B" ;;
	self-barrier) echo "Barrier on SELF" ;;
	self-allreduce) echo "Allreduce on SELF" ;;
	bcast) echo "MPI_Bcast 8 B" ;;
	sites) echo "Allreduce, 64 sites" ;;
	p2p) echo "Irecv+Isend+Waitall" ;;
	iallreduce) echo "Iallreduce+Wait" ;;
	test) echo "Irecv+Isend+Test*" ;;
	start) echo "2 Start+Waitall" ;;
	pcoll) echo "Start+Wait (coll)" ;;
	put) echo "Put+Win_flush" ;;
	esac
}

# f1_ncalls OP: the MPI calls of one iteration of OP (bench-calls.c);
# for "test" the two MPI_Test calls that complete (the others poll).
f1_ncalls()
{
	case $1 in
	p2p|start) echo 3 ;;
	iallreduce|pcoll|put) echo 2 ;;
	test) echo 4 ;;
	*) echo 1 ;;
	esac
}

# f1_run NP OPS ROUND VARIANT: one run of bench-calls on NP ranks, its
# figures appended to $tmp/f1.dat as "round variant op ns".
f1_run()
{
	f1_ops=$2
	f1_round=$3
	f1_var=$4
	f1_name=f1-$1-$3-$4
	set -- $MPIEXEC -n $1 "$CALLS_APP" $f1_ops $N $B $W
	case $f1_var in
	none) untraced $f1_name "$@" ;;
	full) traced $f1_name "$tmp/$f1_name.d" "$@" ;;
	nosite) traced $f1_name "$tmp/$f1_name.d" SYNCTRACE_DEPTH=0 "$@" ;;
	inline) traced $f1_name "$tmp/$f1_name.d" SYNCTRACE_ASYNC=0 "$@" ;;
	stored) traced $f1_name "$tmp/$f1_name.d" SYNCTRACE_LEVEL=0 "$@" ;;
	esac
	rm -rf "$tmp/$f1_name.d"
	for op in $(echo $f1_ops | tr , ' '); do
		x=$(field $f1_name $op ns_mean)
		[ -n "$x" ] || die "no figure for $op in '$f1_name' output"
		echo "$f1_round $f1_var $op $x" >> "$tmp/f1.dat"
	done
}

# figure1c TITLE OPS VARIANTS: figure1 of those of the loops OPS that
# BENCH_LOOPS names, on NP ranks; says so when it names none.
figure1c()
{
	f1c_ops=$(loops "$2")
	if [ -z "$f1c_ops" ]; then
		echo
		echo "Figure $1: none of its loops in BENCH_LOOPS ($BENCH_LOOPS)"
		return 0
	fi
	figure1 "$1" $NP $f1c_ops "$3"
}

# figure1 TITLE NP OPS VARIANTS: R rounds, each running every variant
# once (the first is "none") in a rotating order; medians per variant and
# paired differences against "none".
figure1()
{
	f1_title=$1
	f1_np=$2
	f1_ops=$3
	f1_vars=$4
	echo
	echo "Figure $f1_title: time per intercepted call, $f1_np" \
		"rank(s) (ns per call)"
	echo "  A run times each op in $B blocks of $N calls after $W" \
		"warm-up calls; a block takes"
	echo "  the slowest rank's loop time, and the run's figure is the" \
		"sum over its blocks"
	echo "  / $((B * N)), so buffer flushes (compression) in the timed" \
		"loops are included."
	echo "  $R runs per variant, variants interleaved, order rotated each" \
		"round.  Spread: 95 % CI"
	echo "  of the median (order statistics) and min..max over runs."
	snap phase_snap
	: > "$tmp/f1.dat"
	disturbed=
	nv=$(echo $f1_vars | wc -w)
	round=1
	while [ $round -le "$R" ]; do
		snap round_snap
		# Rotate the order by one variant each round.
		order=$(rotated $((round % nv)) $f1_vars)
		for v in $order; do
			f1_run $f1_np $f1_ops $round $v
		done
		other_since "$round_snap"
		set -- $other
		[ "$3" -le 10 ] || disturbed="$disturbed $round"
		round=$((round + 1))
	done

	echo
	printf '  %-20s %-19s %3s %9s %21s %19s\n' op variant n median \
		"95% CI of median" "min..max"
	for op in $(echo $f1_ops | tr , ' '); do
		for v in $f1_vars; do
			set -- $(awk -v v=$v -v o=$op \
				'$2 == v && $3 == o { print $4 }' \
				"$tmp/f1.dat" | stats)
			printf '  %-20s %-19s %3d %9.1f %21s %19s\n' \
				"$(f1_opname $op)" "$(f1_label $v)" $1 $2 \
				"[$3, $4]" "$5..$6"
			eval "med_${v}_$(echo $op | tr - _)=$2"
		done
	done

	echo
	echo "  Added time per call: in each round, the run with the library" \
		"minus the run without;"
	echo "  for a loop of several calls, per iteration and then per call" \
		"(the iteration's / its calls)."
	printf '  %-20s %-19s %3s %9s %21s %19s %6s %s\n' op variant n \
		median "95% CI of median" "min..max" ratio "target <= 50 ns"
	for op in $(echo $f1_ops | tr , ' '); do
		for v in $f1_vars; do
			[ $v = none ] && continue
			set -- $(awk -v v=$v -v o=$op '
				$3 == o && $2 == "none" { base[$1] = $4 }
				$3 == o && $2 == v { with[$1] = $4 }
				END {
					for (r in with)
						if (r in base)
							print with[r] - base[r]
				}' "$tmp/f1.dat" | stats)
			key=$(echo $op | tr - _)
			eval "base=\$med_none_$key with=\$med_${v}_$key"
			ratio=$(awk -v a="$with" -v b="$base" \
				'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
			nc=$(f1_ncalls $op)
			verdict=MISS
			awk -v d="$2" -v k=$nc 'BEGIN { exit !(d / k <= 50) }' &&
				verdict=PASS
			[ $v != full ] && verdict="($verdict; $(f1_label $v |
				sed 's/^synctrace, //'))"
			printf '  %-20s %-19s %3d %+9.1f %21s %19s %6s %s\n' \
				"$(f1_opname $op)" "$(f1_label $v)" $1 $2 \
				"[$3, $4]" "$5..$6" "$ratio" \
				"$([ $nc = 1 ] && echo "$verdict")"
			[ $nc = 1 ] && continue
			printf '  %-20s %-19s %3d %+9.1f %21s %19s %6s %s\n' \
				"  per call (/$nc)" "" $1 \
				"$(awk -v x=$2 -v k=$nc 'BEGIN { print x / k }')" \
				"$(awk -v a=$3 -v b=$4 -v k=$nc 'BEGIN {
					if (a == "n/a") print "[n/a]"
					else printf "[%.6g, %.6g]", a / k, b / k
				}')" \
				"$(awk -v a=$5 -v b=$6 -v k=$nc 'BEGIN {
					printf "%.6g..%.6g", a / k, b / k }')" \
				"" "$verdict"
		done
	done
	echo "  (ratio: median with / median without; the target is judged on" \
		"the median of the default settings)"
	set -- $disturbed
	echo "  Rounds in which other processes took over 10 % of a core:" \
		"$# of $R${1:+ (round$disturbed)}"
	phase_end "figure $f1_title"
}

# --- figure 1d: time inside the interposer -------------------------------

# f1d_fns OP: the functions of one iteration of OP (bench-calls.c).
f1d_fns()
{
	case $1 in
	barrier) echo MPI_Barrier ;;
	allreduce) echo MPI_Allreduce ;;
	bcast) echo MPI_Bcast ;;
	p2p) echo MPI_Irecv MPI_Isend MPI_Waitall ;;
	iallreduce) echo MPI_Iallreduce MPI_Wait ;;
	test) echo MPI_Irecv MPI_Isend MPI_Test ;;
	start) echo MPI_Start MPI_Waitall ;;
	pcoll) echo MPI_Start MPI_Wait ;;
	put) echo MPI_Put MPI_Win_flush ;;
	esac
}

# figure1d: R_SELF runs of each loop alone on NP ranks with the self-time
# build, without and with SYNCTRACE_SELFTIME_FENCE=1 in turn; every rank
# prints, per function, its traced calls and their mean ns inside the
# interposer (pmpi/selftime.h).  A run's figure for a function is the
# larger of the ranks' means, for a loop the larger of the ranks' means
# over the loop's calls (each function weighted by its calls); medians
# over runs.
figure1d()
{
	f1d_ops=$(loops \
		barrier,allreduce,bcast,p2p,iallreduce,test,start,pcoll,put |
		tr , ' ')
	if [ -z "$f1d_ops" ]; then
		echo
		echo "Figure 1d: none of its loops in BENCH_LOOPS ($BENCH_LOOPS)"
		return 0
	fi
	[ -f "$SLIB" ] || die "no '$SLIB': run make bench (it builds it)"
	echo
	echo "Figure 1d: time inside the interposer per call, $NP ranks (ns)"
	echo "  The self-time build of the library ($SLIB,"
	echo "  pmpi/selftime.h) counts, for every traced call, the time from"
	echo "  entering its wrapper to leaving it less the MPI function's own"
	echo "  (between the interposer's two clock reads); it traces as the"
	echo "  library does.  \"inside\": as it runs; right after a call that"
	echo "  sends through shared memory, the interposer's first stores wait"
	echo "  for MPI's own memory operations, which the application would"
	echo "  wait for in its next call.  \"work alone\": with a full fence"
	echo "  (mfence) ending each MPI call's time, SYNCTRACE_SELFTIME_FENCE=1."
	echo "  Each loop runs alone, $B blocks of $N_LOOPS iterations after" \
		"$((N_LOOPS / 10)) warm-up ones,"
	echo "  $R_SELF runs per loop and variant, interleaved; a run's figure" \
		"is the larger of the"
	echo "  ranks' means.  The added time per call (the target's measure)" \
		"is figure 1c's;"
	echo "  this one tells the interposer's work from how the ranks couple."
	snap phase_snap
	: > "$tmp/f1d.dat"
	: > "$tmp/f1d.clock"
	run=1
	while [ $run -le "$R_SELF" ]; do
		for op in $f1d_ops; do
			for fence in 0 1; do
				f1d_run $op $run $fence
			done
		done
		run=$((run + 1))
	done
	echo
	printf '  %-20s %-14s %-10s %3s %8s %19s %17s %s\n' loop function \
		variant n median "95% CI of median" "min..max" "<= 50 ns"
	for op in $f1d_ops; do
		for fn in $(f1d_fns $op) loop; do
			for fence in 0 1; do
				set -- $(awk -v o=$op -v f=$fn -v v=$fence \
					'$2 == o && $3 == f && $5 == v { print $4 }' \
					"$tmp/f1d.dat" | stats)
				verdict=
				if [ $fn = loop ]; then
					verdict=MISS
					awk -v d="$2" 'BEGIN { exit !(d <= 50) }' &&
						verdict=PASS
				fi
				printf '  %-20s %-14s %-10s %3d %8.1f %19s %17s %s\n' \
					"$(f1_opname $op)" \
					"$([ $fn = loop ] && echo "per call" ||
						echo $fn)" \
					"$([ $fence = 1 ] && echo "work alone" ||
						echo inside)" \
					$1 $2 "[$3, $4]" "$5..$6" "$verdict"
			done
		done
	done
	set -- $(stats < "$tmp/f1d.clock")
	echo "  (A clock read costs $2 ns, median over $1 ranks' runs (the" \
		"run's clock_cost_ns);"
	echo "  the figure holds about one read of the measure's own and leaves" \
		"out about one"
	echo "  of the interposer's.)"
	phase_end "figure 1d"
}

# f1d_run OP RUN FENCE: one run of figure 1d, its figures appended to
# $tmp/f1d.dat as "run op function ns fence" (function "loop": per call
# of the loop).
f1d_run()
{
	name=f1d-$1-$2-$3
	run $name LD_PRELOAD="$SLIB" SYNCTRACE_DIR="$tmp/$name.d" \
		SYNCTRACE_SELFTIME_FENCE=$3 \
		$MPIEXEC -n $NP "$CALLS_APP" $1 $N_LOOPS $B $((N_LOOPS / 10))
	rm -rf "$tmp/$name.d"
	grep -q "^synctrace-selftime: .* clock_read_ns=.* fence=$3\$" \
		"$tmp/$name.err" || die "'$name' printed no self-time figures"
	sed -n 's/^synctrace-selftime: rank=\([0-9]*\) fn=\([A-Za-z_]*\) calls=\([0-9]*\) ns_per_call=\([0-9.]*\)$/\1 \2 \3 \4/p' \
		"$tmp/$name.err" |
		awk -v r=$2 -v o=$1 -v fns="$(f1d_fns $1)" -v v=$3 '
		BEGIN { split(fns, f); for (i in f) want[f[i]] = 1 }
		$2 in want {
			if (!(($2) in m) || $4 > m[$2])
				m[$2] = $4
			sum[$1] += $3 * $4
			n[$1] += $3
		}
		END {
			for (k in m)
				print r, o, k, m[k], v
			for (k in n)
				if (n[k] && sum[k] / n[k] > l)
					l = sum[k] / n[k]
			printf "%s %s loop %.1f %s\n", r, o, l, v
		}' >> "$tmp/f1d.dat"
	sed -n 's/^synctrace-selftime: rank=[0-9]* clock_read_ns=\([0-9.]*\) .*$/\1/p' \
		"$tmp/$name.err" >> "$tmp/f1d.clock"
}

# --- figure 2: trace bytes per record --------------------------------------

# f2_row LABEL SETTINGS [VAR=VALUE...] -- CMD...: TRACE_RUNS traced runs
# of CMD, one table row.  The last run's dump stays in $tmp/dump.csv and
# its output in $tmp/f2-$TRACE_RUNS.out.
f2_row()
{
	what=$1
	settings=$2
	shift 2
	envs=
	while [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	: > "$tmp/f2.rec"
	: > "$tmp/f2.bytes"
	: > "$tmp/f2.ratio"
	i=1
	while [ $i -le "$TRACE_RUNS" ]; do
		d=$tmp/f2-$i.d
		traced f2-$i "$d" $envs "$@"
		bytes=$(trace_bytes "$d")
		recs=$(dump_records "$d")
		hdr=0
		for f in "$d"/rank-*.st; do
			c=$(chunk_records "$f")
			hdr=$((hdr + ${c:-0}))
		done
		if [ -z "$recs" ]; then
			warn "'synctrace dump --csv' failed on '$d':" \
				"records counted from chunk headers"
			recs=$hdr
		elif [ "$recs" != "$hdr" ]; then
			warn "'synctrace dump --csv' decodes $recs records," \
				"the chunk headers say $hdr"
		fi
		echo "$recs" >> "$tmp/f2.rec"
		echo "$bytes" >> "$tmp/f2.bytes"
		awk -v b="$bytes" -v r="$recs" 'BEGIN { print b / r }' \
			>> "$tmp/f2.ratio"
		rm -rf "$d"
		i=$((i + 1))
	done
	recs=$(stats < "$tmp/f2.rec" | cut -d' ' -f2)
	bytes=$(stats < "$tmp/f2.bytes" | cut -d' ' -f2)
	set -- $(stats < "$tmp/f2.ratio")
	verdict=MISS
	awk -v d="$2" 'BEGIN { exit !(d <= 4) }' && verdict=PASS
	ci=n/a
	[ "$3" = n/a ] || ci=$(printf '[%.3f, %.3f]' $3 $4)
	printf '  %-21s %-8s %2d %8.0f %8.0f %8.3f %15s %13s %s\n' \
		"$what" "$settings" $1 "$recs" "$bytes" $2 "$ci" \
		"$(printf '%.3f..%.3f' $5 $6)" "$verdict"
}

# f2_mix_check: from the last bench-mix run, "sites comms ok": call-site
# and communicator records per rank, and "yes" when each rank's trace
# holds one call record for each MPI call the app says it made.
f2_mix_check()
{
	[ -s "$tmp/dump.csv" ] || { echo "? ? ?"; return; }
	awk -F, -v np=$NP '
		FNR == NR {
			if (split($0, f, /[= ]/) == 4 && f[1] == "rank")
				made[f[2]] = f[4]
			next
		}
		$3 == "call" { calls[$1]++ }
		$3 == "site" { sites++ }
		$3 == "comm" { comms++ }
		END {
			ok = length(made) == np ? "yes" : "NO"
			for (r in made)
				if (calls[r] != made[r])
					ok = "NO"
			printf "%d %d %s", sites / np, comms / np, ok
		}' "$tmp/f2-$TRACE_RUNS.out" "$tmp/dump.csv"
}

figure2()
{
	echo
	echo "Figure 2: trace size, $NP ranks: bytes of all rank files per" \
		"record decoded from them"
	echo "  Records of every kind, counted by 'synctrace dump --csv' and" \
		"checked against the"
	echo "  chunk headers; bytes include file headers and metadata" \
		"records.  Timestamps are"
	echo "  stored losslessly as integer ns (writer/format.h)." \
		"$TRACE_RUNS runs per row; records"
	echo "  and bytes are medians over the runs (a run's records are" \
		"deterministic but for"
	echo "  flush marks, its bytes are not)."
	echo
	printf '  %-21s %-8s %2s %8s %8s %8s %15s %13s %s\n' workload \
		settings n records bytes B/record "95% CI of med." "min..max" \
		"target <= 4 B"
	snap phase_snap
	f2_row "allreduce loop, 8 B" default -- \
		$MPIEXEC -n $NP "$CALLS_APP" allreduce $TRACE_CALLS \
		$TRACE_BLOCKS
	f2_row "allreduce loop, 8 B" LEVEL=9 SYNCTRACE_LEVEL=9 -- \
		$MPIEXEC -n $NP "$CALLS_APP" allreduce $TRACE_CALLS \
		$TRACE_BLOCKS
	f2_row "varied (bench-mix)" default -- \
		$MPIEXEC -n $NP "$MIX_APP" $MIX_ITERS
	set -- $(f2_mix_check)
	f2_row "varied (bench-mix)" DEPTH=0 SYNCTRACE_DEPTH=0 -- \
		$MPIEXEC -n $NP "$MIX_APP" $MIX_ITERS
	echo "  (allreduce loop: $((TRACE_CALLS * TRACE_BLOCKS)) timed +" \
		"$((TRACE_CALLS / 10)) warm-up calls per rank."
	echo "  bench-mix: $MIX_ITERS iterations of 16 calls per rank: Bcast," \
		"Allreduce, Reduce, Allgather,"
	echo "  Alltoall of 1..4096 elements; 2 Irecv, 2 Isend, Waitall;" \
		"Sendrecv, Iallreduce, Wait,"
	echo "  Barrier on a dup; Gather, Scatter on a split.  Per rank $1" \
		"call-site and $2 communicator"
	echo "  records; one call record per MPI call the app counted: $3)"
	phase_end "figure 2"
}

# --- figure 3: peak memory -------------------------------------------------

# f3_row LABEL CALLS [VAR=VALUE...]: one run of CALLS self-barriers per
# rank, untraced for LABEL "no preload" (which must come first: it sets
# the baseline), else traced into $tmp/f3.d, which is left for a look.
f3_row()
{
	what=$1
	ev=$2
	shift 2
	d=$tmp/f3.d
	rm -rf "$d"
	set -- "$@" $MPIEXEC -n $NP "$CALLS_APP" self-barrier $((ev / 10)) 10 0
	if [ "$what" = "no preload" ]; then
		untraced f3 "$@"
		bytes=-
	else
		traced f3 "$d" "$@"
		bytes=$(($(trace_bytes "$d") / NP))
	fi
	mem=$(vmhwm f3)
	ns=$(field f3 self-barrier ns_mean)
	if [ "$what" = "no preload" ]; then
		mem_base=$mem
		ns_base=$ns
		added=-
	else
		added=$(echo "$mem_base $mem" | awk '{
			h = NF / 2
			for (i = 1; i <= h; i++)
				printf "%s%+d", (i > 1 ? "/" : ""), \
					$(h + i) - $i
		}')
	fi
	printf '  %-26s %9d %13s %13s %12s %8s\n' "$what" "$ev" \
		"$(echo $mem | tr ' ' /)" "$added" "$bytes" "$ns"
}

# f3_flushes DIR: per rank, the time the flush records of the trace in
# DIR took, per record of that rank, with their number and mean length.
f3_flushes()
{
	"$CLI" dump --csv "$1" 2> /dev/null | awk -F, '
		$3 == "mark" && $4 == "flush" { n[$1]++; t[$1] += $6 - $5 }
		$3 ~ /^[a-z]+$/ && $1 ~ /^[0-9]+$/ { recs[$1]++ }
		END {
			for (r in n)
				printf "%srank %s: %.1f ns/record (%d" \
					" flushes, mean %.1f ms)", \
					(s++ ? "; " : ""), r, \
					t[r] / recs[r], n[r], \
					t[r] / n[r] / 1e6
			if (!s)
				printf "none (no buffer filled up)"
		}'
}

figure3()
{
	small=$((MEM_EVENTS / 10))
	echo
	echo "Figure 3: peak resident memory per rank (VmHWM after" \
		"MPI_Finalize, KiB), $NP ranks"
	echo "  Calls: MPI_Barrier on MPI_COMM_SELF (cheap: no" \
		"communication), in 10 blocks; each"
	echo "  traced call is one record.  n = 1 run per row; values per" \
		"rank (rank 0/rank 1)."
	echo
	printf '  %-26s %9s %13s %13s %12s %8s\n' variant calls/rank \
		"VmHWM" "added" "trace B/rank" "ns/call"
	snap phase_snap
	f3_row "no preload" $MEM_EVENTS
	f3_row "synctrace, BUFFER=256K" $MEM_EVENTS SYNCTRACE_BUFFER=256K
	f3_row "synctrace, BUFFER=16M" $MEM_EVENTS SYNCTRACE_BUFFER=16M
	f3_row "synctrace, default (1M)" $small
	flushes=$(f3_flushes "$tmp/f3.d")
	f3_row "synctrace, default (1M)" $MEM_EVENTS
	rm -rf "$tmp/f3.d"
	echo "  (added: VmHWM minus the same rank's without preload;" \
		"ns/call: mean of the 10 blocks."
	echo "  Steady-state cost with the default buffer: $ns - $ns_base =" \
		"$(awk -v a="$ns" -v b="$ns_base" \
			'BEGIN { printf "%.1f", a - b }') ns added per call" \
		"(n = 1 run each)."
	echo "  Buffer flushes in the $small-call run, from the trace's own" \
		"mark records:"
	echo "  $flushes)"
	phase_end "figure 3"
}

# --- figure 4: a whole application --------------------------------------------

# figure4: R rounds of the CG-shaped app (tests/integration/apps/cg.c) on
# NP ranks, without the library, with it, and with it storing its chunks
# uncompressed (SYNCTRACE_LEVEL=0), in a rotating order; the slowdown of
# each round is (with - without) / without.
# --- figure 5: the tools at scale ---------------------------------------

# f5_tool NAME ARGS...: BENCH_TOOLS_RUNS runs of `synctrace ARGS`; prints
# a row of records/s and peak RSS, median (min..max).
f5_tool()
{
	f5_name=$1
	shift
	: > "$tmp/f5.dat"
	i=0
	while [ $i -lt "$TOOLS_RUNS" ]; do
		/usr/bin/time -f "%e %M" -o "$tmp/f5.time" "$CLI" "$@" \
			> "$tmp/f5.out" 2> "$tmp/f5.err" ||
			die "'synctrace $*' failed: $(tail -1 "$tmp/f5.err")"
		cat "$tmp/f5.time" >> "$tmp/f5.dat"
		i=$((i + 1))
	done
	sort -n "$tmp/f5.dat" | awk -v n="$f5_recs" -v name="$f5_name" '
		{ t[NR] = $1; m[NR] = $2 }
		END {
			k = int((NR + 1) / 2)
			for (i = 1; i <= NR; i++) {
				if (i == 1 || m[i] < mlo) mlo = m[i]
				if (i == 1 || m[i] > mhi) mhi = m[i]
			}
			printf "  %-9s %3d %8.1f (%.1f..%.1f) %6.2f (%.2f..%.2f)" \
				" %7.0f (%.0f..%.0f)  %s\n", name, NR, t[k],
				t[1], t[NR], n / t[k] / 1e6, n / t[NR] / 1e6,
				n / t[1] / 1e6, m[k] / 1024, mlo / 1024,
				mhi / 1024,
				(n / t[k] >= 1e7 ? "PASS" : "MISS")
		}'
}

figure5()
{
	gen=$build/gen-trace
	[ -x "$gen" ] || die "no '$gen': run make first"
	[ -x /usr/bin/time ] || die "figure 5 needs /usr/bin/time"
	d=$tmp/f5.d
	per_rank=$((TOOLS_RECORDS / NP - 2))
	[ $per_rank -gt 0 ] || die "BENCH_TOOLS_RECORDS is too small"
	"$gen" "$d" $NP $per_rank || die "cannot generate the run of figure 5"
	f5_recs=$(( (per_rank + 5) * NP ))
	echo
	echo "Figure 5: the tools at scale: a generated run of $NP ranks x" \
		"$per_rank MPI_Allreduce, $f5_recs records,"
	echo "  $(($(trace_bytes "$d") / 1000000)) MB" \
		"(tools/bench/gen-trace.c); each tool end to end" \
		"(reading, analysing, printing), $TOOLS_RUNS runs"
	snap phase_snap
	"$CLI" table --json "$tmp/f5.json" "$d" > /dev/null 2>&1 ||
		die "cannot make the table of figure 5"
	printf '  %-9s %3s %21s %21s %21s  %s\n' tool n "time s" \
		"M records/s" "peak RSS MiB" "target >= 10 M/s"
	f5_tool report report "$d"
	f5_tool table table "$d"
	f5_tool predict predict "$d" --table "$tmp/f5.json"
	echo "  (median (min..max) over runs; records = every record of" \
		"the rank files, sync and"
	echo "  communicator records included)"
	rm -rf "$d"
	phase_end "figure 5"
}

figure4()
{
	echo
	echo "Figure 4: a conjugate-gradient-shaped application, $NP ranks:" \
		"slowdown under synctrace"
	echo "  cg $CG_N $CG_ITERS: per iteration a halo exchange (Irecv," \
		"Isend to each neighbour, Waitall),"
	echo "  a local product of a few us, two dot products by" \
		"MPI_Allreduce, three vector updates."
	echo "  A run's figure is the slowest rank's time for the" \
		"iterations; $R_CG rounds, each one run"
	echo "  without the library, one with it and one with it storing" \
		"chunks uncompressed"
	echo "  (SYNCTRACE_LEVEL=0: how much of the slowdown is zlib's)," \
		"in a rotating order;"
	echo "  slowdown of a round = (with - without) / without.  All" \
		"must compute the same residual."
	snap phase_snap
	: > "$tmp/f4.dat"
	round=1
	while [ $round -le "$R_CG" ]; do
		order=$(rotated $((round - 1)) none full stored)
		for v in $order; do
			name=f4-$round-$v
			set -- $MPIEXEC -n $NP "$CG_APP" $CG_N $CG_ITERS
			case $v in
			none) untraced $name "$@" ;;
			full) traced $name "$tmp/$name.d" "$@" ;;
			stored) traced $name "$tmp/$name.d" \
				SYNCTRACE_LEVEL=0 "$@" ;;
			esac
			rm -rf "$tmp/$name.d"
			t=$(sed -n 's/^cg .* time_s=\([0-9.]*\) .*/\1/p' \
				"$tmp/$name.out")
			res=$(sed -n 's/^cg .* residual=\(.*\)$/\1/p' \
				"$tmp/$name.out")
			[ -n "$t" ] || die "no figure in '$name' output"
			echo "$round $v $t $res" >> "$tmp/f4.dat"
		done
		round=$((round + 1))
	done
	nres=$(cut -d' ' -f4 "$tmp/f4.dat" | sort -u | wc -l)
	echo
	printf '  %-22s %3s %11s %23s %23s %s\n' "" n median \
		"95% CI of median" "min..max" "target <= 1 %"
	for v in none full stored; do
		set -- $(awk -v v=$v '$2 == v { print $3 }' "$tmp/f4.dat" |
			stats)
		printf '  %-22s %3d %9.4f s %23s %23s\n' \
			"$(f1_label $v)" $1 $2 "[$3, $4]" "$5..$6"
	done
	for v in full stored; do
		set -- $(awk -v v=$v '
			$2 == "none" { b[$1] = $3 }
			$2 == v { w[$1] = $3 }
			END {
				for (r in w)
					if (r in b && b[r] > 0)
						print 100 * (w[r] - b[r]) / b[r]
			}' "$tmp/f4.dat" | stats)
		if [ $v = full ]; then
			label="slowdown (paired)"
			verdict=MISS
			awk -v d="$2" 'BEGIN { exit !(d <= 1) }' &&
				verdict=PASS
		else
			label="  LEVEL=0 (paired)"
			verdict="(what compression adds: the difference)"
		fi
		printf '  %-22s %3d %+9.2f %% %23s %23s %s\n' "$label" \
			$1 $2 "[$3, $4] %" "$5..$6 %" "$verdict"
	done
	if [ "$nres" = 1 ]; then
		echo "  Every run computed the same residual," \
			"$(head -n 1 "$tmp/f4.dat" | cut -d' ' -f4)."
	else
		warn "the runs computed $nres different residuals"
	fi
	phase_end "figure 4"
}

# --- main ------------------------------------------------------------------

commit=$(git -C "$top" rev-parse --short HEAD 2> /dev/null) || commit=none
dirty=$(git -C "$top" status --porcelain 2> /dev/null | wc -l)
if [ $BENCH_MPI = openmpi ]; then
	mpiver="Open MPI $(ompi_info -V 2> /dev/null |
		sed -n 's/^Open MPI v//p')"
	mpicc=mpicc.openmpi
else
	mpiver="MPICH $(mpichversion 2> /dev/null |
		sed -n 's/.*Version:[[:space:]]*//p')"
	mpicc=mpicc.mpich
fi
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
mem=$(awk '/^MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo)
echo "synctrace bench, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "  commit $commit ($dirty paths modified or untracked); $LIB"
echo "  $(uname -srm); $cpu x $ncpu; $mem RAM"
echo "  ${mpiver:-?}, $MPIEXEC -n $NP on one node, no pinning;" \
	"apps built by $($mpicc -dumpfullversion 2> /dev/null |
	sed 's/^/gcc /') -O2"
echo "  Clock in the programs: clock_gettime(CLOCK_MONOTONIC)."

set -- $(cpu_jiffies)
b0=$1
a0=$2
sleep 1
set -- $(cpu_jiffies)
idle_busy=$(awk -v b="$(($1 - b0))" -v a="$(($2 - a0))" \
	'BEGIN { printf "%.0f", a ? 100 * b / a : 0 }')
echo "  Before the start: $idle_busy % of $ncpu cores busy over 1 s;" \
	"load average $(loadavg)."
la1=$(cut -d' ' -f1 /proc/loadavg)
if [ "$idle_busy" -gt 10 ]; then
	warn "the machine is not idle ($idle_busy % busy, load $la1 on" \
		"$ncpu cores): the $NP ranks busy-poll, so figures will be" \
		"disturbed"
elif awk -v l="$la1" -v c="$ncpu" 'BEGIN { exit !(l >= c / 2) }'; then
	echo "  Note: the load average is high for $ncpu cores, but it lags" \
		"by a minute or so"
	echo "  and the machine was idle just now; the CPU use of other" \
		"processes is checked below."
fi

start=$(now)
for fig in $FIGURES; do
	case $fig in
	1)
		figure1 1a $NP barrier,allreduce,self-barrier \
			"none full inline stored nosite"
		figure1 1b 1 self-allreduce,self-barrier \
			"none full inline stored"
		n_saved=$N
		N=$N_LOOPS
		W=$((N / 10))
		figure1c 1c bcast,sites,p2p,iallreduce,test,start,pcoll,put \
			"none full stored nosite"
		N=$n_saved
		W=$((N / 10))
		[ $BENCH_MPI = mpich ] && figure1d
		;;
	1d)
		[ $BENCH_MPI = mpich ] ||
			die "figure 1d has an MPICH build only"
		figure1d
		;;
	1c)
		# The loops alone, with the collectives of 1a: what
		# BENCH_MPI=openmpi runs by default.
		n_saved=$N
		N=$N_LOOPS
		W=$((N / 10))
		figure1c "1c ($BENCH_MPI)" \
			barrier,allreduce,bcast,p2p,iallreduce,test,start,pcoll,put \
			"none full stored"
		N=$n_saved
		W=$((N / 10))
		;;
	*) figure$fig ;;
	esac
done
echo
echo "bench: done in $(awk -v a="$start" -v b="$(now)" \
	'BEGIN { printf "%.0f", b - a }') s; other processes used" \
	"${all_other:-0} CPU-s meanwhile; load average now $(loadavg)"
exit 0
