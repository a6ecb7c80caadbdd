#!/bin/sh
# tests/integration/t-comms.sh: communicators made in unusual but legal
# ways (apps/comms.c: by a subgroup, by MPI_Comm_idup, alone and in a
# ring of ranks that each start elsewhere, split anew into other groups
# under reused handles, by attribute callbacks inside MPI_Comm_dup and
# MPI_Comm_free) are named alike on every rank, and so are their
# collective instances, also when communicator calls are not traced
# (--families without comm).  On 3 ranks, each clock refresh measured
# by every rank (SYNCTRACE_SYNC_NODE=0, as on several nodes, where a
# refresh that ranks reach in different calls deadlocks): the run ends
# (as it does not when the interposer waits for an allreduce over a new
# communicator that another rank joins only after a message from this
# one, or never), with the untraced run's output; no communicator has a
# rank-local id; one (id, seq) names one function on every rank and has
# a record from each member, as many as the communicator's size, and
# each rank numbers a communicator's collectives in increasing order
# (with gaps for calls that leave no record); with every call traced,
# report leaves no instance out, and every message pairs (export,
# table).
. "$(dirname "$0")/lib.sh"

need_app comms
untraced "$ST_TMP/plain" $MPIEXEC -n 3 "$ST_APPS/comms"
expect_rc "$ST_TMP/plain" 0

# check_run NAME [OPTION...]: trace comms with OPTIONs and check it.
check_run()
{
	t=$ST_TMP/$1
	shift
	cli_run "$t.trace" "$t.run" --yield "$@" -- \
		env SYNCTRACE_SYNC_NODE=0 $MPIEXEC -n 3 "$ST_APPS/comms"
	expect_rc "$t.run" 0
	same_output "$ST_TMP/plain" "$t.run"
	grep -q 'comms: all ranks ok' "$t.run.out" ||
		{ show "$t.run.out"; fail "wrong results"; }
	dump_csv "$t.trace" "$t.csv"

	# Rank-local ids have bit 63 set: 16 hex digits from 8 up.
	expect_count "$t.csv" 'kind == "comm" && comm ~ /^0x[89a-f].{15}$/' 0

	# Refreshes: the run had some, so a misnumbering would have shown.
	[ "$(count "$t.csv" 'kind == "sync"')" -ge 9 ] ||
		fail "fewer than 3 clock synchronisations per rank"

	# A communicator's size on each rank, from its comm record, is the
	# number of records of each of its instances.
	st_awk "$t.csv" '
		kind == "comm" {
			if (comm in size && size[comm] != comm_size) {
				print comm ": size " size[comm] " and " \
				    comm_size; bad = 1
			}
			size[comm] = comm_size + 0
		}
		kind == "call" && seq > 0 {
			k = rank "," comm
			if (seq <= last[k]) {
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
					print i " (" f[i] "): " c[i] \
					    " records, " size[p[1]] " members"
					bad = 1
				}
			}
			exit bad
		}' ||
		fail "$(basename "$t"): collective instances differ across ranks"
}

check_run all
t=$ST_TMP/all
"$ST_CLI" report "$t.trace" > "$t.report" 2>&1 ||
	{ show "$t.report"; fail "report failed"; }
# Left out may be the one-rank communicators' calls, nothing else.
if grep -A3 'left out' "$t.report" |
	grep -q "lacks a member's record\|never complete"; then
	grep -A3 'left out' "$t.report"
	fail "report left collective instances out"
fi
"$ST_CLI" export --format chrome -o "$ST_TMP/chrome.json" "$t.trace" \
	> "$ST_TMP/export" 2>&1 ||
	{ show "$ST_TMP/export"; fail "export failed"; }
grep -q 'messages paired (n=0 ends unpaired' "$ST_TMP/export" ||
	{ show "$ST_TMP/export"; fail "a message end left unpaired"; }
"$ST_CLI" table --json "$ST_TMP/table.json" "$t.trace" \
	> /dev/null 2> "$ST_TMP/table.err" ||
	{ show "$ST_TMP/table.err"; fail "table failed"; }
grep -q '"p2p_unmatched": 0' "$ST_TMP/table.json" ||
	{ grep -o '"p2p_unmatched": [0-9]*' "$ST_TMP/table.json";
	  fail "table left a receive unmatched"; }

# Without the communicator calls' records, their communicators still.
check_run nocomm --families all,-comm
expect_count "$t.csv" 'kind == "call" && fn ~ /^MPI_(Comm|Intercomm)_/' 0
note "communicators of Comm_create_group, Comm_idup, re-splits and" \
	"attribute callbacks, with and without comm calls traced"
