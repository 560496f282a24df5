#!/usr/bin/env bash
# The main job: installs, builds, then compares every CPU strategy with the
# collective benchmark at 1, 2 and 4 ranks on this machine, and prints one
# table. Records go to results/quickstart-<UTC time>/ (JSON Lines, see
# results/README.md); each rank count's full nccl-tests-style output is kept
# beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync

strategies=ring-mpi,tree-mpi,ps-zmq,mpi-allreduce
out=results/quickstart-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
echo "gradsync quickstart: $strategies, 1/2/4 ranks, 4 KiB to 64 MiB; records in $out/"
for np in 1 2 4; do
  start=$SECONDS
  scripts/mpirun.sh -np "$np" "$bin" collectives -b 4K -e 64M -f 4 -n 10 -w 3 \
    --strategy "$strategies" --json "$out/collectives.jsonl" >"$out/collectives-np$np.txt"
  echo "  $np rank(s): every result correct, $((SECONDS - start)) s ($out/collectives-np$np.txt)"
done
echo
"$bin" report "$out/collectives.jsonl" --metric busbw --csv "$out/busbw.csv"
echo
"$bin" report "$out/collectives.jsonl" --metric time
