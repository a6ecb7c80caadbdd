#!/bin/sh
# tests/check-layers.sh: every #include "..." of the tree keeps to the
# layering table below (also in README.md, "Layout"), and <mpi.h> is
# included only where the code is built with mpicc.  Prints each breach
# and exits 1, or prints one summary line.
#
#   dir             may include (by path from the top)
#   writer/         writer/
#   sync/           sync/
#   pmpi/           pmpi/ sync/ writer/ gen/
#   tools/gen/      tools/gen/ writer/fn-info.h      (runs at build time)
#   tools/analysis/ tools/analysis/ writer/ sync/ gen/ops.h gen/version.h
#                   tools/bench/micro-ops.h          (knows no command line)
#   tools/cli/      tools/cli/ tools/analysis/ writer/ sync/ gen/ops.h
#                   gen/version.h tools/bench/micro-ops.h
#   tools/bench/    tools/bench/ sync/ writer/ gen/ops.h gen/version.h
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

allowed() {
	case $1 in
	writer/*) echo "writer/" ;;
	sync/*) echo "sync/" ;;
	pmpi/*) echo "pmpi/ sync/ writer/ gen/" ;;
	tools/gen/*) echo "tools/gen/ writer/fn-info.h" ;;
	tools/analysis/*) echo "tools/analysis/ writer/ sync/ gen/ops.h" \
		"gen/version.h tools/bench/micro-ops.h" ;;
	tools/cli/*) echo "tools/cli/ tools/analysis/ writer/ sync/" \
		"gen/ops.h gen/version.h tools/bench/micro-ops.h" ;;
	tools/bench/*) echo "tools/bench/ sync/ writer/ gen/ops.h" \
		"gen/version.h" ;;
	esac
}

bad=0 n=0
for f in writer/*.[ch] sync/*.[ch] pmpi/*.[ch] tools/*/*.[ch]; do
	[ -f "$f" ] || continue
	ok=$(allowed "$f")
	if [ -z "$ok" ]; then
		echo "check-layers: '$f' is in no layer of the table" >&2
		bad=1
		continue
	fi
	n=$((n + 1))
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		hit=
		for p in $ok; do
			case $inc in
			"$p"|"$p"*) [ "${p%/}" != "$p" ] || [ "$inc" = "$p" ] &&
				hit=1 ;;
			esac
		done
		if [ -z "$hit" ]; then
			echo "check-layers: '$f' includes \"$inc\"" \
				"(allowed: $ok)" >&2
			bad=1
		fi
	done
	case $f in
	pmpi/*|tools/bench/*) ;;
	*)
		if grep -q '^#[[:space:]]*include[[:space:]]*<mpi\.h>' "$f"; then
			echo "check-layers: '$f' includes <mpi.h> but is" \
				"built with cc" >&2
			bad=1
		fi
		;;
	esac
done
[ $bad = 0 ] || exit 1
echo "check-layers: $n files keep to the layering table"
