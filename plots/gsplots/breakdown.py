"""Where the step time goes: stacked bars per strategy and worker count.

One figure per workload; bars are grouped by strategy, one bar per worker
count. From the report's breakdown of each row (the record's results,
seconds per step, shown in ms):
  overlapped communication = max(0, allreduce_s - exposed_comm_s), the time
      inside the strategy that ran while backward was still computing;
  exposed communication = exposed_comm_s, the wait after backward.
  exposed input = input_wait_s, the wait for the batch (train --input; only
      in the rows of runs with an input stage), drawn at the bottom of the
      bar, since the step waits for it before compute starts.
Overlapped communication runs *during* compute, so it is drawn as the
hatched top part of the compute segment (compute_s split into compute alone
and compute overlapped with communication) rather than stacked on top of it:
the bar's height is then exposed input + compute + exposed communication,
which is what a step costs, and a black tick marks the measured mean step time (it also holds
the optimizer step). A failed check outlines the bar in red.
"""
from matplotlib.patches import Patch
from matplotlib.lines import Line2D

from . import style
from .report import PlotError, train_rows

COMPUTE, OVERLAP, EXPOSED, INPUT = "#9ecae1", "#3182bd", "#e6550d", "#a1d99b"


def parts(r):
    b = r["breakdown"]
    if b is None:
        raise PlotError(f"{r['origin']}: train record lacks a step-time figure (results.compute_s, "
                        "allreduce_s, exposed_comm_s and step_mean_s are needed)")
    compute, exposed = b["compute_s"], b["exposed_comm_s"]
    overlapped = max(0.0, b["allreduce_s"] - exposed)
    hidden = min(overlapped, compute)
    waited = b.get("input_wait_s", 0.0)
    return (1e3 * waited, 1e3 * (compute - hidden), 1e3 * hidden, 1e3 * exposed,
            1e3 * b["step_mean_s"])


def figure(look, key, table, outdir):
    fig, ax = style.new_figure()
    ax.grid(False, axis="x")
    strategies = look.order(s for s, _ in table)
    workers = sorted({n for _, n in table})
    width, gap = 0.8, 1.2
    x, ticks, labels, centers, any_failed, any_input = 0.0, [], [], [], False, False
    for s in strategies:
        start = x
        for n in workers:
            r = table.get((s, n))
            if r is not None:
                waited, alone, hidden, exposed, step = parts(r)
                bad = r["failed"]
                any_failed |= bad
                any_input |= "input_wait_s" in r["breakdown"]
                edge = dict(edgecolor="red", linewidth=2) if bad else dict(edgecolor="white", linewidth=0.5)
                if "input_wait_s" in r["breakdown"]:
                    ax.bar(x, waited, width, color=INPUT, hatch="..", **edge)
                ax.bar(x, alone, width, bottom=waited, color=COMPUTE, **edge)
                ax.bar(x, hidden, width, bottom=waited + alone, color=OVERLAP, hatch="//", **edge)
                ax.bar(x, exposed, width, bottom=waited + alone + hidden, color=EXPOSED, **edge)
                ax.plot([x - width / 2, x + width / 2], [step, step], color="black", linewidth=2)
            ticks.append(x)
            labels.append(str(n))
            x += 1
        centers.append(((start + x - 1) / 2, s))
        x += gap
    ax.set_xticks(ticks, labels, fontsize=9)
    # Groups of one or two bars are narrower than a strategy's name: with
    # many strategies, every other name goes one line lower so none overlap.
    stagger = len(workers) <= 2 and len(strategies) > 4
    # An external reference's long label goes on two lines: its name, then what it is.
    two_lines = any(s in look.external for s in strategies)
    for i, (c, s) in enumerate(centers):
        label = look.label(s).replace(" (", "\n(", 1) if s in look.external else look.label(s)
        ax.annotate(label, (c, 0), xycoords=("data", "axes fraction"),
                    xytext=(0, -22 - (12 if stagger and i % 2 else 0)), textcoords="offset points",
                    ha="center", va="top", fontsize=9,
                    color="dimgray" if look.is_baseline(s) else look.color(s), fontweight="bold")
    ax.set_xlabel("workers, grouped by strategy", labelpad=34 if stagger or two_lines else 22)
    ax.set_ylabel("time per step (ms)")
    ax.set_xlim(-0.8, x - gap + 0.2)
    records = list(table.values())
    style.title(ax, "Step time breakdown", style.workload_text(key, records), records)
    handles = [Patch(facecolor=COMPUTE, label="compute"),
               Patch(facecolor=OVERLAP, hatch="//", label="communication\noverlapped with compute"),
               Patch(facecolor=EXPOSED, label="exposed communication"),
               Line2D([], [], color="black", linewidth=2, label="measured step time (mean)")]
    if any_input:
        handles.insert(0, Patch(facecolor=INPUT, hatch="..", label="exposed input\n(waiting for the batch)"))
    if any_failed:
        handles.append(Patch(facecolor="white", edgecolor="red", linewidth=2, label="failed check"))
    style.legend_outside(ax, handles)
    return style.save(fig, outdir, style.slug("breakdown", key))


def plot(report, outdir):
    tables = style.workloads(train_rows(report, "breakdown"))
    for table in tables.values():
        for r in table.values():
            parts(r)  # every row has its figures before anything is drawn
    look = style.Look(report.strategies)
    return [p for key, table in tables.items() for p in figure(look, key, table, outdir)]
