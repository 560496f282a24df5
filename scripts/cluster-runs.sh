#!/usr/bin/env bash
# The runs behind the README's "Measured on the emulated cluster": each one
# brings up an emulated cluster (scripts/cluster.sh, as root), runs on it,
# and takes it down. Results go to results/cluster-<UTC time>/<run>/ (records,
# logs, report). About 25 minutes on 2 cores for all three.
#
#   scripts/cluster-runs.sh [ps-bottleneck] [hierarchy] [published]
#
# ps-bottleneck  ResNet-50 (emulated V100, batch 32), 8 hosts x 1 slot at
#                500mbit standing for 25gbit (--time-scale 50): none, ring-mpi
#                and ps-zmq with 1 colocated shard at 1, 2, 4, 8 workers, then
#                ps-zmq with one shard per worker (S = n).
# hierarchy      ring-mpi and mpi-allreduce, 64 MiB, 8 ranks: 8 hosts x 1
#                slot against 4 hosts x 2 slots (ranks host by host, and dealt
#                round the hosts with --map-by node), all at 500mbit.
# published      Horovod's 16-GPU table (results/reference/published-scaling.csv,
#                its sources in its header): 4 hosts x 4 slots
#                at 1gbit standing for 25gbit (--time-scale 25), compute
#                emulated at the published single-P100 rate of each model,
#                batch 64, ring-mpi against none at 1 worker.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
export GRADSYNC_CLUSTER_SCRIPT=$PWD/scripts/cluster.sh  # for sweep --cluster, whatever the build dir
[ -x "$bin" ] || scripts/build.sh >/dev/null
out=${GRADSYNC_RUNS_OUT:-results/cluster-$(date -u +%Y%m%dT%H%M%SZ)}
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(ps-bottleneck hierarchy published)
steps="--num-warmup-batches 1 --num-batches-per-iter 1 --num-iters 3"

ps_bottleneck() {
  local dir=$out/ps-bottleneck
  "$bin" sweep --cluster "8x1@500mbit" --time-scale 50 --out "$dir" --workers 1,2,4,8 \
    --strategy none,ring-mpi,ps-zmq --models resnet50:emulated --train-args "--batch-size 32 $steps"
  for n in 2 4 8; do  # one shard per worker: a sweep's runs share their arguments
    "$bin" sweep --cluster "8x1@500mbit" --time-scale 50 --out "$dir/shards" --workers "$n" \
      --strategy ps-zmq --models resnet50:emulated \
      --train-args "--batch-size 32 $steps --ps-servers $n"
  done
  # Two reports: both sets name the strategy ps-zmq, and a report keeps the
  # latest run of each configuration.
  "$bin" report "$dir/train.jsonl" >"$dir/report.md"
  "$bin" report "$dir/train.jsonl" "$dir/shards/train.jsonl" >"$dir/report-shards.md"
}

hierarchy() {
  local dir=$out/hierarchy
  mkdir -p "$dir"
  local shape hosts slots map
  for shape in "8 1 by-slot" "4 2 by-slot" "4 2 by-node"; do
    read -r hosts slots map <<<"$shape"
    export GRADSYNC_CLUSTER_DIR=$dir/state-$hosts-$slots
    mkdir -p "$GRADSYNC_CLUSTER_DIR"
    scripts/cluster.sh up --prefix gsr --hosts "$hosts" --slots "$slots" --rate 500mbit >/dev/null
    trap 'scripts/cluster.sh down --prefix gsr >/dev/null' EXIT
    scripts/cluster.sh check >"$dir/check-$hosts-$slots.txt" || true
    local extra=()
    [ "$map" = by-node ] && extra=(--map-by node)
    scripts/cluster.sh mpirun -np 8 "${extra[@]}" "$bin" collectives -b 64M -e 64M -n 3 -w 1 \
      --strategy ring-mpi,mpi-allreduce --json "$dir/$hosts-x-$slots-$map.jsonl" \
      >"$dir/$hosts-x-$slots-$map.txt"
    scripts/cluster.sh down --prefix gsr >/dev/null
    trap - EXIT
    echo "hierarchy: $hosts hosts x $slots slots, ranks $map: $dir/$hosts-x-$slots-$map.txt"
    "$bin" report "$dir/$hosts-x-$slots-$map.jsonl" >>"$dir/report.md"
  done
}

published() {
  local dir=$out/published table=results/reference/published-scaling.csv
  local model rate
  for model in resnet101 inception3 vgg16; do
    rate=$(awk -F, -v m="$model" '$1 == "horovod" && $3 == m && $4 == 16 { print $9 }' "$table")
    [ -n "$rate" ] || { echo "cluster-runs: no 16-GPU Horovod row for $model in $table" >&2; exit 1; }
    "$bin" sweep --cluster "4x4@1gbit" --time-scale 25 --out "$dir/$model" --workers 1,16 \
      --strategy none,ring-mpi --models "$model:emulated" \
      --train-args "--batch-size 64 --emulate-img-per-sec $rate $steps"
  done
  "$bin" report "$dir"/*/train.jsonl >"$dir/report.md"
}

for run in "${runs[@]}"; do
  case $run in
    ps-bottleneck) ps_bottleneck ;;
    hierarchy) hierarchy ;;
    published) published ;;
    *) echo "cluster-runs: unknown run '$run' (known: ps-bottleneck, hierarchy, published)" >&2; exit 2 ;;
  esac
done
echo "cluster-runs: results in $out"
