"""Plot tests: the server-hosts figure.

ps-zmq on k dedicated server hosts against ring-mpi, measured and simulated,
from a run directory written on the spot in the shape `scripts/cluster-runs.sh
server-hosts` writes: the figure and the values it draws, its default output
directory, the measured lines alone without the cost model's records, a
failed check marked, and each file that does not belong to the run as one
clean error line. The harness is plotcase.py.
"""
import json
import os
import sys
import tempfile
import unittest

from plotcase import ROOT, PlotCase, train_record


def server_hosts_record(strategy, total, k=None, simulated=False, placement="dedicated",
                        batch=64, time_scale=20.0, workers=4):
    """A train record of the server-hosts run: `total` img/sec of the workers as run (at the
    time scale); ps-zmq on k server hosts; simulated ones named as `gradsync simulate
    server-hosts` names them (a setup per k)."""
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

    def test_table_is_the_figures_values_with_the_models_error(self):
        """server-hosts-table: the run's report.md, from the same values as the figure."""
        p = self.run_plots("server-hosts-table", self.run_dir(), out=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "| layout | measured img/sec | cost model | model error |\n"
                                   "|---|---:|---:|---:|\n"
                                   "| ring-mpi | 40.0 | 42.0 | +5% |\n"
                                   "| ps-zmq, 1 server host(s) | 16.0 | 18.0 | +12% |\n"
                                   "| ps-zmq, 2 server host(s) | 30.0 | 33.0 | +10% |\n"
                                   "| ps-zmq, 3 server host(s) | 44.0 | 49.0 | +11% |\n")
        p = self.run_plots("server-hosts-table", self.run_dir(simulated=False), out=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines()[2:4], ["| ring-mpi | 40.0 | - | - |",
                                                     "| ps-zmq, 1 server host(s) | 16.0 | - | - |"])
        self.fails_on(self.run_dir(**{"ring.jsonl": None}), "no ring.jsonl")


if __name__ == "__main__":
    unittest.main()
