#!/usr/bin/env bash
# Installs, builds and runs every test, in four builds:
#   build/ ($GRADSYNC_BUILD_DIR)  the default build (CUDA parts when the toolkit
#       is found): unit tests, multi-rank tests under mpirun for 1 to 5 ranks,
#       command-line tests;
#   build-asan/  without CUDA, with ASan + UBSan (GRADSYNC_SANITIZE): the same
#       tests again, so that the no-CUDA side (gpu/absent.cc and the "not
#       built" paths) is compiled and tested too, and any memory error, leak of
#       ours or undefined behaviour fails its test;
#   build-tsan/  with TSan, only the synchronizer's multi-rank tests (its
#       communication thread, backward's handing over, the strategies' own
#       threads) at 1 and 2 ranks;
#   build-fuzz/  clang, libFuzzer + ASan + UBSan over the PS frame decoder, for
#       GRADSYNC_FUZZ_SECONDS (30).
# Extra arguments go to the first two builds' ctest (e.g. -R mpi). Every build
# is tested even when one before it failed, so that one run shows all
# failures; exits non-zero when any test failed. Each step prints its time.
# With ccache installed (scripts/install-deps.sh installs it), every build
# compiles through it, so a repeated run (a clean clone included, wherever it
# lies: paths are hashed relative to the clone, and the sanitized builds'
# debug line tables do not pin the directory) recompiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GRADSYNC_BUILD_DIR:-build}
status=0
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
fi

step_started=$SECONDS
step_done() {
  echo "test.sh: $1: $((SECONDS - step_started)) s"
  step_started=$SECONDS
}

# sanitizer_build DIR TARGET CMAKE_ARGS...: configures DIR without CUDA and
# builds TARGET (all: everything).
sanitizer_build() {
  local dir=$1 target=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRADSYNC_CUDA=OFF "$@" \
    >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log" >&2; return 1; }
  grep -E '^-- gradsync:' "$dir.configure.log" || true
  cmake --build "$dir" -j "$(nproc)" --target "$target"
}

scripts/build.sh
step_done "$build_dir: build"
ctest --test-dir "$build_dir" --output-on-failure --timeout 600 "$@" || status=$?
step_done "$build_dir: tests"

sanitizer_build "$build_dir-asan" all -DGRADSYNC_SANITIZE=address,undefined -DGRADSYNC_BUILD_BENCH=OFF
step_done "$build_dir-asan: build"
ctest --test-dir "$build_dir-asan" --output-on-failure --timeout 900 "$@" || status=$?
step_done "$build_dir-asan: tests"

sanitizer_build "$build_dir-tsan" gradsync_synchronizer_tests -DGRADSYNC_SANITIZE=thread \
  -DGRADSYNC_BUILD_BENCH=OFF
step_done "$build_dir-tsan: build"
ctest --test-dir "$build_dir-tsan" --output-on-failure -R '^tsan\.' || status=$?
step_done "$build_dir-tsan: tests"

CXX=clang++ sanitizer_build "$build_dir-fuzz" ps_frame_fuzz -DGRADSYNC_BUILD_FUZZ=ON \
  -DGRADSYNC_BUILD_BENCH=OFF
step_done "$build_dir-fuzz: build"
ctest --test-dir "$build_dir-fuzz" --output-on-failure -R '^fuzz\.' || status=$?
step_done "$build_dir-fuzz: fuzzing"
exit "$status"
