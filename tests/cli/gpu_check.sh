#!/usr/bin/env bash
# scripts/gpu-check.sh runs only on a lent GPU machine, with minutes to spare:
# a script that no longer parses, or that passes gradsync a flag it has lost,
# would waste that lease. This checks both here, without a GPU: --help and a
# bad option behave, --dry-run plans every step, and every flag the plan gives
# `gradsync collectives` and `gradsync train` is one that their --help lists.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
here=$(cd "$(dirname "$0")/../.." && pwd)
script=$here/scripts/gpu-check.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bash -n "$script" || fail "scripts/gpu-check.sh does not parse"
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
echo "gpu_check: the script parses, plans every step, and passes only flags gradsync knows"
