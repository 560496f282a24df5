// CUDA builds only (see harness/CMakeLists.txt): the stream-bound handle and
// the count check of cublas_util.h.
#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "harness/engine/cublas_util.h"

namespace gradsync {

int blas_count(std::size_t elements, const char* what) {
  if (elements > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error(
        fmt::format("{}: {} elements are more than cuBLAS's int count allows", what, elements));
  return static_cast<int>(elements);
}

BlasHandle::BlasHandle(cudaStream_t stream) {
  check_cuda(cublasCreate(&handle_), "cublasCreate");
  const cublasStatus_t status = cublasSetStream(handle_, stream);
  if (status != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle_);
    check_cuda(status, "cublasSetStream");
  }
  cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_HOST);
}

BlasHandle::~BlasHandle() { cublasDestroy(handle_); }

}  // namespace gradsync
