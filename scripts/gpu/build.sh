# shellcheck shell=bash
# Step 1 of scripts/gpu-check.sh: configure and build with CUDA into $build
# ($built says whether a binary came of it and starts), the libstdc++ check, then what the steps after it
# share: the strategies they run, as the built binary's table names them,
# how one rank is launched, and whether the GPU steps run ($gpu_steps).
# Sourced by the driver after scripts/gpu/environment.sh.

cmake_args=(-S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRADSYNC_CUDA=ON
  -DGRADSYNC_BUILD_TESTS=ON -DGRADSYNC_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90)
[ -z "$nvcc_bin" ] || cmake_args+=(-DCMAKE_CUDA_COMPILER="$nvcc_bin" -DCUDAToolkit_ROOT="$cuda_root")
if [ -n "${GPU_DEPS:-}" ]; then
  # Name the bundle's tools outright so that nothing from the system is mixed in.
  cmake_args+=(-DPKG_CONFIG_EXECUTABLE="$GPU_DEPS/usr/bin/pkgconf" -DMPI_CXX_COMPILER="$GPU_DEPS/usr/bin/mpicxx"
    -DMPIEXEC_EXECUTABLE="$GPU_DEPS/usr/bin/mpirun")
fi
# The image's libstdc++ against the GLIBCXX versions that the bundle and
# the built binary need: one row, after the build (before it, and in its
# place, when the bundle alone already needs more than this machine has).
libstdcxx=""
for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /lib64 /usr/lib; do
  if [ -e "$d/libstdc++.so.6" ]; then libstdcxx=$(readlink -f "$d/libstdc++.so.6"); break; fi
done
libstdcxx_verdict() { report libstdcxx "${libstdcxx:-/nonexistent/libstdc++.so.6}" ${GPU_DEPS:+"$GPU_DEPS"} "$@"; }
libstdcxx_noted=0
if [ "$dry_run" = 0 ] && [ -n "${GPU_DEPS:-}" ]; then
  verdict=$(libstdcxx_verdict)
  if [ "${verdict%% *}" = FAIL ]; then
    note_verdict libstdc++ "$verdict"
    libstdcxx_noted=1
    no_build=${no_build:-"libstdc++ too old for the bundle"}
  fi
fi

built=0
if [ "$skip_build" = 1 ]; then
  [ -x "$build/bin/gradsync" ] && built=1
  note build SKIP "--skip-build (using $build as it is)"
elif [ -n "$no_build" ]; then
  note build SKIP "$no_build"
elif [ -n "$missing_tools" ]; then
  note build SKIP "tool missing:$missing_tools (not on PATH)"
  lacking=1
elif time_for build 60; then
  t0=$SECONDS status=0
  run_step configure "$(cap 120)" cmake "${cmake_args[@]}" || status=$?
  [ "$dry_run" = 1 ] || cp "$steps/configure.out" "$out/configure.log" 2>/dev/null || true
  if [ "$status" != 0 ]; then
    note_verdict build "$(failure configure "$status" | sed 's/^\([A-Z]*\) /\1 configure: /')"
  elif [ "$configure_only" = 1 ]; then
    note configure PASS "$((SECONDS - t0)) s; $(report cuda-line "$steps/configure.out")"
    note build SKIP "--configure-only (using $build's binaries as they are)"
    [ -x "$build/bin/gradsync" ] && built=1
  else
    run_step build "$(cap "${GPU_CHECK_BUILD_TIMEOUT:-360}")" cmake --build "$build" -j "$jobs" || status=$?
    if [ "$status" = 0 ]; then
      built=1
      note build PASS "$((SECONDS - t0)) s on $jobs jobs; $(report cuda-line "$steps/configure.out")"
    else
      note_verdict build "$(failure build "$status") after $((SECONDS - t0)) s"
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
# A binary that cannot start (a library missing, a loader error) fails here,
# with the loader's line, and the steps that need it say so.
if [ "$built" = 1 ] && [ "$dry_run" = 0 ] && ! "$gradsync" strategies --names >"$steps/starts.out" 2>&1; then
  note binary FAIL "$gradsync does not start: $(grep -m1 . "$steps/starts.out" | cut -c1-160)"
  built=0 no_start=1
fi
host_set=$(names --memory host 2>>"$log" || true)
device_set=$(names --all --memory device 2>>"$log" || true)
baseline=$(names --with-baseline --all 2>>"$log" | cut -d, -f1 || true)
device_sync=${device_set%%,*}

# What the built binary says it can do (the device strategies usable, and if not why).
if [ "$built" = 1 ] && [ "$dry_run" = 0 ]; then
  run_step strategies "$(cap 30)" "$gradsync" strategies || true
  report strategy-lines "$steps/strategies.out" "$device_set" || true
fi
if [ "$libstdcxx_noted" = 0 ] && [ "$dry_run" = 0 ]; then
  if [ -x "$gradsync" ]; then note_verdict libstdc++ "$(libstdcxx_verdict "$gradsync")"; else note_verdict libstdc++ "$(libstdcxx_verdict)"; fi
fi

# Launch one rank under mpirun (scripts/mpirun.sh: root allowed, loopback),
# or as an MPI singleton where there is no mpirun.
launch=("$gradsync")
if command -v mpirun >/dev/null; then launch=(bash scripts/mpirun.sh -np 1 "$gradsync"); fi
# Open MPI 4's default launcher (rsh) refuses to start, even for ranks on this
# host only, when neither ssh nor rsh exists (as in some GPU images); the
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
no_start=${no_start:-0}
skip_reason() {
  if [ "$no_start" = 1 ]; then echo "the binary does not start"
  elif [ "$built" = 0 ]; then echo "not built"
  else echo "no GPU visible"; fi
}
