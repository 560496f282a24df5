#!/usr/bin/env bash
# The fault campaign's CTest-sized subset (scripts/fault-campaign.py): 17
# seeded runs, two of each first fault kind (a rank stopped or killed, links
# that move nothing, a bad option on one rank, a full disk, forged ZeroMQ
# traffic) and one of each later one (an input stage starved, /dev/shm
# filled, a bad published table, two sweeps into one folder, a signal to the
# launcher), each judged on ending in time with one true line, nothing
# recorded wrong or lost, nothing torn and nothing left running. The full
# campaign (its table in docs/guide/troubleshooting.md) is the same script
# with more runs. Needs root (tc, mount, cgroups): skips without it.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the fault campaign needs root (tc for slow links, mount for a full disk and a small /dev/shm)"
  exit 77
fi
for tool in nsenter tc mount unshare; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool here"; exit 77; }
done
python=$(command -v python3)
exec "$python" "$(dirname "$0")/../../scripts/fault-campaign.py" --runs 17 --seed 1 --gradsync "$GRADSYNC"
