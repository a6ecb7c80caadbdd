#!/bin/sh
# tests/integration/t-fds.sh: a program that closes every regular file
# it has open, whoever opened it, and opens its own in their place
# (apps/fds.c).  Its files must hold exactly what it wrote (synctrace
# never writes into them), and the trace must still be whole: the trace
# file and the run index are opened again by name, with one warning a
# rank, and the run reads as complete with every call.  A program that
# closes its stderr too, so that its first file gets descriptor 2, finds
# no warning of synctrace's in that file.
. "$(dirname "$0")/lib.sh"

need_app fds
iters=20000
mkdir -p "$ST_TMP/files" || fail "cannot make $ST_TMP/files"
rm -f "$ST_TMP/files"/*
# A small buffer: chunks are written while the program runs, as well as
# at MPI_Finalize, while the program's files are open on the numbers.
traced "$ST_TMP/trace" "$ST_TMP/run" env SYNCTRACE_BUFFER=65536 \
	$MPIEXEC -n 2 "$ST_APPS/fds" "$ST_TMP/files" $iters
grep -q 'fds: all ranks ok' "$ST_TMP/run.out" ||
	{ show "$ST_TMP/run.out"; show "$ST_TMP/run.err";
	  fail "the program could not write its files"; }
expect_rc "$ST_TMP/run" 0
for r in 0 1; do
	for i in 0 1 2 3 4 5 6 7; do
		[ "$(cat "$ST_TMP/files/app-$r-$i.txt")" = "rank $r file $i" ] ||
			{ od -c "$ST_TMP/files/app-$r-$i.txt" | head -5;
			  fail "rank $r's file $i holds more than its line"; }
	done
done
for r in 0 1; do
	grep -q "synctrace\[rank $r\]: the application closed the trace file's descriptor [0-9]*; opened again" \
		"$ST_TMP/run.err" ||
		{ show "$ST_TMP/run.err"; fail "rank $r: no warning"; }
done
"$ST_CLI" report "$ST_TMP/trace" > "$ST_TMP/report" 2>&1 ||
	{ show "$ST_TMP/report"; fail "report failed"; }
grep -q 'run complete' "$ST_TMP/report" ||
	{ show "$ST_TMP/report"; fail "the run index does not say complete"; }
dump_csv "$ST_TMP/trace" "$ST_TMP/csv"
for r in 0 1; do
	expect_count "$ST_TMP/csv" "kind == \"call\" && rank == $r && \
		fn == \"MPI_Allreduce\"" $((iters + 1))
done

# The same ended by SIGTERM before MPI_Finalize: the signal handler
# writes what is buffered to the trace file, opened again by name, and
# not to the program's files.  Rank 0 raises its signal first, the
# other only once rank 0 is gone: a rank's death can make Hydra kill
# the others (now and then even with -disable-auto-cleanup), so only
# rank 0 surely ends by its own signal, and its trace must hold every
# call at any speed.
rm -f "$ST_TMP/files"/*
traced "$ST_TMP/ktrace" "$ST_TMP/krun" env SYNCTRACE_BUFFER=65536 \
	SYNCTRACE_ASYNC=0 $MPIEXEC -disable-auto-cleanup -n 2 \
	"$ST_APPS/fds" "$ST_TMP/files" $iters kill
for r in 0 1; do
	for i in 0 1 2 3 4 5 6 7; do
		[ "$(cat "$ST_TMP/files/app-$r-$i.txt")" = "rank $r file $i" ] ||
			fail "killed: rank $r's file $i holds more than its line"
	done
done
dump_csv "$ST_TMP/ktrace" "$ST_TMP/kcsv"
expect_count "$ST_TMP/kcsv" "kind == \"call\" && rank == 0 && \
	fn == \"MPI_Allreduce\"" $((iters + 1))

# Descriptor 2 closed too: the file that gets it must not receive
# synctrace's warnings (they are not said at all then).
rm -f "$ST_TMP/files"/*
traced "$ST_TMP/etrace" "$ST_TMP/erun" env SYNCTRACE_BUFFER=65536 \
	$MPIEXEC -n 2 "$ST_APPS/fds" "$ST_TMP/files" $iters stderr
grep -q 'fds: all ranks ok' "$ST_TMP/erun.out" ||
	{ show "$ST_TMP/erun.out"; show "$ST_TMP/erun.err";
	  fail "stderr: the program could not write its files"; }
expect_rc "$ST_TMP/erun" 0
for r in 0 1; do
	for i in 0 1 2 3 4 5 6 7; do
		[ "$(cat "$ST_TMP/files/app-$r-$i.txt")" = "rank $r file $i" ] ||
			{ od -c "$ST_TMP/files/app-$r-$i.txt" | head -5;
			  fail "stderr: rank $r's file $i holds more than" \
				"its line"; }
	done
done
dump_csv "$ST_TMP/etrace" "$ST_TMP/ecsv"
for r in 0 1; do
	expect_count "$ST_TMP/ecsv" "kind == \"call\" && rank == $r && \
		fn == \"MPI_Allreduce\"" $((iters + 1))
done
note "its own files untouched, trace and index opened again, $iters calls a rank traced, also when killed, and with its stderr closed"
