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

# The CTest subset's runs (tests/cli/campaign.sh: --runs 17 --seed 1), on a
# build with Gloo: two of each kind of fault but the five new ones, one each.
SEED_1 = [
    "stop (setup) collectives tree-mpi x3, rank 0",
    "kill (start) collectives ps-zmq x2, rank 0",
    "slow (middle) collectives ps-zmq x4",
    "option (setup) collectives ring-mpi x3, rank 0, --test-delay-ms 21",
    "disk (before) collectives ps-zmq x4",
    "forged (start) collectives gloo-bcube x2",
    "input (middle) train ring-mpi x3, rank 0 starved",
    "shm (start) collectives ps-zmq x2",
    "model (published) simulate published, gpus_per_node missing",
    "writers (launch) two sweeps ps-zmq x4",
    "signal (middle) collectives ring-mpi x3, SIGINT",
    "stop (middle) collectives mpi-allreduce x4, rank 2",
    "kill (middle) collectives double-tree-mpi x4, rank 3",
    "slow (start) collectives gloo-ring x2",
    "option (setup) collectives tree-mpi x2, rank 0, --test-delay-ms 21",
    "disk (before) collectives ps-zmq x4",
    "forged (middle) collectives gloo-ring x3",
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
        self.assertEqual([r.describe() for r in runs(1, 17)], SEED_1)

    def test_seed_2026_the_documented_campaign(self):
        drawn = runs(2026, 242)
        self.assertEqual(drawn[0].describe(), "stop (launch) collectives gloo-bcube x4, rank 0")
        self.assertEqual(drawn[30].describe(), "model (cluster) simulate project, workers_per_node missing")
        self.assertEqual(drawn[37].describe(), "disk (middle) collectives ps-zmq x3")
        self.assertEqual(drawn[239].describe(),
                         "model (published) simulate published, row 12 single_gpu_img_per_sec = nan")
        self.assertEqual(drawn[241].describe(), "signal (start) collectives halving-doubling-mpi x3, SIGTERM")
        self.assertEqual(drawn[241].middle_s, 0.3107467095964386)
        self.assertEqual(sum(r.train for r in drawn), 40)
        self.assertEqual([sum(r.kind == k for r in drawn) for k in KINDS], [22] * len(KINDS))

    def test_kinds_in_turn_and_strategies_narrowed(self):
        drawn = runs(1, 5, kinds=["disk", "option"], strategies=["ring-mpi", "ps-zmq"])
        self.assertEqual([r.describe() for r in drawn], [
            "disk (before) collectives ring-mpi x3",
            "option (setup) collectives mpi-allreduce x2, rank 0, --strategy nosuch",
            "disk (middle) collectives ps-zmq x4",
            "option (setup) collectives ring-mpi x3, rank 0, --test-delay-ms 21",
            "disk (before) collectives ps-zmq x4"])

    def test_every_kind_in_turn_by_default(self):
        self.assertEqual([r.kind for r in runs(3, 2 * len(KINDS))], KINDS * 2)


class Commands(unittest.TestCase):
    def setUp(self):
        self.run = runs(1, 17)

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
        r = self.run[3]  # option, ring-mpi x3, --test-delay-ms 21
        r.victim = 1
        argv = job_argv(r, "g", "o")
        cmd = command(r, "o", "g", finite=False)
        bad = with_option(cmd, "--test-delay-ms", "21")
        self.assertTrue(argv[0].endswith("scripts/mpirun.sh"))
        self.assertEqual(argv[1:], ["--quiet", "-np", "1"] + cmd + [":", "-np", "1"] + bad +
                         [":", "-np", "1"] + cmd)
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

    def test_the_input_stage(self):
        r = self.run[6]  # input (middle), rank 0 starved
        self.assertEqual(command(r, "o", "g", finite=False)[1:8], [
            "train", "--model", "small-cnn", "--batch-size", "4", "--num-iters", "1000000"])
        self.assertEqual(command(r, "o", "g", finite=False)[10:12], ["--input", "decode:5ms"])
        r.variant = "threads"
        self.assertEqual(command(r, "o", "g", finite=False)[10:14],
                         ["--input", "decode:1ms", "--input-threads", "100000"])
        r.variant = "slow"
        self.assertEqual(command(r, "o", "g", finite=False)[10:12], ["--input", "decode:3000ms"])

    def test_shm_in_a_mount_namespace_of_its_own(self):
        r = self.run[7]  # shm (start): 64 MiB, filled while it runs
        argv = job_argv(r, "g", "o")
        self.assertEqual(argv[:4] + argv[5:6], ["unshare", "-m", "sh", "-c", "sh"])
        self.assertEqual(argv[4], 'mount -t tmpfs -o size=64M tmpfs /dev/shm && exec "$@"')
        self.assertTrue(argv[6].endswith("scripts/mpirun.sh"))
        self.assertEqual(argv[7:10], ["--quiet", "-np", "2"])
        self.assertEqual(argv[10:18], ["g", "collectives", "-b", "1M", "-e", "16M", "-n", "20"])
        r.when = "before"  # 24 MiB from the start, sizes up to 64 MiB
        argv = job_argv(r, "g", "o")
        self.assertIn("size=24M", argv[4])
        self.assertEqual(argv[14:18], ["-e", "64M", "-n", "3"])
        r.train = True  # or train, its 97.5 MiB of gradients
        self.assertEqual(job_argv(r, "g", "o")[10:16], ["g", "train", "--model", "resnet50", "--compute",
                                                       "emulated"])

    def test_disk_and_forged_finish(self):
        self.assertIn("150", job_argv(self.run[4], "g", "o"))
        self.assertIn("150", job_argv(self.run[5], "g", "o"))
        self.assertIn("1000000", job_argv(self.run[2], "g", "o"))


if __name__ == "__main__":
    unittest.main()
