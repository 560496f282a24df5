#!/usr/bin/env bash
# Records of runs on an emulated cluster, and time scaling, without the
# cluster itself (scripts/cluster.sh is tested on its own): a fake
# cluster.json whose one host is this machine and whose interface is `lo`,
# so that the loopback counters move under ps-zmq's TCP traffic (every byte
# through ZeroMQ, --ps-shm off: on one host its data would otherwise go
# through shared memory and never reach the link).
# - train and collectives records carry the cluster (hosts, ranks, rate, the
#   warning that no check was run) and the wire truth of every host, its link
#   bytes at least what the strategies counted (on loopback every TCP byte a
#   rank sends is transmitted and received on lo); report shows the wire table
#   and the setup, its JSON form the same;
# - a corrupt cluster.json, or one naming an interface this host lacks: one
#   line, non-zero exit, alike under mpirun;
# - without GRADSYNC_CLUSTER, or with a cluster.json not listing this host,
#   no cluster field is written;
# - --time-scale 2 doubles the emulated step: the ratio of two median step
#   times (same binary, same machine, a few hundred ms apart) within 1.6x to
#   2.4x. A ratio, not a speed: it holds on any machine that keeps the
#   emulated 40 ms steps within 20% of their length, and no absolute time is
#   asserted. Real compute with a time scale is refused in one line.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
host=$(hostname)
short=(--model small-cnn --compute emulated --emulate-img-per-sec 400 --batch-size 8
  --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2)

write_cluster() {  # name interface file
  cat >"$3" <<EOF
{"version": 1, "subnet": "198.18.0.0/24", "bridge": "gsbr0", "interface": "$2",
 "slots": 2, "rate": "1gbit", "rate_bits_per_s": 1e9, "delay": "0ms", "delay_s": 0,
 "hosts": [{"name": "$1", "address": "198.18.0.1", "slots": 2},
           {"name": "gs-h1", "address": "198.18.0.2", "slots": 2}],
 "check": null}
EOF
}
write_cluster "$host" lo "$tmp/cluster.json"

# Train and collectives on the fake cluster.
GRADSYNC_CLUSTER=$tmp/cluster.json "$MPIRUN" -np 2 "$GRADSYNC" train "${short[@]}" --strategy ps-zmq \
  --ps-shm off --out "$tmp/train.jsonl" >"$tmp/train.out" 2>&1 || { cat "$tmp/train.out"; fail "train on the cluster"; }
for line in "Cluster: 2 hosts x 2 slots @ 1gbit, links lo (GRADSYNC_CLUSTER=$tmp/cluster.json)" \
  "Warning: no link check was run on this cluster" "Link bytes per step (busiest host $host): tx "; do
  grep -qF -- "$line" "$tmp/train.out" || { cat "$tmp/train.out"; fail "train: no '$line'"; }
done
GRADSYNC_CLUSTER=$tmp/cluster.json "$MPIRUN" -np 2 "$GRADSYNC" collectives -b 256K -e 1M -f 4 -n 3 -w 1 \
  --strategy ps-zmq --ps-shm off --json "$tmp/coll.jsonl" >"$tmp/coll.out" 2>&1 ||
  { cat "$tmp/coll.out"; fail "collectives on the cluster"; }
grep -qF "# Cluster: 2 hosts x 2 slots @ 1gbit" "$tmp/coll.out" || { cat "$tmp/coll.out"; fail "collectives: no cluster line"; }

python3 - "$tmp/train.jsonl" "$tmp/coll.jsonl" "$host" <<'PY' || fail "cluster fields of the records"
import json, sys
train = json.loads(open(sys.argv[1]).read())
coll = json.loads(open(sys.argv[2]).read())
host = sys.argv[3]

def check_wire(wire, unit, timed, where):
    assert wire["unit"] == unit and wire["timed"] == timed, (where, wire)
    [h] = wire["hosts"]
    assert h["host"] == host and h["ranks"] == [0, 1], (where, h)
    assert h["counted_sent_bytes"] > 0 and h["counted_received_bytes"] > 0, (where, h)
    # Every byte a strategy counted went over loopback TCP, headers on top.
    assert h["link_tx_bytes"] >= h["counted_sent_bytes"], (where, h)
    assert h["link_rx_bytes"] >= h["counted_received_bytes"], (where, h)
    total = h["link_tx_bytes"] + h["link_rx_bytes"]
    counted = h["counted_sent_bytes"] + h["counted_received_bytes"]
    assert abs(h["ratio"] - total / counted) < 1e-9, (where, h)

for r in (train, coll):
    c = r["cluster"]
    assert c["interface"] == "lo" and c["rate"] == "1gbit" and c["rate_bits_per_s"] == 1e9, c
    assert [h["name"] for h in c["hosts"]] == [host, "gs-h1"], c["hosts"]
    assert c["hosts"][0]["ranks"] == [0, 1] and c["hosts"][1]["ranks"] == [], c["hosts"]
    assert c["check"] is None and "no link check" in c["link_warning"], c
assert train["time_scale"] == 1 and train["cluster"]["represented_rate"] == "1gbit", train["cluster"]
assert "represented_rate" not in coll["cluster"], coll["cluster"]
check_wire(train["wire"], "step", 4, "train")
assert [row["size_bytes"] for row in coll["rows"]] == [262144, 1048576]
for row in coll["rows"]:
    check_wire(row["wire"], "allreduce", 3, f"collectives {row['size_bytes']}")
PY

"$GRADSYNC" report "$tmp/train.jsonl" "$tmp/coll.jsonl" >"$tmp/report" || fail "report of cluster records"
for line in "| small-cnn | emulated | 8 | ps-zmq | 2 hosts x 2 slots @ 1gbit |" "Wire truth on the emulated cluster" \
  "| small-cnn emulated b8 [2 hosts x 2 slots @ 1gbit] ps-zmq n=2 | $host | step |" \
  "| collectives ps-zmq n=2 [2 hosts x 2 slots @ 1gbit] at 1M | $host | allreduce |" \
  "n=2 ps-zmq [2 hosts x 2 slots @ 1gbit]"; do
  grep -qF -- "$line" "$tmp/report" || { cat "$tmp/report"; fail "report: no '$line'"; }
done
"$GRADSYNC" report --format json "$tmp/train.jsonl" "$tmp/coll.jsonl" >"$tmp/report.json" || fail "report --format json"
python3 - "$tmp/report.json" <<'PY' || fail "report --format json lacks the cluster"
import json, sys
doc = json.load(open(sys.argv[1]))
[row] = doc["train"]
assert row["setup"] == "2 hosts x 2 slots @ 1gbit" == row["cluster"]["label"], row
assert row["wire"]["hosts"][0]["link_tx_bytes"] > 0, row["wire"]
[entry] = doc["collectives"]
assert entry["setup"] == row["setup"] and all(r["wire"] for r in entry["rows"]), entry
PY

# Broken descriptions: one line, non-zero exit, on one rank and under mpirun.
echo '{"version": 1, "subnet": ' >"$tmp/corrupt.json"
write_cluster "$host" gs-missing0 "$tmp/no-if.json"
for case in "corrupt.json|: not valid JSON (" "no-if.json|: host $host: /proc/net/dev lists no interface gs-missing0"; do
  file=$tmp/${case%%|*}
  for np in "" 2; do
    status=0
    if [ -n "$np" ]; then
      GRADSYNC_CLUSTER=$file "$MPIRUN" --quiet -np "$np" "$GRADSYNC" train "${short[@]}" >"$tmp/out" 2>"$tmp/err" || status=$?
    else
      GRADSYNC_CLUSTER=$file "$GRADSYNC" collectives -b 1K -e 1K >"$tmp/out" 2>"$tmp/err" || status=$?
    fi
    [ "$status" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
      grep -qF "gradsync: error: GRADSYNC_CLUSTER=$file${case#*|}" "$tmp/err" ||
      { cat "$tmp/out" "$tmp/err"; fail "${case%%|*} (np=${np:-none}): exit $status, expected one error line"; }
  done
done

# Off the cluster nothing is written: no variable, or a cluster without this host.
write_cluster not-this-host lo "$tmp/elsewhere.json"
"$GRADSYNC" train "${short[@]}" --strategy none --out "$tmp/plain.jsonl" >/dev/null || fail "train off the cluster"
GRADSYNC_CLUSTER=$tmp/elsewhere.json "$GRADSYNC" train "${short[@]}" --strategy none \
  --out "$tmp/plain.jsonl" >"$tmp/out" || fail "train with a cluster.json not listing this host"
! grep -q "Cluster:" "$tmp/out" || fail "a run off the cluster printed a cluster line"
python3 - "$tmp/plain.jsonl" <<'PY' || fail "records off the cluster have cluster fields"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert "cluster" not in r and "wire" not in r, sorted(r)
PY

# Time scaling: the emulated step lasts twice as long at --time-scale 2.
timed=(--model small-cnn --compute emulated --emulate-img-per-sec 200 --batch-size 8 --strategy none
  --num-warmup-batches 2 --num-batches-per-iter 3 --num-iters 3)
"$GRADSYNC" train "${timed[@]}" --out "$tmp/k1.jsonl" >/dev/null || fail "train at time scale 1"
"$GRADSYNC" train "${timed[@]}" --time-scale 2 --out "$tmp/k2.jsonl" >"$tmp/k2.out" || fail "train at time scale 2"
grep -qF "Represented img/sec per worker (measured x 2): " "$tmp/k2.out" || { cat "$tmp/k2.out"; fail "no represented line"; }
python3 - "$tmp/k1.jsonl" "$tmp/k2.jsonl" <<'PY' || fail "time scale 2 did not double the emulated step"
import json, sys
k1, k2 = (json.loads(open(p).read()) for p in sys.argv[1:3])
assert k1["time_scale"] == 1 and k2["time_scale"] == 2, (k1["time_scale"], k2["time_scale"])
ratio = k2["results"]["step_median_s"] / k1["results"]["step_median_s"]
print(f"time scale 2: median step {k1['results']['step_median_s']:.4f} s -> "
      f"{k2['results']['step_median_s']:.4f} s, ratio {ratio:.2f}")
assert 1.6 <= ratio <= 2.4, ratio
r = k2["results"]
assert abs(r["represented_img_sec_mean"] - 2 * r["img_sec_mean"]) < 1e-9 * r["img_sec_mean"], r
PY

# Real compute cannot be slowed: one line, exit 2 (train and sweep alike).
for args in "train --time-scale 2|--time-scale does not apply to train --compute cpu: it is for --compute emulated" \
  "train --compute emulated --time-scale 0.5|--time-scale: 0.5 is less than 1" \
  "sweep --out $tmp/s --time-scale 2|--time-scale: 2 needs emulated compute: cpu compute is real"; do
  status=0
  "$GRADSYNC" ${args%%|*} >/dev/null 2>"$tmp/err" || status=$?
  [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "gradsync: error: ${args#*|}" "$tmp/err" ||
    { cat "$tmp/err"; fail "gradsync ${args%%|*}: exit $status, expected a usage error"; }
done
echo "cluster records: cluster and wire fields, report, errors, time scale"
