#!/bin/sh
# tests/integration/t-sessions.sh: a program that initialises MPI only
# through Sessions (apps/sessions.c: two sessions, a communicator from
# the mpi://WORLD process set, collectives and point-to-point on it) is
# traced as one that calls MPI_Init: every rank writes its trace, the
# run is complete, the clocks are synchronised (the dump has global
# times), and the records say what the app expects (EXPECT lines): the
# second session and the first session's finalize are recorded, the
# communicator gets one id on both ranks and its collectives are
# numbered on it.  A program of both models (apps/sessworld.c) is
# traced to its MPI_Finalize.
. "$(dirname "$0")/lib.sh"

need_app sessions
untraced "$ST_TMP/plain" \
	env ST_EXPECT="$ST_TMP/plain.x" $MPIEXEC -n 2 "$ST_APPS/sessions"
expect_rc "$ST_TMP/plain" 0
grep -q 'sessions: 2 ranks, ok' "$ST_TMP/plain.out" ||
	skip "this MPI does not run a Sessions program: $(head -n 1 \
		"$ST_TMP/plain.err")"
cli_run "$ST_TMP/trace" "$ST_TMP/run" -- \
	env ST_EXPECT="$ST_TMP/run.x" $MPIEXEC -n 2 "$ST_APPS/sessions"
same_output "$ST_TMP/plain" "$ST_TMP/run" sort
grep -q '(2 ranks, complete)' "$ST_TMP/run.cli" ||
	{ show "$ST_TMP/run.cli"; fail "the trace is not complete"; }
csv=$ST_TMP/csv
dump_csv "$ST_TMP/trace" "$csv"
check_expects "$ST_TMP/run.x" "$csv"
ids=$(st_awk "$csv" 'kind == "comm" && fn == "MPI_Comm_create_from_group" \
	{ print comm }' | sort -u)
[ "$(echo "$ids" | wc -w)" = 1 ] ||
	fail "the session's communicator has ids '$ids', expected one"
expect_count "$csv" "kind == \"call\" && fn == \"MPI_Allreduce\" && \
	comm == \"$ids\" && g0_ns != \"\"" 2
note "a Sessions-only program: complete trace, global times, records"

# Both models in one program (apps/sessworld.c): a session opened
# first, then MPI_Init, then the session finalized while MPI_COMM_WORLD
# goes on.  The session's finalize once ended tracing, so the calls
# after it and MPI_Finalize were lost from a trace called complete;
# now MPI_Finalize, the later of the two, ends it.
need_app sessworld
untraced "$ST_TMP/sw-plain" \
	env ST_EXPECT="$ST_TMP/sw-plain.x" $MPIEXEC -n 2 "$ST_APPS/sessworld"
expect_rc "$ST_TMP/sw-plain" 0
grep -q 'sessworld: 2 ranks, ok' "$ST_TMP/sw-plain.out" ||
	fail "sessworld fails untraced: $(head -n 1 "$ST_TMP/sw-plain.err")"
cli_run "$ST_TMP/sw" "$ST_TMP/sw-run" -- \
	env ST_EXPECT="$ST_TMP/sw-run.x" $MPIEXEC -n 2 "$ST_APPS/sessworld"
same_output "$ST_TMP/sw-plain" "$ST_TMP/sw-run" sort
grep -q '(2 ranks, complete)' "$ST_TMP/sw-run.cli" ||
	{ show "$ST_TMP/sw-run.cli"; fail "sessworld: the trace is not complete"; }
dump_csv "$ST_TMP/sw" "$ST_TMP/sw.csv"
check_expects "$ST_TMP/sw-run.x" "$ST_TMP/sw.csv"
note "a session, then MPI_Init, the session finalized first: traced to MPI_Finalize"
