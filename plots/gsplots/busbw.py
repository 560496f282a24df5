"""Bus bandwidth against message size, one figure per worker count.

From the report's measured `collectives` entries: one line per strategy
through its rows' busbw_gbps (GB/s, 10^9 bytes/s) at each size_bytes, on a
log2 x axis with ticks labelled 4K, 1M, 64M (powers of 1024). Single-worker
records and the baseline strategy move nothing over a bus (busbw 0) and are
left out, as are size-0 rows. Where several records measured the same
strategy, worker count and size, the later one counts (the report keeps it).
A row with wrong elements, or of a record with `correct: false`, gets the
hollow red "failed check" ring. Runs on an emulated cluster get figures of
their own, titled and named with the cluster they represent.
"""
import sys

from . import style
from .report import PlotError, collectives_entries


def human_bytes(n):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return f"{n}" if n < 1024 else f"{n / 1024:.3g}K"


def tables(entries):
    """{(workers, setup): {strategy: {size: row}}}: runs on an emulated cluster apart."""
    out = {}
    for c in entries:
        out.setdefault((c["workers"], c.get("setup", "")), {})[c["strategy"]] = \
            {row["size_bytes"]: row for row in c["rows"]}
    return out


def figure(look, n, setup, by_strategy, outdir):
    from matplotlib.ticker import FixedLocator, FixedFormatter, NullLocator
    fig, ax = style.new_figure()
    sizes, any_failed, records = set(), False, []
    for s in look.order(by_strategy):
        points = sorted((size, row) for size, row in by_strategy[s].items() if size > 0)
        xs = [size for size, _ in points]
        ys = [row["busbw_gbps"] for _, row in points]
        sizes.update(xs)
        records.extend(row for _, row in points)
        ax.plot(xs, ys, color=look.color(s), marker=look.marker(s), markersize=6,
                linewidth=1.8, label=look.label(s))
        for size, row in points:
            if row["failed"]:
                ax.plot([size], [row["busbw_gbps"]], **style.FAILED)
                any_failed = True
    ticks = sorted(sizes)
    step = max(1, -(-len(ticks) // 10))  # at most ten labels
    ticks = ticks[::step]
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FixedFormatter([human_bytes(t) for t in ticks]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("message size (bytes, log2 scale; K = 1024)")
    ax.set_ylabel("bus bandwidth (GB/s, 10^9 B/s)")
    ax.set_ylim(bottom=0)
    on = f"\n{setup}" if setup else ""
    ax.set_title(f"Allreduce bus bandwidth (float sum): {n} workers{on}\n"
                 f"{style.context_text(records)}", fontsize=11)
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, f"busbw-n{n}" + (f"-{style.name_part(setup)}" if setup else ""))


def plot(report, outdir):
    by_workers = tables(collectives_entries(report, "busbw"))
    look = style.Look(report.strategies)
    paths, skipped = [], []
    for (n, setup), by_strategy in sorted(by_workers.items()):
        by_strategy = {s: v for s, v in by_strategy.items()
                       if not look.is_baseline(s) and any(size > 0 for size in v)}
        if n < 2 or not by_strategy:
            skipped.append(n)
            continue
        paths.extend(figure(look, n, setup, by_strategy, outdir))
    if skipped:
        print(f"gradsync-plots: note: busbw: left out {', '.join(map(str, skipped))} worker(s): "
              f"a single worker or only `{report.baseline()}` moves nothing over a bus", file=sys.stderr)
    if not paths:
        raise PlotError(f"{report.shown_files()}: no collectives records with 2 or more workers "
                        "and a synchronizing strategy (busbw needs them)")
    return paths
