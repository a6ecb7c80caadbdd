#!/bin/sh
# tests/validate/repro.sh: do cost tables reproduce?  Makes three
# tables with `synctrace bench --repro` (the default table meant to be
# compared), one after the other: A, then C with shared memory switched
# off (MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp, through mpiexec -genv), then B,
# independent of A and made after C as a second user would make it.
# Then it measures
#  - repro.agree: the median over groups of |B/A - 1|, the difference
#    `synctrace table --compare` estimates from the launches' medians
#    (target: below 5 %), and the same from the tables' group medians,
#    as issue 19 measured it (reported, no target);
#  - repro.same: the share of groups --compare calls different between
#    A and B (target: 5 % or less; they are the same machine and MPI);
#  - repro.tcp: the share of groups --compare calls different between A
#    and C (target: at least half; TCP through the loopback costs
#    several times what shared memory does at small sizes);
#  - the launch-to-launch spread of A and B (median over groups of the
#    sd of the per-launch medians) and the difference two such tables
#    resolve, as `synctrace table` reports them.
# Every bench runs under `flock /tmp/synctrace-timing.lock`, so that no
# other timing runs beside it, with the load average before and after.
# Prints one line per figure: name, value, target, PASS or MISS, and
# writes them to OUT/figures (tab-separated: name value) for make
# validate.  The tables (A.json...) and comparisons (AB.json, AC.json,
# and their text) stay in OUT.  Exit status: 0 when every target is met, 1 on a MISS, 2
# when a run failed.  Takes about 3 minutes on an idle 2-CPU machine;
# far longer under load, and the figures are then the load's.
# Usage: sh tests/validate/repro.sh [OUT]; environment: BUILD (build),
# MPIEXEC (mpiexec.mpich), REPRO_ARGS (more bench options, e.g.
# "--sizes 8,1K,64K" for a quick look; the default grid otherwise).
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
ST=$BUILD/synctrace
OUT=${1:-$(mktemp -d "${TMPDIR:-/tmp}/st-repro-XXXXXX")}
LOCK=/tmp/synctrace-timing.lock

fail()
{
	echo "repro: FAILED: $*" >&2
	exit 2
}

load()
{
	cut -d' ' -f1-3 /proc/loadavg
}

[ -x "$ST" ] || fail "no '$ST': run make first"
[ -x "$BUILD/synctrace-bench" ] || fail "no '$BUILD/synctrace-bench'"
command -v python3 > /dev/null 2>&1 || fail "no python3 (make deps)"
command -v flock > /dev/null 2>&1 || fail "no flock (util-linux)"
mkdir -p "$OUT" || fail "cannot create '$OUT'"
: > "$OUT/figures"
echo "repro: tables in $OUT; load average $(load)"

# bench NAME SEED [MPIEXEC-ARGS...]: one --repro table, timed.
bench()
{
	name=$1 seed=$2
	shift 2
	rm -rf "$OUT/$name"
	t0=$(date +%s)
	l0=$(load)
	# shellcheck disable=SC2086
	flock "$LOCK" "$ST" bench --repro $REPRO_ARGS --seed "$seed" \
		--mpiexec "$MPIEXEC" -o "$OUT/$name" -- "$@" \
		> "$OUT/$name.out" 2>&1 < /dev/null ||
		{ tail -20 "$OUT/$name.out" >&2; fail "bench $name"; }
	echo "repro: $name: $(($(date +%s) - t0)) s, load $l0 before," \
	     "$(load) after"
	"$ST" table --json "$OUT/$name.json" "$OUT/$name" > "$OUT/$name.txt" \
		2>&1 || fail "table $name"
}

bench A 1000
bench C 2000 -genv MPIR_CVAR_NOLOCAL 1 -genv UCX_TLS tcp
bench B 3000
"$ST" table --compare --json "$OUT/AB.json" "$OUT/A.json" "$OUT/B.json" \
	> "$OUT/AB.txt" || fail "table --compare A B"
"$ST" table --compare --json "$OUT/AC.json" "$OUT/A.json" "$OUT/C.json" \
	> "$OUT/AC.txt" || fail "table --compare A C"

python3 - "$OUT" <<'EOF'
import json, statistics, sys

out = sys.argv[1]

def compared(name):
    """Groups compared, groups called different, median |B/A - 1| (%)."""
    s = json.load(open(f"{out}/{name}.json"))["summary"]
    med = s["median_abs_diff"]
    return (s["groups"], s["differs"],
            100 * med if med is not None else float("nan"))

def groups(name):
    t = json.load(open(f"{out}/{name}.json"))
    return {(o["op"], g["p"], g["d_bytes"]): g
            for o in t["operations"] for g in o["groups"]}

def launches(name):
    l = json.load(open(f"{out}/{name}.json"))["metadata"]["launches"]
    res = l["median_resolvable"]
    return (100 * l["median_run_sd"],
            100 * res if res is not None else float("inf"))

ab, ac = compared("AB"), compared("AC")
a, b = groups("A"), groups("B")
pooled = [abs(b[k]["median_ns"] / a[k]["median_ns"] - 1)
          for k in a if k in b and a[k]["median_ns"]]
figs = [
    ("repro.agree", ab[2], "lt", 5,
     "A vs B: median over groups of |B/A - 1|, launch medians (%)"),
    ("repro.agree.pooled", 100 * statistics.median(pooled), None, None,
     "A vs B: the same from the group medians, as issue 19 (%)"),
    ("repro.same", 100 * ab[1] / ab[0], "le", 5,
     f"A vs B: groups called different (% of {ab[0]})"),
    ("repro.tcp", 100 * ac[1] / ac[0], "ge", 50,
     f"A vs TCP: groups called different (% of {ac[0]})"),
    ("repro.tcp.diff", ac[2], None, None,
     "A vs TCP: median over groups of |B/A - 1| (%)"),
]
for name in "A", "B":
    sd, res = launches(name)
    figs.append((f"repro.sd.{name}", sd, None, None,
                 f"{name}: launch-to-launch sd, median over groups (%)"))
    figs.append((f"repro.resolve.{name}", res, None, None,
                 f"{name}: difference two such tables resolve, median (%)"))
bad = 0
with open(f"{out}/figures", "w") as f:
    for key, v, op, target, label in figs:
        f.write(f"{key}\t{v:.2f}\n")
        if op is None:
            verdict, want = "", ""
        else:
            ok = {"lt": v < target, "le": v <= target, "ge": v >= target}[op]
            bad += not ok
            verdict = "PASS" if ok else "MISS"
            want = {"lt": "<", "le": "<=", "ge": ">="}[op] + f" {target}"
        print(f"{key:20s} {v:8.2f}  {want:6s} {verdict:4s}  {label}")
sys.exit(1 if bad else 0)
EOF
rc=$?
echo "repro: done; load average $(load)"
exit $rc
