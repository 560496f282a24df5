#!/usr/bin/env bash
# mpirun with the flags this project's local runs need: running as root is
# allowed (containers, CI), more ranks than cores are allowed (a 2-core machine
# runs 5-rank tests), and on a single host the byte transfer layers are shared
# memory and loopback TCP; sanitizer options reach the ranks. Extra mpirun options and the command follow.
#   scripts/mpirun.sh -np 4 build/bin/gradsync collectives ...
set -euo pipefail
args=(--oversubscribe --bind-to none)
[ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
if [ -z "${GRADSYNC_HOSTFILE:-}" ]; then
  args+=(--mca btl self,vader,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
else
  args+=(--hostfile "$GRADSYNC_HOSTFILE")
fi
# A sanitizer's options, when set here, go to every rank, on other hosts too
# (a sanitized build's own defaults are compiled in: cmake/sanitizer_defaults.cc).
for var in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS; do
  [ -z "${!var:-}" ] || args+=(-x "$var")
done
exec mpirun "${args[@]}" "$@"
