# shellcheck shell=bash
# The machine scripts/gpu-check.sh runs on, before anything is built: the
# Debian bundle (scripts/gpu-deps.sh) when one came with the checkout, CMake,
# ninja and nvcc on PATH ($missing_tools, $no_build), what the machine is (into the log), whether a GPU is visible
# ($gpu), and where NCCL and cuDNN come from (exported for CMake). Sourced by
# the driver after scripts/gpu/common.sh.

# Why the build cannot be tried here, when it cannot (the bundle is broken
# or too new for this machine, a tool is missing): its row says SKIP with this.
no_build=""
# The Debian bundle (scripts/gpu-deps.sh): unpack the tarball when only it
# came (python3's tarfile where tar has no xz).
if [ ! -d .gpu-deps ] && [ -f .gpu-deps.tar.xz ]; then
  if [ "$dry_run" = 1 ]; then
    echo "[dry-run] would unpack .gpu-deps.tar.xz"
  else
    say "unpacking .gpu-deps.tar.xz"
    tar -xJf .gpu-deps.tar.xz 2>>"$log" ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".")' .gpu-deps.tar.xz 2>>"$log" || {
      rm -rf .gpu-deps
      note bundle FAIL "cannot unpack .gpu-deps.tar.xz (see the log)"
      no_build="the bundle did not unpack"
    }
  fi
fi
if [ -f .gpu-deps/env.sh ]; then
  # shellcheck source=/dev/null
  . .gpu-deps/env.sh
  need=$(sed -n 's/^glibc_needed: //p' .gpu-deps/MANIFEST 2>/dev/null || true)
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  if [ -z "$need" ] || [ -z "$have" ]; then
    note glibc SKIP "cannot tell: the bundle needs ${need:-?}, this machine has ${have:-?} (getconf GNU_LIBC_VERSION)"
  elif [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" != "$need" ]; then
    note glibc FAIL "the bundle needs glibc >= $need, this machine has $have: build gradsync elsewhere and copy the binaries"
    no_build="glibc too old for the bundle"
  else
    note glibc PASS "the bundle needs glibc >= $need, this machine has $have"
  fi
  say "using the Debian bundle $GPU_DEPS"
fi

# CMake and ninja may come as Python packages (as in some GPU images), whose
# commands live in a virtual environment that PATH may not name; nvcc in the
# CUDA toolkit's bin.
for tool in cmake ninja; do
  command -v "$tool" >/dev/null && continue
  for d in /opt/*/.venv/bin /usr/local/bin; do
    if [ -x "$d/$tool" ]; then export PATH=$PATH:$d; break; fi
  done
done
command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH=$PATH:/usr/local/cuda/bin
missing_tools=""
for tool in cmake ninja; do
  command -v "$tool" >/dev/null || missing_tools+=" $tool"
done
[ -z "$missing_tools" ] || say "no${missing_tools} on PATH (nor in /opt/*/.venv/bin): needed to build"

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
if [ -n "$gpu" ]; then
  note gpu PASS "$gpu"
else
  note gpu SKIP "no GPU visible ($(command -v nvidia-smi >/dev/null && echo "nvidia-smi lists none" || echo "no nvidia-smi"), no /dev/nvidia0)"
fi

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
