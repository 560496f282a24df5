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

from . import layout, style
from .report import PlotError, train_rows

COMPUTE, OVERLAP, EXPOSED, INPUT = "#9ecae1", "#3182bd", "#e6550d", "#a1d99b"
NAME_FONT_PT = 9  # a strategy's name under its group
NAME_LINE_PT = 12  # one line of names, with its leading
NAME_PAD_PT = 4  # between the tick labels and the first row of names
AXIS_LABEL_PAD_PT = 4  # between the lowest name and the axis label
NAME_GAP_PX = 6  # the least space between two names


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
    ax.set_xlabel("workers, grouped by strategy")
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
    name_groups(fig, ax, look, centers)
    return style.save(fig, outdir, style.slug("breakdown", key))


def label_forms(look, strategies):
    """The strategies' names under their groups, each on one line (an external
    reference's on two: its name, then what it is), then each broken before its first
    " (" too."""
    one = [look.label(s).replace(" (", "\n(", 1) if s in look.external else look.label(s)
           for s in strategies]
    two = [look.label(s).replace(" (", "\n(", 1) for s in strategies]
    return [one] if one == two else [one, two]


def name_placements(forms, count):
    """(rows, names, rotation) to try, the most readable first: all on one row, then on
    two (every other name a row lower), then upright under their groups, then on three
    rows and more; each row first with the names on one line, then broken."""
    for rows in (1, 2):
        yield from ((rows, names, 0) for names in forms)
    yield 1, forms[0], 90
    for rows in range(3, count + 1):
        yield from ((rows, names, 0) for names in forms)


def name_groups(fig, ax, look, centers):
    """Writes each strategy's name under its group of bars, placed by measuring them.

    The names go under the tick labels (measured after layout.fit has turned or shrunk
    those where they had to be), placed the first way of name_placements in which no two
    names, and no name and a tick label or the axis label, are less than NAME_GAP_PX
    apart. A name per row always fits, so the search ends. The axis label goes below the
    lowest name."""
    layout.fit(fig)
    renderer = fig.canvas.get_renderer()
    forms = label_forms(look, [s for _, s in centers])
    for rows, labels, rotation in name_placements(forms, len(centers)):
        # Depths below the axes, in points, as laid out now.
        axes_bottom = ax.get_window_extent(renderer).y0
        ticks_pt = (axes_bottom - min(t.get_window_extent(renderer).y0
                                      for t in layout.shown_x_tick_labels(ax))) * 72 / fig.dpi
        step = max(label.count("\n") + 1 for label in labels) * NAME_LINE_PT
        names = [ax.annotate(label, (c, 0), xycoords=("data", "axes fraction"),
                             xytext=(0, -ticks_pt - NAME_PAD_PT - (i % rows) * step),
                             textcoords="offset points", ha="center", va="top", rotation=rotation,
                             fontsize=NAME_FONT_PT, fontweight="bold",
                             color="dimgray" if look.is_baseline(s) else look.color(s))
                 for i, ((c, s), label) in enumerate(zip(centers, labels))]
        names_pt = (axes_bottom - min(n.get_window_extent(renderer).y0 for n in names)) * 72 / fig.dpi
        ax.xaxis.labelpad = names_pt - ticks_pt + AXIS_LABEL_PAD_PT
        layout.fit(fig)
        others = layout.shown_x_tick_labels(ax) + [ax.xaxis.label]
        if not layout.any_overlap(names, renderer, NAME_GAP_PX, others):
            return
        for name in names:
            name.remove()


def plot(report, outdir):
    tables = style.workloads(train_rows(report, "breakdown"))
    for table in tables.values():
        for r in table.values():
            parts(r)  # every row has its figures before anything is drawn
    look = style.Look(report.strategies)
    return [p for key, table in tables.items() for p in figure(look, key, table, outdir)]
