#!/bin/sh
# tests/integration/t-threads.sh: MPI_THREAD_MULTIPLE, three threads per
# rank each running collectives on its own duplicated communicator at
# the same time.  Results must be right, and the trace must hold every
# call exactly once: per rank, one communicator per thread with ITERS
# calls of each function, all from one thread, the threads distinct, the
# sequence numbers on each communicator 1..n without gap or repeat, and
# the same function at each sequence number on both ranks.  Then
# threads made one after another, and threads exchanging nonblocking
# messages at once (below).
. "$(dirname "$0")/lib.sh"

need_app threads
nt=3
iters=200
untraced "$ST_TMP/plain" $MPIEXEC -n 2 "$ST_APPS/threads" $nt $iters
expect_rc "$ST_TMP/plain" 0
grep -q 'not provided' "$ST_TMP/plain.out" &&
	skip "MPI_THREAD_MULTIPLE not provided by this MPI"
traced "$ST_TMP/trace" "$ST_TMP/run" $MPIEXEC -n 2 "$ST_APPS/threads" \
	$nt $iters
same_output "$ST_TMP/plain" "$ST_TMP/run" sort
grep -q 'threads: all ranks ok' "$ST_TMP/run.out" ||
	{ show "$ST_TMP/run.out"; fail "wrong results"; }

dump_csv "$ST_TMP/trace" "$ST_TMP/csv"
st_awk "$ST_TMP/csv" '
function bad(msg) { print "ERROR: " msg; nbad++ }
kind == "call" && (fn == "MPI_Allreduce" || fn == "MPI_Bcast" ||
		   fn == "MPI_Barrier") {
	k = rank SUBSEP comm
	n[k]++
	nfn[k, fn]++
	if (!(k in th))
		th[k] = thread
	else if (th[k] != thread)
		mixed[k] = 1
}
kind == "call" && seq + 0 > 0 {
	k = rank SUBSEP comm
	nseq[k]++
	seen[k, seq]++
	if (seq + 0 > maxseq[k])
		maxseq[k] = seq + 0
	fnat[k, seq] = fn
}
END {
	for (k in nseq) {
		split(k, parts, SUBSEP)
		r = parts[1]; c = parts[2]
		if (nseq[k] != maxseq[k])
			bad("rank " r " comm " c ": " nseq[k] \
			    " sequenced calls, highest seq " maxseq[k])
		for (s = 1; s <= maxseq[k]; s++)
			if (seen[k, s] != 1)
				bad("rank " r " comm " c ": seq " s " seen " \
				    seen[k, s] + 0 " times")
		o = (1 - r) SUBSEP c
		if (nseq[o] != nseq[k])
			bad("comm " c ": " nseq[k] " sequenced calls on rank " \
			    r ", " (nseq[o] + 0) " on rank " (1 - r))
		else if (r == 0)
			for (s = 1; s <= maxseq[k]; s++)
				if (fnat[k, s] != fnat[o, s])
					bad("comm " c " seq " s ": " fnat[k, s] \
					    " on rank 0, " fnat[o, s] " on rank 1")
	}
	for (k in n) {
		if (n[k] != 3 * iters)
			continue
		split(k, parts, SUBSEP)
		r = parts[1]; c = parts[2]
		groups[r]++
		if (k in mixed)
			bad("rank " r " comm " c ": calls from several threads")
		if (!((r, th[k]) in thr)) {
			thr[r, th[k]] = 1
			nthr[r]++
		}
		if (nfn[k, "MPI_Allreduce"] != iters ||
		    nfn[k, "MPI_Bcast"] != iters ||
		    nfn[k, "MPI_Barrier"] != iters)
			bad("rank " r " comm " c ": " nfn[k, "MPI_Allreduce"] \
			    " allreduce, " nfn[k, "MPI_Bcast"] " bcast, " \
			    nfn[k, "MPI_Barrier"] " barrier, expected " iters)
	}
	for (r = 0; r < 2; r++) {
		if (groups[r] != nt)
			bad("rank " r ": " groups[r] + 0 " communicators with " \
			    3 * iters " calls, expected " nt)
		if (nthr[r] != nt)
			bad("rank " r ": " nthr[r] + 0 " distinct threads, " \
			    "expected " nt)
	}
	exit (nbad > 0)
}' -v nt=$nt -v iters=$iters > "$ST_TMP/check" ||
	{ head -n 20 "$ST_TMP/check"; fail "the trace is not what the threads did"; }

# More threads over the run than a rank has streams (1,024), one after
# another: tracing goes on (past 64 streams an exited thread's stream
# is the next one's), every churn call is traced, and the threads share
# at most 64 streams.
churn=1100
traced "$ST_TMP/ctrace" "$ST_TMP/crun" $MPIEXEC -n 2 "$ST_APPS/threads" 1 1 \
	$churn
grep -q 'threads: all ranks ok' "$ST_TMP/crun.out" ||
	{ show "$ST_TMP/crun.out"; fail "wrong results with $churn threads"; }
if grep -q 'tracing disabled' "$ST_TMP/crun.out" "$ST_TMP/crun.err" \
	2> /dev/null; then
	show "$ST_TMP/crun.err"
	fail "tracing stopped after many threads"
fi
dump_csv "$ST_TMP/ctrace" "$ST_TMP/ccsv"
for r in 0 1; do
	# The churn's calls are on MPI_COMM_WORLD, the worker's on its dup.
	expect_count "$ST_TMP/ccsv" "kind == \"call\" && rank == $r && \
		fn == \"MPI_Allreduce\" && comm == \"0x100000000\"" $((churn + 1))
	nthr=$(st_awk "$ST_TMP/ccsv" "kind == \"call\" && rank == $r {
		print thread }" | sort -u | wc -l)
	[ "$nthr" -le 64 ] ||
		fail "rank $r: $nthr thread streams for 1 + 1 + $churn threads"
done
# Nonblocking point-to-point in 4 threads at once, 300 messages each
# way per thread and iteration, completed by Waitall, Waitany, Testsome
# and Wait: MPI gives a completed request's handle to the next request,
# which another thread may make before the completing thread has seen
# its own; every request still has one done record, by the call that
# completed it, and every receive its bytes and source (the app's
# EXPECT lines).
need_app threads-p2p
traced "$ST_TMP/ptrace" "$ST_TMP/prun" env ST_EXPECT="$ST_TMP/prun.x" \
	$MPIEXEC -n 2 "$ST_APPS/threads-p2p" 4 300 5
expect_rc "$ST_TMP/prun" 0
grep -q 'threads-p2p: all ranks ok' "$ST_TMP/prun.out" ||
	{ show "$ST_TMP/prun.out"; fail "wrong results in threads-p2p"; }
dump_csv "$ST_TMP/ptrace" "$ST_TMP/pcsv"
check_expects "$ST_TMP/prun.x" "$ST_TMP/pcsv"
expect_count "$ST_TMP/pcsv" 'kind == "done"' $((2 * 2 * 4 * 300 * 5))
# The same after MPI_Init, which MPICH makes MPI_THREAD_MULTIPLE when
# MPIR_CVAR_DEFAULT_THREAD_LEVEL says so: the app asks MPI_Query_thread.
# The trace must know the level (its header) and keep every done record.
traced "$ST_TMP/itrace" "$ST_TMP/irun" env ST_EXPECT="$ST_TMP/irun.x" \
	MPIR_CVAR_DEFAULT_THREAD_LEVEL=MPI_THREAD_MULTIPLE \
	$MPIEXEC -n 2 "$ST_APPS/threads-p2p" 4 300 5 init
expect_rc "$ST_TMP/irun" 0
grep -q 'threads-p2p: all ranks ok' "$ST_TMP/irun.out" ||
	{ show "$ST_TMP/irun.out"; fail "wrong results in threads-p2p init"; }
"$ST_CLI" dump --header "$ST_TMP/itrace" > "$ST_TMP/iheader" ||
	fail "cannot dump the header of '$ST_TMP/itrace'"
[ "$(grep -c '^thread_level=3$' "$ST_TMP/iheader")" = 2 ] ||
	{ grep thread_level "$ST_TMP/iheader";
	  fail "MPI_Init's MPI_THREAD_MULTIPLE not in the trace headers"; }
dump_csv "$ST_TMP/itrace" "$ST_TMP/icsv"
check_expects "$ST_TMP/irun.x" "$ST_TMP/icsv"
expect_count "$ST_TMP/icsv" 'kind == "done"' $((2 * 2 * 4 * 300 * 5))

note "2 ranks x $nt threads x $iters iterations: every call traced once, seqs contiguous; $churn threads one after another traced on few streams; 4 threads' nonblocking messages each done once, after MPI_Init_thread and after an MPI_Init that gave MPI_THREAD_MULTIPLE"
