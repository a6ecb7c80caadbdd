#!/bin/sh
# tools/scripts/demo.sh: `make demo`: trace a bundled halo-exchange
# application on 2 ranks with synctrace run into ./synctrace-demo (or
# $DEMO_DIR), show the report and the first records, and end with the
# commands to try next on that trace.  The trace stays; the next demo
# replaces it, saying so, but never a directory the demo did not make.
set -e
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
dir=${DEMO_DIR:-synctrace-demo}
st=$BUILD/synctrace
mark=.synctrace-demo
export MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-120}

if [ -e "$dir" ]; then
	if [ ! -e "$dir/$mark" ]; then
		echo "synctrace demo: '$dir' exists and is not a demo's" \
			"trace; move it away, or set DEMO_DIR" >&2
		exit 1
	fi
	echo "synctrace demo: replacing '$dir', the trace of the last demo"
	rm -rf "$dir"
fi

echo "== $st run -o $dir -- $MPIEXEC -n 2 $BUILD/apps/halo"
# 'run' wants a new (or empty) directory; a failed run leaves none.
trap 'rm -rf "$dir"' EXIT
"$st" run -o "$dir" -- "$MPIEXEC" -n 2 "$BUILD/apps/halo"
: > "$dir/$mark"
trap - EXIT
echo
echo "== $st report $dir"
"$st" report "$dir"
echo
echo "== $st dump $dir  (first call, start and done records)"
"$st" dump "$dir" |
	awk 'NR == 1 || $3 == "call" || $3 == "start" || $3 == "done"' |
	head -n 20
# Each line "  $ command" below is run by tests/integration/t-demo.sh.
cat <<EOF

The trace stays in '$dir' (the next 'make demo' replaces it).  Try next:

  every record, as text or CSV; the clocks' synchronisation epochs:
  \$ $st dump $dir
  \$ $st dump --csv $dir
  \$ $st dump --sync $dir
  the run as one HTML page with a zoomable timeline; as Perfetto JSON:
  \$ $st view -o $dir/view.html $dir
  \$ $st export -o $dir/trace.json $dir
  a cost table of the MPI operations the run timed:
  \$ $st table $dir
  what MPI operations cost on this machine (--quick: half a minute or so):
  \$ $st bench --quick -o $dir/bench
  \$ $st table --json $dir/costs.json $dir/bench
  the run replayed on those costs, beside what it measured:
  \$ $st predict $dir --table $dir/costs.json --validate

'$st help <command>' (or 'man synctrace-<command>' once installed) says more;
docs/README.md lists the reference pages.
EOF
