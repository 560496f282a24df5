# cost-model     what the cost model is calibrated from and checked against
#                (docs/guide/cost-model.md), at two link rates: 8 hosts x 1
#                slot at 500mbit (--time-scale 50) and 4 hosts x 1 slot at
#                1gbit (--time-scale 25). Per rate: collectives of every CPU
#                strategy from 256K to 64M at 2, 4 (and 8) workers
#                (calibration), then train records of ResNet-50 (batch 32) and
#                VGG-16 (batch 64) on the emulated V100 under every CPU
#                strategy (validation). About 40 minutes; not in the default set.

# shellcheck shell=bash
cost_model() {
  cost_model_rate 8 500mbit 50
  cost_model_rate 4 1gbit 25
}

# One rate of the cost-model run: calibration collectives, then train runs.
cost_model_rate() {
  local hosts=$1 rate=$2 scale=$3 dir=$out/cost-model/$2
  mkdir -p "$dir"
  cluster_up "$dir/state" gsm --hosts "$hosts" --slots 1 --rate "$rate"
  scripts/cluster.sh check >"$dir/check.txt" || true
  local p model batch iters strategy
  calibration_collectives "$dir" "$hosts"
  echo "cost-model $rate: calibration collectives in $dir/collectives.jsonl"
  for model in "resnet50 32 3" "vgg16 64 2"; do
    read -r model batch iters <<<"$model"
    local train=("$bin" train --model "$model" --compute emulated --device v100 --batch-size "$batch"
      --time-scale "$scale" --num-warmup-batches 1 --num-batches-per-iter 1 --num-iters "$iters")
    scripts/cluster.sh mpirun -np 1 "${train[@]}" --strategy none --out "$dir/train.jsonl" >>"$dir/train.txt"
    scripts/cluster.sh mpirun -np 1 "${train[@]}" --strategy ring-mpi --out "$dir/train.jsonl" >>"$dir/train.txt"
    for p in 2 4 8; do
      [ "$p" -le "$hosts" ] || continue
      # VGG-16 at 8 hosts only at the end points: each of its steps moves 0.5 GB per host.
      [ "$model" = vgg16 ] && [ "$p" = 4 ] && [ "$hosts" = 8 ] && continue
      for strategy in ring-mpi tree-mpi mpi-allreduce; do
        scripts/cluster.sh mpirun -np "$p" "${train[@]}" --strategy "$strategy" \
          --out "$dir/train.jsonl" >>"$dir/train.txt"
      done
      scripts/cluster.sh mpirun -np "$p" "${train[@]}" --strategy ps-zmq "${ps[@]}" --ps-servers "$p" \
        --out "$dir/train.jsonl" >>"$dir/train.txt"
      # One shard for all: the central server's link is the bottleneck (ResNet-50 only).
      [ "$model" = resnet50 ] && scripts/cluster.sh mpirun -np "$p" "${train[@]}" --strategy ps-zmq \
        "${ps[@]}" --ps-servers 1 --out "$dir/train-ps1.jsonl" >>"$dir/train.txt"
      echo "cost-model $rate: $model at $p workers done"
    done
  done
  cluster_down
  unset GRADSYNC_CLUSTER_DIR
}
