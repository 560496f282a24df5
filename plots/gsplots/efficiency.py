"""Scaling efficiency against worker count, one figure per workload.

Efficiency at n workers, as `gradsync report` computes it: total img/sec at n
/ (n x img/sec of the baseline strategy's record at one worker with the same
model, compute mode and batch size), in percent, with the record's
1.96-sigma interval on the same scale as the error bar. A dashed line marks
the ideal, 100%.
"""
from . import scaling, style
from .report import train_rows


def set_axes(ax, key, records, workers, top, what="Scaling efficiency"):
    style.log2_workers_axis(ax, workers)
    ax.axhline(100, color="black", linestyle=":", linewidth=1.2, label="ideal (100%)")
    ax.set_ylabel("scaling efficiency (% of ideal)")
    ax.set_ylim(0, max(110.0, top) * 1.08)
    style.title(ax, what, style.workload_text(key, records), records)


def figure(look, key, table, outdir):
    fig, ax = style.new_figure()
    workers, any_failed, top = scaling.draw(ax, look, table, scaling.efficiency)
    set_axes(ax, key, list(table.values()), workers, top)
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, style.slug("efficiency", key))


def plot(report, outdir):
    tables = style.workloads(train_rows(report, "efficiency"))
    for key, table in tables.items():
        scaling.require_efficiency(report, key, table, "efficiency")
    look = style.Look(report.strategies)
    return [p for key, table in tables.items() for p in figure(look, key, table, outdir)]
