#!/bin/sh
# tests/integration/t-dlsym.sh: a program that reaches the MPI library's
# own MPI_Init through dlsym() (apps/dlmpi.c) cannot be traced; the
# library must say so, once for the job (rank 0), and otherwise change
# nothing: the same output and exit status as untraced.  A program that
# goes through the interposer gets no such line (t-silent checks that
# the library says nothing then).
. "$(dirname "$0")/lib.sh"

# unseen APP WHAT LINE: APP runs traced as untraced (the same output
# and exit status), rank 0 says LINE once, and no trace is made.
unseen()
{
	need_app "$1"
	untraced "$ST_TMP/$1.plain" $MPIEXEC -n 2 "$ST_APPS/$1"
	expect_rc "$ST_TMP/$1.plain" 0
	traced "$ST_TMP/$1.trace" "$ST_TMP/$1.run" $MPIEXEC -n 2 \
		"$ST_APPS/$1"
	expect_rc "$ST_TMP/$1.run" 0
	sort "$ST_TMP/$1.plain.out" > "$ST_TMP/$1.plain.sorted"
	sort "$ST_TMP/$1.run.out" > "$ST_TMP/$1.run.sorted"
	cmp -s "$ST_TMP/$1.plain.sorted" "$ST_TMP/$1.run.sorted" ||
		{ diff "$ST_TMP/$1.plain.sorted" "$ST_TMP/$1.run.sorted";
		  fail "$1: stdout differs from an untraced run"; }
	grep -v '^synctrace: ' "$ST_TMP/$1.run.err" > "$ST_TMP/$1.run.rest"
	cmp -s "$ST_TMP/$1.plain.err" "$ST_TMP/$1.run.rest" ||
		{ diff "$ST_TMP/$1.plain.err" "$ST_TMP/$1.run.rest";
		  fail "$1: stderr differs but for synctrace's line"; }
	n=$(grep -c "^synctrace: $3" "$ST_TMP/$1.run.err")
	[ "$n" = 1 ] ||
		{ show "$ST_TMP/$1.run.err"; fail "$1: said $n times, not once"; }
	[ ! -e "$ST_TMP/$1.trace" ] || fail "$1: a trace directory was made"
	note "$2: said once, nothing else changed"
}

unseen dlmpi "MPI reached through dlsym" \
	"this program initialised MPI without calling the MPI_Init that synctrace interposes"
# MPI linked into the program (apps/staticmpi.c, MPICH's libmpich.a).
unseen staticmpi "MPI linked statically" \
	"this program has MPI linked into it statically"
grep -c 'staticmpi: rank [01] of 2 ok' "$ST_TMP/staticmpi.plain.out" |
	grep -qx 2 || fail "the static program does not run"
