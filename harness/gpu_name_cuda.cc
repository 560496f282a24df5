// CUDA builds only (see harness/CMakeLists.txt): a device's name from its
// properties.
#include <cuda_runtime_api.h>

#include "cuda_util.h"
#include "gpu_name.h"

namespace gradsync {

std::string gpu_name(int gpu) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, gpu), "cudaGetDeviceProperties");
  return properties.name;
}

}  // namespace gradsync
