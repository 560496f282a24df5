// CUDA builds only: gpu/stream.h's owning stream.
#include <utility>

#include "gpu/check.h"
#include "gpu/stream.h"

namespace gradsync {

CudaStream::CudaStream(std::string_view what) {
  check_cuda(cudaGetDevice(&device_), "cudaGetDevice", what);
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate", what);
}

CudaStream::~CudaStream() {
  if (!stream_) return;
  // Destroyed on its own device, whatever the thread's current one is now.
  int current = device_;
  cudaGetDevice(&current);
  if (current != device_) cudaSetDevice(device_);
  cudaStreamDestroy(stream_);
  if (current != device_) cudaSetDevice(current);
}

CudaStream::CudaStream(CudaStream&& other) noexcept { swap(other); }

CudaStream& CudaStream::operator=(CudaStream&& other) noexcept {
  CudaStream(std::move(other)).swap(*this);
  return *this;
}

void CudaStream::swap(CudaStream& other) noexcept {
  std::swap(device_, other.device_);
  std::swap(stream_, other.stream_);
}

}  // namespace gradsync
