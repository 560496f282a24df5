#!/usr/bin/env bash
# How `gradsync report` scales with the number of records: writes N valid
# records (default 1,000,000) of mixed configurations into one result file,
# then reports it (markdown, then --format json) under /usr/bin/time -v and
# prints the wall time and peak resident memory of each:
#
#   bench/report-scale.sh [N] [DIR]
#
# The records are the committed reference runs (results/reference/train.jsonl,
# tests/fixtures/collectives.jsonl) with the model, worker count, throughput
# and step times varied: 9 in 10 train records over 4 models x 5 strategies x
# 7 worker counts (140 configurations), 1 in 10 collectives records over
# 3 strategies x 7 worker counts. Report streams its records and holds a run
# per configuration, so its memory stays flat as N grows; the time grows
# linearly (the parse of each line). DIR (default a temporary directory,
# removed after) keeps the file when given. GRADSYNC (default
# build/bin/gradsync) is the binary measured.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
bin=${GRADSYNC:-build/bin/gradsync}
[ -x "$bin" ] || { echo "report-scale: error: no $bin (scripts/build.sh gradsync)" >&2; exit 2; }
if [ -n "${2:-}" ]; then
  dir=$2; mkdir -p "$dir"
else
  dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fi
file=$dir/records.jsonl

/usr/bin/python3 - "$n" "$file" <<'EOF'
import json, sys

n, path = int(sys.argv[1]), sys.argv[2]
train = [json.loads(line) for line in open("results/reference/train.jsonl")]
collectives = [json.loads(line) for line in open("tests/fixtures/collectives.jsonl")]
models = ["resnet50", "vgg16", "resnet101", "inception3"]
workers = [1, 2, 4, 8, 16, 32, 64]

def train_template(record, model, w):
    r = json.loads(json.dumps(record))
    r["model"], r["workers"], r["ranks"] = model, w, w
    r["results"]["workers"] = w
    r["results"]["img_sec_per_worker"] = [r["results"]["img_sec_mean"]] * w
    r["results"]["img_sec_mean"] = "@IMG@"
    r["results"]["step_median_s"] = "@STEP@"
    return json.dumps(r, separators=(",", ":"))

def collectives_template(record, w):
    r = json.loads(json.dumps(record))
    r["workers"] = w
    r["rows"][0]["time_us"] = "@TIME@"
    return json.dumps(r, separators=(",", ":"))

trains = [train_template(r, m, w) for r in train for m in models for w in workers]
colls = [collectives_template(r, w) for r in collectives[:3] for w in workers]
with open(path, "w") as out:
    for i in range(n):
        jitter = 1 + (i % 97) / 1000
        if i % 10 == 9:
            line = colls[i // 10 % len(colls)].replace('"@TIME@"', f"{100 * jitter:.3f}")
        else:
            line = (trains[i % len(trains)].replace('"@IMG@"', f"{300 / jitter:.4f}")
                    .replace('"@STEP@"', f"{0.2 * jitter:.6f}"))
        out.write(line + "\n")
EOF
echo "report-scale: $n records, $(du -h "$file" | cut -f1) in $file"

measure() {
  local what=$1; shift
  /usr/bin/time -v "$bin" report "$@" "$file" >"$dir/out.txt" 2>"$dir/time.txt" ||
    { cat "$dir/time.txt" >&2; exit 1; }
  awk -v what="$what" -F': ' '
    /Elapsed \(wall clock\)/ { wall = $2 }
    /Maximum resident set size/ { rss = $2 }
    END { printf "report-scale: %-14s wall %s, peak RSS %.1f MiB\n", what, wall, rss / 1024 }' \
    "$dir/time.txt"
}
measure "markdown"
measure "--format json" --format json
