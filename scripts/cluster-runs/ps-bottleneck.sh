# ps-bottleneck  ResNet-50 (emulated V100, batch 32), 8 hosts x 1 slot at
#                500mbit standing for 25gbit (--time-scale 50): none, ring-mpi
#                and ps-zmq with 1 colocated shard at 1, 2, 4, 8 workers, then
#                ps-zmq with one shard per worker (S = n).

# shellcheck shell=bash
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
