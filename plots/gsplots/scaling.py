"""Per-strategy lines against worker count, shared by the scaling figures.

A workload's table maps (strategy, workers) to a record. Each strategy gets
one line over every worker count the workload measured: a count its strategy
lacks is a gap in the line (NaN), not an interpolation. Every measured point
has a marker and an error bar; a record whose check failed (`correct: false`)
gets a hollow red-edged ring on top. Points of different strategies at the
same worker count are spread a little sideways so their error bars stay
apart.
"""
import math

from . import style
from .records import PlotError


def baseline(key, table):
    """The `none` record at one worker of this workload, or None."""
    return table.get(("none", 1))


def require_baseline(key, table, purpose):
    base = baseline(key, table)
    if base is None:
        model, compute, batch = key
        raise PlotError(f"{purpose} of {model} ({compute}, batch {batch}): no baseline, needs a "
                        f"`none` train record at 1 worker with model {model}, compute {compute} "
                        f"and batch_size {batch}")
    mean = base.get("results.img_sec_mean")
    if mean <= 0:
        raise PlotError(f"{base.where}: baseline results.img_sec_mean is {mean}, expected > 0")
    return base


def draw(ax, table, value, linestyle="-", label_suffix="", spread=True, only=None):
    """Draws value(record) -> (y, err) per strategy; returns (workers, any failed, top)."""
    workers = sorted({n for _, n in table})
    strategies = style.strategies_in(table.values())
    if only is not None:
        strategies = [s for s in strategies if s in only]
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
            if r is not None and style.failed(r):
                fails.append((n * factor, y))
        c = style.color(s)
        ax.plot(xs, ys, linestyle=linestyle, color=c, linewidth=1.8 if s != "none" else 1.3,
                marker=style.marker(s), markersize=6, label=style.label(s) + label_suffix)
        present = [(x, y, e) for x, y, e in zip(xs, ys, errs) if not math.isnan(y)]
        if present:
            px, py, pe = zip(*present)
            ax.errorbar(px, py, yerr=pe, fmt="none", ecolor=c, elinewidth=1.2, capsize=3,
                        alpha=0.8)
        for x, y in fails:
            ax.plot([x], [y], **style.FAILED)
            any_failed = True
    return workers, any_failed, top
