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

Beside the figures, errors.md: every engine's time against the most trusted
engine in the file that ran the same strategy, workers and size
(measurements, then SMPI, then the model), as (time / reference time - 1):
per strategy the points, the median and the worst error, then every case
beyond 10%. And validation.json: the model against SMPI as a cluster file's
validation entries (per strategy, in throughput terms), which
scripts/smpi-scaling.sh --save-validation adds to a copy of the cluster
file, so that projections on it carry SMPI's band. ps-zmq measured over MPI messages (--ps-transport mpi, the
carrier SMPI runs) is an engine of its own, "measured over mpi", after the
measurement over ZeroMQ (what users run), which stays the reference of SMPI
and the model. ps-zmq's runs are told apart by their shards (run_label).
"""
import json
import os
import statistics
import sys

from . import style
from .busbw import human_bytes
from .report import PlotError

DRAWN = {  # engine -> line style
    "smpi": dict(linestyle="-", fillstyle="full"),
    "model": dict(linestyle="--", fillstyle="none"),
    "measured": dict(linestyle=":", fillstyle="left"),
    "measured over mpi": dict(linestyle="-.", fillstyle="right"),
}


TRUST = ["measured", "measured over mpi", "smpi", "model"]  # the reference: the first present
FLAGGED = 0.10  # errors beyond this are listed one by one


def run_label(record):
    """The strategy, and for ps-zmq its shards (one per worker, or how many,
    dedicated or not) and, when measured over MPI messages, the carrier: runs
    that differ in them are different lines."""
    strategy = record["strategy"]
    if strategy != "ps-zmq":
        return strategy
    options = record.get("strategy_options") or {}
    servers = options.get("ps_servers", 1)
    if options.get("ps_placement") == "dedicated":
        shards = f"{servers} dedicated"
    elif servers == record["workers"] and servers > 1:
        shards = "a shard per worker"
    else:
        shards = f"{servers} shard{'s' if servers > 1 else ''}"
    return f"ps-zmq ({shards})"


def engine_of(record):
    """The engine that made a record: its `engine.name`, or for a measurement
    "measured", "measured over mpi" for ps-zmq over MPI messages."""
    engine = (record.get("engine") or {}).get("name")
    if engine:
        return engine
    options = record.get("strategy_options") or {}
    over_mpi = record["strategy"] == "ps-zmq" and options.get("ps_transport") == "mpi"
    return "measured over mpi" if over_mpi else "measured"


def read(path):
    """{size: {(engine, strategy): {workers: (busbw, time_us)}}}, the strategies in file order,
    the cluster."""
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
        engine = engine_of(record)
        if engine not in DRAWN:
            raise PlotError(f"{path}:{number}: unknown engine '{engine}'")
        platform = (record.get("engine") or {}).get("platform") or {}
        if platform.get("cluster_name"):
            clusters.add(platform["cluster_name"])
        strategy = run_label(record)
        if strategy not in strategies:
            strategies.append(strategy)
        for row in record["rows"]:
            by_size.setdefault(row["size_bytes"], {}).setdefault((engine, strategy), {})[
                record["workers"]] = (row["busbw_gbps"], row.get("time_us"))
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
        ax.plot(xs, [points[n][0] for n in xs], color=look.color(strategy),
                marker=look.marker(strategy), markersize=6, linewidth=1.8,
                label=f"{strategy} ({engine})", **DRAWN[engine])
    style.log2_workers_axis(ax, workers)
    ax.set_ylabel("bus bandwidth (GB/s, 10^9 B/s)")
    ax.set_ylim(bottom=0)
    on = f" on {', '.join(clusters)}" if clusters else ""
    drawn = [e for e in DRAWN if any(engine == e for engine, _ in lines)]
    words = {"smpi": "SMPI (solid)", "model": "the cost model (dashed)",
             "measured": "measured (dotted)", "measured over mpi": "measured over MPI (dash-dot)"}
    ax.set_title(f"Allreduce of {human_bytes(size)} (float sum; K, M = 1024, 1024^2 B){on}\n"
                 + ", ".join(words[e] for e in drawn), fontsize=10, loc="left")
    style.legend_outside(ax)
    return style.save(fig, outdir, f"engines-{human_bytes(size)}")


def errors(by_size, strategies):
    """[(engine, reference, strategy, workers, size, reference time, time, error)]."""
    out = []
    for size, lines in sorted(by_size.items()):
        for strategy in strategies:
            engines = [e for e in TRUST if (e, strategy) in lines]
            if len(engines) < 2:
                continue
            reference = engines[0]
            for engine in engines[1:]:
                for workers, (_, time) in sorted(lines[(engine, strategy)].items()):
                    base = lines[(reference, strategy)].get(workers, (None, None))[1]
                    if time and base:
                        out.append((engine, reference, strategy, workers, size, base, time,
                                    time / base - 1))
    return out


def ms(us):
    return f"{us / 1000:.3g} ms"


def worst_point(points):
    return max(points, key=lambda p: abs(p[7]))


def summary(points):
    """The median absolute error and the worst error of `points`, as table cells."""
    return (f"{100 * statistics.median(abs(p[7]) for p in points):.1f}%",
            f"{100 * worst_point(points)[7]:+.1f}%")


def errors_markdown(points, strategies):
    lines = ["# Engines against each other", "",
             "Error: (time / reference time - 1); the reference is the most trusted engine that "
             "ran the same strategy, workers and size (measured, then measured over MPI "
             "messages for ps-zmq, then SMPI, then the model).", "",
             "| engine | reference | strategy | points | median abs error | worst error |",
             "|---|---|---|---:|---:|---:|"]
    pairs = sorted({(p[0], p[1]) for p in points}, key=lambda p: (TRUST.index(p[1]), p[0]))
    for engine, reference in pairs:
        for strategy in strategies:
            mine = [p for p in points if p[:3] == (engine, reference, strategy)]
            if not mine:
                continue
            median, worst = summary(mine)
            at = worst_point(mine)
            lines.append(f"| {engine} | {reference} | {strategy} | {len(mine)} | {median} | "
                         f"{worst} ({human_bytes(at[4])} at {at[3]}) |")
        mine = [p for p in points if p[:2] == (engine, reference)]
        median, worst = summary(mine)
        lines.append(f"| {engine} | {reference} | **all** | {len(mine)} | {median} | {worst} |")
    flagged = [p for p in points if abs(p[7]) > FLAGGED]
    lines += ["", f"## Every case beyond {FLAGGED:.0%}", ""]
    if not flagged:
        return "\n".join(lines + ["None.", ""])
    lines += ["| engine | reference | strategy | workers | size | reference time | time | error |",
              "|---|---|---|---:|---:|---:|---:|---:|"]
    for engine, reference, strategy, workers, size, base, time, error in flagged:
        lines.append(f"| {engine} | {reference} | {strategy} | {workers} | {human_bytes(size)} | "
                     f"{ms(base)} | {ms(time)} | {100 * error:+.1f}% |")
    return "\n".join(lines + [""])


def plot_file(path, outdir):
    by_size, strategies, clusters = read(path)
    look = style.Look([{"name": s, "index": i, "role": "synchronizer"}
                       for i, s in enumerate(strategies)])
    paths = []
    for size, lines in sorted(by_size.items()):
        paths.extend(figure(size, lines, look, clusters, outdir))
    points = errors(by_size, strategies)
    if points:
        os.makedirs(outdir, exist_ok=True)
        table = os.path.join(outdir, "errors.md")
        with open(table, "w", encoding="utf-8") as f:
            f.write(errors_markdown(points, strategies))
        print(f"gradsync-plots: note: engines against each other in {table}", file=sys.stderr)
        entries = model_validation(points, clusters, path)
        if entries:
            with open(os.path.join(outdir, "validation.json"), "w", encoding="utf-8") as f:
                json.dump(entries, f, indent=2)
    return paths


def model_validation(points, clusters, path):
    """The model against SMPI as cluster-file validation entries (validation.h),
    one per strategy, its ps-zmq layouts together: error in throughput terms,
    SMPI's time over the model's - 1, over 2 or more workers."""
    by_strategy = {}
    for engine, reference, label, workers, size, base, time, _ in points:
        if (engine, reference) == ("model", "smpi") and workers >= 2:
            by_strategy.setdefault(label.split(" (")[0], []).append(
                (base / time - 1, workers, size, label))
    entries = []
    for strategy, runs in by_strategy.items():
        worst = max(runs, key=lambda r: abs(r[0]))
        entries.append({
            "strategy": strategy,
            "engine": "smpi",
            "against": f"SMPI on {', '.join(clusters) or 'its platform'}: allreduce times in {path}",
            "runs": len(runs),
            "workers": sorted({r[1] for r in runs}),
            "calibrated_workers": [],
            "models": sorted({f"collectives {human_bytes(r[2])}" for r in runs}),
            "median_abs_error": statistics.median(abs(r[0]) for r in runs),
            "min_error": min(r[0] for r in runs),
            "max_error": max(r[0] for r in runs),
            "worst": f"{worst[3]}, {human_bytes(worst[2])} at {worst[1]} workers: "
                     f"{100 * worst[0]:+.1f}%"})
    return entries
