#!/usr/bin/env bash
# The fault table of a multi-rank job, each row run as written in
# docs/guide/troubleshooting.md ("The fault table"): the job ends within its
# --timeout plus a small bound, non-zero, with one "gradsync: error:" line
# naming the cause and the rank, and no process of it is left running.
#   1. setup: an error on one rank only (its results folder is missing, a
#      malformed flag), ranks given different options or subcommands, a
#      non-finite value, an output path that cannot be written;
#   2. a rank stopped (SIGSTOP) or killed (SIGKILL) while it measures, under
#      every CPU strategy, collectives and train;
#   3. a stall that resolves (SIGSTOP, then SIGCONT before the timeout): the
#      run ends 0 but its record is not `correct: true`.
# Section 2 and 3 take about a minute: each row waits out its timeout.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
marker=$tmp/job  # in every rank's command line, to find the job's processes
trap 'pkill -KILL -f "$marker" 2>/dev/null || true; rm -rf "$tmp"' EXIT
failures=0
timeout_s=4
bound_s=5  # the issue's bound beyond the timeout

fail() {
  echo "FAIL: $*" >&2
  sed 's/^/  | /' "$tmp/err" >&2
  failures=$((failures + 1))
}

# The job's ranks: processes whose command line holds the marker and whose
# environment has an MPI rank (mpirun itself has none).
rank_pid() {
  local pid
  for pid in $(pgrep -f "$marker" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$pid"
      return
    fi
  done
}

# Nothing of the job may be left a moment after mpirun returned.
assert_gone() {
  local waited=0
  while pgrep -f "$marker" >/dev/null; do
    [ $waited -lt 20 ] || { fail "$1: processes left: $(pgrep -af "$marker" | head -3 | tr '\n' ' ')"; return; }
    sleep 0.1
    waited=$((waited + 1))
  done
}

# check_one_line ROW STATUS WORDS...: exit non-zero, exactly one gradsync
# line, holding every WORD.
check_one_line() {
  local row=$1 status=$2 lines words
  shift 2
  lines=$(grep -c '^gradsync: error: ' "$tmp/err" || true)
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] && [ "$lines" -eq 1 ] ||
    { fail "$row: exit $status with $lines gradsync error lines"; return 1; }
  for words in "$@"; do
    grep -qF -- "$words" "$tmp/err" || { fail "$row: the error line does not say: $words"; return 1; }
  done
  echo "$row: $(grep '^gradsync: error: ' "$tmp/err")"
}

# --- 1. setup: agreed before any work -----------------------------------------
# setup ROW WORDS -- MPIRUN-ARGS...: the job fails at once, saying WORDS.
setup() {
  local row=$1 words=$2 status=0
  shift 3
  timeout 60 "$MPIRUN" --quiet "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  check_one_line "$row" "$status" "$words" || return 0
  ! grep -q '^#  *[0-9]' "$tmp/out" || fail "$row: it measured before failing"
}
g=$GRADSYNC
c=(collectives -b 1K -e 4K -f 4 -n 2 -w 1)
mkdir -p "$tmp/a/results" "$tmp/b"
setup "results folder missing on the writing rank" \
  "rank 0: --json results/out.jsonl: directory $tmp/b/results does not exist" -- \
  -np 1 -wdir "$tmp/b" "$g" "${c[@]}" --json results/out.jsonl : \
  -np 1 -wdir "$tmp/a" "$g" "${c[@]}" --json results/out.jsonl
# Only the writing rank (world rank 0 here) needs the folder: hosts without a
# shared file system are fine.
"$MPIRUN" --quiet -np 1 -wdir "$tmp/a" "$g" "${c[@]}" --json results/out.jsonl : \
  -np 1 -wdir "$tmp/b" "$g" "${c[@]}" --json results/out.jsonl >"$tmp/out" 2>"$tmp/err" &&
  [ -s "$tmp/a/results/out.jsonl" ] && [ ! -e "$tmp/b/results" ] ||
  fail "results folder only on the writing rank: the run did not write there"
setup "malformed flag on rank 1 only" "rank 1: Could not convert: --batch-size = x" -- \
  -np 1 "$g" train --model small-cnn : -np 1 "$g" train --model small-cnn --batch-size x
setup "unknown model on rank 1 only" "rank 1: --model: unknown model 'nosuch'" -- \
  -np 1 "$g" train --model small-cnn : -np 1 "$g" train --model nosuch
setup "ring segments differ" "ranks disagree on --ring-segment: rank 0: 65536; rank 1: 524288" -- \
  -np 1 "$g" "${c[@]}" --strategy ring-mpi --ring-segment 64K : \
  -np 1 "$g" "${c[@]}" --strategy ring-mpi --ring-segment 512K
setup "batch sizes differ" "ranks disagree on --batch-size: rank 0: 64; rank 1: 1" -- \
  -np 1 "$g" train --model small-cnn --batch-size 64 : -np 1 "$g" train --model small-cnn --batch-size 1
setup "strategies differ" "ranks disagree on --strategy: rank 0: ring-mpi; rank 1: tree-mpi" -- \
  -np 1 "$g" "${c[@]}" --strategy ring-mpi : -np 1 "$g" "${c[@]}" --strategy tree-mpi
setup "server counts differ" "ranks disagree on --ps-servers: ranks 0,1: 1; rank 2: 2" -- \
  -np 2 "$g" "${c[@]}" --strategy ps-zmq : -np 1 "$g" "${c[@]}" --strategy ps-zmq --ps-servers 2
setup "timeouts differ" "ranks disagree on --timeout: rank 0: 60; rank 1: 5" -- \
  -np 1 "$g" "${c[@]}" : -np 1 "$g" "${c[@]}" --timeout 5
setup "subcommands differ" "ranks disagree on subcommand: rank 0: train; rank 1: collectives" -- \
  -np 1 "$g" train --model small-cnn : -np 1 "$g" "${c[@]}"
setup "non-finite learning rate" "--lr: must be a finite number (got nan)" -- \
  -np 2 "$g" train --model small-cnn --lr nan
setup "infinite rate on rank 1 only" "rank 1: --emulate-img-per-sec: must be a finite number (got inf)" -- \
  -np 1 "$g" train --model resnet50 --compute emulated : \
  -np 1 "$g" train --model resnet50 --compute emulated --emulate-img-per-sec inf
setup "--out is a directory" "rank 0: --out $tmp: is a directory, not a file" -- \
  -np 2 "$g" train --model small-cnn --out "$tmp"
setup "--timeline in a missing directory" "--timeline $tmp/none/t.json: directory $tmp/none does not exist" -- \
  -np 2 "$g" train --model small-cnn --timeline "$tmp/none/t.json"

[ "$failures" -eq 0 ] || exit 1
