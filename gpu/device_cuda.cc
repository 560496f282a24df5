// CUDA builds only: see gpu/device.h.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stdexcept>

#include "gpu/check.h"
#include "gpu/device.h"
#include "gpu/probe.h"

namespace gradsync {

int choose_local_gpu(std::string_view host, int index, int on_host) {
  const GpuProbe gpus = probe_gpus();
  const int count = gpus.visible_gpus;
  if (count == 0)
    throw std::runtime_error(fmt::format("no GPU visible on {} ({})", host, gpus.no_gpu_reason));
  if (index >= count)
    throw std::runtime_error(fmt::format(
        "{} runs {} ranks that need a GPU but has {} GPU(s) visible: one GPU per rank, so start "
        "at most {} such rank(s) per host (or make more GPUs visible with CUDA_VISIBLE_DEVICES)",
        host, on_host, count, count));
  use_device(index);
  return index;
}

void use_device(int gpu) {
  check_cuda(cudaSetDevice(gpu), "cudaSetDevice(" + std::to_string(gpu) + ")");
}

int current_device() {
  int gpu = 0;
  check_cuda(cudaGetDevice(&gpu), "cudaGetDevice");
  return gpu;
}

std::string gpu_name(int gpu) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, gpu), "cudaGetDeviceProperties");
  return properties.name;
}

std::string gpu_unusable(int gpu) {
  const GpuProbe gpus = probe_gpus();
  const int count = gpus.visible_gpus;
  if (count == 0) return gpus.detail;
  if (gpu < 0 || gpu >= count)
    return fmt::format("GPU {} does not exist ({} visible, ordinals 0..{})", gpu, count, count - 1);
  return "";
}

}  // namespace gradsync
