#!/usr/bin/env bash
# scripts/cluster.sh from up to down, on a cluster of its own (prefix gst,
# subnet 198.18.251.0/24, a temporary state directory), so a user's cluster
# is never touched:
# - bad arguments: one line, exit 2; a delay without netem: one line naming
#   sch_netem, nothing made;
# - up 2 hosts x 1 slot; a second up refuses; status; exec sees the host's
#   name; addresses, no route out, no forwarding, no foreign bridge port,
#   offloads off, --mtu 9000 and tbf on both ends of every link; the state directory
#   as the contract describes it;
# - a gradsync collectives run across both hosts, its mpirun killed with
#   SIGKILL mid-run, then down: no namespace, link, qdisc or process of the
#   cluster is left; down again does nothing;
# - an up killed with SIGKILL half-way (down cleans up after it) and one
#   stopped with SIGTERM (it cleans up after itself).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the emulated cluster needs root (network namespaces, veths, tc)"; exit 77; }
unshare --net true 2>/dev/null || { echo "SKIP: this machine cannot make network namespaces"; exit 77; }

source "$(dirname "$0")/lib/cluster_test.sh"
up=(up --hosts 2 --slots 1 --rate 200mbit --mtu 9000 --prefix gst --net 251)

# Bad arguments.
expect_error 2 "are required" "$cluster" up --hosts 2
expect_error 2 "--hosts: '0' is not a whole number from 1 to 253" "$cluster" up --hosts 0 --slots 1 --rate 1gbit
expect_error 2 "--slots: 'x'" "$cluster" up --hosts 2 --slots x --rate 1gbit
expect_error 2 "--rate: 'fast' is not a rate in tc's units" "$cluster" up --hosts 2 --slots 1 --rate fast
expect_error 2 "--delay: '5' needs a unit" "$cluster" up --hosts 2 --slots 1 --rate 1gbit --delay 5
expect_error 2 "--prefix: 'Bad-1'" "$cluster" up --hosts 2 --slots 1 --rate 1gbit --prefix Bad-1
expect_error 2 "--mtu: '70000' is not a whole number from 1280 to 65000" "$cluster" up --hosts 2 --slots 1 --rate 1gbit --mtu 70000
expect_error 2 "--net: '256'" "$cluster" up --hosts 2 --slots 1 --rate 1gbit --net 256
expect_error 2 "unknown argument '--bogus'" "$cluster" up --hosts 2 --slots 1 --rate 1gbit --bogus
expect_error 2 "--hosts needs a value" "$cluster" up --hosts
expect_error 2 "unknown command 'sideways'" "$cluster" sideways
expect_error 2 "--seconds: '0'" "$cluster" check --seconds 0
expect_error 2 "exec: usage" "$cluster" exec gst-h0 hostname
expect_error 1 "no cluster: " "$cluster" check
if unshare --net tc qdisc add dev lo root netem delay 1ms 2>/dev/null; then
  echo "this kernel has netem: --delay is applied, not refused (not asserted here)"
else
  expect_error 1 "no netem (sch_netem)" "$cluster" "${up[@]}" --delay 1ms
  assert_nothing_left "after a refused --delay"
fi
echo "bad arguments: one line each, exit 2"

# Up, and what it made.
"$cluster" "${up[@]}"
expect_error 1 "a cluster with prefix gst exists" "$cluster" "${up[@]}"
"$cluster" status >"$tmp/status"
grep -q "gst-h1  198.18.251.2  slots=1" "$tmp/status" || fail "status: $(cat "$tmp/status")"
[ "$("$cluster" exec gst-h1 -- hostname)" = gst-h1 ] || fail "exec gst-h1 -- hostname: not gst-h1"
[ "$("$cluster" exec 0 -- sh -c 'echo "$GRADSYNC_CLUSTER"')" = "$GRADSYNC_CLUSTER_DIR/cluster.json" ] ||
  fail "exec: GRADSYNC_CLUSTER is not the state directory's cluster.json"
for i in 0 1; do
  ns=gst-h$i
  [ "$(ip -n $ns -4 -o addr show dev gst0 | awk '{print $4}')" = "198.18.251.$((i + 1))/24" ] || fail "$ns: address"
  [ "$(ip -n $ns route show)" = "198.18.251.0/24 dev gst0 proto kernel scope link src 198.18.251.$((i + 1)) " ] ||
    fail "$ns: routes other than the cluster's subnet: $(ip -n $ns route show)"
  ! ip -n $ns route get 192.0.2.1 >/dev/null 2>&1 || fail "$ns has a route out"
  [ "$(ip netns exec $ns sysctl -n net.ipv4.ip_forward)" = 0 ] || fail "$ns forwards"
  for end in "ip netns exec $ns ethtool -k gst0" "ethtool -k gst-h$i-br"; do
    [ "$($end | grep -cE '^(tcp-segmentation|generic-segmentation|generic-receive)-offload: off')" = 3 ] ||
      fail "$end: TSO/GSO/GRO not all off"
  done
  ip netns exec $ns tc qdisc show dev gst0 | grep -q "tbf 1: root .*rate 200Mbit" || fail "$ns: no tbf on gst0"
  [ "$(ip -n $ns -o link show dev gst0 | grep -o 'mtu [0-9]*')" = "mtu 9000" ] || fail "$ns: gst0's MTU is not 9000"
  [ "$(ip -o link show dev gst-h$i-br | grep -o 'mtu [0-9]*')" = "mtu 9000" ] || fail "gst-h$i-br's MTU is not 9000"
  tc qdisc show dev gst-h$i-br | grep -q "tbf 1: root .*rate 200Mbit" || fail "no tbf on gst-h$i-br"
done
[ "$(ip -o link show master gstbr0 | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | sort | tr '\n' ' ')" = "gst-h0-br gst-h1-br " ] ||
  fail "gstbr0 has ports other than the hosts' links"
[ "$(sysctl -n net.ipv4.conf.gstbr0.forwarding)" = 0 ] || fail "gstbr0 forwards"
[ "$(ip -o link show dev gstbr0 | grep -o 'mtu [0-9]*')" = "mtu 9000" ] || fail "gstbr0's MTU is not 9000"
jq -e --arg dir "$GRADSYNC_CLUSTER_DIR" '.version == 1 and .subnet == "198.18.251.0/24" and .bridge == "gstbr0"
  and .interface == "gst0" and .slots == 1 and .rate == "200mbit" and .rate_bits_per_s == 200000000
  and .delay_s == 0 and .mtu == 9000 and .burst_bytes >= 18028 and .check == null
  and .hosts == [{name: "gst-h0", address: "198.18.251.1", slots: 1}, {name: "gst-h1", address: "198.18.251.2", slots: 1}]' \
  "$GRADSYNC_CLUSTER_DIR/cluster.json" >/dev/null || fail "cluster.json: $(cat "$GRADSYNC_CLUSTER_DIR/cluster.json")"
[ "$(cat "$GRADSYNC_CLUSTER_DIR/hostfile")" = $'198.18.251.1 slots=1\n198.18.251.2 slots=1' ] || fail "hostfile"
for var in OMPI_MCA_plm_rsh_agent OMPI_MCA_btl OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include \
  OMPI_MCA_mpi_yield_when_idle GRADSYNC_CLUSTER GRADSYNC_HOSTFILE; do
  grep -q "^export $var=" "$GRADSYNC_CLUSTER_DIR/env.sh" || fail "env.sh does not export $var"
done
echo "up: 2 hosts with addresses, no route out, offloads off, MTU 9000, tbf both ways, state as the contract says"

# A run across both hosts, its mpirun killed mid-run: once gst-h1's link
# has received 10 MB (the output is not line-buffered, the counters are).
"$cluster" mpirun -np 2 "$GRADSYNC" collectives -b 64K -e 64M -f 2 -n 20 -w 1 --strategy ring-mpi \
  >"$tmp/run.out" 2>"$tmp/run.err" &
run=$!
for ((try = 0; try < 600; try++)); do
  received=$(ip netns exec gst-h1 cat /proc/net/dev | sed 's/:/ /' | awk '$1 == "gst0" { print $2 }')
  [ "$received" -gt 10000000 ] && break
  kill -0 $run 2>/dev/null || fail "the run ended before it was killed: $(cat "$tmp/run.err")"
  sleep 0.1
done
[ "$try" -lt 600 ] || fail "gst-h1 received only $received bytes in 60 s: $(cat "$tmp/run.err")"
kill -KILL $run
wait $run 2>/dev/null || true
echo "killed mpirun mid-run; left inside the namespaces: $(ip netns pids gst-h0 | wc -l) + $(ip netns pids gst-h1 | wc -l) processes"
namespaces=$(namespace_inodes gst)
"$cluster" down --prefix gst
assert_nothing_left "after a killed run and down" "$namespaces"
[ ! -e "$GRADSYNC_CLUSTER_DIR" ] || fail "down left the state directory"
"$cluster" down --prefix gst | grep -q "nothing of cluster gst exists" || fail "a second down did not say there is nothing"

# An up killed half-way: with SIGKILL to its process group, as a timeout or
# a closed terminal does (so no `ip` it started finishes after the down that
# follows), and with SIGTERM to the script alone (its trap cleans up).
for signal in KILL TERM; do
  setsid "$cluster" up --hosts 12 --slots 1 --rate 200mbit --prefix gst --net 251 >"$tmp/up.out" 2>&1 &
  pid=$!
  for ((try = 0; try < 300; try++)); do
    [ -n "$(existing_namespaces gst)" ] && break
    sleep 0.05
  done
  if [ "$signal" = KILL ]; then kill -KILL -- -$pid; else kill -TERM $pid; fi
  status=0
  { wait $pid; } 2>/dev/null || status=$?
  [ "$status" -ne 0 ] || fail "up finished before SIG$signal reached it; the test needs a slower up"
  [ "$signal" = KILL ] && "$cluster" down --prefix gst >/dev/null
  assert_nothing_left "after an up killed by SIG$signal (exit $status)"
done
echo "killed up: nothing left after down (SIGKILL) or by itself (SIGTERM)"
