#!/usr/bin/env bash
# Installs the Debian packages gradsync needs, by what you are about to do:
#
#   scripts/install-deps.sh [build|tests|thorough|peers|smpi]
#
# build     (the default; scripts/build.sh, scripts/quickstart.sh) compilers,
#           CMake, the libraries, GoogleTest and Google Benchmark, matplotlib;
# tests     (scripts/test.sh) also what the command-line tests drive: the
#           emulated cluster's tools (scripts/cluster.sh), a throw-away
#           Slurm (scripts/slurm/up.sh), and SimGrid (below), whose SMPI
#           build the suite's plumbing test runs at 16 simulated ranks;
# thorough  (scripts/test.sh --thorough, what CI runs) also clang and its
#           sanitizer and libFuzzer runtimes, for the sanitized builds, and
#           every peer below (MPICH for build-mpich/);
# peers     (opt-in; never needed by the quickstart or the tests) the
#           libraries users run that gradsync measures beside its own
#           strategies: Gloo (the gloo-* strategies, after a rebuild), and
#           PyTorch with torchvision (scripts/ddp-reference.py, the ddp-gloo
#           reference run: PyTorch DistributedDataParallel on the same models),
#           and MPICH (a second build, GRADSYNC_MPI=mpich, measures its
#           MPI_Allreduce). thorough (CI) installs them too, so that CI builds
#           and tests every one of them.
# smpi      (opt-in; scripts/build-smpi.sh) also SimGrid's SMPI (libsimgrid-dev),
#           the engine of `gradsync collectives --engine smpi`: the suite's
#           own algorithms at hundreds of simulated ranks.
# Debian's MPICH installs beside Open MPI; the build names each library's
# own wrapper and launcher (cmake/GradsyncMpi.cmake), whichever the plain
# mpicxx and mpirun point at.
# Each level but peers and smpi includes the ones before it; peers and smpi include build. Idempotent: packages already
# present are left alone, and apt is not asked again when nothing is missing.
# Run as root (or with sudo available).
#
# It prints one line per phase (refreshing the package lists, installing) and
# writes apt's own output, hundreds of lines on a fresh machine, to a log:
# install-deps.log in the repository's root, or $GRADSYNC_INSTALL_LOG. When
# apt fails, the log's last lines go to stderr, with its name.
set -euo pipefail

level=${1:-build}
build=(
  build-essential cmake ninja-build pkg-config git ccache
  openmpi-bin libopenmpi-dev
  libzmq3-dev cppzmq-dev
  libopenblas-dev
  libbenchmark-dev libgtest-dev libgmock-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libjpeg-dev  # libjpeg-turbo: `train --input jpeg` decodes real JPEG images
  python3 python3-matplotlib
)
smpi=(
  libsimgrid-dev  # SimGrid 3.32's SMPI: smpirun, its mpi.h, libsimgrid (scripts/build-smpi.sh)
)
tests=(
  "${smpi[@]}"
  iproute2 ethtool iperf3 iputils-ping jq util-linux procps  # scripts/cluster.sh
  universal-ctags  # scripts/function-lengths.sh: the function-length check
  slurmctld slurmd slurm-client munge  # scripts/slurm/up.sh: a throw-away Slurm on the emulated cluster (tests/cli/cluster_slurm.sh)
)
mpich=(
  mpich libmpich-dev  # a build against MPICH (GRADSYNC_MPI=mpich: mpicxx.mpich, mpiexec.mpich)
)
peers=(
  libgloo-dev  # the gloo-* strategies (cmake/GradsyncGloo.cmake)
  python3-torch python3-torchvision  # scripts/ddp-reference.py: PyTorch DDP on the zoo's models (ddp-gloo)
  "${mpich[@]}"
)
thorough=(
  clang libclang-rt-14-dev  # the sanitized builds and the fuzz build: clang, libFuzzer and the sanitizer runtimes
  "${peers[@]}"  # MPICH for build-mpich/; Gloo and PyTorch, so that the gloo-* strategies and the DDP reference are tested
)
case $level in
  build) packages=("${build[@]}") ;;
  tests) packages=("${build[@]}" "${tests[@]}") ;;
  thorough) packages=("${build[@]}" "${tests[@]}" "${thorough[@]}") ;;
  peers) packages=("${build[@]}" "${peers[@]}") ;;
  smpi) packages=("${build[@]}" "${smpi[@]}") ;;
  *) echo "install-deps: unknown level '$level' (known: build, tests, thorough, peers, smpi)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages for $level already installed"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo_cmd=(sudo)
fi

log=${GRADSYNC_INSTALL_LOG:-$(cd "$(dirname "$0")/.." && pwd)/install-deps.log}
tail_lines=25
# Runs one phase with its output appended to the log: one line on the screen,
# "install-deps: [i/n] WHAT ... done (N s)"; on failure the log's tail, and
# this script's exit with apt's status.
phase() {
  local what=$1 start=$SECONDS status=0
  shift
  printf 'install-deps: %s ... ' "$what"
  echo "== $what: $*" >>"$log"
  "$@" >>"$log" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    echo "done ($((SECONDS - start)) s)"
    return
  fi
  echo "failed"
  echo "install-deps: the last $tail_lines lines of $log:" >&2
  tail -n "$tail_lines" "$log" | sed 's/^/  /' >&2
  echo "install-deps: error: $what failed (exit $status); apt's whole output is in $log" >&2
  exit "$status"
}

echo "install-deps: ${#missing[@]} of ${#packages[@]} packages for $level missing: ${missing[*]}"
echo "install-deps: apt's output goes to $log"
: >"$log"
export DEBIAN_FRONTEND=noninteractive
phase "[1/2] refreshing the package lists (apt-get update)" \
  "${sudo_cmd[@]}" apt-get update
phase "[2/2] installing them and what they need (apt-get install)" \
  "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
