# shellcheck shell=bash
# Sourced by the cluster tests (tests/cli/cluster_*.sh): their own state
# directory, the cluster of prefix gst taken down before and after (also when
# a check fails), and the checks they share. The names of what a cluster is
# made of come from the script itself (scripts/cluster/common.sh).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cluster=$repo/scripts/cluster.sh
tmp=$(mktemp -d)
export GRADSYNC_CLUSTER_DIR=$tmp/state
source "$repo/scripts/cluster/common.sh"
trap '"$cluster" down --prefix gst >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$cluster" down --prefix gst >/dev/null # what an earlier, killed test left

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_error STATUS WORDS CMD...: CMD exits STATUS with one line on stderr holding WORDS.
expect_error() {
  local want=$1 words=$2 status=0
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" -eq "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$words" "$tmp/err" ||
    { sed 's/^/  | /' "$tmp/err" >&2; fail "$* -> exit $status; expected exit $want and one line naming: $words"; }
}

# The inode of each network namespace of cluster P: a process still inside
# one after down shows it in /proc/PID/ns/net, even once the name is gone.
namespace_inodes() {
  local ns
  for ns in $(existing_namespaces "$1"); do stat -L -c %i "/run/netns/$ns"; done
}

# assert_nothing_left WHEN [INODES]: no namespace, link, qdisc or process of
# cluster gst: none inside the namespaces that had INODES, none that was
# given this state directory's cluster.json.
assert_nothing_left() {
  local when=$1 inodes=${2:-} left pid
  left=$( (existing_namespaces gst; existing_links gst; tc qdisc show | grep -E ' dev gst' || true) | tr '\n' ' ')
  [ -z "$left" ] || fail "$when: left behind: $left"
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    local net
    net=$(readlink "/proc/$pid/ns/net" 2>/dev/null) || continue
    for inode in $inodes; do
      [ "$net" != "net:[$inode]" ] || fail "$when: process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) is still in a cluster namespace"
    done
    if grep -qaF "GRADSYNC_CLUSTER=$GRADSYNC_CLUSTER_DIR/cluster.json" "/proc/$pid/environ" 2>/dev/null; then
      fail "$when: process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) of the cluster still runs"
    fi
  done
}
