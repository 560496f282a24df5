#!/usr/bin/env bash
# Waits and exhausted resources end as one agreed line, as
# docs/guide/troubleshooting.md's fault table says: one "gradsync: error:"
# line naming the cause (and the ranks), a non-zero exit, within --timeout
# plus a few seconds, nothing left running, no abort's backtrace.
#   1. --input-threads over its cap is a usage error; threads the system
#      refuses (a cap on address space here) are joined and named; an
#      open-file limit too low for MPI's launcher is refused by mpirun.sh;
#   2. an input stage slower than --timeout: one line naming every rank;
#   3. /dev/shm filling up under ps-zmq (root only: a small tmpfs in a mount
#      namespace): the shard's reserve message ends the run at once;
#   4. SIGTERM and SIGINT to the launcher, or to a process started without
#      one (train; report): one line saying so, nothing recorded.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  sed 's/^/  | /' "$tmp/err" >&2
  failures=$((failures + 1))
}

small=(--model small-cnn --batch-size 4 --num-warmup-batches 1 --num-iters 1
  --num-batches-per-iter 2)

# expect NAME STATUS LINE_REGEX MAX_SECONDS -- COMMAND...: the command exits
# with STATUS (any non-zero for "nonzero"), prints exactly one error line,
# which matches LINE_REGEX, and no abort, within MAX_SECONDS.
expect() {
  local name=$1 status=$2 line=$3 max_s=$4
  shift 5
  local start=$SECONDS rc=0
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  local took=$((SECONDS - start))
  if [ "$status" = nonzero ]; then
    [ "$rc" != 0 ] || fail "$name: exit status 0"
  else
    [ "$rc" = "$status" ] || fail "$name: exit status $rc, not $status"
  fi
  local lines
  lines=$(grep -c '^gradsync: error: ' "$tmp/err" || true)
  [ "$lines" = 1 ] || fail "$name: $lines error lines, not 1"
  grep -qE "^gradsync: error: $line\$" "$tmp/err" || fail "$name: no line matching: $line"
  ! grep -qE 'terminate called|Backtrace|Aborted' "$tmp/err" || fail "$name: an abort"
  [ "$took" -le "$max_s" ] || fail "$name: took $took s, more than $max_s"
}

# 1. Threads.
expect "--input-threads over the cap" 2 '--input-threads 5000: from 1 to 4096' 30 -- \
  "$MPIRUN" -np 2 "$GRADSYNC" train "${small[@]}" --input decode:1ms --input-threads 5000
# 4000 threads of 8 MiB stacks want 31 GiB of address space: at 3 GB, the
# system refuses one partway, on every rank. (A sanitized build reserves
# terabytes of address space for itself: not there.)
# (Linked statically or not, its binary names __asan_init or __tsan_init.)
if grep -qaE '__[at]san_init' "$GRADSYNC"; then
  echo "waits: skipping the refused threads row (a sanitized build)"
else
  expect "threads refused" 1 \
    'ranks 0, 1: --input-threads 4000: cannot start thread [0-9]+ of 4000: Resource temporarily unavailable \(this host started [0-9]+; ask for fewer\)' \
    60 -- bash -c 'ulimit -s 8192 -v 3000000 && exec "$@"' - \
    "$MPIRUN" -np 2 "$GRADSYNC" train "${small[@]}" --input decode:1ms --input-threads 4000 \
    --timeout 5
fi

# Descriptors: below what MPI's launcher needs (it crashes, then hangs),
# mpirun.sh refuses in one line before starting it.
rc=0
(ulimit -n 30 && exec "$MPIRUN" -np 2 "$GRADSYNC" strategies) >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
  grep -q '^mpirun.sh: error: the open-file limit is 30 (ulimit -n); an MPI job needs at least 64' \
    "$tmp/err" || fail "open-file limit below the floor: exit $rc"

# 2. An input stage slower than --timeout, at 2 and 3 ranks.
for np in 2 3; do
  ranks=$([ "$np" = 2 ] && echo "0, 1" || echo "0, 1, 2")
  expect "input slower than --timeout at $np ranks" 1 \
    "ranks $ranks: the input stage waited longer than --timeout: no batch for step 0 within 1 s \\(1 loader thread\\(s\\)\\)" \
    $((1 + 5 + 10)) -- "$MPIRUN" -np "$np" "$GRADSYNC" train "${small[@]}" \
    --input decode:3000ms --timeout 1
done

# With dedicated ps-zmq servers, world rank 0 only serves and still prints
# the workers' line (the workers' waits are the harness's: --timeout + 3 s).
expect "input slower than --timeout, dedicated servers" 1 \
  "ranks 0, 1: the input stage waited longer than --timeout: no batch for step 0 within 4 s \\(1 loader thread\\(s\\)\\)" \
  $((1 + 3 + 5 + 10)) -- "$MPIRUN" -np 3 "$GRADSYNC" train "${small[@]}" --strategy ps-zmq \
  --ps-placement dedicated --input decode:3000ms --timeout 1

# 3. /dev/shm filling up partway under ps-zmq through its segments (--ps-shm
# copy; read in place, the default, it needs none): a tmpfs of its own in a
# mount namespace (root only; the namespace and its mount end with the command).
shm_line='rank [0-9]: ps-zmq: cannot reserve [0-9]+ bytes of shared memory in /dev/shm: No space left on device \(make /dev/shm larger, or send the data through ZeroMQ: --ps-shm off\)'
in_small_shm() { # SIZE COMMAND...: the command with a /dev/shm of SIZE
  local size=$1
  shift
  unshare -m sh -c 'mount -t tmpfs -o size="$0" tmpfs /dev/shm && exec "$@"' "$size" "$@"
}
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  expect "collectives with /dev/shm filling up" 1 "$shm_line" $((5 + 5 + 10)) -- \
    in_small_shm 24M "$MPIRUN" -np 2 "$GRADSYNC" collectives -b 1M -e 64M -n 2 -w 1 \
    --strategy ps-zmq --ps-shm copy --timeout 5
  for placement in colocated dedicated; do
    for size in 64k 256k; do  # a worker's segment fails first, then the shard's
      expect "train ($placement) with a /dev/shm of $size at 3 ranks" 1 "$shm_line" \
        $((5 + 5 + 10)) -- in_small_shm "$size" "$MPIRUN" -np 3 "$GRADSYNC" train "${small[@]}" \
        --strategy ps-zmq --ps-shm copy --ps-placement "$placement" --timeout 5
    done
  done
else
  echo "waits: skipping /dev/shm rows (they need root and mount namespaces)"
fi

# 4. SIGTERM and SIGINT from outside, while the ranks train: to the
# launcher (scripts/mpirun.sh; mpirun ends every rank with SIGTERM, and the
# launcher says why) and to a process of its own (no launcher: it says so
# itself). The job ends within a few seconds, records nothing, leaves
# nothing running.
long=(train --model small-cnn --batch-size 4 --num-warmup-batches 1 --num-iters 1000
  --num-batches-per-iter 10 --out "$tmp/signalled.jsonl")
signalled() { # SIGNAL COMMAND...: starts it, signals it once it measures, waits
  local signal=$1
  shift
  rm -f "$tmp/signal.out"  # the last row's says "Running" too
  "$@" >"$tmp/signal.out" 2>&1 &
  local pid=$! waited=0
  until grep -qs '^Running' "$tmp/signal.out" || [ "$waited" -ge 300 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  kill -"$signal" "$pid"
  local rc=0
  wait "$pid" || rc=$?
  cat "$tmp/signal.out" >&2
  return "$rc"
}
for row in "TERM 2" "INT 3"; do
  read -r signal np <<<"$row"
  expect "SIG$signal to the launcher at $np ranks" nonzero \
    "train: ended by SIG$signal \(from outside the job\); nothing of the unfinished run was recorded" \
    40 -- signalled "$signal" "$MPIRUN" -np "$np" "$GRADSYNC" "${long[@]}" --timeout 5
  [ ! -e "$tmp/signalled.jsonl" ] || fail "SIG$signal at $np ranks: a record was written"
  sleep 1
  ! pgrep -f "$tmp/signalled.jsonl" >/dev/null || fail "SIG$signal at $np ranks: ranks left running"
done
for signal in TERM INT; do
  status=$((128 + $([ "$signal" = TERM ] && echo 15 || echo 2)))
  expect "SIG$signal to a process of its own" "$status" \
    "train: ended by SIG$signal \(from outside\); nothing of the unfinished run was recorded" \
    40 -- signalled "$signal" "$GRADSYNC" "${long[@]}" --strategy none
  [ ! -e "$tmp/signalled.jsonl" ] || fail "SIG$signal to a process of its own: a record was written"
done
# A plain subcommand: report, waiting to read a FIFO nobody writes.
mkfifo "$tmp/fifo"
interrupted_report() {
  "$GRADSYNC" report "$tmp/fifo" &
  local pid=$!
  sleep 1
  kill -INT "$pid"
  wait "$pid"
}
expect "SIGINT to report" 130 'report: ended by SIGINT \(from outside\); it did not finish' 20 -- \
  interrupted_report

[ "$failures" = 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "waits: every row ended as one line"
