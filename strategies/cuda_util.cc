// CUDA builds only (see strategies/CMakeLists.txt): the choice of this rank's
// GPU, its name, and CUDA errors as exceptions.
#include "strategies/cuda_util.h"

#include <fmt/format.h>

#include <stdexcept>

#include "strategies/gpu_strategies.h"

namespace gradsync {

void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw std::runtime_error(
        fmt::format("{}: {} ({})", what, cudaGetErrorString(rc), cudaGetErrorName(rc)));
}

void use_device(int device) { check_cuda(cudaSetDevice(device), "cudaSetDevice"); }

int select_local_gpu(const World& world, bool needs_gpu) {
  // This rank's index among the ranks of its host that need a GPU.
  const auto needs = world.allgather(needs_gpu ? "1" : "0");
  int index = 0, on_host = 0;
  for (int r = 0; r < world.size(); ++r) {
    if (world.hostnames()[r] != world.hostname() || needs[r] != "1") continue;
    if (r < world.rank()) ++index;
    ++on_host;
  }
  if (!needs_gpu) return -1;
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0)
    throw std::runtime_error(fmt::format("no GPU visible on {} ({})", world.hostname(),
                                         rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices"));
  if (index >= count)
    throw std::runtime_error(fmt::format(
        "{} runs {} ranks that need a GPU but has {} GPU(s) visible: one GPU per rank, so start "
        "at most {} such rank(s) per host (or make more GPUs visible with CUDA_VISIBLE_DEVICES)",
        world.hostname(), on_host, count, count));
  use_device(index);
  return index;
}

std::string gpu_name(int gpu) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, gpu), "cudaGetDeviceProperties");
  return properties.name;
}

}  // namespace gradsync
