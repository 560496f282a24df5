"""Simulated scaling efficiency out to many workers, with published figures.

One figure per workload that has simulated train records (`"simulated":
true`, written by `gradsync simulate`): the report's efficiency of each
simulated row, computed against the simulated baseline (the simulated `none`
record at one worker of the same workload), against workers on a log2 axis,
one dashed line per strategy. Rows whose efficiency the report took from the
measured baseline are left out: a projection is the model against itself.
Every strategy the model costs is an entry of the strategy table, coloured
by its index like in every other figure.

A strategy whose records carry a band (the cluster file's validation,
harness/sim/validation.h: +/- the worst error of its validation runs) gets it
as a shaded area in its colour (clipped to 0 and ideal), and its points at more workers than any
validated run are drawn hollow ("beyond validation"); a strategy without one
is its line alone.

Published points (results/reference/published-scaling.csv by default, or the
CSV named by --published; "none" for none) are overlaid as unconnected
markers: the CSV's rows whose `model` is the workload's, efficiency_pct
against gpus, one marker shape per `system` (in the CSV's order), labelled
"<system> <strategy> (published)". The CSV is read with the csv module, lines
starting with '#' skipped; a missing column or a value that is not a number
is an error naming the file and line. No published row for a model: the
simulation is drawn alone.
"""
import csv
import math
import os
import sys

from . import efficiency, scaling, style
from .report import PlotError

DEFAULT_PUBLISHED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "results", "reference", "published-scaling.csv")
COLUMNS = ("system", "strategy", "model", "gpus", "efficiency_pct")
SYSTEM_MARKERS = ["H", "d", ">", "<", "8"]  # shapes the strategy lines use least
PUBLISHED_COLOR = "black"


def read_published(path):
    """The CSV's rows as dicts (gpus an int, efficiency_pct a float); PlotError naming the
    file and line on anything malformed."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return parse_published(path, f)
    except OSError as e:
        raise PlotError(f"{path}: cannot read the published scaling CSV ({e.strerror})") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise PlotError(f"{path}: not a readable CSV ({e})") from None


def parse_published(path, lines):
    at = [0]  # the number of the last line the reader took: a quoted field may span lines

    def content():
        for number, line in enumerate(lines, 1):
            at[0] = number
            if line.strip() and not line.lstrip().startswith("#"):
                yield line

    reader = csv.reader(content())
    header = next(reader, None)
    if header is None:
        raise PlotError(f"{path}: no header line (published scaling CSV, columns "
                        f"{', '.join(COLUMNS)})")
    header = [h.strip() for h in header]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise PlotError(f"{path}:{at[0]}: the header lacks column(s) {', '.join(missing)}")
    rows = []
    for fields in reader:
        where = f"{path}:{at[0]}"
        if len(fields) != len(header):
            raise PlotError(f"{where}: {len(fields)} fields, the header has {len(header)}")
        row = {name: value.strip() for name, value in zip(header, fields)}
        try:
            gpus = int(row["gpus"])
        except ValueError:
            raise PlotError(f"{where}: gpus {row['gpus']!r} is not a whole number") from None
        try:
            pct = float(row["efficiency_pct"])
        except ValueError:
            raise PlotError(f"{where}: efficiency_pct {row['efficiency_pct']!r} is not a number") \
                from None
        if gpus < 1:
            raise PlotError(f"{where}: gpus {gpus} is not a GPU count (1 or more)")
        if not math.isfinite(pct) or pct < 0:
            raise PlotError(f"{where}: efficiency_pct {row['efficiency_pct']!r} is not a percentage")
        rows.append(dict(row, gpus=gpus, efficiency_pct=pct))
    return rows


def published_rows(published):
    """The published rows to overlay: `published` is a CSV path, "none", or None (the default
    CSV, left out with a note when this checkout lacks it)."""
    if published == "none":
        return []
    if published is None:
        if not os.path.isfile(DEFAULT_PUBLISHED):
            print(f"gradsync-plots: note: projection: no {DEFAULT_PUBLISHED}, published points "
                  "left out", file=sys.stderr)
            return []
        published = DEFAULT_PUBLISHED
    return read_published(published)


def simulated_efficiency(r):
    """The row's efficiency in percent when the report computed it against the simulated
    baseline; NaN otherwise."""
    return scaling.efficiency(r) if r["baseline"] == "simulated" else (math.nan, math.nan)


def draw_published(ax, look, rows, markers):
    """Unconnected markers, one legend entry per (system, strategy); returns the highest y."""
    top = 0.0
    groups = {}
    for r in rows:
        groups.setdefault((r["system"], r["strategy"]), []).append(r)
    for (system, strategy), points in groups.items():
        points.sort(key=lambda r: r["gpus"])
        color = look.color(strategy) if strategy in look.index else PUBLISHED_COLOR
        ax.plot([r["gpus"] for r in points], [r["efficiency_pct"] for r in points],
                linestyle="none", marker=markers[system], markersize=10, color=color,
                markeredgecolor="black", markeredgewidth=0.8, zorder=3,
                label=f"{system} {strategy} (published)")
        top = max([top] + [r["efficiency_pct"] for r in points])
    return top


def draw_bands(ax, look, table):
    """Each strategy's band (the row's `band`: its cluster's validation, factors on the
    efficiency) as a shaded area, and its points beyond validation as hollow markers over
    the line's. Returns (any band, any point beyond validation, highest y)."""
    any_band = any_beyond = False
    top = 0.0
    for s in look.order(s for s, _ in table):
        rows = sorted((r for (name, _), r in table.items() if name == s), key=lambda r: r["workers"])
        banded = [(r, simulated_efficiency(r)[0]) for r in rows if r.get("band")]
        banded = [(r, y) for r, y in banded if not math.isnan(y)]
        if not banded:
            continue
        any_band = True
        xs = [r["workers"] for r, _ in banded]
        # Efficiency lies between 0 and ideal: a band wider than that is drawn to them.
        low = [max(0.0, y * r["band"]["low"]) for r, y in banded]
        high = [min(100.0, y * r["band"]["high"]) for r, y in banded]
        top = max([top] + high)
        ax.fill_between(xs, low, high, color=look.color(s), alpha=0.13, linewidth=0)
        beyond = [(r["workers"], y) for r, y in banded if r["band"]["beyond_validation"]]
        if beyond:
            any_beyond = True
            ax.plot([x for x, _ in beyond], [y for _, y in beyond], linestyle="none",
                    marker=look.marker(s), markersize=6, markerfacecolor="white",
                    markeredgecolor=look.color(s), markeredgewidth=1.3, zorder=2.5)
    return any_band, any_beyond, top


def band_proxies(any_band, any_beyond):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    out = []
    if any_band:
        out.append(Patch(facecolor="gray", alpha=0.3,
                         label="band: +/- the worst error of its validation"))
    if any_beyond:
        out.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                          markeredgecolor="gray", label="hollow: beyond validation"))
    return out


def figure(look, key, table, published, markers, outdir):
    fig, ax = style.new_figure()
    workers, any_failed, top = scaling.draw(ax, look, table, simulated_efficiency,
                                            linestyle="--", label_suffix=" (simulated)",
                                            spread=False)
    any_band, any_beyond, band_top = draw_bands(ax, look, table)
    top = max(top, band_top)
    mine = [r for r in published if r["model"] == key[0]]
    top = max(top, draw_published(ax, look, mine, markers))
    records = list(table.values())
    efficiency.set_axes(ax, key, records, workers + [r["gpus"] for r in mine], top,
                        what="Simulated efficiency")
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + band_proxies(any_band, any_beyond) +
                         ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, style.slug("projection", key))


def require_simulated_baseline(report, key, table):
    if any(r["baseline"] == "simulated" and r["efficiency"] is not None for r in table.values()):
        return
    model, compute, batch, setup = key
    where = f" on {setup}" if setup else ""
    raise PlotError(f"projection of {model} ({compute}, batch {batch}{where}): no simulated "
                    f"baseline, needs a simulated `{report.baseline()}` train record at 1 worker "
                    f"of the same workload (gradsync simulate project writes one)")


def plot(report, outdir, published=None):
    tables = style.workloads(r for r in report.train if r["simulated"])
    if not tables:
        raise PlotError(f"{report.shown_files()}: no simulated train records (records with "
                        "\"simulated\": true; projection needs them)")
    for key, table in tables.items():
        require_simulated_baseline(report, key, table)
    rows = published_rows(published)  # read, and checked, before anything is drawn
    markers = {}
    for r in rows:
        markers.setdefault(r["system"], SYSTEM_MARKERS[len(markers) % len(SYSTEM_MARKERS)])
    look = style.Look(report.strategies)
    return [p for key, table in tables.items()
            for p in figure(look, key, table, rows, markers, outdir)]
