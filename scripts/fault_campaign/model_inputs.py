"""The cost model's input files as the fault: a cluster file or a published
scaling table with one bad field, drawn from a family (zero, negative,
fractional, non-finite or huge numbers, a missing key, trailing garbage after
the JSON document, a row with gpus_per_node 0, an efficiency of 500%), given
to `gradsync simulate`. It must refuse in one line that names the file and
the key or the row, exit non-zero without a crash signal, print no nan and
write nothing to --out."""
import json
import os
import re
import subprocess
import time

from . import REPO
from .judge import ERROR_PREFIX, read_results

CLUSTER = os.path.join(REPO, "results", "reference", "clusters", "horovod-p100-roce25.json")
PUBLISHED = os.path.join(REPO, "results", "reference", "published-scaling.csv")
MISSING = "missing"
GARBAGE = "trailing garbage"
# Each field and the values it must refuse. 1e999 is JSON's way to infinity.
CLUSTER_FAULTS = [
    ("nodes", [0, -2, 2.5, 1e300, MISSING]),
    ("workers_per_node", [0, -1, 0.5, 1e12, MISSING]),
    ("inter.bandwidth_bits_per_s.value", [0, -1e9, "1e999", MISSING]),
    ("intra.latency_s.value", [-1e-6, "1e999"]),
    ("per_message_s.value", [-5e-6, "1e999"]),
    ("reduce_bytes_per_s.value", [0, -1, "1e999", MISSING]),
    ("", [GARBAGE]),
]
PUBLISHED_FAULTS = [
    ("gpus", ["0", "-16", "2.5", "1e300"]),
    ("gpus_per_node", ["0"]),
    ("batch_per_gpu", ["0", "-64"]),
    ("single_gpu_img_per_sec", ["nan", "-134.4", "inf"]),
    ("efficiency_pct", ["500", "-5", "nan"]),
    ("gpus_per_node", [MISSING]),
]
COMMANDS = {"cluster": ["project", "published"], "published": ["published"]}


class BadFile:
    """One drawn bad file: which (cluster, published), the key, the value, the
    data row (published), and the simulate mode given it."""

    def __init__(self, target, key, value, row, mode):
        self.target, self.key, self.value, self.row, self.mode = target, key, value, row, mode

    def describe(self):
        if self.value == GARBAGE:
            return f"simulate {self.mode}, garbage after the JSON document"
        where = f"row {self.row + 1} " if self.row is not None and self.value != MISSING else ""
        what = self.value if self.value in (MISSING, GARBAGE) else f"= {self.value}"
        return f"simulate {self.mode}, {where}{self.key or 'the document'} {what}".replace("  ", " ")

    def write(self, work):
        """Writes the bad file into work; returns its path."""
        if self.target == "cluster":
            path = os.path.join(work, "bad-cluster.json")
            with open(path, "w") as f:
                f.write(bad_cluster(self.key, self.value))
        else:
            path = os.path.join(work, "bad-published.csv")
            with open(path, "w") as f:
                f.write(bad_table(self.key, self.value, self.row))
        return path


def draw_bad_file(rng):
    target = rng.choice(["cluster", "published"])
    key, values = rng.choice(CLUSTER_FAULTS if target == "cluster" else PUBLISHED_FAULTS)
    value = rng.choice(values)
    row = rng.randrange(len(table_rows()[1])) if target == "published" else None
    return BadFile(target, key, value, row, rng.choice(COMMANDS[target]))


def bad_cluster(key, value):
    """The reference cluster file with `key` (dotted) set to value or removed,
    or with garbage after the document."""
    with open(CLUSTER) as f:
        text = f.read()
    if value == GARBAGE:
        return text.rstrip() + '\n{"nodes": 4}\n'
    doc = json.loads(text)
    *parents, leaf = key.split(".")
    if leaf == "value" and value == MISSING:  # the whole field goes, not its value alone
        *parents, leaf = parents
    node = doc
    for name in parents:
        node = node[name]
    if value == MISSING:
        del node[leaf]
        return json.dumps(doc, indent=1)
    node[leaf] = "@BAD@"
    return json.dumps(doc, indent=1).replace('"@BAD@"', str(value))


def bad_line(bad):
    """The line of the bad file that holds the bad value (1-based), or None."""
    if bad.value in (MISSING, GARBAGE):
        return None
    if bad.target == "published":
        return len(table_rows()[0]) + bad.row + 1
    marked = bad_cluster(bad.key, "@MARK@").splitlines()
    return next(i + 1 for i, line in enumerate(marked) if "@MARK@" in line)


def table_rows():
    """The published table: (its lines up to and with the header, its data rows)."""
    with open(PUBLISHED) as f:
        lines = f.read().splitlines()
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    return lines[:header + 1], lines[header + 1:]


def bad_table(column, value, row):
    """The published table with `column` of data row `row` set to value, or the
    column gone from every row."""
    head, rows = table_rows()
    columns = head[-1].split(",")
    at = columns.index(column)
    cells = [r.split(",") for r in rows]
    if value == MISSING:
        head[-1] = ",".join(c for i, c in enumerate(columns) if i != at)
        cells = [[c for i, c in enumerate(r) if i != at] for r in cells]
    else:
        cells[row][at] = value
    return "\n".join(head + [",".join(r) for r in cells]) + "\n"


def simulate_argv(bad, path, gradsync, out):
    cluster = path if bad.target == "cluster" else CLUSTER
    if bad.mode == "project":
        return [gradsync, "simulate", "project", "--cluster", cluster, "--model", "resnet50",
                "--workers", "1-64", "--out", out]
    table = path if bad.target == "published" else PUBLISHED
    return [gradsync, "simulate", "published", table, "--cluster", cluster, "--out", out]


def judge_bad_file(run, gradsync, work):
    """Runs simulate on the run's bad file; its verdict (the campaign's columns)."""
    bad = run.variant
    path, out = bad.write(work), os.path.join(work, "simulated.jsonl")
    started = time.monotonic()
    try:
        done = subprocess.run(simulate_argv(bad, path, gradsync, out), capture_output=True,
                              text=True, timeout=60)
        status, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        status, stdout, stderr = 124, e.stdout or "", e.stderr or ""
        stdout, stderr = [t.decode() if isinstance(t, bytes) else t for t in (stdout, stderr)]
    elapsed = time.monotonic() - started
    lines = [l for l in stderr.splitlines() if l.startswith(ERROR_PREFIX)]
    torn = read_results(out, b"")[2]
    v = {"run": run.index, "kind": run.kind, "when": run.when, "strategy": run.strategy,
         "ranks": 1, "subcommand": f"simulate {bad.mode}", "exit": status, "errors": lines,
         "elapsed_s": round(elapsed, 2), "file": bad.target, "key": bad.key, "value": str(bad.value)}
    if bad.row is not None:
        v["row"] = bad.row + 1
    nan = bool(re.search(r"\bnan\b", stdout, re.IGNORECASE))
    if nan:
        v["nan_in_stdout"] = True
    v["in_time"] = 0 < status < 124 and elapsed <= run.timeout + 5
    v["one_line"] = len(lines) == 1 and names_the_place(bad, path, lines[0])
    written = os.path.exists(out) and os.path.getsize(out) > 0
    v["nothing_wrong"] = not written and not nan
    v["not_torn"] = not torn
    v["none_left"] = True  # one process, ended
    v["pass"] = all(v[k] for k in ("in_time", "one_line", "nothing_wrong", "not_torn", "none_left"))
    if not v["pass"]:
        v["stderr"] = stderr[-3000:]
    return v


def names_the_place(bad, path, line):
    """Whether the line names the file and the key (its last name that is not
    `value`) or the bad value's line in the file (or, in the published table,
    its row)."""
    if os.path.basename(path) not in line:
        return False
    if bad.value == GARBAGE:
        return True
    names = [n for n in bad.key.split(".") if n != "value"]
    if names and re.search(rf"\b{re.escape(names[-1])}\b", line):
        return True
    at = bad_line(bad)
    rows = rf"|\brow {bad.row + 1}\b" if bad.row is not None else ""
    return at is not None and bool(re.search(rf"(:{at}\b|\bline {at}\b{rows})", line))
