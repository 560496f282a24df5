"""Memory per worker against scaling efficiency, one figure per workload.

Each strategy is a point at the workload's largest worker count: across,
the MiB of the model's state a worker holds (parameters, gradients,
optimizer state, gathered buffers: the record's memory.total_bytes); up, its
scaling efficiency as `gradsync report` computes it, with its 1.96-sigma
interval. A sharded strategy trades memory for communication: it stands
left of the replicas, lower or not. Workloads whose records hold no memory
(written before it was recorded), or whose strategies all hold the same,
draw nothing. Measured records when there are any, else projections
(`gradsync simulate project --out`), titled so.
"""
import math

from . import scaling, style
from .report import PlotError, train_rows

MIB = 1048576.0


def figure(look, key, table, outdir):
    workers = max(n for _, n in table)
    fig, ax = style.new_figure()
    any_failed = False
    for s in look.order(s for s, n in table if n == workers):
        r = table[(s, workers)]
        if r.get("memory_bytes") is None or look.is_baseline(s):
            continue
        y, err = scaling.efficiency(r)
        if math.isnan(y):
            continue
        c = look.color(s)
        ax.errorbar([r["memory_bytes"] / MIB], [y], yerr=[err], fmt=look.marker(s), color=c,
                    markersize=8, capsize=3, label=look.label(s))
        if r["failed"]:
            ax.plot([r["memory_bytes"] / MIB], [y], **style.FAILED)
            any_failed = True
    ax.axhline(100, color="black", linestyle=":", linewidth=1.2, label="ideal (100%)")
    ax.set_xlabel("memory per worker: the model's state it holds (MiB)")
    ax.set_ylabel("scaling efficiency (% of ideal)")
    ax.set_ylim(0, 110 * 1.08)
    left, right = ax.get_xlim()
    ax.set_xlim(0, right * 1.1)
    projected = " (projected)" if all(r["simulated"] for r in table.values()) else ""
    style.title(ax, f"Memory against efficiency at {workers} workers{projected}",
                style.workload_text(key, list(table.values())), list(table.values()))
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, style.slug("memory", key))


def memories(table):
    """The memory per worker the choices hold at the workload's most workers."""
    workers = max(n for _, n in table)
    return {r["memory_bytes"] for (s, n), r in table.items()
            if n == workers and r.get("memory_bytes") is not None and n > 1}


def plot(report, outdir):
    measured = [r for r in report.train if not r["simulated"]]
    rows = measured or train_rows(report, "memory", simulated=True)
    tables = {key: table for key, table in style.workloads(rows).items()
              if any(r.get("memory_bytes") is not None for r in table.values())}
    if not tables:
        raise PlotError(f"{report.shown_files()}: no train record says its memory per worker "
                        "(memory needs records written since it was recorded)")
    # As the report's "which strategy" table: only where the strategies differ.
    tables = {key: table for key, table in tables.items() if len(memories(table)) > 1}
    if not tables:
        raise PlotError(f"{report.shown_files()}: every strategy of every workload holds the "
                        "same memory per worker (memory sets sharded strategies against replicas)")
    for key, table in tables.items():
        scaling.require_efficiency(report, key, table, "memory", side=None)
    look = style.Look(report.strategies)
    return [p for key, table in tables.items() for p in figure(look, key, table, outdir)]
