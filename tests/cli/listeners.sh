#!/usr/bin/env bash
# A one-host run is closed by default: every socket that the launcher and
# the ranks listen on while the run lasts is reachable through loopback only.
# A process either lives in a network namespace whose only interface is lo
# (scripts/mpirun.sh puts the run in one), or each of its listeners is bound
# to 127.0.0.1 or ::1. The same check on a run launched with
# GRADSYNC_OPEN_NETWORK=1 (the host's namespace, where Open MPI listens on
# every interface) must find wildcard listeners, so the check itself can
# fail. Needs ss (iproute2) to name a process's listeners.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
run=""
cleanup() {
  [ -z "$run" ] || kill "$run" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The processes of the run started as $1: it and all its descendants.
descendants() {
  local pid=$1 child
  echo "$pid"
  for child in $(pgrep -P "$pid" || true); do descendants "$child"; done
}

# Prints one line per listener of the run that can be reached from outside
# loopback: "PID ADDRESS:PORT".
open_listeners() {
  local pid ifaces
  for pid in $(descendants "$1"); do
    [ -r "/proc/$pid/net/dev" ] || continue
    # Interfaces of its namespace: the lines after the two header lines.
    ifaces=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' "/proc/$pid/net/dev" 2>/dev/null | sort -u | tr '\n' ' ')
    [ "$ifaces" = "lo " ] && continue
    ss -Hltnp 2>/dev/null | awk -v pid="pid=$pid," 'index($0, pid) { print $4 }' |
      grep -Ev '^(127\.0\.0\.1|\[::1\]):[0-9]+$' | sed "s/^/$pid /" || true
  done
}

# Starts a 2-rank run that lasts a few seconds (every allreduce sleeps first),
# waits until both ranks are up, and prints what open_listeners finds.
check_run() {
  "$MPIRUN" -np 2 "$GRADSYNC" collectives -b 4K -e 4K -n 30 -w 0 -c 0 --test-delay-ms 100 \
    --strategy ring-mpi >"$tmp/out" 2>"$tmp/err" &
  run=$!
  local i
  for i in $(seq 1 100); do
    [ "$(descendants "$run" | xargs -r ps -o comm= -p 2>/dev/null | grep -c '^gradsync$')" -ge 2 ] && break
    sleep 0.1
  done
  sleep 1  # the ranks' transports open their listeners during MPI_Init
  open_listeners "$run" >"$tmp/open"
  wait "$run" || fail "the run exited $?: $(cat "$tmp/err")"
  run=""
}

check_run
[ ! -s "$tmp/open" ] || fail "listeners reachable beyond loopback:"$'\n'"$(cat "$tmp/open")"
echo "closed: no listener of the run is reachable beyond loopback"

GRADSYNC_OPEN_NETWORK=1 check_run
[ -s "$tmp/open" ] || fail "the check found no wildcard listener in the host's namespace either: it cannot see them"
echo "open (GRADSYNC_OPEN_NETWORK=1), as the check sees it:"
cat "$tmp/open"
