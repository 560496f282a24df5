// Builds without CUDA (see harness/CMakeLists.txt): the harness's device side
// (gradients in device memory) is absent, and every
// entry point says so. CUDA builds compile the *_cuda.cc files instead.
#include <stdexcept>
#include <string>

#include "gradient_memory.h"

namespace gradsync {
namespace {

[[noreturn]] void not_built(const std::string& what) {
  throw std::runtime_error(what +
                           ": not built (this build has no CUDA: configured with "
                           "GRADSYNC_CUDA=OFF, or no CUDA toolkit with NCCL and cuDNN was found)");
}

}  // namespace

std::unique_ptr<GradientMemory> make_device_gradient_memory(const Model::DeviceState&,
                                                            std::size_t) {
  not_built("gradients in device memory");
}

}  // namespace gradsync
