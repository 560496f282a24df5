# extrapolation  the cost model's real use: calibrate on few hosts, predict
#                many. 8 hosts x 1 slot at 500mbit with jumbo frames (MTU
#                9000, so that the kernel's per-packet work on 2 cores does
#                not set the pace), --time-scale 50 (standing for 25gbit):
#                collectives of every CPU strategy at 2 and 4 workers only
#                (calibration), then ResNet-50 (batch 32), Inception-v3
#                (batch 32) and VGG-16 (batch 64) on the emulated V100 under
#                every CPU strategy at 8 workers (validation), none and
#                ring-mpi at 1 worker (the baseline). Then `calibrate` and
#                `simulate validate --save-validation` (validation.md,
#                cluster-validated.json). Two rounds, each a whole run on a
#                fresh cluster, their records in the same files
#                (GRADSYNC_EXTRAPOLATION_ROUNDS=N for another count): about
#                40 minutes a round; not in the default set.

# shellcheck shell=bash
extrapolation() {
  local dir=$out/extrapolation rounds=${GRADSYNC_EXTRAPOLATION_ROUNDS:-2} round
  mkdir -p "$dir"
  # A single run of 3 steps per strategy moves by 10% on 2 cores: each round
  # is a whole run on a fresh cluster, and every round's records go into the
  # same files, so the check is made against all of them.
  for ((round = 1; round <= rounds; round++)); do
    extrapolation_round "$dir"
    echo "extrapolation: round $round of $rounds done"
  done
  unset GRADSYNC_CLUSTER_DIR
  "$bin" calibrate "$dir/collectives.jsonl" -o "$dir/cluster.json" >"$dir/calibrate.txt"
  # The errors at 8 workers become each strategy's band (cluster-validated.json).
  "$bin" simulate validate --cluster "$dir/cluster.json" "$dir/train.jsonl" "$dir/train-ps1.jsonl" \
    --save-validation "$dir/cluster-validated.json" >"$dir/validation.md"
  cat "$dir/validation.md"
}

# One round of `extrapolation` into DIR: the cluster up, its check, the
# calibration at 2 and 4 workers, the training at 8, the cluster down.
extrapolation_round() {
  local dir=$1 p model batch iters strategy calibrated=$cpu_strategies
  # The ring's fit is the link's floor under every other fit between hosts:
  # measured even when GRADSYNC_RUNS_STRATEGIES leaves it out of the training.
  [[ ",$calibrated," == *,ring-mpi,* ]] || calibrated=ring-mpi,$calibrated
  cluster_up "$dir/state" gsx --hosts 8 --slots 1 --rate 500mbit --mtu 9000
  scripts/cluster.sh check >>"$dir/check.txt" || true
  # Calibration: 2 and 4 workers only, never the 8 it is asked about.
  for p in 2 4; do
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives -b 256K -e 64M -f 4 -n 2 -w 1 \
      --strategy "$calibrated" --ps-servers "$p" --ps-curve off \
      --json "$dir/collectives.jsonl" >>"$dir/collectives.txt"
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives -b 256K -e 64M -f 4 -n 2 -w 1 \
      --strategy ps-zmq --ps-servers 1 --ps-curve off --json "$dir/collectives.jsonl" >>"$dir/collectives.txt"
  done
  echo "extrapolation: calibration collectives in $dir/collectives.jsonl"
  for model in "resnet50 32 3" "inception3 32 3" "vgg16 64 2"; do
    read -r model batch iters <<<"$model"
    local train=("$bin" train --model "$model" --compute emulated --device v100 --batch-size "$batch"
      --time-scale 50 --num-warmup-batches 1 --num-batches-per-iter 1 --num-iters "$iters")
    scripts/cluster.sh mpirun -np 1 "${train[@]}" --strategy none --out "$dir/train.jsonl" >>"$dir/train.txt"
    for strategy in ${cpu_strategies//,/ }; do
      local own=()
      [ "$strategy" != ps-zmq ] || own=("${ps[@]}" --ps-servers 8)
      scripts/cluster.sh mpirun -np 8 "${train[@]}" --strategy "$strategy" "${own[@]}" \
        --out "$dir/train.jsonl" >>"$dir/train.txt"
    done
    scripts/cluster.sh mpirun -np 8 "${train[@]}" --strategy ps-zmq "${ps[@]}" --ps-servers 1 \
      --out "$dir/train-ps1.jsonl" >>"$dir/train.txt"
    echo "extrapolation: $model at 8 workers done"
  done
  cluster_down
}
