#!/usr/bin/env bash
# An emulated cluster on one machine: H hosts, each a network namespace with
# its own hostname and one shaped link into a bridge, so that Open MPI (and
# gradsync's strategies) run across hosts whose only connection is the
# shaped links, and ranks on one host share memory as on a real node.
#
#   scripts/cluster.sh up --hosts H --slots S --rate RATE [--delay DELAY] [--mtu BYTES] [--prefix P] [--net N]
#   scripts/cluster.sh down [--prefix P]
#   scripts/cluster.sh status
#   scripts/cluster.sh check [--seconds N]
#   scripts/cluster.sh exec HOST -- CMD...
#   scripts/cluster.sh mpirun ARGS...
#   scripts/cluster.sh drops
#
# The state directory (GRADSYNC_CLUSTER_DIR, default /run/gradsync-cluster)
# holds the hostfile, the rsh agent, env.sh and cluster.json; see
# docs/guide/emulated-cluster.md (its "cluster.json" section is the contract).
set -euo pipefail
# shellcheck source=scripts/cluster/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster/common.sh"
# shellcheck source=scripts/cluster/up.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster/up.sh"
# shellcheck source=scripts/cluster/down.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster/down.sh"
# shellcheck source=scripts/cluster/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster/check.sh"

usage="usage: cluster.sh up|down|status|check|exec|mpirun|drops ... (see the head of scripts/cluster.sh)"

# What exists: the state directory's cluster, its hosts and last check, or
# "no cluster" (naming leftovers of the default prefix, if any).
cluster_status() {
  [ $# -eq 0 ] || usage_error "status: takes no arguments"
  if [ ! -r "$(cluster_json)" ]; then
    local left
    left=$( (existing_namespaces gs; existing_links gs) | tr '\n' ' ')
    echo "no cluster in $state_dir${left:+ (leftovers of prefix gs: ${left% }; scripts/cluster.sh down removes them)}"
    return 0
  fi
  local prefix missing
  prefix=$(cluster_prefix)
  jq -r '"cluster \(.bridge | sub("br0$"; "")): \(.hosts | length) hosts x \(.slots) slots on \(.subnet), links \(.rate) each way, MTU \(.mtu // 1500), delay \(.delay), tbf burst \(.burst_bytes) B (HZ \(.kernel_hz))",
    (.hosts[] | "  \(.name)  \(.address)  slots=\(.slots)")' "$(cluster_json)"
  missing=$(comm -23 <(cluster_field '.hosts[].name' | sort) <(existing_namespaces "$prefix" | sort) | tr '\n' ' ')
  [ -z "$missing" ] || echo "  MISSING namespaces: ${missing% } (scripts/cluster.sh down, then up again)"
  if [ "$(cluster_field .check)" = null ]; then echo "  not checked yet (scripts/cluster.sh check)"; else print_check "$(cluster_field .rate)" | sed 's/^/  /'; fi
}

# Runs CMD on HOST (name, address or index) through the cluster's rsh agent,
# so it sees what a rank there sees: the namespace, the hostname, GRADSYNC_CLUSTER.
cluster_exec() {
  [ $# -ge 3 ] && [ "$2" = "--" ] || usage_error "exec: usage: cluster.sh exec HOST -- CMD..."
  need_root "exec"
  need_cluster
  local host
  host=$(resolve_host "$1")
  shift 2
  exec "$state_dir/rsh-agent" "$host" "$(printf '%q ' "$@")"
}

# The packets the links' queues have dropped since the cluster came up, as
# "sending N receiving M": N at the hosts' own ends (what a host sends), M
# at the bridge's ports (what a host receives). Take it before and after a
# run: the difference is the run's losses, and which end says where flows
# collided (several sockets of one host, or several hosts into one).
cluster_drops() {
  [ $# -eq 0 ] || usage_error "drops: takes no arguments"
  need_root "drops"
  need_cluster
  local prefix iface i hosts sending=0 receiving=0 n
  prefix=$(cluster_prefix) iface=$(host_interface_name "$(cluster_prefix)")
  hosts=$(cluster_field '.hosts | length')
  for ((i = 0; i < hosts; i++)); do
    n=$(ip netns exec "$(host_name "$prefix" "$i")" tc -s qdisc show dev "$iface" | qdisc_dropped)
    sending=$((sending + n))
    n=$(tc -s qdisc show dev "$(bridge_port_name "$prefix" "$i")" | qdisc_dropped)
    receiving=$((receiving + n))
  done
  echo "sending $sending receiving $receiving"
}

# The drops of a device's tbf (the queue that overflows; with --delay it sits
# under a netem) in `tc -s qdisc show`.
qdisc_dropped() { awk '/^qdisc/ { tbf = ($2 == "tbf") } tbf && /dropped/ { sub(/,/, "", $7); print $7; exit }'; }

# mpirun with the cluster's hostfile and environment: scripts/mpirun.sh
# takes the hostfile from GRADSYNC_HOSTFILE and, seeing GRADSYNC_CLUSTER,
# launches from the first host's namespace.
cluster_mpirun() {
  need_root "mpirun"
  need_cluster
  source "$state_dir/env.sh"
  exec "$repo_root/scripts/mpirun.sh" "$@"
}

[ $# -ge 1 ] || usage_error "$usage"
command=$1
shift
case $command in
  up) cluster_up "$@" ;;
  down) cluster_down "$@" ;;
  status) cluster_status "$@" ;;
  check) cluster_check "$@" ;;
  exec) cluster_exec "$@" ;;
  mpirun) cluster_mpirun "$@" ;;
  drops) cluster_drops "$@" ;;
  -h | --help | help) echo "$usage" ;;
  *) usage_error "unknown command '$command' ($usage)" ;;
esac
