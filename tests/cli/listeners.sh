#!/usr/bin/env bash
# A one-host run is closed by default: every socket that the launcher and
# the ranks listen on while the run lasts is reachable through loopback only.
# A process either lives in a network namespace whose only interface is lo
# (scripts/mpirun.sh puts the run in one), or each of its listeners is bound
# to 127.0.0.1 or ::1. The same check on a run launched with
# GRADSYNC_OPEN_NETWORK=1 (the host's namespace, where Open MPI listens on
# every interface) must find wildcard listeners, so the check itself can
# fail. A sweep's runs are checked too. Across hosts: cluster_listeners.sh.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
source "$(dirname "$0")/lib/listeners.sh"
cleanup() {
  [ -z "$run" ] || kill "$run" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A 2-rank run (every allreduce sleeps first, and there is no end to them);
# what reachable_listeners finds while it runs goes to $tmp/open. $launch_env
# (VAR=VALUE words) is the launcher's environment.
launch_env=()
check_run() {
  start_run 2 env "${launch_env[@]}" "$MPIRUN" -np 2 "$GRADSYNC" collectives -b 4K -e 4K -n 1000000 -w 0 -c 0 \
    --test-delay-ms 100 --strategy ring-mpi
  reachable_listeners >"$tmp/open"
  stop_run
}

check_run
[ ! -s "$tmp/open" ] || fail "listeners reachable beyond loopback:"$'\n'"$(cat "$tmp/open")"
echo "closed: no listener of the run is reachable beyond loopback"

# A sweep's runs (the README's main job is one) start the same way: a
# 2-worker training run (emulated compute sleeps).
start_run 3 "$GRADSYNC" sweep --out "$tmp/sweep" --workers 2 --strategy ring-mpi --models resnet50:emulated \
  --train-args "--batch-size 32 --num-warmup-batches 1 --num-batches-per-iter 4 --num-iters 1000000"
reachable_listeners >"$tmp/open"
stop_run
[ ! -s "$tmp/open" ] || fail "a sweep's run listens beyond loopback:"$'\n'"$(cat "$tmp/open")"
echo "closed: no listener of a sweep's run is reachable beyond loopback"

# Without ip (iproute2 is missing from some images), mpirun.sh brings the
# namespace's loopback up through python3: closed just the same, and said
# nothing about it.
mkdir "$tmp/path-without-ip"
for f in /usr/bin/* /bin/*; do
  [ "${f##*/}" = ip ] || [ -e "$tmp/path-without-ip/${f##*/}" ] || ln -s "$f" "$tmp/path-without-ip/${f##*/}"
done
launch_env=(PATH="$tmp/path-without-ip")
check_run
launch_env=()
[ ! -s "$tmp/open" ] || fail "without ip: listeners reachable beyond loopback:"$'\n'"$(cat "$tmp/open")"
! grep -q "mpirun.sh:" "$tmp/err" || fail "without ip, mpirun.sh said: $(cat "$tmp/err")"
echo "closed without ip: loopback brought up through python3"

GRADSYNC_OPEN_NETWORK=1 check_run
[ -s "$tmp/open" ] || fail "the check found no wildcard listener in the host's namespace either: it cannot see them"
echo "open (GRADSYNC_OPEN_NETWORK=1), as the check sees it:"
cat "$tmp/open"
