"""What every figure shares.

Strategies are ordered, coloured and marked by their place in gradsync's
strategy table (the report's `strategies`), never by name: the baseline (the
strategy that synchronizes nothing) is grey and labelled "(no sync)", an
external reference (role "external": PyTorch DDP's ddp-gloo) is labelled
"(external, own compute)" since its img/sec are another framework's, every
other strategy takes the palette entry of its index among the rest, and a
marker that shifts by one each time the markers come round again, so a
strategy looks the same in every figure and a new one gets a look of its own
(a colour and marker pair no other strategy has, for up to 162 strategies).
Train rows are grouped into workloads (model, compute mode, batch size per
worker, setup), as gradsync's report keys them; the setup is the cluster a
run represents ("4 hosts x 4 slots @ 25gbit (emulated 1.5625gbit, time
x16)"), or "time xK" on one machine, or "" for neither. Titles carry the
workload, its setup, the hosts and the date of the records; emulated compute
names its device profile ("emulated, v100"), or the rate it was given instead
of one ("emulated at 130.9 img/s per worker", `--emulate-img-per-sec`, which
records name the profile "forced"). Figures are 8x5 inches at 120 dpi, saved
as PNG and SVG, laid out by layout.fit so that every text fits on the canvas.
"""
import os
import re

from . import layout

# Black is the ideal line's and the published points' edge; grey the
# baseline's; red the failed marker's: no strategy takes them. One triangle
# among the markers (the baseline's is the other way up).
PALETTE = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink",
           "tab:olive", "tab:cyan", "navy", "darkgoldenrod", "teal", "gold", "deeppink", "sienna",
           "olivedrab", "indigo", "slateblue", "darkcyan"]
MARKERS = ["o", "s", "^", "D", "P", "X", "*", "h", "p"]
BASELINE_COLOR, BASELINE_MARKER = "tab:gray", "v"
FAILED = dict(marker="o", markersize=12, markerfacecolor="none", markeredgecolor="red",
              markeredgewidth=1.8, linestyle="none")
FIGSIZE = (8, 5)
DPI = 120
LEGEND_FONT_PT = 9
LEGEND_LABEL_SHARE = 0.4  # of the figure's width: a legend label wider than that is wrapped
# The device profile of compute emulated at a rate given on the command line
# (`--emulate-img-per-sec`) instead of a device's FLOP/s.
FORCED_PROFILE = "forced"


class Look:
    """Order, colour, marker and label of each strategy, from the report's table."""

    def __init__(self, strategies):
        self.index = {s["name"]: s["index"] for s in strategies}
        self.baseline = {s["name"] for s in strategies if s["role"] == "baseline"}
        # External references (another framework's runs, e.g. PyTorch DDP's ddp-gloo):
        # drawn like any strategy, labelled as computing with their own framework.
        self.external = {s["name"] for s in strategies if s["role"] == "external"}
        others = [s["name"] for s in sorted(strategies, key=lambda s: s["index"])
                  if s["role"] != "baseline"]
        self.place = {name: i for i, name in enumerate(others)}

    def order(self, names):
        return sorted(set(names), key=lambda s: (self.index.get(s, len(self.index)), s))

    def is_baseline(self, strategy):
        return strategy in self.baseline

    def color(self, strategy):
        if self.is_baseline(strategy):
            return BASELINE_COLOR
        return PALETTE[self.place.get(strategy, 0) % len(PALETTE)]

    def marker(self, strategy):
        if self.is_baseline(strategy):
            return BASELINE_MARKER
        place = self.place.get(strategy, 0)
        return MARKERS[(place + place // len(MARKERS)) % len(MARKERS)]

    def label(self, strategy):
        if self.is_baseline(strategy):
            return f"{strategy} (no sync)"
        if strategy in self.external:
            return f"{strategy} (external, own compute)"
        return strategy


def workload_key(row):
    """(model, compute, batch, setup); a token model's sequence length joins its name
    ("gpt2-124m T1024"), so that two lengths are two workloads."""
    model = row["model"]
    if row.get("sequence_length"):
        model = f"{model} T{row['sequence_length']}"
    return (model, row["compute"], row["batch"], row.get("setup", ""))


def workloads(rows):
    """{(model, compute, batch, setup): {(strategy, workers): row}}, sorted by workload."""
    out = {}
    for r in rows:
        out.setdefault(workload_key(r), {})[(r["strategy"], r["workers"])] = r
    return dict(sorted(out.items()))


def workload_text(key, records):
    """The workload in words, and on a line of its own the setup it represents."""
    model, compute, batch, setup = key
    profiles = sorted({r["device_profile"] for r in records if r["device_profile"]})
    named = [p for p in profiles if p != FORCED_PROFILE]
    mode = f"{compute}, {'/'.join(named)}" if compute == "emulated" and named else compute
    if compute == "emulated" and FORCED_PROFILE in profiles:
        mode += f" at {forced_rate(records)} per worker"
    return f"{model} ({mode}), batch {batch} per worker" + (f"\n{setup}" if setup else "")


def forced_rate(records):
    """The single-worker rate compute was emulated at, in words: its rows at one worker
    ran at it ("130.9 img/s"), or "a fixed img/s" when they do not say one rate."""
    rates = {round(r["img_sec"]["mean"], 1) for r in records
             if r["device_profile"] == FORCED_PROFILE and r["workers"] == 1}
    return f"{rates.pop():g} img/s" if len(rates) == 1 else "a fixed img/s"


def context_text(records):
    """'hosts: a, b · 2024-05-01' from the rows' records' contexts."""
    hosts, dates = [], set()
    for r in records:
        for h in r["hosts"]:
            if h not in hosts:
                hosts.append(h)
        ts = r["timestamp"]
        if isinstance(ts, str) and re.match(r"\d{4}-\d\d-\d\d", ts):
            dates.add(ts[:10])
    shown = ", ".join(hosts[:3]) + (f" +{len(hosts) - 3} more" if len(hosts) > 3 else "")
    # A projection of the cost model ran on no host.
    everywhere_simulated = bool(records) and all(r.get("simulated") for r in records)
    parts = [f"hosts: {shown}" if shown else
             "cost model, no host" if everywhere_simulated else "hosts: unknown"]
    if dates:
        parts.append(min(dates) if len(dates) == 1 else f"{min(dates)} to {max(dates)}")
    return " · ".join(parts)


def slug(kind, key):
    """File name stem of a workload's figure: efficiency-small-cnn-cpu-b32, then the setup
    when there is one (efficiency-resnet50-emulated-b64-4_hosts_x_4_slots_25gbit_...)."""
    model, compute, batch, setup = key
    parts = (kind, model, compute, f"b{batch}") + ((setup,) if setup else ())
    return "-".join(name_part(p) for p in parts)


def name_part(text):
    """`text` as a part of a file name: runs of other characters become one '_'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_")


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


def legend_outside(ax, handles=None, **extra):
    """The legend right of the axes (the axes' labelled artists unless `handles` are given;
    `extra` goes to ax.legend). Measured as it will be drawn: a label wider than
    LEGEND_LABEL_SHARE of the figure is wrapped, and a legend taller than the canvas takes
    another column until it fits."""
    from matplotlib.font_manager import FontProperties
    if handles is None:
        handles, _ = ax.get_legend_handles_labels()
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    font = FontProperties(size=LEGEND_FONT_PT)
    room = LEGEND_LABEL_SHARE * fig.bbox.width
    labels = [layout.wrap(h.get_label(), room, font, renderer)[0] for h in handles]
    kwargs = dict(handles=handles, labels=labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0, fontsize=LEGEND_FONT_PT, frameon=False) | extra
    usable = fig.bbox.height - 2 * layout.margin_px(fig)
    legend = ax.legend(**kwargs)
    columns = 1
    while legend.get_window_extent(renderer).height > usable and columns < len(handles):
        columns += 1
        legend = ax.legend(ncols=columns, **kwargs)
    return legend


def save(fig, outdir, name):
    """Lays the figure out so that its text fits (layout.fit), writes NAME.png and NAME.svg
    into outdir; returns their paths."""
    import matplotlib.pyplot as plt
    os.makedirs(outdir, exist_ok=True)
    layout.fit(fig)
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path, dpi=DPI)
        paths.append(path)
    plt.close(fig)
    return paths
