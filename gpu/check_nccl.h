#pragma once
// CUDA builds only: gpu/check.h's check for NCCL result codes. NCCL's last
// error is per communicator: pass the one the call used (nullptr: none yet).

#include <nccl.h>

#include <string_view>

#include "gpu/check.h"

namespace gradsync {

[[noreturn]] void throw_cuda_error(ncclResult_t rc, ncclComm_t comm, std::string_view call,
                                   std::string_view context = {});

inline void check_cuda(ncclResult_t rc, ncclComm_t comm, std::string_view call,
                       std::string_view context = {}) {
  if (rc != ncclSuccess) [[unlikely]]
    throw_cuda_error(rc, comm, call, context);
}

}  // namespace gradsync
