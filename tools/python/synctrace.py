"""synctrace.py: load a synctrace run's records into Python.

    import synctrace
    rows = synctrace.load("synctrace-20261121-101500-4242")   # list of dicts
    df = synctrace.load_frame("synctrace-20261121-101500-4242")  # pandas

Standard library only; load_frame() needs pandas and says so without it.

How it reads: it runs `synctrace dump --csv RUN` and types the columns
(COLUMNS below), rather than decoding the trace files itself.  The trace
format is delta-encoded, compressed and versioned, with one reader in C
(writer/reader.c) that every synctrace command shares and the test suite
exercises on damaged input; a second decoder here would have to follow
every format change and would compute global time a second way.  The
CSV is the documented interface (docs/views.md), so this module only
has to parse it.

The command is found as $SYNCTRACE, else `synctrace` on the PATH, else
build/synctrace of the source tree this file lives in.
"""
import csv
import io
import os
import shutil
import subprocess

__all__ = ["COLUMNS", "SynctraceError", "find_synctrace", "load",
           "load_frame", "parse_csv"]

# The columns of `synctrace dump --csv`, in order, with their types:
#   uint   a decimal integer >= 0 (up to 2^64 - 1)
#   int    a decimal integer, negative for the special values of
#          docs/views.md (root -2: MPI_ROOT...)
#   float  a decimal number
#   hex    an integer written 0x... (communicator ids)
#   str    text
# An empty field is None: the field does not apply to the record, or is
# unknown (g0_ns, g1_ns on a rank without global time).
COLUMNS = [
    ("rank", "uint"), ("thread", "uint"), ("kind", "str"), ("fn", "str"),
    ("t0_ns", "uint"), ("t1_ns", "uint"), ("comm", "hex"),
    ("comm_size", "uint"), ("seq", "uint"), ("inst", "uint"),
    ("root", "int"), ("peer", "int"), ("tag", "int"), ("sbytes", "uint"),
    ("rbytes", "uint"), ("tsize", "uint"), ("op", "str"), ("req", "uint"),
    ("site", "uint"), ("rc", "int"), ("g0_ns", "float"),
    ("g1_ns", "float"), ("arg", "int"), ("offset", "int"), ("len", "uint"),
    ("text", "str"),
]


def _uint(s):
    v = int(s)
    if v < 0:
        raise ValueError(s)
    return v


_CONVERT = {"uint": _uint, "int": int, "float": float,
            "hex": lambda s: int(s, 16), "str": str}


class SynctraceError(Exception):
    """The command failed, or its output is not what this module reads."""


def find_synctrace():
    """Path of the synctrace command (see the module's doc)."""
    env = os.environ.get("SYNCTRACE")
    if env:
        return env
    found = shutil.which("synctrace")
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "synctrace")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    raise SynctraceError("cannot find the synctrace command: set SYNCTRACE "
                         "or put it on the PATH")


def parse_csv(text):
    """Typed rows (dicts) of the CSV text `synctrace dump --csv` prints.

    Raises SynctraceError when the header is not the expected one, and
    when a field of a numeric column is not a number (naming the line
    and the column).
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    names = [n for n, _ in COLUMNS]
    try:
        header = next(reader)
    except StopIteration:
        raise SynctraceError("empty output: no CSV header") from None
    if header != names:
        raise SynctraceError("unexpected CSV header: %s" % ",".join(header))
    rows = []
    for line, fields in enumerate(reader, start=2):
        if len(fields) != len(COLUMNS):
            raise SynctraceError("line %d has %d fields, not %d"
                                 % (line, len(fields), len(COLUMNS)))
        row = {}
        for (name, kind), value in zip(COLUMNS, fields):
            if value == "":
                row[name] = None
                continue
            try:
                row[name] = _CONVERT[kind](value)
            except ValueError:
                raise SynctraceError("line %d: column %s holds %r, not %s"
                                     % (line, name, value,
                                        "a number" if kind != "str"
                                        else kind)) from None
        rows.append(row)
    return rows


def load(run, rank=None, synctrace=None):
    """Every record of run directory (or rank file) 'run', as typed dicts
    in the dump's order (rank by rank, each in file order); 'rank' picks
    one rank.  Raises SynctraceError when the command fails."""
    cmd = [synctrace or find_synctrace(), "dump", "--csv"]
    if rank is not None:
        cmd += ["--rank", str(int(rank))]
    cmd.append(os.fspath(run))
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=False)
    if proc.returncode != 0:
        raise SynctraceError("%s failed (exit %d): %s"
                             % (" ".join(cmd), proc.returncode,
                                proc.stderr.strip()))
    return parse_csv(proc.stdout)


def load_frame(run, rank=None, synctrace=None):
    """The records of 'run' as a pandas DataFrame, one column per CSV
    column: nullable UInt64 for counts, times and ids (communicator ids
    included), nullable Int64 for root, peer, tag and rc, float64 for the
    global times, strings (object) for the rest."""
    try:
        import pandas
    except ImportError:
        raise SynctraceError("load_frame() needs pandas (apt-get install "
                             "python3-pandas); load() gives the rows "
                             "without it") from None
    rows = load(run, rank=rank, synctrace=synctrace)
    data = {name: [r[name] for r in rows] for name, _ in COLUMNS}
    frame = pandas.DataFrame(data, columns=[n for n, _ in COLUMNS])
    types = {name: ("UInt64" if kind in ("uint", "hex") else
                    "Int64" if kind == "int" else
                    "float64" if kind == "float" else "object")
             for name, kind in COLUMNS}
    return frame.astype(types)
