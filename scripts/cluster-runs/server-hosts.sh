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

# shellcheck shell=bash
server_hosts() {
  local dir=$out/server-hosts k
  mkdir -p "$dir"
  # 8 hosts whose links all carry traffic at once, both ways: at 500mbit and
  # MTU 1500 that is more packets than 2 cores can switch, and the shards
  # starved (docs/results/cost-model-checks.md, "Why 250mbit"). Jumbo frames cut
  # the packets six-fold and half the rate halves the bytes; time x40 keeps
  # the cluster it stands for (10gbit) the same.
  local rate=${GRADSYNC_SERVER_HOSTS_RATE:-250mbit} mtu=${GRADSYNC_SERVER_HOSTS_MTU:-9000}
  local scale=${GRADSYNC_SERVER_HOSTS_TIME_SCALE:-40} partition=${GRADSYNC_SERVER_HOSTS_PARTITION:-1M}
  cluster_up "$dir/state" gsp --hosts 8 --slots 1 --rate "$rate" --mtu "$mtu"
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
  cluster_down
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
  # Measured img/sec of the 4 workers beside the model's, both at the time
  # scale (plots/gsplots/server_hosts.py: the table needs no matplotlib), and
  # the same as a figure: ps-zmq against k beside ring-mpi, measured and the
  # model's (plots/README.md). A figure that cannot be drawn (no matplotlib)
  # does not fail the run: the records and the table are there.
  GRADSYNC=$(realpath "$bin") python3 plots/gradsync_plots.py server-hosts-table "$dir" >"$dir/report.md"
  GRADSYNC=$(realpath "$bin") scripts/plots.sh server-hosts "$dir" -o "$dir/figures" ||
    echo "cluster-runs: server-hosts: no figure (see above); records and report.md in $dir" >&2
  cat "$dir/report.md"
}
