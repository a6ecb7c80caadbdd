#!/bin/sh
# tests/integration/t-nbrepeat.sh: the repeat path of nonblocking calls
# and their completions records what the general path would.  The app
# nbrepeat makes Irecv, Isend and Iallreduce from the same call sites
# again and again, changing one thing at a time between runs of repeats
# (the count sent, the tag, a receive posted with MPI_ANY_TAG, the op,
# Waitall or Test and Wait, statuses ignored or not), and prints what
# each call record and each done record must say.  With a small buffer,
# so that the runs cross many chunk boundaries, and with the default
# one, each rank's trace must hold exactly those call records, in order,
# with those peers, tags and bytes, and one done record per request with
# those its status gives: peer, tag and received bytes.
. "$(dirname "$0")/lib.sh"

need_app nbrepeat
n=400
untraced "$ST_TMP/plain" $MPIEXEC -n 2 "$ST_APPS/nbrepeat" $n
expect_rc "$ST_TMP/plain" 0
for buf in 8K 1M; do
	t=$ST_TMP/b$buf
	SYNCTRACE_BUFFER=$buf traced "$t" "$t.run" $MPIEXEC -n 2 \
		"$ST_APPS/nbrepeat" $n
	same_output "$ST_TMP/plain" "$t.run" sort
	grep -q 'nbrepeat: all ranks ok' "$t.run.out" ||
		{ show "$t.run.out"; fail "wrong results"; }
	dump_csv "$t" "$t.csv"
	for r in 0 1; do
		grep "^call,$r,\|^done,$r," "$t.run.out" |
			sort -t, -k1,1 -k3,3n > "$t.want.$r"
		# The K-th call record of these functions is call K; a done
		# record names its call by request id.
		st_awk "$t.csv" '
			rank == r && kind == "call" &&
			    (fn == "MPI_Irecv" || fn == "MPI_Isend" ||
			     fn == "MPI_Iallreduce") {
				k[req] = n + 0
				print "call," r "," n++ "," fn "," peer "," \
				    tag "," sbytes "," rbytes
			}
			rank == r && kind == "done" {
				if (!(req in k)) {
					print "done of unknown request " req
					next
				}
				if (req in seen)
					print "second done of request " req
				seen[req] = 1
				print "done," r "," k[req] "," peer "," tag \
				    "," sbytes "," rbytes
			}' -v r=$r | sort -t, -k1,1 -k3,3n > "$t.got.$r"
		cmp -s "$t.want.$r" "$t.got.$r" || {
			diff "$t.want.$r" "$t.got.$r" | head -n 20
			fail "buffer $buf rank $r: trace differs from the calls"
		}
	done
	[ "$(grep -c '^call,0,' "$t.want.0")" = $((3 * n)) ] ||
		fail "buffer $buf: the app printed too few calls"
done
note "$((3 * n)) nonblocking calls and their completions per rank," \
	"as the app made them, with buffers of 8K and 1M"
