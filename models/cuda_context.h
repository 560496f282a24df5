#pragma once
// What every layer of a model on one GPU shares (cuda compute only): the
// device, the one stream all work is queued on, the cuDNN and cuBLAS handles
// bound to that stream, the precision, and one convolution workspace (work
// on one stream runs in order, so one workspace serves every layer). Plus
// owning device and pinned host buffers.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include "models/cuda_model.h"
#include "models/model.h"

namespace gradsync {

// Allocation functions for FloatBuffer (they throw on failure; frees never do).
void* cuda_device_alloc(std::size_t bytes);
void cuda_device_free(void* p) noexcept;
void* cuda_pinned_alloc(std::size_t bytes);
void cuda_pinned_free(void* p) noexcept;

// `count` floats from Alloc (uninitialized), given back to Free; move-only.
template <void* (*Alloc)(std::size_t), void (*Free)(void*) noexcept>
class FloatBuffer {
 public:
  FloatBuffer() = default;
  explicit FloatBuffer(std::size_t count)
      : data_(count ? static_cast<float*>(Alloc(count * sizeof(float))) : nullptr), size_(count) {}
  FloatBuffer(FloatBuffer&& other) noexcept { swap(other); }
  FloatBuffer& operator=(FloatBuffer&& other) noexcept {
    FloatBuffer(std::move(other)).swap(*this);
    return *this;
  }
  FloatBuffer(const FloatBuffer&) = delete;
  FloatBuffer& operator=(const FloatBuffer&) = delete;
  ~FloatBuffer() {
    if (data_) Free(data_);
  }
  float* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void swap(FloatBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  float* data_ = nullptr;
  std::size_t size_ = 0;
};

// Device memory (cudaMalloc).
using DeviceBuffer = FloatBuffer<cuda_device_alloc, cuda_device_free>;
// Page-locked host memory (cudaMallocHost), so that copies are truly asynchronous.
using PinnedBuffer = FloatBuffer<cuda_pinned_alloc, cuda_pinned_free>;

class CudaContext {
 public:
  // Throws one line when `gpu` is not usable (cuda_compute_unavailable()).
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
