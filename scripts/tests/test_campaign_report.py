"""What the fault campaign prints (fault_campaign.report, .forged's frames):
a run's line, the table by fault kind, and ZMTP frames as the forger sends
them. Then the script: bad input is argparse's usage and one line, exit 2."""
import os
import stat
import unittest

from scriptcase import ScriptCase, run_script

from fault_campaign.forged import zmtp_frame
from fault_campaign.report import progress_line, table


def verdict(kind, passed=True, **given):
    v = {"kind": kind, "in_time": True, "one_line": True, "nothing_wrong": True, "not_torn": True,
         "none_left": True, "pass": passed, "errors": [], "elapsed_s": 1.5, "exit": 1,
         "describe": f"{kind} (middle) collectives ring-mpi x2"}
    v.update(given)
    return v


class Report(unittest.TestCase):
    def test_progress_line(self):
        v = verdict("stop", errors=["gradsync: error: rank 0: is rank 1 alive?" + "x" * 200])
        head = "ok      7 stop (middle) collectives ring-mpi x2: exit 1 after 1.5 s: "
        line = progress_line(7, v)  # the first error line, its prefix left out, cut at 140
        self.assertEqual(line, head + ("rank 0: is rank 1 alive?" + "x" * 200)[:140])
        self.assertEqual(progress_line(12, verdict("kill", passed=False, elapsed_s=None, exit=137)),
                         "FAIL   12 kill (middle) collectives ring-mpi x2: exit 137")

    def test_table_by_kind_then_all(self):
        rows = table([verdict("disk"), verdict("stop", passed=False, one_line=False), verdict("stop")])
        self.assertEqual(rows.splitlines(), [
            "| fault | runs | in time | one true line | nothing recorded wrong or lost | nothing torn "
            "| nothing left running | all |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
            "| stop | 2 | 2 | 1 | 2 | 2 | 2 | 1 |",
            "| disk | 1 | 1 | 1 | 1 | 1 | 1 | 1 |",
            "| all | 3 | 3 | 2 | 3 | 3 | 3 | 2 |"])


class Frames(unittest.TestCase):
    def test_short_and_long_frames(self):
        self.assertEqual(zmtp_frame(b"ab"), b"\x00\x02ab")
        self.assertEqual(zmtp_frame(b"ab", more=True, command=True), b"\x05\x02ab")
        self.assertEqual(zmtp_frame(b"x" * 256, more=True), b"\x03" + (256).to_bytes(8, "big") + b"x" * 256)


class Script(ScriptCase):
    def setUp(self):
        # A gradsync whose `strategies` lists one usable Gloo strategy.
        super().setUp()
        self.gradsync = self.scratch("gradsync")
        with open(self.gradsync, "w") as f:
            f.write("#!/bin/sh\necho 'gloo-ring yes'\necho 'gloo-bcube no'\n")
        os.chmod(self.gradsync, stat.S_IRWXU)

    def refused(self, expect, *args):
        self.assertOneLineError(run_script("fault-campaign.py", *args), 2,
                                "fault-campaign.py: error: " + expect, after_usage=True)

    def test_bad_input(self):
        g = ["--gradsync", self.gradsync]
        self.refused("--runs must be at least 1", "--runs", "0", *g)
        self.refused("--only: run 5 is beyond --runs 3", "--runs", "3", "--only", "1,5", *g)
        self.refused("--kinds: unknown fault 'bogus' (of stop, kill, slow, option, disk, forged, input, "
                     "shm, model, writers, signal)",
                     "--kinds", "stop,bogus", *g)
        self.refused("/nonexistent: no gradsync binary there", "--gradsync", "/nonexistent")
        self.refused("--strategies: 'gloo-bcube' is not a CPU strategy this build can run (of ring-mpi, "
                     "tree-mpi, double-tree-mpi, halving-doubling-mpi, hierarchical-mpi, mpi-allreduce, "
                     "ps-zmq, gloo-ring)", "--strategies", "ring-mpi,gloo-bcube", *g)
        self.refused("argument --runs: invalid int value: 'x'", "--runs", "x")


if __name__ == "__main__":
    unittest.main()
