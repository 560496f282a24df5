# priorities     the order buckets are reduced in (train --sync-order):
#                arrival against forward, where the next forward's first
#                layers' buckets go first and that forward waits layer by
#                layer. 4 hosts x 1 slot at 1gbit, ResNet-50 (batch 32,
#                --time-scale 100) and VGG-16 (batch 32, --time-scale 75)
#                on the emulated V100, so that a step's compute is about
#                its communication (where the order can matter; far below
#                it, every order waits for the links), at fusion 4 MiB,
#                under ps-zmq (one
#                shard per worker) and ring-mpi, 2 alternating rounds; then
#                the cost model's prediction of every record, calibrated on
#                the same cluster's collectives at 2 and 4 workers, run
#                first. A table of step time and exposed communication,
#                measured and predicted, priorities.md (about 20 minutes;
#                not in the default set).

# shellcheck shell=bash
priorities() {
  local dir=$out/priorities model batch scale strategy order
  mkdir -p "$dir"
  cluster_up "$dir/state" gsp --hosts 4 --slots 1 --rate 1gbit
  scripts/cluster.sh check >"$dir/check.txt" || true
  calibration_collectives "$dir" 4
  for _ in 1 2; do  # two rounds, each of every run
    for model in "resnet50 32 100" "vgg16 32 75"; do
      read -r model batch scale <<<"$model"
      for strategy in ps-zmq ring-mpi; do
        for order in arrival forward; do
          local extra=()
          [ "$strategy" = ps-zmq ] && extra=("${ps[@]}" --ps-servers 4)
          scripts/cluster.sh mpirun -np 4 "$bin" train --model "$model" --compute emulated \
            --device v100 --batch-size "$batch" --time-scale "$scale" --num-warmup-batches 1 \
            --num-batches-per-iter 5 --num-iters 1 --fusion-mb 4 --strategy "$strategy" \
            "${extra[@]}" --sync-order "$order" --out "$dir/train.jsonl" >>"$dir/train.txt"
        done
      done
      echo "priorities: $model done"
    done
  done
  cluster_down
  unset GRADSYNC_CLUSTER_DIR
  "$bin" calibrate "$dir/collectives.jsonl" -o "$dir/cluster.json" >"$dir/calibrate.txt"
  "$bin" simulate validate --cluster "$dir/cluster.json" "$dir/train.jsonl" \
    --out "$dir/predicted.jsonl" >"$dir/validate.txt"
  priorities_table "$dir/train.jsonl" "$dir/predicted.jsonl" >"$dir/priorities.md"
  echo "priorities: $dir/priorities.md"
}

# priorities_table MEASURED PREDICTED: per model, strategy and order, the
# median step time over the rounds (an iteration's time over its steps, the
# settle included) and exposed communication, and the model's, as Markdown.
priorities_table() {
  python3 - "$1" "$2" <<'PY'
import collections, json, statistics, sys
def key(r):
    return (r["model"], r["strategy"], r["sync"].get("order", "arrival"))
measured, predicted = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r["results"]
    measured[key(r)].append((r["batch_size"] / res["img_sec_mean"], res["exposed_comm_s"]))
for line in open(sys.argv[2]):
    r = json.loads(line)
    res = r["results"]
    predicted[key(r)].append((r["batch_size"] / res["img_sec_mean"], res["exposed_comm_s"]))
print("| model | strategy | order | step, measured (s) | exposed comm., measured (s) "
      "| step, predicted (s) | forward against arrival, measured | predicted |")
print("|---|---|---|---:|---:|---:|---:|---:|")
def med(rows, i):
    return statistics.median(x[i] for x in rows) if rows else float("nan")
for k in sorted(measured):
    model, strategy, order = k
    m, p = measured[k], predicted.get(k, [])
    base_m, base_p = measured.get((model, strategy, "arrival")), predicted.get((model, strategy, "arrival"))
    gain_m = gain_p = ""
    if order == "forward" and base_m:
        gain_m = f"{100 * (med(m, 0) / med(base_m, 0) - 1):+.1f}%"
        if p and base_p:
            gain_p = f"{100 * (med(p, 0) / med(base_p, 0) - 1):+.1f}%"
    print(f"| {model} | {strategy} | {order} | {med(m, 0):.3f} | {med(m, 1):.3f} | "
          f"{med(p, 0):.3f} | {gain_m} | {gain_p} |")
PY
}
