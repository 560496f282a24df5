#!/usr/bin/env bash
# gradsync's strategies beside the libraries users run, from one run on this
# host: the page docs/results/peers.md. Needs the peers (scripts/install-deps.sh
# peers, then scripts/build.sh): Gloo built in, PyTorch for ddp-gloo.
#
#   scripts/peers.sh [OUT]      (default results/peers-<UTC time>)
#
# 1. `gradsync sweep`: ResNet-50 on real CPU compute (PyTorch's compute is
#    not gradsync's, so DDP is compared by scaling efficiency and exposed
#    communication, each against its own single worker) at $WORKERS (default
#    1,2) workers, batch 16, under none, ring-mpi, mpi-allreduce, gloo-ring,
#    gloo-halving-doubling and ddp-gloo (PyTorch DDP over Gloo); about 8
#    minutes on 2 cores at 1 and 2 workers;
# 2. `gradsync collectives` at 2 ranks, 1 MiB to 64 MiB, the same
#    allreduces and Gloo's other two: busbw;
# 3. `gradsync report` over both (efficiency, throughput, exposed
#    communication, busbw) and the figures (scripts/plots.sh all).
# QUICK=1 is a smoke test of the script (small-cnn, 1 and 2 workers, few
# steps, 1 MiB to 4 MiB), not the page's figures.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -le 1 ] || { echo "peers: usage: scripts/peers.sh [OUT]" >&2; exit 2; }
out=${1:-results/peers-$(date -u +%Y%m%dT%H%M%SZ)}
workers=${WORKERS:-1,2}
quick=${QUICK:-0}
case $quick in 0 | 1) ;; *) echo "peers: QUICK must be 0 or 1 (got '$quick')" >&2; exit 2 ;; esac
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
[ -x "$bin" ] || { echo "peers: no $bin (scripts/build.sh)" >&2; exit 2; }
"$bin" strategies --json | python3 -c '
import json, sys
e = next(e for e in json.load(sys.stdin) if e["name"] == "gloo-ring")
sys.exit(0 if e["usable"] else "peers: gloo-ring is not usable: " + e["detail"])'

model=resnet50:cpu
train=(--batch-size 16 --num-warmup-batches 2 --num-batches-per-iter 2 --num-iters 3)
sizes=(-b 1M -e 64M)
if [ "$quick" = 1 ]; then
  model=small-cnn:cpu train=(--num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2)
  sizes=(-b 1M -e 4M) workers=1,2
fi
mkdir -p "$out"
started=$SECONDS
"$bin" sweep --out "$out" --workers "$workers" --models "$model" \
  --strategy none,ring-mpi,mpi-allreduce,gloo-ring,gloo-halving-doubling,ddp-gloo \
  --train-args "${train[*]}" >"$out/sweep.txt"
echo "peers: sweep: $((SECONDS - started)) s" >&2
started=$SECONDS
scripts/mpirun.sh -np 2 "$bin" collectives -c 1 "${sizes[@]}" -f 4 -n 10 -w 3 \
  --strategy ring-mpi,mpi-allreduce,gloo-ring,gloo-bcube,gloo-ring-chunked,gloo-halving-doubling \
  --json "$out/collectives.jsonl" >"$out/collectives.txt"
echo "peers: collectives: $((SECONDS - started)) s" >&2
"$bin" report "$out/train.jsonl" "$out/collectives.jsonl"
scripts/plots.sh all "$out" --out "$out/figures" >/dev/null
echo "peers: figures in $out/figures" >&2
