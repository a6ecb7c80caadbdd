#!/bin/sh
# tests/integration/t-unwritable.sh: when the trace cannot be written the
# library warns (one line starting with "synctrace", at most one per
# rank) and steps aside; the application's output and exit status stay
# those of an untraced run.  We run as root, so a chmod'd directory would
# still be writable: the paths below fail for everyone.
. "$(dirname "$0")/lib.sh"

need_app p2p
need_app threads
need_app fsize
need_app gone
untraced "$ST_TMP/p2p" $MPIEXEC -n 2 "$ST_APPS/p2p"
expect_rc "$ST_TMP/p2p" 0
untraced "$ST_TMP/threads" $MPIEXEC -n 2 "$ST_APPS/threads" 2 300
expect_rc "$ST_TMP/threads" 0
untraced "$ST_TMP/fsize" $MPIEXEC -n 2 "$ST_APPS/fsize" 8192 10000
expect_rc "$ST_TMP/fsize" 0
untraced "$ST_TMP/gone" $MPIEXEC -n 2 "$ST_APPS/gone" "$ST_TMP/gone-trace" 100
expect_rc "$ST_TMP/gone" 0

# check_unwritable LABEL DIR APP ARGS...: a traced run of APP with
# SYNCTRACE_DIR=DIR against the untraced one.
check_unwritable()
{
	label=$1
	out=$ST_TMP/$1
	dir=$2
	app=$3
	shift 3
	traced "$dir" "$out" $MPIEXEC -n 2 "$ST_APPS/$app" "$@"
	sort "$ST_TMP/$app.out" > "$ST_TMP/$app.sorted"
	sort "$out.out" > "$out.sorted"
	cmp -s "$ST_TMP/$app.sorted" "$out.sorted" ||
		{ diff "$ST_TMP/$app.sorted" "$out.sorted";
		  fail "$label: stdout differs from an untraced run"; }
	[ "$(cat "$out.rc")" = 0 ] ||
		{ show "$out.err"; fail "$label: exit status $(cat "$out.rc")"; }
	nwarn=$(grep -c '^synctrace' "$out.err")
	nother=$(grep -vc '^synctrace' "$out.err")
	[ "$nother" = 0 ] ||
		{ show "$out.err"; fail "$label: stderr has other lines"; }
	[ "$nwarn" -ge 1 ] ||
		fail "$label: no 'synctrace' warning for SYNCTRACE_DIR='$dir'"
	[ "$nwarn" -le 2 ] ||
		{ show "$out.err"; fail "$label: $nwarn warning lines for 2 ranks"; }
	note "$label: $(head -n 1 "$out.err")"
}

# A directory under a regular file.  (A SYNCTRACE_DIR that names a
# regular file is a name taken, as by another run: t-runs.sh.)
: > "$ST_TMP/a-file"
check_unwritable under-file "$ST_TMP/a-file/sub" p2p
[ -f "$ST_TMP/a-file" ] && [ ! -s "$ST_TMP/a-file" ] ||
	fail "the library wrote into the regular file '$ST_TMP/a-file'"

# A file size limit (RLIMIT_FSIZE, 8 KiB, set by the program after
# MPI_Init) that only the trace file reaches: the write past it fails,
# and the SIGXFSZ it raises, whose default action would end the rank,
# must not reach the program.  Each rank's first chunk goes past the
# limit, at MPI_Finalize on the program's own thread; without the writer
# thread (SYNCTRACE_ASYNC=0) too.
check_unwritable fsize-limit "$ST_TMP/fsize-trace" fsize 8192 10000
SYNCTRACE_ASYNC=0
export SYNCTRACE_ASYNC
check_unwritable fsize-limit-sync "$ST_TMP/fsize-trace-sync" fsize 8192 10000
unset SYNCTRACE_ASYNC

# The run directory removed while the program runs (a clean-up script,
# a scratch purge): every write still succeeds, into files no name
# reaches any more, so each rank must say at MPI_Finalize that its trace
# is lost.
check_unwritable gone-dir "$ST_TMP/gone-trace" gone "$ST_TMP/gone-trace" 100
[ ! -e "$ST_TMP/gone-trace" ] || fail "gone: the directory is still there"
grep -q "synctrace\[rank 1\]: .* was removed during the run" \
	"$ST_TMP/gone-dir.err" || fail "gone: rank 1 said nothing"

# File systems: read-only, and one too small for the trace (it fills up
# part-way).  Only where we may mount them; mounted outside the build
# tree so that nothing can leave a mount point inside it.
mnt=$(mktemp -d /tmp/synctrace-unwritable.XXXXXX) || fail "no temporary directory"
mkdir "$mnt/ro" "$mnt/full"
trap 'umount "$mnt/ro" "$mnt/full" 2>/dev/null; rm -rf "$mnt"' EXIT
trap 'exit 1' HUP INT TERM
if mount -t tmpfs -o ro,size=64k synctrace-ro "$mnt/ro" 2>/dev/null &&
   mount -t tmpfs -o size=8k synctrace-full "$mnt/full" 2>/dev/null; then
	check_unwritable read-only-fs "$mnt/ro/trace" p2p
	SYNCTRACE_BUFFER=8K
	export SYNCTRACE_BUFFER
	check_unwritable full-fs "$mnt/full/trace" threads 2 300
else
	note "cannot mount tmpfs here; read-only and full file systems not run"
fi
