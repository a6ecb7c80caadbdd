#!/bin/sh
# tests/integration/t-comms.sh: communicators made in unusual but legal
# ways (apps/comms.c: by a subgroup, by MPI_Comm_idup) are named alike
# on every rank, and so are their collective instances.  On 3 ranks,
# each clock refresh measured by every rank (SYNCTRACE_SYNC_NODE=0, as
# on several nodes, where a refresh that ranks reach in different calls
# deadlocks): the run ends (as it does not when the interposer waits
# for an allreduce over a new communicator that another rank joins only
# after a message from this one), with the untraced run's output; no
# communicator has a rank-local id; on every rank a communicator's
# collectives are numbered 1, 2, 3..., one (id, seq) names one function
# on every rank and has a record from each member; report leaves no
# instance out, and every message pairs (export, table).
. "$(dirname "$0")/lib.sh"

need_app comms
t=$ST_TMP/n3
untraced "$t.plain" $MPIEXEC -n 3 "$ST_APPS/comms"
expect_rc "$t.plain" 0
cli_run "$t.trace" "$t.run" --yield -- \
	env SYNCTRACE_SYNC_NODE=0 $MPIEXEC -n 3 "$ST_APPS/comms"
expect_rc "$t.run" 0
same_output "$t.plain" "$t.run"
grep -q 'comms: all ranks ok' "$t.run.out" ||
	{ show "$t.run.out"; fail "wrong results"; }
dump_csv "$t.trace" "$t.csv"

# Rank-local ids have bit 63 set: 16 hex digits from 8 up.
expect_count "$t.csv" 'kind == "comm" && comm ~ /^0x[89a-f].{15}$/' 0

# Refreshes: the run had some, so a misnumbering would have shown.
[ "$(count "$t.csv" 'kind == "sync"')" -ge 9 ] ||
	fail "fewer than 3 clock synchronisations per rank"

st_awk "$t.csv" '
	kind == "comm" { size[comm] = comm_size + 0 }
	kind == "call" && seq > 0 {
		k = rank "," comm
		if (seq != last[k] + 1) {
			print "rank " rank " comm " comm ": seq " seq \
			    " after " last[k]; bad = 1
		}
		last[k] = seq
		i = comm "," seq
		if (i in f && f[i] != fn) {
			print i ": " f[i] " and " fn; bad = 1
		}
		f[i] = fn; c[i]++
	}
	END {
		for (i in c) {
			split(i, p, ",")
			if (c[i] != size[p[1]]) {
				print i " (" f[i] "): " c[i] " records, " \
				    size[p[1]] " members"; bad = 1
			}
		}
		exit bad
	}' || fail "collective instances do not match across ranks"

"$ST_CLI" report "$t.trace" > "$t.report" 2>&1 ||
	{ show "$t.report"; fail "report failed"; }
if grep -q 'left out' "$t.report"; then
	grep -A2 'left out' "$t.report"
	fail "report left collective instances out"
fi
"$ST_CLI" export --format chrome -o "$ST_TMP/chrome.json" "$t.trace" \
	> "$ST_TMP/export" 2>&1 || { show "$ST_TMP/export"; fail "export failed"; }
grep -q 'messages paired (n=0 ends unpaired' "$ST_TMP/export" ||
	{ show "$ST_TMP/export"; fail "a message end left unpaired"; }
"$ST_CLI" table --json "$ST_TMP/table.json" "$t.trace" \
	> /dev/null 2> "$ST_TMP/table.err" ||
	{ show "$ST_TMP/table.err"; fail "table failed"; }
grep -q '"p2p_unmatched": 0' "$ST_TMP/table.json" ||
	{ grep -o '"p2p_unmatched": [0-9]*' "$ST_TMP/table.json";
	  fail "table left a receive unmatched"; }
note "Comm_create_group by a subgroup, Comm_idup used first by a message, a nonblocking and a blocking collective"
