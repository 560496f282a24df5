// CUDA builds only: see device_mirror.h. Every copy is synchronous; the
// benchmark times only the strategy's allreduce, never these.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "strategies/cuda_util.h"
#include "harness/engine/device_mirror.h"

namespace gradsync {

DeviceMirror::DeviceMirror(std::size_t elements) : elements_(elements) {
  check_cuda(cudaGetDevice(&gpu_), "cudaGetDevice");
  if (elements > 0)
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&device_), elements * sizeof(float)),
               ("cudaMalloc of a " + std::to_string(elements * sizeof(float)) +
                "-byte benchmark buffer")
                   .c_str());
}

DeviceMirror::~DeviceMirror() {
  if (device_) {
    cudaSetDevice(gpu_);
    cudaFree(device_);
  }
}

std::span<float> DeviceMirror::span(std::size_t elements) {
  if (elements > elements_) throw std::out_of_range("DeviceMirror::span beyond the buffer");
  return {device_, elements};
}

void DeviceMirror::upload(std::span<const float> host) {
  use_device(gpu_);
  const std::span<float> to = span(host.size());
  if (!host.empty())
    check_cuda(cudaMemcpy(to.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice),
               "copying benchmark inputs to the GPU");
}

void DeviceMirror::download(std::span<float> host) {
  use_device(gpu_);
  const std::span<float> from = span(host.size());
  if (!host.empty())
    check_cuda(cudaMemcpy(host.data(), from.data(), host.size_bytes(), cudaMemcpyDeviceToHost),
               "copying allreduce results from the GPU");
}

void DeviceMirror::zero(std::size_t elements) {
  use_device(gpu_);
  const std::span<float> to = span(elements);
  if (!to.empty())
    check_cuda(cudaMemset(to.data(), 0, to.size_bytes()), "zeroing the benchmark buffer");
}

}  // namespace gradsync
