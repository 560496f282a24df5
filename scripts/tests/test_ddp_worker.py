"""The DDP reference's measurements and helpers that need no torch: the time
some bucket was in flight (the union of the buckets' spans), the learning
rate's warm-up to lr x workers, the compute threads a worker takes, and an
exception as one line."""
import os
import unittest
from unittest import mock

import scriptcase  # noqa: F401 - puts scripts/ on sys.path

from ddp_reference.arguments import parse_args
from ddp_reference.errors import one_line
from ddp_reference.torch_env import worker_threads
from ddp_reference.worker import busy_time, learning_rate


class BusyTime(unittest.TestCase):
    def test_union_of_spans(self):
        self.assertEqual(busy_time([]), 0.0)
        self.assertEqual(busy_time([(1.0, 3.0)]), 2.0)
        self.assertEqual(busy_time([(5.0, 6.0), (1.0, 3.0)]), 3.0)  # apart, in any order
        self.assertEqual(busy_time([(1.0, 4.0), (2.0, 5.0)]), 4.0)  # overlapping
        self.assertEqual(busy_time([(1.0, 5.0), (2.0, 3.0)]), 4.0)  # one inside another
        self.assertEqual(busy_time([(1.0, 2.0), (2.0, 3.0)]), 2.0)  # touching


class LearningRate(unittest.TestCase):
    def test_without_warmup_lr_times_workers(self):
        a = parse_args(["--model", "small-cnn", "--workers", "4", "--lr", "0.1"])
        self.assertAlmostEqual(learning_rate(a, 0), 0.4, places=15)
        self.assertAlmostEqual(learning_rate(a, 99), 0.4, places=15)

    def test_linear_warmup_from_lr(self):
        a = parse_args(["--model", "small-cnn", "--workers", "5", "--lr", "0.1", "--warmup-steps", "4"])
        self.assertEqual([round(learning_rate(a, s), 12) for s in (0, 1, 2, 4, 8)],
                         [0.1, 0.2, 0.3, 0.5, 0.5])


class Threads(unittest.TestCase):
    def test_openblas_num_threads_when_set(self):
        with mock.patch.dict(os.environ, {"OPENBLAS_NUM_THREADS": "3"}):
            self.assertEqual(worker_threads(8), 3)

    def test_else_the_cores_shared(self):
        for chosen in ("", "0", "x"):
            with mock.patch.dict(os.environ, {"OPENBLAS_NUM_THREADS": chosen}), \
                    mock.patch("os.cpu_count", return_value=8):
                self.assertEqual((worker_threads(3), worker_threads(16)), (2, 1), chosen)


class OneLine(unittest.TestCase):
    def test_whitespace_and_source_locations(self):
        self.assertEqual(one_line(RuntimeError("a\n  b At: x.cpp:3\nmore")), "a b")
        self.assertEqual(one_line(KeyboardInterrupt()), "KeyboardInterrupt")

    def test_callback_chain_keeps_the_last(self):
        e = RuntimeError("Got the following error when running the callback: outer "
                         "Got the following error when running the callback: inner cause")
        self.assertEqual(one_line(e), "inner cause")

    def test_a_timeout_says_a_peer_did_not_answer(self):
        for text in ("Timed out waiting 2000ms", "socket timed out", "Connection closed by peer [1]"):
            self.assertTrue(one_line(RuntimeError(text)).endswith(
                " (a peer did not answer within --timeout; the run is ended)"), text)


if __name__ == "__main__":
    unittest.main()
