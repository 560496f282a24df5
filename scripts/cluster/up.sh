# shellcheck shell=bash
# `cluster.sh up` (sourced by scripts/cluster.sh): makes H emulated hosts on
# one bridge and writes the state directory.
#
# Each host is a network namespace P-h<i> with one veth into the bridge
# P"br0" (attached to no real interface, no forwarding, no route out), the
# address 198.18.N.<i+1>/24, its hostname given by the rsh agent in a fresh
# UTS namespace. The link is shaped in both directions with tbf: egress of
# the namespace end is what the host sends, egress of the bridge end what it
# receives. Segmentation and receive offloads are off on both ends, so tc
# shapes wire-sized packets, not 64 KB aggregates. The links' MTU is 1500
# unless --mtu says otherwise (every port, the bridge and the hosts' ends
# alike): with jumbo frames (9000) the kernel handles a sixth of the
# packets, which lets 2 cores carry all of a cluster's links at once
# (docs/guide/emulated-cluster.md, "Traps"). tbf's burst is at least
# rate/HZ (the token bucket must hold one timer tick of tokens) and never
# below two full frames (2 x (MTU + 14)); messages that fit in the burst pass faster than the
# rate. The bridge gets 198.18.N.254 so that the root namespace (slurmctld,
# plain mpirun) reaches the hosts. Whatever a failed `up` made is removed again.

up_usage="usage: cluster.sh up --hosts H --slots S --rate RATE [--delay DELAY] [--mtu BYTES] [--prefix P] [--net N]"

cluster_up() {
  local hosts="" slots="" rate="" delay=0ms prefix=gs net="" mtu=1500
  while [ $# -gt 0 ]; do
    case $1 in
      --hosts) need_value "$@"; hosts=$2; shift 2 ;;
      --slots) need_value "$@"; slots=$2; shift 2 ;;
      --rate) need_value "$@"; rate=$2; shift 2 ;;
      --delay) need_value "$@"; delay=$2; shift 2 ;;
      --mtu) need_value "$@"; mtu=$2; shift 2 ;;
      --prefix) need_value "$@"; prefix=$2; shift 2 ;;
      --net) need_value "$@"; net=$2; shift 2 ;;
      *) usage_error "up: unknown argument '$1' ($up_usage)" ;;
    esac
  done
  [ -n "$hosts" ] && [ -n "$slots" ] && [ -n "$rate" ] || usage_error "up: --hosts, --slots and --rate are required ($up_usage)"
  check_count --hosts "$hosts" 1 253
  check_count --slots "$slots" 1 64
  check_count --mtu "$mtu" 1280 65000
  [ -z "$net" ] || check_count --net "$net" 0 255
  check_prefix "$prefix"
  local bits delay_s
  bits=$(rate_bits_per_s "$rate")
  delay_s=$(delay_seconds "$delay")
  [ "$bits" -ge 8000 ] || usage_error "--rate: '$rate' is below 8kbit"
  need_root "up"
  [ -n "$net" ] || net=$(free_net)

  local subnet="198.18.$net.0/24" bridge
  bridge=$(bridge_name "$prefix")
  refuse_if_taken "$prefix" "$subnet"
  local netem=0
  if [ "$delay_s" != 0 ]; then netem_available "$prefix" || die "--delay $delay: this kernel has no netem (sch_netem); only --delay 0 is possible here"; netem=1; fi

  # From here on, a failure or a signal removes what was made (the prefix is
  # written into the trap: a failing command ends the script outside this
  # function, where its locals are gone).
  trap 'status=$?; trap - EXIT INT TERM; if [ "$status" -ne 0 ]; then echo "cluster.sh: up failed; removing what it made" >&2; cluster_down_by_names '"$prefix"' quiet; fi; exit "$status"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  local hz burst limit
  hz=$(kernel_hz)
  burst=$(awk -v b="$bits" -v hz="$hz" -v mtu="$mtu" 'BEGIN { x = b / 8 / hz; x = (x == int(x)) ? x : int(x) + 1; f = 2 * (mtu + 14); print (x < f ? f : x) }')
  # The queue holds the burst plus 10 ms at the rate: enough for TCP to keep
  # a link busy, short enough that a host's incast drops as a switch port would.
  limit=$(awk -v b="$bits" -v burst="$burst" 'BEGIN { printf "%.0f\n", burst + b / 8 * 0.010 }')

  ip link add "$bridge" mtu "$mtu" type bridge
  no_ipv6 "$bridge"
  sysctl -qw "net.ipv4.conf.$bridge.forwarding=0"
  ip addr add "198.18.$net.254/24" dev "$bridge"
  ip link set "$bridge" up

  local i ns port iface
  iface=$(host_interface_name "$prefix")
  for ((i = 0; i < hosts; i++)); do
    ns=$(host_name "$prefix" "$i") port=$(bridge_port_name "$prefix" "$i")
    ip netns add "$ns"
    ip link add "$port" mtu "$mtu" type veth peer name "$iface" netns "$ns" mtu "$mtu"
    no_ipv6 "$port"
    ip link set "$port" master "$bridge"
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv4.ip_forward=0
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "198.18.$net.$((i + 1))/24" dev "$iface"
    ethtool -K "$port" tso off gso off gro off
    ip netns exec "$ns" ethtool -K "$iface" tso off gso off gro off
    shape "$port" "" "$rate" "$burst" "$limit" 0 "$delay"
    shape "$iface" "$ns" "$rate" "$burst" "$limit" "$netem" "$delay"
    ip link set "$port" up
    ip -n "$ns" link set "$iface" up
  done

  write_state "$prefix" "$hosts" "$slots" "$rate" "$bits" "$delay" "$delay_s" "$net" "$hz" "$burst" "$limit" "$mtu"
  trap - EXIT INT TERM
  echo "cluster.sh: up: $hosts hosts x $slots slots ($prefix-h0..$prefix-h$((hosts - 1)), 198.18.$net.1-$hosts), links $rate each way, MTU $mtu (tbf burst $burst B for HZ=$hz, queue $limit B), delay $delay; state in $state_dir"
}

# A cluster of this prefix, a live cluster in the state directory or the
# subnet on another interface: `up` refuses rather than tearing down what
# may be someone's running job.
refuse_if_taken() {
  local prefix=$1 subnet=$2 found
  found=$( (existing_namespaces "$prefix"; existing_links "$prefix") | tr '\n' ' ')
  [ -z "$found" ] || die "a cluster with prefix $prefix exists (${found% }); run 'scripts/cluster.sh down --prefix $prefix' first"
  if [ -r "$(cluster_json)" ]; then
    local other
    other=$(cluster_prefix)
    [ -z "$(existing_namespaces "$other")" ] ||
      die "$state_dir holds the running cluster '$other'; take it down or set GRADSYNC_CLUSTER_DIR to another directory"
  fi
  found=$(ip -4 -o addr show to "$subnet" | awk '{print $2}' | tr '\n' ' ')
  [ -z "$found" ] || die "the subnet $subnet is already on ${found% }; choose another with --net"
}

# The lowest N whose subnet 198.18.N.0/24 no interface of the root
# namespace holds: a second cluster (a sweep's own, a test's) next to a
# user's gets a subnet of its own without being told.
free_net() {
  local n
  for ((n = 0; n < 256; n++)); do
    [ -n "$(ip -4 -o addr show to "198.18.$n.0/24")" ] || { echo "$n"; return 0; }
  done
  die "every subnet 198.18.0-255.0/24 is taken; take a cluster down first"
}

# Whether tc knows netem, tried in a throw-away namespace before anything is made.
netem_available() {
  local probe="$1-netem-probe" ok=1
  ip netns add "$probe"
  ip netns exec "$probe" tc qdisc add dev lo root netem delay 1ms 2>/dev/null || ok=0
  ip netns del "$probe"
  [ "$ok" -eq 1 ]
}

# CONFIG_HZ of the running kernel; 250 (Debian's) when its config cannot be read.
kernel_hz() {
  local hz=""
  [ -r /proc/config.gz ] && hz=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
  [ -z "$hz" ] && [ -r "/boot/config-$(uname -r)" ] && hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)")
  echo "${hz:-250}"
}

# No IPv6 on the cluster's links: neighbour discovery would put packets on
# the wire that no strategy sent, and the hosts talk IPv4 only.
no_ipv6() { sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1"; }

# shape DEV NETNS RATE BURST LIMIT NETEM DELAY: tbf at the root of DEV's
# egress, behind netem when NETEM is 1 (netem's queue, in packets, holds
# twice the bandwidth-delay product).
shape() {
  local dev=$1 ns=$2 rate=$3 burst=$4 limit=$5 netem=$6 delay=$7 tc=(tc)
  [ -n "$ns" ] && tc=(ip netns exec "$ns" tc)
  if [ "$netem" -eq 1 ]; then
    local packets
    packets=$(awk -v b="$(rate_bits_per_s "$rate")" -v d="$(delay_seconds "$delay")" \
      'BEGIN { p = 2 * b / 8 * d / 1500; printf "%.0f\n", p < 1000 ? 1000 : p }')
    "${tc[@]}" qdisc add dev "$dev" root handle 1: netem delay "$delay" limit "$packets"
    "${tc[@]}" qdisc add dev "$dev" parent 1:1 handle 10: tbf rate "$rate" burst "$burst" limit "$limit"
  else
    "${tc[@]}" qdisc add dev "$dev" root handle 1: tbf rate "$rate" burst "$burst" limit "$limit"
  fi
}

# The state directory: hostfile, rsh agent, env.sh, and cluster.json last
# (its presence means the cluster is complete).
write_state() {
  local prefix=$1 hosts=$2 slots=$3 rate=$4 bits=$5 delay=$6 delay_s=$7 net=$8 hz=$9 burst=${10} limit=${11} mtu=${12}
  local i json="$state_dir/cluster.json" cases=""
  mkdir -p "$state_dir"
  rm -f "$json"
  : >"$state_dir/hostfile"
  for ((i = 0; i < hosts; i++)); do
    echo "198.18.$net.$((i + 1)) slots=$slots" >>"$state_dir/hostfile"
    cases+="  198.18.$net.$((i + 1))|$(host_name "$prefix" "$i")) host=$(host_name "$prefix" "$i") ;;"$'\n'
  done
  cat >"$state_dir/rsh-agent" <<EOF
#!/bin/bash
# Open MPI's rsh agent for the emulated cluster $prefix (written by
# scripts/cluster.sh up). Called like ssh, 'rsh-agent HOST COMMAND...': runs
# COMMAND, joined into one line and read by bash as ssh's remote shell would,
# inside HOST's network namespace and a fresh UTS namespace whose hostname is
# HOST's name.
case "\$1" in
$cases  *) echo "rsh-agent: no host '\$1' in the emulated cluster $prefix" >&2; exit 255 ;;
esac
shift
export GRADSYNC_CLUSTER=$json
exec ip netns exec "\$host" unshare --uts bash -c 'echo "\$0" >/proc/sys/kernel/hostname && exec bash -c "\$1"' "\$host" "\$*"
EOF
  chmod +x "$state_dir/rsh-agent"
  cat >"$state_dir/env.sh" <<EOF
# Source before mpirun to run on the emulated cluster $prefix (written by
# scripts/cluster.sh up). Open MPI starts its daemons through the rsh agent,
# moves bytes over TCP only on the cluster's subnet and over shared memory
# only within a host; ranks outnumber cores, so they yield when idle instead
# of busy-polling, and are bound to no core (every emulated host sees the
# same cores). Messages up to 1 MiB go eagerly: a rendezvous handshake
# (Open MPI's default above 64 KiB) waits behind the bulk data queued in
# front of the shaped link in the other direction, which halved ring-mpi's
# rate here (docs/results/emulated-cluster.md, "Rendezvous behind a queue").
export OMPI_MCA_plm_rsh_agent=$state_dir/rsh-agent
export OMPI_MCA_plm_rsh_no_tree_spawn=1
export OMPI_MCA_btl=self,vader,tcp
export OMPI_MCA_btl_tcp_if_include=198.18.$net.0/24
export OMPI_MCA_oob_tcp_if_include=198.18.$net.0/24
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_btl_tcp_eager_limit=1048576
export OMPI_MCA_btl_tcp_rndv_eager_limit=1048576
export OMPI_MCA_btl_tcp_max_send_size=1048576
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GRADSYNC_CLUSTER=$json
export GRADSYNC_HOSTFILE=$state_dir/hostfile
EOF
  jq -n --arg subnet "198.18.$net.0/24" --arg bridge "$(bridge_name "$prefix")" \
    --arg interface "$(host_interface_name "$prefix")" --argjson slots "$slots" \
    --arg rate "$rate" --argjson bits "$bits" --arg delay "$delay" --argjson delay_s "$delay_s" \
    --argjson hz "$hz" --argjson burst "$burst" --argjson limit "$limit" --argjson mtu "$mtu" \
    --argjson hosts "$hosts" --arg prefix "$prefix" --argjson net "$net" '
    {version: 1, subnet: $subnet, bridge: $bridge, interface: $interface, slots: $slots,
     rate: $rate, rate_bits_per_s: $bits, delay: $delay, delay_s: $delay_s,
     kernel_hz: $hz, burst_bytes: $burst, queue_bytes: $limit, mtu: $mtu,
     hosts: [range($hosts) | {name: "\($prefix)-h\(.)", address: "198.18.\($net).\(. + 1)", slots: $slots}],
     check: null}' >"$json.tmp"
  mv "$json.tmp" "$json"
}
