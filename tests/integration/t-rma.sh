#!/bin/sh
# tests/integration/t-rma.sh: one-sided calls are traced with their
# window, target, displacement, bytes, asserts and lock types, in fence,
# post-start-complete-wait and passive-target epochs.  apps/rma.c prints
# what each of its records must say (EXPECT lines, bytes from its own
# counts); on top of those, the window records must tie up across ranks:
# each constructor is a collective on MPI_COMM_WORLD, each window has one
# id on every rank, and its fences are numbered on it, equal across
# ranks, so a fence matches as a collective does.
. "$(dirname "$0")/lib.sh"

need_app rma
untraced "$ST_TMP/plain" \
	env ST_EXPECT="$ST_TMP/plain.x" $MPIEXEC -n 2 "$ST_APPS/rma"
expect_rc "$ST_TMP/plain" 0
traced "$ST_TMP/trace" "$ST_TMP/run" \
	env ST_EXPECT="$ST_TMP/run.x" $MPIEXEC -n 2 "$ST_APPS/rma"
same_output "$ST_TMP/plain" "$ST_TMP/run" sort
grep -q 'rma: all ranks ok' "$ST_TMP/run.out" ||
	{ show "$ST_TMP/run.out"; fail "wrong results"; }
csv=$ST_TMP/csv
dump_csv "$ST_TMP/trace" "$csv"
for r in 0 1; do
	cmp -s "$ST_TMP/plain.x.$r" "$ST_TMP/run.x.$r" ||
		fail "rank $r: the app's expectations differ under synctrace"
done
check_expects "$ST_TMP/run.x" "$csv"

# Window ids: one comm record per window and rank, the same id on both
# ranks, and distinct from each other.
for fn in MPI_Win_create MPI_Win_allocate MPI_Win_create_dynamic; do
	ids=$(st_awk "$csv" "kind == \"comm\" && fn == \"$fn\" && \
		comm_size == 2 { print comm }" |
		sort -u)
	[ "$(echo "$ids" | wc -w)" = 1 ] ||
		fail "$fn: window ids '$ids', expected one id on both ranks"
	eval "id_$fn=$ids"
	# The constructor is the same collective instance on both ranks.
	[ "$(st_awk "$csv" "kind == \"call\" && fn == \"$fn\" { print comm, \
		seq }" | sort -u | wc -l)" = 1 ] ||
		fail "$fn: not one (communicator, seq) on both ranks"
done
[ "$(printf '%s\n' "$id_MPI_Win_create" "$id_MPI_Win_allocate" \
	"$id_MPI_Win_create_dynamic" | sort -u | wc -l)" = 3 ] ||
	fail "two windows share an id"

# Every one-sided record carries its window's id: the fences of the
# created window are seq 1, 2 on both ranks, its Put, Get, post, start
# on it; Accumulate and the passive-target calls (displacements of 100
# and more) on the allocated one.
w=$id_MPI_Win_create a=$id_MPI_Win_allocate
expect_count "$csv" "kind == \"call\" && fn == \"MPI_Win_fence\" && \
	comm == \"$w\" && (seq == 1 || seq == 2)" 4
expect_count "$csv" "kind == \"call\" && fn == \"MPI_Win_fence\" && \
	comm == \"$a\" && (seq == 1 || seq == 2)" 4
expect_count "$csv" "kind == \"call\" && (fn == \"MPI_Put\" || \
	fn == \"MPI_Get\" || fn == \"MPI_Win_post\" || \
	fn == \"MPI_Win_start\") && comm != \"$w\" && offset < 100" 0
expect_count "$csv" "kind == \"call\" && (fn == \"MPI_Accumulate\" || \
	fn ~ /^MPI_R/ || fn ~ /lock|flush|_and_/) && comm != \"$a\"" 0
# Win_free: a collective on each window, after its fences.
expect_count "$csv" "kind == \"call\" && fn == \"MPI_Win_free\" && \
	((comm == \"$w\" && seq == 3) || (comm == \"$a\" && seq == 3) || \
	 (comm == \"$id_MPI_Win_create_dynamic\" && seq == 1))" 6
note "windows, epochs, targets and bytes as the app made them"
