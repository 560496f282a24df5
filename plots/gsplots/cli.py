"""The command line: `gradsync_plots.py SUBCOMMAND RESULTS... [-o DIR]`.

Subcommands: efficiency, throughput, busbw, breakdown, simulated, and all
(every figure the records allow). RESULTS are JSON Lines files or
directories (standing for their *.jsonl files). Figures go to DIR (default:
figures/ inside the first RESULTS directory, or beside the first file) as PNG
and SVG; their paths are printed, one a line. Any problem is one line on
stderr, "gradsync-plots: error: ...", and exit status 1 (2 for usage).
What the figures draw is computed by `gradsync report --format json` (the
binary is $GRADSYNC; scripts/plots.sh finds it) before matplotlib is
imported, so bad input fails fast.
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
}
PROG = "gradsync-plots"


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"{PROG}: error: {message} (see --help)\n")
        sys.exit(2)


def parser():
    p = Parser(prog=PROG, description="Figures from gradsync result records (results/README.md).")
    sub = p.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True, parser_class=Parser)
    for name, text in list(FIGURES.items()) + [("all", "every figure the records allow")]:
        s = sub.add_parser(name, help=text, description=text)
        s.add_argument("results", nargs="+", metavar="RESULTS",
                       help="JSON Lines files, or directories standing for their *.jsonl files")
        s.add_argument("-o", "--out", metavar="DIR",
                       help="output directory (default: figures/ beside the first RESULTS)")
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


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        report = load(args.results)
        outdir = args.out or default_out(args.results[0])
        os.environ.setdefault("MPLBACKEND", "Agg")
        if args.command == "all":
            paths = run_all(report, outdir)
        else:
            paths = importlib.import_module(f"gsplots.{args.command}").plot(report, outdir)
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
    for path in paths:
        print(path)
    return 0
