"""What the figures draw, as `gradsync report --format json` computes it.

The plots compute nothing of their own: the gradsync binary reads and checks
the result files (JSON Lines, or directories standing for their *.jsonl
files), tells workloads apart, matches each run with its baseline and
computes efficiency (harness/results/report_json.h describes the document).
The binary is $GRADSYNC (scripts/plots.sh sets it: $GRADSYNC, else
build/bin/gradsync). Any failure, gradsync's own included, is a PlotError of
one line, which the command line prints.
"""
import json
import os
import subprocess
import sys

SCHEMA = "gradsync.report"
KNOWN_VERSIONS = (1,)


class PlotError(Exception):
    """An input or usage problem, reported as one line."""


class Report:
    """The report document, and the arguments it was made from (for messages)."""

    def __init__(self, data, files):
        self.strategies = data["strategies"]
        self.train = data["train"]
        self.collectives = data["collectives"]
        self.files = files

    def baseline(self):
        """The name of the strategy that synchronizes nothing."""
        return next(s["name"] for s in self.strategies if s["role"] == "baseline")

    def shown_files(self):
        files = self.files
        return ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")


def gradsync_binary():
    path = os.environ.get("GRADSYNC")
    if not path:
        raise PlotError("$GRADSYNC is not set: run through scripts/plots.sh, which finds the "
                        "gradsync binary, or set it to one")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise PlotError(f"{path}: no gradsync binary there ($GRADSYNC; scripts/build.sh builds one)")
    return path


def load(paths):
    """The report of the result files and directories named by `paths`."""
    argv = [gradsync_binary(), "report", "--format", "json", "--", *paths]
    try:
        p = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        raise PlotError(f"{argv[0]}: cannot run ({e.strerror})") from None
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines() or [f"gradsync report exited with status {p.returncode}"]
        raise PlotError(lines[-1].removeprefix("gradsync: error: "))
    # Bad lines that report skipped (it draws from the good records): passed
    # on, so that the user sees what was left out.
    for line in p.stderr.strip().splitlines():
        print(line.replace("gradsync: warning: ", "gradsync-plots: warning: ", 1), file=sys.stderr)
    try:
        data = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise PlotError(f"{argv[0]} report: not valid JSON ({e.msg})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or \
            data.get("schema_version") not in KNOWN_VERSIONS:
        raise PlotError(f"{argv[0]} report: not a {SCHEMA} document of version "
                        f"{', '.join(map(str, KNOWN_VERSIONS))} (a gradsync of another version?)")
    return Report(data, list(paths))


def train_rows(report, purpose, simulated=False):
    """Train rows, measured or simulated; an error naming the files if none."""
    chosen = [r for r in report.train if r["simulated"] == simulated]
    if not chosen:
        what = "simulated train" if simulated else "measured train"
        raise PlotError(f"{report.shown_files()}: no {what} records ({purpose} needs them)")
    return chosen


def collectives_entries(report, purpose):
    """Measured collectives entries; an error naming the files if none."""
    chosen = [c for c in report.collectives if not c["simulated"]]
    if not chosen:
        raise PlotError(f"{report.shown_files()}: no collectives records ({purpose} needs them)")
    return chosen
