"""Total throughput against worker count, one figure per workload.

Total img/sec on n workers (the report's img_sec, with its 1.96-sigma
interval as the error bar): for a time-scaled run the represented rate,
measured x the time scale, which the axis label says. The ideal line is linear scaling of the
baseline strategy's record at one worker: n x its img/sec. Without that
baseline the figure is still drawn, without the ideal line, and a note says
so on stderr.
"""
import sys

from . import scaling, style
from .report import train_rows


def total(r):
    return r["img_sec"]["mean"], r["img_sec"]["conf"]


def figure(report, look, key, table, outdir):
    fig, ax = style.new_figure()
    workers, any_failed, _ = scaling.draw(ax, look, table, total)
    name = report.baseline()
    base = table.get((name, 1))
    if base is not None:
        b = base["img_sec"]["mean"]
        lo, hi = min(workers), max(workers)
        xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]  # curved on a log x axis
        ax.plot(xs, [x * b for x in xs], color="black", linestyle=":", linewidth=1.2,
                label=f"ideal (n x {name} at 1 worker)")
    else:
        print(f"gradsync-plots: note: throughput of {style.workload_text(key, []).splitlines()[0]}: no "
              f"`{name}` record at 1 worker, ideal line left out", file=sys.stderr)
    style.log2_workers_axis(ax, workers)
    scaled = any(r.get("time_scale", 1) != 1 for r in table.values())
    ax.set_ylabel("total throughput (images/s" + (", represented: measured x time scale)" if scaled else ")"))
    ax.set_ylim(bottom=0)
    records = list(table.values())
    style.title(ax, "Throughput", style.workload_text(key, records), records)
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, style.slug("throughput", key))


def plot(report, outdir):
    tables = style.workloads(train_rows(report, "throughput"))
    look = style.Look(report.strategies)
    return [p for key, table in tables.items() for p in figure(report, look, key, table, outdir)]
