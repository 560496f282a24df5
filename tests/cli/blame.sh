#!/usr/bin/env bash
# One line, the right rank: in a job of 3 or 4 ranks, each rank in turn is
# stopped (SIGSTOP) while it measures, under every CPU strategy, and the job
# must end within --timeout + 5 s, non-zero, with exactly one error line
# that names the stopped rank ("is rank 2 alive?") and where the job was
# (the size or the step), one stall warning, and no process left. The ranks
# that wait only behind the stopped one (a ring's next ranks, a tree's
# other branches, the workers of a parameter-server shard that waits for
# a stopped worker) must stay silent (strategies/core/stall_marks.h).
# Last, a rank that never starts (stopped before MPI_Init) must end the job
# the same way. Each job's ranks mostly sleep (--test-delay-ms) and a
# stalled wait polls at leisure, so the test shares the machine.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

# The ranks' --timeout. The sanitized build runs each rank several times
# slower, so a rank that waits only behind the stopped one may not publish
# its stall mark before its neighbour's wait runs out; it gets a longer one
# (tests/CMakeLists.txt sets BLAME_TIMEOUT_S there).
timeout_s=${BLAME_TIMEOUT_S:-2}
# The job sizes whose every rank is stopped in turn; the sanitized build
# stops those of 3 alone (BLAME_RANKS=3: each strategy's failure paths are
# the same code at 4, and its jobs run several times slower).
blame_ranks=${BLAME_RANKS:-3 4}
tmp=$(mktemp -d)
stopped=()
cleanup() {
  local pid
  for pid in "${stopped[@]}"; do kill -CONT "$pid" 2>/dev/null || true; done
  pkill -f -- "$tmp/" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; sed 's/^/  | /' "$tmp/err" >&2 || true; exit 1; }

source "$(dirname "$0")/lib/rank_processes.sh"

# Each row: ranks, the subcommand, its flags. The subcommand's output says
# when the ranks measure (collectives: its header; train: its first line).
rows=()
for np in $blame_ranks; do
  for strategy in ring-mpi tree-mpi double-tree-mpi halving-doubling-mpi hierarchical-mpi mpi-allreduce ps-zmq; do
    rows+=("$np|collectives|--strategy $strategy")
  done
done
rows+=("3|collectives|--strategy ps-zmq --ps-placement dedicated") # rank 0 serves, 1 and 2 work
rows+=("3|train|--strategy none") # the harness's own waits (--timeout + 3 s)

n=0
for row in "${rows[@]}"; do
  IFS='|' read -r np what flags <<<"$row"
  for victim in $(seq 0 $((np - 1))); do
    n=$((n + 1))
    marker=$tmp/run-$n.jsonl
    case $what in
      collectives) args=(collectives -b 4K -e 4K -n 1000000 -w 1 --json "$marker") ready='^# strategy ' ;;
      train) args=(train --model small-cnn --batch-size 4 --num-iters 1000000 --out "$marker") ready='^Running benchmark' ;;
    esac
    # The job's shell truncates the output only once it runs: the wait below
    # must not find the last job's header there and stop a rank still in
    # MPI_Init (it did, under load).
    rm -f "$tmp/out" "$tmp/err"
    # shellcheck disable=SC2086 # the flags are words
    timeout 120 "$MPIRUN" --quiet -np "$np" "$GRADSYNC" "${args[@]}" $flags --timeout "$timeout_s" \
      --test-delay-ms 20 >"$tmp/out" 2>"$tmp/err" &
    job=$!
    waited=0
    until grep -q "$ready" "$tmp/out" 2>/dev/null; do
      sleep 0.1
      waited=$((waited + 1))
      [ "$waited" -lt 600 ] || fail "$np ranks, $flags: the run never started measuring"
    done
    sleep 1 # into the strategy's allreduce loop (the campaign stops ranks during setup too)
    pid=$(rank_pids "$marker" "$victim" | head -n1)
    [ -n "$pid" ] || fail "$np ranks, $flags: no process of rank $victim"
    stopped+=("$pid")
    kill -STOP "$pid"
    start=$(date +%s.%N)
    what_ran="$np ranks, $what $flags, rank $victim stopped"
    # Far past the bound (timeout + 5 s) the job hangs: say where each of its
    # processes is, for whoever reads the log, before failing.
    for _ in $(seq 300); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$job" 2>/dev/null; then
      for p in $(pgrep -f -- "$marker" || true); do
        ps -o pid=,stat=,wchan:24=,args= -p "$p" | cut -c1-160 || true
        if command -v gdb >/dev/null && [ "$p" != "$pid" ]; then
          gdb -p "$p" -batch -ex 'thread apply all bt 10' 2>/dev/null | grep -E '^(#|Thread)' | cut -c1-160 || true
        fi
      done
      fail "$what_ran: the job still runs 30 s after the stop"
    fi
    status=0
    wait "$job" || status=$?
    elapsed=$(echo "$(date +%s.%N) - $start" | bc)
    errors=$(grep -c 'gradsync: error: ' "$tmp/err" || true)
    line=$(grep -m1 'gradsync: error: ' "$tmp/err" || true)
    warnings=$(grep -c 'gradsync: warning: rank [0-9]*: stalled ' "$tmp/err" || true)
    [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "$what_ran: exit $status"
    [ "$(echo "$elapsed <= $timeout_s + 5" | bc)" -eq 1 ] || fail "$what_ran: ended ${elapsed}s after the stop"
    [ "$errors" -eq 1 ] || fail "$what_ran: $errors error lines, not one"
    grep -qE "is rank $victim( \\(server shard [0-9]+\\))? alive\\?" <<<"$line" ||
      fail "$what_ran: the error line does not blame rank $victim: $line"
    grep -qE "in size 4096 B|at step [0-9]+|in step [0-9]+" <<<"$line" ||
      fail "$what_ran: the error line does not say where the job was: $line"
    [ "$warnings" -eq 1 ] || fail "$what_ran: $warnings stall warnings, not one"
    left=$(left_after "$marker")
    [ -z "$left" ] || fail "$what_ran: processes left after the job ended: $left"
    printf '%s: exit %s after %.1f s: %s\n' "$what_ran" "$status" "$elapsed" "${line#gradsync: error: }"
  done
done
echo "blame: $n jobs, each with one line naming the stopped rank"

# A rank that never starts: stopped before it runs gradsync, it leaves the
# others in MPI_Init's closing fence, which Open MPI does not bound. They
# give up at --timeout + 3 s, in turn 2.5 s apart
# (strategies/core/init_watch.h): one line, within 5 s more, nothing left.
cat >"$tmp/stop-before-start.sh" <<'SCRIPT'
#!/bin/sh
[ "$OMPI_COMM_WORLD_RANK" = "$VICTIM" ] && kill -STOP $$
exec "$@"
SCRIPT
chmod +x "$tmp/stop-before-start.sh"
for victim in 0 2; do
  marker=$tmp/init-$victim.jsonl
  what_ran="3 ranks, rank $victim stopped before MPI_Init"
  start=$(date +%s.%N)
  status=0
  VICTIM=$victim timeout 60 "$MPIRUN" --quiet -x VICTIM -np 3 "$tmp/stop-before-start.sh" "$GRADSYNC" \
    collectives -b 4K -e 4K -n 10 --json "$marker" --strategy ring-mpi --timeout "$timeout_s" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
  elapsed=$(echo "$(date +%s.%N) - $start" | bc)
  errors=$(grep -c 'gradsync: error: ' "$tmp/err" || true)
  line=$(grep -m1 'gradsync: error: ' "$tmp/err" || true)
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "$what_ran: exit $status"
  [ "$(echo "$elapsed <= $timeout_s + 3 + 5" | bc)" -eq 1 ] || fail "$what_ran: ended ${elapsed}s after the launch"
  [ "$errors" -eq 1 ] || fail "$what_ran: $errors error lines, not one"
  grep -q "MPI_Init did not complete within $((timeout_s + 3)) s" <<<"$line" || fail "$what_ran: the line does not say so: $line"
  left=$(left_after "$marker")
  [ -z "$left" ] || fail "$what_ran: processes left after the job ended: $left"
  printf '%s: exit %s after %.1f s: %s\n' "$what_ran" "$status" "$elapsed" "${line#gradsync: error: }"
done
