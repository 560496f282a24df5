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

# shellcheck shell=bash
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
