"""tools/python/test_synctrace.py: tests of synctrace.py (unittest, run by
`make test`).  The CSV cases are made here; the run case reads a real run
when SYNCTRACE_TEST_RUN names one (tests/integration/t-python.sh does)."""
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synctrace  # noqa: E402

HEADER = ",".join(n for n, _ in synctrace.COLUMNS)


class ParseCsv(unittest.TestCase):
    def test_types_and_empty_fields(self):
        rows = synctrace.parse_csv(
            HEADER + "\n"
            "1,0,call,MPI_Send,100,250,0x100000000,2,,,,0,7,400,0,4,,,3,0,"
            "-12.5,137.5,,,,\n"
            "0,0,site,,,,,,,,,,,,,,,,9,,,,,,,\n")
        call, site = rows
        self.assertEqual(call["rank"], 1)
        self.assertEqual(call["fn"], "MPI_Send")
        self.assertEqual(call["comm"], 1 << 32)
        self.assertEqual(call["peer"], 0)
        self.assertIsNone(call["seq"])
        self.assertIsNone(call["op"])
        self.assertEqual(call["g0_ns"], -12.5)
        self.assertIsInstance(call["t1_ns"], int)
        self.assertIsNone(site["t0_ns"])
        self.assertEqual(site["site"], 9)

    def test_negative_special_ranks(self):
        rows = synctrace.parse_csv(
            HEADER + "\n0,0,call,MPI_Bcast,1,2,0x200000001,3,4,,-2,,,8,0,8,"
            ",,,0,,,,,,\n")
        self.assertEqual(rows[0]["root"], -2)
        self.assertIsNone(rows[0]["g1_ns"])

    def test_quoted_path_with_comma(self):
        rows = synctrace.parse_csv(
            HEADER + '\n0,0,object,"/opt/a,b/lib""x"".so",,,,,,,,,,,,,,,,,,,,,,\n')
        self.assertEqual(rows[0]["fn"], '/opt/a,b/lib"x".so')

    def test_not_a_number_is_an_error(self):
        for col, bad in (("sbytes", "n/a"), ("g0_ns", "-"),
                         ("rank", "-1"), ("comm", "0xzz")):
            fields = ["0"] * len(synctrace.COLUMNS)
            names = [n for n, _ in synctrace.COLUMNS]
            for i, (n, kind) in enumerate(synctrace.COLUMNS):
                if kind == "str":
                    fields[i] = "x"
                if kind == "hex":
                    fields[i] = "0x1"
            fields[names.index(col)] = bad
            with self.assertRaises(synctrace.SynctraceError) as e:
                synctrace.parse_csv(HEADER + "\n" + ",".join(fields) + "\n")
            self.assertIn("line 2: column %s" % col, str(e.exception))

    def test_wrong_header(self):
        with self.assertRaises(synctrace.SynctraceError):
            synctrace.parse_csv("rank,thread\n0,0\n")
        with self.assertRaises(synctrace.SynctraceError):
            synctrace.parse_csv("")

    def test_short_line(self):
        with self.assertRaises(synctrace.SynctraceError) as e:
            synctrace.parse_csv(HEADER + "\n0,0,call\n")
        self.assertIn("line 2 has 3 fields", str(e.exception))


class Load(unittest.TestCase):
    def test_failing_command(self):
        with self.assertRaises(synctrace.SynctraceError) as e:
            synctrace.load("/nonexistent-run", synctrace="false")
        self.assertIn("exit 1", str(e.exception))

    def test_frame_with_a_stand_in_pandas(self):
        """load_frame() builds one column per CSV column with the
        documented dtypes; a stand-in pandas records what it was given."""
        seen = {}

        class Frame:
            def __init__(self, data, columns):
                seen["data"], seen["columns"] = data, columns

            def astype(self, dtypes):
                seen["dtypes"] = dtypes
                return self

        fake = types.ModuleType("pandas")
        fake.DataFrame = Frame
        old_load, old_mod = synctrace.load, sys.modules.get("pandas")
        synctrace.load = lambda run, rank=None, synctrace=None: \
            synctrace_rows()
        sys.modules["pandas"] = fake
        try:
            synctrace.load_frame("run")
        finally:
            synctrace.load = old_load
            if old_mod is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = old_mod
        self.assertEqual(seen["columns"], [n for n, _ in synctrace.COLUMNS])
        self.assertEqual(seen["data"]["sbytes"], [400])
        self.assertEqual(seen["dtypes"]["comm"], "UInt64")
        self.assertEqual(seen["dtypes"]["peer"], "Int64")
        self.assertEqual(seen["dtypes"]["g0_ns"], "float64")
        self.assertEqual(seen["dtypes"]["fn"], "object")

    def test_frame_without_pandas_says_so(self):
        old = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # import pandas now raises
        try:
            with self.assertRaises(synctrace.SynctraceError) as e:
                synctrace.load_frame("run")
            self.assertIn("needs pandas", str(e.exception))
        finally:
            if old is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = old

    @unittest.skipUnless(os.environ.get("SYNCTRACE_TEST_RUN"),
                         "SYNCTRACE_TEST_RUN names no run")
    def test_real_run(self):
        rows = synctrace.load(os.environ["SYNCTRACE_TEST_RUN"])
        self.assertTrue(rows)
        for r in rows:
            if r["kind"] == "call":
                self.assertIsInstance(r["t0_ns"], int)
                self.assertGreaterEqual(r["t1_ns"], r["t0_ns"])


def synctrace_rows():
    return synctrace.parse_csv(
        HEADER + "\n1,0,call,MPI_Send,100,250,0x100000000,2,,,,0,7,400,0,4,"
        ",,3,0,-12.5,137.5,,,,\n")


if __name__ == "__main__":
    unittest.main()
