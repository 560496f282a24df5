#!/usr/bin/env bash
# Builds gradsync for SimGrid's SMPI into build-smpi/ ($GRADSYNC_SMPI_BUILD_DIR),
# after installing SimGrid (scripts/install-deps.sh smpi; skip with
# GRADSYNC_SKIP_INSTALL=1):
#
#   scripts/build-smpi.sh
#
# The same strategy and harness code as build/, against SimGrid's MPI
# (GRADSYNC_MPI=smpi, cmake/GradsyncSmpi.cmake): a binary that runs only
# under smpirun, which `gradsync collectives --engine smpi` starts
# (docs/guide/smpi.md). Neither the quickstart nor the default build needs it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${GRADSYNC_SKIP_INSTALL:-0}" = 1 ] || scripts/install-deps.sh smpi
GRADSYNC_SKIP_INSTALL=1 GRADSYNC_MPI=smpi GRADSYNC_BUILD_DIR="${GRADSYNC_SMPI_BUILD_DIR:-build-smpi}" \
  exec scripts/build.sh gradsync
