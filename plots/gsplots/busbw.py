"""Bus bandwidth against message size, one figure per worker count.

From `collectives` records: one line per strategy through its rows'
busbw_gbps (GB/s, 10^9 bytes/s) at each size_bytes, on a log2 x axis with
ticks labelled 4K, 1M, 64M (powers of 1024). Single-worker records and the
`none` strategy move nothing over a bus (busbw 0) and are left out, as are
size-0 rows. Where several records measured the same strategy, worker count
and size, the later one counts. A row with wrong elements, or a record with
`correct: false`, gets the hollow red "failed check" ring.
"""
import sys

from . import style
from .records import PlotError, of_kind


def human_bytes(n):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return f"{n}" if n < 1024 else f"{n / 1024:.3g}K"


def tables(records):
    """{workers: {strategy: {size: (busbw, failed, record)}}}."""
    out = {}
    for r in records:
        n = r.get("workers", int)
        s = r.get("strategy", str)
        rows = r.get("rows", list)
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise PlotError(f"{r.where}: rows[{i}] is not an object")
            size, bw = row.get("size_bytes"), row.get("busbw_gbps")
            if not isinstance(size, int) or not isinstance(bw, (int, float)) or isinstance(bw, bool):
                raise PlotError(f"{r.where}: rows[{i}] lacks a numeric size_bytes or busbw_gbps")
            wrong = row.get("wrong")
            bad = style.failed(r) or (isinstance(wrong, int) and wrong > 0)
            out.setdefault(n, {}).setdefault(s, {})[size] = (bw, bad, r)
    return out


def figure(n, by_strategy, outdir):
    from matplotlib.ticker import FixedLocator, FixedFormatter, NullLocator
    fig, ax = style.new_figure()
    sizes, any_failed, records = set(), False, []
    strategies = [s for s in style.ORDER if s in by_strategy] + \
        sorted(set(by_strategy) - set(style.ORDER))
    for s in strategies:
        points = sorted((size, v) for size, v in by_strategy[s].items() if size > 0)
        xs = [size for size, _ in points]
        ys = [v[0] for _, v in points]
        sizes.update(xs)
        records.extend(v[2] for _, v in points)
        ax.plot(xs, ys, color=style.color(s), marker=style.marker(s), markersize=6,
                linewidth=1.8, label=style.label(s))
        for size, (bw, bad, _) in points:
            if bad:
                ax.plot([size], [bw], **style.FAILED)
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
    ax.set_title(f"Allreduce bus bandwidth (float sum): {n} workers\n"
                 f"{style.context_text(list(dict.fromkeys(records)))}", fontsize=11)
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, f"busbw-n{n}")


def plot(records, files, outdir):
    chosen = of_kind(records, files, "collectives", "busbw")
    by_workers = tables(chosen)
    paths, skipped = [], []
    for n, by_strategy in sorted(by_workers.items()):
        by_strategy = {s: v for s, v in by_strategy.items()
                       if s != "none" and any(size > 0 for size in v)}
        if n < 2 or not by_strategy:
            skipped.append(n)
            continue
        paths.extend(figure(n, by_strategy, outdir))
    if skipped:
        print(f"gradsync-plots: note: busbw: left out {', '.join(map(str, skipped))} worker(s): "
              "a single worker or only `none` moves nothing over a bus", file=sys.stderr)
    if not paths:
        raise PlotError(f"{', '.join(files[:3])}: no collectives records with 2 or more workers "
                        "and a synchronizing strategy (busbw needs them)")
    return paths
