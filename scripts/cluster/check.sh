# shellcheck shell=bash
# `cluster.sh check` (sourced by scripts/cluster.sh): measures every link
# under load and writes the result into cluster.json's "check".
#
# First the idle round-trip time from host 0 to host 1 (ping). Then an
# iperf3 server in every namespace and, all at once, one TCP stream from
# host i to host i+1 (mod H) for N seconds (the first second, TCP's slow
# start, left out): every link carries one stream out and one in, so both
# of its tbf queues are loaded while the 2 cores serve every host together.
# A link is faithful when it achieves at least 90% of the shaped rate.

check_usage="usage: cluster.sh check [--seconds N]"

cluster_check() {
  local seconds=10
  while [ $# -gt 0 ]; do
    case $1 in
      --seconds) need_value "$@"; seconds=$2; shift 2 ;;
      *) usage_error "check: unknown argument '$1' ($check_usage)" ;;
    esac
  done
  check_count --seconds "$seconds" 1 600
  need_root "check"
  need_cluster
  local hosts bits rate
  hosts=$(cluster_field '.hosts | length') bits=$(cluster_field .rate_bits_per_s) rate=$(cluster_field .rate)
  [ "$hosts" -ge 2 ] || die "check: needs at least 2 hosts (the cluster has $hosts)"
  local names=() addresses=()
  mapfile -t names < <(cluster_field '.hosts[].name')
  mapfile -t addresses < <(cluster_field '.hosts[].address')

  local rtt
  rtt=$(ip netns exec "${names[0]}" ping -n -q -c 10 -i 0.2 -W 1 "${addresses[1]}" |
    sed -n 's|^rtt [^=]*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
  [ -n "$rtt" ] || die "check: ${names[0]} got no ping answer from ${names[1]} (${addresses[1]})"

  work=$(mktemp -d)
  check_pids=()
  trap 'kill ${check_pids[*]} 2>/dev/null || true; rm -rf "$work"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local i to
  for ((i = 0; i < hosts; i++)); do
    ip netns exec "${names[i]}" iperf3 --server --one-off --bind "${addresses[i]}" --port 5201 >"$work/server$i" 2>&1 &
    check_pids+=($!)
  done
  for ((i = 0; i < hosts; i++)); do wait_listening "${names[i]}" 5201; done
  for ((i = 0; i < hosts; i++)); do
    to=$(((i + 1) % hosts))
    ip netns exec "${names[i]}" timeout $((seconds + 30)) iperf3 --client "${addresses[to]}" --bind "${addresses[i]}" \
      --port 5201 --time "$seconds" --omit 1 --json >"$work/client$i" 2>&1 &
    check_pids+=($!)
  done
  local failed=0
  for ((i = hosts; i < 2 * hosts; i++)); do wait "${check_pids[i]}" || failed=1; done
  [ "$failed" -eq 0 ] || die "check: an iperf3 client failed: $(cat "$work"/client* | jq -r 'select(.error) | .error' 2>/dev/null | head -1)"

  for ((i = 0; i < hosts; i++)); do
    jq --arg host "${names[i]}" --arg to "${names[(i + 1) % hosts]}" --argjson rate "$bits" \
      '{host: $host, to: $to, achieved_bits_per_s: .end.sum_received.bits_per_second,
        ratio: (.end.sum_received.bits_per_second / $rate)}' "$work/client$i"
  done | jq -s --arg when "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson seconds "$seconds" \
    --arg from "${names[0]}" --arg to "${names[1]}" --argjson rtt_ms "$rtt" '
    {when: $when, seconds: $seconds, links: ., worst_ratio: (map(.ratio) | min),
     faithful: ((map(.ratio) | min) >= 0.9),
     rtt: {from: $from, to: $to, avg_s: ($rtt_ms / 1000)}}' >"$work/check"
  jq --slurpfile check "$work/check" '.check = $check[0]' "$(cluster_json)" >"$(cluster_json).tmp"
  mv "$(cluster_json).tmp" "$(cluster_json)"

  print_check "$rate"
  [ "$(cluster_field .check.faithful)" = true ] || exit 3
}

# Waits (at most 5 s) until something listens on PORT inside namespace NS.
wait_listening() {
  local try
  for ((try = 0; try < 50; try++)); do
    ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
    sleep 0.1
  done
  die "check: no iperf3 server listening in $1 after 5 s"
}

# The last check of the state directory's cluster, as a table.
print_check() {
  jq -r --arg rate "$1" '.check |
    "check \(.when): every host sends to the next, all at once, for \(.seconds) s; links shaped to \($rate)",
    (.links[] | "  \(.host) -> \(.to): \(.achieved_bits_per_s / 1e6 | . * 10 | round / 10) Mbit/s, \(.ratio * 1000 | round / 10)% of the shaped rate\(if .ratio < 0.9 then "  BELOW 90%" else "" end)"),
    "  round trip \(.rtt.from) -> \(.rtt.to) (idle, ping): \(.rtt.avg_s * 1e6 | round) us",
    (if .faithful then "faithful: every link within 10% of its rate (worst \(.worst_ratio * 1000 | round / 10)%)"
     else "NOT faithful: worst link at \(.worst_ratio * 1000 | round / 10)% of its rate; lower --rate or --hosts" end)' \
    "$(cluster_json)"
}
