# published      Horovod's 16-GPU table (results/reference/published-scaling.csv,
#                its sources in its header): 4 hosts x 4 slots
#                at 1gbit standing for 25gbit (--time-scale 25), compute
#                emulated at the published single-P100 rate of each model,
#                batch 64, ring-mpi against none at 1 worker.

# shellcheck shell=bash
published() {
  local dir=$out/published table=results/reference/published-scaling.csv
  local model rate
  for model in resnet101 inception3 vgg16; do
    rate=$(awk -F, -v m="$model" '$1 == "horovod" && $3 == m && $4 == 16 { print $9 }' "$table")
    [ -n "$rate" ] || { echo "cluster-runs: no 16-GPU Horovod row for $model in $table" >&2; exit 1; }
    "$bin" sweep --cluster "4x4@1gbit" --time-scale 25 --out "$dir/$model" --workers 1,16 \
      --strategy none,ring-mpi --models "$model:emulated" \
      --train-args "--batch-size 64 --emulate-img-per-sec $rate $frame"
  done
  "$bin" report "$dir"/*/train.jsonl >"$dir/report.md"
}
