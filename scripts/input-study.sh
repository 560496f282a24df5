#!/usr/bin/env bash
# When does the input pipeline bound scaling? One run on this host, the page
# docs/results/input-pipeline.md:
#
#   scripts/input-study.sh [OUT]      (default results/input-<UTC time>)
#
# 1. `gradsync sweep`: ResNet-50 on emulated compute (the layers sleep their
#    device time, so the host's cores are free for the loaders, as a GPU
#    node's are) at $RATE img/sec per worker, batch 32, 1, 2 and 4 workers
#    (workers per node: this host is the node), under none, ring-mpi and
#    ps-zmq, with free synthetic input and with $INPUT (default decode:4ms,
#    one loader thread per worker: 128 ms of CPU per batch against a 160 ms
#    step, so one core per worker hides it and half a core does not);
# 2. one `train --input jpeg` at 1 worker: what a real decode of the
#    suite's 224x224 images costs per image on this host;
# 3. collectives of ring-mpi and ps-zmq at 2 and 4 ranks, `calibrate` (which
#    records this host's cores as the cluster's host_cores), and `simulate
#    validate` of every run of step 1: measured against the model;
# 4. the model beyond this host: a node of 1 to 8 A100-profile GPUs with
#    32, 64 or 128 cores, with and without an input stage (below);
# 5. `gradsync report` over the measured runs and the figures
#    (scripts/plots.sh input: the measured runs with their simulated twins,
#    and the projections; breakdown).
# About 5 minutes on 2 cores. QUICK=1 is a smoke test of the script (few
# steps, 1 and 2 workers, small collectives), not the page's figures.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -le 1 ] || { echo "input-study: usage: scripts/input-study.sh [OUT]" >&2; exit 2; }
out=${1:-results/input-$(date -u +%Y%m%dT%H%M%SZ)}
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
[ -x "$bin" ] || { echo "input-study: no $bin (scripts/build.sh)" >&2; exit 2; }
rate=${RATE:-200}
input=${INPUT:-decode:4ms}
workers=1,2,4 np=(2 4)
train="--emulate-img-per-sec $rate --num-warmup-batches 3 --num-batches-per-iter 4 --num-iters 3"
sizes=(-b 256K -e 64M)
if [ "${QUICK:-0}" = 1 ]; then
  workers=1,2
  train="--emulate-img-per-sec $rate --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2"
  sizes=(-b 256K -e 8M)
fi
mkdir -p "$out"
started=$SECONDS
"$bin" sweep --out "$out" --workers "$workers" --models resnet50:emulated \
  --strategy none,ring-mpi,ps-zmq --input "synthetic,$input" --train-args "$train" >"$out/sweep.txt"
echo "input-study: sweep: $((SECONDS - started)) s" >&2

# What a real decode costs here: the loader's time per image, from its record.
"$bin" train --model resnet50 --compute emulated --strategy none --input jpeg $train \
  --out "$out/jpeg.jsonl" >"$out/jpeg.txt"
jpeg_ms=$(python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print("%.3f" % (1e3 * r["input"]["loader_s_per_image"]))' "$out/jpeg.jsonl")
echo "input-study: jpeg decode: $jpeg_ms ms per image" >&2

started=$SECONDS
for p in "${np[@]}"; do
  scripts/mpirun.sh -np "$p" "$bin" collectives "${sizes[@]}" -f 4 -n 3 -w 1 \
    --strategy ring-mpi,ps-zmq --ps-curve off --json "$out/collectives.jsonl" >>"$out/collectives.txt"
done
"$bin" calibrate "$out/collectives.jsonl" -o "$out/cluster.json" --name this-host >"$out/calibrate.txt"
"$bin" simulate validate --cluster "$out/cluster.json" "$out/train.jsonl" \
  --out "$out/twins.jsonl" >"$out/validate.txt"
echo "input-study: calibration and validation: $((SECONDS - started)) s" >&2

# The model beyond this host: a node of 1 to 8 A100-profile GPUs (batch
# 256, the profile's source's batch) on Horovod's published links, each GPU
# with 12 loader threads decoding at $SCALE_INPUT (default decode:4ms, an
# assumed cost of an ImageNet JPEG's decode and crop on one core, not
# measured here), the node's cores 32, 64 or 128 (a DGX A100's two 64-core
# CPUs), with and without the stage; and the same with this host's measured
# jpeg decode.
scale_input=${SCALE_INPUT:-decode:4ms}
project=("$bin" simulate project --cluster results/reference/clusters/horovod-p100-roce25.json
  --model resnet50 --device a100 --batch-size 256 --strategy nccl-ring --workers 1,2,4,8
  --workers-per-node 8)
for cores in 32 64 128; do
  for stage in synthetic "$scale_input" jpeg; do
    # A stage's loaders, and the node's cores for CPU work (synthetic input
    # has neither); jpeg's cost is the one measured above, the others' are stated.
    loaders=()
    [ "$stage" = synthetic ] || loaders=(--input-threads 12)
    case $stage in decode:* | jpeg*) loaders+=(--host-cores "$cores") ;; esac
    [ "$stage" != jpeg ] || loaders+=(--input-image-ms "$jpeg_ms")
    "${project[@]}" --input "$stage" "${loaders[@]}" \
      --setup "8 A100 per node, $cores cores" --out "$out/projection.jsonl" >>"$out/projection.txt"
  done
done

"$bin" report "$out/train.jsonl" >"$out/report.md"
cat "$out/report.md"
scripts/plots.sh input "$out/train.jsonl" "$out/twins.jsonl" "$out/projection.jsonl" --out "$out/figures" >/dev/null
scripts/plots.sh breakdown "$out/train.jsonl" --out "$out/figures" >/dev/null
echo "input-study: report $out/report.md, validation $out/validate.txt, figures in $out/figures" >&2
