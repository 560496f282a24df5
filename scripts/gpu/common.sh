# shellcheck shell=bash
# What every step of scripts/gpu-check.sh uses: the log, the summary's rows,
# the time budget, and run_step, which runs one command under its own
# timeout. Sourced by the driver after its settings (dry_run, budget, out,
# steps, log, build_abs, start) are made; what is read back from a step's
# output is read by report.py beside this file.

# report ARGS...: scripts/gpu/report.py (standard library only: the summary
# comes out whether or not gradsync was built).
report() { python3 scripts/gpu/report.py "$@"; }

say() { echo "gpu-check: $*"; echo "gpu-check: $*" >>"$log"; }
# note STEP VERDICT FIGURE: one row of the summary, said now too. The verdicts:
#   PASS     it ran and its result is right
#   FAIL     it ran and something is wrong (or it could not start)
#   TIMEOUT  it was cut off at its time limit: slow, not known to be wrong
#   SKIP     it did not run; the figure says why (no GPU, a tool missing,
#            no time left, an earlier step failed)
rows=$steps/summary.rows
: >"$rows"
failed=0 timed_out=0 lacking=0
note() {
  [ "$dry_run" = 0 ] || return 0
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$rows"
  say "$(report row "$1" "$2" "$3")"
  case "$2" in
    FAIL) failed=1 ;;
    TIMEOUT) timed_out=1 ;;
  esac
}
# note_verdict STEP VERDICT: a row from report.py's "VERDICT figure".
note_verdict() { note "$1" "${2%% *}" "${2#* }"; }
left() { echo $((budget - (SECONDS - start))); }
# cap LIMIT: a step's own limit, or less when the budget has less left (never
# under 20 s for that, so that a step that starts still has a chance), and at
# most GPU_CHECK_STEP_MAX_S when that is set.
cap() {
  local l limit=$1
  l=$(left)
  [ "$l" -ge 20 ] || l=20
  [ "$limit" -le "$l" ] || limit=$l
  [ -z "${GPU_CHECK_STEP_MAX_S:-}" ] || [ "$limit" -le "$GPU_CHECK_STEP_MAX_S" ] || limit=$GPU_CHECK_STEP_MAX_S
  echo "$limit"
}
# time_for STEP NEED: true when NEED seconds of the budget are left; else the
# step's row says SKIP for time.
time_for() {
  [ "$(left)" -ge "$2" ] && return 0
  note "$1" SKIP "no time left (budget ${budget} s; ${2} s needed, $(left) s left)"
  return 1
}

reap() {  # kill every process whose program lies in this build directory
  local p exe
  for p in /proc/[0-9]*; do
    exe=$(readlink "$p/exe" 2>/dev/null) || continue
    case "$exe" in "$build_abs"/*) kill -9 "${p#/proc/}" 2>/dev/null && echo "gpu-check: ended leftover ${p#/proc/} ($exe)" >>"$log" ;; esac
  done
  return 0
}

# run_step NAME TIMEOUT CMD...: runs CMD under its own timeout, its output to
# the log (and to $steps/NAME.out for the caller to read); returns its status,
# 124 on timeout. In --dry-run, prints the command instead.
run_step() {
  local name=$1 limit=$2 status=0
  shift 2
  if [ "$dry_run" = 1 ]; then echo "[dry-run] ($name, ${limit}s) $*"; : >"$steps/$name.out"; return 0; fi
  echo "=== $name ($(date -u +%H:%M:%S), limit ${limit}s): $*" >>"$log"
  echo "$limit" >"$steps/$name.limit"
  # In the background, waited for: a signal to this script (Ctrl-C, kill)
  # runs its trap at once instead of after the step (stop_step ends it).
  current_step=$name
  timeout --kill-after=15 "$limit" "$@" >"$steps/$name.out" 2>&1 </dev/null &
  step_pid=$!
  wait "$step_pid" || status=$?
  step_pid=""
  cat "$steps/$name.out" >>"$log"
  echo "=== $name: exit $status after $((SECONDS - start))s in all" >>"$log"
  # A step cut off by its timeout can leave ranks behind (mpirun starts them in
  # their own process sessions): end this build's processes, by id, before going on.
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then reap; fi
  if [ "$status" != 0 ]; then
    # The reason is usually at the end: show it where the caller reads.
    tail -n 15 "$steps/$name.out" | sed "s/^/  $name| /"
  fi
  return "$status"
}
# stop_step: ends the step running now (timeout passes SIGTERM on to it).
step_pid="" current_step=""
stop_step() {
  [ -n "$step_pid" ] || return 0
  kill -TERM "$step_pid" 2>/dev/null || true
  wait "$step_pid" 2>/dev/null || true
  reap
}
# failure STEP STATUS: "FAIL why" for a step's output that ended with that
# status, or "TIMEOUT ..." when its time limit cut it off.
failure() { report failure "$steps/$1.out" "$2" "$(cat "$steps/$1.limit" 2>/dev/null || echo '?')"; }
