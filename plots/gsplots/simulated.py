"""Measured against simulated scaling efficiency, one figure per workload.

A record with a top-level `"simulated": true` is a cost-model prediction; any
other record is a measurement. For each workload that has simulated train
records, efficiency against workers is drawn for both: solid lines for
measured, dashed for simulated, one colour per strategy. Each side's
efficiency is relative to its own `none` record at one worker; where the
simulated records lack one, the measured baseline is used (and the other way
round), so a workload needs a baseline on at least one side.
"""
from matplotlib.lines import Line2D

from . import efficiency, scaling, style
from .records import PlotError


def split(records):
    sim = [r for r in records if r.kind == "train" and r.simulated]
    meas = [r for r in records if r.kind == "train" and not r.simulated]
    return style.workloads(meas), style.workloads(sim)


def figure(key, measured, simulated, outdir):
    m_base = scaling.baseline(key, measured) if measured else None
    s_base = scaling.baseline(key, simulated)
    if m_base is None and s_base is None:
        scaling.require_baseline(key, simulated, "simulated efficiency")
    m_base, s_base = m_base or s_base, s_base or m_base
    fig, ax = style.new_figure()
    workers, failed_m, top_m = [], False, 0.0
    if measured:
        workers, failed_m, top_m = scaling.draw(
            ax, measured, efficiency.value(m_base.get("results.img_sec_mean")), spread=False)
    w_s, failed_s, top_s = scaling.draw(
        ax, simulated, efficiency.value(s_base.get("results.img_sec_mean")), linestyle="--",
        label_suffix=" (simulated)", spread=False)
    records = list(measured.values()) + list(simulated.values())
    efficiency.set_axes(ax, key, records, workers + w_s, max(top_m, top_s),
                        what="Measured vs simulated efficiency")
    strategies = style.strategies_in(records)
    handles = [Line2D([], [], color=style.color(s), marker=style.marker(s), label=style.label(s))
               for s in strategies]
    handles += [Line2D([], [], color="black", linestyle="-", label="measured"),
                Line2D([], [], color="black", linestyle="--", label="simulated"),
                Line2D([], [], color="black", linestyle=":", label="ideal (100%)")]
    if failed_m or failed_s:
        handles.append(style.failed_proxy())
    style.legend_outside(ax, handles)
    return style.save(fig, outdir, style.slug("simulated", key))


def plot(records, files, outdir):
    measured, simulated = split(records)
    if not simulated:
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        raise PlotError(f"{shown}: no simulated train records (records with \"simulated\": true), "
                        "nothing to overlay")
    return [p for key, table in simulated.items()
            for p in figure(key, measured.get(key, {}), table, outdir)]
