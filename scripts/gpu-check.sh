#!/usr/bin/env bash
# The GPU check: what to run first on a GPU machine. One short run (at most 8
# minutes on a 16-core machine with one GPU) that builds gradsync with CUDA
# and checks every GPU feature of the suite, each step under its own time
# limit, a failed step never stopping the others:
#   1. environment  the Debian bundle (if any) against this machine's glibc and
#                   libstdc++, CMake/ninja/nvcc, whether a GPU is visible
#   2. build        Release, GRADSYNC_CUDA=ON, tests on, benchmarks off, into
#                   build-gpu/; then a 2-rank CPU sanity run (MPI and ZeroMQ)
#   3. tests        the GPU GoogleTests (names matching Cuda|Gpu|Nccl|Device) of the
#                   unit and (2 ranks on one GPU) multi-rank suites: ran, skipped, why
#   4. collectives  each NCCL strategy on device memory, 8 B to 256 MiB, and each
#                   host strategy staged through device memory, 1 to 64 MiB; 1 rank;
#                   then 2 ranks sharing GPU 0: ring-mpi training with CUDA compute,
#                   and nccl-ring refused in one line (run, with 2 or more GPUs)
#   5. train        train --compute cuda: small-cnn and resnet50 (batch 64) per
#                   --precision fp32, mixed, tf32, and the PyTorch DDP reference
#                   over NCCL (scripts/ddp-reference.py, 1 worker) on resnet50 fp32
#   6. summary      one row per step and feature: PASS, FAIL, TIMEOUT (cut off at
#                   its time limit: slow, not known to be wrong) or SKIP (with why:
#                   no GPU, a tool missing, no time left), with its figure
# The summary comes out however the run ends (a step failing, a tool or the
# bundle missing, a binary that does not start, Ctrl-C).
#
#   scripts/gpu-check.sh [--dry-run] [--skip-build | --configure-only] [--no-gpu-ok]
#                        [--force-gpu-steps] [--help]
#
# --dry-run prints the commands instead of running them; --skip-build uses the
# build directory as it is; --configure-only configures it (CMake finds
# CUDA, NCCL, cuDNN and the bundle's libraries) without building, then uses
# it as it is; --force-gpu-steps runs the GPU steps without a visible GPU (to
# see how they fail).
#
# It works on a GPU machine with Debian's packages installed
# (scripts/install-deps.sh) and on one without them, such as a GPU image with
# only CUDA, CMake, ninja and PyTorch: there it uses the bundle that
# scripts/gpu-deps.sh makes on a Debian 12 machine (.gpu-deps/, or
# .gpu-deps.tar.xz, which it unpacks first). Copy the checkout with that file
# to the GPU machine and run "bash scripts/gpu-check.sh" there. NCCL and cuDNN
# are taken from the CUDA toolkit, the system, or else NVIDIA's Python wheels
# (nvidia-nccl-*, nvidia-cudnn-*) of any python3 there.
#
# Output, in GPU_CHECK_OUT (build-gpu/gpu-check): gpu-check.txt (the summary,
# also printed last), gpu-check.json (per step: its feature, ran, correct,
# speed (img/s or GB/s), verdict and figure), gpu-check.log (every command's
# output), collectives.jsonl and train.jsonl (result records), gpu-tests.xml.
#
# Exit: 0 every step passed (or was skipped for time); 1 a step failed;
# 4 a step timed out (none failed); 2 a bad option, or a tool the build needs
# is missing; 3 no GPU is visible, so the GPU steps were skipped (--no-gpu-ok
# makes that 0).
#
# Environment: GPU_CHECK_OUT, GPU_CHECK_BUILD_DIR (build-gpu), GPU_CHECK_JOBS
# (all cores), GPU_CHECK_BUDGET_S (450: steps are cut short or skipped past
# it, tf32 first), GPU_CHECK_PRECISIONS ("fp32 mixed tf32"),
# GPU_CHECK_BUILD_TIMEOUT (360 s), GPU_CHECK_STEP_MAX_S (no step runs longer;
# unset: each step's own limit).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# The steps are in scripts/gpu/, sourced in order below: common.sh (the log,
# the summary's rows, run_step), environment.sh (1), build.sh (2 and the
# libstdc++ check), tests.sh (the CPU sanity run and 3), benchmarks.sh (4 and
# 5); report.py (python3, no other module) reads their output back and
# prints the summary (6). No "set -e": every step's status is looked at, and
# whatever ends the run, finish (below) prints the summary.

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
dry_run=0 skip_build=0 configure_only=0 no_gpu_ok=0 force_gpu=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --skip-build) skip_build=1 ;;
    --configure-only) configure_only=1 ;;
    --no-gpu-ok) no_gpu_ok=1 ;;
    --force-gpu-steps) force_gpu=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: error: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

if [ "$skip_build" = 1 ] && [ "$configure_only" = 1 ]; then
  echo "gpu-check: error: --skip-build and --configure-only exclude each other" >&2
  exit 2
fi

build=${GPU_CHECK_BUILD_DIR:-build-gpu}
jobs=${GPU_CHECK_JOBS:-$(nproc)}
budget=${GPU_CHECK_BUDGET_S:-450}
precisions=${GPU_CHECK_PRECISIONS:-fp32 mixed tf32}
build_abs=$(mkdir -p "$build" 2>/dev/null && cd "$build" && pwd) ||
  { echo "gpu-check: error: cannot make the build directory $build" >&2; exit 2; }
out=${GPU_CHECK_OUT:-$build_abs/gpu-check}
# Each step's own output, read back for its figure; kept out of the output
# folder, which holds the few files a user reads (the log holds them all).
steps=$build_abs/gpu-check-steps
mkdir -p "$out" "$steps" 2>/dev/null || { echo "gpu-check: error: cannot make $out and $steps" >&2; exit 2; }
log=$out/gpu-check.log
: >"$log"
start=$SECONDS

# shellcheck source=scripts/gpu/common.sh
. scripts/gpu/common.sh

# finish: the summary, however the run ends, and the exit status it earns.
finish() {
  local status=$? code=0
  trap - EXIT INT TERM
  [ "$dry_run" = 0 ] || exit "$status"
  if [ -n "${ended_by:-}" ]; then
    stop_step
    note gpu-check FAIL "ended by $ended_by during ${current_step:-the start} (the rows above are what was done)"
  elif [ "${completed:-0}" = 0 ]; then
    note gpu-check FAIL "stopped early (exit $status) after ${current_step:-the start}: see $log"
  fi
  if [ "$failed" = 1 ]; then code=1
  elif [ "$timed_out" = 1 ]; then code=4
  elif [ "$lacking" = 1 ]; then code=2
  elif [ -z "${gpu:-}" ] && [ "$no_gpu_ok" = 0 ]; then code=3
  fi
  local commit
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  report json "$rows" "$((SECONDS - start))" "$commit" "${gpu:-none visible}" "$code" >"$out/gpu-check.json"
  report summary "$rows" "$((SECONDS - start))" "$commit" "${gpu:-none visible}" | tee "$out/gpu-check.txt"
  echo "gpu-check: full log $log; per feature: $out/gpu-check.json"
  case "$code" in
    2) echo "gpu-check: a tool the build needs is missing (exit 2)" >&2 ;;
    3) echo "gpu-check: no GPU visible: the GPU steps were not checked (exit 3; --no-gpu-ok accepts that)" >&2 ;;
    4) echo "gpu-check: a step ran out of its time (exit 4): slow, not known to be wrong" >&2 ;;
  esac
  exit "$code"
}
trap finish EXIT
trap 'ended_by=SIGINT; exit 130' INT
trap 'ended_by=SIGTERM; exit 143' TERM

# shellcheck source=scripts/gpu/environment.sh
. scripts/gpu/environment.sh
# shellcheck source=scripts/gpu/build.sh
. scripts/gpu/build.sh
# shellcheck source=scripts/gpu/tests.sh
. scripts/gpu/tests.sh
# shellcheck source=scripts/gpu/benchmarks.sh
. scripts/gpu/benchmarks.sh
completed=1
