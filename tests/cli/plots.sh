#!/usr/bin/env bash
# The plot tests (plots/tests/, Python unittest) on the fixture records in
# tests/fixtures/, with the interpreter scripts/plots.sh would use: the first
# of $GRADSYNC_PYTHON, /usr/bin/python3, python3, python that has matplotlib.
# The figures draw what `gradsync report --format json` computes, so this
# needs the binary: $GRADSYNC (CTest sets it). Fails when no interpreter has
# matplotlib.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
export GRADSYNC
root=$(cd "$(dirname "$0")/../.." && pwd)
for py in ${GRADSYNC_PYTHON:-} /usr/bin/python3 python3 python; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import matplotlib' >/dev/null 2>&1; then
    export MPLBACKEND=Agg
    cd "$root"
    exec "$py" -m unittest discover -s plots/tests -p 'test_*.py'
  fi
done
echo "FAIL: no Python with matplotlib found; scripts/install-deps.sh installs python3-matplotlib" >&2
exit 1
