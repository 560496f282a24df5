// Builds without CUDA (see harness/CMakeLists.txt): the harness's device side
// (gradients in device memory, device SGD, device benchmark buffers) is
// absent, and every entry point says so. CUDA builds compile the *_cuda.cc
// files instead.
#include <stdexcept>
#include <string>

#include "harness/engine/device_mirror.h"
#include "harness/engine/gradient_memory.h"
#include "harness/engine/optimizer.h"

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

struct DeviceSgdMomentum::Device {};

DeviceSgdMomentum::DeviceSgdMomentum(const Model::DeviceState&, SgdOptions options)
    : SgdOptimizer(options) {
  not_built("SGD on device");
}

DeviceSgdMomentum::~DeviceSgdMomentum() = default;

void DeviceSgdMomentum::apply(const SgdCoefficients&) { not_built("SGD on device"); }

DeviceMirror::DeviceMirror(std::size_t) { not_built("device buffers"); }
DeviceMirror::~DeviceMirror() = default;
std::span<float> DeviceMirror::span(std::size_t) { return {}; }
void DeviceMirror::upload(std::span<const float>) {}
void DeviceMirror::download(std::span<float>) {}
void DeviceMirror::zero(std::size_t) {}

}  // namespace gradsync
