#!/usr/bin/env bash
# The unit tests of the scripts' Python packages (scripts/tests/, Python
# unittest): the DDP reference's command line, record, measurements and zoo
# table (scripts/ddp_reference/), and the fault campaign's plan, judging and
# table (scripts/fault_campaign/), none of which start a job. With the first
# of $GRADSYNC_PYTHON, /usr/bin/python3, python3 that runs; the zoo's tests
# need the binary ($GRADSYNC, which CTest sets), and the torch module's test
# skips, saying so, in a Python without PyTorch.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
export GRADSYNC
root=$(cd "$(dirname "$0")/../.." && pwd)
for py in ${GRADSYNC_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$py" >/dev/null 2>&1; then
    cd "$root"
    exec "$py" -m unittest discover -s scripts/tests -p 'test_*.py'
  fi
done
echo "FAIL: no Python 3 found" >&2
exit 1
