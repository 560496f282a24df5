// CUDA builds only (see strategies/CMakeLists.txt): the choice of this rank's
// GPU and CUDA errors as exceptions.
#include "cuda_util.h"

#include <fmt/format.h>

#include <stdexcept>

#include "gpu_strategies.h"

namespace gradsync {

void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw std::runtime_error(
        fmt::format("{}: {} ({})", what, cudaGetErrorString(rc), cudaGetErrorName(rc)));
}

void use_device(int device) { check_cuda(cudaSetDevice(device), "cudaSetDevice"); }

int select_local_gpu(const World& world) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0)
    throw std::runtime_error(fmt::format("no GPU visible on {} ({})", world.hostname(),
                                         rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices"));
  if (world.local_rank() >= count)
    throw std::runtime_error(fmt::format(
        "{} runs {} ranks but has {} GPU(s) visible: one GPU per rank, so start at most {} "
        "rank(s) per host (or make more GPUs visible with CUDA_VISIBLE_DEVICES)",
        world.hostname(), world.local_size(), count, count));
  use_device(world.local_rank());
  return world.local_rank();
}

}  // namespace gradsync
