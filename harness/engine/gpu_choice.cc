#include "harness/engine/gpu_choice.h"

#include <exception>

#include "harness/engine/errors.h"
#include "strategies/gpu_strategies.h"

namespace gradsync {

GpuChoice choose_gpu(const World& world, bool needs_gpu) {
  GpuChoice gpu;
  std::string error;
  try {
    gpu.ordinal = select_local_gpu(world, needs_gpu);
    if (needs_gpu) gpu.name = gpu_name(gpu.ordinal);
  } catch (const std::exception& e) {
    error = e.what();
  }
  for (const auto& e : world.allgather(error))
    if (!e.empty()) throw AgreedError(e, 1);
  return gpu;
}

}  // namespace gradsync
