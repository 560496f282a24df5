#!/usr/bin/env bash
# The SMPI engine's plumbing (gradsync collectives --engine smpi, docs/guide/
# smpi.md), at 16 simulated ranks, in seconds:
# - every MPI strategy with real buffers, checked: no wrong element, rows at
#   every size, records marked simulated and naming the engine, its version,
#   the platform and the selector;
# - mpi-allreduce's rows name the algorithm SimGrid's selector ran, and
#   pinning that algorithm (--selector NAME) gives the same simulated time;
# - shared buffers (no check) and the reduce rate charged: a slower rate
#   makes the same allreduce slower;
# - the topologies: a non-blocking fat-tree as fast as one switch for
#   halving-doubling, one with oversubscribed uplinks slower;
# - the platform files kept with --platform-dir;
# - ps-zmq over MPI messages: exact with one shard and with dedicated
#   shards, and one shard for 16 workers twice as slow as one per worker
#   (its link carries every other node's pushes);
# - the default strategies; what cannot run there refused in one line:
#   ps-zmq over ZeroMQ, train, an unknown --selector, shared
#   buffers with a check, --cluster without --engine smpi, a leaf size
#   that does not divide the nodes, a missing cluster file.
# Skips (77) without SimGrid or the SMPI build (scripts/build-smpi.sh).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
root=$(cd "$(dirname "$0")/../.." && pwd)
smpi_binary=${GRADSYNC_SMPI_BINARY:-$root/build-smpi/bin/gradsync}
if ! command -v smpirun >/dev/null; then
  echo "SKIP: SimGrid's smpirun is not installed (scripts/install-deps.sh smpi)"
  exit 77
fi
if [ ! -f "$smpi_binary" ]; then
  echo "SKIP: no SMPI build at $smpi_binary (scripts/build-smpi.sh)"
  exit 77
fi
cluster=$root/results/reference/clusters/horovod-p100-roce25.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
smpi() { "$GRADSYNC" collectives --engine smpi --cluster "$cluster" --smpi-binary "$smpi_binary" "$@"; }

# expect_error WORDS ARGS...: collectives --engine smpi ARGS exits non-zero
# with one stderr line holding WORDS.
expect_error() {
  local words=$1 status=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  if [ "$status" -eq 0 ] || [ "$(grep -vc '^\[' "$tmp/err")" -ne 1 ] || ! grep -qF -- "$words" "$tmp/err"; then
    fail "$* -> exit $status, stderr:"
    sed 's/^/  | /' "$tmp/err" >&2
  fi
}

# time_us STRATEGY SIZE FILE: the time column of that row of a table.
time_us() { awk -v s="$1" -v b="$2" '$1 == s && $2 == b {print $6}' "$3"; }

strategies=ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,hierarchical-mpi,mpi-allreduce,ps-zmq
smpi --workers 16 --strategy "$strategies" -b 4K -e 1M -f 16 -n 2 -w 1 -c 1 \
  --json "$tmp/checked.jsonl" >"$tmp/checked.txt"
rows=$(grep -cE '^  [a-z-]+ +[0-9]+ ' "$tmp/checked.txt")
[ "$rows" -eq 21 ] || fail "checked run: $rows rows, want 7 strategies x 3 sizes"
awk '/^  [a-z-]+ +[0-9]+ / && $NF != "0" {bad = 1} END {exit bad}' "$tmp/checked.txt" ||
  fail "checked run: a row with wrong elements: $(cat "$tmp/checked.txt")"
jq -e -s 'length == 7 and all(.[]; .simulated == true and .correct == true
    and .engine.name == "smpi" and (.engine.version | startswith("SimGrid 3."))
    and .engine.platform.topology == "switch" and .engine.platform.nodes == 4
    and .engine.platform.selector == "ompi" and .engine.shared_buffers == false
    and .workers == 16)' "$tmp/checked.jsonl" >/dev/null ||
  fail "checked records lack the engine: $(head -c 600 "$tmp/checked.jsonl")"

# mpi-allreduce at 16 ranks: Open MPI's rules pick recursive doubling for
# 1 KiB and Rabenseifner for 1 MiB. Each pinned gives the same time as the
# selector's choice (to a part in 10^9: SimGrid's clock sums in another
# order), and the two differ (the pin took effect).
smpi --workers 16 --strategy mpi-allreduce -b 1K -e 1M -f 1024 -n 1 -w 0 --json "$tmp/chosen.jsonl" >/dev/null
for pinned in rdb rab_rdb; do
  smpi --workers 16 --strategy mpi-allreduce -b 1K -e 1M -f 1024 -n 1 -w 0 --selector "$pinned" \
    --json "$tmp/pinned-$pinned.jsonl" >/dev/null
done
jq -e -n --slurpfile c "$tmp/chosen.jsonl" --slurpfile a "$tmp/pinned-rdb.jsonl" \
  --slurpfile b "$tmp/pinned-rab_rdb.jsonl" 'def same(x; y): ((x - y) | fabs) <= 1e-9 * y;
    ($c[0].rows | map(.path)) == ["rdb", "rab_rdb"]
    and same($c[0].rows[0].time_us; $a[0].rows[0].time_us) and same($c[0].rows[1].time_us; $b[0].rows[1].time_us)
    and $a[0].rows[1].time_us > 1.5 * $b[0].rows[1].time_us and $b[0].engine.platform.selector == "rab_rdb"
    and $c[0].correct and $a[0].correct and $b[0].correct' >/dev/null ||
  fail "selector: chosen $(jq -c '[.rows[] | [.path, .time_us]]' "$tmp/chosen.jsonl"), pinned rdb" \
    "$(jq -c '[.rows[].time_us]' "$tmp/pinned-rdb.jsonl"), rab_rdb $(jq -c '[.rows[].time_us]' "$tmp/pinned-rab_rdb.jsonl")"

# Shared buffers, no check; the reduction charged at a rate a thousand times
# slower takes longer.
for rate in 1e12 1e9; do
  smpi --workers 16 --strategy ring-mpi -b 16M -e 16M -n 1 -w 0 -c 0 --shared-buffers \
    --reduce-rate "$rate" >"$tmp/shared-$rate.txt"
done
fast=$(time_us ring-mpi 16777216 "$tmp/shared-1e12.txt")
slow=$(time_us ring-mpi 16777216 "$tmp/shared-1e9.txt")
awk -v f="$fast" -v s="$slow" 'BEGIN {exit !(f > 0 && s > f * 1.2)}' ||
  fail "reduce rate not charged: ${fast} us at 1e12 B/s, ${slow} us at 1e9 B/s"

# Topologies: 8 nodes of 4 in leaves of 2. Halving-doubling's steps at 8
# and 16 ranks' distance send every rank of a leaf across it at once: a
# non-blocking tree carries them as one switch does, uplinks
# oversubscribed 2:1 slow them down.
for topology in "switch" "fat-tree --hosts-per-leaf 2 --oversubscription 1" \
                "fat-tree --hosts-per-leaf 2 --oversubscription 2"; do
  # shellcheck disable=SC2086
  smpi --workers 32 --strategy halving-doubling-mpi -b 16M -e 16M -n 1 -w 0 -c 0 --shared-buffers \
    --topology $topology --platform-dir "$tmp/plat" >"$tmp/topo.txt"
  time_us halving-doubling-mpi 16777216 "$tmp/topo.txt" >>"$tmp/topo-times"
done
mapfile -t times <"$tmp/topo-times"
awk -v sw="${times[0]}" -v nb="${times[1]}" -v ov="${times[2]}" \
  'BEGIN {exit !(nb >= sw * 0.99 && nb <= sw * 1.01 && ov > nb * 1.2)}' ||
  fail "topologies: switch ${times[0]} us, fat-tree 1:1 ${times[1]} us, 2:1 ${times[2]} us"
grep -q 'topo_parameters="2;2,4;1,1;1,1"' "$tmp/plat/platform.xml" ||
  fail "kept platform: $(cat "$tmp/plat/platform.xml")"
[ "$(cat "$tmp/plat/hostfile")" = "$(for n in 0 1 2 3 4 5 6 7; do printf 'node-%d\n' $n $n $n $n; done)" ] ||
  fail "kept hostfile: $(cat "$tmp/plat/hostfile")"

# ps-zmq's protocol over MPI: two dedicated shards (ranks 0 and 1) for 14
# workers, checked; then shared buffers at 16 MiB on nodes of 4: one shard's
# node link takes the pushes of the 12 workers on other nodes (12 buffers
# in), where with a shard per worker every node link carries its 4 workers'
# pushes to 12 shards elsewhere and its 4 shards' replies to 12 workers (6
# buffers out): twice the time, give or take the partitions' overlap.
smpi --workers 16 --strategy ps-zmq --ps-placement dedicated --ps-servers 2 -b 4K -e 1M -f 256 \
  -n 1 -w 0 --json "$tmp/dedicated.jsonl" >/dev/null
jq -e '.correct and .workers == 14 and .placement.server_ranks == [0, 1]
    and .strategy_options.ps_transport == "mpi" and (.rows | length) == 2' \
  "$tmp/dedicated.jsonl" >/dev/null || fail "dedicated shards: $(head -c 600 "$tmp/dedicated.jsonl")"
for servers in 1 16; do
  smpi --workers 16 --strategy ps-zmq --ps-servers "$servers" -b 16M -e 16M -n 1 -w 0 -c 0 \
    --shared-buffers >"$tmp/ps-$servers.txt"
done
one=$(time_us ps-zmq 16777216 "$tmp/ps-1.txt")
each=$(time_us ps-zmq 16777216 "$tmp/ps-16.txt")
awk -v o="$one" -v e="$each" 'BEGIN {exit !(e > 0 && o > 1.7 * e && o < 2.5 * e)}' ||
  fail "ps-zmq incast: one shard ${one} us, one per worker ${each} us"

# No --strategy: the default set.
smpi --workers 4 -b 1M -e 1M -n 1 -w 0 --json "$tmp/default.jsonl" >/dev/null
[ "$(jq -r .strategy "$tmp/default.jsonl" | paste -sd,)" = ring-mpi,tree-mpi,ps-zmq,mpi-allreduce ] ||
  fail "default set under SMPI: $(jq -r .strategy "$tmp/default.jsonl" | paste -sd,)"

expect_error "allreduce algorithms" smpi --workers 4 --strategy mpi-allreduce --selector ring
expect_error "--selector does not apply to collectives --engine native" "$GRADSYNC" collectives --selector rdb -b 4K -e 4K
expect_error "give --ps-transport mpi" smpi --workers 4 --strategy ps-zmq --ps-transport tcp -b 4K -e 4K
expect_error "train does not run under SMPI" smpirun -np 1 -platform "$tmp/plat/platform.xml" \
  -hostfile "$tmp/plat/hostfile" --log=root.thres:critical "$smpi_binary" train --model small-cnn \
  --compute emulated
expect_error "--shared-buffers" smpi --workers 4 --strategy ring-mpi -b 1M -e 1M --shared-buffers
expect_error "--cluster does not apply to collectives --engine native" "$GRADSYNC" collectives --cluster "$cluster" --workers 4 -b 4K -e 4K
expect_error "--hosts-per-leaf 3" smpi --workers 16 --topology fat-tree --hosts-per-leaf 3
expect_error "no-such.json" "$GRADSYNC" collectives --engine smpi --cluster "$tmp/no-such.json" --workers 4

# smpirun leaves an unrolled hostfile (smpitmp-hostf*) in the working
# folder when it has to unroll one and the run fails: the launcher's
# hostfile is unrolled already.
leftover=$(ls smpitmp-* 2>/dev/null || true)
[ -z "$leftover" ] || fail "temporary files left in $(pwd): $leftover"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "smpi: all checks passed"
