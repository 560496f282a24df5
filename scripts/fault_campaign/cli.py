"""The campaign's main: its options checked (bad input is argparse's usage and
one line, exit status 2), then the seeded runs, one at a time, and the table."""
import argparse
import json
import os
import random
import signal
import sys

from . import REPO
from . import __doc__ as PACKAGE_DOC
from .faults import run_one
from .forged import forge
from .plan import KINDS, STRATEGIES, Run, usable_gloo
from .report import progress_line, table


def make_parser():
    parser = argparse.ArgumentParser(description=PACKAGE_DOC.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=242)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=2.0, help="--timeout of every job (s)")
    parser.add_argument("--kinds", type=lambda s: s.split(","), default=None,
                        help=f"comma-separated, of {','.join(KINDS)} (default: all, in turn)")
    parser.add_argument("--gradsync", default=os.environ.get("GRADSYNC", os.path.join(REPO, "build", "bin", "gradsync")),
                        help="the gradsync binary every run runs (default: $GRADSYNC, else build/bin/gradsync)")
    parser.add_argument("--strategies", type=lambda s: s.split(","), default=None,
                        help="comma-separated strategies to draw from (default: every CPU "
                             "strategy this build can run)")
    parser.add_argument("--out", help="each run's verdict, as JSON lines")
    parser.add_argument("--only", type=lambda s: [int(x) for x in s.split(",")], default=None,
                        help="run only these runs of the seeded sequence (comma-separated indexes), "
                             "to repeat a failed one")
    parser.add_argument("--forge", type=int, help=argparse.SUPPRESS)
    return parser


def check_args(parser, args):
    """Refuses what the campaign cannot run (parser.error: usage, one line, exit 2) and
    fills in the default strategies: every CPU strategy this build can run."""
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.only is not None and max(args.only) >= args.runs:
        parser.error(f"--only: run {max(args.only)} is beyond --runs {args.runs}")
    for kind in args.kinds or []:
        if kind not in KINDS:
            parser.error(f"--kinds: unknown fault '{kind}' (of {', '.join(KINDS)})")
    if not os.access(args.gradsync, os.X_OK):
        parser.error(f"{args.gradsync}: no gradsync binary there (build it, or pass --gradsync)")
    known = STRATEGIES + usable_gloo(args.gradsync)
    for strategy in args.strategies or []:
        if strategy not in known:
            parser.error(f"--strategies: '{strategy}' is not a CPU strategy this build can run "
                         f"(of {', '.join(known)})")
    args.strategies = args.strategies or known
    if os.geteuid() != 0:
        parser.error("needs root: the slow, disk and shm faults use tc and mount, the input fault a cgroup")


def main(argv=None):
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.forge is not None:  # the forger, run inside a job's network namespace
        print(forge(2.0, random.Random(args.forge)))
        return 0
    check_args(parser, args)
    # Ended by a signal, a run still takes down what it made (its job, a
    # mount): SIGTERM and SIGINT unwind through run_one's cleanup.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rng = random.Random(args.seed)
    verdicts = []
    sink = open(args.out, "a") if args.out else None
    for i in range(args.runs):
        run = Run(i, rng, args)  # drawn for every run, so that --only replays the same runs
        if args.only is not None and i not in args.only:
            continue
        verdict = run_one(run, args.gradsync)
        verdicts.append(verdict)
        print(progress_line(i, verdict), flush=True)
        if sink:
            sink.write(json.dumps(verdict) + "\n")
            sink.flush()
    print()
    print(table(verdicts))
    return 0 if all(v["pass"] for v in verdicts) else 1
