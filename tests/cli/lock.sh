#!/usr/bin/env bash
# One writer per results folder (harness/cli/results_lock.h):
# - a sweep holds its folder: a second sweep into it is refused with one line
#   naming the first (pid, host, since when), exit 1, and writes nothing; a
#   train --out into it (2 ranks) is refused alike by every rank, exit 2;
# - the first sweep's own runs write under its lock (they all record);
# - a sweep with --wait says it waits, waits, then skips what the first
#   recorded;
# - a writer killed with -9 leaves its lock free: the next takes it over,
#   saying so in one line; a lock file naming a dead pid likewise.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
here=$(cd "$(dirname "$0")" && pwd)
mpirun=(bash "$here/../../scripts/mpirun.sh")

tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$tmp/res
sweep=(sweep --models small-cnn:cpu --workers 1 --strategy none,ring-mpi,tree-mpi)
# About 2 s a run.
slow="--batch-size 8 --num-warmup-batches 1 --num-batches-per-iter 10 --num-iters 6"
train=(train --model small-cnn --strategy ring-mpi --batch-size 4 --num-batches-per-iter 2)
holder_pid() { # DIR PID: the pid DIR's lock file names, once it names one, while PID runs
  for _ in $(seq 300); do
    kill -0 "$2" 2>/dev/null || fail "the writer stopped before its lock file named it"
    pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$1/.gradsync.lock" 2>/dev/null || true)
    [ -n "$pid" ] && { echo "$pid"; return 0; }
    sleep 0.1
  done
  fail "$1/.gradsync.lock never named its holder"
}
errors() { grep '^gradsync:' "$1" || true; }

# The first sweep, and while it runs: a second one, a train, a waiting one.
"$GRADSYNC" sweep --out "$out" "${sweep[@]:1}" --train-args "$slow" >"$tmp/first.out" 2>&1 &
first=$!
pids+=("$first")
[ "$(holder_pid "$out" "$first")" = "$first" ] || fail "the lock file does not name the first sweep"
line="gradsync: error: $out/ is being written by gradsync sweep \\(pid $first on $(hostname), since [0-9:]{8} UTC\\); wait for it, or add --wait"

status=0
"$GRADSYNC" sweep --out "$out" "${sweep[@]:1}" --train-args "$slow" >"$tmp/second.out" 2>&1 || status=$?
[ "$status" -eq 1 ] || { cat "$tmp/second.out"; fail "second sweep: exit $status, expected 1"; }
[ "$(errors "$tmp/second.out" | wc -l)" -eq 1 ] && errors "$tmp/second.out" | grep -qxE "$line" ||
  { cat "$tmp/second.out"; fail "second sweep: not the one line naming the first"; }
grep -q '^\[' "$tmp/second.out" && fail "the refused sweep ran something"

# Started at once, so that the first sweep still runs (about 6 s).
"$GRADSYNC" sweep --wait --out "$out" "${sweep[@]:1}" --train-args "$slow" >"$tmp/waited.out" 2>&1 &
waiting=$!
pids+=("$waiting")

status=0
"${mpirun[@]}" -np 2 "$GRADSYNC" "${train[@]}" --num-iters 1 --out "$out/mine.jsonl" >"$tmp/train.out" 2>&1 || status=$?
[ "$status" -eq 2 ] || { cat "$tmp/train.out"; fail "refused train: exit $status, expected 2"; }
[ "$(errors "$tmp/train.out" | wc -l)" -eq 1 ] &&
  errors "$tmp/train.out" | grep -qxE "gradsync: error: rank 0: ${line#gradsync: error: }" ||
  { cat "$tmp/train.out"; fail "refused train: not the one line naming the sweep"; }
[ -e "$out/mine.jsonl" ] && fail "the refused train wrote its record"

wait "$first" || { cat "$tmp/first.out"; fail "first sweep: exit $?"; }
wait "$waiting" || { cat "$tmp/waited.out"; fail "waiting sweep: exit $?"; }
[ "$(grep -c . "$out/train.jsonl")" -eq 3 ] || fail "the first sweep's runs did not all record"
[ "$(grep -c . "$out/sweep.jsonl")" -eq 3 ] || fail "sweep.jsonl holds more than the first sweep's attempts"
grep -qxE "gradsync: $out/ is being written by gradsync sweep \(pid $first on .*\); waiting for it to finish \(--wait\)" \
  "$tmp/waited.out" || { cat "$tmp/waited.out"; fail "the waiting sweep did not say it waits"; }
[ "$(grep -c "done before" "$tmp/waited.out")" -eq 3 ] ||
  { cat "$tmp/waited.out"; fail "the waiting sweep did not skip what the first recorded"; }
[ -s "$out/.gradsync.lock" ] && fail "a released lock file still names a holder"

# A writer killed with -9 (its rank, which holds the lock): taken over.
"${mpirun[@]}" -np 1 "$GRADSYNC" "${train[@]}" --num-iters 200 --out "$out/killed.jsonl" >"$tmp/killed.out" 2>&1 &
launcher=$!
pids+=("$launcher")
killed=$(holder_pid "$out" "$launcher")
kill -KILL "$killed"
wait "$launcher" 2>/dev/null || true
"${mpirun[@]}" -np 1 "$GRADSYNC" "${train[@]}" --num-iters 1 --out "$out/after.jsonl" >"$tmp/after.out" 2>&1 ||
  { cat "$tmp/after.out"; fail "the train after a killed one: exit $?"; }
errors "$tmp/after.out" | grep -qxE "gradsync: warning: $out/: taking over the lock left by gradsync train \(pid $killed on $(hostname), since [0-9:]{8} UTC\), which is no longer running" ||
  { cat "$tmp/after.out"; fail "no line saying the killed train's lock was taken over"; }
[ "$(grep -c . "$out/after.jsonl")" -eq 1 ] || fail "the train after a killed one did not record"

# A lock file naming a dead pid, written by hand: taken over alike.
sleep 0 &
dead=$!
wait "$dead"
echo "{\"pid\":$dead,\"host\":\"$(hostname)\",\"command\":\"gradsync sweep\",\"since\":\"2020-01-02T03:04:05Z\",\"token\":\"x\"}" \
  >"$out/.gradsync.lock"
"$GRADSYNC" sweep --out "$out" "${sweep[@]:1}" --train-args "$slow" >"$tmp/stale.out" 2>&1 ||
  { cat "$tmp/stale.out"; fail "the sweep after a dead holder: exit $?"; }
[ "$(errors "$tmp/stale.out")" = "gradsync: warning: $out/: taking over the lock left by gradsync sweep (pid $dead on $(hostname), since 2020-01-02 03:04:05 UTC), which is no longer running" ] ||
  { cat "$tmp/stale.out"; fail "no line saying the dead sweep's lock was taken over"; }
echo "lock: ok"
