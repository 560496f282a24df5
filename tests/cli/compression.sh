#!/usr/bin/env bash
# --compression fp16|bf16: every host strategy at 2 ranks sends exactly half
# the bytes of fp32 (the collectives records' traffic), with every sum still
# right, and the records say which compression ran; small-cnn trained over
# ring-mpi with fp16 gradients still reaches a quarter of chance loss; an NCCL
# strategy and an unknown format are refused with one line.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Every usable host strategy that synchronizes and takes 16-bit buffers: the
# sharded ones move fp32 only (they refuse --compression).
strategies=$("$GRADSYNC" strategies --json | python3 -c '
import json, sys
print(",".join(s["name"] for s in json.load(sys.stdin)
               if s["usable"] and s["memory"] == "host" and s["role"] != "baseline"
               and s["sharding"] == "none"))')
[ -n "$strategies" ] || fail "gradsync strategies lists no usable strategy"
echo "strategies: $strategies"
for format in none fp16 bf16; do
  "$MPIRUN" -np 2 "$GRADSYNC" collectives -b 64K -e 64K -n 2 -w 1 --strategy "$strategies" \
    --compression "$format" --json "$tmp/$format.jsonl" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; fail "collectives --compression $format: exit status"; }
done
python3 - "$tmp" "$strategies" <<'PY' || fail "bytes with fp16/bf16 are not half of fp32's"
import json, sys
tmp, strategies = sys.argv[1], sys.argv[2].split(",")
runs = {f: [json.loads(l) for l in open(f"{tmp}/{f}.jsonl")] for f in ("none", "fp16", "bf16")}
for f, records in runs.items():
    assert [r["strategy"] for r in records] == strategies, (f, [r["strategy"] for r in records])
    for r in records:
        assert r["strategy_options"]["compression"] == f, (r["strategy"], r["strategy_options"])
        assert r["correct"] is True, (f, r["strategy"], r["rows"])
for i, name in enumerate(strategies):
    full = runs["none"][i]["traffic"]
    assert full["bytes_sent"] > 0, name
    for f in ("fp16", "bf16"):
        half = runs[f][i]["traffic"]
        for key in ("bytes_sent", "bytes_received"):
            assert 2 * half[key] == full[key], (name, f, key, half[key], full[key])
        print(f"{name}: {f} sent {half['bytes_sent']} B, fp32 {full['bytes_sent']} B")
PY

# Training with fp16 gradients over a real allreduce: the loss still falls
# below a quarter of chance (ln 10 for 10 classes), as without compression
# (tests/cli/train.sh), and the record says fp16.
"$MPIRUN" -np 2 "$GRADSYNC" train --model small-cnn --batch-size 16 --num-warmup-batches 0 \
  --num-batches-per-iter 10 --num-iters 3 --strategy ring-mpi --lr 0.003 --compression fp16 \
  --out "$tmp/train.jsonl" >"$tmp/loss" 2>&1 || { cat "$tmp/loss"; fail "train --compression fp16"; }
read -r first last < <(sed -n 's/^Loss: \([0-9.]*\) at the first step, \([0-9.]*\) at the last$/\1 \2/p' "$tmp/loss")
awk -v f="$first" -v l="$last" 'BEGIN { exit !(l < f && l < 0.25 * 2.302585) }' ||
  { cat "$tmp/loss"; fail "fp16: loss did not fall below a quarter of chance: $first -> $last"; }
grep -qF '"compression":"fp16"' "$tmp/train.jsonl" || fail "the train record does not say fp16"
echo "small-cnn, ring-mpi, fp16: loss $first -> $last"

# Refusals: one line, non-zero exit.
status=0
"$GRADSYNC" collectives -b 4 -e 4 --strategy ring-mpi --compression fp8 >/dev/null 2>"$tmp/err" || status=$?
[ "$status" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "fp8" "$tmp/err" ||
  { cat "$tmp/err"; fail "--compression fp8: exit $status, expected one error line"; }
if "$GRADSYNC" strategies | awk 'NR > 1 && $2 == "yes" && $1 == "nccl-ring" { found = 1 } END { exit !found }'; then
  status=0
  "$GRADSYNC" collectives -b 4 -e 4 --strategy nccl-ring --compression fp16 >/dev/null 2>"$tmp/err" || status=$?
  [ "$status" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "nccl-ring: --compression fp16 is not supported" "$tmp/err" ||
    { cat "$tmp/err"; fail "nccl-ring --compression fp16: exit $status, expected one error line"; }
fi
echo "compression: half the bytes for every strategy, training still converges, refusals"
