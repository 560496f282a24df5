# shellcheck shell=bash disable=SC2034  # the variables here are the runs' own
# What the runs of scripts/cluster-runs.sh share: the binary ($bin), where the
# results go ($out), the short training schedule ($frame, and $steps with
# ps-zmq's flags), the CPU strategies,
# an emulated cluster's life (cluster_up, cluster_down, jumbo_cluster_up) and
# the calibration collectives. Sourced by scripts/cluster-runs.sh.

bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
export GRADSYNC_CLUSTER_SCRIPT=$PWD/scripts/cluster.sh  # for sweep --cluster, whatever the build dir
[ -x "$bin" ] || scripts/build.sh >/dev/null
out=${GRADSYNC_RUNS_OUT:-results/cluster-$(date -u +%Y%m%dT%H%M%SZ)}
# The emulated bridge is private to this machine and MPI's traffic is not
# encrypted either: ps-zmq is measured without CURVE (--ps-curve auto would
# turn it on beyond loopback, at several times the cost;
# docs/guide/troubleshooting.md), and its records say so (ps_curve).
# A strategy's options go to its own runs only (train refuses one that the
# strategy does not read): ps=(...) goes with ps-zmq.
ps=(--ps-curve off)
frame="--num-warmup-batches 1 --num-batches-per-iter 1 --num-iters 3"
steps="$frame ${ps[*]}"  # sweeps whose strategies include ps-zmq
# Every CPU strategy the table has (the calibration and the validation of
# `extrapolation` cover them all): `gradsync strategies`' usable host
# synchronizers and its reference. GRADSYNC_RUNS_STRATEGIES narrows the list
# (e.g. ps-zmq alone: each strategy is calibrated and checked on its own
# records, so one strategy's rows come out as in a run of them all).
cpu_strategies=${GRADSYNC_RUNS_STRATEGIES:-ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,hierarchical-mpi,mpi-allreduce,ps-zmq}

# cluster_up STATE PREFIX UP_ARGS...: an emulated cluster (scripts/cluster.sh
# up --prefix PREFIX UP_ARGS...) whose state lies in STATE (exported as
# GRADSYNC_CLUSTER_DIR, which the caller unsets when done), taken down on exit
# should a step fail; cluster_down takes it down.
cluster_up() {
  export GRADSYNC_CLUSTER_DIR=$1
  mkdir -p "$GRADSYNC_CLUSTER_DIR"
  cluster_prefix=$2
  shift 2
  scripts/cluster.sh up --prefix "$cluster_prefix" "$@" >/dev/null
  trap 'scripts/cluster.sh down --prefix "$cluster_prefix" >/dev/null' EXIT
}
cluster_down() {
  scripts/cluster.sh down --prefix "$cluster_prefix" >/dev/null
  trap - EXIT
}

# jumbo_cluster_up DIR PREFIX HOSTS: HOSTS hosts x 1 slot at 500mbit, MTU
# 9000, its state under DIR/state; DIR/check.txt says how its links measure.
# jumbo_cluster_down takes it down.
jumbo_cluster_up() {
  mkdir -p "$1"
  cluster_up "$1/state" "$2" --hosts "$3" --slots 1 --rate 500mbit --mtu 9000
  scripts/cluster.sh check >"$1/check.txt" || true
}
jumbo_cluster_down() {
  cluster_down
  unset GRADSYNC_CLUSTER_DIR
}

# What `gradsync calibrate` fits the cost model to, on the cluster that is up:
# collectives of every CPU strategy from 256K to 64M at 2, 4 and 8 workers
# (as many as HOSTS), ps-zmq with one shard per worker and with one, into
# DIR/collectives.jsonl (and .txt).
calibration_collectives() {
  local dir=$1 hosts=$2 p
  for p in 2 4 8; do
    [ "$p" -le "$hosts" ] || continue
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives -b 256K -e 64M -f 4 -n 2 -w 1 \
      --strategy ring-mpi,tree-mpi,mpi-allreduce,ps-zmq --ps-servers "$p" --ps-curve off \
      --json "$dir/collectives.jsonl" >>"$dir/collectives.txt"
    scripts/cluster.sh mpirun -np "$p" "$bin" collectives -b 256K -e 64M -f 4 -n 2 -w 1 \
      --strategy ps-zmq --ps-servers 1 --ps-curve off --json "$dir/collectives.jsonl" >>"$dir/collectives.txt"
  done
}
