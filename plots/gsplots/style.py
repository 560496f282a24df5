"""What every figure shares.

Colours and markers are fixed per strategy so a strategy looks the same in
every figure; `none` (no synchronization) is grey. Train records are grouped
into workloads (model, compute mode, batch size per worker); within a
workload, where several records measured the same strategy and worker count,
the one later in the files counts (as in `gradsync report`). Titles carry the
workload, the hosts (context.hosts) and the date (context.timestamp).
Figures are 8x5 inches at 120 dpi, saved as PNG and SVG.
"""
import os
import re

ORDER = ["ring-mpi", "tree-mpi", "mpi-allreduce", "ps-zmq", "none"]
COLORS = {"ring-mpi": "tab:blue", "tree-mpi": "tab:orange", "mpi-allreduce": "tab:purple",
          "ps-zmq": "tab:green", "none": "tab:gray"}
SPARE_COLORS = ["tab:brown", "tab:pink", "tab:olive", "tab:cyan", "black"]
MARKERS = {"ring-mpi": "o", "tree-mpi": "s", "mpi-allreduce": "D", "ps-zmq": "^", "none": "v"}
SPARE_MARKERS = ["P", "X", "*", "h", "<"]
FAILED = dict(marker="o", markersize=12, markerfacecolor="none", markeredgecolor="red",
              markeredgewidth=1.8, linestyle="none")
FIGSIZE = (8, 5)
DPI = 120


def strategies_in(records):
    names = {r.data["strategy"] for r in records}
    return [s for s in ORDER if s in names] + sorted(names - set(ORDER))


def color(strategy):
    if strategy in COLORS:
        return COLORS[strategy]
    return SPARE_COLORS[sum(map(ord, strategy)) % len(SPARE_COLORS)]


def marker(strategy):
    if strategy in MARKERS:
        return MARKERS[strategy]
    return SPARE_MARKERS[sum(map(ord, strategy)) % len(SPARE_MARKERS)]


def label(strategy):
    return "none (no sync)" if strategy == "none" else strategy


def compute_mode(record):
    """The compute mode as workloads are told apart: "cpu", "emulated", or
    "cuda-fp32" / "cuda-tf32" / "cuda-mixed" (the precision changes the
    speed, so runs in two precisions are two workloads)."""
    compute = record.get("compute", str)
    precision = record.get("precision", str, default=None)
    return f"{compute}-{precision}" if precision else compute


def workload_key(record):
    return (record.get("model", str), compute_mode(record), record.get("batch_size", int))


def workloads(records):
    """{(model, compute, batch): {(strategy, workers): record}}, later records winning."""
    out = {}
    for r in records:
        key = workload_key(r)
        out.setdefault(key, {})[(r.get("strategy", str), r.get("workers", int))] = r
    return dict(sorted(out.items()))


def failed(record):
    return record.data.get("correct") is False


def workload_text(key, records):
    model, compute, batch = key
    profiles = sorted({r.data["device_profile"]["name"] for r in records
                       if isinstance(r.data.get("device_profile"), dict)
                       and isinstance(r.data["device_profile"].get("name"), str)})
    mode = f"{compute}, {'/'.join(profiles)}" if compute == "emulated" and profiles else compute
    return f"{model} ({mode}), batch {batch} per worker"


def context_text(records):
    """'hosts: a, b · 2024-05-01' from the records' contexts."""
    hosts, dates = [], set()
    for r in records:
        ctx = r.data.get("context") if isinstance(r.data.get("context"), dict) else {}
        for h in ctx.get("hosts") or []:
            if isinstance(h, str) and h not in hosts:
                hosts.append(h)
        ts = ctx.get("timestamp")
        if isinstance(ts, str) and re.match(r"\d{4}-\d\d-\d\d", ts):
            dates.add(ts[:10])
    shown = ", ".join(hosts[:3]) + (f" +{len(hosts) - 3} more" if len(hosts) > 3 else "")
    parts = [f"hosts: {shown or 'unknown'}"]
    if dates:
        parts.append(min(dates) if len(dates) == 1 else f"{min(dates)} to {max(dates)}")
    return " · ".join(parts)


def slug(kind, key):
    """File name stem of a workload's figure: efficiency-small-cnn-cpu-b32."""
    model, compute, batch = key
    return "-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", str(p)) for p in (kind, model, compute, f"b{batch}"))


def new_figure():
    import matplotlib.pyplot as plt
    plt.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, smaller
    fig, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    ax.grid(True, which="major", alpha=0.3)
    return fig, ax


def title(ax, what, subject, records):
    ax.set_title(f"{what}: {subject}\n{context_text(records)}", fontsize=11)


def log2_workers_axis(ax, workers):
    """Log2 x axis with a tick at each worker count, labelled as an integer."""
    from matplotlib.ticker import FixedLocator, FixedFormatter, NullLocator
    ticks = sorted(set(workers))
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FixedFormatter([str(t) for t in ticks]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(min(ticks) / 1.35, max(ticks) * 1.35)
    ax.set_xlabel("workers (log2 scale)")


def dodge(index, count, step=0.035):
    """A factor that spreads `count` strategies' points a little around x on a log axis."""
    return 2 ** ((index - (count - 1) / 2) * step)


def failed_proxy():
    from matplotlib.lines import Line2D
    return Line2D([], [], label="failed check", **FAILED)


def legend_outside(ax, handles=None):
    kwargs = dict(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, fontsize=9,
                  frameon=False)
    if handles is not None:
        kwargs["handles"] = handles
    ax.legend(**kwargs)


def save(fig, outdir, name):
    """Writes NAME.png and NAME.svg into outdir; returns their paths."""
    import matplotlib.pyplot as plt
    os.makedirs(outdir, exist_ok=True)
    fig.tight_layout()
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path, dpi=DPI)
        paths.append(path)
    plt.close(fig)
    return paths
