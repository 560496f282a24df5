#!/usr/bin/env bash
# A parameter-server shard that stops answering (test-only fault: it closes
# its socket after a few requests, as a crashed server would) makes the
# workers fail inside the timeout with a message naming the server (and its
# rank, which is the one to look at), the partition and the step: never a hang. Dedicated placement (rank 0 serves,
# ranks 1 and 2 work) and colocated (the shard is a thread inside worker 0).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# judge CASE STATUS ELAPSED PATTERN: the job must have failed (not been
# killed by timeout) within 30 s, its first error line matching PATTERN.
judge() {
  local message
  message=$(grep -m1 'gradsync: error: ' "$tmp/err" || true)
  if [ "$2" -eq 0 ] || [ "$2" -eq 124 ] || [ "$3" -gt 30 ] || ! grep -qE "$4" <<<"$message"; then
    echo "FAIL ($1): exit $2 after ${3}s; first error line: ${message:-none}" >&2
    sed 's/^/  | /' "$tmp/err" >&2
    failures=$((failures + 1))
  else
    echo "$1: failed cleanly after ${3}s: $message"
  fi
}

for placement in dedicated colocated; do
  start=$SECONDS
  status=0
  timeout 60 "$MPIRUN" --quiet -np 3 "$GRADSYNC" collectives -b 1K -e 64K -f 4 -n 5 -w 1 \
    --strategy ps-zmq --ps-placement "$placement" --ps-fault-stop-after 4 --timeout 2 \
    >"$tmp/out" 2>"$tmp/err" || status=$?
  judge "$placement" "$status" $((SECONDS - start)) \
    'no reply from server shard 0 \(rank 0, tcp://127\.0\.0\.1:[0-9]+\) for partition [0-9]+ at step [0-9]+ within 2 s .*is rank 0 \(server shard 0\) alive\?'
done

# Colocated, 3 ranks, shard 0 inside rank 0: rank 1 is stopped 2 s after the
# job has started, inside the one size's long loop of allreduces (the
# barrier before the loop has no timeout, and is long past). Whichever
# timeout fires first (shard 0's, or a worker's on shard 0), the first error
# line must blame rank 1.
"$MPIRUN" --quiet -np 3 "$GRADSYNC" collectives -b 4M -e 4M -n 5000 -w 1 \
  --strategy ps-zmq --timeout 2 >"$tmp/out" 2>"$tmp/err" &
launcher=$!
victim=""
for _ in $(seq 600); do
  victim=$(awk '$1 == "#" && $2 == "Rank" && $3 == 1 { print $5; exit }' "$tmp/out")
  [ -n "$victim" ] && break
  sleep 0.1
done
sleep 2
start=$SECONDS
[ -n "$victim" ] && { kill -STOP "$victim" || victim=""; }
for _ in $(seq 300); do
  grep -q 'gradsync: error: ' "$tmp/err" && break
  sleep 0.1
done
[ -n "$victim" ] && { kill -CONT "$victim" 2>/dev/null || true; }  # so that mpirun can end it
status=0
wait "$launcher" || status=$?
[ -n "$victim" ] || status=0  # never stopped: fail
judge "stopped worker" "$status" $((SECONDS - start)) 'worker 1 \(rank 1\).*is rank 1 alive\?'

[ "$failures" -eq 0 ] || exit 1
