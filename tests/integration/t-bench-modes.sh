#!/bin/sh
# tests/integration/t-bench-modes.sh: `synctrace bench`'s other modes on
# 2 ranks (t-bench.sh checks the window-synchronised measurements):
#  - --sync barrier is labelled in the output, the index and the
#    headers, and discards nothing;
#  - --runs 2 makes run-1 and run-2 with seeds 1 and 2, which `synctrace
#    table` reads together;
#  - --pair-time gives a pair as many measurements as fit in that time
#    of its windows, up to 4 times --nrep (in barrier mode, so that
#    nothing is discarded and the counts are exact);
#  - with SYNCTRACE_YIELD=1 in its environment the bench makes its
#    blocking calls as the interposer does in yield mode (the
#    nonblocking twin, then MPI_Test), as the bench's own MPI calls
#    traced by the interposer under it show, and says yield=1 in its
#    headers; without it, no twin is called;
#  - every timed collective follows an untimed call of the same operation
#    and size (none with --cold-coll), as the traced calls show, in
#    window mode at a start of its own 25 us (or --pairs' @US) or more
#    later, and the headers and summary say which;
#  - bad options are usage errors (129) before any job starts.
# All of it holds however busy the machine is: the gaps are the bench's
# own waits, which load lengthens; only a rank late for its warm-up
# shortens one, so most are checked, not all, and no gap is checked
# against an upper bound; and the calls the bench timed are found by
# the starts it recorded, whatever pilots it made again under load.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-lib.sh"

# --- barrier mode ---------------------------------------------------------
bench barrier --quick --sync barrier --ops barrier,allreduce,sendrecv
expect_rc "$ST_TMP/barrier" 0
D=$ST_TMP/barrier
grep -q 'sync=barrier: an MPI_Barrier before each measurement' \
	"$ST_TMP/barrier.out" &&
	grep -q '^sync: MPI_Barrier before each measurement (barrier mode' \
	"$ST_TMP/barrier.out" ||
	{ show "$ST_TMP/barrier.out"
	  fail "barrier mode not labelled in the output"; }
[ "$(index "$D" sync)" = barrier ] || fail "index does not say sync=barrier"
"$ST_CLI" dump --header "$D" > "$ST_TMP/barrier.hdr" ||
	fail "synctrace dump --header failed"
[ "$(grep -c '^sync=barrier$' "$ST_TMP/barrier.hdr")" = 2 ] ||
	{ show "$ST_TMP/barrier.hdr"; fail "headers do not say sync=barrier"; }
# Nothing discarded; all 35 made unless other jobs held the bench past
# its time limit, which a note says.
[ "$(summary barrier 3)" = 0 ] || { show "$ST_TMP/barrier.out"
	fail "barrier mode discarded measurements"; }
[ "$(summary barrier 2)" = 35 ] ||
	grep -q '^note: [0-9]* planned measurements* w[ae][sr]e* not made' \
	"$ST_TMP/barrier.out" || { show "$ST_TMP/barrier.out"
	fail "barrier mode: $(summary barrier 2) valid of 35 and no note"; }

# --- --runs 2 -------------------------------------------------------------
bench runs --runs 2 --ops allreduce --sizes 8 --nrep 4
expect_rc "$ST_TMP/runs" 0
for k in 1 2; do
	D=$ST_TMP/runs/run-$k
	[ "$(index "$D" complete)" = 1 ] || fail "run-$k not complete"
	"$ST_CLI" dump --header --rank 0 "$D" | grep -q "^seed=$k\$" ||
		fail "run-$k does not have seed $k"
done
[ "$(ls "$ST_TMP/runs")" = "$(printf 'run-1\nrun-2')" ] ||
	fail "--runs 2 made: $(ls "$ST_TMP/runs")"
want="synctrace: 2 bench runs in $ST_TMP/runs/run-1 .. run-2 (2 ranks,"
grep -q "^$want 2 complete)\$" "$ST_TMP/runs.err" ||
	{ show "$ST_TMP/runs.err"; fail "no summary line for 2 runs"; }
"$ST_CLI" table "$ST_TMP/runs/run-1" "$ST_TMP/runs/run-2" \
	> "$ST_TMP/table.out" 2> "$ST_TMP/table.err" ||
	{ show "$ST_TMP/table.err"; fail "synctrace table cannot read the runs"; }
# Both runs named (however the table wraps its lines), Allreduce costed.
tr -d ' \n' < "$ST_TMP/table.out" > "$ST_TMP/table.flat"
grep -q "$ST_TMP/runs/run-1:2ranks,.*$ST_TMP/runs/run-2:2ranks," \
	"$ST_TMP/table.flat" ||
	{ show "$ST_TMP/table.out"; fail "synctrace table: not both runs"; }
# An MPI_Allreduce row when either run kept a measurement.
if awk '$1 == "total" && $2 > 0 { ok = 1 } END { exit !ok }' \
	"$ST_TMP/runs.out"; then
	grep -q '^MPI_Allreduce ' "$ST_TMP/table.out" ||
		{ show "$ST_TMP/table.out"; fail "synctrace table: no MPI_Allreduce"; }
fi

# --- --pair-time ------------------------------------------------------------
# 1 s of windows holds far more than 4 x 2 of these: 8 each.
bench ptime --sync barrier --ops allreduce --sizes 8,64K --nrep 2 \
	--pair-time 1000000
expect_rc "$ST_TMP/ptime" 0
grep -q 'up to 8 each (--pair-time)' "$ST_TMP/ptime.out" ||
	{ show "$ST_TMP/ptime.out"; fail "--pair-time not said in the output"; }
if [ "$(summary ptime 2)" = 16 ]; then
	dump_csv "$ST_TMP/ptime" "$ST_TMP/ptime.csv"
	st_awk "$ST_TMP/ptime.csv" 'rank == 0 && kind == "call" &&
		fn == "MPI_Allreduce" { n[sbytes]++ }
		END { for (d in n) print d, n[d] }' | sort -n > "$ST_TMP/ptime.n"
	# One first call per size (the pilot's), then the 8 measurements.
	[ "$(cat "$ST_TMP/ptime.n")" = "$(printf '8 9\n65536 9')" ] ||
		{ show "$ST_TMP/ptime.n"; fail "--pair-time: not 8 per size"; }
else
	grep -q '^note: [0-9]* planned measurements* w[ae][sr]e* not made' \
		"$ST_TMP/ptime.out" || { show "$ST_TMP/ptime.out"
		fail "--pair-time: $(summary ptime 2) valid of 16 and no note"; }
fi
note "--pair-time: 8 measurements per pair for --nrep 2"

# --- yield mode (SYNCTRACE_YIELD=1) -------------------------------------
# The bench's own MPI calls, traced by the interposer under it (an
# mpiexec that preloads it): in yield mode each measured MPI_Allreduce
# and MPI_Send is its twin, MPI_Iallreduce and MPI_Isend, then MPI_Test.
cat > "$ST_TMP/mpx.sh" <<EOF
#!/bin/sh
exec env LD_PRELOAD="$ST_PRELOAD" SYNCTRACE_DIR="\$YTRACE" "$MPIEXEC" "\$@"
EOF
chmod +x "$ST_TMP/mpx.sh"
for y in 0 1; do
	YTRACE=$ST_TMP/ytrace$y SYNCTRACE_YIELD=$y \
		"$ST_CLI" bench -o "$ST_TMP/yield$y" --mpiexec "$ST_TMP/mpx.sh" \
		--ops allreduce,pingpong --sizes 8 --nrep 3 < /dev/null \
		> "$ST_TMP/yield$y.out" 2> "$ST_TMP/yield$y.err"
	echo $? > "$ST_TMP/yield$y.rc"
	expect_rc "$ST_TMP/yield$y" 0
	dump_csv "$ST_TMP/ytrace$y" "$ST_TMP/ytrace$y.csv"
	st_awk "$ST_TMP/ytrace$y.csv" 'kind == "call" { n[fn]++ }
		END { print n["MPI_Iallreduce"] + 0, n["MPI_Isend"] + 0,
		      n["MPI_Test"] + 0 }' > "$ST_TMP/ytrace$y.n"
done
read -r ia is it < "$ST_TMP/ytrace1.n"
{ [ "$ia" -ge 6 ] && [ "$is" -ge 6 ] && [ "$it" -ge 12 ]; } ||
	{ show "$ST_TMP/ytrace1.n"
	  fail "yield mode: the measured calls were not made as twins"; }
[ "$(cut -d' ' -f1,2 "$ST_TMP/ytrace0.n")" = "0 0" ] ||
	{ show "$ST_TMP/ytrace0.n"; fail "twins called without yield mode"; }
"$ST_CLI" dump --header "$ST_TMP/yield1" > "$ST_TMP/yield1.hdr" ||
	fail "synctrace dump --header failed"
grep -q '^config=.* yield=1' "$ST_TMP/yield1.hdr" ||
	{ show "$ST_TMP/yield1.hdr"; fail "yield mode not in the headers"; }
note "SYNCTRACE_YIELD=1: twin + MPI_Test ($ia MPI_Iallreduce, $is MPI_Isend)"

# barrier_bench NAME TRACE FLAGS...: a bench of 3 measurements in barrier
# mode under the interposer (its calls traced into TRACE, dumped as
# TRACE.csv), all 3 valid; its headers in NAME.hdr.
barrier_bench()
{
	name=$1 trace=$2
	shift 2
	YTRACE=$trace "$ST_CLI" bench -o "$ST_TMP/$name" \
		--mpiexec "$ST_TMP/mpx.sh" --sync barrier --nrep 3 "$@" \
		< /dev/null > "$ST_TMP/$name.out" 2> "$ST_TMP/$name.err"
	echo $? > "$ST_TMP/$name.rc"
	expect_rc "$ST_TMP/$name" 0
	[ "$(summary "$name" 2)" = 3 ] || { show "$ST_TMP/$name.out"
		fail "--sync barrier --nrep 3 ($name): $(summary "$name" 2) valid"; }
	dump_csv "$trace" "$trace.csv"
	"$ST_CLI" dump --header "$ST_TMP/$name" > "$ST_TMP/$name.hdr" ||
		fail "synctrace dump --header failed"
}

# warmup_said KEY WARM COLD WARM-RE COLD-RE WHAT: the headers of the
# benches WARM and COLD (barrier_bench) say KEY=1 and KEY=0, and their
# summaries WARM-RE and COLD-RE.
warmup_said()
{
	[ "$(grep -c "^config=.* $1=1" "$ST_TMP/$2.hdr")" = 2 ] &&
		[ "$(grep -c "^config=.* $1=0" "$ST_TMP/$3.hdr")" = 2 ] ||
		{ show "$ST_TMP/$2.hdr"; fail "$1 not in the headers"; }
	grep -q "$4" "$ST_TMP/$2.out" && grep -q "$5" "$ST_TMP/$3.out" ||
		{ show "$ST_TMP/$2.out"
		  fail "the summary does not say how $6 were timed"; }
}

# --- a collective's warm-up call -------------------------------------------
# The bench's own MPI calls, traced by the interposer under it as above:
# by default every timed collective follows an untimed call of the same
# operation and size (so 2 MPI_Scan per measurement and per timed pilot
# run, 1 for the pilot's first call: 1 + 2 x 3 + 2 x 3 = 13 per rank in
# barrier mode, where nothing is discarded); with --cold-coll one (1 + 3
# + 3 = 7).  The bench itself never calls MPI_Scan.  Headers say which.
for w in warm cold; do
	flag=
	[ $w = cold ] && flag=--cold-coll
	barrier_bench $w "$ST_TMP/wtrace-$w" --ops scan --sizes 8 $flag
	st_awk "$ST_TMP/wtrace-$w.csv" 'kind == "call" && fn == "MPI_Scan" {
		n[rank]++ } END { print n[0] + 0, n[1] + 0 }' \
		> "$ST_TMP/wtrace-$w.n"
done
[ "$(cat "$ST_TMP/wtrace-warm.n")" = "13 13" ] ||
	{ show "$ST_TMP/wtrace-warm.n"
	  fail "collectives: not one warm-up call before each timed one"; }
[ "$(cat "$ST_TMP/wtrace-cold.n")" = "7 7" ] ||
	{ show "$ST_TMP/wtrace-cold.n"; fail "--cold-coll: warm-up calls made"; }
warmup_said coll_warmup warm cold \
	'^collectives: each timed after an untimed call' \
	'^collectives: each timed alone' collectives
note "collectives timed after a warm-up call (13 MPI_Scan a rank; 7 cold)"

# In window mode the timed call has a start of its own, 2 pilot times +
# 25 us after the warm-up's, so each rank enters it at least 25 us after
# it entered the warm-up, unless it was late for the warm-up (which
# shortens the gap; a rank late for the timed call has the measurement
# discarded and made again).  Which calls were timed, the bench's own
# run says: each kept measurement's record holds the timed call's start,
# which the interposer's trace of the bench (YTRACE) shows as the first
# MPI_Scan the rank entered from then on; its warm-up is the rank's
# MPI_Scan before it.  Under load the bench pilots again (back-to-back
# pairs) and one rank can be late for most warm-ups (seen with the
# sanitizers and two busy loops beside: 13 of 26), so a measurement
# counts by the rank that was not: in most kept measurements, some
# rank's timed call comes that long after its warm-up.  Without the
# start of its own, none would.
YTRACE=$ST_TMP/wtrace-win "$ST_CLI" bench -o "$ST_TMP/win" \
	--mpiexec "$ST_TMP/mpx.sh" --ops scan --sizes 8 --nrep 5 \
	< /dev/null > "$ST_TMP/win.out" 2> "$ST_TMP/win.err"
echo $? > "$ST_TMP/win.rc"
expect_rc "$ST_TMP/win" 0
dump_csv "$ST_TMP/wtrace-win" "$ST_TMP/wtrace-win.csv"
dump_csv "$ST_TMP/win" "$ST_TMP/win.csv"
# gaps BENCH-CSV YTRACE-CSV NS: the bench's kept MPI_Scan measurements
# whose timed call has a warm-up in the trace, and how many of them some
# rank entered NS ns or more after its warm-up.
gaps() {
	{ st_awk "$1" 'kind == "call" && fn == "MPI_Scan" {
			print "kept", rank, t0_ns, seq }'
	  st_awk "$2" 'kind == "call" && fn == "MPI_Scan" {
			print "call", rank, t0_ns }'; } |
	awk -v ns="$3" '
		$1 == "kept" { kr[++nk] = $2; kt[nk] = $3; ks[nk] = $4 }
		$1 == "call" { n[$2]++; ct[$2, n[$2]] = $3 }
		END {
			for (i = 1; i <= nk; i++) {
				r = kr[i]
				for (j = 1; j <= n[r] &&
				     ct[r, j] + 1000 < kt[i] + 0; j++)
					;
				if (j < 2 || j > n[r])
					continue
				d = ct[r, j] - ct[r, j - 1]
				if (!(ks[i] in g) || d > g[ks[i]])
					g[ks[i]] = d
			}
			for (s in g) { m++; far += g[s] >= ns }
			print m + 0, far + 0
		}'
}
gaps "$ST_TMP/win.csv" "$ST_TMP/wtrace-win.csv" 25000 > "$ST_TMP/wtrace-win.n"
read -r pairs far < "$ST_TMP/wtrace-win.n"
{ [ "$pairs" -ge 2 ] && [ $((2 * far)) -gt "$pairs" ]; } ||
	{ show "$ST_TMP/wtrace-win.n"
	  fail "window mode: the timed call not 25 us after its warm-up"; }
note "window mode: $far of $pairs kept measurements timed 25 us or more after a rank's warm-up"
# A --pairs item's @US (what 'bench --like' gives a collective: the run's
# quiet time before it) puts the timed call that long after its warm-up,
# the window widened to fit (without it, 25 us after: the check above).
# The header's pairs say the gap.
YTRACE=$ST_TMP/wtrace-gap "$ST_CLI" bench -o "$ST_TMP/gap" \
	--mpiexec "$ST_TMP/mpx.sh" --pairs scan:8@300 --nrep 5 \
	< /dev/null > "$ST_TMP/gap.out" 2> "$ST_TMP/gap.err"
echo $? > "$ST_TMP/gap.rc"
expect_rc "$ST_TMP/gap" 0
dump_csv "$ST_TMP/wtrace-gap" "$ST_TMP/wtrace-gap.csv"
dump_csv "$ST_TMP/gap" "$ST_TMP/gap.csv"
gaps "$ST_TMP/gap.csv" "$ST_TMP/wtrace-gap.csv" 300000 > "$ST_TMP/wtrace-gap.n"
read -r pairs far < "$ST_TMP/wtrace-gap.n"
{ [ "$pairs" -ge 2 ] && [ $((2 * far)) -gt "$pairs" ]; } ||
	{ show "$ST_TMP/wtrace-gap.n"
	  fail "--pairs scan:8@300: the timed call not 300 us after its warm-up"; }
"$ST_CLI" dump --header "$ST_TMP/gap" > "$ST_TMP/gap.hdr" ||
	fail "synctrace dump --header failed"
[ "$(grep -c '^pairs=scan:8@300$' "$ST_TMP/gap.hdr")" = 2 ] ||
	{ show "$ST_TMP/gap.hdr"; fail "the gap not in the headers' pairs"; }
note "--pairs scan:8@300: $far of $pairs kept measurements timed 300 us or more after a rank's warm-up"
# A --pairs item's /PREV:PSIZE (what 'bench --like' gives a collective
# that most often followed another call in the run) makes that call the
# warm-up instead: in barrier mode, per rank, 7 MPI_Scan as with no
# warm-up (1 + 3 + 3) and 6 MPI_Exscan (3 + 3), which the bench itself
# never calls; the headers' pairs and the summary say so.
YTRACE=$ST_TMP/wtrace-prev "$ST_CLI" bench -o "$ST_TMP/prev" \
	--mpiexec "$ST_TMP/mpx.sh" --sync barrier --pairs scan:8/exscan:16 \
	--nrep 3 < /dev/null > "$ST_TMP/prev.out" 2> "$ST_TMP/prev.err"
echo $? > "$ST_TMP/prev.rc"
expect_rc "$ST_TMP/prev" 0
dump_csv "$ST_TMP/wtrace-prev" "$ST_TMP/wtrace-prev.csv"
st_awk "$ST_TMP/wtrace-prev.csv" 'kind == "call" && fn == "MPI_Scan" {
	s[rank]++ } kind == "call" && fn == "MPI_Exscan" { e[rank]++ }
	END { print s[0] + 0, s[1] + 0, e[0] + 0, e[1] + 0 }' \
	> "$ST_TMP/wtrace-prev.n"
[ "$(cat "$ST_TMP/wtrace-prev.n")" = "7 7 6 6" ] ||
	{ show "$ST_TMP/wtrace-prev.n"
	  fail "--pairs scan:8/exscan:16: not one MPI_Exscan before each timed MPI_Scan"; }
"$ST_CLI" dump --header "$ST_TMP/prev" > "$ST_TMP/prev.hdr" ||
	fail "synctrace dump --header failed"
[ "$(grep -c '^pairs=scan:8/exscan:16$' "$ST_TMP/prev.hdr")" = 2 ] ||
	{ show "$ST_TMP/prev.hdr"; fail "the warm-up not in the headers' pairs"; }
grep -q 'OP:SIZE/PREV:PSIZE of --pairs: after an untimed call of PREV' \
	"$ST_TMP/prev.out" || { show "$ST_TMP/prev.out"
	fail "the summary does not say which warm-up"; }
note "--pairs scan:8/exscan:16: each timed MPI_Scan after an untimed MPI_Exscan (7 and 6 a rank)"

# --- a point-to-point pattern's warm-up (--warm-p2p) ----------------------
# With --warm-p2p the same for point-to-point (by default none): a
# one-way pattern (burst1: one rank MPI_Isend, the other MPI_Irecv, tag
# 3) goes the other way in every other timed call, and its warm-up goes
# the way its timed call does.  So in barrier mode each rank's burst
# calls are the pilot's first one, then 6 pairs of the same kind (3
# timed pilot runs and 3 measurements, each after its warm-up), each
# pair of the other kind than the one before; by default 7 calls, each
# of the other kind than the one before.  The bench's own point-to-point calls (the clock's) are
# PMPI calls, which the interposer does not see.
for w in warm cold; do
	flag=
	[ $w = warm ] && flag=--warm-p2p
	barrier_bench p$w "$ST_TMP/ptrace-$w" --pairs burst1:64 $flag
	# Per rank: its burst calls (S or R), then how many after the first
	# pair up as the same kind, how many alternate, and whether both
	# kinds come after the first.
	st_awk "$ST_TMP/ptrace-$w.csv" 'kind == "call" && tag == 3 &&
		(fn == "MPI_Isend" || fn == "MPI_Irecv") {
		s[rank] = s[rank] (fn == "MPI_Isend" ? "S" : "R") }
		END { for (r = 0; r < 2; r++) {
			q = s[r]; same = alt = palt = 0
			for (i = 2; i + 1 <= length(q); i += 2)
				same += substr(q, i, 1) == substr(q, i + 1, 1)
			for (i = 4; i + 1 <= length(q); i += 2)
				palt += substr(q, i, 1) != substr(q, i - 2, 1)
			for (i = 2; i <= length(q); i++)
				alt += substr(q, i, 1) != substr(q, i - 1, 1)
			t = substr(q, 2)
			print r, length(q), same, alt,
			      (t ~ /S/ && t ~ /R/) ? "both" : "one", palt,
			      q } }' \
		> "$ST_TMP/ptrace-$w.n"
done
[ "$(cut -d' ' -f1-3,5,6 "$ST_TMP/ptrace-warm.n")" = "$(printf '0 13 6 both 5\n1 13 6 both 5')" ] ||
	{ show "$ST_TMP/ptrace-warm.n"
	  fail "--warm-p2p: not a warm-up of the same direction before each timed pattern"; }
[ "$(cut -d' ' -f1-2,4 "$ST_TMP/ptrace-cold.n")" = "$(printf '0 7 6\n1 7 6')" ] ||
	{ show "$ST_TMP/ptrace-cold.n"; fail "point-to-point: warm-up patterns made by default"; }
warmup_said p2p_warmup pwarm pcold \
	'^point-to-point: each pattern timed after an untimed one' \
	'^point-to-point: each pattern timed alone' 'point-to-point patterns'
note "--warm-p2p: point-to-point timed after a warm-up of its direction (13 burst calls a rank; 7 by default)"

# --- usage errors ---------------------------------------------------------
for args in "--ops allreduce,frobnicate" "--sizes 1,x" "--sync never" \
	"--sizes 8 --min 1" "--runs 0" "-n 1" "--window-factor 0" \
	"--pair-time x"; do
	bench usage $args
	expect_rc "$ST_TMP/usage" 129
	[ -e "$ST_TMP/usage" ] && fail "'bench $args' made a run directory"
	grep -q '^usage: synctrace bench' "$ST_TMP/usage.err" ||
		fail "'bench $args': no usage on stderr"
done
note "usage errors refused before any job"
