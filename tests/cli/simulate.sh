#!/usr/bin/env bash
# The cost model from the command line, on the measurements committed in
# results/reference/cost-model/ (the emulated cluster's runs,
# docs/results/cost-model-checks.md):
# - calibrate: a cluster file per link rate, every fit printed with its
#   points' errors and the wire check; the files' numbers say where they
#   came from;
# - simulate validate: each measured train record beside its twin; the
#   median absolute throughput error is within 10% (docs/guide/tests.md), and
#   the twins appended with --out read back through report as simulated rows;
# - extrapolation: calibrated at 2 and 4 hosts, checked at 8, every CPU
#   strategy; the errors saved as the cluster's validation and the bands a
#   projection then carries;
# - a projection to 4,096 workers, a crossover map, the BytePS comparison
#   and the published table on the committed Horovod cluster;
# - bad input: one line, non-zero exit, nothing written over.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
root=$(cd "$(dirname "$0")/../.." && pwd)
data=$root/results/reference/cost-model
horovod=$root/results/reference/clusters/horovod-p100-roce25.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_error STATUS WORDS ARGS...: gradsync ARGS exits STATUS with one stderr line holding WORDS.
expect_error() {
  local want=$1 words=$2 status=0
  shift 2
  "$GRADSYNC" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  if [ "$status" -ne "$want" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$words" "$tmp/err"; then
    fail "gradsync $* -> exit $status (want $want), stderr:"
    sed 's/^/  | /' "$tmp/err" >&2
  fi
}

for rate in 500mbit 1gbit; do
  "$GRADSYNC" calibrate "$data/$rate/collectives.jsonl" -o "$tmp/$rate.json" >"$tmp/cal-$rate.txt"
  for strategy in ring-mpi tree-mpi mpi-allreduce ps-zmq; do
    grep -q "^| $strategy .*| inter " "$tmp/cal-$rate.txt" || fail "$rate: no inter fit of $strategy"
  done
  grep -qF "link / model" "$tmp/cal-$rate.txt" || fail "$rate: no wire check"
  jq -e '.inter.bandwidth_bits_per_s.source == "calibrated" and ([.calibration.fits[].strategy] | unique | length) == 4 and ([.calibration.fits[] | select(.strategy == "mpi-allreduce") | .workers_only] | min) == 2' \
    "$tmp/$rate.json" >/dev/null || fail "$rate: the cluster file lacks its fits or their source"
  "$GRADSYNC" simulate validate --cluster "$tmp/$rate.json" "$data/$rate/train.jsonl" \
    "$data/$rate/train-ps1.jsonl" --out "$tmp/twins-$rate.jsonl" >"$tmp/val-$rate.txt"
  median=$(sed -n 's/.*median |error| \([0-9.]*\)%.*/\1/p' "$tmp/val-$rate.txt")
  [ -n "$median" ] || fail "$rate: validate printed no median"
  awk -v m="${median:-100}" 'BEGIN { exit !(m <= 10) }' || fail "$rate: median |error| $median% > 10%"
  grep -qF "worst" "$tmp/val-$rate.txt" || fail "$rate: validate names no worst point"
  "$GRADSYNC" report "$data/$rate/train.jsonl" "$tmp/twins-$rate.jsonl" >"$tmp/report-$rate.md"
  grep -qF "ring-mpi (simulated)" "$tmp/report-$rate.md" || fail "$rate: report shows no simulated twin"
done
cat "$tmp/val-500mbit.txt"

# Extrapolation, the model's real use: calibrated from 2 and 4 hosts only,
# checked at 8 (two runs of scripts/cluster-runs.sh extrapolation, their
# records together). Every CPU strategy gets its line of errors, and each
# (the ring, the trees of tree-mpi and double-tree-mpi, halving-doubling,
# the hierarchy, MPI_Allreduce's tabulated times, the parameter server with
# a shard per worker and with one) stays within the bounds the docs state
# (median |error| at most 10%, worst at most 25%). The errors become the
# bands of a projection on the saved file, beyond validation above 8 workers.
ext=$data/extrapolation
[ "$(jq -s 'map(.workers) | max' "$ext/collectives.jsonl")" -eq 4 ] ||
  fail "extrapolation: its calibration has points beyond 4 workers"
"$GRADSYNC" calibrate "$ext/collectives.jsonl" -o "$tmp/ext.json" >/dev/null
"$GRADSYNC" simulate validate --cluster "$tmp/ext.json" "$ext/train.jsonl" "$ext/train-ps1.jsonl" \
  --save-validation "$tmp/ext-validated.json" >"$tmp/ext-val.txt"
for strategy in ring-mpi tree-mpi double-tree-mpi halving-doubling-mpi hierarchical-mpi mpi-allreduce ps-zmq; do
  line=$(grep "^| $strategy | [0-9]* | 8 | 2,4 | " "$tmp/ext-val.txt") ||
    { fail "extrapolation: no errors of $strategy at 8 workers calibrated at 2,4"; continue; }
  # | strategy | runs | workers | calibrated at | median | range "a% to b%" | worst |
  awk -F'|' '{ m = $6; gsub(/[ %+]/, "", m); split($7, r, " to "); gsub(/[ %+]/, "", r[1]); gsub(/[ %+]/, "", r[2])
      a = r[1] + 0; b = r[2] + 0; w = (a < 0 ? -a : a); if ((b < 0 ? -b : b) > w) w = (b < 0 ? -b : b)
      exit (m + 0 > 10 || w > 25) }' <<<"$line" ||
    fail "extrapolation: $strategy beyond its bounds: $line"
done
jq -e '(.validation | length) == 7 and all(.validation[]; .workers == [8] and .calibrated_workers == [2, 4])' \
  "$tmp/ext-validated.json" >/dev/null || fail "extrapolation: the saved cluster file lacks the validation of every strategy"
"$GRADSYNC" simulate project --cluster "$tmp/ext-validated.json" --model vgg16 --workers 1,8,16 --strategy ring-mpi \
  --out "$tmp/banded.jsonl" >"$tmp/banded.txt"
grep -qF "ring-mpi band: +/-" "$tmp/banded.txt" || fail "extrapolation: the projection does not state its band"
jq -s -e --slurpfile c "$tmp/ext-validated.json" '
    ($c[0].validation[] | select(.strategy == "ring-mpi") | [.min_error, .max_error] | map(fabs) | max) as $w
    | map(select(.workers > 1) | .simulation.band)
    | length == 2 and all(.[]; (.high - 1 - $w | fabs) < 1e-12 and (1 - .low - $w | fabs) < 1e-12)
      and (map(.beyond_validation) == [false, true])' "$tmp/banded.jsonl" >/dev/null ||
  fail "extrapolation: the projection's band is not +/- the worst error, beyond validation above 8 workers"
cat "$tmp/ext-val.txt"

# Projection to 4,096 workers, every strategy of a CPU cluster.
"$GRADSYNC" simulate project --cluster "$tmp/500mbit.json" --model resnet50 --workers 1-4096 \
  --out "$tmp/projection.jsonl" >"$tmp/projection.txt"
# Every host strategy but the baseline, built here or not (the model needs no
# library): 7, and Gloo's 4.
cpu_strategies=$("$GRADSYNC" strategies --json |
  jq '[.[] | select(.memory == "host" and .role != "baseline")] | length')
[ "$(jq -s 'map(select(.simulated and .workers == 4096)) | length' "$tmp/projection.jsonl")" -eq "$cpu_strategies" ] ||
  fail "projection: not every strategy reached 4,096 workers (want $cpu_strategies)"
grep -qF "n=4096" "$tmp/projection.txt" || fail "projection: no n=4096 column"
# One worker of every strategy is the compute profile alone.
jq -s -e 'map(select(.workers == 1)) | map(.results.step_mean_s) | (max - min) < 1e-12' \
  "$tmp/projection.jsonl" >/dev/null || fail "projection: one worker is not the compute profile for every strategy"

# The crossover map and BytePS's comparison.
"$GRADSYNC" simulate crossover --cluster "$horovod" --model vgg16 --batch-size 64 --emulate-img-per-sec 130.9 \
  --workers 8-1024 --map "$tmp/crossover.json" >"$tmp/crossover.txt"
jq -e '.schema == "gradsync.crossover" and (.cells | length) == (.workers | length) * (.inter_bandwidths_bits_per_s | length)' \
  "$tmp/crossover.json" >/dev/null || fail "crossover: the grid is incomplete"
# BytePS counts machines (a machine's GPUs summed locally first): one worker per node.
# Links at 10 Gbit/s so that communication, not compute, sets the pace; small
# partitions so that pushes and replies overlap, as BytePS's do.
"$GRADSYNC" simulate server-hosts --cluster "$horovod" --workers-per-node 1 --inter-bandwidth 10gbit \
  --model vgg16 --batch-size 64 --emulate-img-per-sec 130.9 --workers 8,32 --strategy nccl-ring,ps-zmq \
  --ps-partition 256K --hosts 1,2,4,8,16,32 >"$tmp/byteps.txt"
grep -qE "n=32: ps-zmq beats nccl-ring from k = [0-9]+ server hosts" "$tmp/byteps.txt" ||
  fail "BytePS: no server count at which the parameter server wins"

# Horovod's published table on the committed cluster file.
"$GRADSYNC" simulate published --cluster "$horovod" "$root/results/reference/published-scaling.csv" \
  --save-validation "$tmp/horovod-validated.json" >"$tmp/published.txt"
# The committed cluster file's validation is the published table's errors of
# this very model: a change to the model that moves them must refresh it
# (the command above, then the file's "validation" replaced by the new one).
jq -e -n --slurpfile a "$horovod" --slurpfile b "$tmp/horovod-validated.json" \
  '($a[0].validation | length) == 2 and ($a[0].validation | map(del(.against)) | tostring) == ($b[0].validation | map(del(.against)) | tostring)' >/dev/null ||
  fail "published: $horovod's validation is not what simulate published gives now (refresh it, see docs/results/cost-model-checks.md)"
[ "$(grep -c ' points |' "$tmp/published.txt")" -eq 12 ] || fail "published: not every row simulated"
grep -qF "without the mechanisms" "$tmp/published.txt" || fail "published: no column without the mechanisms"
grep -qF "cycle 5 ms (published)" "$tmp/published.txt" || fail "published: the cycle does not act on the rows"
# What each mechanism of the cluster file costs, one at a time, and all of
# them switched off on the command line.
"$GRADSYNC" simulate project --cluster "$horovod" --model vgg16 --batch-size 64 --emulate-img-per-sec 130.9 \
  --workers 1,16,512 --strategy nccl-ring,ps-zmq --explain >"$tmp/explain.txt"
grep -qF "| vgg16 | nccl-ring | 512 |" "$tmp/explain.txt" && grep -qF "achieved-rate (0.96 of the line rate, published)" "$tmp/explain.txt" &&
  grep -qF "staging (15.8 GB/s per node, datasheet)" "$tmp/explain.txt" || fail "explain: no table of what each mechanism costs"
"$GRADSYNC" simulate project --cluster "$horovod" --model vgg16 --workers 1,16 --strategy nccl-ring \
  --without achieved-rate,cycle,staging --out "$tmp/bare.jsonl" >/dev/null
jq -s -e 'map(.simulation.costed_as) | all(test("achieved-rate|cycle|staging") | not)' "$tmp/bare.jsonl" >/dev/null ||
  fail "--without: a switched-off mechanism still acted"

# Bad input.
jq -c 'select(.kind == "collectives") | .rows |= map(select(.size_bytes == 16777216))' \
  "$data/500mbit/collectives.jsonl" >"$tmp/one-size.jsonl"
cp "$tmp/500mbit.json" "$tmp/keep.json"
expect_error 1 "at least two sizes" calibrate "$tmp/one-size.jsonl" -o "$tmp/keep.json"
cmp -s "$tmp/500mbit.json" "$tmp/keep.json" || fail "a refused calibrate changed its output file"
jq -c 'select(.kind == "collectives" and .workers == 4)' "$data/500mbit/collectives.jsonl" >"$tmp/one-count.jsonl"
expect_error 1 "at least two worker counts" calibrate "$tmp/one-count.jsonl" -o "$tmp/x.json"
expect_error 1 "unknown strategy 'bogus' (known: " simulate project --cluster "$horovod" --strategy bogus
expect_error 1 "--workers: '0-8' is not a list" simulate project --cluster "$horovod" --workers 0-8
expect_error 1 "malformed rate 'fast'" simulate project --cluster "$horovod" --inter-bandwidth fast
expect_error 1 "$tmp/missing.json: cannot read the cluster file" simulate project --cluster "$tmp/missing.json"
echo '{"schema": "gradsync.cluster", "schema_version": 1, "nodes": 2}' >"$tmp/incomplete.json"
expect_error 1 "workers_per_node" simulate project --cluster "$tmp/incomplete.json"
expect_error 1 "nccl-ring needs a GPU cluster" simulate project --cluster "$tmp/500mbit.json" --strategy nccl-ring
expect_error 1 "unknown model" simulate project --cluster "$horovod" --model nosuchnet
expect_error 2 "--without: bogus not in {achieved-rate,cycle,staging}" simulate project --cluster "$horovod" --without bogus
# The old spelling names the new one; a mode's flag given to another is refused.
expect_error 2 "simulate --validate is now a mode of its own: gradsync simulate validate --cluster FILE RESULTS..." \
  simulate --cluster "$horovod" --validate "$data/500mbit/train.jsonl"
expect_error 2 "--save-validation does not apply to simulate project" simulate project --cluster "$horovod" --save-validation "$tmp/v.json"
printf '%s\n' 'system,strategy,model,gpus,gpus_per_node,gpu,network,batch_per_gpu,single_gpu_img_per_sec,efficiency_pct' \
  'horovod,nccl-ring,vgg16,16x,4,P100,RoCE,64,130.9,86' >"$tmp/bad-table.csv"
expect_error 1 "$tmp/bad-table.csv:2:25: gpus: '16x' is not a whole number" simulate published --cluster "$horovod" "$tmp/bad-table.csv"
jq '.validation = [{"strategy": "ring-mpi", "runs": 1, "workers": [8], "median_abs_error": 0.1, "min_error": 0.2, "max_error": 0.1}]' \
  "$tmp/ext.json" >"$tmp/bad-validation.json"
expect_error 1 "validation of ring-mpi: min_error and max_error must be numbers" simulate project --cluster "$tmp/bad-validation.json"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "simulate: calibrate, validate, projection, crossover, BytePS and the published table all hold"
