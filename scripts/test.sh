#!/usr/bin/env bash
# Installs, builds and runs the tests.
#
#   scripts/test.sh [--thorough] [CTEST ARGS...]
#
# The default (fast) mode builds build/ ($GRADSYNC_BUILD_DIR), the default
# build (CUDA parts when the toolkit is found), and build-smpi/ (the same
# code for SimGrid's SMPI, scripts/build-smpi.sh), and runs every test there:
# unit tests, multi-rank tests under mpirun for 1 to 8 ranks, command-line
# tests. ctest runs them $(nproc) at a time: unit tests side by side, a test
# that starts ranks alone (tests/CMakeLists.txt gives each its cores).
#
# --thorough (what CI runs) adds a build against MPICH and three sanitized
# builds, these compiled with clang (about a third faster than g++ with the
# sanitizers on, and a second compiler's warnings):
#   the GPU bundle (scripts/gpu-deps.sh) tried in a chroot without network
#       and without gradsync's Debian libraries (tests/gpu/chroot_check.sh);
#   build-mpich/ without CUDA, against MPICH (GRADSYNC_MPI=mpich), only the
#       multi-rank tests' binary, and the multi-rank suite at 1 to 3 ranks
#       with hierarchical-mpi's at 4 (its first with two hosts); more are
#       left to the Open MPI build, to save CI time: MPICH's ranks poll
#       while they wait, and 4 of them on 2 cores took 5 minutes. That is
#       enough that nothing Open MPI-only creeps into the code paths both use;
#   build-asan/  without CUDA or Gloo, with ASan + UBSan (GRADSYNC_SANITIZE):
#       the same tests again, less those of scripts and documents and with
#       the multi-rank suite at 1 to 3 ranks (tests/CMakeLists.txt), so that
#       the side without them (gpu/absent.cc, strategies/gloo/absent.cc and
#       the "not built" paths) is compiled and tested too, and any memory
#       error, leak of ours or undefined behaviour fails its test;
#   build-tsan/  with TSan (and Gloo when installed), only the
#       synchronizer's multi-rank tests (its
#       communication thread, backward's handing over, the strategies' own
#       threads) at 1 and 2 ranks, and the input stage's loader tests;
#   build-fuzz/  libFuzzer + ASan + UBSan over the PS frame decoder and the
#       readers of cluster files, published tables, records and sweep
#       ledgers (tests/fuzz/), GRADSYNC_FUZZ_SECONDS (30) each, $(nproc)
#       at a time.
# Extra arguments go to the first two builds' ctest (e.g. -R mpi). Every build
# is tested even when one before it failed, so that one run shows all
# failures; exits non-zero when any test failed. Each step prints its time.
# Every build compiles through ccache when it is installed
# (scripts/ccache-env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
thorough=0
if [ "${1:-}" = --thorough ]; then
  thorough=1
  shift
fi
build_dir=${GRADSYNC_BUILD_DIR:-build}
jobs=$(nproc)
status=0
# shellcheck source=scripts/ccache-env.sh
source scripts/ccache-env.sh

step_started=$SECONDS
step_done() {
  echo "test.sh: $1: $((SECONDS - step_started)) s"
  step_started=$SECONDS
}

# extra_build DIR TARGET CMAKE_ARGS...: configures DIR without CUDA, and
# builds TARGET (all: everything).
extra_build() {
  local dir=$1 target=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRADSYNC_CUDA=OFF "$@" \
    >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log" >&2; return 1; }
  grep -E '^-- gradsync:' "$dir.configure.log" || true
  cmake --build "$dir" -j "$jobs" --target "$target"
}

# sanitizer_build DIR TARGET CMAKE_ARGS...: extra_build with clang.
sanitizer_build() {
  local dir=$1 target=$2
  shift 2
  extra_build "$dir" "$target" -DCMAKE_CXX_COMPILER=clang++ "$@"
}

scripts/install-deps.sh "$([ "$thorough" = 1 ] && echo thorough || echo tests)"
GRADSYNC_SKIP_INSTALL=1 scripts/build.sh
step_done "$build_dir: build"
# The SMPI build (SimGrid comes with the tests' packages), which the
# plumbing test (tests/cli/smpi.sh) runs at 16 simulated ranks.
GRADSYNC_SKIP_INSTALL=1 scripts/build-smpi.sh || status=$?
step_done "build-smpi: build"
ctest --test-dir "$build_dir" --output-on-failure --parallel "$jobs" --timeout 600 "$@" || status=$?
step_done "$build_dir: tests"
if [ "$thorough" = 0 ]; then
  echo "test.sh: fast mode done; scripts/test.sh --thorough adds the ASan+UBSan, TSan and fuzz builds"
  exit "$status"
fi

extra_build "$build_dir-mpich" gradsync_mpi_tests -DGRADSYNC_MPI=mpich -DGRADSYNC_BUILD_BENCH=OFF
step_done "$build_dir-mpich: build"
ctest --test-dir "$build_dir-mpich" --output-on-failure --parallel "$jobs" --timeout 600 \
  -R '^mpi\.(strategies\.np[1-3]|hierarchical\.np4)$' || status=$?
step_done "$build_dir-mpich: tests"

# The Debian bundle for GPU images (scripts/gpu-deps.sh, which downloads
# Debian's packages; made once, kept while it exists) tried in a chroot
# without gradsync's Debian libraries or network: gpu-check's summary and
# verdicts there, with the default build's binaries, and a reduced build
# (about a minute, and about 2 minutes more to make the bundle).
# Without root it skips (77), saying so.
chroot_status=0
{ [ -f .gpu-deps.tar.xz ] || scripts/gpu-deps.sh; } && bash tests/gpu/chroot_check.sh "$build_dir" || chroot_status=$?
[ "$chroot_status" = 0 ] || [ "$chroot_status" = 77 ] || status=$chroot_status
step_done "gpu bundle in a chroot"

sanitizer_build "$build_dir-asan" all -DGRADSYNC_SANITIZE=address,undefined -DGRADSYNC_BUILD_BENCH=OFF \
  -DGRADSYNC_GLOO=OFF
step_done "$build_dir-asan: build"
ctest --test-dir "$build_dir-asan" --output-on-failure --parallel "$jobs" --timeout 900 "$@" || status=$?
step_done "$build_dir-asan: tests"

sanitizer_build "$build_dir-tsan" gradsync_tsan_tests -DGRADSYNC_SANITIZE=thread \
  -DGRADSYNC_BUILD_BENCH=OFF
step_done "$build_dir-tsan: build"
ctest --test-dir "$build_dir-tsan" --output-on-failure -R '^tsan\.' || status=$?
step_done "$build_dir-tsan: tests"

sanitizer_build "$build_dir-fuzz" gradsync_fuzz_targets -DGRADSYNC_BUILD_FUZZ=ON \
  -DGRADSYNC_BUILD_BENCH=OFF
step_done "$build_dir-fuzz: build"
ctest --test-dir "$build_dir-fuzz" --output-on-failure --parallel "$jobs" -R '^fuzz\.' || status=$?
step_done "$build_dir-fuzz: fuzzing"
exit "$status"
