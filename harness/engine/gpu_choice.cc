#include "harness/engine/gpu_choice.h"

#include <exception>

#include "harness/engine/agreement.h"
#include "gpu/device.h"
#include "strategies/core/local_gpu.h"

namespace gradsync {

GpuChoice choose_gpu(const World& world, const GpuNeed& need) {
  GpuChoice gpu;
  std::string error;
  try {
    const LocalGpu local = place_local_gpu(world, need);
    gpu.ordinal = local.ordinal;
    gpu.placement = local.source;
    if (need.needs_gpu) gpu.name = gpu_name(gpu.ordinal);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree_on_failure(world, error, 1);
  return gpu;
}

}  // namespace gradsync
