#!/usr/bin/env bash
# `gradsync train --timeline`: a 2-worker ResNet-50 run (emulated compute,
# ring-mpi, 16 MiB buckets) writes one Chrome trace that parses as JSON, has
# every field the format requires, events from both ranks on the compute and
# the communication thread, and every kind of event a model's run makes (no
# pack or unpack: its gradients are bucket views, and the averaging is left to
# the optimizer; tests/mpi/synchronizer_test.cc traces those); with overlap on, some
# allreduce on the communication thread runs while a backward layer runs on
# the compute thread; with overlap off, no allreduce of a step starts before
# that step's last backward ends. --timeline-steps bounds the trace, and with
# a dedicated parameter-server rank only the workers appear.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3
run=(train --model resnet50 --compute emulated --strategy ring-mpi --fusion-mb 16
     --batch-size 16 --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 1)

# check.py TRACE MODE [STEPS]: MODE is overlap-on or overlap-off; STEPS, when
# given, is the exact set of step markers expected per rank ("1,2").
cat >"$tmp/check.py" <<'PY'
import json, sys
path, mode = sys.argv[1], sys.argv[2]
with open(path) as f:
    trace = json.load(f)  # fails on anything that is not JSON
assert trace["displayTimeUnit"] == "ms" and isinstance(trace["otherData"], dict), "top-level fields"
events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
meta = [e for e in trace["traceEvents"] if e["ph"] == "M"]
for e in events:
    for field in ("name", "cat", "ph", "ts", "dur", "pid", "tid"):
        assert field in e, f"{field} missing in {e}"
    assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
    assert e["tid"] in (0, 1), e
pids = sorted({e["pid"] for e in events})
assert pids == [0, 1], f"events from pids {pids}, expected 0 and 1"
names = {(e["pid"], e["name"], e["args"]["name"]) for e in meta if "name" in e["args"]}
for pid in pids:
    assert any(n == "process_name" and v.startswith(f"rank {pid} (") for p, n, v in names if p == pid), names
    for tid_name in ("compute", "communication"):
        assert any(n == "thread_name" and v == tid_name for p, n, v in names if p == pid), names
cats = {e["cat"] for e in events}
for cat in ("forward", "backward", "allreduce", "wait", "step"):
    assert cat in cats, f"no {cat} events (have {sorted(cats)})"
for cat in ("pack", "unpack"):
    assert cat not in cats, f"{cat} events, yet the model's buckets are views of its gradients"
for e in events:
    want_tid = 1 if e["cat"] in ("allreduce", "unpack") else 0
    assert e["tid"] == want_tid, f"{e['cat']} event on thread {e['tid']}: {e}"
assert any(e["name"].startswith("allreduce bucket 0 (") and e["name"].endswith(" bytes)") for e in events)
assert any(e["name"].startswith("backward layer4.2.conv3") for e in events)
assert any(e["name"] == "wait for communication" for e in events)

def end(e): return e["ts"] + e["dur"]
def overlap(a, b): return max(0.0, min(end(a), end(b)) - max(a["ts"], b["ts"]))

if len(sys.argv) > 3:
    want = {f"step {s}" for s in sys.argv[3].split(",")}
    for pid in pids:
        got = {e["name"] for e in events if e["pid"] == pid and e["cat"] == "step"}
        assert got == want, f"rank {pid}: step markers {sorted(got)}, expected {sorted(want)}"

total = 0.0
for pid in pids:
    mine = [e for e in events if e["pid"] == pid]
    steps = [e for e in mine if e["cat"] == "step"]
    assert steps, f"rank {pid}: no step markers"
    for step in steps:
        inside = [e for e in mine if e["cat"] != "step" and e["ts"] >= step["ts"] and end(e) <= end(step) + 1]
        backward = [e for e in inside if e["cat"] == "backward"]
        allreduce = [e for e in inside if e["cat"] == "allreduce"]
        assert backward and allreduce, f"rank {pid} {step['name']}: no backward or no allreduce inside"
        last_backward = max(end(e) for e in backward)
        if mode == "overlap-off":
            early = [e for e in allreduce if e["ts"] < last_backward]
            assert not early, f"rank {pid} {step['name']}: allreduce before backward ended: {early[0]}"
        total += sum(overlap(a, b) for a in allreduce for b in backward)
if mode == "overlap-on":
    assert total > 0, "no allreduce overlaps a backward layer on any rank"
else:
    assert total == 0, f"overlap off, yet {total} us of allreduce overlap backward"
layers = [e["dur"] for e in events if e["name"] == "backward layer4.2.conv3" and e["pid"] == 0]
print(f"{mode}: {len(events)} events, allreduce overlapping backward {total / 1000:.1f} ms in all; "
      f"backward layer4.2.conv3 {sum(layers) / len(layers) / 1000:.3f} ms")
PY

# Overlap on: the trace is written, the run says where, and it shows overlap.
"$MPIRUN" -np 2 "$GRADSYNC" "${run[@]}" --overlap on --timeline "$tmp/on.json" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "train --timeline: exit status"; }
grep -qF "written to $tmp/on.json" "$tmp/out" || { cat "$tmp/out"; fail "the run did not say where the trace went"; }
"$python" "$tmp/check.py" "$tmp/on.json" overlap-on "0,1,2" || fail "overlap on: bad trace"
ls "$tmp" | grep -q '\.tmp\.' && fail "a temporary file was left behind"

# Overlap off: nothing is reduced before the step's backward is over.
"$MPIRUN" -np 2 "$GRADSYNC" "${run[@]}" --overlap off --timeline "$tmp/off.json" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "train --overlap off --timeline: exit status"; }
"$python" "$tmp/check.py" "$tmp/off.json" overlap-off || fail "overlap off: bad trace"

# --timeline-steps 1: only the first step after the warm-up step.
"$MPIRUN" -np 2 "$GRADSYNC" "${run[@]}" --timeline-steps 1 --timeline "$tmp/one.json" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "train --timeline-steps 1: exit status"; }
"$python" "$tmp/check.py" "$tmp/one.json" overlap-on "1" || fail "--timeline-steps 1: bad trace"

# A missing directory is refused before anything runs.
if "$GRADSYNC" train --model small-cnn --strategy none --timeline "$tmp/no/such/dir/t.json" >"$tmp/out" 2>&1; then
  fail "a timeline in a missing directory was accepted"
fi
grep -q "does not exist" "$tmp/out" || { cat "$tmp/out"; fail "no reason given for the missing directory"; }

# A dedicated server rank (rank 0) serves and emits nothing: only ranks 1 and 2.
strategies=$("$GRADSYNC" strategies | awk 'NR > 1 && $2 == "yes" { print $1 }')
if grep -qx ps-zmq <<<"$strategies"; then
  "$MPIRUN" -np 3 "$GRADSYNC" train --model small-cnn --batch-size 4 --num-warmup-batches 0 \
    --num-batches-per-iter 1 --num-iters 2 --strategy ps-zmq --ps-placement dedicated \
    --timeline "$tmp/ps.json" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "ps-zmq dedicated: exit status"; }
  "$python" - "$tmp/ps.json" <<'PY' || fail "ps-zmq dedicated: bad trace"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
pids = sorted({e["pid"] for e in events if e["ph"] == "X"})
assert pids == [1, 2], f"events from ranks {pids}, expected the workers 1 and 2 only"
assert any(e["cat"] == "optimizer" for e in events if e["ph"] == "X"), "cpu compute: no optimizer step"
PY
fi
echo "timeline: all checks passed"
