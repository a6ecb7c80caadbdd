#!/bin/sh
# tests/integration/t-view.sh: `synctrace view` makes a page that loads
# and draws in a real browser, and names the slow rank.  A 2-D Jacobi run
# on 4 ranks (a 2 x 2 grid) in which rank 2 sleeps 60 ms before each
# sweep, far longer than a sweep: rank 2 arrives last at nearly every
# MPI_Allreduce, whatever the machine's load, so the verdict must name
# it.  Headless Chromium loads the page from a file: no error, one lane
# per rank with pixels painted and as many calls as the dump has, the
# timeline's colours in the screenshot (kept as view.png in this test's
# output directory).  Then the page of the same run with --max-calls 50
# draws from the bins (the aggregated overview) and still paints every
# lane.  The browser half is skipped (77) without chromium.
. "$(dirname "$0")/lib.sh"

need_app jacobi
t=$ST_TMP
check=$st_top/tests/integration/views-check.py
slow=2

cli_run "$t/jac" "$t/jac.run" -- $MPIEXEC -n 4 "$ST_APPS/jacobi" 15 $slow 60
expect_rc "$t/jac.run" 0
"$ST_CLI" view -o "$t/view.html" "$t/jac" 2> "$t/view.err" ||
	{ show "$t/view.err"; fail "synctrace view failed"; }
grep -q '^synctrace: view in .*: n=4 lanes' "$t/view.err" ||
	{ show "$t/view.err"; fail "no summary line with 4 lanes"; }
grep -q "id=\"st-verdict\">rank $slow arrives last in [0-9]* % of MPI_Allreduce at jacobi.c:[0-9]* (n=15 instances)" \
	"$t/view.html" ||
	{ grep -o 'id="st-verdict">[^<]*' "$t/view.html";
	  fail "the verdict does not name rank $slow"; }
# The page warns about too few cores exactly when the header says so.
ncores=$("$ST_CLI" dump --header --rank 0 "$t/jac" | sed -n 's/^ncores=//p')
[ -n "$ncores" ] || fail "no ncores in the header"
if [ "$ncores" -lt 4 ]; then
	grep -q 'id="st-oversubscribed">4 ranks ran on host' "$t/view.html" ||
		fail "4 ranks on $ncores cores, and no warning"
else
	grep -q 'st-oversubscribed' "$t/view.html" &&
		fail "a warning about cores with $ncores cores"
fi
# The report says the same, and counts who sends what to whom: on the
# 2 x 2 grid each rank sends its two neighbours one 32-double edge per
# iteration, and each MPI_Allreduce moves 8 bytes from every rank to
# every other.
"$ST_CLI" report --matrix-csv "$t/matrix.csv" --matrix-json "$t/matrix.json" \
	"$t/jac" > "$t/report.txt" 2> "$t/report.err" ||
	{ show "$t/report.err"; fail "synctrace report failed"; }
# Lines of the report joined where they wrap (continuations are indented).
awk '/^    / { sub(/^ +/, " "); printf "%s", $0; next }
     { printf "\n%s", $0 } END { print "" }' "$t/report.txt" \
	> "$t/report.joined"
grep -q "^Imbalance by rank: rank $slow arrives last in [0-9]* % of MPI_Allreduce at jacobi.c:[0-9]* (n=15 instances) and causes [0-9]* % of its waiting" \
	"$t/report.joined" || { grep '^Imbalance' "$t/report.joined";
	  fail "the report's verdict does not name rank $slow"; }
if [ "$ncores" -lt 4 ]; then
	grep -q "^note: 4 ranks ran on host .* cores: the waiting may be the machine's" \
		"$t/report.joined" || fail "no note on too few cores in the report"
fi
[ "$(head -n 1 "$t/matrix.csv")" = kind,src,dst,bytes,messages ] ||
	fail "matrix CSV header"
[ "$(grep -c '^p2p,' "$t/matrix.csv")" = 8 ] ||
	{ show "$t/matrix.csv"; fail "not 8 neighbour pairs"; }
grep '^p2p,' "$t/matrix.csv" | grep -v ',3840,15$' &&
	fail "a neighbour pair without 15 edges of 256 bytes"
[ "$(grep -c '^coll,[0-9]*,[0-9]*,120,15$' "$t/matrix.csv")" = 12 ] ||
	{ show "$t/matrix.csv"; fail "allreduce pairs are not 12 x 15 x 8 B"; }
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));
assert d["ranks"] == 4 and d["p2p"]["messages"][0][1] == 15, d' \
	"$t/matrix.json" || fail "matrix JSON"

# Self-contained: nothing loaded from elsewhere.
grep -Eq '<script[^>]+src=|<link[^>]+href=|https?://' "$t/view.html" &&
	fail "the page refers to something outside it"

"$ST_CLI" view -q --max-calls 50 -o "$t/thin.html" "$t/jac" ||
	fail "view --max-calls failed"
"$ST_CLI" view --max-calls 0 "$t/jac" > /dev/null 2>&1
[ $? = 129 ] || fail "--max-calls 0 does not exit 129"

browser=
for b in chromium chromium-browser; do
	command -v $b > /dev/null 2>&1 && { browser=$b; break; }
done
[ -n "$browser" ] || skip "no chromium (apt-get install chromium)"
command -v python3 > /dev/null 2>&1 || skip "no python3"

# load PAGE NAME: the DOM after the page's script ran, and a screenshot.
load()
{
	rm -rf "$t/profile"
	timeout 90 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-quic \
		--enable-logging=stderr --v=0 --window-size=1280,1000 \
		--user-data-dir="$t/profile" --dump-dom "file://$1" \
		> "$t/$2.dom" 2> "$t/$2.browser" ||
		{ show "$t/$2.browser"; fail "$browser could not load $1"; }
	rm -rf "$t/profile"
	timeout 90 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-quic \
		--hide-scrollbars --window-size=1280,1000 \
		--user-data-dir="$t/profile" --screenshot="$t/$2.png" \
		"file://$1" > /dev/null 2> "$t/$2.shot" ||
		{ show "$t/$2.shot"; fail "no screenshot of $1"; }
	[ -s "$t/$2.png" ] || fail "empty screenshot of $1"
	grep -q 'data-ready="1"' "$t/$2.dom" ||
		{ show "$t/$2.browser"; fail "$2: the page's script did not finish"; }
	grep -q '<div id="st-errors"></div>' "$t/$2.dom" ||
		{ grep -o 'id="st-errors">[^<]*' "$t/$2.dom";
		  fail "$2: script errors"; }
	! grep -q 'Uncaught' "$t/$2.browser" ||
		{ grep 'Uncaught' "$t/$2.browser"; fail "$2: script errors"; }
}

# lanes NAME: "lane calls painted" per lane of the page.
lanes()
{
	grep -o '<li data-lane="[0-9]*" data-calls="[0-9]*" data-painted="[0-9]*"' \
		"$t/$1.dom" | sed 's/[^0-9 ]//g; s/  */ /g; s/^ //'
}

load "$t/view.html" view
lanes view > "$t/view.lanes"
[ "$(wc -l < "$t/view.lanes")" = 4 ] ||
	{ show "$t/view.lanes"; fail "not 4 lanes drawn"; }
dump_csv "$t/jac" "$t/jac.csv"
for r in 0 1 2 3; do
	want=$(count "$t/jac.csv" "kind == \"call\" && rank == $r")
	set -- $(sed -n "$((r + 1))p" "$t/view.lanes")
	[ "$2" = "$want" ] || fail "lane $r holds $2 calls, the dump $want"
	[ "$3" -gt 100 ] || fail "lane $r painted $3 pixels"
done
box=$(grep -o 'data-box="[0-9,]*"' "$t/view.dom" | sed 's/[^0-9,]//g')
[ -n "$box" ] || fail "no timeline box in the DOM"
# MPI_Allreduce's colour and the colour of waiting, from the page's data.
ar=$(grep -o '"name":"MPI_Allreduce","colour":"#[0-9a-f]*"' "$t/view.html" |
	head -n 1 | sed 's/.*"\(#[0-9a-f]*\)"/\1/')
wait=$(grep -o '"name":"waiting for the last rank","colour":"#[0-9a-f]*"' \
	"$t/view.html" | sed 's/.*"\(#[0-9a-f]*\)"/\1/')
[ -n "$ar" ] && [ -n "$wait" ] || fail "no colours in the page's data"
python3 "$check" png "$t/view.png" "$box" "$ar" "$wait" > "$t/png.check" \
	2>&1 || { show "$t/png.check"; fail "the timeline's colours are not drawn"; }
note "$(cat "$t/png.check"); screenshot $t/view.png"

load "$t/thin.html" thin
grep -q 'drawn from bins' "$t/thin.dom" ||
	{ grep -o 'id="st-status">[^<]*' "$t/thin.dom";
	  fail "--max-calls 50: the page did not draw from the bins"; }
lanes thin > "$t/thin.lanes"
kept=$(awk '{ n += $2 } END { print n }' "$t/thin.lanes")
[ "$kept" -le 50 ] || fail "--max-calls 50 kept $kept calls"
awk '$3 < 100 { bad = 1 } END { exit bad }' "$t/thin.lanes" ||
	{ show "$t/thin.lanes"; fail "a lane is empty in the overview"; }
note "thin page: $kept calls kept; $(grep -o 'id="st-status">[^<]*' "$t/thin.dom" | sed 's/.*>//')"
