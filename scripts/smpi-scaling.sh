#!/usr/bin/env bash
# The suite's own allreduce algorithms from 16 to 1,024 workers under
# SimGrid's SMPI, beside the cost model's prediction of the same runs, into
# one results folder with a figure per message size:
#
#   scripts/smpi-scaling.sh [--cluster FILE] [--workers "16 64 256 1024"]
#       [--strategy LIST] [--size BYTES] [--ps-servers K|workers] [--out DIR]
#       [--save-validation FILE] [-- COLLECTIVES FLAGS...]
#
# For every worker count: `gradsync collectives --engine smpi` (shared
# buffers, reductions costed at the cluster file's rate, one timed
# iteration) and `--engine model`, both appending to DIR/collectives.jsonl;
# then `scripts/plots.sh engines` draws DIR/figures/engines-SIZE.png. Flags
# after -- go to both, but for the SMPI platform's (--topology,
# --hosts-per-leaf, --oversubscription, --mtu, --selector, --reduce-rate),
# which describe a network the cost model does not have and go to the SMPI
# runs alone (e.g. -- --topology fat-tree --oversubscription 2).
# --ps-servers gives ps-zmq K shards, or with `workers` one per worker at
# every worker count (it runs over MPI messages there, as SMPI needs).
# --save-validation writes FILE, a copy of the cluster file whose
# validation gains the model against SMPI (DIR/figures/validation.json:
# per strategy, the model's errors in throughput terms), so that
# `gradsync simulate project --cluster FILE` projections carry SMPI's band where it
# is wider than the cluster's own, and count as validated up to these
# worker counts.
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
ps_servers=
save_validation=
out=$root/results/smpi-scaling-$(date -u +%Y%m%dT%H%M%SZ)
while [ $# -gt 0 ]; do
  case $1 in
    --cluster) cluster=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --strategy) strategies=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --ps-servers) ps_servers=$2; shift 2 ;;
    --save-validation) save_validation=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "smpi-scaling: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$gradsync" ] || { echo "smpi-scaling: no gradsync at $gradsync (scripts/build.sh)" >&2; exit 1; }
mkdir -p "$out"
records=$out/collectives.jsonl
platform=() both=()
while [ $# -gt 0 ]; do
  case $1 in
    --topology=* | --hosts-per-leaf=* | --oversubscription=* | --mtu=* | --selector=* | --reduce-rate=*)
      platform+=("$1"); shift ;;
    --topology | --hosts-per-leaf | --oversubscription | --mtu | --selector | --reduce-rate)
      platform+=("$1" "$2"); shift 2 ;;
    *) both+=("$1"); shift ;;
  esac
done
common=(--cluster "$cluster" --strategy "$strategies" -b "$size" -e "$size" --json "$records" "${both[@]}")
for n in $workers; do
  shards=()
  [ -z "$ps_servers" ] || shards=(--ps-servers "${ps_servers/#workers/$n}")
  started=$SECONDS
  "$gradsync" collectives --engine smpi --workers "$n" -n 1 -w 0 -c 0 --shared-buffers \
    "${common[@]}" "${platform[@]}" "${shards[@]}" | grep -vE '^#  (Rank|  Bytes sent)'
  echo "smpi-scaling: SMPI at $n workers: $((SECONDS - started)) s"
  "$gradsync" collectives --engine model --workers "$n" "${common[@]}" "${shards[@]}"
done
GRADSYNC=$gradsync "$root/scripts/plots.sh" engines "$records" -o "$out/figures"
if [ -n "$save_validation" ]; then
  [ -f "$out/figures/validation.json" ] ||
    { echo "smpi-scaling: no model against SMPI to save (no worker count of 2 or more?)" >&2; exit 1; }
  # A strategy's earlier entry against SMPI is replaced; its entry against
  # runs or tables stays.
  jq --slurpfile entries "$out/figures/validation.json" '.validation = ([(.validation // [])[]
      | select(.strategy as $s | (.engine // "") != "smpi" or ($entries[0] | all(.strategy != $s)))]
      + $entries[0])' "$cluster" >"$save_validation.tmp"
  mv "$save_validation.tmp" "$save_validation"
  echo "smpi-scaling: $save_validation: $cluster with the model's band against SMPI"
fi
