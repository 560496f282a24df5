#!/usr/bin/env bash
# scripts/gpu-check.sh is meant for GPU machines, where a script that no
# longer parses, or that passes gradsync a flag it has lost, wastes the GPU
# time. This checks here, without a GPU: --help and a bad option behave,
# --dry-run plans every step, every flag the plan gives `gradsync
# collectives`, `gradsync train` and scripts/ddp-reference.py is one that
# their --help lists; scripts/gpu/report.py gives each step's verdict from
# outputs like theirs; and whole runs against stand-in binaries end in the
# summary with the right verdicts: a missing tool (SKIP, exit 2), a binary
# that does not start (FAIL, exit 1), a step cut off at its limit (TIMEOUT,
# exit 4), the run ended by SIGTERM (FAIL, exit 1, at once).
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
GPU_CHECK_OUT=$tmp/out.d GPU_CHECK_BUILD_DIR=$tmp/build "$script" --dry-run >"$tmp/plan" 2>&1 ||
  fail "--dry-run failed: $(tail -n 5 "$tmp/plan")"
for step in configure build cpu-sanity gpu-tests collectives staged train-small-cnn-fp32-none \
  train-resnet50-fp32-none ddp-nccl train-resnet50-mixed-none train-resnet50-tf32-none; do
  grep -q "^\[dry-run\] ($step," "$tmp/plan" || fail "--dry-run does not plan step '$step'"
done
grep -q -- '-DGRADSYNC_CUDA=ON' "$tmp/plan" || fail "the build is not configured with GRADSYNC_CUDA=ON"
GPU_CHECK_OUT=$tmp/out.c GPU_CHECK_BUILD_DIR=$tmp/build "$script" --dry-run --configure-only >"$tmp/plan-c" 2>&1 ||
  fail "--dry-run --configure-only failed: $(tail -n 5 "$tmp/plan-c")"
grep -q "^\[dry-run\] (configure," "$tmp/plan-c" && ! grep -q "^\[dry-run\] (build," "$tmp/plan-c" ||
  fail "--configure-only: expected a configure and no build in the plan"

# Every long flag the plan passes to a subcommand must be in that
# subcommand's --help. Flags other engineers are landing for CUDA training
# are noted, not failed, until train --help lists them.
pending=" --precision "
missing=0
python3 "$here/scripts/ddp-reference.py" --help >"$tmp/help-ddp-reference.py" 2>&1 ||
  fail "scripts/ddp-reference.py --help failed"
for sub in collectives train ddp-reference.py; do
  [ "$sub" = ddp-reference.py ] || "$GRADSYNC" "$sub" --help >"$tmp/help-$sub" 2>&1 || fail "gradsync $sub --help failed"
  for flag in $(grep -E "^\[dry-run\] \((collectives|staged|train-[^,]*|cpu-sanity|ddp-nccl)," "$tmp/plan" |
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
expect "gtest-verdict (timed out)" "TIMEOUT 1 passed, 1 failed, 1 skipped before its time limit cut it off" \
  "$(report gtest-verdict gpu-tests "$tmp/gtest.out" 124)"
echo "[==========] 0 tests from 0 test suites ran. (0 ms total)" >"$tmp/none.out"
expect "gtest-verdict (none)" "SKIP no test matches the GPU filter" "$(report gtest-verdict t "$tmp/none.out" 0)"
cat >"$tmp/collectives.out" <<'OUT'
# strategy                    size         count      type   redop       time    algbw    busbw   #wrong
#                              (B)    (elements)                         (us)   (GB/s)   (GB/s)
  nccl-ring                      8             2     float     sum      10.10     0.00     0.00        0
  nccl-ring              268435456      67108864     float     sum      812.5   330.38     0.00        0
  nccl-tree              268435456      67108864     float     sum      813.0   330.17     0.00        3
# nccl-ring, 1 workers, device buffers
OUT
expect collectives-verdict "PASS 268435456 B in 812.5 us, 330.38 GB/s; exact sums at 2 sizes" \
  "$(report collectives-verdict "$tmp/collectives.out" 0 nccl-ring)"
expect "collectives-verdict (wrong)" "FAIL wrong elements at 268435456 B" \
  "$(report collectives-verdict "$tmp/collectives.out" 0 nccl-tree)"
expect "collectives-verdict (absent)" "FAIL no row of ring-mpi in the table" \
  "$(report collectives-verdict "$tmp/collectives.out" 0 ring-mpi)"
expect "collectives-verdict (timed out)" "TIMEOUT cut off at its limit of ? s" \
  "$(report collectives-verdict "$tmp/collectives.out" 137 nccl-ring)"
cat >"$tmp/staged.out" <<'OUT'
# strategy                    size         count      type   redop       time    algbw    busbw   #wrong      stage
#                              (B)    (elements)                         (us)   (GB/s)   (GB/s)                (us)
  ring-mpi                67108864      16777216     float     sum       9000     7.46     0.00        0       4200
OUT
expect "collectives-verdict (staged)" "PASS 67108864 B in 9000 us, 7.46 GB/s, staging 4200 us; exact sums at 1 sizes" \
  "$(report collectives-verdict "$tmp/staged.out" 0 ring-mpi)"
expect "failure (timed out)" "TIMEOUT cut off at its limit of 60 s" "$(report failure "$tmp/staged.out" 124 60)"
expect "failure (error)" "FAIL exit 2: gradsync: error: x" \
  "$(echo 'gradsync: error: x' >"$tmp/err.out" && report failure "$tmp/err.out" 2 60)"
# libstdc++: a library that defines up to 3.4.29, a file that needs 3.4.30.
printf 'GLIBCXX_3.4\0GLIBCXX_3.4.29\0' >"$tmp/libstdc++.so.6"
printf '\177ELF\0GLIBCXX_3.4.30\0GLIBCXX_3.4\0' >"$tmp/needs-new.so"
printf '\177ELF\0GLIBCXX_3.4.21\0' >"$tmp/needs-old.so"
expect "libstdcxx (too old)" "FAIL $tmp/libstdc++.so.6 (GLIBCXX up to 3.4.29) lacks GLIBCXX_3.4.30, needed by $tmp/needs-new.so" \
  "$(report libstdcxx "$tmp/libstdc++.so.6" "$tmp/needs-new.so")"
expect "libstdcxx (lacks 3.4.21)" "FAIL $tmp/libstdc++.so.6 (GLIBCXX up to 3.4.29) lacks GLIBCXX_3.4.21, needed by $tmp/needs-old.so" \
  "$(report libstdcxx "$tmp/libstdc++.so.6" "$tmp/needs-old.so")"
printf 'GLIBCXX_3.4.21\0GLIBCXX_3.4.30\0' >>"$tmp/libstdc++.so.6"
expect "libstdcxx (new enough)" "PASS $tmp/libstdc++.so.6 has GLIBCXX up to 3.4.30; needed: up to 3.4.30" \
  "$(report libstdcxx "$tmp/libstdc++.so.6" "$tmp/needs-new.so" "$tmp/needs-old.so")"
expect "libstdcxx (no library)" "SKIP no libstdc++.so.6 found on this machine" \
  "$(report libstdcxx "$tmp/none" "$tmp/needs-new.so")"
printf 'Img/sec per worker: 812.3 +-4.1\nTotal img/sec on 1 workers: 812.3 +-4.1\n' >"$tmp/train.out"
expect train-verdict "PASS img/sec on 1 workers: 812.3 +-4.1" "$(report train-verdict "$tmp/train.out" 0)"
echo "gradsync: error: no GPU visible" >"$tmp/train-bad.out"
expect "train-verdict (error)" "FAIL exit 1: gradsync: error: no GPU visible" "$(report train-verdict "$tmp/train-bad.out" 1)"
expect "train-verdict (no line)" "FAIL no 'Total img/sec' line in the output" "$(report train-verdict "$tmp/train-bad.out" 0)"
printf 'build\tPASS\t300 s on 16 jobs\ngpu-tests\tFAIL\ta | b\ntrain resnet50 b64 fp32\tTIMEOUT\tcut off\nddp-nccl resnet50\tSKIP\tno GPU visible\n' >"$tmp/rows"
printf 'train small-cnn b32 fp32\tPASS\timg/sec on 1 workers: 812.3 +-4.1\ncollectives nccl-ring\tPASS\t268435456 B in 812.5 us, 330.38 GB/s; exact sums at 2 sizes\nddp-nccl resnet50 b64 fp32\tPASS\timg/sec on 1 worker(s): 901.5 +-2.0\n' >"$tmp/fast-rows"
expect "json speed" "812.3 img/s|330.38 GB/s|901.5 img/s" "$(report json "$tmp/fast-rows" 1 c g 0 | python3 -c '
import json, sys
print("|".join("%s %s" % (s["speed"]["value"], s["speed"]["unit"]) for s in json.load(sys.stdin)["steps"]))')"
report summary "$tmp/rows" 412 abc123 "NVIDIA H100" >"$tmp/summary"
grep -qE '^== gpu-check summary \([0-9T:-]+Z, 412 s, commit abc123\)$' "$tmp/summary" ||
  fail "report.py summary: its first line is $(head -n 1 "$tmp/summary")"
expect summary "GPU: NVIDIA H100
build                        PASS 300 s on 16 jobs
gpu-tests                    FAIL a | b
train resnet50 b64 fp32      TIMEOUT cut off
ddp-nccl resnet50            SKIP no GPU visible" "$(tail -n +2 "$tmp/summary")"
# The JSON: per row its feature, whether it ran and whether it is right.
expect json "CUDA build True True None|GPU unit tests True False None|train --compute cuda True None None|PyTorch DDP reference over NCCL False None None|1" \
  "$(report json "$tmp/rows" 412 abc123 "NVIDIA H100" 1 | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("|".join("%s %s %s %s" % (s["feature"], s["ran"], s["correct"], s["speed"]) for s in r["steps"]) + "|%d" % r["exit"])')"

# --- whole runs against stand-ins, without a GPU --------------------------
# Each must end in the summary, with the verdict the case calls for and its
# exit status; never a silent exit.
run_check() {  # run_check NAME WANT_STATUS [ENV=VALUE...] -- ARGS...: into $tmp/NAME.{out,d}
  local name=$1 want=$2 status=0
  shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" GPU_CHECK_OUT="$tmp/$name.d" bash "$script" "$@" >"$tmp/$name.out" 2>&1 || status=$?
  [ "$status" = "$want" ] || fail "$name: expected exit $want, got $status: $(tail -n 20 "$tmp/$name.out")"
  grep -q '^== gpu-check summary' "$tmp/$name.out" || fail "$name: no summary: $(tail -n 20 "$tmp/$name.out")"
  [ -s "$tmp/$name.d/gpu-check.json" ] || fail "$name: no gpu-check.json"
}
row_is() {  # row_is NAME STEP VERDICT FIGURE-PATTERN: the summary has that row
  grep -qE "^$2 +$3 $4" "$tmp/$1.out" || fail "$1: no row '$2 $3 $4' in: $(sed -n '/^== gpu-check summary/,$p' "$tmp/$1.out")"
}

# A missing build tool: PATH without cmake and ninja.
mkdir "$tmp/path"
for f in /usr/bin/* /bin/*; do
  case "${f##*/}" in cmake | ninja) ;; *) [ -e "$tmp/path/${f##*/}" ] || ln -s "$f" "$tmp/path/${f##*/}" ;; esac
done
run_check missing-tool 2 PATH="$tmp/path" GPU_CHECK_BUILD_DIR="$tmp/build-missing" --
row_is missing-tool build SKIP "tool missing: cmake ninja"
row_is missing-tool cpu-sanity SKIP "not built"
row_is missing-tool collectives SKIP "not built"

# A binary that does not start (a library missing).
mkdir -p "$tmp/build-broken/bin"
printf '#!/bin/sh\necho "gradsync: error while loading shared libraries: libnccl.so.2: cannot open shared object file" >&2\nexit 127\n' \
  >"$tmp/build-broken/bin/gradsync"
chmod +x "$tmp/build-broken/bin/gradsync"
run_check no-start 1 GPU_CHECK_BUILD_DIR="$tmp/build-broken" -- --skip-build
row_is no-start binary FAIL ".*does not start: gradsync: error while loading shared libraries: libnccl.so.2"
row_is no-start gpu-tests SKIP "the binary does not start"
row_is no-start "train resnet50 b64 fp32" SKIP "the binary does not start"

# A step cut off at its limit: the unit tests never end; every step may run 2 s.
mkdir -p "$tmp/build-slow/bin" "$tmp/build-slow/tests"
cat >"$tmp/build-slow/bin/gradsync" <<'EOF2'
#!/bin/sh
case "$1 ${2:-}" in
  "strategies --names") echo ring-mpi ;;
  *) exit 0 ;;
esac
EOF2
printf '#!/bin/sh\nexec sleep 60\n' >"$tmp/build-slow/tests/gradsync_unit_tests"
printf '#!/bin/sh\nexit 0\n' >"$tmp/build-slow/tests/gradsync_mpi_tests"
chmod +x "$tmp/build-slow/bin/gradsync" "$tmp/build-slow/tests/"*
run_check timeout 4 GPU_CHECK_BUILD_DIR="$tmp/build-slow" GPU_CHECK_STEP_MAX_S=2 -- --skip-build --no-gpu-ok
row_is timeout gpu-tests TIMEOUT "0 passed, 0 failed, 0 skipped before its time limit cut it off"
grep -q "exit 3" "$tmp/timeout.out" && fail "timeout: read as no GPU"
# Ended from outside (SIGTERM) while a step runs: the step is ended and the
# summary comes at once, not when the step would have ended.
GPU_CHECK_OUT=$tmp/term.d GPU_CHECK_BUILD_DIR=$tmp/build-slow bash "$script" --skip-build --no-gpu-ok \
  >"$tmp/term.out" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  grep -q "^=== gpu-tests" "$tmp/term.d/gpu-check.log" 2>/dev/null && break
  sleep 0.1
done
kill -TERM "$pid"
t=$SECONDS status=0
wait "$pid" || status=$?
[ "$status" = 1 ] || fail "ended by SIGTERM: expected exit 1, got $status: $(tail -n 20 "$tmp/term.out")"
[ $((SECONDS - t)) -lt 20 ] || fail "ended by SIGTERM: the summary took $((SECONDS - t)) s"
row_is term gpu-check FAIL "ended by SIGTERM during gpu-tests"
echo "gpu_check: the script parses, plans every step, passes only flags gradsync knows, reads verdicts right, and ends every run in its summary (missing tool, binary that does not start, timeout, SIGTERM)"
