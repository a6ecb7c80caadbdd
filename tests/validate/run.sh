#!/bin/sh
# tests/validate/run.sh: `make validate`, the timing and accuracy figures
# of synctrace against their targets.  `make test` asserts only what
# holds at any speed and load; how good the figures are depends on the
# machine and on what else runs on it, so they are measured here, each
# VALIDATE_RUNS times (default 3, at least 3), and printed as the median
# with its spread (min..max) and n, beside the target and PASS or MISS
# (judged on the median).  The figures:
#  - clock sync in the interposer (as tests/integration/t-sync.sh runs
#    it): the residual SYNCTRACE_SYNC_CHECK measures at init, at the end
#    and after the final sync, HCA on 2 ranks and on 3 in yield mode;
#    offset-only SKaMPI's end residual over the drift it ignores; the
#    sync interval coverage (the % of HCA epochs whose slope is within
#    its error bound of the injected drift: the bound claims all of
#    them) and the last slope bound of 2 ranks;
#  - `synctrace clockcheck` on 2 and 3 ranks (as t-clocksync.sh):
#    HCA's residual right after sync, refreshed HCA's at 2 s, SKaMPI's
#    growth over what the injected drift predicts;
#  - `synctrace bench --quick` (as t-bench.sh): its time, its valid
#    measurements, the ranks' global start spread (median and max);
#  - `synctrace table` on a bench run (as t-table-bench.sh): operations
#    whose bench median lies outside the table's confidence interval
#    (+-10 % + 200 ns), or which grow with size in the bench but not in
#    the table;
#  - `synctrace predict` (as t-predict.sh, at its earlier sizes): bsp,
#    halo and transpose from their own table, a grid bench table (3
#    launches of 100 measurements) and a `bench --like` table: the
#    error of the run time and the worst error of a function holding at
#    least 10 % of the measured MPI time;
#  - the replay's throughput in the unit test
#    tools_replay/large_trace_throughput_and_bounded_state;
#  - reproducible tables (tests/validate/repro.sh, issue 19): two
#    independent `bench --repro` tables agree within 5 % (median over
#    groups), `table --compare` calls at most 5 % of their groups
#    different and at least half of the groups different against a TCP
#    table; the launch-to-launch spread is printed beside them.
# A summary line counts PASS and MISS.  A run that fails to give its
# figures (a bench run out of mpiexec's limit, a grid table that lost an
# operation to discards on a busy machine) is named in a note and leaves
# its figures with fewer samples (n); a figure with none is a MISS.
# Exit status: 0 when every figure meets its target, 1 on any MISS, 2
# when validate itself cannot run (no build, bad VALIDATE_RUNS).  Takes some minutes on an idle 2-CPU machine;
# other jobs make the figures worse, so the load average is printed
# too.  Environment: BUILD, MPIEXEC, VALIDATE_RUNS, VALIDATE_ONLY (a
# space-separated subset of: sync clockcheck bench table predict replay
# repro).
ST_TEST_NAME=validate
. "$(dirname "$0")/../integration/lib.sh"

# lib.sh's fail() exits 1, which is a MISS here: a broken run is 2.
fail()
{
	echo "validate: FAILED: $*" >&2
	exit 2
}

export MPIEXEC_TIMEOUT=600
runs=${VALIDATE_RUNS:-3}
[ "$runs" -ge 3 ] 2>/dev/null || fail "VALIDATE_RUNS must be 3 or more"
only=${VALIDATE_ONLY:-sync clockcheck bench table predict replay repro}
V=$ST_TMP
: > "$V/samples"
: > "$V/figures"
: > "$V/lost"
command -v python3 > /dev/null 2>&1 || fail "no python3 (make deps)"
for a in bsp halo transpose; do need_app $a; done
ST_BENCH=$st_build/synctrace-bench
[ -x "$ST_BENCH" ] || fail "no '$ST_BENCH': run make first"

# figure ID LABEL OP TARGET: a figure and its target; OP is lt (median
# below TARGET), gt (above), abslt (|median| below) or in (TARGET is
# LO..HI).
figure()
{
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$V/figures"
}

# lost WHAT FILE: a run failed to give its figures; FILE says why.
lost()
{
	echo "validate: note: $1 gave no figures (see $2)"
	echo "$1: $2" >> "$V/lost"
}

# sample ID VALUE: one measurement of figure ID ("-" when none).
sample()
{
	printf '%s\t%s\n' "$1" "$2" >> "$V/samples"
}

want()
{
	case " $only " in *" $1 "*) return 0 ;; esac
	return 1
}

load()
{
	cut -d' ' -f1-3 /proc/loadavg
}

start=$(date +%s)
echo "validate: $runs runs of each figure; load average $(load)"

# --- clock sync in the interposer ------------------------------------
# cover RUN SKEW NP: the sync interval coverage of RUN, whose clocks SKEW
# distorted: over every epoch of every rank but 0, the % whose slope is
# within its error bound of the injected drift (PPM / (1 + PPM 1e-6)
# against rank 0's clock), widened by the two ranks' TSC rate
# uncertainty from the headers; and for 2 ranks the last epoch's bound.
cover()
{
	"$ST_CLI" dump --sync --csv "$1" > "$1.sync" 2> "$1.sync.err" ||
		{ lost "dump --sync of $1" "$1.sync.err"; return; }
	"$ST_CLI" dump --header "$1" 2> /dev/null |
		sed -n 's/^clock=.*+-\([0-9.e+-]*\) ppm)$/\1/p' > "$1.rate"
	awk -F, -v skew="$2" -v np="$3" \
	    -v rates="$(tr '\n' ' ' < "$1.rate")" '
		BEGIN {
			k = split(skew, e, ",")
			for (i = 1; i <= k; i++) {
				p = 0
				if (split(e[i], x, "@") == 2) {
					sub(/ppm$/, "", x[2])
					p = x[2] + 0
				}
				w[i - 1] = p / (1 + p * 1e-6)
			}
			split(rates, q, " ")
			for (i in q) if (q[i] > rate) rate = q[i]
		}
		NR > 1 && $1 > 0 {
			n++
			d = $6 - w[$1]
			if (d < 0) d = -d
			if ($9 != "" && d <= $9 + 2 * rate) ok++
			last = $9
		}
		END {
			if (n) printf "sync.cover\t%.1f\n", 100 * ok / n
			if (np == 2 && last != "") printf "sync.bound\t%s\n", last
		}' "$1.sync" >> "$V/samples"
}

if want sync; then
	figure sync.2.init "sync HCA 2 ranks: residual at init (ns)" lt 1000
	figure sync.2.end "sync HCA 2 ranks: residual at end (ns)" lt 2000
	figure sync.2.final "sync HCA 2 ranks: residual after final (ns)" lt 1000
	figure sync.3.init "sync HCA 3 ranks yield: residual at init (ns)" lt 1000
	figure sync.3.end "sync HCA 3 ranks yield: residual at end (ns)" lt 2000
	figure sync.sk.ratio "sync SKaMPI: end residual / 100 ppm of run" in 0.5..1.5
	figure sync.cover "sync interval coverage: slopes within bound (%)" gt 99
	figure sync.bound "sync HCA 2 ranks: last slope bound (ppm)" lt 5
	for i in $(seq "$runs"); do
		for c in "2 0,+0.9s@+100ppm hca 300 0" \
			 "3 0,-1s@-100ppm,+0.5s@+60ppm hca 300 1" \
			 "sk 0,+0.9s@+100ppm skampi 0 0"; do
			set -- $c
			n=$1
			[ "$n" = sk ] && n=2
			d=$V/sync-$1-$i
			rm -rf "$d"
			env SYNCTRACE_CLOCK_SKEW=$2 SYNCTRACE_SYNC_CHECK=64 \
				SYNCTRACE_SYNC=$3 SYNCTRACE_SYNC_INTERVAL=$4 \
				SYNCTRACE_YIELD=$5 LD_PRELOAD="$ST_PRELOAD" \
				SYNCTRACE_DIR="$d" $MPIEXEC -n $n \
				"$ST_APPS/bsp" 4000 20000 < /dev/null \
				> "$d.out" 2> "$d.err" ||
				{ lost "sync run $1 ($i)" "$d.out"; continue; }
			for k in init end final; do
				eval "$k=\$(sed -n 's/^sync_check_${k}_ns=//p' \
					\"\$d/synctrace.run\")"
			done
			if [ "$1" = sk ]; then
				dump_csv "$d" "$d.csv"
				span=$(st_awk "$d.csv" '
					rank == 1 && kind == "call" &&
					    fn == "MPI_Init" { a = t1_ns }
					rank == 1 && kind == "mark" &&
					    fn == "finalize" { b = t0_ns }
					END { printf "%.0f", b - a }')
				sample sync.sk.ratio "$(awk -v v="$end" \
					-v s="$span" 'BEGIN {
					printf "%.3f", v / (s * 100e-6) }')"
				continue
			fi
			sample sync.$1.init "$init"
			sample sync.$1.end "$end"
			cover "$d" "$2" "$1"
			[ "$1" = 2 ] && sample sync.2.final "$final"
		done
	done
	echo "validate: sync done, $(($(date +%s) - start)) s, load $(load)"
fi

# --- synctrace clockcheck ---------------------------------------------
if want clockcheck; then
	for np in 2 3; do
		figure cc.$np.hca0 "clockcheck $np ranks: HCA residual at 0 s (ns)" lt 1000
		figure cc.$np.hca2 "clockcheck $np ranks: HCA refreshed at 2 s (ns)" lt 2000
		figure cc.$np.sk "clockcheck $np ranks: SKaMPI growth / drift" in 0.5..1.5
	done
	for i in $(seq "$runs"); do
		for c in "2 0,+0.9s@+100ppm" "3 0,-1s@-100ppm,+0.5s@+60ppm"; do
			set -- $c
			f=$V/cc-$1-$i
			"$ST_CLI" clockcheck -n $1 --times 0,2 --refresh 1 \
				--methods hca,skampi --skew $2 --csv "$f.csv" \
				--mpiexec "$MPIEXEC" < /dev/null > "$f.out" \
				2> "$f.err" ||
				{ lost "clockcheck $1 ranks ($i)" "$f.out"; continue; }
			awk -F, -v np=$1 '
				NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				{ k = $c["method"] " " $c["refresh"] " " $c["t_s"]
				  r[k] = $c["residual_ns"]; a[k] = $c["age_s"] }
				END {
					printf "cc.%s.hca0\t%s\n", np, r["hca off 0"]
					printf "cc.%s.hca2\t%s\n", np, r["hca on 2"]
					w = 100e-6 * (a["skampi off 2"] - \
					    a["skampi off 0"]) * 1e9
					printf "cc.%s.sk\t%.3f\n", np, (r["skampi off 2"] - \
					    r["skampi off 0"]) / w
				}' "$f.csv" >> "$V/samples"
		done
	done
	echo "validate: clockcheck done, $(($(date +%s) - start)) s, load $(load)"
fi

# --- synctrace bench --quick --------------------------------------------
if want bench; then
	figure bench.secs "bench --quick: time (s)" lt 30
	figure bench.valid "bench --quick: valid measurements of 275" gt 274
	figure bench.spread.med "bench --quick: start spread, median (ns)" lt 2000
	figure bench.spread.max "bench --quick: start spread, max (ns)" lt 50000
	for i in $(seq "$runs"); do
		b=$V/bench-$i
		rm -rf "$b"
		s=$(date +%s.%N)
		"$ST_CLI" bench --quick -o "$b" --mpiexec "$MPIEXEC" \
			< /dev/null > "$b.out" 2> "$b.err" ||
			{ lost "bench --quick ($i)" "$b.out"; continue; }
		sample bench.secs "$(awk -v s="$s" -v e="$(date +%s.%N)" \
			'BEGIN { printf "%.1f", e - s }')"
		sample bench.valid "$(awk '$1 == "total" { print $2 }' "$b.out")"
		dump_csv "$b" "$b.csv"
		# Each rank's first call of each measurement after the
		# pilot's first calls (seq 1..55): |g0 rank 0 - g0 rank 1|.
		st_awk "$b.csv" '
			kind == "call" && seq > 55 && !((rank, seq) in g) {
				g[rank, seq] = g0_ns; s[seq] }
			END {
				for (k in s) if (((0, k) in g) && ((1, k) in g)) {
					d = g[0, k] - g[1, k]
					v[++n] = d < 0 ? -d : d
				}
				for (i = 2; i <= n; i++)
					for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
						t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
					}
				printf "bench.spread.med\t%.0f\n", v[int((n + 1) / 2)]
				printf "bench.spread.max\t%.0f\n", v[n]
			}' >> "$V/samples"
	done
	echo "validate: bench done, $(($(date +%s) - start)) s, load $(load)"
fi

# --- synctrace table on a bench run -------------------------------------
if want table; then
	figure table.off "table vs bench: operations off (of 18)" lt 1
	for i in $(seq "$runs"); do
		t=$V/table-$i
		rm -rf "$t"
		"$ST_CLI" bench -n 2 --sizes 8,4K,64K --nrep 12 --seed $i -o "$t" \
			--mpiexec "$MPIEXEC" < /dev/null > "$t.out" 2> "$t.err" ||
			{ lost "bench for the table ($i)" "$t.out"; continue; }
		"$ST_CLI" table --csv "$t.csv" "$t" > "$t.txt" 2> "$t.terr" ||
			{ lost "table ($i)" "$t.terr"; continue; }
		# The bench's medians at 8 B (0 B) and 64 KiB, in ns.
		awk '
			function ns(v, u) {
				if (v == "-") return "-"
				if (u == "s") return v * 1e9
				if (u == "ms") return v * 1e6
				if (u == "us") return v * 1e3
				return v
			}
			/^operation  *sizes/ { on = 1; next }
			on && /^total/ { exit }
			on && NF > 0 {
				name = $1
				if ($1 == "ping-pong") name = "MPI_Send->MPI_Recv"
				k = 0
				for (i = 1; i <= NF; i++) if ($i == "@") at[++k] = i
				lo = $(at[1] - 1) == "-" ? "-" : \
				     ns($(at[1] - 2), $(at[1] - 1))
				hi = "-"
				if (k > 1 && $(at[2] - 1) != "-")
					hi = ns($(at[2] - 2), $(at[2] - 1))
				print name, lo, hi, $1 == "ping-pong"
			}' "$t.out" > "$t.want"
		# Groups: function p d n_in n dropped median ci_lo ci_hi
		awk -F, 'NR > 1 { print $1, $3, $4, $5, $6, $7, $8, $9, $10 }' \
			"$t-groups.csv" > "$t.groups"
		awk '
			NR == FNR { want[$1] = $2 " " $3 " " $4; next }
			{ g[$1 " " $3] = $0 }
			END {
				for (op in want) {
					split(want[op], w, " ")
					if (w[3] == 1) continue
					lo = op == "MPI_Barrier" ? 0 : 8
					o = 0
					for (k = 1; k <= 2; k++) {
						m[k] = ""
						if (w[k] == "-") continue
						split(g[op " " (k == 1 ? lo : 65536)], x, " ")
						if (x[1] == "") { o = 1; continue }
						if (x[8] == "" || x[9] == "") continue
						if (w[k] < 0.9 * x[8] - 200 ||
						    w[k] > 1.1 * x[9] + 200)
							o = 1
						m[k] = x[7]
					}
					if (w[2] != "-" && w[1] != "-" &&
					    w[2] > 2 * w[1] && m[1] != "" &&
					    m[2] != "" && !(m[2] > m[1]))
						o = 1
					off += o
				}
				printf "table.off\t%d\n", off
			}' "$t.want" "$t.groups" >> "$V/samples"
	done
	echo "validate: table done, $(($(date +%s) - start)) s, load $(load)"
fi

# --- synctrace predict --------------------------------------------------
# errors PRED ID: the run time's error and the worst error of a function
# holding at least 10 % of the measured MPI time, in %.
errors()
{
	python3 - "$1" "$2" >> "$V/samples" <<'EOF' || lost "$2" "$1"
import json, sys
p = json.load(open(sys.argv[1]))
fid = sys.argv[2]
fns = p["functions"]
total = sum(f["measured_ns"] or 0 for f in fns)
worst = None
for f in fns:
    if f["error"] is None or (f["measured_ns"] or 0) < 0.1 * total:
        continue
    e = 100 * f["error"]
    if worst is None or abs(e) > abs(worst):
        worst = e
print("%s.run\t%.2f" % (fid, 100 * p["validation"]["error"]))
print("%s.fn\t%s" % (fid, "-" if worst is None else "%.2f" % worst))
EOF
}

if want predict; then
	for a in bsp halo transpose; do
		figure pred.$a.own.run "predict $a, own table: run time error (%)" abslt 5
		figure pred.$a.own.fn "predict $a, own table: worst function error (%)" abslt 15
		figure pred.$a.grid.run "predict $a, grid table: run time error (%)" abslt 25
		figure pred.$a.grid.fn "predict $a, grid table: worst function error (%)" abslt 50
		figure pred.$a.like.run "predict $a, like table: run time error (%)" abslt 5
		figure pred.$a.like.fn "predict $a, like table: worst function error (%)" abslt 25
	done
	for i in $(seq "$runs"); do
		b=$V/grid-$i
		rm -rf "$b" "$b.json"
		env -u LD_PRELOAD "$ST_CLI" bench -n 2 -o "$b" --runs 3 \
			--seed $((3 * i - 2)) \
			--ops allreduce,alltoall,reduce,pingpong \
			--sizes 1,8,64,512,4K,32K,128K,256K --nrep 100 \
			--mpiexec "$MPIEXEC" < /dev/null > "$b.out" 2> "$b.err" ||
			lost "grid bench ($i)" "$b.out"
		"$ST_CLI" table --json "$b.json" "$b"/run-* > "$b.txt" \
			2> "$b.terr" || lost "grid table ($i)" "$b.terr"
		for c in "bsp 2000 20000" "halo 400 50000" "transpose 50 128"; do
			set -- $c
			a=$1
			shift
			r=$V/$a-$i
			rm -rf "$r" "$r-like"
			cli_run "$r" "$r" -- $MPIEXEC -n 2 "$ST_APPS/$a" "$@"
			expect_rc "$r" 0
			"$ST_CLI" table --json "$r-self.json" "$r" > /dev/null \
				2> "$r-self.err" || { show "$r-self.err"
				fail "$a: own table failed"; }
			m=
			[ $a = halo ] && m=--missing=measured
			for tb in "own $r-self.json $m" "grid $b.json"; do
				set -- $tb
				if "$ST_CLI" predict "$r" --table "$2" $3 \
					--validate --json > "$r-$1.pred" \
					2> "$r-$1.err"; then
					errors "$r-$1.pred" pred.$a.$1
				else
					lost "predict $a ($1 table, $i)" "$r-$1.err"
				fi
			done
			env -u LD_PRELOAD "$ST_CLI" bench --like "$r" -o "$r-like" \
				--runs 3 --nrep 100 --mpiexec "$MPIEXEC" \
				< /dev/null > "$r-like.out" 2> "$r-like.err" ||
				lost "bench --like $a ($i)" "$r-like.out"
			if "$ST_CLI" table --json "$r-like.json" \
				"$r-like"/run-* > /dev/null 2> "$r-like.terr" &&
			   "$ST_CLI" predict "$r" --table "$r-like.json" \
				--validate --json > "$r-like.pred" \
				2> "$r-like.perr"; then
				errors "$r-like.pred" pred.$a.like
			else
				lost "predict $a (like table, $i)" "$r-like.perr"
			fi
		done
		echo "validate: predict run $i done, $(($(date +%s) - start)) s," \
			"load $(load)"
	done
fi

# --- the replay's throughput ----------------------------------------------
if want replay; then
	figure replay.rate "replay throughput, 8 ranks (M records/s)" gt 0.1
	[ -x "$st_build/unit-tests" ] || fail "no '$st_build/unit-tests'"
	for i in $(seq "$runs"); do
		"$st_build/unit-tests" \
			--filter 'tools_replay/large_trace_throughput_and_bounded_state' \
			> "$V/replay-$i.out" 2>&1 ||
			{ lost "replay unit test ($i)" "$V/replay-$i.out"; continue; }
		sample replay.rate "$(sed -n \
			's/^replay benchmark: .* = \([0-9.]*\) M records\/s (reading.*/\1/p' \
			"$V/replay-$i.out")"
	done
fi

# --- reproducible tables -------------------------------------------------
# Each run makes three tables (about 2.5 min on an idle 2-CPU machine).
if want repro; then
	figure repro.agree "repro: A vs B, median |B/A - 1| over groups (%)" lt 5
	figure repro.same "repro: A vs B, groups called different (%)" in 0..5
	figure repro.tcp "repro: A vs TCP, groups called different (%)" in 50..100
	figure repro.agree.pooled "repro: A vs B from group medians, as issue 19 (%)" none -
	figure repro.sd.A "repro: launch-to-launch sd, median over groups (%)" none -
	figure repro.resolve.A "repro: difference two tables resolve, median (%)" none -
	for i in $(seq "$runs"); do
		BUILD=$st_build MPIEXEC=$MPIEXEC \
			sh "$(dirname "$0")/repro.sh" "$V/repro-$i" \
			> "$V/repro-$i.out" 2>&1
		[ -s "$V/repro-$i/figures" ] ||
			{ lost "repro run $i" "$V/repro-$i.out"; continue; }
		cat "$V/repro-$i/figures" >> "$V/samples"
		echo "validate: repro run $i done; load average $(load)"
	done
fi

# --- the table of figures ---------------------------------------------------
echo
echo "validate: $(($(date +%s) - start)) s; load average now $(load);" \
	"$(wc -l < "$V/lost") runs gave no figures"
awk -F'\t' '
	NR == FNR { v[$1] = v[$1] " " $2; next }
	function med(a, n) { return n % 2 ? a[(n + 1) / 2] : \
				    (a[n / 2] + a[n / 2 + 1]) / 2 }
	function fmt(x) {
		if (x == "-") return "-"
		return (x > 999 || x < -999) ? sprintf("%.0f", x) : \
		       sprintf("%.4g", x)
	}
	BEGIN {
		printf "%-54s %10s %-23s %2s  %-13s %s\n", "figure", "median",
		       "(min..max)", "n", "target", "result"
	}
	{
		n = 0
		k = split(v[$1], raw, " ")
		for (i = 1; i <= k; i++)
			if (raw[i] != "-" && raw[i] != "") a[++n] = raw[i] + 0
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		op = $3; tg = $4
		if (op == "none") {
			m = n ? med(a, n) : "-"; lo = n ? a[1] : "-"
			hi = n ? a[n] : "-"
			printf "%-54s %10s %-23s %2d  %-13s %s\n", $2, fmt(m),
			       "(" fmt(lo) ".." fmt(hi) ")", n, "(reported)", "-"
			delete a
			next
		}
		if (!n) {
			res = "MISS"; m = "-"; lo = "-"; hi = "-"
		} else {
			m = med(a, n); lo = a[1]; hi = a[n]
			if (op == "lt") ok = m < tg
			else if (op == "gt") ok = m > tg
			else if (op == "abslt") ok = (m < 0 ? -m : m) < tg
			else { split(tg, r, /\.\./); ok = m >= r[1] && m <= r[2] }
			res = ok ? "PASS" : "MISS"
		}
		tt = op == "lt" ? "< " tg : op == "gt" ? "> " tg : \
		     op == "abslt" ? "|x| < " tg : tg
		printf "%-54s %10s %-23s %2d  %-13s %s\n", $2, fmt(m),
		       "(" fmt(lo) ".." fmt(hi) ")", n, tt, res
		nf++
		if (res == "PASS") np++
		else nm++
		delete a
	}
	END {
		printf "\nvalidate: %d figures, %d PASS, %d MISS\n", nf, np, nm
		exit nm > 0
	}' "$V/samples" "$V/figures"
