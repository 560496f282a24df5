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


PROJECTION = "projection-resnet101-emulated-b64"
PUBLISHED_HEADER = "system,strategy,model,gpus,efficiency_pct"


class Projection(PlotCase):
    """Simulated efficiency to 1,024 workers with the published points of the same model."""

    def test_projection_with_the_repository_published_points(self):
        self.assertEqual(self.figures("projection", fixture("projection.jsonl")), [PROJECTION])
        svg = self.svg_text(PROJECTION)
        for text in ("Simulated efficiency: resnet101", "ring-mpi (simulated)",
                     "ps-zmq (simulated)", "none (no sync) (simulated)", "1024", "ideal (100%)",
                     "horovod nccl-ring (published)", "tensorflow-ps ps (published)"):
            self.assertIn(text, svg)
        for model in ("inception3", "vgg16"):  # other models' rows stay out
            self.assertNotIn(model, svg)

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

    def test_model_only_strategy_is_drawn(self):
        with open(fixture("projection.jsonl")) as f:
            lines = [line.rstrip("\n") for line in f]
        extra = []
        for line in lines:
            rec = json.loads(line)
            if rec["strategy"] == "ring-mpi":
                rec["strategy"] = "hierarchical"
                extra.append(json.dumps(rec))
        path = self.write("model-only.jsonl", lines + extra)
        self.figures("projection", path, "--published", "none")
        self.assertIn("hierarchical (simulated)", self.svg_text(PROJECTION))

    def test_no_simulated_baseline(self):
        with open(fixture("projection.jsonl")) as f:
            lines = [line.rstrip("\n") for line in f if '"none"' not in line]
        path = self.write("no-base.jsonl", lines)
        self.fails("projection", path, expect="projection of resnet101 (emulated, batch 64): no simulated baseline")

    def test_no_simulated_records(self):
        self.fails("projection", fixture("sweep.jsonl"), expect="no simulated train records")


CROSSOVER = "crossover-resnet50-b64"


def crossover_doc():
    with open(fixture("crossover.json")) as f:
        return json.load(f)


class Crossover(PlotCase):
    """The fastest simulated strategy per worker count and inter-node bandwidth, from the one
    JSON document `gradsync simulate --crossover` writes (no gradsync binary involved)."""

    def test_map(self):
        self.env = {"GRADSYNC": os.path.join(self.tmp.name, "no-gradsync")}  # not needed
        self.assertEqual(self.figures("crossover", fixture("crossover.json")), [CROSSOVER])
        svg = self.svg_text(CROSSOVER)
        for text in ("Fastest strategy (simulated): resnet50 batch 64", "horovod-p100 (4 GPUs per node)",
                     "inter-node bandwidth (Gbit/s)", ">25<", ">100<", ">1024<", "fastest",
                     "ring-mpi", "tree-mpi", "hierarchical", "+58%", "+20%", "+0.1%"):
            self.assertIn(text, svg)
        self.assertNotIn("ps-zmq", svg)  # it wins nowhere: not in the legend
        # Three cells lead by more than 10% (+58%, +20%, +16% in the fixture): bold.
        self.assertEqual(svg.count("font: 700 "), 3)

    def test_not_part_of_all(self):
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        for name in ("sweep.jsonl", "crossover.json"):
            with open(fixture(name)) as src, open(os.path.join(d, name), "w") as dst:
                dst.write(src.read())
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
        self.assertIn("gradsync simulate --crossover", line)
        self.fails("crossover", os.path.join(self.tmp.name, "nope.json"), expect="nope.json: cannot read")


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


def server_hosts_record(strategy, total, k=None, simulated=False, placement="dedicated",
                        batch=64, time_scale=20.0, workers=4):
    """A train record of the server-hosts run: `total` img/sec of the workers as run (at the
    time scale); ps-zmq on k server hosts; simulated ones named as `gradsync simulate
    --ps-server-hosts` names them (a setup per k)."""
    rec = json.loads(train_record(strategy, workers, total / workers, "emulated"))
    rec.update(batch_size=batch, time_scale=time_scale, ranks=workers + (k or 0),
               context={"timestamp": "2026-12-02T10:00:00Z", "hosts": ["gsp-h0", "gsp-h4"],
                        "hostnames": ["gsp-h0", "gsp-h4"]})
    if k is not None:
        rec["strategy_options"] = {"ps_servers": k, "ps_placement": placement}
    if simulated:
        rec.update(simulated=True, correct=None, context=dict(rec["context"], hosts=[], hostnames=[]))
        rec["results"]["img_sec_conf"] = 0.0
        rec["simulation"] = {"setup": "cluster" + (f" [{k} server hosts]" if k else "")}
    return json.dumps(rec)


SERVER_HOSTS = "server-hosts-resnet50-emulated-b64"


class ServerHosts(PlotCase):
    """ps-zmq on k dedicated server hosts against ring-mpi, measured and simulated, from the
    directory `scripts/cluster-runs.sh server-hosts` writes (ring.jsonl, ps-K.jsonl,
    simulated.jsonl)."""
    RING, PS = 40.0, {1: 16.0, 2: 30.0, 3: 44.0}  # total img/sec as run, measured
    SIM_RING, SIM_PS = 42.0, {1: 18.0, 2: 33.0, 3: 49.0}  # the cost model's

    def run_dir(self, simulated=True, **replace):
        """Writes the run's directory; replace={file name: [lines]} swaps a file's records
        (None: leaves the file out)."""
        d = tempfile.mkdtemp(dir=self.tmp.name)
        files = {"ring.jsonl": [server_hosts_record("ring-mpi", self.RING)]}
        for k, total in self.PS.items():
            files[f"ps-{k}.jsonl"] = [server_hosts_record("ps-zmq", total, k)]
        if simulated:
            files["simulated.jsonl"] = (
                [server_hosts_record("ps-zmq", t, k, simulated=True) for k, t in self.SIM_PS.items()]
                + [server_hosts_record("none", 120.0 / 4, simulated=True, workers=1),
                   server_hosts_record("ring-mpi", self.SIM_RING, simulated=True)])
        files.update(replace)
        for name, lines in files.items():
            if lines is not None:
                with open(os.path.join(d, name), "w") as f:
                    f.write("".join(line + "\n" for line in lines))
        with open(os.path.join(d, "report.md"), "w") as f:
            f.write("| not records |\n")
        return d

    def test_figure(self):
        self.assertEqual(self.figures("server-hosts", self.run_dir()), [SERVER_HOSTS])
        svg = self.svg_text(SERVER_HOSTS)
        for text in ("ps-zmq on k server hosts vs ring-mpi, 4 workers", "resnet50 (emulated)",
                     "ring-mpi, measured", "ring-mpi, cost model", "ps-zmq, measured",
                     "ps-zmq, cost model", "dedicated parameter-server hosts k",
                     "total images/s of the 4 workers", "time scale x20", "hosts: gsp-h0, gsp-h4",
                     "2026-12-02"):
            self.assertIn(text, svg)
        for total in self.PS.values():  # each measured point's lead over the measured ring
            self.assertIn(f">{100 * (total / self.RING - 1):+.0f}%<", svg)
        self.assertNotIn("failed check", svg)

    def test_values_are_the_records_as_run(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import server_hosts
        ring, ps, sim_ring, sim_ps, _ = server_hosts.read_dir(self.run_dir())
        self.assertAlmostEqual(ring["measured_img_sec"]["mean"], self.RING)
        self.assertAlmostEqual(sim_ring["measured_img_sec"]["mean"], self.SIM_RING)
        self.assertEqual(sorted(ps), sorted(self.PS))
        self.assertEqual(sorted(sim_ps), sorted(self.SIM_PS))
        for k in self.PS:
            self.assertAlmostEqual(ps[k]["measured_img_sec"]["mean"], self.PS[k])
            self.assertAlmostEqual(sim_ps[k]["measured_img_sec"]["mean"], self.SIM_PS[k])

    def test_default_out_is_figures_in_the_directory(self):
        d = self.run_dir()
        p = self.run_plots("server-hosts", d, out=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), [os.path.join(d, "figures", f"{SERVER_HOSTS}.{ext}")
                                            for ext in ("png", "svg")])

    def test_without_simulated_records_the_measured_lines_alone(self):
        p = self.run_plots("server-hosts", self.run_dir(simulated=False))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("no simulated.jsonl, the cost model's lines left out", p.stderr)
        svg = self.svg_text(SERVER_HOSTS)
        self.assertIn("ps-zmq, measured", svg)
        self.assertNotIn("cost model", svg)

    def test_failed_check_is_marked(self):
        rec = json.loads(server_hosts_record("ps-zmq", self.PS[2], 2))
        rec["correct"] = False
        self.figures("server-hosts", self.run_dir(**{"ps-2.jsonl": [json.dumps(rec)]}))
        self.assertIn("failed check", self.svg_text(SERVER_HOSTS))

    def fails_on(self, d, expect):
        line = self.fails("server-hosts", d, expect=expect)
        self.assertFalse(os.path.exists(self.out) and os.listdir(self.out))
        return line

    def test_not_the_run_directory(self):
        self.fails_on(os.path.join(self.tmp.name, "nope"), "nope: not a directory")
        self.fails_on(self.run_dir(**{"ring.jsonl": None}), "no ring.jsonl")
        self.fails_on(self.run_dir(**{f"ps-{k}.jsonl": None for k in self.PS}), "no ps-K.jsonl")
        self.fails_on(self.run_dir(**{"ring.jsonl": [server_hosts_record("ps-zmq", 10.0, 1)]}),
                      "ring.jsonl: no measured ring-mpi train record (it has ps-zmq)")

    def test_layout_disagrees_with_the_file_name(self):
        self.fails_on(self.run_dir(**{"ps-2.jsonl": [server_hosts_record("ps-zmq", 30.0, 3)]}),
                      "ps-2.jsonl:1: ps-zmq with 3 server(s), the file name says 2")
        self.fails_on(self.run_dir(**{"ps-2.jsonl": [server_hosts_record("ps-zmq", 30.0, 2,
                                                                          placement="colocated")]}),
                      "ps-2.jsonl:1: ps-zmq with --ps-placement colocated")

    def test_runs_of_another_workload_or_time_scale(self):
        self.fails_on(self.run_dir(**{"ps-3.jsonl": [server_hosts_record("ps-zmq", 44.0, 3,
                                                                          batch=32)]}),
                      "ps-3.jsonl: resnet50 (emulated) batch 32 at 4 workers")
        sim = [server_hosts_record("ps-zmq", t, k, simulated=True, time_scale=1.0)
               for k, t in self.SIM_PS.items()]
        self.fails_on(self.run_dir(**{"simulated.jsonl": sim}),
                      "simulated at time scale x1, the measured runs at x20")
        sim = [server_hosts_record("ps-zmq", t, k, simulated=True, workers=8)
               for k, t in self.SIM_PS.items()]
        self.fails_on(self.run_dir(**{"simulated.jsonl": sim}),
                      "simulated.jsonl: no simulated ring-mpi or dedicated ps-zmq record")

    def test_bad_record_is_one_line(self):
        self.fails_on(self.run_dir(**{"ps-1.jsonl": ['{"schema": "gradsync.result", "schema_version": 2}']}),
                      "ps-1.jsonl:1: schema_version 2")

    def test_usage(self):
        self.fails("server-hosts", status=2, out=False)


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

    def test_model_only_role_takes_palette_by_index(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        look = style.Look([{"name": "ring", "index": 0, "role": "synchronizer"},
                           {"name": "none", "index": 1, "role": "baseline"},
                           {"name": "hierarchical", "index": 3, "role": "model"},
                           {"name": "double-tree", "index": 2, "role": "model"}])
        self.assertEqual(look.order(["hierarchical", "none", "double-tree", "ring"]),
                         ["ring", "none", "double-tree", "hierarchical"])
        self.assertEqual([look.color(s) for s in ("ring", "double-tree", "hierarchical")],
                         style.PALETTE[:3])
        self.assertEqual([look.marker(s) for s in ("ring", "double-tree", "hierarchical")],
                         style.MARKERS[:3])
        self.assertEqual(look.label("double-tree"), "double-tree")


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

    def test_corrupt_line_is_skipped_and_named(self):
        """As `gradsync report` does: the good records are drawn, every bad line named."""
        p = self.run_plots("all", fixture("corrupt.jsonl"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("gradsync-plots: warning: ", p.stderr)
        self.assertIn("corrupt.jsonl:2: not valid JSON", p.stderr)
        self.assertIn("skipped 1 bad line(s) of 2", p.stderr)

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
