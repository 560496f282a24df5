#!/usr/bin/env bash
# The main job: installs, builds, then
#   1. a training sweep: the small CNN with real CPU compute and ResNet-50
#      with compute emulated on a V100 profile, at 1, 2 and 4 workers, under
#      every CPU strategy (and `none`, the baseline), ending with the scaling
#      efficiency, throughput and exposed-communication tables;
#   2. the collective benchmark of every CPU strategy at 1, 2 and 4 ranks,
#      4 KiB to 64 MiB, as one bus-bandwidth table;
#   3. beyond the machine: the cost model on the cluster of Horovod's
#      published benchmark (results/reference/clusters/horovod-p100-roce25.json,
#      every number sourced there), its efficiency to 1,024 GPUs for
#      ResNet-101, Inception-v3 and VGG-16 beside the published points
#      (results/reference/published-scaling.csv), labelled as simulated;
# then draws the figures (efficiency, throughput, busbw, step-time breakdown,
# and the projection against the published points).
# Everything goes to results/quickstart-<UTC time>/ (records as JSON Lines,
# see results/README.md; each run's log beside them; figures/ as PNG and SVG).
# The install prints one line per phase and keeps apt's output in
# install-deps.log (its last lines on the screen if apt fails). It builds only
# the gradsync binary (scripts/test.sh builds the rest), shows the build's
# progress, and prints each phase's time.
set -euo pipefail
cd "$(dirname "$0")/.."
phase_started=$SECONDS
phase_times=()
phase_done() {
  local took=$((SECONDS - phase_started))
  echo "-- $1: $took s"
  phase_times+=("$1 $took s")
  phase_started=$SECONDS
}
echo "== setup: Debian packages (scripts/install-deps.sh build) =="
scripts/install-deps.sh build
phase_done "install"
echo "== build: the gradsync binary (scripts/build.sh gradsync) =="
GRADSYNC_SKIP_INSTALL=1 scripts/build.sh gradsync
phase_done "build"
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync

# The table's default set, and with its baseline first for the sweep.
strategies=$("$bin" strategies --names)
with_baseline=$("$bin" strategies --names --with-baseline)
out=results/quickstart-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"

echo "== 1/3 training sweep: small-cnn (cpu) and resnet50 (emulated v100), 1/2/4 workers =="
"$bin" sweep --out "$out" --workers 1,2,4 --strategy "$with_baseline" \
  --models small-cnn:cpu,resnet50:emulated \
  --train-args "--batch-size 32 --num-warmup-batches 2 --num-batches-per-iter 4 --num-iters 4"
phase_done "training sweep"

echo
echo "== 2/3 collectives: $strategies, 1/2/4 ranks, 4 KiB to 64 MiB =="
for np in 1 2 4; do
  start=$SECONDS
  scripts/mpirun.sh -np "$np" "$bin" collectives -b 4K -e 64M -f 4 -n 10 -w 3 \
    --strategy "$strategies" --json "$out/collectives.jsonl" >"$out/collectives-np$np.txt"
  echo "  $np rank(s): every result correct, $((SECONDS - start)) s ($out/collectives-np$np.txt)"
done
echo
"$bin" report "$out/collectives.jsonl" --metric busbw --csv "$out/busbw.csv"
phase_done "collectives"
echo
cluster=results/reference/clusters/horovod-p100-roce25.json
published=results/reference/published-scaling.csv
echo "== 3/3 beyond the machine (simulated): Horovod's published cluster, $cluster =="
"$bin" simulate published --cluster "$cluster" "$published"
# Each model at its published single-GPU rate (the table's own column), to 1,024 GPUs.
while IFS=, read -r model rate; do
  "$bin" simulate project --cluster "$cluster" --model "$model" --batch-size 64 --emulate-img-per-sec "$rate" \
    --workers 1-1024 --strategy nccl-ring,nccl-tree,hierarchical-mpi,ps-zmq \
    --out "$out/projection.jsonl" >"$out/projection-$model.txt"
  echo "  $model at $rate img/s per GPU, 1 to 1,024 GPUs: $out/projection-$model.txt"
done < <(awk -F, '!/^#/ && $1 == "horovod" && $4 == 16 { print $3 "," $9 }' "$published")
echo
# The whole report into a file, then its first table on the screen (a pipe
# into a reader that stops early would end report with SIGPIPE, and this
# script with it).
"$bin" report "$out/projection.jsonl" >"$out/projection-report.md"
awk '/^$/ && ++blank == 2 { exit } { print }' "$out/projection-report.md"
phase_done "cost model"
echo "== figures =="
scripts/plots.sh all "$out" -o "$out/figures" | grep '\.png$' | sed 's/^/  /'
phase_done "figures"
echo
echo "All records, logs and figures: $out/ (figures as PNG and SVG in $out/figures/)"
echo "quickstart: $SECONDS s in all ($(IFS=,; echo "${phase_times[*]}" | sed 's/,/, /g'))"
