#!/bin/sh
# tools/netns-predict.sh: reverse profiling across "machines", as root.
# Two network namespaces joined by a veth pair stand for two hosts, the
# link shaped with tc's token bucket (tbf: a rate limit; netem is not
# available here).  One rank runs in each namespace, MPICH over TCP
# (UCX_TLS=tcp), hydra reaching the second namespace through a launcher
# that runs its proxy under 'ip netns exec' (as ssh would on a real
# cluster).  Then:
#
#  1. 'synctrace bench' in the namespaces, and 'synctrace table' of it:
#     the cost table of the "network";
#  2. each app traced in shared memory (plain mpiexec on this machine);
#  3. 'synctrace predict' of that trace with the network's table;
#  4. the same app run, traced, in the namespaces: what it really takes
#     (the measured run time, MPI_Init exit to MPI_Finalize entry, as
#     'predict --validate' measures it);
#  5. predicted against measured, per app; target: within 10 %.
#
# Steps 2 to 4 are done --reps times (default 3) and the medians are
# compared, with the spread of the runs beside them: on a shared 2-core
# machine a single run is at the mercy of whatever else runs.
#
# Usage: sh tools/netns-predict.sh [--rate RATE] [--burst SIZE] [--reps N]
#                                  [--keep DIR]
#   --rate RATE   the link's rate, as tc takes it (default 500mbit)
#   --burst SIZE  the token bucket's size (default 64kb)
#   --reps N      runs of each app in each place (default 3)
#   --keep DIR    work in DIR and keep it (default: a temporary directory,
#                 removed at the end)
# Environment: BUILD (default build), MPIEXEC (default mpiexec.mpich).
# Exit status: 0 when every app is within 10 %, 1 when one is not, 2 on
# a setup failure, 77 when not root or a tool is missing.
#
# The namespaces, the veth pair and the addresses (10.231.77.1 and .2,
# which exist only inside the two namespaces) are created here and
# removed on exit, whatever the exit; so is every process left in them.

set -u
rate=500mbit
burst=64kb
reps=3
keep=
while [ $# -gt 0 ]; do
	case $1 in
	--rate) rate=$2; shift 2 ;;
	--rate=*) rate=${1#--rate=}; shift ;;
	--burst) burst=$2; shift 2 ;;
	--burst=*) burst=${1#--burst=}; shift ;;
	--reps) reps=$2; shift 2 ;;
	--reps=*) reps=${1#--reps=}; shift ;;
	--keep) keep=$2; shift 2 ;;
	--keep=*) keep=${1#--keep=}; shift ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "netns-predict: unknown option '$1'" >&2; exit 2 ;;
	esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) build=$BUILD ;; *) build=$top/$BUILD ;; esac
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
cli=$build/synctrace
apps=$build/apps

say() { echo "netns-predict: $*"; }
skip() { say "SKIP: $*" >&2; exit 77; }
die() { say "error: $*" >&2; exit 2; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
for t in ip tc timeout "$MPIEXEC"; do
	command -v "$t" > /dev/null 2>&1 || skip "no '$t'"
done
[ -x "$cli" ] || die "no '$cli': run make first"
[ -x "$build/synctrace-bench" ] || die "no '$build/synctrace-bench'"
for a in bsp halo transpose; do
	[ -x "$apps/$a" ] || die "no '$apps/$a': run make first"
done

tag=$$
ns_a=stp-a-$tag
ns_b=stp-b-$tag
veth_a=stpa$tag
veth_b=stpb$tag
addr_a=10.231.77.1
addr_b=10.231.77.2
if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work" || die "cannot create '$work'"
else
	work=$(mktemp -d /tmp/netns-predict-XXXXXX) || die "no temp dir"
fi

cleanup()
{
	for ns in "$ns_a" "$ns_b"; do
		ip netns list 2> /dev/null | grep -q "^$ns\b" || continue
		# Only what this script started runs in its namespaces.
		for pid in $(ip netns pids "$ns" 2> /dev/null); do
			kill -9 "$pid" 2> /dev/null
		done
		ip netns del "$ns" 2> /dev/null
	done
	[ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

# The two "hosts".
ip netns add "$ns_a" && ip netns add "$ns_b" &&
	ip link add "$veth_a" type veth peer name "$veth_b" &&
	ip link set "$veth_a" netns "$ns_a" &&
	ip link set "$veth_b" netns "$ns_b" &&
	ip -n "$ns_a" addr add "$addr_a/24" dev "$veth_a" &&
	ip -n "$ns_b" addr add "$addr_b/24" dev "$veth_b" &&
	ip -n "$ns_a" link set lo up && ip -n "$ns_b" link set lo up &&
	ip -n "$ns_a" link set "$veth_a" up &&
	ip -n "$ns_b" link set "$veth_b" up ||
	die "cannot set up the namespaces"
for side in "$ns_a $veth_a" "$ns_b $veth_b"; do
	set -- $side
	ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$rate" \
		burst "$burst" latency 20ms || die "cannot shape '$2' with tbf"
done

# hydra's "ssh": run the command line in the namespace of the host.
cat > "$work/launch" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
host=\$1
shift
case \$host in
$addr_a) ns=$ns_a ;;
$addr_b) ns=$ns_b ;;
*) echo "netns launcher: unknown host '\$host'" >&2; exit 255 ;;
esac
exec ip netns exec "\$ns" sh -c "\$*"
EOF
# mpiexec itself runs in the first namespace, rank 0 beside it.
cat > "$work/mpiexec" <<EOF
#!/bin/sh
exec ip netns exec $ns_a env UCX_TLS=tcp $MPIEXEC -launcher ssh \\
	-launcher-exec "$work/launch" -hosts $addr_a,$addr_b \\
	-iface $veth_a "\$@"
EOF
chmod +x "$work/launch" "$work/mpiexec"

# retry SECONDS OUT CMD...: CMD under a time limit, up to three times (a
# job over UCX's TCP transport now and then hangs at its end); leftover
# processes in the namespaces are killed between tries.
retry()
{
	limit=$1 out=$2
	shift 2
	for try in 1 2 3; do
		timeout -k 5 "$limit" "$@" < /dev/null > "$out" 2>&1 &&
			return 0
		say "'$*' failed or hung (try $try), see $out" >&2
		for ns in "$ns_a" "$ns_b"; do
			for pid in $(ip netns pids "$ns" 2> /dev/null); do
				kill -9 "$pid" 2> /dev/null
			done
		done
		sleep 1
	done
	return 1
}

# The network's cost table.
rm -rf "$work/bench"
retry 600 "$work/bench.log" "$cli" bench -n 2 -o "$work/bench" \
	--mpiexec "$work/mpiexec" --sync barrier \
	--ops allreduce,alltoall,reduce,pingpong \
	--sizes 1,8,64,512,4K,32K,128K,256K --nrep 20 ||
	die "synctrace bench in the namespaces failed, see $work/bench.log"
"$cli" table --json "$work/net.json" "$work/bench" > "$work/net.txt" \
	2>&1 || die "synctrace table failed, see $work/net.txt"
say "network (TCP between namespaces, tbf rate $rate burst $burst) cost table:"
sed -n '/^Cost formulas/,/^$/p;/^function  /,/^$/p' "$work/net.txt" |
	sed -n '1,30s/^/    /p'

# json_val FILE KEY: the number after "KEY": in FILE (first match).
json_val()
{
	sed -n "s/.*\"$2\": \\([-0-9.e+]*\\).*/\\1/p" "$1" | head -n 1
}

# median FILE: the median of the numbers in FILE, one per line.
median()
{
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2
	}'
}

# spread FILE: "min..max" of FILE's numbers, in ms.
spread()
{
	sort -g "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 }
		END { printf "%.1f..%.1f", lo / 1e6, hi / 1e6 }'
}

status=0
printf '%-10s %21s %21s %21s %8s\n' app "shm measured, ms" \
	"predicted, ms" "net measured, ms" error > "$work/summary"
for case in "bsp 2000 20000" "halo 400 50000" "transpose 50 128"; do
	set -- $case
	app=$1
	shift
	: > "$work/$app.shm"
	: > "$work/$app.pred"
	: > "$work/$app.meas"
	i=1
	while [ "$i" -le "$reps" ]; do
		# 2. Traced in shared memory.
		rm -rf "$work/shm-$app-$i"
		retry 120 "$work/shm-$app-$i.log" env -u LD_PRELOAD "$cli" \
			run -o "$work/shm-$app-$i" -- "$MPIEXEC" -n 2 \
			"$apps/$app" "$@" ||
			die "$app in shared memory failed"
		# 3. Predicted on the network.
		"$cli" predict "$work/shm-$app-$i" --table "$work/net.json" \
			--json --validate > "$work/pred-$app-$i.json" \
			2> "$work/pred-$app-$i.err" ||
			die "predict of $app failed, see $work/pred-$app-$i.err"
		# 4. Run there, traced: the measured time, on the same terms.
		rm -rf "$work/net-$app-$i"
		retry 300 "$work/net-$app-$i.log" env -u LD_PRELOAD "$cli" \
			run -o "$work/net-$app-$i" -- "$work/mpiexec" -n 2 \
			"$apps/$app" "$@" ||
			die "$app in the namespaces failed"
		"$cli" predict "$work/net-$app-$i" --table "$work/net.json" \
			--json --validate --missing=measured \
			> "$work/meas-$app-$i.json" \
			2> "$work/meas-$app-$i.err" ||
			die "measuring $app's namespace run failed"
		json_val "$work/pred-$app-$i.json" measured_run_time_ns \
			>> "$work/$app.shm"
		json_val "$work/pred-$app-$i.json" run_time_ns \
			>> "$work/$app.pred"
		json_val "$work/meas-$app-$i.json" measured_run_time_ns \
			>> "$work/$app.meas"
		i=$((i + 1))
	done
	[ "$(wc -l < "$work/$app.meas")" -eq "$reps" ] &&
		[ "$(wc -l < "$work/$app.pred")" -eq "$reps" ] ||
		die "no figures for $app (see $work)"
	line=$(awk -v a="$app" -v s="$(median "$work/$app.shm")" \
		-v p="$(median "$work/$app.pred")" \
		-v m="$(median "$work/$app.meas")" \
		-v ss="$(spread "$work/$app.shm")" \
		-v ps="$(spread "$work/$app.pred")" \
		-v ms="$(spread "$work/$app.meas")" 'BEGIN {
		e = (p - m) / m
		printf "%-10s %6.1f (%12s) %6.1f (%12s) %6.1f (%12s) " \
		       "%+7.1f%%%s\n", a, s / 1e6, ss, p / 1e6, ps, m / 1e6,
		       ms, 100 * e, (e > -0.1 && e < 0.1) ? "" : "  MISS"
	}')
	echo "$line" >> "$work/summary"
	case $line in *MISS) status=1 ;; esac
done
say "predicted from the shared-memory traces and the network's table,"
say "against the same app run on the network; medians of $reps runs, the"
say "runs' range in brackets (target: within 10 %):"
sed 's/^/    /' "$work/summary"
[ -n "$keep" ] && say "everything is in $keep"
exit $status
