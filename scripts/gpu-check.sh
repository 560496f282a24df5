#!/usr/bin/env bash
# The GPU check: one short, self-contained run (at most about 8 minutes on a
# 16-core GPU machine) that builds gradsync with CUDA and checks its GPU side:
#   1. build     Release, GRADSYNC_CUDA=ON, tests on, benchmarks off, into build-gpu/;
#                then a 2-rank CPU sanity run (MPI and ZeroMQ work, GPU or not)
#   2. tests     the GPU GoogleTests (names matching Cuda|Gpu|Nccl|Device) of the unit
#                and (one rank) multi-rank suites: which ran, which were skipped and why
#   3. nccl      gradsync collectives over the strategies that reduce device memory
#                (gradsync strategies --names --all --memory device) -b 8 -e 256M -f 4, 1 rank
#   4. train     gradsync train --compute cuda: small-cnn and resnet50 (batch 64), per
#                --precision fp32, mixed, tf32 (tf32 only while time is left), img/sec
#   5. summary   one line per step, PASS/FAIL/SKIP with its figure
# Every step has its own timeout; a failed step does not stop the others.
#
#   scripts/gpu-check.sh [--dry-run] [--skip-build] [--no-gpu-ok] [--help]
#
# Works on a GPU box with Debian's packages installed (scripts/install-deps.sh)
# and on a machine without them (the lent H200) through the bundle that
# scripts/gpu-deps.sh makes: .gpu-deps/, or .gpu-deps.tar.xz, which is unpacked
# first. NCCL and cuDNN are taken from the CUDA toolkit, the system, or else
# NVIDIA's Python wheels (nvidia-nccl-*, nvidia-cudnn-*) of any python3 here.
#
# On the lent machine (its device tool copies the working tree of the
# session's checkout plus named ignored paths): first, here, on Debian 12,
# scripts/gpu-deps.sh; then run command "bash scripts/gpu-check.sh" with
# carry [".gpu-deps.tar.xz"] and timeout_s 540 (the script keeps to
# GPU_CHECK_BUDGET_S, 450 s, past which steps are cut short or skipped).
#
# Output: the summary last on stdout; with $OUT set (the device tool returns
# what is under it), also $OUT/gpu-check.txt (summary), gpu-check.log (every
# command's output), collectives.jsonl and train.jsonl (result records) and
# gpu-tests.xml. Without $OUT they go to build-gpu/gpu-check/.
#
# Exit: 0 every step passed (or was skipped for time); 1 a step failed;
# 3 no GPU is visible, so the GPU steps were skipped (--no-gpu-ok makes that 0,
# --force-gpu-steps runs them anyway to see how they fail).
#
# Environment: GPU_CHECK_BUILD_DIR (build-gpu), GPU_CHECK_JOBS (all cores),
# GPU_CHECK_BUDGET_S (450: steps are cut short or skipped past it, tf32 first),
# GPU_CHECK_PRECISIONS ("fp32 mixed tf32"), GPU_CHECK_BUILD_TIMEOUT (360 s).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
dry_run=0 skip_build=0 no_gpu_ok=0 force_gpu=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --skip-build) skip_build=1 ;;
    --no-gpu-ok) no_gpu_ok=1 ;;
    --force-gpu-steps) force_gpu=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: error: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

build=${GPU_CHECK_BUILD_DIR:-build-gpu}
jobs=${GPU_CHECK_JOBS:-$(nproc)}
budget=${GPU_CHECK_BUDGET_S:-450}
precisions=${GPU_CHECK_PRECISIONS:-fp32 mixed tf32}
build_abs=$(mkdir -p "$build" && cd "$build" && pwd)
out=${OUT:-$build_abs/gpu-check}
# Each step's own output, read back for its figure; kept out of $OUT, from
# which the device tool returns 8 files at most (the log holds them all).
steps=$build_abs/gpu-check-steps
mkdir -p "$out" "$steps"
log=$out/gpu-check.log
: >"$log"
start=$SECONDS
summary=()   # "step|STATUS|figure"
failed=0

say() { echo "gpu-check: $*"; echo "gpu-check: $*" >>"$log"; }
note() { [ "$dry_run" = 0 ] || return 0; summary+=("$1|$2|$3"); say "$(printf '%-28s %-4s %s' "$1" "$2" "$3")"; [ "$2" != FAIL ] || failed=1; }
left() { echo $((budget - (SECONDS - start))); }
# cap LIMIT: a step's own limit, or less when the budget has less left (never
# under 20 s, so that a step that starts still has a chance).
cap() { local l; l=$(left); [ "$l" -lt 20 ] && l=20; [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }

reap() {  # kill every process whose program lies in this build directory
  local p exe
  for p in /proc/[0-9]*; do
    exe=$(readlink "$p/exe" 2>/dev/null) || continue
    case "$exe" in "$build_abs"/*) kill -9 "${p#/proc/}" 2>/dev/null && echo "gpu-check: ended leftover ${p#/proc/} ($exe)" >>"$log" ;; esac
  done
  return 0
}

# run_step NAME TIMEOUT CMD...: runs CMD under its own timeout, its output to
# the log (and to $steps/NAME.out for the caller to read); returns its status,
# 124 on timeout. In --dry-run, prints the command instead.
run_step() {
  local name=$1 limit=$2 status=0
  shift 2
  if [ "$dry_run" = 1 ]; then echo "[dry-run] ($name, ${limit}s) $*"; : >"$steps/$name.out"; return 0; fi
  echo "=== $name ($(date -u +%H:%M:%S), limit ${limit}s): $*" >>"$log"
  timeout --kill-after=15 "$limit" "$@" >"$steps/$name.out" 2>&1 || status=$?
  cat "$steps/$name.out" >>"$log"
  echo "=== $name: exit $status after $((SECONDS - start))s in all" >>"$log"
  # A step cut off by its timeout can leave ranks behind (mpirun starts them in
  # their own sessions): end this build's processes, by id, before going on.
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then reap; fi
  if [ "$status" != 0 ]; then
    # The reason is usually at the end: show it where the caller reads.
    tail -n 15 "$steps/$name.out" | sed "s/^/  $name| /"
  fi
  return "$status"
}
why() {  # one line saying why step output $1 with status $2 failed
  [ "$2" = 124 ] || [ "$2" = 137 ] && { echo "timed out"; return; }
  local line
  line=$(grep -E 'error|Error|ERROR|failed|FAILED' "$steps/$1.out" | grep -v '^\[  FAILED' | tail -n 1 || true)
  echo "exit $2${line:+: ${line:0:160}}"
}

# --- the environment -------------------------------------------------------
# The Debian bundle (scripts/gpu-deps.sh): unpack the tarball when only it
# travelled (python3's tarfile where tar has no xz).
if [ ! -d .gpu-deps ] && [ -f .gpu-deps.tar.xz ]; then
  if [ "$dry_run" = 1 ]; then
    echo "[dry-run] would unpack .gpu-deps.tar.xz"
  else
    say "unpacking .gpu-deps.tar.xz"
    tar -xJf .gpu-deps.tar.xz 2>>"$log" ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".")' .gpu-deps.tar.xz ||
      { echo "gpu-check: error: cannot unpack .gpu-deps.tar.xz" >&2; exit 2; }
  fi
fi
if [ -f .gpu-deps/env.sh ]; then
  # shellcheck source=/dev/null
  . .gpu-deps/env.sh
  need=$(sed -n 's/^glibc_needed: //p' .gpu-deps/MANIFEST 2>/dev/null || true)
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  if [ -n "$need" ] && [ -n "$have" ] &&
    [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" != "$need" ]; then
    echo "gpu-check: error: the bundle .gpu-deps needs glibc >= $need, this machine has $have: build gradsync elsewhere and carry the binaries" >&2
    exit 2
  fi
  say "using the Debian bundle $GPU_DEPS (glibc $have, needs >= ${need:-?})"
fi

# CMake and ninja may come as Python packages (the H200 image's are), whose
# commands live in a virtual environment that PATH may not name; nvcc in the
# CUDA toolkit's bin.
for tool in cmake ninja; do
  command -v "$tool" >/dev/null && continue
  for d in /opt/*/.venv/bin /usr/local/bin; do
    if [ -x "$d/$tool" ]; then export PATH=$PATH:$d; break; fi
  done
done
command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH=$PATH:/usr/local/cuda/bin
for tool in cmake ninja; do
  command -v "$tool" >/dev/null || { echo "gpu-check: error: no $tool on PATH (nor in /opt/*/.venv/bin): it is needed to build" >&2; exit 2; }
done

# What this machine is: the first thing to read when a step fails here.
{
  echo "=== machine"
  grep -h '^PRETTY_NAME' /etc/os-release 2>/dev/null || true
  echo "glibc $(getconf GNU_LIBC_VERSION 2>/dev/null); $(nproc) cores; kernel $(uname -r)"
  for t in c++ g++ cmake ninja nvcc mpirun pkg-config python3; do
    printf '%-10s %s\n' "$t" "$(command -v "$t" 2>/dev/null || echo '-') $("$t" --version 2>/dev/null | grep -m1 -E '[0-9]+\.[0-9]+' || true)"
  done
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
} >>"$log" 2>&1

# Is there a GPU? nvidia-smi answers, or the device node exists.
gpu=""
if command -v nvidia-smi >/dev/null && gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1) && [ -n "$gpu" ]; then
  :
elif [ -e /dev/nvidia0 ]; then
  gpu="/dev/nvidia0 (nvidia-smi did not answer)"
fi
[ -n "$gpu" ] && say "GPU: $gpu" || say "no GPU visible (no nvidia-smi answer, no /dev/nvidia0)"

# NCCL and cuDNN: CMake looks in the CUDA toolkit and in $NCCL_HOME/$CUDNN_HOME
# (cmake/GradsyncCuda.cmake). When neither the toolkit nor the system has
# them, use NVIDIA's wheels. The wheels ship libnccl.so.2 / libcudnn.so.9 but
# not the unversioned names that find_library needs, and are not ours to
# change: link them from a shim directory inside the build directory.
nvcc_bin=$(command -v nvcc || true)
[ -n "$nvcc_bin" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc_bin=/usr/local/cuda/bin/nvcc
cuda_root=${nvcc_bin:+$(dirname "$(dirname "$(readlink -f "$nvcc_bin")")")}
system_has() {  # system_has LIB HEADER: the unversioned library and header in the usual places
  local d found=""
  for d in ${cuda_root:+$cuda_root/lib64 $cuda_root/lib} /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu; do
    [ -e "$d/lib$1.so" ] && found=1
  done
  [ -n "$found" ] || return 1
  for d in ${cuda_root:+$cuda_root/include} /usr/local/cuda/include /usr/include; do
    [ -e "$d/$2" ] && return 0
  done
  return 1
}
wheel_dirs() {  # wheel_dirs NAME: site-packages/nvidia/NAME of every python3 we can see
  {
    for py in python3 /usr/bin/python3 /opt/*/.venv/bin/python3; do
      command -v "$py" >/dev/null 2>&1 || continue
      "$py" - "$1" 2>/dev/null <<'EOF' || true
import importlib.util, sys
spec = importlib.util.find_spec("nvidia." + sys.argv[1])
for p in (spec.submodule_search_locations or []) if spec else []:
    print(p)
EOF
    done
    ls -d /opt/*/.venv/lib/python3*/site-packages/nvidia/"$1" /usr/local/lib/python3*/dist-packages/nvidia/"$1" \
      /usr/lib/python3/dist-packages/nvidia/"$1" 2>/dev/null || true
  } | awk '!seen[$0]++'
}
shim_from_wheel() {  # shim_from_wheel NAME LIB HEADER SONAME_GLOB: prints the shim dir made, or nothing
  local name=$1 libname=$2 header=$3 d shim=$build_abs/cuda-shim/$1 f
  for d in $(wheel_dirs "$name"); do
    [ -e "$d/include/$header" ] || continue
    compgen -G "$d/lib/lib$libname.so*" >/dev/null || continue
    rm -rf "$shim"
    mkdir -p "$shim/lib"
    ln -s "$d/include" "$shim/include"
    for f in "$d"/lib/*.so*; do ln -s "$f" "$shim/lib/"; done
    # The unversioned name, pointing at the newest versioned one.
    f=$(ls "$d"/lib/lib"$libname".so.* | sort -V | tail -n 1)
    ln -sfn "$f" "$shim/lib/lib$libname.so"
    echo "$shim"
    return 0
  done
}
for spec in "nccl nccl nccl.h NCCL_HOME" "cudnn cudnn cudnn.h CUDNN_HOME"; do
  read -r name libname header var <<<"$spec"
  if [ -n "${!var:-}" ]; then
    say "$name: \$$var=${!var} (given)"
  elif system_has "$libname" "$header"; then
    say "$name: from the CUDA toolkit/system"
  elif [ "$dry_run" = 0 ] && shim=$(shim_from_wheel "$name" "$libname" "$header") && [ -n "$shim" ]; then
    export "$var=$shim"
    export LD_LIBRARY_PATH=$shim/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    say "$name: from the wheel $(readlink -f "$shim/include/..") (\$$var=$shim)"
  else
    say "$name: not found (toolkit, system, wheels); the CUDA configure will say what is missing"
  fi
done

# --- 1. build -------------------------------------------------------------
cmake_args=(-S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRADSYNC_CUDA=ON
  -DGRADSYNC_BUILD_TESTS=ON -DGRADSYNC_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90)
[ -z "$nvcc_bin" ] || cmake_args+=(-DCMAKE_CUDA_COMPILER="$nvcc_bin" -DCUDAToolkit_ROOT="$cuda_root")
if [ -n "${GPU_DEPS:-}" ]; then
  # Name the bundle's tools outright so that nothing from the system is mixed in.
  cmake_args+=(-DPKG_CONFIG_EXECUTABLE="$GPU_DEPS/usr/bin/pkgconf" -DMPI_CXX_COMPILER="$GPU_DEPS/usr/bin/mpicxx"
    -DMPIEXEC_EXECUTABLE="$GPU_DEPS/usr/bin/mpirun")
fi
built=0
if [ "$skip_build" = 1 ]; then
  [ -x "$build/bin/gradsync" ] && built=1
  note build SKIP "--skip-build (using $build as it is)"
else
  t0=$SECONDS status=0
  run_step configure 120 cmake "${cmake_args[@]}" || status=$?
  [ "$dry_run" = 1 ] || cp "$steps/configure.out" "$out/configure.log" 2>/dev/null || true
  if [ "$status" != 0 ]; then
    note build FAIL "configure: $(why configure "$status")"
  else
    cuda_line=$(grep -m1 -E '^-- gradsync: CUDA [0-9]' "$steps/configure.out" || true)
    run_step build "$(cap "${GPU_CHECK_BUILD_TIMEOUT:-360}")" cmake --build "$build" -j "$jobs" || status=$?
    if [ "$status" = 0 ]; then
      built=1
      note build PASS "$((SECONDS - t0)) s on $jobs jobs; ${cuda_line#-- gradsync: }"
    else
      note build FAIL "$(why build "$status") after $((SECONDS - t0)) s"
    fi
  fi
fi
gradsync=$build/bin/gradsync

# The strategies each step runs, as the built binary's table names them (a
# dry run, which builds nothing, asks $GRADSYNC when it is set):
#   host_set    the default set of host strategies (the CPU sanity run)
#   device_set  the strategies that reduce device memory natively (NCCL)
#   baseline    the compute-only baseline; device_sync: the first of device_set
lister=$gradsync
[ -x "$lister" ] || lister=${GRADSYNC:-}
names() {  # without a binary (a dry run elsewhere), a placeholder that says what was asked
  if [ -x "$lister" ]; then "$lister" strategies --names "$@"; else local IFS=_; echo "{names$*}"; fi
}
host_set=$(names --memory host)
device_set=$(names --all --memory device)
baseline=$(names --with-baseline --all | cut -d, -f1)
device_sync=${device_set%%,*}

# What the built binary says it can do (the device strategies usable, and if not why).
if [ "$built" = 1 ] && [ "$dry_run" = 0 ]; then
  run_step strategies "$(cap 30)" "$gradsync" strategies || true
  grep -iE "^(${device_set//,/|}) " "$steps/strategies.out" | sed 's/^/  /' || true
fi

# Launch one rank under mpirun (scripts/mpirun.sh: root allowed, loopback),
# or as an MPI singleton where there is no mpirun.
launch=("$gradsync")
if command -v mpirun >/dev/null; then launch=(bash scripts/mpirun.sh -np 1 "$gradsync"); fi
# Open MPI 4's default launcher (rsh) refuses to start, even for ranks on this
# host only, when neither ssh nor rsh exists (as on the lent machine); the
# "isolated" launcher starts local ranks without them.
if [ -z "${GRADSYNC_HOSTFILE:-}" ] && ! command -v ssh >/dev/null && ! command -v rsh >/dev/null; then
  export OMPI_MCA_plm=isolated
fi
# Shared memory between ranks without cross-memory attach (process_vm_readv),
# which sandboxed kernels (gVisor) may refuse; only the 2-rank CPU sanity
# step moves bytes between ranks, and a few MiB need no single copy.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

gpu_steps=1
if [ -z "$gpu" ] && [ "$force_gpu" = 0 ]; then gpu_steps=0; fi
if [ "$built" = 0 ]; then gpu_steps=0; fi
if [ "$dry_run" = 1 ]; then gpu_steps=1; fi
skip_reason() { [ "$built" = 0 ] && echo "not built" || echo "no GPU visible"; }

# --- CPU sanity: two ranks over MPI and ZeroMQ ---------------------------------
# A few seconds that tell a broken bundle (Open MPI relocation, ZeroMQ,
# OpenBLAS) apart from a GPU problem in the steps that follow.
if [ "$built" = 1 ] && command -v mpirun >/dev/null; then
  status=0
  run_step cpu-sanity "$(cap 60)" bash scripts/mpirun.sh -np 2 "$gradsync" collectives -b 4K -e 1M -f 16 -n 5 -w 1 \
    --strategy "$host_set" || status=$?
  if [ "$dry_run" = 0 ]; then
    [ "$status" = 0 ] && note cpu-sanity PASS "2 ranks: ${host_set//,/, } correct up to 1 MiB" ||
      note cpu-sanity FAIL "$(why cpu-sanity "$status")"
  fi
else
  note cpu-sanity SKIP "$([ "$built" = 0 ] && echo "not built" || echo "no mpirun")"
fi

# --- 2. GPU tests ----------------------------------------------------------
# The test binaries directly (ctest -R would run the same tests, one process
# each, without the skip reasons). Unlike the steps below, the tests also run
# without a GPU: they must skip themselves, with a reason, there.
filter='*Cuda*:*Gpu*:*Nccl*:*Device*:*CUDA*:*GPU*:*NCCL*:*cuda*:*nccl*'
gtest_step() {  # gtest_step NAME LIMIT CMD...: a GoogleTest run, summarized
  local name=$1 limit=$2 status=0 ran bad skipped
  shift 2
  run_step "$name" "$(cap "$limit")" "$@" --gtest_filter="$filter" --gtest_color=no || status=$?
  [ "$dry_run" = 0 ] || return 0
  ran=$(grep -cE '^\[       OK \]' "$steps/$name.out" || true)
  bad=$(grep -cE '^\[  FAILED  \] [A-Za-z_0-9/.]+ \(' "$steps/$name.out" || true)
  skipped=$(grep -cE '^\[  SKIPPED \] [A-Za-z_0-9/.]+ \(' "$steps/$name.out" || true)
  # Which tests the filter caught, each skipped one with its reason (the line
  # after gtest's "Skipped"), and the failed ones, so a PASS can be judged.
  local names
  names=$(grep -oE '^\[ RUN      \] [^ ]+' "$steps/$name.out" | cut -c14- | sort -u | paste -sd' ' - || true)
  [ -z "$names" ] || echo "  $name ran: $names"
  awk '/^\[ RUN      \]/{t=$4} /: Skipped$/{getline r; print "  skipped " t ": " r}' "$steps/$name.out" | sort -u
  grep -E '^\[  FAILED  \] [A-Za-z_0-9/.]+ \(' "$steps/$name.out" | sed 's/^/  /' || true
  local figure="$ran passed, $bad failed, $skipped skipped"
  if [ "$status" != 0 ]; then
    note "$name" FAIL "$figure; $(why "$name" "$status")"
  elif [ $((ran + skipped)) = 0 ]; then
    note "$name" SKIP "no test matches the GPU filter"
  else
    note "$name" "$([ "$ran" = 0 ] && echo SKIP || echo PASS)" "$figure"
  fi
}
if [ "$built" = 1 ]; then
  gtest_step gpu-tests 180 "$build/tests/gradsync_unit_tests" --gtest_output=xml:"$out/gpu-tests.xml"
  # The multi-rank suites are parameterized over every usable strategy, so
  # with a GPU they hold nccl_ring/nccl_tree cases: one rank (one GPU here).
  if command -v mpirun >/dev/null; then
    gtest_step gpu-mpi-tests 180 bash scripts/mpirun.sh -np 1 "$build/tests/gradsync_mpi_tests"
  fi
else
  note gpu-tests SKIP "not built"
fi

# --- 3. NCCL collectives on one rank ----------------------------------------
# One rank: NCCL's allreduce is a local copy and busbw is 0 by definition, so
# the figure is the time and algbw at the largest size; this checks that the
# NCCL path initialises, moves device buffers and passes the exact-sum check.
if [ "$gpu_steps" = 1 ]; then
  status=0
  run_step collectives "$(cap 150)" "${launch[@]}" collectives --strategy "$device_set" -b 8 -e 256M -f 4 \
    --json "$out/collectives.jsonl" || status=$?
  if [ "$dry_run" = 0 ]; then
    # The last row of each strategy's table: "name size count type redop time algbw busbw #wrong".
    figure=$(awk -v names=",$device_set," 'index(names, "," $1 ",") && NF >= 9 {last[$1] = sprintf("%s %s B %s us %s GB/s", $1, $2, $6, $7)}
                  END {for (s in last) printf "%s; ", last[s]}' "$steps/collectives.out")
    [ "$status" = 0 ] && note collectives PASS "${figure%; }" || note collectives FAIL "$(why collectives "$status")"
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
  figure=$(grep -m1 -E '^Total img/sec' "$steps/$name.out" | sed 's/^Total //' || true)
  if [ "$status" = 0 ] && [ -n "$figure" ]; then
    note "$step" PASS "$figure"
  elif [ "$status" = 0 ]; then
    note "$step" FAIL "no 'Total img/sec' line in the output"
  else
    note "$step" FAIL "$(why "$name" "$status")"
  fi
done

# --- 5. summary ------------------------------------------------------------
[ "$dry_run" = 0 ] || exit 0
{
  echo "== gpu-check summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), $((SECONDS - start)) s, commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown))"
  echo "GPU: ${gpu:-none visible}"
  for row in "${summary[@]}"; do
    IFS='|' read -r step status figure <<<"$row"
    printf '%-28s %-4s %s\n' "$step" "$status" "$figure"
  done
} | tee "$out/gpu-check.txt"
echo "gpu-check: full log $log"
if [ "$failed" = 1 ]; then exit 1; fi
if [ -z "$gpu" ] && [ "$no_gpu_ok" = 0 ]; then
  echo "gpu-check: no GPU visible: the GPU steps were not checked (exit 3; --no-gpu-ok accepts that)" >&2
  exit 3
fi
exit 0
