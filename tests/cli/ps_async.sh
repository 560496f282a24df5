#!/usr/bin/env bash
# ps-zmq --ps-mode async|ssp through train, end to end over MPI: small-cnn on
# 3 workers (colocated shards, then dedicated ones) with worker 1 a straggler
# at 3x. The record's ps_async says the mode and bound, every worker's step
# count and every shard's, the same (lost_steps 0), and the staleness within
# the bound under ssp (over it under async, which lets the fast run ahead);
# the loss falls; the output says all of it in one line; the report shows the
# modes apart ("ps-zmq async", "ps-zmq ssp K=1") in its time-to-target table.
# Bad combinations are one line and a non-zero exit.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

train=(train --model small-cnn --batch-size 16 --num-warmup-batches 0 --num-batches-per-iter 10
  --num-iters 3 --lr 0.003 --strategy ps-zmq --straggler 1:3 --target-loss 1.5)
run() {  # ranks, then flags
  local np=$1; shift
  "$MPIRUN" -np "$np" "$GRADSYNC" "${train[@]}" "$@" --out "$tmp/runs.jsonl" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; fail "train $*"; }
  grep -q "^PS $2" "$tmp/out" && grep -q "every shard applied all of them" "$tmp/out" ||
    { cat "$tmp/out"; fail "no PS line for $*"; }
}
run 3 --ps-mode ssp --ps-staleness 1
run 3 --ps-mode async
run 5 --ps-mode ssp --ps-staleness 1 --ps-placement dedicated --ps-servers 2 --ps-partition 64K

python3 - "$tmp/runs.jsonl" <<'PY' || fail "the records' ps_async is wrong"
import json, sys
ssp, asynchronous, dedicated = [json.loads(line) for line in open(sys.argv[1])]
for record, mode, bound, shards in ((ssp, "ssp", 1, 1), (asynchronous, "async", None, 1),
                                     (dedicated, "ssp", 1, 2)):
    a = record["ps_async"]
    assert a["mode"] == mode and a["staleness_bound"] == bound, a
    assert a["worker_steps"] == [30, 30, 30], a
    assert a["shard_steps"] == [[30, 30, 30]] * shards, a
    assert a["lost_steps"] == 0, a
    assert record["correct"] is not False, record["correct"]
    assert record["strategy_options"]["ps_mode"] == mode, record["strategy_options"]
    r = record["results"]
    assert r["last_loss"] < r["first_loss"], (r["first_loss"], r["last_loss"])
    assert r["parameters_checked"] is False, r
    if bound is not None:
        assert a["staleness"]["max"] <= bound, a
# Worker 1 at 3x: unbounded, the others get more than one step ahead of it.
assert asynchronous["ps_async"]["staleness"]["max"] > 1, asynchronous["ps_async"]
print("staleness max/mean: ssp K=1 {max}/{mean:.2f}, async {amax}/{amean:.2f}; steps 30 each, none lost"
      .format(amax=asynchronous["ps_async"]["staleness"]["max"],
              amean=asynchronous["ps_async"]["staleness"]["mean"], **ssp["ps_async"]["staleness"]))
PY

"$GRADSYNC" report "$tmp/runs.jsonl" >"$tmp/report" || fail "report"
grep -q "| ps-zmq async |" "$tmp/report" && grep -q "| ps-zmq ssp K=1 |" "$tmp/report" &&
  grep -q "Time to target loss" "$tmp/report" || { cat "$tmp/report"; fail "the report does not tell the modes apart"; }

# Refusals: one line, non-zero exit.
refused() {  # expected text, then the command's arguments
  local want=$1; shift
  if "$@" >"$tmp/out" 2>&1; then cat "$tmp/out"; fail "accepted: $*"; fi
  grep -q -- "$want" "$tmp/out" || { cat "$tmp/out"; fail "no '$want' for: $*"; }
}
one=("$GRADSYNC" train --model small-cnn --num-iters 1 --num-batches-per-iter 1 --strategy ps-zmq)
refused "--ps-mode: eventual not in {sync,async,ssp}" "${one[@]}" --ps-mode eventual
refused "ps-staleness" "${one[@]}" --ps-mode ssp --ps-staleness -1
refused "is for --ps-mode sync" "${one[@]}" --ps-mode async --compression fp16
refused "train only" "$GRADSYNC" collectives --strategy ps-zmq --ps-mode async -b 1K -e 1K -n 1 -w 0
refused "servers own the parameters here" "${one[@]}" --ps-mode async --sync-order forward
echo "ps_async: ok"
