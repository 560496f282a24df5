#!/usr/bin/env bash
# A fatal signal in a rank of an MPI job is one line naming the rank, the
# subcommand and what it was doing, never Open MPI's backtrace (gradsync's
# handler is installed before MPI_Init, so Open MPI keeps it): SIGSEGV sent
# to the writing rank of a 2-rank train while it measures (its pid read from
# the results folder's lock file) ends the job with
#   gradsync: error: rank 0: train: internal error while measuring: SIGSEGV (invalid memory access)
# and mpirun's own notice of the signal.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
here=$(cd "$(dirname "$0")" && pwd)

tmp=$(mktemp -d)
launcher=""
trap '[ -z "$launcher" ] || kill "$launcher" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bash "$here/../../scripts/mpirun.sh" -np 2 "$GRADSYNC" train --model small-cnn --strategy ring-mpi \
  --batch-size 4 --num-batches-per-iter 2 --num-iters 5000 --out "$tmp/run.jsonl" \
  >"$tmp/out" 2>"$tmp/err" &
launcher=$!
for _ in $(seq 300); do
  grep -q "^Iter #1:" "$tmp/out" && break
  kill -0 "$launcher" 2>/dev/null || { cat "$tmp/err"; fail "the run ended before measuring"; }
  sleep 0.1
done
rank=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$tmp/.gradsync.lock")
[ -n "$rank" ] || fail "the lock file names no writing rank"
kill -SEGV "$rank"
status=0
wait "$launcher" || status=$?
launcher=""
[ "$status" -ne 0 ] || fail "the job went on after its rank's SIGSEGV"
lines=$(grep -c '^gradsync:' "$tmp/err" || true)
[ "$lines" -eq 1 ] &&
  grep -qx "gradsync: error: rank 0: train: internal error while measuring: SIGSEGV (invalid memory access)" "$tmp/err" ||
  { cat "$tmp/err"; fail "not the one line naming rank, subcommand and phase"; }
grep -q "Process received signal\|\[ 0\]" "$tmp/err" && { cat "$tmp/err"; fail "a backtrace was printed"; }
[ -e "$tmp/run.jsonl" ] && fail "the killed run wrote a record"
echo "internal_error: ok"
