#!/usr/bin/env bash
# The tables of docs/results/ come from scripts/algorithms.sh through
# scripts/collectives-rounds.sh: a smoke run (QUICK=1, 2 rounds) of the
# small-buffer table must give one row per size and one column per
# strategy, every cell a median with its spread and its ratio, the
# reference's ratio exactly 1 in every row, and every other ratio the median
# of the rounds' own ratios, recomputed here from the runs' records
# (GRADSYNC_ROUNDS_KEEP keeps them). A bad option is one line and exit 2.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GRADSYNC_BUILD_DIR
GRADSYNC_BUILD_DIR=$(dirname "$(dirname "$GRADSYNC")")

GRADSYNC_ROUNDS_KEEP=$tmp/runs QUICK=1 scripts/algorithms.sh small 2 >"$tmp/table.md" 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "algorithms.sh small: exit status"; }
cat "$tmp/table.md"
python3 - "$tmp" <<'PY' || fail "the table is not what the records give"
import glob, json, os, re, statistics, sys
tmp = sys.argv[1]
lines = [l for l in open(os.path.join(tmp, "table.md")) if l.startswith("|")]
head = [c.strip() for c in lines[0].strip("|\n").split("|")]
assert head[0] == "size (B)" and head[-1] == "mpi-allreduce", head
assert "hierarchical-mpi" in head, head
rows = [[c.strip() for c in l.strip("|\n").split("|")] for l in lines[2:]]
assert [r[0] for r in rows] == ["4", "16", "64", "256", "1024", "4096"], [r[0] for r in rows]
cell = re.compile(r"^([0-9.]+) ±([0-9]+)% \(x([0-9.]+)\)$")
# The records of both rounds, in round order: times per (strategy, size).
times = {}
for path in sorted(glob.glob(os.path.join(tmp, "runs", "2.0.*.jsonl"))):
    for line in open(path):
        rec = json.loads(line)
        for row in rec["rows"]:
            times.setdefault((rec["strategy"], row["size_bytes"]), []).append(row["time_us"])
for r in rows:
    size = int(r[0])
    for name, text in zip(head[1:], r[1:]):
        m = cell.match(text)
        assert m, (name, size, text)
        got = times[(name, size)]
        assert len(got) == 2, (name, size, got)
        assert abs(float(m.group(1)) - statistics.median(got)) < 0.006, (name, size, text, got)
        ref = times[("mpi-allreduce", size)]
        want = statistics.median([b / a for a, b in zip(got, ref)])
        assert abs(float(m.group(3)) - want) < 0.006, (name, size, text, want)
    assert r[-1].endswith("(x1.00)"), r
PY

status=0
scripts/collectives-rounds.sh -s bogus -- -b 4 -e 4 >"$tmp/out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "-s bogus: exit $status, want 2"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "unknown cells 'bogus'" "$tmp/out" ||
  fail "-s bogus: $(cat "$tmp/out")"
echo "rounds: the small-buffer table is the records' medians, spreads and per-round ratios"
