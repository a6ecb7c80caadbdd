#!/bin/sh
# tests/integration/t-fortran.sh: the three Fortran bindings (mpif.h,
# use mpi, use mpi_f08) are traced.  mpi_f08 in MPICH calls the PMPI_ C
# functions directly, so only synctrace's PMPI_ entry points see those
# calls.  Each app's results must be right and identical with and
# without the library, and each rank's trace must hold its MPI_Init,
# MPI_Barrier, two MPI_Allreduce, MPI_Bcast and MPI_Finalize, with the
# right root and byte counts.  And the same call from two call sites in
# turn (fort-sites: the repeat path must not give the second the first's
# site, though both reach the library from one place in the bindings).
# And calls through the bindings loaded after MPI_Init (dlfort: a
# program that dlopen()s a plugin written in Fortran) get their own
# call sites too, and calls from outside the bindings ask the loader
# about each return address once (pmpisites).
. "$(dirname "$0")/lib.sh"

for app in fort-f77 fort-mod fort-f08; do
	need_app $app
	untraced "$ST_TMP/$app-plain" $MPIEXEC -n 2 "$ST_APPS/$app"
	expect_rc "$ST_TMP/$app-plain" 0
	for r in 0 1; do
		grep -qx "$app: rank $r sum 3 max 10 bcast 101 102 103" \
			"$ST_TMP/$app-plain.out" ||
			{ show "$ST_TMP/$app-plain.out";
			  fail "$app: wrong results on rank $r"; }
	done
	traced "$ST_TMP/$app" "$ST_TMP/$app" $MPIEXEC -n 2 "$ST_APPS/$app"
	same_output "$ST_TMP/$app-plain" "$ST_TMP/$app" sort
	dump_csv "$ST_TMP/$app" "$ST_TMP/$app.csv"
	for r in 0 1; do
		for want in "MPI_Init 1" "MPI_Barrier 1" "MPI_Allreduce 2" \
			    "MPI_Bcast 1" "MPI_Finalize 1" "MPI_Pcontrol 2"; do
			set -- $want
			expect_count "$ST_TMP/$app.csv" \
				"kind == \"call\" && rank == $r && fn == \"$1\"" $2
		done
		# 3 INTEGERs: the root sends them, the other rank receives.
		if [ $r = 0 ]; then s=12 b=0; else s=0 b=12; fi
		expect_count "$ST_TMP/$app.csv" "kind == \"call\" && \
			rank == $r && fn == \"MPI_Bcast\" && root == 0 && \
			sbytes == $s && rbytes == $b && comm_size == 2" 1
		# One INTEGER each way, MPI_IN_PLACE or not.
		expect_count "$ST_TMP/$app.csv" "kind == \"call\" && \
			rank == $r && fn == \"MPI_Allreduce\" && \
			sbytes == 4 && rbytes == 4 && comm_size == 2" 2
	done
	expect_pcontrol_around "$ST_TMP/$app.csv" "$app"
	note "$app: results right, every call traced on both ranks"
done

# Two sites, one call, same arguments: the records alternate between two
# site ids on each rank.
need_app fort-sites
traced "$ST_TMP/sites" "$ST_TMP/sites" $MPIEXEC -n 2 "$ST_APPS/fort-sites"
expect_rc "$ST_TMP/sites" 0
dump_csv "$ST_TMP/sites" "$ST_TMP/sites.csv"
for r in 0 1; do
	st_awk "$ST_TMP/sites.csv" 'kind == "call" && rank == r &&
		fn == "MPI_Barrier" { print site }' -v r=$r > "$ST_TMP/sites.$r"
	[ "$(wc -l < "$ST_TMP/sites.$r")" = 8 ] ||
		{ show "$ST_TMP/sites.$r"; fail "fort-sites: not 8 barriers"; }
	awk 'NR == 1 { a = $0 } NR == 2 { b = $0 }
		{ if ($0 != (NR % 2 ? a : b)) bad = 1 }
		END { exit bad || a == b }' "$ST_TMP/sites.$r" ||
		{ show "$ST_TMP/sites.$r"
		  fail "fort-sites: rank $r's barriers do not alternate" \
		       "between two call sites"; }
done
note "fort-sites: two call sites told apart through the Fortran bindings"

need_app dlfort
traced "$ST_TMP/dlfort" "$ST_TMP/dlfort" $MPIEXEC -n 2 "$ST_APPS/dlfort"
expect_rc "$ST_TMP/dlfort" 0
[ "$(grep -c '^dlfort: rank [01] sums 2 2 2 2 2$' "$ST_TMP/dlfort.out")" \
	= 2 ] ||
	{ show "$ST_TMP/dlfort.out"; fail "dlfort: wrong results"; }
dump_csv "$ST_TMP/dlfort" "$ST_TMP/dlfort.csv"
for r in 0 1; do
	expect_count "$ST_TMP/dlfort.csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Allreduce\"" 5
	expect_count "$ST_TMP/dlfort.csv" \
		"kind == \"call\" && rank == $r && fn == \"MPI_Barrier\"" 1
done
# 4 sites: 3 if the bindings' calls are keyed by their return addresses.
expect_count "$ST_TMP/dlfort.csv" "kind == \"call\" && rank == 0 && \
	fn != \"MPI_Init\" && fn != \"MPI_Finalize\" && !seen[site]++" 4
note "dlfort: bindings loaded after MPI_Init: 4 call sites told apart"

# Calls from outside the bindings (pmpisites: PMPI_Iprobe from 512 call
# sites, 20 times each) are looked up in the loaded objects once per
# return address.  A cache of 256 slots, one address each, had
# addresses take turns in them: nearly every call locked and asked the
# loader again (10088 scans for 10240 calls).
need_app pmpisites
traced "$ST_TMP/pmpisites" "$ST_TMP/pmpisites" $MPIEXEC -n 2 \
	"$ST_APPS/pmpisites"
expect_rc "$ST_TMP/pmpisites" 0
for r in 0 1; do
	n=$(sed -n "s/^pmpisites: rank $r: 512 sites, \([0-9]*\) loader scans$/\1/p" \
		"$ST_TMP/pmpisites.out")
	[ -n "$n" ] && [ "$n" -le 1024 ] ||
		{ show "$ST_TMP/pmpisites.out";
		  fail "pmpisites: rank $r: more than 2 loader scans a site"; }
done
note "pmpisites: 512 call sites outside the bindings, at most 2 loader scans each"
