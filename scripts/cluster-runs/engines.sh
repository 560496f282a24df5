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

# shellcheck shell=bash
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
