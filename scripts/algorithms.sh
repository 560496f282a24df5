#!/usr/bin/env bash
# Which allreduce wins where, on this host: the README's "Which algorithm
# wins where" tables. Runs `gradsync collectives` over the MPI algorithms in
# alternating rounds (a noisy machine moves every strategy of a round alike)
# and prints, per worker count, the median over the rounds of each size:
# busbw for large buffers, time per call for small ones, and each one's ratio
# to mpi-allreduce measured in the same rounds.
#
#   scripts/algorithms.sh [large|small] [ROUNDS]
#
# large  16 MiB to 256 MiB at 2 and 4 ranks, busbw (GB/s), about 5 minutes
#        with 3 rounds
# small  4 B to 64 KiB at 2, 4 and 8 ranks, time per call (us), about 2 minutes
# GRADSYNC_BUILD_DIR picks the build (default build/); GRADSYNC_STRATEGIES
# the list (default every MPI algorithm).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-large}
rounds=${2:-3}
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
[ -x "$bin" ] || scripts/build.sh >/dev/null
strategies=${GRADSYNC_STRATEGIES:-ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,mpi-allreduce}
case $mode in
  large) ranks=(2 4); sizes=(-b 16M -e 256M -f 4 -n 10 -w 3); column=8; unit="busbw (GB/s)" ;;
  small) ranks=(2 4 8); sizes=(-b 4 -e 64K -f 4 -n 300 -w 30); column=6; unit="time per call (us)" ;;
  *) echo "algorithms: unknown mode '$mode' (known: large, small)" >&2; exit 2 ;;
esac
case $rounds in '' | *[!0-9]* | 0) echo "algorithms: ROUNDS must be a positive whole number (got '$rounds')" >&2; exit 2 ;; esac

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for p in "${ranks[@]}"; do
  for ((round = 1; round <= rounds; ++round)); do
    # One line per strategy and size: ranks, strategy, size (B), the figure.
    scripts/mpirun.sh -np "$p" "$bin" collectives -c 0 "${sizes[@]}" --strategy "$strategies" |
      awk -v p="$p" -v col="$column" '!/^#/ && NF >= 8 { print p, $1, $2, $col }' >>"$raw"
  done
done

# Medians per (ranks, strategy, size), one table per worker count: a row per
# size, a column per strategy, each cell the median and its ratio to
# mpi-allreduce's median at the same ranks and size (for time: mpi-allreduce's
# / this one's, so that above 1 is better in both tables).
sort -k1,1n -k2,2 -k3,3n -k4,4g "$raw" | awk -v mode="$mode" -v unit="$unit" -v list="$strategies" '
  function flush() {
    if (n == 0) return
    median[p, s, b] = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    if (!((p, b) in seen)) { seen[p, b] = 1; sizes[p] = sizes[p] " " b }
    if (!(p in seen_p)) { seen_p[p] = 1; ps[++np] = p }
    n = 0
  }
  { if ($1 != p || $2 != s || $3 != b) { flush(); p = $1; s = $2; b = $3 } v[++n] = $4 }
  END {
    flush()
    ns = split(list, names, ",")
    for (i = 1; i <= np; ++i) {
      printf "\n%s ranks: median %s, and (x) its ratio to mpi-allreduce (above 1 is better)\n\n", ps[i], unit
      line = "| size (B) |"; rule = "|---:|"
      for (j = 1; j <= ns; ++j) { line = line " " names[j] " |"; rule = rule "---:|" }
      print line; print rule
      nb = split(sizes[ps[i]], bs, " ")
      for (k = 1; k <= nb; ++k) {
        line = "| " bs[k] " |"
        ref = median[ps[i], "mpi-allreduce", bs[k]]
        for (j = 1; j <= ns; ++j) {
          m = median[ps[i], names[j], bs[k]]
          if (m == "") { line = line " - |"; continue }
          ratio = (ref == "" || ref == 0 || m == 0) ? "" : \
            sprintf(" (x%.2f)", mode == "small" ? ref / m : m / ref)
          line = line sprintf(" %.2f%s |", m, ratio)
        }
        print line
      }
    }
  }'
