#!/usr/bin/env bash
# Installs the Debian packages gradsync needs (skip with GRADSYNC_SKIP_INSTALL=1)
# and builds everything into build/ (or $GRADSYNC_BUILD_DIR). GRADSYNC_CUDA=AUTO|ON|OFF
# chooses the CUDA/NCCL parts (default AUTO: built when the toolkit is found).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${GRADSYNC_SKIP_INSTALL:-0}" = 1 ] || scripts/install-deps.sh
build_dir=${GRADSYNC_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGRADSYNC_CUDA="${GRADSYNC_CUDA:-AUTO}" >"$build_dir.configure.log" 2>&1 ||
  { cat "$build_dir.configure.log" >&2; exit 1; }
grep -E '^-- gradsync:' "$build_dir.configure.log" || true
cmake --build "$build_dir" -j "$(nproc)"
