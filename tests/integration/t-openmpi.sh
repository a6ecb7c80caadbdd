#!/bin/sh
# tests/integration/t-openmpi.sh: the Open MPI build.  `synctrace run`
# picks libsynctrace-openmpi.so for mpiexec.openmpi; the point-to-point
# app traced under Open MPI records the same calls, peers, tags and
# bytes as under MPICH; the three Fortran bindings, which reach C only
# through PMPI_ in Open MPI, are traced with the right roots and bytes;
# and each library preloaded into the other MPI's C and Fortran programs
# steps aside with one warning, leaving output and exit status as they
# were.  A program that names a predefined datatype (MPI_DOUBLE: Open
# MPI's object, copied into the program by a copy relocation) takes the
# repeat path as under MPICH: callgrind counts the instructions the
# library adds to a repeated MPI_Allreduce under both (not under SAN).
# The MPI-IO app's records are as it expects, its nonblocking reads'
# done records with the bytes read, none taken for a cancelled receive.
# Calls through Fortran bindings loaded after MPI_Init are traced.
# So are p2p-more's unusual point-to-point calls (MPI 3.1 part), and
# threads' requests after an MPI_Init that gave MPI_THREAD_MULTIPLE.
# Skipped where Open MPI or its build is missing.
# time limit: 360
. "$(dirname "$0")/lib.sh"

OMPIEXEC=${OMPIEXEC:-mpiexec.openmpi}
ST_OLIB=$st_build/libsynctrace-openmpi.so
ST_OAPPS=$st_build/openmpi/apps
command -v "$OMPIEXEC" >/dev/null 2>&1 || skip "no $OMPIEXEC (Open MPI)"
[ -f "$ST_OLIB" ] || skip "no '$ST_OLIB' (built without Open MPI)"
ST_OPRELOAD=$ST_OLIB
[ -n "$SAN" ] && ST_OPRELOAD=$st_asan:$ST_OLIB
# Open MPI refuses root unless told; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
need_oapp()
{
	[ -x "$ST_OAPPS/$1" ] || fail "no app '$ST_OAPPS/$1': run make"
}
for app in p2p fort-f77 fort-mod fort-f08; do
	need_oapp $app
done
need_app p2p
need_app fort-f08

# p2p: run by `synctrace run`, which must choose the Open MPI library.
t=$ST_TMP
untraced "$t/p2p-plain" $OMPIEXEC -n 2 "$ST_OAPPS/p2p"
expect_rc "$t/p2p-plain" 0
cli_run "$t/p2p" "$t/p2p" -- $OMPIEXEC -n 2 "$ST_OAPPS/p2p"
same_output "$t/p2p-plain" "$t/p2p" sort
grep -q "^synctrace: trace in .* (2 ranks, complete)$" "$t/p2p.cli" ||
	{ show "$t/p2p.cli"; fail "synctrace run left no complete trace"; }
"$ST_CLI" dump --header "$t/p2p" > "$t/p2p.header" ||
	fail "cannot dump the header of '$t/p2p'"
grep -q 'Open MPI' "$t/p2p.header" ||
	{ show "$t/p2p.header"; fail "the trace does not say Open MPI"; }

# The same calls as under MPICH: rank, kind, function, peer, tag, bytes.
traced "$t/p2p-mpich" "$t/p2p-mpich" $MPIEXEC -n 2 "$ST_APPS/p2p"
expect_rc "$t/p2p-mpich" 0
dump_csv "$t/p2p" "$t/p2p.csv"
dump_csv "$t/p2p-mpich" "$t/p2p-mpich.csv"
for f in p2p p2p-mpich; do
	st_awk "$t/$f.csv" '(kind == "call" || kind == "done") {
		print rank, kind, fn, peer, tag, sbytes, rbytes }' |
		sort > "$t/$f.calls"
done
[ -s "$t/p2p.calls" ] || fail "no calls in the Open MPI trace"
cmp -s "$t/p2p-mpich.calls" "$t/p2p.calls" ||
	{ diff "$t/p2p-mpich.calls" "$t/p2p.calls";
	  fail "the Open MPI trace of p2p differs from the MPICH one"; }
note "p2p: $(wc -l < "$t/p2p.calls") calls and completions, as under MPICH"

# Fortran: mpif.h and 'use mpi' (libmpi_mpifh), 'use mpi_f08'
# (libmpi_usempif08 through libmpi_mpifh), all by PMPI_ C functions.
for app in fort-f77 fort-mod fort-f08; do
	untraced "$t/$app-plain" $OMPIEXEC -n 2 "$ST_OAPPS/$app"
	expect_rc "$t/$app-plain" 0
	for r in 0 1; do
		grep -qx "$app: rank $r sum 3 max 10 bcast 101 102 103" \
			"$t/$app-plain.out" ||
			{ show "$t/$app-plain.out";
			  fail "$app: wrong results on rank $r"; }
	done
	env LD_PRELOAD="$ST_OPRELOAD" SYNCTRACE_DIR="$t/$app" \
		$OMPIEXEC -n 2 "$ST_OAPPS/$app" < /dev/null \
		> "$t/$app.out" 2> "$t/$app.err"
	echo $? > "$t/$app.rc"
	same_output "$t/$app-plain" "$t/$app" sort
	dump_csv "$t/$app" "$t/$app.csv"
	for r in 0 1; do
		for want in "MPI_Init 1" "MPI_Barrier 1" "MPI_Allreduce 2" \
			    "MPI_Bcast 1" "MPI_Finalize 1" "MPI_Pcontrol 2"; do
			set -- $want
			expect_count "$t/$app.csv" \
				"kind == \"call\" && rank == $r && fn == \"$1\"" $2
		done
		if [ $r = 0 ]; then s=12 b=0; else s=0 b=12; fi
		expect_count "$t/$app.csv" "kind == \"call\" && \
			rank == $r && fn == \"MPI_Bcast\" && root == 0 && \
			sbytes == $s && rbytes == $b && comm_size == 2" 1
		expect_count "$t/$app.csv" "kind == \"call\" && \
			rank == $r && fn == \"MPI_Allreduce\" && \
			sbytes == 4 && rbytes == 4 && comm_size == 2" 2
	done
	# Call sites are the program's lines, not the bindings': the two
	# MPI_Allreduce have two, and so do the two MPI_Pcontrol, so 6 for
	# the 6 calls between Init and Finalize (4 if keyed by the
	# bindings' return address).
	expect_count "$t/$app.csv" "kind == \"call\" && rank == 0 && \
		fn != \"MPI_Init\" && fn != \"MPI_Finalize\" && !seen[site]++" 6
	expect_pcontrol_around "$t/$app.csv" "$app"
	note "$app: results right, every call traced on both ranks"
done

# MPI-IO through OMPIO: every record as the app expects (t-io.sh), and
# a nonblocking read's done record carries the bytes read.  OMPIO leaves
# the cancelled flag of such a read's status as its request object last
# held it, often not 0; it must not make the read a cancelled receive.
need_oapp io
f=/dev/shm
[ -d $f ] && [ -w $f ] || f=$t
f=$f/synctrace-t-openmpi-$$.dat
trap 'rm -f "$f"' EXIT
env LD_PRELOAD="$ST_OPRELOAD" SYNCTRACE_DIR="$t/io" ST_EXPECT="$t/io.x" \
	$OMPIEXEC -n 2 "$ST_OAPPS/io" "$f" < /dev/null > "$t/io.out" \
	2> "$t/io.err"
echo $? > "$t/io.rc"
expect_rc "$t/io" 0
grep -q 'io: all ranks ok' "$t/io.out" ||
	{ show "$t/io.out"; fail "io: wrong results"; }
dump_csv "$t/io" "$t/io.csv"
check_expects "$t/io.x" "$t/io.csv"
expect_count "$t/io.csv" "kind == \"done\" && arg + 0 != 0" 0
note "io: every MPI-IO record as expected, reads' bytes at completion"

# The point-to-point calls beyond p2p (apps/p2p-more.c, MPI 3.1 part:
# no partitioned calls, no Isendrecv): persistent requests, matched
# probes, freed and cancelled requests, 17,000 receives in flight, a
# Waitall failing in one request; every record as the app expects.
need_oapp p2p-more
env LD_PRELOAD="$ST_OPRELOAD" SYNCTRACE_DIR="$t/p2p-more" \
	ST_EXPECT="$t/p2p-more.x" $OMPIEXEC -n 2 "$ST_OAPPS/p2p-more" \
	< /dev/null > "$t/p2p-more.out" 2> "$t/p2p-more.err"
echo $? > "$t/p2p-more.rc"
expect_rc "$t/p2p-more" 0
grep -q 'p2p-more: all ranks ok' "$t/p2p-more.out" ||
	{ show "$t/p2p-more.out"; show "$t/p2p-more.err";
	  fail "p2p-more: wrong results"; }
dump_csv "$t/p2p-more" "$t/p2p-more.csv"
check_expects "$t/p2p-more.x" "$t/p2p-more.csv"
note "p2p-more: every record as expected"

# Threads after an MPI_Init that OMPI_MPI_THREAD_LEVEL=3 makes
# MPI_THREAD_MULTIPLE (the app asks MPI_Query_thread): the trace must
# know the level (its header) and keep every request's done record.
need_oapp threads-p2p
env LD_PRELOAD="$ST_OPRELOAD" SYNCTRACE_DIR="$t/thr" ST_EXPECT="$t/thr.x" \
	OMPI_MPI_THREAD_LEVEL=3 $OMPIEXEC -n 2 "$ST_OAPPS/threads-p2p" \
	4 300 5 init < /dev/null > "$t/thr.out" 2> "$t/thr.err"
echo $? > "$t/thr.rc"
expect_rc "$t/thr" 0
grep -q 'threads-p2p: all ranks ok' "$t/thr.out" ||
	{ show "$t/thr.out"; fail "threads-p2p init: wrong results"; }
"$ST_CLI" dump --header "$t/thr" > "$t/thr.header" ||
	fail "cannot dump the header of '$t/thr'"
[ "$(grep -c '^thread_level=3$' "$t/thr.header")" = 2 ] ||
	{ grep thread_level "$t/thr.header";
	  fail "MPI_Init's MPI_THREAD_MULTIPLE not in the trace headers"; }
dump_csv "$t/thr" "$t/thr.csv"
check_expects "$t/thr.x" "$t/thr.csv"
expect_count "$t/thr.csv" 'kind == "done"' $((2 * 2 * 4 * 300 * 5))
note "threads-p2p after MPI_Init at MPI_THREAD_MULTIPLE: every done"

# Fortran bindings loaded after MPI_Init (a program that dlopen()s a
# plugin written in Fortran): their PMPI_ calls are the program's too,
# each with its own call site.
need_oapp dlfort
env LD_PRELOAD="$ST_OPRELOAD" SYNCTRACE_DIR="$t/dlfort" \
	$OMPIEXEC -n 2 "$ST_OAPPS/dlfort" < /dev/null > "$t/dlfort.out" \
	2> "$t/dlfort.err"
echo $? > "$t/dlfort.rc"
expect_rc "$t/dlfort" 0
[ "$(grep -c '^dlfort: rank [01] sums 2 2 2 2 2$' "$t/dlfort.out")" = 2 ] ||
	{ show "$t/dlfort.out"; fail "dlfort: wrong results"; }
dump_csv "$t/dlfort" "$t/dlfort.csv"
for r in 0 1; do
	expect_count "$t/dlfort.csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Allreduce\"" 5
	expect_count "$t/dlfort.csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Barrier\"" 1
done
expect_count "$t/dlfort.csv" "kind == \"call\" && rank == 0 && \
	fn != \"MPI_Init\" && fn != \"MPI_Finalize\" && !seen[site]++" 4
note "dlfort: calls through bindings loaded late traced, 4 call sites"

# The wrong library: each steps aside, once, in C and Fortran programs.
wrong()
{
	name=$1 lib=$2 launcher=$3 app=$4 plain=$5
	env LD_PRELOAD="$lib" SYNCTRACE_DIR="$t/$name-trace" \
		$launcher -n 2 "$app" < /dev/null > "$t/$name.out" \
		2> "$t/$name.all"
	echo $? > "$t/$name.rc"
	grep -v '^synctrace: ' "$t/$name.all" > "$t/$name.err"
	same_output "$plain" "$t/$name" sort
	[ "$(grep -c "^synctrace: the application runs" "$t/$name.all")" = 1 ] ||
		{ show "$t/$name.all"; fail "$name: not one warning"; }
	[ ! -e "$t/$name-trace" ] || fail "$name: left a trace"
}
[ -n "$SAN" ] || {
	untraced "$t/mpich-p2p-plain" $MPIEXEC -n 2 "$ST_APPS/p2p"
	untraced "$t/mpich-f08-plain" $MPIEXEC -n 2 "$ST_APPS/fort-f08"
	wrong mpich-lib-c "$ST_LIB" $OMPIEXEC "$ST_OAPPS/p2p" "$t/p2p-plain"
	wrong mpich-lib-f08 "$ST_LIB" $OMPIEXEC "$ST_OAPPS/fort-f08" \
		"$t/fort-f08-plain"
	wrong ompi-lib-c "$ST_OLIB" $MPIEXEC "$ST_APPS/p2p" \
		"$t/mpich-p2p-plain"
	wrong ompi-lib-f08 "$ST_OLIB" $MPIEXEC "$ST_APPS/fort-f08" \
		"$t/mpich-f08-plain"
	note "each library steps aside in the other MPI's programs"
}

# The repeat path under Open MPI: instructions added per MPI_Allreduce,
# against MPICH's (about 250 each; the general path costs over 800).
[ -n "$SAN" ] || {
	command -v valgrind > /dev/null 2>&1 || fail "no valgrind (make deps)"
	for m in mpich openmpi; do
		ICOUNT_MPI=$m BUILD=$st_build sh "$st_top/tools/bench/icount.sh" \
			self-allreduce 1000 3000 > "$t/icount-$m" 2>&1 ||
			{ show "$t/icount-$m"; fail "icount.sh under $m failed"; }
	done
	im=$(awk '$1 == "self-allreduce" { print $4 + 0 }' "$t/icount-mpich")
	io=$(awk '$1 == "self-allreduce" { print $4 + 0 }' "$t/icount-openmpi")
	[ -n "$im" ] && [ -n "$io" ] ||
		{ show "$t/icount-mpich"; show "$t/icount-openmpi";
		  fail "no instruction counts"; }
	awk -v m="$im" -v o="$io" 'BEGIN { exit !(o <= 1.5 * m + 50) }' ||
		fail "MPI_Allreduce under Open MPI adds $io instructions," \
		     "under MPICH $im: the repeat path is not taken"
	note "repeated MPI_Allreduce adds $io instructions under Open MPI," \
	     "$im under MPICH"
}
