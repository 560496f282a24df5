# hierarchy      ring-mpi, hierarchical-mpi and mpi-allreduce, 64 MiB, 8
#                ranks: 8 hosts x 1 slot against 4 hosts x 2 slots (ranks host
#                by host, and dealt round the hosts with --map-by node), all at
#                500mbit; then on 4 hosts x 2 slots (host by host) ResNet-50
#                (emulated V100, batch 32, --time-scale 50) under ring-mpi and
#                hierarchical-mpi at 8 workers, with the links' wire bytes.

# shellcheck shell=bash
hierarchy() {
  local dir=$out/hierarchy
  mkdir -p "$dir"
  local shape hosts slots map
  for shape in "8 1 by-slot" "4 2 by-slot" "4 2 by-node"; do
    read -r hosts slots map <<<"$shape"
    cluster_up "$dir/state-$hosts-$slots" gsr --hosts "$hosts" --slots "$slots" --rate 500mbit
    scripts/cluster.sh check >"$dir/check-$hosts-$slots.txt" || true
    local extra=()
    [ "$map" = by-node ] && extra=(--map-by node)
    scripts/cluster.sh mpirun -np 8 "${extra[@]}" "$bin" collectives -b 64M -e 64M -n 3 -w 1 \
      --strategy ring-mpi,hierarchical-mpi,mpi-allreduce --json "$dir/$hosts-x-$slots-$map.jsonl" \
      >"$dir/$hosts-x-$slots-$map.txt"
    if [ "$hosts $slots $map" = "4 2 by-slot" ]; then  # training: the flat ring against the hierarchy
      local strategy
      for strategy in ring-mpi hierarchical-mpi; do
        # shellcheck disable=SC2086  # $frame is a list of arguments
        scripts/cluster.sh mpirun -np 8 "$bin" train --model resnet50 --compute emulated \
          --device v100 --batch-size 32 --time-scale 50 $frame --strategy "$strategy" \
          --out "$dir/train-4-x-2.jsonl" >>"$dir/train-4-x-2.txt"
      done
      "$bin" report "$dir/train-4-x-2.jsonl" >"$dir/report-train-4-x-2.md"
    fi
    cluster_down
    echo "hierarchy: $hosts hosts x $slots slots, ranks $map: $dir/$hosts-x-$slots-$map.txt"
    "$bin" report "$dir/$hosts-x-$slots-$map.jsonl" >>"$dir/report.md"
  done
}
