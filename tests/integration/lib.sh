# tests/integration/lib.sh: sourced by every tests/integration/t-*.sh.
# Finds the build, sets up a scratch directory per test, runs apps with
# and without the interposer, and reads traces through `synctrace dump
# --csv` so tests compare what the trace says with what the app printed.
#
# Environment: BUILD (build or build-san), SAN (non-empty for a
# sanitizer build: the ASan runtime is preloaded before the library),
# MPIEXEC (default mpiexec.mpich).  Exit status of a test: 0 pass, 77
# skip (missing prerequisite), anything else fail.

BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
export MPIEXEC_TIMEOUT=60

st_top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in
/*) st_build=$BUILD ;;
*) st_build=$st_top/$BUILD ;;
esac
ST_LIB=$st_build/libsynctrace.so
ST_CLI=$st_build/synctrace
ST_APPS=$st_build/apps
st_name=${ST_TEST_NAME:-$(basename "$0" .sh)}

# The columns of `synctrace dump --csv`, in order.
ST_CSV_HEADER=rank,thread,kind,fn,t0_ns,t1_ns,comm,comm_size,seq,inst,root,peer,tag,sbytes,rbytes,tsize,op,req,site,rc,g0_ns,g1_ns,arg,offset,len,text

fail()
{
	echo "FAIL: $*" >&2
	exit 1
}

skip()
{
	echo "SKIP: $*" >&2
	exit 77
}

note()
{
	echo "$st_name: $*"
}

# A sanitizer build of the library cannot load unless the sanitizer
# runtime comes first; MPICH's own leaks are not ours to report.
ST_PRELOAD=$ST_LIB
if [ -n "$SAN" ]; then
	st_asan=$(gcc -print-file-name=libasan.so)
	[ -f "$st_asan" ] || skip "SAN=$SAN but no libasan.so"
	ST_PRELOAD=$st_asan:$ST_LIB
	export ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
fi

command -v "$MPIEXEC" >/dev/null 2>&1 || skip "no $MPIEXEC"
[ -f "$ST_LIB" ] || fail "no '$ST_LIB': run make first"
[ -x "$ST_CLI" ] || fail "no '$ST_CLI': run make first"

# Scratch space, fresh for every run of a test and left behind for a look.
ST_TMP=$st_build/integration/$st_name
rm -rf "$ST_TMP"
mkdir -p "$ST_TMP" || fail "cannot create '$ST_TMP'"

# need_app NAME: the path of built app NAME, or fail.
need_app()
{
	[ -x "$ST_APPS/$1" ] || fail "no app '$ST_APPS/$1': run make first"
}

# untraced OUT CMD...: run CMD with no interposer; stdout to OUT.out,
# stderr to OUT.err, exit status to OUT.rc.  Returns 0.
untraced()
{
	st_out=$1
	shift
	env -u LD_PRELOAD -u SYNCTRACE_DIR "$@" < /dev/null \
		> "$st_out.out" 2> "$st_out.err"
	echo $? > "$st_out.rc"
}

# traced DIR OUT CMD...: the same with the interposer preloaded into
# CMD (mpiexec and, through it, every rank) and the trace in DIR.
traced()
{
	st_dir=$1
	st_out=$2
	shift 2
	env LD_PRELOAD="$ST_PRELOAD" SYNCTRACE_DIR="$st_dir" "$@" \
		< /dev/null > "$st_out.out" 2> "$st_out.err"
	echo $? > "$st_out.rc"
}

# cli_run DIR OUT [OPTION...] -- CMD...: the same through `synctrace run
# -o DIR`.  The command's own messages (stderr lines "synctrace: ...")
# go to OUT.cli, the rest of stderr to OUT.err.  Under a sanitizer the
# ASan runtime is in LD_PRELOAD already, and `synctrace run` must keep it
# in front of the library.
cli_run()
{
	st_dir=$1
	st_out=$2
	shift 2
	if [ -n "$SAN" ]; then
		env LD_PRELOAD="$st_asan" "$ST_CLI" run -o "$st_dir" "$@"
	else
		env -u LD_PRELOAD "$ST_CLI" run -o "$st_dir" "$@"
	fi < /dev/null > "$st_out.out" 2> "$st_out.all"
	echo $? > "$st_out.rc"
	grep '^synctrace: ' "$st_out.all" > "$st_out.cli"
	grep -v '^synctrace: ' "$st_out.all" > "$st_out.err"
}

# Hydra 4.0 races when a rank exits without MPI_Finalize: if its proxy
# reaps the rank before it sees the rank's PMI socket close, it reports
# the provisional status 1 instead of the real one, which mpiexec prints
# as "Hangup (signal 1)" with exit status 1.  It happens to a few runs
# in a hundred on a loaded machine, with or without synctrace.
# A second race: a job ended by MPI_Abort can lose all its forwarded
# output, even MPICH's own "Abort(N)" line, when the proxies are torn
# down before they drain the ranks' pipes (seen once, under a
# sanitizer build beside another `make test`): a failed job that
# printed nothing at all is run again too.
# A third, UCX's (1.13): a rank that exits without MPI_Finalize never
# destroys its UCX worker, so at exit UCX's destructors remove its
# event handlers while UCX's async thread may still react to the peer's
# exit; that thread then dies with "ucp_worker.c:N Fatal: failed to
# modify N event handler to <empty>: No such element" (seen once in a
# `make test` beside another job's CPU work, not again in 600 runs).
# hydra_spurious OUT: OUT (of untraced, traced or cli_run) shows one.
hydra_spurious()
{
	st_hs_rc=$(cat "$1.rc")
	{ [ "$st_hs_rc" = 1 ] &&
		grep -q 'EXIT STRING: Hangup (signal 1)$' "$1.out"; } ||
	{ [ "$st_hs_rc" != 0 ] && [ ! -s "$1.out" ] && [ ! -s "$1.err" ]; } ||
	grep -q 'ucp_worker\.c:[0-9]* *Fatal: failed to modify .*event handler' \
		"$1.err"
}

# hydra_retry OUT DIR CMD...: run CMD (one of untraced, traced or
# cli_run, writing OUT and the trace DIR, "-" for none), and up to twice
# more, DIR removed first, while OUT shows one of the races above.  A
# rank really killed by SIGHUP every time still fails the test.
hydra_retry()
{
	st_rt_out=$1
	st_rt_dir=$2
	shift 2
	st_rt_try=1
	while :; do
		"$@"
		hydra_spurious "$st_rt_out" && [ $st_rt_try -lt 3 ] || return 0
		note "Hydra reported 'Hangup (signal 1)' for a rank that" \
			"exited without MPI_Finalize, or lost the output of" \
			"a job that failed, or UCX died at such an exit" \
			"(known races); run again"
		st_rt_try=$((st_rt_try + 1))
		[ "$st_rt_dir" = - ] || rm -rf "$st_rt_dir"
	done
}

# show FILE: FILE's contents, indented, for a failure report.
show()
{
	echo "--- $1:"
	sed -n '1,40s/^/	/p' "$1"
	[ "$(wc -l < "$1")" -le 40 ] || echo "	..."
}

# same_output A B [sort]: A.out, A.err and A.rc equal B's (stdout
# compared line-sorted when "sort" is given, as ranks interleave).
same_output()
{
	if [ "$3" = sort ]; then
		sort "$1.out" > "$1.out.sorted"
		sort "$2.out" > "$2.out.sorted"
		cmp -s "$1.out.sorted" "$2.out.sorted" ||
			{ diff "$1.out.sorted" "$2.out.sorted"; show "$2.err";
			  fail "stdout of '$2' differs from '$1'"; }
	else
		cmp -s "$1.out" "$2.out" ||
			{ diff "$1.out" "$2.out"; show "$2.err";
			  fail "stdout of '$2' differs from '$1'"; }
	fi
	cmp -s "$1.err" "$2.err" ||
		{ diff "$1.err" "$2.err"; fail "stderr of '$2' differs from '$1'"; }
	[ "$(cat "$1.rc")" = "$(cat "$2.rc")" ] ||
		fail "exit status $(cat "$2.rc") of '$2', $(cat "$1.rc") without synctrace"
}

# same_job_status A B: mpiexec exit statuses A and B (of a job where a
# rank dies of a signal) say the same.  Hydra exits with the bitwise OR
# of its processes' statuses, and whether the SIGKILL it then sends the
# other ranks counts (9) depends on the order it sees the deaths in: a
# rank's SIGBUS (7) gives 7 or 15, with or without synctrace.
same_job_status()
{
	[ "$1" = "$2" ] || [ "$1" = $(($2 | 9)) ] || [ "$2" = $(($1 | 9)) ]
}

# expect_rc OUT N: the run OUT exited with status N.
expect_rc()
{
	[ "$(cat "$1.rc")" = "$2" ] ||
		{ show "$1.out"; show "$1.err";
		  fail "'$1' exited with $(cat "$1.rc"), expected $2"; }
}

# dump_csv DIR CSV: `synctrace dump --csv DIR` into CSV (header checked
# and removed); fails if the dump fails.
dump_csv()
{
	"$ST_CLI" dump --csv "$1" > "$2.raw" 2> "$2.err" ||
		{ show "$2.err"; fail "'synctrace dump --csv $1' failed"; }
	[ "$(head -n 1 "$2.raw")" = "$ST_CSV_HEADER" ] ||
		fail "unexpected CSV header: $(head -n 1 "$2.raw")"
	tail -n +2 "$2.raw" > "$2"
}

# st_awk CSV PROGRAM [AWK-OPTION...]: run awk PROGRAM over the records
# of CSV with every column available by name (rank, kind, fn, peer...);
# options such as "-v n=3" go to awk.
st_awk()
{
	st_f=$1
	st_p=$2
	shift 2
	awk -F, "$@" '
		{
			rank = $1; thread = $2; kind = $3; fn = $4
			t0_ns = $5; t1_ns = $6; comm = $7; comm_size = $8
			seq = $9; inst = $10; root = $11; peer = $12
			tag = $13; sbytes = $14; rbytes = $15; tsize = $16
			op = $17; req = $18; site = $19; rc = $20
			g0_ns = $21; g1_ns = $22; arg = $23; offset = $24
			len = $25; text = $26
		}
		'"$st_p" "$st_f"
}

# count CSV CONDITION: number of records of CSV for which the awk
# expression CONDITION (over column names) is true.
count()
{
	st_awk "$1" "$2"' { n++ } END { print n + 0 }'
}

# check_expects PREFIX CSV: every line "EXPECT N CONDITION" an app wrote
# to its files PREFIX.RANK (run with ST_EXPECT=PREFIX) holds: exactly N
# records of CSV match CONDITION (an awk expression over column names).
# Fails if there is no such line.
check_expects()
{
	cat "$1".[0-9]* 2> /dev/null | grep '^EXPECT ' > "$1.all"
	[ -s "$1.all" ] || fail "no EXPECT lines in '$1.*'"
	# One pass over CSV for them all (a large trace made one pass a
	# line take most of a test's time): a rule per line counting its
	# records, then each count against its N.
	sed 's/^EXPECT [0-9]* //' "$1.all" |
		awk '{ printf "(%s) { st_c[%d]++ }\n", $0, NR }
		     END { printf "END { for (st_i = 1; st_i <= %d; " \
				  "st_i++) print st_c[st_i] + 0 }\n", NR }' \
		> "$1.awk"
	st_awk "$2" "$(cat "$1.awk")" > "$1.counts" ||
		fail "bad EXPECT lines in '$1.all'"
	paste -d ' ' "$1.counts" "$1.all" > "$1.checked"
	while read -r st_got st_w st_n st_c; do
		[ "$st_got" = "$st_n" ] ||
			fail "$st_got records where $st_c, expected $st_n (in '$2')"
	done < "$1.checked"
}

# expect_count CSV CONDITION N: exactly N records match CONDITION.
expect_count()
{
	st_n=$(count "$1" "$2")
	[ "$st_n" = "$3" ] ||
		fail "$st_n records where $2, expected $3 (in '$1')"
}

# expect_pcontrol_around CSV APP: rank 0's MPI_Pcontrol(1) comes before
# its two MPI_Allreduce and MPI_Pcontrol(0) after them (the Fortran
# apps; Open MPI's bindings reach PMPI_Pcontrol by a tail call).
expect_pcontrol_around()
{
	st_awk "$1" 'kind == "call" && rank == 0 &&
		(fn == "MPI_Pcontrol" || fn == "MPI_Allreduce") {
			printf "%s%s ", fn, fn == "MPI_Pcontrol" ? arg : "" }' \
		> "$1.phase"
	[ "$(cat "$1.phase")" = "MPI_Pcontrol1 MPI_Allreduce \
MPI_Allreduce MPI_Pcontrol0 " ] || { show "$1.phase";
		fail "$2: no MPI_Pcontrol before and after MPI_Allreduce"; }
}
