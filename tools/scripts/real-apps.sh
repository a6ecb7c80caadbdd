#!/bin/sh
# tools/scripts/real-apps.sh: Debian's own MPI applications, unmodified,
# with and without synctrace (`make real-apps`).  Each runs APPS_RUNS
# times without and with `synctrace run` (which picks the library for
# its MPI), interleaved; every run's output, with the lines that report
# times left out, must equal the first untraced run's; the last traced
# run must be read (`dump`), reported (`report`), tabled (`table
# --json`) and predicted from that table (`predict`).  Prints per app
# the median wall time without and with, the median of the paired
# slowdowns, and the trace's bytes per record (rank files over decoded
# records).  Figures, not assertions: a wrong result or a failing tool
# exits 1, a slowdown never does.
#
#   ScaLAPACK's Cholesky and QR tests (xdllt, xdqr) on 2 ranks, from
#     scalapack-mpi-test: the same programs built for Open MPI
#     (openmpi-tests) and for MPICH (mpich-tests), with Debian's input
#     files (the grids of more than 2 processes are skipped by the tests
#     themselves).  Not the LU test: its driver reads memory it did not
#     set, and fails or hangs depending on the size of the environment;
#   MUMPS's dsimpletest on 2 ranks (mumps-test, Open MPI; Fortran, so
#     every call comes through Open MPI's Fortran bindings);
#   HPC Challenge (hpcc, Open MPI; C) with a small hpccinf.txt.
#
# Missing packages are installed as `make deps` does (as root).
# Environment: BUILD, APPS_RUNS (default 3), APPS_ONLY (grep -E pattern
# of app names), APPS_KEEP (non-empty: keep the runs in TMPDIR), TMPDIR.

BUILD=${BUILD:-build}
RUNS=${APPS_RUNS:-3}
top=$(pwd)
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
cli=$build/synctrace
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

die()
{
	echo "real-apps: $*" >&2
	exit 1
}

[ -x "$cli" ] || die "no '$cli': run make first"
pkgs="scalapack-mpi-test mumps-test hpcc"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (install as root)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >&2 || die "cannot install$missing"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-apps.XXXXXX") || exit 1
[ -n "$APPS_KEEP" ] || trap 'rm -rf "$tmp"' EXIT
sca=/usr/lib/x86_64-linux-gnu/scalapack

# ScaLAPACK's tests read their own input files, as Debian ships them.
cp /usr/share/scalapack/LLT.dat /usr/share/scalapack/QR.dat "$tmp/" ||
	die "no ScaLAPACK test input in /usr/share/scalapack"
# HPL 1000x1000 on 1x2, the other tests at sizes for 2 ranks.
cat > "$tmp/hpccinf.txt" <<'EOF'
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
1000         Ns
1            # of NBs
64           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
EOF

# The apps: NAME MPI LAUNCHER DIR STDIN KEEP CMD...  (KEEP: an awk
# program that prints what of the output must not change).
keep_llt='/^WALL/ { $9 = $10 = $11 = ""; print; next }
	/tests|PASSED|FAILED|scaled residual/ { print }'
keep_qr='/^WALL/ { $8 = $9 = ""; print; next }
	/tests|PASSED|FAILED|scaled residual/ { print }'
keep_mumps='!/[Tt]ime|[Ee]lapsed|MPI =|Rate|Flops|flops/ { print }'
keep_hpcc='/^(WALL|CPU) +[0-9]/ { print $1, $2, $3, $4, $5, $6, $7, $9, $11; next }
	/\|\|Ax-b\|\|/ { print; next }
	/^(HPL_N|HPL_NB|HPL_nprow|HPL_npcol|[A-Za-z]*_Errors|Success|Failure)=/ {
		print }'

apps="scalapack-llt-openmpi scalapack-llt-mpich scalapack-qr-openmpi
scalapack-qr-mpich mumps-openmpi hpcc-openmpi"
app_def()
{
	case $1 in
	scalapack-llt-*)
		set -- ${1#scalapack-llt-} mpiexec.${1#scalapack-llt-} \
			/dev/null "$keep_llt" \
			"$sca/${1#scalapack-llt-}-tests/xdllt" ;;
	scalapack-qr-*)
		set -- ${1#scalapack-qr-} mpiexec.${1#scalapack-qr-} \
			/dev/null "$keep_qr" "$sca/${1#scalapack-qr-}-tests/xdqr" ;;
	mumps-openmpi)
		set -- openmpi mpiexec.openmpi \
			/usr/lib/mumps/input_simpletest_real "$keep_mumps" \
			/usr/lib/mumps/dsimpletest ;;
	hpcc-openmpi)
		set -- openmpi mpiexec.openmpi /dev/null "$keep_hpcc" \
			/usr/bin/hpcc ;;
	esac
	a_mpi=$1 a_exec=$2 a_in=$3 a_keep=$4 a_prog=$5
}

now()
{
	date +%s.%N
}

# run_app APP I traced|plain: one run in $tmp/APP/I-MODE; its wall time
# in seconds to $tmp/APP/MODE.times, its kept output to I-MODE.kept.
run_app()
{
	d=$tmp/$1/$2-$3
	mkdir -p "$d" || exit 1
	cp "$tmp/LLT.dat" "$tmp/QR.dat" "$tmp/hpccinf.txt" "$d/"
	t0=$(now)
	if [ $3 = traced ]; then
		(cd "$d" && "$cli" run -o "$d/trace" -- $a_exec -n 2 $a_prog) \
			< "$a_in" > "$d/out" 2> "$d/err"
	else
		(cd "$d" && env -u LD_PRELOAD $a_exec -n 2 $a_prog) \
			< "$a_in" > "$d/out" 2> "$d/err"
	fi
	rc=$?
	t1=$(now)
	[ $rc = 0 ] || { tail -n 5 "$d/err" >&2; die "$1: run $2 ($3) exited $rc"; }
	# hpcc writes its results to hpccoutf.txt.
	[ -f "$d/hpccoutf.txt" ] && cat "$d/hpccoutf.txt" >> "$d/out"
	awk "$a_keep" "$d/out" > "$d/kept"
	[ -s "$d/kept" ] || die "$1: run $2 ($3) printed nothing to compare"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' \
		>> "$tmp/$1/$3.times"
}

median()
{
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) print "nan"
		else if (NR % 2) print v[(NR + 1) / 2]
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%-22s %-8s %4s %10s %10s %10s %9s %8s %6s %s\n' app mpi runs \
	"plain s" "traced s" slowdown records bytes B/rec checks
status=0
for app in $apps; do
	if [ -n "$APPS_ONLY" ] && ! echo "$app" | grep -qE "$APPS_ONLY"; then
		continue
	fi
	app_def $app
	[ -x "$a_prog" ] || { echo "$app: no $a_prog, skipped"; continue; }
	mkdir -p "$tmp/$app"
	i=1
	while [ $i -le "$RUNS" ]; do
		# Alternate which goes first, so that drift hits both alike.
		if [ $((i % 2)) = 1 ]; then
			run_app $app $i plain
			run_app $app $i traced
		else
			run_app $app $i traced
			run_app $app $i plain
		fi
		for m in plain traced; do
			cmp -s "$tmp/$app/1-plain/kept" "$tmp/$app/$i-$m/kept" ||
				{ diff "$tmp/$app/1-plain/kept" \
					"$tmp/$app/$i-$m/kept" | head -n 20;
				  die "$app: results of run $i ($m) differ"; }
		done
		i=$((i + 1))
	done
	tr=$tmp/$app/$RUNS-traced/trace
	grep -q 'complete)$' "$tmp/$app/$RUNS-traced/err" ||
		die "$app: the trace is not complete"
	checks=
	"$cli" dump --csv "$tr" > "$tmp/$app/dump.csv" 2> "$tmp/$app/tool.err" &&
		checks="${checks}dump "
	"$cli" report "$tr" > "$tmp/$app/report.txt" 2>> "$tmp/$app/tool.err" &&
		checks="${checks}report "
	"$cli" table --json "$tmp/$app/table.json" "$tr" \
		> "$tmp/$app/table.txt" 2>> "$tmp/$app/tool.err" &&
		checks="${checks}table "
	"$cli" predict "$tr" --table "$tmp/$app/table.json" \
		> "$tmp/$app/predict.txt" 2>> "$tmp/$app/tool.err" &&
		checks="${checks}predict"
	if [ "$checks" != "dump report table predict" ]; then
		sed 's/^/    /' "$tmp/$app/tool.err"
		status=1
	fi
	grep -q "$([ $a_mpi = openmpi ] && echo 'Open MPI' || echo MPICH)" \
		"$tmp/$app/report.txt" || { status=1; checks="$checks, wrong MPI"; }
	records=$(($(wc -l < "$tmp/$app/dump.csv") - 1))
	bytes=$(cat "$tr"/rank-*.st | wc -c)
	p=$(median < "$tmp/$app/plain.times")
	t=$(median < "$tmp/$app/traced.times")
	slow=$(paste "$tmp/$app/plain.times" "$tmp/$app/traced.times" |
		awk '{ print ($2 / $1 - 1) * 100 }' | median)
	printf '%-22s %-8s %4d %10.2f %10.2f %+9.1f%% %9d %8d %6.2f %s\n' \
		$app $a_mpi $RUNS $p $t $slow $records $bytes \
		"$(awk -v b=$bytes -v r=$records 'BEGIN { print b / r }')" \
		"$checks"
done
echo "(slowdown: median over the $RUNS pairs of traced/plain - 1; wall" \
	"time of the whole mpiexec; load average now $(cut -d' ' -f1-3 \
	/proc/loadavg))"
exit $status
