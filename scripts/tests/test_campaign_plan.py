"""The fault campaign's plan (fault_campaign.plan, .job): the seeded sequence
of runs is the campaign's (--only replays a run by its index, and the
documented campaigns name their seed), and each run's job is the command it
must be: the same on every rank, or the victim's bad option in an MPMD
launch, or the victim stopped by a shell before it runs gradsync."""
import random
import types
import unittest

import scriptcase  # noqa: F401 - puts scripts/ on sys.path

from fault_campaign.job import job_argv
from fault_campaign.plan import GLOO_STRATEGIES, KINDS, STRATEGIES, Run, command, with_option

# The CTest subset's runs (tests/cli/campaign.sh: --runs 12 --seed 1), on a
# build with Gloo.
SEED_1 = [
    "stop (setup) collectives tree-mpi x3, rank 0",
    "kill (start) collectives ps-zmq x2, rank 0",
    "slow (middle) collectives ps-zmq x4",
    "option (setup) collectives ring-mpi x3, rank 0, --test-delay-ms 21",
    "disk (before) collectives ps-zmq x4",
    "forged (start) collectives gloo-bcube x2",
    "stop (setup) collectives gloo-halving-doubling x2, rank 1",
    "kill (setup) collectives gloo-bcube x4, rank 0",
    "slow (middle) collectives tree-mpi x4",
    "option (setup) collectives tree-mpi x3, rank 1, --timeout 9",
    "disk (middle) collectives gloo-bcube x3",
    "forged (middle) collectives halving-doubling-mpi x4",
]


def campaign_args(**given):
    args = dict(kinds=None, strategies=STRATEGIES + GLOO_STRATEGIES, timeout=2.0)
    args.update(given)
    return types.SimpleNamespace(**args)


def runs(seed, count, **given):
    rng, args = random.Random(seed), campaign_args(**given)
    return [Run(i, rng, args) for i in range(count)]


class Sequence(unittest.TestCase):
    def test_seed_1_is_the_ctest_subset(self):
        self.assertEqual([r.describe() for r in runs(1, 12)], SEED_1)

    def test_seed_2026_the_documented_campaign(self):
        drawn = runs(2026, 240)
        self.assertEqual(drawn[0].describe(), "stop (launch) collectives gloo-bcube x4, rank 0")
        self.assertEqual(drawn[30].describe(), "stop (launch) train ps-zmq x4, rank 2")
        self.assertEqual(drawn[37].describe(), "kill (setup) train mpi-allreduce x2, rank 0")
        self.assertEqual(drawn[239].describe(), "forged (middle) collectives tree-mpi x3")
        self.assertEqual(drawn[239].middle_s, 0.9747140596320218)
        self.assertEqual(sum(r.train for r in drawn), 16)

    def test_kinds_in_turn_and_strategies_narrowed(self):
        drawn = runs(1, 5, kinds=["disk", "option"], strategies=["ring-mpi", "ps-zmq"])
        self.assertEqual([r.describe() for r in drawn], [
            "disk (before) collectives ring-mpi x3",
            "option (setup) collectives mpi-allreduce x2, rank 0, --strategy nosuch",
            "disk (middle) collectives ps-zmq x4",
            "option (setup) collectives ring-mpi x3, rank 0, --test-delay-ms 21",
            "disk (before) collectives ps-zmq x4"])

    def test_every_kind_in_turn_by_default(self):
        self.assertEqual([r.kind for r in runs(3, 12)], KINDS * 2)


class Commands(unittest.TestCase):
    def setUp(self):
        self.run = runs(1, 12)

    def test_collectives_and_train(self):
        r = self.run[0]
        self.assertEqual(command(r, "o.jsonl", "g", finite=False), [
            "g", "collectives", "-b", "4K", "-e", "4K", "-n", "1000000", "-w", "1", "--json", "o.jsonl",
            "--strategy", "tree-mpi", "--timeout", "2.0", "--test-delay-ms", "20"])
        r.train = True
        self.assertEqual(command(r, "o.jsonl", "g", finite=True)[:10], [
            "g", "train", "--model", "small-cnn", "--batch-size", "4", "--num-iters", "150", "--out",
            "o.jsonl"])

    def test_with_option_replaces_or_adds(self):
        self.assertEqual(with_option(["a", "--timeout", "2"], "--timeout", "9"), ["a", "--timeout", "9"])
        self.assertEqual(with_option(["a"], "-b", "4Q"), ["a", "-b", "4Q"])

    def test_a_bad_option_on_the_victim_alone(self):
        r = self.run[9]  # option, tree-mpi x3, rank 1, --timeout 9
        argv = job_argv(r, "g", "o")
        cmd = command(r, "o", "g", finite=False)
        self.assertTrue(argv[0].endswith("scripts/mpirun.sh"))
        self.assertEqual(argv[1:], ["--quiet", "-np", "1"] + cmd + [":", "-np", "1"] +
                         with_option(cmd, "--timeout", "9") + [":", "-np", "1"] + cmd)
        bad = with_option(cmd, "--timeout", "9")
        r.victim = 0
        self.assertEqual(job_argv(r, "g", "o")[1:], ["--quiet", "-np", "1"] + bad + [":", "-np", "2"] + cmd)
        r.victim = 2
        self.assertEqual(job_argv(r, "g", "o")[1:], ["--quiet", "-np", "2"] + cmd + [":", "-np", "1"] + bad)

    def test_a_killed_rank_keeps_mpirun_notice(self):
        r = self.run[1]  # kill, ps-zmq x2
        self.assertEqual(job_argv(r, "g", "o")[1:3], ["-np", "2"])

    def test_a_rank_stopped_at_launch(self):
        r = runs(2026, 1)[0]  # stop (launch) ... x4, rank 0
        argv = job_argv(r, "g", "o")
        self.assertEqual(argv[1:7], ["--quiet", "-np", "4", "sh", "-c",
                                     '[ "$OMPI_COMM_WORLD_RANK" = 0 ] && kill -STOP $$; exec "$@"'])
        self.assertEqual(argv[7:], ["sh"] + command(r, "o", "g", finite=False))

    def test_disk_and_forged_finish(self):
        self.assertIn("150", job_argv(self.run[4], "g", "o"))
        self.assertIn("150", job_argv(self.run[5], "g", "o"))
        self.assertIn("1000000", job_argv(self.run[2], "g", "o"))


if __name__ == "__main__":
    unittest.main()
