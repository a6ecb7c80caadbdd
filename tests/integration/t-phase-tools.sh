#!/bin/sh
# tests/integration/t-phase-tools.sh: report, table and predict restrict
# themselves to a phase exactly.  apps/phases.c calls MPI_Pcontrol(1),
# 5 MPI_Allreduce, MPI_Pcontrol(2), 3 MPI_Barrier, MPI_Pcontrol(0), on
# 2 ranks.  Phase 1 (and level=1) must hold the 10 allreduce calls and
# nothing else, phase 2 (and level=2) the 6 barrier calls, phase 3 no
# call; in report, table (one sample per instance) and predict (the
# whole run replayed, the phase's calls reported).  A phase no rank has
# gives a warning; a bad --phase is a usage error.
. "$(dirname "$0")/lib.sh"

need_app phases
command -v python3 > /dev/null 2>&1 || skip "no python3"
t=$ST_TMP

cli_run "$t/run" "$t/run" -- $MPIEXEC -n 2 "$ST_APPS/phases"
expect_rc "$t/run" 0
"$ST_CLI" table --json "$t/self.json" "$t/run" > /dev/null 2> "$t/self.err" ||
	{ show "$t/self.err"; fail "table failed"; }

# functions FILE: "fn calls" of a report's function table.
functions()
{
	sed -n '/^function  *calls  *total/,/^$/p' "$1" |
		awk 'NR > 1 && NF { sub(/^n=/, "", $2); print $1, $2 }'
}

# check PHASE WANT: report, table and predict of PHASE hold the calls
# WANT ("MPI_Allreduce 10", "" for none) and nothing else.
check()
{
	p=$1
	want=$2
	"$ST_CLI" report --phase "$p" "$t/run" > "$t/report-$p" \
		2> "$t/report-$p.err" ||
		{ show "$t/report-$p.err"; fail "report --phase $p failed"; }
	# MPI_Finalize is in the last phase, MPI_Init in phase 0: outside
	# the run, their calls are listed but count for nothing.
	got=$(functions "$t/report-$p" | grep -v '^MPI_Finalize \|^MPI_Init ')
	[ "$got" = "$want" ] ||
		{ show "$t/report-$p"; fail "report --phase $p: '$got'," \
			"expected '$want'"; }
	grep -q "^MPI time: .*(n=${want#* } calls)" "$t/report-$p" ||
		[ -z "$want" ] ||
		{ show "$t/report-$p"; fail "report --phase $p: MPI time"; }

	"$ST_CLI" table --phase "$p" --json "$t/table-$p.json" "$t/run" \
		> /dev/null 2> "$t/table-$p.err" ||
		{ show "$t/table-$p.err"; fail "table --phase $p failed"; }
	got=$(python3 -c 'import json, sys
for o in json.load(open(sys.argv[1]))["operations"]:
    print(o["op"], 2 * o["operations"])' "$t/table-$p.json")
	[ "$got" = "$want" ] ||
		fail "table --phase $p: '$got' (2 x instances), expected '$want'"

	"$ST_CLI" predict "$t/run" --table "$t/self.json" --phase "$p" \
		--json > "$t/pred-$p" 2> "$t/pred-$p.err" ||
		{ show "$t/pred-$p.err"; fail "predict --phase $p failed"; }
	got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for f in d["functions"]:
    print(f["fn"], f["calls"])
assert d["phase"].startswith(sys.argv[2]), d["phase"]' "$t/pred-$p" \
		"$(case $p in level=*) echo "the phases opened";;
			   *) echo "phase $p";; esac)" |
		grep -v '^MPI_Finalize ')
	[ "$got" = "$want" ] ||
		fail "predict --phase $p: '$got', expected '$want'"
}

check 1 "MPI_Allreduce 10"
check level=1 "MPI_Allreduce 10"
check 2 "MPI_Barrier 6"
check level=2 "MPI_Barrier 6"
check 3 ""
note "phases 1 and 2 (and levels 1, 2) hold 10 allreduce and 6 barrier" \
	"calls in report, table and predict; phase 3 none"

"$ST_CLI" report --phase 9 "$t/run" > /dev/null 2> "$t/none.err" ||
	fail "report of a phase no rank has failed"
grep -q "warning: no rank of .* has phase 9" "$t/none.err" ||
	{ show "$t/none.err"; fail "no warning for a phase no rank has"; }
for bad in -1 x level= 2x; do
	"$ST_CLI" report --phase "$bad" "$t/run" > /dev/null 2> "$t/bad.err"
	[ $? = 129 ] || fail "--phase '$bad' is not a usage error"
	grep -q "bad phase '$bad'" "$t/bad.err" ||
		{ show "$t/bad.err"; fail "no message for --phase '$bad'"; }
done
