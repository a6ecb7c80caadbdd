# tests/integration/bench-lib.sh: sourced by t-bench.sh and
# t-bench-modes.sh after lib.sh: running `synctrace bench` and reading
# its run index and summary.
BENCH=$st_build/synctrace-bench
[ -x "$BENCH" ] || fail "no '$BENCH': run make first"

# bench NAME [OPTION...]: `synctrace bench -o $ST_TMP/NAME OPTION...`;
# stdout in NAME.out, stderr in NAME.err, exit status in NAME.rc.
bench()
{
	b_name=$1
	shift
	"$ST_CLI" bench -o "$ST_TMP/$b_name" --mpiexec "$MPIEXEC" "$@" \
		< /dev/null > "$ST_TMP/$b_name.out" 2> "$ST_TMP/$b_name.err"
	echo $? > "$ST_TMP/$b_name.rc"
}

# index DIR KEY: the value of KEY in DIR's synctrace.run (the last one).
index()
{
	sed -n "s/^$2=//p" "$1/synctrace.run" | tail -n 1
}

# summary NAME COLUMN: the "total" line's valid (2) or discarded (3).
summary()
{
	awk -v c="$2" '$1 == "total" { print $c; n++ } END { exit n != 1 }' \
		"$ST_TMP/$1.out" ||
		{ show "$ST_TMP/$1.out"; fail "$1: no total line"; }
}
