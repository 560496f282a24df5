// CUDA builds only: see gpu/probe.h.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "gpu/probe.h"

namespace gradsync {

GpuProbe probe_gpus() {
  GpuProbe probe;
  probe.built = true;
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  probe.cuda_version = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  int nccl = 0;
  ncclGetVersion(&nccl);
  probe.nccl_version = std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." +
                       std::to_string(nccl % 100);
  const cudaError_t rc = cudaGetDeviceCount(&probe.visible_gpus);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    probe.visible_gpus = 0;
    probe.no_gpu_reason = cudaGetErrorString(rc);
  } else if (probe.visible_gpus == 0) {
    probe.no_gpu_reason = "CUDA reports no devices";
  }
  probe.detail = probe.visible_gpus > 0
                     ? std::to_string(probe.visible_gpus) + " GPU(s) visible"
                     : "no GPU visible (" + probe.no_gpu_reason + ")";
  return probe;
}

}  // namespace gradsync
