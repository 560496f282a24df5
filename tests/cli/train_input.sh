#!/usr/bin/env bash
# `gradsync train --input` end to end on the small CNN (emulated), with an input stage
# that bounds the step (decode:4ms per image, one loader thread, batch 8:
# 32 ms of loader CPU per step against emulated compute of 0.1 ms), at 1 and 2
# workers: the printed input line and the record's input object are there,
# the exposed input is most of the step (at 2 workers with the wait for the
# other worker's input, which the allreduce absorbs), and the throughput stays under the
# loader's physical capacity. That bound is correctness, not speed: with
# prefetch P, an iteration of I steps starts with at most P batches made, and
# every other batch needs B / T images of decode CPU time on each of its T
# threads after its step asks for batch s - P, so img/sec per worker <=
# T / stated image time x I / (I - P). The report names the workload with its
# input label and takes its efficiency against `none` with the same stage;
# a malformed --input is one line and exit 2.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

iters=8 prefetch=2 image_s=0.004 threads=1
# Emulated compute at a rate that makes the step's own time negligible, so
# that the input is most of the step however loaded the machine is (real
# CPU compute on a busy machine had hidden it).
run=(train --model small-cnn --compute emulated --emulate-img-per-sec 100000 --batch-size 8
  --num-warmup-batches 1 --num-batches-per-iter "$iters"
  --num-iters 2 --input decode:4ms --input-threads "$threads" --input-prefetch "$prefetch"
  --out "$tmp/train.jsonl")
for np in 1 2; do
  strategy=$([ "$np" = 1 ] && echo none || echo ring-mpi)
  "$MPIRUN" -np "$np" "$GRADSYNC" "${run[@]}" --strategy "$strategy" >"$tmp/out$np" 2>&1 ||
    { cat "$tmp/out$np"; fail "train --input at $np worker(s): exit status"; }
  grep -qE '^Input decode:4ms, 1 loader thread\(s\) per worker, prefetch 2: loader [0-9.]+ ms per image, [0-9.]+ ms per batch of 8; capacity [0-9.]+ img/sec per worker \(threads / loader time per image\); exposed input [0-9.]+ s per step \([0-9.]+% of the step\)$' \
    "$tmp/out$np" || { cat "$tmp/out$np"; fail "no input line at $np worker(s)"; }
  grep -qF "Parameters identical on all workers: " "$tmp/out$np" || fail "no parameter check"
done

# The record's input object, its share, and the bound (see the top).
"$python" - "$tmp/train.jsonl" "$iters" "$prefetch" "$image_s" "$threads" <<'PY' || fail "records"
import json, sys
path, iters, prefetch, image_s, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
records = [json.loads(line) for line in open(path)]
assert len(records) == 2, len(records)
bound = threads / image_s * iters / (iters - prefetch)
for r in records:
    i = r["input"]
    for field in ("loader_s_per_image", "loader_s_per_batch", "capacity_img_sec", "wait_s", "wait_share"):
        assert isinstance(i[field], float) and i[field] > 0, (field, i)
    assert (i["spec"], i["threads"], i["prefetch"]) == ("decode:4ms", threads, prefetch), i
    # decode's CPU work per image is a floor of its loader time.
    assert i["loader_s_per_image"] >= image_s, i
    # One worker waits for its input alone; of two, the one whose batch came
    # first waits for the other's in the allreduce, so there the input shows
    # as input wait plus exposed communication.
    waiting = i["wait_share"] + (r["results"]["exposed_comm_share"] if r["workers"] > 1 else 0)
    assert waiting > 0.5, f"input is not most of the step at {r['workers']} worker(s): {i}, {r['results']}"
    mean = r["results"]["img_sec_mean"]
    assert mean <= bound, f"{mean} img/sec per worker beyond the loader's {bound}"
    assert r["context"]["config"]["--input"] == "decode:4ms", r["context"]["config"]
print("records ok")
PY

# The report names the workload with its input stage, and ring-mpi's
# efficiency comes from `none` with the same stage (a baseline it found).
"$GRADSYNC" report "$tmp/train.jsonl" >"$tmp/report" 2>&1 || { cat "$tmp/report"; fail "report"; }
grep -qF "input decode:4ms x1 thread prefetch 2" "$tmp/report" ||
  { cat "$tmp/report"; fail "report does not name the input stage"; }
"$GRADSYNC" report --format json "$tmp/train.jsonl" >"$tmp/report.json" || fail "report --format json"
"$python" - "$tmp/report.json" <<'PY' || fail "report json"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["train"] if r["strategy"] == "ring-mpi"]
assert rows and rows[0]["efficiency"] is not None, rows
assert rows[0]["breakdown"]["input_wait_s"] > 0, rows[0]["breakdown"]
PY

# A malformed stage: one line naming it, exit 2, before any rank trains.
for bad in "decode:4" "read:1M" "jpeg:0" "gzip"; do
  set +e
  "$GRADSYNC" train --input "$bad" >"$tmp/bad" 2>&1
  status=$?
  set -e
  [ "$status" = 2 ] || { cat "$tmp/bad"; fail "--input $bad: exit $status, not 2"; }
  [ "$(wc -l <"$tmp/bad")" = 1 ] && grep -qF "malformed --input '$bad'" "$tmp/bad" ||
    { cat "$tmp/bad"; fail "--input $bad: not one line naming it"; }
done
echo "train --input: ok"
