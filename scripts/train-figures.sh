#!/usr/bin/env bash
# The figures of docs/results/compression.md ("Loss") and async-ps.md
# ("Momentum") that come from `gradsync train` runs rather than from
# collectives, each printed as a Markdown table from the runs' JSON records
# (--out), with whatever counting or ratio the text states done here.
#
#   scripts/train-figures.sh compression|momentum [RUNS]
#
# compression  "Gradient compression": small-cnn trains to the same loss
#              with fp16 and bf16 gradients as with fp32 (2 ranks, ring-mpi,
#              batch 16, lr 0.003, 30 steps, no warm-up): first and last
#              step's loss of each. Deterministic, so one run each; RUNS
#              does not apply. About 10 seconds on 2 cores.
# momentum     "Momentum." of the asynchronous parameter servers: at
#              momentum $MOMENTUM (default 0.9, gradsync's default) async
#              ps-zmq with 4 workers to target loss 0.2 (small-cnn, batch
#              16, 100 steps per worker, as the async table's runs), RUNS
#              runs (default 4) after one ring-mpi run (synchronous, the
#              same every time): samples to the target relative to ring-mpi,
#              and how many runs diverged (no target, ended at or above 90%
#              of the chance loss ln 10 = 2.30, or not finite). About
#              10 seconds a run on 2 cores: under a minute at 4 runs.
#
# QUICK=1 is a smoke test of the script, not the figure: 10 steps
# (compression) or 10 steps per worker (momentum).
# GRADSYNC_BUILD_DIR picks the build (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/train-figures.sh compression|momentum [RUNS]"
if [ $# -lt 1 ] || [ $# -gt 2 ]; then echo "train-figures: $usage" >&2; exit 2; fi
mode=$1 runs=${2:-4} quick=${QUICK:-0} momentum=${MOMENTUM:-0.9}
case $mode in compression | momentum) ;; *) echo "train-figures: unknown mode '$mode' (known: compression, momentum)" >&2; exit 2 ;; esac
case $runs in '' | *[!0-9]* | 0) echo "train-figures: RUNS must be a positive whole number (got '$runs')" >&2; exit 2 ;; esac
case $quick in 0 | 1) ;; *) echo "train-figures: QUICK must be 0 or 1 (got '$quick')" >&2; exit 2 ;; esac
[[ $momentum =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "train-figures: MOMENTUM must be a number (got '$momentum')" >&2; exit 2; }
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
[ -x "$bin" ] || scripts/build.sh >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# train NAME RANKS ARGS...: one run, its record appended to $tmp/NAME.jsonl.
# A run that ends with a non-finite loss exits non-zero after writing its
# record (the record says `nonfinite`), which counts as a result here.
train() {
  local name=$1 ranks=$2 before=0 after
  shift 2
  [ ! -f "$tmp/$name.jsonl" ] || before=$(wc -l <"$tmp/$name.jsonl")
  if ! scripts/mpirun.sh -np "$ranks" "$bin" train "$@" --out "$tmp/$name.jsonl" >"$tmp/log" 2>&1; then
    after=$([ -f "$tmp/$name.jsonl" ] && wc -l <"$tmp/$name.jsonl" || echo 0)
    if [ "$after" -le "$before" ] || ! tail -n 1 "$tmp/$name.jsonl" | grep -q '"nonfinite"'; then
      tail -n 20 "$tmp/log" >&2
      echo "train-figures: the $name run failed (above)" >&2
      exit 1
    fi
  fi
}

case $mode in
compression)
  steps=3
  [ "$quick" = 0 ] || steps=1
  for format in none fp16 bf16; do
    train compression 2 --model small-cnn --batch-size 16 --num-warmup-batches 0 \
      --num-batches-per-iter 10 --num-iters "$steps" --strategy ring-mpi --lr 0.003 \
      --compression "$format"
  done
  python3 - "$tmp/compression.jsonl" <<'PY'
import json, math, sys
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
r0 = records[0]
steps = r0["results"]["timed_steps"]
print(f"\n{r0['model']}, {r0['workers']} ranks, {r0['strategy']}, batch {r0['batch_size']}, "
      f"lr {r0['sgd']['base_lr']:g}, {steps} steps: loss by gradient format "
      f"(chance: ln 10 = {math.log(10):.2f})\n")
print("| gradients | first step | last step |")
print("|---|---:|---:|")
for r in records:
    c = r["strategy_options"]["compression"]
    res = r["results"]
    print(f"| {'fp32' if c == 'none' else c} | {res['first_loss']:.6f} | {res['last_loss']:.6f} |")
PY
  ;;
momentum)
  iters=10
  [ "$quick" = 0 ] || iters=1
  common=(--model small-cnn --batch-size 16 --num-warmup-batches 0 --num-batches-per-iter 10 --num-iters "$iters"
    --momentum "$momentum" --target-loss 0.2)
  train reference 4 "${common[@]}" --strategy ring-mpi
  for ((run = 1; run <= runs; ++run)); do
    train async 4 "${common[@]}" --strategy ps-zmq --ps-mode async
  done
  python3 - "$tmp/reference.jsonl" "$tmp/async.jsonl" <<'PY'
import json, math, sys
ref, *runs = [json.loads(line) for name in sys.argv[1:] for line in open(name) if line.strip()]
chance = math.log(10)

def target(r):
    return r["results"].get("time_to_target") or {}

def diverged(r):
    last = r["results"].get("last_loss")
    return bool(r.get("nonfinite")) or last is None or not math.isfinite(last) or last >= 0.9 * chance

base = target(ref).get("samples")
t = target(ref)
print(f"\n{ref['model']}, {ref['workers']} workers, batch {ref['batch_size']}, momentum "
      f"{ref['sgd']['momentum']:g}, target loss {t.get('target_loss'):g}: samples to the target, "
      f"async ps-zmq against ring-mpi ({len(runs)} run{'s' if len(runs) > 1 else ''})\n")
print("| run | strategy | samples to target | x ring-mpi | loss at the last step |")
print("|---|---|---:|---:|---:|")

def row(name, r):
    t = target(r)
    last = r["results"].get("last_loss")
    loss = "not finite" if last is None or not math.isfinite(last) else f"{last:.2f}"
    mode = r["strategy_options"].get("ps_mode", "sync")
    strategy = r["strategy"] + ("" if mode == "sync" else " " + mode)
    if t.get("reached"):
        samples, x = str(t["samples"]), f"{t['samples'] / base:.1f}" if base else "-"
    else:
        samples, x = "diverged" if diverged(r) else "not reached", "-"
    print(f"| {name} | {strategy} | {samples} | {x} | {loss} |")

row("-", ref)
for i, r in enumerate(runs, 1):
    row(str(i), r)
reached = [target(r)["samples"] / base for r in runs if target(r).get("reached") and base]
gone = sum(1 for r in runs if not target(r).get("reached") and diverged(r))
stuck = sum(1 for r in runs if not target(r).get("reached") and not diverged(r))
print(f"\n{gone} of {len(runs)} diverged (ended at or near the chance loss {chance:.2f})"
      + (f", {stuck} did not reach the target without diverging" if stuck else "")
      + (f"; the others needed {', '.join(f'{x:.1f}x' for x in sorted(reached))} the samples of ring-mpi"
         if reached else "") + ".")
PY
  ;;
esac
