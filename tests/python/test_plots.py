"""test_plots.py: each plot of gpmc.plot rendered from the files gpmc writes (and from the module's results where it
was built), to PNG and SVG: the file is a PNG or parses as SVG, is not trivially small, and is byte-identical when
rendered again."""
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

import gpmc
import gpmc.plot

GPMC = os.environ["GPMC_TEST_GPMC"]


class Plots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name

        def write(name, *args):
            path = os.path.join(cls.dir, name)
            with open(path, "w") as out:
                subprocess.run([GPMC, *args], check=True, stdout=out)
            return path

        cls.sweep_csv = write("sweep.csv", "sweep", "machines/titan.gpm", "apps/bandwidth.gpm", "--vary",
                              "bytes=1B..1GiB*2", "--vary", "memory=pinned,pageable")
        cls.sweep_json = write("sweep.json", "sweep", "machines/summit.gpm", "apps/jacobi2d.gpm", "--vary",
                               "n=1024:16384:1024", "--vary", "link_bw=25GB/s,50GB/s", "--format", "json")
        cls.strategies = write("strategies.json", "eval", "machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm",
                               "--compare", "strategy", "--format", "json")
        cls.orders = os.path.join(cls.dir, "orders.csv")
        write("search.txt", "search", "machines/cs_storm_t2.gpm", "apps/halo2d_8gpu.gpm", "--orders-out", cls.orders)
        cls.timeline = os.path.join(cls.dir, "timeline.json")
        write("eval.txt", "eval", "machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm", "--timeline", cls.timeline)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def render(self, name, draw):
        """Renders with draw(path) to NAME.png and NAME.svg twice each; checks each file."""
        for kind in ("png", "svg"):
            first, second = (os.path.join(self.dir, f"{name}{k}.{kind}") for k in (1, 2))
            draw(first)
            draw(second)
            with open(first, "rb") as f:
                data = f.read()
            with open(second, "rb") as f:
                self.assertEqual(data, f.read(), f"{name}.{kind} differs between two renderings")
            self.assertGreater(len(data), 5000, f"{name}.{kind} is too small to hold a plot")
            if kind == "png":
                self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            else:
                root = ElementTree.fromstring(data)
                self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg")
                self.assertNotIn(b"<dc:date>", data)

    def test_sweep_curve_from_csv(self):
        self.render("sweep_csv", lambda out: gpmc.plot.sweep(self.sweep_csv, out, x="bytes", rate=True))
        figure = gpmc.plot.sweep(self.sweep_csv)
        axes = figure.axes[0]
        self.assertEqual(axes.get_xscale(), "log")  # bytes are geometric
        self.assertEqual(len(axes.lines), 2)        # one line per memory kind

    def test_sweep_curve_from_json_any_column(self):
        self.render("sweep_json", lambda out: gpmc.plot.sweep(self.sweep_json, out, x="link_bw", y="total_s"))
        figure = gpmc.plot.sweep(self.sweep_json, x="n")
        self.assertEqual(figure.axes[0].get_xscale(), "linear")  # n is linear
        with self.assertRaises(ValueError):
            gpmc.plot.sweep(self.sweep_json, x="bytes")

    def test_strategies_bars(self):
        self.render("strategies", lambda out: gpmc.plot.strategies(self.strategies, out))
        self.assertEqual(len(gpmc.plot.strategies(self.strategies).axes[0].patches), 4)

    def test_search_histogram(self):
        self.render("search", lambda out: gpmc.plot.search(self.orders, out))
        labels = [line.get_label() for line in gpmc.plot.search(self.orders).axes[0].lines]
        self.assertEqual([label.split()[0] for label in labels], ["fastest", "median", "slowest"])

    def test_timeline_gantt(self):
        self.render("timeline", lambda out: gpmc.plot.timeline(self.timeline, out))

    def test_command_line(self):
        out = os.path.join(self.dir, "cli.svg")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gpmc.__file__)))
        for args in (["sweep", self.sweep_csv, "--rate"], ["strategies", self.strategies], ["search", self.orders],
                     ["timeline", self.timeline]):
            p = subprocess.run([sys.executable, "-m", "gpmc.plot", *args, "-o", out], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, f"wrote {out}\n", ""), args)
        p = subprocess.run([sys.executable, "-m", "gpmc.plot", "sweep", self.sweep_csv, "--y", "nope", "-o", out],
                           env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 1)
        self.assertIn("--y nope: not a column", p.stderr)

    def test_from_the_module(self):
        if not gpmc.available():
            self.skipTest("the gpmc module was not built")
        swept = gpmc.sweep("machines/titan.gpm", "apps/bandwidth.gpm", vary={"bytes": "1B..1GiB*2"})
        self.render("module_sweep", lambda out: gpmc.plot.sweep(swept, out, rate=True))
        found = gpmc.search("machines/cs_storm_t2.gpm", "apps/halo2d_8gpu.gpm", makespans=True)
        self.render("module_search", lambda out: gpmc.plot.search(found, out))
        ranked = gpmc.compare_strategies("machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm")
        self.render("module_strategies", lambda out: gpmc.plot.strategies(ranked, out))
        trace = gpmc.timeline("machines/das4_gtx680.gpm", "apps/pop_buoydiff.gpm")
        self.render("module_timeline", lambda out: gpmc.plot.timeline(trace, out))


if __name__ == "__main__":
    unittest.main()
