"""The command line: `gradsync_plots.py SUBCOMMAND RESULTS... [-o DIR]`.

Subcommands on result records: efficiency, throughput, busbw, breakdown,
simulated, input, projection (`--published CSV|none` names the published points to
overlay, default results/reference/published-scaling.csv), and all (every
figure the records allow, projection included when there are simulated
records). RESULTS are JSON Lines files or directories (standing for their
*.jsonl files). What these figures draw is computed by `gradsync report
--format json` (the binary is $GRADSYNC; scripts/plots.sh finds it) before
matplotlib is imported, so bad input fails fast.

`crossover FILE.json [-o DIR]` draws the map of the one gradsync.crossover
document `gradsync simulate crossover --map` writes; it reads that file itself
(no gradsync binary needed) and is not part of `all`. `engines FILE.jsonl
[-o DIR]` draws the collectives records of SMPI and the cost model that
scripts/smpi-scaling.sh writes, read the same way.

`server-hosts DIR [-o DIR]` draws the run `scripts/cluster-runs.sh
server-hosts` writes into DIR (ring.jsonl, ps-K.jsonl, simulated.jsonl):
ps-zmq's total img/sec against k dedicated server hosts beside ring-mpi,
measured and as the cost model predicts them; not part of `all`.

Tables print Markdown on stdout and need no matplotlib (any python3 runs
them): `rounds DIR ...` those of `scripts/collectives-rounds.sh` from the
rounds' records in DIR (gsplots/rounds.py says how), `partitions DIR` and
`server-hosts-table DIR` the report of those runs of `scripts/cluster-runs.sh`
from their directories (the latter through `gradsync report`, as the figure).

Figures go to DIR (default: figures/ inside the first RESULTS directory, or
beside the first file) as PNG and SVG; their paths are printed, one a line.
Any problem is one line on stderr, "gradsync-plots: error: ...", and exit
status 1 (2 for usage).
"""
import argparse
import importlib
import os
import sys

from .report import PlotError, load

FIGURES = {
    "efficiency": "scaling efficiency vs workers, one figure per workload",
    "throughput": "total img/sec vs workers with the ideal linear line, per workload",
    "busbw": "bus bandwidth vs message size, one figure per worker count",
    "breakdown": "step-time breakdown bars per strategy and worker count, per workload",
    "simulated": "measured vs simulated efficiency, per workload with simulated records",
    "projection": "simulated efficiency to many workers with published points, per workload",
    "input": "efficiency vs workers per node with and without the input stage, per workload "
             "that has one",
    "memory": "efficiency vs memory per worker at the largest worker count, per workload whose "
              "records say their memory",
}
# Figures of another kind of file than result records: not part of `all`.
DOCUMENTS = {
    "crossover": "fastest simulated strategy per worker count and inter-node bandwidth, "
                 "from one `gradsync simulate crossover --map` JSON document",
    "engines": "allreduce bus bandwidth vs workers, SMPI beside the cost model, from the "
               "collectives records `scripts/smpi-scaling.sh` writes (one JSON Lines file)",
}
# Figures of one run's directory, laid out as the run writes it: not part of `all`.
RUNS = {
    "server-hosts": "ps-zmq on k dedicated server hosts against ring-mpi, measured and "
                    "simulated, from the directory `scripts/cluster-runs.sh server-hosts` writes",
}
# Tables of one run's records, Markdown on stdout: not figures, and no matplotlib
# needed (any python3 runs them). The module of each, and what it prints.
TABLES = {
    "rounds": ("rounds", "the tables of `scripts/collectives-rounds.sh`: one figure of a "
               "collectives run repeated in rounds, per size and strategy or per variant"),
    "partitions": ("partitions", "the table of `scripts/cluster-runs.sh partitions`: the median "
                   "time per call (min-max) of each run's records, per size"),
    "server-hosts-table": ("server_hosts", "the table of `scripts/cluster-runs.sh server-hosts`: "
                           "total img/sec measured beside the cost model's, per layout"),
}
PROG = "gradsync-plots"


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"{PROG}: error: {message} (see --help)\n")
        sys.exit(2)


def parser():
    p = Parser(prog=PROG, description="Figures from gradsync result records (results/README.md), "
               "the map of the cost model's crossover document, and the figure of a "
               "server-hosts run's directory.")
    sub = p.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True, parser_class=Parser)
    for name, text in list(FIGURES.items()) + [("all", "every figure the records allow")]:
        s = sub.add_parser(name, help=text, description=text)
        s.add_argument("results", nargs="+", metavar="RESULTS",
                       help="JSON Lines files, or directories standing for their *.jsonl files")
        s.add_argument("-o", "--out", metavar="DIR",
                       help="output directory (default: figures/ beside the first RESULTS)")
        if name == "projection":
            s.add_argument("--published", metavar="CSV",
                           help="published scaling points to overlay (default: the repository's "
                                "results/reference/published-scaling.csv; 'none' for none)")
    for name, text in DOCUMENTS.items():
        s = sub.add_parser(name, help=text, description=text)
        s.add_argument("document", metavar="FILE.json", help="the document to draw")
        s.add_argument("-o", "--out", metavar="DIR",
                       help="output directory (default: figures/ beside FILE.json)")
    for name, text in RUNS.items():
        s = sub.add_parser(name, help=text, description=text)
        s.add_argument("directory", metavar="DIR",
                       help="the run's directory (ring.jsonl, ps-K.jsonl, simulated.jsonl)")
        s.add_argument("-o", "--out", metavar="OUT",
                       help="output directory (default: figures/ inside DIR)")
    for name, (module, text) in TABLES.items():
        s = sub.add_parser(name, help=text, description=text)
        importlib.import_module(f"gsplots.{module}").add_arguments(s)
    return p


def default_out(first):
    base = first if os.path.isdir(first) else (os.path.dirname(first) or ".")
    return os.path.join(base, "figures")


def run_all(report, outdir):
    paths = []
    for name in FIGURES:
        try:
            paths += importlib.import_module(f"gsplots.{name}").plot(report, outdir)
        except PlotError as e:
            print(f"{PROG}: note: skipped {name}: {e}", file=sys.stderr)
    if not paths:
        raise PlotError(f"{report.shown_files()}: no figure could be drawn from these records")
    return paths


def draw(args):
    """The figures the parsed command line asks for; returns their paths."""
    if args.command in DOCUMENTS:
        outdir = args.out or default_out(args.document)
        os.environ.setdefault("MPLBACKEND", "Agg")
        return importlib.import_module(f"gsplots.{args.command}").plot_file(args.document, outdir)
    if args.command in RUNS:
        outdir = args.out or default_out(args.directory)
        os.environ.setdefault("MPLBACKEND", "Agg")
        module = importlib.import_module(f"gsplots.{args.command.replace('-', '_')}")
        return module.plot_dir(args.directory, outdir)
    report = load(args.results)
    outdir = args.out or default_out(args.results[0])
    os.environ.setdefault("MPLBACKEND", "Agg")
    if args.command == "all":
        return run_all(report, outdir)
    module = importlib.import_module(f"gsplots.{args.command}")
    if args.command == "projection":
        return module.plot(report, outdir, published=args.published)
    return module.plot(report, outdir)


def tabulate(args):
    """The lines of the table the parsed command line asks for."""
    return importlib.import_module(f"gsplots.{TABLES[args.command][0]}").table(args)


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        lines = tabulate(args) if args.command in TABLES else draw(args)
    except PlotError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except ImportError as e:
        print(f"{PROG}: error: {e} (scripts/install-deps.sh installs python3-matplotlib)",
              file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{PROG}: error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0
