#pragma once
// CUDA builds only: cuBLAS status codes as exceptions, and a handle that
// queues its work on a given stream (the harness's device gradients and
// device SGD).

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace gradsync {

// Throws std::runtime_error "<what>: <cuBLAS's name for the status>" unless
// `status` is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, const char* what);

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
