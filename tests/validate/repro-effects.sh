#!/bin/sh
# tests/validate/repro-effects.sh: what makes launches of `synctrace
# bench` differ on this machine, each effect measured with interleaved
# launches (docs/compare.md, "What makes launches differ").  Not part of
# make validate (it takes 10 to 20 minutes on an idle machine); run it
# when the machine is quiet, and read its figures beside the load it
# prints.
#
# Part 1, interleaved rounds: every round makes one launch of each
# configuration, in a shuffled order, all on the grid of issue 19
# (every operation at 8 B, 1 KiB, 64 KiB: 55 groups), EFFECTS_NREP
# measurements each (default 10):
#   bind     ranks bound to cores (the default now)
#   nobind   --no-bind
#   wf6      --window-factor 6 (windows twice as long)
#   fixseed  the same seed, so the same order, in every launch
# Part 2, series: EFFECTS_SERIES times, an idle pause of EFFECTS_GAP
# seconds (default 20), then EFFECTS_LEN (default 6) bound launches back
# to back, for the first launches of a series.
#
# Per configuration it prints: the launch-to-launch sd (per group, the
# sd of the logarithms of the launch medians; median over groups), the
# level against 'bind' (median over groups of the ratio of medians of
# launch medians, less 1), the seconds per launch; and from the bound
# launches: the within-launch drift (per group and launch, the median
# of the last third of its measurements over that of the first third,
# less 1; median over all), and the variance components (within a
# launch, the robust sd of the logarithms of a group's samples; between
# launches, what the sd of launch medians has beyond that sampling),
# with what they predict for tables of N launches of n measurements.
# For series, the deviation of each position from the series' median.
#
# Every launch runs under `flock /tmp/synctrace-timing.lock`, one at a
# time (other helpers' timing runs go between), with the load average
# before it.  Usage: sh tests/validate/repro-effects.sh [OUT];
# environment: BUILD, MPIEXEC, EFFECTS_ROUNDS (8), EFFECTS_NREP,
# EFFECTS_SERIES (3), EFFECTS_LEN, EFFECTS_GAP.
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
ST=$(cd "$(dirname "$BUILD/synctrace")" && pwd)/synctrace
OUT=${1:-$(mktemp -d "${TMPDIR:-/tmp}/st-effects-XXXXXX")}
ROUNDS=${EFFECTS_ROUNDS:-8}
NREP=${EFFECTS_NREP:-10}
SERIES=${EFFECTS_SERIES:-3}
LEN=${EFFECTS_LEN:-6}
GAP=${EFFECTS_GAP:-20}
GRID="--sizes 8,1K,64K --nrep $NREP"
LOCK=/tmp/synctrace-timing.lock

fail()
{
	echo "effects: FAILED: $*" >&2
	exit 2
}

[ -x "$ST" ] || fail "no '$ST': run make first"
command -v python3 > /dev/null 2>&1 || fail "no python3"
mkdir -p "$OUT" || fail "cannot create '$OUT'"
printf 'part\tround\tpos\tlabel\tseed\tload\tsecs\tdir\n' > "$OUT/log.tsv"
echo "effects: launches in $OUT; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# launch PART ROUND POS LABEL SEED ARGS...: one timed bench launch.
launch()
{
	part=$1 round=$2 pos=$3 label=$4 seed=$5
	shift 5
	d=$OUT/$label-$part$round-$pos
	rm -rf "$d"
	l=$(cut -d' ' -f1 /proc/loadavg)
	# The lock is taken first, so the time is the launch's own.
	flock "$LOCK" sh -c 't0=$(date +%s.%N); "$@"; rc=$?;
		echo "$t0 $(date +%s.%N)" > "$0.time"; exit $rc' "$d" \
		"$ST" bench "$@" --seed "$seed" --mpiexec "$MPIEXEC" -o "$d" \
		> "$d.out" 2>&1 < /dev/null || fail "launch $d"
	secs=$(awk '{ printf "%.1f", $2 - $1 }' "$d.time")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$part" "$round" "$pos" \
		"$label" "$seed" "$l" "$secs" "$d" >> "$OUT/log.tsv"
	"$ST" table --json "$d.json" "$d" > /dev/null 2>&1 ||
		fail "table $d"
	"$ST" dump --csv "$d" > "$d.csv" 2>/dev/null || fail "dump $d"
}

seed=100
r=1
while [ "$r" -le "$ROUNDS" ]; do
	order=$(python3 -c "import random; random.seed($r); \
l = ['bind', 'nobind', 'wf6', 'fixseed']; random.shuffle(l); print(*l)")
	pos=0
	for c in $order; do
		seed=$((seed + 1))
		case $c in
		bind) launch i "$r" $pos bind $seed $GRID --bind ;;
		nobind) launch i "$r" $pos nobind $seed $GRID --no-bind ;;
		wf6) launch i "$r" $pos wf6 $seed $GRID --bind \
			--window-factor 6 ;;
		fixseed) launch i "$r" $pos fixseed 77 $GRID --bind ;;
		esac
		pos=$((pos + 1))
	done
	echo "effects: round $r of $ROUNDS done; load $(cut -d' ' -f1 /proc/loadavg)"
	r=$((r + 1))
done
s=1
while [ "$s" -le "$SERIES" ]; do
	sleep "$GAP"
	k=0
	while [ "$k" -lt "$LEN" ]; do
		seed=$((seed + 1))
		launch s "$s" $k series $seed $GRID --bind
		k=$((k + 1))
	done
	echo "effects: series $s of $SERIES done"
	s=$((s + 1))
done

python3 - "$OUT" <<'EOF'
import collections, csv, json, math, statistics as st, sys

out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/log.tsv"), delimiter="\t"))

def medians(d):
    """Group (op, p, d) -> median of the launch, from its table."""
    t = json.load(open(d + ".json"))
    return {(o["op"], g["p"], g["d_bytes"]): g["median_ns"]
            for o in t["operations"] for g in o["groups"] if g["median_ns"]}

def samples(d):
    """Collective groups -> [(seq, cost)] of the launch's measurements:
    cost = last exit - last arrival in global time, first calls left out."""
    per = collections.defaultdict(dict)
    first = 0
    for r in csv.DictReader(open(d + ".csv")):
        if r["kind"] != "call" or not r["seq"] or r["fn"] in (
                "MPI_Send", "MPI_Recv", "MPI_Sendrecv"):
            continue
        per[int(r["seq"])][int(r["rank"])] = r
    g = collections.defaultdict(list)
    for s, rr in per.items():
        if len(rr) < 2:
            continue
        c = max(float(x["g1_ns"]) for x in rr.values()) - \
            max(float(x["g0_ns"]) for x in rr.values())
        r0 = rr[0]
        if c > 0:
            g[(r0["fn"], r0["sbytes"], r0["rbytes"])].append((s, c))
    # The pilot's first calls are the lowest seqs, one per group.
    for k in g:
        g[k].sort()
        g[k] = g[k][1:]
    return g

def sd(v):
    return st.stdev(v) if len(v) > 1 else float("nan")

by = collections.defaultdict(list)
for r in rows:
    r["m"] = medians(r["dir"])
    by[r["label"]].append(r)

def summary(label):
    rs = by[label]
    keys = set.intersection(*(set(r["m"]) for r in rs))
    sds = [sd([math.log(r["m"][k]) for r in rs]) for k in keys]
    mm = {k: st.median(r["m"][k] for r in rs) for k in keys}
    return rs, keys, st.median(sds), mm

print()
print("launch-to-launch spread and level, interleaved launches:")
print(f"{'config':8s} {'launches':>8s} {'sd':>7s} {'vs bind':>8s} "
      f"{'s/launch':>8s} {'load':>5s}")
base = summary("bind") if by["bind"] else None
for label in ("bind", "nobind", "wf6", "fixseed"):
    if not by[label]:
        continue
    rs, keys, s, mm = summary(label)
    lev = st.median(mm[k] / base[3][k] - 1 for k in keys & base[1])
    print(f"{label:8s} {len(rs):8d} {100 * s:6.1f}% {100 * lev:+7.1f}% "
          f"{st.median(float(r['secs']) for r in rs):8.1f} "
          f"{st.median(float(r['load']) for r in rs):5.1f}")

drift, wsd, meds, ns = [], collections.defaultdict(list), \
    collections.defaultdict(list), collections.defaultdict(list)
for r in by["bind"] + by["series"]:
    for k, v in samples(r["dir"]).items():
        c = [x[1] for x in v]
        n = len(c)
        if n >= 6:
            t = n // 3
            drift.append(st.median(c[-t:]) / st.median(c[:t]) - 1)
        lc = sorted(math.log(x) for x in c)
        if n >= 4:
            wsd[k].append((lc[int(0.75 * (n - 1))] -
                           lc[int(0.25 * (n - 1))]) / 1.349)
            meds[k].append(math.log(st.median(c)))
            ns[k].append(n)
sw, sb = [], []
for k in meds:
    if len(meds[k]) >= 3:
        w, n = st.median(wsd[k]), st.median(ns[k])
        sw.append(w)
        sb.append(math.sqrt(max(0.0, st.variance(meds[k]) -
                                (math.pi / 2) * w * w / n)))
if drift:
    print(f"\nwithin a launch (bound launches): last third / first third "
          f"- 1, median {100 * st.median(drift):+.1f}% "
          f"(n={len(drift)} group-launches)")
if sw:
    w, b = st.median(sw), st.median(sb)
    print(f"variance components (collectives, median over {len(sw)} "
          f"groups): within a launch {100 * w:.1f}%, between launches "
          f"{100 * b:.1f}%")
    print("predicted sd of a table (launch medians' median) for N "
          "launches of n measurements:")
    for N, n in ((3, 30), (5, 20), (10, 10), (20, 5), (30, 3)):
        v = (b * b + (math.pi / 2) * w * w / n) / N
        print(f"  {N:3d} x {n:3d}: {100 * math.sqrt(v):5.1f}%")

if by["series"]:
    dev = collections.defaultdict(list)
    for s in set(r["round"] for r in by["series"]):
        rs = [r for r in by["series"] if r["round"] == s]
        keys = set.intersection(*(set(r["m"]) for r in rs))
        for k in keys:
            m = st.median(math.log(r["m"][k]) for r in rs)
            for r in rs:
                dev[int(r["pos"])].append(math.log(r["m"][k]) - m)
    print(f"\nseries after an idle pause: position in the series, median "
          f"deviation from the series' median")
    for p in sorted(dev):
        print(f"  launch {p + 1}: {100 * st.median(dev[p]):+6.1f}% "
              f"(n={len(dev[p])})")
EOF
echo "effects: done; load average $(cut -d' ' -f1-3 /proc/loadavg)"
