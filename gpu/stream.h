#pragma once
// CUDA builds only: an owning CUDA stream, made non-blocking (it neither
// waits for the legacy default stream nor makes it wait), on the device
// current when it is made, and destroyed with its owner on that device. The
// one owner of a stream in the tree: a constructor that holds its stream in
// one frees it on every path that throws after it.

#include <cuda_runtime_api.h>

#include <string_view>

namespace gradsync {

class CudaStream {
 public:
  // Throws one line "cudaStreamCreate failed: ..." with `what` as context.
  explicit CudaStream(std::string_view what);
  ~CudaStream();
  CudaStream(CudaStream&& other) noexcept;
  CudaStream& operator=(CudaStream&& other) noexcept;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }

 private:
  void swap(CudaStream& other) noexcept;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace gradsync
