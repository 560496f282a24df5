# shellcheck shell=bash
# Shared by scripts/slurm/up.sh and down.sh (sourced, not run): finding the
# processes of a throw-away Slurm by its directory D alone, so that down.sh
# also cleans up after a killed or half-done up.sh.
#
# Ours are: munged, slurmctld and every slurmd, whose command lines name a
# file under D (up.sh starts them so); every slurmstepd, which inherits
# its slurmd's working folder D/log and its log file under D (its command
# line is only "slurmstepd: [JOB.STEP]" and it blanks its environment); and
# every descendant of those (a job's
# tasks, a batch script and its sruns). Nothing else is ever signalled: a
# shell that sourced D/env.sh, or `tail -f D/log/...`, is not ours.

: "${slurm_script:=slurm}" # the script's name in messages: up.sh, down.sh
slurm_fail() { echo "slurm/$slurm_script: $*" >&2; exit 1; }
slurm_usage_error() { echo "slurm/$slurm_script: $*" >&2; exit 2; }

# The directory as an absolute path without a trailing slash; refuses the
# paths whose removal could hurt.
slurm_abs_dir() {
  local d
  d=$(realpath -m -- "$1")
  case $d in
    / | /tmp | /run | /var | /home | /root | /usr | /etc | /work) slurm_usage_error "--dir $1: refusing $d (give a folder of its own, e.g. \$(mktemp -d)/slurm)" ;;
  esac
  echo "$d"
}

# Whether an argument in the NUL-separated command line FILE is a path under
# DIR, alone or as --option=PATH.
slurm_names_dir() {
  { tr '\0' '\n' <"$1"; } 2>/dev/null | awk -v d="$2/" '{ sub(/^-[^=\/]*=/, "") } index($0, d) == 1 { found = 1 } END { exit !found }'
}

# The pids of D's processes, one a line (none: prints nothing).
slurm_pids_of() {
  local dir=$1 pid comm roots=() p
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    { read -r comm <"$p/comm"; } 2>/dev/null || continue
    case $comm in
      munged | slurmctld | slurmd)
        slurm_names_dir "$p/cmdline" "$dir" && roots+=("$pid") ;;
      slurmstepd)
        { readlink "$p/cwd"; find "$p/fd" -mindepth 1 -maxdepth 1 -exec readlink {} + ; } 2>/dev/null |
          awk -v d="$dir/" 'index($0 "/", d) == 1 { found = 1 } END { exit !found }' && roots+=("$pid") ;;
    esac
  done
  # Pid files of daemons whose command line was not yet readable.
  for p in "$dir"/run/*.pid "$dir"/munge/munged.pid; do
    [ -r "$p" ] || continue
    pid=$(tr -dc 0-9 <"$p")
    [ -n "$pid" ] || continue
    { read -r comm <"/proc/$pid/comm"; } 2>/dev/null || continue
    case $comm in munged | slurmctld | slurmd) roots+=("$pid") ;; esac
  done
  [ ${#roots[@]} -gt 0 ] || return 0
  # Descendants: the tasks of a step, a batch script, what they started.
  ps -e -o pid=,ppid= | awk -v roots="${roots[*]}" '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) ours[r[i]] = 1 }
    { parent[$1] = $2 }
    END {
      do { grew = 0
        for (p in parent) if (!(p in ours) && (parent[p] in ours)) { ours[p] = 1; grew = 1 }
      } while (grew)
      for (p in ours) print p
    }' | sort -n | grep -vx -e "$$" -e "${BASHPID:-$$}" || true
}

# slurm_stop DIR: TERM to D's processes, KILL to what is left after 5 s;
# fails (naming them) when some still live 5 s after the KILL.
slurm_stop() {
  local dir=$1 pids try
  pids=$(slurm_pids_of "$dir")
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  for ((try = 0; try < 50; try++)); do
    pids=$(slurm_pids_of "$dir")
    [ -n "$pids" ] || return 0
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
  for ((try = 0; try < 50; try++)); do
    pids=$(slurm_pids_of "$dir")
    [ -n "$pids" ] || return 0
    sleep 0.1
  done
  echo "slurm/$slurm_script: processes $(tr '\n' ' ' <<<"$pids")of $dir did not end after KILL" >&2
  return 1
}

# slurm_remove DIR [KEEP_LOGS]: stops D's processes and removes D (only a
# folder up.sh made: it holds the marker file), or, with KEEP_LOGS, all of
# it but D/log (a failed up.sh's evidence).
slurm_remove() {
  local dir=$1 keep=${2:-}
  slurm_stop "$dir" || return 1
  [ -e "$dir" ] || return 0
  [ -e "$dir/.gradsync-slurm" ] || [ -z "$(ls -A "$dir" 2>/dev/null)" ] ||
    { echo "slurm/$slurm_script: $dir was not made by scripts/slurm/up.sh (no .gradsync-slurm in it); not removing it" >&2; return 1; }
  if [ -n "$keep" ] && [ -d "$dir/log" ]; then
    find "$dir" -mindepth 1 -maxdepth 1 ! -name log ! -name .gradsync-slurm -exec rm -rf {} +
  else
    rm -rf -- "$dir"
  fi
}
