#pragma once
// CUDA builds only: the one check of a CUDA library's status code. A failure
// becomes one std::runtime_error line in one format for every library:
//   "<context>: <call> failed: <the library's own text> (<its detail>)"
// e.g. "cuda compute, layer conv1: cudnnConvolutionForward failed:
// CUDNN_STATUS_BAD_PARAM (...)" or "cudaMalloc of 4096 bytes failed: out of
// memory (cudaErrorMemoryAllocation)"; without a context the line starts at
// the call. The detail is the runtime's and cuBLAS's name for the code,
// cuDNN's last error message, NCCL's last error. The success path is one
// comparison.
//
// This header covers the CUDA runtime and cuBLAS (both in the toolkit);
// gpu/check_cudnn.h and gpu/check_nccl.h add the same check for cuDNN and
// NCCL, so that only their users include those libraries' headers.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string_view>

namespace gradsync {

// Also clears a non-sticky runtime error, so that the next call does not see it.
[[noreturn]] void throw_cuda_error(cudaError_t rc, std::string_view call,
                                   std::string_view context = {});
[[noreturn]] void throw_cuda_error(cublasStatus_t rc, std::string_view call,
                                   std::string_view context = {});

inline void check_cuda(cudaError_t rc, std::string_view call, std::string_view context = {}) {
  if (rc != cudaSuccess) [[unlikely]]
    throw_cuda_error(rc, call, context);
}
inline void check_cuda(cublasStatus_t rc, std::string_view call, std::string_view context = {}) {
  if (rc != CUBLAS_STATUS_SUCCESS) [[unlikely]]
    throw_cuda_error(rc, call, context);
}

}  // namespace gradsync
