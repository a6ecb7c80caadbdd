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
#  2. mpi4py's own unit tests (test/runtests.py of the source of the
#     installed python3-mpi4py), run on 2 ranks with Debian's
#     python3-mpi4py (/usr/bin/python3: the first python3 on PATH may
#     be another), each rank's output in its own file; every test's
#     outcome (ok, skipped, FAIL, ERROR) on every rank must be the same
#     with the preload, and every trace the preloaded run leaves must
#     read with `synctrace report`.  The source, first found: MPI4PY_SRC
#     (a source tree or its tarball), the tree unpacked by an earlier
#     run, a tarball put into $BUILD/openmpi/conformance/mpi4py/
#     (mpi4py_VERSION.orig.tar.gz or mpi4py-VERSION.tar.gz), `apt-get
#     source mpi4py=VERSION` (Debian's source package of the installed
#     version).  Skipped, saying which file the archive lacks and how to
#     give the source, when none can be had.
#
#  3. mpi4py's own programs, which need no source: `python3 -m
#     mpi4py.bench helloworld` and `ringtest`, and a map over its
#     `mpi4py.futures` executor; the same output and exit status with
#     the preload, every trace read by `synctrace report`.
#
# Environment: BUILD, OMPICC, OMPIEXEC, PYTHON, CONFORMANCE_PARTS
# (default "1 2 3"), CONFORMANCE_TIMEOUT, CONFORMANCE_ONLY (part 1),
# MPI4PY_SRC, MPI4PY_TIMEOUT (seconds for one whole run of part 2,
# default 900).
# Exit status: 0 all good, 1 a failure, 77 nothing could run.

BUILD=${BUILD:-build}
OMPICC=${OMPICC:-mpicc.openmpi}
OMPIEXEC=${OMPIEXEC:-mpiexec.openmpi}
PYTHON=${PYTHON:-/usr/bin/python3}
PARTS=${CONFORMANCE_PARTS:-1 2 3}
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
case " $PARTS " in
*" 1 "*)
	say "1. MPICH's collective tests against Open MPI ($prefix)"
	BUILD=$build MPICC=$OMPICC MPIEXEC=$OMPIEXEC CONFORMANCE_LIB=$lib \
		CONFORMANCE_CACHE=$cache/mpich-tests \
		CONFORMANCE_MPI_PREFIX=$prefix \
		CONFORMANCE_CFLAGS="-O2 -DOMPI_OMIT_MPI1_COMPAT_DECLS=0" \
		CONFORMANCE_DIRS="${CONFORMANCE_DIRS:-coll pt2pt}" \
		sh tests/conformance.sh
	rc=$?
	;;
*)	rc=none ;;
esac
case $rc in
0) ran=1 ;;
77) say "part 1 skipped" ;;
none) ;;
*) ran=1 status=1 ;;
esac

# 2. mpi4py's unit tests.
m4p=$cache/mpi4py
mkdir -p "$m4p" || exit 1
pyver=$("$PYTHON" -c 'import mpi4py; print(mpi4py.__version__)' 2>/dev/null)
srcver=$(dpkg-query -W -f='${source:Version}' python3-mpi4py 2>/dev/null)

# m4p_unpack TARBALL: extract it into $m4p/tree-NAME; set src to the
# tree (the directory holding test/runtests.py) or leave it empty.
m4p_unpack()
{
	t=$m4p/tree-$(basename "$1" | sed 's/\.tar\..*$//; s/\.tgz$//')
	rm -rf "$t" && mkdir -p "$t" || return
	tar -xf "$1" -C "$t" 2> "$m4p/unpack.err" ||
		{ say "cannot unpack '$1': $(head -n 1 "$m4p/unpack.err")";
		  return; }
	m4p_tree "$t"
}

# m4p_tree DIR: set src to DIR or its one subdirectory holding
# test/runtests.py (a tarball's top directory); one unpacked here is
# remembered for the next run.
m4p_tree()
{
	for d in "$1" "$1"/*; do
		if [ -f "$d/test/runtests.py" ]; then
			src=$d
			case $src in
			"$m4p"/*) echo "$src" > "$m4p/tree" ;;
			esac
			return
		fi
	done
}

# m4p_apt: 'apt-get source' of the source version of the installed
# python3-mpi4py, into $m4p/apt; set src, or m4p_why to why not.
m4p_apt()
{
	command -v apt-get >/dev/null ||
		{ m4p_why="no apt-get"; return; }
	command -v dpkg-source >/dev/null ||
		{ m4p_why="no dpkg-source (dpkg-dev)"; return; }
	apt-cache showsrc mpi4py 2>/dev/null | grep -q '^Package:' ||
		{ m4p_why="no deb-src entry for mpi4py (part 1 adds them as root)"
		  return; }
	rm -rf "$m4p/apt" && mkdir -p "$m4p/apt" || return
	say "fetching Debian's source package mpi4py${srcver:+=$srcver}"
	for try in 1 2 3; do
		(cd "$m4p/apt" &&
		 apt-get source -qq --download-only "mpi4py${srcver:+=$srcver}") \
			> "$m4p/fetch.log" 2>&1 && break
		# The archive not having a file is not worth trying again.
		grep -q ' 404 ' "$m4p/fetch.log" && break
		sleep 2
	done
	dsc=$(ls "$m4p"/apt/mpi4py_*.dsc 2>/dev/null | head -n 1)
	if grep -q '^E:' "$m4p/fetch.log" || [ -z "$dsc" ]; then
		missing=$(sed -n 's|^E: Failed to fetch .*/\([^/ ]*\)  *\(404\).*$|\1|p' \
			"$m4p/fetch.log" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
		if [ -n "$missing" ]; then
			m4p_why="Debian's archive here has no $missing (404)"
		else
			m4p_why="'apt-get source mpi4py' failed: $(grep -m 1 '^E:' \
				"$m4p/fetch.log")"
		fi
		return
	fi
	(cd "$m4p/apt" && dpkg-source -x "$dsc" tree) > "$m4p/unpack.log" 2>&1 ||
		{ m4p_why="dpkg-source -x failed (see $m4p/unpack.log)"; return; }
	m4p_tree "$m4p/apt/tree"
}

# Where the suite comes from, first found: MPI4PY_SRC (a source tree
# or its tarball), the tree unpacked by an earlier run, a tarball put
# into $m4p (mpi4py_*.orig.tar.* or mpi4py-*.tar.gz), apt-get source.
src= m4p_why=
case " $PARTS " in
*" 2 "*) m4p_want=1 ;;
*) m4p_want=0 ;;
esac
if [ $m4p_want = 0 ]; then
	:
elif [ -n "${MPI4PY_SRC:-}" ]; then
	if [ -d "$MPI4PY_SRC" ]; then
		m4p_tree "$MPI4PY_SRC"
	elif [ -f "$MPI4PY_SRC" ]; then
		m4p_unpack "$MPI4PY_SRC"
	fi
	[ -n "$src" ] || {
		say "error: MPI4PY_SRC='$MPI4PY_SRC' is no mpi4py source" \
			"tree (test/runtests.py) or tarball of one" >&2
		status=1 m4p_want=0
	}
else
	[ -f "$m4p/tree" ] && m4p_tree "$(cat "$m4p/tree")"
	if [ -z "$src" ]; then
		for f in "$m4p"/mpi4py_*.orig.tar.* "$m4p"/mpi4py-*.tar.gz; do
			[ -f "$f" ] || continue
			m4p_unpack "$f"
			[ -n "$src" ] && break
		done
	fi
	[ -n "$src" ] || m4p_apt
fi
# The suite's version, from its package's __init__.py.
m4p_version()
{
	sed -n "s/^__version__ *= *['\"]\([^'\"]*\)['\"].*$/\1/p" \
		"$1/src/mpi4py/__init__.py" 2>/dev/null | head -n 1
}

if [ $m4p_want = 0 ]; then
	:
elif [ -z "$src" ]; then
	say "2. mpi4py's tests skipped: no source of mpi4py ${pyver:-?}:" \
		"${m4p_why:-none found}"
	say "   give MPI4PY_SRC=DIR (mpi4py ${pyver:-?}'s source tree, with" \
		"test/runtests.py) or MPI4PY_SRC=TARBALL (Debian's" \
		"mpi4py_${pyver:-VERSION}.orig.tar.gz, or the release's" \
		"mpi4py-${pyver:-VERSION}.tar.gz), or put the tarball in $m4p"
elif [ -z "$pyver" ]; then
	say "2. mpi4py's tests skipped: no mpi4py for $PYTHON (python3-mpi4py)"
else
	tl=${MPI4PY_TIMEOUT:-900}
	sver=$(m4p_version "$src")
	say "2. mpi4py's tests ($src/test, mpi4py ${sver:-?}) on 2 ranks" \
		"with mpi4py $pyver"
	[ "$sver" = "$pyver" ] ||
		say "   warning: the suite is of mpi4py ${sver:-?}, the" \
			"module $pyver: tests of what $pyver lacks fail alike" \
			"with and without the preload"
	# One run: each rank's stderr (where runtests.py writes) in its
	# own file, so that the ranks' lines do not mix; then every
	# "RANK name ... outcome" line, sorted.
	m4p_run()
	{
		out=$1
		shift
		rm -f "$out".rank*.err
		(cd "$src/test" && env "$@" M4P_OUT="$out" \
			timeout -k 10 "$tl" $OMPIEXEC -n 2 sh -c \
			'exec "$@" 2> "$M4P_OUT.rank$OMPI_COMM_WORLD_RANK.err"' \
			sh "$PYTHON" runtests.py --no-builddir -v) \
			< /dev/null > "$out.log" 2>&1
		echo $? > "$out.rc"
		for r in 0 1; do
			sed -n 's/^.*\(test[A-Za-z0-9_]* (.*)\) \.\.\. \(.*\)$/\1 \2/p' \
				"$out.rank$r.err" 2>/dev/null |
				sed "s/ ([0-9.]*s)\$//; s/^/$r /"
		done | sort > "$out.tests"
	}
	# m4p_counts OUT RANK: "N run: N ok, N FAIL, N ERROR, N skipped".
	m4p_counts()
	{
		nrun=$(sed -n 's/^Ran \([0-9]*\) tests* in .*$/\1/p' \
			"$1.rank$2.err" 2>/dev/null | tail -n 1)
		awk -v r="$2" -v ran="${nrun:-?}" '
			$1 == r {
				o = $NF
				if ($0 ~ / skipped /) o = "skipped"
				if ($0 ~ / expected failure$/) o = "xfail"
				n[o]++
			}
			END {
				printf "%s run: %d ok, %d FAIL, %d ERROR, %d skipped",
					ran, n["ok"], n["FAIL"], n["ERROR"],
					n["skipped"]
				if (n["xfail"]) printf ", %d expected failures", n["xfail"]
			}' "$1.tests"
	}
	rm -rf "$m4p/traces" && mkdir -p "$m4p/traces" || exit 1
	m4p_run "$m4p/base" SYNCTRACE_DISABLE=0
	m4p_run "$m4p/lib" LD_PRELOAD="$lib" SYNCTRACE_DIR="$m4p/traces/"
	for v in base lib; do
		for r in 0 1; do
			say "   $v rank $r: $(m4p_counts "$m4p/$v" $r)" \
				"(exit $(cat "$m4p/$v.rc"))"
		done
	done
	n=$(wc -l < "$m4p/base.tests")
	runs=0 bad=
	for d in "$m4p"/traces/*/; do
		[ -d "$d" ] || continue
		runs=$((runs + 1))
		"$cli" report "$d" > "$d.report" 2> "$d.report.err" ||
			bad="$bad ${d%/}"
	done
	if [ "$n" = 0 ]; then
		say "error: no test ran (see $m4p/base.log," \
			"$m4p/base.rank0.err)" >&2
		status=1
	elif ! cmp -s "$m4p/base.tests" "$m4p/lib.tests" ||
	     [ "$(cat "$m4p/base.rc")" != "$(cat "$m4p/lib.rc")" ]; then
		diff "$m4p/base.tests" "$m4p/lib.tests" | head -n 40
		say "FAIL: mpi4py's tests differ with the preload (exit" \
			"$(cat "$m4p/base.rc") without, $(cat "$m4p/lib.rc")" \
			"with; logs in $m4p)" >&2
		status=1
	elif [ "$runs" = 0 ]; then
		say "FAIL: mpi4py's tests left no trace in $m4p/traces" >&2
		status=1
	elif [ -n "$bad" ]; then
		say "FAIL: 'synctrace report' cannot read:$bad" >&2
		status=1
	else
		ran=1
		say "mpi4py: $n test results on 2 ranks, the same with the" \
			"preload; exit status $(cat "$m4p/base.rc"); $runs" \
			"trace(s) read by 'synctrace report'"
	fi
fi

# 3. mpi4py's own programs: its benchmark commands and its futures
# executor, which need no source, as is and preloaded: the same output
# (ringtest's time left out) and exit status, and traces that read.
case " $PARTS " in
*" 3 "*) m4p_want=1 ;;
*) m4p_want=0 ;;
esac
if [ $m4p_want = 0 ]; then
	:
elif [ -z "$pyver" ]; then
	say "3. mpi4py's programs skipped: no mpi4py for $PYTHON (python3-mpi4py)"
else
	say "3. mpi4py $pyver's own programs on 2 ranks"
	m4p=$cache/mpi4py-programs
	rm -rf "$m4p" && mkdir -p "$m4p/traces" || exit 1
	cat > "$m4p/futures.py" <<'PY'
from mpi4py.futures import MPIPoolExecutor
if __name__ == "__main__":
    with MPIPoolExecutor() as ex:
        print(list(ex.map(pow, range(20), [3] * 20)))
        print(sum(ex.map(abs, range(-500, 500), chunksize=7)))
PY
	n3=0 bad3=
	for prog in "bench helloworld" "bench ringtest -n 4096 -l 50" \
		    "futures $m4p/futures.py"; do
		n3=$((n3 + 1))
		for v in base lib; do
			if [ $v = base ]; then
				set -- SYNCTRACE_DISABLE=0
			else
				set -- LD_PRELOAD="$lib" \
					SYNCTRACE_DIR="$m4p/traces/"
			fi
			(cd "$m4p" && env "$@" timeout -k 10 120 $OMPIEXEC \
				-n 2 "$PYTHON" -m mpi4py.$prog) < /dev/null \
				> "$m4p/$n3.$v.out" 2> "$m4p/$n3.$v.err"
			echo "exit $?" >> "$m4p/$n3.$v.out"
			sed 's/= [0-9.e+-]* seconds/= T seconds/' \
				"$m4p/$n3.$v.out" | sort > "$m4p/$n3.$v.cmp"
		done
		if ! cmp -s "$m4p/$n3.base.cmp" "$m4p/$n3.lib.cmp"; then
			diff "$m4p/$n3.base.cmp" "$m4p/$n3.lib.cmp" | head -n 20
			bad3="$bad3 '$prog'"
		elif ! grep -qx 'exit 0' "$m4p/$n3.base.cmp"; then
			bad3="$bad3 '$prog' (fails without the preload)"
		fi
	done
	runs=0
	for d in "$m4p"/traces/*/; do
		[ -d "$d" ] || continue
		runs=$((runs + 1))
		"$cli" report "$d" > "$d.report" 2> "$d.report.err" ||
			bad3="$bad3 (report of ${d%/})"
	done
	if [ -n "$bad3" ]; then
		say "FAIL: mpi4py's programs:$bad3 (logs in $m4p)" >&2
		status=1
	elif [ "$runs" != $n3 ]; then
		say "FAIL: $runs traces of mpi4py's $n3 programs in" \
			"$m4p/traces" >&2
		status=1
	else
		ran=1
		say "mpi4py's programs: $n3 the same with the preload," \
			"$runs traces read by 'synctrace report'"
	fi
fi
[ $ran = 1 ] || [ $status != 0 ] || exit 77
exit $status
