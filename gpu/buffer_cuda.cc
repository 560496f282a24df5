// CUDA builds only: allocation, release and copies for gpu/buffer.h.
#include <cuda_runtime_api.h>

#include <string>

#include "gpu/buffer.h"
#include "gpu/check.h"

namespace gradsync {

void* device_alloc(std::size_t bytes, std::string_view what) {
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes", what);
  return p;
}

void device_free(void* p) noexcept { cudaFree(p); }

void* pinned_alloc(std::size_t bytes, std::string_view what) {
  void* p = nullptr;
  check_cuda(cudaMallocHost(&p, bytes), "cudaMallocHost of " + std::to_string(bytes) + " bytes",
             what);
  return p;
}

void pinned_free(void* p) noexcept { cudaFreeHost(p); }

void copy_memory(void* to, const void* from, std::size_t bytes, void* stream,
                 std::string_view what) {
  if (bytes == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  check_cuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync", what);
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize", what);
}

void zero_device_memory(void* p, std::size_t bytes, void* stream, std::string_view what) {
  if (bytes == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  check_cuda(cudaMemsetAsync(p, 0, bytes, s), "cudaMemsetAsync", what);
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize", what);
}

}  // namespace gradsync
