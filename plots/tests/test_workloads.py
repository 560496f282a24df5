"""Plot tests: what makes a workload, each drawn with its own baseline.

Runs on an emulated cluster at a time scale are their own workload, labelled
with the cluster they represent and drawn at the represented throughput;
in process, cuda runs in two precisions are two workloads. The harness is
plotcase.py.
"""
import json
import os
import sys
import unittest

from plotcase import ROOT, PlotCase, train_record


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


class ExternalReference(PlotCase):
    """Another framework's runs (a record with "external", e.g. PyTorch DDP's ddp-gloo) are
    drawn in the same figure as gradsync's strategies, labelled as external, with their
    efficiency against their own run at one worker."""

    def test_an_external_reference_is_drawn_beside_the_strategies(self):
        lines = [train_record("none", 1, 100.0), train_record("ring-mpi", 2, 80.0)]
        for workers, rate in ((1, 200.0), (2, 150.0)):
            rec = json.loads(train_record("ddp-gloo", workers, rate))
            rec["external"] = "pytorch-ddp"
            rec["results"].update(compute_s=0.3, allreduce_s=0.1, exposed_comm_s=0.05, step_mean_s=0.4)
            lines.append(json.dumps(rec))
        path = self.write("external.jsonl", lines)
        self.assertEqual(self.figures("efficiency", path), ["efficiency-resnet50-cpu-b64"])
        self.assertIn("ddp-gloo (external, own compute)", self.svg_text("efficiency-resnet50-cpu-b64"))
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import report, style
        loaded = report.load([path])
        table = style.workloads(loaded.train)[("resnet50", "cpu", 64, "")]
        self.assertAlmostEqual(table[("ddp-gloo", 2)]["efficiency"]["value"], 0.75)  # 300 / (2 x 200)
        self.assertAlmostEqual(table[("ring-mpi", 2)]["efficiency"]["value"], 0.8)  # against none
        look = style.Look(loaded.strategies)
        self.assertNotEqual(look.color("ddp-gloo"), look.color("ring-mpi"))


if __name__ == "__main__":
    unittest.main()
