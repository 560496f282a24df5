#pragma once
// CUDA builds only: a cuBLAS handle that queues its work on a given stream,
// and cuBLAS's int counts (the harness's device gradients and device SGD).
// Status codes are checked with the GPU floor's check_cuda (gpu/check.h).

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/check.h"

namespace gradsync {

// cuBLAS takes int counts; throws naming `what` when `elements` exceeds them.
int blas_count(std::size_t elements, const char* what);

// A cuBLAS handle bound to `stream`, scalars passed from the host. Create it
// with the owning device current.
class BlasHandle {
 public:
  explicit BlasHandle(cudaStream_t stream);
  ~BlasHandle();
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace gradsync
