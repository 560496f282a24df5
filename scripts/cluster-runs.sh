#!/usr/bin/env bash
# The runs behind docs/results/emulated-cluster.md (and the cluster figures of
# docs/results/which-allreduce-wins.md and cost-model-checks.md): each one
# brings up an emulated cluster (scripts/cluster.sh, as root), runs on it,
# and takes it down. Results go to results/cluster-<UTC time>/<run>/ (records,
# logs, report). About 25 minutes on 2 cores for all three.
#
#   scripts/cluster-runs.sh [ps-bottleneck] [hierarchy] [published] [cost-model] [algorithms]
#                           [server-hosts] [extrapolation] [partitions] [engines]
#                           [engines-ps] [ps-schedule] [priorities]
#   scripts/cluster-runs.sh --help      this, and what each run does
#
# GRADSYNC_RUNS_STRATEGIES=ps-zmq (a comma-separated list) narrows the CPU
# strategies a run covers to those (each strategy is calibrated and checked
# on its own records); GRADSYNC_RUNS_OUT names the results folder.
#
set -euo pipefail
cd "$(dirname "$0")/.."
# Each run is one file of scripts/cluster-runs/, named after it, that defines
# the function of its name (- as _) under a comment saying what it does;
# common.sh holds what they share (the binary, $out, clusters up and down).
# The order --help shows them in:
runs_known=(ps-bottleneck hierarchy algorithms server-hosts published extrapolation partitions engines
  engines-ps ps-schedule priorities cost-model)

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  local run
  for run in "${runs_known[@]}"; do  # each file's leading comment
    awk '!/^#/ { exit } { sub(/^# ?/, ""); print }' "scripts/cluster-runs/$run.sh"
  done
}
case ${1:-} in -h | --help) usage; exit 0 ;; esac

# shellcheck source=scripts/cluster-runs/common.sh
. scripts/cluster-runs/common.sh
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(ps-bottleneck hierarchy published)
for run in "${runs[@]}"; do
  case " ${runs_known[*]} " in
    *" $run "*) ;;
    *) echo "cluster-runs: unknown run '$run' (known: ps-bottleneck, hierarchy, published, cost-model, algorithms, server-hosts, extrapolation, partitions, engines, engines-ps, ps-schedule, priorities)" >&2; exit 2 ;;
  esac
  # shellcheck source=/dev/null
  . "scripts/cluster-runs/$run.sh"
  "${run//-/_}"
done
echo "cluster-runs: results in $out"
