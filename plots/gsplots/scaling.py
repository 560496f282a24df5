"""Per-strategy lines against worker count, shared by the scaling figures.

A workload's table maps (strategy, workers) to a train row of the report.
Each strategy gets one line over every worker count the workload measured: a
count its strategy lacks is a gap in the line (NaN), not an interpolation.
Every measured point has a marker and an error bar; a row whose check failed
gets a hollow red-edged ring on top. Points of different strategies at the
same worker count are spread a little sideways so their error bars stay
apart.
"""
import math

from . import style
from .report import PlotError


def require_efficiency(report, key, table, purpose, side="measured"):
    """Fails unless the workload's rows have an efficiency against `side`'s baseline
    (any side's when side is None)."""
    if any(r["efficiency"] is not None and side in (None, r["baseline"]) for r in table.values()):
        return
    model, compute, batch, setup = key
    where = f" on {setup}" if setup else ""
    raise PlotError(f"{purpose} of {model} ({compute}, batch {batch}{where}): no baseline, needs a "
                    f"`{report.baseline()}` train record at 1 worker with model {model}, compute "
                    f"{compute} and batch_size {batch}{where}")


def efficiency(r):
    """A row's efficiency in percent, and its interval; NaN without a baseline."""
    e = r["efficiency"]
    return (100.0 * e["value"], 100.0 * e["conf"]) if e else (math.nan, math.nan)


def draw(ax, look, table, value, linestyle="-", label_suffix="", spread=True):
    """Draws value(row) -> (y, err) per strategy; returns (workers, any failed, top)."""
    workers = sorted({n for _, n in table})
    strategies = look.order(s for s, _ in table)
    any_failed = False
    top = 0.0
    for i, s in enumerate(strategies):
        factor = style.dodge(i, len(strategies)) if spread else 1.0
        xs, ys, errs, fails = [], [], [], []
        for n in workers:
            r = table.get((s, n))
            y, err = value(r) if r is not None else (math.nan, math.nan)
            if not math.isnan(y):
                top = max(top, y + err)
            xs.append(n * factor)
            ys.append(y)
            errs.append(err)
            if r is not None and r["failed"]:
                fails.append((n * factor, y))
        c = look.color(s)
        ax.plot(xs, ys, linestyle=linestyle, color=c,
                linewidth=1.3 if look.is_baseline(s) else 1.8,
                marker=look.marker(s), markersize=6, label=look.label(s) + label_suffix)
        present = [(x, y, e) for x, y, e in zip(xs, ys, errs) if not math.isnan(y)]
        if present:
            px, py, pe = zip(*present)
            ax.errorbar(px, py, yerr=pe, fmt="none", ecolor=c, elinewidth=1.2, capsize=3,
                        alpha=0.8)
        for x, y in fails:
            ax.plot([x], [y], **style.FAILED)
            any_failed = True
    return workers, any_failed, top
