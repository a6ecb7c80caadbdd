#!/bin/sh
# tests/integration/t-rmarepeat.sh: the repeat path of one-sided calls
# records what the general path would.  The app rmarepeat makes Put,
# Win_flush, Accumulate, Get and Win_flush_all from the same call sites
# again and again, changing one thing at a time between runs of repeats
# (the target, MPI_PROC_NULL among them, the origin count, the
# datatype, the target displacement, the accumulate op, the window, and
# a window freed and allocated again), then Win_fence with its assert
# changing, and prints what each record must say.  With a small buffer,
# so that the runs cross many chunk boundaries, and with the default
# one, each rank's trace must hold exactly those records, in order, on
# those windows, with those targets, displacements, bytes, ops, fence
# numbers and asserts.
. "$(dirname "$0")/lib.sh"

need_app rmarepeat
n=400
untraced "$ST_TMP/plain" $MPIEXEC -n 2 "$ST_APPS/rmarepeat" $n
expect_rc "$ST_TMP/plain" 0
for buf in 8K 1M; do
	t=$ST_TMP/b$buf
	SYNCTRACE_BUFFER=$buf traced "$t" "$t.run" $MPIEXEC -n 2 \
		"$ST_APPS/rmarepeat" $n
	same_output "$ST_TMP/plain" "$t.run" sort
	grep -q 'rmarepeat: all ranks ok' "$t.run.out" ||
		{ show "$t.run.out"; fail "wrong results"; }
	dump_csv "$t" "$t.csv"
	for r in 0 1; do
		grep "^call,$r," "$t.run.out" > "$t.want.$r"
		# A window is named by its place among the rank's windows.
		st_awk "$t.csv" '
			rank != r { next }
			kind == "comm" && fn == "MPI_Win_allocate" {
				w[comm] = nw++
				next
			}
			kind == "call" && (fn == "MPI_Put" ||
			    fn == "MPI_Win_flush" || fn == "MPI_Accumulate" ||
			    fn == "MPI_Get" || fn == "MPI_Win_flush_all" ||
			    fn == "MPI_Win_fence") {
				if (!(comm in w)) {
					print fn " on unknown window " comm
					next
				}
				p = peer == "-3" ? "proc_null" : peer
				o = offset == "" ? 0 : offset
				s = fn == "MPI_Win_fence" ? seq : ""
				print "call," r "," fn "," w[comm] "," p "," \
				    o "," sbytes "," rbytes "," op "," s "," \
				    (arg == "" ? 0 : arg)
			}' -v r=$r > "$t.got.$r"
		cmp -s "$t.want.$r" "$t.got.$r" || {
			diff "$t.want.$r" "$t.got.$r" | head -n 20
			fail "buffer $buf rank $r: trace differs from the calls"
		}
	done
	[ "$(grep -c '^call,0,' "$t.want.0")" = $((5 * n + n / 4)) ] ||
		fail "buffer $buf: the app printed too few calls"
done
note "$((5 * n + n / 4)) one-sided calls per rank, as the app made them," \
	"with buffers of 8K and 1M"
