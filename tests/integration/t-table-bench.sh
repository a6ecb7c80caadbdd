#!/bin/sh
# tests/integration/t-table-bench.sh: `synctrace table` on a `synctrace
# bench` run.  The benchmark measures every operation it knows at 2 ranks
# and three sizes, and prints per operation its valid measurements.  The
# table must cover every operation measured (ping-pong as
# MPI_Send->MPI_Recv), put each at exactly the sizes the benchmark used
# (so its d rule agrees with the benchmark's block size for every
# collective), hold for each collective exactly the measurements the
# benchmark kept (summed over its sizes; a point-to-point measurement
# gives up to two transfers), with n equal to those kept after its
# fences, and each group's first call (one run).  All of this holds at
# any load.  Whether the table's group medians follow the benchmark's
# own (each within the table's confidence interval) is a figure for
# `make validate`: the two take different times of the same calls, which
# agree only when the ranks start together.  Skipped (77, a failure in
# `make test`) when this build has no bench command.
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

# The benchmark's summary: operation (the table's name), valid
# measurements, point-to-point (1) or not.
awk '
	/^operation  *sizes/ { on = 1; next }
	on && /^total/ { exit }
	on && NF > 0 {
		name = $1
		if ($1 == "ping-pong") name = "MPI_Send->MPI_Recv"
		# valid: the field after the sizes, "N (LO-HI)".
		for (i = 2; i < NF; i++)
			if ($i ~ /^[0-9]+$/ && $(i + 1) ~ /^\(/)
				break
		for (j = i + 1; j < NF && $j !~ /\)$/; j++)
			;
		print name, $(j + 1), ($1 == "ping-pong" || $1 == "MPI_Sendrecv")
	}' "$t/bench.out" > "$t/want"
[ "$(wc -l < "$t/want")" = 19 ] ||
	{ show "$t/bench.out"; fail "bench did not list its 19 operations"; }

# Groups: function,kind,p,d_bytes,n_in,n,dropped,...,first_runs,...
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "first_runs") fr = i }
	 NR > 1 { print $1, $3, $4, $5, $6, $7, fr ? $fr : "none" }' \
	"$t/table-groups.csv" > "$t/groups"
awk '
	NR == FNR { valid[$1] = $2; p2p[$1] = $3; next }
	{ seen[$1] = 1; n_in[$1] += $4
	  if ($2 != 2) { print "p=" $2 " in " $0; bad = 1 }
	  if ($1 == "MPI_Barrier" ? $3 != 0 : $3 != 8 && $3 != 4096 &&
	      $3 != 65536) { print "size " $3 " of " $1; bad = 1 }
	  if ($4 != $5 + $6) { print "n of " $0; bad = 1 }
	  if ($4 > 12 * (p2p[$1] ? 2 : 1)) { print "more than asked: " $0
					     bad = 1 }
	  if ($7 != 1) { print "not one first call: " $0; bad = 1 }
	}
	END {
		for (op in valid) {
			if (!valid[op]) continue
			if (!seen[op]) { print "no rows for " op; bad = 1
					 continue }
			if (p2p[op])
				off = n_in[op] > 2 * valid[op] || !n_in[op]
			else
				off = n_in[op] != valid[op]
			if (off) {
				print op ": " n_in[op] " samples in the " \
				    "table, " valid[op] " valid measurements"
				bad = 1
			}
			n++
		}
		printf "%d operations", n > "/dev/stderr"
		exit bad
	}' "$t/want" "$t/groups" 2> "$t/compared" > "$t/mismatch" || {
	cat "$t/mismatch"
	show "$t/bench.out"
	show "$t/table-groups.csv"
	fail "the table does not hold the benchmark's measurements"
}
# Every operation with a valid measurement has a formula row.
for op in $(awk '$2 > 0 { print $1 }' "$t/want"); do
	grep -q "^$op " "$t/table.txt" || fail "no formula row for $op"
done
note "$(cat "$t/compared"): the table holds the benchmark's measurements"
