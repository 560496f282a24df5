#pragma once
// Shared by the GPU tests (unit and multi-rank): why a test cannot run here
// (on this process, or on some rank of a job), and, in CUDA builds, a flat device block shaped like a GPU
// model's Model::DeviceState, filled and read from the host.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "strategies/gpu_probe.h"
#include "strategies/gpu_strategies.h"
#include "models/model.h"
#include "strategies/world.h"

#ifdef GRADSYNC_WITH_CUDA
#include <cuda_runtime_api.h>

#include <stdexcept>
#endif

namespace gradsync::testing {

// Empty when this build has CUDA and a GPU is visible; else the reason to skip.
inline std::string no_gpu_reason() {
#ifndef GRADSYNC_WITH_CUDA
  return "not a CUDA build (GRADSYNC_CUDA=OFF or no CUDA toolkit)";
#else
  const GpuProbe probe = probe_gpus();
  return probe.visible_gpus > 0 ? "" : probe.detail;
#endif
}

// For multi-rank GPU tests: this rank's GPU, made the calling thread's
// device, when every rank of `world` has one of its own (select_local_gpu's
// rule); else why not, the same on every rank, so that all ranks skip
// together. Collective over `world`.
struct GpuPerRank {
  int gpu = -1;
  std::string why;  // empty: every rank has its GPU
};
inline GpuPerRank gpu_per_rank(const World& world) {
  GpuPerRank out;
  out.why = no_gpu_reason();
  if (world.min(out.why.empty() ? 1.0 : 0.0) > 0) {  // select_local_gpu is collective
    try {
      out.gpu = select_local_gpu(world);
    } catch (const std::exception& e) {
      out.why = e.what();
    }
  }
  for (const auto& reason : world.allgather(out.why))
    if (!reason.empty()) out.why = reason;
  return out;
}

#ifdef GRADSYNC_WITH_CUDA
inline void cuda_ok(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(rc));
}

// Values and gradients of tensors of `sizes` elements, each kind one
// contiguous device block, with a stream of its own, on `gpu`.
class DeviceBlock {
 public:
  DeviceBlock(int gpu, const std::vector<std::size_t>& sizes) {
    cuda_ok(cudaSetDevice(gpu), "cudaSetDevice");
    std::size_t total = 0;
    for (std::size_t n : sizes) total += n;
    cuda_ok(cudaMalloc(reinterpret_cast<void**>(&values_), (total + 1) * sizeof(float)),
            "cudaMalloc");
    cuda_ok(cudaMalloc(reinterpret_cast<void**>(&grads_), (total + 1) * sizeof(float)),
            "cudaMalloc");
    cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    state_.gpu = gpu;
    state_.stream = stream_;
    state_.values = {values_, total};
    state_.grads = {grads_, total};
    std::size_t offset = 0;
    for (std::size_t n : sizes) {
      state_.grad_of.emplace_back(grads_ + offset, n);
      offset += n;
    }
  }
  ~DeviceBlock() {
    cudaStreamSynchronize(stream_);
    cudaFree(values_);
    cudaFree(grads_);
    cudaStreamDestroy(stream_);
  }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;

  const Model::DeviceState& state() const { return state_; }

  // Queued on the block's stream, as a model's backward would write them.
  void write(std::span<float> device, std::span<const float> host) {
    cuda_ok(cudaMemcpyAsync(device.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice,
                            stream_),
            "cudaMemcpyAsync");
  }
  std::vector<float> read(std::span<const float> device) {
    std::vector<float> host(device.size());
    cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    cuda_ok(cudaMemcpy(host.data(), device.data(), device.size_bytes(), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
    return host;
  }

 private:
  float* values_ = nullptr;
  float* grads_ = nullptr;
  cudaStream_t stream_ = nullptr;
  Model::DeviceState state_;
};
#endif

}  // namespace gradsync::testing
