#!/bin/sh
# tests/integration/t-p2p-more.sh: persistent, partitioned and
# matched-probe point-to-point calls, Irsend, Ibsend and Isendrecv are
# traced, and calls to or from MPI_PROC_NULL move no bytes; a send freed
# while active is named by its MPI_Request_free record and reported as
# freed, not pending.  apps/p2p-more.c says what each record must say
# (EXPECT lines: bytes from its counts, start and done records per
# instance, sources and tags from statuses); on top of those, every
# start and done record of a persistent request carries the request id
# of its init call.  Receives cancelled before any message came: their
# done records say so, with no bytes (the EXPECT lines), report counts
# them, and the tools pair no message with them (export pairs every
# end, table leaves none unmatched, predict finds no receive without
# its send).  17,000 receives in flight at once (more than the
# interposer's table holds) all have done records, with their bytes;
# an inactive persistent request completes nothing; each request that
# Waitany, Waitsome, Testany or Testsome completes has one done record;
# a request that a failing Waitall (MPI_ERR_IN_STATUS) leaves pending
# has its done record from the call that completes it.
. "$(dirname "$0")/lib.sh"

need_app p2p-more
untraced "$ST_TMP/plain" \
	env ST_EXPECT="$ST_TMP/plain.x" $MPIEXEC -n 2 "$ST_APPS/p2p-more"
expect_rc "$ST_TMP/plain" 0
traced "$ST_TMP/trace" "$ST_TMP/run" \
	env ST_EXPECT="$ST_TMP/run.x" $MPIEXEC -n 2 "$ST_APPS/p2p-more"
same_output "$ST_TMP/plain" "$ST_TMP/run" sort
grep -q 'p2p-more: all ranks ok' "$ST_TMP/run.out" ||
	{ show "$ST_TMP/run.out"; fail "wrong results"; }
for r in 0 1; do
	cmp -s "$ST_TMP/plain.x.$r" "$ST_TMP/run.x.$r" ||
		fail "rank $r: the app's expectations differ under synctrace"
done
csv=$ST_TMP/csv
dump_csv "$ST_TMP/trace" "$csv"
check_expects "$ST_TMP/run.x" "$csv"

# Each persistent init's request: 3 starts (2 partitioned, 1 for tag
# 73's), as many done records, the instances numbered from 1 (one pass
# over the records: the trace holds some 100,000).
st_awk "$csv" '
kind == "call" && fn ~ /_init$/ {
	k = rank SUBSEP req
	want[k] = fn ~ /^MPI_P/ ? 2 : tag == 73 ? 1 : 3
	init[k] = fn
}
kind == "start" { k = rank SUBSEP req; starts[k, fn, inst]++ }
kind == "done" { dones[rank SUBSEP req]++ }
END {
	for (k in want) {
		n = 0
		for (i = 1; i <= want[k]; i++)
			n += starts[k, init[k], i]
		split(k, p, SUBSEP)
		if (n != want[k] || dones[k] != want[k]) {
			print "rank " p[1] " request " p[2] " (" init[k] "): " \
			      n " starts numbered 1 to " want[k] ", " \
			      dones[k] + 0 " done records, expected " want[k]
			bad = 1
		}
	}
	exit bad
}' > "$ST_TMP/persistent" ||
	{ cat "$ST_TMP/persistent"; fail "persistent requests' records"; }

# A send freed while active (tag 51): the free names its request, and
# report counts it freed, not pending.
st_awk "$csv" 'rank == 0 && kind == "call" && fn == "MPI_Isend" &&
	tag == 51 { print req }' > "$ST_TMP/isend51"
st_awk "$csv" 'rank == 0 && kind == "call" && fn == "MPI_Request_free" {
	print req }' > "$ST_TMP/freed"
for q in $(cat "$ST_TMP/isend51"); do
	grep -qx "$q" "$ST_TMP/freed" ||
		fail "no MPI_Request_free record names request $q"
done
[ "$(wc -l < "$ST_TMP/isend51")" = 5 ] || fail "not 5 freed sends"
"$ST_CLI" report "$ST_TMP/trace" > "$ST_TMP/report" 2>&1 ||
	{ show "$ST_TMP/report"; fail "report failed"; }
grep -q '^(n=5 operations were freed by MPI_Request_free while active' \
	"$ST_TMP/report" || { show "$ST_TMP/report"; fail "freed sends not counted"; }
awk '$1 == "function" && $NF == "pending" { in_ops = 1; next }
	in_ops && $1 == "MPI_Isend" { seen = 1; if ($NF != "n=0") bad = 1 }
	in_ops && NF == 0 { in_ops = 0 }
	END { exit bad || !seen }' "$ST_TMP/report" ||
	{ show "$ST_TMP/report"; fail "freed sends counted as pending"; }

# Cancelled receives (3 a rank): counted, and no message's end.
grep -q '^(n=6 of the operations completed cancelled' "$ST_TMP/report" ||
	{ show "$ST_TMP/report"; fail "cancelled receives not counted"; }
"$ST_CLI" export --format chrome -o "$ST_TMP/chrome.json" "$ST_TMP/trace" \
	> "$ST_TMP/export" 2>&1 || { show "$ST_TMP/export"; fail "export failed"; }
grep -q 'messages paired (n=0 ends unpaired' "$ST_TMP/export" ||
	{ show "$ST_TMP/export"; fail "a message end left unpaired"; }
"$ST_CLI" table --json "$ST_TMP/table.json" "$ST_TMP/trace" \
	> /dev/null 2> "$ST_TMP/table.err" ||
	{ show "$ST_TMP/table.err"; fail "table failed"; }
grep -q '"p2p_unmatched": 0' "$ST_TMP/table.json" ||
	{ grep -o '"p2p_unmatched": [0-9]*' "$ST_TMP/table.json";
	  fail "table left a receive unmatched"; }
"$ST_CLI" predict "$ST_TMP/trace" --table "$ST_TMP/table.json" \
	--missing=measured > "$ST_TMP/predict" 2>&1 ||
	{ show "$ST_TMP/predict"; fail "predict failed"; }
if grep -q 'matched no send' "$ST_TMP/predict"; then
	show "$ST_TMP/predict"
	fail "predict waits for a message to a cancelled receive"
fi
note "persistent, partitioned, matched-probe calls, freed sends, cancelled receives, 17,000 receives in flight, inactive persistent requests, Waitany/Waitsome/Testany/Testsome, a Waitall failing in one request with another left pending, and MPI_PROC_NULL"
