"""test_module.py: the gpmc module's functions give the documents the gpmc commands write, set and vary parameters as
the command line does, and raise gpmc.Error carrying the diagnostics."""
import json
import os
import subprocess
import tempfile
import unittest

import gpmc

GPMC = os.environ["GPMC_TEST_GPMC"]
TITAN, BANDWIDTH = "machines/titan.gpm", "apps/bandwidth.gpm"


def command(*args):
    """The output of a gpmc command, parsed as JSON."""
    return json.loads(subprocess.run([GPMC, *args], check=True, stdout=subprocess.PIPE, text=True).stdout)


def without_provenance(doc):
    return {k: v for k, v in doc.items() if k not in ("provenance", "warnings")}


class Eval(unittest.TestCase):
    def test_eval_is_the_json_report(self):
        doc = gpmc.eval("machines/summit.gpm", "apps/jacobi2d.gpm")
        expected = command("eval", "machines/summit.gpm", "apps/jacobi2d.gpm", "--format", "json")
        self.assertIsInstance(doc, dict)
        self.assertEqual(without_provenance(doc), without_provenance(expected))
        self.assertEqual(doc["provenance"]["inputs"], expected["provenance"]["inputs"])

    def test_set_as_the_command_line(self):
        doc = gpmc.eval(TITAN, BANDWIDTH, set={"bytes": "1GiB", "streams": 8, "memory": "pageable"})
        expected = command("eval", TITAN, BANDWIDTH, "--format", "json", "--set", "bytes=1GiB", "--set", "streams=8",
                           "--set", "memory=pageable")
        self.assertEqual(without_provenance(doc), without_provenance(expected))
        self.assertEqual(doc["provenance"]["set"], ["bytes=1GiB", "streams=8", "memory=pageable"])

    def test_jit_backend_agrees(self):
        interp = gpmc.eval("machines/summit.gpm", "apps/jacobi2d.gpm")
        jit = gpmc.eval("machines/summit.gpm", "apps/jacobi2d.gpm", backend="jit")
        self.assertEqual(interp["total_s"], jit["total_s"])

    def test_rows_and_dataframe(self):
        doc = gpmc.eval("machines/summit.gpm", "apps/jacobi2d.gpm")
        rows = doc.rows()
        self.assertEqual(len(rows), sum(len(p["operations"]) for p in doc["phases"]))
        self.assertAlmostEqual(sum(r["time_s"] for r in rows), doc["total_s"], delta=doc["total_s"] * 1e-9)
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        frame = doc.to_dataframe()
        self.assertEqual(list(frame.columns[:2]), ["phase", "operation"])
        self.assertEqual(len(frame), len(rows))

    def test_compare_strategies(self):
        doc = gpmc.compare_strategies("machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm")
        expected = command("eval", "machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm", "--compare", "strategy",
                           "--format", "json")
        self.assertEqual(doc["strategies"], expected["strategies"])
        self.assertEqual([r["rank"] for r in doc.rows()], [1, 2, 3, 4])

    def test_timeline(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.json")
            subprocess.run([GPMC, "eval", "machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm", "--timeline", path],
                           check=True, stdout=subprocess.DEVNULL)
            with open(path) as f:
                expected = json.load(f)
        self.assertEqual(gpmc.timeline("machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm"), expected)


class Sweep(unittest.TestCase):
    def test_sweep_is_the_json_sweep(self):
        doc = gpmc.sweep(TITAN, BANDWIDTH, vary={"bytes": "1B..1GiB*2", "memory": ["pinned", "pageable"]})
        expected = command("sweep", TITAN, BANDWIDTH, "--vary", "bytes=1B..1GiB*2", "--vary", "memory=pinned,pageable",
                           "--format", "json")
        self.assertEqual(without_provenance(doc), without_provenance(expected))
        self.assertEqual(doc["provenance"]["vary"], ["bytes=1B..1GiB*2", "memory=pinned,pageable"])
        self.assertEqual(len(doc["points"]), 31 * 2)

    def test_shape_parameters_and_both_backends(self):
        vary = {"bytes": "1MiB,1GiB", "streams": [1, 8]}
        jit = gpmc.sweep(TITAN, BANDWIDTH, vary=vary)
        interp = gpmc.sweep(TITAN, BANDWIDTH, vary=vary, backend="interp", threads=1)
        self.assertEqual(jit["points"], interp["points"])
        rows = jit.rows()
        self.assertEqual([(r["bytes"], r["streams"]) for r in rows],
                         [(2.0 ** 20, 1), (2.0 ** 20, 8), (2.0 ** 30, 1), (2.0 ** 30, 8)])
        self.assertTrue(all(r["error"] == "" for r in rows))

    def test_sweep_dataframe(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        frame = gpmc.sweep(TITAN, BANDWIDTH, vary={"bytes": "1KiB..1MiB*4"}).to_dataframe()
        self.assertEqual(list(frame["bytes"]), [1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0])
        self.assertIn("total_s", frame.columns)

    def test_bad_vary(self):
        with self.assertRaises(gpmc.Error) as caught:
            gpmc.sweep(TITAN, BANDWIDTH, vary={"byts": "1B..1GiB*2"})
        self.assertIn("bytes", caught.exception.text)  # did you mean


class Search(unittest.TestCase):
    def test_search_and_makespans(self):
        doc = gpmc.search("machines/cs_storm_t2.gpm", "apps/halo2d_8gpu.gpm", makespans=True, threads=2)
        expected = command("search", "machines/cs_storm_t2.gpm", "apps/halo2d_8gpu.gpm", "--format", "json")
        for key in ("orders", "fastest_s", "median_s", "slowest_s", "fastest_index", "fastest_order"):
            self.assertEqual(doc[key], expected[key], key)
        self.assertEqual(len(doc["makespans"]), doc["orders"])
        self.assertEqual(min(doc["makespans"]), doc["fastest_s"])
        self.assertEqual(doc["makespans"][doc["slowest_index"]], doc["slowest_s"])
        self.assertEqual(doc.rows()[doc["fastest_index"]]["makespan_s"], doc["fastest_s"])

    def test_nothing_to_search(self):
        with self.assertRaises(gpmc.Error) as caught:
            gpmc.search(TITAN, BANDWIDTH)
        self.assertEqual(caught.exception.diagnostics[0]["kind"], "NothingToSearch")


class ValidateProject(unittest.TestCase):
    def test_validate(self):
        args = ("machines/v100_pcie.gpm", "validation/v100_pcie/h2d_pinned.gpm", "validation/v100_pcie/h2d_pinned.csv")
        doc = gpmc.validate(*args)
        expected = command("validate", *args[:2], "--measured", args[2], "--format", "json")
        self.assertEqual(without_provenance(doc), without_provenance(expected))
        self.assertEqual(len(doc.rows()), doc["count"])

    def test_project(self):
        doc = gpmc.project("traces/v100_pcie_bandwidthtest.csv", "machines/v100_pcie.gpm", "machines/summit.gpm")
        expected = command("project", "--trace", "traces/v100_pcie_bandwidthtest.csv", "--from",
                           "machines/v100_pcie.gpm", "--to", "machines/summit.gpm", "--format", "json")
        self.assertEqual(without_provenance(doc), without_provenance(expected))
        self.assertEqual(len(doc.rows()), doc["total"]["copies"])


class CheckLoadErrors(unittest.TestCase):
    def test_check_clean(self):
        self.assertEqual(gpmc.check(TITAN, BANDWIDTH), [])

    def test_error_carries_diagnostics(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.gpm")
            with open(bad, "w") as f:
                f.write("param x = 1 us + 4 KiB\n")
            with self.assertRaises(gpmc.Error) as caught:
                gpmc.check(bad)
            cli = subprocess.run([GPMC, "check", bad], stderr=subprocess.PIPE, text=True)
        error = caught.exception
        self.assertEqual(error.text, cli.stderr)
        first = error.diagnostics[0]
        self.assertEqual((first["file"], first["line"], first["column"], first["severity"]), (bad, 1, 18, "error"))
        self.assertTrue(first["kind"])
        self.assertIn(first["message"], error.text)
        self.assertIn("error:", str(error))

    def test_bad_setting(self):
        with self.assertRaises(gpmc.Error) as caught:
            gpmc.eval(TITAN, BANDWIDTH, set={"bytes": "3 parsecs"})
        self.assertEqual(caught.exception.diagnostics[0]["severity"], "error")
        with self.assertRaises(gpmc.Error) as caught:
            gpmc.eval(TITAN, BANDWIDTH, set=["bytes"])
        self.assertEqual(caught.exception.diagnostics[0]["kind"], "UsageError")

    def test_load_then_evaluate(self):
        model = gpmc.load(TITAN, BANDWIDTH, set={"bytes": "1GiB"})
        self.assertEqual((model.machine, model.app), ("titan", "bandwidth"))
        bytes_param = next(p for p in model.params if p["name"] == "bytes")
        self.assertEqual((bytes_param["value"], bytes_param["overridden"]), (2.0 ** 30, True))
        self.assertEqual(model.eval()["total_s"], gpmc.eval(TITAN, BANDWIDTH, set={"bytes": "1GiB"})["total_s"])
        both = model.eval(set={"memory": "pageable"})
        self.assertEqual(both["total_s"],
                         gpmc.eval(TITAN, BANDWIDTH, set={"bytes": "1GiB", "memory": "pageable"})["total_s"])

    def test_stdlib_found_as_gpmc_finds_it(self):
        self.assertTrue(os.path.isfile(os.path.join(gpmc.stdlib_dir(), "roofline.gpm")))
        old = os.environ.get("GPMC_STDLIB")
        os.environ["GPMC_STDLIB"] = "/nonexistent/stdlib"
        try:
            self.assertEqual(gpmc.stdlib_dir(), "/nonexistent/stdlib")
            with self.assertRaises(gpmc.Error) as caught:
                gpmc.eval(TITAN, BANDWIDTH)
            self.assertIn("/nonexistent/stdlib", caught.exception.text)
        finally:
            if old is None:
                del os.environ["GPMC_STDLIB"]
            else:
                os.environ["GPMC_STDLIB"] = old


if __name__ == "__main__":
    unittest.main()
