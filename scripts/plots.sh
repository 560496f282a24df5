#!/usr/bin/env bash
# Draws figures from result records: scripts/plots.sh SUBCOMMAND RESULTS... [-o DIR]
# (efficiency, throughput, busbw, breakdown, simulated, projection, all), or
# the cost model's crossover map: scripts/plots.sh crossover FILE.json [-o DIR],
# or SMPI beside the cost model: scripts/plots.sh engines FILE.jsonl [-o DIR],
# or the parameter server against the ring over k server hosts, from the
# directory `scripts/cluster-runs.sh server-hosts` writes: scripts/plots.sh
# server-hosts DIR [-o OUT] (--help for more). What the record figures show
# is computed by `gradsync report --format json`: the binary is $GRADSYNC,
# else build/bin/gradsync in this checkout; crossover and engines read their files
# themselves and need no binary.
# Finds a Python that has matplotlib: /usr/bin/python3 (Debian's), then
# python3 and python on PATH; $GRADSYNC_PYTHON, when set, is tried first.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
GRADSYNC=${GRADSYNC:-$here/build/bin/gradsync}
if [[ ${1:-} != crossover && ${1:-} != engines && ! -x $GRADSYNC ]]; then
  echo "gradsync-plots: error: no gradsync binary at $GRADSYNC (set \$GRADSYNC, or build one: scripts/build.sh)" >&2
  exit 1
fi
export GRADSYNC
for py in ${GRADSYNC_PYTHON:-} /usr/bin/python3 python3 python; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import matplotlib' >/dev/null 2>&1; then
    export MPLBACKEND=Agg
    exec "$py" "$here/plots/gradsync_plots.py" "$@"
  fi
done
echo "gradsync-plots: error: no Python with matplotlib found (tried ${GRADSYNC_PYTHON:+$GRADSYNC_PYTHON, }/usr/bin/python3, python3, python); scripts/install-deps.sh installs python3-matplotlib" >&2
exit 1
