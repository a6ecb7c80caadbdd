#!/bin/sh
# tests/integration/t-bench.sh: `synctrace bench`, the window-synchronised
# microbenchmark, on 2 ranks.  With --quick (3 sizes, 5 measurements):
#  - it finishes within 30 s and leaves a complete run directory
#    (bench=1, sync=window, the sync checks) that `synctrace dump` reads;
#  - every operation has call records at every size on both ranks, with
#    the bytes README.md's tables give for that size;
#  - the measurements' seq numbers and functions match across ranks, and
#    the summary's counts match the trace: valid measurements = distinct
#    seqs, and the last seq is at most valid + discarded (discarded ones
#    keep their numbers);
#  - in global time (from the trace's own sync records) the ranks enter
#    each measurement together: spread median < 2 us, max < 50 us, half
#    the smallest window, also with a clock skew of +0.5 s and 100 ppm
#    injected, where the ranks' local entry times are 0.5 s apart;
#  - windows deliberately too small (--window-factor 0.3 at 1 MiB) are
#    caught as overruns, grown, and the measurements made again;
#  - --sync barrier is labelled in the output, the index and the
#    headers, and discards nothing;
#  - --runs 2 makes run-1 and run-2 with seeds 1 and 2, which `synctrace
#    table` reads together;
#  - bad options are usage errors (129) before any job starts.
# A run whose only fault is one a busy machine explains (other jobs on
# the 2 CPUs spoil measurements and the clock sync) is repeated, up to 3
# runs (see attempt()).  About 5 s.
. "$(dirname "$0")/lib.sh"

BENCH=$st_build/synctrace-bench
[ -x "$BENCH" ] || fail "no '$BENCH': run make first"

# bench NAME [OPTION...]: `synctrace bench -o $ST_TMP/NAME OPTION...`;
# stdout in NAME.out, stderr in NAME.err, exit status in NAME.rc.
bench()
{
	b_name=$1
	shift
	"$ST_CLI" bench -o "$ST_TMP/$b_name" --mpiexec "$MPIEXEC" "$@" \
		< /dev/null > "$ST_TMP/$b_name.out" 2> "$ST_TMP/$b_name.err"
	echo $? > "$ST_TMP/$b_name.rc"
}

# attempt NAME JUDGE [OPTION...]: bench NAME OPTION..., then the shell
# function JUDGE NAME, which fails the test on a wrong result but
# returns 1 with the reason in $why on one that a busy machine explains
# (measurements that ran out of attempts, ranks apart in global time):
# other jobs on the two CPUs deschedule the busy-polling ranks, which
# spoils measurements and clock synchronisation alike.  Up to 3 runs; a
# bug spoils every one.
attempt()
{
	at_name=$1
	at_judge=$2
	shift 2
	for at_try in 1 2 3; do
		rm -rf "$ST_TMP/$at_name"
		at_start=$(date +%s)
		bench "$at_name" "$@"
		at_secs=$(($(date +%s) - at_start))
		why=
		$at_judge "$at_name" && return 0
		note "$at_name: run $at_try of 3 missed: $why"
		cp "$ST_TMP/$at_name.out" "$ST_TMP/$at_name.out.$at_try"
	done
	show "$ST_TMP/$at_name.out"
	fail "$at_name: $why (3 runs)"
}

# index DIR KEY: the value of KEY in DIR's synctrace.run (the last one).
index()
{
	sed -n "s/^$2=//p" "$1/synctrace.run" | tail -n 1
}

# summary NAME COLUMN: the "total" line's valid (2) or discarded (3).
summary()
{
	awk -v c="$2" '$1 == "total" { print $c; n++ } END { exit n != 1 }' \
		"$ST_TMP/$1.out" ||
		{ show "$ST_TMP/$1.out"; fail "$1: no total line"; }
}

# calls NAME: the call records of NAME's trace, one per line, as
# "rank seq fn d sbytes rbytes t0 g0" with d the size of the measurement
# (bytes of one block) worked out from the record by README.md's rules.
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

# spread NAME: "median max n" of the spread of the ranks' global entry
# times over NAME's measurements (each rank's first call of a seq).
spread()
{
	awk '!(($1, $2) in seen) { seen[$1, $2] = 1; g[$1, $2] = $8; s[$2] }
		END {
			for (k in s) if (((0, k) in g) && ((1, k) in g)) {
				d = g[0, k] - g[1, k]
				v[++n] = d < 0 ? -d : d
			}
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			printf "%.0f %.0f %d\n", v[int((n + 1) / 2)], v[n], n
		}' "$ST_TMP/$1.calls"
}

# --- the quick run, window-synchronised ---------------------------------
judge_quick()
{
	D=$ST_TMP/$1
	expect_rc "$D" 0
	grep -q "^synctrace: bench trace in $D (2 ranks, complete)\$" \
		"$D.err" || { show "$D.err"; fail "no 'complete' line on stderr"; }
	[ "$(index "$D" nranks)/$(index "$D" bench)/$(index "$D" sync)" = \
		"2/1/window" ] && [ "$(index "$D" complete)" = 1 ] ||
		{ show "$D/synctrace.run"
		  fail "index not nranks=2 bench=1 sync=window complete=1"; }
	for k in sync_check_init_ns sync_check_end_ns sync_check_final_ns \
		run_id; do
		[ -n "$(index "$D" $k)" ] || fail "no $k in the index"
	done
	"$ST_CLI" dump --header "$D" > "$D.hdr" ||
		fail "synctrace dump --header failed"
	for k in bench=1 sync=window sync_method=hca nrep=5 seed=1 \
		first_calls=55 sizes=1,1024,65536 'fn_table=[0-9a-f]*' \
		'run_id=.*' 'mpi_library=MPICH.*' 'clock=CLOCK_MONOTONIC_RAW'; do
		[ "$(grep -c "^$k\$" "$D.hdr")" = 2 ] ||
			{ show "$D.hdr"; fail "header '$k' not on both ranks"; }
	done
	calls "$1"
	[ -s "$D.calls" ] || fail "no call records in $D"
	first_calls "$1" $((18 * 3 + 1))

	# The README's bytes for each record's size (p = 2, root 0), and
	# every operation at every size on both ranks.
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
		}' "$D.calls" > "$D.bytes"
	! grep -q '^bytes: ' "$D.bytes" ||
		{ show "$D.bytes"; fail "bytes sent or received wrong"; }

	# Seq numbers: the same measurements on both ranks, the same
	# operation (a ping-pong's MPI_Send and MPI_Recv counted as one),
	# increasing within each rank's file.
	awk '{ f = $3 ~ /^MPI_(Send|Recv)$/ ? "pingpong" : $3
		print $2, f > (FILENAME "." $1) }' "$D.calls"
	cmp -s "$D.calls.0" "$D.calls.1" ||
		{ diff "$D.calls.0" "$D.calls.1" | head
		  fail "seq numbers or functions differ between ranks"; }
	sort -n -c "$D.calls.0" ||
		fail "seq numbers not increasing in rank 0's file"
	valid=$(summary "$1" 2)
	discarded=$(summary "$1" 3)
	nseq=$(awk '{ print $1 }' "$D.calls.0" | uniq | wc -l)
	last=$(tail -n 1 "$D.calls.0" | awk '{ print $1 }')
	[ "$nseq" = "$valid" ] ||
		fail "summary says $valid valid measurements, the trace has $nseq"
	# Discarded measurements keep their numbers, so the last seq lies
	# between the valid count and the count of all measurements, after
	# the first calls.
	[ "$last" -ge $((valid + c_first)) ] &&
		[ "$last" -le $((valid + discarded + c_first)) ] ||
		fail "last seq $last; summary: $valid valid, $discarded" \
			"discarded"
	grep -q '^    late start  *[0-9][0-9]*$' "$D.out" &&
		grep -q '^    overrun  *[0-9][0-9]*$' "$D.out" ||
		{ show "$D.out"; fail "no discard breakdown in the summary"; }
	note "$1: $valid valid, $discarded discarded measurements (last" \
		"seq $last), $at_secs s"

	# What a busy machine explains.
	if grep -q '^missing: ' "$D.bytes"; then
		why="$(grep -c '^missing: ' "$D.bytes") operation-size-rank" \
			"triples without records"
		return 1
	fi
	if [ "$valid" != $((18 * 3 * 5 + 5)) ]; then
		why="$valid valid measurements, not 18 x 3 x 5 + 5"
		return 1
	fi
	[ $at_secs -lt 30 ] || { why="took $at_secs s, not < 30 s"; return 1; }
	judge_spread "$1" "$valid"
}

# judge_spread NAME N: the ranks entered each of the N measurements
# together in global time: spread median < 2 us, max < 50 us.
judge_spread()
{
	set -- "$1" "$2" $(spread "$1")
	note "$1: global start spread median $3 ns, max $4 ns over $5" \
		"measurements"
	[ "$5" = "$2" ] || fail "spread over $5 measurements, not $2"
	[ "$3" -lt 2000 ] && [ "$4" -lt 50000 ] && return 0
	why="ranks not together: start spread median $3 ns, max $4 ns"
	return 1
}

attempt quick judge_quick --quick

# --- the same under an injected clock skew ------------------------------
judge_skew()
{
	expect_rc "$ST_TMP/$1" 0
	grep -q '^clock skew injected: 0,+0.5s@+100ppm' "$ST_TMP/$1.out" ||
		{ show "$ST_TMP/$1.out"; fail "skew not reported"; }
	calls "$1"
	# Locally the ranks' entries are the injected 0.5 s apart.
	apart=$(awk 'NR == 1 { s = $2 } $2 == s && !(($1) in t) { t[$1] = $7 }
		END { printf "%.0f", (t[1] - t[0]) / 1e6 }' "$ST_TMP/$1.calls")
	[ "$apart" -ge 490 ] && [ "$apart" -le 510 ] ||
		fail "local entry times $apart ms apart, not the injected 500 ms"
	judge_spread "$1" "$(summary "$1" 2)"
}

attempt skew judge_skew --quick --ops allreduce,bcast,pingpong \
	--skew 0,+0.5s@+100ppm

# --- windows too small: caught, grown, measured again -------------------
judge_small()
{
	expect_rc "$ST_TMP/$1" 0
	overrun=$(sed -n 's/^    overrun  *//p' "$ST_TMP/$1.out")
	grown=$(sed -n 's/^  grown \([0-9]*\) time.*/\1/p' "$ST_TMP/$1.out")
	note "window factor 0.3: $overrun overruns, windows grown $grown" \
		"times"
	[ "${overrun:-0}" -gt 0 ] && [ "${grown:-0}" -gt 0 ] ||
		{ show "$ST_TMP/$1.out"
		  fail "too small windows not caught and grown"; }
	[ "$(summary "$1" 2)" = 8 ] && return 0
	why="not 8 valid measurements after growing"
	return 1
}

attempt small judge_small --ops alltoall --sizes 1M --nrep 8 \
	--window-factor 0.3

# --- --pairs: the first calls in the list's order --------------------------
bench pairs --pairs alltoall:1K,allreduce:8,bcast:64 --nrep 3
expect_rc "$ST_TMP/pairs" 0
calls pairs
first_calls pairs 3
[ "$(awk '$1 == 0 { printf "%s:%s ", $3, $4 }' "$ST_TMP/pairs.first")" = \
	"MPI_Alltoall:1024 MPI_Allreduce:8 MPI_Bcast:64 " ] ||
	{ show "$ST_TMP/pairs.first"; fail "first calls not in --pairs order"; }
[ "$(wc -l < "$ST_TMP/pairs.calls")" = 18 ] ||
	fail "--pairs: $(wc -l < "$ST_TMP/pairs.calls") call records, not 3 x 3 x 2"
note "pairs: first calls in the order of --pairs, then 3 x 3 measurements"

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
[ "$(summary barrier 3)" = 0 ] && [ "$(summary barrier 2)" = 35 ] ||
	{ show "$ST_TMP/barrier.out"
	  fail "barrier mode: not 35 valid, 0 discarded"; }

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
	"$ST_TMP/table.flat" && grep -q '^MPI_Allreduce ' "$ST_TMP/table.out" ||
	{ show "$ST_TMP/table.out"; fail "synctrace table: not both runs"; }

# --- usage errors ---------------------------------------------------------
for args in "--ops allreduce,frobnicate" "--sizes 1,x" "--sync never" \
	"--sizes 8 --min 1" "--runs 0" "-n 1" "--window-factor 0"; do
	bench usage $args
	expect_rc "$ST_TMP/usage" 129
	[ -e "$ST_TMP/usage" ] && fail "'bench $args' made a run directory"
	grep -q '^usage: synctrace bench' "$ST_TMP/usage.err" ||
		fail "'bench $args': no usage on stderr"
done
note "usage errors refused before any job"
