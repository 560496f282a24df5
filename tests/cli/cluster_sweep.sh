#!/usr/bin/env bash
# `gradsync sweep --cluster`: the sweep brings up its own emulated cluster
# (prefix gsw), runs across it and takes it down:
# - a malformed spec is one line and exit 2, before anything is made;
# - a tiny sweep on 2 hosts x 1 slot (none and ps-zmq, whose shard must bind
#   to its host's address to be reached), its links at MTU 9000, writes
#   records that name the cluster's hosts, carry the link bytes, the MTU
#   and the time scale, and leaves no
#   namespace, link or process behind;
# - a sweep stopped with SIGTERM in its first run ends with exit 130 and
#   also leaves nothing behind.
# Runs while no other sweep --cluster runs (it takes down prefix gsw first).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the emulated cluster needs root (network namespaces, veths, tc)"; exit 77; }
unshare --net true 2>/dev/null || { echo "SKIP: this machine cannot make network namespaces"; exit 77; }

repo=$(cd "$(dirname "$0")/../.." && pwd)
source "$repo/scripts/cluster/common.sh"
export GRADSYNC_CLUSTER_SCRIPT=$repo/scripts/cluster.sh
tmp=$(mktemp -d)
trap '"$GRADSYNC_CLUSTER_SCRIPT" down --prefix gsw >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$GRADSYNC_CLUSTER_SCRIPT" down --prefix gsw >/dev/null  # what an earlier, killed test left
fail() { echo "FAIL: $*" >&2; exit 1; }

nothing_left() {
  local left
  left=$( (existing_namespaces gsw; existing_links gsw; tc qdisc show | grep -E ' dev gsw' || true) | tr '\n' ' ')
  [ -z "$left" ] || fail "$1: left behind: $left"
  ! pgrep -f "gradsync-sweep-" >/dev/null || fail "$1: a process of the sweep's cluster still runs"
  ! ls -d /run/gradsync-sweep-* 2>/dev/null || fail "$1: the sweep's state folder is left"
}

status=0
"$GRADSYNC" sweep --cluster "2 hosts" --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "is not HOSTS x SLOTS @ RATE" "$tmp/err" ||
  fail "malformed --cluster: exit $status: $(cat "$tmp/err")"
[ -z "$(existing_namespaces gsw)" ] || fail "a malformed --cluster made namespaces"

tiny="--batch-size 4 --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2 --timeout 30"
timeout 300 "$GRADSYNC" sweep --cluster "2x1@1gbit, mtu 9000" --time-scale 2 --out "$tmp/sweep" --workers 2 \
  --strategy none,ps-zmq --models small-cnn:emulated --train-args "$tiny" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "sweep --cluster: exit $?"; }
grep -q "^cluster: 2 hosts x 1 slots @ 1gbit, MTU 9000 ... up, links" "$tmp/out" || { cat "$tmp/out"; fail "no cluster line"; }
/usr/bin/python3 - "$tmp/sweep/train.jsonl" <<'PY' || fail "records"
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
assert len(records) == 2, f"{len(records)} records, expected 2"
for r in records:
    hosts = [h["name"] for h in r["cluster"]["hosts"]]
    assert hosts == ["gsw-h0", "gsw-h1"], f"{r['strategy']}: cluster hosts {hosts}"
    assert r["time_scale"] == 2, f"{r['strategy']}: time_scale {r['time_scale']}"
    assert r["cluster"]["mtu"] == 9000, f"{r['strategy']}: mtu {r['cluster'].get('mtu')}"
    assert [h["host"] for h in r["wire"]["hosts"]] == hosts, f"{r['strategy']}: wire {r['wire']}"
ps = next(r for r in records if r["strategy"] == "ps-zmq")
assert ps["results"]["parameters_identical"] is True, "ps-zmq across hosts: parameters differ"
# Worker 1's pushes and pulls cross the link to the shard on gsw-h0.
assert all(h["link_tx_bytes"] >= h["counted_sent_bytes"] > 0 for h in ps["wire"]["hosts"][1:]), ps["wire"]
PY
nothing_left "after a sweep"

# Stopped in its first run: the cluster comes down all the same.
"$GRADSYNC" sweep --cluster "2x1@1gbit" --out "$tmp/stopped" --workers 2 --strategy ring-mpi \
  --models resnet50:emulated --train-args "--num-warmup-batches 100 --timeout 30" >"$tmp/stopped.out" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -e "$tmp/stopped/logs/resnet50-emulated-ring-mpi-np2.log" ] && break; sleep 0.1; done
[ -e "$tmp/stopped/logs/resnet50-emulated-ring-mpi-np2.log" ] || { kill $pid; fail "the first run never started"; }
sleep 2
kill -TERM $pid
status=0
timeout 120 tail --pid=$pid -f /dev/null || fail "the stopped sweep did not end within 120 s"
wait $pid || status=$?
[ "$status" -eq 130 ] || { cat "$tmp/stopped.out"; fail "stopped sweep: exit $status, expected 130"; }
nothing_left "after a stopped sweep"
echo "PASS"
