#!/usr/bin/env bash
# Takes down the throw-away Slurm of scripts/slurm/up.sh --dir D: its jobs
# are cancelled (at most 10 s), then what is left of them (slurmstepd and
# their descendants), every slurmd, slurmctld and munged get TERM, what is
# left after 5 s gets KILL; then D is removed.
# Finds them by D alone (common.sh), so it also cleans up after a killed or
# half-done up.sh. Idempotent.
#
#   scripts/slurm/down.sh --dir D
set -euo pipefail
slurm_script=down.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/slurm/common.sh
source "$here/common.sh"

usage="usage: scripts/slurm/down.sh --dir D"
dir=""
while [ $# -gt 0 ]; do
  case $1 in
    --dir) [ $# -ge 2 ] || slurm_usage_error "--dir needs a value"; dir=$2; shift 2 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) slurm_usage_error "unknown argument '$1' ($usage)" ;;
  esac
done
[ -n "$dir" ] || slurm_usage_error "--dir is required ($usage)"
dir=$(slurm_abs_dir "$dir")
[ "$(id -u)" -eq 0 ] || slurm_fail "needs root (the daemons run as root)"

# INT/TERM while stopping: finish the removal anyway, then exit as signalled.
trap 'signalled=130' INT
trap 'signalled=143' TERM
signalled=0
count=$(slurm_pids_of "$dir" | wc -l)
existed=0
[ -e "$dir" ] && existed=1
# Jobs first, through Slurm itself, while slurmctld runs: their tasks get
# TERM (KILL after KillWait), and the sruns and `sbatch --wait`s waiting on
# them are told and exit, instead of retrying a controller that is gone.
if [ -r "$dir/slurm.conf" ] && [ -n "$(slurm_pids_of "$dir")" ] &&
  SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -o %i >"$dir/run/jobs" 2>/dev/null && [ -s "$dir/run/jobs" ]; then
  mapfile -t jobs <"$dir/run/jobs"
  SLURM_CONF=$dir/slurm.conf timeout 5 scancel --quiet "${jobs[@]}" 2>/dev/null || true
  for ((try = 0; try < 100; try++)); do
    SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -t all -o '%t' 2>/dev/null | grep -qvx -e CA -e CD -e F -e TO || break
    sleep 0.1
  done
fi
slurm_remove "$dir" || exit 1
if [ "$existed" -eq 0 ] && [ "$count" -eq 0 ]; then
  echo "slurm/down.sh: nothing of $dir exists"
else
  echo "slurm/down.sh: down: stopped $count processes, removed $dir"
fi
exit "$signalled"
