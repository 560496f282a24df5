# shellcheck shell=bash
# Step 2 of scripts/gpu-check.sh: a CPU sanity run, then the GPU
# GoogleTests. Sourced by the driver after scripts/gpu/build.sh.

# --- CPU sanity: two ranks over MPI and ZeroMQ ---------------------------------
# A few seconds that tell a broken bundle (Open MPI relocation, ZeroMQ,
# OpenBLAS) apart from a GPU problem in the steps that follow.
if [ "$built" = 1 ] && command -v mpirun >/dev/null; then
  status=0
  run_step cpu-sanity "$(cap 60)" bash scripts/mpirun.sh -np 2 "$gradsync" collectives -b 4K -e 1M -f 16 -n 5 -w 1 \
    --strategy "$host_set" || status=$?
  if [ "$dry_run" = 0 ]; then
    if [ "$status" = 0 ]; then note cpu-sanity PASS "2 ranks: ${host_set//,/, } correct up to 1 MiB"
    else note_verdict cpu-sanity "$(failure cpu-sanity "$status")"; fi
  fi
else
  note cpu-sanity SKIP "$([ "$built" = 0 ] && skip_reason || echo "tool missing: mpirun")"
fi

# --- 2. GPU tests ----------------------------------------------------------
# The test binaries directly (ctest -R would run the same tests, one process
# each, without the skip reasons). Unlike the steps below, the tests also run
# without a GPU: they must skip themselves, with a reason, there.
filter='*Cuda*:*Gpu*:*Nccl*:*Device*:*CUDA*:*GPU*:*NCCL*:*cuda*:*nccl*'
gtest_step() {  # gtest_step NAME LIMIT CMD...: a GoogleTest run, summarized
  local name=$1 limit=$2 status=0
  shift 2
  time_for "$name" 30 || return 0
  run_step "$name" "$(cap "$limit")" "$@" --gtest_filter="$filter" --gtest_color=no || status=$?
  [ "$dry_run" = 0 ] || return 0
  # Which tests the filter caught, each skipped one with its reason, and the
  # failed ones, so that a PASS can be judged.
  report gtest-details "$name" "$steps/$name.out"
  note_verdict "$name" "$(report gtest-verdict "$name" "$steps/$name.out" "$status")"
}
if [ "$built" = 1 ]; then
  gtest_step gpu-tests 180 "$build/tests/gradsync_unit_tests" --gtest_output=xml:"$out/gpu-tests.xml"
  # The multi-rank suites are parameterized over every usable strategy, so
  # with a GPU they hold nccl_ring/nccl_tree cases. Two ranks: on one GPU the
  # host-staged cases share it and the NCCL cases skip with the line that
  # refuses NCCL ranks a shared GPU; on two or more GPUs all of them run.
  if command -v mpirun >/dev/null; then
    gtest_step gpu-mpi-tests 180 bash scripts/mpirun.sh -np 2 "$build/tests/gradsync_mpi_tests"
  fi
else
  note gpu-tests SKIP "$(skip_reason)"
fi
