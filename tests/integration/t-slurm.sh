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

# stop_daemons FILE...: stop the daemons whose pid files are given, if
# they are ours (their command line names $sl), and wait until they are
# gone: TERM, then KILL after 5 s (a slurmd that cannot reach its
# slurmctld ignores TERM for minutes).
stop_daemons()
{
	sd_pids=
	for f in "$@"; do
		[ -s "$f" ] || continue
		sd_p=$(cat "$f")
		grep -qF "$sl/" "/proc/$sd_p/cmdline" 2>/dev/null &&
			sd_pids="$sd_pids $sd_p"
		rm -f "$f"
	done
	[ -n "$sd_pids" ] || return 0
	kill $sd_pids 2>/dev/null
	sd_i=0
	while [ $sd_i -lt 50 ]; do
		sd_left=
		for sd_p in $sd_pids; do
			kill -0 "$sd_p" 2>/dev/null && sd_left="$sd_left $sd_p"
		done
		[ -n "$sd_left" ] || return 0
		sleep 0.1
		sd_i=$((sd_i + 1))
	done
	kill -9 $sd_left 2>/dev/null
}
# sweep: kill what is left of this Slurm's jobs (steps, job scripts,
# sruns and their ranks, whose environments name its slurm.conf), all
# but this shell and the commands it runs.
sweep()
{
	for sw_f in $(grep -lzxF "SLURM_CONF=$sl/slurm.conf" \
			/proc/[0-9]*/environ 2>/dev/null); do
		sw_p=${sw_f#/proc/}
		sw_p=${sw_p%/environ}
		[ "$sw_p" = $$ ] && continue
		[ "$(sed 's/.*) //' "/proc/$sw_p/stat" 2>/dev/null |
			cut -d' ' -f2)" = $$ ] && continue
		kill -9 "$sw_p" 2>/dev/null
	done
}
stop_slurm()
{
	trap '' INT TERM HUP
	stop_daemons "$sl/slurmd.pid" "$sl/slurmctld.pid" "$sl/munge.pid"
	sweep
	sweep
	# The daemons' logs stay with the test's, for a look after a failure.
	mkdir -p "$ST_TMP/daemons" &&
		cp "$sl"/*.log "$sl"/*.out "$sl"/slurm*.conf "$ST_TMP/daemons" \
			2>/dev/null
	rm -rf "$sl"
}
# Stopped also when the test is interrupted (run.sh's time limit sends
# TERM, and KILL 10 s later): daemons left behind would hold on to their
# ports, and a job's steps would run on.
trap stop_slurm EXIT
trap 'exit 1' INT TERM HUP

mungekey -c -b 1024 -k "$sl/munge.key" > "$sl/mungekey.log" 2>&1 ||
	skip "mungekey cannot make a key: $(tail -n 1 "$sl/mungekey.log")"
chmod 600 "$sl/munge.key"
munged -f --key-file="$sl/munge.key" --socket="$sl/munge.sock" \
	--pid-file="$sl/munge.pid" --log-file="$sl/munge.log" \
	--seed-file="$sl/munge.seed" > "$sl/munged.out" 2>&1 ||
	skip "munged cannot start: $(tail -n 1 "$sl/munged.out")"

# Two TCP ports (an even one and the next), chosen from this process's
# id and the attempt, below the kernel's ephemeral ports (32768 up).
# Tests started together have nearby ids: with consecutive ports from
# consecutive ids, one's slurmd would take the other's slurmctld port.
# A port taken between the check and the bind makes a daemon fail
# ("Address already in use"): the daemons then start again on others.
port_free()
{
	! awk -v p="$(printf '%04X' "$1")" \
		'$2 ~ ":" p "$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}
pick_ports()
{
	port=$((20000 + 2 * (($$ * 7919 + $1 * 1009) % 6384)))
	while ! port_free $port || ! port_free $((port + 1)); do
		port=$((port + 2))
		[ $port -lt 32767 ] || port=20000
	done
}

# start_slurm TRY: slurm.conf for the ports (logs NAME-TRY.log), and the
# daemons started.  Job ids start at the port number and the steps'
# temporary files (PMIx's spmix_appdir_UID_JOB.STEP) go to $sl/tmp, not
# /tmp, so that two such Slurms at once share no file.  Messages may
# take 30 s, not 10: slurmd answers late on a loaded machine.
host=$(hostname -s)
start_slurm()
{
	pick_ports "$1"
	rm -rf "$sl/state" "$sl/spool" "$sl/tmp"
	mkdir -p "$sl/state" "$sl/spool" "$sl/tmp"
	cat > "$sl/slurm.conf" <<EOF
ClusterName=synctrace
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
FirstJobId=$port
TmpFS=$sl/tmp
MessageTimeout=30
AuthType=auth/munge
AuthInfo=socket=$sl/munge.sock
CredType=cred/munge
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld-$1.log
SlurmdLogFile=$sl/slurmd-$1.log
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
	cp "$sl/slurm.conf" "$sl/slurm-$1.conf"
	slurmctld -f "$SLURM_CONF" > "$sl/slurmctld-$1.out" 2>&1 ||
		skip "slurmctld cannot start: $(tail -n 1 "$sl/slurmctld-$1.out")"
	slurmd -f "$SLURM_CONF" > "$sl/slurmd-$1.out" 2>&1 ||
		skip "slurmd cannot start: $(tail -n 1 "$sl/slurmd-$1.out")"
}

# wait_idle TRY: wait, 60 s at most (each query 10 s at most), until the
# node is idle: returns 0 then, 2 as soon as a daemon of this try could
# not bind its port, 1 after the 60 s.
wait_idle()
{
	wi_end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt $wi_end ]; do
		timeout 10 sinfo -h -o %T 2>/dev/null | grep -q idle &&
			return 0
		grep -qs 'Address already in use' "$sl/slurmctld-$1.log" \
			"$sl/slurmd-$1.log" && return 2
		sleep 1
	done
	return 1
}

export SLURM_CONF=$sl/slurm.conf
try=1
while :; do
	start_slurm $try
	wait_idle $try
	case $? in
	0)	break ;;
	2)	[ $try -lt 5 ] ||
			skip "no free ports for Slurm in 5 tries: $(grep -h \
				'Address already in use' "$sl"/slurm*-$try.log |
				tail -n 1)"
		note "port $port or $((port + 1)) taken meanwhile; other ports"
		stop_daemons "$sl/slurmd.pid" "$sl/slurmctld.pid"
		try=$((try + 1)) ;;
	*)	skip "the Slurm node never became idle: $(tail -n 1 \
			"$sl/slurmd-$try.log" 2>/dev/null)" ;;
	esac
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
end=$(($(date +%s) + 100))
while [ -n "$(timeout 10 squeue -h -j "$job" -o %T 2>/dev/null)" ]; do
	[ "$(date +%s)" -lt $end ] || fail "job $job still running after 100 s"
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
