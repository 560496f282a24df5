# algorithms     the MPI allreduce algorithms where links, not cores, are
#                the bottleneck: 4 and 8 hosts x 1 slot at 500mbit, 16 and
#                64 MiB, ring-mpi, tree-mpi, double-tree-mpi,
#                halving-doubling-mpi and mpi-allreduce, with each rank's
#                bytes (about 5 minutes; not in the default set).

# shellcheck shell=bash
algorithms() {
  local dir=$out/algorithms hosts
  mkdir -p "$dir"
  for hosts in 4 8; do
    cluster_up "$dir/state-$hosts" gsa --hosts "$hosts" --slots 1 --rate 500mbit
    scripts/cluster.sh check >"$dir/check-$hosts.txt" || true
    scripts/cluster.sh mpirun -np "$hosts" "$bin" collectives -b 16M -e 64M -f 4 -n 3 -w 1 \
      --strategy ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,mpi-allreduce \
      --json "$dir/$hosts-x-1.jsonl" >"$dir/$hosts-x-1.txt"
    cluster_down
    echo "algorithms: $hosts hosts x 1 slot: $dir/$hosts-x-1.txt"
  done
  unset GRADSYNC_CLUSTER_DIR
  "$bin" report "$dir"/*.jsonl >"$dir/report.md"
}
