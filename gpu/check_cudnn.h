#pragma once
// CUDA builds only: gpu/check.h's check for cuDNN status codes.

#include <cudnn.h>

#include <string_view>

#include "gpu/check.h"

namespace gradsync {

[[noreturn]] void throw_cuda_error(cudnnStatus_t rc, std::string_view call,
                                   std::string_view context = {});

inline void check_cuda(cudnnStatus_t rc, std::string_view call, std::string_view context = {}) {
  if (rc != CUDNN_STATUS_SUCCESS) [[unlikely]]
    throw_cuda_error(rc, call, context);
}

}  // namespace gradsync
