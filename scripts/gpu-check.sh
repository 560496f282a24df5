#!/usr/bin/env bash
# The GPU check: one short, self-contained run (at most about 8 minutes on a
# 16-core GPU machine) that builds gradsync with CUDA and checks its GPU side:
#   1. build     Release, GRADSYNC_CUDA=ON, tests on, benchmarks off, into build-gpu/;
#                then a 2-rank CPU sanity run (MPI and ZeroMQ work, GPU or not)
#   2. tests     the GPU GoogleTests (names matching Cuda|Gpu|Nccl|Device) of the unit
#                and (one rank) multi-rank suites: which ran, which were skipped and why
#   3. nccl      gradsync collectives over the strategies that reduce device memory
#                (gradsync strategies --names --all --memory device) -b 8 -e 256M -f 4, 1 rank
#   4. train     gradsync train --compute cuda: small-cnn and resnet50 (batch 64), per
#                --precision fp32, mixed, tf32 (tf32 only while time is left), img/sec
#   5. summary   one line per step, PASS/FAIL/SKIP with its figure
# Every step has its own timeout; a failed step does not stop the others.
#
#   scripts/gpu-check.sh [--dry-run] [--skip-build] [--no-gpu-ok] [--help]
#
# Works on a GPU box with Debian's packages installed (scripts/install-deps.sh)
# and on a machine without them (the lent H200) through the bundle that
# scripts/gpu-deps.sh makes: .gpu-deps/, or .gpu-deps.tar.xz, which is unpacked
# first. NCCL and cuDNN are taken from the CUDA toolkit, the system, or else
# NVIDIA's Python wheels (nvidia-nccl-*, nvidia-cudnn-*) of any python3 here.
#
# On the lent machine (its device tool copies the working tree of the
# session's checkout plus named ignored paths): first, here, on Debian 12,
# scripts/gpu-deps.sh; then run command "bash scripts/gpu-check.sh" with
# carry [".gpu-deps.tar.xz"] and timeout_s 540 (the script keeps to
# GPU_CHECK_BUDGET_S, 450 s, past which steps are cut short or skipped).
#
# Output: the summary last on stdout; with $OUT set (the device tool returns
# what is under it), also $OUT/gpu-check.txt (summary), gpu-check.log (every
# command's output), collectives.jsonl and train.jsonl (result records) and
# gpu-tests.xml. Without $OUT they go to build-gpu/gpu-check/.
#
# Exit: 0 every step passed (or was skipped for time); 1 a step failed;
# 3 no GPU is visible, so the GPU steps were skipped (--no-gpu-ok makes that 0,
# --force-gpu-steps runs them anyway to see how they fail).
#
# Environment: GPU_CHECK_BUILD_DIR (build-gpu), GPU_CHECK_JOBS (all cores),
# GPU_CHECK_BUDGET_S (450: steps are cut short or skipped past it, tf32 first),
# GPU_CHECK_PRECISIONS ("fp32 mixed tf32"), GPU_CHECK_BUILD_TIMEOUT (360 s).
set -euo pipefail
cd "$(dirname "$0")/.."
# The steps are in scripts/gpu/, sourced in order below: common.sh (the log,
# the summary's rows, run_step), environment.sh (the bundle, the tools, the
# GPU, NCCL and cuDNN), build.sh (1), tests.sh (the CPU sanity run and 2),
# benchmarks.sh (3 and 4); report.py (python3, no other module) reads their
# output back and prints the summary (5).

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
dry_run=0 skip_build=0 no_gpu_ok=0 force_gpu=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --skip-build) skip_build=1 ;;
    --no-gpu-ok) no_gpu_ok=1 ;;
    --force-gpu-steps) force_gpu=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: error: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

build=${GPU_CHECK_BUILD_DIR:-build-gpu}
jobs=${GPU_CHECK_JOBS:-$(nproc)}
budget=${GPU_CHECK_BUDGET_S:-450}
precisions=${GPU_CHECK_PRECISIONS:-fp32 mixed tf32}
build_abs=$(mkdir -p "$build" && cd "$build" && pwd)
out=${OUT:-$build_abs/gpu-check}
# Each step's own output, read back for its figure; kept out of $OUT, from
# which the device tool returns 8 files at most (the log holds them all).
steps=$build_abs/gpu-check-steps
mkdir -p "$out" "$steps"
log=$out/gpu-check.log
: >"$log"
start=$SECONDS

# shellcheck source=scripts/gpu/common.sh
. scripts/gpu/common.sh
# shellcheck source=scripts/gpu/environment.sh
. scripts/gpu/environment.sh
# shellcheck source=scripts/gpu/build.sh
. scripts/gpu/build.sh
# shellcheck source=scripts/gpu/tests.sh
. scripts/gpu/tests.sh
# shellcheck source=scripts/gpu/benchmarks.sh
. scripts/gpu/benchmarks.sh

# --- 5. summary ------------------------------------------------------------
[ "$dry_run" = 0 ] || exit 0
report summary "$rows" "$((SECONDS - start))" "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
  "${gpu:-none visible}" | tee "$out/gpu-check.txt"
echo "gpu-check: full log $log"
if [ "$failed" = 1 ]; then exit 1; fi
if [ -z "$gpu" ] && [ "$no_gpu_ok" = 0 ]; then
  echo "gpu-check: no GPU visible: the GPU steps were not checked (exit 3; --no-gpu-ok accepts that)" >&2
  exit 3
fi
exit 0
