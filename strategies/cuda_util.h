#pragma once
// CUDA builds only: CUDA runtime errors as exceptions a user can act on.

#include <cuda_runtime_api.h>

namespace gradsync {

// Throws std::runtime_error "<what>: <CUDA's own text> (<error name>)" unless
// `rc` is cudaSuccess.
void check_cuda(cudaError_t rc, const char* what);

// Makes `device` the calling thread's current device. CUDA keeps the current
// device per thread, so every entry point that may run on another thread (the
// synchronizer's communication thread) calls this first.
void use_device(int device);

}  // namespace gradsync
