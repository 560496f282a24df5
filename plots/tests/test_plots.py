"""Plot tests: fixture records in, figure files (or one clean error line) out.

Each case runs plots/gradsync_plots.py as a subprocess with the interpreter
running the tests, on records from tests/fixtures/ (see make_fixtures.py
there) or small files written on the spot. The figures draw what
`gradsync report --format json` computes: the binary is $GRADSYNC (CTest
sets it), else build/bin/gradsync in this checkout. A figure counts as written when
its PNG starts with the PNG signature and its SVG parses as XML; SVG text is
kept as text, so legends can be checked there. Bad input must give exactly
one line on stderr, "gradsync-plots: error: ...", no traceback and a
non-zero status.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "plots", "gradsync_plots.py")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GRADSYNC = os.environ.get("GRADSYNC") or os.path.join(ROOT, "build", "bin", "gradsync")
os.environ["GRADSYNC"] = GRADSYNC  # for the in-process cases and every subprocess


def fixture(name):
    return os.path.join(FIXTURES, name)


class PlotCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def run_plots(self, *args, out=True):
        self.out = tempfile.mkdtemp(dir=self.tmp.name)  # fresh per run: counts are per command
        os.rmdir(self.out)  # the command creates it
        argv = [sys.executable, SCRIPT, *args] + (["-o", self.out] if out else [])
        env = dict(os.environ, MPLBACKEND="Agg", **getattr(self, "env", {}))
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)

    def figures(self, *args):
        """Runs a subcommand that must succeed; returns the stems of the figures written."""
        p = self.run_plots(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        paths = p.stdout.split()
        stems = sorted({os.path.splitext(os.path.basename(x))[0] for x in paths})
        self.assertEqual(len(paths), 2 * len(stems), "each figure as PNG and SVG")
        for stem in stems:
            self.check_png(os.path.join(self.out, stem + ".png"))
            self.check_svg(os.path.join(self.out, stem + ".svg"))
        self.assertEqual(sorted(n[:-4] for n in os.listdir(self.out) if n.endswith(".png")), stems)
        return stems

    def check_png(self, path):
        with open(path, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(PNG_SIGNATURE), path)
        self.assertGreater(len(data), 1000, path)

    def check_svg(self, path):
        root = ET.parse(path).getroot()
        self.assertTrue(root.tag.endswith("svg"), path)

    def svg_text(self, stem):
        with open(os.path.join(self.out, stem + ".svg"), encoding="utf-8") as f:
            return f.read()

    def fails(self, *args, expect=None, status=1, out=True):
        """Runs a command that must fail with one clean line; returns the line."""
        p = self.run_plots(*args, out=out)
        self.assertEqual(p.returncode, status, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("gradsync-plots: error: "), lines[0])
        if expect is not None:
            self.assertIn(expect, lines[0])
        return lines[0]

    def write(self, name, lines):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        return path


class Figures(PlotCase):
    def test_sweep_all(self):
        stems = self.figures("all", fixture("sweep.jsonl"))
        self.assertEqual(stems, sorted(f"{kind}-{w}" for kind in ("efficiency", "throughput", "breakdown")
                                       for w in ("small-cnn-cpu-b32", "resnet50-emulated-b32")))
        svg = self.svg_text("efficiency-small-cnn-cpu-b32")
        for text in ("ring-mpi", "ps-zmq", "none (no sync)", "ideal (100%)", "workers (log2 scale)",
                     "scaling efficiency (% of ideal)", "hosts: node1", "2024-05-01"):
            self.assertIn(text, svg)
        self.assertNotIn("failed check", svg)
        self.assertIn("emulated, v100", self.svg_text("efficiency-resnet50-emulated-b32"))

    def test_each_subcommand_counts(self):
        for command in ("efficiency", "throughput", "breakdown"):
            with self.subTest(command=command):
                stems = self.figures(command, fixture("sweep.jsonl"))
                self.assertEqual(len(stems), 2)
                self.assertTrue(all(s.startswith(command + "-") for s in stems))

    def test_one_strategy_only(self):
        self.assertEqual(self.figures("all", fixture("one-strategy.jsonl")),
                         ["breakdown-small-cnn-cpu-b32", "efficiency-small-cnn-cpu-b32",
                          "throughput-small-cnn-cpu-b32"])
        self.assertIn("none (no sync)", self.svg_text("efficiency-small-cnn-cpu-b32"))

    def test_missing_worker_count(self):
        self.assertEqual(len(self.figures("efficiency", fixture("missing-workers.jsonl"))), 1)
        self.assertIn("tree-mpi", self.svg_text("efficiency-small-cnn-cpu-b32"))

    def test_failed_check_is_marked(self):
        for command in ("efficiency", "throughput", "breakdown"):
            with self.subTest(command=command):
                stem = self.figures(command, fixture("failed.jsonl"))[0]
                self.assertIn("failed check", self.svg_text(stem))

    def test_busbw_per_worker_count(self):
        self.assertEqual(self.figures("busbw", fixture("collectives.jsonl")), ["busbw-n2", "busbw-n4"])
        n4 = self.svg_text("busbw-n4")
        for text in ("ring-mpi", "ps-zmq", "4K", "64K", "1M", "16M", "GB/s", "4 workers"):
            self.assertIn(text, n4)
        self.assertNotIn("none (no sync)", n4)
        self.assertIn("failed check", n4)  # ps-zmq's 1M row had wrong elements
        self.assertNotIn("failed check", self.svg_text("busbw-n2"))

    def test_simulated_overlay(self):
        self.assertEqual(self.figures("simulated", fixture("simulated.jsonl")),
                         ["simulated-small-cnn-cpu-b32"])
        svg = self.svg_text("simulated-small-cnn-cpu-b32")
        self.assertIn("simulated", svg)
        self.assertIn("measured", svg)

    def test_simulated_records_stay_out_of_measured_figures(self):
        self.figures("efficiency", fixture("simulated.jsonl"))
        self.assertNotIn("simulated", self.svg_text("efficiency-small-cnn-cpu-b32"))

    def test_directory_stands_for_its_jsonl(self):
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        for name in ("sweep.jsonl", "collectives.jsonl"):
            with open(fixture(name)) as src, open(os.path.join(d, name), "w") as dst:
                dst.write(src.read())
        with open(os.path.join(d, "notes.txt"), "w") as f:
            f.write("not records\n")
        self.assertEqual(len(self.figures("all", d)), 8)


def train_record(strategy, workers, per_worker, compute="cpu", precision=None):
    rec = {"schema": "gradsync.result", "schema_version": 1, "kind": "train", "model": "resnet50",
           "compute": compute, "batch_size": 64, "strategy": strategy, "workers": workers,
           "correct": True, "results": {"workers": workers, "img_sec_mean": per_worker,
                                        "img_sec_conf": 2.0, "exposed_comm_share": 0.1}}
    if precision:
        rec["precision"] = precision
    return json.dumps(rec)


CLUSTER = {"subnet": "198.18.0.0/24", "bridge": "gsbr0", "interface": "gs0", "slots": 4,
           "rate": "1562500kbit", "rate_bits_per_s": 1.5625e9, "delay": "0ms", "delay_s": 0,
           "hosts": [{"name": f"gs-h{i}", "address": f"198.18.0.{i + 1}", "slots": 4}
                     for i in range(4)],
           "check": None}


class Clusters(PlotCase):
    """Runs on an emulated cluster at a time scale are their own workload, labelled with the
    cluster they represent, drawn at the represented throughput."""

    def test_cluster_runs_are_labelled_with_the_represented_cluster(self):
        lines = []
        for strategy, workers, rate in (("none", 1, 30.0), ("ring-mpi", 4, 27.0), ("none", 1, 480.0)):
            rec = json.loads(train_record(strategy, workers, rate, "emulated"))
            if rate < 100:  # the scaled runs: x16 on the cluster
                rec["time_scale"] = 16.0
                rec["cluster"] = CLUSTER
            lines.append(json.dumps(rec))
        path = self.write("cluster.jsonl", lines)
        label = "4 hosts x 4 slots @ 25gbit (emulated 1.5625gbit, time x16)"
        stem = "throughput-resnet50-emulated-b64-4_hosts_x_4_slots_25gbit_emulated_1.5625gbit_time_x16"
        self.assertEqual(self.figures("throughput", path), ["throughput-resnet50-emulated-b64", stem])
        svg = self.svg_text(stem)
        self.assertIn(label, svg)
        self.assertIn("represented: measured x time scale", svg)
        self.assertNotIn("represented", self.svg_text("throughput-resnet50-emulated-b64"))
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import report, style
        tables = style.workloads(report.load([path]).train)
        ring = tables[("resnet50", "emulated", 64, label)][("ring-mpi", 4)]
        self.assertAlmostEqual(ring["img_sec"]["mean"], 27.0 * 4 * 16)  # represented
        self.assertAlmostEqual(ring["efficiency"]["value"], 0.9)  # against the x16 baseline


class Workloads(PlotCase):
    """In process: cuda runs in two precisions are two workloads, each with its own baseline
    (gradsync's report tells them apart and computes each one's efficiency)."""

    def test_precision_splits_cuda_workloads(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import report, style
        path = self.write("cuda.jsonl", [
            train_record("none", 1, 1000.0, "cuda", "fp32"), train_record("none", 1, 2000.0, "cuda", "mixed"),
            train_record("none", 1, 500.0), train_record("ring-mpi", 2, 900.0, "cuda", "fp32"),
            train_record("ring-mpi", 2, 1800.0, "cuda", "mixed")])
        tables = style.workloads(report.load([path]).train)
        self.assertEqual([k[1] for k in tables], ["cpu", "cuda-fp32", "cuda-mixed"])
        for key in (("resnet50", "cuda-fp32", 64, ""), ("resnet50", "cuda-mixed", 64, "")):
            self.assertAlmostEqual(tables[key][("ring-mpi", 2)]["efficiency"]["value"], 0.9)


class Look(unittest.TestCase):
    """In process: order, colour, marker and label come from the table's index and role, not names."""

    def test_role_and_index_not_names(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        look = style.Look([{"name": "b", "index": 0, "role": "synchronizer"},
                           {"name": "idle", "index": 1, "role": "baseline"},
                           {"name": "a", "index": 2, "role": "reference"},
                           {"name": "new", "index": 3, "role": "synchronizer"}])
        self.assertEqual(look.order(["idle", "new", "a", "b", "zz"]), ["b", "idle", "a", "new", "zz"])
        self.assertEqual(look.label("idle"), "idle (no sync)")
        self.assertEqual(look.label("a"), "a")
        self.assertEqual(look.color("idle"), style.BASELINE_COLOR)
        colors = [look.color(s) for s in ("b", "a", "new")]
        self.assertEqual(colors, style.PALETTE[:3])
        self.assertEqual(len({look.marker(s) for s in ("b", "a", "new", "idle")}), 4)


class Gaps(unittest.TestCase):
    """In process: a worker count a strategy lacks is a gap (NaN), not a joined line."""

    def test_line_has_nan_gap(self):
        os.environ.setdefault("MPLBACKEND", "Agg")
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import report, scaling, style
        import matplotlib.pyplot as plt
        rep = report.load([fixture("missing-workers.jsonl")])
        (key, table), = style.workloads(rep.train).items()
        fig, ax = plt.subplots()
        scaling.draw(ax, style.Look(rep.strategies), table, lambda r: (r["img_sec"]["mean"], 0.0))
        ring = [l for l in ax.get_lines() if l.get_label() == "ring-mpi"][0]
        ys = list(ring.get_ydata())
        plt.close(fig)
        self.assertEqual(len(ys), 3)
        self.assertTrue(ys[1] != ys[1], "worker count 2 should be NaN")
        self.assertTrue(ys[0] == ys[0] and ys[2] == ys[2])


class BadInput(PlotCase):
    def test_missing_file(self):
        self.fails("efficiency", os.path.join(self.tmp.name, "nope.jsonl"),
                   expect="No such file or directory")

    def test_directory_without_jsonl(self):
        self.fails("all", self.tmp.name, expect="no .jsonl result files")

    def test_corrupt_line(self):
        self.fails("all", fixture("corrupt.jsonl"), expect="corrupt.jsonl:2: not valid JSON")

    def test_wrong_schema_version(self):
        self.fails("efficiency", fixture("wrong-version.jsonl"),
                   expect="wrong-version.jsonl:1: schema_version 2")

    def test_wrong_schema(self):
        path = self.write("other.jsonl", ['{"schema": "something.else", "schema_version": 1}'])
        self.fails("throughput", path, expect="other.jsonl:1: not a gradsync result record")

    def test_not_an_object(self):
        path = self.write("list.jsonl", ["", "[1, 2]"])
        self.fails("busbw", path, expect="list.jsonl:2: not a gradsync result record")

    def test_no_records_of_needed_kind(self):
        self.fails("efficiency", fixture("collectives.jsonl"), expect="no measured train records")
        self.fails("busbw", fixture("sweep.jsonl"), expect="no collectives records")

    def test_missing_field(self):
        with open(fixture("sweep.jsonl")) as f:
            rec = json.loads(f.readline())
        del rec["results"]["img_sec_mean"]
        path = self.write("field.jsonl", [json.dumps(rec)])
        self.fails("efficiency", path, expect="field.jsonl:1: incomplete train record")

    def test_no_baseline(self):
        line = self.fails("efficiency", fixture("no-baseline.jsonl"), expect="`none` train record at 1 worker")
        self.assertIn("small-cnn", line)
        self.assertFalse(os.path.exists(self.out) and os.listdir(self.out))
        self.assertEqual(len(self.figures("throughput", fixture("no-baseline.jsonl"))), 1)

    def test_simulated_without_simulated_records(self):
        self.fails("simulated", fixture("sweep.jsonl"), expect="no simulated train records")
        p = self.run_plots("all", fixture("sweep.jsonl"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("skipped simulated", p.stderr)

    def test_no_gradsync_binary(self):
        self.env = {"GRADSYNC": os.path.join(self.tmp.name, "no-gradsync")}
        self.fails("efficiency", fixture("sweep.jsonl"), expect="no gradsync binary")

    def test_usage_error(self):
        self.fails("pie", fixture("sweep.jsonl"), status=2, out=False)
        self.fails("efficiency", status=2, out=False)


if __name__ == "__main__":
    unittest.main()
