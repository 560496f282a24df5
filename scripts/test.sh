#!/usr/bin/env bash
# Installs, builds and runs every test: unit tests, multi-rank tests under
# mpirun for 1 to 5 ranks, command-line tests. Twice: in the default build
# (build/ or $GRADSYNC_BUILD_DIR; CUDA parts when the toolkit is found), then
# in a build without CUDA (the same directory name + "-nocuda"), so that the
# no-CUDA side (gpu/absent.cc and the "not built" paths) is compiled and
# tested too. Extra arguments go to ctest (e.g. -R mpi). Exits non-zero when
# any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GRADSYNC_BUILD_DIR:-build}
status=0
scripts/build.sh
ctest --test-dir "$build_dir" --output-on-failure --timeout 600 "$@" || status=$?
if ! grep -q '^-- gradsync: CUDA/NCCL parts ON' "$build_dir.configure.log"; then
  echo "test.sh: the default build has no CUDA parts, so it was the build without CUDA"
  exit "$status"
fi
# Both builds are tested even when the first has failures, so that one run
# shows all of them.
GRADSYNC_SKIP_INSTALL=1 GRADSYNC_CUDA=OFF GRADSYNC_BUILD_DIR="$build_dir-nocuda" scripts/build.sh
ctest --test-dir "$build_dir-nocuda" --output-on-failure --timeout 600 "$@" || status=$?
exit "$status"
