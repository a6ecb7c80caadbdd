#!/usr/bin/env python3
"""tools/scripts/predict-validate.py: does a prediction hold on another network?

For each validation app, on 2 ranks:
  1. trace it in shared memory (the source trace; SYNCTRACE_YIELD=1, so
     waiting ranks do not slow the one computing, see docs/prediction.md);
  2. per target, measure its costs there with `synctrace bench --like`
     (--bench-runs K launches of --nrep measurements, 5 by default: one
     launch's 8 B MPI_Allreduce moved by up to 1.6 times from the next
     one's, docs/validation.md), the launches spread between the reps
     of steps 1 and 3 so that the tables and the runs see the machine
     over the same minutes, and make the table from them pooled
     (`synctrace table --json`); for "shm", the bench
     with SYNCTRACE_YIELD=1 when the shm runs have it: it then makes its
     blocking calls as the traced runs' interposer does (the nonblocking
     twin, tested with sched_yield() in between), which costs more than
     the blocking call itself (an 8 B MPI_Allreduce on 2 ranks: about
     1.1 us after the last arrival against 0.55 us spinning);
  3. run it, traced, on the target: what it really takes there (the
     measured run time, MPI_Init exit to MPI_Finalize entry, and the
     time per MPI function);
  4. predict the shared-memory trace with the target's table
     (`synctrace predict --validate --json`) and compare.
Targets: "shm", this machine's shared memory (the same machine), the
app run as the source traces are, with SYNCTRACE_YIELD=1 (each prediction
compared with another such run); "shm-spin", the same machine, but the
app run as MPICH runs it, its waiting ranks spinning (its table from a
bench run so too);
and "tcp", this machine with MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp: every
message through the TCP stack.  On a machine shared with other jobs,
even niced ones, a yielding rank hands its CPU to them for a time slice
at every wait, and "shm" measures that more than the app.

Targets (on the held-out apps; the tuning apps are shown apart):
  run time within 5 % (shm) and 10 % (tcp); each MPI function holding at
  least 10 % of the measured MPI time within 15 %; the prediction's
  interval (table CI + model error) holds the measured run time in at
  least 9 of 10 cases.  Each line says PASS or MISS.  Per target, the
  held-out functions' median signed error and how many came out short
  say whether their misses lean one way (a bias of the model).  Then the
  model on its own data: each run on the target predicted from its own
  target's table (not a target: the model's error without the source
  trace's; with --missing=measured, as the comparison reads its measured
  times, so a call the table lacks keeps its own time).

With --smpi (the default when smpicc is there), SimGrid's SMPI predicts
the same apps: each is compiled with smpicc and run by smpirun on a
platform calibrated from the same tables (tools/scripts/smpi_compare.py),
and its error is printed beside synctrace's.

A rep whose prediction fails (a job over UCX's TCP transport now and
then hangs in MPI_Finalize and is killed, its trace cut short) is left
out of the medians and named at the end.

Every timed step runs under `flock /tmp/synctrace-timing.lock`, and the
load average is recorded beside it: on a shared machine the figures
depend on what else runs.  The run takes a few minutes
(215 s with --reps 7 --nrep 30 on 2 loaded CPUs; at a load of about
2.5, 55 s with one bench launch per table and no SMPI, 117 s with 5;
with the launches spread between the reps, each its own `synctrace
bench`, 362 and 409 s at a load of 1 to 2, no SMPI; later 267 to 304 s
for the 12 apps then, and 384 s for 14 with SMPI).

Usage: predict-validate.py [--reps N] [--nrep N] [--bench-runs K]
                           [--apps A,B] [--targets shm,shm-spin,tcp]
                           [--shm-yield 0|1] [--bench-opt OPT]
                           [--predict-opt OPT]
                           [--no-smpi] [--keep DIR] [--json FILE] [--no-lock]
Environment: BUILD (default build), MPIEXEC (default mpiexec.mpich).
Exit status: 0 when every held-out figure meets its target, 1 when one
misses, 2 when the validation itself failed.
"""

import argparse
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOCK = "/tmp/synctrace-timing.lock"

# name, arguments, set: "tuning" apps were looked at while the model was
# built; "held-out" ones only once it was done (nm-probe and nm-ctl were
# written as held-out, and replay rules were made from their first
# figures: tuning since).
APPS = [
    ("bsp", ["2000", "20000"], "tuning"),
    ("halo", ["400", "50000"], "tuning"),
    ("transpose", ["50", "128"], "tuning"),
    ("nm-burst", ["300", "65536", "4", "20"], "tuning"),
    ("nm-sweep", ["240", "20"], "tuning"),
    ("nm-shift", ["600", "6"], "tuning"),
    ("nm-pipe", ["600", "16384", "10", "8"], "held-out"),
    ("nm-wild", ["800", "10"], "held-out"),
    ("nm-overlap", ["300", "262144", "20"], "held-out"),
    ("nm-cg", ["1500", "20000"], "held-out"),
    ("nm-mix", ["300", "65536", "20"], "held-out"),
    ("nm-ssor", ["40", "32", "2048", "4"], "held-out"),
    ("nm-mg", ["150", "65536", "5", "4"], "held-out"),
    ("nm-is", ["600", "6"], "held-out"),
    ("nm-nbody", ["400", "32768", "10"], "held-out"),
    ("nm-probe", ["400", "10"], "tuning"),
    ("nm-persist", ["400", "32768", "10"], "held-out"),
    ("nm-ctl", ["400", "131072", "10"], "tuning"),
    ("nm-farm", ["600", "8"], "held-out"),
]

# "table": the target whose bench table predicts this one (the same
# place, measured once): shm-spin's is shm's when the shm runs spin too
# (--shm-yield 0), else its own (table_of()).
TARGETS = {
    "shm": {"env": {}, "genv": []},
    "shm-spin": {"env": {}, "genv": []},
    "tcp": {"env": {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp"},
            "genv": ["-genv", "MPIR_CVAR_NOLOCAL", "1",
                     "-genv", "UCX_TLS", "tcp"]},
}
RUN_TARGET = {"shm": 0.05, "shm-spin": 0.05, "tcp": 0.10}
# The least model error the calibration gives (C of the communication,
# X of the compute on the critical path), and what the tuning apps are
# predicted with before it; synctrace predict's own default is the
# calibration's result on a quiet machine (docs/prediction.md).
DEFAULT_C = 0.10
DEFAULT_X = 0.03
FN_TARGET = 0.15
FN_SHARE = 0.10
COVER_TARGET = 0.9


def cover_index(n):
    """The index, in n sorted calibration values, of the one that covers
    a new value with probability at least COVER_TARGET when the new one
    is exchangeable with them: the ceil((n + 1) * COVER_TARGET)-th
    smallest (split conformal prediction: Vovk, Gammerman and Shafer,
    "Algorithmic Learning in a Random World", 2005; Lei et al., JASA
    2018), the largest when n is too small for that.  The 9-in-10 of
    the n values alone (ceil(n * 0.9)-th) covers a new one less often
    than it says, by up to 1 / (n + 1)."""
    return min(n - 1, max(0, math.ceil((n + 1) * COVER_TARGET) - 1))


def complete(rundir):
    """Whether run directory 'rundir' says complete=1."""
    try:
        with open(os.path.join(rundir, "synctrace.run")) as f:
            return "complete=1" in f.read().split("\n")
    except OSError:
        return False


def bench_dir(work, app, table):
    """The directory of the bench launches of APP's table for target
    TABLE (table_of()); its table is the same name + ".json"."""
    return os.path.join(work, "bench-%s-%s" % (app, table))


def bench_launch(out, k):
    """The run directory of launch K of a table's bench OUT: OUT/run-K,
    as `bench --runs` names its launches, so that `synctrace table OUT`
    pools them."""
    return os.path.join(out, "run-%d" % k)


def launches_due(rep, reps, runs):
    """Bench launches due once rep REP of REPS is done: RUNS spread
    evenly over the reps, the first after rep 1 (whose shm trace the
    benches imitate), all of them by the end of the last."""
    return -(-rep * runs // reps)


def say(*a):
    print("predict-validate:", *a, flush=True)


def die(msg):
    say("error:", msg)
    sys.exit(2)


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


class Runner:
    def __init__(self, build, mpiexec, work, lock=True):
        self.lock = lock
        self.cli = os.path.join(build, "synctrace")
        self.apps = os.path.join(build, "apps")
        self.mpiexec = mpiexec
        self.work = work
        self.loads = []
        self.shm_yield = True

    def run(self, argv, log, env=None, timed=True, timeout=900, tries=3,
            rundir=None):
        """Run argv (under the timing lock when timed), output to log.
        With 'rundir', the run directory it writes: removed before each
        try, and a try that times out once that directory is complete
        counts (a job over UCX's TCP transport now and then
        hangs in MPI_Finalize).  A command still running at its time
        limit is ended with its whole process group."""
        e = dict(os.environ)
        e.pop("LD_PRELOAD", None)
        if env:
            e.update(env)
        cmd = (["flock", LOCK] if timed and self.lock else []) + argv
        for t in range(tries):
            if rundir:
                shutil.rmtree(rundir, ignore_errors=True)
            if timed:
                self.loads.append(load())
            with open(log, "w") as out:
                pr = subprocess.Popen(cmd, stdout=out,
                                      stderr=subprocess.STDOUT, env=e,
                                      stdin=subprocess.DEVNULL,
                                      start_new_session=True)
                rc = self.wait(pr, timeout, rundir)
            if rc == 0 or (rc == -1 and rundir and complete(rundir)):
                return True
            say("'%s' failed (try %d), see %s" % (" ".join(argv[:4]), t + 1,
                                                  log))
        return False

    @staticmethod
    def wait(pr, timeout, rundir):
        """Wait for pr; -1 once it has run 'timeout' s, or 30 s past
        its run directory's completion (a finalize that hangs), after
        ending its whole process group."""
        t0 = time.monotonic()
        done_at = None
        while True:
            try:
                return pr.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if rundir and done_at is None and complete(rundir):
                done_at = now
            if now - t0 > timeout or (done_at and now - done_at > 30):
                try:
                    os.killpg(pr.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pr.wait()
                return -1

    def trace(self, app, args, target, out):
        """Trace 'app' on 'target' into 'out'; the shm traces (the
        sources) with SYNCTRACE_YIELD=1."""
        env = dict(TARGETS[target]["env"])
        if target == "shm" and self.shm_yield:
            env["SYNCTRACE_YIELD"] = "1"
        return self.run([self.cli, "run", "-o", out, "--", self.mpiexec,
                         "-n", "2", os.path.join(self.apps, app)] + args,
                        out + ".log", env=env, timeout=300, rundir=out)

    def bench(self, like, target, out, nrep, seed, extra=()):
        """One launch of the table's bench on 'target', 'nrep'
        measurements with the shuffled order of 'seed' (launch K of
        `bench --runs` has seed K); "shm" waits as its runs do
        (SYNCTRACE_YIELD=1 with --shm-yield 1: the bench then makes its
        blocking calls as the interposer does in yield mode)."""
        argv = [self.cli, "bench", "--like", like, "--nrep", str(nrep),
                "--seed", str(seed), "-o", out] + list(extra)
        if TARGETS[target]["genv"]:
            argv += ["--"] + TARGETS[target]["genv"]
        env = {"SYNCTRACE_YIELD": "1"} if target == "shm" and \
            self.shm_yield else None
        return self.run(argv, out + ".log", env=env, timeout=900,
                        rundir=out)

    def table(self, runs, out):
        """The table of the run directories 'runs', pooled."""
        return self.run([self.cli, "table", "--json", out] + runs,
                        out + ".log", timed=False)

    def predict(self, trace, table, out, extra=()):
        argv = [self.cli, "predict", trace, "--table", table, "--validate",
                "--json"] + list(extra)
        with open(out, "w") as f, open(out + ".err", "w") as ferr:
            rc = subprocess.run(argv, stdout=f, stderr=ferr).returncode
        if rc:
            return None
        with open(out) as f:
            return json.load(f)


SHM_YIELD = [1]


def table_of(t):
    """The target whose table predicts 't': shm-spin's own unless the
    shm runs spin as it does (--shm-yield 0)."""
    if t == "shm-spin" and not SHM_YIELD[0]:
        return "shm"
    return TARGETS[t].get("table", t)


def calibrate_x(results, target):
    """X, the compute's share of the model error on 'target': how far
    the compute on the critical path of the target's run moved from the
    source trace's, run by run, on the tuning apps: the relative
    difference that covers 9 in 10 (cover_index()), at least
    DEFAULT_X.  The replay keeps the
    source's compute, and a run on the target computes as fast or as
    slow as that run does."""
    d = sorted(abs(t / s - 1) for r in results
               if r["set"] == "tuning" and r["target"] == target
               for s, t in zip(r["compute_src"], r["compute_tgt"]) if s > 0)
    if not d:
        return DEFAULT_X
    return max(DEFAULT_X, d[cover_index(len(d))])


def calibrate_c(results, x, target):
    """The C that would have put the tuning runs' measured run times on
    'target' inside their intervals (given X = 'x') with the coverage of
    cover_index(), at least
    DEFAULT_C.  Per target: the model errs more on one network than on
    another, and one C for all would let the worst widen every
    interval."""
    need = []
    for r in results:
        if r["set"] != "tuning" or r["target"] != target:
            continue
        for i, m in enumerate(r["measured_ns"]):
            lo, hi = r["bounds"][i]
            gap = lo - m if m < lo else m - hi if m > hi else 0
            comm = r["path"][i]["comm_ns"]
            comp = x * r["path"][i]["compute_ns"]
            need.append((gap * gap - comp * comp) ** 0.5 / comm
                        if gap > comp and comm > 0 else 0)
    if not need:
        return DEFAULT_C
    need.sort()
    k = cover_index(len(need))
    return max(DEFAULT_C, need[k])


def fn_times(pred, key):
    return {f["fn"]: f[key] for f in pred.get("functions", [])}


def median(v):
    return statistics.median(v) if v else float("nan")


def pct(x):
    return "%+.1f%%" % (100 * x) if x == x else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--nrep", type=int, default=30)
    ap.add_argument("--bench-runs", type=int, default=5,
                    help="launches of each table's bench (each a `bench "
                    "--like --seed K`, spread between the reps: with "
                    "fewer reps than launches, several after one rep), "
                    "pooled by synctrace table: a small collective's "
                    "cost moves from launch to launch (default 5)")
    ap.add_argument("--apps", default="")
    ap.add_argument("--targets", default="shm,shm-spin,tcp")
    ap.add_argument("--shm-yield", type=int, default=1,
                    help="trace the shm runs (the sources) with "
                    "SYNCTRACE_YIELD=1 (1, the default) or spinning (0)")
    ap.add_argument("--no-smpi", action="store_true")
    ap.add_argument("--keep", default="")
    ap.add_argument("--bench-opt", action="append", default=[],
                    help="an option for every bench launch, e.g. "
                    "--bench-opt=--warm-p2p (repeat for more)")
    ap.add_argument("--predict-opt", action="append", default=[],
                    help="an option for every synctrace predict, e.g. "
                    "--predict-opt=--no-start (repeat for more)")
    ap.add_argument("--json", default="")
    ap.add_argument("--no-lock", action="store_true",
                    help="do not take the timing lock at each step: the "
                    "caller holds it for the whole run (flock LOCK "
                    "predict-validate.py --no-lock ...), or the figures "
                    "are for a look only, not to report")
    o = ap.parse_args()
    if o.bench_runs < 1 or o.nrep < 1 or o.reps < 1:
        ap.error("--reps, --nrep and --bench-runs take a count >= 1")

    build = os.environ.get("BUILD", "build")
    if not os.path.isabs(build):
        build = os.path.join(TOP, build)
    mpiexec = os.environ.get("MPIEXEC", "mpiexec.mpich")
    apps = [a for a in APPS if not o.apps or a[0] in o.apps.split(",")]
    targets = [t for t in o.targets.split(",") if t]
    for t in targets:
        if t not in TARGETS:
            die("unknown target '%s' (%s)" % (t, ", ".join(TARGETS)))
    if not os.access(os.path.join(build, "synctrace"), os.X_OK):
        die("no %s/synctrace: run make first" % build)
    for a in apps:
        if not os.access(os.path.join(build, "apps", a[0]), os.X_OK):
            die("no %s/apps/%s: run make first (make validate-net builds "
                "them)" % (build, a[0]))
    if o.keep:
        work = o.keep
        os.makedirs(work, exist_ok=True)
    else:
        work = tempfile.mkdtemp(prefix="predict-validate-")
    rn = Runner(build, mpiexec, work, not o.no_lock)
    rn.shm_yield = o.shm_yield
    SHM_YIELD[0] = o.shm_yield
    smpi = None
    if not o.no_smpi and shutil.which("smpicc") and shutil.which("smpirun"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import smpi_compare as smpi  # noqa: E402
    elif not o.no_smpi:
        say("no smpicc and smpirun here: SMPI left out (Debian: "
            "apt-get install libsimgrid-dev; make validate-net does)")
    t_start = time.time()
    say("work in %s; load average %.1f at the start" % (work, load()))

    # 1 and 3: the traces, interleaved: each rep runs every app in every
    # place, so that a busy spell spreads over all of them.  2: the
    # tables' bench launches, per app and target, like its first shm
    # trace, spread between the reps: a machine whose costs drift over
    # minutes then gives the tables what it gives the runs.
    benched = []
    for t in targets:
        if table_of(t) not in benched:
            benched.append(table_of(t))
    launched = 0
    for rep in range(1, o.reps + 1):
        for app, args, _ in apps:
            for t in ["shm"] + [x for x in targets if x != "shm"]:
                d = os.path.join(work, "%s-%s-%d" % (app, t, rep))
                if not o.keep or not complete(d):
                    if not rn.trace(app, args, t, d):
                        die("%s on %s failed, see %s.log" % (app, t, d))
        say("traces of rep %d done (load %.1f)" % (rep, load()))
        due = launches_due(rep, o.reps, o.bench_runs)
        for k in range(launched + 1, due + 1):
            for app, args, _ in apps:
                for t in benched:
                    b = bench_launch(bench_dir(work, app, t), k)
                    if o.keep and complete(b):
                        continue
                    os.makedirs(os.path.dirname(b), exist_ok=True)
                    if not rn.bench(os.path.join(work, "%s-shm-1" % app),
                                    t, b, o.nrep, k, o.bench_opt):
                        die("bench --like %s on %s failed, see %s.log"
                            % (app, t, b))
            say("bench launch %d of %d done (load %.1f)"
                % (k, o.bench_runs, load()))
        launched = due
    for app, args, _ in apps:
        for t in benched:
            b = bench_dir(work, app, t)
            # These launches exactly: a kept directory may hold others.
            if not rn.table([bench_launch(b, k)
                             for k in range(1, o.bench_runs + 1)],
                            b + ".json"):
                die("table of %s failed, see %s.json.log" % (b, b))

    # 4: predictions and what was measured: the tuning apps first, whose
    # errors calibrate the model's error C per target (the fraction of
    # the critical path's communication that the interval adds, beside X
    # of its compute), then the held-out apps with that C.
    results = []
    skipped = []
    errs = {t: [DEFAULT_C, DEFAULT_X] for t in targets}
    order = [a for a in apps if a[2] == "tuning"] + \
        [a for a in apps if a[2] != "tuning"]
    calibrated = False
    for app, args, aset in order:
        if aset != "tuning" and not calibrated:
            for t in targets:
                errs[t][1] = calibrate_x(results, t)
                errs[t][0] = calibrate_c(results, errs[t][1], t)
                say("model error calibrated on the tuning apps for %s: "
                    "C=%.3f, X=%.3f" % (t, errs[t][0], errs[t][1]))
            calibrated = True
        for t in targets:
            model_err = errs[t]
            tj = bench_dir(work, app, table_of(t)) + ".json"
            pred, lo, hi, meas, path, bounds = [], [], [], [], [], []
            pfn, mfn, mearly, mmpi = {}, {}, {}, []
            own, ofn = [], {}   # the target run from its own table
            csrc, ctgt = [], []
            for rep in range(1, o.reps + 1):
                src = os.path.join(work, "%s-shm-%d" % (app, rep))
                # On the same machine the source run is one of the
                # target's: compare it with another run (the next).
                tgt = os.path.join(work, "%s-%s-%d" % (
                    app, t, rep % o.reps + 1 if t == "shm" else rep))
                p = rn.predict(src, tj, tgt + ".pred-%s.json" % t,
                               ["--model-error=%g,%g" % tuple(model_err)]
                               + o.predict_opt)
                m = rn.predict(tgt, tj, tgt + ".meas.json",
                               ["--missing=measured"] + o.predict_opt)
                if not p or not m:
                    # A run over UCX's TCP transport now and then hangs
                    # in MPI_Finalize and is killed with its trace cut
                    # short: that rep is left out, and said so.
                    say("predict of %s on %s failed, rep %d left out "
                        "(see %s.*)" % (app, t, rep, tgt))
                    skipped.append("%s/%s/%d" % (app, t, rep))
                    continue
                pred.append(p["predicted"]["run_time_ns"])
                path.append(p["critical_path"])
                bounds.append((p["predicted"]["run_time_lo_ns"],
                               p["predicted"]["run_time_hi_ns"]))
                iv = p["predicted"].get("interval", {})
                lo.append(iv.get("lo_ns", p["predicted"]["run_time_lo_ns"]))
                hi.append(iv.get("hi_ns", p["predicted"]["run_time_hi_ns"]))
                meas.append(m["validation"]["measured_run_time_ns"])
                # The compute on the critical path (what X is a
                # fraction of), replayed from the source and from the
                # target's run.  Not the last rank's own: which rank
                # ends last can change from run to run while the run
                # time hardly does, and ranks may compute different
                # amounts.
                csrc.append(p["critical_path"]["compute_ns"])
                ctgt.append(m["critical_path"]["compute_ns"])
                for k, v in fn_times(p, "predicted_ns").items():
                    pfn.setdefault(k, []).append(v)
                for k, v in fn_times(m, "measured_ns").items():
                    mfn.setdefault(k, []).append(v)
                own.append(m["predicted"]["run_time_ns"])
                for k, v in fn_times(m, "predicted_ns").items():
                    ofn.setdefault(k, []).append(v)
                # The share of each rank's first calls (the MPI
                # library's start can make them dearer than the
                # table's steady state).
                for f in m.get("functions", []):
                    if f["measured_ns"] > 0 and f["calls"] and \
                            "early_measured_ns" in f:
                        mearly.setdefault(f["fn"], []).append((
                            f["early_measured_ns"] / f["measured_ns"],
                            f["early_calls"] / f["calls"]))
                mmpi.append(sum(fn_times(m, "measured_ns").values()))
            if not meas:
                die("no rep of %s on %s could be predicted" % (app, t))
            mp, mm = median(pred), median(meas)
            r = {"app": app, "set": aset, "target": t,
                 "predicted_ns": pred, "measured_ns": meas,
                 "lo_ns": lo, "hi_ns": hi, "path": path, "bounds": bounds,
                 "compute_src": csrc, "compute_tgt": ctgt,
                 "model_error": list(model_err),
                 "error": (mp - mm) / mm,
                 "inside": [lo[i] <= meas[i] <= hi[i]
                            for i in range(len(meas))],
                 "functions": [],
                 # The same runs predicted from their own target's
                 # table: the model's error without the source's.
                 "own": {"predicted_ns": own,
                         "error": (median(own) - mm) / mm,
                         "functions": []}}
            tot = median(mmpi)
            for fn in sorted(mfn):
                mv = median(mfn[fn])
                if tot <= 0 or mv < FN_SHARE * tot:
                    continue
                pv = median(pfn.get(fn, []))
                r["functions"].append({"fn": fn, "measured_ns": mv,
                                       "predicted_ns": pv,
                                       "share": mv / tot,
                                       "early": [median([x[i] for x in
                                                         mearly[fn]])
                                                 for i in (0, 1)]
                                       if fn in mearly else None,
                                       "error": (pv - mv) / mv})
                ov = median(ofn.get(fn, []))
                r["own"]["functions"].append({"fn": fn,
                                              "predicted_ns": ov,
                                              "error": (ov - mv) / mv})
            same = [x for x in results if x["app"] == app and
                    x["target"] == table_of(t) and "smpi" in x]
            if smpi and same:
                # The same table: the same simulation.
                r["smpi"] = {k: v for k, v in same[0]["smpi"].items()
                             if k != "error"}
            elif smpi:
                r["smpi"] = smpi.predict(rn, app, args, table_of(t), tj,
                                         work, o.reps)
            if smpi and "predicted_ns" in r["smpi"]:
                r["smpi"]["error"] = (r["smpi"]["predicted_ns"] -
                                      mm) / mm
            results.append(r)

    # The report.
    print()
    print("Prediction from the shared-memory trace and the target's "
          "`bench --like` table (%d launch%s of %d),"
          % (o.bench_runs, "" if o.bench_runs == 1 else "es", o.nrep))
    print("against the app run on the target (medians of %d runs; load "
          "average %.1f to %.1f"
          % (o.reps, min(rn.loads or [0]), max(rn.loads or [0])))
    print("while timing, median %.1f)." % median(rn.loads or [0]))
    print()
    hdr = "%-11s %-8s %-8s %10s %10s %8s %-4s %21s %-3s %9s" % (
        "app", "set", "on", "measured", "predicted", "error", "", "interval",
        "in", "SMPI")
    print(hdr)
    status = 0
    n_in = n_cases = 0
    ok_run = []   # per held-out case: synctrace's run time within target
    ok_smpi = []  # and SMPI's, where it predicted
    for r in results:
        lim = RUN_TARGET[r["target"]]
        ok = abs(r["error"]) <= lim
        held = r["set"] == "held-out"
        inside = sum(r["inside"])
        se = r.get("smpi", {}).get("error", float("nan"))
        if held:
            n_in += inside
            n_cases += len(r["inside"])
            ok_run.append(ok)
            if "error" in r.get("smpi", {}):
                ok_smpi.append(abs(se) <= lim)
            if not ok:
                status = 1
        print("%-11s %-8s %-8s %8.1fms %8.1fms %8s %-4s [%7.1f,%7.1f]ms "
              "%d/%d %9s" % (
                  r["app"], r["set"], r["target"],
                  median(r["measured_ns"]) / 1e6,
                  median(r["predicted_ns"]) / 1e6, pct(r["error"]),
                  "PASS" if ok else "MISS", median(r["lo_ns"]) / 1e6,
                  median(r["hi_ns"]) / 1e6, inside, len(r["inside"]),
                  pct(se)))
    print()
    print("Per MPI function holding >= 10 % of the measured MPI time "
          "(target: within 15 %); first 64: the share of its measured")
    print("time in each rank's first 64 calls of it, then the share of "
          "its calls they are (the MPI")
    print("library's start can make them dearer than the table's steady "
          "state):")
    print("%-11s %-8s %-16s %6s %10s %10s %8s %9s" % (
        "app", "on", "function", "share", "measured", "predicted", "error",
        "first 64"))
    ok_fn = []
    lean = {}           # target: the held-out functions' signed errors
    for r in results:
        for f in r["functions"]:
            ok = abs(f["error"]) <= FN_TARGET
            if r["set"] == "held-out":
                ok_fn.append(ok)
                lean.setdefault(r["target"], []).append(f["error"])
                if not ok:
                    status = 1
            early = f["early"]  # None: predict did not say
            print("%-11s %-8s %-16s %5.0f%% %8.1fms %8.1fms %8s %9s "
                  "%s%s" % (
                      r["app"], r["target"], f["fn"], 100 * f["share"],
                      f["measured_ns"] / 1e6, f["predicted_ns"] / 1e6,
                      pct(f["error"]),
                      "%.0f%%/%.0f%%" % (100 * early[0], 100 * early[1])
                      if early else "-",
                      "PASS" if ok else "MISS",
                "" if r["set"] == "held-out" else " (tuning)"))
    cover = n_in / n_cases if n_cases else float("nan")
    print()
    for t in targets:
        c = [x for r in results if r["target"] == t and
             r["set"] == "held-out" for x in r["inside"]]
        print("interval holds the measured run time on %s: %d of %d "
              "held-out cases (C=%.3f, X=%.3f)" % (t, sum(c), len(c),
                                                   errs[t][0], errs[t][1]))
    print("interval holds the measured run time: %d of %d held-out cases "
          "(target: 9 of 10): %s" % (n_in, n_cases,
                                     "PASS" if cover >= COVER_TARGET
                                     else "MISS"))
    if cover < COVER_TARGET:
        status = 1
    print("held-out run times within target: %d of %d%s" % (
        sum(ok_run), len(ok_run),
        "; SMPI %d of %d" % (sum(ok_smpi), len(ok_smpi)) if ok_smpi
        else ""))
    print("held-out functions within %.0f %%: %d of %d" % (
        100 * FN_TARGET, sum(ok_fn), len(ok_fn)))
    # Which way they miss: a median far from 0 is a bias of the model
    # (docs/validation.md, "Most per-function errors lean short").
    for t in targets:
        e = lean.get(t, [])
        if e:
            print("held-out functions on %s: median error %s, %d of %d "
                  "short" % (t, pct(median(e)), sum(x < 0 for x in e),
                             len(e)))
    # The model on its own data: each run on the target predicted from
    # the target's own table (what the comparison above also reads its
    # measured times from), all apps.  Not a target: it tells the
    # model's error from what the source trace and the other place add.
    for t in targets:
        rs = [r for r in results if r["target"] == t]
        if not rs:
            continue
        ok = sum(abs(r["own"]["error"]) <= RUN_TARGET[t] for r in rs)
        fe = [f["error"] for r in rs for f in r["own"]["functions"]
              if not math.isnan(f["error"])]
        print("own data on %s: run times within %.0f %% %d of %d; "
              "functions within %.0f %% %d of %d, median error %s, "
              "%d short" % (
                  t, 100 * RUN_TARGET[t], ok, len(rs), 100 * FN_TARGET,
                  sum(abs(x) <= FN_TARGET for x in fe), len(fe),
                  pct(median(fe)) if fe else "-",
                  sum(x < 0 for x in fe)))
    for t in targets:
        for s in ("tuning", "held-out"):
            e = [abs(r["error"]) for r in results
                 if r["target"] == t and r["set"] == s]
            es = [abs(r["smpi"]["error"]) for r in results
                  if r["target"] == t and r["set"] == s
                  and "error" in r.get("smpi", {})]
            if e:
                print("%s %-8s: median |error| synctrace %.1f%% (max %.1f%%)"
                      "%s" % (t, s, 100 * median(e), 100 * max(e),
                              ", SMPI %.1f%% (max %.1f%%)" %
                              (100 * median(es), 100 * max(es)) if es
                              else ""))
    if skipped:
        print("reps left out (a run cut short): %s" % ", ".join(skipped))
    print("took %.0f s; work in %s" % (time.time() - t_start, work))
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"results": results, "loads": rn.loads,
                       "bench_runs": o.bench_runs, "nrep": o.nrep,
                       "skipped": skipped}, f, indent=1)
    if not o.keep:
        shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
