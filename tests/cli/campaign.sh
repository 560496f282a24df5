#!/usr/bin/env bash
# The fault campaign's CTest-sized subset (scripts/fault-campaign.py): 12
# seeded runs, two of each fault kind (a rank stopped or killed, links that
# move nothing, a bad option on one rank, a full disk, forged ZeroMQ
# traffic), each judged on ending in time with one true line, nothing
# recorded wrong or lost, nothing torn and nothing left running. The full
# campaign (240 runs, its table in docs/guide/troubleshooting.md) is the same
# script with --runs 240. Needs root (tc, mount): skips without it.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the fault campaign needs root (tc for slow links, mount for a full disk)"
  exit 77
fi
for tool in nsenter tc mount; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool here"; exit 77; }
done
python=$(command -v python3)
exec "$python" "$(dirname "$0")/../../scripts/fault-campaign.py" --runs 12 --seed 1 --gradsync "$GRADSYNC"
