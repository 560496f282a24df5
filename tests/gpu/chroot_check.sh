#!/usr/bin/env bash
# The Debian bundle (scripts/gpu-deps.sh) tried as a GPU image without
# gradsync's Debian libraries would use it: a minimal root filesystem made of
# copies of this machine's tools that such an image has (bash and coreutils,
# python3 and its standard library, g++ 12 and binutils with the C and C++
# libraries' headers, cmake and its modules, ninja, tar and xz, unshare; no
# ip, and none of Open MPI, ZeroMQ, OpenBLAS, fmt, CLI11, nlohmann-json,
# libjpeg, GoogleTest), the CUDA toolkit mounted read-only, the checkout with
# .gpu-deps.tar.xz, and prebuilt gradsync binaries; then
# "bash scripts/gpu-check.sh --configure-only --no-gpu-ok" inside a chroot, in
# namespaces of its own (mount, PID, and a network with loopback alone: no
# network). There is no GPU there, so the GPU steps must SKIP saying so; the
# check asserts that the run ends in the summary with the expected verdicts:
# the bundle unpacks; glibc and libstdc++ suit it; CMake configures with
# CUDA and finds every library in the bundle (MPI through its relocated
# mpicxx, ZeroMQ through its pkg-config, OpenBLAS, fmt, CLI11, nlohmann-json,
# GoogleTest, libjpeg) and NCCL and cuDNN in the toolkit; the prebuilt
# binary starts on the bundle's libraries; a 2-rank MPI and ZeroMQ run
# passes through the bundle's Open MPI (mpirun.sh bringing loopback up
# without ip); the GPU unit tests run and skip. Then a reduced build there:
# one real source file per bundled library, and one CUDA file, compiled.
#
#   tests/gpu/chroot_check.sh [BUILD_DIR]    (BUILD_DIR: build, with bin/gradsync and
#                                             tests/gradsync_{unit,mpi}_tests built)
#
# Not covered: the whole build and its link (about 10 minutes on 2 cores; on
# the GPU machine it is gpu-check's first step: here --configure-only and the
# reduced build stand in), and anything that needs a GPU. The prebuilt binary's
# own libraries outside the bundle (Gloo and what it links, when this
# machine's build has Gloo; the configure there finds no Gloo and leaves it
# out) are copied in beside it.
#
# Needs root (namespaces, chroot) and the bundle (.gpu-deps.tar.xz, made by
# scripts/gpu-deps.sh, which downloads Debian's packages); without either it
# says so and exits 77 (skipped). Everything it makes lies in one temporary
# folder, removed on every exit (GPU_CHROOT_KEEP=1 keeps it, to look into);
# its mounts exist only in its own mount namespace, so they end with it, on
# failure too. It takes about a minute on 2 cores, most of it the reduced
# build (scripts/test.sh --thorough runs it; it is not in the default suite).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$here/${1:-build}" && pwd)
bundle=${GPU_CHROOT_BUNDLE:-$here/.gpu-deps.tar.xz}
t0=$SECONDS
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (mount and PID namespaces, chroot)"
[ -f "$bundle" ] || skip "no bundle $bundle: make it with scripts/gpu-deps.sh (needs Debian's package mirror)"
for f in bin/gradsync tests/gradsync_unit_tests tests/gradsync_mpi_tests; do
  [ -x "$build/$f" ] || skip "no $build/$f: build it first"
done
unshare --mount --pid --net --fork true 2>/dev/null || skip "unshare --mount --pid --net refused here"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gradsync-gpu-chroot.XXXXXX")
inner=""
cleanup() {  # the namespaces' first process (and so all of them), then the folder
  if [ -n "$inner" ]; then kill "$inner" 2>/dev/null || true; wait "$inner" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
[ -z "${GPU_CHROOT_KEEP:-}" ] || trap - EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
root=$tmp/root
mkdir -p "$root"/{usr/bin,usr/lib/x86_64-linux-gnu,usr/lib64,etc,tmp,proc,sys,dev,root,work/gradsync,usr/local}
for d in bin lib lib64 sbin; do ln -s "usr/$d" "$root/$d"; done
chmod 1777 "$root/tmp"

# copy_path PATH: PATH into the root at the same place, and each link of a
# chain of links (/usr/bin/awk -> /etc/alternatives/awk -> /usr/bin/mawk).
copy_path() {
  local target
  [ -e "$root$1" ] || [ -L "$root$1" ] || { mkdir -p "$root$(dirname "$1")" && cp -a "$1" "$root$1"; }
  if [ -L "$1" ]; then
    target=$(readlink "$1")
    [[ $target = /* ]] || target=$(dirname "$1")/$target
    copy_path "$target"
  fi
}
# copy_elf FILE...: each file and the shared libraries the loader gives it here.
copy_elf() {
  local f lib
  for f in "$@"; do
    copy_path "$f"
    for lib in $(ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
      copy_path "$lib"
    done
  done
}
tools="bash sh env timeout cat sed awk mawk grep head tail sort cut tr tee date mkdir rm cp mv ln ls readlink
  realpath dirname basename nproc uname getconf id sleep xargs wc mktemp tar xz seq stat du find true false
  chmod touch hostname unshare python3 cmake ninja"
for t in $tools; do
  p=$(PATH=/usr/bin:/bin type -P "$t") || fail "this machine has no $t to copy in"
  copy_elf "$p"
done
# The compiler such an image has: Debian's g++ 12 and binutils, with their
# headers (the C and C++ libraries' only), and CMake's modules: each
# package's files as dpkg lists them, then the programs' shared libraries.
toolchain="gcc gcc-12 g++ g++-12 cpp cpp-12 libgcc-12-dev libstdc++-12-dev libc6-dev linux-libc-dev
  libcrypt-dev binutils binutils-x86-64-linux-gnu binutils-common cmake-data libc6 libgcc-s1 libstdc++6"
# shellcheck disable=SC2086
dpkg -L $toolchain 2>/dev/null | sort -u | while IFS= read -r f; do
  if [ -L "$f" ] || [ -f "$f" ]; then echo "${f#/}"; fi
done >"$tmp/toolchain.list"
tar -C / --no-recursion -cf - -T "$tmp/toolchain.list" | tar -C "$root" -xf -
copy_elf /usr/lib/gcc/x86_64-linux-gnu/12/{cc1,cc1plus,collect2,lto-wrapper,lto1} \
  /usr/bin/x86_64-linux-gnu-{as,ld.bfd,g++-12,gcc-12,cpp-12,ar,ranlib,nm,objdump,strip,readelf}
for link in c++ cc cpp; do copy_path "/usr/bin/$link"; done

py=$(readlink -f /usr/bin/python3)
pylib=/usr/lib/$(basename "$py")
tar -C / --exclude='*/test' --exclude='*/tests' --exclude='*/__pycache__' --exclude='*/idlelib' \
  --exclude='*/tkinter' --exclude='*/ensurepip' --exclude='*/site-packages' --exclude='*/dist-packages' \
  -cf - "${pylib#/}" | tar -C "$root" -xf -
copy_elf "$pylib"/lib-dynload/*.so
cuda=$(readlink -f /usr/local/cuda 2>/dev/null || true)
[ -z "$cuda" ] || { mkdir -p "$root$cuda"; ln -sfn "$cuda" "$root/usr/local/cuda"; }
printf 'root:x:0:0:root:/root:/bin/bash\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"

# The checkout as it would be copied (tracked and untracked files that git
# does not ignore), the bundle as it travels (packed), the prebuilt binaries.
git -C "$here" ls-files -z --cached --others --exclude-standard |
  (cd "$here" && xargs -0 tar -cf - --no-recursion 2>/dev/null) | tar -C "$root/work/gradsync" -xf -
cp "$bundle" "$root/work/gradsync/.gpu-deps.tar.xz"
mkdir -p "$root/work/gradsync/build-gpu/bin" "$root/work/gradsync/build-gpu/tests"
cp "$build/bin/gradsync" "$root/work/gradsync/build-gpu/bin/"
cp "$build/tests/gradsync_unit_tests" "$build/tests/gradsync_mpi_tests" "$root/work/gradsync/build-gpu/tests/"
# The binaries' libraries that neither the bundle nor the CUDA toolkit gives
# (Gloo's, with a Gloo build): copied beside them, into the system's folder.
bundled=$(tar -tJf "$bundle" | sed -n 's#.*/\(lib[^/]*\.so[^/]*\)$#\1#p' | sort -u)
for lib in $(ldd "$build/bin/gradsync" "$build/tests/gradsync_unit_tests" "$build/tests/gradsync_mpi_tests" |
  awk '$2 == "=>" && $3 ~ /^\// {print $1 " " $3}' | sort -u | awk '{print $1 "=" $2}'); do
  soname=${lib%%=*} path=${lib#*=}
  grep -qxF "$soname" <<<"$bundled" && continue
  case "$path" in "$cuda"/*|/usr/local/cuda/*) continue ;; esac
  [ -e "$root/usr/lib/x86_64-linux-gnu/$soname" ] || cp -L "$path" "$root/usr/lib/x86_64-linux-gnu/$soname"
done
# None of gradsync's Debian libraries may be in the root outside the bundle.
found=$(find "$root" -path "$root/work" -prune -o \( -name 'libmpi*' -o -name 'libzmq*' -o -name 'libopenblas*' \
  -o -name 'libfmt*' -o -name 'libjpeg*' -o -name 'libgtest*' -o -name 'libsodium*' -o -name 'libopen-pal*' \) -print)
[ -z "$found" ] || fail "the root has gradsync's Debian libraries outside the bundle: $found"
if [ -e "$root/usr/bin/ip" ] || [ -e "$root/usr/bin/mpirun" ]; then fail "the root has ip or mpirun"; fi
echo "chroot_check: root made in $((SECONDS - t0)) s ($(du -sm "$root" | cut -f1) MiB)"

# What runs inside: the check, then a reduced build: the build directory it
# configured, one real source file per bundled library and CUDA compiled
# (each file alone, GRADSYNC_UNITY=OFF), so that the bundle's headers and
# the compile flags its CMake and pkg-config files give are tried. A full
# build would take about 10 minutes on 2 cores; linking is not tried (the
# configure's own MPI test program links against the bundle's libmpi).
cat >"$root/tmp/inside.sh" <<'INSIDE'
cd /work/gradsync || exit 2
timeout 480 bash scripts/gpu-check.sh --configure-only --no-gpu-ok
echo "inside: gpu-check exit $?"
t=$SECONDS
. .gpu-deps/env.sh
cmake build-gpu -DGRADSYNC_UNITY=OFF >/tmp/reconfigure.log 2>&1 || { cat /tmp/reconfigure.log; echo "inside: compile exit 1"; exit 0; }
objects=()
for src in strategies/ps/ps_socket.cc strategies/core/world.cc models/blas_threads.cc harness/engine/jpeg_images.cc \
  harness/cli/strategies_command.cc harness/engine/cluster.cc tests/unit/csv_table_test.cc gpu/probe_cuda.cc; do
  object=$(grep -oE "^build ${src%%/*}/CMakeFiles/[^/]+\.dir/${src#*/}\.o" build-gpu/build.ninja | head -n 1)
  [ -n "$object" ] || { echo "inside: no object for $src in build-gpu/build.ninja"; echo "inside: compile exit 1"; exit 0; }
  objects+=("${object#build }")
done
status=0
timeout 300 ninja -C build-gpu -j "$(nproc)" "${objects[@]}" >/tmp/compile.log 2>&1 || { status=$?; tail -n 30 /tmp/compile.log; }
echo "inside: compile exit $status: ${#objects[@]} files (ZeroMQ, MPI, OpenBLAS, libjpeg, CLI11 and fmt, nlohmann-json, GoogleTest, CUDA) in $((SECONDS - t)) s"
INSIDE

# Inside: new mount, PID and network namespaces; /proc, /sys, a small /dev
# and the CUDA toolkit (read-only) mounted there alone; then the check.
t1=$SECONDS status=0
log=$root/work/gradsync/build-gpu/gpu-check/gpu-check.log
unshare --mount --pid --net --fork --kill-child --propagation private -- bash -c '
  set -e
  root=$1 cuda=$2
  # No network, as in a container without one: loopback alone, up (Open
  # MPI'"'"'s tools warn into their output when no interface is up at all).
  ip link set lo up
  if [ -n "$cuda" ]; then mount --bind "$cuda" "$root$cuda"; mount -o remount,bind,ro "$root$cuda"; fi
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys" 2>/dev/null || true
  mount -t tmpfs -o mode=755 tmpfs "$root/dev"
  for n in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9"; do
    read -r name major minor <<<"$n"
    mknod -m 666 "$root/dev/$name" c "$major" "$minor"
  done
  mkdir "$root/dev/shm" && mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
  exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
    bash /tmp/inside.sh
' bash "$root" "$cuda" >"$tmp/run.out" 2>&1 &
inner=$!
wait "$inner" || status=$?
inner=""
echo "chroot_check: gpu-check and the reduced build ran in the chroot in $((SECONDS - t1)) s"
sed -n '/^== gpu-check summary/,$p' "$tmp/run.out"
grep -E '^  (skipped|gpu-tests ran)' "$tmp/run.out" | cut -c1-200 || true
sed -n '/^=== machine/,/^gpu-check:/p' "$log" 2>/dev/null | head -n 14 || true
# A failed configure says why at its first error.
grep -A12 -m1 '^CMake Error' "$log" 2>/dev/null | sed 's/^/  configure| /' || true
grep -q '^== gpu-check summary' "$tmp/run.out" || fail "no summary: $(tail -n 30 "$tmp/run.out")"
[ "$status" = 0 ] || fail "the chroot's run exited $status: $(tail -n 40 "$tmp/run.out")"
grep -qx "inside: gpu-check exit 0" "$tmp/run.out" ||
  fail "gpu-check did not exit 0 (expected with --no-gpu-ok): $(grep '^inside: gpu-check' "$tmp/run.out")"
grep -q "^inside: compile exit 0:" "$tmp/run.out" ||
  fail "the reduced build failed: $(sed -n '/^inside: gpu-check exit/,$p' "$tmp/run.out" | tail -n 40)"
expect_row() {  # expect_row STEP VERDICT FIGURE-PATTERN
  grep -qE "^$1 +$2 $3" "$tmp/run.out" || fail "no row '$1 $2 $3' in the summary"
}
expect_row glibc PASS "the bundle needs glibc >= [0-9.]+, this machine has [0-9.]+$"
expect_row gpu SKIP "no GPU visible"
expect_row configure PASS "[0-9]+ s; CUDA [0-9]"
expect_row build SKIP "--configure-only"
expect_row 'libstdc\+\+' PASS ""
expect_row cpu-sanity PASS "2 ranks"
expect_row gpu-tests "(PASS|SKIP)" "[0-9]+ passed, 0 failed"
expect_row collectives SKIP "no GPU visible"
expect_row staged SKIP "no GPU visible"
expect_row "train resnet50 b64 fp32" SKIP "no GPU visible"
expect_row "ddp-nccl resnet50 b64 fp32" SKIP "no GPU visible"
grep -q "unpacking .gpu-deps.tar.xz" "$tmp/run.out" || fail "the bundle was not unpacked from the tarball"
! grep -q "mpirun.sh: no private network namespace" "$tmp/run.out" ||
  fail "mpirun.sh ran without a private namespace: $(grep mpirun.sh: "$tmp/run.out")"
json=$root/work/gradsync/build-gpu/gpu-check/gpu-check.json
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["exit"] == 0 and r["steps"], r' "$json" ||
  fail "gpu-check.json is not what the run said"
# Nothing of the namespaces is left on this side.
! grep -qF "$tmp" /proc/self/mountinfo || fail "a mount under $tmp is visible outside its namespace"
echo "chroot_check: the bundle works in a root without gradsync's Debian libraries, without network; $((SECONDS - t0)) s in all"
