#pragma once
// What every layer of a model on one GPU shares (cuda compute only): the
// device, the one stream all work is queued on, the cuDNN and cuBLAS handles
// bound to that stream, the precision, and one convolution workspace (work
// on one stream runs in order, so one workspace serves every layer). Device
// and pinned buffers are the GPU floor's (gpu/buffer.h).

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <span>
#include <string>

#include "gpu/buffer.h"
#include "models/cuda_model.h"
#include "models/model.h"

namespace gradsync {

class CudaContext {
 public:
  // Throws one line when `gpu` is not usable (gpu_unusable()).
  CudaContext(int gpu, Precision precision);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  int gpu() const { return gpu_; }
  Precision precision() const { return precision_; }
  cudaStream_t stream() const { return stream_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasHandle_t cublas() const { return cublas_; }

  // Makes this context's GPU the calling thread's current device (CUDA keeps
  // one per thread, and the harness may call from any thread).
  void make_current() const;
  // Waits for everything queued on the stream; `context` names the caller
  // in an error.
  void synchronize(std::string_view context) const;

  // Grows the shared workspace to at least `bytes` (waits for queued work
  // before freeing the old one). Layers read workspace() when they queue work.
  void reserve_workspace(std::size_t bytes);
  void* workspace() const { return workspace_.data(); }
  std::size_t workspace_bytes() const { return workspace_.size() * sizeof(float); }

  // Blocking copies for setup and tests (queued on the stream, then waited for).
  void upload(std::span<const float> host, float* device) const;
  void download(const float* device, std::span<float> host) const;

 private:
  void release() noexcept;  // waits for the stream, destroys handles and stream; never throws

  int gpu_;
  Precision precision_;
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  DeviceBuffer workspace_;
};

}  // namespace gradsync
