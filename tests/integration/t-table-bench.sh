#!/bin/sh
# tests/integration/t-table-bench.sh: `synctrace table` on a `synctrace
# bench` run.  The benchmark measures every operation it knows at 2 ranks
# and three sizes, and prints per operation its median at the smallest
# and the largest size.  The table must cover every operation measured
# (ping-pong as MPI_Send->MPI_Recv), put each at exactly the sizes the
# benchmark used (so its d rule agrees with the benchmark's block size
# for every collective), with n equal to the measurements kept, and its
# group medians must follow the benchmark's own: each benchmark median
# within the table's confidence interval of that group (the benchmark
# takes the longest time a rank spent in the call, the table the time
# from the last arrival to the last exit; with window-synchronised
# starts the two differ by the start spread only), and larger at 64 KiB
# than at 8 B wherever the benchmark's is.  The medians are compared only
# when the benchmark's clocks stayed together (its own check at the end
# within 2 us).  Skipped (77) when this build has no bench command.
. "$(dirname "$0")/lib.sh"

"$ST_CLI" bench --help > /dev/null 2>&1 ||
	skip "no 'synctrace bench' in this build"
[ -x "$st_build/synctrace-bench" ] || skip "no synctrace-bench"
t=$ST_TMP

"$ST_CLI" bench -n 2 --sizes 8,4K,64K --nrep 12 -o "$t/bench" \
	> "$t/bench.out" 2> "$t/bench.err" ||
	{ show "$t/bench.out"; show "$t/bench.err"; fail "bench failed"; }
"$ST_CLI" table --csv "$t/table.csv" "$t/bench" > "$t/table.txt" \
	2> "$t/table.err" || { show "$t/table.err"; fail "table failed"; }

# The benchmark's summary: operation, median at smallest, at largest (ns).
awk '
	function ns(v, u) {
		if (u == "s") return v * 1e9
		if (u == "ms") return v * 1e6
		if (u == "us") return v * 1e3
		return v
	}
	/^operation  *sizes/ { on = 1; next }
	on && /^total/ { exit }
	on && NF > 0 {
		name = $1
		if ($1 == "ping-pong") name = "MPI_Send->MPI_Recv"
		for (i = 1; i <= NF; i++) if ($i == "@") at[++k] = i
		lo = ns($(at[1] - 2), $(at[1] - 1))
		hi = k > 1 ? ns($(at[2] - 2), $(at[2] - 1)) : "-"
		print name, lo, hi, $1 == "ping-pong"
		k = 0
	}' "$t/bench.out" > "$t/want"
[ "$(wc -l < "$t/want")" -ge 15 ] ||
	{ show "$t/bench.out"; fail "bench measured few operations"; }

# The benchmark's own check of its global clocks just before the last
# sync: if they had drifted apart, its windows did not start the ranks
# together, its medians include waiting, and only coverage and sizes
# are compared (an instrumented build can make the first sync that bad).
drift=$(sed -n 's/^sync_check_end_ns=//p' "$t/bench/synctrace.run")
compare=1
if [ -n "$drift" ] && [ "$drift" -gt 2000 ]; then
	compare=0
	note "bench's clocks were $drift ns apart at the end: medians not" \
		"compared"
fi

# Groups: function,kind,p,d_bytes,n_in,n,dropped,median_ns,ci_lo_ns,ci_hi_ns
awk -F, 'NR > 1 { print $1, $3, $4, $5, $6, $7, $8, $9, $10 }' \
	"$t/table-groups.csv" > "$t/groups"
awk '
	NR == FNR { want[$1] = $2 " " $3 " " $4; next }
	{ g[$1 " " $3] = $0; seen[$1] = 1
	  if ($2 != 2) { print "p=" $2 " in " $0; bad = 1 }
	  if ($1 == "MPI_Barrier" ? $3 != 0 : $3 != 8 && $3 != 4096 &&
	      $3 != 65536) { print "size " $3 " of " $1; bad = 1 }
	  if ($4 != $5 + $6) { print "n of " $0; bad = 1 }
	}
	END {
		for (op in want) {
			if (!seen[op]) { print "no rows for " op; bad = 1;
					 continue }
			split(want[op], w, " ")
			# w[1], w[2]: medians at 8 B (0 B) and 64 KiB; w[3]:
			# a round trip (two transfers): not comparable.
			lo = op == "MPI_Barrier" ? 0 : 8
			for (k = 1; k <= 2; k++) {
				if (w[k] == "-" || w[3] == 1 || !compare)
					continue
				split(g[op " " (k == 1 ? lo : 65536)], x, " ")
				if (x[1] == "") { print "no group for " op;
						  bad = 1; continue }
				if (w[k] < 0.9 * x[8] - 200 ||
				    w[k] > 1.1 * x[9] + 200) {
					print op ": bench median " w[k] \
					    " ns outside the table CI [" \
					    x[8] ", " x[9] "]"
					bad = 1
				}
				m[k] = x[7]
			}
			if (compare && w[2] != "-" && w[3] != 1 &&
			    w[2] > 2 * w[1] &&
			    !(m[2] > m[1])) {
				print op ": table median not larger at 64 KiB"
				bad = 1
			}
			n++
		}
		printf "%d operations compared\n", n > "/dev/stderr"
		exit bad
	}' compare=$compare "$t/want" "$t/groups" 2> "$t/compared" || {
	show "$t/bench.out"
	show "$t/table-groups.csv"
	fail "the table does not follow the benchmark"
}
# The bench's first calls are not samples (at most 12 per group, two
# transfers per point-to-point measurement) but each group's first call
# (one run: first_runs 1).
awk -F, 'NR > 1 && ($5 > ($2 == "p2p" ? 24 : 12) || $NF != 1)' \
	"$t/table-groups.csv" > "$t/firsts"
[ ! -s "$t/firsts" ] || { show "$t/firsts"
	fail "groups with more than 12 measurements or not one first call"; }
# Every operation has a formula row.
for op in $(awk '{ print $1 }' "$t/want"); do
	grep -q "^$op " "$t/table.txt" || fail "no formula row for $op"
done
if [ $compare = 1 ]; then
	note "$(cat "$t/compared") with the benchmark's medians"
else
	note "$(cat "$t/compared") for coverage and sizes"
fi
