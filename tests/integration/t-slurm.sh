#!/bin/sh
# tests/integration/t-slurm.sh: traced steps of a Slurm batch job.  The
# test starts its own single-node Slurm (munged, slurmctld and slurmd,
# with a configuration and state in a temporary directory, on ports of
# their own) and stops it at the end; it submits one batch job whose
# script runs the point-to-point app as traced steps: with mpiexec
# inside the allocation (MPICH), and with srun (MPICH through PMI-2,
# and Open MPI through PMIx when its build is there; that one by
# LD_PRELOAD and SYNCTRACE_DIR in the script).  Each step must leave its
# own complete trace, named by a pattern with the job id (%j), recording
# the same calls as the app traced outside Slurm.  Skipped, with the reason,
# where the daemons are missing or cannot start (not root, no munge).
. "$(dirname "$0")/lib.sh"

for p in munged mungekey slurmctld slurmd sbatch squeue srun; do
	command -v $p >/dev/null 2>&1 ||
		skip "no $p (Debian packages slurm-wlm and munge)"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start job steps"
need_app p2p
ST_OAPPS=$st_build/openmpi/apps
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The daemons' files: a short path, for munge's socket.
sl=$(mktemp -d /tmp/st-slurm-XXXXXX) || fail "cannot make a directory"
stop_slurm()
{
	for f in "$sl/slurmd.pid" "$sl/slurmctld.pid" "$sl/munge.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 1
	rm -rf "$sl"
}
trap stop_slurm EXIT
mkdir -p "$sl/state" "$sl/spool"

# Two free TCP ports, from this process's id.
port_free()
{
	! awk -v p="$(printf '%04X' "$1")" \
		'$2 ~ ":" p "$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}
port=$((20000 + $$ % 20000))
while ! port_free $port || ! port_free $((port + 1)); do
	port=$((port + 2))
done

mungekey -c -b 1024 -k "$sl/munge.key" > "$sl/mungekey.log" 2>&1 ||
	skip "mungekey cannot make a key: $(tail -n 1 "$sl/mungekey.log")"
chmod 600 "$sl/munge.key"
munged -f --key-file="$sl/munge.key" --socket="$sl/munge.sock" \
	--pid-file="$sl/munge.pid" --log-file="$sl/munge.log" \
	--seed-file="$sl/munge.seed" > "$sl/munged.out" 2>&1 ||
	skip "munged cannot start: $(tail -n 1 "$sl/munged.out")"

host=$(hostname -s)
cat > "$sl/slurm.conf" <<EOF
ClusterName=synctrace
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$sl/munge.sock
CredType=cred/munge
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$sl/slurm.conf
slurmctld -f "$SLURM_CONF" > "$sl/slurmctld.out" 2>&1 ||
	skip "slurmctld cannot start: $(tail -n 1 "$sl/slurmctld.out")"
slurmd -f "$SLURM_CONF" > "$sl/slurmd.out" 2>&1 ||
	skip "slurmd cannot start: $(tail -n 1 "$sl/slurmd.out")"
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	[ $i -lt 60 ] ||
		skip "the Slurm node never became idle: $(tail -n 1 \
			"$sl/slurmd.log" 2>/dev/null)"
	sleep 1
done

# The reference: p2p traced outside Slurm.
t=$ST_TMP
traced "$t/ref" "$t/ref" $MPIEXEC -n 2 "$ST_APPS/p2p"
expect_rc "$t/ref" 0
calls()
{
	dump_csv "$1" "$1.csv"
	st_awk "$1.csv" '(kind == "call" || kind == "done") {
		print rank, kind, fn, peer, tag, sbytes, rbytes }' | sort
}
calls "$t/ref" > "$t/ref.calls"

# The job: three steps, each into a directory named by a pattern with
# the job id (%j, docs/runs.md): two by `synctrace run`, one by
# exporting LD_PRELOAD and SYNCTRACE_DIR as a job script may.  The Open
# MPI step runs only where Open MPI is built.  Under a sanitizer the
# ASan runtime must be preloaded before the library (as cli_run does).
ompi=
[ -x "$ST_OAPPS/p2p" ] && [ -f "$st_build/libsynctrace-openmpi.so" ] &&
	ompi=1
run="\"$ST_CLI\" run"
pre=$st_build/libsynctrace-openmpi.so
if [ -n "$SAN" ]; then
	run="env LD_PRELOAD=$st_asan $run"
	pre=$st_asan:$pre
fi
cat > "$t/job.sh" <<EOF
#!/bin/sh
#SBATCH -n 2
cd "$t" || exit 1
$run -o "$t/%j-mpiexec" -- $MPIEXEC -n 2 "$ST_APPS/p2p" || exit 1
$run -o "$t/%j-srun" -- srun --mpi=pmi2 -n 2 "$ST_APPS/p2p" || exit 1
[ -z "$ompi" ] || LD_PRELOAD="$pre" SYNCTRACE_DIR="$t/%j-%x-openmpi" \\
	srun --mpi=pmix -n 2 "$ST_OAPPS/p2p" || exit 1
EOF
job=$(sbatch --parsable -o "$t/job-%j.out" "$t/job.sh") ||
	fail "sbatch failed: $(tail -n 2 "$sl/slurmctld.log")"
i=0
while [ -n "$(squeue -h -j "$job" -o %T 2>/dev/null)" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "job $job still running after 100 s"
	sleep 1
done
out=$t/job-$job.out
[ -f "$out" ] || fail "job $job left no output"
steps="mpiexec srun${ompi:+ p2p-openmpi}"
nsteps=$(echo $steps | wc -w)
[ "$(grep -c '^synctrace: trace in .* (2 ranks, complete)$' "$out")" = 2 ] ||
	{ show "$out"; fail "not one complete trace per synctrace run step"; }
[ "$(grep -c '^p2p: all ranks ok$' "$out")" = $nsteps ] ||
	{ show "$out"; fail "a step's p2p did not finish right"; }
[ "$(ls -d "$t/$job"-* | wc -l)" = $nsteps ] ||
	{ ls "$t"; fail "not one run directory per step"; }
for s in $steps; do
	d=$t/$job-$s
	[ -f "$d/synctrace.run" ] || { ls "$t"; fail "step $s left no '$d'"; }
	grep -qx 'complete=1' "$d/synctrace.run" ||
		fail "the trace of step $s is not complete"
	calls "$d" > "$d.calls"
	cmp -s "$t/ref.calls" "$d.calls" ||
		{ diff "$t/ref.calls" "$d.calls";
		  fail "step $s traced other calls than the app outside Slurm"; }
done
note "job $job: steps $steps, each a complete trace named $job-STEP"
