#!/usr/bin/env bash
# Does `--fusion-mb auto` find a threshold within 5% of the best fixed one?
# One `gradsync sweep` over fixed thresholds and auto, for two models and two
# strategies, then a table per (model, strategy, workers): the best fixed
# threshold and its img/sec, auto's choice and its img/sec, and the gap.
#
#   scripts/fusion-sweep.sh [OUT]      (default results/fusion-<UTC time>)
#
# Emulated compute (each layer sleeps for its FLOPs' time on the device
# profile), so that the timings are steady on a small machine and the
# communication is real: ResNet-50 (98 MiB of gradients) and VGG-16 (528
# MiB) at batch 32, under ring-mpi and mpi-allreduce, at $WORKERS (default
# 2) workers, fixed thresholds $GRID (default 0,1,4,16,64,256 MiB) and auto;
# throughput from the median step (as `compare` takes it), each
# configuration run $REPEATS (default 2) times and compared by its mean: one
# run of a few steps varies by up to 10% from the next on two shared cores,
# more than neighbouring thresholds differ. Warm-up is 10
# steps: auto's runs come to their timed steps warmed by the search's dozens
# of steps, and a fixed run with too little warm-up measures its cold start
# (VGG-16 at 2 workers with one warm-up step ran at half the rate of auto's
# run at the same threshold, with five at three quarters), which would
# flatter auto. About 8 minutes
# on 2 cores. Environment: MODELS, STRATEGIES, WORKERS, GRID, TRAIN_ARGS;
# QUICK=1 is a smoke test of the script (ResNet-50 and one strategy, three
# thresholds, few steps), not a measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -le 1 ] || { echo "fusion-sweep: usage: scripts/fusion-sweep.sh [OUT]" >&2; exit 2; }
out=${1:-results/fusion-$(date -u +%Y%m%dT%H%M%SZ)}
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
[ -x "$bin" ] || { echo "fusion-sweep: no $bin (scripts/build.sh)" >&2; exit 2; }
models=${MODELS:-resnet50:emulated,vgg16:emulated}
strategies=${STRATEGIES:-ring-mpi,mpi-allreduce}
workers=${WORKERS:-2}
grid=${GRID:-0,1,4,16,64,256}
repeats=${REPEATS:-2}
train_args=${TRAIN_ARGS:-"--batch-size 32 --num-warmup-batches 10 --num-batches-per-iter 3 --num-iters 8"}
if [ "${QUICK:-0}" = 1 ]; then
  models=resnet50:emulated strategies=ring-mpi grid=1,16,64 repeats=1
  train_args="--batch-size 32 --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2"
  search_args="--fusion-search-steps 1"  # auto's runs only: the baseline's sweep has no auto
fi

mkdir -p "$out"
# The baseline at one worker, so that the report shows each threshold's efficiency.
"$bin" sweep --out "$out" --workers 1 --strategy none --models "$models" \
  --train-args "$train_args" >"$out/sweep.txt"
status=0  # a failed run is in the sweep's output; the table is of the others
for ((repeat = 1; repeat <= repeats; repeat++)); do
  rerun=()
  [ "$repeat" = 1 ] || rerun=(--rerun)
  "$bin" sweep --out "$out" --workers "$workers" --strategy "$strategies" --models "$models" \
    --fusion-mb "$grid,auto" --train-args "$train_args${search_args:+ $search_args}" "${rerun[@]}" \
    >>"$out/sweep.txt" || status=$?
done
[ -s "$out/train.jsonl" ] || exit "$status"

python3 - "$out/train.jsonl" <<'PY'
import json, sys
from collections import defaultdict
from statistics import mean
# Per (model, strategy, workers): each fixed threshold's img/sec and auto's,
# a list per repeat; compared by their means over the repeats.
runs = defaultdict(lambda: {"fixed": defaultdict(list), "auto": []})
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r["results"]
    if r.get("correct") is False or not res.get("step_median_s"):
        continue
    img = r["batch_size"] * res["workers"] / res["step_median_s"]
    key = (r["model"], r["strategy"], res["workers"])
    sync = r["sync"]
    if "fusion_search" in sync:
        runs[key]["auto"].append((sync["fusion_mb"], img, sync["fusion_search"]["steps"]))
    else:
        runs[key]["fixed"][sync["fusion_mb"]].append(img)
print("\nAuto against the best fixed threshold: total img/sec from the median step, the mean "
      "over repeats (each repeat's in brackets)\n")
print("| model | strategy | workers | best fixed | img/sec | auto chose | img/sec | search steps | gap |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
within = []
shown = lambda xs: "[" + ", ".join(f"{x:.0f}" for x in xs) + "]" if len(xs) > 1 else ""
for (model, strategy, n), v in sorted(runs.items()):
    if not v["fixed"] or not v["auto"]:
        continue
    best_mb, best = max(v["fixed"].items(), key=lambda kv: mean(kv[1]))
    chose = ", ".join(f"{mb:.4g}" for mb, _, _ in v["auto"])
    auto = [img for _, img, _ in v["auto"]]
    steps = ", ".join(str(s) for _, _, s in v["auto"])
    gap = 100 * (mean(best) - mean(auto)) / mean(best)
    within.append(gap <= 5)
    print(f"| {model} | {strategy} | {n} | {best_mb:g} MiB | {mean(best):.1f} {shown(best)} | "
          f"{chose} MiB | {mean(auto):.1f} {shown(auto)} | {steps} | {gap:+.1f}% |")
print(f"\nauto within 5% of the best fixed threshold: {sum(within)} of {len(within)}")
# Every threshold's mean, a column each, auto last.
mbs = sorted({mb for v in runs.values() for mb in v["fixed"]})
print("\nTotal img/sec at each threshold (MiB), the mean over repeats\n")
print("| model | strategy | workers | " + " | ".join(f"{mb:g}" for mb in mbs) + " | auto |")
print("|---|---|---:|" + "---:|" * (len(mbs) + 1))
for (model, strategy, n), v in sorted(runs.items()):
    if not v["auto"]:
        continue  # the baseline: one run, no threshold of its own
    cells = [f"{mean(v['fixed'][mb]):.1f}" if v["fixed"].get(mb) else "-" for mb in mbs]
    auto = f"{mean(img for _, img, _ in v['auto']):.1f}" if v["auto"] else "-"
    print(f"| {model} | {strategy} | {n} | " + " | ".join(cells) + f" | {auto} |")
PY
exit "$status"
