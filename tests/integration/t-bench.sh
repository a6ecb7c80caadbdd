#!/bin/sh
# tests/integration/t-bench.sh: `synctrace bench`, the window-synchronised
# microbenchmark, on 2 ranks.  Everything asserted holds however busy the
# machine is (other jobs on the 2 CPUs spoil measurements, which the
# bench discards and makes again within a bounded budget); the timing
# figures themselves (how long the quick run takes, how close together
# the ranks start) are `make validate`'s.  With --quick (3 sizes, 5
# measurements):
#  - it leaves a complete run directory (bench=1, sync=window, the sync
#    checks) that `synctrace dump` reads;
#  - the pilot's first call of every operation at every size is on both
#    ranks, and every measurement recorded has the bytes README.md's
#    tables give for its size;
#  - the measurements' seq numbers and functions match across ranks, and
#    the summary's counts match the trace: valid measurements = distinct
#    seqs, per operation too; at most 5 per operation and size, and a
#    note names the pairs that got fewer; discards add up to their
#    reasons; the last seq is at most valid + discarded (discarded ones
#    keep their numbers);
#  - with a clock skew of +0.5 s and 100 ppm injected, the ranks' local
#    entry times are 0.5 s apart, and in global time (from the trace's
#    own sync records) within a fifth of that (medians over the pilot's
#    first calls and the valid measurements);
#  - windows deliberately too small (--window-factor 0.1 at 4 MiB) are
#    caught as overruns and grown;
#  - --pairs makes the first calls in its order.
# t-bench-modes.sh runs --sync barrier, --runs and the usage errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bench-lib.sh"

# attempt NAME JUDGE [OPTION...]: bench NAME OPTION..., then the shell
# function JUDGE NAME, which fails the test on a wrong result but
# returns 1 with the reason in $why when its setup did not happen (used
# once, below: windows meant to be too small, which a pilot slowed down
# tenfold by other jobs can make large enough).  Up to 3 runs.
attempt()
{
	at_name=$1
	at_judge=$2
	shift 2
	for at_try in 1 2 3; do
		rm -rf "$ST_TMP/$at_name"
		bench "$at_name" "$@"
		why=
		$at_judge "$at_name" && return 0
		note "$at_name: run $at_try of 3: $why"
		cp "$ST_TMP/$at_name.out" "$ST_TMP/$at_name.out.$at_try"
	done
	show "$ST_TMP/$at_name.out"
	fail "$at_name: $why (3 runs)"
}

# calls NAME: NAME.calls, one line per call record of the measurements
# (rank seq fn d sbytes rbytes t0_ns g0_ns), and NAME.first the same for
# the pilot's first calls: seq 1 to the count the summary gives.
calls()
{
	dump_csv "$ST_TMP/$1" "$ST_TMP/$1.csv"
	c_first=$(sed -n 's/.*(trace seq 1 to \([0-9]*\))$/\1/p' \
		"$ST_TMP/$1.out")
	[ -n "$c_first" ] ||
		{ show "$ST_TMP/$1.out"; fail "$1: no first-call line"; }
	st_awk "$ST_TMP/$1.csv" '
		kind == "call" {
			d = sbytes
			if (fn ~ /^MPI_Alltoall/) d = sbytes / 2
			if (fn == "MPI_Bcast") d = sbytes + rbytes
			if (fn ~ /^MPI_(Reduce_scatter|Scatter)/ ||
			    fn == "MPI_Recv")
				d = rbytes
			print rank, seq, fn, d, sbytes, rbytes, t0_ns, g0_ns
		}' > "$ST_TMP/$1.all"
	awk -v n="$c_first" '$2 <= n' "$ST_TMP/$1.all" > "$ST_TMP/$1.first"
	awk -v n="$c_first" '$2 > n' "$ST_TMP/$1.all" > "$ST_TMP/$1.calls"
}

# first_calls NAME PAIRS: NAME.first holds one first call of each of the
# PAIRS (operation, size) pairs on each rank, seq 1 to PAIRS, the same
# on both ranks.
first_calls()
{
	awk '{ f = $3 ~ /^MPI_(Send|Recv)$/ ? "pingpong" : $3
		print $2, f, $4 > (FILENAME "." $1) }' "$ST_TMP/$1.first"
	cmp -s "$ST_TMP/$1.first.0" "$ST_TMP/$1.first.1" ||
		fail "$1: first calls differ between ranks"
	[ "$(sort -u "$ST_TMP/$1.first.0" | wc -l)" = "$2" ] &&
		[ "$(awk '{ print $2, $3 }' "$ST_TMP/$1.first.0" |
			sort -u | wc -l)" = "$2" ] &&
		[ "$(sort -u "$ST_TMP/$1.first.0" | sort -n | tail -n 1 |
			awk '{ print $1 }')" = "$2" ] ||
		{ show "$ST_TMP/$1.first.0"
		  fail "$1: not one first call for each of $2 pairs"; }
}

# bytes_ok NAME FILE: every record of FILE (calls or first) has the
# README's bytes for its size (p = 2, root 0); lines of FILE.bytes name
# the others, and "missing:" lines the operation-size pairs with no
# record on a rank.
bytes_ok()
{
	awk '
		function want(f, r, d) {
			s = d; q = d
			if (f ~ /^MPI_Allgather/) q = 2 * d
			else if (f ~ /^MPI_Alltoall/) { s = 2 * d; q = 2 * d }
			else if (f == "MPI_Barrier") { s = 0; q = 0 }
			else if (f == "MPI_Bcast") { s = r ? 0 : d; q = r ? d : 0 }
			else if (f ~ /^MPI_Gather/) q = r ? 0 : 2 * d
			else if (f == "MPI_Reduce") q = r ? 0 : d
			else if (f ~ /^MPI_Reduce_scatter/) s = 2 * d
			else if (f ~ /^MPI_Scatter/) s = r ? 0 : 2 * d
			else if (f == "MPI_Send") q = 0
			else if (f == "MPI_Recv") s = 0
			return s " " q
		}
		{
			n[$1, $3, $4]++
			if (want($3, $1, $4) != $5 " " $6)
				printf "bytes: rank %s seq %s %s at %s B: " \
					"sbytes/rbytes %s/%s, expected %s\n",
					$1, $2, $3, $4, $5, $6,
					want($3, $1, $4)
		}
		END {
			nf = split("MPI_Allgather MPI_Allgatherv " \
				"MPI_Allreduce MPI_Alltoall MPI_Alltoallv " \
				"MPI_Alltoallw MPI_Bcast MPI_Exscan " \
				"MPI_Gather MPI_Gatherv MPI_Reduce " \
				"MPI_Reduce_scatter MPI_Reduce_scatter_block " \
				"MPI_Scan MPI_Scatter MPI_Scatterv MPI_Send " \
				"MPI_Recv MPI_Sendrecv", fns, " ")
			for (r = 0; r < 2; r++) {
				for (i = 1; i <= nf; i++)
					for (k = 0; k < 3; k++) {
						d = k ? k == 1 ? 1024 : 65536 : 1
						if (!n[r, fns[i], d])
							printf "missing: rank %d: " \
								"no %s at %d B\n",
								r, fns[i], d
					}
				if (!n[r, "MPI_Barrier", 0])
					printf "missing: rank %d: no " \
						"MPI_Barrier\n", r
			}
		}' "$2" > "$2.bytes"
	! grep -q '^bytes: ' "$2.bytes" ||
		{ show "$2.bytes"; fail "$1: bytes sent or received wrong"; }
}

# --- the quick run, window-synchronised ---------------------------------
bench quick --quick
D=$ST_TMP/quick
expect_rc "$D" 0
grep -q "^synctrace: bench trace in $D (2 ranks, complete)\$" "$D.err" ||
	{ show "$D.err"; fail "no 'complete' line on stderr"; }
[ "$(index "$D" nranks)/$(index "$D" bench)/$(index "$D" sync)" = \
	"2/1/window" ] && [ "$(index "$D" complete)" = 1 ] ||
	{ show "$D/synctrace.run"
	  fail "index not nranks=2 bench=1 sync=window complete=1"; }
for k in sync_check_init_ns sync_check_end_ns sync_check_final_ns run_id; do
	[ -n "$(index "$D" $k)" ] || fail "no $k in the index"
done
"$ST_CLI" dump --header "$D" > "$D.hdr" || fail "synctrace dump --header failed"
for k in bench=1 sync=window sync_method=hca nrep=5 seed=1 \
	first_calls=55 sizes=1,1024,65536 'fn_table=[0-9a-f]*' \
	'run_id=.*' 'mpi_library=MPICH.*' 'clock=CLOCK_MONOTONIC_RAW'; do
	[ "$(grep -c "^$k\$" "$D.hdr")" = 2 ] ||
		{ show "$D.hdr"; fail "header '$k' not on both ranks"; }
done
calls quick
[ -s "$D.calls" ] || fail "no call records in $D"
first_calls quick $((18 * 3 + 1))
# Every operation at every size has its first call on both ranks.
bytes_ok quick "$D.first"
! grep -q '^missing: ' "$D.first.bytes" ||
	{ show "$D.first.bytes"; fail "first calls missing"; }
bytes_ok quick "$D.calls"

# Seq numbers: the same measurements on both ranks, the same operation
# (a ping-pong's MPI_Send and MPI_Recv counted as one), increasing within
# each rank's file.
awk '{ f = $3 ~ /^MPI_(Send|Recv)$/ ? "pingpong" : $3
	print $2, f > (FILENAME "." $1) }' "$D.calls"
cmp -s "$D.calls.0" "$D.calls.1" ||
	{ diff "$D.calls.0" "$D.calls.1" | head
	  fail "seq numbers or functions differ between ranks"; }
sort -n -c "$D.calls.0" || fail "seq numbers not increasing in rank 0's file"

# The summary's counts are the trace's: in all and per operation.
valid=$(summary quick 2)
discarded=$(summary quick 3)
nseq=$(awk '{ print $1 }' "$D.calls.0" | uniq | wc -l)
last=$(tail -n 1 "$D.calls.0" | awk '{ print $1 }')
[ "$nseq" = "$valid" ] ||
	fail "summary says $valid valid measurements, the trace has $nseq"
awk '
	NR == FNR { if ($2 == "pingpong") $2 = "ping-pong"
		    if (!(($1, $2) in seen)) { seen[$1, $2]; n[$2]++ }
		    next }
	/^operation  *sizes/ { on = 1; next }
	on && /^total/ { on = 0 }
	on && NF > 0 { f = $1
		       # valid: the field after the sizes, "N (LO-HI)".
		       for (i = 2; i < NF; i++)
			       if ($i ~ /^[0-9]+$/ && $(i + 1) ~ /^\(/)
				       break
		       for (j = i + 1; j < NF && $j !~ /\)$/; j++)
			       ;
		       v = $(j + 1)
		       if (n[f] + 0 != v) {
			       printf "%s: summary %s valid, trace %d\n", f, v,
				      n[f]; bad = 1 }
		       if (v > 5 * (f == "MPI_Barrier" ? 1 : 3)) {
			       printf "%s: %s valid, more than asked\n", f, v
			       bad = 1 } }
	END { exit bad }' "$D.calls.0" "$D.out" > "$D.perop" ||
	{ show "$D.perop"; show "$D.out"
	  fail "per-operation counts differ between summary and trace"; }
# Fewer than all 275 only with a note that says how many pairs fell short.
short=$(sed -n 's/^note: \([0-9]*\) operation-size pairs* got fewer.*/\1/p' \
	"$D.out")
if [ "$valid" -lt $((18 * 3 * 5 + 5)) ]; then
	[ "${short:-0}" -ge 1 ] ||
		{ show "$D.out"; fail "$valid valid measurements and no note"; }
else
	[ -z "$short" ] || { show "$D.out"; fail "a short-pair note, all valid"; }
fi
# Discarded measurements keep their numbers, so the last seq lies between
# the valid count and the count of all measurements, after the first
# calls; the discards add up to their reasons.
[ "$last" -ge $((valid + c_first)) ] &&
	[ "$last" -le $((valid + discarded + c_first)) ] ||
	fail "last seq $last; summary: $valid valid, $discarded discarded"
reasons=$(awk '/^    (late start|late after an overrun|late at a batch.s start|overrun) / { s += $NF; n++ }
	END { print n == 4 ? s : "none" }' "$D.out")
[ "$reasons" = "$discarded" ] ||
	{ show "$D.out"; fail "discard reasons add up to $reasons, not $discarded"; }
note "quick: $valid valid, $discarded discarded measurements (last seq" \
	"$last)${short:+, $short pairs short}"

# --- the same under an injected clock skew ------------------------------
bench skew --quick --ops allreduce,bcast,pingpong --skew 0,+0.5s@+100ppm
D=$ST_TMP/skew
expect_rc "$D" 0
grep -q '^clock skew injected: 0,+0.5s@+100ppm' "$D.out" ||
	{ show "$D.out"; fail "skew not reported"; }
calls skew
first_calls skew 9
# Every measurement on both ranks, the pilot's first calls (made after a
# barrier) and the valid ones: locally the ranks' entries are the
# injected 0.5 s apart, give or take a fifth of that; in global time,
# from the trace's own sync records, within a fifth of that.  Medians:
# a rank descheduled right before one entry moves that one by a time
# slice (under load 10 the first calls' median was 4 ms).  A sync not
# applied leaves every entry 0.5 s apart.  (How close they are, 2 us median on
# a quiet machine, is a figure for `make validate`.)
cat "$D.first" "$D.calls" | awk '
	!(($1, $2) in t) { t[$1, $2] = $7; g[$1, $2] = $8; s[$2] }
	END {
		for (k in s) if (((0, k) in t) && ((1, k) in t)) {
			n++
			l[n] = (t[1, k] - t[0, k]) / 1e6
			d = g[0, k] - g[1, k]
			v[n] = d < 0 ? -d : d
		}
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
			}
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && l[j - 1] > l[j]; j--) {
				x = l[j]; l[j] = l[j - 1]; l[j - 1] = x
			}
		m = int((n + 1) / 2)
		printf "%d %.0f %.0f %.0f\n", n, l[m], v[m], v[n]
	}' > "$D.apart"
set -- $(cat "$D.apart")
[ "$1" -ge 9 ] || fail "skew: $1 measurements on both ranks, not 9 or more"
[ "$2" -ge 400 ] && [ "$2" -le 600 ] ||
	fail "skew: local entry times $2 ms apart (median), not the injected 500"
[ "$3" -lt 100000000 ] ||
	fail "skew: ranks $3 ns apart in global time (median) at a start"
note "skew: over $1 measurements, local entries $2 ms apart, global" \
	"starts $3 ns apart (median), at most $4 ns"

# --- windows too small: caught and grown ---------------------------------
# At 4 MiB an all-to-all takes about 1 ms; a tenth of the pilot's time
# leaves every measurement overrunning unless other jobs slowed the pilot
# tenfold (then attempt() runs it again).
judge_small()
{
	expect_rc "$ST_TMP/$1" 0
	overrun=$(sed -n 's/^    overrun  *//p' "$ST_TMP/$1.out")
	grown=$(sed -n 's/^  grown \([0-9]*\) time.*/\1/p' "$ST_TMP/$1.out")
	v=$(summary "$1" 2)
	note "window factor 0.1: $overrun overruns, windows grown $grown" \
		"times, $v valid"
	[ "$v" -le 8 ] || fail "$v valid measurements of 8 asked"
	[ "$v" = 8 ] || grep -q '^note: 1 operation-size pair got fewer' \
		"$ST_TMP/$1.out" ||
		{ show "$ST_TMP/$1.out"; fail "$v valid of 8 and no note"; }
	if [ "${overrun:-0}" = 0 ]; then
		why="no overrun: the pilot was slow enough for the windows"
		return 1
	fi
	[ "${grown:-0}" -gt 0 ] ||
		{ show "$ST_TMP/$1.out"; fail "overrunning windows not grown"; }
}

attempt small judge_small --ops alltoall --sizes 4M --nrep 8 \
	--window-factor 0.1

# --- --pairs: the first calls in the list's order --------------------------
bench pairs --pairs alltoall:1K,allreduce:8,bcast:64 --nrep 3
expect_rc "$ST_TMP/pairs" 0
calls pairs
first_calls pairs 3
[ "$(awk '$1 == 0 { printf "%s:%s ", $3, $4 }' "$ST_TMP/pairs.first")" = \
	"MPI_Alltoall:1024 MPI_Allreduce:8 MPI_Bcast:64 " ] ||
	{ show "$ST_TMP/pairs.first"; fail "first calls not in --pairs order"; }
# Then one record per rank for each valid measurement: at most 3 x 3,
# fewer only with a note (other jobs can spoil measurements past the
# bench's budget).
v=$(summary pairs 2)
[ "$(wc -l < "$ST_TMP/pairs.calls")" = $((2 * v)) ] ||
	fail "--pairs: $(wc -l < "$ST_TMP/pairs.calls") call records for" \
		"$v valid measurements on 2 ranks"
[ "$v" -le 9 ] || fail "--pairs: $v valid measurements, more than 3 x 3"
[ "$v" = 9 ] || grep -q '^note: [1-3] operation-size pairs* got fewer' \
	"$ST_TMP/pairs.out" ||
	{ show "$ST_TMP/pairs.out"; fail "--pairs: $v valid of 9 and no note"; }
note "pairs: first calls in the order of --pairs, then $v of 3 x 3" \
	"measurements"
