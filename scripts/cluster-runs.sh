#!/usr/bin/env bash
# The runs behind docs/results/emulated-cluster.md (and the cluster figures of
# docs/results/which-allreduce-wins.md and cost-model-checks.md): each one
# brings up an emulated cluster (scripts/cluster.sh, as root), runs on it,
# and takes it down. Results go to results/cluster-<UTC time>/<run>/ (records,
# logs, report). About 25 minutes on 2 cores for all three.
#
#   scripts/cluster-runs.sh [ps-bottleneck] [hierarchy] [published] [cost-model] [algorithms]
#                           [server-hosts] [extrapolation] [partitions] [engines]
#                           [engines-ps]
#
# ps-bottleneck  ResNet-50 (emulated V100, batch 32), 8 hosts x 1 slot at
#                500mbit standing for 25gbit (--time-scale 50): none, ring-mpi
#                and ps-zmq with 1 colocated shard at 1, 2, 4, 8 workers, then
#                ps-zmq with one shard per worker (S = n).
# hierarchy      ring-mpi, hierarchical-mpi and mpi-allreduce, 64 MiB, 8
#                ranks: 8 hosts x 1 slot against 4 hosts x 2 slots (ranks host
#                by host, and dealt round the hosts with --map-by node), all at
#                500mbit; then on 4 hosts x 2 slots (host by host) ResNet-50
#                (emulated V100, batch 32, --time-scale 50) under ring-mpi and
#                hierarchical-mpi at 8 workers, with the links' wire bytes.
# algorithms     the MPI allreduce algorithms where links, not cores, are
#                the bottleneck: 4 and 8 hosts x 1 slot at 500mbit, 16 and
#                64 MiB, ring-mpi, tree-mpi, double-tree-mpi,
#                halving-doubling-mpi and mpi-allreduce, with each rank's
#                bytes (about 5 minutes; not in the default set).
# server-hosts   BytePS's layout: 4 worker hosts and k = 1..4 parameter-server
#                hosts of their own (ps-zmq --ps-placement dedicated, one
#                shard per server host, partitions of 1 MiB), 8 hosts x 1 slot at 250mbit
#                with jumbo frames (MTU 9000) standing for 10gbit, ResNet-50
#                (emulated V100, batch 32, --time-scale 40), against
#                ring-mpi on the 4 worker hosts; then the calibration
#                collectives on the same cluster (as cost-model's), the cost
#                model's prediction of the same runs from them
#                (simulated.jsonl), one table of both (report.md) and one
#                figure of both (figures/server-hosts-*.png and .svg,
#                `scripts/plots.sh server-hosts DIR`) (about 13 minutes; not
#                in the default set). GRADSYNC_SERVER_HOSTS_RATE (250mbit),
#                _MTU (9000), _TIME_SCALE (40) and _PARTITION (1M) change the
#                cluster and the partitions, for the variants the docs compare
#                (MTU 1500 or 65000, 500mbit x20, partitions of 4M).
# published      Horovod's 16-GPU table (results/reference/published-scaling.csv,
#                its sources in its header): 4 hosts x 4 slots
#                at 1gbit standing for 25gbit (--time-scale 25), compute
#                emulated at the published single-P100 rate of each model,
#                batch 64, ring-mpi against none at 1 worker.
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
# partitions     ps-zmq's partition size across hosts: 4 hosts x 1 slot at
#                500mbit (MTU 9000), 16 and 64 MiB allreduces with one
#                colocated shard and with one per worker, in partitions of
#                4M, 1M and 256K, beside ring-mpi, 3 alternating rounds; a
#                table of the median time per call (min-max), partitions.md
#                (about 5 minutes; not in the default set).
# engines        SMPI against the emulated cluster, the validation of the
#                SMPI engine: 8 hosts x 1 slot at 500mbit (MTU 9000, as
#                extrapolation), collectives of every MPI strategy from 16K to
#                64M at 2, 4 and 8 workers (measured.jsonl); `calibrate` on the
#                2- and 4-worker runs only (cluster.json: the links' payload
#                rate and latency, the messages' overhead); then the same
#                collectives under SMPI (--engine smpi on cluster.json, real
#                buffers, every sum checked) and the cost model at 2, 4 and 8
#                (the fit from 256K up: smaller messages pass within tbf's
#                burst, faster than the shaped rate);
#                all in engines.jsonl, with figures/engines-SIZE.png and
#                figures/errors.md (every engine against the measurements;
#                `scripts/plots.sh engines`). Needs the SMPI build
#                (scripts/build-smpi.sh). About 15 minutes; not in the
#                default set.
# engines-ps     the parameter server on the same three engines: the
#                emulated cluster of `engines` (8 hosts x 1 slot at 500mbit,
#                MTU 9000), ps-zmq with one shard per worker and with one
#                shard, over ZeroMQ (tcp, as users run it) and over MPI
#                messages (--ps-transport mpi, the carrier SMPI runs), 16K to
#                64M at 2, 4 and 8 workers (measured.jsonl); then SMPI and
#                the model at 2, 4 and 8 on the cluster file of `engines`
#                (this run's own when it ran before, else the one kept in
#                results/reference/smpi/validation); engines.jsonl,
#                figures/ and figures/errors.md as `engines` makes them.
#                About 10 minutes; not in the default set.
# cost-model     what the cost model is calibrated from and checked against
#                (docs/guide/cost-model.md), at two link rates: 8 hosts x 1
#                slot at 500mbit (--time-scale 50) and 4 hosts x 1 slot at
#                1gbit (--time-scale 25). Per rate: collectives of every CPU
#                strategy from 256K to 64M at 2, 4 (and 8) workers
#                (calibration), then train records of ResNet-50 (batch 32) and
#                VGG-16 (batch 64) on the emulated V100 under every CPU
#                strategy (validation). About 40 minutes; not in the default set.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
export GRADSYNC_CLUSTER_SCRIPT=$PWD/scripts/cluster.sh  # for sweep --cluster, whatever the build dir
[ -x "$bin" ] || scripts/build.sh >/dev/null
out=${GRADSYNC_RUNS_OUT:-results/cluster-$(date -u +%Y%m%dT%H%M%SZ)}
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(ps-bottleneck hierarchy published)
# The emulated bridge is private to this machine and MPI's traffic is not
# encrypted either: ps-zmq is measured without CURVE (--ps-curve auto would
# turn it on beyond loopback, at several times the cost;
# docs/guide/troubleshooting.md), and its records say so (ps_curve).
# A strategy's options go to its own runs only (train refuses one that the
# strategy does not read): ps=(...) goes with ps-zmq.
ps=(--ps-curve off)
frame="--num-warmup-batches 1 --num-batches-per-iter 1 --num-iters 3"
steps="$frame ${ps[*]}"  # sweeps whose strategies include ps-zmq

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
      --strategy ring-mpi,hierarchical-mpi,mpi-allreduce --json "$dir/$hosts-x-$slots-$map.jsonl" \
      >"$dir/$hosts-x-$slots-$map.txt"
    if [ "$hosts $slots $map" = "4 2 by-slot" ]; then  # training: the flat ring against the hierarchy
      local strategy
      for strategy in ring-mpi hierarchical-mpi; do
        scripts/cluster.sh mpirun -np 8 "$bin" train --model resnet50 --compute emulated \
          --device v100 --batch-size 32 --time-scale 50 $frame --strategy "$strategy" \
          --out "$dir/train-4-x-2.jsonl" >>"$dir/train-4-x-2.txt"
      done
      "$bin" report "$dir/train-4-x-2.jsonl" >"$dir/report-train-4-x-2.md"
    fi
    scripts/cluster.sh down --prefix gsr >/dev/null
    trap - EXIT
    echo "hierarchy: $hosts hosts x $slots slots, ranks $map: $dir/$hosts-x-$slots-$map.txt"
    "$bin" report "$dir/$hosts-x-$slots-$map.jsonl" >>"$dir/report.md"
  done
}

# What `gradsync calibrate` fits the cost model to, on the cluster that is up:
# collectives of every CPU strategy from 256K to 64M at 2, 4 and 8 workers
# (as many as HOSTS), ps-zmq with one shard per worker and with one, into
# DIR/collectives.jsonl (and .txt).
calibration_collectives() {
  local dir=$1 hosts=$2 p
  for p in 2 4 8; do
    [ "$p" -le "$hosts" ] || continue
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives -b 256K -e 64M -f 4 -n 2 -w 1 \
      --strategy ring-mpi,tree-mpi,mpi-allreduce,ps-zmq --ps-servers "$p" --ps-curve off \
      --json "$dir/collectives.jsonl" >>"$dir/collectives.txt"
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives -b 256K -e 64M -f 4 -n 2 -w 1 \
      --strategy ps-zmq --ps-servers 1 --ps-curve off --json "$dir/collectives.jsonl" >>"$dir/collectives.txt"
  done
}

# One rate of the cost-model run: calibration collectives, then train runs.
cost_model_rate() {
  local hosts=$1 rate=$2 scale=$3 dir=$out/cost-model/$2
  mkdir -p "$dir"
  export GRADSYNC_CLUSTER_DIR=$dir/state
  mkdir -p "$GRADSYNC_CLUSTER_DIR"
  scripts/cluster.sh up --prefix gsm --hosts "$hosts" --slots 1 --rate "$rate" >/dev/null
  trap 'scripts/cluster.sh down --prefix gsm >/dev/null' EXIT
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
  scripts/cluster.sh down --prefix gsm >/dev/null
  trap - EXIT
  unset GRADSYNC_CLUSTER_DIR
}

cost_model() {
  cost_model_rate 8 500mbit 50
  cost_model_rate 4 1gbit 25
}

algorithms() {
  local dir=$out/algorithms hosts
  mkdir -p "$dir"
  for hosts in 4 8; do
    export GRADSYNC_CLUSTER_DIR=$dir/state-$hosts
    mkdir -p "$GRADSYNC_CLUSTER_DIR"
    scripts/cluster.sh up --prefix gsa --hosts "$hosts" --slots 1 --rate 500mbit >/dev/null
    trap 'scripts/cluster.sh down --prefix gsa >/dev/null' EXIT
    scripts/cluster.sh check >"$dir/check-$hosts.txt" || true
    scripts/cluster.sh mpirun -np "$hosts" "$bin" collectives -b 16M -e 64M -f 4 -n 3 -w 1 \
      --strategy ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,mpi-allreduce \
      --json "$dir/$hosts-x-1.jsonl" >"$dir/$hosts-x-1.txt"
    scripts/cluster.sh down --prefix gsa >/dev/null
    trap - EXIT
    echo "algorithms: $hosts hosts x 1 slot: $dir/$hosts-x-1.txt"
  done
  unset GRADSYNC_CLUSTER_DIR
  "$bin" report "$dir"/*.jsonl >"$dir/report.md"
}

server_hosts() {
  local dir=$out/server-hosts k
  mkdir -p "$dir"
  export GRADSYNC_CLUSTER_DIR=$dir/state
  mkdir -p "$GRADSYNC_CLUSTER_DIR"
  # 8 hosts whose links all carry traffic at once, both ways: at 500mbit and
  # MTU 1500 that is more packets than 2 cores can switch, and the shards
  # starved (docs/results/cost-model-checks.md, "Why 250mbit"). Jumbo frames cut
  # the packets six-fold and half the rate halves the bytes; time x40 keeps
  # the cluster it stands for (10gbit) the same.
  local rate=${GRADSYNC_SERVER_HOSTS_RATE:-250mbit} mtu=${GRADSYNC_SERVER_HOSTS_MTU:-9000}
  local scale=${GRADSYNC_SERVER_HOSTS_TIME_SCALE:-40} partition=${GRADSYNC_SERVER_HOSTS_PARTITION:-1M}
  scripts/cluster.sh up --prefix gsp --hosts 8 --slots 1 --rate "$rate" --mtu "$mtu" >/dev/null
  trap 'scripts/cluster.sh down --prefix gsp >/dev/null' EXIT
  scripts/cluster.sh check >"$dir/check.txt" || true
  local train=("$bin" train --model resnet50 --compute emulated --device v100 --batch-size 32
    --time-scale "$scale" --num-warmup-batches 1 --num-batches-per-iter 1 --num-iters 3)
  # Ranks fill the hosts in order: the k serving ranks come first, so each
  # server has a host of its own and the workers the next 4. Partitions of
  # 1 MiB: with 4 MiB the last partition of every shard comes back at the end
  # of each bucket, all at once (docs/results/cost-model-checks.md,
  # "Partitions of 1 MiB").
  scripts/cluster.sh mpirun -np 4 "${train[@]}" --strategy ring-mpi --out "$dir/ring.jsonl" >"$dir/ring.txt"
  for k in 1 2 3 4; do
    scripts/cluster.sh mpirun -np $((4 + k)) "${train[@]}" --strategy ps-zmq "${ps[@]}" --ps-placement dedicated \
      --ps-servers "$k" --ps-partition "$partition" --out "$dir/ps-$k.jsonl" >"$dir/ps-$k.txt"
  done
  # The model is calibrated on this very cluster (rate, MTU, this machine's
  # CPU), as `cost-model` does for its own: the committed 500mbit one is of
  # MTU 1500 and a kinder host, and rescaled to 250mbit it overestimated
  # ps-zmq by 29-38% (docs/results/cost-model-checks.md, "Why 250mbit").
  rm -f "$dir/collectives.jsonl" "$dir/collectives.txt"
  calibration_collectives "$dir" 8
  scripts/cluster.sh down --prefix gsp >/dev/null
  trap - EXIT
  unset GRADSYNC_CLUSTER_DIR
  "$bin" calibrate "$dir/collectives.jsonl" -o "$dir/cluster.json" >/dev/null
  # The model's records (simulated.jsonl, what the table and the figure read):
  # ps-zmq on k = 1..4 server hosts, then ring-mpi's own (the first table
  # compares with the best allreduce, whichever that is).
  local sim=(--cluster "$dir/cluster.json" --model resnet50 --workers 4 --workers-per-node 1
    --batch-size 32 --time-scale "$scale" --out "$dir/simulated.jsonl")
  rm -f "$dir/simulated.jsonl"
  "$bin" simulate server-hosts "${sim[@]}" --hosts 1,2,3,4 --ps-partition "$partition" >"$dir/simulated.md"
  "$bin" simulate project "${sim[@]}" --strategy ring-mpi >"$dir/simulated-ring.md"
  # Measured img/sec of the 4 workers beside the model's, both at the time scale.
  {
    echo "| layout | measured img/sec | cost model | model error |"
    echo "|---|---:|---:|---:|"
    local measured simulated label
    for k in ring 1 2 3 4; do
      if [ "$k" = ring ]; then
        label="ring-mpi"; measured=$(jq '.results.img_sec_mean * .results.workers' "$dir/ring.jsonl")
        simulated=$(jq -rs 'map(select(.strategy == "ring-mpi" and .workers == 4)) | last
          | if . then .results.img_sec_mean * .workers else empty end' "$dir/simulated.jsonl")
      else
        label="ps-zmq, $k server host(s)"; measured=$(jq '.results.img_sec_mean * .results.workers' "$dir/ps-$k.jsonl")
        simulated=$(jq -rs --argjson k "$k" 'map(select(.strategy == "ps-zmq" and .workers == 4
            and .strategy_options.ps_placement == "dedicated" and .strategy_options.ps_servers == $k)) | last
          | if . then .results.img_sec_mean * .workers else empty end' "$dir/simulated.jsonl")
      fi
      awk -v l="$label" -v m="$measured" -v s="$simulated" \
        'BEGIN { printf "| %s | %.1f | %s | %s |\n", l, m, s == "" ? "-" : sprintf("%.1f", s), s == "" ? "-" : sprintf("%+.0f%%", 100 * (s - m) / m) }'
    done
  } >"$dir/report.md"
  # The same as a figure: ps-zmq against k beside ring-mpi, measured and the
  # model's (plots/README.md). A figure that cannot be drawn (no matplotlib)
  # does not fail the run: the records and the table are there.
  GRADSYNC=$(realpath "$bin") scripts/plots.sh server-hosts "$dir" -o "$dir/figures" ||
    echo "cluster-runs: server-hosts: no figure (see above); records and report.md in $dir" >&2
  cat "$dir/report.md"
}

# Every CPU strategy the table has (the calibration and the validation of
# `extrapolation` cover them all): `gradsync strategies`' usable host
# synchronizers and its reference.
cpu_strategies="ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,hierarchical-mpi,mpi-allreduce,ps-zmq"

extrapolation() {
  local dir=$out/extrapolation rounds=${GRADSYNC_EXTRAPOLATION_ROUNDS:-2} round
  mkdir -p "$dir"
  export GRADSYNC_CLUSTER_DIR=$dir/state
  mkdir -p "$GRADSYNC_CLUSTER_DIR"
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
  local dir=$1 p model batch iters strategy
  scripts/cluster.sh up --prefix gsx --hosts 8 --slots 1 --rate 500mbit --mtu 9000 >/dev/null
  trap 'scripts/cluster.sh down --prefix gsx >/dev/null' EXIT
  scripts/cluster.sh check >>"$dir/check.txt" || true
  # Calibration: 2 and 4 workers only, never the 8 it is asked about.
  for p in 2 4; do
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives -b 256K -e 64M -f 4 -n 2 -w 1 \
      --strategy "$cpu_strategies" --ps-servers "$p" --ps-curve off \
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
  scripts/cluster.sh down --prefix gsx >/dev/null
  trap - EXIT
}

# jumbo_cluster_up DIR PREFIX HOSTS: HOSTS hosts x 1 slot at 500mbit, MTU
# 9000, its state under DIR/state, taken down on exit; DIR/check.txt says how
# its links measure. jumbo_cluster_down takes it down.
jumbo_cluster_up() {
  mkdir -p "$1"
  export GRADSYNC_CLUSTER_DIR=$1/state
  mkdir -p "$GRADSYNC_CLUSTER_DIR"
  jumbo_prefix=$2
  scripts/cluster.sh up --prefix "$2" --hosts "$3" --slots 1 --rate 500mbit --mtu 9000 >/dev/null
  trap 'scripts/cluster.sh down --prefix "$jumbo_prefix" >/dev/null' EXIT
  scripts/cluster.sh check >"$1/check.txt" || true
}
jumbo_cluster_down() {
  scripts/cluster.sh down --prefix "$jumbo_prefix" >/dev/null
  trap - EXIT
  unset GRADSYNC_CLUSTER_DIR
}

engines() {
  local dir=$out/engines p
  local sizes=(-b 16K -e 64M -f 4) strategies=ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,hierarchical-mpi,mpi-allreduce
  jumbo_cluster_up "$dir" gse 8
  for p in 2 4 8; do
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives "${sizes[@]}" -n 3 -w 1 \
      --strategy "$strategies" --json "$dir/measured.jsonl" >>"$dir/measured.txt"
    echo "engines: measured at $p workers"
  done
  jumbo_cluster_down
  # The cluster file from 2 and 4 workers only (8 is a prediction), and from
  # 256K up: below it messages fit in tbf's burst and pass faster than the
  # shaped rate (scripts/cluster/up.sh), which no constant of a link fits.
  jq -c 'select(.workers < 8) | .rows |= map(select(.size_bytes >= 262144))' \
    "$dir/measured.jsonl" >"$dir/calibration.jsonl"
  "$bin" calibrate "$dir/calibration.jsonl" -o "$dir/cluster.json" --name emulated-500mbit \
    >"$dir/calibrate.txt"
  cp "$dir/measured.jsonl" "$dir/engines.jsonl"
  for p in 2 4 8; do
    "$bin" collectives --engine smpi --cluster "$dir/cluster.json" --workers "$p" --mtu 9000 \
      "${sizes[@]}" -n 1 -w 0 --strategy "$strategies" --json "$dir/engines.jsonl" >>"$dir/smpi.txt"
    "$bin" collectives --engine model --cluster "$dir/cluster.json" --workers "$p" \
      "${sizes[@]}" --strategy "$strategies" --json "$dir/engines.jsonl" >>"$dir/model.txt"
  done
  GRADSYNC=$bin scripts/plots.sh engines "$dir/engines.jsonl" -o "$dir/figures" >/dev/null
  echo "engines: $dir/figures/errors.md"
}

engines_ps() {
  local dir=$out/engines-ps p servers transport
  local cluster=$out/engines/cluster.json sizes=(-b 16K -e 64M -f 4)
  [ -f "$cluster" ] || cluster=results/reference/smpi/validation/cluster.json
  jumbo_cluster_up "$dir" gsq 8
  for p in 2 4 8; do
    for servers in "$p" 1; do
      for transport in tcp mpi; do
        scripts/cluster.sh mpirun -np "$p" "$bin" collectives "${sizes[@]}" -n 3 -w 1 \
          --strategy ps-zmq --ps-servers "$servers" --ps-transport "$transport" \
          --json "$dir/measured.jsonl" >>"$dir/measured.txt"
      done
    done
    echo "engines-ps: measured at $p workers"
  done
  jumbo_cluster_down
  cp "$dir/measured.jsonl" "$dir/engines.jsonl"
  for p in 2 4 8; do
    for servers in "$p" 1; do
      "$bin" collectives --engine smpi --cluster "$cluster" --workers "$p" --mtu 9000 \
        "${sizes[@]}" -n 1 -w 0 --strategy ps-zmq --ps-servers "$servers" \
        --json "$dir/engines.jsonl" >>"$dir/smpi.txt"
      "$bin" collectives --engine model --cluster "$cluster" --workers "$p" \
        "${sizes[@]}" --strategy ps-zmq --ps-servers "$servers" \
        --json "$dir/engines.jsonl" >>"$dir/model.txt"
    done
  done
  GRADSYNC=$bin scripts/plots.sh engines "$dir/engines.jsonl" -o "$dir/figures" >/dev/null
  echo "engines-ps: $dir/figures/errors.md"
}

partitions() {
  local dir=$out/partitions round size
  jumbo_cluster_up "$dir" gsp 4
  run() {  # LABEL ARGS...: one run, its records in LABEL.jsonl
    local label=$1
    shift
    scripts/cluster.sh mpirun -np 4 "$bin" collectives -c 0 -b 16M -e 64M -f 4 -n 3 -w 1 \
      "$@" --json "$dir/$label.jsonl" >>"$dir/log.txt"
  }
  for round in 1 2 3; do
    for size in 4M 1M 256K; do
      run "ps-zmq-1-shard-$size" --strategy ps-zmq "${ps[@]}" --ps-partition "$size"
      run "ps-zmq-4-shards-$size" --strategy ps-zmq "${ps[@]}" --ps-servers 4 --ps-partition "$size"
    done
    run ring-mpi --strategy ring-mpi
  done
  jumbo_cluster_down
  python3 - "$dir" >"$dir/partitions.md" <<'PY'
import glob, json, os, statistics, sys
rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    for line in open(path):
        for row in json.loads(line)["rows"]:
            rows.setdefault(os.path.basename(path)[:-6], {}).setdefault(row["size_bytes"], []).append(row["time_us"] / 1e3)
sizes = sorted({b for r in rows.values() for b in r})
print("| run | " + " | ".join(f"{b >> 20} MiB (ms)" for b in sizes) + " |")
print("|---|" + "---:|" * len(sizes))
for label in sorted(rows, key=lambda l: (l.startswith("ring"), l)):
    cells = [f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})" for v in (rows[label][b] for b in sizes)]
    print(f"| {label} | " + " | ".join(cells) + " |")
PY
  echo "partitions: $dir/partitions.md"
}

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

for run in "${runs[@]}"; do
  case $run in
    ps-bottleneck) ps_bottleneck ;;
    hierarchy) hierarchy ;;
    published) published ;;
    algorithms) algorithms ;;
    cost-model) cost_model ;;
    server-hosts) server_hosts ;;
    extrapolation) extrapolation ;;
    partitions) partitions ;;
    engines) engines ;;
    engines-ps) engines_ps ;;
    *) echo "cluster-runs: unknown run '$run' (known: ps-bottleneck, hierarchy, published, cost-model, algorithms, server-hosts, extrapolation, partitions, engines, engines-ps)" >&2; exit 2 ;;
  esac
done
echo "cluster-runs: results in $out"
