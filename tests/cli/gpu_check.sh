#!/usr/bin/env bash
# scripts/gpu-check.sh runs only on a lent GPU machine, with minutes to spare:
# a script that no longer parses, or that passes gradsync a flag it has lost,
# would waste that lease. This checks both here, without a GPU: --help and a
# bad option behave, --dry-run plans every step, and every flag the plan gives
# `gradsync collectives` and `gradsync train` is one that their --help lists;
# and scripts/gpu/report.py, which reads the steps' output back, gives each
# step's verdict from outputs like theirs.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
here=$(cd "$(dirname "$0")/../.." && pwd)
script=$here/scripts/gpu-check.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for part in "$script" "$here"/scripts/gpu/*.sh; do
  bash -n "$part" || fail "${part#"$here"/} does not parse"
done
"$script" --help | grep -q -- '--dry-run' || fail "--help does not describe --dry-run"

status=0
"$script" --bogus >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "unknown option '--bogus'" "$tmp/err" ||
  fail "--bogus: expected exit 2 and one line naming it, got exit $status: $(cat "$tmp/err")"

# The plan, into a scratch build directory and $OUT (nothing is built or run).
OUT=$tmp/out.d GPU_CHECK_BUILD_DIR=$tmp/build "$script" --dry-run >"$tmp/plan" 2>&1 ||
  fail "--dry-run failed: $(tail -n 5 "$tmp/plan")"
for step in configure build cpu-sanity gpu-tests collectives train-small-cnn-fp32-none \
  train-resnet50-fp32-none train-resnet50-mixed-none train-resnet50-tf32-none; do
  grep -q "^\[dry-run\] ($step," "$tmp/plan" || fail "--dry-run does not plan step '$step'"
done
grep -q -- '-DGRADSYNC_CUDA=ON' "$tmp/plan" || fail "the build is not configured with GRADSYNC_CUDA=ON"

# Every long flag the plan passes to a subcommand must be in that
# subcommand's --help. Flags other engineers are landing for CUDA training
# are noted, not failed, until train --help lists them.
pending=" --precision "
missing=0
for sub in collectives train; do
  "$GRADSYNC" "$sub" --help >"$tmp/help-$sub" 2>&1 || fail "gradsync $sub --help failed"
  for flag in $(grep -E "^\[dry-run\] \((collectives|train-[^,]*|cpu-sanity)," "$tmp/plan" |
    grep -E " $sub " | sed "s/.* $sub //" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    grep -qE -- "(^|[ ,])$flag([ ,=]|$)" "$tmp/help-$sub" && continue
    case "$pending" in
      *" $flag "*) echo "note: gradsync $sub has no $flag yet (being landed; gpu-check passes it)" ;;
      *) echo "FAIL: gpu-check passes gradsync $sub $flag, which its --help does not list" >&2
         missing=$((missing + 1)) ;;
    esac
  done
done
[ "$missing" = 0 ] || exit 1

# The verdicts, from outputs written here in the shape of GoogleTest's, of
# `gradsync collectives`' table and of `gradsync train`'s lines.
report() { python3 "$here/scripts/gpu/report.py" "$@"; }
expect() {  # expect WHAT WANT GOT
  [ "$2" = "$3" ] || fail "report.py $1: expected '$2', got '$3'"
}
cat >"$tmp/gtest.out" <<'OUT'
[ RUN      ] Gpu.Sums
[       OK ] Gpu.Sums (2 ms)
[ RUN      ] Cuda.Layers
tests/unit/cuda_test.cc:12: Skipped
no GPU visible
[  SKIPPED ] Cuda.Layers (0 ms)
[ RUN      ] Nccl.Ring
tests/unit/nccl_test.cc:40: Failure
Expected: 3.0, an error of 1
[  FAILED  ] Nccl.Ring (5 ms)
[  FAILED  ] 1 test, listed below:
[  FAILED  ] Nccl.Ring
OUT
expect gtest-details "  gpu-tests ran: Cuda.Layers Gpu.Sums Nccl.Ring
  skipped Cuda.Layers: no GPU visible
  [  FAILED  ] Nccl.Ring (5 ms)" "$(report gtest-details gpu-tests "$tmp/gtest.out")"
expect gtest-verdict "FAIL 1 passed, 1 failed, 1 skipped; exit 1: Expected: 3.0, an error of 1" \
  "$(report gtest-verdict gpu-tests "$tmp/gtest.out" 1)"
expect "gtest-verdict (timed out)" "FAIL 1 passed, 1 failed, 1 skipped; timed out" \
  "$(report gtest-verdict gpu-tests "$tmp/gtest.out" 124)"
echo "[==========] 0 tests from 0 test suites ran. (0 ms total)" >"$tmp/none.out"
expect "gtest-verdict (none)" "SKIP no test matches the GPU filter" "$(report gtest-verdict t "$tmp/none.out" 0)"
cat >"$tmp/collectives.out" <<'OUT'
#      size     count   type  redop    time   algbw   busbw  #wrong
  nccl-ring         8         2  float    sum    10.1    0.00    0.00       0
  nccl-ring   268435456  67108864  float    sum   812.5  330.38    0.00       0
  nccl-tree   268435456  67108864  float    sum   813.0  330.17    0.00       0
# nccl-ring, 1 workers, device buffers
OUT
expect collectives-verdict "PASS nccl-ring 268435456 B 812.5 us 330.38 GB/s; nccl-tree 268435456 B 813.0 us 330.17 GB/s" \
  "$(report collectives-verdict "$tmp/collectives.out" 0 nccl-ring,nccl-tree)"
printf 'Img/sec per worker: 812.3 +-4.1\nTotal img/sec on 1 workers: 812.3 +-4.1\n' >"$tmp/train.out"
expect train-verdict "PASS img/sec on 1 workers: 812.3 +-4.1" "$(report train-verdict "$tmp/train.out" 0)"
echo "gradsync: error: no GPU visible" >"$tmp/train-bad.out"
expect "train-verdict (error)" "FAIL exit 1: gradsync: error: no GPU visible" "$(report train-verdict "$tmp/train-bad.out" 1)"
expect "train-verdict (no line)" "FAIL no 'Total img/sec' line in the output" "$(report train-verdict "$tmp/train-bad.out" 0)"
printf 'build\tPASS\t300 s on 16 jobs\ngpu-tests\tFAIL\ta | b\n' >"$tmp/rows"
report summary "$tmp/rows" 412 abc123 "NVIDIA H100" >"$tmp/summary"
grep -qE '^== gpu-check summary \([0-9T:-]+Z, 412 s, commit abc123\)$' "$tmp/summary" ||
  fail "report.py summary: its first line is $(head -n 1 "$tmp/summary")"
expect summary "GPU: NVIDIA H100
build                        PASS 300 s on 16 jobs
gpu-tests                    FAIL a | b" "$(tail -n +2 "$tmp/summary")"
echo "gpu_check: the script parses, plans every step, passes only flags gradsync knows, and reads verdicts right"
