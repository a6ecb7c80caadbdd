#!/bin/sh
# tests/integration/t-io.sh: MPI-IO calls are traced with their file,
# offsets, bytes and, for collective ones, a sequence number on the
# file.  apps/io.c uses every access form (explicit offset, individual
# and shared file pointers, _all, _ordered, nonblocking, split
# collective) on a file in /dev/shm (a tmpfs; else the scratch
# directory) and prints what each record must say (EXPECT lines).  On
# top of those: the file has one id on both ranks, its path is written
# once per rank (in its comm record), every file call carries its id,
# and each collective's (file, seq) is the same on both ranks.
. "$(dirname "$0")/lib.sh"

need_app io
dir=$ST_TMP
[ -d /dev/shm ] && [ -w /dev/shm ] && dir=/dev/shm
file=$dir/synctrace-t-io-$$.dat
trap 'rm -f "$file"' EXIT
untraced "$ST_TMP/plain" \
	env ST_EXPECT="$ST_TMP/plain.x" $MPIEXEC -n 2 "$ST_APPS/io" "$file"
expect_rc "$ST_TMP/plain" 0
traced "$ST_TMP/trace" "$ST_TMP/run" \
	env ST_EXPECT="$ST_TMP/run.x" $MPIEXEC -n 2 "$ST_APPS/io" "$file"
same_output "$ST_TMP/plain" "$ST_TMP/run" sort
grep -q 'io: all ranks ok' "$ST_TMP/run.out" ||
	{ show "$ST_TMP/run.out"; fail "wrong results"; }
[ ! -e "$file" ] || fail "the app's MPI_File_delete did not happen"
csv=$ST_TMP/csv
dump_csv "$ST_TMP/trace" "$csv"
for r in 0 1; do
	cmp -s "$ST_TMP/plain.x.$r" "$ST_TMP/run.x.$r" ||
		fail "rank $r: the app's expectations differ under synctrace"
done
check_expects "$ST_TMP/run.x" "$csv"

id=$(st_awk "$csv" 'kind == "comm" && fn == "MPI_File_open" { print comm }' |
	sort -u)
[ "$(echo "$id" | wc -w)" = 1 ] || fail "file ids '$id', expected one"
# The path once per rank, in the file's comm record.
[ "$(grep -c -F "$file" "$csv")" = 3 ] ||
	fail "the path is in $(grep -c -F "$file" "$csv") records, expected" \
		"3 (two comm records and rank 0's MPI_File_delete)"
# Every call on the file carries its id.
expect_count "$csv" "kind == \"call\" && fn ~ /^MPI_File_/ && \
	fn != \"MPI_File_open\" && fn != \"MPI_File_delete\" && \
	comm != \"$id\"" 0
# A collective on the file is one instance on both ranks: each (fn, seq)
# on it appears on both ranks, and the seqs run 1..24 on each.
st_awk "$csv" "kind == \"call\" && comm == \"$id\" && seq != \"\" \
	{ print fn, seq }" | sort | uniq -c > "$ST_TMP/colls"
[ "$(awk '$1 != 2' "$ST_TMP/colls" | wc -l)" = 0 ] ||
	{ show "$ST_TMP/colls"; fail "a file collective not on both ranks"; }
[ "$(wc -l < "$ST_TMP/colls")" = 24 ] ||
	{ show "$ST_TMP/colls"; fail "not 24 collectives on the file"; }
note "every access form: file id, offsets, bytes and collectives"
