// See device_mirror.h. Every copy and the zeroing are queued on the legacy
// default stream and waited for on the host before they return, so that the
// strategy's own (non-blocking) stream, which does not wait for the legacy
// stream, only ever sees finished memory. The benchmark times only the
// strategy's allreduce, never these.
#include "harness/engine/device_mirror.h"

#include <stdexcept>

#include "gpu/build.h"
#include "gpu/device.h"

namespace gradsync {
namespace {

int current_gpu() {
  if constexpr (!gpu_built()) throw_not_built("device buffers");
  return current_device();
}

}  // namespace

DeviceMirror::DeviceMirror(std::size_t elements)
    : gpu_(current_gpu()), device_(elements, "benchmark buffer") {}

std::span<float> DeviceMirror::span(std::size_t elements) {
  if (elements > device_.size()) throw std::out_of_range("DeviceMirror::span beyond the buffer");
  return {device_.data(), elements};
}

void DeviceMirror::upload(std::span<const float> host) {
  use_device(gpu_);
  copy_memory(span(host.size()).data(), host.data(), host.size_bytes(), nullptr,
              "copying benchmark inputs to the GPU");
}

void DeviceMirror::download(std::span<float> host) {
  use_device(gpu_);
  copy_memory(host.data(), span(host.size()).data(), host.size_bytes(), nullptr,
              "copying allreduce results from the GPU");
}

void DeviceMirror::zero(std::size_t elements) {
  use_device(gpu_);
  zero_device_memory(span(elements).data(), elements * sizeof(float), nullptr,
                     "zeroing the benchmark buffer");
}

}  // namespace gradsync
