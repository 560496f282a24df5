# shellcheck shell=bash
# Sourced by the tests that stop or kill one rank of a job (stall.sh,
# blame.sh): finding a rank's process, and what a job left running.

# The processes of world rank $2 (any rank when not given) among those whose
# command line holds $1: the rank as Open MPI's mpirun or MPICH's Hydra put
# it in the process's environment (the launcher itself has none).
rank_pids() {
  local pid
  for pid in $(pgrep -f -- "$1" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxE "(OMPI_COMM_WORLD_RANK|PMI_RANK)=${2:-[0-9]*}"; then
      echo "$pid"
    fi
  done
}

# The processes still running whose command line holds $1, once the job has
# had up to 3 s to take them down (empty when none).
left_after() {
  local waited
  for waited in $(seq 30); do
    pgrep -f -- "$1" >/dev/null || return 0
    sleep 0.1
  done
  pgrep -f -- "$1" | tr '\n' ' '
}
