"""Allreduce bus bandwidth against workers, SMPI beside the cost model.

Reads the collectives records of one JSON Lines file as scripts/smpi-scaling.sh
writes it (`gradsync collectives --engine smpi` and `--engine model` over the
same strategies, sizes and worker counts): records carry `engine.name`
("smpi" or "model"); measured records (no engine) are drawn too, as
"measured". One figure per message size: x the workers (log2), y the bus
bandwidth (GB/s); one colour per strategy, in the order the file first names
them, solid with filled markers for SMPI, dashed with hollow markers for the
model, dotted for measurements. Where one engine ran a strategy at a worker
count several times, the later record counts. A line that is not JSON, or a
record without rows, is an error naming the file and line.
"""
import json

from . import style
from .busbw import human_bytes
from .report import PlotError

DRAWN = {  # engine -> line style
    "smpi": dict(linestyle="-", fillstyle="full"),
    "model": dict(linestyle="--", fillstyle="none"),
    "measured": dict(linestyle=":", fillstyle="left"),
}


def read(path):
    """{size: {(engine, strategy): {workers: busbw}}}, the strategies in file order, the cluster."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise PlotError(f"{path}: cannot read ({e.strerror})") from None
    by_size, strategies, clusters = {}, [], set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise PlotError(f"{path}:{number}: not valid JSON ({e.msg})") from None
        if record.get("kind", "collectives") != "collectives" or "rows" not in record:
            raise PlotError(f"{path}:{number}: not a collectives record with rows")
        engine = (record.get("engine") or {}).get("name", "measured")
        if engine not in DRAWN:
            raise PlotError(f"{path}:{number}: unknown engine '{engine}'")
        platform = (record.get("engine") or {}).get("platform") or {}
        if platform.get("cluster_name"):
            clusters.add(platform["cluster_name"])
        strategy = record["strategy"]
        if strategy not in strategies:
            strategies.append(strategy)
        for row in record["rows"]:
            by_size.setdefault(row["size_bytes"], {}).setdefault((engine, strategy), {})[
                record["workers"]] = row["busbw_gbps"]
    if not by_size:
        raise PlotError(f"{path}: no collectives records")
    return by_size, strategies, sorted(clusters)


def figure(size, lines, look, clusters, outdir):
    fig, ax = style.new_figure()
    workers = set()
    for (engine, strategy), points in sorted(lines.items(), key=lambda kv: (
            look.order([kv[0][1]]), list(DRAWN).index(kv[0][0]))):
        xs = sorted(points)
        workers.update(xs)
        ax.plot(xs, [points[n] for n in xs], color=look.color(strategy),
                marker=look.marker(strategy), markersize=6, linewidth=1.8,
                label=f"{strategy} ({engine})", **DRAWN[engine])
    style.log2_workers_axis(ax, workers)
    ax.set_ylabel("bus bandwidth (GB/s, 10^9 B/s)")
    ax.set_ylim(bottom=0)
    on = f" on {', '.join(clusters)}" if clusters else ""
    ax.set_title(f"Allreduce of {human_bytes(size)} (float sum; K, M = 1024, 1024^2 B){on}\n"
                 "SMPI (solid) beside the cost model (dashed)", fontsize=11)
    style.legend_outside(ax)
    return style.save(fig, outdir, f"engines-{human_bytes(size)}")


def plot_file(path, outdir):
    by_size, strategies, clusters = read(path)
    look = style.Look([{"name": s, "index": i, "role": "synchronizer"}
                       for i, s in enumerate(strategies)])
    paths = []
    for size, lines in sorted(by_size.items()):
        paths.extend(figure(size, lines, look, clusters, outdir))
    return paths
