#!/usr/bin/env bash
# Installs the Debian packages a build needs (scripts/install-deps.sh build;
# skip with GRADSYNC_SKIP_INSTALL=1) and builds into build/ (or
# $GRADSYNC_BUILD_DIR):
#
#   scripts/build.sh [TARGET...]
#
# every target by default, or only the ones named (scripts/quickstart.sh
# builds `gradsync` alone). GRADSYNC_CUDA=AUTO|ON|OFF chooses the CUDA/NCCL
# parts (default AUTO: built when the toolkit is found); GRADSYNC_MPI=
# auto|openmpi|mpich the MPI (cmake/GradsyncMpi.cmake; unset: the build
# directory's earlier choice, else auto: Open MPI when installed). CMake's
# configure output goes to $build_dir.configure.log (its "-- gradsync:" lines,
# what was found, on the screen; the whole log when it fails). Ninja prints
# each step as it goes ([done/total]), on one line rewritten in place on a
# terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${GRADSYNC_SKIP_INSTALL:-0}" = 1 ] || scripts/install-deps.sh build
build_dir=${GRADSYNC_BUILD_DIR:-build}
# shellcheck source=scripts/ccache-env.sh
source scripts/ccache-env.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGRADSYNC_CUDA="${GRADSYNC_CUDA:-AUTO}" ${GRADSYNC_MPI:+-DGRADSYNC_MPI="$GRADSYNC_MPI"} \
  >"$build_dir.configure.log" 2>&1 ||
  { cat "$build_dir.configure.log" >&2
    echo "build: error: CMake's configure step failed (its output above is in $build_dir.configure.log)" >&2
    exit 1; }
grep -E '^-- gradsync:' "$build_dir.configure.log" || true
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
