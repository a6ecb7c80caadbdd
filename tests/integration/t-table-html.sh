#!/bin/sh
# tests/integration/t-table-html.sh: the HTML page of `synctrace table`
# renders in a real browser.  A bench-mix trace (collectives of several
# sizes and MPI_Sendrecv, 2 ranks) gives a page that headless Chromium
# (Debian package `chromium`) loads from a file with no server; the DOM
# it builds must hold one SVG plot per operation of the table (as many
# as the CSV has operations), each with points and axis labels.  Skipped (77)
# when chromium is not installed.
. "$(dirname "$0")/lib.sh"

browser=
for b in chromium chromium-browser; do
	command -v $b > /dev/null 2>&1 && { browser=$b; break; }
done
[ -n "$browser" ] || skip "no chromium (apt-get install chromium)"
need_app bench-mix
t=$ST_TMP

cli_run "$t/mix" "$t/mix.run" -- $MPIEXEC -n 2 "$ST_APPS/bench-mix" 100
expect_rc "$t/mix.run" 0
"$ST_CLI" table --csv "$t/mix.csv" --html "$t/mix.html" "$t/mix" \
	> "$t/mix.txt" 2> "$t/mix.err" ||
	{ show "$t/mix.err"; fail "synctrace table failed"; }
# One CSV row per fitted piece: an operation with a protocol switch in d
# has two, and one plot.
nops=$(tail -n +2 "$t/mix.csv" | cut -d, -f1 | sort -u | wc -l)
[ "$nops" -ge 5 ] || fail "only $nops operations in the table"

timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
	--no-first-run --disable-background-networking \
	--disable-component-update --disable-sync \
	--user-data-dir="$t/profile" --dump-dom "file://$t/mix.html" \
	> "$t/dom.html" 2> "$t/browser.err" ||
	{ show "$t/browser.err"; fail "$browser could not load the page"; }
nsvg=$(grep -o '<svg' "$t/dom.html" | wc -l)
[ "$nsvg" = "$nops" ] ||
	fail "the rendered page has $nsvg plots for $nops operations"
# Each plot drew its medians and labelled its axes with units.
awk '/<svg/ { inside = 1; c = 0; lab = 0 }
     inside && /<circle/ { c++ }
     inside && /(ns|us|ms)<\/text>/ { lab++ }
     /<\/svg>/ { if (!c || !lab) bad++; inside = 0 }
     END { exit bad > 0 }' "$t/dom.html" ||
	fail "a plot without points or axis labels"
grep -q 'cost of one operation, log scale' "$t/dom.html" ||
	fail "no y axis title"
note "$browser rendered $nsvg plots for $nops operations"
# One colour per process count on the whole page: the legend of every
# plot gives p=N the same colour.
grep -Eo 'fill="#[0-9a-f]*"(/>|></circle>)<text[^>]*>p=[0-9]*: median' \
	"$t/dom.html" |
	sed 's/fill="\(#[0-9a-f]*\)".*>p=\([0-9]*\):.*/\2 \1/' | sort -u \
	> "$t/p-colours"
[ -s "$t/p-colours" ] || fail "no legend entries p=N in the page"
[ "$(cut -d' ' -f1 "$t/p-colours" | uniq -d | wc -l)" = 0 ] ||
	{ show "$t/p-colours"; fail "a process count has two colours"; }
