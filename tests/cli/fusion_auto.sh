#!/usr/bin/env bash
# `--fusion-mb auto`: train at 2 workers searches first and records the
# threshold it chose (one of the candidates it measured) and the steps it
# spent; a sweep over `--fusion-mb 4,auto` keeps both runs apart in the
# report; simulate names the threshold it would choose; a malformed
# --fusion-mb is one line and a non-zero exit. No timing is asserted.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
short="--batch-size 8 --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2"

# train: the search's line, and its record (sync.fusion_mb the one chosen).
"$MPIRUN" -np 2 "$GRADSYNC" train --model small-cnn $short --strategy ring-mpi --fusion-mb auto --fusion-search-steps 2 \
  --out "$tmp/train.jsonl" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train auto: exit status"; }
grep -q '^Fusion auto: [0-9.]* MiB after [0-9]* untimed steps; per candidate' "$tmp/out" ||
  { cat "$tmp/out"; fail "train auto: no line with the chosen threshold"; }
python3 - "$tmp/train.jsonl" <<'PY' || fail "train auto: record"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
s = r["sync"]; f = s["fusion_search"]
mbs = [c["mb"] for c in f["candidates"]]
assert s["fusion_mb"] == f["chosen_mb"] and f["chosen_mb"] in mbs, s
assert len(mbs) >= 2 and all(c["step_s"] > 0 for c in f["candidates"]), f
# 3 cold steps (the order, the cold start), then per measurement 2 steps,
# and one discarded at each change of threshold (none before the first: 0)
switches = sum(1 for a, b in zip(mbs, mbs[1:]) if a != b)
assert f["steps"] == 3 + 2 * len(mbs) + switches, f
assert r["correct"] is True
PY
# Where no bucket goes anywhere (none), auto is a no-op that says so.
"$GRADSYNC" train --model small-cnn $short --strategy none --fusion-mb auto --out "$tmp/none.jsonl" >"$tmp/none" 2>&1 ||
  { cat "$tmp/none"; fail "train none auto: exit status"; }
grep -q '^Fusion auto: none sends no buckets: nothing to tune' "$tmp/none" ||
  { cat "$tmp/none"; fail "train none auto: no line saying there is nothing to tune"; }

# sweep: a fixed threshold and auto are two configurations and two report rows.
"$GRADSYNC" sweep --workers 2 --strategy none,ring-mpi --models small-cnn:cpu --fusion-mb 4,auto \
  --out "$tmp/sweep" --train-args "$short" >"$tmp/sweep.out" 2>&1 ||
  { cat "$tmp/sweep.out"; fail "sweep: exit status"; }
grep -qF "[ 3/3]" "$tmp/sweep.out" || { cat "$tmp/sweep.out"; fail "sweep: expected 3 runs (none once)"; }
grep -q '^| small-cnn | cpu | 8 | ring-mpi fusion 4M | ' "$tmp/sweep.out" ||
  { cat "$tmp/sweep.out"; fail "sweep: no row for ring-mpi at 4 MiB"; }
grep -q '^| small-cnn | cpu | 8 | ring-mpi fusion auto | .*(chose [0-9.]*M)' "$tmp/sweep.out" ||
  { cat "$tmp/sweep.out"; fail "sweep: no row for ring-mpi auto with its choice"; }
python3 - "$tmp/sweep/train.jsonl" <<'PY' || fail "sweep: digests"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
digests = {r["context"]["config_digest"] for r in rs}
assert len(rs) == 3 and len(digests) == 3, digests
PY
"$GRADSYNC" sweep --workers 2 --strategy ring-mpi --models small-cnn:cpu --fusion-mb 4,auto \
  --out "$tmp/sweep" --train-args "$short" >"$tmp/again.out" 2>&1 || fail "sweep again: exit status"
[ "$(grep -c 'done before' "$tmp/again.out")" -eq 2 ] || { cat "$tmp/again.out"; fail "sweep again: both runs should be done before"; }

# simulate: the threshold it would choose, printed and in the record.
"$GRADSYNC" simulate project --cluster "$here/../../results/reference/clusters/horovod-p100-roce25.json" \
  --model resnet50 --strategy ring-mpi --workers 1,8 --fusion-mb auto --out "$tmp/sim.jsonl" \
  >"$tmp/sim" 2>&1 || { cat "$tmp/sim"; fail "simulate auto: exit status"; }
grep -q '^# fusion auto, resnet50 ring-mpi n=8: [0-9.]* MiB (predicted ms per step by MiB: 0: ' "$tmp/sim" ||
  { cat "$tmp/sim"; fail "simulate auto: no line naming its choice"; }
python3 - "$tmp/sim.jsonl" <<'PY' || fail "simulate auto: record"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
s = r["sync"]; f = s["fusion_search"]
assert r["workers"] == 8 and s["fusion_mb"] == f["chosen_mb"], s
assert f["chosen_mb"] in [c["mb"] for c in f["candidates"]], f
assert min(c["step_s"] for c in f["candidates"]) == r["results"]["step_mean_s"], f
PY

# Malformed: one line, non-zero exit.
for args in "train --fusion-mb 16x" "train --fusion-mb -2" "train --fusion-mb auto --fusion-search-steps 0" \
  "sweep --out $tmp/x --fusion-mb 4,fast" "simulate project --cluster nosuch.json --fusion-mb autox"; do
  status=0
  "$GRADSYNC" $args >/dev/null 2>"$tmp/err" || status=$?
  [ "$status" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^gradsync: error: ' "$tmp/err" ||
    { cat "$tmp/err"; fail "gradsync $args: exit $status, expected one error line"; }
done
echo "fusion auto: OK"
