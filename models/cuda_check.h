#pragma once
// Return-code checks for the CUDA runtime, cuDNN and cuBLAS (cuda compute
// only). A failure becomes one std::runtime_error line:
//   "<context>: <call> failed: <the library's own text>"
// e.g. "cuda compute, layer conv1: cudnnConvolutionForward failed:
// CUDNN_STATUS_BAD_PARAM". The success path is one comparison.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string_view>

namespace gradsync {

[[noreturn]] void throw_cuda_error(cudaError_t rc, std::string_view call, std::string_view context);
[[noreturn]] void throw_cudnn_error(cudnnStatus_t rc, std::string_view call,
                                    std::string_view context);
[[noreturn]] void throw_cublas_error(cublasStatus_t rc, std::string_view call,
                                     std::string_view context);

inline void check_cuda(cudaError_t rc, std::string_view call, std::string_view context) {
  if (rc != cudaSuccess) [[unlikely]] throw_cuda_error(rc, call, context);
}
inline void check_cudnn(cudnnStatus_t rc, std::string_view call, std::string_view context) {
  if (rc != CUDNN_STATUS_SUCCESS) [[unlikely]] throw_cudnn_error(rc, call, context);
}
inline void check_cublas(cublasStatus_t rc, std::string_view call, std::string_view context) {
  if (rc != CUBLAS_STATUS_SUCCESS) [[unlikely]] throw_cublas_error(rc, call, context);
}

}  // namespace gradsync
