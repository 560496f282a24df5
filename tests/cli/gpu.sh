#!/usr/bin/env bash
# The GPU side as a user meets it, whatever this machine has:
# - no CUDA build: `strategies` says not built; nccl-* and --memory device
#   fail with one line and exit 2.
# - CUDA build, no GPU (this machine, CI): `strategies` says
#   "nccl-ring: built, no GPU visible"; the same requests fail with one line
#   naming that reason, also under mpirun.
# - a GPU: one rank runs every NCCL strategy (nccl-ring, nccl-tree, the
#   sharded zero2-nccl and zero3-nccl) and every host strategy on device
#   buffers with the correctness pass; every #wrong is 0, the staged rows
#   show their staging time and the NCCL ones stage nothing.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$GRADSYNC" strategies >"$tmp/strategies"
cat "$tmp/strategies"
state=$(sed -n 's/^  nccl-ring: //p' "$tmp/strategies")
[ -n "$state" ] || fail "gradsync strategies has no 'nccl-ring: ...' line"

# expect_error WORDS [mpirun -np N] ARGS...: one stderr line holding WORDS, exit 2.
expect_usage_error() {
  local words=$1 status=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$words" "$tmp/err" ||
    { sed 's/^/  | /' "$tmp/err" >&2; fail "$* -> exit $status; expected exit 2 and one line naming: $words"; }
}

case "$state" in
  "not built")
    expect_usage_error "nccl-ring' is not usable here: not built" "$GRADSYNC" collectives --strategy nccl-ring
    expect_usage_error "--memory device: not built in" "$GRADSYNC" collectives --memory device
    ;;
  "built, no GPU visible")
    grep -qx '  nccl-tree: built, no GPU visible' "$tmp/strategies" || fail "no 'nccl-tree: built, no GPU visible' line"
    for launcher in "" "$MPIRUN --quiet -np 2"; do
      # shellcheck disable=SC2086
      expect_usage_error "strategy 'nccl-ring' is not usable here: built, no GPU visible" \
        $launcher "$GRADSYNC" collectives --strategy nccl-ring
      # shellcheck disable=SC2086
      expect_usage_error "--memory device: no GPU visible" \
        $launcher "$GRADSYNC" collectives -b 4 -e 64 -f 4 --memory device --strategy ring-mpi
    done
    ;;
  "built, usable")
    host=$("$GRADSYNC" strategies | awk 'NR > 1 && $2 == "yes" && $3 != "NCCL" && $1 != "none" { print $1 }' | paste -sd, -)
    nccl=$("$GRADSYNC" strategies | awk 'NR > 1 && $2 == "yes" && $3 == "NCCL" { print $1 }' | paste -sd, -)
    "$MPIRUN" -np 1 "$GRADSYNC" collectives -b 4 -e 4M -f 16 -n 5 -w 2 -c 2 --memory device \
      --strategy "$nccl,$host" >"$tmp/out" || { cat "$tmp/out"; fail "device buffers: exit status"; }
    cat "$tmp/out"
    wrong=$(awk '!/^#/ && $9 != "0"' "$tmp/out")
    [ -z "$wrong" ] || fail "rows with #wrong other than 0:"$'\n'"$wrong"
    nccl_staged=$(awk -v nccl=",$nccl," '!/^#/ && index(nccl, "," $1 ",") && $10 != "0.00"' "$tmp/out")
    [ -z "$nccl_staged" ] || fail "nccl rows report staging:"$'\n'"$nccl_staged"
    grep -q '^# nccl-ring, 1 workers, device buffers' "$tmp/out" || fail "no device-buffer summary for nccl-ring"
    ;;
  *) fail "unexpected nccl-ring state: $state" ;;
esac
echo "gpu: the GPU side behaves as '$state' requires"
