"""What the tests of scripts/' Python packages share.

The packages (ddp_reference, fault_campaign) are imported from scripts/,
which this module puts on sys.path; the scripts users run
(scripts/ddp-reference.py, scripts/fault-campaign.py) are run as
subprocesses with the interpreter running the tests. Bad input must give
exactly one line on stderr, no traceback, and the script's usage status.
`gradsync` is $GRADSYNC (CTest sets it), else build/bin/gradsync in this
checkout; tests that need it skip without it. Tests that need PyTorch skip
without it.

Not a test module itself; the test_*.py files beside it import it by name,
as the directory unittest discovers from is on sys.path.
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
FIXTURES = os.path.join(SCRIPTS, "tests", "fixtures")
GRADSYNC = os.environ.get("GRADSYNC") or os.path.join(ROOT, "build", "bin", "gradsync")
HAVE_TORCH = importlib.util.find_spec("torch") is not None
sys.path.insert(0, SCRIPTS)


def fixture(name):
    return os.path.join(FIXTURES, name)


def needs_gradsync(test):
    return unittest.skipUnless(os.access(GRADSYNC, os.X_OK), f"no gradsync binary at {GRADSYNC}")(test)


def run_script(name, *args):
    """Runs scripts/<name> with this interpreter: the finished process, text output."""
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, name), *args],
                          capture_output=True, text=True, timeout=120)


class ScriptCase(unittest.TestCase):
    """A test with a scratch directory of its own, self.tmp, removed after it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def scratch(self, name):
        return os.path.join(self.tmp.name, name)

    def assertOneLineError(self, process, status, expect, after_usage=False):
        """The script failed with `status` and said so in exactly one line holding
        `expect`; after_usage: after argparse's usage lines."""
        self.assertEqual(process.returncode, status, process.stderr)
        lines = process.stderr.splitlines()
        if after_usage:
            self.assertTrue(lines and lines[0].startswith("usage: "), process.stderr)
            lines = [l for l in lines if not l.startswith(("usage: ", " "))]
        self.assertEqual(len(lines), 1, process.stderr)
        self.assertIn(expect, lines[0])
        self.assertNotIn("Traceback", process.stderr)
