"""tools/scripts/smpi_compare.py: SimGrid's SMPI as the peer to beat.

Used by tools/scripts/predict-validate.py (its --smpi part); run alone,
it prints the SMPI platform it calibrates from a table:

    python3 tools/scripts/smpi_compare.py TABLE.json

SMPI (Degomme et al., "Simulating MPI applications: the SMPI approach",
IEEE TPDS 28(8), 2017) runs the application itself, compiled with
smpicc, its ranks as threads of one simulator process: compute is
timed as it runs (and scaled by smpi/host-speed, here the hosts' own
speed, so kept as measured), communication simulated on a platform.
The platform is calibrated from the same `synctrace bench --like` table
the prediction uses, as SMPI's documentation calibrates it from
ping-pongs (SimGrid 3.32, "Calibration of SMPI"):

  - two hosts, one full-duplex link (SPLITDUPLEX: each direction its
    own bandwidth, as the ports of synctrace's model);
  - smpi/os, smpi/or, smpi/ois (the send, receive and Isend overheads,
    piecewise in the size): the table's late sends that did not wait,
    late receives (at eager sizes) and MPI_Isend calls;
    (at most 80 % of the ping-pong at each size between them);
  - the link's latency L and bandwidth B, and SMPI's piecewise
    smpi/lat-factor and smpi/bw-factor, so that the transfer less those
    overheads, os(d) + L lat(d) + d / (B bw(d)) + or(d), is the table's
    ping-pong half C(d) at every size it measured;
  - smpi/send-is-detached-thresh: the eager limit (the sizes whose late
    sends did not wait);
  - collectives as MPICH does them (smpi/coll-selector:mpich).
An app of collectives alone (bsp, transpose) has no point-to-point rows
in its table: its platform comes from the other apps' tables of the
same target (the median of their medians at each size).
"""

import json
import math
import os
import re
import statistics
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rows(table):
    with open(table) as f:
        t = json.load(f)
    out = {}
    for op in t.get("operations", []):
        g = sorted((x["d_bytes"], x["median_ns"]) for x in op.get("groups", [])
                   if x.get("median_ns") is not None and x.get("p", 2) == 2)
        out[(op["kind"], op["fn"])] = g
    return out


def at(groups, d):
    """The groups' median at d, linear between sizes, flat beyond."""
    if not groups:
        return None
    if d <= groups[0][0]:
        return groups[0][1]
    for (d0, t0), (d1, t1) in zip(groups, groups[1:]):
        if d0 <= d <= d1:
            return t0 + (t1 - t0) * (d - d0) / (d1 - d0) if d1 > d0 else t0
    return groups[-1][1]


def piecewise(groups, scale=1e-9):
    """SMPI's "size:intercept:slope;..." from (d, ns) groups."""
    if not groups:
        return "0:0:0"
    parts = []
    for i, (d, t) in enumerate(groups):
        lo = 0 if i == 0 else int(math.sqrt(groups[i - 1][0] * d))
        parts.append("%d:%.9g:0" % (lo, t * scale))
    return ";".join(parts)


def merged(tables):
    """The rows of several tables, the median of their medians at each
    size."""
    by = {}
    for t in tables:
        for k, g in rows(t).items():
            for d, ns in g:
                by.setdefault(k, {}).setdefault(d, []).append(ns)
    return {k: sorted((d, statistics.median(v)) for d, v in g.items())
            for k, g in by.items()}


def calibrate(table, others=()):
    """The platform and the --cfg options, from a table's rows; a table
    without point-to-point rows (an app of collectives alone) takes them
    from 'others', tables of the same target."""
    r = rows(table)
    if not r.get(("p2p", "MPI_Send")) and others:
        r = merged(others)
    pp = r.get(("p2p", "MPI_Send"), [])
    eager = r.get(("send-eager", "MPI_Send"), [])
    rndv = r.get(("send-rendezvous", "MPI_Send"), [])
    late = r.get(("recv-late", "MPI_Recv"), [])
    call = r.get(("call", "MPI_Isend"), [])
    if not pp:
        raise ValueError("%s: no MPI_Send->MPI_Recv row" % table)
    emax = max((d for d, _ in eager), default=-1)
    rmin = min((d for d, _ in rndv), default=math.inf)
    if math.isinf(rmin):
        thresh = 1 << 30
    elif emax < 0:
        thresh = int(rmin)
    else:
        thresh = int(math.sqrt(emax * rmin)) if emax < rmin else int(rmin)
    late_eager = [(d, t) for d, t in late if d <= max(emax, 0)]

    # The overheads at each ping-pong size, at most 80 % of its time
    # (they were measured apart, and a busy machine makes them dear).
    oss, ors, comm = [], [], []
    for d, t in pp:
        os_ = (at(eager, min(d, emax)) if eager else 0) or 0
        or_ = (at(late_eager, d) if late_eager else 0) or 0
        if os_ + or_ > 0.8 * t:
            k = 0.8 * t / (os_ + or_)
            os_, or_ = os_ * k, or_ * k
        oss.append((d, os_))
        ors.append((d, or_))
        comm.append((d, t - os_ - or_))
    lat = comm[0][1]
    if len(comm) >= 2 and comm[-1][0] > comm[0][0]:
        (d0, t0), (d1, t1) = comm[-2], comm[-1]
        bw = (d1 - d0) / (t1 - t0) if t1 > t0 else 1e3   # bytes per ns
    else:
        bw = 1e3  # one size: all of it is latency
    bw = max(bw, 1e-3)
    latf, bwf = [], []
    for i, (d, t) in enumerate(comm):
        key = 0 if i == 0 else int(math.sqrt(comm[i - 1][0] * d))
        rest = t - lat
        if d > 0 and rest > 0.05 * t:
            latf.append((key, 1.0))
            bwf.append((key, min(max(d / (rest * bw), 0.01), 100.0)))
        else:
            lf = max(t - (d / bw if d else 0), 0.05 * t) / lat
            latf.append((key, lf))
            bwf.append((key, 100.0 if d else 1.0))
    cfg = {
        "network/model": "SMPI",
        "smpi/coll-selector": "mpich",
        "smpi/host-speed": "1Gf",
        "smpi/display-timing": "yes",
        "smpi/send-is-detached-thresh": str(thresh),
        "smpi/os": piecewise(oss),
        "smpi/or": piecewise(ors),
        "smpi/ois": piecewise(call),
        "smpi/lat-factor": ";".join("%d:%.6g" % x for x in latf),
        "smpi/bw-factor": ";".join("%d:%.6g" % x for x in bwf),
    }
    plat = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="h0" speed="1Gf"/>
    <host id="h1" speed="1Gf"/>
    <link id="l" bandwidth="%.6gBps" latency="%.6gs" sharing_policy="SPLITDUPLEX"/>
    <route src="h0" dst="h1" symmetrical="NO"><link_ctn id="l" direction="UP"/></route>
    <route src="h1" dst="h0" symmetrical="NO"><link_ctn id="l" direction="DOWN"/></route>
  </zone>
</platform>
""" % (bw * 1e9, lat * 1e-9)
    return plat, cfg


def build(app, out):
    src = os.path.join(TOP, "tests", "integration", "apps", app + ".c")
    return subprocess.run(["smpicc", "-O2", "-o", out, src, "-lm"],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.STDOUT).returncode == 0


def predict(rn, app, args, target, table, work, reps):
    """SMPI's simulated times of app on the platform of 'table'."""
    d = os.path.join(work, "smpi")
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, app)
    if not os.path.exists(exe) and not build(app, exe):
        return {"error_msg": "smpicc failed"}
    others = sorted(os.path.join(work, f) for f in os.listdir(work)
                    if f.startswith("bench-") and
                    f.endswith("-%s.json" % target))
    try:
        plat, cfg = calibrate(table, others)
    except (ValueError, KeyError) as e:
        return {"error_msg": str(e)}
    pf = os.path.join(d, "%s-%s.xml" % (app, target))
    with open(pf, "w") as f:
        f.write(plat)
    hf = os.path.join(d, "hosts")
    with open(hf, "w") as f:
        f.write("h0\nh1\n")
    times = []
    for rep in range(reps):
        log = os.path.join(d, "%s-%s-%d.log" % (app, target, rep + 1))
        argv = ["smpirun", "-np", "2", "-platform", pf, "-hostfile", hf]
        argv += ["--cfg=%s:%s" % kv for kv in cfg.items()]
        argv += [exe] + list(args)
        if not rn.run(argv, log, timeout=900, tries=1):
            continue
        with open(log) as f:
            m = re.search(r"Simulated time: ([0-9.e+-]+) seconds", f.read())
        if m:
            times.append(float(m.group(1)) * 1e9)
    if not times:
        return {"error_msg": "smpirun gave no time"}
    return {"predicted_ns": statistics.median(times), "runs": times,
            "cfg": cfg}


if __name__ == "__main__":
    p, c = calibrate(sys.argv[1])
    print(p)
    for k, v in c.items():
        print("--cfg=%s:%s" % (k, v))
