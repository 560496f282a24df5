#!/usr/bin/env bash
# Makes .gpu-deps/ (and .gpu-deps.tar.xz): the Debian 12 libraries, headers and
# tools that gradsync needs to build and run, unpacked without installing them,
# for a GPU machine that has a compiler, CMake, ninja and CUDA but none of
# Debian's packages and no network (a bare GPU image; see
# scripts/gpu-check.sh, which uses the bundle when it finds one).
#
#   scripts/gpu-deps.sh            download, unpack, trim, check, pack; prints the sizes
#
# Run it on a Debian 12 machine with network access (apt-get download needs
# only the package lists, no root). What it makes:
#   .gpu-deps/            a relocatable tree: usr/{bin,include,lib,share} and etc/openmpi,
#                         env.sh (source it: sets every path from its own location),
#                         MANIFEST (package versions, the newest glibc symbol it needs)
#   .gpu-deps.tar.xz      the same tree packed: copy this to the GPU machine with
#                         the checkout (a sixth of the size: OpenBLAS alone is
#                         36 MB unpacked); gpu-check unpacks it there
# Both are git-ignored. Open MPI, ZeroMQ, OpenBLAS, fmt, CLI11, nlohmann-json,
# GoogleTest/gmock, libjpeg-turbo and pkgconf are in it; Google Benchmark is not (gpu-check
# builds with GRADSYNC_BUILD_BENCH=OFF), nor matplotlib.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/.gpu-deps
tarball=$root/.gpu-deps.tar.xz
arch=x86_64-linux-gnu

die() { echo "gpu-deps: error: $*" >&2; exit 1; }
command -v apt-get >/dev/null && command -v dpkg >/dev/null || die "needs apt-get and dpkg (a Debian 12 machine)"
. /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] ||
  echo "gpu-deps: warning: this is ${PRETTY_NAME:-not Debian 12}; the bundle is meant to hold Debian 12 (bookworm) packages" >&2
command -v readelf >/dev/null || die "needs readelf (binutils) to check the libraries' dependencies"

# What the build needs (headers, CMake/pkg-config files, tools) and what runs
# (shared libraries, mpirun/orted and their plugins). The runtime list is the
# closure of the libraries' NEEDED entries, not of the packages' Depends: the
# latter drags in ICU, X11, libxml2, OpenCL and InfiniBand stacks (through
# hwloc's plugins and libfabric/UCX, which only some MCA plugins use) that a
# single-host run never loads. check_needed below proves the closure.
packages=(
  # Open MPI 4.1.4: headers, wrappers and their data, mpirun/orted, libraries
  libopenmpi-dev openmpi-bin openmpi-common libopenmpi3
  libpmix2 libmunge2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libudev1
  # ZeroMQ 4.3.4 and cppzmq, with libzmq's own dependencies
  libzmq3-dev libzmq5 cppzmq-dev libsodium23 libpgm-5.3-0 libnorm1 libbsd0 libmd0
  libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 libcom-err2
  # OpenBLAS 0.3.21 (pthread flavour, as libopenblas-dev picks) and its Fortran runtime
  libopenblas-pthread-dev libopenblas0-pthread libgfortran5 libquadmath0
  # header-only or static: fmt (shared), CLI11, nlohmann-json, GoogleTest/gmock
  libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  # CMake's FindPkgConfig needs a pkg-config program; the GPU machine has none
  pkgconf-bin libpkgconf3
  # libjpeg-turbo 2.1.5 (FindJPEG): train --input jpeg decodes real JPEG images
  libjpeg62-turbo-dev libjpeg62-turbo
)

# Sonames every Linux with a C++ compiler has (glibc, the GCC runtime, zlib).
# Anything else a kept file needs must be in the bundle.
base_sonames=" libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2 libutil.so.1
  ld-linux-x86-64.so.2 libstdc++.so.6 libgcc_s.so.1 libz.so.1 "

debs=$(mktemp -d "${TMPDIR:-/tmp}/gradsync-gpu-debs.XXXXXX")
trap 'rm -rf "$debs"' EXIT
echo "gpu-deps: downloading ${#packages[@]} packages"
(cd "$debs" && apt-get download -q "${packages[@]}" >download.log 2>&1) ||
  { cat "$debs/download.log" >&2; die "apt-get download failed (run 'apt-get update' first?)"; }

rm -rf "$bundle" "$tarball"
mkdir -p "$bundle"
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$bundle"; done
(for deb in "$debs"/*.deb; do dpkg-deb -f "$deb" Package Version | paste -sd' '; done) |
  sed 's/Package: //; s/Version: //' >"$bundle/MANIFEST.packages"
unpacked=$(du -sm "$bundle" | cut -f1)

# Debian 12 splits libraries between /lib and /usr/lib (merged-/usr is done on
# the installed system by a symlink, which dpkg -x does not make): fold /lib
# into /usr/lib so that one LD_LIBRARY_PATH entry covers them.
lib=$bundle/usr/lib/$arch
if [ -d "$bundle/lib/$arch" ]; then
  cp -a "$bundle/lib/$arch/." "$lib/"
  rm -rf "${bundle:?}/lib"
fi

# --- trim ----------------------------------------------------------------
# Documentation, manual pages, bug/lint metadata, sources, Fortran and Java
# bindings, OpenSHMEM, and static archives (the shared libraries serve, except
# GoogleTest/gmock, which Debian ships static only).
rm -rf "$bundle"/usr/share/{doc,man,info,lintian,bug,doc-base} "$bundle/usr/src" \
  "$lib/fortran" "$bundle/usr/share/java"
find "$bundle" -name '*.a' ! -name 'libgtest*.a' ! -name 'libgmock*.a' -delete
rm -f "$lib"/openblas-pthread/{libblas,liblapack}.so*
ompi_lib=$lib/openmpi/lib
rm -f "$ompi_lib"/lib{mpi_java,mpi_mpifh,mpi_usempif08,mpi_usempi_ignore_tkr,oshmem,ompitrace}.so* \
  "$lib"/lib{mpi_java,mpi_mpifh,mpi_usempif08,mpi_usempi_ignore_tkr,oshmem,ompitrace}.so* \
  "$ompi_lib"/ompi_monitoring_prof.so "$lib"/libmpi_{mpifh,usempi}*-gfortran.so*
# MCA plugins a single host never loads: InfiniBand/OFI/UCX/PSM transports and
# their common libraries (their libraries are not bundled), OpenSHMEM, MPI-IO
# (ROMIO alone is about 2 MB; gradsync does no MPI file I/O), hierarchical/
# vendor collectives. Open MPI treats a missing plugin as an absent option.
plugins=$ompi_lib/openmpi3
rm -f "$plugins"/mca_{btl_openib,btl_uct,btl_usnic,btl_ofi,mtl_,pml_ucx,pml_cm,osc_ucx,coll_hcoll,coll_fca}*.so \
  "$plugins"/mca_{spml,sshmem,atomic,scoll,memheap,io,fs,fcoll,fbtl,sharedfp}_*.so \
  "$ompi_lib"/libmca_common_{ofi,ucx,verbs,ompio}.so* "$lib"/libmca_common_{ofi,ucx,verbs,ompio}.so*
rm -f "$bundle"/usr/share/openmpi/{osh,shmem}* "$bundle"/usr/share/openmpi/*{f77,f90,fort}*
rm -f "$bundle"/usr/bin/{osh,shmem}* "$bundle"/usr/bin/mpi{f77,f90,fort,javac}* \
  "$bundle"/usr/bin/{aggregate_profile,profile2mat,orte-server,ompi-server}
# PMIx's Slurm plugin is useless here; keep the others (zlib compression, the
# default resource manager).
rm -f "$lib"/pmix2/lib/pmix/pmix_mca_prm_slurm.so

# Debian makes the unversioned names and the generic commands with
# update-alternatives at install time, which dpkg -x skips: make them here,
# relative, so the tree stays relocatable.
ln -sfn openblas-pthread/libopenblas.so.0 "$lib/libopenblas.so.0"
ln -sfn openblas-pthread/libopenblas.so.0 "$lib/libopenblas.so"
mkdir -p "$lib/pkgconfig"
cp "$lib/openblas-pthread/pkgconfig/openblas.pc" "$lib/pkgconfig/openblas.pc"
# jpeglib.h includes jconfig.h, which Debian keeps in the multiarch include
# directory that only Debian's compiler searches: put it beside jpeglib.h.
cp "$bundle/usr/include/$arch/jconfig.h" "$bundle/usr/include/jconfig.h"
for cmd in mpirun mpiexec; do ln -sfn orterun "$bundle/usr/bin/$cmd"; done
for cmd in mpicc mpicxx mpic++ mpiCC; do ln -sfn opal_wrapper "$bundle/usr/bin/$cmd"; done
ln -sfn pkgconf "$bundle/usr/bin/pkg-config"
# The generic wrapper names read <name>-wrapper-data.txt; Debian ships both
# names with the same content, so nothing to add there. mca-params.conf stays
# in etc/openmpi (OPAL_SYSCONFDIR points there).

# pkg-config files name /usr: point them at the bundle wherever it lands, via
# pkgconf's ${pcfiledir}. libzmq's private requirements name .pc files of its
# dependencies that are not bundled (only needed for static linking): drop them.
while IFS= read -r pc; do
  rel=$(realpath --relative-to="$(dirname "$pc")" "$bundle")
  sed -i -E "s#(=|-I|-L)/usr(/|\$)#\1\${pcfiledir}/$rel/usr\2#g" "$pc"
done < <(find "$bundle" -name '*.pc' -type f)
sed -i -E '/^(Requires|Libs)\.private:/d' "$lib/pkgconfig/libzmq.pc"

# --- check: every ELF file's NEEDED sonames are in the bundle or the base ----
# A plugin that needs what is not here is removed (Open MPI skips absent
# plugins); a library or program that does is an error in the package list.
# Repeats until nothing more is removed, since removing one library can
# orphan the plugins that need it.
have_sonames() {
  find "$bundle/usr/lib" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u
}
check_needed() {
  local changed=1 errors f missing have
  while [ "$changed" = 1 ]; do
    changed=0 errors=""
    have=" $(have_sonames | tr '\n' ' ') $base_sonames"
    while IFS= read -r f; do
      missing=""
      for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
        case "$have" in *" $so "*) ;; *) missing+=" $so" ;; esac
      done
      [ -z "$missing" ] && continue
      case "$f" in
        */openmpi3/*|*/pmix/*|*/libmca_common_*|*/krb5/plugins/*)
          rm -f "$f"; changed=1 ;;
        *)
          errors+="gpu-deps: error: ${f#"$bundle"/} needs${missing} (not bundled)"$'\n' ;;
      esac
    done < <(find "$bundle" -type f \( -name '*.so*' -o -path '*/bin/*' \) -exec sh -c \
      'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
  done
  [ -z "$errors" ] || { printf '%s' "$errors" >&2; die "some files need libraries that are not bundled: add their packages"; }
}
check_needed
# Dangling symlinks (to removed files) would confuse find_library.
find "$bundle" -xtype l -delete

# What the build and the runs use must be here (a trim that goes too far
# shows up now, not on the GPU machine).
for f in usr/lib/$arch/libopenblas.so.0 usr/lib/$arch/libopenblas.so usr/include/$arch/openblas-pthread/cblas.h \
  usr/lib/$arch/openmpi/lib/libmpi.so usr/lib/$arch/openmpi/include/mpi.h usr/bin/mpirun usr/bin/orted usr/bin/mpicxx \
  usr/share/openmpi/mpicxx-wrapper-data.txt usr/share/openmpi/help-orterun.txt etc/openmpi/openmpi-mca-params.conf \
  usr/lib/$arch/libzmq.so usr/include/zmq.h usr/include/zmq.hpp usr/lib/$arch/pkgconfig/libzmq.pc \
  usr/lib/$arch/pkgconfig/openblas.pc usr/bin/pkg-config usr/lib/$arch/libfmt.so usr/lib/$arch/cmake/fmt \
  usr/include/CLI/CLI.hpp usr/share/cmake/nlohmann_json usr/lib/$arch/cmake/GTest usr/lib/$arch/libgmock.a \
  usr/include/jpeglib.h usr/include/jconfig.h usr/lib/$arch/libjpeg.so; do
  [ -e "$bundle/$f" ] || die "the trimmed bundle lacks $f"
done

# The newest glibc symbol version any bundled file needs: gpu-check compares
# it with the machine's glibc, so an older system fails with one clear line
# instead of a loader error in the middle of the build.
glibc_needed=$(find "$bundle" -type f \( -name '*.so*' -o -path '*/bin/*' \) -exec sh -c \
  'head -c4 "$1" | grep -q ELF && readelf -V --wide "$1"' _ {} \; 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)

# --- env.sh: the one place that knows the layout ---------------------------
cat >"$bundle/env.sh" <<'EOF'
# Source this file (bash): points the compiler, CMake, pkg-config, the loader
# and a relocated Open MPI at this bundle, wherever it was unpacked.
GPU_DEPS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_l=$GPU_DEPS/usr/lib/x86_64-linux-gnu
export GPU_DEPS
export PATH=$GPU_DEPS/usr/bin:$PATH
export LD_LIBRARY_PATH=$_l:$_l/openmpi/lib:$_l/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CMAKE_PREFIX_PATH=$GPU_DEPS/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export PKG_CONFIG_PATH=$_l/pkgconfig:$GPU_DEPS/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
# Open MPI was configured for /usr: OPAL_* override each of its directories,
# so mpirun, orted, the plugins, the help texts, mca-params.conf and the
# mpicxx wrapper's -I/-L all come from here.
export OPAL_PREFIX=$GPU_DEPS/usr OPAL_EXEC_PREFIX=$GPU_DEPS/usr
export OPAL_BINDIR=$GPU_DEPS/usr/bin OPAL_LIBDIR=$_l/openmpi/lib
export OPAL_INCLUDEDIR=$_l/openmpi/include OPAL_PKGLIBDIR=$_l/openmpi/lib/openmpi3
export OPAL_DATAROOTDIR=$GPU_DEPS/usr/share OPAL_DATADIR=$GPU_DEPS/usr/share
export OPAL_PKGDATADIR=$GPU_DEPS/usr/share/openmpi OPAL_SYSCONFDIR=$GPU_DEPS/etc/openmpi
# PMIx (used by Open MPI) looks for its plugins under its own configured path.
export PMIX_MCA_mca_base_component_path=$_l/pmix2/lib/pmix
export OMPI_MCA_mca_base_component_path=$_l/openmpi/lib/openmpi3
unset _l
EOF

{
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on ${PRETTY_NAME:-unknown}"
  echo "glibc_needed: $glibc_needed"
} >"$bundle/MANIFEST"

# --- pack -----------------------------------------------------------------
# xz -9: the smallest file to copy; unpacking takes a few seconds. -T0: all cores.
tar -C "$root" -cf - .gpu-deps | xz -9 -T0 >"$tarball"
# The sizes: the bundle, and with it the checkout as it would be copied
# (tracked and untracked files that git does not ignore).
mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }
size_dir=$(du -sb "$bundle" | cut -f1)
size_tar=$(stat -c %s "$tarball")
size_tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
echo "gpu-deps: $(wc -l <"$bundle/MANIFEST.packages") packages, ${unpacked} MiB unpacked, $(mib "$size_dir") MiB after trimming"
echo "gpu-deps: .gpu-deps.tar.xz $(mib "$size_tar") MiB, with the checkout $(mib $((size_tar + size_tree))) MiB to copy; needs glibc >= $glibc_needed"
echo "gpu-deps: copy the checkout with .gpu-deps.tar.xz to the GPU machine and run 'bash scripts/gpu-check.sh' there"
