# shellcheck shell=bash
# Steps 3 and 4 of scripts/gpu-check.sh: NCCL collectives and training with
# CUDA compute, on one rank. Sourced by the driver after scripts/gpu/tests.sh.

# --- 3. NCCL collectives on one rank ----------------------------------------
# One rank: NCCL's allreduce is a local copy and busbw is 0 by definition, so
# the figure is the time and algbw at the largest size; this checks that the
# NCCL path initialises, moves device buffers and passes the exact-sum check.
if [ "$gpu_steps" = 1 ]; then
  status=0
  run_step collectives "$(cap 150)" "${launch[@]}" collectives --strategy "$device_set" -b 8 -e 256M -f 4 \
    --json "$out/collectives.jsonl" || status=$?
  if [ "$dry_run" = 0 ]; then
    note_verdict collectives "$(report collectives-verdict "$steps/collectives.out" "$status" "$device_set")"
  fi
else
  note collectives SKIP "$(skip_reason)"
fi

# --- 4. training with CUDA compute ------------------------------------------
# Short Horovod schedules: enough steps after warm-up (cuDNN picks its
# algorithms in the first ones) for a stable img/sec, little device time.
# resnet50 fp32 also runs once with the first device strategy, so device
# gradients go through the synchronizer and NCCL (one rank: a copy) as in a
# multi-GPU run.
schedule=(--num-warmup-batches 5 --num-batches-per-iter 10 --num-iters 3)
train_runs=()
for p in $precisions; do
  train_runs+=("small-cnn 32 $p $baseline" "resnet50 64 $p $baseline")
  [ "$p" != fp32 ] || [ -z "$device_sync" ] || train_runs+=("resnet50 64 $p $device_sync")
done
for run in "${train_runs[@]}"; do
  read -r model batch precision strategy <<<"$run"
  step="train $model b$batch $precision"
  [ "$strategy" = "$baseline" ] || step+=" $strategy"
  if [ "$gpu_steps" = 0 ]; then note "$step" SKIP "$(skip_reason)"; continue; fi
  # tf32 is the optional one: skipped once the time budget is short.
  if [ "$precision" = tf32 ] && [ "$(left)" -lt 60 ]; then note "$step" SKIP "time budget (${budget}s) spent"; continue; fi
  if [ "$(left)" -lt 20 ]; then note "$step" SKIP "time budget (${budget}s) spent"; continue; fi
  status=0
  name=train-${model}-${precision}-${strategy}
  run_step "$name" "$(cap 150)" "${launch[@]}" train --compute cuda --model "$model" --batch-size "$batch" \
    --precision "$precision" --strategy "$strategy" "${schedule[@]}" --out "$out/train.jsonl" || status=$?
  [ "$dry_run" = 1 ] && continue
  note_verdict "$step" "$(report train-verdict "$steps/$name.out" "$status")"
done
