#!/bin/sh
# tests/integration/t-p2p.sh: point-to-point calls are traced with the
# right peer, tag and bytes.  apps/p2p.c runs every send and receive
# flavour between ranks 2k and 2k+1 with known sizes, receiving with
# MPI_ANY_SOURCE, MPI_ANY_TAG or an oversized buffer, so the peer, tag
# and received bytes in the trace can only come from the status; a
# receive from MPI_PROC_NULL has its status (source MPI_PROC_NULL, tag
# MPI_ANY_TAG, no bytes), in yield mode too.  Each
# nonblocking operation must have exactly one DONE record, in the call
# that completed it and with the same request id.
#
# ST_P2P_NP sets the number of ranks (even; default 2): t-yield.sh runs
# this test again with 4 ranks and SYNCTRACE_YIELD=1.
. "$(dirname "$0")/lib.sh"

np=${ST_P2P_NP:-2}
need_app p2p
untraced "$ST_TMP/plain" $MPIEXEC -n $np "$ST_APPS/p2p"
expect_rc "$ST_TMP/plain" 0
traced "$ST_TMP/trace" "$ST_TMP/run" $MPIEXEC -n $np "$ST_APPS/p2p"
same_output "$ST_TMP/plain" "$ST_TMP/run" sort
grep -q 'p2p: all ranks ok' "$ST_TMP/run.out" ||
	{ show "$ST_TMP/run.out"; fail "wrong results"; }
csv=$ST_TMP/csv
dump_csv "$ST_TMP/trace" "$csv"

# One line per call record: side (a: even rank, b: odd rank), function,
# tag, bytes sent, bytes received; the peer is always the other rank.
# For receives posted with MPI_ANY_SOURCE/MPI_ANY_TAG (11, 16, 17, 18),
# for MPI_Recv with MPI_STATUS_IGNORE (19, 20) and for the probes the
# peer, the tag and the bytes come from the status.
calls='
a MPI_Send 11 400 0
b MPI_Recv 11 0 400
b MPI_Isend 12 296 0
a MPI_Sendrecv 13 8 16
b MPI_Sendrecv 13 16 8
a MPI_Ssend 14 14 0
b MPI_Recv 14 0 14
b MPI_Send 99 0 0
a MPI_Recv 99 0 0
a MPI_Rsend 15 20 0
a MPI_Bsend 16 33 0
b MPI_Recv 16 0 33
b MPI_Issend 17 24 0
a MPI_Recv 17 0 24
a MPI_Sendrecv_replace 18 24 24
b MPI_Sendrecv_replace 18 24 24
a MPI_Send 19 21 0
b MPI_Recv 19 0 21
a MPI_Send 20 36 0
b MPI_Recv 20 0 36
'

# expect_done RANK FN TAG DONEFN [PEER RBYTES]: the call FN with TAG on
# RANK has a request, completed by exactly one DONE record in DONEFN
# (with PEER and RBYTES for a receive).
expect_done()
{
	reqs=$(st_awk "$csv" "kind == \"call\" && rank == $1 && \
		fn == \"$2\" && tag == $3 { print req }")
	[ "$(echo $reqs | wc -w)" = 1 ] && [ "$reqs" != 0 ] ||
		fail "rank $1: request of $2 tag $3 is '$reqs'"
	cond="kind == \"done\" && rank == $1 && req == $reqs"
	expect_count "$csv" "$cond" 1
	expect_count "$csv" "$cond && fn == \"$4\"" 1
	[ $# -lt 5 ] ||
		expect_count "$csv" "$cond && peer == $5 && tag == $3 && \
			rbytes == $6" 1
}

a=0
while [ $a -lt $np ]; do
	b=$((a + 1))
	echo "$calls" | while read -r side fn tag s r; do
		[ -n "$side" ] || continue
		if [ $side = a ]; then me=$a peer=$b; else me=$b peer=$a; fi
		expect_count "$csv" "kind == \"call\" && rank == $me && \
			fn == \"$fn\" && peer == $peer && tag == $tag && \
			sbytes == $s && rbytes == $r" 1
	done || exit 1
	expect_count "$csv" "kind == \"call\" && rank == $b && \
		fn == \"MPI_Probe\" && peer == $a && tag == 19" 1
	[ "$(count "$csv" "kind == \"call\" && rank == $b && \
		fn == \"MPI_Iprobe\" && peer == $a && tag == 20")" -ge 1 ] ||
		fail "rank $b: no MPI_Iprobe record with peer $a, tag 20"
	for r in $a $b; do
		expect_count "$csv" "kind == \"call\" && rank == $r && \
			fn == \"MPI_Recv\" && peer == -3 && tag == -1 && \
			rbytes == 0" 1
	done
	expect_count "$csv" "kind == \"call\" && rank == $a && \
		fn == \"MPI_Irecv\" && tag == 12" 1
	expect_count "$csv" "kind == \"call\" && rank == $b && \
		fn == \"MPI_Irecv\" && peer == $a && tag == 15" 1

	expect_done $a MPI_Irecv 12 MPI_Test $b 296
	expect_done $b MPI_Isend 12 MPI_Wait
	expect_done $b MPI_Irecv 15 MPI_Wait $a 20
	expect_done $b MPI_Issend 17 MPI_Wait
	expect_count "$csv" "kind == \"done\" && rank == $a" 1
	expect_count "$csv" "kind == \"done\" && rank == $b" 3
	a=$((a + 2))
done
note "$np ranks: peer, tag, bytes and completions as sent and received"
