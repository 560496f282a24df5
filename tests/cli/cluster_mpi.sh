#!/usr/bin/env bash
# Multi-rank runs across 2 emulated hosts x 2 slots (prefix gst, 1gbit links,
# a temporary state directory):
# - where the bytes go: two ranks on one host move their allreduce through
#   shared memory (their link carries under 1% of the bytes the strategy
#   counted); two ranks on two hosts move it over TCP on the veths (each
#   link carries at least the bytes its rank counted, and at most 1.5x:
#   headers, acknowledgements and Open MPI's own messages);
# - ps-zmq at -np 4 with 2 shards (both on gst-h0): each shard serves the
#   workers on its host (0 and 1) through shared memory and those on gst-h1
#   (2 and 3) over ZeroMQ in the same step; the sums check out, the output
#   says so and the record names each worker's path at each shard;
# - the multi-rank correctness suite (tests/mpi, the binary mpi.strategies.npN
#   runs) at -np 4 through `cluster.sh mpirun`: ranks 0 and 1 on gst-h0, 2 and
#   3 on gst-h1, every strategy's exact sums crossing the shaped links.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${GRADSYNC_MPI_TESTS:?path to the multi-rank test binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the emulated cluster needs root (network namespaces, veths, tc)"; exit 77; }
unshare --net true 2>/dev/null || { echo "SKIP: this machine cannot make network namespaces"; exit 77; }

source "$(dirname "$0")/lib/cluster_test.sh"
"$cluster" up --hosts 2 --slots 2 --rate 1gbit --prefix gst --net 251

# "RX TX" bytes of HOST's cluster link, as a rank there reads them.
link_bytes() {
  "$cluster" exec "$1" -- cat /proc/net/dev | sed 's/:/ /' | awk '$1 == "gst0" { print $2, $10 }'
}

# run_collectives NAME MPIRUN-ARGS...: a ring-mpi allreduce of 16 MiB; prints
# per rank "sent received" as the strategy counted them, one line each, and
# leaves each host's link bytes before and after in $tmp/NAME.h<i>.
run_collectives() {
  local name=$1 i
  shift
  for i in 0 1; do link_bytes gst-h$i >"$tmp/$name.h$i"; done
  timeout 120 "$cluster" mpirun "$@" "$GRADSYNC" collectives -b 16M -e 16M -n 5 -w 1 --strategy ring-mpi \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || fail "$name run: exit $?: $(cat "$tmp/$name.err")"
  for i in 0 1; do link_bytes gst-h$i >>"$tmp/$name.h$i"; done
  sed -n 's/^# *Bytes sent\/received *://p' "$tmp/$name.out" | grep -oE '[0-9]+/[0-9]+' | tr / ' ' >"$tmp/$name.counted"
  [ "$(wc -l <"$tmp/$name.counted")" = 2 ] || fail "$name run: no 'Bytes sent/received' for two ranks: $(cat "$tmp/$name.out")"
}
# moved NAME HOST: "RX TX" bytes HOST's link carried during run NAME.
moved() { awk 'NR == 1 { rx = $1; tx = $2 } NR == 2 { print $1 - rx, $2 - tx }' "$tmp/$1.h$2"; }

run_collectives one-host -np 2
read -r sent received <"$tmp/one-host.counted"
[ "$sent" -gt 50000000 ] || fail "one-host run: rank 0 counted only $sent bytes sent"
for i in 0 1; do
  read -r rx tx < <(moved one-host $i)
  [ $((100 * (rx + tx))) -lt "$sent" ] ||
    fail "two ranks on one host: gst-h$i's link carried $rx/$tx bytes (rx/tx) of an allreduce that sent $sent: not shared memory"
  echo "one host: gst-h$i link rx/tx $rx/$tx bytes while rank 0 sent $sent (shared memory)"
done

run_collectives two-hosts -np 2 --map-by node
for i in 0 1; do
  read -r sent received < <(sed -n "$((i + 1))p" "$tmp/two-hosts.counted")
  read -r rx tx < <(moved two-hosts $i)
  [ "$tx" -ge "$sent" ] && [ "$rx" -ge "$received" ] && [ $((2 * tx)) -le $((3 * sent)) ] && [ $((2 * rx)) -le $((3 * received)) ] ||
    fail "ranks on two hosts: gst-h$i's link carried rx/tx $rx/$tx bytes; its rank counted $received/$sent"
  echo "two hosts: gst-h$i link rx/tx $rx/$tx bytes, its rank counted $received/$sent"
done

timeout 300 "$cluster" mpirun -np 4 "$GRADSYNC" collectives -b 1M -e 4M -f 4 -n 3 -w 1 --strategy ps-zmq \
  --ps-servers 2 --json "$tmp/ps.jsonl" >"$tmp/ps.out" 2>&1 || { cat "$tmp/ps.out"; fail "ps-zmq across 2 hosts x 2 slots: exit $?"; }
grep -qF "PS data path: shared memory for 2 of 4 workers at 2 of 2 shards (shards 0, 1: workers 0, 1), ZeroMQ for the others; read and written in place" "$tmp/ps.out" ||
  { cat "$tmp/ps.out"; fail "ps-zmq across 2 hosts x 2 slots: no mixed data path line"; }
python3 - "$tmp/ps.jsonl" <<'PY' || fail "ps-zmq across 2 hosts x 2 slots: the record's data path"
import json, sys
record = json.loads(open(sys.argv[1]).read())
assert record["correct"] is True, record["correct"]
path = record["ps_shared_memory"]
assert path["shards"] == 2 and path["of"] == 2 and path["workers"] == 4, path
assert path["by_shard"] == [{"shard": s, "shared_memory": [0, 1], "in_place": [0, 1], "zeromq": [2, 3]} for s in (0, 1)], path
assert path["in_place_pairs"] == 4, path
PY
echo "ps-zmq across 2 hosts x 2 slots: workers 0, 1 through shared memory, 2, 3 over ZeroMQ, at both shards"

status=0
timeout 600 "$cluster" mpirun -np 4 "$GRADSYNC_MPI_TESTS" >"$tmp/suite.out" 2>&1 || status=$?
grep -E '^\[(  PASSED  |  FAILED  |  SKIPPED )\]|tests? ran' "$tmp/suite.out" || true
if [ "$status" -ne 0 ]; then # each failure's reason (rank 0's), then Open MPI's last words
  grep -vE '^(.\[[0-9;]*m)?\[ *(RUN|OK) *\]' "$tmp/suite.out" | tail -n 150 >&2
  fail "the multi-rank suite across 2 hosts x 2 slots: exit $status"
fi
echo "multi-rank suite at -np 4 across 2 hosts x 2 slots: passed"
