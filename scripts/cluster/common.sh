# shellcheck shell=bash
# Shared by the parts of scripts/cluster.sh (sourced, not run): the names of
# everything a cluster makes, derived from its prefix alone so that `down`
# can find them without the state directory; argument checks; reading the
# state directory.

state_dir=${GRADSYNC_CLUSTER_DIR:-/run/gradsync-cluster}
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# One-line errors: a bad argument exits 2, anything else 1.
usage_error() { echo "cluster.sh: $*" >&2; exit 2; }
die() { echo "cluster.sh: $*" >&2; exit 1; }

need_root() {
  [ "$(id -u)" -eq 0 ] || die "$1 needs root (network namespaces, veths, tc)"
}

# Names, for prefix P and host i: namespace and hostname P-h<i>, the bridge
# P"br0", the veth's end on the bridge P-h<i>-br, its end inside the
# namespace P"0" (the same name in every namespace: the contract's
# "interface"). Interface names have at most 15 characters, hence the short
# prefix.
check_prefix() {
  [[ $1 =~ ^[a-z][a-z0-9]{0,5}$ ]] ||
    usage_error "--prefix: '$1' is not 1 to 6 lower-case letters or digits starting with a letter"
}
host_name() { echo "$1-h$2"; }
bridge_name() { echo "$1br0"; }
bridge_port_name() { echo "$1-h$2-br"; }
host_interface_name() { echo "${1}0"; }

# What exists of cluster P, found by name: its namespaces, and its links in
# the root namespace (the bridge and the veth ends on it).
existing_namespaces() { ip netns list | awk '{print $1}' | grep -E "^$1-h[0-9]+\$" || true; }
existing_links() {
  ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); print $2}' |
    grep -E "^($1-h[0-9]+-br|$1br0)\$" || true
}

# Checked arguments. A rate in tc's units (bit, kbit, mbit, gbit, tbit, the
# binary kibit... and the byte rates bps, kbps...) printed in bits per second.
rate_bits_per_s() {
  local rate=$1 number unit
  [[ $rate =~ ^([0-9]+(\.[0-9]+)?)([kmgt]i?)?(bit|bps)$ ]] ||
    usage_error "--rate: '$rate' is not a rate in tc's units (e.g. 100mbit, 1gbit, 2.5gbit, 50mbps)"
  number=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]:-}${BASH_REMATCH[4]}
  awk -v n="$number" -v u="$unit" 'BEGIN {
    scale = 1; prefix = substr(u, 1, 1); binary = (substr(u, 2, 1) == "i")
    if (prefix == "k") scale = binary ? 1024 : 1e3
    if (prefix == "m") scale = binary ? 1024^2 : 1e6
    if (prefix == "g") scale = binary ? 1024^3 : 1e9
    if (prefix == "t") scale = binary ? 1024^4 : 1e12
    if (u ~ /bps$/) scale *= 8
    printf "%.0f\n", n * scale }'
}
# A delay in tc's time units (s, ms, us, and sec, msec, usec), printed in seconds.
delay_seconds() {
  local delay=$1
  [[ $delay =~ ^([0-9]+(\.[0-9]+)?)(s|sec|ms|msec|us|usec)?$ ]] ||
    usage_error "--delay: '$delay' is not a delay in tc's units (e.g. 0, 50us, 1ms)"
  [ -n "${BASH_REMATCH[3]:-}" ] || [[ ${BASH_REMATCH[1]} =~ ^0+(\.0+)?$ ]] ||
    usage_error "--delay: '$delay' needs a unit (s, ms, us)"
  awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]:-}" 'BEGIN {
    scale = 1; if (u ~ /^ms/) scale = 1e-3; if (u ~ /^us/) scale = 1e-6
    printf "%.9g\n", n * scale }'
}
check_count() { # flag value low high
  [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
    usage_error "$1: '$2' is not a whole number from $3 to $4"
}
need_value() { [ $# -ge 2 ] || usage_error "$1 needs a value"; }

# The state directory's cluster: cluster.json must exist and be readable.
cluster_json() { echo "$state_dir/cluster.json"; }
need_cluster() {
  [ -r "$(cluster_json)" ] ||
    die "no cluster: $(cluster_json) does not exist (scripts/cluster.sh up first, or set GRADSYNC_CLUSTER_DIR)"
}
cluster_field() { jq -r "$1" "$(cluster_json)"; }
# The prefix of the state directory's cluster (its bridge is P"br0").
cluster_prefix() { cluster_field .bridge | sed 's/br0$//'; }

# A host named by its name, its address or its index: prints its name.
resolve_host() {
  local name
  name=$(jq -r --arg h "$1" '.hosts | to_entries[]
    | select(.value.name == $h or .value.address == $h or (.key | tostring) == $h)
    | .value.name' "$(cluster_json)" | head -1)
  [ -n "$name" ] || usage_error "no host '$1' in the cluster (hosts: $(cluster_field '[.hosts[].name] | join(", ")'))"
  echo "$name"
}
