#!/usr/bin/env bash
# The PyTorch DDP reference (scripts/ddp-reference.py, strategy ddp-gloo)
# beside gradsync's own strategies, checked with the suite's own commands:
# - the same network: every trainable tensor of the torch models (name and
#   shape, in order) equals what `gradsync models --json` lists;
# - `gradsync sweep --strategy none,ddp-gloo` at 1 and 2 workers runs the
#   script for ddp-gloo, and a second sweep into the same directory skips
#   every configuration (resume);
# - the records: strategy ddp-gloo, "external": "pytorch-ddp", torch's
#   version and the Gloo backend in the context, parameters identical,
#   the gradient bytes of the model's parameters, a step breakdown;
# - `gradsync report` puts ddp-gloo in the same tables as none, marked
#   external with the note under the table, its efficiency (against its own
#   run at one worker) a number in (0, 1.5]; `compare` judges its scaling;
#   the figures draw it, labelled as external;
# - a worker that stops answering ends the run with one line and exit 1
#   within the timeout; a stopped launcher leaves no worker behind; bad
#   input is one line and exit 2.
# Skips (exit 77) when no Python has PyTorch (scripts/install-deps.sh peers).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
root=$(cd "$(dirname "$0")/../.." && pwd)
script=$root/scripts/ddp-reference.py

python=""
for py in ${GRADSYNC_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import torch, torchvision' >/dev/null 2>&1; then
    python=$py
    break
  fi
done
if [ -z "$python" ]; then
  echo "SKIP: no Python with PyTorch and torchvision (tried ${GRADSYNC_PYTHON:+$GRADSYNC_PYTHON, }/usr/bin/python3, python3); scripts/install-deps.sh peers installs python3-torch and python3-torchvision"
  exit 77
fi
export GRADSYNC_PYTHON=$python OPENBLAS_NUM_THREADS=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The same network: names and shapes of every gradient tensor, in order.
"$GRADSYNC" models --json >"$tmp/models.json"
for model in small-cnn resnet50 inception3; do
  "$python" "$script" --model "$model" --list-parameters >"$tmp/$model.json" ||
    fail "$model: --list-parameters"
  "$python" - "$tmp/models.json" "$tmp/$model.json" "$model" <<'PY' || fail "$model: not gradsync's network"
import json, sys
zoo = {m["name"]: m for m in json.load(open(sys.argv[1]))}
ours = zoo[sys.argv[3]]
theirs = json.load(open(sys.argv[2]))["gradients"]
key = lambda ts: [(t["name"], t["shape"], t["elements"]) for t in ts]
if key(theirs) != key(ours["gradients"]):
    diff = next((a, b) for a, b in zip(key(theirs) + [None] * 999, key(ours["gradients"]) + [None] * 999) if a != b)
    sys.exit(f"first difference (torch, gradsync): {diff}")
total = sum(t["elements"] for t in theirs)
if total != ours["parameters"]:
    sys.exit(f"{total} parameters, gradsync has {ours['parameters']}")
print(f"{sys.argv[3]}: {len(theirs)} tensors, {total} parameters, as gradsync's")
PY
done

# A sweep with gradsync's baseline and the reference, at 1 and 2 workers.
tiny="--batch-size 8 --num-warmup-batches 2 --num-batches-per-iter 3 --num-iters 2"
"$GRADSYNC" sweep --workers 1,2 --strategy none,ddp-gloo --models small-cnn:cpu --out "$tmp/sweep" \
  --train-args "$tiny" >"$tmp/sweep.out" 2>&1 || { cat "$tmp/sweep.out"; fail "sweep: exit status"; }
grep -qF "[ 4/4]" "$tmp/sweep.out" || { cat "$tmp/sweep.out"; fail "sweep: no progress line for run 4"; }
[ "$(grep -c '"strategy":"ddp-gloo"' "$tmp/sweep/train.jsonl")" -eq 2 ] || fail "expected 2 ddp-gloo records"

# The records, field by field.
"$python" - "$tmp/sweep/train.jsonl" "$tmp/models.json" <<'PY' || fail "ddp-gloo records"
import json, sys
params = {m["name"]: m["parameters"] for m in json.load(open(sys.argv[2]))}
records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ddp = [r for r in records if r["strategy"] == "ddp-gloo"]
assert sorted(r["workers"] for r in ddp) == [1, 2], [r["workers"] for r in ddp]
for r in ddp:
    c, res = r["context"], r["results"]
    checks = {
        "external": r["external"] == "pytorch-ddp",
        "kind": r["kind"] == "train" and r["schema"] == "gradsync.result" and r["schema_version"] == 1,
        "model, compute, batch": (r["model"], r["compute"], r["batch_size"]) == ("small-cnn", "cpu", 8),
        "schedule": r["schedule"] == {"warmup_batches": 2, "batches_per_iter": 3, "iters": 2},
        "ranks": r["ranks"] == r["workers"] == res["workers"],
        "bucket cap": r["sync"] == {"fusion_mb": 25, "overlap": True} and r["strategy_options"]["bucket_cap_mb"] == 25,
        "torch version": c["torch_version"].startswith("1.") or c["torch_version"][0].isdigit(),
        "backend": c["ddp_backend"] == "gloo",
        "one thread": c["compute_threads"] == 1,
        "digest": c["config_digest"].startswith("fnv1a64:") and c["config"]["subcommand"] == "ddp-reference",
        "correct": r["correct"] is True and res["parameters_identical"] is True,
        "gradient bytes": res["gradient_bytes"] == 4 * params["small-cnn"],
        "timed steps": res["timed_steps"] == 6 and len(res["img_sec_per_worker"]) == 2,
        "breakdown": all(res[k] >= 0 for k in ("compute_s", "allreduce_s", "exposed_comm_s")) and
                     0 < res["compute_s"] < res["step_mean_s"] * 1.01 and res["buckets_per_step"] >= 1,
        "share": 0 <= res["exposed_comm_share"] < 1,
    }
    bad = [k for k, ok in checks.items() if not ok]
    assert not bad, f"n={r['workers']}: {bad}: {json.dumps(r)[:2000]}"
print("records: ok")
PY

# report: one table with both, ddp-gloo marked external, the note under it.
"$GRADSYNC" report "$tmp/sweep" >"$tmp/report.md" || fail "report"
grep -q '^| small-cnn | cpu | 8 | none | [0-9.]*% | [0-9.]*% |$' "$tmp/report.md" ||
  { cat "$tmp/report.md"; fail "report: no efficiency row for none"; }
grep -q '^| small-cnn | cpu | 8 | ddp-gloo (external) | 100.0% | [0-9.]*% |$' "$tmp/report.md" ||
  { cat "$tmp/report.md"; fail "report: no efficiency row for ddp-gloo (external)"; }
tables=$(grep -c '^| model |' "$tmp/report.md")
[ "$(grep -c '^(external) `ddp-gloo` is an external reference (pytorch-ddp)' "$tmp/report.md")" -eq "$tables" ] ||
  { cat "$tmp/report.md"; fail "report: the note is not under each of the $tables tables"; }
[ "$(grep -c '^Scaling efficiency' "$tmp/report.md")" -eq 1 ] || fail "report: more than one efficiency table"
"$GRADSYNC" report --format json "$tmp/sweep" >"$tmp/report.json" || fail "report --format json"
"$python" - "$tmp/report.json" <<'PY' || fail "report --format json"
import json, sys
d = json.load(open(sys.argv[1]))
role = {s["name"]: s["role"] for s in d["strategies"]}
assert role.get("ddp-gloo") == "external", role
rows = {(r["strategy"], r["workers"]): r for r in d["train"]}
for n in (1, 2):
    r = rows[("ddp-gloo", n)]
    e = r["efficiency"]
    assert r["external"] == "pytorch-ddp" and e is not None and 0 < e["value"] <= 1.5, r
    assert r["breakdown"] is not None, r
    assert rows[("none", n)]["external"] is None
assert rows[("ddp-gloo", 1)]["efficiency"]["value"] == 1.0  # its own baseline
print("report json: ok, efficiency at 2:", rows[("ddp-gloo", 2)]["efficiency"]["value"])
PY

# compare: the reference is judged by its own scaling, from 2 workers on.
"$GRADSYNC" compare "$tmp/sweep" "$tmp/sweep" >"$tmp/compare.out" || { cat "$tmp/compare.out"; fail "compare"; }
grep -q '^| small-cnn cpu b8 | ddp-gloo | 2 | [0-9.]* | [0-9.]* | +0.0% | ok |$' "$tmp/compare.out" ||
  { cat "$tmp/compare.out"; fail "compare: no ddp-gloo row at 2 workers"; }
grep -q 'ddp-gloo | 1 |' "$tmp/compare.out" && fail "compare: judged ddp-gloo against itself at 1 worker"

# Resume: the same sweep again runs nothing.
"$GRADSYNC" sweep --workers 1,2 --strategy none,ddp-gloo --models small-cnn:cpu --out "$tmp/sweep" \
  --train-args "$tiny" >"$tmp/again.out" 2>&1 || { cat "$tmp/again.out"; fail "sweep again"; }
[ "$(grep -c 'done before' "$tmp/again.out")" -eq 4 ] || { cat "$tmp/again.out"; fail "resume: not all skipped"; }

# The figures: ddp-gloo drawn and labelled as external.
"$root/scripts/plots.sh" efficiency "$tmp/sweep" -o "$tmp/figures" >"$tmp/plots.out" 2>&1 ||
  { cat "$tmp/plots.out"; fail "plots"; }
grep -qF "ddp-gloo (external, own compute)" "$tmp/figures/efficiency-small-cnn-cpu-b8.svg" ||
  fail "efficiency figure: no ddp-gloo line labelled external"

# A worker that stops answering: one line, exit 1, within the timeout.
start=$SECONDS status=0
"$python" "$script" --model small-cnn --workers 2 --batch-size 8 --num-warmup-batches 1 \
  --num-batches-per-iter 1 --num-iters 1 --timeout 2 --test-stall-rank 1 >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'did not answer within --timeout' "$tmp/err" ||
  { cat "$tmp/err"; fail "stalled peer: exit $status, expected 1 and one line"; }
[ $((SECONDS - start)) -lt 30 ] || fail "stalled peer: took $((SECONDS - start)) s"

# A stop (a sweep stopped, Ctrl-C) ends the workers with the launcher: none is left.
"$python" "$script" --model small-cnn --workers 2 --batch-size 8 --num-iters 100000 \
  --data-seed 424242 >"$tmp/out" 2>"$tmp/err" &
launcher=$!
for _ in $(seq 50); do
  [ "$(pgrep -f 'data-seed 424242' | wc -l)" -ge 3 ] && break
  sleep 0.2
done
sleep 1
kill -TERM "$launcher"
status=0
wait "$launcher" || status=$?
sleep 1
[ "$status" -eq 143 ] || { cat "$tmp/err"; fail "stopped launcher: exit $status, expected 143"; }
[ "$(pgrep -f 'data-seed 424242' | wc -l)" -eq 0 ] || fail "a worker outlived its stopped launcher"

# Bad input: one line, exit 2.
expect_usage() {
  local words=$1 status=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$words" "$tmp/err" ||
    { sed 's/^/  | /' "$tmp/err" >&2; fail "$* -> exit $status; expected exit 2 and one line naming: $words"; }
}
expect_usage "unknown model 'nosuch'" "$python" "$script" --model nosuch
expect_usage "'8x' is not a whole number" "$python" "$script" --model small-cnn --batch-size 8x
expect_usage "--ring-segment is a gradsync option" "$python" "$script" --model small-cnn --ring-segment 1M
expect_usage "--strategy ddp-gloo trains with" "$GRADSYNC" sweep --out "$tmp/x" --strategy ddp-gloo \
  --models resnet50:emulated
echo "ddp: ok"
