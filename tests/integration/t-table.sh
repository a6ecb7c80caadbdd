#!/bin/sh
# tests/integration/t-table.sh: `synctrace table` on application traces.
# The app colls calls every collective of mpi.h on 2 ranks and prints
# what it called; the table must have a formula row for every blocking
# collective it called on an intra-communicator (inter-communicator
# calls are counted as left out), every row must show a time with a
# unit, the CSV rows must be rectangular and the JSON must parse back
# with one operation per row.  Then bsp (one MPI_Allreduce of 8 B per
# iteration) traced twice gives one group with n equal to the iterations
# minus the dropped, and a spread of the two runs' medians.
. "$(dirname "$0")/lib.sh"

need_app colls
need_app bsp
t=$ST_TMP

cli_run "$t/colls" "$t/colls.run" -- $MPIEXEC -n 2 "$ST_APPS/colls"
expect_rc "$t/colls.run" 0
"$ST_CLI" table --csv "$t/colls.csv" --json "$t/colls.json" "$t/colls" \
	> "$t/colls.txt" 2> "$t/colls.err" ||
	{ show "$t/colls.err"; fail "synctrace table failed on colls"; }

# Blocking collectives colls called on rank 0, not on an inter-communicator.
blocking='^MPI_(Allgatherv?|Allreduce|Alltoall[vw]?|Barrier|Bcast|Exscan|'
blocking=$blocking'Gatherv?|Reduce|Reduce_scatter(_block)?|Scan|Scatterv?|'
blocking=$blocking'Neighbor_(allgatherv?|alltoall[vw]?))(_c)?$'
grep '^expect,0,' "$t/colls.run.out" | awk -F, '$4 != "inter" { print $3 }' |
	grep -E "$blocking" | sort -u > "$t/want"
[ "$(wc -l < "$t/want")" -ge 40 ] ||
	fail "colls called only $(wc -l < "$t/want") blocking collectives"
# The formula section: from its header to the next blank line.
sed -n '/^function  *time formula/,/^$/p' "$t/colls.txt" |
	awk 'NR > 1 && /^MPI_/ { print $1 }' | sort -u > "$t/rows"
cmp -s "$t/want" "$t/rows" || {
	diff "$t/want" "$t/rows"
	fail "the table's rows differ from the blocking collectives called"
}
note "$(wc -l < "$t/rows") rows, one per blocking collective called"
# Each row gives a time with its unit.
sed -n '/^function  *time formula/,/^$/p' "$t/colls.txt" |
	awk 'NR > 1 && /^MPI_/ && !/[0-9.]+ (ns|us|ms|s)/ { print; bad = 1 }
	     END { exit bad }' || fail "a row without a time and unit"
grep -q 'left out:  n=[1-9][0-9]* calls on inter-communicators' \
	"$t/colls.txt" || fail "inter-communicator calls not counted"

# CSV: a row per fitted piece of every operation (an operation split in
# d has two), each as wide as its header.
[ "$(tail -n +2 "$t/colls.csv" | cut -d, -f1 | sort -u | wc -l)" = \
	"$(wc -l < "$t/rows")" ] ||
	fail "colls.csv does not have the table's operations"
for f in "$t/colls.csv" "$t/colls-groups.csv"; do
	[ -s "$f" ] || fail "no '$f'"
	awk -F, 'NR == 1 { n = NF } NF != n && !/"/ { print; bad = 1 }
		END { exit bad }' "$f" || fail "'$f' is not rectangular"
done

command -v python3 > /dev/null 2>&1 || fail "no python3 (make deps)"
python3 - "$t/colls.json" "$t/want" <<'EOF' || fail "bad JSON"
import json, sys
j = json.load(open(sys.argv[1]))
want = set(open(sys.argv[2]).read().split())
ops = [o["op"] for o in j["operations"]]
assert set(ops) == want and len(ops) == len(want), (sorted(ops), want)
md = j["metadata"]
for k in ("mpi_library", "hosts", "clock", "sync_method", "clock_error_ns",
          "date", "process_counts", "size_range_bytes", "runs"):
    assert k in md, k
assert md["process_counts"] == [2] or 1 in md["process_counts"], md
for o in j["operations"]:
    for g in o["groups"]:
        assert g["median_ns"] > 0 and g["n"] >= 1, (o["op"], g)
EOF
note "colls.json parses back with every operation"

# bsp twice: one MPI_Allreduce of 8 B per iteration, 300 iterations.
for i in 1 2; do
	cli_run "$t/bsp$i" "$t/bsp$i.run" -- $MPIEXEC -n 2 "$ST_APPS/bsp" \
		300 2000
	expect_rc "$t/bsp$i.run" 0
done
"$ST_CLI" table --csv "$t/bsp.csv" "$t/bsp1" "$t/bsp2" > "$t/bsp.txt" \
	2> "$t/bsp.err" || { show "$t/bsp.err"; fail "table of bsp failed"; }
# function,kind,p,d_bytes,n_in,n,dropped,...,runs(21),..,spread(24)
awk -F, 'NR > 1 && $1 == "MPI_Allreduce" {
		if ($3 != 2 || $4 != 8 || $5 != 600 || $5 != $6 + $7 ||
		    $21 != 2 || $24 == "")
			{ print; bad = 1 }
		n++
	}
	END { exit bad || n != 1 }' "$t/bsp-groups.csv" || {
	show "$t/bsp-groups.csv"
	fail "bsp: expected one MPI_Allreduce group p=2 d=8 of 600 samples"
}
grep -q 'runs:' "$t/bsp.txt" || fail "two runs not listed"
note "bsp: $(awk -F, '$1 == "MPI_Allreduce" {
	printf "n=%d, dropped %d, median %.0f ns, spread of run medians %.1f%%",
	    $6, $7, $8, $24 }' "$t/bsp-groups.csv")"
