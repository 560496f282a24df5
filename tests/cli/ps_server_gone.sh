#!/usr/bin/env bash
# A parameter-server shard that stops answering (test-only fault: it closes
# its socket after a few requests, as a crashed server would) makes the
# workers fail inside the timeout with a message naming the server, the
# partition and the step: never a hang. Dedicated placement (rank 0 serves,
# ranks 1 and 2 work) and colocated (the shard is a thread inside worker 0).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

for placement in dedicated colocated; do
  start=$SECONDS
  status=0
  timeout 60 "$MPIRUN" --quiet -np 3 "$GRADSYNC" collectives -b 1K -e 64K -f 4 -n 5 -w 1 \
    --strategy ps-zmq --ps-placement "$placement" --ps-fault-stop-after 4 --timeout 2 \
    >"$tmp/out" 2>"$tmp/err" || status=$?
  elapsed=$((SECONDS - start))
  message=$(grep -m1 'gradsync: error: ' "$tmp/err" || true)
  if [ "$status" -eq 0 ] || [ "$status" -eq 124 ] || [ "$elapsed" -gt 30 ] ||
    ! grep -qE 'no reply from server shard 0 \(tcp://127\.0\.0\.1:[0-9]+\) for partition [0-9]+ at step [0-9]+ within 2 s' <<<"$message"; then
    echo "FAIL ($placement): exit $status after ${elapsed}s; first error line: ${message:-none}" >&2
    sed 's/^/  | /' "$tmp/err" >&2
    failures=$((failures + 1))
  else
    echo "$placement: failed cleanly after ${elapsed}s: $message"
  fi
done

[ "$failures" -eq 0 ] || exit 1
