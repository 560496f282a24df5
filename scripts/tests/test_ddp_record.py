"""The DDP reference's record (ddp_reference.record): the record a run writes
is, byte for byte, the one in fixtures/ddp-records.jsonl (written by a run of
the script: 2 workers of small-cnn, and a run whose loss stopped being
finite) given that run's results and context; the configuration digest is
FNV-1a 64 over the options' JSON, as gradsync's own; the append is one whole
line, after a newline when the file lacked one."""
import json
import os
import types
import unittest
from unittest import mock

from scriptcase import ROOT, ScriptCase, fixture

from ddp_reference import record
from ddp_reference.arguments import parse_args


def fake_torch(version):
    """What record_of asks of torch, on a machine without a GPU."""
    cuda = types.SimpleNamespace(is_available=lambda: False, device_count=lambda: 0)
    return types.SimpleNamespace(__version__=version, version=types.SimpleNamespace(cuda=None), cuda=cuda)


class Record(unittest.TestCase):
    def rebuild(self, line):
        """The record record_of makes from the fixture's own results and context."""
        expected = json.loads(line)
        context = expected["context"]
        argv = context["command_line"].split()
        a = parse_args(argv[1:])
        summary = dict(expected["results"], threads=context["compute_threads"])
        if "nonfinite" in expected:
            summary["nonfinite"] = expected["nonfinite"]
        version, commit = context["config"]["gradsync"].split()
        with mock.patch.object(record, "gradsync_version", return_value=version), \
                mock.patch.object(record, "git_commit", return_value=commit), \
                mock.patch.object(record, "cpu_model", return_value=context["cpu_model"]), \
                mock.patch("socket.gethostname", return_value=context["hosts"][0]):
            config, digest = record.config_of(a, context["torch_version"])
            made = record.record_of(a, summary, fake_torch(context["torch_version"]), argv, config, digest)
        made["context"]["timestamp"] = context["timestamp"]  # the one value of the clock
        return made

    def test_records_are_the_fixtures_byte_for_byte(self):
        with open(fixture("ddp-records.jsonl")) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 2)
        for line in lines:
            self.assertEqual(json.dumps(self.rebuild(line), separators=(",", ":")), line)

    def test_a_loss_not_finite_makes_it_incorrect(self):
        with open(fixture("ddp-records.jsonl")) as f:
            made = self.rebuild(f.read().splitlines()[1])
        self.assertIs(made["correct"], False)
        self.assertTrue(made["results"]["parameters_identical"])
        self.assertEqual(list(made)[-1], "nonfinite")
        self.assertNotIn("nonfinite", made["results"])
        self.assertNotIn("threads", made["results"])


class Digest(unittest.TestCase):
    def test_fnv1a64_known_values(self):
        self.assertEqual(record.fnv1a64(b""), 0xcbf29ce484222325)
        self.assertEqual(record.fnv1a64(b"a"), 0xaf63dc4c8601ec8c)
        self.assertEqual(record.fnv1a64(b"foobar"), 0x85944171f73967e8)

    def test_every_option_as_text_and_the_digest_over_them(self):
        a = parse_args(["--model", "resnet50", "--fusion-mb", "4", "--lr", "1e30", "--workers", "3"])
        with mock.patch.object(record, "gradsync_version", return_value="9.9"), \
                mock.patch.object(record, "git_commit", return_value="abc"):
            options, digest = record.config_of(a, "2.1")
        self.assertEqual(options["subcommand"], "ddp-reference")
        self.assertEqual((options["--bucket-cap-mb"], options["--lr"], options["--workers"],
                          options["--weight-decay"], options["--timeout"]), ("4", "1e+30", "3", "0", "60"))
        self.assertEqual((options["torch"], options["gradsync"]), ("2.1", "9.9 abc"))
        self.assertEqual(len(options), 20)
        text = json.dumps(options, separators=(",", ":"), sort_keys=True).encode()
        self.assertEqual(digest, f"fnv1a64:{record.fnv1a64(text):016x}")

    def test_version_is_the_projects(self):
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            declared = next(l for l in f if l.startswith("project(gradsync"))
        self.assertIn(f"VERSION {record.gradsync_version()}", declared)


class Append(ScriptCase):
    def setUp(self):
        super().setUp()
        self.path = self.scratch("r.jsonl")

    def read(self):
        with open(self.path, "rb") as f:
            return f.read()

    def test_creates_then_appends_compact_lines(self):
        record.append_record(self.path, {"a": 1, "b": [1, 2]})
        record.append_record(self.path, {"c": None})
        self.assertEqual(self.read(), b'{"a":1,"b":[1,2]}\n{"c":null}\n')

    def test_a_torn_last_line_is_ended_first(self):
        with open(self.path, "wb") as f:
            f.write(b'{"torn":')
        record.append_record(self.path, {"a": 1})
        self.assertEqual(self.read(), b'{"torn":\n{"a":1}\n')


if __name__ == "__main__":
    unittest.main()
