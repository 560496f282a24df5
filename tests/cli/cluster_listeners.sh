#!/usr/bin/env bash
# Across emulated hosts a run listens only where the job is: on 2 hosts x 1
# slot (prefix gst), every listener of a `cluster.sh mpirun` run (the
# launcher, the daemon on the other host, the ranks) is either in a host's
# namespace, whose interfaces are loopback and the cluster link alone, or
# bound to loopback or the host's cluster address. The same run launched
# by plain mpirun from the root namespace with the cluster's settings (env.sh)
# must be caught (the launcher there listens on every interface of the
# machine), so the check itself can fail.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the emulated cluster needs root (network namespaces, veths, tc)"; exit 77; }
unshare --net true 2>/dev/null || { echo "SKIP: this machine cannot make network namespaces"; exit 77; }

source "$(dirname "$0")/lib/cluster_test.sh"
source "$(dirname "$0")/lib/listeners.sh"
trap '[ -z "$run" ] || kill "$run" 2>/dev/null || true; wait 2>/dev/null || true
  "$cluster" down --prefix gst >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$cluster" up --hosts 2 --slots 1 --rate 1gbit --prefix gst --net 251 >/dev/null
job_iface=$(host_interface_name gst)
ranks=(-np 2 --map-by node "$GRADSYNC" collectives -b 4K -e 4K -n 1000000 -w 0 -c 0 --test-delay-ms 100
  --strategy ring-mpi)

# The run's processes: its own descendants, and the daemons Open MPI started
# on the other host (they detach from the launcher), known by the cluster's
# state file that their environment carries.
run_processes() {
  local pid
  {
    descendants "$run"
    for pid in /proc/[0-9]*; do
      grep -qaF "GRADSYNC_CLUSTER=$GRADSYNC_CLUSTER_DIR/cluster.json" "$pid/environ" 2>/dev/null && echo "${pid#/proc/}"
    done
  } | sort -u
}

# The network namespaces the run's gradsync processes are in, one line each.
rank_namespaces() {
  local pid
  for pid in $(run_processes); do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = gradsync ] && readlink "/proc/$pid/ns/net"
  done | sort -u
}

start_run 2 "$cluster" mpirun "${ranks[@]}"
[ "$(rank_namespaces | wc -l)" -eq 2 ] || fail "the run's ranks are not in two host namespaces: $(rank_namespaces | tr '\n' ' ')$(cat "$tmp/err")"
reachable_listeners "$job_iface" >"$tmp/open"
grep -q '^# strategy ' "$tmp/out" || fail "the run launched from gst-h0 does not measure: $(cat "$tmp/out" "$tmp/err")"
stop_run
[ ! -s "$tmp/open" ] || fail "listeners reachable beyond the cluster's links:"$'\n'"$(cat "$tmp/open")"
echo "closed: no listener of the run is reachable beyond loopback and the cluster's links ($job_iface)"

# Open MPI's own mpirun (the build's, as CTest names it; not whichever the
# system's plain mpirun is), known in the listing by its process name.
mpirun=${GRADSYNC_MPIEXEC:-mpirun}
mpirun_comm=$(basename "$mpirun" | cut -c1-15)
start_run 2 bash -c 'source "$GRADSYNC_CLUSTER_DIR/env.sh" && exec "$0" --hostfile "$GRADSYNC_HOSTFILE" -x GRADSYNC_CLUSTER "$@"' \
  "$mpirun" "${ranks[@]}"
reachable_listeners "$job_iface" >"$tmp/open"
stop_run
grep -qF " $mpirun_comm " "$tmp/open" || fail "mpirun in the root namespace was not seen listening beyond the cluster: the check cannot see it"
echo "mpirun launched from the root namespace, as the check sees it:"
cat "$tmp/open"
