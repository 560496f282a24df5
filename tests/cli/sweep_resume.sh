#!/usr/bin/env bash
# A sweep survives being stopped or killed (sweep_ledger.h), with mpirun on
# this host (tests/cli/cluster_slurm.sh does the same under a real Slurm):
# - stopped (SIGTERM, as scancel or a time limit) in its third run: exit 130,
#   the run in flight recorded as stopped in sweep.jsonl, and "run the same
#   sweep again";
# - killed (SIGKILL: no chance to write anything) in a later run;
# - run again: the configurations recorded before are skipped, by their full
#   configuration (a reordered and respelled --train-args is the same one),
#   the rest run, and train.jsonl ends with every configuration exactly once
#   and no torn line; once more: everything skipped, nothing added; --rerun
#   runs it again;
# - a configuration that fails is recorded as failed with its reason, the
#   sweep goes on (exit 1), report lists it, and a rerun tries it again;
# - --launcher srun outside a Slurm allocation is one line and exit 1.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"

tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$tmp/sweep
models=(--models small-cnn:cpu --workers 1,2 --strategy none,ring-mpi,tree-mpi)
# About 2 s a run, so that a signal finds one in flight.
slow="--batch-size 8 --num-warmup-batches 1 --num-batches-per-iter 10 --num-iters 6"

records() { [ -e "$out/train.jsonl" ] && grep -c . "$out/train.jsonl" || echo 0; }
wait_records() { # N: until train.jsonl holds N records
  for _ in $(seq 600); do [ "$(records)" -ge "$1" ] && return 0; sleep 0.1; done
  fail "train.jsonl never reached $1 records"
}

# Stopped in its third run.
"$GRADSYNC" sweep --out "$out" "${models[@]}" --train-args "$slow" >"$tmp/stopped.out" 2>&1 &
pid=$!
pids+=("$pid")
wait_records 2
sleep 0.5
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 130 ] || { cat "$tmp/stopped.out"; fail "stopped sweep: exit $status, expected 130"; }
grep -q "run the same sweep again to finish it" "$tmp/stopped.out" || { cat "$tmp/stopped.out"; fail "no hint to rerun"; }
grep -q '"status":"stopped"' "$out/sweep.jsonl" || fail "the stopped run is not in sweep.jsonl"
stopped_at=$(records)

# Killed outright in a later run (the respelled arguments are the same configuration).
respelled="--num-iters 6 --num-batches-per-iter 10 --lr 0.01 --num-warmup-batches 1 --batch-size 8"
"$GRADSYNC" sweep --out "$out" "${models[@]}" --train-args "$respelled" >"$tmp/killed.out" 2>&1 &
pid=$!
pids+=("$pid")
wait_records $((stopped_at + 1))
sleep 0.5
pkill -KILL -f -- "$out/" || true  # the sweep, its mpirun and its ranks
wait "$pid" 2>/dev/null || true
grep -q "done before (.*train.jsonl:1), skipped" "$tmp/killed.out" ||
  { cat "$tmp/killed.out"; fail "the second sweep did not skip the first configuration"; }

# Run again to the end.
"$GRADSYNC" sweep --out "$out" "${models[@]}" --train-args "$slow" >"$tmp/resumed.out" 2>&1 ||
  { cat "$tmp/resumed.out"; fail "resumed sweep: exit $?"; }
/usr/bin/python3 - "$out/train.jsonl" <<'PY' || fail "the resumed sweep's records"
import collections, json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
records = [json.loads(l) for l in lines]  # a torn line fails here
keys = collections.Counter((r["strategy"], r["ranks"], r["context"]["config_digest"]) for r in records)
assert len(keys) == 6, f"{len(keys)} configurations, expected 6: {sorted(keys)}"
twice = [k for k, n in keys.items() if n > 1]
assert not twice, f"recorded more than once: {twice}"
PY
skipped=$(grep -c "done before" "$tmp/resumed.out" || true)
[ "$skipped" -ge 2 ] && [ "$skipped" -le 5 ] || { cat "$tmp/resumed.out"; fail "resumed sweep skipped $skipped configurations"; }

# Once more: nothing to do. --rerun: the asked ones again.
"$GRADSYNC" sweep --out "$out" "${models[@]}" --train-args "$slow" >"$tmp/again.out" 2>&1 || fail "third sweep: exit $?"
[ "$(grep -c "done before" "$tmp/again.out")" -eq 6 ] && [ "$(records)" -eq 6 ] ||
  { cat "$tmp/again.out"; fail "a finished sweep run again did not skip everything"; }
"$GRADSYNC" sweep --out "$out" --models small-cnn:cpu --workers 1 --strategy none --train-args "$slow" --rerun \
  >"$tmp/rerun.out" 2>&1 || fail "--rerun: exit $?"
[ "$(records)" -eq 7 ] || { cat "$tmp/rerun.out"; fail "--rerun did not run the configuration again"; }

# A configuration that fails: 2 PS shards need 2 ranks, so x1 fails and x2 runs.
bad=$tmp/failing
status=0
"$GRADSYNC" sweep --out "$bad" --models small-cnn:cpu --workers 1,2 --strategy ps-zmq \
  --train-args "--ps-servers 2 --batch-size 4 --num-iters 2 --num-batches-per-iter 2" >"$tmp/bad.out" 2>&1 || status=$?
[ "$status" -eq 1 ] || { cat "$tmp/bad.out"; fail "a sweep with a failing configuration: exit $status, expected 1"; }
grep -q '^\[ 2/2\] .*img/sec total' "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "the sweep did not go on past the failure"; }
/usr/bin/python3 - "$bad/sweep.jsonl" <<'PY' || fail "the failed attempt's record"
import json, sys
attempts = [json.loads(l) for l in open(sys.argv[1])]
failed = [a for a in attempts if a["status"] == "failed"]
assert len(failed) == 1 and failed[0]["workers"] == 1, attempts
assert "needs at least 2 ranks" in failed[0]["reason"], failed[0]["reason"]
assert failed[0]["exit_status"] != 0 and failed[0]["log"].endswith(".log"), failed[0]
PY
"$GRADSYNC" report "$bad" >"$tmp/report.out" || fail "report of a sweep with a failure: exit $?"
grep -q '^- small-cnn cpu ps-zmq x1: exit [0-9]*: .*needs at least 2 ranks' "$tmp/report.out" ||
  { cat "$tmp/report.out"; fail "report does not list the failed configuration"; }
status=0
"$GRADSYNC" sweep --out "$bad" --models small-cnn:cpu --workers 1,2 --strategy ps-zmq \
  --train-args "--ps-servers 2 --batch-size 4 --num-iters 2 --num-batches-per-iter 2" >"$tmp/bad2.out" 2>&1 || status=$?
[ "$status" -eq 1 ] && grep -q '^\[ 1/2\] .*FAILED' "$tmp/bad2.out" && grep -q '^\[ 2/2\] .*done before' "$tmp/bad2.out" ||
  { cat "$tmp/bad2.out"; fail "a rerun did not try the failed configuration again and skip the done one"; }
# srun outside an allocation: one line, before any run.
status=0
env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST "$GRADSYNC" sweep --launcher srun --out "$tmp/nowhere" --workers 1 \
  >"$tmp/srun.out" 2>"$tmp/srun.err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/srun.err")" -eq 1 ] && grep -q "not inside a Slurm allocation" "$tmp/srun.err" ||
  fail "sweep --launcher srun outside an allocation: exit $status: $(cat "$tmp/srun.err")"
echo "PASS: stopped at $stopped_at records, killed, resumed (skipped $skipped), failure recorded"
