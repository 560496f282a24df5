"""Plot tests: every figure's text fits on its canvas and no two labels overlap.

Every figure kind the plots package makes (cli.py's FIGURES, DOCUMENTS and
RUNS) is drawn in process through the command line, from the fixtures and
from small records written on the spot with long names: a long model, device
profile, cluster and host names, the whole strategy table in one figure, a
projection of a cluster named at length with published points of a system
named at length. As each PNG is written, the figure is drawn once more with
matplotlib's Agg renderer at the figure's own dpi, and every text artist that
draws something (titles, axis and tick labels, legend entries, annotations)
is measured by its window extent, in pixels:
  - each extent lies inside the canvas, to within INSIDE_PX;
  - no two extents overlap by more than OVERLAP_PX in both directions (two
    labels that share an edge, or whose boxes' padding meets, are apart).
A failure names the figure and the texts. The harness is plotcase.py.
"""
import contextlib
import io
import json
import os
import sys
import unittest
from unittest import mock

from plotcase import FIXTURES, ROOT, PlotCase, fixture
from test_engines import record as engine_record
from test_input import INPUT
import test_server_hosts  # its run directory; imported whole, so its tests are not run twice

sys.path.insert(0, os.path.join(ROOT, "plots"))
sys.path.insert(0, FIXTURES)
import make_fixtures  # noqa: E402  (the fixtures' own record makers)

INSIDE_PX = 1.0  # how far past the canvas's edge a text's extent may reach
OVERLAP_PX = 1.0  # how far two texts' extents may run into each other, in x and in y

LONG_MODEL = "efficientnet-b7-with-a-long-variant-name"
LONG_PROFILE = "a100-sxm4-80gb-at-a-capped-clock"
LONG_CLUSTER = ("a-long-cluster-name-for-a-site-with-many-racks-p100-roce25 "
                "(simulated: 4 per node, 25 Gbit/s between nodes)")
LONG_HOSTS = ["compute-node-0001.rack-a.example.org", "compute-node-0002.rack-a.example.org",
              "compute-node-0003.rack-b.example.org", "compute-node-0004.rack-b.example.org"]
QUICKSTART_SET = ["none", "ring-mpi", "tree-mpi", "ps-zmq", "mpi-allreduce"]
EVERY_STRATEGY = QUICKSTART_SET + ["nccl-ring", "nccl-tree", "double-tree-mpi",
                                   "halving-doubling-mpi", "hierarchical-mpi", "gloo-ring",
                                   "gloo-bcube", "gloo-ring-chunked", "gloo-halving-doubling"]


def drawn_texts(fig):
    """(text, extent) of every text artist that draws something when `fig` is drawn."""
    from matplotlib.text import Text
    drawn = []
    real_draw = Text.draw

    def draw(self, renderer):
        real_draw(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append((self, self.get_window_extent(renderer)))

    with mock.patch.object(Text, "draw", draw):
        fig.canvas.draw()
    return drawn


def layout_problems(fig):
    """What lies outside the canvas or overlaps another text, as lines; none when all is well."""
    width, height = fig.canvas.get_width_height()
    texts = drawn_texts(fig)
    problems = []
    for text, box in texts:
        if (box.x0 < -INSIDE_PX or box.y0 < -INSIDE_PX or box.x1 > width + INSIDE_PX or
                box.y1 > height + INSIDE_PX):
            problems.append(f"outside the {width}x{height} canvas: {text.get_text()!r} at "
                            f"x {box.x0:.0f}..{box.x1:.0f}, y {box.y0:.0f}..{box.y1:.0f}")
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1:]:
            dx = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            dy = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if dx > OVERLAP_PX and dy > OVERLAP_PX:
                problems.append(f"overlap of {dx:.0f}x{dy:.0f} px: {a.get_text()!r} and "
                                f"{b.get_text()!r}")
    return problems


def long_named(records):
    """The records with the long device profile and host names."""
    for r in records:
        if r.get("device_profile"):
            r["device_profile"] = {"name": LONG_PROFILE}
        r["context"] = dict(r["context"], hosts=LONG_HOSTS, hostnames=LONG_HOSTS)
    return records


def projection_records():
    """The fixture's projection, named at length and at a forced single-worker rate, with a
    band on its ring-mpi rows as a cluster file's validation gives one."""
    records = []
    for r in make_fixtures.projection():
        r["model"] = LONG_MODEL
        r["device_profile"] = {"name": "forced", "emulate_img_per_sec": 119.4}
        r["simulation"] = {"setup": LONG_CLUSTER}
        if r["strategy"] == "ring-mpi":
            r["simulation"]["band"] = {"low": 0.8, "high": 1.2,
                                       "beyond_validation": r["workers"] > 16}
        records.append(r)
    return records


class Layout(PlotCase):
    def setUp(self):
        super().setUp()
        self.checked = {}  # figure (its directory and stem): its problems

    def draw(self, *argv):
        """Runs the command line in process; checks each figure as its PNG is written."""
        from matplotlib.figure import Figure
        from gsplots import cli
        real_savefig = Figure.savefig
        checked = self.checked

        def savefig(fig, fname, *args, **kwargs):
            real_savefig(fig, fname, *args, **kwargs)
            if str(fname).endswith(".png"):
                checked[os.path.relpath(str(fname)[:-4], self.tmp.name)] = layout_problems(fig)

        out = os.path.join(self.tmp.name, f"figures-{argv[0]}-{len(self.checked)}")
        stdout, stderr = io.StringIO(), io.StringIO()
        with mock.patch.object(Figure, "savefig", savefig), contextlib.redirect_stdout(stdout), \
                contextlib.redirect_stderr(stderr):
            status = cli.main([*argv, "-o", out])
        self.assertEqual(status, 0, stderr.getvalue())
        self.assertTrue(stdout.getvalue().split(), "no figure written")

    def write_records(self, name, records):
        return self.write(name, [json.dumps(r, sort_keys=True) for r in records])

    def draw_fixtures(self):
        for name in ("sweep.jsonl", "collectives.jsonl", "simulated.jsonl", "projection.jsonl"):
            self.draw("all", fixture(name))
        self.draw("crossover", fixture("crossover.json"))

    def draw_long_names(self):
        quickstart = make_fixtures.sweep(LONG_MODEL, "emulated", QUICKSTART_SET, [1, 2, 4])
        every = make_fixtures.sweep("resnet50", "emulated", EVERY_STRATEGY, [1, 2])
        one_worker = make_fixtures.sweep("vgg16", "cpu", EVERY_STRATEGY, [1])
        simulated = [dict(r, simulated=True, context=dict(r["context"], hosts=[], hostnames=[]))
                     for r in make_fixtures.sweep(LONG_MODEL, "emulated", QUICKSTART_SET, [1, 2, 4])]
        # On one host: the input figure's axis is workers per node, one point per strategy
        # at each.
        with_input = [dict(r, input=INPUT) for r in quickstart]
        # Memory per worker on a workload of its own (a token model's, at its length).
        with_memory = [dict(r, model=LONG_MODEL + "-t", sequence_length=1024,
                            memory={"total_bytes": (1 + 3 * (r["strategy"] != "ps-zmq")) << 28})
                       for r in make_fixtures.sweep(LONG_MODEL, "emulated", QUICKSTART_SET, [1, 4])]
        self.draw("all", self.write_records(
            "long.jsonl", quickstart + simulated + with_input + with_memory +
            long_named(every + one_worker)))
        collectives = [make_fixtures.collectives(s, n) for s in EVERY_STRATEGY for n in (2, 4)]
        self.draw("busbw", self.write_records("collectives.jsonl", long_named(collectives)))
        published = self.write("published.csv", [
            "system,strategy,model,gpus,efficiency_pct",
            f"a-vendor-reference-system-with-a-long-name,nccl-ring,{LONG_MODEL},16,91",
            f"a-vendor-reference-system-with-a-long-name,nccl-ring,{LONG_MODEL},128,88",
            f"tensorflow-parameter-servers-as-published,ps-zmq,{LONG_MODEL},16,50"])
        self.draw("projection", self.write_records("projection.jsonl", projection_records()),
                  "--published", published)
        doc = make_fixtures.crossover()
        doc["model"], doc["cluster"] = LONG_MODEL, LONG_CLUSTER
        path = os.path.join(self.tmp.name, "crossover.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        self.draw("crossover", path)
        lines = [engine_record(engine, s, n, size, 1.0 + n / 100)
                 for engine in ("smpi", "model") for s in EVERY_STRATEGY[1:]
                 for n in (16, 64, 256, 1024) for size in (1 << 20, 64 << 20)]
        self.draw("engines", self.write("engines.jsonl", lines))
        hosts = test_server_hosts.ServerHosts()
        hosts.tmp = self.tmp
        self.draw("server-hosts", hosts.run_dir())

    def test_text_fits_and_no_labels_overlap(self):
        self.draw_fixtures()
        self.draw_long_names()
        from gsplots import cli
        kinds = set(cli.FIGURES) | set(cli.DOCUMENTS) | set(cli.RUNS)
        drawn = {kind for kind in kinds for figure in self.checked
                 if os.path.basename(figure).startswith(kind + "-")}
        self.assertEqual(drawn, kinds, "every figure kind is drawn")
        problems = [f"{figure}: {p}" for figure, found in sorted(self.checked.items()) for p in found]
        self.assertEqual(problems, [], f"{len(problems)} layout problem(s):\n" + "\n".join(problems))

    def test_the_check_sees_a_cut_title_and_an_overlap(self):
        """The check itself: a title wider than the canvas and two labels at one place."""
        from gsplots import style
        fig, ax = style.new_figure()
        ax.set_title("a title far wider than any canvas " * 4)
        ax.text(0.5, 0.5, "one label")
        ax.text(0.5, 0.5, "another label")
        problems = layout_problems(fig)
        self.assertEqual(len(problems), 2, problems)
        self.assertTrue(problems[0].startswith("outside the 960x600 canvas: 'a title far"),
                        problems)
        self.assertTrue(problems[1].startswith("overlap of "), problems)
        import matplotlib.pyplot as plt
        plt.close(fig)


if __name__ == "__main__":
    unittest.main()
