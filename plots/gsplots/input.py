"""Scaling efficiency against workers per node, with and without the input stage.

A run with an input stage (`gradsync train --input`, the report row's `input`)
is its own workload: its efficiency is against the baseline at one worker with
the same input stage (`gradsync report` computes it). This figure puts each
such workload beside its twin without one, the same model, compute mode, batch
and otherwise the same setup: one figure per twin pair, one colour per
strategy, a solid line without input, a dashed one (then dash-dot, dotted) per
input stage. The x axis is workers per node (the row's `workers_per_node`),
since the loaders of a node's workers share its cores. Simulated rows (the
cost model) are drawn thin and without markers, labelled "(model)", beside
the measured ones, so the model's view at more workers per node than this
machine has sits on the same axes.
"""
import math

from matplotlib.lines import Line2D

from . import scaling, style
from .report import PlotError

STAGE_STYLES = ["--", "-.", ":"]


def base_setup(row):
    """The row's setup without its input stage: the twin's setup."""
    setup, label = row.get("setup", ""), row.get("input") or ""
    if not label:
        return setup
    parts = [p for p in setup.split(", ") if p != label]
    return ", ".join(parts)


def groups(rows):
    """{(model, compute, batch, base setup): {input label or "": [rows]}} where some input
    stage exists, sorted."""
    out = {}
    for r in rows:
        key = (r["model"], r["compute"], r["batch"], base_setup(r))
        out.setdefault(key, {}).setdefault(r.get("input") or "", []).append(r)
    return {k: v for k, v in sorted(out.items()) if any(label for label in v)}


def draw_lines(ax, look, rows, linestyle, simulated):
    """One line per strategy through its rows' efficiency at each workers-per-node; returns
    the x values and the top of the bars."""
    xs_all, top = [], 0.0
    for s in look.order(r["strategy"] for r in rows):
        # Runs at one workers-per-node (a sweep over hosts) stand at one x,
        # in order of their workers.
        points = sorted(((r["workers_per_node"], r) for r in rows if r["strategy"] == s),
                        key=lambda point: (point[0], point[1]["workers"]))
        xs = [x for x, _ in points]
        values = [scaling.efficiency(r) for _, r in points]
        ys = [v for v, _ in values]
        xs_all += xs
        top = max([top] + [v + e for v, e in values if not math.isnan(v)])
        c = look.color(s)
        if simulated:
            ax.plot(xs, ys, linestyle=linestyle, color=c, linewidth=1.0, alpha=0.7)
            continue
        ax.plot(xs, ys, linestyle=linestyle, color=c, linewidth=1.8, marker=look.marker(s),
                markersize=6)
        ax.errorbar(xs, ys, yerr=[e for _, e in values], fmt="none", ecolor=c, elinewidth=1.2,
                    capsize=3, alpha=0.8)
    return xs_all, top


def figure(look, key, by_stage, outdir):
    fig, ax = style.new_figure()
    stages = sorted(label for label in by_stage if label)
    styles = {"": "-"} | {label: STAGE_STYLES[i % len(STAGE_STYLES)]
                          for i, label in enumerate(stages)}
    xs, top = [], 0.0
    records = []
    for label, rows in by_stage.items():
        records += rows
        for simulated in (False, True):
            chosen = [r for r in rows if r["simulated"] == simulated and r["efficiency"]]
            x, t = draw_lines(ax, look, chosen, styles[label], simulated)
            xs, top = xs + x, max(top, t)
    if not xs:
        model, compute, batch, _ = key
        raise PlotError(f"input figure of {model} ({compute}, batch {batch}): no efficiency, "
                        "needs the baseline at 1 worker with and without the input stage")
    style.log2_workers_axis(ax, xs)
    ax.set_xlabel("workers per node (log2 scale)")
    ax.axhline(100, color="black", linestyle=":", linewidth=1.2)
    ax.set_ylabel("scaling efficiency (% of ideal)")
    ax.set_ylim(0, max(110.0, top) * 1.08)
    style.title(ax, "Input stage",
                style.workload_text(key, records), records)
    drawn = [s for s in look.order(r["strategy"] for r in records)
             if len({r["workers_per_node"] for r in records if r["strategy"] == s}) > 1]
    handles = [Line2D([], [], color=look.color(s), marker=look.marker(s), label=look.label(s))
               for s in drawn]
    handles += [Line2D([], [], color="black", linestyle=styles[label],
                       label=label or "synthetic input (free)") for label in [""] + stages]
    if any(r["simulated"] for r in records):
        handles.append(Line2D([], [], color="black", linewidth=1.0, alpha=0.7,
                              label="thin, no marker: cost model"))
    handles.append(Line2D([], [], color="black", linestyle=":", label="ideal (100%)"))
    style.legend_outside(ax, handles)
    return style.save(fig, outdir, style.slug("input", key))


def plot(report, outdir):
    found = groups(report.train)
    if not found:
        raise PlotError(f"{report.shown_files()}: no train records with an input stage "
                        "(gradsync train --input)")
    look = style.Look(report.strategies)
    return [p for key, by_stage in found.items() for p in figure(look, key, by_stage, outdir)]
