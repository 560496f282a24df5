#!/usr/bin/env bash
# Every subcommand refuses a flag that does not act on what it was given
# with, instead of ignoring it: a flag of another subcommand or mode (the
# parse's), a flag that acts only with some values of the others (a
# strategy's option without that strategy, --device beside
# --emulate-img-per-sec, a mode's input-stage flags without a stage, ...),
# and simulate's old spelling, which names the new one. One table: each row
# is the exit status, the one line stderr must hold exactly, and the
# command line. Nothing runs: each is refused before any work (a second or
# so for the rows that start MPI).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
horovod=results/reference/clusters/horovod-p100-roce25.json
plain=results/reference/smpi/validation/cluster.json  # states no mechanism
table=results/reference/published-scaling.csv
runs=results/reference/cost-model/500mbit/train.jsonl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 rows=0

# refused STATUS LINE ARGS...: gradsync ARGS exits STATUS, its stderr exactly
# "gradsync: error: LINE", and writes nothing to stdout.
refused() {
  local want=$1 line=$2 status=0
  shift 2
  rows=$((rows + 1))
  "$GRADSYNC" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  if [ "$status" -ne "$want" ] || [ "$(cat "$tmp/err")" != "gradsync: error: $line" ] ||
    [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ]; then
    echo "FAIL: gradsync $* -> exit $status (want $want), stderr:" >&2
    sed 's/^/  | /' "$tmp/err" >&2
    echo "  want: gradsync: error: $line" >&2
    failures=$((failures + 1))
  fi
}

# simulate: the old spelling, and each mode's flags.
refused 2 "simulate --validate is now a mode of its own: gradsync simulate validate --cluster FILE RESULTS... (see gradsync simulate --help)" \
  simulate --cluster "$horovod" --validate "$runs"
refused 2 "simulate --published is now a mode of its own: gradsync simulate published --cluster FILE TABLE (see gradsync simulate --help)" \
  simulate --cluster "$horovod" --published "$table"
refused 2 "simulate --crossover is now a mode of its own: gradsync simulate crossover --cluster FILE --model M --map FILE (see gradsync simulate --help)" \
  simulate --cluster "$horovod" --model vgg16 --crossover "$tmp/map.json"
refused 2 "simulate --ps-server-hosts is now a mode of its own: gradsync simulate server-hosts --cluster FILE --hosts K,... (see gradsync simulate --help)" \
  simulate --cluster "$horovod" --ps-server-hosts 1,2
refused 2 "simulate needs a mode first: gradsync simulate project|validate|published|crossover|server-hosts --cluster FILE ... (a projection is gradsync simulate project; see gradsync simulate --help)" \
  simulate --cluster "$horovod" --model vgg16
refused 2 "--model does not apply to simulate published (it is a flag of train, simulate project, simulate crossover, simulate server-hosts)" \
  simulate published --cluster "$horovod" "$table" --model vgg16
refused 2 "--out does not apply to simulate crossover (it is a flag of train, sweep, calibrate, simulate project, simulate validate, simulate published, simulate server-hosts)" \
  simulate crossover --cluster "$horovod" --map "$tmp/map.json" --out "$tmp/x.jsonl"
refused 2 "--strategy does not apply to simulate validate (it is a flag of collectives, train, sweep, calibrate, simulate project, simulate crossover, simulate server-hosts)" \
  simulate validate --cluster "$horovod" "$runs" --strategy ring-mpi
refused 2 "--inter-bandwidths does not apply to simulate project (it is a flag of simulate crossover)" \
  simulate project --cluster "$horovod" --inter-bandwidths 1gbit
refused 2 "--save-validation does not apply to simulate project (it is a flag of simulate validate, simulate published)" \
  simulate project --cluster "$horovod" --save-validation "$tmp/v.json"
refused 2 "--explain does not apply to simulate server-hosts (it is a flag of simulate project)" \
  simulate server-hosts --cluster "$horovod" --hosts 1 --explain
refused 2 "--timeout does not apply to simulate project (it is a flag of collectives, train)" \
  simulate project --cluster "$horovod" --timeout 5
refused 2 "--device does not apply to simulate project --emulate-img-per-sec 100: it is for compute on a device profile, which --emulate-img-per-sec replaces" \
  simulate project --cluster "$horovod" --device a100 --emulate-img-per-sec 100
refused 2 "--input-prefetch does not apply to simulate project --input synthetic: it is for an input stage (--input decode:TIME, read:SIZE@MBPS or jpeg)" \
  simulate project --cluster "$horovod" --input-prefetch 1
refused 2 "--host-cores does not apply to simulate crossover --input read:110K@200: it is for an input stage of CPU work (--input decode:TIME or jpeg)" \
  simulate crossover --cluster "$horovod" --map "$tmp/map.json" --input read:110K@200 --host-cores 8
refused 1 "--ring-segment does not apply to simulate project (strategies nccl-ring): it is for ring-mpi, hierarchical-mpi, zero2-ring-mpi, zero3-ring-mpi" \
  simulate project --cluster "$horovod" --strategy nccl-ring --ring-segment 4K
refused 1 "--tree-segment does not apply to simulate published (strategies nccl-ring,ps-zmq of the table): it is for tree-mpi, double-tree-mpi, hierarchical-mpi" \
  simulate published --cluster "$horovod" "$table" --tree-segment 64K
refused 1 "--without cycle does not apply to simulate project --cluster $plain: it is for a cluster file that states cycle (its \"mechanisms\")" \
  simulate project --cluster "$plain" --without cycle

# train: strategies' options, compute, input stage, fusion search, timeline.
refused 2 "--ps-servers does not apply to train --strategy ring-mpi: it is for ps-zmq" \
  train --strategy ring-mpi --ps-servers 2
# Token models' sequence length, their input, and what a sharded step does not take.
refused 2 "--seq-len: a sequence length applies to token models; small-cnn takes images" \
  train --model small-cnn --seq-len 64
refused 2 "--seq-len: sequence length 2048 is outside gpt2-124m's 1..1024 positions" \
  train --model gpt2-124m --seq-len 2048
refused 2 "--input is for image models; tiny-gpt reads token ids" train --model tiny-gpt --input decode:1ms
refused 2 "zero2-mpi: --compression fp16 is not supported (sharded strategies move fp32)" \
  train --strategy zero2-mpi --compression fp16
refused 2 "--sync-order forward is for replicas: zero2-mpi all-gathers its parameters before the next forward" \
  train --strategy zero2-mpi --sync-order forward
refused 2 "--fusion-mb auto would move zero2-ring-mpi's shards between workers mid-run: give a threshold in MiB" \
  train --strategy zero2-ring-mpi --fusion-mb auto
refused 2 "zero3-ring-mpi trains in host memory: use --compute cpu or emulated" \
  train --strategy zero3-ring-mpi --compute cuda
# The optimizer's flags, each for its rule; AdamW where it does not run.
refused 2 "--momentum does not apply to train --optimizer adamw: it is for --optimizer sgd" \
  train --optimizer adamw --momentum 0.5
refused 2 "--beta2 does not apply to train --optimizer sgd: it is for --optimizer adamw" \
  train --beta2 0.99
refused 2 "--optimizer adamw runs on host parameters: use --compute cpu or emulated (on a GPU model's device blocks only SGD is built)" \
  train --optimizer adamw --compute cuda
refused 2 "ps-zmq: its servers own the parameters here (--ps-mode async or ssp) and apply SGD; --optimizer adamw is for workers that update their own: use --ps-mode sync" \
  train --strategy ps-zmq --ps-mode async --optimizer adamw
refused 2 "--optimizer does not apply to simulate crossover (it is a flag of train, simulate project)" \
  simulate crossover --cluster "$horovod" --map "$tmp/map.json" --optimizer adamw
refused 2 "--ring-segment does not apply to train --strategy tree-mpi: it is for ring-mpi, hierarchical-mpi, zero2-ring-mpi, zero3-ring-mpi" \
  train --strategy tree-mpi --ring-segment 64K
refused 2 "--short-allreduce does not apply to train --strategy ps-zmq: it is for ring-mpi, tree-mpi, double-tree-mpi, halving-doubling-mpi, hierarchical-mpi" \
  train --strategy ps-zmq --short-allreduce 0
refused 2 "--hierarchical-ranks-per-host does not apply to train --strategy none: it is for hierarchical-mpi" \
  train --strategy none --hierarchical-ranks-per-host 2
refused 2 "--ps-staleness does not apply to train --strategy ps-zmq: it is for --ps-mode ssp" \
  train --strategy ps-zmq --ps-staleness 3
refused 2 "--ps-bind does not apply to train --strategy ps-zmq: it is for --ps-transport tcp" \
  train --strategy ps-zmq --ps-transport ipc --ps-bind 127.0.0.1
refused 2 "--ps-shm does not apply to train --strategy ps-zmq: it is for --ps-mode sync" \
  train --strategy ps-zmq --ps-mode async --ps-shm off
refused 2 "--ps-schedule does not apply to train --strategy ps-zmq: it is for --ps-mode sync" \
  train --strategy ps-zmq --ps-mode async --ps-schedule rotated
refused 2 "--ps-window does not apply to train --strategy ps-zmq: it is for --ps-schedule rotated" \
  train --strategy ps-zmq --ps-window 4
refused 2 "--ps-sum-threads does not apply to train --strategy ps-zmq: it is for --ps-shm auto or copy" \
  train --strategy ps-zmq --ps-shm off --ps-sum-threads 2
refused 2 "--device does not apply to train --compute cpu: it is for --compute emulated" \
  train --compute cpu --device a100
refused 2 "--device does not apply to train --emulate-img-per-sec 100: it is for compute on a device profile, which --emulate-img-per-sec replaces" \
  train --compute emulated --emulate-img-per-sec 100 --device a100
refused 2 "--emulate-img-per-sec does not apply to train --compute cpu: it is for --compute emulated" \
  train --compute cpu --emulate-img-per-sec 100
refused 2 "--time-scale does not apply to train --compute cpu: it is for --compute emulated" \
  train --compute cpu --time-scale 2
refused 2 "--precision mixed is for --compute cuda (cpu compute runs in fp32)" \
  train --compute cpu --precision mixed
refused 2 "--fusion-search-steps does not apply to train --fusion-mb 16: it is for --fusion-mb auto" \
  train --fusion-mb 16 --fusion-search-steps 4
refused 2 "--timeline-steps does not apply to train without --timeline: it is for --timeline" \
  train --timeline-steps 3
refused 2 "--input-threads does not apply to train --input synthetic: it is for an input stage (--input decode:TIME, read:SIZE@MBPS or jpeg)" \
  train --input-threads 2

# collectives: the engines' flags, and the strategies'.
refused 2 "--mtu does not apply to collectives --engine native: it is for --engine smpi" \
  collectives --mtu 9000
refused 2 "--cluster does not apply to collectives --engine native: it is for --engine smpi or model" \
  collectives --cluster "$plain" --workers 4
refused 2 "--hosts-per-leaf does not apply to collectives --topology switch: it is for --topology fat-tree" \
  collectives --engine smpi --cluster "$plain" --workers 4 --hosts-per-leaf 2
refused 2 "--timeout does not apply to collectives --engine smpi: it is off under SMPI, where SimGrid reports a deadlock itself" \
  collectives --engine smpi --cluster "$plain" --workers 4 --timeout 5
refused 2 "--ps-curve does not apply to collectives --engine smpi --strategy ps-zmq: it is for --ps-transport tcp or ipc" \
  collectives --engine smpi --cluster "$plain" --workers 4 --strategy ps-zmq --ps-curve on
refused 2 "--iters does not apply to collectives --engine model: it is for the engines that run the allreduce (native, smpi)" \
  collectives --engine model --cluster "$plain" --workers 4 -n 5
refused 2 "--ps-curve does not apply to collectives --engine model: it is not read by the cost model (it acts on real runs)" \
  collectives --engine model --cluster "$plain" --workers 4 --strategy ps-zmq --ps-curve off
refused 2 "--ps-servers does not apply to collectives --strategy ring-mpi,tree-mpi: it is for ps-zmq" \
  collectives --strategy ring-mpi,tree-mpi --ps-servers 2

# sweep: its launcher's flags, and --train-args that act on none of its runs.
refused 2 "--hostfile does not apply to sweep --launcher srun: it is for --launcher mpirun (srun places ranks in its allocation)" \
  sweep --out "$tmp/sweep" --launcher srun --hostfile hosts
refused 2 "--ps-servers (in --train-args) does not apply to sweep --strategy none,ring-mpi --models small-cnn:cpu: it is for ps-zmq" \
  sweep --out "$tmp/sweep" --strategy none,ring-mpi --models small-cnn:cpu --train-args "--ps-servers 2"
refused 2 "--fusion-search-steps (in --train-args) does not apply to sweep --strategy none,ring-mpi --models small-cnn:cpu: it is for --fusion-mb auto" \
  sweep --out "$tmp/sweep" --strategy none,ring-mpi --models small-cnn:cpu --fusion-mb 4,16 \
  --train-args "--fusion-search-steps 2"
refused 2 "--model does not apply to sweep (it is a flag of train, simulate project, simulate crossover, simulate server-hosts)" \
  sweep --out "$tmp/sweep" --model vgg16

# report, compare, calibrate, strategies, models.
refused 2 "--metric does not apply to report --format json: it is for the markdown tables and --csv" \
  report "$runs" --format json --metric time
refused 2 "--json does not apply to report (it is a flag of collectives, strategies, models)" \
  report "$runs" --json "$tmp/x.jsonl"
refused 2 "--metric does not apply to compare (it is a flag of report)" \
  compare "$runs" "$runs" --metric time
refused 2 "--model does not apply to calibrate (it is a flag of train, simulate project, simulate crossover, simulate server-hosts)" \
  calibrate "$runs" -o "$tmp/c.json" --model vgg16
refused 2 "--with-baseline requires --names (see gradsync --help)" \
  strategies --with-baseline
refused 2 "--all does not apply to models (it is a flag of strategies)" \
  models --all

[ "$failures" -eq 0 ] || { echo "$failures of $rows refusals failed" >&2; exit 1; }
echo "refusals: all $rows rows refused in one line, with their status"
