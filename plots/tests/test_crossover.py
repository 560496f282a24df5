"""Plot tests: the crossover map of `gradsync simulate crossover --map`.

The fastest simulated strategy per worker count and inter-node bandwidth,
drawn from the one JSON document the simulator writes (no gradsync binary
involved); a document of one strategy, which has no margins; that `all`
leaves it out; and malformed documents, each one clean error line naming
the file. The harness is plotcase.py.
"""
import json
import os
import unittest

from plotcase import PlotCase, fixture


CROSSOVER = "crossover-resnet50-b64"


def crossover_doc():
    with open(fixture("crossover.json")) as f:
        return json.load(f)


class Crossover(PlotCase):
    """The fastest simulated strategy per worker count and inter-node bandwidth, from the one
    JSON document `gradsync simulate crossover --map` writes (no gradsync binary involved)."""

    def test_map(self):
        self.env = {"GRADSYNC": os.path.join(self.tmp.name, "no-gradsync")}  # not needed
        self.assertEqual(self.figures("crossover", fixture("crossover.json")), [CROSSOVER])
        svg = self.svg_text(CROSSOVER)
        for text in ("Fastest strategy (simulated): resnet50 batch 64", "horovod-p100 (4 GPUs per node)",
                     "inter-node bandwidth (Gbit/s)", ">25<", ">100<", ">1024<", "fastest",
                     "ring-mpi", "tree-mpi", "hierarchical-mpi", "+58%", "+20%", "+0.1%"):
            self.assertIn(text, svg)
        self.assertNotIn("ps-zmq", svg)  # it wins nowhere: not in the legend
        # Three cells lead by more than 10% (+58%, +20%, +16% in the fixture): bold.
        self.assertEqual(svg.count("font: 700 "), 3)

    def test_not_part_of_all(self):
        d = self.run_dir("sweep.jsonl", "crossover.json")
        self.assertFalse(any(s.startswith("crossover") for s in self.figures("all", d)))

    def fails_on(self, doc, expect):
        path = self.write("bad.json", [json.dumps(doc)])
        line = self.fails("crossover", path, expect=expect)
        self.assertIn("bad.json", line)
        self.assertFalse(os.path.exists(self.out) and os.listdir(self.out))

    def test_wrong_schema(self):
        self.fails_on(dict(crossover_doc(), schema="gradsync.report"),
                      "not a gradsync.crossover document")
        self.fails_on(dict(crossover_doc(), schema_version=2), "gradsync.crossover schema_version 2")

    def test_missing_keys(self):
        for key in ("model", "batch_size", "cluster", "strategies", "workers",
                    "inter_bandwidths_bits_per_s", "cells"):
            with self.subTest(key=key):
                doc = crossover_doc()
                del doc[key]
                self.fails_on(doc, f'missing key "{key}"')
        for key in ("fastest", "runner_up", "margin", "inter_bandwidth_bits_per_s"):
            with self.subTest(key=key):
                doc = crossover_doc()
                del doc["cells"][5][key]
                self.fails_on(doc, f'cells[5]: missing key "{key}"')

    def test_cell_names_a_strategy_not_listed(self):
        doc = crossover_doc()
        doc["cells"][0]["fastest"] = "nccl-ring"
        self.fails_on(doc, "cells[0]: fastest 'nccl-ring' is not one of the document's strategies")
        doc = crossover_doc()
        doc["cells"][3]["runner_up"] = "nccl-tree"
        self.fails_on(doc, "cells[3]: runner_up 'nccl-tree' is not one of")

    def test_grid_with_a_missing_cell(self):
        doc = crossover_doc()
        doc["cells"] = [c for c in doc["cells"]
                        if (c["workers"], c["inter_bandwidth_bits_per_s"]) != (16, 2.5e10)]
        self.fails_on(doc, "the grid lacks 1 of its 40 cells, the first 16 workers at 25 Gbit/s")

    def test_cell_off_the_grid_or_twice(self):
        doc = crossover_doc()
        doc["cells"][2]["workers"] = 3
        self.fails_on(doc, "cells[2]: 3 workers at 1 Gbit/s is not on the grid")
        doc = crossover_doc()
        doc["cells"].append(doc["cells"][0])
        self.fails_on(doc, "cells[40]: a second cell for 2 workers at 1 Gbit/s")

    def test_margin_and_runner_up_go_together(self):
        doc = crossover_doc()
        doc["cells"][1]["runner_up"] = None
        self.fails_on(doc, "cells[1]: runner_up and margin must both be null")

    def test_one_strategy_has_no_margin(self):
        doc = crossover_doc()
        doc["strategies"] = doc["strategies"][:1]
        for c in doc["cells"]:
            c.update(fastest="ring-mpi", runner_up=None, margin=None, img_sec={"ring-mpi": 1.0})
        path = self.write("one.json", [json.dumps(doc)])
        self.assertEqual(self.figures("crossover", path), [CROSSOVER])
        svg = self.svg_text(CROSSOVER)
        self.assertIn("ring-mpi", svg)
        self.assertNotIn("%<", svg)

    def test_not_json(self):
        line = self.fails("crossover", fixture("sweep.jsonl"), expect="sweep.jsonl:2: not valid JSON")
        self.assertIn("gradsync simulate crossover --map", line)
        self.fails("crossover", os.path.join(self.tmp.name, "nope.json"), expect="nope.json: cannot read")


if __name__ == "__main__":
    unittest.main()
