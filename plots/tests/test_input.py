"""Plot tests: the input figure (efficiency against workers per node with and
without the input stage, gsplots/input.py).

The sweep fixture's small-cnn runs as they are, and again with an input stage
(each run twice: once free, once with a loader): one figure for the pair,
both stages in its legend, workers per node on its axis; records without any
input stage are one error line. The harness is plotcase.py.
"""
import json
import unittest

from plotcase import PlotCase, fixture

INPUT = {"spec": "decode:2ms", "threads": 2, "prefetch": 2, "loader_s_per_image": 0.002,
         "loader_s_per_batch": 0.032, "capacity_img_sec": 1000.0, "wait_s": 0.01,
         "wait_share": 0.2}


class InputFigure(PlotCase):
    def records_with_input(self):
        lines = []
        with open(fixture("sweep.jsonl")) as f:
            for line in f:
                rec = json.loads(line)
                lines.append(json.dumps(rec))
                if rec.get("kind") == "train" and rec.get("model") == "small-cnn":
                    rec["input"] = INPUT
                    lines.append(json.dumps(rec))
        return self.write("input.jsonl", lines)

    def test_one_figure_per_pair_with_both_stages(self):
        stems = self.figures("input", self.records_with_input())
        self.assertEqual(stems, ["input-small-cnn-cpu-b32"])
        svg = self.svg_text(stems[0])
        for text in ("Input stage", "workers per node", "synthetic input (free)",
                     "input decode:2ms x2 threads prefetch 2", "ring-mpi", "ideal (100%)"):
            self.assertIn(text, svg)
        self.assertNotIn("cost model", svg)  # no simulated records given

    def test_without_an_input_stage_is_one_error_line(self):
        p = self.run_plots("input", fixture("sweep.jsonl"))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("no train records with an input stage", p.stderr)

    def test_runs_sharing_workers_per_node_are_drawn(self):
        # A multi-host sweep at one worker per host: several runs of a
        # strategy at the same x (they used to break the sort, comparing rows).
        lines = []
        with open(self.records_with_input()) as f:
            records = [json.loads(line) for line in f]
        for rec in records:
            if rec.get("kind") == "train" and rec.get("workers", 1) > 1:
                rec["context"]["hostnames"] = [f"host{i}" for i in range(rec["workers"])]
                rec["context"]["hosts"] = rec["context"]["hostnames"]
            lines.append(json.dumps(rec))
        stems = self.figures("input", self.write("multi-host.jsonl", lines))
        self.assertEqual(stems, ["input-small-cnn-cpu-b32"])

    def test_all_draws_it_when_there_is_one(self):
        stems = self.figures("all", self.records_with_input())
        self.assertIn("input-small-cnn-cpu-b32", stems)


if __name__ == "__main__":
    unittest.main()
