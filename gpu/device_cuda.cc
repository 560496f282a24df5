// CUDA builds only: see gpu/device.h.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stdexcept>

#include "gpu/check.h"
#include "gpu/device.h"
#include "gpu/probe.h"

namespace gradsync {

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

std::string gpu_identity(int gpu) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, gpu), "cudaGetDeviceProperties");
  // nvidia-smi's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
  std::string id = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id += '-';
    id += fmt::format("{:02x}", static_cast<unsigned char>(properties.uuid.bytes[i]));
  }
  return id;
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
