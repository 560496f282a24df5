"""What the plot tests share: the harness that runs plots/gradsync_plots.py.

Each case runs plots/gradsync_plots.py as a subprocess with the interpreter
running the tests, on records from tests/fixtures/ (see make_fixtures.py
there) or small files written on the spot. The figures draw what
`gradsync report --format json` computes: the binary is $GRADSYNC (CTest
sets it), else build/bin/gradsync in this checkout. A figure counts as written when
its PNG starts with the PNG signature and its SVG parses as XML; SVG text is
kept as text, so legends can be checked there. Bad input must give exactly
one line on stderr, "gradsync-plots: error: ...", no traceback and a
non-zero status.

Not a test module itself (the tests are the test_*.py files beside it, one
per figure or closely related group); they import it by name, as the
directory unittest discovers from is on sys.path.
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

    def run_dir(self, *names):
        """A run directory holding copies of the named fixtures; returns its path."""
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        for name in names:
            with open(fixture(name)) as src, open(os.path.join(d, name), "w") as dst:
                dst.write(src.read())
        return d

    def write(self, name, lines):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        return path


def train_record(strategy, workers, per_worker, compute="cpu", precision=None):
    rec = {"schema": "gradsync.result", "schema_version": 1, "kind": "train", "model": "resnet50",
           "compute": compute, "batch_size": 64, "strategy": strategy, "workers": workers,
           "correct": True, "results": {"workers": workers, "img_sec_mean": per_worker,
                                        "img_sec_conf": 2.0, "exposed_comm_share": 0.1}}
    if precision:
        rec["precision"] = precision
    return json.dumps(rec)
