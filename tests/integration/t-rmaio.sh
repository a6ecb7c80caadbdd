#!/bin/sh
# tests/integration/t-rmaio.sh: the tools on a run with one-sided
# communication and MPI-IO (apps/rmaio.c, one phase of each, on 2
# ranks; the app prints what it did).
#  - report: the window's memory, epochs by kind, bytes and calls by
#    target, the file's bytes and calls, and its collective instances
#    in global time, as the app counted them; --phase 1 and
#    --phase level=1 show the window alone, --phase 2 the file alone,
#    with the same figures.
#  - table: a row per window and file collective (MPI_Win_fence,
#    MPI_Win_create, MPI_Win_free, MPI_File_open, MPI_File_close,
#    MPI_File_write_at_all, MPI_File_read_at_all) with one sample per
#    instance; --phase 2 keeps the file's rows alone.
#  - predict from the run's own table, structurally (whatever the load):
#    every call replayed; the window's and file's collectives costed by
#    the table and waiting for members, MPI_Win_start for its post,
#    MPI_Win_wait for its completes, the rest as traced; and the replay
#    makes each wait at least as long as the trace says the other rank
#    came later: rank 0 computes 30 ms before its first MPI_Win_post,
#    rank 1 20 ms before the last fence, rank 0 20 ms before the first
#    MPI_File_write_at_all, each right after a collective that released
#    both ranks together in the replay.
#  - view: a lane per rank with every call, and the fences and file
#    collectives drawn with their waiting, as collectives are.
. "$(dirname "$0")/lib.sh"

need_app rmaio
command -v python3 > /dev/null 2>&1 || skip "no python3"
t=$ST_TMP
dir=$t
[ -d /dev/shm ] && [ -w /dev/shm ] && dir=/dev/shm
file=$dir/synctrace-t-rmaio-$$.dat
trap 'rm -f "$file"' EXIT
iter=10

cli_run "$t/run" "$t/run" -- $MPIEXEC -n 2 "$ST_APPS/rmaio" "$file" $iter
expect_rc "$t/run" 0
grep -q '^rmaio: all ranks ok' "$t/run.out" ||
	{ show "$t/run.out"; fail "wrong results"; }
dump_csv "$t/run" "$t/csv"

# fmt_bytes N: N bytes as synctrace prints them ("1000 B", "1.27 KiB").
fmt_bytes()
{
	awk -v b="$1" 'BEGIN {
		if (b < 1024) { printf "%d B\n", b; exit }
		v = b / 1024; u = "KiB"
		if (v >= 1023.5) { v /= 1024; u = "MiB" }
		if (v < 9.995) printf "%.2f %s\n", v, u
		else if (v < 99.95) printf "%.1f %s\n", v, u
		else printf "%.0f %s\n", v, u
	}'
}

# field N LINE-PATTERN: word N of the app's output line matching it.
field()
{
	awk -v n="$1" "/$2/ { print \$n; exit }" "$t/run.out"
}

# report_has FILE TEXT: the report FILE has a line holding TEXT (fixed).
report_has()
{
	grep -qF -- "$2" "$1" ||
		{ show "$1"; fail "$(basename "$1"): no line with '$2'"; }
}

# check_window FILE: the window's figures in report FILE.
check_window()
{
	report_has "$1" "memory       $(fmt_bytes "$(field 4 'window memory')") in all"
	report_has "$1" "epochs       fence n=$(field 6 'window memory'), access (start-complete) n=2, exposure (post-wait) n=2,"
	report_has "$1" "lock shared n=1, lock exclusive n=1, lock_all n=2"
	for r in 0 1; do
		calls=$(field 5 "target $r ")
		sent=$(fmt_bytes "$(field 7 "target $r ")")
		recv=$(fmt_bytes "$(field 9 "target $r ")")
		grep -Eq "^  rank $r +n=$calls +$sent +$recv\$" "$1" ||
			{ show "$1"; fail "$(basename "$1"): target $r is not" \
				"n=$calls, $sent sent, $recv received"; }
	done
}

# check_file FILE: the file's figures in report FILE.
check_file()
{
	report_has "$1" "file '$file'"
	report_has "$1" "bytes        written $(fmt_bytes "$(field 4 'file written')") (n=$(field 6 'file written') calls), read $(fmt_bytes "$(field 9 'file written')") (n=$(field 11 'file written') calls)"
	# Every collective instance is there, analysed or flagged.
	n=$(sed -n '/^file /,$ s/^  collectives  n=\([0-9]*\) instance.*/\1/p' "$1")
	f=$(sed -n '/^file /,$ s/.*; n=\([0-9]*\) flagged.*/\1/p' "$1")
	[ "$((n + f))" = "$(field 13 'file written')" ] ||
		{ show "$1"; fail "$(basename "$1"): $n + $f file collective" \
			"instances, the app made $(field 13 'file written')"; }
	report_has "$1" "deleted      n=1 MPI_File_delete call of its path"
}

"$ST_CLI" report "$t/run" > "$t/report" 2> "$t/report.err" ||
	{ show "$t/report.err"; fail "report failed"; }
check_window "$t/report"
check_file "$t/report"
for p in 1 level=1 2; do
	"$ST_CLI" report --phase $p "$t/run" > "$t/report-$p" \
		2> "$t/report-$p.err" ||
		{ show "$t/report-$p.err"; fail "report --phase $p failed"; }
	if [ $p = 2 ]; then
		check_file "$t/report-$p"
		grep -q '^window ' "$t/report-$p" &&
			fail "report --phase $p shows the window"
	else
		check_window "$t/report-$p"
		grep -q '^file ' "$t/report-$p" &&
			fail "report --phase $p shows the file"
	fi
done
note "report: the window's epochs and bytes by target, the file's bytes" \
	"and collectives as the app counted them, in the whole run and each" \
	"phase"

# The table: one sample per instance of each window and file collective.
"$ST_CLI" table --json "$t/self.json" "$t/run" > "$t/table" \
	2> "$t/table.err" || { show "$t/table.err"; fail "table failed"; }
python3 - "$t/self.json" $iter > "$t/table.check" 2>&1 <<'EOF' ||
import json, sys
ops = {o["op"]: o["operations"] for o in json.load(open(sys.argv[1]))["operations"]}
n = int(sys.argv[2])
want = {"MPI_Win_create": 1, "MPI_Win_free": 1, "MPI_Win_fence": n + 1,
        "MPI_File_open": 1, "MPI_File_close": 1,
        "MPI_File_write_at_all": n, "MPI_File_read_at_all": n}
for op, k in want.items():
    if ops.get(op) != k:
        sys.exit("%s: %s instances, the app made %d" % (op, ops.get(op), k))
print("table: " + ", ".join("%s n=%d" % (o, want[o]) for o in sorted(want)))
EOF
	{ show "$t/table.check"; fail "the table's rows"; }
note "$(cat "$t/table.check")"
"$ST_CLI" table --phase 2 --json "$t/p2.json" "$t/run" > /dev/null \
	2> "$t/p2.err" || { show "$t/p2.err"; fail "table --phase 2 failed"; }
python3 -c 'import json, sys
ops = sorted(o["op"] for o in json.load(open(sys.argv[1]))["operations"])
assert ops == ["MPI_Barrier", "MPI_File_close", "MPI_File_open",
               "MPI_File_read_at_all", "MPI_File_write_at_all"], ops' \
	"$t/p2.json" || fail "table --phase 2 has other rows"

# Predict from the run's own table.  The spans in the trace (local ns):
# span RANK FROM-FN FROM-K TO-FN TO-K: from the exit of rank RANK's
# FROM-K-th call of FROM-FN to the entry of its TO-K-th call of TO-FN,
# less synctrace's own work in between.
span()
{
	st_awk "$t/csv" '
		rank == r && kind == "call" && fn == f && ++nf == fk { a = t1_ns }
		rank == r && kind == "call" && fn == g && ++ng == gk { b = t0_ns }
		rank == r && kind == "mark" { m0[++nm] = t0_ns; m1[nm] = t1_ns }
		END {
			for (i = 1; i <= nm; i++)
				if (m0[i] >= a && m1[i] <= b)
					own += m1[i] - m0[i]
			printf "%.0f\n", b - a - own
		}' -v r="$1" -v f="$2" -v fk="$3" -v g="$4" -v gk="$5"
}
nfence=$((iter + 1))
post=$(( $(span 0 MPI_Barrier 1 MPI_Win_post 1) - \
	 $(span 1 MPI_Barrier 1 MPI_Win_start 1) ))
fence=$(( $(span 1 MPI_Win_fence $iter MPI_Win_fence $nfence) - \
	  $(span 0 MPI_Win_fence $iter MPI_Win_fence $nfence) ))
write=$(( $(span 0 MPI_File_open 1 MPI_File_write_at_all 1) - \
	  $(span 1 MPI_File_open 1 MPI_File_write_at_all 1) ))
"$ST_CLI" predict "$t/run" --table "$t/self.json" --json > "$t/pred" \
	2> "$t/pred.err" || { show "$t/pred.err"; fail "predict failed"; }
st_awk "$t/csv" 'kind == "call" { n[fn]++ }
	END { for (f in n) print f, n[f] }' | sort > "$t/calls"
python3 - "$t/pred" "$t/calls" $post $fence $write > "$t/pred.check" \
	2>&1 <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
fns = {f["fn"]: f for f in d["functions"]}
calls = dict(l.split() for l in open(sys.argv[2]))
post, fence, write = (int(x) for x in sys.argv[3:6])
for fn, n in calls.items():
    if fn in ("MPI_Init", "MPI_Finalize"):
        continue
    if fns.get(fn, {}).get("calls") != int(n):
        sys.exit("%s: %s calls replayed, the trace has %s"
                 % (fn, fns.get(fn, {}).get("calls"), n))
want = {"MPI_Win_fence": ("table", "members"),
        "MPI_Win_create": ("table", "members"),
        "MPI_Win_free": ("table", "members"),
        "MPI_File_open": ("table", "members"),
        "MPI_File_close": ("table", "members"),
        "MPI_File_write_at_all": ("table", "members"),
        "MPI_File_read_at_all": ("table", "members"),
        "MPI_Win_start": ("traced", "post"),
        "MPI_Win_wait": ("traced", "completes"),
        "MPI_Win_post": ("traced", "-"), "MPI_Win_lock": ("traced", "-"),
        "MPI_Put": ("traced", "-"), "MPI_Get": ("traced", "-"),
        "MPI_File_write": ("traced", "-")}
for fn, (cost, waits) in want.items():
    got = (fns[fn]["cost"], fns[fn]["waits_for"])
    if got != (cost, waits):
        sys.exit("%s: cost %s, waits for %s; expected %s, %s"
                 % ((fn,) + got + (cost, waits)))
for fn, least in (("MPI_Win_start", post), ("MPI_Win_fence", fence),
                  ("MPI_File_write_at_all", write)):
    if least < 10e6:
        sys.exit("%s: the trace shows a lead of %d ns only: the app's "
                 "sleep did not happen" % (fn, least))
    # 1 ns for rounding: the replay adds up doubles.
    if fns[fn]["wait_ns"] < least - 1:
        sys.exit("%s: waits %.0f ns in the replay, less than the %d ns "
                 "the other rank came later" % (fn, fns[fn]["wait_ns"], least))
print("predict: %d functions replayed with the trace's calls; waiting "
      "in MPI_Win_start %.1f ms >= %.1f, MPI_Win_fence %.1f ms >= %.1f, "
      "MPI_File_write_at_all %.1f ms >= %.1f"
      % (len(calls) - 2, fns["MPI_Win_start"]["wait_ns"] / 1e6, post / 1e6,
         fns["MPI_Win_fence"]["wait_ns"] / 1e6, fence / 1e6,
         fns["MPI_File_write_at_all"]["wait_ns"] / 1e6, write / 1e6))
EOF
	{ show "$t/pred.check"; fail "predict"; }
note "$(cat "$t/pred.check")"
"$ST_CLI" predict "$t/run" --table "$t/self.json" --phase 2 --json \
	> "$t/pred-2" 2> "$t/pred-2.err" ||
	{ show "$t/pred-2.err"; fail "predict --phase 2 failed"; }
python3 -c 'import json, sys
fns = sorted(f["fn"] for f in json.load(open(sys.argv[1]))["functions"])
assert not [f for f in fns if f.startswith("MPI_Win") or
            f in ("MPI_Put", "MPI_Get")], fns
assert "MPI_File_write_at_all" in fns, fns' "$t/pred-2" ||
	fail "predict --phase 2 replays one-sided calls into the phase"

# The view: every call on its lane; in every fence and file collective
# instance whose members arrived apart in global time, the first to
# arrive drawn waiting as a collective's waiting is, and no other member
# (on 2 ranks, the last arrival waits for none).  Arrivals that fall on
# one clock tick (both ranks left the previous collective together, and
# ticks can be 10 ns apart) are no waiting; the note says how many.  A
# gap under 1 ns may round to none in the page.
"$ST_CLI" view -q -o "$t/view.html" "$t/run" ||
	fail "synctrace view failed"
st_awk "$t/csv" 'kind == "call" { n[rank]++ }
	END { print n[0] + 0, n[1] + 0 }' > "$t/lanes"
st_awk "$t/csv" 'kind == "call" && (fn == "MPI_Win_fence" ||
		fn ~ /^MPI_File_(open|close|(write|read)_at_all)$/) {
		k = (fn == "MPI_Win_fence" ? "fence" : "file") " " comm " " seq
		if (!(k in lo) || g0_ns + 0 < lo[k]) lo[k] = g0_ns + 0
		if (!(k in hi) || g0_ns + 0 > hi[k]) hi[k] = g0_ns + 0
		m[k]++
	}
	END {
		for (k in m) {
			split(k, w, " ")
			ninst[w[1]]++
			if (m[k] != 2 || hi[k] == lo[k])
				continue
			if (hi[k] - lo[k] < 1)
				near[w[1]]++
			else
				apart[w[1]]++
		}
		print ninst["fence"] + 0, apart["fence"] + 0, near["fence"] + 0,
		      ninst["file"] + 0, apart["file"] + 0, near["file"] + 0
	}' > "$t/apart"
python3 - "$t/view.html" "$t/lanes" $nfence $((2 * iter + 2)) \
	$(cat "$t/apart") > "$t/view.check" 2>&1 <<'EOF' ||
import json, re, sys
page = open(sys.argv[1]).read()
data = json.loads(re.search(r'<script id="st-data"[^>]*>(.*?)</script>',
                            page, re.S).group(1))
names = [f["name"] for f in data["fns"]]
lanes = [int(x) for x in open(sys.argv[2]).read().split()]
nfence, nfile, dfence, afence, nearfence, dfile, afile, nearfile = \
    (int(x) for x in sys.argv[3:11])
if (dfence, dfile) != (nfence, nfile):
    sys.exit("the dump holds %d fence and %d file collective instances, "
             "the app made %d and %d" % (dfence, dfile, nfence, nfile))
# The app's naps make at least one of each wait.
if afence < 1 or afile < 1:
    sys.exit("the dump has %d fence and %d file collective instances whose "
             "members arrived apart; the app's naps make one of each"
             % (afence, afile))
waited = {}
for k, lane in enumerate(data["lanes"]):
    e = lane["e"]
    if len(e) // 5 != lanes[k]:
        sys.exit("lane %d holds %d calls, the dump %d" % (k, len(e) // 5,
                                                          lanes[k]))
    for i in range(0, len(e), 5):
        fn = names[e[i + 2]]
        if e[i + 4] > 0:
            waited[fn] = waited.get(fn, 0) + 1
files = sum(n for f, n in waited.items()
            if re.match(r"MPI_File_(open|close|(write|read)_at_all)$", f))
# A gap under 1 ns may round to no waiting in the page: either is right.
wfence = waited.get("MPI_Win_fence", 0)
if not (afence <= wfence <= afence + nearfence and
        afile <= files <= afile + nearfile):
    sys.exit("calls drawn waiting: %s; expected a fence waiting in each of "
             "the %d instances (of %d) whose members arrived apart, a file "
             "collective in each of %d (of %d)"
             % (waited, afence, nfence, afile, nfile))
print("view: %s calls on 2 lanes; drawn waiting: %d fences, %d file "
      "collectives (%d and %d instances had both arrivals on one clock "
      "tick)" % (lanes, wfence, files, nfence - afence - nearfence,
                 nfile - afile - nearfile))
EOF
	{ show "$t/view.check"; fail "view"; }
note "$(cat "$t/view.check")"
