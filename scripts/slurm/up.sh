#!/usr/bin/env bash
# A throw-away Slurm (Debian's slurmctld, slurmd, munge) whose config, state,
# sockets and logs all live under one folder D, for trying sbatch/srun runs
# of gradsync without a real cluster.
#
#   scripts/slurm/up.sh --dir D [--cluster-dir C] [--gpus N]
#   source D/env.sh; sbatch ... / srun ...
#   scripts/slurm/down.sh --dir D
#
# With --cluster-dir C (the state folder of a running emulated cluster,
# scripts/cluster.sh up): slurmctld runs in the root namespace, listening
# only on the bridge's address (198.18.N.254), and one slurmd per emulated
# host runs inside that host's network namespace and a fresh UTS namespace
# with the host's hostname, as the cluster's rsh agent runs ranks; node
# names are the hosts' names, NodeAddr their addresses, CPUs the cluster's
# slots (SlurmdParameters=config_overrides: the hosts share the real
# cores). Slurm reaches every daemon by NodeAddr and SlurmctldHost's
# address, and a step's I/O and PMIx traffic by the addresses its messages
# came from, so the hosts' names need not resolve. A job's tasks run in
# their host's namespace and talk across the shaped links. Without
# --cluster-dir: one node, this machine, on loopback.
#
# With --gpus N: every node offers N GPUs as a gres (gpu:N), backed by
# placeholder files D/dev/NODE/nvidia0..N-1 (gres.conf, AutoDetect=off), so
# that jobs may ask for --gpus-per-node or --gpus-per-task and their tasks
# get the environment Slurm gives on GPU nodes (CUDA_VISIBLE_DEVICES,
# SLURM_STEP_GPUS, SLURM_JOB_GPUS). The files are not GPUs: CUDA sees none.
#
# Waits (at most 60 s) until every node is idle, prints one line, and writes
# D/env.sh: SLURM_CONF and, on the emulated cluster, the Open MPI settings
# its ranks need (its env.sh without the mpirun-only ones) and
# GRADSYNC_CLUSTER. On a failure it stops everything it started, removes D
# but D/log, and prints one line naming what failed and the log to read
# (down.sh --dir D removes the rest).
set -euo pipefail
slurm_script=up.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/slurm/common.sh
source "$here/common.sh"

usage="usage: scripts/slurm/up.sh --dir D [--cluster-dir C] [--gpus N]"
dir="" cluster_dir="" gpus=0
while [ $# -gt 0 ]; do
  case $1 in
    --dir) [ $# -ge 2 ] || slurm_usage_error "--dir needs a value"; dir=$2; shift 2 ;;
    --cluster-dir) [ $# -ge 2 ] || slurm_usage_error "--cluster-dir needs a value"; cluster_dir=$2; shift 2 ;;
    --gpus) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]?$ ]] || slurm_usage_error "--gpus needs a count from 1 to 99"; gpus=$2; shift 2 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) slurm_usage_error "unknown argument '$1' ($usage)" ;;
  esac
done
[ -n "$dir" ] || slurm_usage_error "--dir is required ($usage)"
dir=$(slurm_abs_dir "$dir")
[ "$(id -u)" -eq 0 ] || slurm_fail "needs root (the daemons run as root; on the cluster, in its namespaces)"
for c in munged slurmctld slurmd sinfo srun jq ss; do
  command -v "$c" >/dev/null || slurm_fail "$c is not on PATH (scripts/install-deps.sh installs slurmctld slurmd slurm-client munge)"
done
[ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || slurm_fail "$dir exists and is not empty (a running Slurm? scripts/slurm/down.sh --dir $dir)"

# The nodes: name, address, CPUs; the controller's name and address; the
# network namespaces whose ports must be free.
names=() addrs=() cpus=() namespaces=("")
if [ -n "$cluster_dir" ]; then
  json=$(realpath -m -- "$cluster_dir")/cluster.json
  [ -r "$json" ] || slurm_fail "--cluster-dir $cluster_dir: no cluster.json (scripts/cluster.sh up first)"
  bridge=$(jq -r .bridge "$json")
  ctl_addr=$(ip -4 -o addr show dev "$bridge" 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}')
  [ -n "$ctl_addr" ] || slurm_fail "the cluster's bridge $bridge has no IPv4 address (is the cluster up?)"
  while read -r name addr slots; do
    ip netns pids "$name" >/dev/null 2>&1 || slurm_fail "the cluster's host $name has no network namespace (is the cluster up?)"
    names+=("$name") addrs+=("$addr") cpus+=("$slots") namespaces+=("$name")
  done < <(jq -r '.hosts[] | "\(.name) \(.address) \(.slots)"' "$json")
  mode="${#names[@]} nodes ${names[0]}..${names[-1]} on the emulated cluster $(jq -r .subnet "$json")"
else
  ctl_addr=127.0.0.1
  names=("$(hostname -s)") addrs=(127.0.0.1) cpus=("$(nproc)")
  mode="1 node ${names[0]} on loopback"
fi
ctl_name=$(hostname -s)

# Two ports, for slurmctld and slurmd, free in the root namespace and on
# every host (a second Slurm next to this one gets the next pair).
port_free() { # PORT NAMESPACE...
  local ns
  for ns in "${@:2}"; do
    if [ -z "$ns" ]; then [ -z "$(ss -Htan "sport = :$1")" ] || return 1
    else [ -z "$(ip netns exec "$ns" ss -Htan "sport = :$1")" ] || return 1; fi
  done
}
ctl_port=""
for ((p = 16817; p < 16917; p += 2)); do
  port_free "$p" "${namespaces[@]}" && port_free $((p + 1)) "${namespaces[@]}" && { ctl_port=$p; break; }
done
[ -n "$ctl_port" ] || slurm_fail "no free pair of ports in 16817-16916 for slurmctld and slurmd"
slurmd_port=$((ctl_port + 1))

# From here on, a failure or a signal stops and removes what was started.
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ "$status" -ne 0 ]; then
    slurm_remove "$dir" keep-logs || true
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'echo "slurm/up.sh: interrupted; removing what it started" >&2; exit 130' INT
trap 'echo "slurm/up.sh: terminated; removing what it started" >&2; exit 143' TERM
failure() { slurm_fail "$1${2:+ (read $2)}"; }

mkdir -p "$dir"
touch "$dir/.gradsync-slurm"
mkdir -p "$dir"/{munge,state,spool,run,log,tmp}
chmod 700 "$dir/munge"

# munge: a key of its own, its socket under D.
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
  2>>"$dir/log/munged.log" || failure "munged did not start" "$dir/log/munged.log"
for ((try = 0; try < 50; try++)); do [ -S "$dir/munge/munge.socket" ] && [ -s "$dir/munge/munged.pid" ] && break; sleep 0.1; done
[ -S "$dir/munge/munge.socket" ] || failure "munged made no socket within 5 s" "$dir/log/munged.log"

conf=$dir/slurm.conf
{
  cat <<EOF
# A throw-away Slurm written by scripts/slurm/up.sh; everything under $dir.
ClusterName=gradsync
SlurmctldHost=$ctl_name($ctl_addr)
SlurmctldPort=$ctl_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
# slurmctld listens on its own address only (the bridge's), not on every
# address of the root namespace.
CommunicationParameters=NoCtldInAddrAny
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp/%n
# No cgroups, no accounting: processes are tracked by parentage.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# The nodes' CPUs are the configured slots, not what slurmd finds (the
# emulated hosts share this machine's cores).
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=5
MessageTimeout=10
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=60
EOF
  gres=""
  if [ "$gpus" -gt 0 ]; then echo "GresTypes=gpu"; gres=" Gres=gpu:$gpus"; fi
  for i in "${!names[@]}"; do
    echo "NodeName=${names[$i]} NodeAddr=${addrs[$i]} NodeHostname=${names[$i]} CPUs=${cpus[$i]}$gres State=UNKNOWN"
  done
  echo "PartitionName=gradsync Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
} >"$conf"
export SLURM_CONF=$conf
# gres.conf, beside slurm.conf: each node's GPUs are placeholder files.
if [ "$gpus" -gt 0 ]; then
  {
    echo "AutoDetect=off"
    for name in "${names[@]}"; do
      mkdir -p "$dir/dev/$name"
      for ((g = 0; g < gpus; g++)); do mknod "$dir/dev/$name/nvidia$g" c 1 3; done
      echo "NodeName=$name Name=gpu File=$dir/dev/$name/nvidia[0-$((gpus - 1))]"
    done
  } >"$dir/gres.conf"
fi

# slurmctld binds to the address its hostname resolves to
# (NoCtldInAddrAny), not to SlurmctldHost's: it runs in a mount namespace of
# its own whose /etc/hosts (a copy, the real one is never touched) names
# this machine by the controller's address.
{ grep -vwF -- "$ctl_name" /etc/hosts || true; echo "$ctl_addr $ctl_name"; } >"$dir/run/ctld-hosts"
# shellcheck disable=SC2016 # $0 and $@ are the inner bash's
unshare --mount --propagation private bash -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$dir/run/ctld-hosts" \
  slurmctld -f "$conf" -i 2>>"$dir/log/slurmctld.log" || failure "slurmctld did not start" "$dir/log/slurmctld.log"
for ((try = 0; try < 100; try++)); do
  [ -s "$dir/run/slurmctld.pid" ] && timeout 5 scontrol ping 2>/dev/null | grep -q "is UP" && break
  sleep 0.1
done
timeout 5 scontrol ping 2>/dev/null | grep -q "is UP" || failure "slurmctld does not answer on $ctl_addr:$ctl_port within 10 s" "$dir/log/slurmctld.log"

# One slurmd per node; on the cluster inside the host's network namespace
# and a fresh UTS namespace with its hostname (what its tasks then see).
# nsenter, not `ip netns exec`: that mounts a sysfs of the namespace over
# /sys, hiding /sys/fs/cgroup, and slurmd 22.05 then fails ("No filesystem
# mounted on /sys/fs/cgroup", "Unable to initialize cgroup plugin") even
# with proctrack/linuxproc and task/none.
for i in "${!names[@]}"; do
  name=${names[$i]} log=$dir/log/slurmd-${names[$i]}.log
  mkdir -p "$dir/spool/$name" "$dir/tmp/$name"
  if [ -n "$cluster_dir" ]; then
    # shellcheck disable=SC2016 # $0 and $@ are the inner bash's
    nsenter --net="/run/netns/$name" unshare --uts bash -c 'echo "$0" >/proc/sys/kernel/hostname && exec "$@"' \
      "$name" slurmd -f "$conf" -N "$name" 2>>"$log" || failure "slurmd of $name did not start" "$log"
  else
    slurmd -f "$conf" -N "$name" 2>>"$log" || failure "slurmd of $name did not start" "$log"
  fi
done

# Every node idle.
for ((try = 0; try < 600; try++)); do
  states=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u)
  idle=$(awk '$2 == "idle"' <<<"$states" | wc -l)
  [ "$idle" -eq "${#names[@]}" ] && break
  sleep 0.1
done
if [ "$idle" -ne "${#names[@]}" ]; then
  bad=$(awk '$2 != "idle" {printf "%s%s=%s", sep, $1, $2; sep=", "}' <<<"$states")
  first_bad=$(awk '$2 != "idle" {print $1; exit}' <<<"$states")
  failure "after 60 s, not every node is idle: ${bad:-no nodes}" "$dir/log/slurmd-${first_bad:-${names[0]}}.log and $dir/log/slurmctld.log"
fi

# env.sh: SLURM_CONF, and on the cluster what ranks need of its env.sh
# (not the rsh agent, tree spawn or hostfile, which only mpirun uses).
{
  echo "# Source before sbatch/srun/squeue to use the throw-away Slurm in $dir (written by scripts/slurm/up.sh)."
  echo "export SLURM_CONF=$conf"
  if [ -n "$cluster_dir" ]; then
    echo "# Open MPI on the emulated cluster (from $(dirname "$json")/env.sh): TCP on its subnet only, ranks yield when idle."
    grep -E '^export (OMPI_|GRADSYNC_CLUSTER=)' "$(dirname "$json")/env.sh" |
      grep -vE '^export OMPI_MCA_plm_rsh_(agent|no_tree_spawn)='
  fi
} >"$dir/env.sh"

trap - EXIT INT TERM
echo "slurm/up.sh: up: $mode, slurmctld on $ctl_addr:$ctl_port, partition gradsync ($(IFS=+; echo "${cpus[*]}") CPUs); source $dir/env.sh; logs in $dir/log"
