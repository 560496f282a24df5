// Builds without CUDA: see device_mirror.h.
#include <stdexcept>

#include "device_mirror.h"

namespace gradsync {

DeviceMirror::DeviceMirror(std::size_t) {
  throw std::runtime_error(
      "device buffers are not built in (configured with GRADSYNC_CUDA=OFF, or no CUDA toolkit "
      "with NCCL and cuDNN was found)");
}
DeviceMirror::~DeviceMirror() = default;
std::span<float> DeviceMirror::span(std::size_t) { return {}; }
void DeviceMirror::upload(std::span<const float>) {}
void DeviceMirror::download(std::span<float>) {}
void DeviceMirror::zero(std::size_t) {}

}  // namespace gradsync
