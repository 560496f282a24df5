"""The campaign's plan: the faults, the strategies they are drawn from, one run's
seeded draw and its rank's command."""
import subprocess

from .model_inputs import draw_bad_file

STRATEGIES = ["ring-mpi", "tree-mpi", "double-tree-mpi", "halving-doubling-mpi",
              "hierarchical-mpi", "mpi-allreduce", "ps-zmq"]
TRAIN_STRATEGIES = ["none", "ring-mpi", "ps-zmq", "mpi-allreduce"]
GLOO_STRATEGIES = ["gloo-ring", "gloo-bcube", "gloo-ring-chunked", "gloo-halving-doubling"]
KINDS = ["stop", "kill", "slow", "option", "disk", "forged", "input", "shm", "model", "writers",
         "signal"]
WHEN = {"stop": ["launch", "setup", "start", "middle"], "kill": ["setup", "start", "middle"],
        "slow": ["start", "middle"], "option": ["setup"], "disk": ["before", "middle"],
        "forged": ["start", "middle"], "input": ["setup", "start", "middle"], "shm": ["before", "start"],
        "model": ["launch"], "writers": ["launch"], "signal": ["start", "middle"]}
# The kinds that are not one gradsync job under mpirun: the cost model's files
# (fault_campaign.model_inputs) and two sweeps into one folder (.writers).
NOT_A_JOB = ("model", "writers")
# An input stage slower than --timeout from the start on every rank (decode:
# 3 s per image), or far more loader threads than the host allows; from a
# moment on, one rank's loader starved of CPU (its input stage at 5 ms per
# image, its CPU throttled to 0.5% by a cgroup: 4 s or more per batch).
SLOW_INPUT = ["--input", "decode:3000ms"]
MANY_THREADS = ["--input", "decode:1ms", "--input-threads", "100000"]
STARVED_INPUT = ["--input", "decode:5ms"]
BAD_OPTIONS = [("--test-delay-ms", "21"), ("--ring-segment", "3"), ("-b", "4Q"),
               ("--strategy", "nosuch"), ("--timeout", "9")]


class Run:
    """One run of the campaign: its fault kind in turn, then the moment, the
    subcommand, the strategy, the ranks, the victim and the bad option drawn
    from the campaign's seeded generator, in this order."""

    def __init__(self, index, rng, args):
        self.index = index
        self.kind = KINDS[index % len(KINDS)] if not args.kinds else args.kinds[index % len(args.kinds)]
        self.when = rng.choice(WHEN[self.kind])
        self.train = (self.kind in ("stop", "kill", "signal") and rng.random() < 0.2) or self.kind == "input"
        self.strategy = rng.choice(
            [s for s in TRAIN_STRATEGIES if s in args.strategies] or args.strategies
            if self.train or self.kind == "writers" else args.strategies)
        if self.kind == "option":
            self.strategy = rng.choice(["ring-mpi", "tree-mpi", "ps-zmq", "mpi-allreduce"])
        if self.kind == "shm":  # the parameter server's shared memory
            self.strategy = "ps-zmq"
        self.ranks = rng.choice([2, 3, 4])
        self.victim = rng.randrange(self.ranks)
        self.bad = rng.choice(BAD_OPTIONS) if self.kind == "option" else None
        self.middle_s = rng.uniform(0.3, 1.5)
        self.timeout = args.timeout
        self.variant = self.draw_variant(rng)

    def draw_variant(self, rng):
        """What the new kinds vary beyond the moment (drawn last, so that the
        kinds before them draw as they always did)."""
        if self.kind == "input":
            return rng.choice(["slow", "threads"]) if self.when == "setup" else "starved"
        if self.kind == "signal":
            return rng.choice(["SIGTERM", "SIGINT"])
        if self.kind == "model":
            return draw_bad_file(rng)
        if self.kind == "shm":  # train too, its 97.5 MiB of gradients in the small /dev/shm
            self.train = self.when == "before" and rng.random() < 0.5
        return None

    def describe(self):
        what = "train" if self.train else "collectives"
        text = f"{self.kind} ({self.when}) {what} {self.strategy} x{self.ranks}"
        if self.kind in ("stop", "kill", "option"):
            text += f", rank {self.victim}"
        if self.bad:
            text += f", {self.bad[0]} {self.bad[1]}"
        if self.kind == "input" and self.variant == "starved":
            text += f", rank {self.victim} starved"
        elif self.kind == "model":
            return f"model ({self.variant.target}) {self.variant.describe()}"
        elif self.kind == "writers":
            return f"writers ({self.when}) two sweeps {self.strategy} x{self.ranks}"
        elif self.variant:
            text += f", {self.variant}"
        return text


def command(run, out, gradsync, finite):
    """One rank's command: 150 iterations (about 3 s) when the run must
    finish for the fault to show, else more than any fault lets it reach."""
    iters = "150" if finite else "1000000"
    if run.train:
        model = ["resnet50", "--compute", "emulated"] if run.kind == "shm" else ["small-cnn"]
        args = ["train", "--model", *model, "--batch-size", "4", "--num-iters", iters, "--out", out]
        if run.kind == "input":
            args += {"slow": SLOW_INPUT, "threads": MANY_THREADS, "starved": STARVED_INPUT}[run.variant]
    elif run.kind == "shm":
        # Sizes that grow: the parameter server reserves more shared memory
        # as they do, until the small /dev/shm (24 MiB) or the filled one
        # (the rest of 64 MiB, while 1 MiB measures) has no more.
        top, count = ("64M", "3") if run.when == "before" else ("16M", "20")
        args = ["collectives", "-b", "1M", "-e", top, "-n", count, "-w", "1", "--json", out]
    else:
        args = ["collectives", "-b", "4K", "-e", "4K", "-n", iters, "-w", "1", "--json", out]
    args += ["--strategy", run.strategy, "--timeout", str(run.timeout), "--test-delay-ms", "20"]
    if run.kind == "shm":  # the segments (read in place, the default path needs none)
        args += ["--ps-shm", "copy"]
    return [gradsync] + args


def with_option(cmd, flag, value):
    """cmd with flag set to value (replaced when there, else added)."""
    cmd = list(cmd)
    if flag in cmd:
        cmd[cmd.index(flag) + 1] = value
    else:
        cmd += [flag, value]
    return cmd


def usable_gloo(gradsync):
    """The gloo-* strategies that `gradsync strategies` lists as usable."""
    table = subprocess.run([gradsync, "strategies"], capture_output=True, text=True).stdout
    usable = {f[0] for f in (line.split() for line in table.splitlines()) if len(f) > 1 and f[1] == "yes"}
    return [s for s in GLOO_STRATEGIES if s in usable]
