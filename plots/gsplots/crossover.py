"""Which strategy the cost model finds fastest, over workers and inter-node bandwidth.

Reads the one JSON document `gradsync simulate crossover --map FILE.json` writes
(not JSON Lines, and not through `gradsync report`: the cost model computed
every cell already):

  {"schema": "gradsync.crossover", "schema_version": 1, "model": ..., "batch_size": ...,
   "cluster": ..., "strategies": [{"name", "index", "role"}, ...],
   "workers": [...], "inter_bandwidths_bits_per_s": [...],
   "cells": [{"workers", "inter_bandwidth_bits_per_s", "fastest", "runner_up", "margin",
              "img_sec": {strategy: img/sec}}, ...]}

with margin = fastest / runner_up - 1 (runner_up and margin null when only one
strategy was simulated). The map has one column per worker count (log2
spaced, drawn as equal columns), one row per bandwidth (Gbit/s, lowest at the
bottom); each cell is filled with the fastest strategy's colour (by its index,
as in every figure) and says its lead over the runner-up, "+12%", in bold when
it exceeds 10%. The document is checked before anything is drawn: another
schema or version, a missing key, a cell naming a strategy the document does
not list, a cell off the grid, twice, or a grid cell without one is an error
naming the file.
"""
import json
import math

from . import style
from .report import PlotError

SCHEMA = "gradsync.crossover"
KNOWN_VERSIONS = (1,)
BOLD_ABOVE = 0.10  # a lead above this is drawn bold


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


def read(path):
    """The checked document; PlotError naming the file on anything wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise PlotError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise PlotError(f"{path}: not valid JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}:{e.lineno}: not valid JSON ({e.msg}); crossover reads the one "
                        f"{SCHEMA} document `gradsync simulate crossover --map` writes") from None
    check(path, doc)
    return doc


def need(path, obj, key, ok, what, where=""):
    if key not in obj:
        raise PlotError(f"{path}: {where}missing key \"{key}\"")
    if not ok(obj[key]):
        raise PlotError(f"{path}: {where}\"{key}\" is not {what}")
    return obj[key]


def positive_list(v, element):
    return isinstance(v, list) and v and all(element(x) and x > 0 for x in v) and \
        len(set(v)) == len(v)


def check(path, doc):
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise PlotError(f"{path}: not a {SCHEMA} document (its \"schema\" is "
                        f"{doc.get('schema') if isinstance(doc, dict) else None!r})")
    if doc.get("schema_version") not in KNOWN_VERSIONS or isinstance(doc.get("schema_version"), bool):
        raise PlotError(f"{path}: {SCHEMA} schema_version {doc.get('schema_version')!r}, this "
                        f"reader knows {', '.join(map(str, KNOWN_VERSIONS))}")
    need(path, doc, "model", lambda v: isinstance(v, str) and v, "a name")
    need(path, doc, "batch_size", lambda v: is_int(v) and v > 0, "a positive whole number")
    need(path, doc, "cluster", lambda v: isinstance(v, str), "a text")
    strategies = need(path, doc, "strategies", lambda v: isinstance(v, list) and v,
                      "a non-empty list")
    for i, s in enumerate(strategies):
        where = f"strategies[{i}]: "
        if not isinstance(s, dict):
            raise PlotError(f"{path}: {where}not an object")
        need(path, s, "name", lambda v: isinstance(v, str) and v, "a name", where)
        need(path, s, "index", lambda v: is_int(v) and v >= 0, "an index (0 or more)", where)
        need(path, s, "role", lambda v: isinstance(v, str), "a text", where)
    names = {s["name"] for s in strategies}
    workers = need(path, doc, "workers", lambda v: positive_list(v, is_int),
                   "a list of distinct positive worker counts")
    bandwidths = need(path, doc, "inter_bandwidths_bits_per_s",
                      lambda v: positive_list(v, is_number), "a list of distinct positive bit rates")
    cells = need(path, doc, "cells", lambda v: isinstance(v, list), "a list")
    seen = set()
    for i, c in enumerate(cells):
        where = f"cells[{i}]: "
        if not isinstance(c, dict):
            raise PlotError(f"{path}: {where}not an object")
        n = need(path, c, "workers", is_int, "a worker count", where)
        bw = need(path, c, "inter_bandwidth_bits_per_s", is_number, "a bit rate", where)
        if n not in workers or bw not in bandwidths:
            raise PlotError(f"{path}: {where}{n} workers at {gbit(bw)} Gbit/s is not on the grid "
                            "(\"workers\" x \"inter_bandwidths_bits_per_s\")")
        if (n, bw) in seen:
            raise PlotError(f"{path}: {where}a second cell for {n} workers at {gbit(bw)} Gbit/s")
        seen.add((n, bw))
        for key in ("fastest", "runner_up"):
            if key not in c:
                raise PlotError(f"{path}: {where}missing key \"{key}\"")
            if (c[key] is not None or key == "fastest") and c[key] not in names:
                raise PlotError(f"{path}: {where}{key} {c[key]!r} is not one of the document's "
                                f"strategies ({', '.join(sorted(names))})")
        margin = need(path, c, "margin", lambda v: v is None or (is_number(v) and v >= 0),
                      "null or a number of 0 or more", where)
        if (margin is None) != (c["runner_up"] is None):
            raise PlotError(f"{path}: {where}runner_up and margin must both be null (one strategy) "
                            "or both be set")
        img_sec = c.get("img_sec", {})
        if not isinstance(img_sec, dict) or any(k not in names for k in img_sec):
            raise PlotError(f"{path}: {where}img_sec names a strategy not in \"strategies\"")
    missing = [(n, bw) for n in workers for bw in bandwidths if (n, bw) not in seen]
    if missing:
        n, bw = missing[0]
        raise PlotError(f"{path}: the grid lacks {len(missing)} of its {len(workers) * len(bandwidths)} "
                        f"cells, the first {n} workers at {gbit(bw)} Gbit/s")


def gbit(bits_per_s):
    return f"{bits_per_s / 1e9:g}"


def lead_text(margin):
    """'+12%' (whole percent), '+0.4%' below one percent; '' when there is no runner-up."""
    if margin is None:
        return ""
    pct = 100.0 * margin
    return f"+{pct:.1f}%" if pct < 0.95 else f"+{pct:.0f}%"


def text_color(fill):
    """Black or white, whichever reads better on `fill`."""
    from matplotlib.colors import to_rgb
    r, g, b = to_rgb(fill)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def title_text(doc):
    subject = f"{doc['model']} batch {doc['batch_size']}"
    cluster = doc["cluster"]
    head = "Fastest strategy (simulated): "
    if not cluster:
        return head + subject
    # On one line when it fits the figure, else the cluster goes below.
    sep = ", " if len(head + subject + cluster) <= 70 else ",\n"
    return f"{head}{subject}{sep}{cluster}"


def draw(doc, outdir, name):
    from matplotlib.patches import Patch, Rectangle
    look = style.Look(doc["strategies"])
    workers = sorted(doc["workers"])
    bandwidths = sorted(doc["inter_bandwidths_bits_per_s"])
    fig, ax = style.new_figure()
    ax.grid(False)
    size = 9 if len(workers) <= 12 else 7
    winners = set()
    for c in doc["cells"]:
        x, y = workers.index(c["workers"]), bandwidths.index(c["inter_bandwidth_bits_per_s"])
        fill = look.color(c["fastest"])
        winners.add(c["fastest"])
        ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=fill, edgecolor="white",
                               linewidth=1.5))
        margin = c["margin"]
        ax.text(x, y, lead_text(margin), ha="center", va="center", fontsize=size,
                color=text_color(fill),
                fontweight="bold" if margin is not None and margin > BOLD_ABOVE else "normal")
    ax.set_xlim(-0.5, len(workers) - 0.5)
    ax.set_ylim(-0.5, len(bandwidths) - 0.5)
    ax.set_xticks(range(len(workers)), [str(n) for n in workers])
    ax.set_yticks(range(len(bandwidths)), [gbit(b) for b in bandwidths])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xlabel("workers (one column per count, log2 spaced)")
    ax.set_ylabel("inter-node bandwidth (Gbit/s)")
    ax.set_title(title_text(doc), fontsize=11)
    handles = [Patch(facecolor=look.color(s), label=look.label(s)) for s in look.order(winners)]
    style.legend_outside(ax, handles, title="fastest", title_fontsize=9, alignment="left")
    ax.annotate(f"+N%: lead over\nthe runner-up\n(bold above {BOLD_ABOVE:.0%})", (1.02, 0.0),
                xycoords="axes fraction", ha="left", va="bottom", fontsize=8, color="dimgray")
    return style.save(fig, outdir, name)


def plot_file(path, outdir):
    """Checks the document at `path`, then draws its map; returns the paths written."""
    doc = read(path)
    name = "-".join(style.name_part(p) for p in ("crossover", doc["model"], f"b{doc['batch_size']}"))
    return draw(doc, outdir, name)
