#!/bin/sh
# tests/integration/t-python.sh: tools/python/synctrace.py loads real runs.
# Its own tests run against a traced p2p run (SYNCTRACE_TEST_RUN), and
# load() of a run with every kind of record (the colls app: collectives
# of every family, inter-communicators, persistent requests) types every
# field: a numeric column holding anything but a number or nothing fails
# it.  Per rank and kind, the rows are the dump's records.  The
# `dump --sync --csv` table has numbers (or nothing) in every column
# but its method.
. "$(dirname "$0")/lib.sh"

command -v python3 > /dev/null 2>&1 || skip "no python3"
need_app p2p
need_app colls
t=$ST_TMP
py=$st_top/tools/python

cli_run "$t/p2p" "$t/p2p.run" -- $MPIEXEC -n 2 "$ST_APPS/p2p"
expect_rc "$t/p2p.run" 0
cli_run "$t/colls" "$t/colls.run" -- $MPIEXEC -n 2 "$ST_APPS/colls"
expect_rc "$t/colls.run" 0

SYNCTRACE=$ST_CLI SYNCTRACE_TEST_RUN=$t/p2p python3 -m unittest \
	discover -s "$py" > "$t/unit.out" 2>&1 ||
	{ show "$t/unit.out"; fail "the module's tests failed on a real run"; }
grep -q 'skipped' "$t/unit.out" && grep -q 'skipped=' "$t/unit.out" &&
	{ show "$t/unit.out"; fail "the real-run test was skipped"; }

"$ST_CLI" dump --csv "$t/colls" > "$t/colls.csv" 2> /dev/null ||
	fail "dump of colls failed"
SYNCTRACE=$ST_CLI python3 - "$t/colls" "$t/colls.csv" "$py" \
	> "$t/load.out" 2>&1 <<'PY' || { show "$t/load.out"; fail "load() of colls"; }
import collections, csv, sys
sys.path.insert(0, sys.argv[3])
import synctrace
rows = synctrace.load(sys.argv[1])
got = collections.Counter((r["rank"], r["kind"]) for r in rows)
with open(sys.argv[2], newline="") as f:
    want = collections.Counter((int(r["rank"]), r["kind"])
                               for r in csv.DictReader(f))
assert got == want, (got, want)
kinds = sorted({k for _, k in got})
assert {"call", "start", "done", "comm", "site", "sync"} <= set(kinds), kinds
print("load: %d rows, kinds %s" % (len(rows), ",".join(kinds)))
PY
note "$(cat "$t/load.out")"

"$ST_CLI" dump --sync --csv "$t/colls" > "$t/sync.csv" ||
	fail "dump --sync --csv failed"
python3 - "$t/sync.csv" <<'PY' || fail "dump --sync --csv: a non-number"
import csv, sys
with open(sys.argv[1], newline="") as f:
    rows = list(csv.DictReader(f))
assert rows, "no sync rows"
for i, r in enumerate(rows, start=2):
    for k, v in r.items():
        if k != "method" and v != "":
            float(v)
PY
