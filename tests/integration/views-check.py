#!/usr/bin/env python3
"""tests/integration/views-check.py: check what `synctrace export` wrote
against `synctrace dump --csv` of the same run (standard library only).

    views-check.py chrome TRACE.json DUMP.csv
        The trace-event format's rules: valid JSON; only X, M and flow
        (s, t, f) events, or B/E in pairs; time stamps numbers in
        microseconds, non-decreasing per track (pid, tid) in file order;
        every flow id has one start and one end.  Against the dump: one
        slice per call record of each rank, named by its function, at
        its global entry time (ts * 1000 + origin_ns = g0_ns within
        2 ns), as long as its global duration; one message flow per send
        of a point-to-point message, one collective flow per instance
        (a window's and a file's collectives too).

    views-check.py otf2 PRINT.txt DUMP.csv ORIGIN_NS
        PRINT.txt is `otf2-print` output.  Per rank and kind, OTF2 events
        equal the dump's records: ENTER and LEAVE per call, MPI_SEND,
        MPI_ISEND, MPI_RECV, MPI_IRECV_REQUEST per call of their function
        (MPI_ISEND and MPI_IRECV_REQUEST per start of a persistent one),
        MPI_ISEND_COMPLETE and MPI_IRECV per completed request,
        MPI_COLLECTIVE_BEGIN/END per blocking collective call and
        NON_BLOCKING_COLLECTIVE_REQUEST/COMPLETE per nonblocking or
        persistent instance (intra-communicators only); one-sided: an
        RMA_WIN_CREATE, _DESTROY and RMA_COLLECTIVE_BEGIN/END per
        constructor, free and fence, RMA_PUT, RMA_GET, RMA_ATOMIC per
        call to a rank with its completion (blocking, or at its Wait),
        RMA_ACQUIRE_LOCK/RELEASE_LOCK per lock and unlock; MPI-IO:
        IO_CREATE_HANDLE, IO_DESTROY_HANDLE, IO_DELETE_FILE, IO_SEEK per
        call of theirs, IO_OPERATION_BEGIN/COMPLETE per read or write
        (ISSUED for nonblocking and split ones, COMPLETE at their Wait or
        _end) and per MPI_File_sync; each ENTER's time stamp + ORIGIN_NS
        is the call's g0_ns (within 1 ns).

    views-check.py png SHOT.png X,Y,W,H '#rrggbb' ...
        In the box X,Y,W,H (CSS pixels at scale 1) the screenshot holds at
        least 20 pixels of each colour given (a PNG of 8-bit RGB or RGBA,
        decoded here with zlib).

Prints one line of figures and exits 0, or prints what differs and exits 1.
"""
import collections
import csv
import json
import struct
import sys
import zlib

SENDS = {"MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend"}
ISENDS = {"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend"}
SENDRECVS = {"MPI_Sendrecv", "MPI_Sendrecv_replace"}
# A nonblocking send and receive: an MPI_ISEND and, OTF2 having no
# nonblocking form of it, an MPI_RECV at the call, MPI_ISEND_COMPLETE at
# its completion.
ISENDRECVS = {"MPI_Isendrecv", "MPI_Isendrecv_replace"}
RECVS = {"MPI_Recv", "MPI_Mrecv"}
IRECVS = {"MPI_Irecv", "MPI_Imrecv"}
# Persistent sends: each START record is a message, the init none.
SEND_INITS = {"MPI_Send_init", "MPI_Bsend_init", "MPI_Ssend_init",
              "MPI_Rsend_init"}
BLOCKING_COLLS = {"MPI_" + n for n in (
    "Allgather", "Allgatherv", "Allreduce", "Alltoall", "Alltoallv",
    "Alltoallw", "Barrier", "Bcast", "Exscan", "Gather", "Gatherv",
    "Reduce", "Reduce_scatter", "Reduce_scatter_block", "Scan", "Scatter",
    "Scatterv", "Neighbor_allgather", "Neighbor_allgatherv",
    "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw")}


ICOLLS = {"MPI_I" + n[4].lower() + n[5:] for n in BLOCKING_COLLS}
# Collectives over a window or a file, matched as collectives are.
WIN_CTORS = {"MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared",
             "MPI_Win_create_dynamic"}
GROUP_COLLS = WIN_CTORS | {"MPI_Win_free", "MPI_Win_fence"} | {
    "MPI_File_" + n for n in (
        "open", "close", "set_size", "preallocate", "sync", "set_view",
        "set_atomicity", "seek_shared", "read_at_all", "write_at_all",
        "read_all", "write_all", "read_ordered", "write_ordered",
        "read_at_all_begin", "write_at_all_begin", "read_all_begin",
        "write_all_begin", "read_ordered_begin", "write_ordered_begin")}
RMA_PUT = {"MPI_Put", "MPI_Rput"}
RMA_GET = {"MPI_Get", "MPI_Rget"}
RMA_ATOMIC = {"MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op",
              "MPI_Compare_and_swap", "MPI_Raccumulate",
              "MPI_Rget_accumulate"}
RMA_SYNC = {"MPI_Win_fence", "MPI_Win_free", "MPI_Win_complete",
            "MPI_Win_unlock", "MPI_Win_unlock_all", "MPI_Win_flush",
            "MPI_Win_flush_all", "MPI_Win_flush_local",
            "MPI_Win_flush_local_all"}


def file_rw(fn):
    """'read' or 'write' for an MPI-IO read or write function, else ''."""
    if not fn.startswith("MPI_File_"):
        return ""
    for mode in ("read", "write"):
        if mode in fn[len("MPI_File_"):]:
            return mode
    return ""


def fail(msg):
    print("views-check: " + msg, file=sys.stderr)
    sys.exit(1)


def base(fn):
    return fn[:-2] if fn.endswith("_c") else fn


def load_dump(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def calls_by_rank(rows):
    out = collections.defaultdict(list)
    for r in rows:
        if r["kind"] == "call" and r["g0_ns"]:
            out[int(r["rank"])].append(r)
    return out


def check_chrome(path, dump):
    try:
        with open(path) as f:
            doc = json.load(f)
    except ValueError as e:
        fail("%s is not valid JSON: %s" % (path, e))
    evs = doc.get("traceEvents")
    if not isinstance(evs, list):
        fail("no traceEvents array")
    origin = float(doc.get("otherData", {}).get("origin_ns", "nan"))
    last = {}
    open_b = collections.defaultdict(int)
    flows = collections.defaultdict(lambda: collections.Counter())
    slices = collections.defaultdict(list)
    for i, e in enumerate(evs):
        ph = e.get("ph")
        if ph not in ("X", "M", "s", "t", "f", "B", "E"):
            fail("event %d has phase %r" % (i, ph))
        if ph == "M":
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)):
            fail("event %d has no numeric ts" % i)
        track = (e.get("pid"), e.get("tid"))
        if track in last and ts < last[track]:
            fail("track %s goes back in time at event %d: %s < %s"
                 % (track, i, ts, last[track]))
        last[track] = ts
        if ph == "B":
            open_b[track] += 1
        elif ph == "E":
            open_b[track] -= 1
            if open_b[track] < 0:
                fail("E without B on track %s" % (track,))
        elif ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                fail("event %d: bad dur %r" % (i, dur))
            slices[e["pid"]].append(e)
        else:
            flows[(e.get("cat"), e.get("id"))][ph] += 1
    if any(open_b.values()):
        fail("B without E")
    for key, c in flows.items():
        if c["s"] != 1 or c["f"] != 1:
            fail("flow %s has %d starts and %d ends" % (key, c["s"], c["f"]))
    calls = calls_by_rank(dump)
    paths = {r["comm"]: r["text"] for r in dump
             if r["kind"] == "comm" and r["fn"] == "MPI_File_open"}
    nargs = 0
    worst = 0.0
    for rank, rows in calls.items():
        got = slices.get(rank, [])
        if len(got) != len(rows):
            fail("rank %d: %d slices for %d call records"
                 % (rank, len(got), len(rows)))
        for s, r in zip(got, rows):
            if s["name"] != r["fn"]:
                fail("rank %d: slice %s for call %s" % (rank, s["name"],
                                                         r["fn"]))
            g0, g1 = float(r["g0_ns"]), float(r["g1_ns"])
            d = abs(s["ts"] * 1000 + origin - g0)
            worst = max(worst, d)
            if d > 2:
                fail("rank %d %s: ts %.3f us is %.1f ns, g0_ns %.1f"
                     % (rank, r["fn"], s["ts"], s["ts"] * 1000 + origin, g0))
            if abs(s["dur"] * 1000 - max(g1 - g0, 0)) > 2:
                fail("rank %d %s: dur %.3f us, g1 - g0 = %.1f ns"
                     % (rank, r["fn"], s["dur"], g1 - g0))
            nargs += check_args(rank, s, r, paths)
    nsend = sum(1 for r in dump if r["kind"] == "call"
                and base(r["fn"]) in SENDS | ISENDS | SENDRECVS | ISENDRECVS
                and r["peer"] and int(r["peer"]) >= 0)
    nsend += sum(1 for r in dump if r["kind"] == "start"
                 and base(r["fn"]) in SEND_INITS
                 and r["peer"] and int(r["peer"]) >= 0)
    nmsg = sum(1 for k in flows if k[0] == "p2p")
    if nmsg != nsend:
        fail("%d message flows for %d sends" % (nmsg, nsend))
    # Instances on intra-communicators of 2 or more ranks whose every
    # member's record is there (an inter-communicator's instance has
    # more records than its local group).
    members = collections.Counter(
        (r["comm"], r["seq"], r["comm_size"]) for r in dump
        if r["kind"] == "call"
        and base(r["fn"]) in BLOCKING_COLLS | GROUP_COLLS
        and r["g0_ns"])
    inst = [k for k, n in members.items() if int(k[2]) >= 2
            and n == int(k[2])]
    ncoll = sum(1 for k in flows if k[0] == "coll")
    if ncoll != len(inst):
        fail("%d collective flows for %d instances" % (ncoll, len(inst)))
    print("chrome: %d events, %d slices on %d ranks, %d message flows, "
          "%d collective flows, ts within %.1f ns of g0, %d one-sided and "
          "I/O slices with their target or file and bytes"
          % (len(evs), sum(len(v) for v in slices.values()), len(slices),
             nmsg, ncoll, worst, nargs))


def check_args(rank, s, r, paths):
    """A one-sided slice names its target, a file slice its file, and
    both their bytes, as the dump row 'r' says; 1 when checked."""
    fn, a = base(r["fn"]), s.get("args", {})
    peer = int(r["peer"]) if r["peer"] else None
    if fn in RMA_PUT | RMA_GET | RMA_ATOMIC:
        if a.get("target") != peer:
            fail("rank %d %s: target %r, the dump says %r"
                 % (rank, fn, a.get("target"), peer))
    elif file_rw(fn) and r["comm"] in paths:
        if a.get("file") != paths[r["comm"]]:
            fail("rank %d %s: file %r, the dump says %r"
                 % (rank, fn, a.get("file"), paths[r["comm"]]))
    else:
        return 0
    if (a.get("sbytes"), a.get("rbytes")) != (int(r["sbytes"]),
                                              int(r["rbytes"])):
        fail("rank %d %s: bytes %r/%r, the dump says %s/%s"
             % (rank, fn, a.get("sbytes"), a.get("rbytes"), r["sbytes"],
                r["rbytes"]))
    return 1


def inter_comms(dump):
    """Communicators with more member ranks than their local group."""
    ranks = collections.defaultdict(set)
    size = {}
    for r in dump:
        if r["comm"] and r["comm_size"]:
            ranks[r["comm"]].add(r["rank"])
            size[r["comm"]] = int(r["comm_size"])
    return {c for c in ranks if len(ranks[c]) > size[c]}


def expected_otf2(dump):
    inter = inter_comms(dump)
    exp = collections.defaultdict(collections.Counter)
    enter = collections.defaultdict(list)
    req_fn = {}
    for r in dump:
        rank, kind, fn = int(r["rank"]), r["kind"], base(r["fn"])
        if kind == "call":
            c = exp[rank]
            c["ENTER"] += 1
            c["LEAVE"] += 1
            enter[rank].append(float(r["g0_ns"]))
            peer = int(r["peer"]) if r["peer"] else -1
            if fn in SENDS | SENDRECVS and peer >= 0:
                c["MPI_SEND"] += 1
            # The CSV has no peer2: the test apps' Sendrecv partners
            # are their send peers.
            if fn in SENDRECVS | ISENDRECVS and peer >= 0:
                c["MPI_RECV"] += 1
            if fn in ISENDS | ISENDRECVS and peer >= 0:
                c["MPI_ISEND"] += 1
            if fn in RECVS and peer >= 0:
                c["MPI_RECV"] += 1
            if fn in IRECVS and peer != -3:
                c["MPI_IRECV_REQUEST"] += 1
            if fn in BLOCKING_COLLS and r["comm"] not in inter:
                c["MPI_COLLECTIVE_BEGIN"] += 1
                c["MPI_COLLECTIVE_END"] += 1
            if fn in ICOLLS and r["comm"] not in inter and r["req"]:
                c["NON_BLOCKING_COLLECTIVE_REQUEST"] += 1
            expect_osio(c, fn, peer, r)
            # A cancel or free names a request some call made.
            if r["req"] and fn not in ("MPI_Cancel", "MPI_Request_free"):
                req_fn[(rank, r["req"])] = (fn, peer)
        elif kind == "start":
            # A persistent send or receive starts as its I-call would.
            peer = int(r["peer"]) if r["peer"] else -1
            if fn in SEND_INITS:
                if peer >= 0:
                    exp[rank]["MPI_ISEND"] += 1
                req_fn[(rank, r["req"])] = ("MPI_Isend", peer)
            elif fn == "MPI_Recv_init":
                if peer != -3:
                    exp[rank]["MPI_IRECV_REQUEST"] += 1
                req_fn[(rank, r["req"])] = ("MPI_Irecv", peer)
            elif fn in ("MPI_Psend_init", "MPI_Precv_init"):
                pass    # partitioned: OTF2 has no events for them
            elif r["comm"] not in inter:
                exp[rank]["NON_BLOCKING_COLLECTIVE_REQUEST"] += 1
                req_fn[(rank, r["req"])] = ("start", 0)
        elif kind == "done" and r["arg"] == "1":
            # Cancelled: nothing moved.
            if req_fn.pop((rank, r["req"]), ("", -1))[0] in IRECVS | ISENDS:
                exp[rank]["MPI_REQUEST_CANCELLED"] += 1
        elif kind == "done":
            fn, peer = req_fn.pop((rank, r["req"]), ("", -1))
            if (fn in ICOLLS and r["comm"] not in inter) or fn == "start":
                exp[rank]["NON_BLOCKING_COLLECTIVE_COMPLETE"] += 1
            if fn in ISENDS | ISENDRECVS and peer >= 0:
                exp[rank]["MPI_ISEND_COMPLETE"] += 1
            if fn in IRECVS and peer != -3:
                exp[rank]["MPI_IRECV"] += 1
            if fn in RMA_PUT | RMA_GET | RMA_ATOMIC and peer >= 0:
                exp[rank]["RMA_OP_COMPLETE_NON_BLOCKING"] += 1
            if file_rw(fn) and fn.startswith("MPI_File_i"):
                exp[rank]["IO_OPERATION_COMPLETE"] += 1
    return exp, enter


def expect_osio(c, fn, peer, r):
    """The OTF2 events of one-sided and file call 'fn' into 'c'."""
    if r["rc"] not in ("", "0"):
        return
    if fn in WIN_CTORS:
        c["RMA_WIN_CREATE"] += 1
    if fn == "MPI_Win_free":
        c["RMA_WIN_DESTROY"] += 1
    if fn in WIN_CTORS or fn in ("MPI_Win_free", "MPI_Win_fence"):
        c["RMA_COLLECTIVE_BEGIN"] += 1
        c["RMA_COLLECTIVE_END"] += 1
    if peer >= 0:
        for kind, fns in (("RMA_PUT", RMA_PUT), ("RMA_GET", RMA_GET),
                          ("RMA_ATOMIC", RMA_ATOMIC)):
            if fn in fns:
                c[kind] += 1
                if not fn.startswith("MPI_R"):
                    c["RMA_OP_COMPLETE_BLOCKING"] += 1
    if (fn == "MPI_Win_lock" and peer >= 0) or fn == "MPI_Win_lock_all":
        c["RMA_ACQUIRE_LOCK"] += 1
    if (fn == "MPI_Win_unlock" and peer >= 0) or fn == "MPI_Win_unlock_all":
        c["RMA_RELEASE_LOCK"] += 1
    simple = {"MPI_File_open": "IO_CREATE_HANDLE",
              "MPI_File_close": "IO_DESTROY_HANDLE",
              "MPI_File_delete": "IO_DELETE_FILE",
              "MPI_File_seek": "IO_SEEK", "MPI_File_seek_shared": "IO_SEEK"}
    if fn in simple:
        c[simple[fn]] += 1
    if fn == "MPI_File_sync" or (file_rw(fn) and not fn.endswith("_end")):
        c["IO_OPERATION_BEGIN"] += 1
    if fn.endswith("_begin") or (file_rw(fn) and
                                 fn.startswith("MPI_File_i")):
        c["IO_OPERATION_ISSUED"] += 1
    if fn == "MPI_File_sync" or (file_rw(fn) and not fn.endswith("_begin")
                                 and not fn.startswith("MPI_File_i")):
        c["IO_OPERATION_COMPLETE"] += 1


def check_otf2(path, dump, origin):
    got = collections.defaultdict(collections.Counter)
    enter = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 3 or not w[1].isdigit() or not w[2].isdigit():
                continue
            rank = int(w[1]) >> 16
            got[rank][w[0]] += 1
            if w[0] == "ENTER":
                enter[rank].append(int(w[2]))
    exp, want = expected_otf2(dump)
    for rank in sorted(set(exp) | set(got)):
        for kind in sorted(set(exp[rank]) | set(got[rank])):
            if exp[rank][kind] != got[rank][kind]:
                fail("rank %d: %d %s events, the dump says %d"
                     % (rank, got[rank][kind], kind, exp[rank][kind]))
    worst = 0.0
    for rank, ts in enter.items():
        for t, g in zip(ts, want[rank]):
            d = abs(t + origin - g)
            worst = max(worst, d)
            if d > 1:
                fail("rank %d: ENTER at %d + %d, g0_ns %.1f"
                     % (rank, t, origin, g))
    print("otf2: %d ranks, %d events, %s, ENTER within %.1f ns of g0"
          % (len(got), sum(sum(c.values()) for c in got.values()),
             ", ".join("%s=%d" % (k, v) for k, v in
                       sorted(sum(got.values(), collections.Counter())
                              .items())), worst))


def png_pixels(path):
    """Width, height and rows of (r, g, b) of an 8-bit RGB(A) PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(
                ">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail("%s: unsupported PNG (depth %d, type %d)"
                     % (path, depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def check_png(path, box, colours):
    w, h, bpp, rows = png_pixels(path)
    bx, by, bw, bh = (int(float(v)) for v in box.split(","))
    if bw <= 0 or bh <= 0 or bx + bw > w or by + bh > h:
        fail("%s: box %s is not inside the %dx%d shot" % (path, box, w, h))
    rows = [r[bx * bpp:(bx + bw) * bpp] for r in rows[by:by + bh]]
    w = bw
    want = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)): c
            for c in colours}
    got = collections.Counter()
    for line in rows:
        for x in range(0, w * bpp, bpp):
            rgb = (line[x], line[x + 1], line[x + 2])
            if rgb in want:
                got[rgb] += 1
    for rgb, name in want.items():
        if got[rgb] < 20:
            fail("%s: %d pixels of %s" % (path, got[rgb], name))
    print("png: box %s, %s" % (box, ", ".join(
        "%s %d px" % (want[k], got[k]) for k in want)))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "chrome":
        check_chrome(sys.argv[2], load_dump(sys.argv[3]))
    elif len(sys.argv) == 5 and sys.argv[1] == "otf2":
        check_otf2(sys.argv[2], load_dump(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "png":
        check_png(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        fail("usage: views-check.py chrome JSON CSV | otf2 PRINT CSV ORIGIN"
             " | png PNG X,Y,W,H COLOUR...")


if __name__ == "__main__":
    main()
