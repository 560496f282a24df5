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
                       "rows": [{"size_bytes": size, "busbw_gbps": busbw,
                                 "time_us": 1000.0 * size / busbw / 1e9}]})


class Engines(PlotCase):
    def errors_table(self):
        with open(os.path.join(self.out, "errors.md"), encoding="utf-8") as f:
            return f.read()

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
        # The model against SMPI: 1.25x the bus bandwidth is 0.8x the time,
        # -20% at every one of 2 strategies x 3 workers x 2 sizes.
        table = self.errors_table()
        self.assertIn("| model | smpi | ring-mpi | 6 | 20.0% | -20.0% (1M at 16) |", table)
        self.assertIn("| model | smpi | **all** | 12 | 20.0% | -20.0% |", table)
        self.assertIn("| model | smpi | tree-mpi | 256 | 64M |", table)
        # The same as cluster-file validation entries, in throughput terms:
        # 0.8x the time is +25% the throughput.
        with open(os.path.join(self.out, "validation.json"), encoding="utf-8") as f:
            entries = {e["strategy"]: e for e in json.load(f)}
        self.assertEqual(sorted(entries), ["ring-mpi", "tree-mpi"])
        ring = entries["ring-mpi"]
        self.assertEqual((ring["runs"], ring["workers"], ring["models"]),
                         (6, [16, 64, 256], ["collectives 1M", "collectives 64M"]))
        self.assertAlmostEqual(ring["max_error"], 0.25)
        self.assertAlmostEqual(ring["min_error"], 0.25)
        self.assertIn("SMPI on made-up", ring["against"])
        self.assertEqual(ring["engine"], "smpi")

    def test_measurements_are_the_reference(self):
        measured = json.loads(record("smpi", "ring-mpi", 4, 1 << 20, 2.0))
        del measured["engine"], measured["simulated"]
        lines = [json.dumps(measured), record("smpi", "ring-mpi", 4, 1 << 20, 2.0 / 1.05)]
        self.assertEqual(self.figures("engines", self.write("m.jsonl", lines)), ["engines-1M"])
        table = self.errors_table()
        self.assertIn("| smpi | measured | ring-mpi | 1 | 5.0% | +5.0% (1M at 4) |", table)
        self.assertIn("beyond 10%\n\nNone.", table)

    def test_ps_runs_by_shards_and_carrier(self):
        def ps(engine, workers, servers, transport, time_us):
            line = json.loads(record(engine, "ps-zmq", workers, 1 << 20, 1.0))
            line["rows"][0]["time_us"] = time_us
            line["strategy_options"] = {"ps_servers": servers, "ps_placement": "colocated",
                                        "ps_transport": transport}
            if engine == "measured":
                del line["engine"], line["simulated"]
            return json.dumps(line)
        lines = [ps("measured", 8, 8, "tcp", 2000.0), ps("measured", 8, 8, "mpi", 1000.0),
                 ps("measured", 8, 1, "tcp", 4000.0), ps("smpi", 8, 8, "mpi", 1100.0),
                 ps("smpi", 8, 1, "mpi", 4400.0), ps("model", 8, 8, "tcp", 1000.0)]
        self.assertEqual(self.figures("engines", self.write("ps.jsonl", lines)), ["engines-1M"])
        svg = self.svg_text("engines-1M")
        for text in ("ps-zmq (a shard per worker) (measured over mpi)", "ps-zmq (1 shard) (smpi)",
                     "measured over MPI (dash-dot)"):
            self.assertIn(text, svg)
        table = self.errors_table()
        # Every engine against what users run, ZeroMQ; over MPI an engine of its own.
        self.assertIn("| smpi | measured | ps-zmq (a shard per worker) | 1 | 45.0% |", table)
        self.assertIn("| smpi | measured | ps-zmq (1 shard) | 1 | 10.0% |", table)
        self.assertIn("| model | measured | ps-zmq (a shard per worker) | 1 | 50.0% |", table)
        self.assertIn("| measured over mpi | measured | ps-zmq (a shard per worker) | 1 | 50.0% |",
                      table)

    def test_bad_input(self):
        good = record("smpi", "ring-mpi", 16, 1 << 20, 1.0)
        self.fails("engines", self.write("a.jsonl", [good, "{not json"]), expect="a.jsonl:2")
        self.fails("engines", self.write("b.jsonl", [good, json.dumps({"kind": "train"})]),
                   expect="b.jsonl:2: not a collectives record")
        self.fails("engines", self.write("c.jsonl", [record("ns3", "ring-mpi", 16, 4, 1.0)]),
                   expect="unknown engine 'ns3'")
        self.fails("engines", self.write("d.jsonl", []), expect="no collectives records")
        self.fails("engines", os.path.join(self.tmp.name, "missing.jsonl"), expect="cannot read")
