#pragma once
// Shared by the GPU tests (unit and multi-rank): why a test cannot run here
// (on this process, or on some rank of a job), and, in CUDA builds, a flat
// device block shaped like a GPU model's Model::DeviceState (on the GPU
// floor's DeviceBuffer), filled and read from the host.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "gpu/probe.h"
#include "models/model.h"
#include "strategies/core/local_gpu.h"
#include "strategies/core/world.h"

#ifdef GRADSYNC_WITH_CUDA
#include <cuda_runtime_api.h>

#include "gpu/buffer.h"
#include "gpu/check.h"
#include "gpu/device.h"
#endif

namespace gradsync::testing {

// Empty when this build has CUDA and a GPU is visible; else the reason to skip.
inline std::string no_gpu_reason() {
  const GpuProbe probe = probe_gpus();
  return probe.visible_gpus > 0 ? "" : probe.detail;
}

// For multi-rank GPU tests: this rank's GPU, made the calling thread's
// device, when every rank of `world` can have the one `need` asks for
// (place_local_gpu's rules: ranks may share a GPU unless need.exclusive_for
// names a strategy that needs one per rank); else why not, the same on every
// rank, so that all ranks skip together. Collective over `world`.
struct GpuPerRank {
  int gpu = -1;
  std::string why;  // empty: every rank has its GPU
};
inline GpuPerRank gpu_per_rank(const World& world, const GpuNeed& need = {}) {
  GpuPerRank out;
  out.why = no_gpu_reason();
  if (world.min(out.why.empty() ? 1.0 : 0.0) > 0) {  // select_local_gpu is collective
    try {
      out.gpu = select_local_gpu(world, need);
    } catch (const std::exception& e) {
      out.why = e.what();
    }
  }
  for (const auto& reason : world.allgather(out.why))
    if (!reason.empty()) out.why = reason;
  return out;
}

#ifdef GRADSYNC_WITH_CUDA
// Values and gradients of tensors of `sizes` elements, each kind one
// contiguous device block, with a stream of its own, on `gpu`.
class DeviceBlock {
 public:
  DeviceBlock(int gpu, const std::vector<std::size_t>& sizes)
      : gpu_(bound(gpu)),
        values_(total(sizes) + 1, "test values"),
        grads_(total(sizes) + 1, "test gradients") {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    state_.gpu = gpu_;
    state_.stream = stream_;
    state_.values = {values_.data(), total(sizes)};
    state_.grads = {grads_.data(), total(sizes)};
    std::size_t offset = 0;
    for (std::size_t n : sizes) {
      state_.grad_of.emplace_back(grads_.data() + offset, n);
      offset += n;
    }
  }
  ~DeviceBlock() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;

  const Model::DeviceState& state() const { return state_; }

  // Queued on the block's stream, as a model's backward would write them.
  void write(std::span<float> device, std::span<const float> host) {
    check_cuda(cudaMemcpyAsync(device.data(), host.data(), host.size_bytes(),
                               cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync");
  }
  std::vector<float> read(std::span<const float> device) {
    std::vector<float> host(device.size());
    copy_memory(host.data(), device.data(), device.size_bytes(), stream_, "reading a test block");
    return host;
  }

 private:
  static int bound(int gpu) {
    use_device(gpu);  // the blocks are allocated on it
    return gpu;
  }
  static std::size_t total(const std::vector<std::size_t>& sizes) {
    std::size_t sum = 0;
    for (std::size_t n : sizes) sum += n;
    return sum;
  }

  int gpu_;
  DeviceBuffer values_, grads_;
  cudaStream_t stream_ = nullptr;
  Model::DeviceState state_;
};
#endif

}  // namespace gradsync::testing
