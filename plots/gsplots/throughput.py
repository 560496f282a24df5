"""Total throughput against worker count, one figure per workload.

Total img/sec = results.img_sec_mean (per worker) x workers, with the error
bar scaled the same way from results.img_sec_conf. The ideal line is linear
scaling of the `none` record at one worker: n x its img/sec. Without that
baseline the figure is still drawn, without the ideal line, and a note says
so on stderr.
"""
import sys

from . import scaling, style


def total(r):
    n = r.get("workers", int)
    return n * r.get("results.img_sec_mean"), n * r.get("results.img_sec_conf", default=0.0)


def figure(key, table, outdir):
    fig, ax = style.new_figure()
    workers, any_failed, _ = scaling.draw(ax, table, total)
    base = scaling.baseline(key, table)
    if base is not None:
        b = base.get("results.img_sec_mean")
        lo, hi = min(workers), max(workers)
        xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]  # curved on a log x axis
        ax.plot(xs, [x * b for x in xs], color="black", linestyle=":", linewidth=1.2,
                label="ideal (n x none at 1 worker)")
    else:
        print(f"gradsync-plots: note: throughput of {key[0]} ({key[1]}, batch {key[2]}): no `none` "
              "record at 1 worker, ideal line left out", file=sys.stderr)
    style.log2_workers_axis(ax, workers)
    ax.set_ylabel("total throughput (images/s)")
    ax.set_ylim(bottom=0)
    records = list(table.values())
    style.title(ax, "Throughput", style.workload_text(key, records), records)
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, style.slug("throughput", key))


def plot(records, files, outdir):
    from .records import of_kind
    tables = style.workloads(of_kind(records, files, "train", "throughput"))
    return [p for key, table in tables.items() for p in figure(key, table, outdir)]
