#!/usr/bin/env bash
# `gradsync compare` end to end on real (tiny) sweeps: a set compared with
# itself passes; a set where ring-mpi ran with --test-delay-ms fails, naming
# that row; bad input (missing file, corrupt record, nothing in common) is one
# line and status 2.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Emulated compute at a fixed 1000 img/s: 8 ms per step whatever the machine.
args="--batch-size 8 --emulate-img-per-sec 1000 --num-warmup-batches 2 --num-batches-per-iter 5 --num-iters 2"
sweep() {  # out, strategies, extra train args
  "$GRADSYNC" sweep --out "$1" --workers 2 --strategy "$2" --models small-cnn:emulated \
    --train-args "$args${3:+ $3}" >"$tmp/sweep.out" 2>&1 || { cat "$tmp/sweep.out"; fail "sweep $2 $3"; }
}
sweep "$tmp/base" none,ring-mpi,mpi-allreduce
sweep "$tmp/slow" none,mpi-allreduce
sweep "$tmp/slow" ring-mpi "--test-delay-ms 40"
grep -q '"strategy":"ring-mpi".*"test_delay_ms":40' "$tmp/slow/train.jsonl" ||
  fail "the slowed run's record does not carry test_delay_ms"

# The same set: passes, every row ok.
status=0
"$GRADSYNC" compare "$tmp/base" "$tmp/base/train.jsonl" >"$tmp/same" 2>&1 || status=$?
[ "$status" -eq 0 ] || { cat "$tmp/same"; fail "compare with itself: exit $status"; }
grep -q '^| small-cnn emulated b8 | ring-mpi | 2 | [0-9.]* | [0-9.]* | +0.0% | ok |$' "$tmp/same" ||
  { cat "$tmp/same"; fail "compare with itself: no ok row for ring-mpi"; }
grep -q '^compare: PASS' "$tmp/same" || { cat "$tmp/same"; fail "compare with itself: no PASS line"; }

# ring-mpi slowed by 40 ms per allreduce (5x its 8 ms step): its row
# regressed and exit 1. (The other rows are not checked: tiny runs beside
# other tests are too noisy to promise they stay within 10%.)
status=0
"$GRADSYNC" compare "$tmp/base" "$tmp/slow" >"$tmp/slowed" 2>&1 || status=$?
[ "$status" -eq 1 ] || { cat "$tmp/slowed"; fail "compare with the slowed set: exit $status, expected 1"; }
grep -q '^| small-cnn emulated b8 | ring-mpi | 2 | .* | REGRESSED |$' "$tmp/slowed" ||
  { cat "$tmp/slowed"; fail "no REGRESSED row for ring-mpi"; }
grep -q '^compare: FAIL.*ring-mpi n=2 regressed' "$tmp/slowed" ||
  { cat "$tmp/slowed"; fail "the verdict line does not name ring-mpi"; }

# Bad input: one line, status 2.
printf '{"schema":"gradsync.result","schema_version":1,"kind":"train"\n' >"$tmp/corrupt.jsonl"
grep -v '"strategy":"none"' "$tmp/base/train.jsonl" >"$tmp/no-none.jsonl"
for pair in "$tmp/base $tmp/missing.jsonl" "$tmp/base $tmp/corrupt.jsonl" \
  "$tmp/base $tmp/no-none.jsonl" "$tmp/base $tmp/base/logs"; do
  status=0
  "$GRADSYNC" compare $pair >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^gradsync: error: ' "$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; fail "compare $pair: exit $status, expected 2 and one error line"; }
done
grep -q 'nothing in common' <("$GRADSYNC" compare "$tmp/base" "$tmp/no-none.jsonl" 2>&1) ||
  fail "no 'nothing in common' message"
echo "compare: same set passes, slowed ring-mpi fails by name, bad input is status 2"
