"""Plot tests: bad input to the record-driven figures.

A missing file or directory without records, a corrupt line (skipped and
named, as `gradsync report` does), a record of another schema or version, a
record lacking a field, no records of the kind a figure needs, no baseline,
no gradsync binary and usage errors: each one clean error line (or a
warning), never a traceback. The harness is plotcase.py.
"""
import json
import os
import unittest

from plotcase import PlotCase, fixture


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
