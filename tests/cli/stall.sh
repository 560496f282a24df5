#!/usr/bin/env bash
# --timeout bounds every wait: the fault table's rows for a rank
# that stops or dies while it measures. Two ranks (three for a dedicated
# parameter server) of `collectives`, and of `train`, rank 1 stopped with
# SIGSTOP or killed with SIGKILL mid-run:
# - stopped for good, under every CPU strategy, with --timeout 4 (`none`
#   under train, whose ranks meet once an iteration; collectives' ranks of
#   `none` meet only after all iterations of a size): the job
#   ends within the timeout + 5 s, non-zero, with one error line naming
#   rank 1 and where the job was (the size, the step), after a stall
#   warning, and no process of it is left (blame.sh stops each rank of 3
#   and 4);
# - killed, under every CPU strategy: mpirun ends the job at once, its
#   notice naming rank 1 and the signal (a dead process prints nothing of its
#   own), and no process is left;
# - stopped for 3 s under --timeout 5 (a stall that resolves): exit 0, the
#   stall warning printed, and the record says "correct": false and why
#   ("disturbed");
# - the whole job stopped for 7 s under --timeout 4 and resumed (as Slurm's
#   `scontrol suspend` does, or mpirun's SIGCONT before its SIGTERM to a
#   stopped rank): no rank blames another for the time it did not run itself
#   (wait_clock.h), so the run ends with exit 0 and no error line, and the
#   record says "correct": false and why.
# Every allreduce sleeps a little first (--test-delay-ms), so the ranks mostly
# sleep and the run lasts long enough to be stopped in; which wait the stop
# hits does not matter. The suspended job does not sleep: its ranks are
# stopped inside their waits, where a clock that ran on would blame.
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

source "$(dirname "$0")/lib/rank_processes.sh"
rank1_pid() { rank_pids "$1" 1 | head -n1; }

# start MARKER TIMEOUT NP ITERS COMMAND...: the job in the background (its pid
# in $job), once its ranks have started measuring (rank 1's pid in $victim).
start() {
  local marker=$1 timeout=$2 np=$3 iters=$4 what=$5
  shift 5
  case $what in
    collectives) args=(collectives -b "${size:-64K}" -e "${size:-64K}" -n "$iters" -w 1 --json "$marker") ready='^# strategy ' ;;
    train) args=(train --model small-cnn --batch-size 4 --num-iters "$iters" --out "$marker") ready='^Running benchmark' ;;
  esac
  rm -f "$tmp/out" "$tmp/err" # else the wait below may find the last job's header
  timeout "${job_limit:-120}" "$MPIRUN" ${quiet:+--quiet} -np "$np" "$GRADSYNC" "${args[@]}" --timeout "$timeout" \
    --test-delay-ms "${delay:-20}" "$@" >"$tmp/out" 2>"$tmp/err" &
  job=$!
  local waited=0
  until grep -q "$ready" "$tmp/out" 2>/dev/null; do
    sleep 0.2
    waited=$((waited + 1))
    [ "$waited" -lt 300 ] || fail "$*: the run never started measuring"
  done
  sleep 1 # past the strategy's setup, into its allreduce loop
  victim=$(rank1_pid "$marker")
  [ -n "$victim" ] || fail "$*: no process of rank 1 for $marker"
  pids+=("$victim")
}

# Each row: ranks, the command, the strategy's flags, and what the one error
# line must match when rank 1 stops.
peer="(no data (from|taken by)|nothing from or to) rank 1 for 4 s \\(--timeout\\); is rank 1 alive\\?$"  # the last: an event loop's wait (tree-mpi)
collective="did not complete within [47] s: rank 1 stopped answering \\(--timeout\\); is rank 1 alive\\?$"  # 7: the harness's own wait, --timeout + 3 s
ps="waiting for worker [0-9] \\(rank 1\\).*is rank 1 alive\\?"
# A train row's rank 1, stopped between its last bucket and the iteration's
# agreement (an MPI_Allreduce of the iteration's time), leaves rank 0 in that
# agreement: as right an answer, likelier on a loaded machine.
agreement="MPI_Allreduce\\(max_each\\) .* in step [0-9]+ $collective"
rows=(
  "2|collectives|--strategy ring-mpi|^gradsync: error: rank 0: ring-mpi [a-z-]+ in size 65536 B [a-z ]+ [0-9]+: $peer"
  "2|collectives|--strategy tree-mpi|^gradsync: error: rank 0: tree-mpi [a-z-]+ in size 65536 B [a-z ]+ [0-9]+: $peer"
  "2|collectives|--strategy mpi-allreduce|$collective"
  "2|collectives|--strategy ps-zmq|$ps"
  "3|collectives|--strategy ps-zmq --ps-placement dedicated|$ps"
  "2|train|--strategy none|$collective"
  "2|train|--strategy ring-mpi|^gradsync: error: rank 0: (ring-mpi [a-z-]+ in step [0-9]+( bucket [0-9]+)?: $peer|$agreement)"
  "2|train|--strategy ps-zmq|($ps|$agreement)"
)
n=0
for row in "${rows[@]}"; do
  IFS='|' read -r np what flags want <<<"$row"
  n=$((n + 1))
  # shellcheck disable=SC2086 # the flags are words
  set -- $flags
  marker=$tmp/stopped-$n.jsonl
  quiet=1 start "$marker" 4 "$np" 1000000 "$what" "$@"
  kill -STOP "$victim"
  stopped=$SECONDS
  status=0
  wait "$job" || status=$?
  elapsed=$((SECONDS - stopped))
  errors=$(grep -c 'gradsync: error: ' "$tmp/err" || true)
  line=$(grep -m1 'gradsync: error: ' "$tmp/err" || true)
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "$what $flags: exit $status after ${elapsed}s"
  [ "$elapsed" -le 9 ] || fail "$what $flags: the job took ${elapsed}s to end after the stop (timeout 4 s)"
  [ "$errors" -eq 1 ] && grep -qE -- "$want" <<<"$line" ||
    fail "$what $flags: $errors error line(s), the first: ${line:-none}; expected one matching: $want"
  grep -q 'gradsync: warning: rank [0-9]: stalled ' "$tmp/err" || fail "$what $flags: no stall warning before the error"
  left=$(left_after "$marker")
  [ -z "$left" ] || fail "$what $flags: processes left after the job ended: $left"
  echo "$what $flags: rank 1 stopped -> exit $status after ${elapsed}s: $line"

  # The same row with rank 1 killed: mpirun's own notice names it.
  marker=$tmp/killed-$n.jsonl
  quiet= start "$marker" 4 "$np" 1000000 "$what" "$@"
  kill -KILL "$victim"
  killed=$SECONDS
  status=0
  wait "$job" || status=$?
  elapsed=$((SECONDS - killed))
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] && [ "$elapsed" -le 9 ] ||
    fail "$what $flags: rank 1 killed -> exit $status after ${elapsed}s"
  notice=$(grep -m1 -E 'rank 1 .*signal 9' "$tmp/err" || true)
  [ -n "$notice" ] || fail "$what $flags: rank 1 killed, but nothing names it"
  left=$(left_after "$marker")
  [ -z "$left" ] || fail "$what $flags: processes left after rank 1 was killed: $left"
  echo "$what $flags: rank 1 killed -> exit $status after ${elapsed}s:$(sed 's/^ *//' <<<"$notice")"
done

# A stall that resolves: the run ends well, but is not clean.
marker=$tmp/resolved.jsonl
quiet=1 start "$marker" 5 2 300 collectives --strategy ring-mpi
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

# The whole job suspended for longer than the timeout, then resumed: every
# rank was stopped, so none may give up on another. 4 MiB allreduces with no
# delay: about 4 s of them (0.7 ms each, ps-zmq through shared memory too,
# on the 2-core machine), most of it spent waiting for the peer.
# The sanitized build's MPI_Allreduce takes about 20 ms each (6000: two
# minutes, which once ran into a 120 s limit), so these jobs may run for
# up to 5 minutes before the safety net ends them.
for row in "6000|--strategy ring-mpi" "6000|--strategy mpi-allreduce" "6000|--strategy ps-zmq"; do
  IFS='|' read -r iters flags <<<"$row"
  # shellcheck disable=SC2086 # the flags are words
  set -- $flags
  marker=$tmp/suspended-${2}.jsonl
  quiet=1 size=4M delay=0 job_limit=300 start "$marker" 4 2 "$iters" collectives "$@"
  mapfile -t ranks < <(rank_pids "$marker")
  [ "${#ranks[@]}" -eq 2 ] || fail "suspended job $flags: found ${#ranks[@]} rank processes, not 2"
  pids+=("${ranks[@]}")
  kill -STOP "${ranks[@]}" || fail "suspended job $flags: it ended before it could be suspended"
  sleep 7
  kill -CONT "${ranks[@]}"
  status=0
  wait "$job" || status=$?
  errors=$(grep -c 'gradsync: error: ' "$tmp/err" || true)
  [ "$status" -eq 0 ] && [ "$errors" -eq 0 ] ||
    fail "suspended job $flags: exit $status with $errors error line(s) after a 7 s suspension of every rank (--timeout 4)"
  python3 - "$marker" <<'PY' || fail "suspended job $flags: the record does not say it was disturbed"
import json, sys
record = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert record["correct"] is False, record["correct"]
assert record["disturbed"], record
PY
  echo "suspended job $flags: exit 0; $(grep -m1 'gradsync: warning: ' "$tmp/err" || echo 'no warning')"
done
