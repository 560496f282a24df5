"""The tables of `scripts/collectives-rounds.sh`: a collectives run repeated in rounds.

Reads DIR/P.V.R.jsonl, the records (`gradsync collectives --json`) of worker
count P, variant V (its index in the --variant list, from 0) and round R
(from 1), and prints Markdown tables of one figure (busbw, algbw or time)
over the rounds, per worker count: a row per size and a column per strategy
(--layout size, a table per variant), or a row per strategy and a column per
variant (--layout variant, a table per size). A cell is the median, its
ratio to a reference strategy, its spread, its min-max, or two strategies
side by side (--cells). Every ratio is "above 1 is better" and is the median
of the rounds' own ratios (each round's figure over the same round's
reference), so that a round in which the machine was slower moves both sides
alike. A variant labelled none, fp16 or bf16 must have run with that
compression (the records' strategy_options.compression); a record marked
disturbed is a warning on stderr. Needs no matplotlib.
"""
import json
import os
import statistics
import sys

from .report import PlotError

METRICS = {"busbw": ("busbw_gbps", "busbw (GB/s)", "GB/s"),
           "algbw": ("algbw_gbps", "algbw (GB/s)", "GB/s"),
           "time": ("time_us", "time per call (us)", "us")}
CELLS = ("median-ratio", "spread", "median", "range", "pair")
COMPRESSION = ("none", "fp16", "bf16")


def add_arguments(p):
    p.add_argument("directory", metavar="DIR", help="the rounds' records, P.V.R.jsonl")
    p.add_argument("--workers", required=True, metavar="P[,P...]", help="the worker counts run")
    p.add_argument("--rounds", required=True, type=int, metavar="N", help="rounds per worker count")
    p.add_argument("--metric", choices=METRICS, default="busbw")
    p.add_argument("--cells", choices=CELLS, default="median-ratio")
    p.add_argument("--reference", default="mpi-allreduce", metavar="STRATEGY")
    p.add_argument("--layout", choices=("size", "variant"), default="size")
    p.add_argument("--sizes", choices=("bytes", "human"), default="bytes")
    p.add_argument("--variant", action="append", metavar="LABEL",
                   help="a variant's label, in the order run (default: one, unlabelled)")


class Rounds:
    """One figure of every record: values[(workers, variant, strategy, size)] lists it over
    the rounds, in round order; strategies in the order run, sizes per worker count."""

    def __init__(self, args):
        self.field = METRICS[args.metric][0]
        self.values, self.strategies, self.sizes = {}, [], {}
        self.library, self.compressed = "", False  # busbw of a compressed run counts fp32
        for p in args.workers:
            self.sizes[p] = []
            for v, label in enumerate(args.variant):
                for r in range(1, args.rounds + 1):
                    self.read(os.path.join(args.directory, f"{p}.{v}.{r}.jsonl"), p, v, r, label)

    def read(self, path, p, v, r, label):
        with open(path) as f:
            records = [json.loads(line) for line in f if line.strip()]
        for rec in records:
            s = rec["strategy"]
            got = rec.get("strategy_options", {}).get("compression", "none")
            if label in COMPRESSION and got != label:
                raise PlotError(f"variant '{label}' ran {s} with compression {got}")
            if rec.get("disturbed"):
                print(f"collectives-rounds: warning: {p} workers, round {r}, {s}: "
                      f"{rec['disturbed']}", file=sys.stderr)
            self.compressed = self.compressed or got != "none"
            self.library = self.library or rec.get("context", {}).get("mpi_library", "")
            if s not in self.strategies:
                self.strategies.append(s)
            for row in rec["rows"]:
                b = row["size_bytes"]
                if b not in self.sizes[p]:
                    self.sizes[p].append(b)
                self.values.setdefault((p, v, s, b), []).append(row[self.field])


class Table:
    """The cells and tables of one command line's choices over the records read."""

    def __init__(self, args, data):
        self.args, self.data = args, data
        _, self.unit, self.short = METRICS[args.metric]
        if data.compressed and args.metric != "time":
            self.unit = self.unit.replace(" (", " of the fp32 payload (")
        self.over = f"over {args.rounds} round" + ("s" if args.rounds > 1 else "")
        self.out = []

    def size_text(self, b):
        if self.args.sizes == "bytes":
            return str(b)
        for name, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if b >= scale and b % scale == 0:
                return f"{b // scale} {name}"
        return f"{b} B"

    def median(self, key):
        got = self.data.values.get(key)
        return statistics.median(got) if got else None

    def ratio(self, m, r):
        # above 1 is better: this one's bandwidth over the reference's, or the
        # reference's time over this one's
        if m is None or r is None or m == 0 or r == 0:
            return None
        return r / m if self.args.metric == "time" else m / r

    def round_ratio(self, p, v, s, b, against=None):
        # the median of each round's own ratio (the lists are in round order)
        mine = self.data.values.get((p, v, s, b), [])
        ref = self.data.values.get((p, v, against or self.args.reference, b), [])
        xs = [x for x in (self.ratio(a, r) for a, r in zip(mine, ref)) if x is not None]
        return statistics.median(xs) if xs else None

    def cell(self, p, v, s, b):
        got, cells = self.data.values.get((p, v, s, b)), self.args.cells
        if not got:
            return "-"
        m = statistics.median(got)
        if cells == "range":
            return f"{min(got):.2f}-{max(got):.2f}"
        if cells == "median":
            return f"{m:.2f}"
        x = self.round_ratio(p, v, s, b)
        ratio = "" if x is None else f" (x{x:.2f})"
        if cells == "spread":
            half = (max(got) - min(got)) / 2 / m * 100 if m else 0.0
            return f"{m:.2f} ±{half:.0f}%" + ratio
        return f"{m:.2f}" + ratio

    def table(self, header, rows):
        self.out.append("| " + " | ".join(header) + " |")
        first = "---|" if self.args.layout == "variant" else "---:|"
        self.out.append("|" + first + "---:|" * (len(header) - 1))
        self.out += ["| " + " | ".join(row) + " |" for row in rows]

    def heading(self, text):
        self.out += ["", text, ""]

    def reference_name(self, r):
        """The reference as the pair's column names it: mpi-allreduce with its library."""
        library = self.data.library
        if r == "mpi-allreduce" and library.startswith("Open MPI v"):
            return r + " (Open MPI " + library[len("Open MPI v"):].split(",")[0] + ")"
        if r == "mpi-allreduce" and library:
            return r + " (" + library.split(",")[0] + ")"
        return r

    def by_variant(self, p):
        """A table per size: a row per strategy, a column per variant."""
        ref, cells = self.args.reference, self.args.cells
        stat = "min-max" if cells == "range" else "median"
        extra = {"median-ratio": f", and (x) its ratio to {ref} (above 1 is better)",
                 "spread": f", ± half its range, and (x) the median of the rounds' ratios "
                           f"to {ref} (above 1 is better)"}.get(cells, "")
        labels = self.args.variant
        for b in self.data.sizes[p]:
            self.heading(f"{p} ranks, {self.size_text(b)}: {stat} {self.unit} {self.over}{extra}")
            self.table(["strategy"] + labels, [[s] + [self.cell(p, i, s, b) for i in range(len(labels))]
                                               for s in self.data.strategies])

    def pair(self, p, v, where, head):
        """Two strategies side by side, the second the reference, and their ratio."""
        a, r = self.data.strategies[0], self.data.strategies[1]
        self.heading(f"{where}: median {self.unit} {self.over}, ratio {a} to {r} "
                     "(above 1 is better)")
        rows = []
        for b in self.data.sizes[p]:
            ma, mr = self.median((p, v, a, b)), self.median((p, v, r, b))
            x = self.round_ratio(p, v, a, b, against=r)
            rows.append([self.size_text(b)] + ["-" if m is None else f"{m:.2f} {self.short}"
                                               for m in (ma, mr)]
                        + ["-" if x is None else f"{x:.2f}"])
        self.table([head, a, self.reference_name(r), "ratio"], rows)

    def by_size(self, p, v, label):
        """A row per size, a column per strategy (or the pair's columns)."""
        where = f"{p} ranks" + (f", {label}" if label else "")
        head = "size" if self.args.sizes == "human" else "size (B)"
        ref, cells = self.args.reference, self.args.cells
        if cells == "pair":
            return self.pair(p, v, where, head)
        if cells == "median-ratio":
            self.heading(f"{where}: median {self.unit}, and (x) its ratio to {ref} (above 1 is better)")
        elif cells == "spread":
            self.heading(f"{where}: median {self.unit} {self.over}, ± half its range, and (x) the "
                         f"median of the rounds' ratios to {ref} (above 1 is better)")
        else:
            self.heading(f"{where}: {'min-max' if cells == 'range' else 'median'} {self.unit} "
                         f"{self.over}")
        self.table([head] + self.data.strategies,
                   [[self.size_text(b)] + [self.cell(p, v, s, b) for s in self.data.strategies]
                    for b in self.data.sizes[p]])


def table(args):
    """The Markdown lines of the tables the command line asks for."""
    args.workers = [int(p) for p in args.workers.split(",")]
    args.variant = args.variant or [""]
    t = Table(args, Rounds(args))
    for p in args.workers:
        if args.layout == "variant":
            t.by_variant(p)
            continue
        for v, label in enumerate(args.variant):
            t.by_size(p, v, label)
    return t.out
