"""The DDP reference's command line (ddp_reference.arguments): gradsync train's
options and their defaults, the bucket threshold under either name, the
strategy that follows --compute, and each kind of bad input refused with its
one line: a malformed or out-of-range number, an unknown model, a gradsync
option DDP has no counterpart of, an unknown option. Then the script itself:
bad input is one line on stderr and exit status 2."""
import re
import subprocess
import unittest

from scriptcase import GRADSYNC, ScriptCase, needs_gradsync, run_script

from ddp_reference.arguments import NOT_FOR_DDP, parse_args
from ddp_reference.errors import UsageError
from ddp_reference.models import MODELS


class Defaults(unittest.TestCase):
    def test_gradsync_train_defaults(self):
        a = parse_args(["--model", "small-cnn"])
        self.assertEqual((a.workers, a.batch_size, a.num_warmup_batches, a.num_batches_per_iter,
                          a.num_iters), (1, 32, 10, 10, 10))
        self.assertEqual((a.lr, a.momentum, a.weight_decay, a.warmup_steps), (0.01, 0.9, 0.0, 0))
        self.assertEqual((a.seed, a.data_seed, a.timeout, a.out), (1, 1, 60.0, ""))

    def test_cpu_runs_ddp_gloo_with_ddp_own_buckets(self):
        a = parse_args(["--model", "resnet50"])
        self.assertEqual((a.strategy, a.backend, a.bucket_cap_mb), ("ddp-gloo", "gloo", 25.0))

    def test_cuda_runs_ddp_nccl(self):
        a = parse_args(["--model", "resnet50", "--compute", "cuda"])
        self.assertEqual((a.strategy, a.backend), ("ddp-nccl", "nccl"))

    def test_strategy_may_name_what_compute_runs(self):
        self.assertEqual(parse_args(["--model", "vgg16", "--strategy", "ddp-gloo"]).strategy, "ddp-gloo")

    def test_fusion_mb_is_the_bucket_cap(self):
        self.assertEqual(parse_args(["--model", "alexnet", "--fusion-mb", "4"]).bucket_cap_mb, 4.0)
        self.assertEqual(parse_args(["--model", "alexnet", "--bucket-cap-mb", "0.5"]).bucket_cap_mb, 0.5)
        both = parse_args(["--model", "alexnet", "--fusion-mb", "4", "--bucket-cap-mb", "4"])
        self.assertEqual(both.bucket_cap_mb, 4.0)

    def test_every_model_of_the_table(self):
        for model in MODELS:
            self.assertEqual(parse_args(["--model", model]).model, model)


class BadInput(unittest.TestCase):
    def refused(self, argv, expect):
        with self.assertRaises(UsageError) as caught:
            parse_args(argv)
        self.assertIn(expect, str(caught.exception))
        self.assertNotIn("\n", str(caught.exception))
        return str(caught.exception)

    def test_numbers(self):
        m = ["--model", "small-cnn"]
        self.refused(m + ["--batch-size", "8x"], "argument --batch-size: '8x' is not a whole number")
        self.refused(m + ["--workers", "0"], "argument --workers: '0' must be at least 1")
        self.refused(m + ["--num-warmup-batches", "-1"], "'-1' is not a whole number of 0 or more")
        self.refused(m + ["--seed", "1.5"], "'1.5' is not a whole number of 0 or more")
        self.refused(m + ["--lr", "nan"], "'nan' must be a finite number of at least 0")
        self.refused(m + ["--momentum", "inf"], "'inf' must be a finite number of at least 0")
        self.refused(m + ["--weight-decay", "-0.1"], "'-0.1' must be a finite number of at least 0")
        self.refused(m + ["--timeout", "soon"], "argument --timeout: 'soon' is not a number")

    def test_out_of_range(self):
        m = ["--model", "small-cnn"]
        self.refused(m + ["--timeout", "0"], "--timeout must be above 0")
        self.refused(m + ["--bucket-cap-mb", "0"], "--bucket-cap-mb must be above 0 (DDP has no unfused mode)")
        self.refused(m + ["--fusion-mb", "0"], "--bucket-cap-mb must be above 0")
        self.refused(m + ["--workers", "2", "--test-stall-rank", "2"],
                     "--test-stall-rank 2: there are 2 worker(s)")

    def test_conflicts(self):
        m = ["--model", "small-cnn"]
        self.refused(m + ["--fusion-mb", "3", "--bucket-cap-mb", "4"],
                     "--fusion-mb and --bucket-cap-mb name the same bucket threshold: give one")
        self.refused(m + ["--strategy", "ddp-nccl"],
                     "--strategy ddp-nccl: with --compute cpu this script runs ddp-gloo")
        self.refused(m + ["--compute", "cuda", "--strategy", "ddp-gloo"],
                     "--strategy ddp-gloo: with --compute cuda this script runs ddp-nccl")
        self.refused(m + ["--overlap", "off"], "argument --overlap: invalid choice: 'off'")

    def test_unknown_model_names_the_known(self):
        text = self.refused(["--model", "nosuch"], "--model: unknown model 'nosuch'")
        self.assertIn("(known: small-cnn, resnet50, resnet101, vgg16, inception3, alexnet, "
                      "gpt2-124m, gpt2-355m, gpt2-774m, gpt2-1.5b, bert-base, bert-large, vit-b16, "
                      "tiny-gpt)", text)

    def test_gradsync_options_without_a_counterpart(self):
        for flag in ("--ring-segment", "--compression", "--ps-mode", "--straggler", "--timeline"):
            self.assertIn(flag, NOT_FOR_DDP)
        for flag in NOT_FOR_DDP:
            self.refused(["--model", "small-cnn", flag, "1"],
                         f"{flag} is a gradsync option that DDP has no counterpart of")
        self.refused(["--model", "small-cnn", "--ps-mode=async"], "--ps-mode is a gradsync option")

    def test_unknown_and_missing(self):
        self.refused(["--model", "small-cnn", "--bogus", "3"],
                     "unrecognized arguments: --bogus 3 (see ddp-reference --help)")
        self.refused([], "the following arguments are required: --model (see ddp-reference --help)")


@needs_gradsync
class GradsyncTrain(unittest.TestCase):
    def test_refused_options_are_gradsync_train_options(self):
        usage = subprocess.run([GRADSYNC, "train", "--help"], capture_output=True, text=True,
                               timeout=60).stdout
        for flag in NOT_FOR_DDP:
            self.assertRegex(usage, rf"(?m)[\s,]{re.escape(flag)}(\s|$)")


class Script(ScriptCase):
    def test_bad_input_is_one_line_and_status_2(self):
        for args, expect in ((["--model", "nosuch"], "ddp-reference: error: --model: unknown model 'nosuch'"),
                             (["--model", "small-cnn", "--ring-segment", "1M"], "--ring-segment is a gradsync option")):
            self.assertOneLineError(run_script("ddp-reference.py", *args), 2, expect)

    def test_help_opens_with_what_it_is(self):
        p = run_script("ddp-reference.py", "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("usage: ddp-reference [-h] --model MODEL"), p.stdout)
        self.assertIn("\nPyTorch DistributedDataParallel on gradsync's workloads: the ddp-gloo reference.\n",
                      p.stdout)


if __name__ == "__main__":
    unittest.main()
