#!/usr/bin/env bash
# `gradsync train` and `gradsync sweep` end to end on the small CNN: Horovod's
# lines are printed, the record is appended (and earlier lines kept), the
# parameters agree across workers, the loss falls; a small transformer under a
# sharded strategy records its traffic and memory; a tiny sweep ends with the
# efficiency table; bad arguments, and cuda compute without a GPU, give one
# line and a non-zero exit.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
short=(--model small-cnn --batch-size 8 --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2)

echo '{"kept": "a line that was here before"}' >"$tmp/train.jsonl"
for strategy in ring-mpi ps-zmq; do
  "$MPIRUN" -np 2 "$GRADSYNC" train "${short[@]}" --strategy "$strategy" --out "$tmp/train.jsonl" \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train $strategy: exit status"; }
  for line in "Img/sec per worker: " "Total img/sec on 2 worker(s): " "Iter #1: " \
    "Parameters identical on all workers: yes" "Step time (slowest worker, 4 steps)"; do
    grep -qF -- "$line" "$tmp/out" || { cat "$tmp/out"; fail "train $strategy: no '$line'"; }
  done
done
[ "$(head -1 "$tmp/train.jsonl")" = '{"kept": "a line that was here before"}' ] || fail "earlier line lost"
[ "$(wc -l <"$tmp/train.jsonl")" -eq 3 ] || fail "expected 2 records after the kept line"

# Forward order: the header says so, the record keeps it, and a report keeps
# its runs apart from arrival order's.
"$MPIRUN" -np 2 "$GRADSYNC" train "${short[@]}" --strategy ring-mpi --fusion-mb 0.01 \
  --sync-order forward --out "$tmp/order.jsonl" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "train --sync-order forward: exit status"; }
grep -qF "overlap on, forward order" "$tmp/out" || { cat "$tmp/out"; fail "no forward order in the header"; }
grep -qF "Parameters identical on all workers: yes" "$tmp/out" || { cat "$tmp/out"; fail "forward order: parameters"; }
tail -1 "$tmp/order.jsonl" | grep -qF '"order":"forward"' || fail "the record lacks sync.order"
"$GRADSYNC" report "$tmp/order.jsonl" >"$tmp/report" || fail "report of a forward-order run"
grep -qF "ring-mpi fusion 0.01M forward order" "$tmp/report" || { cat "$tmp/report"; fail "report label"; }
tail -1 "$tmp/train.jsonl" | grep -q '"kind":"train"' || fail "last line is not a train record"
tail -1 "$tmp/train.jsonl" | grep -q '"correct":true' || fail "record does not say correct"
for field in '"precision":null' '"gpu":null' '"staging_s":0.0'; do
  tail -1 "$tmp/train.jsonl" | grep -qF "$field" || fail "cpu record lacks $field"
done

# A transformer under a sharded strategy: the parameters agree, the output
# says the traffic against the allreduce formula and the memory per worker,
# and the record carries the sequence length, the traffic and the memory;
# the report names the model with its length.
"$MPIRUN" -np 2 "$GRADSYNC" train --model tiny-gpt --seq-len 16 --batch-size 4 --num-warmup-batches 1 \
  --num-batches-per-iter 2 --num-iters 2 --strategy zero2-ring-mpi --fusion-mb 0.05 \
  --out "$tmp/tiny.jsonl" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "train tiny-gpt zero2-ring-mpi"; }
for line in "Parameters identical on all workers: yes" "Traffic per worker and step: " \
  "(a bandwidth-optimal allreduce sends " "Memory per worker: " "optimizer state "; do
  grep -qF -- "$line" "$tmp/out" || { cat "$tmp/out"; fail "tiny-gpt: no '$line'"; }
done
for field in '"sequence_length":16' '"traffic":{' '"memory":{' '"optimizer_bytes":'; do
  tail -1 "$tmp/tiny.jsonl" | grep -qF "$field" || fail "tiny-gpt record lacks $field"
done
"$GRADSYNC" report "$tmp/tiny.jsonl" >"$tmp/report" || fail "report of a tiny-gpt run"
grep -qF "| tiny-gpt T16 | cpu | 4 | zero2-ring-mpi fusion 0.05M |" "$tmp/report" ||
  { cat "$tmp/report"; fail "report: no tiny-gpt T16 row"; }
grep -qF "Memory per worker: MiB" "$tmp/report" || { cat "$tmp/report"; fail "report: no memory table"; }

# The loss falls on the learnable synthetic data within a few dozen steps:
# from its start to below a quarter of chance level (ln 10 = 2.30 for 10 classes).
"$GRADSYNC" train --model small-cnn --batch-size 32 --num-warmup-batches 0 --num-batches-per-iter 10 \
  --num-iters 3 --strategy none --lr 0.003 >"$tmp/loss" 2>&1 || { cat "$tmp/loss"; fail "train none"; }
read -r first last < <(sed -n 's/^Loss: \([0-9.]*\) at the first step, \([0-9.]*\) at the last$/\1 \2/p' "$tmp/loss")
awk -v f="$first" -v l="$last" 'BEGIN { exit !(l < f && l < 0.25 * 2.302585) }' ||
  { cat "$tmp/loss"; fail "loss did not fall below a quarter of chance in 30 steps: $first -> $last"; }

# A tiny sweep: two worker counts, the baseline and one strategy.
"$GRADSYNC" sweep --workers 1,2 --strategy none,ring-mpi --models small-cnn:cpu --out "$tmp/sweep" \
  --train-args "--batch-size 8 --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2" \
  >"$tmp/sweep.out" 2>&1 || { cat "$tmp/sweep.out"; fail "sweep: exit status"; }
grep -qF "[ 4/4]" "$tmp/sweep.out" || { cat "$tmp/sweep.out"; fail "sweep: no progress line for run 4"; }
grep -q '^| small-cnn | cpu | 8 | ring-mpi | [0-9.]*% | [0-9.]*% |$' "$tmp/sweep.out" ||
  { cat "$tmp/sweep.out"; fail "sweep: no efficiency row for ring-mpi"; }
[ "$(ls "$tmp/sweep/logs" | wc -l)" -eq 4 ] || fail "sweep: expected 4 logs"

# Bad arguments: one line, non-zero exit.
for args in "train --model nosuch" "train --strategy bogus" "sweep --out $tmp/x --workers 0" \
  "train --compute emulated --device nosuch"; do
  status=0
  "$GRADSYNC" $args >/dev/null 2>"$tmp/err" || status=$?
  [ "$status" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^gradsync: error: ' "$tmp/err" ||
    { cat "$tmp/err"; fail "gradsync $args: exit $status, expected one error line"; }
done
# --compute cuda where no GPU is visible (hidden with CUDA_VISIBLE_DEVICES, so
# this holds on GPU machines too): one line naming the missing GPU (or, in a
# build without CUDA, the missing CUDA), non-zero exit, alone and under mpirun.
# --precision without --compute cuda: a usage error (exit 2).
for np in "" 2; do
  status=0
  if [ -n "$np" ]; then
    CUDA_VISIBLE_DEVICES= "$MPIRUN" --quiet -np "$np" "$GRADSYNC" train "${short[@]}" --compute cuda \
      >/dev/null 2>"$tmp/err" || status=$?
  else
    CUDA_VISIBLE_DEVICES= "$GRADSYNC" train "${short[@]}" --compute cuda >/dev/null 2>"$tmp/err" || status=$?
  fi
  [ "$status" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -Eq '^gradsync: error: (no GPU visible on .+ \(.+\)|--compute cuda: not built in)' "$tmp/err" ||
    { cat "$tmp/err"; fail "train --compute cuda without a GPU (np=${np:-none}): exit $status, expected one error line"; }
done
# A named value the flag does not know is a usage error (exit 2) naming the
# flag and the known values, never run as some default.
for args in "--compute bogus|--compute: bogus not in {cpu,emulated,cuda}" \
  "--precision fp64|--precision: fp64 not in {fp32,tf32,mixed}" "--overlap yes|--overlap: yes not in {on,off}"; do
  status=0
  "$GRADSYNC" train ${args%%|*} >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
    grep -qF "gradsync: error: ${args#*|}" "$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; fail "train ${args%%|*}: exit $status, expected a usage error"; }
done
status=0
"$GRADSYNC" train --precision mixed >/dev/null 2>"$tmp/err" || status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -qF 'gradsync: error: --precision mixed is for --compute cuda' "$tmp/err" ||
  { cat "$tmp/err"; fail "train --precision mixed without cuda: exit $status, expected a usage error"; }
echo "train: Horovod lines, records, loss falls, sweep table, errors"
