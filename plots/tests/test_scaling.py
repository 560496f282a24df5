"""Plot tests: the measured scaling figures (efficiency, throughput, breakdown).

One figure of each per workload from the fixture records, drawn by its own
subcommand or through `all` (on a file or on a directory of .jsonl files);
a sweep with one strategy only, a strategy that lacks a worker count, a run
whose check failed; in process, the gap such a missing worker count leaves
in a strategy's line. The harness is plotcase.py.
"""
import json
import os
import sys
import unittest

from plotcase import ROOT, PlotCase, fixture


class Scaling(PlotCase):
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

    def test_input_stage_is_its_own_segment(self):
        # The sweep's records with an input stage: its own workload, whose
        # breakdown draws the exposed input; without one, no such segment.
        lines = []
        with open(fixture("sweep.jsonl")) as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("kind") == "train" and rec.get("model") == "small-cnn":
                    rec["input"] = {"spec": "decode:2ms", "threads": 2, "prefetch": 2,
                                    "loader_s_per_image": 0.002, "loader_s_per_batch": 0.032,
                                    "capacity_img_sec": 1000.0, "wait_s": 0.01,
                                    "wait_share": 0.2}
                lines.append(json.dumps(rec))
        stems = self.figures("breakdown", self.write("input.jsonl", lines))
        self.assertEqual(len(stems), 2)
        with_input = [s for s in stems if "small-cnn" in s]
        self.assertEqual(len(with_input), 1)
        svg = self.svg_text(with_input[0])
        self.assertIn("exposed input", svg)
        self.assertIn("input decode:2ms", svg)
        self.assertNotIn("exposed input", self.svg_text("breakdown-resnet50-emulated-b32"))

    def test_directory_stands_for_its_jsonl(self):
        d = self.run_dir("sweep.jsonl", "collectives.jsonl")
        with open(os.path.join(d, "notes.txt"), "w") as f:
            f.write("not records\n")
        self.assertEqual(len(self.figures("all", d)), 8)


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


if __name__ == "__main__":
    unittest.main()
