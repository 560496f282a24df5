"""Plot tests: the figures of simulated records.

The measured-vs-simulated overlay (and that simulated records stay out of
the measured figures), and the projection: simulated efficiency to 1,024
workers with the published points of the same model, from the repository's
CSV or another one, whose malformed lines are one clean error each. The
harness is plotcase.py.
"""
import json
import os
import unittest

from plotcase import PlotCase, fixture


class Simulated(PlotCase):
    def test_simulated_overlay(self):
        self.assertEqual(self.figures("simulated", fixture("simulated.jsonl")),
                         ["simulated-small-cnn-cpu-b32"])
        svg = self.svg_text("simulated-small-cnn-cpu-b32")
        self.assertIn("simulated", svg)
        self.assertIn("measured", svg)

    def test_simulated_records_stay_out_of_measured_figures(self):
        self.figures("efficiency", fixture("simulated.jsonl"))
        self.assertNotIn("simulated", self.svg_text("efficiency-small-cnn-cpu-b32"))


PROJECTION = "projection-resnet101-emulated-b64"
PUBLISHED_HEADER = "system,strategy,model,gpus,efficiency_pct"


class Projection(PlotCase):
    """Simulated efficiency to 1,024 workers with the published points of the same model."""

    def test_projection_with_the_repository_published_points(self):
        self.assertEqual(self.figures("projection", fixture("projection.jsonl")), [PROJECTION])
        svg = self.svg_text(PROJECTION)
        for text in ("Simulated efficiency: resnet101", "ring-mpi (simulated)",
                     "ps-zmq (simulated)", "none (no sync) (simulated)", "1024", "ideal (100%)",
                     "horovod nccl-ring (published)", "tensorflow-ps ps-zmq (published)"):
            self.assertIn(text, svg)
        for model in ("inception3", "vgg16"):  # other models' rows stay out
            self.assertNotIn(model, svg)

    def test_a_band_is_shaded_and_points_beyond_validation_are_hollow(self):
        # The fixture's ring-mpi records given a band (the cluster's validation,
        # as `simulate` writes it), beyond validation above 8 workers; ps-zmq
        # keeps none and is drawn as before.
        lines = []
        with open(fixture("projection.jsonl")) as f:
            for line in f:
                r = json.loads(line)
                if r.get("strategy") == "ring-mpi" and r["workers"] > 1:
                    r.setdefault("simulation", {})["band"] = {
                        "low": 0.9, "high": 1.1, "beyond_validation": r["workers"] > 8,
                        "validated_workers": [8], "calibrated_workers": [2, 4],
                        "median_abs_error": 0.05, "against": "made up", "text": "+/-10%"}
                lines.append(json.dumps(r))
        path = self.write("banded.jsonl", lines)
        self.assertEqual(self.figures("projection", path, "--published", "none"), [PROJECTION])
        svg = self.svg_text(PROJECTION)
        self.assertIn("band: +/- the worst error of its validation", svg)
        self.assertIn("hollow: beyond validation", svg)
        # Without bands, neither legend entry.
        self.figures("projection", fixture("projection.jsonl"), "--published", "none")
        self.assertNotIn("band:", self.svg_text(PROJECTION))
        self.assertNotIn("beyond validation", self.svg_text(PROJECTION))

    def test_published_none_leaves_the_points_out(self):
        self.assertEqual(self.figures("projection", fixture("projection.jsonl"), "--published", "none"),
                         [PROJECTION])
        svg = self.svg_text(PROJECTION)
        self.assertNotIn("(published)", svg)
        self.assertIn("ring-mpi (simulated)", svg)

    def test_another_published_csv(self):
        path = self.write("pub.csv", ["# a comment, then the header", PUBLISHED_HEADER,
                                      "byteps,ps,resnet101,256,88.5", "horovod,nccl-ring,resnet101,64,92",
                                      "byteps,ps,vgg16,8,70"])
        self.figures("projection", fixture("projection.jsonl"), "--published", path)
        svg = self.svg_text(PROJECTION)
        self.assertIn("byteps ps (published)", svg)
        self.assertIn("horovod nccl-ring (published)", svg)
        self.assertNotIn("tensorflow-ps", svg)

    def test_no_published_row_for_the_model_draws_the_simulation_alone(self):
        path = self.write("pub.csv", [PUBLISHED_HEADER, "horovod,nccl-ring,vgg16,16,86"])
        self.assertEqual(self.figures("projection", fixture("projection.jsonl"), "--published", path),
                         [PROJECTION])
        self.assertNotIn("(published)", self.svg_text(PROJECTION))

    def test_malformed_published_csv_is_one_line(self):
        cases = {
            "column": ([PUBLISHED_HEADER.replace(",gpus", ""), "horovod,nccl-ring,resnet101,91"],
                       "column.csv:1: the header lacks column(s) gpus"),
            "number": (["# comment", PUBLISHED_HEADER, "horovod,nccl-ring,resnet101,16,91",
                        "horovod,nccl-ring,resnet101,128,ninety"],
                       "number.csv:4: efficiency_pct 'ninety' is not a number"),
            "gpus": ([PUBLISHED_HEADER, "horovod,nccl-ring,resnet101,1.5,91"],
                     "gpus.csv:2: gpus '1.5' is not a whole number"),
            "fields": ([PUBLISHED_HEADER, "", "horovod,nccl-ring,resnet101,16"],
                       "fields.csv:3: 4 fields, the header has 5"),
            "empty": (["# only a comment"], "empty.csv: no header line"),
        }
        for name, (lines, expect) in cases.items():
            with self.subTest(case=name):
                path = self.write(f"{name}.csv", lines)
                self.fails("projection", fixture("projection.jsonl"), "--published", path, expect=expect)
                self.assertFalse(os.path.exists(self.out) and os.listdir(self.out))

    def test_missing_published_csv(self):
        self.fails("projection", fixture("projection.jsonl"), "--published",
                   os.path.join(self.tmp.name, "nope.csv"), expect="nope.csv: cannot read the published")

    def test_all_draws_projection_only_with_simulated_records(self):
        # Simulated records alone: the projection, not a measured-vs-simulated overlay.
        self.assertEqual(self.figures("all", fixture("projection.jsonl")), [PROJECTION])
        self.fails("simulated", fixture("projection.jsonl"),
                   expect="no workload has both measured and simulated train records")
        p = self.run_plots("all", fixture("sweep.jsonl"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("skipped projection", p.stderr)
        self.assertFalse(any(n.startswith("projection") for n in os.listdir(self.out)))

    def test_strategy_this_build_lacks_is_drawn(self):
        # Records of a strategy no longer in the table (an older build's) keep a colour and a label.
        with open(fixture("projection.jsonl")) as f:
            lines = [line.rstrip("\n") for line in f]
        extra = []
        for line in lines:
            rec = json.loads(line)
            if rec["strategy"] == "ring-mpi":
                rec["strategy"] = "retired-allreduce"
                extra.append(json.dumps(rec))
        path = self.write("retired.jsonl", lines + extra)
        self.figures("projection", path, "--published", "none")
        self.assertIn("retired-allreduce (simulated)", self.svg_text(PROJECTION))

    def test_no_simulated_baseline(self):
        with open(fixture("projection.jsonl")) as f:
            lines = [line.rstrip("\n") for line in f if '"none"' not in line]
        path = self.write("no-base.jsonl", lines)
        self.fails("projection", path, expect="projection of resnet101 (emulated, batch 64): no simulated baseline")

    def test_no_simulated_records(self):
        self.fails("projection", fixture("sweep.jsonl"), expect="no simulated train records")


if __name__ == "__main__":
    unittest.main()
