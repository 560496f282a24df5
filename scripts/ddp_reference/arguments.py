"""The DDP reference's command line: gradsync train's options where DDP has them,
each value checked, and gradsync's options that DDP has no counterpart of refused
by name."""
import argparse
import math

from . import __doc__ as PACKAGE_DOC
from .errors import PROG, UsageError
from .models import MODELS

# gradsync train's options that change what a gradsync strategy does and
# that DDP has no counterpart of: refused by name, so that a sweep's
# --train-args never silently mean something else here.
NOT_FOR_DDP = ("--ring-segment", "--tree-segment", "--short-allreduce", "--compression",
               "--ps-servers", "--ps-placement", "--ps-transport", "--ps-bind",
               "--ps-partition", "--ps-mode", "--ps-staleness", "--device",
               "--emulate-img-per-sec", "--time-scale", "--straggler", "--precision",
               "--timeline", "--timeline-steps", "--target-loss")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see {PROG} --help)")


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def count(text):
    value = int(text) if text.lstrip("-").isdigit() else None
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of 0 or more")
    return value


def finite(low):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if not math.isfinite(value) or value < low:
            raise argparse.ArgumentTypeError(f"'{text}' must be a finite number of at least {low:g}")
        return value
    return parse


def parse_args(argv):
    p = Parser(prog=PROG, description=PACKAGE_DOC.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="a model of `gradsync models`")
    p.add_argument("--workers", type=positive_int, default=1, help="worker processes on this host")
    p.add_argument("--compute", choices=["cpu", "cuda"], default="cpu",
                   help="cpu: Gloo (ddp-gloo); cuda: one GPU per worker, NCCL (ddp-nccl)")
    p.add_argument("--batch-size", type=positive_int, default=32, help="images per worker per step")
    p.add_argument("--num-warmup-batches", type=count, default=10, help="untimed steps first")
    p.add_argument("--num-batches-per-iter", type=positive_int, default=10, help="steps per timed iteration")
    p.add_argument("--num-iters", type=positive_int, default=10, help="timed iterations")
    p.add_argument("--bucket-cap-mb", type=finite(0), default=None,
                   help="DDP's bucket_cap_mb (default 25, DDP's own)")
    p.add_argument("--fusion-mb", type=finite(0), default=None,
                   help="gradsync train's name for the same knob: the bucket threshold in MiB")
    p.add_argument("--overlap", choices=["on"], default="on",
                   help="DDP always reduces buckets while backward runs")
    p.add_argument("--strategy", default=None,
                   help="ddp-gloo (cpu) or ddp-nccl (cuda); the default follows --compute")
    p.add_argument("--lr", type=finite(0), default=0.01, help="learning rate of one worker")
    p.add_argument("--momentum", type=finite(0), default=0.9)
    p.add_argument("--weight-decay", type=finite(0), default=0.0)
    p.add_argument("--warmup-steps", type=count, default=0,
                   help="steps of linear learning-rate warm-up to lr x workers")
    p.add_argument("--seed", type=count, default=1, help="seed of the initial parameters")
    p.add_argument("--data-seed", type=count, default=1, help="seed of the synthetic data")
    p.add_argument("--timeout", type=finite(0), default=60.0,
                   help="seconds any wait on a peer may take (Gloo's and the store's) before the run fails")
    p.add_argument("--out", default="", help="append the run's record to this JSON Lines file")
    p.add_argument("--list-parameters", action="store_true",
                   help="print the torch model's trainable tensors (name, shape) as JSON and exit")
    p.add_argument("--print-config-digest", action="store_true",
                   help="print the digest the run's record would carry and exit (gradsync sweep's resume)")
    p.add_argument("--test-stall-rank", type=count, default=None,
                   help="tests only: this worker stops answering at its first step")
    known, rest = p.parse_known_args(argv)
    for word in rest:
        flag = word.split("=", 1)[0]
        if flag in NOT_FOR_DDP:
            raise UsageError(f"{flag} is a gradsync option that DDP has no counterpart of")
    if rest:
        raise UsageError(f"unrecognized arguments: {' '.join(rest)} (see {PROG} --help)")
    a = known
    if a.model not in MODELS:
        raise UsageError(f"--model: unknown model '{a.model}' (known: {', '.join(MODELS)})")
    if a.fusion_mb is not None and a.bucket_cap_mb is not None and a.fusion_mb != a.bucket_cap_mb:
        raise UsageError("--fusion-mb and --bucket-cap-mb name the same bucket threshold: give one")
    a.bucket_cap_mb = next(v for v in (a.bucket_cap_mb, a.fusion_mb, 25.0) if v is not None)
    if a.bucket_cap_mb <= 0:
        raise UsageError("--bucket-cap-mb must be above 0 (DDP has no unfused mode)")
    backend = "nccl" if a.compute == "cuda" else "gloo"
    if a.strategy not in (None, f"ddp-{backend}"):
        raise UsageError(f"--strategy {a.strategy}: with --compute {a.compute} this script runs ddp-{backend}")
    a.strategy, a.backend = f"ddp-{backend}", backend
    if a.timeout <= 0:
        raise UsageError("--timeout must be above 0: a wait on a peer is always bounded")
    if a.test_stall_rank is not None and a.test_stall_rank >= a.workers:
        raise UsageError(f"--test-stall-rank {a.test_stall_rank}: there are {a.workers} worker(s)")
    return a
