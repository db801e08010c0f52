#!/usr/bin/env python3
"""CPU test of scripts/blas2-bars: made-up reports whose figures sit on either side of each
bar, in one report or both, and a dip in a sweep."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
from importlib.machinery import SourceFileLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bars = SourceFileLoader("blas2_bars", os.path.join(ROOT, "scripts", "blas2-bars")).load_module()

BW = 4000.0  # the reports' bandwidth: a GB/s figure is pct * 40


def result(ms, pct):
    return {"median_ms": ms, "gbs": pct * BW / 100.0}


def case(routine, n, det, atom, cublas_ms, cublas_atomics_ms=None):
    """det, atom: (ms, % of bandwidth)."""
    return {"routine": routine, "n": n,
            "aegis_deterministic": result(*det), "aegis_atomics": result(*atom),
            "cublas": {"median_ms": cublas_ms, "gbs": 1.0},
            "cublas_atomics_allowed": None if cublas_atomics_ms is None
            else {"median_ms": cublas_atomics_ms, "gbs": 1.0}}


def report(cases, ceiling=None):
    """ceiling: (start, end) GB/s of the read ceiling measured in the report's process."""
    doc = {"bandwidth_gbs": BW, "results": cases}
    if ceiling:
        doc["read_ceiling"] = {"start_gbs": ceiling[0], "end_gbs": ceiling[1]}
    return doc


class Blas2Bars(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        # sgemv N 8192 det: 91 % in the first report, 93 % in the second (short in 1 of 2);
        # its time beats cuBLAS in both. ssymv L 8192 atomics at 84 and 86 %, 2.5x and 1.1x.
        # dgemv N 1024: 0.98x in both reports in the deterministic mode.
        # sgemv T 4096 .. 16384: 8192 dips in the atomics mode of the first report only.
        first = [
            case("sgemv N", 8192, (1.0, 91.0), (1.0, 95.0), 1.1),
            case("ssymv L", 8192, (1.0, 81.0), (1.0, 84.0), 2.5, 1.1),
            case("dgemv N", 1024, (1.0, 50.0), (0.9, 55.0), 0.98),
            case("sgemv T", 4096, (1.0, 90.0), (1.0, 90.0), 1.0),
            case("sgemv T", 8192, (1.0, 93.0), (1.0, 80.0), 1.0),
            case("sgemv T", 16384, (1.0, 94.0), (1.0, 95.0), 1.0),
        ]
        second = [
            case("sgemv N", 8192, (1.0, 93.0), (1.0, 95.0), 1.1),
            case("ssymv L", 8192, (1.0, 81.0), (1.0, 86.0), 2.5, 1.1),
            case("dgemv N", 1024, (1.0, 50.0), (0.9, 55.0), 0.98),
        ]
        # The first process read slower than the reference, the second faster (its end
        # figure not measured).
        self.paths = []
        for i, (cases, ceiling) in enumerate(((first, (0.95 * BW, 0.96 * BW)),
                                              (second, (1.1 * BW, None)))):
            path = os.path.join(self.dir.name, f"r{i}.json")
            with open(path, "w") as f:
                json.dump(report(cases, ceiling), f)
            self.paths.append(path)

    def tearDown(self):
        self.dir.cleanup()

    def by_name(self):
        return {name: (met, short) for name, _, met, short in bars.evaluate(bars.load(self.paths))}

    def test_short_in_one_report_of_two(self):
        met, short = self.by_name()["GEMV n >= 8192, det, % of bandwidth >= 92"]
        self.assertIn(("sgemv N", 8192), [(r, n) for r, n, *_ in short])
        routine, n, low, high, below, total = [s for s in short if s[0] == "sgemv N"][0]
        self.assertAlmostEqual(low, 91.0)
        self.assertAlmostEqual(high, 93.0)
        self.assertEqual((below, total), (1, 2))

    def test_met_in_every_report(self):
        met, short = self.by_name()["GEMV n >= 8192, det, x cuBLAS >= 1.0"]
        self.assertNotIn("sgemv N", [s[0] for s in short])
        self.assertGreaterEqual(met, 1)

    def test_symv_bars_read_their_modes(self):
        names = self.by_name()
        _, atomics = names["SYMV/HEMV n >= 8192, atomics, % of bandwidth >= 85"]
        self.assertEqual([(s[0], s[4], s[5]) for s in atomics], [("ssymv L", 1, 2)])
        met, det = names["SYMV/HEMV n >= 8192, det, % of bandwidth >= 80"]
        self.assertEqual((met, det), (1, []))
        met, _ = names["SYMV/HEMV n >= 8192, atomics, x cuBLAS atomics-allowed >= 1.05 (derived)"]
        self.assertEqual(met, 1)

    def test_small_sizes_against_cublas(self):
        names = self.by_name()
        _, det = names["n <= 4096, det, x cuBLAS >= 1.0"]
        self.assertEqual([(s[0], s[1], s[4]) for s in det], [("dgemv N", 1024, 2)])
        _, atomics = names["n <= 4096, atomics, x cuBLAS >= 1.0"]
        self.assertNotIn("dgemv N", [s[0] for s in atomics])  # 0.98 / 0.9 > 1

    def test_a_dip_below_both_neighbours(self):
        found = bars.dips(bars.load(self.paths))
        self.assertEqual([(f[0], f[1], f[2], f[3]) for f in found], [(0, "sgemv T", "atomics", 8192)])

    def test_bandwidth_override(self):
        loaded = bars.load(self.paths, bandwidth=2 * BW)
        names = {name: short for name, _, _, short in bars.evaluate(loaded)}
        short = names["GEMV n >= 8192, atomics, % of bandwidth >= 92"]
        self.assertIn("sgemv N", [s[0] for s in short])  # 95 % of BW is 47.5 % of 2 BW

    def test_measured_ceiling(self):
        loaded = bars.load(self.paths, measured=True)
        self.assertEqual([r[0][1] for r in loaded], [0.96 * BW, 1.1 * BW])  # the higher figure
        names = {name: short for name, _, _, short in bars.evaluate(loaded)}
        # sgemv N 8192 det: 91 % of BW is 94.8 % of 0.96 BW; 93 % of BW is 84.5 % of 1.1 BW.
        short = names["GEMV n >= 8192, det, % of bandwidth >= 92"]
        self.assertEqual([(s[0], s[4], s[5]) for s in short], [("sgemv N", 1, 2)])
        self.assertAlmostEqual(short[0][2], 93.0 / 1.1)
        self.assertAlmostEqual(short[0][3], 91.0 / 0.96)

    def test_measured_ceiling_missing(self):
        path = os.path.join(self.dir.name, "old.json")
        with open(path, "w") as f:
            json.dump(report([]), f)
        with self.assertRaises(ValueError):
            bars.load([path], measured=True)

    def test_command_line(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(bars.main(self.paths), 0)
            self.assertEqual(bars.main([os.path.join(self.dir.name, "missing.json")]), 1)
            self.assertEqual(bars.main(["--ceiling", "measured"] + self.paths), 0)
        self.assertIn("sgemv N     8192  91.000-93.000  (short in 1 of 2)", out.getvalue())
        self.assertIn("r0.json: % of 4000 GB/s; read ceiling measured there 3840 GB/s",
                      out.getvalue())
        self.assertIn("r1.json: % of 4400 GB/s; read ceiling measured there 4400 GB/s",
                      out.getvalue())


if __name__ == "__main__":
    unittest.main()
