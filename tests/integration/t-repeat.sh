#!/bin/sh
# tests/integration/t-repeat.sh: the repeat path records what the
# general path would.  The app repeat makes long runs of identical
# blocking collectives from a few call sites and changes one argument at
# a time between them (count, type, op, MPI_IN_PLACE, root, a derived
# datatype, a communicator freed and remade, two sites taking turns,
# one site calling two functions through a pointer),
# printing what each call must record.  With a small buffer, so that the
# runs cross many chunk boundaries, and with the default one, the trace
# must hold exactly those calls per rank, in order, with those bytes,
# roots and ops; each communicator label must name one id on every rank,
# and the two duplicates different ones; sequence numbers must go up by
# one on each communicator, equal across ranks.
. "$(dirname "$0")/lib.sh"

need_app repeat
n=300
untraced "$ST_TMP/plain" $MPIEXEC -n 2 "$ST_APPS/repeat" $n
expect_rc "$ST_TMP/plain" 0
for buf in 8K 1M; do
	t=$ST_TMP/b$buf
	SYNCTRACE_BUFFER=$buf traced "$t" "$t.run" $MPIEXEC -n 2 \
		"$ST_APPS/repeat" $n
	same_output "$ST_TMP/plain" "$t.run" sort
	dump_csv "$t" "$t.csv"
	for r in 0 1; do
		grep "^expect,$r," "$t.run.out" | cut -d, -f3- > "$t.want.$r"
		st_awk "$t.csv" '
			rank == r && kind == "call" &&
			    (fn == "MPI_Allreduce" || fn == "MPI_Bcast" ||
			     fn == "MPI_Reduce" || fn == "MPI_Barrier" ||
			     fn == "MPI_Scan") {
				if (root == "") root = -1
				if (op == "") op = "-"
				print fn "," comm "," root "," sbytes "," \
				    rbytes "," op
			}' -v r=$r > "$t.got.$r"
		# Labels for ids: the want file's order is the trace's.
		cut -d, -f1,3- "$t.want.$r" > "$t.want2.$r"
		cut -d, -f1,3- "$t.got.$r" > "$t.got2.$r"
		cmp -s "$t.want2.$r" "$t.got2.$r" || {
			diff "$t.want2.$r" "$t.got2.$r" | head -n 20
			fail "buffer $buf rank $r: trace differs from the calls"
		}
		paste -d, "$t.want.$r" "$t.got.$r" | cut -d, -f2,8 |
			sort -u > "$t.ids.$r"
	done
	cmp -s "$t.ids.0" "$t.ids.1" ||
		fail "buffer $buf: labels name other ids on the two ranks"
	[ "$(cut -d, -f1 "$t.ids.0" | sort | uniq -d)" = "" ] ||
		fail "buffer $buf: a label names two ids: $(cat "$t.ids.0")"
	[ "$(cut -d, -f2 "$t.ids.0" | sort | uniq -d)" = "" ] ||
		fail "buffer $buf: two labels share an id: $(cat "$t.ids.0")"
	[ "$(grep -c . "$t.ids.0")" = 3 ] ||
		fail "buffer $buf: expected 3 communicators: $(cat "$t.ids.0")"
	st_awk "$t.csv" '
		kind == "call" && seq != "" {
			k = rank SUBSEP comm
			if ((k in last) && seq != last[k] + 1) {
				print "rank " rank " comm " comm ": seq " seq \
				    " after " last[k]
				bad++
			}
			last[k] = seq
			at[rank, ++nr[rank]] = comm "/" seq
		}
		END {
			if (nr[0] != nr[1]) {
				print "ranks made " nr[0] " and " nr[1] " calls"
				bad++
			}
			for (i = 1; i <= nr[0]; i++)
				if (at[0, i] != at[1, i]) {
					print "call " i ": " at[0, i] " vs " \
					    at[1, i]
					bad++
					break
				}
			exit (bad > 0)
		}' > "$t.seq" ||
		{ head -n 5 "$t.seq"; fail "buffer $buf: sequence numbers"; }
	note "buffer $buf: $(grep -c . "$t.want.0") calls per rank recorded" \
		"as made"
done
