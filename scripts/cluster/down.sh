# shellcheck shell=bash
# `cluster.sh down` (sourced by scripts/cluster.sh): removes cluster P by
# the names of what it is made of, so it also cleans up after a killed `up`
# or a killed run, with or without the state directory; idempotent.
#
# Order matters: a namespace lives on while a process is inside it (and its
# veth with it), so first every process in the cluster's namespaces gets
# TERM, then, after at most 3 s, KILL (orted, ranks, iperf3, anything a user
# started with `exec`); then the links go (deleting a veth's bridge end
# deletes its namespace end and their qdiscs), then the bridge and the
# namespaces, and last the state directory when it describes this cluster.

down_usage="usage: cluster.sh down [--prefix P]"

cluster_down() {
  local prefix=""
  while [ $# -gt 0 ]; do
    case $1 in
      --prefix) need_value "$@"; prefix=$2; shift 2 ;;
      *) usage_error "down: unknown argument '$1' ($down_usage)" ;;
    esac
  done
  if [ -z "$prefix" ]; then
    prefix=gs
    [ -r "$(cluster_json)" ] && prefix=$(cluster_prefix)
  fi
  check_prefix "$prefix"
  need_root "down"
  cluster_down_by_names "$prefix"
}

# cluster_down_by_names P [quiet]
cluster_down_by_names() {
  local prefix=$1 quiet=${2:-} namespaces links
  namespaces=$(existing_namespaces "$prefix")
  links=$(existing_links "$prefix")
  stop_processes_in $namespaces
  local link ns left=""
  for link in $links; do [ "$link" = "$(bridge_name "$prefix")" ] || ip link del "$link" 2>/dev/null || true; done
  ip link del "$(bridge_name "$prefix")" 2>/dev/null || true
  for ns in $namespaces "$prefix-netem-probe"; do ip netns del "$ns" 2>/dev/null || true; done
  remove_state_of "$prefix"
  left=$( (existing_namespaces "$prefix"; existing_links "$prefix") | tr '\n' ' ')
  [ -z "$left" ] || die "down: could not remove ${left% } (a process stuck inside a namespace?)"
  [ -n "$quiet" ] && return 0
  if [ -z "$namespaces$links" ]; then
    echo "cluster.sh: down: nothing of cluster $prefix exists"
  else
    echo "cluster.sh: down: removed cluster $prefix ($(wc -w <<<"$namespaces") namespaces, $(wc -w <<<"$links") links)"
  fi
}

# The state directory's files, when they are this cluster's or no cluster's
# (a killed `up`); only the files `up` writes, and the directory when empty,
# since GRADSYNC_CLUSTER_DIR may name a directory that holds other things.
remove_state_of() {
  if [ -r "$(cluster_json)" ] && [ "$(cluster_prefix)" != "$1" ]; then return 0; fi
  rm -f "$state_dir"/{hostfile,rsh-agent,env.sh,cluster.json,cluster.json.tmp}
  rmdir "$state_dir" 2>/dev/null || true
}

# TERM, then KILL after 3 s, to every process inside the named namespaces;
# gives up (saying so) when some still live 5 s after the KILL.
stop_processes_in() {
  [ $# -gt 0 ] || return 0
  pids_in "$@" >/dev/null || return 0
  kill -TERM $(pids_in "$@") 2>/dev/null || true
  wait_until_empty 30 "$@" && return 0
  kill -KILL $(pids_in "$@") 2>/dev/null || true
  wait_until_empty 50 "$@" && return 0
  echo "cluster.sh: down: processes $(pids_in "$@" | tr '\n' ' ')did not end after KILL" >&2
}

# The processes inside the named namespaces, one a line; fails when there are none.
pids_in() {
  local ns found=1
  for ns in "$@"; do ip netns pids "$ns" 2>/dev/null | grep . && found=0; done
  return $found
}

# wait_until_empty TRIES NAMESPACE...: polls every 0.1 s, at most TRIES times,
# until no process is inside the namespaces.
wait_until_empty() {
  local tries=$1 try
  shift
  for ((try = 0; try < tries; try++)); do
    pids_in "$@" >/dev/null || return 0
    sleep 0.1
  done
  return 1
}
