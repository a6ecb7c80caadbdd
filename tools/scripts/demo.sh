#!/bin/sh
# tools/scripts/demo.sh: `make demo`: trace a bundled halo-exchange application on
# 2 ranks with synctrace run, then show the report and the first records.
set -e
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
dir=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-120}
echo "== synctrace run -o $dir/run -- $MPIEXEC -n 2 $BUILD/apps/halo"
"$BUILD/synctrace" run -o "$dir/run" -- "$MPIEXEC" -n 2 "$BUILD/apps/halo"
echo
echo "== synctrace report $dir/run"
"$BUILD/synctrace" report "$dir/run"
echo
echo "== synctrace dump $dir/run  (first call, start and done records)"
"$BUILD/synctrace" dump "$dir/run" |
	awk 'NR == 1 || $3 == "call" || $3 == "start" || $3 == "done"' |
	head -n 20
