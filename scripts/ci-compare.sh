#!/usr/bin/env bash
# The CI regression gate: runs a small CPU sweep (emulated compute, so each
# step's compute time is fixed and only communication varies) and compares it
# with the committed reference set results/reference/ using `gradsync compare`,
# which judges ratios between strategies measured in the same run, so that a
# slower or busier machine does not fail it. Exit 0 when nothing regressed, 1
# when something did (the table names the rows), 2 on bad input.
#
#   scripts/ci-compare.sh                 build if needed, sweep, compare
#   scripts/ci-compare.sh --refresh       sweep and replace results/reference/train.jsonl
#
# Environment:
#   GRADSYNC_SKIP_BUILD=1       use the existing build (else scripts/build.sh runs)
#   GRADSYNC_BUILD_DIR          build directory (default build)
#   GRADSYNC_CI_OUT             where the sweep writes (default: a new temporary directory)
#   GRADSYNC_CI_TOLERANCE       compare's --tolerance (default 0.10)
#   GRADSYNC_CI_SLOW=S:MS       for testing the gate: strategy S runs with --test-delay-ms MS
set -euo pipefail
cd "$(dirname "$0")/.."

refresh=0
[ "${1:-}" = --refresh ] && refresh=1
build_dir=${GRADSYNC_BUILD_DIR:-build}
gradsync=$build_dir/bin/gradsync
[ "${GRADSYNC_SKIP_BUILD:-0}" = 1 ] || scripts/build.sh >&2
[ -x "$gradsync" ] || { echo "ci-compare: no $gradsync (build first)" >&2; exit 2; }

# The workload (see results/reference/README.md for why these figures): the
# table's default set with its baseline first.
names=$("$gradsync" strategies --names --with-baseline)
IFS=, read -r -a strategies <<<"$names"
workers=2
models=resnet50:emulated
train_args="--emulate-img-per-sec 300 --batch-size 64 --num-warmup-batches 3 --num-batches-per-iter 10 --num-iters 2"

out=${GRADSYNC_CI_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gradsync-ci.XXXXXX")}
mkdir -p "$out"
slow_strategy= slow_ms=
if [ -n "${GRADSYNC_CI_SLOW:-}" ]; then
  slow_strategy=${GRADSYNC_CI_SLOW%%:*} slow_ms=${GRADSYNC_CI_SLOW#*:}
  [ -n "$slow_strategy" ] && [ -n "$slow_ms" ] && [ "$slow_strategy" != "$GRADSYNC_CI_SLOW" ] ||
    { echo "ci-compare: GRADSYNC_CI_SLOW must be STRATEGY:MS, not '$GRADSYNC_CI_SLOW'" >&2; exit 2; }
fi

# One sweep for every strategy at its normal speed, and (when asked) one more
# for the slowed strategy alone, into the same directory: `compare` takes the
# ratios within the directory, so the slowed run is judged against the same
# `none` run as the others.
sweep() {  # strategies, extra train args
  "$gradsync" sweep --out "$out" --workers "$workers" --strategy "$1" --models "$models" \
    --train-args "$train_args${2:+ $2}" >>"$out/sweep.out" 2>&1 ||
    { cat "$out/sweep.out" >&2; echo "ci-compare: the sweep failed (logs in $out/logs)" >&2; exit 1; }
}
normal=()
for s in "${strategies[@]}"; do [ "$s" = "$slow_strategy" ] || normal+=("$s"); done
sweep "$(IFS=,; echo "${normal[*]}")"
[ -z "$slow_strategy" ] || sweep "$slow_strategy" "--test-delay-ms $slow_ms"
echo "ci-compare: sweep in $out" >&2

if [ "$refresh" = 1 ]; then
  cp "$out/train.jsonl" results/reference/train.jsonl
  echo "ci-compare: results/reference/train.jsonl replaced; commit it with the reason" >&2
  exit 0
fi
exec "$gradsync" compare results/reference "$out" --tolerance "${GRADSYNC_CI_TOLERANCE:-0.10}"
