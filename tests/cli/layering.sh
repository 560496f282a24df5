#!/usr/bin/env bash
# The layering, read from the include lines: every quoted include names its
# room from the repository root, and no include runs upward. From the bottom:
#   gpu/                 includes nothing of strategies/, models/, harness/
#   strategies/, models/ include nothing of harness/ nor of each other
#   strategies/ has rooms of its own, from the bottom:
#     strategies/core/   includes nothing of the other rooms
#     strategies/mpi/, strategies/ps/, strategies/nccl/, strategies/gloo/  include core/ and
#                        nothing of each other nor of the table above them
#     strategies/*.{h,cc} (the table) may include every room
#   harness/engine/      includes nothing of harness/sim/, harness/results/ nor harness/cli/
#   harness/sim/         includes nothing of harness/results/ nor harness/cli/
#   harness/results/     includes nothing of harness/cli/
#   harness/cli/         may include every room
# The test checks itself first:
# a tree with one upward include must fail, naming the file.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }

# Upward includes tolerated for now, one "FILE INCLUDE" per line (none today;
# a line whose include is gone fails the test, so none is forgotten).
known_exceptions=()

# check ROOT [EXCEPTIONS...]: prints one line per violation, exits 1 if any.
check() {
  local tree=$1; shift
  local -a exceptions=("$@")
  local bad=0 file include room
  declare -A used=()
  while IFS= read -r file; do
    room=${file%%/*}
    case $file in strategies/core/*) room=core ;; strategies/mpi/*) room=mpi ;; strategies/ps/*) room=ps ;; strategies/nccl/*) room=nccl ;; strategies/gloo/*) room=gloo ;; esac
    case $file in harness/engine/*) room=engine ;; harness/sim/*) room=sim ;; harness/results/*) room=results ;; harness/*) room=cli ;; esac
    while IFS= read -r include; do
      local forbidden=""
      case $include in
        gpu/* | strategies/* | models/* | harness/* | generated/*) ;;
        *) echo "$file: #include \"$include\" does not name its room"; bad=1; continue ;;
      esac
      case $room:$include in
        gpu:strategies/* | gpu:models/* | gpu:harness/*) forbidden=1 ;;
        strategies:models/* | strategies:harness/* | models:strategies/* | models:harness/*) forbidden=1 ;;
        core:models/* | core:harness/* | mpi:models/* | mpi:harness/* | ps:models/* | ps:harness/*) forbidden=1 ;;
        nccl:models/* | nccl:harness/* | gloo:models/* | gloo:harness/*) forbidden=1 ;;
        core:strategies/core/*) ;;
        core:strategies/*) forbidden=1 ;;
        mpi:strategies/core/* | mpi:strategies/mpi/*) ;;
        ps:strategies/core/* | ps:strategies/ps/*) ;;
        nccl:strategies/core/* | nccl:strategies/nccl/*) ;;
        gloo:strategies/core/* | gloo:strategies/gloo/*) ;;
        mpi:strategies/* | ps:strategies/* | nccl:strategies/* | gloo:strategies/*) forbidden=1 ;;
        engine:harness/sim/* | engine:harness/results/* | engine:harness/cli/*) forbidden=1 ;;
        sim:harness/results/* | sim:harness/cli/* | results:harness/cli/*) forbidden=1 ;;
      esac
      [ -n "$forbidden" ] || continue
      local excused=""
      for e in "${exceptions[@]}"; do
        [ "$e" = "$file $include" ] && excused=1 && used[$e]=1
      done
      [ -n "$excused" ] || { echo "$file: #include \"$include\" runs upward (from $room)"; bad=1; }
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$tree/$file")
  done < <(cd "$tree" && find gpu strategies models harness -type f \
             \( -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \) 2>/dev/null | sort)
  for e in "${exceptions[@]}"; do
    [ -n "${used[$e]:-}" ] || { echo "stale known exception (delete it): $e"; bad=1; }
  done
  return $bad
}

# Self-test: a clean tree passes; each kind of upward include fails, named.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gpu" "$tmp/strategies/core" "$tmp/strategies/mpi" "$tmp/strategies/ps" "$tmp/strategies/nccl" "$tmp/models" "$tmp/harness/engine" "$tmp/harness/sim" "$tmp/harness/results" "$tmp/harness/cli"
echo '#include "gpu/a.h"' >"$tmp/strategies/s.cc"
printf '#include "strategies/core/c.h"\n#include "strategies/mpi/m.h"\n#include "strategies/ps/p.h"\n' >"$tmp/strategies/table.cc"
echo '#include "strategies/core/c.h"' >"$tmp/strategies/mpi/m.cc"
echo '#include "strategies/ps/p.h"' >"$tmp/strategies/ps/q.cc"
echo '#include "gpu/a.h"' >"$tmp/strategies/nccl/n.cc"
echo '#include "strategies/s.h"' >"$tmp/harness/engine/e.cc"
echo '#include "harness/engine/e.h"' >"$tmp/harness/sim/m.cc"
printf '#include "harness/sim/m.h"\n#include <vector>\n' >"$tmp/harness/results/r.cc"
echo '#include "harness/results/r.h"' >"$tmp/harness/cli/c.cc"
check "$tmp" >/dev/null || fail "self-test: a clean tree was refused: $(check "$tmp")"
for bad in "harness/engine/e.h:harness/results/r.h" "harness/engine/e.h:harness/cli/c.h" \
  "harness/results/r.h:harness/cli/c.h" "harness/engine/e.h:harness/sim/m.h" \
  "harness/sim/m.h:harness/results/r.h" "harness/sim/m.h:harness/cli/c.h" "strategies/s.h:models/m.h" "models/m.h:strategies/s.h" \
  "strategies/s.h:harness/engine/e.h" "gpu/g.h:strategies/s.h" "harness/cli/c.h:world.h" \
  "strategies/core/c.h:strategies/table.h" "strategies/core/c.h:strategies/mpi/m.h" \
  "strategies/mpi/m.h:strategies/ps/p.h" "strategies/ps/p.h:strategies/mpi/m.h" \
  "strategies/mpi/m.h:strategies/table.h" "strategies/nccl/n.h:strategies/mpi/m.h" \
  "strategies/ps/p.h:models/m.h"; do
  file=${bad%%:*}
  echo "#include \"${bad#*:}\"" >"$tmp/$file"
  out=$(check "$tmp") && fail "self-test: $file including ${bad#*:} was accepted"
  grep -qF "$file: #include" <<<"$out" || fail "self-test: the failure does not name $file: $out"
  rm "$tmp/$file"
done
out=$(check "$tmp" "harness/cli/c.cc harness/cli/gone.h") && fail "self-test: a stale exception was accepted"

out=$(check "$root" "${known_exceptions[@]}") || { echo "$out" >&2; fail "the layering is broken"; }
echo "layering: every include names its room and none runs upward (${#known_exceptions[@]} known exceptions)"
