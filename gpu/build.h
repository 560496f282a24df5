#pragma once
// Whether this gradsync was built with its CUDA parts (GRADSYNC_CUDA, see
// cmake/GradsyncCuda.cmake), and the one wording for what a build without
// them lacks.
//
// Code outside gpu/ that calls a function which only CUDA builds define (the
// *_cuda.cc files; by convention such functions are declared in a nested
// namespace `cuda`, e.g. cuda::make_nccl) calls it under
// `if constexpr (gpu_built())`, and says what is missing with
// throw_not_built() in the other branch. A discarded branch names no function
// that the program must define, so a build without CUDA links without
// stand-ins for them: gpu/absent.cc is the only one.

#include <string>
#include <string_view>

namespace gradsync {

constexpr bool gpu_built() {
#ifdef GRADSYNC_WITH_CUDA
  return true;
#else
  return false;
#endif
}

// Builds without CUDA only (gpu/absent.cc): "not built in (this gradsync was
// built without CUDA: ...)", the reason every GPU entry point gives.
std::string not_built_reason();

// Builds without CUDA only: throws std::runtime_error
// "<what>: <not_built_reason()>".
[[noreturn]] void throw_not_built(std::string_view what);

}  // namespace gradsync
