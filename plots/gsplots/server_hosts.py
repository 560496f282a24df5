"""The parameter server against the ring over dedicated server hosts (BytePS's layout).

Reads the directory `scripts/cluster-runs.sh server-hosts` writes:

  ring.jsonl       ring-mpi on the worker hosts (a measured train record)
  ps-K.jsonl       ps-zmq with K dedicated server hosts, one shard each
                   (--ps-placement dedicated --ps-servers K), for each K tried
  simulated.jsonl  the cost model's records of the same (`gradsync simulate
                   server-hosts --out`): ps-zmq with k dedicated server hosts
                   (from --hosts) and ring-mpi at the same worker count

and draws total img/sec of the workers against k: measured ps-zmq as points
on a solid line with its 1.96-sigma interval, the cost model's ps-zmq dashed,
measured ring-mpi as a solid horizontal line (its interval a band) and the
model's ring-mpi as a dashed one, each measured ps-zmq point labelled with
its lead over the measured ring. Without simulated.jsonl the figure has the
measured lines alone, and a note on stderr says so.

Every file goes through `gradsync report --format json` on its own: to a
report the ps-K runs are one configuration (same workload, strategy and
workers), of which it keeps the latest. K is the file's name; the record's
own strategy_options (ps_servers, ps_placement) must agree, and for the
simulated ps-zmq records they give k. Throughput is total img/sec as run
(the report's measured_img_sec: at the time scale, as the run's report.md
and the table of docs/results/cost-model-checks.md give it), so every run,
measured or simulated, must share one time scale, model, compute, batch and
worker count. Anything else is one PlotError naming the file.
"""
import json
import os
import re
import sys

from . import style
from .report import PlotError, load

RING, PS = "ring-mpi", "ps-zmq"
LAYOUT = "the directory `scripts/cluster-runs.sh server-hosts` writes"
PS_FILE = re.compile(r"^ps-([0-9]+)\.jsonl$")


def record_at(origin):
    """The raw record a report row came from ("file:line")."""
    path, _, line = origin.rpartition(":")
    try:
        with open(path, encoding="utf-8") as f:
            for i, text in enumerate(f, 1):
                if i == int(line):
                    return json.loads(text)
    except (OSError, ValueError):
        pass
    raise PlotError(f"{origin}: cannot read the record back")


def ps_layout(row):
    """(servers, placement) from the row's record's strategy_options; None where absent."""
    options = record_at(row["origin"]).get("strategy_options")
    options = options if isinstance(options, dict) else {}
    servers = options.get("ps_servers")
    return (servers if isinstance(servers, int) and not isinstance(servers, bool) else None,
            options.get("ps_placement"))


def the_row(path, strategy):
    """The one measured train row of `strategy` in the file, and the file's report."""
    report = load([path])
    rows = [r for r in report.train if not r["simulated"]]
    if not rows:
        raise PlotError(f"{path}: no measured train records")
    mine = [r for r in rows if r["strategy"] == strategy]
    if not mine:
        found = ", ".join(sorted({r["strategy"] for r in rows}))
        raise PlotError(f"{path}: no measured {strategy} train record (it has {found})")
    if len(mine) > 1:
        raise PlotError(f"{path}: {len(mine)} {strategy} runs of different workloads or worker "
                        f"counts; the server-hosts figure needs the one run of {LAYOUT}")
    return mine[0], report


def shape(row):
    return (row["model"], row["compute"], row["batch"], row["workers"], row["time_scale"])


def shape_text(s):
    model, compute, batch, workers, scale = s
    return f"{model} ({compute}) batch {batch} at {workers} workers, time scale x{scale:g}"


def read_dir(directory):
    """(ring row, {k: ps row}, simulated ring row or None, {k: simulated ps row}, the strategy
    table of ring.jsonl's report)."""
    if not os.path.isdir(directory):
        raise PlotError(f"{directory}: not a directory (server-hosts reads {LAYOUT})")
    ring_path = os.path.join(directory, "ring.jsonl")
    if not os.path.isfile(ring_path):
        raise PlotError(f"{directory}: no ring.jsonl (the ring-mpi run of {LAYOUT})")
    ps_paths = {int(m.group(1)): os.path.join(directory, name)
                for name in sorted(os.listdir(directory)) for m in [PS_FILE.match(name)] if m}
    if not ps_paths:
        raise PlotError(f"{directory}: no ps-K.jsonl (the ps-zmq runs on K server hosts of {LAYOUT})")
    ring, ring_report = the_row(ring_path, RING)
    want = shape(ring)
    ps = {}
    for k, path in sorted(ps_paths.items()):
        if k < 1:
            raise PlotError(f"{path}: K must be 1 or more (ps-K.jsonl: ps-zmq on K server hosts)")
        row, _ = the_row(path, PS)
        servers, placement = ps_layout(row)
        if placement is not None and placement != "dedicated":
            raise PlotError(f"{row['origin']}: ps-zmq with --ps-placement {placement}; the "
                            "server-hosts figure is of dedicated server hosts")
        if servers is not None and servers != k:
            raise PlotError(f"{row['origin']}: ps-zmq with {servers} server(s), the file name "
                            f"says {k}")
        if shape(row) != want:
            raise PlotError(f"{path}: {shape_text(shape(row))}, but ring.jsonl is "
                            f"{shape_text(want)}")
        ps[k] = row
    sim_ring, sim_ps = None, {}
    sim_path = os.path.join(directory, "simulated.jsonl")
    if os.path.isfile(sim_path):
        rows = [r for r in load([sim_path]).train if r["simulated"]]
        if not rows:
            raise PlotError(f"{sim_path}: no simulated train records (gradsync simulate "
                            "server-hosts --out writes them)")
        for row in rows:
            if row["strategy"] not in (RING, PS) or shape(row)[:4] != want[:4]:
                continue
            if row["strategy"] == RING:
                sim_ring = row
                continue
            servers, placement = ps_layout(row)
            if placement == "dedicated" and servers is not None:
                sim_ps[servers] = row
        if sim_ring is None and not sim_ps:
            found = sorted({shape_text(shape(r)) for r in rows})
            raise PlotError(f"{sim_path}: no simulated {RING} or dedicated {PS} record of the "
                            f"measured runs' {shape_text(want)} (it has {'; '.join(found)})")
        for row in ([sim_ring] if sim_ring else []) + list(sim_ps.values()):
            if row["time_scale"] != want[4]:
                raise PlotError(f"{row['origin']}: simulated at time scale "
                                f"x{row['time_scale']:g}, the measured runs at x{want[4]:g} "
                                f"(gradsync simulate server-hosts --time-scale {want[4]:g})")
    else:
        print(f"gradsync-plots: note: {directory}: no simulated.jsonl, the cost model's lines "
              "left out", file=sys.stderr)
    return ring, ps, sim_ring, sim_ps, ring_report.strategies


def lead_text(value, reference):
    if not reference > 0:
        return ""
    pct = 100.0 * (value / reference - 1)
    return f"{pct:+.0f}%"


def figure(look, ring, ps, sim_ring, sim_ps, outdir):
    from matplotlib.ticker import FixedLocator
    fig, ax = style.new_figure()
    ring_c, ps_c = look.color(RING), look.color(PS)
    ks = sorted(set(ps) | set(sim_ps))
    lo, hi = min(ks) - 0.4, max(ks) + 0.4
    ring_y, ring_err = ring["measured_img_sec"]["mean"], ring["measured_img_sec"]["conf"]
    top = ring_y + ring_err
    ax.axhspan(ring_y - ring_err, ring_y + ring_err, color=ring_c, alpha=0.12, linewidth=0)
    ax.plot([lo, hi], [ring_y, ring_y], color=ring_c, linewidth=1.8,
            label=f"{look.label(RING)}, measured")
    if sim_ring is not None:
        y = sim_ring["measured_img_sec"]["mean"]
        top = max(top, y)
        ax.plot([lo, hi], [y, y], color=ring_c, linewidth=1.6, linestyle="--",
                label=f"{look.label(RING)}, cost model")
    if sim_ps:
        xs = sorted(sim_ps)
        ys = [sim_ps[k]["measured_img_sec"]["mean"] for k in xs]
        top = max([top] + ys)
        ax.plot(xs, ys, color=ps_c, linewidth=1.6, linestyle="--", marker=look.marker(PS),
                markersize=6, markerfacecolor="white", label=f"{look.label(PS)}, cost model")
    xs = [k for k in ks if k in ps]
    ys = [ps[k]["measured_img_sec"]["mean"] for k in xs]
    errs = [ps[k]["measured_img_sec"]["conf"] for k in xs]
    ax.errorbar(xs, ys, yerr=errs, color=ps_c, linewidth=1.8, marker=look.marker(PS),
                markersize=7, capsize=3, label=f"{look.label(PS)}, measured")
    # Each measured point's lead over the measured ring, in a row along the k axis (clear of
    # the lines, which cross anywhere above it).
    along = ax.get_xaxis_transform()
    for x, y, e in zip(xs, ys, errs):
        top = max(top, y + e)
        ax.text(x, 0.03, lead_text(y, ring_y), transform=along, ha="center", va="bottom",
                fontsize=9, color=ps_c, fontweight="bold" if y > ring_y else "normal",
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
    failed = [r for r in [ring] + list(ps.values()) if r["failed"]]
    for r in failed:
        x = lo + 0.1 if r is ring else next(k for k in ps if ps[k] is r)
        ax.plot([x], [r["measured_img_sec"]["mean"]], **style.FAILED)
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_locator(FixedLocator(ks))
    ax.set_ylim(0, top * 1.12 if top > 0 else 1)
    n, scale = ring["workers"], ring["time_scale"]
    ax.set_xlabel(f"dedicated parameter-server hosts k (one {PS} shard each)")
    ax.set_ylabel(f"total images/s of the {n} workers"
                  + (f"\n(as run, at time scale x{scale:g})" if scale != 1 else ""))
    records = [ring] + list(ps.values())
    key = style.workload_key(ring)
    ax.set_title(f"{PS} on k server hosts vs {RING}, {n} workers\n"
                 f"{style.workload_text(key, records)}\n{style.context_text(records)}",
                 fontsize=11)
    handles, labels = ax.get_legend_handles_labels()
    order = [f"{look.label(s)}, {side}" for s in look.order([RING, PS])
             for side in ("measured", "cost model")]
    handles = [h for o in order for h, l in zip(handles, labels) if l == o]
    style.legend_outside(ax, handles + ([style.failed_proxy()] if failed else []))
    ax.annotate(f"+N% along the k axis:\nmeasured {PS} against\nmeasured {RING} (bold:\n"
                f"{PS} ahead); band:\n{RING}'s 1.96-sigma\ninterval", (1.02, 0.0), xycoords="axes fraction", ha="left", va="bottom",
                fontsize=8, color="dimgray")
    model, compute, batch, _ = key
    return style.save(fig, outdir, style.slug("server-hosts", (model, compute, batch, "")))


def plot_dir(directory, outdir):
    ring, ps, sim_ring, sim_ps, strategies = read_dir(directory)
    return figure(style.Look(strategies), ring, ps, sim_ring, sim_ps, outdir)


def add_arguments(p):
    p.add_argument("directory", metavar="DIR",
                   help="the run's directory (ring.jsonl, ps-K.jsonl, simulated.jsonl)")


def table(args):
    """The run's report.md: total img/sec of the workers as run, measured and as the cost
    model has it, and the model's error, for ring-mpi and then ps-zmq per k."""
    ring, ps, sim_ring, sim_ps, _ = read_dir(args.directory)
    out = ["| layout | measured img/sec | cost model | model error |", "|---|---:|---:|---:|"]
    for label, measured, simulated in ([(RING, ring, sim_ring)] +
                                       [(f"{PS}, {k} server host(s)", ps[k], sim_ps.get(k))
                                        for k in sorted(ps)]):
        m = measured["measured_img_sec"]["mean"]
        s = simulated["measured_img_sec"]["mean"] if simulated else None
        model = "-" if s is None else f"{s:.1f}"
        error = "-" if s is None else f"{100 * (s - m) / m:+.0f}%"
        out.append(f"| {label} | {m:.1f} | {model} | {error} |")
    return out
