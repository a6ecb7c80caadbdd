#!/bin/sh
# tests/integration/t-clocksync.sh: `synctrace clockcheck` finds the
# clock skew SYNCTRACE_CLOCK_SKEW injects (every rank of this machine
# reads one physical clock, so the skew is the only error there is to
# find) and shows what each method leaves of it.  With offsets up to
# +-1 s and drifts up to +-100 ppm, checked 0 and 2 s after each sync,
# on 2 and 3 ranks, and on 4 ranks on two fake hydra nodes with
# node-aware sync (skew per node, as the ranks of a node share a clock):
#  - the CSV has its six rows; HCA refreshed as the interposer does,
#    capped at 1 s, refreshed 3 times by the 2 s check;
#  - HCA's residual right after its sync, refreshed HCA's at 2 s and
#    SKaMPI's right after its sync are within twice the row's own
#    uncertainty (the sync's error estimate plus half the check's least
#    round trip) plus the injected drift over 0.5 s, the time a rank
#    may be descheduled between sync and check: a 0.5 to 1 s offset not
#    undone, or refreshed HCA 2 s of 100 ppm off, is far outside.
#    SKaMPI corrects no drift: its allowance is the drift over the time
#    from its sync's start to the check's end (the CSV's since_sync_s)
#    when that is longer, as it is when the check comes late (seconds
#    late under load: each row's checks wait for the rows before);
#  - offset-only SKaMPI's residual grows by the injected drift times the
#    time between the two checks, to within what the two checks'
#    uncertainties allow; a check measures at any moment of its
#    duration (took_s, seconds under load), so the drift over each
#    check's duration (at least 0.5 s, as before) is allowed too.
# These hold on a busy machine, where round trips grow to milliseconds
# and the residuals with them; how small the residuals are (under 1 us
# at 0 s and 2 us at 2 s on a quiet machine) is a figure for `make
# validate`.  The node-aware case is skipped (77, a failure in `make
# test`) if hydra's fake hosts do not make separate nodes.
#
# On 2 cores, 3 and 4 ranks are more than the CPUs: synctrace-bench then
# gives rank 0 a CPU of its own and the others poll with sched_yield(),
# which keeps the default sync parameters usable (see its output note).
. "$(dirname "$0")/lib.sh"

BENCH=$st_build/synctrace-bench
[ -x "$BENCH" ] || fail "no '$BENCH': run make first"

# clockcheck NAME NP SKEW [OPTION...] [-- MPIEXEC-ARGS...]: run the check
# with times 0 and 2 s, HCA refreshed with a 1 s cap; output in NAME.out,
# NAME.err, NAME.rc, the results in NAME.csv.
clockcheck()
{
	cc_name=$1
	cc_np=$2
	cc_skew=$3
	shift 3
	"$ST_CLI" clockcheck -n "$cc_np" --times 0,2 --refresh 1 \
		--methods hca,skampi --skew "$cc_skew" \
		--csv "$ST_TMP/$cc_name.csv" --mpiexec "$MPIEXEC" "$@" \
		< /dev/null > "$ST_TMP/$cc_name.out" 2> "$ST_TMP/$cc_name.err"
	echo $? > "$ST_TMP/$cc_name.rc"
}

# field NAME METHOD REFRESH T COLUMN: one value of NAME.csv.
field()
{
	awk -F, -v m="$2" -v r="$3" -v t="$4" -v col="$5" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == m && $2 == r && $4 == t { print $c[col]; n++ }
		END { if (n != 1) exit 1 }' "$ST_TMP/$1.csv" ||
		{ show "$ST_TMP/$1.csv"
		  fail "no single $2/$3/t=$4 row in $1.csv"; }
}

# judge NAME PPM: the assertions on run NAME, PPM being the largest
# injected drift of a rank relative to rank 0.  Fails on a miss.
judge()
{
	expect_rc "$ST_TMP/$1" 0
	[ "$(wc -l < "$ST_TMP/$1.csv")" = 7 ] ||
		{ show "$ST_TMP/$1.csv"
		  fail "$1.csv: not 6 rows and a header"; }
	# Refreshes on the interposer's schedule, capped at 1 s: at 0.25,
	# 0.5 and 1 s, all after the 0 s check and before the 2 s one.
	[ "$(field "$1" hca on 2 epoch)$(field "$1" hca on 0 epoch)" = 30 ] ||
		{ show "$ST_TMP/$1.csv"
		  fail "$1: hca not refreshed 3 times by 2 s"; }
	awk -F, -v ppm="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{
			m = $c["method"]; r = $c["refresh"]; t = $c["t_s"]
			res = $c["residual_ns"]; rtt = $c["rtt_ns"]
			est = $c["est_err_ns"] != "" ? $c["est_err_ns"] : \
			      $c["err_ns"]
			# The drift over the 0.5 s a descheduled rank may lose
			# before the check; for offset-only SKaMPI over all the
			# time its model aged, when the check came later.
			w = 0.5
			if (m == "skampi") {
				s[t] = res; q[t] = rtt; age[t] = $c["age_s"]
				took[t] = $c["took_s"]
				if ($c["since_sync_s"] > w)
					w = $c["since_sync_s"]
				if (t == 2)
					next
			} else if (r == "off" && t == 2) {
				next
			}
			# Twice the own uncertainty, plus that drift.
			b = 2 * (est + rtt / 2) + ppm * 1e-6 * w * 1e9
			printf "%s %s at %s s: residual %.0f ns, bound %.0f " \
			       "ns (est %.0f, rtt %.0f, drift over %.3g s)\n",
			       m, r, t, res, b, est, rtt, w
			if (!(res <= b)) {
				printf "MISS: %s refresh %s at %s s\n", m, r, t
				bad = 1
			}
		}
		END {
			# A check measured between age_s and age_s + took_s:
			# the drift over that span, or over 0.5 s if less.
			d0 = ppm * 1e-6 * (took[0] > 0.5 ? took[0] : 0.5) * 1e9
			d2 = ppm * 1e-6 * (took[2] > 0.5 ? took[2] : 0.5) * 1e9
			want = ppm * 1e-6 * (age[2] - age[0]) * 1e9
			g = s[2] - s[0]
			lo = want - 2 * s[0] - q[0] / 2 - q[2] / 2 - d0
			hi = want + q[0] / 2 + q[2] / 2 + d2
			printf "skampi grew %.0f ns, drift predicts %.0f, " \
			       "bounds %.0f..%.0f ns (checks took %.3g, %.3g " \
			       "s)\n", g, want, lo, hi, took[0], took[2]
			if (!(g >= lo && g <= hi)) {
				print "MISS: skampi did not grow by the drift"
				bad = 1
			}
			exit bad
		}' "$ST_TMP/$1.csv" > "$ST_TMP/$1.judge" ||
		{ cat "$ST_TMP/$1.judge"; show "$ST_TMP/$1.out"
		  fail "$1: a residual outside its own uncertainty"; }
	note "$1: $(tr '\n' ';' < "$ST_TMP/$1.judge")"
}

# check NAME NP SKEW PPM [ARG...]: run clockcheck NAME NP SKEW ARG... and
# judge it.
check()
{
	ck_name=$1
	ck_np=$2
	ck_skew=$3
	ck_ppm=$4
	shift 4
	clockcheck "$ck_name" "$ck_np" "$ck_skew" "$@"
	judge "$ck_name" "$ck_ppm"
}

check two 2 0,+0.9s@+100ppm 100
grep -q '^hca  *x2 to 1 s ' "$ST_TMP/two.out" &&
	grep -q '^residual: max over ranks' "$ST_TMP/two.out" ||
	{ show "$ST_TMP/two.out"; fail "no table on stdout"; }

check three 3 0,-1s@-100ppm,+0.5s@+60ppm 100

# Node-aware: two fake nodes, a (ranks 0, 1) and b (ranks 2, 3).  A
# quick run first tells whether hydra's fake hosts make separate nodes.
hosts="-launcher fork -hosts a:2,b:2"
skew=0,0,+0.9s@+100ppm,+0.9s@+100ppm
"$ST_CLI" clockcheck -n 4 --times 0 --methods skampi --skew $skew \
	--mpiexec "$MPIEXEC" --node -- $hosts \
	< /dev/null > "$ST_TMP/nodes.out" 2> "$ST_TMP/nodes.err"
echo $? > "$ST_TMP/nodes.rc"
expect_rc "$ST_TMP/nodes" 0
if grep -q '4 ranks on 1 node' "$ST_TMP/nodes.out"; then
	show "$ST_TMP/nodes.out"
	skip "fake hosts '$hosts' give one node (MPI_COMM_TYPE_SHARED)"
fi
grep -q '4 ranks on 2 nodes (node-aware: 2 ranks measure)' \
	"$ST_TMP/nodes.out" ||
	{ show "$ST_TMP/nodes.out"
	  fail "fake hosts: not 2 nodes, node-aware"; }
check node 4 $skew 100 --node -- $hosts

# Ranks of a node read one clock (rank 3 above is right only with rank
# 2's model): a skew that says otherwise is refused.
clockcheck mixed 4 0,+1s,0,0 --node -- $hosts
expect_rc "$ST_TMP/mixed" 1
grep -q 'with --node, the ranks of a node must have the same skew' \
	"$ST_TMP/mixed.err" ||
	{ show "$ST_TMP/mixed.err"; fail "mixed skews on a node accepted"; }
note "node-aware sync on 2 fake nodes; a node with two skews refused"
