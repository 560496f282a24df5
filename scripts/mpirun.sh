#!/usr/bin/env bash
# mpirun with the flags this project's local runs need: running as root is
# allowed (containers, CI), more ranks than cores are allowed (a 2-core machine
# runs 5-rank tests), and on a single host the byte transfer layers are shared
# memory and loopback TCP; sanitizer options reach the ranks. Extra mpirun options and the command follow.
#   scripts/mpirun.sh -np 4 build/bin/gradsync collectives ...
#
# Which MPI's launcher, and so which flags: the one the build was made with
# (cmake/GradsyncMpi.cmake), never the system's default mpirun:
# GRADSYNC_MPI (openmpi or mpich; auto as unset) and GRADSYNC_MPIEXEC (its
# launcher) when set (the tests and `gradsync sweep` set them from their
# build), else as the build in build/ ($GRADSYNC_BUILD_DIR) records them in
# its gradsync-mpi.env (or the file GRADSYNC_MPI_ENV names), else Open MPI's
# mpirun.
#   Open MPI: --oversubscribe --bind-to none, --allow-run-as-root as root, the
#     transfer layers (--mca), -x for the variables the ranks need;
#   MPICH's Hydra (mpiexec.mpich; Cray MPICH, Intel MPI and MVAPICH launch
#     alike): it runs as root and oversubscribes without a flag and passes
#     the whole environment on; -bind-to none; a hostfile in its own format
#     (host:slots). The emulated cluster (GRADSYNC_CLUSTER) is Open MPI's
#     alone (its rsh agent and TCP settings are Open MPI's MCA parameters).
#
# Closed by default. On one host: Open MPI's launcher (its out-of-band TCP
# listener) and the ranks' TCP transport listen on every interface, whatever
# *_if_include says, for the length of the run. So the run goes into a
# network namespace of its own that has only loopback (unshare --net; as a
# user, inside a user namespace): nothing it listens on can be reached from
# another machine, or from this one outside the run. GRADSYNC_OPEN_NETWORK=1
# runs it in the host's namespace instead; where no namespace can be made
# (or there is neither ip nor python3 to bring its loopback up), the script
# says so in one line and runs it there.
set -euo pipefail
# Open MPI's launcher crashes (a segmentation fault, then a hang) when it may
# open fewer than about 40 files, and each rank's sockets, shared memory and
# ZeroMQ need more: one line instead, before anything starts.
min_open_files=64
open_files=$(ulimit -n)
if [ "$open_files" != unlimited ] && [ "$open_files" -lt "$min_open_files" ]; then
  echo "mpirun.sh: error: the open-file limit is $open_files (ulimit -n); an MPI job needs at least $min_open_files: raise it (ulimit -n 1024)" >&2
  exit 2
fi
mpi=${GRADSYNC_MPI:-} launcher=${GRADSYNC_MPIEXEC:-}
if [ -z "$mpi" ] || [ "$mpi" = auto ]; then
  mpi=
  build=${GRADSYNC_BUILD_DIR:-build}
  [[ $build = /* ]] || build=$(dirname "$0")/../$build
  recorded=${GRADSYNC_MPI_ENV:-$build/gradsync-mpi.env}
  if [ -f "$recorded" ]; then
    mpi=$(sed -n 's/^GRADSYNC_MPI=//p' "$recorded")
    [ -n "$launcher" ] || launcher=$(sed -n 's/^GRADSYNC_MPIEXEC=//p' "$recorded")
  fi
fi
case ${mpi:=openmpi} in
  openmpi) [ -n "$launcher" ] || launcher=$(command -v mpirun.openmpi || echo mpirun) ;;
  mpich) [ -n "$launcher" ] || launcher=$(command -v mpiexec.mpich || echo mpiexec) ;;
  *) echo "mpirun.sh: GRADSYNC_MPI=$mpi: expected openmpi or mpich" >&2; exit 2 ;;
esac
if [ "$mpi" = mpich ]; then
  [ -z "${GRADSYNC_CLUSTER:-}" ] || {
    echo "mpirun.sh: the emulated cluster (GRADSYNC_CLUSTER) runs Open MPI only; this build uses MPICH (GRADSYNC_MPI=mpich)" >&2
    exit 2
  }
  args=(-bind-to none)
  [ -z "${GRADSYNC_HOSTFILE:-}" ] || args+=(-f "$GRADSYNC_HOSTFILE")
else
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
  # A sweep's runs write into its results folder under its lock, on whichever
  # host their writing rank is (harness/cli/results_lock.h).
  [ -z "${GRADSYNC_RESULTS_LOCK:-}" ] || args+=(-x GRADSYNC_RESULTS_LOCK)
  # A sanitizer's options, when set here, go to every rank, on other hosts too
  # (a sanitized build's own defaults are compiled in: cmake/sanitizer_defaults.cc).
  for var in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS; do
    [ -z "${!var:-}" ] || args+=(-x "$var")
  done
fi
# The launcher runs as this script's child, not in its place, so that a job
# ended from outside (SIGTERM: kill, a batch system; SIGINT: Ctrl-C) says so
# in one line: mpirun ends every rank with SIGTERM alike whether it was told
# to from outside or a rank failed or died, so no rank can tell which, and
# ranks under a launcher stay silent (harness/cli/ending_signals.h). The
# signal goes on to the launcher as SIGTERM (a background child may ignore
# SIGINT); once the job has ended, and only if it did not finish, the line.
# A shell ignores for good what was ignored when it started (a job started
# in the background by a script has SIGINT ignored): started so, the script
# starts again with SIGINT at its default, where env can (GNU coreutils 8.31).
sigint_ignored() { (($(printf '%d' "0x$(sed -n 's/^SigIgn:\t*//p' /proc/$$/status 2>/dev/null || echo 0)") & 2)); }
if [ -z "${GRADSYNC_MPIRUN_SIGINT:-}" ] && sigint_ignored && env --default-signal=INT true 2>/dev/null; then
  GRADSYNC_MPIRUN_SIGINT=1 exec env --default-signal=INT "$BASH" "$0" "$@"
fi
launch() {
  local child= ended_by= status=0
  trap 'ended_by=SIGTERM; [ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true' TERM
  trap 'ended_by=SIGINT; [ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true' INT
  "$@" &
  child=$!
  [ -z "$ended_by" ] || kill -TERM "$child" 2>/dev/null || true  # it came as it started
  while :; do
    status=0
    wait "$child" || status=$?
    kill -0 "$child" 2>/dev/null || break  # not a signal that interrupted the wait
  done
  if [ -n "$ended_by" ] && [ "$status" != 0 ]; then
    local subcommand=
    for arg in "$@"; do
      case $arg in collectives | train) subcommand="$arg: " && break ;; esac
    done
    echo "gradsync: error: ${subcommand}ended by $ended_by (from outside the job); nothing of the unfinished run was recorded" >&2
  fi
  exit "$status"
}
# Loopback starts down in a new namespace: "ip link set lo up" brings it up,
# or, where there is no ip (iproute2 is missing from some images), python3
# with the ioctl that ip uses (SIOCGIFFLAGS, then SIOCSIFFLAGS with IFF_UP).
lo_up_py='import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0) + bytes(22))[:18])[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1) + bytes(22))'
if [ -z "${GRADSYNC_HOSTFILE:-}" ] && [ "${GRADSYNC_OPEN_NETWORK:-0}" != 1 ]; then
  netns=(unshare --net)
  [ "$(id -u)" -eq 0 ] || { netns+=(--map-root-user); [ "$mpi" = mpich ] || args+=(--allow-run-as-root); }
  if ! "${netns[@]}" true 2>/dev/null; then
    echo "mpirun.sh: no private network namespace here (unshare --net refused): listeners stay on the host's interfaces" >&2
  elif command -v ip >/dev/null; then
    launch "${netns[@]}" -- sh -c 'ip link set lo up && exec "$@"' sh "$launcher" "${args[@]}" "$@"
  elif command -v python3 >/dev/null; then
    launch "${netns[@]}" -- sh -c 'python3 -c "$0" && exec "$@"' "$lo_up_py" "$launcher" "${args[@]}" "$@"
  else
    echo "mpirun.sh: no private network namespace here (neither ip nor python3 to bring its loopback up): listeners stay on the host's interfaces" >&2
  fi
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
    command -v ip >/dev/null ||
      { echo "mpirun.sh: the emulated cluster's namespaces need ip (iproute2), which is not on PATH" >&2; exit 2; }
    first=$(head -1 <<<"$hosts")
    launch ip netns exec "$first" unshare --uts sh -c 'echo "$0" >/proc/sys/kernel/hostname && exec "$@"' \
      "$first" "$launcher" "${args[@]}" "$@"
  fi
fi
launch "$launcher" "${args[@]}" "$@"
