#!/bin/sh
# tools/bench/run.sh: `make bench`; measures what the interposer costs and
# prints one table per figure.  Every time figure is a median over runs
# with its spread (95 % confidence interval of the median, exact binomial,
# and min-max) and n; the added time per call is the median of paired
# differences against runs without the library made in the same rounds,
# variants interleaved in a rotating order so drift hits all alike.
#
#   1. added ns per intercepted call: MPI_Barrier, 8-byte MPI_Allreduce
#      and MPI_Barrier on MPI_COMM_SELF (no communication, so almost all
#      of it is interposer work), without the library, with it, and with
#      it and SYNCTRACE_DEPTH=0 (call sites off);
#   2. trace bytes per record: rank files over decoded records, for the
#      allreduce loop (zlib levels 1 and 9) and a varied workload;
#   3. peak resident memory (VmHWM) per rank after 10 M cheap calls per
#      rank, without the library and with three SYNCTRACE_BUFFER sizes,
#      plus 1 M calls at the default size: bounded by the buffer, not by
#      the number of events.
#
# Targets are reported as met or not met, never asserted: the script exits
# 0 when everything ran, 1 when something failed to run.  The machine's
# other load is measured before and during each figure and a warning is
# printed when it may have disturbed the numbers.
#
# Environment: BUILD (default build), MPIEXEC (default mpiexec.mpich);
# BENCH_RUNS (runs per variant, figure 1, default 13), BENCH_CALLS (calls
# per timed block, 100000), BENCH_BLOCKS (blocks per run, 5),
# BENCH_TRACE_RUNS (runs per row, figure 2, 3), BENCH_MIX_ITERS (10000),
# BENCH_MEM_EVENTS (calls per rank, figure 3, 10000000); BENCH_FIGURES
# (which figures, default "1 2 3"); TMPDIR.

BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
R=${BENCH_RUNS:-13}
N=${BENCH_CALLS:-100000}
B=${BENCH_BLOCKS:-5}
W=$((N / 10))
TRACE_RUNS=${BENCH_TRACE_RUNS:-3}
TRACE_CALLS=100000
TRACE_BLOCKS=3
MIX_ITERS=${BENCH_MIX_ITERS:-10000}
MEM_EVENTS=${BENCH_MEM_EVENTS:-10000000}
FIGURES=${BENCH_FIGURES:-1 2 3}
NP=2
# Hydra kills a run that takes longer than this many seconds.
export MPIEXEC_TIMEOUT=300

top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$top" || exit 1
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
LIB=$build/libsynctrace.so
CLI=$build/synctrace
CALLS_APP=$build/apps/bench-calls
MIX_APP=$build/apps/bench-mix

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
	1|2|3) ;;
	*) die "BENCH_FIGURES='$FIGURES': figures are 1, 2 and 3" ;;
	esac
done
for v in $R $N $B $TRACE_RUNS $MIX_ITERS $MEM_EVENTS; do
	case $v in
	''|*[!0-9]*|0) die "BENCH_* values must be positive integers" ;;
	esac
done
[ $((MEM_EVENTS % 10)) = 0 ] || die "BENCH_MEM_EVENTS must be a multiple of 10"
command -v "$MPIEXEC" >/dev/null 2>&1 || die "no '$MPIEXEC' in PATH"
[ -f "$LIB" ] || die "no '$LIB': run make first"

# The benchmark programs are integration apps, which `make bench` does
# not build (it builds the library and the CLI): build any that is
# missing or older than its source here.
for app in "$CALLS_APP" "$MIX_APP"; do
	src=tests/integration/apps/$(basename "$app").c
	[ -x "$app" ] && [ ! "$src" -nt "$app" ] && continue
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} \
		--no-print-directory BUILD="$BUILD" "$app" >&2 ||
		die "cannot build '$app'"
done

# Nothing from the caller's environment may change what is measured.
for v in $(env | sed -n 's/^\(SYNCTRACE_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done
unset LD_PRELOAD

tmp=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-bench.XXXXXX") ||
	die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# --- running the programs -------------------------------------------------

# run NAME [VAR=VALUE...] CMD...: run CMD with the given environment,
# stdout to $tmp/NAME.out, stderr to $tmp/NAME.err; dies if it fails.
run()
{
	name=$1
	shift
	if ! env "$@" < /dev/null > "$tmp/$name.out" 2> "$tmp/$name.err"; then
		sed 's/^/    /' "$tmp/$name.err" >&2
		die "'$*' failed (its stderr is above)"
	fi
}

# untraced NAME CMD...: CMD without the interposer.
untraced()
{
	name=$1
	shift
	run "$name" "$@"
}

# traced NAME DIR [VAR=VALUE...] CMD...: CMD with the interposer
# preloaded and its trace in DIR, which must not exist yet.
traced()
{
	name=$1
	dir=$2
	shift 2
	run "$name" LD_PRELOAD="$LIB" SYNCTRACE_DIR="$dir" "$@"
	[ -f "$dir/rank-0.st" ] && [ -f "$dir/rank-$((NP - 1)).st" ] ||
		die "'$name' left no rank files in '$dir'"
}

# field NAME OP KEY: value of KEY on the "op=OP ..." line of NAME.out.
field()
{
	sed -n "s/^op=$2 .* $3=\\([0-9.]*\\).*/\\1/p" "$tmp/$1.out"
}

# vmhwm NAME: the VmHWM (KiB) each rank printed, "r0 r1 ...", by rank.
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
# chunk headers (writer/format.h, version 1: the header text length at
# offset 12, then 28-byte chunk headers with the payload length at 12 and
# the record count at 16); empty if the file is not version 1.  Reads the
# headers only, so it costs nothing even for 10 M records.
chunk_records()
{
	f=$1
	size=$(wc -c < "$f")
	set -- $(od -An -v -tu4 -j 8 -N 8 "$f")
	[ "$1" = 1 ] || return 0
	off=$((20 + $2))
	recs=0
	while [ $off -lt "$size" ]; do
		set -- $(od -An -v -tu4 -j $off -N 28 "$f")
		[ $# = 7 ] || break
		off=$((off + 28 + $4))
		recs=$((recs + $5))
	done
	echo $recs
}

# dump_records DIR: records `synctrace dump --csv` decodes from DIR (all
# kinds, all ranks); empty if the dump fails.  A quoted field may hold
# any bytes, newlines too (the text of sync records), so a record ends at
# a newline after an even number of quotes, not at every newline.
dump_records()
{
	"$CLI" dump --csv "$1" > "$tmp/dump.csv" 2> "$tmp/dump.err" || return 0
	tr -cd '"\n' < "$tmp/dump.csv" |
		awk '{ q += length($0) } q % 2 == 0 { n++ } END { print n - 1 }'
}

# --- statistics -----------------------------------------------------------

# stats: read numbers, one a line; print "n median cilo cihi min max",
# with the 95 % confidence interval of the median from order statistics:
# the widest [x(j), x(n+1-j)] with 1 - 2 P(Bin(n, 1/2) <= j - 1) >= 0.95
# ("n/a" below n = 6, where no such j exists).
stats()
{
	sort -g | awk '
		{ x[++n] = $1 }
		END {
			if (!n) { print "0 - - - - -"; exit }
			h = int((n + 1) / 2)
			med = n % 2 ? x[h] : (x[h] + x[h + 1]) / 2
			c = 1; cum = 0; j = 0
			for (k = 0; k <= n; k++) {
				if (k) c = c * (n - k + 1) / k
				cum += c / 2 ^ n
				if (1 - 2 * cum >= 0.95) j = k + 1
				else break
			}
			lo = j ? sprintf("%.6g", x[j]) : "n/a"
			hi = j ? sprintf("%.6g", x[n + 1 - j]) : "n/a"
			printf "%d %.6g %s %s %.6g %.6g\n", n, med, lo, hi, \
				x[1], x[n]
		}'
}

# --- machine load ---------------------------------------------------------

ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
tck=$(getconf CLK_TCK 2>/dev/null || echo 100)

# busy jiffies and all jiffies of the machine so far
cpu_jiffies()
{
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, \
		$2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# CPU seconds used by this script's finished children (all MPI ranks,
# launchers and tools are reaped before a phase ends).  `times` must run
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
# jiffies, the time, and our children's CPU seconds.
snap()
{
	sn_var=$1
	child_cpu > "$tmp/cpu"
	set -- $(cpu_jiffies)
	eval "$sn_var=\"$1 $(now) $(cat "$tmp/cpu")\""
}

# other_since SNAP: "CPU-s wall-s percent": CPU time other processes
# used since SNAP was taken, the time since then, and the first as a
# percentage of one core.
other_since()
{
	child_cpu > "$tmp/cpu"
	set -- $1 $(cpu_jiffies)
	awk -v b0="$1" -v w0="$2" -v o0="$3" -v b1="$4" -v w1="$(now)" \
		-v o1="$(cat "$tmp/cpu")" -v t="$tck" 'BEGIN {
			o = (b1 - b0) / t - (o1 - o0); if (o < 0) o = 0
			printf "%.1f %.1f %.0f", o, w1 - w0, 100 * o / (w1 - w0)
		}'
}

phase_start()
{
	snap ph_snap
}

# phase_end NAME: how much CPU other processes took while NAME ran.
phase_end()
{
	ph_name=$1
	set -- $(other_since "$ph_snap")
	echo "  machine: other processes used $1 CPU-s during these $2 s" \
		"($3 % of one core); load average $(loadavg)"
	[ "$3" -le 10 ] ||
		warn "other processes ran during $ph_name;" \
			"figures may be disturbed, rerun on a quiet machine"
	all_other=$(awk -v a="${all_other:-0}" -v b="$1" \
		'BEGIN { print a + b }')
}

# --- provenance -----------------------------------------------------------

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null) || commit="none"
dirty=$(git -C "$top" status --porcelain 2>/dev/null | wc -l)
echo "synctrace bench, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "  commit $commit ($dirty paths modified or untracked);" \
	"library $LIB"
echo "  $(uname -srm); $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo |
	head -n 1) x $ncpu; $(awk '/^MemTotal/ { printf "%d MiB", $2 / 1024 }' \
	/proc/meminfo) RAM"
mpiver=$(mpichversion 2>/dev/null | sed -n 's/.*Version:[[:space:]]*//p')
echo "  MPI: MPICH $mpiver" \
	"(${MPIEXEC} -n $NP, one node, no pinning); apps:" \
	"$(mpicc.mpich --version 2>/dev/null | head -n 1), -std=c11 -O2 -g"
echo "  clock in the programs: clock_gettime(CLOCK_MONOTONIC)"

set -- $(cpu_jiffies)
b0=$1 a0=$2
sleep 1
set -- $(cpu_jiffies)
idle_busy=$(awk -v b="$(($1 - b0))" -v a="$(($2 - a0))" \
	'BEGIN { printf "%.0f", a ? 100 * b / a : 0 }')
echo "  before start: $idle_busy % of $ncpu cores busy over 1 s;" \
	"load average $(loadavg)"
la1=$(cut -d' ' -f1 /proc/loadavg)
if [ "$idle_busy" -gt 10 ] ||
	awk -v l="$la1" -v c="$ncpu" 'BEGIN { exit !(l >= c / 2) }'; then
	warn "the machine is not idle ($idle_busy % busy, load $la1 on" \
		"$ncpu cores): the $NP ranks busy-poll, so figures will be" \
		"disturbed"
fi
bench_start=$(now)

# --- figure 1: added time per call ----------------------------------------

figure1()
{
	echo
	echo "Figure 1: time per intercepted call, $NP ranks (ns per call)"
	echo "  Each run times each op in $B blocks of $N calls after $W warm-up" \
		"calls; a block"
	echo "  takes the slowest rank's loop time; a run's figure is the sum over" \
		"its blocks / $((B * N)),"
	echo "  which includes the buffer flushes (compression) that fall in" \
		"the timed loops."
	echo "  $R runs per variant, variants interleaved, order rotated each round."
	echo "  Spread: 95 % CI of the median (order statistics) and min..max over" \
		"runs."

	ops="barrier allreduce self-barrier"
	phase_start
	: > "$tmp/f1.dat"
	round=1
	disturbed=
	while [ $round -le "$R" ]; do
		snap rd_snap
		case $((round % 3)) in
		1) order="none full nosite" ;;
		2) order="full nosite none" ;;
		0) order="nosite none full" ;;
		esac
		for v in $order; do
			name=f1-$round-$v
			args="$CALLS_APP barrier,allreduce,self-barrier $N $B $W"
			case $v in
			none) untraced $name $MPIEXEC -n $NP $args ;;
			full) traced $name "$tmp/$name.d" $MPIEXEC -n $NP $args ;;
			nosite) traced $name "$tmp/$name.d" SYNCTRACE_DEPTH=0 \
				$MPIEXEC -n $NP $args ;;
			esac
			rm -rf "$tmp/$name.d"
			for op in $ops; do
				x=$(field $name $op ns_mean)
				[ -n "$x" ] || die "no figure for $op in '$name' output"
				echo "$round $v $op $x" >> "$tmp/f1.dat"
			done
		done
		set -- $(other_since "$rd_snap")
		[ "$3" -le 10 ] || disturbed="$disturbed $round"
		round=$((round + 1))
	done

	label()
	{
		case $1 in
		none) echo "no preload" ;;
		full) echo "synctrace" ;;
		nosite) echo "synctrace, DEPTH=0" ;;
		esac
	}

	opname()
	{
		case $1 in
		barrier) echo "MPI_Barrier" ;;
		allreduce) echo "MPI_Allreduce 8 B" ;;
		self-barrier) echo "Barrier on SELF" ;;
		esac
	}

	echo
	printf '  %-18s %-19s %3s %9s %21s %19s\n' op variant n median \
		"95% CI of median" "min..max"
	for op in $ops; do
		for v in none full nosite; do
			set -- $(awk -v v=$v -v o=$op '$2 == v && $3 == o {
				print $4 }' "$tmp/f1.dat" | stats)
			printf '  %-18s %-19s %3d %9.1f %21s %19s\n' "$(opname $op)" \
				"$(label $v)" $1 $2 "[$3, $4]" "$5..$6"
			eval "med_${v}_$(echo $op | tr - _)=$2"
		done
	done

	echo
	echo "  Added time per call: per round, (run with library) - (run without)."
	printf '  %-18s %-19s %3s %9s %21s %19s %7s %s\n' op variant n median \
		"95% CI of median" "min..max" ratio "target <= 50 ns"
	for op in $ops; do
		for v in full nosite; do
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
				'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
			verdict="not met"
			awk -v d="$2" 'BEGIN { exit !(d <= 50) }' && verdict="met"
			[ $v = nosite ] && verdict="($verdict; sites off)"
			printf '  %-18s %-19s %3d %+9.1f %21s %19s %7s %s\n' \
				"$(opname $op)" "$(label $v)" $1 $2 "[$3, $4]" \
				"$5..$6" "$ratio" "$verdict"
		done
	done
	echo "  (ratio: median with / median without; target applies with" \
		"call sites on)"
	set -- $disturbed
	echo "  Rounds in which other processes took > 10 % of a core: $# of $R" \
		"${1:+(round$disturbed)}"
	phase_end "figure 1"
}

# --- figure 2: trace bytes per record -------------------------------------

figure2()
{
	echo
	echo "Figure 2: trace size, $NP ranks (bytes of all rank files / records" \
		"decoded from them)"
	echo "  Records: every record of every kind, counted by" \
		"'synctrace dump --csv' and checked"
	echo "  against the chunk headers; bytes include file headers and" \
		"metadata records."
	echo "  Timestamps are stored losslessly as integer ns (writer/format.h)."
	echo "  Runs per row: $TRACE_RUNS; records and bytes are medians over runs."
	echo
	printf '  %-28s %-10s %3s %10s %11s %9s %21s %15s %s\n' workload settings n \
		records bytes "B/record" "95% CI of median" "min..max" \
		"target <= 4 B"
	phase_start

	# trace_row LABEL SETTINGS [VAR=VALUE...] -- CMD...: TRACE_RUNS traced
	# runs of CMD, one table row.
	trace_row()
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
				warn "'synctrace dump --csv $d' failed;" \
					"counting chunk headers"
				recs=$hdr
			elif [ "$recs" != "$hdr" ]; then
				warn "dump decodes $recs records," \
					"chunk headers say $hdr"
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
		verdict="not met"
		awk -v d="$2" 'BEGIN { exit !(d <= 4) }' && verdict="met"
		printf '  %-28s %-10s %3d %10.0f %11.0f %9.3f %21s %15s %s\n' \
			"$what" "$settings" $1 "$recs" "$bytes" $2 "[$3, $4]" \
			"$(printf '%.3f..%.3f' $5 $6)" "$verdict"
	}

	trace_row "allreduce loop (8 B)" "default" -- \
		$MPIEXEC -n $NP $CALLS_APP allreduce $TRACE_CALLS $TRACE_BLOCKS
	trace_row "allreduce loop (8 B)" "LEVEL=9" SYNCTRACE_LEVEL=9 -- \
		$MPIEXEC -n $NP $CALLS_APP allreduce $TRACE_CALLS $TRACE_BLOCKS
	trace_row "varied (bench-mix)" "default" -- \
		$MPIEXEC -n $NP $MIX_APP $MIX_ITERS
	# What the last default run of bench-mix left: sites, communicators, and
	# whether every MPI call the app made is in the trace.
	if [ -s "$tmp/dump.csv" ]; then
		mix_check=$(awk -F, -v np=$NP '
			FILENAME != "-" && /^rank=/ {
				split($0, f, /[= ]/)
				made[f[2]] = f[4]
				next
			}
			$3 == "call" { calls[$1]++ }
			$3 == "site" { sites++ }
			$3 == "comm" { comms++ }
			END {
				ok = "yes"
				for (r in made)
					if (calls[r] != made[r])
						ok = "NO"
				printf "%d %d %s", sites / np, comms / np, ok
			}' "$tmp/f2-$TRACE_RUNS.out" "$tmp/dump.csv")
	else
		mix_check="? ? ?"
	fi
	trace_row "varied (bench-mix)" "DEPTH=0" SYNCTRACE_DEPTH=0 -- \
		$MPIEXEC -n $NP $MIX_APP $MIX_ITERS
	set -- $mix_check
	echo "  (allreduce loop: $((TRACE_CALLS * TRACE_BLOCKS)) timed +" \
		"$((TRACE_CALLS / 10)) warm-up calls per rank;"
	echo "  bench-mix: $MIX_ITERS iterations of 16 calls per rank: Bcast," \
		"Allreduce, Reduce, Allgather,"
	echo "  Alltoall with 1..4096 elements; 2 Irecv, 2 Isend, Waitall;" \
		"Sendrecv, Iallreduce, Wait,"
	echo "  Barrier on a dup; Gather, Scatter on a split; per rank $1" \
		"call-site and $2 communicator"
	echo "  records; one call record for each MPI call the app counted: $3)"
	phase_end "figure 2"
}

# --- figure 3: peak memory ------------------------------------------------

figure3()
{
	echo
	echo "Figure 3: peak resident memory per rank (VmHWM, KiB, read after" \
		"MPI_Finalize), $NP ranks"
	echo "  Calls: MPI_Barrier on MPI_COMM_SELF (cheap, no communication)," \
		"10 blocks per run;"
	echo "  each traced call is one record.  n = 1 run per row; values are" \
		"per rank (rank 0 / rank 1)."
	echo
	printf '  %-30s %11s %17s %17s %13s %9s\n' variant "calls/rank" \
		"VmHWM r0/r1" "added r0/r1" "trace B/rank" "ns/call"
	phase_start

	# mem_row LABEL EVENTS [VAR=VALUE...]: one traced (or, for LABEL "no
	# preload", untraced) run of EVENTS self-barriers per rank; the trace is
	# left in $tmp/f3.d.
	mem_row()
	{
		what=$1
		ev=$2
		shift 2
		d=$tmp/f3.d
		rm -rf "$d"
		cmd="$MPIEXEC -n $NP $CALLS_APP self-barrier $((ev / 10)) 10 0"
		if [ "$what" = "no preload" ]; then
			untraced f3 $cmd
			bytes=-
		else
			traced f3 "$d" "$@" $cmd
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
		printf '  %-30s %11d %17s %17s %13s %9s\n' "$what" "$ev" \
			"$(echo $mem | tr ' ' /)" "$added" "$bytes" "$ns"
	}

	mem_row "no preload" $MEM_EVENTS
	mem_row "synctrace, BUFFER=256K" $MEM_EVENTS SYNCTRACE_BUFFER=256K
	mem_row "synctrace, BUFFER=16M" $MEM_EVENTS SYNCTRACE_BUFFER=16M
	mem_row "synctrace, BUFFER=1M (default)" $((MEM_EVENTS / 10))
	# The trace's own flush records, in the smaller run: what compressing and
	# writing a full buffer costs, spread over the records.
	flush=$("$CLI" dump --csv "$tmp/f3.d" 2> /dev/null | awk -F, '
		$3 == "mark" && $4 == "flush" { n[$1]++; t[$1] += $6 - $5 }
		$3 ~ /^[a-z]+$/ { recs[$1]++ }
		END {
			for (r in n)
				printf "%srank %s %.1f ns/record (%d flushes," \
					" mean %.1f ms)", (s++ ? "; " : ""), r, \
					t[r] / recs[r], n[r], t[r] / n[r] / 1e6
			if (!s && length(recs))
				printf "none (no buffer filled up)"
		}')
	mem_row "synctrace, BUFFER=1M (default)" $MEM_EVENTS
	rm -rf "$tmp/f3.d"
	echo "  (added: VmHWM minus the same rank's VmHWM without preload;" \
		"ns/call: mean of 10 blocks;"
	echo "  without preload $ns_base ns/call, so with the default buffer the" \
		"interposer adds"
	echo "  $(awk -v a="$ns" -v b="$ns_base" 'BEGIN { printf "%.1f", a - b }')" \
		"ns per call at steady state, n = 1 run of $MEM_EVENTS calls per rank)"
	echo "  Flushes in the $((MEM_EVENTS / 10))-call run (its own mark" \
		"records), per rank: ${flush:-n/a}"
	phase_end "figure 3"
}

for f in $FIGURES; do
	figure$f
done

echo
elapsed=$(awk -v a="$bench_start" -v b="$(now)" \
	'BEGIN { printf "%.0f", b - a }')
echo "bench: done in $elapsed s; other processes used $all_other CPU-s" \
	"meanwhile; load average now $(loadavg)"
exit 0
