# partitions     ps-zmq's partition size across hosts: 4 hosts x 1 slot at
#                500mbit (MTU 9000), 16 and 64 MiB allreduces with one
#                colocated shard and with one per worker, in partitions of
#                4M, 1M and 256K, beside ring-mpi, 3 alternating rounds; a
#                table of the median time per call (min-max), partitions.md
#                (about 5 minutes; not in the default set).

# shellcheck shell=bash
partitions() {
  local dir=$out/partitions size
  jumbo_cluster_up "$dir" gsp 4
  for _ in 1 2 3; do  # three rounds, each of every run
    for size in 4M 1M 256K; do
      partitions_run "$dir" "ps-zmq-1-shard-$size" --strategy ps-zmq "${ps[@]}" --ps-partition "$size"
      partitions_run "$dir" "ps-zmq-4-shards-$size" --strategy ps-zmq "${ps[@]}" --ps-servers 4 \
        --ps-partition "$size"
    done
    partitions_run "$dir" ring-mpi --strategy ring-mpi
  done
  jumbo_cluster_down
  # The table: plots/gsplots/partitions.py (no matplotlib needed).
  python3 plots/gradsync_plots.py partitions "$dir" >"$dir/partitions.md"
  echo "partitions: $dir/partitions.md"
}

# partitions_run DIR LABEL ARGS...: one run of 16 and 64 MiB on the 4 hosts,
# its records in DIR/LABEL.jsonl.
partitions_run() {
  local dir=$1 label=$2
  shift 2
  scripts/cluster.sh mpirun -np 4 "$bin" collectives -c 0 -b 16M -e 64M -f 4 -n 3 -w 1 \
    "$@" --json "$dir/$label.jsonl" >>"$dir/log.txt"
}
