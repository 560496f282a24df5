"""Measured against simulated scaling efficiency, one figure per workload.

A record with a top-level `"simulated": true` is a cost-model prediction; any
other record is a measurement. For each workload that has simulated train
records, efficiency against workers is drawn for both: solid lines for
measured, dashed for simulated, one colour per strategy. Each side's
efficiency is relative to its own baseline record at one worker; where one
side lacks it, the other side's baseline is used (`gradsync report` decides
and computes both), so a workload needs a baseline on at least one side.
A workload with simulated records only (a projection) is `projection`'s to
draw, not this figure's: it is left out.
"""
from matplotlib.lines import Line2D

from . import efficiency, scaling, style
from .report import PlotError


def split(report):
    meas = [r for r in report.train if not r["simulated"]]
    sim = [r for r in report.train if r["simulated"]]
    return style.workloads(meas), style.workloads(sim)


def figure(report, look, key, measured, simulated, outdir):
    scaling.require_efficiency(report, key, simulated, "simulated efficiency", side=None)
    fig, ax = style.new_figure()
    workers, failed_m, top_m = [], False, 0.0
    if measured:
        workers, failed_m, top_m = scaling.draw(ax, look, measured, scaling.efficiency,
                                                spread=False)
    w_s, failed_s, top_s = scaling.draw(ax, look, simulated, scaling.efficiency, linestyle="--",
                                        label_suffix=" (simulated)", spread=False)
    records = list(measured.values()) + list(simulated.values())
    efficiency.set_axes(ax, key, records, workers + w_s, max(top_m, top_s),
                        what="Measured vs simulated efficiency")
    handles = [Line2D([], [], color=look.color(s), marker=look.marker(s), label=look.label(s))
               for s in look.order(r["strategy"] for r in records)]
    handles += [Line2D([], [], color="black", linestyle="-", label="measured"),
                Line2D([], [], color="black", linestyle="--", label="simulated"),
                Line2D([], [], color="black", linestyle=":", label="ideal (100%)")]
    if failed_m or failed_s:
        handles.append(style.failed_proxy())
    style.legend_outside(ax, handles)
    return style.save(fig, outdir, style.slug("simulated", key))


def plot(report, outdir):
    measured, simulated = split(report)
    if not simulated:
        raise PlotError(f"{report.shown_files()}: no simulated train records (records with "
                        "\"simulated\": true), nothing to overlay")
    both = {key: table for key, table in simulated.items() if key in measured}
    if not both:
        raise PlotError(f"{report.shown_files()}: no workload has both measured and simulated "
                        "train records (`projection` draws simulated records alone)")
    look = style.Look(report.strategies)
    return [p for key, table in both.items()
            for p in figure(report, look, key, measured[key], table, outdir)]
