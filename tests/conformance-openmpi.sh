#!/bin/sh
#
# tests/conformance-openmpi.sh: peer test suites under Open MPI, each run
# as is and with libsynctrace-openmpi.so preloaded, failing when the
# preload breaks a test that passes without it.
#
#  1. MPICH's collective and point-to-point tests (tests/conformance.sh;
#     CONFORMANCE_DIRS, default "coll pt2pt"), built with
#     mpicc.openmpi and run with mpiexec.openmpi; the tests that do not
#     build against Open MPI 4.1 (MPI-4 functions) are skipped.  Its
#     helper library uses MPI-1 functions Open MPI's mpi.h hides unless
#     asked (OMPI_OMIT_MPI1_COMPAT_DECLS=0; libmpi still has them).
#  2. mpi4py's own unit tests (test/ of the Debian source package
#     mpi4py, or MPI4PY_SRC=DIR holding test/runtests.py), run on 2
#     ranks with Debian's python3-mpi4py (/usr/bin/python3: the first
#     python3 on PATH may be another); every test's outcome (ok, skip,
#     FAIL, ERROR) on every rank must be the same with the preload.
#     Skipped, saying why, when the source cannot be had.
#
# Environment: BUILD, OMPICC, OMPIEXEC, CONFORMANCE_TIMEOUT,
# CONFORMANCE_ONLY (part 1), MPI4PY_SRC, MPI4PY_TIMEOUT (seconds for
# one whole run of part 2, default 900).
# Exit status: 0 all good, 1 a failure, 77 nothing could run.

BUILD=${BUILD:-build}
OMPICC=${OMPICC:-mpicc.openmpi}
OMPIEXEC=${OMPIEXEC:-mpiexec.openmpi}
PYTHON=${PYTHON:-/usr/bin/python3}
top=$(pwd)
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
lib=$build/libsynctrace-openmpi.so
cli=$build/synctrace
cache=$build/openmpi/conformance

say()
{
	printf 'conformance-openmpi: %s\n' "$*"
}

command -v "$OMPIEXEC" >/dev/null 2>&1 || { say "skipped: no $OMPIEXEC"; exit 77; }
[ -f "$lib" ] || { say "error: no '$lib': run make first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
status=0 ran=0

# 1. MPICH's collective tests, built against Open MPI.
prefix=$(dirname "$($OMPICC -showme:libdirs 2>/dev/null | cut -d' ' -f1)")
say "1. MPICH's collective tests against Open MPI ($prefix)"
BUILD=$build MPICC=$OMPICC MPIEXEC=$OMPIEXEC CONFORMANCE_LIB=$lib \
	CONFORMANCE_CACHE=$cache/mpich-tests CONFORMANCE_MPI_PREFIX=$prefix \
	CONFORMANCE_CFLAGS="-O2 -DOMPI_OMIT_MPI1_COMPAT_DECLS=0" \
	CONFORMANCE_DIRS="${CONFORMANCE_DIRS:-coll pt2pt}" \
	sh tests/conformance.sh
rc=$?
case $rc in
0) ran=1 ;;
77) say "part 1 skipped" ;;
*) ran=1 status=1 ;;
esac

# 2. mpi4py's unit tests.
m4p=$cache/mpi4py
mkdir -p "$m4p" || exit 1
src=${MPI4PY_SRC:-}
if [ -z "$src" ]; then
	src=$(ls -d "$m4p"/mpi4py-*/ 2>/dev/null | head -n 1)
	src=${src%/}
fi
if [ -z "$src" ] && command -v apt-get >/dev/null; then
	say "fetching the mpi4py source package"
	for try in 1 2 3; do
		(cd "$m4p" && apt-get source -qq mpi4py) \
			> "$m4p/fetch.log" 2>&1 && break
		sleep 2
	done
	src=$(ls -d "$m4p"/mpi4py-*/ 2>/dev/null | head -n 1)
	src=${src%/}
fi
if [ -z "$src" ] || [ ! -f "$src/test/runtests.py" ]; then
	say "2. mpi4py's tests skipped: no mpi4py source" \
		"('apt-get source mpi4py' failed: $(grep -m 1 '^E:' \
		"$m4p/fetch.log" 2>/dev/null); give MPI4PY_SRC=DIR)"
elif ! "$PYTHON" -c 'import mpi4py' 2>/dev/null; then
	say "2. mpi4py's tests skipped: no mpi4py for $PYTHON (python3-mpi4py)"
else
	say "2. mpi4py's tests ($src/test) on 2 ranks"
	tl=${MPI4PY_TIMEOUT:-900}
	# One run: every "name ... outcome" line of every rank, sorted.
	m4p_run()
	{
		out=$1
		shift
		(cd "$src/test" && env "$@" timeout -k 10 "$tl" \
			$OMPIEXEC -n 2 "$PYTHON" runtests.py --no-builddir -v) \
			< /dev/null > "$out.log" 2>&1
		echo $? > "$out.rc"
		sed -n 's/^.*\(test[A-Za-z0-9_]* (.*)\) \.\.\. \(.*\)$/\1 \2/p' \
			"$out.log" | sed 's/ (\([0-9.]*s\))$//' | sort > "$out.tests"
	}
	rm -rf "$m4p/trace"
	m4p_run "$m4p/base" SYNCTRACE_DISABLE=0
	m4p_run "$m4p/lib" LD_PRELOAD="$lib" SYNCTRACE_DIR="$m4p/trace"
	n=$(wc -l < "$m4p/base.tests")
	nok=$(grep -c ' ok$' "$m4p/base.tests")
	if [ "$n" = 0 ]; then
		say "error: no test ran (see $m4p/base.log)" >&2
		status=1
	elif ! cmp -s "$m4p/base.tests" "$m4p/lib.tests" ||
	     [ "$(cat "$m4p/base.rc")" != "$(cat "$m4p/lib.rc")" ]; then
		diff "$m4p/base.tests" "$m4p/lib.tests" | head -n 40
		say "FAIL: mpi4py's tests differ with the preload (exit" \
			"$(cat "$m4p/base.rc") without, $(cat "$m4p/lib.rc")" \
			"with; logs in $m4p)" >&2
		status=1
	elif ! "$cli" dump "$m4p/trace" > /dev/null 2> "$m4p/dump.err"; then
		say "FAIL: the trace of mpi4py's tests is unreadable:" \
			"$(head -n 1 "$m4p/dump.err")" >&2
		status=1
	else
		ran=1
		say "mpi4py: $n test results on 2 ranks ($nok ok), the same" \
			"with the preload; exit status $(cat "$m4p/base.rc")"
	fi
fi
[ $ran = 1 ] || [ $status != 0 ] || exit 77
exit $status
