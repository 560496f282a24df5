#include "harness/engine/gpu_choice.h"

#include <exception>

#include "harness/engine/agreement.h"
#include "gpu/device.h"
#include "strategies/core/local_gpu.h"

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
  agree_on_failure(world, error, 1);
  return gpu;
}

}  // namespace gradsync
