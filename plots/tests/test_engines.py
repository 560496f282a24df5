"""Plot tests: SMPI beside the cost model (`scripts/plots.sh engines`).

Collectives records of two engines over worker counts, as
scripts/smpi-scaling.sh writes them, drawn one figure per message size with
both engines' lines per strategy; malformed input, one clean error line
naming the file and line. The harness is plotcase.py.
"""
import json
import os

from plotcase import PlotCase


def record(engine, strategy, workers, size, busbw):
    described = {"name": engine, "platform": {"cluster_name": "made-up"}}
    return json.dumps({"kind": "collectives", "strategy": strategy, "workers": workers,
                       "simulated": True, "engine": described,
                       "rows": [{"size_bytes": size, "busbw_gbps": busbw}]})


class Engines(PlotCase):
    def test_both_engines_per_size(self):
        self.env = {"GRADSYNC": os.path.join(self.tmp.name, "no-gradsync")}  # not needed
        lines = [record(engine, s, n, size, bw)
                 for engine, scale in (("smpi", 1.0), ("model", 1.25))
                 for s, base in (("ring-mpi", 2.8), ("tree-mpi", 0.3))
                 for n in (16, 64, 256)
                 for size, bw in ((1 << 20, base * scale / 2), (64 << 20, base * scale))]
        path = self.write("collectives.jsonl", lines)
        self.assertEqual(self.figures("engines", path), ["engines-1M", "engines-64M"])
        svg = self.svg_text("engines-64M")
        for text in ("ring-mpi (smpi)", "ring-mpi (model)", "tree-mpi (smpi)", "tree-mpi (model)",
                     "made-up", ">16<", ">64<", ">256<", "SMPI (solid)"):
            self.assertIn(text, svg)

    def test_bad_input(self):
        good = record("smpi", "ring-mpi", 16, 1 << 20, 1.0)
        self.fails("engines", self.write("a.jsonl", [good, "{not json"]), expect="a.jsonl:2")
        self.fails("engines", self.write("b.jsonl", [good, json.dumps({"kind": "train"})]),
                   expect="b.jsonl:2: not a collectives record")
        self.fails("engines", self.write("c.jsonl", [record("ns3", "ring-mpi", 16, 4, 1.0)]),
                   expect="unknown engine 'ns3'")
        self.fails("engines", self.write("d.jsonl", []), expect="no collectives records")
        self.fails("engines", os.path.join(self.tmp.name, "missing.jsonl"), expect="cannot read")
