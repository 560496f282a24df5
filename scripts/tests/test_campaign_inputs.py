"""The fault campaign's kinds that are not one job under mpirun, without
gradsync: the cost model's bad files (fault_campaign.model_inputs: each
family written as drawn, and judged on one line naming the file and the key
or the line, no nan, nothing written to --out, no crash signal) and two
sweeps into one folder (fault_campaign.writers: one ran, the other refused
naming the first's process, the records and logs the first's alone)."""
import json
import os
import stat
import types
import unittest

from scriptcase import ScriptCase

from fault_campaign.model_inputs import (GARBAGE, MISSING, BadFile, bad_cluster, bad_line, bad_table,
                                         judge_bad_file, names_the_place, table_rows)
from fault_campaign.writers import judge_writers


class BadFiles(unittest.TestCase):
    def test_cluster_fields(self):
        self.assertEqual(json.loads(bad_cluster("nodes", 0))["nodes"], 0)
        self.assertNotIn("nodes", json.loads(bad_cluster("nodes", MISSING)))
        # a missing value takes its whole field: the number and its source
        self.assertNotIn("bandwidth_bits_per_s",
                         json.loads(bad_cluster("inter.bandwidth_bits_per_s.value", MISSING))["inter"])
        text = bad_cluster("inter.bandwidth_bits_per_s.value", "1e999")
        self.assertIn('"value": 1e999', text.splitlines()[bad_line(
            BadFile("cluster", "inter.bandwidth_bits_per_s.value", "1e999", None, "project")) - 1])
        garbage = bad_cluster("", GARBAGE)
        self.assertTrue(garbage.endswith('}\n{"nodes": 4}\n'))

    def test_published_cells_and_columns(self):
        head, rows = table_rows()
        text = bad_table("efficiency_pct", "500", 2).splitlines()
        self.assertEqual(text[len(head) + 2].rsplit(",", 1)[1], "500")
        self.assertEqual(text[:len(head)], head)
        self.assertEqual(bad_line(BadFile("published", "efficiency_pct", "500", 2, "published")), len(head) + 3)
        gone = bad_table("gpus_per_node", MISSING, 0).splitlines()
        self.assertNotIn("gpus_per_node", gone[len(head) - 1])
        self.assertEqual(len(gone[len(head)].split(",")), len(rows[0].split(",")) - 1)

    def test_names_the_file_and_the_key_or_the_line(self):
        cell = BadFile("published", "gpus_per_node", "0", 5, "published")
        at = len(table_rows()[0]) + 6
        self.assertTrue(names_the_place(cell, "/w/bad.csv", f"gradsync: error: /w/bad.csv:{at}: gpus_per_node: 0"))
        self.assertTrue(names_the_place(cell, "/w/bad.csv", f"gradsync: error: bad.csv: line {at}: must be 1+"))
        self.assertFalse(names_the_place(cell, "/w/bad.csv", "gradsync: error: simulate: at least one worker"))
        self.assertFalse(names_the_place(cell, "/w/bad.csv", "gradsync: error: other.csv: gpus_per_node"))
        nodes = BadFile("cluster", "nodes", MISSING, None, "project")
        self.assertTrue(names_the_place(nodes, "/w/c.json", 'gradsync: error: /w/c.json: missing "nodes"'))
        self.assertFalse(names_the_place(nodes, "/w/c.json", "gradsync: error: /w/c.json: not valid JSON"))
        garbage = BadFile("cluster", "", GARBAGE, None, "project")
        self.assertTrue(names_the_place(garbage, "/w/c.json", "gradsync: error: /w/c.json:130: garbage"))


class JudgedBadFile(ScriptCase):
    def judged(self, script):
        """The verdict on the bad file of an efficiency of 500%, given to a
        stand-in gradsync that runs `script` (sh; $OUT is its --out)."""
        fake = self.scratch("gradsync")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\nfor a; do OUT=$a; done\n' + script + "\n")
        os.chmod(fake, stat.S_IRWXU)
        run = types.SimpleNamespace(index=3, kind="model", when="launch", strategy="ring-mpi", timeout=2.0,
                                    variant=BadFile("published", "efficiency_pct", "500", 1, "published"))
        return judge_bad_file(run, fake, self.tmp.name)

    def test_one_line_naming_the_file(self):
        v = self.judged('echo "gradsync: error: $3: efficiency_pct 500 is not a percentage" >&2; exit 1')
        self.assertTrue(v["pass"], v)

    def test_accepted_written_nan_or_crashed(self):
        self.assertFalse(self.judged("echo '| nccl-ring | 4% |'; echo '{}' > $OUT; exit 0")["in_time"])
        v = self.judged('echo "eff nan"; echo "gradsync: error: $3: efficiency_pct" >&2; exit 1')
        self.assertEqual((v["nothing_wrong"], v["nan_in_stdout"]), (False, True))
        v = self.judged('echo "{}" > $OUT; echo "gradsync: error: $3: efficiency_pct" >&2; exit 1')
        self.assertFalse(v["nothing_wrong"])
        self.assertFalse(self.judged("kill -FPE $$")["in_time"])


class TwoWriters(ScriptCase):
    def verdict(self, statuses, lines, records=2, logs=("Running benchmark\nTotal img/sec on 2\n",) * 2):
        results = self.scratch(f"results{len(os.listdir(self.tmp.name))}")
        os.makedirs(results)
        for n in range(records):
            log = os.path.join(results, f"run{n % len(logs)}.log")
            with open(log, "w") as f:
                f.write(logs[n % len(logs)])
            with open(os.path.join(results, "sweep.jsonl"), "a") as f:
                f.write(json.dumps({"log": log, "status": "done"}) + "\n")
            with open(os.path.join(results, "train.jsonl"), "a") as f:
                f.write(json.dumps({"correct": True}) + "\n")
        sweeps = [types.SimpleNamespace(pid=100 + n, wait=lambda s=s: s) for n, s in enumerate(statuses)]
        run = types.SimpleNamespace(index=1, kind="writers", when="launch", strategy="ring-mpi", ranks=2,
                                    timeout=2.0)
        return judge_writers(run, sweeps, lines, {0: 3.0, 1: 0.4}, results)

    def test_one_ran_and_the_other_refused_naming_it(self):
        v = self.verdict([0, 1], ["", "gradsync: error: results: in use by gradsync sweep (pid 100)\n"])
        self.assertTrue(v["pass"], v)

    def test_both_ran_or_the_holder_unnamed(self):
        v = self.verdict([0, 0], ["", ""], records=4)
        self.assertEqual((v["one_line"], v["nothing_wrong"], v["in_time"]), (False, False, False))
        self.assertFalse(self.verdict([0, 1], ["", "gradsync: error: results: in use\n"])["one_line"])

    def test_a_log_written_twice(self):
        twice = "Running benchmark\nTotal img/sec on 2\n" * 2
        self.assertFalse(self.verdict([0, 1], ["", "gradsync: error: pid 100\n"], logs=(twice,))["nothing_wrong"])


if __name__ == "__main__":
    unittest.main()
