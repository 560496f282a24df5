"""Scaling efficiency against worker count, one figure per workload.

Efficiency at n workers = total img/sec at n / (n x img/sec of the `none`
record at one worker with the same model, compute mode and batch size), in
percent; equivalently the per-worker img/sec at n over the baseline's. The
error bar is the record's 1.96-sigma interval (results.img_sec_conf) on the
same scale: conf / baseline mean. A dashed line marks the ideal, 100%.
"""
from . import scaling, style


def value(base_mean):
    def f(r):
        mean = r.get("results.img_sec_mean")
        conf = r.get("results.img_sec_conf", default=0.0)
        return 100.0 * mean / base_mean, 100.0 * conf / base_mean
    return f


def set_axes(ax, key, records, workers, top, what="Scaling efficiency"):
    style.log2_workers_axis(ax, workers)
    ax.axhline(100, color="black", linestyle=":", linewidth=1.2, label="ideal (100%)")
    ax.set_ylabel("scaling efficiency (% of ideal)")
    ax.set_ylim(0, max(110.0, top) * 1.08)
    style.title(ax, what, style.workload_text(key, records), records)


def figure(key, table, outdir):
    base = scaling.require_baseline(key, table, "efficiency")
    fig, ax = style.new_figure()
    workers, any_failed, top = scaling.draw(ax, table, value(base.get("results.img_sec_mean")))
    set_axes(ax, key, list(table.values()), workers, top)
    handles, _ = ax.get_legend_handles_labels()
    style.legend_outside(ax, handles + ([style.failed_proxy()] if any_failed else []))
    return style.save(fig, outdir, style.slug("efficiency", key))


def plot(records, files, outdir):
    from .records import of_kind
    tables = style.workloads(of_kind(records, files, "train", "efficiency"))
    for key, table in tables.items():
        scaling.require_baseline(key, table, "efficiency")
    return [p for key, table in tables.items() for p in figure(key, table, outdir)]
