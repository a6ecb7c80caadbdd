#!/bin/sh
# tests/integration/t-colls.sh: every collective of mpi.h, traced.  The
# app colls calls all 129 with known counts, types, roots and
# communicators (world, a split, an inter-communicator, a Cartesian ring,
# a graph) and prints what each call must have sent and received.  Each
# call must appear exactly once per rank, in order, with that function,
# root and byte counts; a communicator's id must be the same on all its
# members; and the sequence numbers must match across ranks.  The app's
# results (it checks them itself) must equal an untraced run's.
. "$(dirname "$0")/lib.sh"

need_app colls
for n in 2 3 4; do
	t=$ST_TMP/n$n
	untraced "$t.plain" $MPIEXEC -n $n "$ST_APPS/colls"
	expect_rc "$t.plain" 0
	cli_run "$t.trace" "$t.run" -- $MPIEXEC -n $n "$ST_APPS/colls"
	expect_rc "$t.run" 0
	same_output "$t.plain" "$t.run" sort
	dump_csv "$t.trace" "$t.csv"

	# The app's expectations, per rank in call order:
	# rank,fn,label,root,sbytes,rbytes.
	grep '^expect,' "$t.run.out" |
		awk -F, '{ print $2 "," $3 "," $4 "," $5 "," $6 "," $7 > \
			"'"$t"'.want." $2 }'
	grep '^expect,' "$t.run.out" | cut -d, -f3 | sort -u > "$t.fns"
	[ "$(grep -c . "$t.fns")" -ge 130 ] ||
		fail "colls printed only $(grep -c . "$t.fns") function names"
	r=0
	while [ $r -lt $n ]; do
		# Collective calls and persistent starts, as the app names
		# them (a start is reported as MPI_Start).
		st_awk "$t.csv" '
			BEGIN { while ((getline f < fns) > 0) want[f] = 1 }
			# An empty root is one that does not apply: -1.
			{ if (root == "") root = -1 }
			rank == r && kind == "call" && want[fn] &&
			    fn != "MPI_Start" {
				print rank "," fn "," root "," sbytes "," rbytes
			}
			rank == r && kind == "start" {
				print rank ",MPI_Start," root "," sbytes "," rbytes
			}' -v r=$r -v fns="$t.fns" > "$t.got.$r"
		cut -d, -f1,2,4,5,6 "$t.want.$r" > "$t.want2.$r"
		cmp -s "$t.want2.$r" "$t.got.$r" || {
			diff "$t.want2.$r" "$t.got.$r" | head -n 20
			fail "n=$n rank $r: trace differs from the app's calls"
		}
		r=$((r + 1))
	done

	# Communicator ids: a label names one id on each rank, and world,
	# inter, cart and graph name the same id on every rank.
	r=0
	: > "$t.labels"
	while [ $r -lt $n ]; do
		st_awk "$t.csv" '
			BEGIN { while ((getline f < fns) > 0) want[f] = 1 }
			rank == r && (kind == "start" || kind == "call" &&
			    want[fn] && fn != "MPI_Start") { print comm }' \
			-v r=$r -v fns="$t.fns" > "$t.comms.$r"
		cut -d, -f3 "$t.want.$r" | paste -d, - "$t.comms.$r" |
			sort -u | sed "s/^/$r,/" >> "$t.labels"
		r=$((r + 1))
	done
	awk -F, '{ n[$1 "," $2]++ } END { for (k in n) if (n[k] > 1)
		{ print "rank,label " k " has " n[k] " ids"; bad = 1 }
		exit bad }' "$t.labels" || fail "n=$n: a label maps to two ids"
	for l in world inter cart graph; do
		ids=$(awk -F, -v l=$l '$2 == l { print $3 }' "$t.labels" |
			sort -u | wc -l)
		[ "$ids" = 1 ] || fail "n=$n: '$l' has $ids ids across ranks"
	done

	# Sequence numbers: on each rank a communicator's collectives are
	# numbered 1, 2, 3...; the same (id, seq) names the same function on
	# every rank that has that communicator.
	st_awk "$t.csv" '
		kind == "call" && seq > 0 {
			k = rank "," comm
			if (seq != last[k] + 1) {
				print "rank " rank " comm " comm ": seq " seq \
				    " after " last[k]; bad = 1
			}
			last[k] = seq
			i = comm "," seq
			if (i in f && f[i] != fn) {
				print i ": " f[i] " and " fn; bad = 1
			}
			f[i] = fn; c[i]++; members[comm, rank] = 1
		}
		END { exit bad }' || fail "n=$n: sequence numbers do not match"
	note "n=$n: $(wc -l < "$t.got.0") collective calls on rank 0 match"
done
