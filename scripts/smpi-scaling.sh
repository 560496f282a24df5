#!/usr/bin/env bash
# The suite's own allreduce algorithms from 16 to 1,024 workers under
# SimGrid's SMPI, beside the cost model's prediction of the same runs, into
# one results folder with a figure per message size:
#
#   scripts/smpi-scaling.sh [--cluster FILE] [--workers "16 64 256 1024"]
#       [--strategy LIST] [--size BYTES] [--out DIR] [-- COLLECTIVES FLAGS...]
#
# For every worker count: `gradsync collectives --engine smpi` (shared
# buffers, reductions costed at the cluster file's rate, one timed
# iteration) and `--engine model`, both appending to DIR/collectives.jsonl;
# then `scripts/plots.sh engines` draws DIR/figures/engines-SIZE.png. Flags
# after -- go to both (e.g. -- --topology fat-tree --oversubscription 2).
# Defaults: the Horovod cluster of results/reference/clusters/, every MPI
# strategy, 64 MiB, DIR results/smpi-scaling-<time>. Needs the SMPI build
# (scripts/build-smpi.sh) and the default one (scripts/build.sh). Each run
# prints its wall time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gradsync=${GRADSYNC:-$root/build/bin/gradsync}
cluster=$root/results/reference/clusters/horovod-p100-roce25.json
workers="16 64 256 1024"
strategies=ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,hierarchical-mpi,mpi-allreduce
size=64M
out=$root/results/smpi-scaling-$(date -u +%Y%m%dT%H%M%SZ)
while [ $# -gt 0 ]; do
  case $1 in
    --cluster) cluster=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --strategy) strategies=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "smpi-scaling: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$gradsync" ] || { echo "smpi-scaling: no gradsync at $gradsync (scripts/build.sh)" >&2; exit 1; }
mkdir -p "$out"
records=$out/collectives.jsonl
common=(--cluster "$cluster" --strategy "$strategies" -b "$size" -e "$size" --json "$records" "$@")
for n in $workers; do
  started=$SECONDS
  "$gradsync" collectives --engine smpi --workers "$n" -n 1 -w 0 -c 0 --shared-buffers \
    "${common[@]}" | grep -vE '^#  (Rank|  Bytes sent)'
  echo "smpi-scaling: SMPI at $n workers: $((SECONDS - started)) s"
  "$gradsync" collectives --engine model --workers "$n" "${common[@]}"
done
GRADSYNC=$gradsync "$root/scripts/plots.sh" engines "$records" -o "$out/figures"
