#!/bin/sh
# tests/integration/t-phases.sh: MPI_Pcontrol is recorded as a phase
# marker with its level (apps/phases.c: level 1 around allreduces,
# level 2 with extra arguments around barriers, level 0), and each
# rank's records come in the phase they were made in.
. "$(dirname "$0")/lib.sh"

need_app phases
untraced "$ST_TMP/plain" \
	env ST_EXPECT="$ST_TMP/plain.x" $MPIEXEC -n 2 "$ST_APPS/phases"
expect_rc "$ST_TMP/plain" 0
traced "$ST_TMP/trace" "$ST_TMP/run" \
	env ST_EXPECT="$ST_TMP/run.x" $MPIEXEC -n 2 "$ST_APPS/phases"
same_output "$ST_TMP/plain" "$ST_TMP/run" sort
csv=$ST_TMP/csv
dump_csv "$ST_TMP/trace" "$csv"
check_expects "$ST_TMP/run.x" "$csv"
# In file order: every allreduce in phase 1, every barrier in phase 2.
bad=$(st_awk "$csv" '
	kind == "call" && fn == "MPI_Pcontrol" { phase[rank] = arg }
	kind == "call" && fn == "MPI_Allreduce" && phase[rank] != 1 { n++ }
	kind == "call" && fn == "MPI_Barrier" && phase[rank] != 2 { n++ }
	END { print n + 0 }')
[ "$bad" = 0 ] || fail "$bad records outside their phase"
note "phase markers with their levels, records in their phases"
