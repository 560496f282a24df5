#!/usr/bin/env bash
# mpirun with the flags this project's local runs need: running as root is
# allowed (containers, CI), more ranks than cores are allowed (a 2-core machine
# runs 5-rank tests), and on a single host the byte transfer layers are shared
# memory and loopback TCP; sanitizer options reach the ranks. Extra mpirun options and the command follow.
#   scripts/mpirun.sh -np 4 build/bin/gradsync collectives ...
#
# Closed by default. On one host: Open MPI's launcher (its out-of-band TCP
# listener) and the ranks' TCP transport listen on every interface, whatever
# *_if_include says, for the length of the run. So the run goes into a
# network namespace of its own that has only loopback (unshare --net; as a
# user, inside a user namespace): nothing it listens on can be reached from
# another machine, or from this one outside the run. GRADSYNC_OPEN_NETWORK=1
# runs it in the host's namespace instead; where no namespace can be made,
# the script says so in one line and runs it there.
set -euo pipefail
args=(--oversubscribe --bind-to none)
[ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
if [ -z "${GRADSYNC_HOSTFILE:-}" ]; then
  # The byte transfer layers, unless the environment names its own
  # (OMPI_MCA_btl=self,tcp: every message through loopback TCP).
  [ -n "${OMPI_MCA_btl:-}" ] || args+=(--mca btl self,vader,tcp)
  args+=(--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
else
  args+=(--hostfile "$GRADSYNC_HOSTFILE")
fi
# On the emulated cluster every rank must see its description (its env.sh
# sets GRADSYNC_CLUSTER).
[ -z "${GRADSYNC_CLUSTER:-}" ] || args+=(-x GRADSYNC_CLUSTER)
# A sanitizer's options, when set here, go to every rank, on other hosts too
# (a sanitized build's own defaults are compiled in: cmake/sanitizer_defaults.cc).
for var in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS; do
  [ -z "${!var:-}" ] || args+=(-x "$var")
done
if [ -z "${GRADSYNC_HOSTFILE:-}" ] && [ "${GRADSYNC_OPEN_NETWORK:-0}" != 1 ]; then
  netns=(unshare --net)
  [ "$(id -u)" -eq 0 ] || { netns+=(--map-root-user); args+=(--allow-run-as-root); }
  if "${netns[@]}" true 2>/dev/null; then
    # Loopback starts down in a new namespace.
    exec "${netns[@]}" -- sh -c 'ip link set lo up && exec "$@"' sh mpirun "${args[@]}" "$@"
  fi
  echo "mpirun.sh: no private network namespace here (unshare --net refused): listeners stay on the host's interfaces" >&2
fi
# Across the emulated cluster (GRADSYNC_CLUSTER names its cluster.json, as
# its env.sh sets): launched from the first host, inside its namespace
# (loopback and the cluster link alone) and under its hostname, as a rank
# there is, unless this already is one of the cluster's hosts. From the
# machine's own namespace the launcher would listen on every interface of
# the machine. Across real hosts Open MPI listens on every interface of
# each (docs/guide/cluster.md says what a firewall can do).
if [ -n "${GRADSYNC_HOSTFILE:-}" ] && [ -n "${GRADSYNC_CLUSTER:-}" ] && [ "${GRADSYNC_OPEN_NETWORK:-0}" != 1 ]; then
  hosts=$(jq -r '.hosts[].name' "$GRADSYNC_CLUSTER" 2>/dev/null) && [ -n "$hosts" ] ||
    { echo "mpirun.sh: GRADSYNC_CLUSTER=$GRADSYNC_CLUSTER is not an emulated cluster's description (scripts/cluster.sh status)" >&2; exit 2; }
  if ! grep -qxF "$(hostname)" <<<"$hosts"; then
    first=$(head -1 <<<"$hosts")
    exec ip netns exec "$first" unshare --uts sh -c 'echo "$0" >/proc/sys/kernel/hostname && exec "$@"' \
      "$first" mpirun "${args[@]}" "$@"
  fi
fi
exec mpirun "${args[@]}" "$@"
