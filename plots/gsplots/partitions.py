"""The table of `scripts/cluster-runs.sh partitions`: ps-zmq's partition sizes across hosts.

Reads every DIR/LABEL.jsonl (collectives records, `gradsync collectives
--json`; LABEL names the run: strategy, shards and partition size) and prints
one Markdown row per LABEL, one column per size: the median time per call
over all its records, in ms, with the min-max beside it. Rows are in name
order, the ring-mpi ones last. Needs no matplotlib.
"""
import glob
import json
import os
import statistics

from .report import PlotError


def add_arguments(p):
    p.add_argument("directory", metavar="DIR", help="the run's directory of LABEL.jsonl files")


def table(args):
    if not os.path.isdir(args.directory):
        raise PlotError(f"{args.directory}: not a directory (partitions reads the directory "
                        "`scripts/cluster-runs.sh partitions` writes)")
    rows = {}  # label -> size in bytes -> times per call in ms
    for path in sorted(glob.glob(os.path.join(args.directory, "*.jsonl"))):
        label = os.path.basename(path)[:-len(".jsonl")]
        with open(path) as f:
            for line in f:
                for row in json.loads(line)["rows"]:
                    rows.setdefault(label, {}).setdefault(row["size_bytes"], []).append(
                        row["time_us"] / 1e3)
    sizes = sorted({b for r in rows.values() for b in r})
    out = ["| run | " + " | ".join(f"{b >> 20} MiB (ms)" for b in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for label in sorted(rows, key=lambda l: (l.startswith("ring"), l)):
        cells = [f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})"
                 for v in (rows[label][b] for b in sizes)]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return out
