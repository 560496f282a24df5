// Error text for the cuda compute backend: each library's own description of
// its return code, after what was being done.
#include "cuda_check.h"

#include <stdexcept>
#include <string>

namespace gradsync {
namespace {

[[noreturn]] void fail(std::string_view call, std::string_view context, const char* text) {
  throw std::runtime_error(std::string(context) + ": " + std::string(call) + " failed: " + text);
}

}  // namespace

void throw_cuda_error(cudaError_t rc, std::string_view call, std::string_view context) {
  cudaGetLastError();  // clear a non-sticky error so that the next call does not see it
  fail(call, context, cudaGetErrorString(rc));
}

void throw_cudnn_error(cudnnStatus_t rc, std::string_view call, std::string_view context) {
  fail(call, context, cudnnGetErrorString(rc));
}

void throw_cublas_error(cublasStatus_t rc, std::string_view call, std::string_view context) {
  fail(call, context, cublasGetStatusName(rc));
}

}  // namespace gradsync
