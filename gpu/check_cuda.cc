// CUDA builds only: the error text of gpu/check.h, for every library in one
// format, each with its own description of the code.
#include <stdexcept>
#include <string>

#include "gpu/check.h"
#include "gpu/check_cudnn.h"
#include "gpu/check_nccl.h"

namespace gradsync {
namespace {

[[noreturn]] void fail(std::string_view call, std::string_view context, std::string_view text,
                       std::string_view detail) {
  std::string line;
  if (!context.empty()) line.append(context).append(": ");
  line.append(call).append(" failed: ").append(text);
  if (!detail.empty()) line.append(" (").append(detail).append(")");
  throw std::runtime_error(line);
}

}  // namespace

void throw_cuda_error(cudaError_t rc, std::string_view call, std::string_view context) {
  cudaGetLastError();
  fail(call, context, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

void throw_cuda_error(cublasStatus_t rc, std::string_view call, std::string_view context) {
  fail(call, context, cublasGetStatusString(rc), cublasGetStatusName(rc));
}

void throw_cuda_error(cudnnStatus_t rc, std::string_view call, std::string_view context) {
  // cuDNN 9's status names are coarse (CUDNN_STATUS_BAD_PARAM, ..._NOT_SUPPORTED);
  // its last error message on this thread says which argument or limit failed.
  char detail[512] = "";
  cudnnGetLastErrorString(detail, sizeof detail);
  fail(call, context, cudnnGetErrorString(rc), detail);
}

void throw_cuda_error(ncclResult_t rc, ncclComm_t comm, std::string_view call,
                      std::string_view context) {
  const char* last = ncclGetLastError(comm);
  fail(call, context, ncclGetErrorString(rc), last ? last : "");
}

}  // namespace gradsync
