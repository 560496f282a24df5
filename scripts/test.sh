#!/usr/bin/env bash
# Installs, builds and runs every test: unit tests, multi-rank tests under
# mpirun for 1 to 5 ranks, command-line tests. Extra arguments go to ctest
# (e.g. -R mpi). Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir "${GRADSYNC_BUILD_DIR:-build}" --output-on-failure --timeout 600 "$@"
