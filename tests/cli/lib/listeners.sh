# shellcheck shell=bash
# Sourced by the tests of what a run exposes (listeners.sh on one host,
# cluster_listeners.sh across emulated hosts): a run started in the
# background, and the sockets its processes listen on that can be reached
# through an interface the job does not use. Needs ss (iproute2); the caller
# defines fail() and $tmp.

run=""

# The processes of the run started as $1: it and all its descendants.
descendants() {
  local pid=$1 child
  echo "$pid"
  for child in $(pgrep -P "$pid" || true); do descendants "$child"; done
}

# The run's processes; a test whose run has processes that are not its
# descendants (a daemon started on another host) defines its own.
run_processes() { descendants "$run"; }

# start_run N CMD...: starts CMD (a run that lasts until it is stopped) in
# the background as $run, output in $tmp/out and $tmp/err, and returns once
# N gradsync processes are up (the ranks, and a sweep itself) and the ranks'
# transports have opened their listeners (during MPI_Init).
start_run() {
  local want=$1 i
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" &
  run=$!
  for i in $(seq 1 100); do
    [ "$(run_processes | xargs -r ps -o comm= -p 2>/dev/null | grep -c '^gradsync$')" -ge "$want" ] && break
    [ "$i" -lt 100 ] || fail "$want gradsync processes of '$*' were not up within 10 s: $(cat "$tmp/err")"
    sleep 0.1
  done
  sleep 1
}

# stop_run: the run must still be running (its listeners were read while it
# was whole); SIGTERM to its launcher takes it down, and it is waited for.
stop_run() {
  kill -0 "$run" 2>/dev/null || fail "the run ended before its listeners were read: $(cat "$tmp/err")"
  kill -TERM "$run"
  wait "$run" 2>/dev/null || true
  run=""
}

# reachable_listeners [IFACE]: one line "PID COMM ADDRESS:PORT" for each
# listener of the run that can be reached through an interface other than
# loopback and IFACE (the job's link across hosts; none on one host). A
# process whose network namespace has no other interface may listen on any
# address there; elsewhere only on 127.0.0.1, ::1 or an address of IFACE.
# The processes and each namespace's listeners are read first, at once, so
# that a run ending meanwhile cannot hide any (stop_run checks it was whole).
reachable_listeners() {
  local job_iface=${1:-} pid ns others
  local -A listeners=() allowed=() namespace=()
  for pid in $(run_processes); do
    ns=$(readlink "/proc/$pid/ns/net" 2>/dev/null) || continue
    # Interfaces of its namespace: the lines after the two header lines.
    others=$(awk -F: -v job="$job_iface" 'NR > 2 { gsub(/ /, "", $1); if ($1 != "lo" && $1 != job) print $1 }' \
      "/proc/$pid/net/dev" 2>/dev/null)
    [ -n "$others" ] || continue
    namespace[$pid]=$ns
    [ -z "${listeners[$ns]+seen}" ] || continue
    if [ "$ns" = "$(readlink /proc/self/ns/net)" ]; then
      listeners[$ns]=$(ss -Hltnp 2>/dev/null)
    else
      listeners[$ns]=$(nsenter -t "$pid" -n ss -Hltnp 2>/dev/null)
    fi
    allowed[$ns]='127\.0\.0\.1|\[::1\]'
    if [ -n "$job_iface" ]; then
      # (none where the namespace has no such interface: ip fails)
      allowed[$ns]+=$( (nsenter -t "$pid" -n ip -o addr show dev "$job_iface" 2>/dev/null || true) |
        awk '{ sub(/\/.*/, "", $4); gsub(/\./, "\\.", $4); printf "|%s", $4 }')
    fi
  done
  for pid in "${!namespace[@]}"; do
    ns=${namespace[$pid]}
    echo "${listeners[$ns]}" | awk -v pid="pid=$pid," 'index($0, pid) { print $4 }' |
      grep -Ev "^(${allowed[$ns]})(%[^:]+)?:[0-9]+\$" | sed "s/^/$pid $(cat "/proc/$pid/comm" 2>/dev/null) /" || true
  done
}
