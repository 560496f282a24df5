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
# note STEP STATUS FIGURE: one row of the summary (PASS, FAIL or SKIP), said now too.
rows=$steps/summary.rows
: >"$rows"
failed=0
note() {
  [ "$dry_run" = 0 ] || return 0
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$rows"
  say "$(report row "$1" "$2" "$3")"
  [ "$2" != FAIL ] || failed=1
}
# note_verdict STEP VERDICT: a row from report.py's "STATUS figure".
note_verdict() { note "$1" "${2%% *}" "${2#* }"; }
left() { echo $((budget - (SECONDS - start))); }
# cap LIMIT: a step's own limit, or less when the budget has less left (never
# under 20 s, so that a step that starts still has a chance).
cap() { local l; l=$(left); [ "$l" -lt 20 ] && l=20; [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }

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
  timeout --kill-after=15 "$limit" "$@" >"$steps/$name.out" 2>&1 || status=$?
  cat "$steps/$name.out" >>"$log"
  echo "=== $name: exit $status after $((SECONDS - start))s in all" >>"$log"
  # A step cut off by its timeout can leave ranks behind (mpirun starts them in
  # their own sessions): end this build's processes, by id, before going on.
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then reap; fi
  if [ "$status" != 0 ]; then
    # The reason is usually at the end: show it where the caller reads.
    tail -n 15 "$steps/$name.out" | sed "s/^/  $name| /"
  fi
  return "$status"
}
# why STEP STATUS: one line saying why the step's output with that status failed.
why() { report why "$steps/$1.out" "$2"; }
