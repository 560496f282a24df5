#!/usr/bin/env bash
# --timeout bounds every MPI wait (issue 12). Two ranks of `collectives`, rank
# 1 stopped with SIGSTOP mid-run:
# - stopped for good, under ring-mpi, tree-mpi and mpi-allreduce with
#   --timeout 4: the job ends within the timeout + 5 s, non-zero, with one
#   error line naming rank 1 (for mpi-allreduce, whose peer is unknown, saying
#   a rank stopped), and no process of it is left;
# - stopped for 3 s under --timeout 5 (a stall that resolves): exit 0, the
#   stall warning printed, and the record says "correct": false and why
#   ("disturbed").
# Every allreduce sleeps a little first (--test-delay-ms), so the ranks mostly
# sleep and the run lasts long enough to be stopped in; which wait the stop
# hits does not matter.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; sed 's/^/  | /' "$tmp/err" >&2 || true; exit 1; }

# The process of world rank 1 among those whose command line holds $1.
rank1_pid() {
  local pid
  for pid in $(pgrep -f -- "$1" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
      echo "$pid"
      return
    fi
  done
}

# start MARKER TIMEOUT STRATEGY ITERS: the job in the background (its pid in
# $job), once both ranks have started their strategy (rank 1's pid in $victim).
start() {
  local marker=$1 timeout=$2 strategy=$3 iters=$4
  timeout 120 "$MPIRUN" --quiet -np 2 "$GRADSYNC" collectives -b 64K -e 64K -n "$iters" -w 1 \
    --strategy "$strategy" --timeout "$timeout" --test-delay-ms 20 --json "$marker" \
    >"$tmp/out" 2>"$tmp/err" &
  job=$!
  local waited=0
  until grep -q '^# strategy ' "$tmp/out" 2>/dev/null; do
    sleep 0.2
    waited=$((waited + 1))
    [ "$waited" -lt 300 ] || fail "$strategy: the table header never came"
  done
  sleep 1 # past the strategy's setup, into its allreduce loop
  victim=$(rank1_pid "$marker")
  [ -n "$victim" ] || fail "$strategy: no process with OMPI_COMM_WORLD_RANK=1 for $marker"
  pids+=("$victim")
}

for strategy in ring-mpi tree-mpi mpi-allreduce; do
  marker=$tmp/stopped-$strategy.jsonl
  start "$marker" 4 "$strategy" 1000000
  kill -STOP "$victim"
  stopped=$SECONDS
  status=0
  wait "$job" || status=$?
  elapsed=$((SECONDS - stopped))
  errors=$(grep -c 'gradsync: error: ' "$tmp/err" || true)
  line=$(grep -m1 'gradsync: error: ' "$tmp/err" || true)
  if [ "$strategy" = mpi-allreduce ]; then want='did not complete within 4 s \(--timeout\); a rank stopped or died'
  else want="^gradsync: error: rank 0: $strategy [a-z-]+: no data (from|taken by) rank 1 for 4 s \\(--timeout\\); is rank 1 alive\\?$"; fi
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "$strategy: exit $status after ${elapsed}s"
  [ "$elapsed" -le 9 ] || fail "$strategy: the job took ${elapsed}s to end after the stop (timeout 4 s)"
  [ "$errors" -eq 1 ] && grep -qE -- "$want" <<<"$line" ||
    fail "$strategy: $errors error line(s), the first: ${line:-none}; expected one matching: $want"
  grep -q 'gradsync: warning: rank 0: stalled ' "$tmp/err" || fail "$strategy: no stall warning before the error"
  sleep 1
  left=$(pgrep -f -- "$marker" || true)
  [ -z "$left" ] || fail "$strategy: processes left after the job ended: $left"
  echo "$strategy: rank 1 stopped -> exit $status after ${elapsed}s: $line"
done

# A stall that resolves: the run ends well, but is not clean.
marker=$tmp/resolved.jsonl
start "$marker" 5 ring-mpi 300
kill -STOP "$victim"
sleep 3
kill -CONT "$victim"
status=0
wait "$job" || status=$?
[ "$status" -eq 0 ] || fail "resolved stall: exit $status"
warning=$(grep -m1 'gradsync: warning: rank 0: stalled ' "$tmp/err" || true)
grep -qE 'stalled [0-9.]+ s in size 65536 B [a-z0-9 -]+ \(ring-mpi [a-z-]+\), waiting for rank 1$' <<<"$warning" ||
  fail "resolved stall: no warning naming the size, the operation and rank 1: ${warning:-none}"
python3 - "$marker" <<'PY' || fail "resolved stall: the record does not say it was disturbed"
import json, sys
record = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert record["correct"] is False, record["correct"]
assert "stalled" in record["disturbed"] and "rank 1" in record["disturbed"], record["disturbed"]
PY
echo "resolved stall: exit 0, $warning"
