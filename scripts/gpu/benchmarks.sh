# shellcheck shell=bash
# Steps 3 to 5 of scripts/gpu-check.sh, on one rank: NCCL collectives, the
# host strategies staged through device memory, training with CUDA compute,
# and PyTorch's DDP over NCCL on the same workload. Sourced by the driver
# after scripts/gpu/tests.sh.

# --- 3. collectives on device memory, one rank -------------------------------
# One rank: NCCL's allreduce is a local copy and busbw is 0 by definition, so
# the figure is the time and algbw at the largest size; this checks that the
# NCCL path initialises, moves device buffers and passes the exact-sum check.
# Then the host strategies on device buffers (--memory device): each bucket
# staged through pinned host memory, the copies in the stage(us) column.
# collectives_step STEP NAMES ARGS...: one run, one row per strategy in NAMES.
collectives_step() {
  local step=$1 names=$2 status=0 name
  shift 2
  if [ "$gpu_steps" = 0 ] || [ -z "$names" ]; then
    note "$step" SKIP "$([ -z "$names" ] && [ "$gpu_steps" = 1 ] && echo "no such strategy built" || skip_reason)"
    return 0
  fi
  time_for "$step" 30 || return 0
  run_step "$step" "$(cap 120)" "${launch[@]}" collectives --strategy "$names" "$@" \
    --json "$out/collectives.jsonl" || status=$?
  [ "$dry_run" = 0 ] || return 0
  for name in ${names//,/ }; do
    note_verdict "$step $name" "$(report collectives-verdict "$steps/$step.out" "$status" "$name")"
  done
}
collectives_step collectives "$device_set" -b 8 -e 256M -f 4
collectives_step staged "$host_set" --memory device -b 1M -e 64M -f 4

# Short Horovod schedules: enough steps after warm-up (cuDNN picks its
# algorithms in the first ones) for a stable img/sec, little GPU time.
# resnet50 fp32 also runs once with the first device strategy, so device
# gradients go through the synchronizer and NCCL (one rank: a copy) as in a
# multi-GPU run. The order keeps what matters most inside the budget: fp32,
# then the DDP reference on the same workload, then the other precisions
# (tf32, the optional one, last).
schedule=(--num-warmup-batches 5 --num-batches-per-iter 10 --num-iters 3)

# --- 3b. two ranks on one GPU --------------------------------------------------
# Host-staged strategies let ranks share a GPU: two ranks of ring-mpi train
# with CUDA compute on GPU 0 (the run fails unless both end with identical
# parameters). NCCL needs one GPU per rank: with one GPU visible, two
# nccl-ring ranks must be refused in one line; with two or more, they run
# and their sums are checked.
pair=(bash scripts/mpirun.sh -np 2 "$gradsync")
shared_train_step() {
  local step="shared train ring-mpi np2" status=0
  if [ "$gpu_steps" = 0 ]; then note "$step" SKIP "$(skip_reason)"; return 0; fi
  if ! command -v mpirun >/dev/null && [ "$dry_run" = 0 ]; then note "$step" SKIP "tool missing: mpirun"; return 0; fi
  time_for "$step" 20 || return 0
  run_step shared-train "$(cap 120)" "${pair[@]}" train --compute cuda --model small-cnn --batch-size 32 \
    --precision fp32 --strategy ring-mpi "${schedule[@]}" --out "$out/train.jsonl" || status=$?
  [ "$dry_run" = 1 ] || note_verdict "$step" "$(report train-verdict "$steps/shared-train.out" "$status")"
}
shared_nccl_step() {
  local step="shared nccl-ring np2" status=0 gpus
  if [ "$gpu_steps" = 0 ] || { [ "$dry_run" = 0 ] && ! grep -q nccl-ring <<<"$device_set"; }; then
    note "$step" SKIP "$([ "$gpu_steps" = 1 ] && echo "nccl-ring not built" || skip_reason)"
    return 0
  fi
  if ! command -v mpirun >/dev/null && [ "$dry_run" = 0 ]; then note "$step" SKIP "tool missing: mpirun"; return 0; fi
  time_for "$step" 20 || return 0
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  run_step shared-nccl "$(cap 60)" "${pair[@]}" collectives --strategy nccl-ring -b 8 -e 64M -f 8 \
    --json "$out/collectives.jsonl" || status=$?
  [ "$dry_run" = 0 ] || return 0
  if [ "${gpus:-0}" -ge 2 ]; then
    note_verdict "$step" "$(report collectives-verdict "$steps/shared-nccl.out" "$status" nccl-ring)"
  elif [ "$status" = 124 ] || [ "$status" = 137 ]; then
    note_verdict "$step" "$(failure shared-nccl "$status")"
  elif [ "$status" != 0 ] && grep -q "NCCL needs one GPU per rank" "$steps/shared-nccl.out"; then
    note "$step" PASS "refused in one line on one GPU: $(grep -m1 -o "ranks [0-9]* and [0-9]* on .*would share GPU [0-9]*" "$steps/shared-nccl.out")"
  else
    note "$step" FAIL "two nccl-ring ranks on one GPU were not refused with the one-GPU-per-rank line (exit $status)"
  fi
}
shared_train_step
shared_nccl_step

# --- 4. training with CUDA compute, 5. the DDP reference ----------------------
train_step() {  # train_step MODEL BATCH PRECISION STRATEGY
  local model=$1 batch=$2 precision=$3 strategy=$4 status=0 step name
  step="train $model b$batch $precision"
  [ "$strategy" = "$baseline" ] || step+=" $strategy"
  if [ "$gpu_steps" = 0 ]; then note "$step" SKIP "$(skip_reason)"; return 0; fi
  time_for "$step" "$([ "$precision" = tf32 ] && echo 60 || echo 20)" || return 0
  name=train-${model}-${precision}-${strategy}
  run_step "$name" "$(cap 150)" "${launch[@]}" train --compute cuda --model "$model" --batch-size "$batch" \
    --precision "$precision" --strategy "$strategy" "${schedule[@]}" --out "$out/train.jsonl" || status=$?
  [ "$dry_run" = 1 ] || note_verdict "$step" "$(report train-verdict "$steps/$name.out" "$status")"
}

# A python3 with PyTorch built for CUDA (the system's, or a virtual
# environment's in /opt, as GPU images keep it).
torch_python() {
  local py
  for py in python3 /usr/bin/python3 /opt/*/.venv/bin/python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    "$py" -c 'import torch, sys; sys.exit(0 if torch.version.cuda else 1)' 2>/dev/null && { echo "$py"; return 0; }
  done
  return 1
}
ddp_step() {  # ResNet-50 fp32 under PyTorch DDP over NCCL, 1 worker: the figure to hold gradsync's against
  local step="ddp-nccl resnet50 b64 fp32" py status=0
  if [ "$gpu" = "" ] && [ "$force_gpu" = 0 ] && [ "$dry_run" = 0 ]; then note "$step" SKIP "no GPU visible"; return 0; fi
  py=$(torch_python) || py=""
  if [ -z "$py" ] && [ "$dry_run" = 0 ]; then note "$step" SKIP "tool missing: no python3 with PyTorch for CUDA"; return 0; fi
  time_for "$step" 40 || return 0
  run_step ddp-nccl "$(cap 150)" "${py:-python3}" scripts/ddp-reference.py --compute cuda --workers 1 \
    --model resnet50 --batch-size 64 "${schedule[@]}" --out "$out/train.jsonl" || status=$?
  [ "$dry_run" = 1 ] || note_verdict "$step" "$(report train-verdict "$steps/ddp-nccl.out" "$status")"
}

for p in $precisions; do
  train_step small-cnn 32 "$p" "$baseline"
  train_step resnet50 64 "$p" "$baseline"
  if [ "$p" = fp32 ]; then
    [ -z "$device_sync" ] || train_step resnet50 64 fp32 "$device_sync"
    ddp_step
  fi
done
case " $precisions " in *" fp32 "*) ;; *) ddp_step ;; esac
