// Error text for the cuda compute backend: each library's own description of
// its return code, after what was being done.
#include "models/cuda_check.h"

#include <stdexcept>
#include <string>

namespace gradsync {
namespace {

[[noreturn]] void fail(std::string_view call, std::string_view context, const std::string& text) {
  throw std::runtime_error(std::string(context) + ": " + std::string(call) + " failed: " + text);
}

}  // namespace

void throw_cuda_error(cudaError_t rc, std::string_view call, std::string_view context) {
  cudaGetLastError();  // clear a non-sticky error so that the next call does not see it
  fail(call, context, cudaGetErrorString(rc));
}

void throw_cudnn_error(cudnnStatus_t rc, std::string_view call, std::string_view context) {
  // cuDNN 9's status names are coarse (CUDNN_STATUS_BAD_PARAM, ..._NOT_SUPPORTED);
  // its last error message on this thread says which argument or limit failed.
  char detail[512] = "";
  cudnnGetLastErrorString(detail, sizeof detail);
  std::string text = cudnnGetErrorString(rc);
  if (detail[0]) text += std::string(" (") + detail + ")";
  fail(call, context, text);
}

void throw_cublas_error(cublasStatus_t rc, std::string_view call, std::string_view context) {
  fail(call, context, cublasGetStatusName(rc));
}

}  // namespace gradsync
