#!/usr/bin/env bash
# Installs every Debian package gradsync needs to build, test and plot.
# Idempotent: packages already present are left alone, and apt is not asked
# again when nothing is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ccache
  clang libclang-rt-14-dev  # scripts/test.sh's fuzz build: clang, libFuzzer and its sanitizers
  openmpi-bin libopenmpi-dev
  libzmq3-dev cppzmq-dev
  libopenblas-dev
  libbenchmark-dev libgtest-dev libgmock-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  python3 python3-matplotlib
  iproute2 ethtool iperf3 iputils-ping jq util-linux procps  # scripts/cluster.sh
  slurmctld slurmd slurm-client munge  # scripts/slurm/up.sh: a throw-away Slurm on the emulated cluster (tests/cli/cluster_slurm.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo_cmd=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
