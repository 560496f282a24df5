#pragma once
// The staging decorator, which lets any strategy take buffers in the other
// kind of memory (staged_cuda.cc, CUDA builds only): in other builds
// make_staged throws the GPU floor's "not built" line.

#include <memory>
#include <string>

#include "gpu/build.h"
#include "strategies/core/strategy.h"

namespace gradsync {

// CUDA builds only (called under `if constexpr (gpu_built())`, see gpu/build.h).
namespace cuda {
std::unique_ptr<Strategy> make_staged(std::unique_ptr<Strategy> inner, MemoryKind buffers);
}  // namespace cuda

// Wraps `inner` (which does not accept `buffers`) so that it takes buffers in
// `buffers` memory: each call copies the buffer into a staging buffer in the
// memory `inner` accepts (pinned host memory, or device memory), runs `inner`
// there and copies the result back. The copies' time is staging_seconds().
inline std::unique_ptr<Strategy> make_staged(std::unique_ptr<Strategy> inner, MemoryKind buffers) {
  if constexpr (gpu_built())
    return cuda::make_staged(std::move(inner), buffers);
  else
    throw_not_built(std::string(inner->name()) + " on device buffers");
}

}  // namespace gradsync
